"""Opening an index file: as an engine that searches it in place, or as the corpus the scorers read.

:class:`IndexEngine` searches an index without loading it (opening reads a
few rows); :func:`load_index` reads it back as a :class:`~anachron.core.Corpus`
whose items are read when asked for (:class:`IndexItems`).  Both refuse an
index of another format or a stale one (:func:`.fingerprint.check_meta`).

Exactness: the index stores each item's strong and weak terms
(:func:`~anachron.store.terms.item_terms`), already tokenized, in two
contentless FTS5 tables keyed by ``ord``, the item's rank in ``(publish
date, id)`` order.  A BM25 search (the default) reads, per distinct query
word, its stored posting arrays (and length groups), and the per-ord field
lengths and days (the ``ranking`` table, once), and runs
:func:`anachron.store.ranking.top_bm25` as the in-memory engine does.  A
count search (``ranking="count"``) sums the weights of
:mod:`anachron.store.terms` per item and orders by ``score DESC, ord``
(:func:`anachron.store.engine.top_ords` over :class:`.postings.IndexPostings`).
Either way: the in-memory engine's scores and order exactly.  The enforced mode
bounds ``ord`` by that of the last item published on or before the as-of
date, read from the ``items.day`` index, so the date filter runs inside the
full-text scan.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sqlite3
import threading
import urllib.request
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Sequence

from anachron.core.corpus import Corpus, Item
from anachron.core.dates import last_known_day
from anachron.core.errors import AnachronError
from anachron.store.engine import check_fetch, check_search, count_of, top_ords
from anachron.store.ranking import DEFAULT_RANKING, RankData, check_ranking, shown_score, top_bm25
from anachron.store.terms import match_words
from anachron.store.index.codec import key, read_entity, read_item, read_sample, read_visible
from anachron.store.index.fingerprint import CORPUS_FILES, SERVED, check_meta
from anachron.store.index.postings import IndexPostings, PostingCache, rank_data
from anachron.store.index.stored import Connections, StoredItems

__all__ = ["IndexEngine", "IndexItems", "connect", "is_index", "load_index"]

_HEADER = b"SQLite format 3\x00"
_DOCS = "SELECT i.ord, i.doc FROM json_each(?1) AS q JOIN items AS i ON i.ord = q.value"
_LAST_KNOWN = "SELECT ord FROM items WHERE day <= ? ORDER BY day DESC, ord DESC LIMIT 1"
_MAX_ORD = 2**62


def is_index(path: str | os.PathLike[str]) -> bool:
    """Whether *path* is a file that starts like a SQLite database."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(_HEADER)) == _HEADER
    except OSError:
        return False


def connect(path: Path) -> sqlite3.Connection:
    """A read-only connection to the SQLite file *path*, usable from any thread."""
    uri = "file:" + urllib.request.pathname2url(str(path.resolve())) + "?mode=ro"
    return sqlite3.connect(uri, uri=True, check_same_thread=False)


# The tables every index has (store.index.build); `samples` is empty, not absent, with --no-samples.
_TABLES = frozenset(("meta", "entities", "items", "item_entities", "samples", "terms", "vocab", "postings", "ranking"))


