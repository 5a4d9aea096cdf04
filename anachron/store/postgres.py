"""A corpus on a PostgreSQL server: one corpus served to many agents, from many machines.

Needs the ``postgres`` extra (psycopg 3: ``pip install 'anachron[postgres]'``),
imported only here.  :func:`load_to_postgres` (``anachron index --to URL``)
loads a corpus directory into the ``anachron`` schema in one transaction;
:class:`PostgresEngine` (``--corpus URL`` for ``serve`` and the Inspect
tasks) searches it in place; :func:`load_postgres_corpus` reads it back as a
:class:`~anachron.core.Corpus` for the scorers.  Schema: docs/index.md.

Ranking is the in-memory engine's, exactly (:mod:`anachron.store.engine`).
BM25 (the default) reads each query word's posting arrays from the
``postings`` table and the per-ord lengths and days from ``ranking`` (the
SQLite index's forms), bounds the visible ords by ``day <=
last_known_day(as_of)``, and runs :func:`anachron.store.ranking.top_bm25`.
For the count ranking each item's strong and weak terms are stored as two ``tsvector`` columns
with a GIN index each; a search looks up each distinct query word in both
(``@@``), sums the weights of :mod:`anachron.store.terms` per strong and per weak match per item in SQL, and
orders by ``score DESC, ord``.  The enforced mode filters ``day <= last_known_day(as_of)`` (the core's cutoff rule)
in the same query.  Entity validity lives in the ``entities`` table
(``valid_from``, ``valid_to``) and which item names which entity in
``item_entities``; nothing filters by them (the survivorship residual is
measured, not hidden).
"""

from __future__ import annotations

import array
import bisect
import collections
import datetime as _dt
import hashlib
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Iterable

from anachron.core.corpus import Corpus, Item
from anachron.core.dates import last_known_day
from anachron.core.errors import AnachronError
from anachron.store import bitmaps
from anachron.store.engine import check_fetch, check_search, count_of, top_ords
from anachron.store.index.build import ScannedCorpus, source_corpus
from anachron.store.index.codec import entity_doc, item_doc, key, read_entity, read_item, read_sample, read_visible, sample_doc
from anachron.store.index.fingerprint import CORPUS_FILES, SERVED, build_meta, check_meta, check_unchanged
from anachron.store.index.postings import RANK_ARRAYS, U32, PostingCache, bitmap, pack, pack_groups, rank_data, unpack
from anachron.store.ranking import DEFAULT_RANKING, RankData, check_ranking, shown_score, top_bm25
from anachron.store.index.stored import Connections, StoredItems
from anachron.store.terms import STRONG_WEIGHT, WEAK_WEIGHT, item_terms, match_words

__all__ = ["SCHEMA", "PostgresEngine", "PostgresSummary", "load_postgres_corpus", "load_to_postgres", "redact"]

SCHEMA = "anachron"
INSTALL_HINT = "PostgreSQL support needs the postgres extra: pip install 'anachron[postgres]' (psycopg 3)"
_MAX_K = 2**62
LONG_TERM = 256  # characters

_TABLES = f"""
CREATE SCHEMA {SCHEMA};
CREATE TABLE {SCHEMA}.meta (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE {SCHEMA}.entities (pos integer PRIMARY KEY, id text NOT NULL UNIQUE, valid_from date, valid_to date, doc text NOT NULL);
CREATE TABLE {SCHEMA}.items (
    ord bigint PRIMARY KEY, pos bigint NOT NULL UNIQUE, id text NOT NULL UNIQUE, day date NOT NULL,
    strong tsvector NOT NULL, weak tsvector NOT NULL, doc text NOT NULL
);
CREATE TABLE {SCHEMA}.item_entities (entity text NOT NULL, ord bigint NOT NULL, PRIMARY KEY (entity, ord));
CREATE TABLE {SCHEMA}.samples (pos integer PRIMARY KEY, id text NOT NULL UNIQUE, as_of date NOT NULL, doc text NOT NULL);
CREATE TABLE {SCHEMA}.vocab (term text PRIMARY KEY, strong integer NOT NULL, weak integer NOT NULL);
CREATE TABLE {SCHEMA}.postings (term text PRIMARY KEY, strong bytea NOT NULL, weak bytea NOT NULL, strong_groups bytea, weak_groups bytea,
                               strong_bits bytea, weak_bits bytea);
CREATE TABLE {SCHEMA}.ranking (name text PRIMARY KEY, data bytea NOT NULL);
"""
_INDEXES = f"""
CREATE INDEX items_day ON {SCHEMA}.items (day, ord);
CREATE INDEX items_strong ON {SCHEMA}.items USING gin (strong);
CREATE INDEX items_weak ON {SCHEMA}.items USING gin (weak);
ANALYZE {SCHEMA}.items;
INSERT INTO {SCHEMA}.vocab SELECT word, SUM(s), SUM(w) FROM (
    SELECT word, ndoc AS s, 0 AS w FROM ts_stat('SELECT strong FROM {SCHEMA}.items')
    UNION ALL SELECT word, 0, ndoc FROM ts_stat('SELECT weak FROM {SCHEMA}.items')
) AS counts GROUP BY word;
"""


