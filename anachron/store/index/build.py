"""Building an index: a corpus directory checked, streamed and written into one SQLite file.

:func:`build_index` (``anachron index DIR --out FILE``) validates the corpus
with :func:`anachron.core.corpus.load_corpus_dir`'s rules and messages, but
streams its items (:func:`source_corpus`): memory holds a few fields per
item, not the corpus.  :func:`source_corpus` is shared with the PostgreSQL
loader (:func:`anachron.store.postgres.load_to_postgres`).  The tables are in
docs/index.md.
"""

from __future__ import annotations

import array
import collections
import datetime as _dt
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Sequence

from anachron.core.corpus import Entity, Item, Sample, check_links, corpus_records, parse_entities, parse_item, parse_samples
from anachron.core.errors import AnachronError
from anachron.core.jsonio import located_records, record_at
from anachron.core.validate import Fields, check_unique
from anachron.store.engine import tie_key
from anachron.store.terms import item_terms
from anachron.store.index.codec import entity_doc, item_doc, key, sample_doc, stored_day
from anachron.store.index.fingerprint import CORPUS_FILES, SERVED, build_meta, check_unchanged, fingerprint
from anachron.store.index.postings import RANK_ARRAYS, U32, bitmap, pack, pack_groups

__all__ = ["IndexSummary", "ScannedCorpus", "build_index", "source_corpus"]

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entities(pos INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, valid_from TEXT, valid_to TEXT, doc TEXT NOT NULL);
CREATE TABLE items(ord INTEGER PRIMARY KEY, pos INTEGER NOT NULL UNIQUE, id TEXT NOT NULL UNIQUE, day TEXT NOT NULL, doc TEXT NOT NULL);
CREATE INDEX items_day ON items(day, ord);
CREATE TABLE item_entities(entity TEXT NOT NULL, ord INTEGER NOT NULL, PRIMARY KEY (entity, ord)) WITHOUT ROWID;
CREATE TABLE samples(pos INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, as_of TEXT NOT NULL, doc TEXT NOT NULL);
CREATE VIRTUAL TABLE terms USING fts5(strong, weak, content='', detail=column, tokenize='ascii');
CREATE TABLE vocab(term TEXT PRIMARY KEY, strong INTEGER NOT NULL, weak INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE postings(term TEXT PRIMARY KEY, strong BLOB NOT NULL, weak BLOB NOT NULL, strong_bits BLOB, weak_bits BLOB,
    strong_groups BLOB, weak_groups BLOB);
CREATE TABLE ranking(name TEXT PRIMARY KEY, data BLOB NOT NULL);
"""
_CHUNK = 10_000  # items per batch of inserts


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
class ScannedCorpus:
    """A corpus directory checked as :func:`~anachron.core.corpus.load_corpus_dir` checks it, without holding its items."""

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
                    item = parse_item(f, self.entities)
                except AnachronError:
                    item = None  # checked on the first read: the file is not what it was
                if item is None or (item.id, item.publish_date, item.restates) != link[:3]:
                    raise AnachronError(f"{where}: changed while it was indexed; index again")
                yield pos, item


def _scan(root: Path, *, samples: bool) -> ScannedCorpus:
    """Every record of *root* checked with :func:`~anachron.core.corpus.load_corpus_dir`'s rules and messages, items one at a
    time: what is kept of each is a :class:`_Link` (an index of a million items needs their
    order, not their texts)."""
    entities = parse_entities(corpus_records(root / "entities.jsonl", required=False))
    path = root / "items.jsonl"
    if not path.exists():
        corpus_records(path, required=True)  # the missing-file message
    links: dict[str, _Link] = {}
    for where, obj, offset, line in located_records(path):
        f = Fields(where, obj)
        ident = f.text("id")
        if ident in links:
            check_unique(where, "item", ident, {ident: f"{path}:{links[ident].line}"})
        item = parse_item(f, entities)
        links[ident] = _Link(ident, item.publish_date, item.restates, line, offset)
    check_links(links, lambda ident: f"{path}:{links[ident].line}")
    tasks = parse_samples(corpus_records(root / "samples.jsonl", required=False)) if samples else {}
    return ScannedCorpus(root, entities, tasks, list(links.values()))


def source_corpus(corpus_dir: str | os.PathLike[str], *, samples: bool) -> tuple[Path, dict[str, Any], ScannedCorpus]:
    """A corpus directory to index: its path, the fingerprint of its files (taken first), and the
    corpus checked with its items streamed (:class:`ScannedCorpus`; :func:`check_unchanged` after)."""
    root = Path(corpus_dir)
    if not root.is_dir():
        raise AnachronError(f"{root}: not a corpus directory")
    files = fingerprint(root, CORPUS_FILES if samples else SERVED)
    return root, files, _scan(root, samples=samples)


def build_index(
    corpus_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    samples: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> IndexSummary:
    """Index the corpus in *corpus_dir* into the SQLite file *out*, atomically.

    The corpus is validated as every command loads it, but streamed: its
    items are read once to be checked and ordered, and once more, in ``ord``
    order, to be written, so memory holds a few fields per item, not the
    corpus.  The files' fingerprint is taken before and checked after: a
    corpus that changed meanwhile is an error.  The file is written beside
    *out* under a temporary name and renamed over it when complete, so *out*
    is the old index or the new one, never a part.  *samples=False* leaves
    the tasks out (an index only for serving).  *progress*, if given, is
    told ``(items just written, items in all)`` after each chunk.
    """
    root, files, corpus = source_corpus(corpus_dir, samples=samples)
    target = Path(os.path.realpath(out))
    if target.is_dir():
        raise AnachronError(f"{out}: is a directory")
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _discard(tmp)
        # Made here, not by SQLite, so that a directory that cannot take it says why (SQLite
        # says only "unable to open database file"); SQLite's own mode, less the umask.
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        con = sqlite3.connect(tmp)
        try:
            _write(con, corpus, root, files, progress)
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
    # Never raises: a cleanup that fails (a read-only filesystem refuses even to unlink what is not
    # there) must not hide the error that sent us here.
    for leftover in (path, path.with_name(path.name + "-journal")):
        try:
            leftover.unlink()
        except OSError:
            pass


def _write(
    con: sqlite3.Connection, corpus: ScannedCorpus, root: Path, files: Mapping[str, Any],
    progress: Callable[[int, int], None] | None = None,
) -> None:
    _require_fts5(con)
    con.execute("PRAGMA journal_mode=OFF")  # a temporary file, renamed when complete
    con.execute("PRAGMA synchronous=OFF")
    con.executescript(_SCHEMA)
    ordered = corpus.ordered()
    size = len(corpus.links)
    lists: dict[str, tuple[array.array, array.array]] = collections.defaultdict(lambda: (array.array(U32), array.array(U32)))
    # What BM25 needs per ord (store.ranking.RankData): field lengths and days; ord 0 is a placeholder.
    ranks = {name: array.array(U32, [0]) for name in RANK_ARRAYS}
    with con:
        con.executemany(
            "INSERT INTO entities VALUES (?, ?, ?, ?, ?)",
            (
                (n, key(e.id), stored_day(e.valid_from), stored_day(e.valid_to), entity_doc(e))
                for n, e in enumerate(corpus.entities.values())
            ),
        )
        # In chunks, so the rows of one chunk at a time are in memory, not those of the whole corpus.
        for start in range(1, size + 1, _CHUNK):
            chunk = [(n, pos, item) for n, (pos, item) in zip(range(start, start + _CHUNK), ordered)]
            rows = []
            for n, pos, item in chunk:
                strong, weak = item_terms(item, corpus.entities)
                ranks["strong_len"].append(len(strong))
                ranks["weak_len"].append(len(weak))
                ranks["day"].append(item.publish_date.toordinal())
                for term in strong:
                    lists[term][0].append(n)  # n grows: every array is in ord order
                for term in weak:
                    lists[term][1].append(n)
                rows.append((n, pos, key(item.id), item.publish_date.isoformat(), item_doc(item), " ".join(sorted(strong)), " ".join(sorted(weak))))
            con.executemany("INSERT INTO items VALUES (?, ?, ?, ?, ?)", (r[:5] for r in rows))
            con.executemany("INSERT INTO terms(rowid, strong, weak) VALUES (?, ?, ?)", ((r[0], r[5], r[6]) for r in rows))
            con.executemany("INSERT INTO item_entities VALUES (?, ?)", ((key(e), n) for n, _, i in chunk for e in dict.fromkeys(i.entities)))
            if progress is not None:
                progress(len(chunk), size)
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
        strong_len, weak_len = ranks["strong_len"], ranks["weak_len"]
        con.executemany(
            "INSERT INTO postings VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                (t, pack(s), pack(w), bitmap(s, size), bitmap(w, size), pack_groups(s, strong_len, size), pack_groups(w, weak_len, size))
                for t in sorted(lists) for s, w in [lists[t]]
            ),
        )
        con.executemany("INSERT INTO ranking VALUES (?, ?)", ((name, pack(ranks[name])) for name in RANK_ARRAYS))
        meta = build_meta(root, files, size, len(corpus.entities), len(corpus.samples))
        con.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
    con.execute("ANALYZE")


def _require_fts5(con: sqlite3.Connection) -> None:
    try:
        con.execute("CREATE VIRTUAL TABLE temp.probe USING fts5(x)")
        con.execute("SELECT value FROM json_each('[1]')").fetchall()
        con.execute("DROP TABLE temp.probe")
    except sqlite3.OperationalError:
        raise AnachronError(f"the SQLite library here ({sqlite3.sqlite_version}) lacks FTS5 or JSON: an index needs both") from None
