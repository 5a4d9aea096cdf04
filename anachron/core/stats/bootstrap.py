"""The paired percentile bootstrap of a mean, in pure Python.

Each observation is an exact integer numerator over one common denominator
(every float is a dyadic rational), so the mean of every resample is the
exact mean rounded once: no summation error, and the same bytes for the same
data and seed.  (The binomial sampler's acceptance test calls ``math.log``
and ``math.lgamma``; a platform whose libm differs in the last bit could in
principle accept a different draw, so cross-platform identity is expected,
not guaranteed.)

Two ways to draw a resample, the same estimator:

- **multinomial**: with K distinct values of counts m_1..m_K, a resample of
  size n draws each value c_j times, (c_1..c_K) ~ Multinomial(n, m_j / n),
  and its mean is sum(c_j * v_j) / n.  The counts are drawn as conditional
  binomials, c_j ~ Binomial(n - c_1 - ... - c_{j-1}, m_j / (m_j + ... + m_K)),
  so a resample costs K binomial draws, however large n is.
- **direct**: draw n observations uniformly with replacement and average
  them: n draws a resample.

Both give resample means with exactly the same distribution; only the random
stream differs.  :func:`resampling_method` picks the cheaper one.
"""

from __future__ import annotations

import math
import random
import sys
from array import array
from bisect import bisect_left
from collections.abc import Sequence as SequenceABC
from itertools import repeat
from operator import add, and_
from typing import Sequence

__all__ = [
    "binomial", "bootstrap_column_totals", "bootstrap_means", "bootstrap_pair_totals", "bootstrap_totals", "percentile",
    "resampling_method",
]

# A resample costs about K binomial draws on one path and n uniform draws on
# the other; timed per resample, the two break even near n = 7 K to 15 K
# (K = 3..30, n = 30..1,000).  The choice changes the speed, never the
# distribution of the resample means.
_BINOMIAL_COST = 12


BLOCKS_FROM = 1000  # pairs: from here the direct draws are made in blocks (bootstrap_column_totals)


def resampling_method(distinct: int, n: int) -> str:
    """``"multinomial"`` when K binomial draws are cheaper than n uniform ones; else ``"direct"``,
    or ``"blocks"`` (the same draws, made in blocks of random bytes) from :data:`BLOCKS_FROM` pairs.

    >>> resampling_method(3, 30), resampling_method(3, 1000), resampling_method(999, 999), resampling_method(1000, 1000)
    ('direct', 'multinomial', 'direct', 'blocks')
    """
    if distinct * _BINOMIAL_COST <= n:
        return "multinomial"
    return "blocks" if n >= BLOCKS_FROM else "direct"


def binomial(rng: random.Random, n: int, numerator: int, denominator: int) -> int:
    """Draw from Binomial(n, p) with p = numerator / denominator, exactly given.

    p is passed as a ratio of integers so that 1 - p is exact too.  Small
    means (n * min(p, 1 - p) < 10) use inversion, walking up the pmf from 0;
    larger ones use Hormann's transformed rejection with squeeze (BTRS, 1993).
    n = 0 or p = 0 gives 0 and p = 1 gives n, drawing nothing.

    >>> binomial(random.Random(0), 10, 0, 1), binomial(random.Random(0), 10, 1, 1)
    (0, 10)
    >>> rng = random.Random(0)
    >>> round(sum(binomial(rng, 100, 1, 4) for _ in range(10_000)) / 10_000)  # the mean n p
    25
    """
    if n == 0 or numerator == 0:
        return 0
    if numerator == denominator:
        return n
    complement = 2 * numerator > denominator  # draw n - X ~ Binomial(n, 1 - p): p <= 1/2 below
    if complement:
        numerator = denominator - numerator
    drawn = _draw(rng, n, _setup(n, numerator / denominator, (denominator - numerator) / denominator))
    return n - drawn if complement else drawn