def _search_sql(enforced: bool) -> str:
    # One row per (query word, item holding it): its strong or weak weight; summed per item.
    when = " AND i.day <= %(as_of)s" if enforced else ""
    return f"""
SELECT ord FROM (
    SELECT ord, SUM(w) AS score FROM (
        SELECT i.ord, {STRONG_WEIGHT} AS w FROM unnest(%(words)s::text[]) AS q(word)
            JOIN {SCHEMA}.items AS i ON i.strong @@ q.word::tsquery{when}
        UNION ALL
        SELECT i.ord, {WEAK_WEIGHT} FROM unnest(%(words)s::text[]) AS q(word)
            JOIN {SCHEMA}.items AS i ON i.weak @@ q.word::tsquery{when}
    ) AS hits GROUP BY ord ORDER BY score DESC, ord LIMIT %(k)s
) AS r ORDER BY r.score DESC, r.ord
"""


_SEARCH = {False: _search_sql(False), True: _search_sql(True)}


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise AnachronError(INSTALL_HINT) from None
    return psycopg


def redact(url: str) -> str:
    """*url* without its password (in the user part or a ``password=`` parameter, as libpq
    takes either), as logs and messages show it."""
    url = re.sub(r"^(postgres(?:ql)?://[^:/@]*):[^@/]*@", r"\1:***@", url)
    return re.sub(r"([?&]password=)[^&#]*", r"\1***", url)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _connect(url: str):
    psycopg = _psycopg()
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise AnachronError(f"{redact(url)}: cannot connect: {_first_line(exc)}") from None


def term_key(term: str) -> str:
    """A term as PostgreSQL stores it.  PostgreSQL caps a lexeme below 2 KB, so a term longer than
    :data:`LONG_TERM` is stored and looked up as ``#`` and its SHA-256 (``#`` is in no term, so no
    term collides with one)."""
    return "#" + hashlib.sha256(term.encode("ascii")).hexdigest() if len(term) > LONG_TERM else term


def lexeme(term: str) -> str:
    """A term as a quoted lexeme: terms are ``[a-z0-9]+`` and keys add ``#``, nothing to escape."""
    return f"'{term_key(term)}'"


def _tsvector(terms: Iterable[str]) -> str:
    """The tsvector input form of already tokenized terms: quoted lexemes, taken as they are."""
    return " ".join(sorted(lexeme(term) for term in terms))


@dataclass(frozen=True)
class PostgresSummary:
    path: str
    items: int
    entities: int
    samples: int


def load_to_postgres(corpus_dir: str | os.PathLike[str], url: str, *, samples: bool = True) -> PostgresSummary:
    """Load the corpus in *corpus_dir* into the ``anachron`` schema of *url*, replacing it.

    One transaction: readers see the old corpus or the new one, never a part.
    """
    root, files, corpus = source_corpus(corpus_dir, samples=samples)
    psycopg = _psycopg()
    con = _connect(url)
    try:
        with con.transaction():
            _write(con, corpus, root, files)
            check_unchanged(root, files)  # inside the transaction: a changed corpus is not committed
    except psycopg.Error as exc:
        raise AnachronError(f"{redact(url)}: cannot load the corpus: {_first_line(exc)}") from None
    finally:
        con.close()
    return PostgresSummary(redact(url), len(corpus.links), len(corpus.entities), len(corpus.samples))


