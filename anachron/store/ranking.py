"""The ranking every engine serves by default: BM25F over an item's two fields, from the items visible at T.

One rule, here, for the in-memory engine, the SQLite index and PostgreSQL
(each hands :func:`top_bm25` its posting lists; none scores on its own):

- **Fields.**  An item's *strong* terms (its title and the id and name of
  every entity it names) and its *weak* terms (its text, minus the strong
  ones) are two fields (:func:`~anachron.store.terms.item_terms`), weighted
  :data:`FIELD_WEIGHTS` (1.25 and 1).  Terms are sets, so a term's frequency
  in a field is 0 or 1, and a field's length is its number of distinct
  terms.  A word is in at most one field of an item.
- **Formula (BM25F, binary term frequency).**  For a query word *w* and an
  item holding it in field *f* of length *L*::

      t = W_f / (1 - b + b * L / avgL_f)
      contribution = idf(w) * t * (k1 + 1) / (k1 + t)
      idf(w) = ln(1 + (N - df(w) + 0.5) / (df(w) + 0.5))

  with :data:`K1` = 0.1 and :data:`B` = 0.9 (chosen on the known-item
  benchmark, ``benchmarks/bm25_sweep.py``).  An item's score is the sum
  of its contributions over the query's distinct words; items holding no
  query word are not returned.
- **Statistics at T.**  ``N``, ``df(w)`` and ``avgL_f`` are counted over
  the items the mode lets be seen: in enforced mode, the items known at the
  as-of date only, so neither the ranking nor a score can depend on an item
  published later (adding such items changes no enforced result: ids, order
  or scores).  Unrestricted mode counts every item.
- **Float rule.**  Each contribution is computed in double precision in the
  order written above and rounded to an integer number of millionths
  (:data:`SCALE`) before summing, so a score is an exact integer sum, the
  same in any order of addition and in every store.  Scores are shown as
  that integer divided by :data:`SCALE`.
- **Ties** (equal scores) break by recency before T: the newest publish
  date first, then the smaller id (:func:`order_key`), a total order.

Top *k* is found exactly, one of three ways (:func:`top_bm25`): over
bitmaps, by branch and bound on the items' word patterns and field lengths
(a query whose words hold many items); or term at a time with MaxScore
pruning, or by length groups (a few postings).

>>> contribution(idf(10, 1), FIELD_WEIGHTS[0], 4, 4.0)
2029327
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import operator
from typing import Iterable, Sequence

from anachron.store import bitmaps

__all__ = [
    "B",
    "DEFAULT_RANKING",
    "FIELD_WEIGHTS",
    "K1",
    "RANKINGS",
    "SCALE",
    "RankData",
    "check_ranking",
    "BITMAP_K",
    "BITMAP_WORDS",
    "BITMAP_POSTINGS",
    "FEW_ITEMS",
    "GROUPED_POSTINGS",
    "contribution",
    "group_by_length",
    "idf",
    "order_key",
    "shown_score",
    "top_bm25",
]

# Chosen on benchmarks/bm25_sweep.py's known-item queries (seed 3; checked on seeds 11 and 5, docs/index.md).
K1 = 0.1  # saturation of the pseudo-frequency (field weight over length norm); tf itself is 0 or 1
B = 0.9  # length normalisation
FIELD_WEIGHTS = (1.25, 1.0)  # strong terms (title, entity names), weak terms (text)
SCALE = 1_000_000  # a contribution is an integer number of millionths
RANKINGS = ("bm25", "count")  # count: the earlier ranking (2 per strong word, 1 per weak word), kept to reproduce runs
DEFAULT_RANKING = "bm25"


def check_ranking(ranking: object) -> str:
    """*ranking* if it is one of :data:`RANKINGS`, else an :class:`~anachron.core.errors.AnachronError`.

    >>> check_ranking("tfidf")
    Traceback (most recent call last):
    ...
    anachron.core.errors.AnachronError: unknown ranking 'tfidf': expected one of bm25, count
    """
    from anachron.core.errors import AnachronError

    if ranking not in RANKINGS:
        raise AnachronError(f"unknown ranking {ranking!r}: expected one of {', '.join(RANKINGS)}")
    return ranking  # type: ignore[return-value]


def idf(n: int, df: int) -> float:
    """BM25's inverse document frequency of a word held by *df* of *n* visible items (always > 0)."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def contribution(word_idf: float, weight: float, length: int, average: float) -> int:
    """A word's contribution, in millionths, to an item holding it in a field of *length* terms
    (the field's weight *weight*, its average length *average* over the visible items)."""
    t = weight / (1.0 - B + B * length / average)
    return round(SCALE * word_idf * t * (K1 + 1.0) / (K1 + t))


