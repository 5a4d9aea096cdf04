"""A corpus index: one SQLite file (standard library ``sqlite3`` with FTS5).

:func:`build_index` writes it from a corpus directory (``anachron index``);
:class:`IndexEngine` searches it without loading it (opening reads a few
rows); :func:`load_index` reads it back as a :class:`~anachron.core.Corpus`
for the scorers.  The format is in docs/index.md.

Exactness: the index stores each item's strong and weak terms
(:func:`~anachron.store.memory.item_terms`), already tokenized, in two
contentless FTS5 tables keyed by ``ord``, the item's rank in ``(publish
date, id)`` order.  A search finds, per distinct query word, the items
holding it as a strong (2) or weak (1) term, sums those weights per item in
SQL and orders by ``score DESC, ord``: the in-memory engine's score and tie
order exactly.  The enforced mode bounds ``ord`` by that of the last item
published on or before the as-of date, read from the ``items.day`` index,
so the date filter runs inside the full-text scan.

Staleness: the index records the SHA-256, size and modification time of
each corpus file it was built from.  Opening it while its source directory
exists compares them: a file whose size or time changed is hashed, and one
whose content changed (or that appeared or vanished) makes the index stale,
an :class:`~anachron.core.errors.AnachronError`.  A directory that no longer
exists (an index copied to another machine) is not checked.
"""

from __future__ import annotations

import array
import collections
import datetime as _dt
import hashlib
import json
import os
import sqlite3
import sys
import threading
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple, Sequence

from ..core.jsonio import located_records, record_at
from ..core.validate import Fields, check_unique, describe, positive_int
from ..core.corpus import _ENTITY_FIELDS, _ITEM_FIELDS, _SAMPLE_FIELDS, Corpus, Entity, Item, Sample
from ..core.corpus import _check_links, _entities, _item, _records, _samples
from ..core.dates import known_at
from . import bitmaps
from .engine import count_column, tie_key, top_ords
from ..core.errors import AnachronError
from ..core.facts import parse_facts
from .memory import _check_day, _check_mode, item_terms, tokenize

__all__ = ["FORMAT", "CORPUS_FILES", "IndexEngine", "IndexSummary", "build_index", "fingerprint", "is_index", "load_index"]

