"""What the engines share: their argument checks, their tie order and the planner of the SQL engines.

Three engines implement :class:`anachron.core.search.Engine`:
:class:`~anachron.store.memory.SearchEngine` (in memory),
:class:`~anachron.store.index.IndexEngine` (a SQLite index file) and
:class:`anachron.store.postgres.PostgresEngine` (a PostgreSQL server).  They
return the same items in the same order for every query, as of date and
mode (tests/store/test_index.py compares them):

- the as-of date is an argument, never part of the query;
- ranking is :mod:`anachron.store.ranking`'s BM25 by default (statistics of
  the visible items, ties newest first, then id; every engine runs
  :func:`~anachron.store.ranking.top_bm25` on its own postings), or with
  ``ranking="count"`` the earlier one: :data:`~anachron.store.terms.STRONG_WEIGHT`
  per distinct query word among an item's strong terms,
  :data:`~anachron.store.terms.WEAK_WEIGHT` per word among its weak terms
  (:func:`~anachron.store.terms.item_terms`), items scoring 0 left out, ties
  on publish date, then id (a total order: ids are unique); the planner
  below is the count ranking's;
- ``enforced`` drops items published after the as-of date before ranking
  (:func:`~anachron.core.dates.known_at`) and nothing else: survivorship
  is not filtered.

The SQL engines number items by ``(publish_date, id)`` when they are
indexed (the ``ord`` column), so "ties by date, then id" is "ties by
``ord``", and "published on or before T" is "``ord`` at most that of the
last item published on or before T".
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections import Counter
from typing import Iterable, Iterator, Mapping, Protocol, Sequence

from anachron.store import bitmaps
from anachron.core.corpus import Corpus, Item
from anachron.core.errors import AnachronError, describe
from anachron.core.search import check_day, check_mode
from anachron.core.validate import positive_int
from anachron.store.terms import STRONG_WEIGHT, WEAK_WEIGHT

__all__ = [
    "BitmapPostings",
    "RankedEngine",
    "Postings",
    "check_fetch",
    "check_search",
    "count_column",
    "count_of",
    "extremes",
    "rank_order",
    "tie_key",
    "top_counted",
    "top_ords",
]


def check_search(query: object, as_of: object, mode: object, k: object) -> None:
    """A search's arguments, checked in every engine's order: the mode, *k*, the query, the as-of date.

    >>> check_search("cygnus", None, "enforced", 0)
    Traceback (most recent call last):
    ...
    anachron.core.errors.AnachronError: search: k must be a positive integer, got 0
    """
    check_mode(mode)
    positive_int(k, "search: k")
    if not isinstance(query, str):
        raise AnachronError(f"search: query must be a string, got {describe(query)}")
    check_day(as_of)


def check_fetch(item_id: object, as_of: object, mode: object) -> None:
    """A fetch's arguments, checked in the SQL engines' order: the as-of date, the id, the mode."""
    check_day(as_of)
    if not isinstance(item_id, str):
        raise AnachronError(f"fetch: item_id must be a string, got {describe(item_id)}")
    check_mode(mode)


def tie_key(item: Item) -> tuple:
    """An item's place in the engines' tie order: publish date, then id (what ``ord`` numbers).

    Anything with ``publish_date`` and ``id`` has one (``anachron index`` orders
    items it does not hold by it)."""
    return (item.publish_date, item.id)


def rank_order(items: Iterable[Item]) -> list[Item]:
    """*items* in the engines' tie order (:func:`tie_key`)."""
    return sorted(items, key=tie_key)


def count_column(scores: Counter[int], postings: Sequence[int], weight: int, below: int) -> None:
    """Add *weight* to ``scores[o]`` for every number ``o`` of the ascending *postings* under *below*
    (the visible items: the enforced cut).  Counted in C, *weight* times."""
    if postings and postings[-1] >= below:
        postings = postings[: bisect.bisect_left(postings, below)]
    for _ in range(weight):
        scores.update(postings)


def count_of(lists: Iterable[tuple[Sequence[int], Sequence[int]]], number: int) -> int:
    """The count score of item *number*: :data:`STRONG_WEIGHT` per word whose ascending strong
    numbers (*lists*: per word, strong and weak) hold it, :data:`WEAK_WEIGHT` per weak one.

    >>> count_of([([1, 4], [2]), ([], [4])], 4)
    3
    """
    score = 0
    for strong, weak in lists:
        for postings, weight in ((strong, STRONG_WEIGHT), (weak, WEAK_WEIGHT)):
            at = bisect.bisect_left(postings, number)
            if at < len(postings) and postings[at] == number:
                score += weight
    return score