def shown_score(score: int) -> float:
    """A score as shown (JSON, tables): millionths as a float.

    >>> shown_score(2029327)
    2.029327
    """
    return score / SCALE


def order_key(score: int, day: int, position: int) -> tuple[int, int, int]:
    """The rank of an item: higher score first, then the later day (an ordinal), then the smaller
    position (positions number items by publish date, then id: within a day, id order)."""
    return (-score, -day, position)


class RankData:
    """What ranking needs of every item, by position (items numbered by publish date, then id).

    *strong* and *weak* are the items' field lengths, *days* their publish
    dates as ordinals (``date.toordinal()``).  Prefix sums of the lengths
    make the average field length of any range of positions two lookups.
    A store may number from 1: its position 0 is then a placeholder of
    length 0 that is never visible.
    """

    __slots__ = ("lengths", "days", "totals", "_by_length")

    def __init__(self, strong: Sequence[int], weak: Sequence[int], days: Sequence[int]) -> None:
        self.lengths = (strong, weak)
        self.days = days
        self.totals = tuple([0, *itertools.accumulate(lengths)] for lengths in self.lengths)
        self._by_length: tuple | None = None

    def by_length(self) -> tuple[tuple[list[int], dict[int, int], dict[int, int]], ...]:
        """Per field, its lengths in use (ascending, 0 left out), ``{length: bitmap of the positions
        whose field has that length}`` and ``{length: bitmap of those whose field is at least that
        long}`` (:mod:`.bitmaps`), made at the first call (one pass over the positions; kept: ranking
        never changes them)."""
        if self._by_length is None:
            made = []
            for lengths in self.lengths:
                rows: dict[int, bytearray] = {}
                size = (len(lengths) >> 3) + 1
                for o, length in enumerate(lengths):
                    if length:
                        row = rows.get(length)
                        if row is None:
                            row = rows[length] = bytearray(size)
                        row[o >> 3] |= 1 << (o & 7)
                lengths_in_use = sorted(rows)
                equal = {length: int.from_bytes(row, "little") for length, row in rows.items()}
                at_least, above = {}, 0
                for length in reversed(lengths_in_use):
                    above |= equal[length]
                    at_least[length] = above
                made.append((lengths_in_use, equal, at_least))
            self._by_length = tuple(made)
        return self._by_length  # type: ignore[return-value]

    def averages(self, low: int, high: int) -> tuple[float, float]:
        """Each field's average length over positions ``low <= p < high`` (0 for an empty field)."""
        n = high - low
        return tuple((total[high] - total[low]) / n for total in self.totals)  # type: ignore[return-value]


class _Table(dict):
    """A word's contribution per field length, computed the first time a length is met."""

    __slots__ = ("word_idf", "weight", "average")

    def __init__(self, word_idf: float, weight: float, average: float) -> None:
        super().__init__()
        self.word_idf, self.weight, self.average = word_idf, weight, average

    def __missing__(self, length: int) -> int:
        value = self[length] = contribution(self.word_idf, self.weight, length, self.average)
        return value


def _cut(ords: Sequence[int], low: int, high: int) -> Sequence[int]:
    """The part of the ascending *ords* within ``low <= o < high``."""
    return _sliced(*_span(ords, low, high))


def _span(ords: Sequence[int], low: int, high: int) -> tuple[Sequence[int], int, int]:
    """*ords* (ascending) and the bounds ``start, stop`` of its part within ``low <= o < high``."""
    if not ords or (ords[0] >= low and ords[-1] < high):
        return ords, 0, len(ords)
    return ords, bisect.bisect_left(ords, low), bisect.bisect_left(ords, high)


def _sliced(ords: Sequence[int], start: int, stop: int) -> Sequence[int]:
    """``ords[start:stop]``, or *ords* itself when that is all of it."""
    return ords if start == 0 and stop == len(ords) else ords[start:stop]


