"""Deterministic, date-aware keyword search over a corpus held in memory.

The as-of date is an argument of :meth:`SearchEngine.search`, never part of
the query, so an agent cannot move the cutoff by what it types.

Ranking is :mod:`anachron.store.ranking`'s BM25 (the default) over the
fields of :func:`~anachron.store.terms.item_terms`, with the statistics of
the visible items only; ties go to the newest item, then the smaller id.
``ranking="count"`` keeps the earlier ranking:
:data:`~anachron.store.terms.STRONG_WEIGHT` per query word in an item's
title or the name or id of an entity it names,
:data:`~anachron.store.terms.WEAK_WEIGHT` per word only in its text, ties
by publish date (the oldest first), then id.  Items that match no word are
not returned.

Modes (:mod:`anachron.core.search`):

- ``unrestricted``: every matching item may be returned;
- ``enforced``: items published after the as-of date are dropped before
  ranking, and nothing else is.  Survivorship is deliberately *not*
  filtered: an entity that is not point-in-time valid still surfaces, and
  measuring that residual is the point.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter

from anachron.store import bitmaps
from anachron.core.corpus import Corpus, Item
from anachron.core.dates import known_at
from anachron.core.errors import AnachronError, describe
from anachron.core.search import check_day, check_mode, visible_in
from anachron.store.engine import check_search, count_column, count_of, rank_order, top_counted
from anachron.store.ranking import DEFAULT_RANKING, RankData, check_ranking, group_by_length, shown_score, top_bm25
from anachron.store.terms import STRONG_WEIGHT, WEAK_WEIGHT, item_terms, match_words, tokenize

__all__ = ["SearchEngine"]


class SearchEngine:
    """Keyword search over the items of a :class:`Corpus`, through an inverted index.

    BM25 (:func:`~anachron.store.ranking.top_bm25`) reads the words' posting
    lists, the items' field lengths and days, and the length groups of the
    words held by more than :data:`_GROUPED_WORD` items, made here once.

    The count ranking (``ranking="count"``): items are numbered in tie order (publish date, then id), and each word
    maps to the ascending numbers of the items it is strong in and of those
    it is weak in.  A query whose words hold few items (at most
    :data:`_RARE_POSTINGS` postings in all) adds up the weights along their
    postings; any other adds them up as bit-sliced counters over the words'
    bitmaps (:func:`.bitmaps.top`), which costs a few whole-bitmap operations
    per word, not one per posting.  Either way the best *k* are taken by
    (score descending, number).  Enforced mode keeps only the items
    :func:`known_at` the as-of date: in date order they are a prefix, found
    by bisection, so the filter is a cut of each posting list (a mask of the
    bitmaps).  Results (both rankings) are exactly those of a linear scan
    (tests/reference_engines.py keeps it, as the reference the tests compare with).

    Two items holding one query word in the title and one in the text: *b*'s
    title is the shorter (BM25 ranks it first); *a*, published after the
    as-of date, is dropped when enforced.

    >>> from anachron.core import build_corpus
    >>> corpus = build_corpus([
    ...     ("items.jsonl:1", {"id": "a", "slice": "news", "publish_date": "2022-06-02", "title": "Cygnus rises", "text": "robots"}),
    ...     ("items.jsonl:2", {"id": "b", "slice": "news", "publish_date": "2022-05-30", "title": "Robots", "text": "cygnus"}),
    ... ])
    >>> engine, day = SearchEngine(corpus), _dt.date(2022, 6, 1)
    >>> [i.id for i in engine.search("Cygnus robots", as_of=day)], [i.id for i in engine.search("Cygnus robots", as_of=day, mode="enforced")]
    (['b', 'a'], ['b'])
    """

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._order: list[Item] = rank_order(corpus.items.values())
        self._dates = [item.publish_date for item in self._order]
        strong_postings: dict[str, list[int]] = {}
        weak_postings: dict[str, list[int]] = {}
        strong_lengths, weak_lengths = [], []
        for number, item in enumerate(self._order):
            strong, weak = item_terms(item, corpus.entities)
            strong_lengths.append(len(strong))
            weak_lengths.append(len(weak))
            for word in strong:
                strong_postings.setdefault(word, []).append(number)
            for word in weak:
                weak_postings.setdefault(word, []).append(number)
        self._strong = strong_postings
        self._weak = weak_postings
        self._rank = RankData(strong_lengths, weak_lengths, [day.toordinal() for day in self._dates])
        # Length groups of the words held by many items (store.ranking.top_bm25 groups the others when needed).
        self._groups = {
            word: (group_by_length(strong, strong_lengths), group_by_length(weak, weak_lengths))
            for word in set(strong_postings) | set(weak_postings)
            if len(strong := strong_postings.get(word, ())) + len(weak := weak_postings.get(word, ())) > _GROUPED_WORD
        }
        self._bitmaps: dict[tuple[str, int], int] | None = None  # made at the first count search

    @property
    def _bits(self) -> dict[tuple[str, int], int]:
        """(word, weight) -> bitmap, for the columns where it is the smaller form (the count ranking's)."""
        if self._bitmaps is None:
            size = len(self._order)
            self._bitmaps = {
                (word, weight): bits
                for postings, weight in ((self._strong, STRONG_WEIGHT), (self._weak, WEAK_WEIGHT))
                for word, numbers in postings.items()
                if (bits := _bitmap(numbers, size)) is not None
            }
        return self._bitmaps

    def visible(self, item: Item, as_of: _dt.date, mode: str) -> bool:
        """Whether *mode* lets *item* be seen by an agent working as of *as_of*."""
        check_mode(mode)
        return visible_in(mode, item.publish_date, as_of)

    def search(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5, ranking: str = DEFAULT_RANKING) -> list[Item]:
        """The top *k* items for *query*, best first, as seen on *as_of* in *mode*, ranked by *ranking*
        (:data:`~anachron.store.ranking.RANKINGS`)."""
        return [item for item, _ in self.scored(query, as_of=as_of, mode=mode, k=k, ranking=ranking)]

    def scored(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5, ranking: str = DEFAULT_RANKING) -> list[tuple[Item, float]]:
        """:meth:`search`'s items with their scores (BM25: :func:`~anachron.store.ranking.shown_score`; count: the count)."""
        check_search(query, as_of, mode, k)
        check_ranking(ranking)
        size = len(self._order)
        cut = self._known_prefix(as_of) if mode == "enforced" else size
        if ranking == "count":
            return [(self._order[n], s) for n, s in self._counted(query, cut, k)]
        bits = self._bits
        lists = [(self._strong.get(word, ()), self._weak.get(word, ()), self._groups.get(word),
                  (bits.get((word, STRONG_WEIGHT)), bits.get((word, WEAK_WEIGHT)))) for word in match_words(query)]
        return [(self._order[n], shown_score(s)) for n, s in top_bm25(lists, self._rank, 0, cut, k)]

    def _counted(self, query: str, cut: int, k: int) -> list[tuple[int, int]]:
        """``(number, count score)`` of the top *k* by the count ranking among the first *cut* items."""
        words = set(tokenize(query))
        if not words:
            return []
        lists = [(word, self._strong.get(word, ()), self._weak.get(word, ())) for word in sorted(words)]
        if sum(len(strong) + len(weak) for _, strong, weak in lists) > _RARE_POSTINGS:
            # Columns kept as bitmaps are added as they are; the shorter ones are counted and
            # become a column per score (bitmaps.from_scores).
            columns, counted = [], Counter()
            for word, strong, weak in lists:
                for postings, weight in ((strong, STRONG_WEIGHT), (weak, WEAK_WEIGHT)):
                    bits = self._bits.get((word, weight))
                    if bits is not None:
                        columns.append((bits, weight))
                    else:
                        count_column(counted, postings, weight, cut)
            columns += bitmaps.from_scores(counted)
            found = [(strong, weak) for _, strong, weak in lists]
            return [(number, count_of(found, number)) for number in bitmaps.top(columns, (1 << cut) - 1, k)]
        scores: Counter[int] = Counter()
        for _, strong, weak in lists:
            count_column(scores, strong, STRONG_WEIGHT, cut)
            count_column(scores, weak, WEAK_WEIGHT, cut)
        return [(number, scores[number]) for number in top_counted(scores, k)]

    def _known_prefix(self, as_of: _dt.date) -> int:
        """How many items, in date order, are known at *as_of* (bisection on :func:`known_at`)."""
        low, high = 0, len(self._dates)
        while low < high:
            middle = (low + high) // 2
            if known_at(self._dates[middle], as_of):
                low = middle + 1
            else:
                high = middle
        return low

    def fetch(self, item_id: str, *, as_of: _dt.date, mode: str = "unrestricted") -> Item | None:
        """The item *item_id*, or ``None`` when it is unknown or not visible in *mode*."""
        check_day(as_of)
        if not isinstance(item_id, str):
            raise AnachronError(f"fetch: item_id must be a string, got {describe(item_id)}")
        item = self.corpus.items.get(item_id)
        if item is None or not self.visible(item, as_of, mode):
            return None
        return item


_GROUPED_WORD = 500  # postings of a word whose length groups are made once, at the start
_RARE_POSTINGS = 2_000  # postings a query's words may have for their items to be counted one by one
_DENSE = 256  # a column holding more than one item in this many is kept as a bitmap too


def _bitmap(postings: list[int], size: int) -> int | None:
    """*postings* as a bitmap (:mod:`.bitmaps`) when more than one item in :data:`_DENSE` is in
    them, else ``None``: a query counts a shorter list (at most ``size / 256`` numbers).  Such a
    bitmap (``size / 8`` bytes) is at most 4 times its list (8 bytes a posting): measured at
    100,000 items, 62 MiB for the engine against 51 MiB with bitmaps only where smaller than the
    list, for half the p95 latency (docs/performance.md)."""
    return bitmaps.from_ords(postings) if len(postings) * _DENSE > size else None