def _open(path: str | os.PathLike[str], names: Sequence[str]) -> tuple[sqlite3.Connection, dict[str, str]]:
    """A read-only connection to a fresh index, and its meta table; else one clear error."""
    where = Path(path)
    if not where.is_file():
        raise AnachronError(f"{where}: no such index file")
    if not is_index(where):
        raise AnachronError(f"{where}: not a corpus directory or an Anachron index (not a SQLite database)")
    try:
        con = connect(where)
        meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
        tables = {name for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as exc:
        raise AnachronError(f"{where}: not an Anachron index ({exc})") from None
    missing = sorted(_TABLES - tables)
    if missing:  # a table dropped after the build: said now, not as a traceback at the first search
        con.close()
        raise AnachronError(f"{where}: a damaged index (no table {', '.join(missing)}); rebuild it: anachron index CORPUS_DIR --out {where}")
    try:
        # The file's time dates the build: a corpus file recorded in the same tick is hashed (fingerprint).
        check_meta(meta, names, where=str(where), what="index", again=f"--out {where}", built_ns=where.stat().st_mtime_ns)
    except AnachronError:
        con.close()
        raise
    return con, meta


class IndexEngine:
    """Search and fetch over an index file, as :class:`~anachron.store.memory.SearchEngine` does in memory.

    Opening checks the format and freshness and reads nothing else; each
    thread gets its own read-only connection.  Only the ``items``, ``terms``
    and ``vocab`` tables are read: never ``samples``.
    """

    CACHE_BYTES = 64 << 20  # posting arrays and bitmaps kept between searches (PostingCache)

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.source = str(path)
        con, self.meta = _open(self.path, SERVED)
        self._connections = Connections(lambda: connect(self.path), con)
        self._cache = PostingCache(self.CACHE_BYTES)
        self._rank: RankData | None = None  # read at the first BM25 search
        self._rank_guard = threading.Lock()

    def _rank_data(self) -> RankData:
        with self._rank_guard:
            if self._rank is None:
                try:
                    rows = dict(self._con().execute("SELECT name, data FROM ranking").fetchall())
                    self._rank = rank_data(rows)
                except (sqlite3.Error, KeyError) as exc:
                    raise AnachronError(f"{self.path}: a damaged index ({type(exc).__name__}: {exc})") from None
            return self._rank

    def _con(self) -> sqlite3.Connection:
        return self._connections.get()

    def _bound(self, as_of: _dt.date, mode: str) -> int:
        if mode == "unrestricted":
            return _MAX_ORD
        row = self._con().execute(_LAST_KNOWN, (last_known_day(as_of).isoformat(),)).fetchone()
        return 0 if row is None else row[0]

    def search(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5, ranking: str = DEFAULT_RANKING) -> list[Item]:
        """The top *k* items for *query*, best first, as seen on *as_of* in *mode* (see the module doc)."""
        return [item for item, _ in self.scored(query, as_of=as_of, mode=mode, k=k, ranking=ranking)]

    def scored(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5, ranking: str = DEFAULT_RANKING) -> list[tuple[Item, float]]:
        """:meth:`search`'s items with their scores (as the in-memory engine's ``scored``)."""
        check_search(query, as_of, mode, k)
        check_ranking(ranking)
        words = match_words(query)
        bound = self._bound(as_of, mode)
        if not words or bound == 0:
            return []
        con = self._con()
        items = int(self.meta["items"])
        postings = IndexPostings(con, bound, items, self._cache)
        if ranking == "count":
            ords = top_ords(postings, words, min(k, _MAX_ORD))
            lists = [entry[:2] for entry in postings.lists(words)] if ords else []
            ranked = [(o, count_of(lists, o)) for o in ords]  # a bitmap search keeps no scores
        else:
            ranked = [(o, shown_score(s)) for o, s in top_bm25(postings.lists(words, with_bitmaps=True), self._rank_data(), 1, min(bound, items) + 1, min(k, _MAX_ORD))]
        docs = dict(con.execute(_DOCS, (json.dumps([o for o, _ in ranked]),)).fetchall())
        return [(read_item(docs[o]), s) for o, s in ranked]

    def fetch(self, item_id: str, *, as_of: _dt.date, mode: str = "unrestricted") -> Item | None:
        """The item *item_id*, or ``None`` when it is unknown or not visible in *mode*."""
        check_fetch(item_id, as_of, mode)
        row = self._con().execute("SELECT doc FROM items WHERE id = ?", (key(item_id),)).fetchone()
        return read_visible(row and row[0], as_of, mode)

    def extremes(self) -> list[Item]:
        """The earliest and the latest item (first and last ``ord``)."""
        rows = self._con().execute(
            "SELECT doc FROM items WHERE ord IN ((SELECT min(ord) FROM items), (SELECT max(ord) FROM items)) ORDER BY ord"
        ).fetchall()
        return [read_item(doc) for (doc,) in rows]

    def close(self) -> None:
        """Close every thread's connection (a thread that searches again reconnects)."""
        self._connections.close()


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
        return connect(self._path)

    def _failed(self, exc: Exception) -> AnachronError | None:
        if isinstance(exc, sqlite3.Error):
            return AnachronError(f"{self._where}: {self.DAMAGED} ({type(exc).__name__}: {exc})")
        return None


def _column(con: sqlite3.Connection, sql: str) -> Iterable[str]:
    return (row[0] for row in con.execute(sql))