def _kth(scores: Iterable[int], k: int) -> int:
    return heapq.nlargest(k, scores)[-1]


GROUPED_POSTINGS = 4_000  # visible items its rarest word must hold for a query to be answered by length groups
BITMAP_POSTINGS = 1_000  # visible postings of a query's words from which it is answered over bitmaps (_by_bitmaps)...
BITMAP_K = 1_000  # ... when it asks for at most this many items...
BITMAP_WORDS = 12  # ... and has at most this many distinct words held by visible items (its patterns number 3 ** words)


def group_by_length(ords: Sequence[int], lengths: Sequence[int]) -> list[tuple[int, Sequence[int]]]:
    """*ords* (ascending) grouped by field length: ``[(length, ords of that length, ascending)]``,
    shortest first.  In a group a word contributes the same to every item (for any statistics),
    and a shorter field's contribution is the larger.

    >>> group_by_length([0, 1, 2, 5], [3, 1, 3, 0, 0, 1])
    [(1, [1, 5]), (3, [0, 2])]
    """
    groups: dict[int, list[int]] = {}
    for o in ords:
        groups.setdefault(lengths[o], []).append(o)
    return sorted(groups.items())


def top_bm25(
    lists: Iterable[tuple], data: RankData, low: int, high: int, k: int
) -> list[tuple[int, int]]:
    """The best *k* ``(position, score)`` for a query, in rank order (:func:`order_key`).

    *lists* holds, per distinct query word, the ascending positions of the
    items holding it as a strong term and as a weak term (all items: this
    cuts them), optionally, third, those two lists grouped by length
    (:func:`group_by_length`; either may be ``None``, grouped here when
    needed), and optionally, fourth, the two lists as bitmaps
    (:mod:`.bitmaps`, of all items; either may be ``None``, made here from
    the visible positions when needed); the visible items are positions
    ``low <= p < high``, and the statistics are theirs (see the module doc).

    Three exact ways, the same result: a query whose words hold more than
    :data:`BITMAP_POSTINGS` visible postings in all, asking for at most
    :data:`BITMAP_K` items, with at most :data:`BITMAP_WORDS` words held by
    visible items, is answered over bitmaps (:func:`_by_bitmaps`);
    any other whose rarest word is held by *k* to :data:`GROUPED_POSTINGS`
    visible items is added up term at a time with MaxScore pruning
    (:func:`_term_at_a_time`: the rare word's items set a bar the common
    words seldom reach); the rest (a word too rare to fill the top *k*, or
    a large *k*) by length groups, best first (:func:`_by_groups`).
    """
    n = high - low
    if n <= 0:
        return []
    averages = data.averages(low, high)
    words = []
    for entry in lists:
        strong, weak = entry[0], entry[1]
        fields = (_span(strong, low, high), _span(weak, low, high))  # cut (sliced) below, where needed
        df = fields[0][2] - fields[0][1] + fields[1][2] - fields[1][1]
        if not df:
            continue
        word_idf = idf(n, df)
        tables = tuple(_Table(word_idf, FIELD_WEIGHTS[f], averages[f]) for f in (0, 1))
        words.append([df, fields, tables, entry[2] if len(entry) > 2 else None, (strong, weak),
                      entry[3] if len(entry) > 3 else None])
    if not words:
        return []
    words.sort(key=lambda word: word[0])  # rarest first (ties keep the query's word order: sorted)
    bitmap_way = sum(word[0] for word in words) > BITMAP_POSTINGS and k <= BITMAP_K and len(words) <= BITMAP_WORDS
    if bitmap_way:
        return _by_bitmaps(words, data, low, high, k)
    for word in words:
        word[1] = tuple(_sliced(*span) for span in word[1])
        del word[5:]
    if k <= words[0][0] <= GROUPED_POSTINGS:
        scores = _term_at_a_time(words, data.lengths, k)
    else:
        scores = _by_groups(words, data.lengths, low, high, k)
    if len(scores) > k:
        threshold = _kth(scores.values(), k)
        chosen = list(itertools.compress(scores.keys(), map(threshold.__le__, scores.values())))
    else:
        chosen = list(scores)
    days = data.days
    chosen.sort(key=lambda o: order_key(scores[o], days[o], o))
    return [(o, scores[o]) for o in chosen[:k]]