class RankedEngine:
    """An engine of :mod:`anachron.store` searching with a fixed *ranking* (``--ranking`` of a command
    whose callers, such as the reference agents, search through the plain :class:`~anachron.core.search.Engine`)."""

    def __init__(self, engine, ranking: str) -> None:
        from anachron.store.ranking import check_ranking

        self.engine, self.ranking = engine, check_ranking(ranking)
        self.corpus = getattr(engine, "corpus", None)
        self.source = getattr(engine, "source", None)

    def search(self, query: str, *, as_of, mode: str = "unrestricted", k: int = 5) -> list[Item]:
        return self.engine.search(query, as_of=as_of, mode=mode, k=k, ranking=self.ranking)

    def scored(self, query: str, *, as_of, mode: str = "unrestricted", k: int = 5, ranking: str | None = None):
        return self.engine.scored(query, as_of=as_of, mode=mode, k=k, ranking=ranking or self.ranking)

    def fetch(self, item_id: str, *, as_of, mode: str = "unrestricted") -> Item | None:
        return self.engine.fetch(item_id, as_of=as_of, mode=mode)

    def extremes(self) -> list[Item]:
        return extremes(self.engine)


def extremes(engine: object) -> list[Item]:
    """The items a date shift can push off the calendar: every item of an in-memory corpus,
    the earliest and latest ones of an index (``engine.extremes()``)."""
    own = getattr(engine, "extremes", None)
    if callable(own):
        return list(own())
    corpus = getattr(engine, "corpus", None)
    if isinstance(corpus, Corpus):
        return list(corpus.items.values())
    return []


# -- top k over posting lists (the SQL engines) --------------------------------------------

RARE_POSTINGS = 1000  # postings the candidates may come from before common words are scanned by level...
RARE_SHARE = 0.02  # ... or this share of the corpus's items, whichever is more
MAX_COMMON = 4  # common words handled by level scans; a query with more is aggregated whole
MAX_SCORED = 64  # words a candidate is scored over; a query with more is aggregated whole


class Postings(Protocol):
    """What an SQL engine answers about the query words, within the visible items (its date bound).

    Items are numbered by ``ord`` (publish date, then id).  A *pattern* maps
    each of some words to the weight it scores in an item: STRONG_WEIGHT (a
    strong term), WEAK_WEIGHT (a weak term) or 0 (neither).
    """

    items: int  # how many items the corpus has

    def frequencies(self, words: Sequence[str]) -> Mapping[str, tuple[int, int]]:
        """Per word, how many items (of the whole corpus) hold it as a strong and as a weak term."""

    def candidates(self, words: Sequence[str], query: Sequence[str]) -> Iterable[tuple[int, int]]:
        """``(ord, score)`` of every visible item holding any of *words*, scored over all *query* words."""

    def scan(self, patterns: Sequence[Sequence[tuple[str, int]]], after: int, limit: int) -> list[int]:
        """The first *limit* ords above *after*, ascending, of visible items matching any of *patterns*."""

    def aggregate(self, words: Sequence[str], k: int) -> list[int]:
        """The top *k* ords by summed weights over *words*, then ord: the whole computation at once."""


class BitmapPostings(Postings, Protocol):
    """Postings that also hold each word's columns as bitmaps (the SQLite index's posting arrays).

    With these, :func:`top_ords` counts the postings of a query whose words
    hold few items, and adds up any other's weights as bit-sliced counters
    (:func:`.bitmaps.top`): a few whole-bitmap operations per word, whatever
    its frequency.
    """

    def partials(self, words: Sequence[str]) -> Mapping[int, int]:
        """``{ord: score over *words*}`` of every visible item holding any of *words*."""

    def columns(self, words: Sequence[str]) -> list[tuple[int, int]]:
        """``(bitmap, weight)`` columns whose weights add up, per item, to its score over *words*
        (each word's strong column weighs STRONG_WEIGHT, its weak one WEAK_WEIGHT; short columns may come counted, as
        one column per score level: :func:`.bitmaps.from_scores`).  Bitmaps may hold invisible
        items: :meth:`visible` masks them."""

    def visible(self) -> int:
        """The bitmap of the visible ords."""


