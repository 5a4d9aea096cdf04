"""The postings of an index: each term's items as stored, and the engine's reads of them.

Per term, the ``postings`` table holds the ords of the items holding it as
a strong term and as a weak term, ascending (:func:`pack`), and a bitmap of
each column held by more than one item in :data:`DENSE` (:func:`bitmap`).
:class:`IndexPostings` answers :func:`anachron.store.engine.top_ords` over
one connection, from those arrays and bitmaps or with FTS5 queries over the
``terms`` table; :class:`PostingCache` keeps what was read between searches.
Weights are :mod:`anachron.store.terms`'s, in Python and in SQL alike.

>>> unpack(pack(array.array(U32, [1, 5, 9]))).tolist()
[1, 5, 9]
>>> bitmap(array.array(U32, [1, 3]), 4)
b'\\n'
"""

from __future__ import annotations

import array
import collections
import json
import sqlite3
import sys
import threading
from typing import Any, Sequence

from anachron.store import bitmaps
from anachron.store.engine import count_column
from anachron.store.ranking import RankData, group_by_length
from anachron.store.terms import STRONG_WEIGHT, WEAK_WEIGHT

__all__ = ["DENSE", "RANK_ARRAYS", "U32", "IndexPostings", "PostingCache", "bitmap", "pack", "pack_groups", "rank_data", "unpack", "unpack_groups"]

U32 = next(code for code in "IL" if array.array(code).itemsize == 4)  # the typecode of a stored posting

# Per query word (json_each over the column-filtered words): the strong weight for each item holding
# it as a strong term, the weak one as a weak term (weak terms exclude strong ones, so a word counts
# once per item).
_AGGREGATE = f"""
SELECT rowid FROM (
    SELECT t.rowid AS rowid, {STRONG_WEIGHT} AS w FROM json_each(?1) AS q, terms AS t WHERE t.terms MATCH q.value AND t.rowid <= ?3
    UNION ALL
    SELECT t.rowid, {WEAK_WEIGHT} FROM json_each(?2) AS q, terms AS t WHERE t.terms MATCH q.value AND t.rowid <= ?3
) GROUP BY rowid ORDER BY SUM(w) DESC, rowid LIMIT ?4
"""
# Candidates: items holding a rare word (?1, an FTS5 query), scored in full over every query word
# (?2 strong and ?3 weak patterns, each restricted to ?1), all inside the full-text index.
_CANDIDATES = f"""
SELECT rowid, SUM(w) FROM (
    SELECT t.rowid AS rowid, {STRONG_WEIGHT} AS w FROM json_each(?2) AS q, terms AS t WHERE t.terms MATCH q.value AND t.rowid <= ?4
    UNION ALL
    SELECT t.rowid, {WEAK_WEIGHT} FROM json_each(?3) AS q, terms AS t WHERE t.terms MATCH q.value AND t.rowid <= ?4
) GROUP BY rowid
"""
_SCAN = "SELECT rowid FROM terms WHERE terms MATCH ?1 AND rowid > ?2 AND rowid <= ?3 ORDER BY rowid LIMIT ?4"
_ARRAYS = "SELECT p.term, p.strong, p.weak FROM json_each(?1) AS q JOIN postings AS p ON p.term = q.value"
_GROUPS = "SELECT p.term, p.strong_groups, p.weak_groups FROM json_each(?1) AS q JOIN postings AS p ON p.term = q.value"
# A column's stored bitmap, or its array when it has none (the array of a bitmap column is not read).
_BITS = (
    "SELECT p.term, p.strong_bits, p.weak_bits, CASE WHEN p.strong_bits IS NULL THEN p.strong END, "
    "CASE WHEN p.weak_bits IS NULL THEN p.weak END FROM json_each(?1) AS q JOIN postings AS p ON p.term = q.value"
)


def pack(ords: array.array) -> bytes:
    """A posting list as stored: the ords, ascending, as unsigned 32-bit little-endian integers."""
    if sys.byteorder == "big":
        ords = array.array(U32, ords)
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
    ords = array.array(U32)
    ords.frombytes(blob)
    if sys.byteorder == "big":
        ords.byteswap()
    return ords


RANK_ARRAYS = ("strong_len", "weak_len", "day")  # the `ranking` table's rows: per ord, a packed U32 array


def pack_groups(ords: array.array, lengths: Sequence[int], items: int) -> bytes | None:
    """A dense column's ords grouped by field length (:func:`~anachron.store.ranking.group_by_length`),
    stored as one U32 array: the number of groups, then ``(length, count)`` per group, then the
    ords group after group; ``None`` for a column held by at most one item in :data:`DENSE`
    (a search groups such a short column itself)."""
    if len(ords) * DENSE <= items:
        return None
    groups = group_by_length(ords, lengths)
    out = array.array(U32, [len(groups)])
    for length, members in groups:
        out.extend((length, len(members)))
    for _, members in groups:
        out.extend(members)
    return pack(out)


def unpack_groups(blob: bytes | None) -> list[tuple[int, array.array]] | None:
    """The groups of :func:`pack_groups`, or ``None``."""
    if blob is None:
        return None
    values = unpack(blob)
    n = values[0]
    out, at = [], 1 + 2 * n
    for g in range(n):
        length, count = values[1 + 2 * g], values[2 + 2 * g]
        out.append((length, values[at: at + count]))
        at += count
    return out


def rank_data(blobs: dict[str, bytes]) -> RankData:
    """The :class:`~anachron.store.ranking.RankData` of the ``ranking`` rows *blobs* (name -> packed array)."""
    return RankData(*(unpack(blobs[name]) for name in RANK_ARRAYS))