def _term_at_a_time(words, lengths, k: int) -> dict[int, int]:
    """Exact scores of every item that can be in the top *k* (and maybe others): term at a time,
    rarest word first, until no item outside the candidates can reach the *k*-th score (the other
    words' best contributions add up to less); then :func:`_finish`."""
    for word in words:
        word.append(max(word[2][f][1] for f in (0, 1) if word[1][f]))  # a field holding the word has >= 1 term
    scores: dict[int, int] = {}
    rest = sum(word[-1] for word in words)
    for n_word, (_, fields, tables, _, _, best) in enumerate(words):
        if len(scores) >= k and rest < _kth(scores.values(), k):
            return _finish(scores, words[n_word:], rest, lengths, k)
        for f in (0, 1):
            ords = fields[f]
            if not ords:
                continue
            added = dict(zip(ords, map(tables[f].__getitem__, map(lengths[f].__getitem__, ords))))
            if scores:
                for o in added.keys() & scores.keys():
                    added[o] += scores[o]
                scores.update(added)
            else:
                scores = added
        rest -= best
    return scores


def _by_groups(words, lengths, low: int, high: int, k: int) -> dict[int, int]:
    """Exact scores of every item that can be in the top *k*, from the words' length groups.

    Every (word, field, length) group has one contribution.  Each word's groups are taken best
    first; its *frontier* is the contribution of its next group (0 when none is left).  An item
    not yet met holds each word, if at all, in a group not yet taken, so it scores at most the sum
    of the frontiers.  The group taken next is the one of the word with the highest frontier, and
    every item met in it is scored in full (a binary search per word and field).  Once the *k*-th
    best score is above the frontiers' sum, no item not yet met can reach it: the search stops.
    (Fagin's threshold algorithm, with a group for a sorted access.)
    """
    groups = []  # per word: [(contribution, visible ords)], best first
    for _, fields, tables, grouped, full in words:
        grouped = grouped or (None, None)
        grouped = tuple(g if g is not None else group_by_length(fields[f], lengths[f]) for f, g in enumerate(grouped))
        mine = []
        for f in (0, 1):
            table = tables[f]
            for length, ords in grouped[f]:
                ords = _cut(ords, low, high)
                if ords:
                    mine.append((table[length], ords))
        mine.sort(key=lambda g: -g[0])
        groups.append(mine)
    frontier = [mine[0][0] for mine in groups]
    taken = [0] * len(groups)
    # Per word: (strong ords, weak ords) visible, with their tables, for the full scoring of an item.
    scorers = [(fields[0], fields[1], tables[0], tables[1]) for _, fields, tables, _, _ in words]
    strong_lengths, weak_lengths = lengths
    scores: dict[int, int] = {}
    heap: list[int] = []  # the k best scores so far (a min-heap)
    left = bisect.bisect_left
    while True:
        ceiling = sum(frontier)
        if not ceiling or len(heap) >= k and ceiling < heap[0]:
            break
        w = max(range(len(frontier)), key=frontier.__getitem__)
        contribution, ords = groups[w][taken[w]]
        taken[w] += 1
        frontier[w] = groups[w][taken[w]][0] if taken[w] < len(groups[w]) else 0
        bound = ceiling  # an item of this group scores at most its contribution plus the others' frontiers
        # An item met here for the first time is in no group taken before: it holds this word with this
        # contribution, and no word whose groups are all taken.  Only the others are looked up.  (An
        # item left in a group cut short below is bounded under the k-th score: if it is met again and
        # scored lower than it is, it still stays out of the top k.)
        others = [scorers[v] for v in range(len(scorers)) if v != w and taken[v] < len(groups[v])]
        for o in ords:
            if o in scores:
                continue
            score = contribution
            for strong, weak, strong_table, weak_table in others:
                at = left(strong, o)
                if at < len(strong) and strong[at] == o:
                    score += strong_table[strong_lengths[o]]
                    continue
                at = left(weak, o)
                if at < len(weak) and weak[at] == o:
                    score += weak_table[weak_lengths[o]]
            scores[o] = score
            if len(heap) < k:
                heapq.heappush(heap, score)
            elif score > heap[0]:
                heapq.heapreplace(heap, score)
                if bound < heap[0]:  # the rest of this group is bounded lower: never reaches the top k
                    break
    return scores