def _write(con, corpus: ScannedCorpus, root: Path, files) -> None:
    """The tables of *corpus* (:func:`anachron.store.index.build.source_corpus`: items streamed, in ord order)."""
    cur = con.cursor()
    cur.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    cur.execute(_TABLES)
    with cur.copy(f"COPY {SCHEMA}.entities (pos, id, valid_from, valid_to, doc) FROM STDIN") as copy:
        for n, e in enumerate(corpus.entities.values()):
            copy.write_row((n, key(e.id), e.valid_from, e.valid_to, entity_doc(e)))
    number = {ident: n for n, ident in enumerate(corpus.entities)}
    named, named_by = array.array("q"), array.array("q")  # (entity number, ord) of each naming, compactly
    # The index's posting arrays and per-ord ranking arrays (store.index.postings), for BM25.
    lists: dict[str, tuple[array.array, array.array]] = collections.defaultdict(lambda: (array.array(U32), array.array(U32)))
    ranks = {name: array.array(U32, [0]) for name in RANK_ARRAYS}
    with cur.copy(f"COPY {SCHEMA}.items (ord, pos, id, day, strong, weak, doc) FROM STDIN") as copy:
        for n, (pos, item) in enumerate(corpus.ordered(), 1):
            strong, weak = item_terms(item, corpus.entities)
            copy.write_row((n, pos, key(item.id), item.publish_date, _tsvector(strong), _tsvector(weak), item_doc(item)))
            for column, terms in enumerate((strong, weak)):
                for term in terms:
                    lists[term_key(term)][column].append(n)
            ranks["strong_len"].append(len(strong))
            ranks["weak_len"].append(len(weak))
            ranks["day"].append(item.publish_date.toordinal())
            for entity in dict.fromkeys(item.entities):
                named.append(number[entity])
                named_by.append(n)
    keys = [key(ident) for ident in corpus.entities]
    with cur.copy(f"COPY {SCHEMA}.item_entities (entity, ord) FROM STDIN") as copy:
        for entity, n in zip(named, named_by):
            copy.write_row((keys[entity], n))
    with cur.copy(f"COPY {SCHEMA}.samples (pos, id, as_of, doc) FROM STDIN") as copy:
        for n, s in enumerate(corpus.samples.values()):
            copy.write_row((n, key(s.id), s.as_of, sample_doc(s)))
    items = len(corpus.links)
    with cur.copy(f"COPY {SCHEMA}.postings (term, strong, weak, strong_groups, weak_groups, strong_bits, weak_bits) FROM STDIN") as copy:
        for term in sorted(lists):
            strong, weak = lists[term]
            copy.write_row((term, pack(strong), pack(weak), pack_groups(strong, ranks["strong_len"], items), pack_groups(weak, ranks["weak_len"], items),
                            bitmap(strong, items), bitmap(weak, items)))
    with cur.copy(f"COPY {SCHEMA}.ranking (name, data) FROM STDIN") as copy:
        for name in RANK_ARRAYS:
            copy.write_row((name, pack(ranks[name])))
    cur.execute(_INDEXES)
    meta = build_meta(root, files, len(corpus.links), len(corpus.entities), len(corpus.samples))
    cur.executemany(f"INSERT INTO {SCHEMA}.meta VALUES (%s, %s)", sorted(meta.items()))


def _open(url: str, names):
    """A connection to a fresh corpus at *url*, and its meta table; else one clear error."""
    psycopg = _psycopg()
    con = _connect(url)
    try:
        meta = dict(con.execute(f"SELECT key, value FROM {SCHEMA}.meta").fetchall())
    except psycopg.Error as exc:
        con.close()
        raise AnachronError(f"{redact(url)}: no Anachron corpus there (load one with `anachron index DIR --to URL`): {_first_line(exc)}") from None
    try:
        check_meta(meta, names, where=redact(url), what="corpus", again="--to URL")
    except AnachronError:
        con.close()
        raise
    return con, meta


