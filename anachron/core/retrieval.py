"""Deterministic, date-aware keyword search over a corpus.

The as-of date is an argument of :meth:`SearchEngine.search`, never part of
the query, so an agent cannot move the cutoff by what it types.

Ranking: each distinct query word (lower-cased, stop words dropped) scores
2 when it appears in an item's title or in the name or id of an entity the
item names, 1 when it appears only in the text.  Items that match no word
are not returned.  Ties break on publish date, then id, so the order never
depends on dict or file order.

Modes:

- ``unrestricted``: every matching item may be returned;
- ``enforced``: items published after the as-of date are dropped before
  ranking, and nothing else is.  Survivorship is deliberately *not*
  filtered: an entity that is not point-in-time valid still surfaces, and
  measuring that residual is the point.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import heapq
import re
from collections import Counter
from itertools import compress, repeat
from typing import Mapping

from ..validate import describe, positive_int
from .corpus import Corpus, Entity, Item
from .dates import known_at
from .errors import AnachronError

__all__ = ["MODES", "SearchEngine", "item_terms", "tokenize"]

MODES = ("unrestricted", "enforced")

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an and are as at be by did do does for from had has have how in is it its of on or "
    "the to was were what when which who why will with about after before".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-cased words of *text* without stop words, in order."""
    return [word for word in _WORD.findall(text.lower()) if word not in _STOP]


def item_terms(item: Item, entities: Mapping[str, Entity]) -> tuple[frozenset[str], frozenset[str]]:
    """``(strong, weak)``: the words an item scores 2 for, and those it scores 1 for.

    Strong: the title's words and those of the id and name of every entity
    the item names.  Weak: the text's words that are not strong.  Every
    engine (in memory, SQLite, PostgreSQL) indexes these two sets.
    """
    strong = set(tokenize(item.title))
    for entity_id in item.entities:
        strong.update(tokenize(entity_id))
        strong.update(tokenize(entities[entity_id].name))
    return frozenset(strong), frozenset(tokenize(item.text)) - strong


class SearchEngine:
    """Keyword search over the items of a :class:`Corpus`, through an inverted index.

    Items are numbered in tie order (publish date, then id), and each word
    maps to the ascending numbers of the items it is strong in and of those
    it is weak in.  A query adds up the weights along its words' postings
    (so it costs what its words match, not the corpus size), then takes the
    best *k* by (score descending, number).  Enforced mode keeps only the
    items :func:`known_at` the as-of date: in date order they are a prefix,
    found by bisection, so the filter is a cut of each posting list.
    Results are exactly those of the linear scan this replaced
    (:class:`_ScanSearch`, kept as the reference the tests compare with).
    """

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._order: list[Item] = sorted(corpus.items.values(), key=lambda item: (item.publish_date, item.id))
        self._dates = [item.publish_date for item in self._order]
        strong_postings: dict[str, list[int]] = {}
        weak_postings: dict[str, list[int]] = {}
        for number, item in enumerate(self._order):
            strong, weak = item_terms(item, corpus.entities)
            for word in strong:
                strong_postings.setdefault(word, []).append(number)
            for word in weak:
                weak_postings.setdefault(word, []).append(number)
        self._strong = strong_postings
        self._weak = weak_postings

    def visible(self, item: Item, as_of: _dt.date, mode: str) -> bool:
        """Whether *mode* lets *item* be seen by an agent working as of *as_of*."""
        _check_mode(mode)
        return mode == "unrestricted" or known_at(item.publish_date, as_of)

    def search(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5) -> list[Item]:
        """The top *k* items for *query*, best first, as seen on *as_of* in *mode*."""
        _check_mode(mode)
        positive_int(k, "search: k")
        if not isinstance(query, str):
            raise AnachronError(f"search: query must be a string, got {describe(query)}")
        _check_day(as_of)
        words = set(tokenize(query))
        if not words:
            return []
        size = len(self._order)
        cut = self._known_prefix(as_of) if mode == "enforced" else size
        lists = []  # (postings, strong, weak) of each query word the corpus has
        for word in sorted(words):
            strong, weak = self._strong.get(word, ()), self._weak.get(word, ())
            if strong or weak:
                lists.append((len(strong) + len(weak), strong, weak))
        lists.sort(key=lambda entry: entry[0])  # rarest first (stable: ties keep word order)
        rare, total = 0, 0
        while rare < len(lists) and total + lists[rare][0] <= _RARE_POSTINGS:
            total += lists[rare][0]
            rare += 1
        if rare < len(lists):
            best = _pruned(lists, rare, cut, size, k)
            if best is not None:
                return [self._order[number] for number in best]
        scores: Counter[int] = Counter()
        for _, strong, weak in lists:
            _add(scores, strong, 2, cut, size)
            _add(scores, weak, 1, cut, size)
        return [self._order[number] for number in _best(scores, k)]

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
        _check_day(as_of)
        if not isinstance(item_id, str):
            raise AnachronError(f"fetch: item_id must be a string, got {describe(item_id)}")
        item = self.corpus.items.get(item_id)
        if item is None or not self.visible(item, as_of, mode):
            return None
        return item


_RARE_POSTINGS = 2_000  # postings the rare words of a query may have for the pruned path


def _add(scores: Counter[int], postings: list[int], weight: int, cut: int, size: int) -> None:
    """Add *weight* to the score of every item of *postings* numbered below *cut*."""
    if not postings:
        return
    if cut < size:
        postings = postings[: bisect.bisect_left(postings, cut)]
    for _ in range(weight):
        scores.update(postings)  # counted in C


