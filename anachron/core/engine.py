"""The engine interface: what serves ``search`` and ``fetch`` over a dated corpus.

Three engines implement it: :class:`~anachron.core.SearchEngine` (in
memory), :class:`~anachron.core.index.IndexEngine` (a SQLite index file)
and :class:`anachron.postgres.PostgresEngine` (a PostgreSQL server).  They
return the same items in the same order for every query, as of date and
mode (tests/test_index.py compares them):

- the as-of date is an argument, never part of the query;
- ranking is :mod:`anachron.core.retrieval`'s: 2 per distinct query word
  among an item's strong terms, 1 per word among its weak terms
  (:func:`~anachron.core.retrieval.item_terms`), items scoring 0 left out;
- ties break on publish date, then id (a total order: ids are unique);
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
import datetime as _dt
import heapq
import itertools
from typing import Iterable, Iterator, Mapping, MutableMapping, Protocol, Sequence, runtime_checkable

from .corpus import Corpus, Item

__all__ = ["Engine", "Postings", "rank_order", "top_ords"]


@runtime_checkable
class Engine(Protocol):
    """Date-aware keyword search and fetch over a corpus."""

    def search(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5) -> list[Item]:
        """The top *k* items for *query*, best first, as seen on *as_of* in *mode*."""

    def fetch(self, item_id: str, *, as_of: _dt.date, mode: str = "unrestricted") -> Item | None:
        """The item *item_id*, or ``None`` when it is unknown or not visible in *mode*."""


def rank_order(items: Iterable[Item]) -> list[Item]:
    """*items* in the engines' tie order: publish date, then id (what ``ord`` numbers)."""
    return sorted(items, key=lambda item: (item.publish_date, item.id))


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
SECOND_SHARE = 0.05  # postings (share of the items) a second round of candidates may read (_pruned)