def _phrase(word: str) -> str:
    return f'"{word}"'  # words are [a-z0-9]+: a quoted FTS5 string needs no escaping


def _pattern(pattern: Sequence[tuple[str, int]]) -> str:
    """An FTS5 query for a pattern: the strong weight -> the word in ``strong``, the weak one -> in ``weak``, 0 -> in neither."""
    column = {STRONG_WEIGHT: "strong", WEAK_WEIGHT: "weak"}
    query = " AND ".join(f"{column[w]} : {_phrase(word)}" for word, w in pattern if w)
    for word, w in pattern:
        if not w:
            query = f"({query}) NOT {_phrase(word)}"
    return query


class IndexPostings:
    """:class:`~anachron.store.engine.BitmapPostings` over one connection, items up to ``ord`` *bound*.

    ``partials`` reads the words' ord arrays, ``columns`` their bitmaps: the
    stored ones (columns held by more than one item in :data:`DENSE`), and one
    per score level made from counting the other, short, columns
    (:func:`.bitmaps.from_scores`).  Both kinds are kept between searches in
    the engine's cache, apart, so a search over bitmaps never holds a long array.
    """

    def __init__(self, con: sqlite3.Connection, bound: int, items: int, cache: "PostingCache | None" = None) -> None:
        self.con, self.bound, self.items = con, bound, items
        self._cache = cache or PostingCache(0)

    def _arrays(self, words: Sequence[str]) -> list[tuple[array.array, array.array]]:
        """Each word's (strong, weak) ords, ascending: all items, not bounded."""
        found = {w: self._cache.get(("ords", w)) for w in words}
        missing = [w for w, kept in found.items() if kept is None]
        if missing:
            for term, strong, weak in self.con.execute(_ARRAYS, (json.dumps(missing),)):
                found[term] = (unpack(strong), unpack(weak))
                self._cache.put(("ords", term), found[term])
        return [found[w] or _NONE for w in words]

    def lists(self, words: Sequence[str], with_bitmaps: bool = False) -> list[tuple]:
        """Each word's (strong, weak) ords, ascending, of every item, and their stored length groups
        (``None`` for a word with none), and with *with_bitmaps* its two columns as bitmaps: what
        :func:`~anachron.store.ranking.top_bm25` takes."""
        arrays = self._arrays(words)
        found = {w: self._cache.get(("groups", w)) for w in words}
        missing = [w for w, kept in found.items() if kept is None]
        if missing:
            for term, strong, weak in self.con.execute(_GROUPS, (json.dumps(missing),)):
                if strong is None and weak is None:
                    found[term] = _NO_GROUPS  # kept too: the row is not read again
                else:
                    found[term] = tuple(unpack_groups(b) if b is not None else None for b in (strong, weak))
                self._cache.put(("groups", term), found[term])
        # A short column is not stored grouped: top_bm25 groups it itself (None).
        bits = self._bitmaps(words) if with_bitmaps else [None] * len(words)
        return [(strong, weak, found.get(w) or None, pair) for w, (strong, weak), pair in zip(words, arrays, bits)]

    def _stored(self, words: Sequence[str]) -> dict[str, tuple]:
        """Per word, each column's stored bitmap as an int, or (a short column, stored without) its ords."""
        found = {w: self._cache.get(("bits", w)) for w in words}
        missing = [w for w, kept in found.items() if kept is None]
        if missing:
            for term, strong_bits, weak_bits, strong, weak in self.con.execute(_BITS, (json.dumps(missing),)):
                found[term] = tuple(
                    int.from_bytes(bits, "little") if bits is not None else unpack(ords)
                    for bits, ords in ((strong_bits, strong), (weak_bits, weak))
                )
                self._cache.put(("bits", term), found[term])
        return found

    def _bitmaps(self, words: Sequence[str]) -> list[tuple[int, int]]:
        """Each word's two columns as bitmaps: the stored ones, and the short ones made from their ords
        (kept in the cache too, apart, so the count ranking still counts those)."""
        stored = self._stored(words)
        out = []
        for w in words:
            columns = stored.get(w) or (0, 0)
            if not all(isinstance(c, int) for c in columns):
                made = self._cache.get(("made", w))
                if made is None:
                    made = tuple(c if isinstance(c, int) else bitmaps.from_ords(c) for c in columns)
                    self._cache.put(("made", w), made)
                columns = made
            out.append(columns)
        return out

    def partials(self, words):
        score: collections.Counter[int] = collections.Counter()
        for strong, weak in self._arrays(words):
            count_column(score, strong, STRONG_WEIGHT, self.bound + 1)  # a word is strong or weak in an item, never both
            count_column(score, weak, WEAK_WEIGHT, self.bound + 1)
        return score

    def columns(self, words):
        found = self._stored(words)
        columns, counted = [], collections.Counter()
        for w in words:
            for column, weight in zip(found[w] or (), (STRONG_WEIGHT, WEAK_WEIGHT)):
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


_NONE = (array.array(U32), array.array(U32))  # a word no item holds
_NO_GROUPS = ()  # a word none of whose columns is stored grouped


class PostingCache:
    """The postings of the words searched last, up to *limit* bytes (least recently used out).

    Keys are ``("ords", word)`` (the word's two ord arrays), ``("bits", word)``
    (its two columns, each its stored bitmap as an int or its ords), ``("made", word)`` (both as
    bitmaps, for BM25, when one was not stored) and ``("groups", word)``.  Shared by an engine's threads (a lock
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
    if isinstance(value, (tuple, list)):
        return sum(_size(part) for part in value if part is not None)
    if isinstance(value, array.array):
        return len(value) * value.itemsize
    return (value.bit_length() + 7) >> 3  # type: ignore[union-attr]