class PostgresEngine:
    """Search and fetch over a corpus on a PostgreSQL server (see the module doc).

    Each thread has its own connection (autocommit, read only), made again
    when the server dropped it.  Only ``items`` and ``meta`` are read:
    never ``samples``.
    """

    def __init__(self, url: str) -> None:
        self._url = url
        self.source = redact(url)
        con, self.meta = _open(url, SERVED)
        self._connections = Connections(lambda: _connect(url), con)
        self._cache = PostingCache(self.CACHE_BYTES)
        self._rank: RankData | None = None  # read at the first BM25 search
        self._rank_guard = threading.Lock()

    def _con(self):
        return self._connections.get(usable=lambda con: not (con.closed or con.broken))

    CACHE_BYTES = 64 << 20  # posting arrays kept between searches (as an index's)

    def search(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5, ranking: str = DEFAULT_RANKING) -> list[Item]:
        """The top *k* items for *query*, best first, as seen on *as_of* in *mode* (see the module doc)."""
        return [item for item, _ in self.scored(query, as_of=as_of, mode=mode, k=k, ranking=ranking)]

    def scored(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5, ranking: str = DEFAULT_RANKING) -> list[tuple[Item, float]]:
        """:meth:`search`'s items with their scores (as the in-memory engine's ``scored``)."""
        check_search(query, as_of, mode, k)
        check_ranking(ranking)
        words = sorted({term_key(word) for word in match_words(query)})
        if not words:
            return []
        con = self._con()
        day = last_known_day(as_of) if mode == "enforced" else None  # the core's cutoff rule, as a day bound
        if ranking == "count":
            ords = top_ords(_Postings(con, day, int(self.meta["items"])), words, min(k, _MAX_K))
            lists = [entry[:2] for entry in self._lists(con, words).values()] if ords else []
            ranked = [(o, count_of(lists, o)) for o in ords]
        else:
            items = int(self.meta["items"])
            rank = self._rank_data(con)
            # The last ord published on or before the day: ords follow (day, id), so the ranking's own
            # day array answers it, with no query (ord 0 is a placeholder of day 0, never visible).
            bound = items if day is None else bisect.bisect_right(rank.days, day.toordinal(), 1) - 1
            found = self._lists(con, words)
            ranked = [(o, shown_score(s)) for o, s in top_bm25([found[w] for w in words], rank, 1, bound + 1, min(k, _MAX_K))]
        ords = [o for o, _ in ranked]
        docs = dict(con.execute(f"SELECT ord, doc FROM {SCHEMA}.items WHERE ord = ANY(%s)", (ords,)).fetchall())
        return [(read_item(docs[o]), s) for o, s in ranked]

    def _lists(self, con, words) -> dict[str, tuple]:
        """Each word's (strong, weak) ords, ascending, and their stored length groups (``None`` where not
        stored), from the ``postings`` table (kept in the cache)."""
        found = {w: self._cache.get(("ords", w)) for w in words}
        missing = [w for w, kept in found.items() if kept is None]
        if missing:
            # The length groups are not read: a query whose words hold many postings goes over the
            # bitmaps, and top_bm25 groups the few postings of any other itself.
            rows = con.execute(f"SELECT term, strong, weak, strong_bits, weak_bits FROM {SCHEMA}.postings WHERE term = ANY(%s)", (missing,))
            for term, strong, weak, strong_bits, weak_bits in rows:
                # A dense column's bitmap is stored (as in the SQLite index); a short one's is made here.
                strong, weak = unpack(strong), unpack(weak)
                found[term] = (strong, weak, None,
                               tuple(int.from_bytes(bits, "little") if bits is not None else bitmaps.from_ords(ords)
                                     for bits, ords in ((strong_bits, strong), (weak_bits, weak))))
                self._cache.put(("ords", term), found[term])
        return {w: found[w] or _NONE for w in words}

    def _rank_data(self, con) -> RankData:
        with self._rank_guard:
            if self._rank is None:
                rows = con.execute(f"SELECT name, data FROM {SCHEMA}.ranking").fetchall()
                try:
                    self._rank = rank_data({name: bytes(data) for name, data in rows})
                except KeyError as exc:
                    raise AnachronError(f"{self.source}: a damaged corpus (no ranking array {exc})") from None
            return self._rank

    def fetch(self, item_id: str, *, as_of: _dt.date, mode: str = "unrestricted") -> Item | None:
        """The item *item_id*, or ``None`` when it is unknown or not visible in *mode*."""
        check_fetch(item_id, as_of, mode)
        row = self._con().execute(f"SELECT doc FROM {SCHEMA}.items WHERE id = %s", (key(item_id),)).fetchone()
        return read_visible(row and row[0], as_of, mode)

    def extremes(self) -> list[Item]:
        """The earliest and the latest item (first and last ``ord``)."""
        rows = self._con().execute(
            f"SELECT doc FROM {SCHEMA}.items WHERE ord IN ((SELECT min(ord) FROM {SCHEMA}.items), "
            f"(SELECT max(ord) FROM {SCHEMA}.items)) ORDER BY ord"
        ).fetchall()
        return [read_item(doc) for (doc,) in rows]

    def close(self) -> None:
        """Close every thread's connection (a thread that searches again reconnects)."""
        self._connections.close()


_NONE = (array.array(U32), array.array(U32), None)  # a word no item holds