def _setup(n: int, p: float, q: float) -> tuple:
    """The constants of a draw from Binomial(n, p), 0 < p <= 1/2, q = 1 - p, n >= 1."""
    if n * p < 10:
        ratio = p / q
        # pmf(0) = q**n >= exp(-14) here, since n * p < 10 and p <= 1/2.
        return (False, n, q**n, ratio, (n + 1) * ratio)
    spq = math.sqrt(n * p * q)
    b = 1.15 + 2.53 * spq
    mode = math.floor((n + 1) * p)
    return (
        True,
        n,
        -0.0873 + 0.0248 * b + 0.01 * p,  # a
        b,
        n * p + 0.5,  # c
        (2.83 + 5.1 / b) * spq,  # alpha
        0.92 - 4.2 / b,  # v_r: below it (and off the tails) the squeeze accepts
        math.log(p / q),
        mode,
        math.lgamma(mode + 1) + math.lgamma(n - mode + 1),
    )


def _draw(rng: random.Random, n: int, setup: tuple) -> int:
    random_ = rng.random
    if not setup[0]:  # inversion
        _, _, first, ratio, scale = setup
        while True:
            u = random_()
            pmf = first
            x = 0
            # pmf(x) / pmf(x - 1) = (n - x + 1) / x * p / q
            while u > pmf and x < n:
                u -= pmf
                x += 1
                pmf *= scale / x - ratio
            if u <= pmf:
                return x
            # Rounding left u above the whole pmf (a mass below 1e-15): draw again.
    _, _, a, b, c, alpha, v_r, log_odds, mode, h = setup
    lgamma = math.lgamma
    while True:
        u = random_() - 0.5
        v = random_()
        us = 0.5 - abs(u)
        if us == 0.0:
            continue
        k = math.floor((2 * a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:  # the squeeze: inside the hat for sure
            return k
        if v == 0.0:  # log(0) = -inf: always below the pmf
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        if v <= h - lgamma(k + 1) - lgamma(n - k + 1) + (k - mode) * log_odds:
            return k


def bootstrap_means(
    values: Sequence[int],
    counts: Sequence[int],
    denominator: int,
    n_resamples: int,
    rng: random.Random,
    method: str,
) -> list[float]:
    """The means of *n_resamples* resamples of the data, each rounded once.

    The data are ``counts[j]`` copies of ``values[j] / denominator``; either
    *method* draws the same distribution of means (:func:`resampling_method`).

    >>> means = bootstrap_means([0, 1], [4, 1], 1, 2000, random.Random(0), "multinomial")
    >>> all(5 * m == int(5 * m) for m in means)  # a resample of 5 observations: a mean k / 5
    True
    >>> round(sum(means) / len(means), 1)  # the sample mean, 1 / 5
    0.2
    """
    scale = sum(counts) * denominator
    return [total / scale for total in bootstrap_totals(values, counts, n_resamples, rng, method)]


def bootstrap_totals(
    values: Sequence[int],
    counts: Sequence[int],
    n_resamples: int,
    rng: random.Random,
    method: str,
) -> list[int]:
    """The exact integer sums of *n_resamples* resamples of ``counts[j]`` copies of ``values[j]``.

    >>> bootstrap_totals([3], [4], 2, random.Random(0), "direct")  # one value: every resample is the sample
    [12, 12]
    """
    n = sum(counts)
    if len(values) == 1:  # every resample is the sample
        return [values[0] * n] * n_resamples
    if method == "blocks":
        population = [v for v, c in zip(values, counts) for _ in range(c)]
        return [total for total, in bootstrap_column_totals([population], n_resamples, rng)]
    if method == "direct":
        population = [v for v, c in zip(values, counts) for _ in range(c)]
        choices = rng.choices
        return [sum(choices(population, k=n)) for _ in range(n_resamples)]
    # Largest counts first: the remaining draws shrink fastest, and the loop
    # below stops as soon as none remain.  Category j is drawn with the fixed
    # probability count_j / mass_j (mass_j: observations in categories j, j+1, ...);
    # only the number of draws left varies, so its set-up is cached per value.
    order = sorted(range(len(values)), key=lambda j: (-counts[j], values[j]))
    steps = []
    mass = n
    for j in order[:-1]:
        count = counts[j]
        complement = 2 * count > mass
        small = mass - count if complement else count
        steps.append((values[j], complement, small / mass, (mass - small) / mass, {}))
        mass -= count
    last_value = values[order[-1]]
    totals = []
    for _ in range(n_resamples):
        left = n  # draws still to place
        total = 0
        for value, complement, p, q, cache in steps:
            setup = cache.get(left)
            if setup is None:
                setup = cache[left] = _setup(left, p, q)
            drawn = _draw(rng, left, setup)
            if complement:
                drawn = left - drawn
            total += drawn * value
            left -= drawn
            if not left:
                break
        else:
            total += left * last_value
        totals.append(total)
    return totals


try:
    from zlib import adler32 as _adler32
except ImportError:  # zlib is optional in a CPython build: the same low half, (1 + byte sum) mod 65521, in Python
    def _adler32(data: bytes) -> int:
        return (1 + sum(data)) % 65521

_BLOCK_BITS = 8
_LIMB_BITS = 7  # a gathered limb is a byte of at most 127
# Draws summed per adler32 call: 1 + 515 * 127 < 65521, so the low half of adler32 is 1 + the exact sum.
_ADLER_DRAWS = (65520 - 1) // ((1 << _LIMB_BITS) - 1)
_SPREAD_SHARE = 5  # the first pass resolves a mean to 2**-5 of its bootstrap standard error, or finer
_CHECKPOINT_BUDGET = 2500  # generator states kept to replay resamples (about 5 KB each)
_SETUP_BUDGET = 100_000  # binomial set-ups cached per call (one per block and number of draws left)


def _cut(shifted: Sequence[int], n: int, bits: int | None) -> int:
    """The low bits of *shifted* left out of the first pass: all but *bits*, or, when *bits* is
    None, as many as keep the first pass's bounds on a resample mean within about 2**-5 of the
    bootstrap standard error sigma / sqrt(n).  Only the speed depends on it, never a total."""
    width = max(shifted).bit_length()
    if bits is not None:
        return max(0, width - bits)
    drop = max(0, width - 60)
    xs = [float(v >> drop) for v in shifted]
    mean = math.fsum(xs) / n
    variance = math.fsum((x - mean) ** 2 for x in xs) / n
    if variance <= 0:
        return 0
    return max(0, min(width, math.floor(0.5 * math.log2(variance / n)) - _SPREAD_SHARE + drop))


def _limb_tables(values: Sequence[int], start: int, size: int, shifts: Sequence[int]) -> list[bytes]:
    """One ``bytes.translate`` table a limb: entry i is that limb of row ``start + i % size``."""
    rows = values[start:start + size]
    return [bytes(v >> shift & 127 for v in rows) * (256 // size) for shift in shifts]


class BlockResamples:
    """The totals of *n_resamples* "blocks" resamples of *columns*: bounded after one pass, exact on demand.

    Made by :func:`bootstrap_column_bounds`.  Column c's values are shifted
    to ``v - min`` and split at a bit ``cut_c``: the first pass sums the high
    parts exactly (7-bit limbs gathered by ``bytes.translate`` from one table
    per block of rows and summed by ``zlib.adler32``, whose low half is
    ``1 + sum mod 65521``, exact below 516 draws a call), giving every
    resample's total within ``[lo, lo + n (r_max - r_min)]`` (r: the low
    parts).  :meth:`exact` replays a resample's draws from a saved generator
    state to add its low parts: the same draws, so the same totals as one
    exact pass.
    """

    def __init__(self, columns: Sequence[Sequence[int]], n_resamples: int, rng: random.Random, bits: int | None) -> None:
        n = len(columns[0])
        self.n = n
        self.n_resamples = n_resamples
        lows = [min(column) for column in columns]
        shifted = [[v - low for v in column] for low, column in zip(lows, columns)]
        cuts = [_cut(values, n, bits) for values in shifted]
        highs = [[v >> cut for v in values] for cut, values in zip(cuts, shifted)]
        rests = [[v & ((1 << cut) - 1) for v in values] for cut, values in zip(cuts, shifted)]
        self._base = [n * low for low in lows]
        self._floor = [n * low + n * min(rest) for low, rest in zip(lows, rests)]  # the low parts at their least
        self._spread = [n * (max(rest) - min(rest)) for rest in rests]
        self._cuts = cuts
        self._rests = rests
        # The shifts of each column's limbs of its high parts.
        self._high_limbs = [[k * _LIMB_BITS for k in range(-(-max(h).bit_length() // _LIMB_BITS))] for h in highs]
        self._sizes = [_BLOCK_BITS] * (n >> _BLOCK_BITS) + [b for b in range(_BLOCK_BITS - 1, -1, -1) if n >> b & 1]
        blocks = []
        start = 0
        rows = n
        last = len(self._sizes) - 1
        for number, block_bits in enumerate(self._sizes):
            size = 1 << block_bits
            tables = [t for h, shifts in zip(highs, self._high_limbs) for t in _limb_tables(h, start, size, shifts)]
            complement = 2 * size > rows
            small = rows - size if complement else size
            blocks.append([block_bits, number == last, complement, small / rows, (rows - small) / rows, {}, start, size, tables])
            start += size
            rows -= size
        self._blocks = blocks
        self._setups = 0
        replay = any(self._spread)
        stride = max(4, -(-n_resamples // _CHECKPOINT_BUDGET))
        self._stride = stride
        self._states: list[tuple] = []
        sums = []
        for i in range(n_resamples):
            if replay and i % stride == 0:
                version, state, gauss = rng.getstate()
                self._states.append((version, array("Q", state), gauss))
            sums.append(self._combine(self._resample(rng, 8), self._high_limbs, self._cuts))
        self._high_sums = sums  # per resample, per column: the exact sum of the high parts
        self._exact: dict[int, tuple[int, ...]] = {}
        self._rest_limbs: list[list[int]] | None = None

    @staticmethod
    def _combine(limb_sums: list[int], limbs: list[list[int]], cuts: Sequence[int]) -> tuple[int, ...]:
        out = []
        j = 0
        for shifts, cut in zip(limbs, cuts):
            total = 0
            for shift in shifts:
                total += limb_sums[j] << shift
                j += 1
            out.append(total << cut)
        return tuple(out)

    def _resample(self, rng: random.Random, pick: int) -> list[int]:
        """Draw one resample; the sums over its draws of each limb in table slot *pick* (8: the
        first pass's, 9: the low parts', None: draw only)."""
        randbytes = rng.randbytes
        left = self.n
        acc = None
        calls = 0
        for block in self._blocks:
            if not left:
                break
            block_bits, last, complement, p, q, cache, _, _, = block[:8]
            if last:
                m = left
            else:
                setup = cache.get(left)
                if setup is None:
                    setup = _setup(left, p, q)
                    if self._setups < _SETUP_BUDGET:
                        cache[left] = setup
                        self._setups += 1
                drawn = _draw(rng, left, setup)
                m = left - drawn if complement else drawn
            left -= m
            if not m:
                continue
            tables = block[pick] if pick is not None else ()
            if block_bits == 0:  # one row: no index to draw
                if acc is None:
                    acc = [m * t[0] for t in tables]
                else:
                    acc = [a + m * t[0] for a, t in zip(acc, tables)]
                continue
            drawn_rows = randbytes(m)  # the k-bit indices are each byte's low k bits: the tables repeat
            for at in range(0, m, _ADLER_DRAWS):
                piece = drawn_rows[at:at + _ADLER_DRAWS] if m > _ADLER_DRAWS else drawn_rows
                sums = map(and_, map(_adler32, map(piece.translate, tables)), repeat(0xFFFF))
                acc = list(sums) if acc is None else list(map(add, acc, sums))
                calls += 1
        if acc is None:
            return [0] * len(block[pick]) if pick is not None else []
        return [a - calls for a in acc]  # each adler32 call counted 1 more

    def bounds(self, column: int) -> tuple[list[int], list[int]]:
        """Every resample's least and greatest possible total of *column*, as exact integers."""
        floor, spread = self._floor[column], self._spread[column]
        los = [s[column] + floor for s in self._high_sums]
        return los, [lo + spread for lo in los] if spread else los

    def exact(self, indices: "Sequence[int] | set[int]") -> dict[int, tuple[int, ...]]:
        """The exact totals (one per column) of the resamples numbered *indices*."""
        todo = sorted({i for i in indices if i not in self._exact})
        if todo and not any(self._spread):
            for i in todo:
                self._exact[i] = tuple(s + f for s, f in zip(self._high_sums[i], self._floor))
            todo = []
        if todo:
            self._prepare_rests()
            rng = random.Random()
            wanted = set(todo)
            position = None
            for i in todo:
                checkpoint = i // self._stride
                if position is None or position > i or position // self._stride != checkpoint:
                    version, state, gauss = self._states[checkpoint]
                    rng.setstate((version, tuple(state), gauss))
                    position = checkpoint * self._stride
                while position <= i:
                    limb_sums = self._resample(rng, 9 if position in wanted else None)
                    if position in wanted:
                        rests = self._combine(limb_sums, self._rest_limbs, [0] * len(self._cuts))
                        self._exact[position] = tuple(
                            base + high + rest for base, high, rest in zip(self._base, self._high_sums[position], rests))
                    position += 1
        return {i: self._exact[i] for i in indices}

    def _prepare_rests(self) -> None:
        if self._rest_limbs is not None:
            return
        # The low parts as they are (not less their least): a replay sums them over the n draws.
        self._rest_limbs = [[k * _LIMB_BITS for k in range(-(-cut // _LIMB_BITS))] for cut in self._cuts]
        for block in self._blocks:
            start, size = block[6], block[7]
            block.append([t for rest, shifts in zip(self._rests, self._rest_limbs) for t in _limb_tables(rest, start, size, shifts)])


def bootstrap_column_bounds(
    columns: Sequence[Sequence[int]], n_resamples: int, rng: random.Random, *, first_pass_bits: int | None = None,
) -> BlockResamples:
    """Resample the n rows of *columns* (each a sequence of n integers) uniformly with replacement,
    *n_resamples* times ("blocks" resampling); every resample's column totals, bounded, exact on demand.

    The indices are drawn in blocks: n is split into power-of-two blocks (256
    rows each, then its binary digits below 256, largest first), the n draws
    of a resample are shared out among the blocks by conditional binomials
    (block j of size s_j gets Binomial(draws left, s_j / rows left), as
    :func:`binomial` draws it), and within a block of 2^k rows each draw is
    the low k bits of one byte of ``rng.randbytes(m)`` (m: the block's
    draws; a block of one row draws no byte).  So every draw is uniform over
    the n rows, independent of the others, exactly: the textbook bootstrap.

    The first pass sums each column's high bits only (*first_pass_bits* of
    them; None: chosen from the column's spread, see :class:`BlockResamples`),
    so a resample's total is known to lie in ``bounds(c)``; ``exact(indices)``
    replays those resamples to give their exact totals.  The generator is left
    where one pass over all the draws leaves it.

    >>> r = bootstrap_column_bounds([[0, 1000]], 3, random.Random(0), first_pass_bits=1)
    >>> [lo <= t <= hi for lo, hi, (t,) in zip(*r.bounds(0), r.exact(range(3)).values())]
    [True, True, True]
    """
    return BlockResamples(columns, n_resamples, rng, first_pass_bits)


def bootstrap_column_totals(columns: Sequence[Sequence[int]], n_resamples: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Each of *n_resamples* "blocks" resamples' exact sum of every column (:func:`bootstrap_column_bounds`,
    all bits in one pass; one draw of indices serves every column).

    >>> bootstrap_column_totals([[5, 5, 5]], 2, random.Random(0))  # one value: every resample sums to 3 of it
    [(15,), (15,)]
    >>> round(sum(t for t, in bootstrap_column_totals([[1, 0]], 2000, random.Random(1))) / 2000, 1)  # E = n / 2
    1.0
    """
    resamples = BlockResamples(columns, n_resamples, rng, sys.maxsize)
    return list(resamples.exact(range(n_resamples)).values())


class OrderStatistics(SequenceABC):
    """The sorted statistics of resamples known within bounds, each read exactly.

    Item i lies in ``[lows[i], highs[i]]``; ``exact(indices)`` gives the exact
    keys of the items numbered *indices* (a dict), ``value(key)`` the float
    reported.  ``self[r]`` is ``value`` of the r-th smallest exact key: with
    L and H the r-th smallest low and high bound, that key lies in [L, H];
    the items whose bounds miss [L, H] lie wholly below or above it, so only
    the items meeting it are computed exactly, and the r-th value is the
    (r - number below)-th of theirs.  Reading rank r computes r + 1 too (a
    percentile reads both).
    """

    def __init__(self, lows: Sequence, highs: Sequence, exact, value) -> None:
        self._lows, self._highs = lows, highs
        self._sorted_lows, self._sorted_highs = sorted(lows), sorted(highs)
        self._exact, self._value = exact, value
        self._done: dict[int, float] = {}

    def __len__(self) -> int:
        return len(self._lows)

    def __getitem__(self, rank):  # type: ignore[override]
        if isinstance(rank, slice):
            return [self[r] for r in range(*rank.indices(len(self)))]
        if rank < 0:
            rank += len(self)
        if not 0 <= rank < len(self):
            raise IndexError(rank)
        if rank not in self._done:
            ranks = [r for r in (rank, rank + 1) if r < len(self) and r not in self._done]
            low, high = self._sorted_lows[ranks[0]], self._sorted_highs[ranks[-1]]
            meeting = [i for i, (lo, hi) in enumerate(zip(self._lows, self._highs)) if lo <= high and hi >= low]
            keys = self._exact(meeting)
            for r in ranks:
                low, high = self._sorted_lows[r], self._sorted_highs[r]
                below = bisect_left(self._sorted_highs, low)  # highs < L: wholly below the r-th
                inside = sorted(keys[i] for i in meeting if self._lows[i] <= high and self._highs[i] >= low)
                self._done[r] = self._value(inside[r - below])
        return self._done[rank]


def count_below(lows: Sequence, highs: Sequence, target, exact) -> int:
    """Twice the number of items below *target* plus the number equal to it (BCa's p0, doubled):
    items bounded in ``[lows[i], highs[i]]``, the exact keys of those whose bounds hold *target*
    from ``exact(indices)`` (a dict)."""
    doubled = 0
    unsure = []
    for i, (lo, hi) in enumerate(zip(lows, highs)):
        if hi < target:
            doubled += 2
        elif lo <= target:
            unsure.append(i)
    for key in exact(unsure).values():
        doubled += 2 * (key < target) + (key == target)
    return doubled


def bootstrap_pair_totals(
    pairs: Sequence[tuple[int, int]],
    counts: Sequence[int],
    n_resamples: int,
    rng: random.Random,
    method: str,
) -> list[tuple[int, int]]:
    """Resample ``counts[j]`` copies of each integer pair ``pairs[j]`` (first >= 0); each resample's two exact sums.

    Each pair is packed into one integer, ``x * M + (y + D)`` with
    ``D = max |y|`` and ``M = n (2 D) + 1``, so a sum of n packed pairs unpacks
    exactly into its two sums: the scalar resampler, with its fast paths, does
    the work.

    >>> bootstrap_pair_totals([(2, -1)], [3], 1, random.Random(0), "direct")
    [(6, -3)]
    """
    n = sum(counts)
    shift = max(abs(y) for _, y in pairs)
    base = n * 2 * shift + 1
    packed = [x * base + y + shift for x, y in pairs]
    out = []
    for total in bootstrap_totals(packed, counts, n_resamples, rng, method):
        first, rest = divmod(total, base)
        out.append((first, rest - n * shift))
    return out


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The *q* quantile by linear interpolation between order statistics.

    Position ``h = (B - 1) * q``, as numpy's and scipy's default ("type 7"):
    the value at ``floor(h)`` plus the fraction ``h - floor(h)`` of the step
    to the next one; q = 0 and q = 1 give the smallest and the largest.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5)
    2.5
    >>> percentile([0.0, 10.0], 0.25), percentile([0.0, 10.0], 1.0)
    (2.5, 10.0)
    """
    h = (len(sorted_values) - 1) * q
    low = math.floor(h)
    high = min(low + 1, len(sorted_values) - 1)
    fraction = h - low
    a, b = sorted_values[low], sorted_values[high]
    return a + (b - a) * fraction