def _finish(partial: dict[int, int], words, rest: int, lengths, k: int) -> dict[int, int]:
    """The exact scores of the candidates of *partial* that can reach the top *k*, the other *words*
    (whose best contributions add up to *rest*) looked up (binary search): candidates in
    descending partial score, until the *k*-th exact score is above the next one's partial plus
    *rest*, which bounds it and every later one."""
    scorers = [(fields[0], fields[1], tables[0], tables[1]) for _, fields, tables, *_ in words]
    strong_lengths, weak_lengths = lengths
    left = bisect.bisect_left
    scores: dict[int, int] = {}
    heap: list[int] = []
    for o, score in sorted(partial.items(), key=_second, reverse=True):
        if len(heap) >= k and score + rest < heap[0]:
            break
        for strong, weak, strong_table, weak_table in scorers:
            at = left(strong, o)
            if at < len(strong) and strong[at] == o:
                score += strong_table[strong_lengths[o]]
                continue
            at = left(weak, o)
            if at < len(weak) and weak[at] == o:
                score += weak_table[weak_lengths[o]]
        scores[o] = score
        if len(heap) < k:
            heapq.heappush(heap, score)
        elif score > heap[0]:
            heapq.heapreplace(heap, score)
    return scores


_second = operator.itemgetter(1)