class _Postings:
    """:class:`~anachron.store.engine.Postings` over one connection; words are stored keys (:func:`term_key`)."""

    def __init__(self, con, as_of: _dt.date | None, items: int) -> None:
        self.con, self.as_of, self.items = con, as_of, items

    def _when(self, params: list) -> str:
        if self.as_of is None:
            return ""
        params.append(self.as_of)
        return " AND day <= %s"

    def frequencies(self, words):
        rows = self.con.execute(f"SELECT term, strong, weak FROM {SCHEMA}.vocab WHERE term = ANY(%s)", (list(words),))
        return {term: (strong, weak) for term, strong, weak in rows}

    def candidates(self, words, query):
        held = " | ".join(f"'{w}'" for w in words)
        score = " + ".join(f"(strong @@ %s::tsquery)::int * {STRONG_WEIGHT} + (weak @@ %s::tsquery)::int * {WEAK_WEIGHT}" for _ in query)
        params: list = [q for w in query for q in (f"'{w}'", f"'{w}'")] + [held, held]
        sql = f"SELECT ord, {score} FROM {SCHEMA}.items WHERE (strong @@ %s::tsquery OR weak @@ %s::tsquery)"
        sql += self._when(params)
        return self.con.execute(sql, params).fetchall()

    def scan(self, patterns, after, limit):
        params: list = []
        sql = f"SELECT ord FROM {SCHEMA}.items WHERE ({' OR '.join(_pattern(p, params) for p in patterns)}) AND ord > %s"
        params.append(after)
        sql += self._when(params) + " ORDER BY ord LIMIT %s"
        params.append(limit)
        return [o for (o,) in self.con.execute(sql, params)]

    def aggregate(self, words, k):
        params = {"words": [f"'{w}'" for w in words], "as_of": self.as_of, "k": k}
        return [o for (o,) in self.con.execute(_SEARCH[self.as_of is not None], params)]


def _pattern(pattern, params: list) -> str:
    """SQL for a pattern: the strong weight -> the term in ``strong``, the weak one -> in ``weak``, 0 -> in neither."""
    parts = []
    for word, weight in pattern:
        params.extend([f"'{word}'"] * (1 if weight else 2))
        parts.append(
            "strong @@ %s::tsquery" if weight == STRONG_WEIGHT else "weak @@ %s::tsquery" if weight == WEAK_WEIGHT
            else "NOT (strong @@ %s::tsquery OR weak @@ %s::tsquery)"
        )
    return "(" + " AND ".join(parts) + ")"


def load_postgres_corpus(url: str, *, samples: bool = True) -> Corpus:
    """The :class:`Corpus` at *url*, items in file order (for the scorers).

    Entities and samples are read whole; the items are a
    :class:`PostgresItems`, read when asked for, as an index file's are.
    """
    psycopg = _psycopg()
    con, meta = _open(url, CORPUS_FILES if samples else SERVED)
    try:
        column = lambda sql: (row[0] for row in con.execute(sql))  # noqa: E731
        entities = {e.id: e for e in map(read_entity, column(f"SELECT doc FROM {SCHEMA}.entities ORDER BY pos"))}
        tasks = {s.id: s for s in map(read_sample, column(f"SELECT doc FROM {SCHEMA}.samples ORDER BY pos"))} if samples else {}
    except psycopg.Error as exc:
        raise AnachronError(f"{redact(url)}: cannot read the corpus: {_first_line(exc)}") from None
    finally:
        con.close()
    return Corpus(PostgresItems(url, int(meta["items"])), MappingProxyType(entities), MappingProxyType(tasks), source=redact(url))


class PostgresItems(StoredItems):
    """:class:`~anachron.store.index.stored.StoredItems` on a PostgreSQL server (autocommit connections,
    made again when the server dropped one; documents streamed from the server, not fetched whole)."""

    BY_ID = f"SELECT doc FROM {SCHEMA}.items WHERE id = %s"
    IDS = f"SELECT id FROM {SCHEMA}.items ORDER BY pos"
    DOCS = f"SELECT doc FROM {SCHEMA}.items ORDER BY pos"
    WITH_FACTS = f"SELECT pos, doc FROM {SCHEMA}.items WHERE strpos(doc, '\"facts\":') > 0 ORDER BY pos"
    DAMAGED = "a damaged corpus"

    def __init__(self, url: str, count: int) -> None:
        super().__init__(redact(url), count)
        self._url = url

    def _connect(self):
        return _connect(self._url)

    def _usable(self, con) -> bool:
        return not (con.closed or con.broken)

    def _execute(self, con, sql: str, args: tuple):
        if sql == self.BY_ID:
            return con.execute(sql, args).fetchall()
        return self._stream(sql, args)

    def _stream(self, sql: str, args: tuple):
        """The rows of a scan of the table, streamed on a connection of its own: the thread's
        connection stays free for lookups while the scan is read."""
        con = _connect(self._url)
        try:
            yield from con.cursor().stream(sql, args)
        finally:
            con.close()

    def _failed(self, exc: Exception) -> AnachronError | None:
        if isinstance(exc, _psycopg().Error):
            return AnachronError(f"{self._where}: cannot read the corpus: {_first_line(exc)}")
        return None