class Postings(Protocol):
    """What an SQL engine answers about the query words, within the visible items (its date bound).

    Items are numbered by ``ord`` (publish date, then id).  A *pattern* maps
    each of some words to 2 (a strong term of the item), 1 (a weak term) or 0
    (neither).
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


class PartialPostings(Postings, Protocol):
    """Postings that can also score candidates piecewise (the SQLite index's posting arrays).

    With these two, :func:`top_ords` scores only the candidates that can
    still reach the top *k* (see :func:`_pruned`) instead of all of them.
    """

    def partials(self, words: Sequence[str]) -> MutableMapping[int, int]:
        """``{ord: score over *words*}`` of every visible item holding any of *words*: a new mapping (the planner changes it)."""

    def hits(self, ords: Sequence[int], words: Sequence[str]) -> list[int]:
        """Per ord of *ords* (visible items, ascending), its score over *words*."""

    def matches(self, patterns: Sequence[Sequence[tuple[str, int]]], after: int, limit: int) -> list[int]:
        """What :meth:`Postings.scan` answers, from the same store as ``partials`` and ``hits``."""


def top_ords(postings: Postings, words: Sequence[str], k: int, *, pruned: bool = True) -> list[int]:
    """The top *k* items for the distinct query *words*: by score descending, then ``ord``.

    Exact, and bounded in work when some words are common (MaxScore-style):

    1. words holding no item are dropped; the rest are sorted rarest first.
       The rarest ones, as long as their postings add up to at most
       :data:`RARE_POSTINGS` or :data:`RARE_SHARE` of the corpus's items
       (whichever is more), are *rare*, and so are all but the
       :data:`MAX_COMMON` most frequent; the others are *common*.  A query of
       more than :data:`MAX_SCORED` words is aggregated whole.
    2. Every visible item holding a rare word is a candidate, scored in full
       over all the query words (2 per strong word, 1 per weak) by the engine.
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
    if len(held) > MAX_SCORED:
        return postings.aggregate(held, k)
    # Rare: the rarest words within the budget, and always all but the MAX_COMMON most frequent.
    rare: list[str] = []
    total, budget = 0, max(RARE_POSTINGS, RARE_SHARE * postings.items)
    for n, word in enumerate(held):
        total += sum(frequency[word])
        if total > budget and n >= len(held) - MAX_COMMON:
            break
        rare.append(word)
    common = held[len(rare):]
    # The best weight of each common word: 2 if some item holds it as a strong term, else 1.
    best = {w: 2 if frequency[w][0] else 1 for w in common}
    if pruned and callable(getattr(postings, "partials", None)):
        return _pruned(postings, rare, common, best, k, {w: sum(frequency[w]) for w in common}, max(budget, SECOND_SHARE * postings.items))
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


def _patterns(words: Sequence[str], best: Mapping[str, int], level: int) -> list[tuple[tuple[str, int], ...]]:
    """Every assignment of 0, 1 or 2 (up to each word's best weight) to *words* summing to *level*."""
    choices = [range(best[w] + 1) if best[w] == 2 else (0, 1) for w in words]
    return [tuple(zip(words, weights)) for weights in itertools.product(*choices) if sum(weights) == level]


def _level(postings: Postings, words, best, level: int, *, exclude: Mapping[int, int], need: int, scan=None) -> Iterator[int]:
    """Ords, ascending, of items outside *exclude* whose pattern over *words* sums to *level*.

    The patterns of one level are disjoint (an item has one pattern), so one
    scan of their union, page by page, yields each item once.
    """
    patterns = _patterns(words, best, level)
    after, page = 0, need + 8
    scan = scan or postings.scan
    while patterns:
        ords = scan(patterns, after, page)
        yield from (o for o in ords if o not in exclude)
        if len(ords) < page:
            return
        after = ords[-1]
        page *= 2


def _pruned(postings: PartialPostings, rare: Sequence[str], common: Sequence[str], best: Mapping[str, int], k: int, size: Mapping[str, int], budget: float) -> list[int]:
    """Steps 2-4 of :func:`top_ords`, scoring candidates only while they can still enter the top *k*.

    Rounds of candidates (MaxScore over the integer score levels).  The
    first round's words ``E`` are the rare ones.  An item holding a word of
    ``E`` (and none of an earlier round's) has a *partial* score ``p`` over
    ``E``, read from their postings alone, and a full score of ``p`` plus its
    score over the remaining words ``R``, at most ``B(R)`` (the sum of their
    best weights); :func:`_take` scores it in full only while it can still
    beat the k-th best so far.  Then, with ``t`` the k-th score (1 while
    fewer than *k* are found): an item holding only words of ``R`` scores at
    most ``B(R)``, so when ``B(R) < t`` the answer is complete.  Otherwise
    the next round's words are the fewest rarest words of ``R`` without which
    the rest sum to less than ``t`` (that round ends the search), or, when
    their postings would exceed *budget* (summed over the rounds after the
    first), the rarest word of ``R`` alone (it may raise ``t``); when even that
    word exceeds the budget, the items
    holding only words of ``R`` are read level by level as in step 4
    (:func:`_level` over ``R``, through ``matches``, skipping every item of
    an earlier round), from ``B(R)`` down to ``t`` (an item scoring ``t``
    may still win on ``ord``).  The answer is the top *k* of all, by
    ``(-score, ord)``.
    """
    top: list[tuple[int, int]] = []  # (-score, ord) of the best so far, sorted, at most k
    done: dict[int, int] = {}  # every visible item holding a word of an earlier round
    words, rest = list(rare), list(common)
    spent = 0.0
    while True:
        if words:
            partial = postings.partials(words)
            for o in done.keys() & partial.keys() if len(done) < len(partial) else [o for o in partial if o in done]:
                del partial[o]  # scored in an earlier round
            _take(postings, partial, rest, best, top, k)
            done.update(partial)
        floor = max(-top[-1][0] if len(top) == k else 0, 1)
        ceiling = sum(best[w] for w in rest)
        if ceiling < floor:
            return [o for _, o in top]
        # The fewest rarest words without which the others sum to less than t end the search in one
        # round; when they do not fit in the budget, the rarest alone may raise t.
        needed = 1
        while sum(best[w] for w in rest[needed:]) >= floor:
            needed += 1
        if spent + sum(size[w] for w in rest[:needed]) > budget:
            needed = 1
        if spent + size[rest[0]] > budget:
            break
        spent += sum(size[w] for w in rest[:needed])
        words, rest = rest[:needed], rest[needed:]
    others: list[tuple[int, int]] = []
    for level in range(ceiling, floor - 1, -1):
        need = k - len(others)
        if need <= 0:
            break
        found = _level(postings, rest, best, level, exclude=done, need=need, scan=postings.matches)
        others.extend((-level, o) for o in itertools.islice(found, need))
    return [o for _, o in sorted(top + others)[:k]]


def _take(postings: PartialPostings, partial: Mapping[int, int], rest: Sequence[str], best: Mapping[str, int], top: list[tuple[int, int]], k: int) -> None:
    """Fold into *top* the candidates of *partial* (``{ord: score over some words}``) that can enter it,
    each scored in full by adding its score over the words *rest* (each at most its *best* weight).

    By ``p`` descending, then ``ord``: once ``(-(p + B), ord)`` is past the
    k-th entry (``B`` the sum of the best weights of *rest*), every later
    candidate of that ``p`` is too, and once ``p + B`` is below the k-th
    score, every later group is.  Within a batch the words of *rest* are
    added one at a time, and a candidate that can no longer beat the k-th
    entry even with the best weights of the words left is dropped.
    """
    ceiling = sum(best[w] for w in rest)
    groups: dict[int, list[int]] = {}
    for o, p in partial.items():
        groups.setdefault(p, []).append(o)
    for p in sorted(groups, reverse=True):
        if len(top) == k and p + ceiling < -top[-1][0]:
            return
        group = sorted(groups[p])
        chunk, at = 16, 0
        while at < len(group) and not (len(top) == k and (-(p + ceiling), group[at]) > top[-1]):
            alive = group[at : at + chunk]
            at += chunk
            chunk *= 2
            score = dict.fromkeys(alive, p)
            left = ceiling
            for word in rest:
                if not alive:
                    break
                left -= best[word]
                for o, h in zip(alive, postings.hits(alive, [word])):
                    score[o] += h
                if len(top) == k:
                    alive = [o for o in alive if (-(score[o] + left), o) < top[-1]]
            for o in alive:
                entry = (-score[o], o)
                if len(top) < k or entry < top[-1]:
                    bisect.insort(top, entry)
                    del top[k:]