def _by_bitmaps(words, data: RankData, low: int, high: int, k: int) -> list[tuple[int, int]]:
    """The best *k* ``(position, score)``, in rank order, by branch and bound over bitmaps.

    Every visible item holds each query word strong, weak or not at all: its
    *pattern*.  Its score is then fixed by the pattern and its two field
    lengths, and falls as either length grows.  A *cell* is a set of items (a
    bitmap) sharing the pattern of the first *i* words (rarest first), whose
    strong and weak lengths are at least two given lengths (or exactly them:
    *pinned*); its bound is the score of an item of those least lengths
    holding every other word in its better field.  Cells are taken best bound
    first and split: on the next word (three cells: strong, weak, neither; a
    few whole-bitmap operations, done in C), then on the strong length, then
    on the weak one (the items of the least length, and the rest, whose least
    length is the next one in use).  A cell whose pattern is whole and whose
    lengths are pinned has one exact score.  Once *k* items of exact cells
    score more than the next cell's bound, no item left can reach the top
    *k*; ties at the *k*-th score are all met first (the next bound is below
    it), and the newest of them are taken (:func:`_newest`).
    """
    (strong_lengths, strong_eq, strong_ge), (weak_lengths, weak_eq, weak_ge) = data.by_length()
    strong_lengths = strong_lengths or [1]  # no item has a strong term: no word is strong anywhere, never read
    weak_lengths = weak_lengths or [1]
    strong_lengths_of, weak_lengths_of = data.lengths
    visible = ((1 << high) - 1) ^ ((1 << low) - 1)
    m = len(words)
    columns = []  # per word: (strong bitmap, weak bitmap, strong table, weak table), visible items only
    held_by = []  # per word: how many visible items hold it strong, weak
    for word in words:
        fields, tables, given = word[1], word[2], word[5]
        made = []
        for f in (0, 1):
            bits = given[f] if given is not None and given[f] is not None else None
            ords, start, stop = fields[f]
            if start == stop:
                made.append(0)
            elif bits is not None:
                made.append(bits & visible)
            else:
                made.append(bitmaps.from_ords(_sliced(ords, start, stop)))
        columns.append((made[0], made[1], tables[0], tables[1]))
        held_by.append(tuple(stop - start for _, start, stop in fields))
    neither_of: dict[int, int] = {}  # per word, made when first needed: the visible items holding it in neither field

    def bound(i: int, strong: tuple, weak: tuple, a: int, b: int) -> int:
        s_len, w_len = strong_lengths[a], weak_lengths[b]
        total = sum(columns[w][2][s_len] for w in strong) + sum(columns[w][3][w_len] for w in weak)
        for w in range(i, m):
            s_bits, w_bits, s_table, w_table = columns[w]
            total += max(s_table[s_len] if s_bits else 0, w_table[w_len] if w_bits else 0)
        return total

    # A cell is pushed with its parent's bits and a mask, and made (parent & mask) only if taken:
    # (-bound, number, parent bits, mask, i, strong words, weak words, a, b, pinned strong, pinned weak).
    count = itertools.count()
    cells = [(-bound(0, (), (), 0, 0), next(count), visible, None, 0, (), (), 0, 0, False, False)]
    found: list[tuple[int, object]] = []  # (score, bitmap or positions) of exact cells
    best: list[list[int]] = []  # min-heap of [score, items] over exact cells, holding just enough for k items
    held = 0
    while cells:
        top = -cells[0][0]
        if not top or held >= k and top < best[0][0]:
            break
        _, _, bits, mask, i, strong, weak, a, b, s_pin, w_pin = heapq.heappop(cells)
        if mask is not None:
            bits &= mask
            if not bits:
                continue
        children = []
        if i < m:
            neither = neither_of.get(i)
            if neither is None:
                neither = neither_of[i] = visible ^ columns[i][0] ^ columns[i][1]  # never both in one item
            children = [(columns[i][0], i + 1, strong + (i,), weak, a, b, s_pin, w_pin),
                        (columns[i][1], i + 1, strong, weak + (i,), a, b, s_pin, w_pin),
                        (neither, i + 1, strong, weak, a, b, s_pin, w_pin)]
        elif not (strong or weak):
            continue  # holds no query word
        elif not (s_pin or w_pin or a or b) and (
                min([held_by[w][0] for w in strong] + [held_by[w][1] for w in weak]) <= FEW_ITEMS
                or len(strong) + len(weak) > 1 and bits.bit_count() <= FEW_ITEMS):
            # A whole pattern held by few items (its rarest field says so, or a count): each item scored
            # from its lengths, not split further.  (A count costs a pass over the bitmap: only where
            # words meet, which is where few items are.)
            by_score: dict[int, list[int]] = {}
            tables = [columns[w][2] for w in strong], [columns[w][3] for w in weak]
            for o in bitmaps.ords(bits):
                s_len, w_len = strong_lengths_of[o], weak_lengths_of[o]
                score = sum(t[s_len] for t in tables[0]) + sum(t[w_len] for t in tables[1])
                by_score.setdefault(score, []).append(o)
            for score, ords in by_score.items():
                found.append((score, ords))
                heapq.heappush(best, [score, len(ords)])
                held += len(ords)
            while held - best[0][1] >= k:
                held -= heapq.heappop(best)[1]
            continue
        elif strong and not s_pin:
            children = [(strong_eq[strong_lengths[a]], i, strong, weak, a, b, True, w_pin)]
            if a + 1 < len(strong_lengths):
                children.append((strong_ge[strong_lengths[a + 1]], i, strong, weak, a + 1, b, False, w_pin))
        elif weak and not w_pin:
            children = [(weak_eq[weak_lengths[b]], i, strong, weak, a, b, s_pin, True)]
            if b + 1 < len(weak_lengths):
                children.append((weak_ge[weak_lengths[b + 1]], i, strong, weak, a, b + 1, s_pin, False))
        else:  # exact: every item of the cell scores *top*
            n_items = bits.bit_count()
            found.append((top, bits))
            heapq.heappush(best, [top, n_items])
            held += n_items
            while held - best[0][1] >= k:
                held -= heapq.heappop(best)[1]
            continue
        floor = best[0][0] if held >= k else 0
        for child in children:
            if child[0]:
                child_bound = bound(*child[1:6])
                if child_bound >= floor:  # a cell bounded below the k-th score is never taken
                    heapq.heappush(cells, (-child_bound, next(count), bits, *child))
    if not found:
        return []
    kth = best[0][0] if held >= k else 0
    days = data.days
    chosen = []
    for score, bits in found:
        if score >= kth:
            chosen += [(o, score) for o in (bits if isinstance(bits, list) else _newest(bits, k, days))]
    chosen.sort(key=lambda pair: order_key(pair[1], days[pair[0]], pair[0]))
    return chosen[:k]


FEW_ITEMS = 64  # items of a whole pattern (bitmap way) scored one by one rather than split by length


def _newest(bits: int, k: int, days: Sequence[int]) -> list[int]:
    """The positions in *bits* of the newest days holding *k* of them at least (every position of the
    last such day): what the tie order can take from a cell whose items all score the same."""
    out: list[int] = []
    for o in bitmaps.descending(bits):
        if len(out) >= k and days[o] != days[out[-1]]:
            break
        out.append(o)
    return out