FORMAT = "anachron-index 4"  # 4: per-term posting arrays and bitmaps (postings); 3: items keep their facts, entities their fiscal year end
CORPUS_FILES = ("items.jsonl", "entities.jsonl", "samples.jsonl")
SERVED = ("items.jsonl", "entities.jsonl")
_HEADER = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entities(pos INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, valid_from TEXT, valid_to TEXT, doc TEXT NOT NULL);
CREATE TABLE items(ord INTEGER PRIMARY KEY, pos INTEGER NOT NULL UNIQUE, id TEXT NOT NULL UNIQUE, day TEXT NOT NULL, doc TEXT NOT NULL);
CREATE INDEX items_day ON items(day, ord);
CREATE TABLE item_entities(entity TEXT NOT NULL, ord INTEGER NOT NULL, PRIMARY KEY (entity, ord)) WITHOUT ROWID;
CREATE TABLE samples(pos INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, as_of TEXT NOT NULL, doc TEXT NOT NULL);
CREATE VIRTUAL TABLE terms USING fts5(strong, weak, content='', detail=column, tokenize='ascii');
CREATE TABLE vocab(term TEXT PRIMARY KEY, strong INTEGER NOT NULL, weak INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE postings(term TEXT PRIMARY KEY, strong BLOB NOT NULL, weak BLOB NOT NULL, strong_bits BLOB, weak_bits BLOB);
"""

# Per query word (json_each over the column-filtered words): 2 for each item holding it as a strong
# term, 1 as a weak term (weak terms exclude strong ones, so a word counts once per item).
_AGGREGATE = """
SELECT rowid FROM (
    SELECT t.rowid AS rowid, 2 AS w FROM json_each(?1) AS q, terms AS t WHERE t.terms MATCH q.value AND t.rowid <= ?3
    UNION ALL
    SELECT t.rowid, 1 FROM json_each(?2) AS q, terms AS t WHERE t.terms MATCH q.value AND t.rowid <= ?3
) GROUP BY rowid ORDER BY SUM(w) DESC, rowid LIMIT ?4
"""
# Candidates: items holding a rare word (?1, an FTS5 query), scored in full over every query word
# (?2 strong and ?3 weak patterns, each restricted to ?1), all inside the full-text index.
_CANDIDATES = """
SELECT rowid, SUM(w) FROM (
    SELECT t.rowid AS rowid, 2 AS w FROM json_each(?2) AS q, terms AS t WHERE t.terms MATCH q.value AND t.rowid <= ?4
    UNION ALL
    SELECT t.rowid, 1 FROM json_each(?3) AS q, terms AS t WHERE t.terms MATCH q.value AND t.rowid <= ?4
) GROUP BY rowid
"""
_SCAN = "SELECT rowid FROM terms WHERE terms MATCH ?1 AND rowid > ?2 AND rowid <= ?3 ORDER BY rowid LIMIT ?4"
_ARRAYS = "SELECT p.term, p.strong, p.weak FROM json_each(?1) AS q JOIN postings AS p ON p.term = q.value"
# A column's stored bitmap, or its array when it has none (the array of a bitmap column is not read).
_BITS = (
    "SELECT p.term, p.strong_bits, p.weak_bits, CASE WHEN p.strong_bits IS NULL THEN p.strong END, "
    "CASE WHEN p.weak_bits IS NULL THEN p.weak END FROM json_each(?1) AS q JOIN postings AS p ON p.term = q.value"
)
_DOCS = "SELECT i.ord, i.doc FROM json_each(?1) AS q JOIN items AS i ON i.ord = q.value"
_LAST_KNOWN = "SELECT ord FROM items WHERE day <= ? ORDER BY day DESC, ord DESC LIMIT 1"
_MAX_ORD = 2**62
_U32 = next(code for code in "IL" if array.array(code).itemsize == 4)  # a stored posting
_CHUNK = 10_000  # items per batch of inserts


def key(ident: str) -> str:
    """How an id is stored: its JSON string literal, ASCII only (lone surrogates and NUL survive)."""
    return json.dumps(ident, ensure_ascii=True)


def _doc(fields: Mapping[str, Any]) -> str:
    return json.dumps(fields, ensure_ascii=True, separators=(",", ":"))


def item_doc(item: Item) -> str:
    """An item as the index keeps it: its record, known fields first, then its extra fields."""
    return _doc(
        {
            "id": item.id,
            "slice": item.slice,
            "publish_date": item.publish_date.isoformat(),
            "title": item.title,
            "text": item.text,
            "entities": list(item.entities),
            "restates": item.restates,
            **({"facts": [fact.to_dict() for fact in item.facts]} if item.facts else {}),
            **item.extra,
        }
    )


def entity_doc(entity: Entity) -> str:
    day = lambda d: None if d is None else d.isoformat()  # noqa: E731
    fiscal = {"fiscal_year_end": entity.fiscal_year_end} if entity.fiscal_year_end is not None else {}
    return _doc({"id": entity.id, "name": entity.name, "valid_from": day(entity.valid_from), "valid_to": day(entity.valid_to), **fiscal, **entity.extra})


def sample_doc(sample: Sample) -> str:
    return _doc({"id": sample.id, "slice": sample.slice, "as_of": sample.as_of.isoformat(), "input": sample.input, **sample.extra})


def _extra(record: Mapping[str, Any], known: tuple[str, ...]) -> Mapping[str, Any]:
    return MappingProxyType({k: v for k, v in record.items() if k not in known})


def _day(value: str | None) -> _dt.date | None:
    return None if value is None else _dt.date.fromisoformat(value)


def read_item(doc: str) -> Item:
    r = json.loads(doc)
    facts = parse_facts(Fields(f"index item {r['id']}", r)) if "facts" in r else ()  # the corpus's own rule, keys included
    return Item(r["id"], r["slice"], _day(r["publish_date"]), r["title"], r["text"], tuple(r["entities"]), r["restates"], _extra(r, _ITEM_FIELDS), facts)


def read_entity(doc: str) -> Entity:
    r = json.loads(doc)
    return Entity(r["id"], r["name"], _day(r["valid_from"]), _day(r["valid_to"]), _extra(r, _ENTITY_FIELDS), r.get("fiscal_year_end"))


def read_sample(doc: str) -> Sample:
    r = json.loads(doc)
    return Sample(r["id"], r["slice"], _day(r["as_of"]), r["input"], _extra(r, _SAMPLE_FIELDS))


def match_words(query: str) -> list[str]:
    """The distinct query words, sorted: what every SQL engine looks up."""
    return sorted(set(tokenize(query)))


def check_search(query: object, as_of: object, mode: str, k: object) -> None:
    """The in-memory engine's argument checks, in its order."""
    _check_mode(mode)
    positive_int(k, "search: k")
    if not isinstance(query, str):
        raise AnachronError(f"search: query must be a string, got {describe(query)}")
    _check_day(as_of)


def check_fetch(item_id: object, as_of: object, mode: str) -> None:
    _check_day(as_of)
    if not isinstance(item_id, str):
        raise AnachronError(f"fetch: item_id must be a string, got {describe(item_id)}")
    _check_mode(mode)


# -- fingerprints ----------------------------------------------------------------------


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fingerprint(directory: str | os.PathLike[str], names: Sequence[str] = CORPUS_FILES) -> dict[str, dict[str, Any] | None]:
    """``{file name: {"sha256", "size", "mtime_ns"} or None when absent}`` for the corpus files."""
    root = Path(directory)
    out: dict[str, dict[str, Any] | None] = {}
    for name in names:
        path = root / name
        if not path.is_file():
            out[name] = None
            continue
        stat = path.stat()
        out[name] = {"sha256": _sha256(path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    return out


def stale_file(directory: Path, recorded: Mapping[str, Any], names: Iterable[str]) -> str | None:
    """The first of *names* whose content differs from *recorded*, or ``None``.

    A file whose size and modification time match the record is taken as
    unchanged (so opening is not a full read); any other is hashed.
    """
    for name in names:
        if name not in recorded:
            continue  # not part of the index (built without samples)
        was, path = recorded[name], directory / name
        if not path.is_file():
            if was is not None:
                return name
            continue
        if was is None:
            return name
        stat = path.stat()
        if stat.st_size == was["size"] and stat.st_mtime_ns == was["mtime_ns"]:
            continue
        if stat.st_size != was["size"] or _sha256(path) != was["sha256"]:
            return name
    return None


# -- building --------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexSummary:
    """What :func:`build_index` wrote."""

    path: Path
    items: int
    entities: int
    samples: int
    bytes: int


class _Link(NamedTuple):
    """What a build keeps of an item between its two reads: its order, its links, where it is."""

    id: str
    publish_date: _dt.date
    restates: str | None
    line: int
    offset: int


@dataclass(frozen=True)
class _Scanned:
    """A corpus directory checked as :func:`load_corpus` checks it, without holding its items."""

    root: Path
    entities: Mapping[str, Entity]
    samples: Mapping[str, Sample]
    links: Sequence[_Link]  # file order

    def ordered(self) -> Iterator[tuple[int, Item]]:
        """``(file position, item)`` of every item in ``ord`` order, each read again from its line."""
        path = self.root / "items.jsonl"
        order = sorted(range(len(self.links)), key=lambda n: tie_key(self.links[n]))
        try:
            fh = open(path, "rb")
        except OSError as exc:
            raise AnachronError(f"{path}: cannot read: {exc.strerror or exc}") from None
        with fh:
            for pos in order:
                link = self.links[pos]
                where = f"{path}:{link.line}"
                try:
                    f = Fields(where, record_at(fh, path, link.offset, where))
                    item = _item(f, f.text("id"), self.entities)
                except AnachronError:
                    item = None  # checked on the first read: the file is not what it was
                if item is None or (item.id, item.publish_date, item.restates) != link[:3]:
                    raise AnachronError(f"{where}: changed while it was indexed; index again")
                yield pos, item


def _scan(root: Path, *, samples: bool) -> _Scanned:
    """Every record of *root* checked with :func:`load_corpus`'s rules and messages, items one at a
    time: what is kept of each is a :class:`_Link` (an index of a million items needs their
    order, not their texts)."""
    entities = _entities(_records(root / "entities.jsonl", required=False))
    path = root / "items.jsonl"
    if not path.exists():
        _records(path, required=True)  # the missing-file message
    links: dict[str, _Link] = {}
    for where, obj, offset, line in located_records(path):
        f = Fields(where, obj)
        ident = f.text("id")
        if ident in links:
            check_unique(where, "item", ident, {ident: f"{path}:{links[ident].line}"})
        item = _item(f, ident, entities)
        links[ident] = _Link(ident, item.publish_date, item.restates, line, offset)
    _check_links(links, lambda ident: f"{path}:{links[ident].line}")
    tasks = _samples(_records(root / "samples.jsonl", required=False)) if samples else {}
    return _Scanned(root, entities, tasks, list(links.values()))


def source_corpus(corpus_dir: str | os.PathLike[str], *, samples: bool) -> tuple[Path, dict[str, Any], _Scanned]:
    """A corpus directory to index: its path, the fingerprint of its files (taken first), and the
    corpus checked with its items streamed (:class:`_Scanned`; :func:`check_unchanged` after)."""
    root = Path(corpus_dir)
    if not root.is_dir():
        raise AnachronError(f"{root}: not a corpus directory")
    files = fingerprint(root, CORPUS_FILES if samples else SERVED)
    return root, files, _scan(root, samples=samples)


def check_unchanged(root: Path, files: Mapping[str, Any]) -> None:
    """Refuse a corpus whose files are not the ones fingerprinted before it was read (*files*)."""
    if fingerprint(root, list(files)) != files:
        raise AnachronError(f"{root}: changed while it was indexed; index again")


def build_index(
    corpus_dir: str | os.PathLike[str], out: str | os.PathLike[str], *, samples: bool = True
) -> IndexSummary:
    """Index the corpus in *corpus_dir* into the SQLite file *out*, atomically.

    The corpus is validated as every command loads it, but streamed: its
    items are read once to be checked and ordered, and once more, in ``ord``
    order, to be written, so memory holds a few fields per item, not the
    corpus.  The files' fingerprint is taken before and checked after: a
    corpus that changed meanwhile is an error.  The file is written beside
    *out* under a temporary name and renamed over it when complete, so *out*
    is the old index or the new one, never a part.  *samples=False* leaves
    the tasks out (an index only for serving).
    """
    root, files, corpus = source_corpus(corpus_dir, samples=samples)
    target = Path(os.path.realpath(out))
    if target.is_dir():
        raise AnachronError(f"{out}: is a directory")
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _discard(tmp)
        con = sqlite3.connect(tmp)
        try:
            _write(con, corpus, root, files)
        finally:
            con.close()
        check_unchanged(root, files)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except sqlite3.Error as exc:
        raise AnachronError(f"{out}: cannot write the index: {exc}") from None
    except OSError as exc:
        raise AnachronError(f"{out}: cannot write: {exc.strerror or exc}") from None
    finally:
        _discard(tmp)
    return IndexSummary(Path(out), len(corpus.links), len(corpus.entities), len(corpus.samples), target.stat().st_size)


def _discard(path: Path) -> None:
    for leftover in (path, path.with_name(path.name + "-journal")):
        try:
            leftover.unlink()
        except FileNotFoundError:
            pass


def _write(con: sqlite3.Connection, corpus: _Scanned, root: Path, files: Mapping[str, Any]) -> None:
    _require_fts5(con)
    con.execute("PRAGMA journal_mode=OFF")  # a temporary file, renamed when complete
    con.execute("PRAGMA synchronous=OFF")
    con.executescript(_SCHEMA)
    ordered = corpus.ordered()
    size = len(corpus.links)
    lists: dict[str, tuple[array.array, array.array]] = collections.defaultdict(lambda: (array.array(_U32), array.array(_U32)))
    with con:
        con.executemany(
            "INSERT INTO entities VALUES (?, ?, ?, ?, ?)",
            (
                (n, key(e.id), _iso(e.valid_from), _iso(e.valid_to), entity_doc(e))
                for n, e in enumerate(corpus.entities.values())
            ),
        )
        # In chunks, so the rows of one chunk at a time are in memory, not those of the whole corpus.
        for start in range(1, size + 1, _CHUNK):
            chunk = [(n, pos, item) for n, (pos, item) in zip(range(start, start + _CHUNK), ordered)]
            rows = []
            for n, pos, item in chunk:
                strong, weak = item_terms(item, corpus.entities)
                for term in strong:
                    lists[term][0].append(n)  # n grows: every array is in ord order
                for term in weak:
                    lists[term][1].append(n)
                rows.append((n, pos, key(item.id), item.publish_date.isoformat(), item_doc(item), " ".join(sorted(strong)), " ".join(sorted(weak))))
            con.executemany("INSERT INTO items VALUES (?, ?, ?, ?, ?)", (r[:5] for r in rows))
            con.executemany("INSERT INTO terms(rowid, strong, weak) VALUES (?, ?, ?)", ((r[0], r[5], r[6]) for r in rows))
            con.executemany("INSERT INTO item_entities VALUES (?, ?)", ((key(e), n) for n, _, i in chunk for e in dict.fromkeys(i.entities)))
        con.executemany(
            "INSERT INTO samples VALUES (?, ?, ?, ?)",
            ((n, key(s.id), s.as_of.isoformat(), sample_doc(s)) for n, s in enumerate(corpus.samples.values())),
        )
        con.execute("INSERT INTO terms(terms) VALUES ('optimize')")
        # How many items hold each term, per column: what a search plans with (engine.top_ords).
        con.execute("CREATE VIRTUAL TABLE temp.counts USING fts5vocab(main, terms, col)")
        con.execute(
            "INSERT INTO vocab SELECT term, SUM(CASE WHEN col = 'strong' THEN doc ELSE 0 END), "
            "SUM(CASE WHEN col = 'weak' THEN doc ELSE 0 END) FROM temp.counts GROUP BY term"
        )
        con.execute("DROP TABLE temp.counts")
        con.executemany(
            "INSERT INTO postings VALUES (?, ?, ?, ?, ?)",
            ((t, pack(s), pack(w), bitmap(s, size), bitmap(w, size)) for t in sorted(lists) for s, w in [lists[t]]),
        )
        meta = build_meta(root, files, size, len(corpus.entities), len(corpus.samples))
        con.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
    con.execute("ANALYZE")


def pack(ords: array.array) -> bytes:
    """A posting list as stored: the ords, ascending, as unsigned 32-bit little-endian integers."""
    if sys.byteorder == "big":
        ords = array.array(_U32, ords)
        ords.byteswap()
    return ords.tobytes()


DENSE = 256  # a column held by more than one item in this many is stored as a bitmap too


def bitmap(ords: array.array, items: int) -> bytes | None:
    """A posting list as a bitmap (bit ``o % 8`` of byte ``o // 8`` set for each ord ``o``), stored
    beside the array when more than one item in :data:`DENSE` holds the term.  A search over
    bitmaps reads these, and counts the arrays of the other columns (at most ``items / DENSE``
    ords each), turning the counts into a bitmap per score level."""
    if len(ords) * DENSE <= items:
        return None
    bits = bytearray((items >> 3) + 1)
    for o in ords:
        bits[o >> 3] |= 1 << (o & 7)
    return bytes(bits)


def unpack(blob: bytes) -> array.array:
    """The ords of a stored posting list (:func:`pack`)."""
    ords = array.array(_U32)
    ords.frombytes(blob)
    if sys.byteorder == "big":
        ords.byteswap()
    return ords


def _iso(day: _dt.date | None) -> str | None:
    return None if day is None else day.isoformat()


def _require_fts5(con: sqlite3.Connection) -> None:
    try:
        con.execute("CREATE VIRTUAL TABLE temp.probe USING fts5(x)")
        con.execute("SELECT value FROM json_each('[1]')").fetchall()
        con.execute("DROP TABLE temp.probe")
    except sqlite3.OperationalError:
        raise AnachronError(f"the SQLite library here ({sqlite3.sqlite_version}) lacks FTS5 or JSON: an index needs both") from None


# -- opening ---------------------------------------------------------------------------


def is_index(path: str | os.PathLike[str]) -> bool:
    """Whether *path* is a file that starts like a SQLite database."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(_HEADER)) == _HEADER
    except OSError:
        return False


def _connect(path: Path) -> sqlite3.Connection:
    uri = "file:" + urllib.request.pathname2url(str(path.resolve())) + "?mode=ro"
    return sqlite3.connect(uri, uri=True, check_same_thread=False)


def _open(path: str | os.PathLike[str], names: Sequence[str]) -> tuple[sqlite3.Connection, dict[str, str]]:
    """A read-only connection to a fresh index, and its meta table; else one clear error."""
    where = Path(path)
    if not where.is_file():
        raise AnachronError(f"{where}: no such index file")
    if not is_index(where):
        raise AnachronError(f"{where}: not a corpus directory or an Anachron index (not a SQLite database)")
    try:
        con = _connect(where)
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.Error as exc:
        raise AnachronError(f"{where}: not an Anachron index ({exc})") from None
    try:
        check_meta(meta, names, where=str(where), what="index", again=f"--out {where}")
    except AnachronError:
        con.close()
        raise
    return con, meta


def check_meta(meta: Mapping[str, str], names: Sequence[str], *, where: str, what: str, again: str) -> None:
    """Refuse a corpus store of another format, or one whose source files changed (see the module doc).

    *what* names the store (``index``, ``corpus``) and *again* how to rebuild it.
    """
    if meta.get("format") != FORMAT:
        raise AnachronError(f"{where}: not an Anachron {what} of format {FORMAT!r} (found {meta.get('format')!r})")
    source = Path(meta["source"])
    if source.is_dir():
        changed = stale_file(source, json.loads(meta["files"]), names)
        if changed is not None:
            raise AnachronError(
                f"{where}: stale {what}: {source / changed} changed since it was indexed; "
                f"rebuild it with `anachron index {source} {again}`"
            )


def build_meta(root: Path, files: Mapping[str, Any], items: int, entities: int, samples: int) -> dict[str, str]:
    """The ``meta`` rows of a store built from the corpus in *root*."""
    return {
        "format": FORMAT,
        "source": str(root.resolve()),
        "files": json.dumps(files, sort_keys=True),
        "items": str(items),
        "entities": str(entities),
        "samples": str(samples) if "samples.jsonl" in files else "none",
    }


class Connections:
    """One connection per thread, made by *connect*; :meth:`close` closes every one."""

    def __init__(self, connect: Callable[[], Any], first: Any) -> None:
        self._connect = connect
        self._local = threading.local()
        self._local.con = first
        self._all = [first]
        self._guard = threading.Lock()

    def get(self, *, usable: Callable[[Any], bool] = lambda con: True) -> Any:
        con = getattr(self._local, "con", None)
        if con is None or not usable(con):
            con = self._local.con = self._connect()
            with self._guard:
                self._all.append(con)
        return con

    def close(self) -> None:
        with self._guard:
            connections, self._all = self._all, []
        for con in connections:
            con.close()
        self._local = threading.local()


def visible(doc: str | None, as_of: _dt.date, mode: str) -> Item | None:
    """The item stored as *doc*, or ``None`` when there is none or *mode* hides it on *as_of*."""
    if doc is None:
        return None
    item = read_item(doc)
    return item if mode == "unrestricted" or known_at(item.publish_date, as_of) else None


class IndexEngine:
    """Search and fetch over an index file, as :class:`~anachron.core.SearchEngine` does in memory.

    Opening checks the format and freshness and reads nothing else; each
    thread gets its own read-only connection.  Only the ``items``, ``terms``
    and ``vocab`` tables are read: never ``samples``.
    """

    _bitmaps = True  # False: the planner of full-text queries (engine.top_ords, as PostgreSQL's), kept to measure beside
    CACHE_BYTES = 64 << 20  # posting arrays and bitmaps kept between searches (see _Cache)

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.source = str(path)
        con, self.meta = _open(self.path, SERVED)
        self._connections = Connections(lambda: _connect(self.path), con)
        self._cache = _Cache(self.CACHE_BYTES)

    def _con(self) -> sqlite3.Connection:
        return self._connections.get()

    def _bound(self, as_of: _dt.date, mode: str) -> int:
        if mode == "unrestricted":
            return _MAX_ORD
        row = self._con().execute(_LAST_KNOWN, (as_of.isoformat(),)).fetchone()
        return 0 if row is None else row[0]

    def search(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5) -> list[Item]:
        """The top *k* items for *query*, best first, as seen on *as_of* in *mode* (see the module doc)."""
        check_search(query, as_of, mode, k)
        words = match_words(query)
        bound = self._bound(as_of, mode)
        if not words or bound == 0:
            return []
        con = self._con()
        ords = top_ords(_Postings(con, bound, int(self.meta["items"]), self._cache), words, min(k, _MAX_ORD), use_bitmaps=self._bitmaps)
        docs = dict(con.execute(_DOCS, (json.dumps(ords),)).fetchall())
        return [read_item(docs[o]) for o in ords]

    def fetch(self, item_id: str, *, as_of: _dt.date, mode: str = "unrestricted") -> Item | None:
        """The item *item_id*, or ``None`` when it is unknown or not visible in *mode*."""
        check_fetch(item_id, as_of, mode)
        row = self._con().execute("SELECT doc FROM items WHERE id = ?", (key(item_id),)).fetchone()
        return visible(row and row[0], as_of, mode)

    def extremes(self) -> list[Item]:
        """The earliest and the latest item (first and last ``ord``)."""
        rows = self._con().execute(
            "SELECT doc FROM items WHERE ord IN ((SELECT min(ord) FROM items), (SELECT max(ord) FROM items)) ORDER BY ord"
        ).fetchall()
        return [read_item(doc) for (doc,) in rows]

    def close(self) -> None:
        """Close every thread's connection (a thread that searches again reconnects)."""
        self._connections.close()


def _phrase(word: str) -> str:
    return f'"{word}"'  # words are [a-z0-9]+: a quoted FTS5 string needs no escaping


def _pattern(pattern: Sequence[tuple[str, int]]) -> str:
    """An FTS5 query for a pattern: 2 -> the word in ``strong``, 1 -> in ``weak``, 0 -> in neither."""
    column = {2: "strong", 1: "weak"}
    query = " AND ".join(f"{column[w]} : {_phrase(word)}" for word, w in pattern if w)
    for word, w in pattern:
        if not w:
            query = f"({query}) NOT {_phrase(word)}"
    return query


class _Postings:
    """:class:`~anachron.store.engine.BitmapPostings` over one connection, items up to ``ord`` *bound*.

    ``partials`` reads the words' ord arrays, ``columns`` their bitmaps: the
    stored ones (columns held by more than one item in :data:`DENSE`), and one
    per score level made from counting the other, short, columns
    (:func:`.bitmaps.from_scores`).  Both kinds are kept between searches in
    the engine's cache, apart, so a search over bitmaps never holds a long array.
    """

    def __init__(self, con: sqlite3.Connection, bound: int, items: int, cache: "_Cache | None" = None) -> None:
        self.con, self.bound, self.items = con, bound, items
        self._cache = cache or _Cache(0)

    def _arrays(self, words: Sequence[str]) -> list[tuple[array.array, array.array]]:
        """Each word's (strong, weak) ords, ascending: all items, not bounded."""
        found = {w: self._cache.get(("ords", w)) for w in words}
        missing = [w for w, kept in found.items() if kept is None]
        if missing:
            for term, strong, weak in self.con.execute(_ARRAYS, (json.dumps(missing),)):
                found[term] = (unpack(strong), unpack(weak))
                self._cache.put(("ords", term), found[term])
        return [found[w] or _NONE for w in words]

    def partials(self, words):
        score: collections.Counter[int] = collections.Counter()
        for strong, weak in self._arrays(words):
            count_column(score, strong, 2, self.bound + 1)  # a word is strong or weak in an item, never both
            count_column(score, weak, 1, self.bound + 1)
        return score

    def columns(self, words):
        found = {w: self._cache.get(("bits", w)) for w in words}
        missing = [w for w, kept in found.items() if kept is None]
        if missing:
            for term, strong_bits, weak_bits, strong, weak in self.con.execute(_BITS, (json.dumps(missing),)):
                # Per column: its stored bitmap as an int, or (no bitmap: a short column) its ords.
                found[term] = tuple(
                    int.from_bytes(bits, "little") if bits is not None else unpack(ords)
                    for bits, ords in ((strong_bits, strong), (weak_bits, weak))
                )
                self._cache.put(("bits", term), found[term])
        columns, counted = [], collections.Counter()
        for w in words:
            for column, weight in zip(found[w] or (), (2, 1)):
                if isinstance(column, int):
                    columns.append((column, weight))
                    continue
                count_column(counted, column, weight, self.bound + 1)
        return columns + bitmaps.from_scores(counted)

    def visible(self):
        return (1 << (min(self.bound, self.items) + 1)) - 1

    def frequencies(self, words):
        rows = self.con.execute("SELECT v.term, v.strong, v.weak FROM json_each(?) AS q JOIN vocab AS v ON v.term = q.value", (json.dumps(list(words)),))
        return {term: (strong, weak) for term, strong, weak in rows}

    def candidates(self, words, query):
        # A rare word's own postings are candidates; another word's are read only where they meet them.
        held = " OR ".join(map(_phrase, words))
        within = {w: "" if w in words else f" AND ({held})" for w in query}
        strong = json.dumps([f"strong : {_phrase(w)}{within[w]}" for w in query])
        weak = json.dumps([f"weak : {_phrase(w)}{within[w]}" for w in query])
        return self.con.execute(_CANDIDATES, (held, strong, weak, self.bound))

    def scan(self, patterns, after, limit):
        query = " OR ".join(f"({_pattern(p)})" for p in patterns)
        return [o for (o,) in self.con.execute(_SCAN, (query, after, self.bound, limit))]

    def aggregate(self, words, k):
        strong = json.dumps([f"strong : {_phrase(w)}" for w in words])
        weak = json.dumps([f"weak : {_phrase(w)}" for w in words])
        return [o for (o,) in self.con.execute(_AGGREGATE, (strong, weak, self.bound, k))]


_NONE = (array.array(_U32), array.array(_U32))  # a word no item holds


class _Cache:
    """The postings of the words searched last, up to *limit* bytes (least recently used out).

    Keys are ``("ords", word)`` (the word's two ord arrays) and ``("bits", word)``
    (its two column bitmaps, as ints).  Shared by an engine's threads (a lock
    guards it); what it holds is never changed once read.
    """

    def __init__(self, limit: int) -> None:
        self.limit, self.used = limit, 0
        self._kept: collections.OrderedDict[object, object] = collections.OrderedDict()
        self._guard = threading.Lock()

    def get(self, key: object) -> Any:
        with self._guard:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
            return kept

    def put(self, key: object, value: object) -> None:
        size = _size(value) + _ENTRY
        if size > self.limit:
            return
        with self._guard:
            if key in self._kept:
                return
            self._kept[key] = value
            self.used += size
            while self.used > self.limit:
                _, old = self._kept.popitem(last=False)
                self.used -= _size(old) + _ENTRY


# Bytes an entry costs beyond its payload: its key, the tuple and array headers, the dict's node
# (about 280 measured by tracemalloc on CPython 3.11).  Without it, rows of one posting each would be
# counted 4 bytes apiece, and a cache "of 64 MB" could hold some 7 GB of them.
_ENTRY = 320


def _size(value: object) -> int:
    """Bytes held by a cached value (a tuple of arrays, or of ints)."""
    if isinstance(value, tuple):
        return sum(_size(part) for part in value if part is not None)
    if isinstance(value, array.array):
        return len(value) * value.itemsize
    return (value.bit_length() + 7) >> 3  # type: ignore[union-attr]


def load_index(path: str | os.PathLike[str], *, samples: bool = True) -> Corpus:
    """The :class:`Corpus` an index was built from, items in file order (for the scorers).

    Entities and samples are read whole; the items are an :class:`IndexItems`,
    read when asked for, so scoring against an index of a million items holds
    the items its traces name, not the corpus.  With ``samples=False`` the
    ``samples`` table is not read, and ``samples.jsonl`` of the source is
    not checked.
    """
    con, meta = _open(path, CORPUS_FILES if samples else SERVED)
    try:
        entities = {e.id: e for e in map(read_entity, _column(con, "SELECT doc FROM entities ORDER BY pos"))}
        tasks = {s.id: s for s in map(read_sample, _column(con, "SELECT doc FROM samples ORDER BY pos"))} if samples else {}
    except (sqlite3.Error, ValueError, KeyError, TypeError) as exc:
        raise AnachronError(f"{path}: a damaged index ({type(exc).__name__}: {exc})") from None
    finally:
        con.close()
    items = IndexItems(path, int(meta["items"]))
    return Corpus(items, MappingProxyType(entities), MappingProxyType(tasks), source=str(path))


class StoredItems(Mapping[str, Item]):
    """The items of a corpus store as a read-only mapping id -> :class:`Item`, in file order,
    read when asked for (the scorers' view of a large corpus).

    A lookup (``items[id]``, ``get``, ``in``) reads one row by its id and
    keeps the last :attr:`CACHE` answers; iterating reads the ids in file
    order; ``values()`` and ``items()`` read every document once, in file
    order, holding none.  :meth:`with_facts` reads only the items that
    declare facts (what :attr:`Corpus.fact_sources` needs).  Each thread and
    each forked process has its own connection.  A store says how it
    connects and queries (:class:`IndexItems`, SQLite;
    :class:`anachron.store.postgres.PostgresItems`).
    """

    CACHE = 65_536  # items (or absent ids) kept
    # The store's queries: one item's document by its stored id; the stored ids, then the
    # documents, in file order; (pos, doc) of the documents holding the text '"facts":'.
    BY_ID = IDS = DOCS = WITH_FACTS = ""
    DAMAGED = "a damaged store"  # what a document that does not read as an item makes of the store

    def __init__(self, where: str, count: int) -> None:
        self._where, self._count = where, count
        self._kept: collections.OrderedDict[str, Item | None] = collections.OrderedDict()
        self._guard = threading.Lock()
        self._pid, self._connections = -1, None  # opened at the first read (in this process)

    def _connect(self) -> Any:
        raise NotImplementedError

    def _usable(self, con: Any) -> bool:
        return True

    def _execute(self, con: Any, sql: str, args: tuple) -> Iterable[tuple]:
        return con.execute(sql, args)

    def _failed(self, exc: Exception) -> AnachronError | None:
        """The error a failure of the store's driver is, or ``None`` when *exc* is not one."""
        raise NotImplementedError

    def _rows(self, sql: str, *args: object) -> Iterator[tuple]:
        with self._guard:
            if self._pid != os.getpid():  # a forked child must not use its parent's connection
                self._pid, self._connections = os.getpid(), Connections(self._connect, self._connect())
            connections = self._connections
        try:
            yield from self._execute(connections.get(usable=self._usable), sql, args)  # type: ignore[union-attr]
        except Exception as exc:
            failed = self._failed(exc)
            if failed is None:
                raise
            raise failed from None

    def _read(self, doc: str) -> Item:
        try:
            return read_item(doc)
        except (ValueError, KeyError, TypeError) as exc:
            raise AnachronError(f"{self._where}: {self.DAMAGED} ({type(exc).__name__}: {exc})") from None

    def get(self, ident: object, default: Any = None) -> Any:
        if not isinstance(ident, str):
            return default
        with self._guard:
            if ident in self._kept:
                self._kept.move_to_end(ident)
                found = self._kept[ident]
                return default if found is None else found
        found = next(iter([self._read(doc) for (doc,) in self._rows(self.BY_ID, key(ident))]), None)  # every row read
        with self._guard:
            self._kept[ident] = found
            while len(self._kept) > self.CACHE:
                self._kept.popitem(last=False)
        return default if found is None else found

    def __getitem__(self, ident: str) -> Item:
        found = self.get(ident)
        if found is None:
            raise KeyError(ident)
        return found

    def __contains__(self, ident: object) -> bool:
        return self.get(ident) is not None

    def __iter__(self) -> Iterator[str]:
        return (json.loads(stored) for (stored,) in self._rows(self.IDS))

    def __len__(self) -> int:
        return self._count

    def values(self) -> Iterator[Item]:  # type: ignore[override]
        return (self._read(doc) for (doc,) in self._rows(self.DOCS))

    def items(self) -> Iterator[tuple[str, Item]]:  # type: ignore[override]
        return ((item.id, item) for item in self.values())

    def with_facts(self) -> Iterator[tuple[int, Item]]:
        """``(file position, item)`` of every item declaring facts, in file order.

        A stored document holds ``"facts":`` (quotes unescaped) only as a
        key, so the rows holding that text are a superset of those items,
        each then read and kept only when it has facts.
        """
        for pos, doc in self._rows(self.WITH_FACTS):
            item = self._read(doc)
            if item.facts:
                yield pos, item

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._where!r}, {self._count} items)"


class IndexItems(StoredItems):
    """:class:`StoredItems` of an index file (read-only connections)."""

    BY_ID = "SELECT doc FROM items WHERE id = ?"
    IDS = "SELECT id FROM items ORDER BY pos"
    DOCS = "SELECT doc FROM items ORDER BY pos"
    WITH_FACTS = "SELECT pos, doc FROM items WHERE instr(doc, '\"facts\":') ORDER BY pos"
    DAMAGED = "a damaged index"

    def __init__(self, path: str | os.PathLike[str], count: int) -> None:
        super().__init__(str(path), count)
        self._path = Path(path)

    def _connect(self) -> sqlite3.Connection:
        return _connect(self._path)

    def _failed(self, exc: Exception) -> AnachronError | None:
        if isinstance(exc, sqlite3.Error):
            return AnachronError(f"{self._where}: {self.DAMAGED} ({type(exc).__name__}: {exc})")
        return None


def _column(con: sqlite3.Connection, sql: str) -> Iterable[str]:
    return (row[0] for row in con.execute(sql))