def top_ords(postings: Postings, words: Sequence[str], k: int) -> list[int]:
    """The top *k* items for the distinct query *words*: by score descending, then ``ord``.

    Words holding no item are dropped; the rest are sorted rarest first.
    With :class:`BitmapPostings` (postings with a ``columns`` method): when the words' postings
    add up to at most :data:`RARE_POSTINGS` or :data:`RARE_SHARE` of the
    corpus's items (whichever is more), they are counted
    (:func:`top_counted`); otherwise the weights are added up over the words'
    bitmaps (:func:`.bitmaps.top`).  Both are exact.

    Without bitmaps (PostgreSQL), MaxScore-style over
    the engine's own full-text queries:

    1. the rarest words, as long as their postings add up to at most the
       budget above, are *rare*, and so are all but the :data:`MAX_COMMON`
       most frequent; the others are *common*.  A query of more than
       :data:`MAX_SCORED` words is aggregated whole.
    2. Every visible item holding a rare word is a candidate, scored in full
       over all the query words (the weights of :mod:`anachron.store.terms`) by the engine.
    3. An item holding no rare word scores only from the common words, at
       most ``B`` = the sum of their best weights.  If the k-th candidate
       scores more than ``B``, the candidates are the answer.
    4. Otherwise the answer is filled level by level, score ``s`` from the
       highest down: the candidates scoring ``s`` merged, by ord, with the
       other items whose common-word pattern sums to ``s``, each pattern
       scanned in ord order only as far as needed.
    """
    frequency = postings.frequencies(words)
    held = sorted((w for w in words if sum(frequency.get(w, (0, 0)))), key=lambda w: (sum(frequency[w]), w))
    if not held:
        return []
    budget = max(RARE_POSTINGS, RARE_SHARE * postings.items)
    if callable(getattr(postings, "columns", None)):
        if sum(sum(frequency[w]) for w in held) <= budget:
            return top_counted(postings.partials(held), k)  # type: ignore[attr-defined]
        return bitmaps.top(postings.columns(held), postings.visible(), k)  # type: ignore[attr-defined]
    if len(held) > MAX_SCORED:
        return postings.aggregate(held, k)
    # Rare: the rarest words within the budget, and always all but the MAX_COMMON most frequent.
    rare: list[str] = []
    total = 0
    for n, word in enumerate(held):
        total += sum(frequency[word])
        if total > budget and n >= len(held) - MAX_COMMON:
            break
        rare.append(word)
    common = held[len(rare):]
    # The best weight of each common word: strong if some item holds it as a strong term, else weak.
    best = {w: STRONG_WEIGHT if frequency[w][0] else WEAK_WEIGHT for w in common}
    scored = dict(postings.candidates(rare, held)) if rare else {}
    ranked = sorted(scored, key=lambda o: (-scored[o], o))
    ceiling = sum(best.values())
    if len(ranked) >= k and scored[ranked[k - 1]] > ceiling or not common:
        return ranked[:k]
    answer = [o for o in ranked if scored[o] > ceiling][:k]
    for level in range(ceiling, 0, -1):
        need = k - len(answer)
        if need <= 0:
            break
        mine = [o for o in ranked if scored[o] == level]
        others = _level(postings, common, best, level, exclude=scored, need=need)
        answer.extend(itertools.islice(heapq.merge(mine, others), need))
    return answer


def top_counted(scores: Mapping[int, int], k: int) -> list[int]:
    """The *k* keys of *scores* with the highest values, ties by the smaller key (values > 0).

    C-level passes, whatever the number of keys: one counts the keys per
    score and so finds the lowest score the best *k* need; two pick out the
    keys above it (fewer than *k*, sorted in Python) and those at it
    (``compress``; plain ints, sorted in C, smallest first).

    >>> top_counted({7: 1, 3: 2, 5: 1, 9: 2}, 3)
    [3, 9, 5]
    """
    needed, lowest = 0, 0
    for level, count in sorted(Counter(scores.values()).items(), reverse=True):
        needed += count
        lowest = level
        if needed >= k:
            break
    above = list(itertools.compress(scores.keys(), map(lowest.__lt__, scores.values())))  # fewer than k
    above.sort(key=lambda number: (-scores[number], number))
    at = sorted(itertools.compress(scores.keys(), map(lowest.__eq__, scores.values())))  # ints: sorted in C
    return above + at[: k - len(above)]


def _patterns(words: Sequence[str], best: Mapping[str, int], level: int) -> list[tuple[tuple[str, int], ...]]:
    """Every assignment of a weight (0, weak, or strong when that is the word's best) to *words* summing to *level*."""
    choices = [(0, WEAK_WEIGHT, STRONG_WEIGHT) if best[w] == STRONG_WEIGHT else (0, WEAK_WEIGHT) for w in words]
    return [tuple(zip(words, weights)) for weights in itertools.product(*choices) if sum(weights) == level]


def _level(postings: Postings, words, best, level: int, *, exclude: Mapping[int, int], need: int) -> Iterator[int]:
    """Ords, ascending, of items outside *exclude* whose pattern over *words* sums to *level*.

    The patterns of one level are disjoint (an item has one pattern), so one
    scan of their union, page by page, yields each item once.
    """
    patterns = _patterns(words, best, level)
    after, page = 0, need + 8
    while patterns:
        ords = postings.scan(patterns, after, page)
        yield from (o for o in ords if o not in exclude)
        if len(ords) < page:
            return
        after = ords[-1]
        page *= 2