def _pruned(lists: list, rare: int, cut: int, size: int, k: int) -> list[int] | None:
    """The best *k* found without counting every posting of the common words, or ``None``.

    The items matching a rare word (``lists[:rare]``) are scored in full:
    their rare-word weights from the postings, their common-word weights by
    bisection in the common words' postings.  Every other item matches only
    common words and scores at most *bound*, the sum of their largest
    weights.  Either *k* scored items score above *bound*: they are the
    best *k*.  Or the best of the other items are found by walking the
    common words' postings in item order (:func:`_first_at_bound`), which
    stops once *k* of them reach *bound*: no later one can beat them.  The
    best *k* are then among the two groups, exactly.  ``None`` when that
    walk runs out of its budget: the caller counts every posting.
    """
    scores: Counter[int] = Counter()
    for _, strong, weak in lists[:rare]:
        _add(scores, strong, 2, cut, size)
        _add(scores, weak, 1, cut, size)
    common = lists[rare:]
    bound = sum(2 if strong else 1 for _, strong, _ in common)
    for _, strong, weak in common:
        for postings, weight in ((strong, 2), (weak, 1)):
            if not postings:
                continue
            end = len(postings)
            for number in list(scores):
                at = bisect.bisect_left(postings, number)
                if at < end and postings[at] == number:
                    scores[number] += weight
    above = [number for number, score in scores.items() if score > bound]
    if len(above) >= k:
        above.sort(key=lambda number: (-scores[number], number))
        return above[:k]
    others = _first_at_bound(common, scores, bound, cut, k)
    if others is None:
        return None
    scores.update(others)
    ranked = sorted(scores, key=lambda number: (-scores[number], number))
    return ranked[:k]


_WALK_POSTINGS = 300  # postings the walk in item order may visit before giving up


def _first_at_bound(common: list, skip: Counter[int], bound: int, cut: int, k: int) -> dict[int, int] | None:
    """The best *k* items matching only *common* words (not in *skip*), with their scores.

    Walks the postings of the common words merged in item order, scoring
    each item in full as it passes.  Items come in tie order, so per score
    the first *k* are the best; once *k* items score *bound* (the most any
    can), the walk stops.  ``None`` when :data:`_WALK_POSTINGS` postings
    pass before that.
    """
    streams = [zip(postings, repeat(weight)) for _, strong, weak in common for postings, weight in ((strong, 2), (weak, 1)) if postings]
    levels: dict[int, list[int]] = {}
    current, score, seen = -1, 0, 0
    for number, weight in heapq.merge(*streams):
        if number != current:
            if score and current not in skip:
                level = levels.setdefault(score, [])
                if len(level) < k:
                    level.append(current)
                    if score == bound and len(level) == k:
                        break
            current, score = number, 0
            if number >= cut:
                break
        score += weight
        seen += 1
        if seen > _WALK_POSTINGS:
            return None
    else:
        if score and current not in skip and current < cut:  # the last item
            level = levels.setdefault(score, [])
            if len(level) < k:
                level.append(current)
    best: dict[int, int] = {}
    for level in sorted(levels, reverse=True):
        for number in levels[level][: k - len(best)]:
            best[number] = level
        if len(best) >= k:
            break
    return best


def _best(scores: Counter[int], k: int) -> list[int]:
    """The *k* keys of *scores* with the highest counts, ties by the smaller key.

    C-level passes, whatever the number of matches: one counts the items
    per score and so finds the lowest score the best *k* need; two pick out
    the items above it (fewer than *k*, sorted in Python) and those at it
    (``compress``; plain ints, sorted in C, smallest first).
    """
    needed, lowest = 0, 0
    for level, count in sorted(Counter(scores.values()).items(), reverse=True):
        needed += count
        lowest = level
        if needed >= k:
            break
    above = list(compress(scores.keys(), map(lowest.__lt__, scores.values())))  # fewer than k
    above.sort(key=lambda number: (-scores[number], number))
    at = sorted(compress(scores.keys(), map(lowest.__eq__, scores.values())))  # ints: sorted in C
    return above + at[: k - len(above)]


class _ScanSearch:
    """The linear scan :class:`SearchEngine` replaced: every item scored for every query.

    The reference the engine's tests and benchmarks/search_scale.py compare it
    with; not for serving.  Same arguments and checks as :meth:`SearchEngine.search`.
    """

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._words = {item.id: item_terms(item, corpus.entities) for item in corpus.items.values()}

    def search(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5) -> list[Item]:
        _check_mode(mode)
        positive_int(k, "search: k")
        _check_day(as_of)
        words = set(tokenize(query))
        if not words:
            return []
        scored = []
        for item in self.corpus.items.values():
            if mode == "enforced" and not known_at(item.publish_date, as_of):
                continue
            strong, weak = self._words[item.id]
            score = 2 * len(words & strong) + len(words & weak)
            if score:
                scored.append((-score, item.publish_date, item.id, item))
        scored.sort(key=lambda row: row[:3])
        return [row[3] for row in scored[:k]]


def _check_day(as_of: object) -> None:
    if not isinstance(as_of, _dt.date) or isinstance(as_of, _dt.datetime):
        raise AnachronError(f"as_of must be a datetime.date, got {describe(as_of)}")


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise AnachronError(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
