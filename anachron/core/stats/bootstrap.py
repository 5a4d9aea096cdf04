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
- **blocks** (from :data:`BLOCKS_FROM` observations): the same n uniform
  draws, shared out among blocks of 256 rows by conditional binomials and
  drawn within a block as random bytes (:func:`bootstrap_column_bounds`).
  The draws' sums are made in C: each column, less its least value, is cut
  into limbs of 7 (or 8) bits; per block and limb a 256-byte table maps a
  drawn byte to its row's limb, ``bytes.translate`` gathers the draws' limbs
  and the low half of ``zlib.adler32``, (1 + sum) mod 65521, sums them,
  exactly while a call sums at most 515 limbs of 7 bits (256 of 8).  A first
  pass sums only the high bits of each column, which bounds every resample's
  totals; :class:`OrderStatistics` and :func:`count_below` then replay,
  from a saved generator state, only the resamples whose bounds leave their
  place in the order (or their side of the estimate) open, and sum them
  exactly.  So every figure is that of one exact pass over the same draws.
  From :data:`BYTES_UNTIL` rows the same draws are made by groups
  (:class:`GroupResamples`): 256 sorted rows a group, a resample's count in
  each group drawn as a multinomial (conditional binomials between complete
  binary trees of groups, and within a tree Binomial(m, 1/2) as the ones in m
  random bits), then each group's draws of every resample as one stream of
  bytes (SHAKE-128, keyed per group and chunk of 16 resamples, so a replay
  regenerates only the chunks it reads), summed a few C calls a group and
  limb, not a resample; a column constant in a group costs one product there.

All give resample means with exactly the same distribution; only the random
stream differs.  :func:`resampling_method` picks the cheaper one.
"""

from __future__ import annotations

import hashlib
import math
import random
import struct
import sys
from array import array
from bisect import bisect_left, bisect_right
from fractions import Fraction
from collections.abc import Sequence as SequenceABC
from functools import lru_cache
from itertools import accumulate, chain, compress, count as counting, repeat
from operator import add, and_, ge, getitem, le, lshift, mul, rshift, sub
from typing import Iterable, Sequence

__all__ = [
    "BandStatistics", "BlockResamples", "band_edge", "ByteResamples", "GroupResamples", "OrderStatistics", "binomial", "bootstrap_byte_bounds", "bootstrap_column_bounds", "bootstrap_column_totals", "bootstrap_means",
    "bootstrap_pair_totals", "bootstrap_totals", "count_below", "log2_sd", "paired_method", "percentile", "resampling_method",
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


def paired_method(distinct: int, n: int, n_resamples: int | None = None) -> str:
    """compare_modes' choice: :func:`resampling_method`, except that from :data:`PAIRED_BLOCKS_FROM`
    pairs on the draws are made in blocks, unless K binomial draws cost less than a resample of blocks.

    A blocks resample costs about as much as 20 sqrt(n / 1,000) binomial draws (timed at
    n = 1,000 to 100,000), far less than the n uniform draws the 12 K <= n rule weighs K
    against: K^2 <= 0.4 n.  Issue 37: leak-like scores at n = 1,000 have some 60 distinct
    differences, where 60 binomial draws a resample took four times the blocks' time.

    >>> paired_method(20, 1000), paired_method(21, 1000), paired_method(3, 100), paired_method(62, 10_000)
    ('multinomial', 'blocks', 'multinomial', 'multinomial')
    >>> paired_method(255, 255), paired_method(256, 256)
    ('direct', 'blocks')

    Given *n_resamples* B, from :data:`BYTES_FROM` to :data:`BYTES_UNTIL` pairs (B n within
    what is held at once) every resample's bytes are drawn at once ("bytes"): below
    :data:`BYTES_OVER_MULTINOMIAL` pairs whatever K, above only where blocks would be.

    >>> paired_method(3, 300, 10_000), paired_method(3, 600, 10_000), paired_method(40, 600, 10_000)
    ('bytes', 'multinomial', 'bytes')
    """
    method = resampling_method(distinct, n)
    if n >= PAIRED_BLOCKS_FROM and (method == "direct" or method == "multinomial" and 5 * distinct * distinct > 2 * n):
        method = "blocks"
    if n_resamples is not None and BYTES_FROM <= n < BYTES_UNTIL and n * n_resamples <= _BYTES_BUDGET and (
            n < BYTES_OVER_MULTINOMIAL or method == "blocks"):
        return "bytes"
    return method


# Below here compare_modes draws "bytes" even where K binomial draws a resample would do (few distinct
# differences): up to 511 pairs a resample's bytes cost less (timed: binary scores at 300 pairs, 40
# against 85 ms; at 600, even).
BYTES_OVER_MULTINOMIAL = 512


# compare_modes draws in blocks from here (where K binomial draws would cost more): two intervals
# read one draw of blocks, and a block of 256 rows is whole (timed: 2 to 3 times faster than the
# direct draws at 256 to 999 pairs; at 100, no faster).
PAIRED_BLOCKS_FROM = 256


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


def _python_adler32(data: bytes, value: int = 1) -> int:
    """The low half of adler32, (the low half of *value*, 1 by default, + the sum of the bytes) mod 65521:
    all the blocks read of it (the bytes path runs a call on from the last one's value)."""
    return ((value & 0xFFFF) + sum(data)) % 65521


try:
    from zlib import adler32 as _adler32
except ImportError:  # zlib is optional in a CPython build: the same sums, slower
    _adler32 = _python_adler32

_BLOCK_BITS = 8
# adler32's low half is (1 + the sum of the bytes) mod 65521: exact while the sum stays below
# 65520, so a call sums at most 515 limbs of 7 bits (the first pass) or 256 of 8 (the replays).
_FIRST_BITS, _FIRST_DRAWS = 7, 515
_REST_BITS, _REST_DRAWS = 8, 256
_SPREAD_SHARE = 5  # the first pass bounds a resample mean within about 2**-5 of its standard error
_CHECKPOINT_BUDGET = 2500  # generator states kept to replay resamples from (5 KB each)
_SETUP_BUDGET = 100_000  # binomial set-ups cached (one per block and number of draws left)


def _cut(shifted: Sequence[int], n: int, bits: int | None, log_sd: float | None = None) -> int:
    """How many low bits of *shifted* (non-negative) the first pass leaves out: all but the top
    *bits*, or, when *bits* is None, as many as keep its bound on a resample mean within about
    2**-5 of the bootstrap standard error sigma / sqrt(n), sigma = 2^log_sd (by default the
    column's own).  It sets the speed, never a total."""
    width = max(shifted).bit_length()
    if bits is not None:
        return max(0, width - bits)
    if log_sd is not None:
        if log_sd == -math.inf:
            return width
        return max(0, min(width, math.floor(log_sd - 0.5 * math.log2(n)) - _SPREAD_SHARE))
    drop = max(0, width - 60)
    xs = [float(v >> drop) for v in shifted]
    mean = math.fsum(xs) / n
    variance = math.fsum((x - mean) ** 2 for x in xs) / n
    if variance <= 0:
        return 0
    return max(0, min(width, math.floor(0.5 * math.log2(variance / n)) - _SPREAD_SHARE + drop))


def _tables(values: Sequence[int], start: int, size: int, bits: int, limbs: int) -> list[bytes]:
    """One ``bytes.translate`` table a limb of *bits* bits: byte i is that limb of row ``start + i % size``
    (a block of 2^k < 256 rows draws bytes whose low k bits are the row)."""
    rows = values[start:start + size]
    if bits == 8:  # each row's limbs are its little-endian bytes: made in C, read with a stride
        raw = b"".join([v.to_bytes(limbs, "little") for v in rows])
        return [raw[k::limbs] * (256 // size) for k in range(limbs)]
    mask = (1 << bits) - 1
    return [bytes([v >> (k * bits) & mask for v in rows]) * (256 // size) for k in range(limbs)]


class BlockResamples:
    """The column totals of "blocks" resamples (:func:`bootstrap_column_bounds`): bounded after one
    pass, exact on demand.

    Column c's values, less their least, are split at a bit cut_c into a high
    part h and a low part r.  The first pass draws every resample and sums the
    high parts of its draws exactly: each is cut into 7-bit limbs, and per
    block of rows and limb a 256-byte table maps a drawn byte to its row's
    limb, so ``drawn.translate(table)`` gathers the draws' limbs and
    ``zlib.adler32`` sums them (its low half, less 1, below 516 draws a call).
    A resample's total then lies within ``n * (max r - min r)`` of its least
    possible value: :meth:`bounds`.  :meth:`exact` replays a resample's draws
    from the generator state saved before it (every few resamples) and sums
    its low parts too (8-bit limbs, cut by ``int.to_bytes``; 256 draws a
    call): the same draws, hence the totals of one exact pass.
    """

    def __init__(self, columns: Sequence[Sequence[int]], n_resamples: int, rng: random.Random, bits: int | None) -> None:
        n = len(columns[0])
        self.n = n
        lows = [min(column) for column in columns]
        shifted = [[v - low for v in column] for low, column in zip(lows, columns)]
        self._cuts = cuts = [_cut(values, n, bits) for values in shifted]
        highs = [[v >> cut for v in values] for cut, values in zip(cuts, shifted)]
        self._rests = rests = [[v & ((1 << cut) - 1) for v in values] for cut, values in zip(cuts, shifted)]
        self._base = [n * low for low in lows]
        self._floor = [n * low + n * min(rest) for low, rest in zip(lows, rests)]  # every low part at its least
        self._spread = [n * (max(rest) - min(rest)) for rest in rests]
        self._high_limbs = [-(-max(h).bit_length() // _FIRST_BITS) for h in highs]
        sizes = [_BLOCK_BITS] * (n >> _BLOCK_BITS) + [b for b in range(_BLOCK_BITS - 1, -1, -1) if n >> b & 1]
        self._blocks = []  # (bits, first row, rows, is last, draws the complement, p, q, set-up cache)
        start, rows = 0, n
        for number, block_bits in enumerate(sizes):
            size = 1 << block_bits
            complement = 2 * size > rows
            small = rows - size if complement else size
            self._blocks.append((block_bits, start, size, number == len(sizes) - 1, complement, small / rows, (rows - small) / rows, {}))
            start += size
            rows -= size
        first = self._pass(highs, _FIRST_BITS, self._high_limbs)
        self._draw_only = [block[:1] + block[3:] + ((),) for block in self._blocks]
        self._rest_pass: list | None = None
        self._setups = 0
        replay = any(self._spread)
        self._stride = max(4, -(-n_resamples // _CHECKPOINT_BUDGET))
        self._states: list[tuple] = []
        limbs = sum(self._high_limbs)
        sums = []
        for i in range(n_resamples):
            if replay and i % self._stride == 0:
                version, state, gauss = rng.getstate()
                self._states.append((version, array("Q", state), gauss))
            sums.append(self._combine(self._resample(rng, first, _FIRST_DRAWS, limbs), _FIRST_BITS, self._high_limbs, cuts))
        self._high_sums = sums  # per resample and column: the exact sum of the drawn high parts, shifted back
        self._exact: dict[int, tuple[int, ...]] = {}

    def _pass(self, parts: list[list[int]], bits: int, limbs: list[int]) -> list[tuple]:
        """The blocks as :meth:`_resample` reads them, with the tables of *parts* (*limbs* limbs of *bits* a column)."""
        return [block[:1] + block[3:] + ([t for values, count in zip(parts, limbs) for t in _tables(values, start, size, bits, count)],)
                for block in self._blocks for start, size in [block[1:3]]]

    @staticmethod
    def _combine(limb_sums: list[int], bits: int, limbs: list[int], cuts: Sequence[int]) -> tuple[int, ...]:
        out = []
        j = 0
        for count, cut in zip(limbs, cuts):
            total = 0
            for k in range(count):
                total += limb_sums[j] << (k * bits)
                j += 1
            out.append(total << cut)
        return tuple(out)

    def _resample(self, rng: random.Random, blocks: list[tuple], chunk: int, limbs: int) -> list[int]:
        """Draw one resample; the sum over its draws of each of the *limbs* limbs tabled in *blocks*."""
        randbytes = rng.randbytes
        left = self.n
        parts: list[int] = []
        extend = parts.extend
        calls = one_row = 0
        singles: Sequence[bytes] = ()
        for block_bits, last, complement, p, q, cache, tables in blocks:
            if last:
                m = left
            else:  # binomial(rng, left, size, rows), its set-up cached
                setup = cache.get(left)
                if setup is None:
                    setup = _setup(left, p, q)
                    if self._setups < _SETUP_BUDGET:
                        cache[left] = setup
                        self._setups += 1
                drawn = _draw(rng, left, setup)
                m = left - drawn if complement else drawn
            if not m:
                continue
            left -= m
            if not block_bits:  # one row: no index to draw
                one_row, singles = m, tables
            elif m <= chunk:
                extend(map(_adler32, map(randbytes(m).translate, tables)))
                calls += 1
            else:
                drawn_rows = randbytes(m)
                for at in range(0, m, chunk):
                    extend(map(_adler32, map(drawn_rows[at:at + chunk].translate, tables)))
                    calls += 1
            if not left:
                break
        # Each call added 1 to every limb's low half.
        return [sum(map(and_, parts[j::limbs], repeat(0xFFFF))) - calls + (one_row * singles[j][0] if singles else 0)
                for j in range(limbs)]

    def bounds(self, column: int) -> tuple[list[int], list[int]]:
        """Every resample's least and greatest possible total of *column*, as exact integers."""
        floor, spread = self._floor[column], self._spread[column]
        lows = [s[column] + floor for s in self._high_sums]
        return lows, ([low + spread for low in lows] if spread else lows)

    def exact(self, indices: Iterable[int]) -> dict[int, tuple[int, ...]]:
        """The exact totals (one per column) of the resamples numbered *indices*."""
        indices = list(indices)
        todo = sorted({i for i in indices if i not in self._exact})
        if todo and not any(self._spread):  # the first pass was exact
            for i in todo:
                self._exact[i] = tuple(s + f for s, f in zip(self._high_sums[i], self._floor))
        elif todo:
            rest_bytes = [-(-cut // _REST_BITS) for cut in self._cuts]
            if self._rest_pass is None:
                self._rest_pass = self._pass(self._rests, _REST_BITS, rest_bytes)
            limbs = sum(rest_bytes)
            replay = random.Random()
            position = -1
            for i in todo:
                if position // self._stride != i // self._stride:
                    version, state, gauss = self._states[i // self._stride]
                    replay.setstate((version, tuple(state), gauss))
                    position = i // self._stride * self._stride
                for _ in range(position, i):  # the resamples between: their draws only
                    self._resample(replay, self._draw_only, _REST_DRAWS, 0)
                rests = self._combine(self._resample(replay, self._rest_pass, _REST_DRAWS, limbs), _REST_BITS, rest_bytes, [0] * len(rest_bytes))
                self._exact[i] = tuple(base + high + rest for base, high, rest in zip(self._base, self._high_sums[i], rests))
                position = i + 1
        return {i: self._exact[i] for i in indices}


# From BYTES_UNTIL rows the "blocks" draws are made by groups (GroupResamples): 256 rows a group,
# each group's draws of every resample from one stream, a few C calls a group and limb.
_GROUP_ROWS = 256
_GROUP_CHUNK = 16  # resamples a chunk of a group's stream holds: the least a replay regenerates


def _group_bytes(key: bytes, count: int, size: int) -> bytes:
    """*count* bytes uniform on [0, *size*), independent: the start of SHAKE-128's output for *key*
    (a whole group's draws are its bytes as they come; a group of one row draws nothing; else the
    bytes at or above the largest multiple of *size* are dropped and the rest taken modulo *size*).
    An output's start does not depend on its length, so a chunk is regenerated from its key alone."""
    if size == _GROUP_ROWS:
        return hashlib.shake_128(key).digest(count)
    if size == 1:
        return bytes(count)
    keep = 256 // size * size
    table = bytes([i % size for i in range(256)])
    reject = bytes(range(keep, 256))
    want = count * 256 // keep + 64
    while True:
        drawn = hashlib.shake_128(key).digest(want).translate(table, reject)
        if len(drawn) >= count:
            return drawn[:count]
        want *= 2


_XOF_DIGEST = type(hashlib.shake_128()).digest


def _group_stream(key: bytes, chunk_sizes: Sequence[int], size: int) -> bytes:
    """A group's draws of every resample, in order: chunk k's *chunk_sizes[k]* bytes from
    :func:`_group_bytes` (key + k), for a whole group in C-level maps (no Python call a chunk)."""
    keys = map(add, repeat(key), map(int.to_bytes, range(len(chunk_sizes)), repeat(4), repeat("little")))
    if size == _GROUP_ROWS:
        return b"".join(map(_XOF_DIGEST, map(hashlib.shake_128, keys), chunk_sizes))
    return b"".join(map(_group_bytes, keys, chunk_sizes, repeat(size)))


def _group_counts(rng: random.Random, n: int, n_resamples: int) -> list[list[int]]:
    """Per group of :class:`GroupResamples` (n // 256 groups of 256 rows, then one of the n % 256
    rows left, if any), every resample's number of draws in it: Multinomial(n, rows / n).

    The whole groups are taken as complete binary trees of 2^k groups (k from the binary digits
    of n // 256, largest first), the short group after them. A resample's n draws are shared out
    among the trees (and the short group) by conditional binomials (:func:`binomial`'s sampler,
    its set-up cached); within a tree each node's draws m are split between its two equal halves
    by Binomial(m, 1/2), drawn exactly as the number of ones in m random bits."""
    whole, short = divmod(n, _GROUP_ROWS)
    trees = [1 << k for k in range(whole.bit_length() - 1, -1, -1) if whole >> k & 1]
    sizes = [t * _GROUP_ROWS for t in trees] + ([short] if short else [])
    drawn: list[list[int]] = [[] for _ in sizes]
    steps = []
    rows = n
    for size in sizes[:-1]:
        complement = 2 * size > rows
        small = rows - size if complement else size
        steps.append((complement, small / rows, (rows - small) / rows, {}))
        rows -= size
    for _ in range(n_resamples):
        left = n
        for out, (complement, p, q, cache) in zip(drawn, steps):
            setup = cache.get(left)
            if setup is None:
                setup = cache[left] = _setup(left, p, q) if left else None
            m = _draw(rng, left, setup) if left else 0
            m = left - m if complement else m
            out.append(m)
            left -= m
        drawn[-1].append(left)
    getrandbits = rng.getrandbits
    counts = []
    for tree, level in zip(trees, drawn):
        for _ in range(tree.bit_length() - 1):  # halve every node's draws, level by level
            heads = list(map(int.bit_count, map(getrandbits, level)))
            halves = [0] * (2 * len(level))
            halves[0::2] = heads
            halves[1::2] = map(sub, level, heads)
            level = halves
        counts += [level[g::tree] for g in range(tree)]  # resample-major: resample i's groups at i * tree ..
    if short:
        counts.append(drawn[-1])
    return counts


def _limb_width(most: int) -> int:
    """The widest limb (bits) whose *most* draws sum below 65520 in adler32's low half; 0 if none."""
    return next((bits for bits in range(8, 0, -1) if most * ((1 << bits) - 1) <= 65519), 0)


# adler32's low half, (1 + s) mod 65521, is 1 + s while s <= 65,519. A group's limbs are 8 bits wide
# (where the most draws a resample made in it allow each sum to wrap once at most, 255 m < 2 * 65,521)
# when each limb's rows average well inside [0, 255], so that a sum that might have wrapped (then
# checked by a Python sum) lies many standard deviations from its mean; else as wide as never wraps.
_ADLER_EXACT = 65519
# Below this many groups a place's lane (a pass a group, each below 2^17) fits 32 bits; from it, 64.
_NARROW_LANE_GROUPS = 1 << 15
_WIDE_BITS, _WIDE_DRAWS = 8, 513
_WIDE_MEAN = (48, 207)


def _lanes_at_most(lanes: int, limit: int, ones: int) -> bool:
    """Whether a lane of *lanes* (each at most 0xFFFF, in lanes of 32 bits or more; *ones*: 1 in
    every lane) is at most *limit* (0 <= limit <= 0xFFFF): v + 0xFFFF - limit carries into the
    lane's bit 16 exactly when v > limit, in two big-integer operations, not one a lane.

    >>> ones = 1 | 1 << 32 | 1 << 64
    >>> _lanes_at_most(7 | 9 << 32 | 65535 << 64, 7, ones), _lanes_at_most(8 | 9 << 32 | 65535 << 64, 7, ones)
    (True, False)
    """
    carries = ones << 16
    return (lanes + (0xFFFF - limit) * ones) & carries != carries


def _limb_tables(high: Sequence[int], limb: int) -> list[bytes]:
    """The ``bytes.translate`` tables of *high*'s limbs of *limb* bits, lowest first (byte r: row r's limb)."""
    if not high or not limb:
        return []
    mask = (1 << limb) - 1
    return [bytes(map(and_, map(rshift, high, repeat(k * limb)), repeat(mask))).ljust(256, b"\0")
            for k in range(-(-max(high).bit_length() // limb))]


def _wide_limb_fits(table: bytes, most: int, size: int) -> bool:
    """Whether a limb's sums over up to *most* draws (at most :data:`_WIDE_DRAWS`) never wrap, or
    wrap so rarely that their Python check costs nothing: its *size* rows' mean is well inside [0, 255]."""
    return max(table) * most <= _ADLER_EXACT or _WIDE_MEAN[0] * size <= sum(table[:size]) <= _WIDE_MEAN[1] * size


class GroupResamples:
    """The column totals of "blocks" resamples from :data:`BYTES_UNTIL` rows: bounded after one pass,
    exact on demand (the interface of :class:`BlockResamples`), drawn by groups.

    The rows are sorted by their columns (lexicographically: rows alike fall in one group) and cut
    into n // 256 groups of 256 rows and one of the n % 256 left. Each resample's numbers of
    draws in the groups are Multinomial(n, rows / n) (:func:`_group_counts`); then, group by
    group, the draws of every resample in it are one stream of bytes uniform on its rows (random
    bytes for a whole group), read in order: resample 0's count, then resample 1's, and so on. So
    every resample is n independent uniform draws of the n rows: the textbook bootstrap.

    Per group, each column is shifted by the group's own least value (a column constant in the
    group costs one product: the group's count times the value) and split at the column's bit
    cut (as :class:`BlockResamples` does) into a high part, cut into limbs as wide as the most
    draws a resample made in the group sum exactly in adler32's low half (7 bits up to 515), and
    a low part bounded by its range. Per group and limb, one ``bytes.translate`` of the stream and
    one ``zlib.adler32`` a resample (through ``map``) sum the high parts. The streams are not
    kept: the generator state before each chunk of a group's stream is (when a low part is
    left), and :meth:`exact` regenerates only the chunks its resamples read.
    """

    def __init__(self, columns: Sequence[Sequence[int]], n_resamples: int, rng: random.Random, bits: int | None,
                 log_sds: Sequence[float] | None = None, ordered: bool = False) -> None:
        n = len(columns[0])
        self.n = n
        lows = [min(column) for column in columns]
        if ordered:  # the caller's rows are already in the order sorting would give: the same groups, no sort
            self._order: Sequence[int] = range(n)
            self._shifted = shifted = [list(map(sub, column, repeat(low))) for low, column in zip(lows, columns)]
        else:
            self._order = order = sorted(range(n), key=list(zip(*columns)).__getitem__)
            self._shifted = shifted = [[column[i] - low for i in order] for low, column in zip(lows, columns)]
        cuts = [_cut(values, n, bits, None if log_sds is None else log_sds[c]) for c, values in enumerate(shifted)]
        self._base = [n * low for low in lows]
        self._first = list(range(0, n, _GROUP_ROWS)) + [n]
        groups = len(self._first) - 1
        self._counts = counts = [array("I", c) for c in _group_counts(rng, n, n_resamples)]
        # Each group's stream is drawn (and replayed) a chunk of _GROUP_CHUNK resamples at a time, chunk k
        # from SHAKE-128 keyed by the group's 128 random bits and k.
        self._keys = [rng.getrandbits(128).to_bytes(16, "little") for _ in range(groups)]
        columns_n = len(columns)
        # Every column's sum of the groups' least values and of their low parts' ranges (each a group's
        # count times a constant) is packed into one integer a resample, fields of `field` bits (each
        # sum is below n times the largest value): one multiply-add a group and resample, not four.
        field = max(max(values) for values in shifted).bit_length() + n.bit_length() + 1
        packed = [0] * n_resamples
        # Per column and place (bits): the number of adler32 sums added there and their total (each
        # sum is adler32's low half, 1 + the limbs' sum: the 1s are taken off at the end), kept as
        # lanes (below) and, from Python sums, as a list.
        placed: list[dict[int, list]] = [{} for _ in range(columns_n)]
        # A pass's adler32 values are read into one integer, a lane a resample, so that masking off
        # their high halves and adding the pass to its place's total are one big-integer operation
        # each, not one a resample. A place gets one pass a group at most, each lane below 2^17.
        code = "I" if groups < _NARROW_LANE_GROUPS and array("I").itemsize >= 4 else "Q"
        lane_bytes = array(code).itemsize
        ones = int.from_bytes(array(code, [1]) * n_resamples, sys.byteorder)  # 1 in every lane
        low_halves = 0xFFFF * ones
        # Per group and column, the low parts less their least (None: all equal), all a replay sums: a
        # resample's exact total is its floor (the first pass's) plus its draws' sum of these.
        self._rests: list[list[list[int] | None]] = []
        for g in range(groups):
            a, b = self._first[g], self._first[g + 1]
            most = max(counts[g], default=0)  # no resample (B = 0): no draw
            narrow = _limb_width(most)
            wide = _WIDE_BITS if 0 < most <= _WIDE_DRAWS else narrow
            plan = []
            limb_tables = []  # per column, its limbs' tables
            for cut, values in zip(cuts, shifted):
                part = values[a:b]
                column = self._plan(part, cut, wide)
                tables = _limb_tables(column[2], wide)
                if wide != narrow and not all(_wide_limb_fits(table, most, b - a) for table in tables):
                    column = self._plan(part, cut, narrow)
                    tables = _limb_tables(column[2], narrow)
                plan.append(column)
                limb_tables.append(tables)
            pieces: list[bytes] = []
            if any(column[2] for column in plan):  # else every column is constant here: its counts suffice
                key = self._keys[g]
                ends = list(accumulate(counts[g]))
                chunk_ends = ends[_GROUP_CHUNK - 1::_GROUP_CHUNK] + ([ends[-1]] if n_resamples % _GROUP_CHUNK else [])
                stream = _group_stream(key, list(map(sub, chunk_ends, [0, *chunk_ends[:-1]])), b - a)
                pieces = list(map(stream.__getitem__, map(slice, [0, *ends[:-1]], ends)))  # each resample's draws
                del stream
            limb_sums: dict[bytes, int] = {}  # a table met twice in the group (a column repeated) is summed once
            constant = sum((least << (2 * c * field)) + (spread << ((2 * c + 1) * field)) for c, (least, spread, *_) in enumerate(plan))
            self._rests.append([column[5] for column in plan])
            if constant:
                packed = list(map(add, packed, map(mul, counts[g], repeat(constant))))
            wraps = None  # per resample: the adler32 low halves at or below which a sum of 8-bit limbs may have wrapped
            # A low half at or below `suspect` may have wrapped (only a limb with max(table) * most > 65,519 can).
            suspect = 255 * most - _ADLER_EXACT - 1
            for c, ((least, spread, high, cut, limb, _), tables) in enumerate(zip(plan, limb_tables)):
                if not high:
                    continue
                if not limb:  # a resample drew more than 65,519 times from the group: sum in Python, plus 1 as adler32 would
                    entry = placed[c].setdefault(cut, [0, None, None])
                    sums = [1 + sum(map(high.__getitem__, piece)) for piece in pieces]
                    entry[0] += 1
                    entry[2] = sums if entry[2] is None else list(map(add, entry[2], sums))
                    continue
                for k, table in enumerate(tables):
                    lanes = limb_sums.get(table)
                    if lanes is None:
                        raw = array(code, map(_adler32, map(bytes.translate, pieces, repeat(table))))
                        lanes = int.from_bytes(raw, sys.byteorder) & low_halves
                        if 0 <= suspect and max(table) * most > _ADLER_EXACT and _lanes_at_most(lanes, suspect, ones):
                            sums = list(map(and_, raw, repeat(0xFFFF)))
                            if wraps is None:
                                wraps = list(map(sub, map(mul, counts[g], repeat(255)), repeat(_ADLER_EXACT + 1)))
                            self._unwrap(sums, wraps, pieces, table)
                            lanes = int.from_bytes(array(code, sums), sys.byteorder)
                        limb_sums[table] = lanes
                    entry = placed[c].setdefault(k * limb + cut, [0, None, None])
                    entry[0] += 1
                    entry[1] = lanes if entry[1] is None else entry[1] + lanes
            del pieces
        self._floors = []
        self._spreads = []
        mask = (1 << field) - 1
        for c in range(columns_n):
            total = list(map(add, map(and_, map(rshift, packed, repeat(2 * c * field)), repeat(mask)), repeat(self._base[c])))
            for place, (calls, lanes, listed) in placed[c].items():
                sums = listed if lanes is None else array(code, lanes.to_bytes(n_resamples * lane_bytes, sys.byteorder)).tolist()
                if lanes is not None and listed is not None:
                    sums = list(map(add, sums, listed))
                total = list(map(add, total, map(lshift, map(sub, sums, repeat(calls)), repeat(place))))
            self._floors.append(total)
            self._spreads.append(list(map(and_, map(rshift, packed, repeat((2 * c + 1) * field)), repeat(mask))))
        self._exact: dict[int, tuple[int, ...]] = {}

    @staticmethod
    def _plan(part: list[int], cut: int, limb: int) -> tuple:
        """For one column's rows of a group: the least value plus the low parts' least, the low parts'
        range, the high parts (() when the column is constant there), the group's cut, the limbs' bits
        and the low parts less their least (None when they are all equal)."""
        low, high = min(part), max(part)
        if low == high:
            return (low, 0, (), 0, limb, None)
        if cut and limb:  # the limbs that reach down to the cut hold a few bits more here: cut lower, for free
            width = (high - low).bit_length()
            cut = max(0, width - limb * -(-max(0, width - cut) // limb))
        shifted = list(map(sub, part, repeat(low))) if low else part
        rests = list(map(and_, shifted, repeat((1 << cut) - 1))) if cut else [0]
        least = min(rests)
        spread = max(rests) - least
        high_parts = list(map(rshift, shifted, repeat(cut))) if cut else shifted
        return (low + least, spread, high_parts, cut, limb, list(map(sub, rests, repeat(least))) if spread else None)

    @staticmethod
    def _unwrap(sums: list[int], wraps: list[int], pieces: list[bytes], table: bytes) -> None:
        """Make exact the adler32 low halves *sums* of 8-bit limbs (*table*) over *pieces*, where they may
        have wrapped: (1 + s) mod 65521 is 1 + s unless s >= 65520, and then a second s, 65,521 more,
        lies in [0, 255 m] only if the low half is at most 255 m - 65,520 (m: the piece's length). Those
        few (a sum at either end of its range, many standard deviations out) are summed in Python."""
        for i in compress(counting(), map(le, sums, wraps)):
            sums[i] = 1 + sum(map(table.__getitem__, pieces[i]))

    def bounds(self, column: int) -> tuple[list[int], list[int]]:
        """Every resample's least and greatest possible total of *column*, as exact integers."""
        lows = list(self._floors[column])  # a copy: the caller may sort or change it
        spread = self._spreads[column]
        return lows, (list(map(add, lows, spread)) if any(spread) else lows)

    def _replay(self, indices: Sequence[int], groups: Iterable[int] | None = None):
        """For each of *indices* (sorted, distinct) and group (of *groups*, by default all): the group,
        the resample and the bytes (rows of the group) it drew, regenerated a chunk at a time (up to the
        last resample read in it: a stream's start does not depend on its length)."""
        # The last index read in each chunk, the same for every group.
        last_read = {i // _GROUP_CHUNK: i for i in indices}
        for g in range(len(self._keys)) if groups is None else groups:
            key = self._keys[g]
            size = self._first[g + 1] - self._first[g]
            counts = self._counts[g]
            chunk = -1
            data = b""
            offsets: list[int] = []
            for i in indices:
                if i // _GROUP_CHUNK != chunk:
                    chunk = i // _GROUP_CHUNK
                    at = chunk * _GROUP_CHUNK
                    offsets = [0, *accumulate(counts[at:last_read[chunk] + 1])]
                    data = _group_bytes(key + chunk.to_bytes(4, "little"), offsets[-1], size)
                yield g, i, data[offsets[i - at]:offsets[i - at + 1]]

    def exact(self, indices: Iterable[int]) -> dict[int, tuple[int, ...]]:
        """The exact totals (one per column) of the resamples numbered *indices*."""
        indices = list(indices)
        todo = sorted({i for i in indices if i not in self._exact})
        if todo and not any(map(any, self._spreads)):  # the first pass was exact
            for i in todo:
                self._exact[i] = tuple(floor[i] for floor in self._floors)
        elif todo:
            # Only the groups with a low part left are replayed; its values are below 2^cut, mostly
            # summed in machine integers.
            sums = {i: [floor[i] for floor in self._floors] for i in todo}
            for g, i, drawn in self._replay(todo, [g for g, rests in enumerate(self._rests) if any(r is not None for r in rests)]):
                totals = sums[i]
                for c, rests in enumerate(self._rests[g]):
                    if rests is not None:
                        totals[c] += sum(map(rests.__getitem__, drawn))
            for i in todo:
                self._exact[i] = tuple(sums[i])
        return {i: self._exact[i] for i in indices}

    def drawn(self, index: int) -> list[int]:
        """The rows (their places in the columns as given) resample *index* drew, in the order
        drawn, group by group (for checks)."""
        rows: list[int] = []
        for g, _, drawn in self._replay([index]):
            first = self._first[g]
            rows += [self._order[first + r] for r in drawn]
        return rows


def bootstrap_column_bounds(
    columns: Sequence[Sequence[int]], n_resamples: int, rng: random.Random, *, first_pass_bits: int | None = None,
    log_sds: Sequence[float] | None = None, ordered: bool = False,
) -> BlockResamples | GroupResamples:
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
    where one pass over all the draws leaves it.  From :data:`BYTES_UNTIL`
    rows the draws are made by groups instead (:class:`GroupResamples`, the
    same interface and guarantees; the generator gives only the groups'
    counts and keys, so it is left after those, whatever *first_pass_bits*).
    Replays (``exact``, ``drawn``) never move it. *ordered* says the rows are
    already in the (lexicographic) order the groups path sorts them into, which
    it then skips: the same groups and draws. Rows so flagged but not in order
    are still resampled uniformly with exact totals, by other groups.

    >>> r = bootstrap_column_bounds([[0, 1000]], 3, random.Random(0), first_pass_bits=1)
    >>> [lo <= t <= hi for lo, hi, (t,) in zip(*r.bounds(0), r.exact(range(3)).values())]
    [True, True, True]
    """
    if len(columns[0]) >= BYTES_UNTIL:
        return GroupResamples(columns, n_resamples, rng, first_pass_bits, log_sds, ordered)
    return BlockResamples(columns, n_resamples, rng, first_pass_bits)


def bootstrap_column_totals(columns: Sequence[Sequence[int]], n_resamples: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Each of *n_resamples* "blocks" resamples' exact sum of every column (:func:`bootstrap_column_bounds`,
    all bits in one pass; one draw of indices serves every column).

    >>> bootstrap_column_totals([[5, 5, 5]], 2, random.Random(0))  # one value: every resample sums to 3 of it
    [(15,), (15,)]
    >>> round(sum(t for t, in bootstrap_column_totals([[1, 0]], 2000, random.Random(1))) / 2000, 1)  # E = n / 2
    1.0
    """
    resamples = bootstrap_column_bounds(columns, n_resamples, rng, first_pass_bits=sys.maxsize)  # every bit in the first pass: exact
    return list(resamples.exact(range(n_resamples)).values())


# compare_modes draws every resample's rows at once (ByteResamples) from here up to, not
# including, BYTES_UNTIL pairs, while B n draws fit in _BYTES_BUDGET (one byte a draw and stream).
# Below, the direct draws stay (the demo's 27 samples give the figures they always gave); at
# 1,040 pairs a 6-bit limb no longer sums exactly in one adler32 call.
BYTES_FROM = 64
BYTES_UNTIL = 1040
_BYTES_BUDGET = 1 << 24


def _enough(count: int, refused: int, out_of: int) -> int:
    """Draws to look at to keep *count* of them when each is refused with probability refused / out_of:
    the mean plus six standard deviations of the refusals (so one SHAKE-128 call almost always does)."""
    mean = count * refused / (out_of - refused)
    return count + math.ceil(mean + 6 * math.sqrt(mean)) + 64


def _uniform_bytes(key: bytes, count: int, size: int, trim: bool = True) -> bytes:
    """*count* bytes uniform on [0, *size*) (1 <= size <= 256), independent: the start of SHAKE-128's
    output for *key*, less its bytes at or above the largest multiple of *size* (``bytes.translate``'s
    delete), taken modulo *size*. An output's start does not depend on its length, so asking for
    more bytes only extends the same draws. Not *trim*: perhaps a few more bytes, the same draws
    extended (no copy of the first *count*)."""
    keep = 256 // size * size
    if size == 256:
        return hashlib.shake_128(key).digest(count)
    if keep == 256:  # no byte refused: a plain translate (the delete path costs about four times as much)
        return hashlib.shake_128(key).digest(count).translate(bytes([i % size for i in range(256)]))
    table = bytes([i % size for i in range(256)])
    reject = bytes(range(keep, 256))
    want = _enough(count, 256 - keep, 256)
    while True:
        drawn = hashlib.shake_128(key).digest(want).translate(table, reject)
        if len(drawn) >= count:
            return drawn[:count] if trim else drawn
        want += want // 2


@lru_cache(maxsize=8)
def _binomial_cdf(n: int, m: int) -> tuple[list[int], list[int]]:
    """Binomial(n, m / n)'s distribution function, exactly: P(X <= k) n^n for k = 0..n (integers:
    C(n, k) m^k (n - m)^(n - k) summed); and, for each value u of a draw's first 16 bits
    (:func:`_binomial_counts`), the draw they decide: the least k with u < floor(P(X <= k) 2^16),
    or -1 where u is such a floor and P(X <= k) 2^16 not an integer (U may lie either side)."""
    term = (n - m) ** n
    total = 0
    cums = []
    for k in range(n + 1):
        total += term
        cums.append(total)
        if k < n:  # C(n, k + 1) m^(k + 1) (n - m)^(n - k - 1), an integer: the division is exact
            term = term * (n - k) * m // ((k + 1) * (n - m))
    bits = 16  # a draw's first bits: one 16-bit lane each, which decides all but about n in 2^16
    floors = [(c << bits) // total for c in cums]
    decided: list[int] = []
    for k, floor in enumerate(floors):
        if floor > len(decided):
            decided += [k] * (floor - len(decided))
    for c, floor in zip(cums, floors):
        if floor < 1 << bits and (c << bits) % total:
            decided[floor] = -1
    return cums, decided


def _binomial_counts(rng: random.Random, n: int, m: int, count: int) -> list[int]:
    """*count* independent draws from Binomial(n, m / n), 0 < m < n, by exact inversion: a draw is the
    least k with U < P(X <= k), U uniform on [0, 1). Draw i's first 16 bits are bits 16 i .. 16 i + 15
    of ``getrandbits(16 count)``; they decide it but where they hold some P(X <= k) (about n in 2^16
    draws). Those draws then read more bits of their U, 64 at a time (``getrandbits(64)``), in turn
    after all the first ones, until the comparison is decided exactly."""
    cums, decided = _binomial_cdf(n, m)
    prefixes = array("H", rng.getrandbits(16 * count).to_bytes(2 * count, "little"))
    if sys.byteorder == "big":
        prefixes.byteswap()
    drawn = list(map(decided.__getitem__, prefixes))
    if -1 in drawn:
        total = cums[-1]
        for i in [i for i, k in enumerate(drawn) if k < 0]:
            low, width = prefixes[i], 16  # U lies in [low, low + 1) / 2^width
            while drawn[i] < 0:
                low, width = low << 64 | rng.getrandbits(64), width + 64
                surely = next(k for k, c in enumerate(cums) if (low + 1) * total <= c << width)
                if surely == next(k for k, c in enumerate(cums) if low * total < c << width):
                    drawn[i] = surely
    return drawn


# One resample's lane: adler32's low half kept, its high half dropped; 32 bits where they hold the
# sum (fewer bytes to convert), else 64 (a platform without such an array type sums by maps).
_LANES = [lane for lane in (array("I", [0xFFFF]), array("Q", [0xFFFF])) if lane.itemsize in (4, 8)]
_PIECES_A_CALL = 1024  # fixed-length pieces one struct call cuts (bounds the compiled format's size)


@lru_cache(maxsize=16)
def _piece_format(length: int, count: int) -> struct.Struct:
    return struct.Struct(f"{length}s" * count)


class _Runs:
    """Consecutive pieces of a stream, *counts* bytes each: cut by ``struct`` (a format a chunk of
    :data:`_PIECES_A_CALL` pieces, made once), and read as a list of slices (``runs[i]``)."""

    __slots__ = ("counts", "ends", "_formats")

    def __init__(self, counts: Sequence[int]) -> None:
        self.counts = counts
        self.ends = list(accumulate(counts))
        self._formats: list[tuple[struct.Struct, int]] | None = None

    def __len__(self) -> int:
        return len(self.counts)

    def __getitem__(self, i: int) -> slice:
        return slice(self.ends[i] - self.counts[i], self.ends[i])

    def pieces(self, stream: bytes) -> Iterable[bytes]:
        if self._formats is None:
            names = [f"{c}s" for c in range(max(self.counts, default=0) + 1)]
            self._formats = [(struct.Struct("".join(map(names.__getitem__, self.counts[at:at + _PIECES_A_CALL]))),
                              self.ends[at - 1] if at else 0) for at in range(0, len(self.counts), _PIECES_A_CALL)]
        return chain.from_iterable(cut.unpack_from(stream, at) for cut, at in self._formats)


# How a group's stream is cut into resamples: pieces of one length (an int), of the lengths a
# _Runs holds, or a slice a resample (a replay's joined pieces).
_Layout = int | list[slice] | _Runs


def _pieces(stream: bytes, layout, count: int | None = None) -> Iterable[bytes]:
    """*stream* cut into resamples' pieces: consecutive pieces of *layout* bytes (an int: cut by
    ``struct``, a C loop, without a slice object a piece; the first *count*, by default all whole
    ones), of the lengths :class:`_Runs` holds, or the slices *layout* lists."""
    if isinstance(layout, _Runs):
        return layout.pieces(stream)
    if not isinstance(layout, int):
        # Slices of bytes by operator.getitem: copying a resample's draws is cheaper than a
        # memoryview's slice, and getitem cheaper than a bound __getitem__ (a slot wrapper).
        return map(getitem, repeat(stream), layout)
    whole, rest = divmod(len(stream) // layout if count is None else count, _PIECES_A_CALL)
    step = layout * _PIECES_A_CALL
    pieces: Iterable[bytes] = chain.from_iterable(
        map(_piece_format(layout, _PIECES_A_CALL).unpack_from, repeat(stream), range(0, whole * step, step))) if whole else ()
    if rest:
        pieces = chain(pieces, _piece_format(layout, rest).unpack_from(stream, whole * step))
    return pieces


# Up to 256 rows, one stream uniform on the n rows refuses 256 % n bytes of 256 (n = 129: half);
# beyond 1 in _SPLIT_FROM (n = 86 to 95 and 129 to 191) the draws are made in two parts, whose
# cutting and joining cost less than the refused bytes (drawn, then deleted a byte at a time).
_SPLIT_FROM = 4


def _split_stream(rng: random.Random, key: bytes, n: int, n_resamples: int) -> bytes:
    """Every resample's n draws of n rows (n <= 256, not a power of two), n bytes a resample, made in
    two parts: with P the largest power of two below n, resample i draws c_i ~ Binomial(n, P / n)
    rows (:func:`_binomial_counts`) uniformly from rows 0 .. P - 1 (bytes as they come, less their
    top bits: nothing refused), then n - c_i uniformly from rows P .. n - 1 (a stream uniform on
    them, which refuses fewer than 1 byte in 2, most often far fewer). So each resample is n
    independent uniform draws of the n rows, its first part's first."""
    whole = 1 << (n.bit_length() - 1)
    counts = _binomial_counts(rng, n, whole, n_resamples)
    lows = _uniform_bytes(key + b"\0", sum(counts), whole)
    highs = _uniform_bytes(key + b"\1", n * n_resamples - len(lows), n - whole).translate(
        bytes([(i + whole) & 255 for i in range(256)]))
    names = [f"{c}s" for c in range(n + 1)]
    parts: list[bytes] = []
    low_at = high_at = 0
    for at in range(0, n_resamples, _PIECES_A_CALL):  # a struct call cuts a chunk of resamples' parts
        chunk = counts[at:at + _PIECES_A_CALL]
        taken = sum(chunk)
        # A format used once: compiled by Struct, not left in struct's cache of formats.
        low_parts = struct.Struct("".join(map(names.__getitem__, chunk))).unpack_from(lows, low_at)
        high_parts = struct.Struct("".join(map(names.__getitem__, map(sub, repeat(n), chunk)))).unpack_from(highs, high_at)
        parts += chain.from_iterable(zip(low_parts, high_parts))
        low_at += taken
        high_at += n * len(chunk) - taken
    return b"".join(parts)


class ByteResamples:
    """The column totals of "bytes" resamples: every resample's rows drawn at once, bounded after
    one pass, exact on demand (the interface of :class:`BlockResamples`, and :meth:`band`).

    The draws come from SHAKE-128 streams keyed by 128 bits of *rng* (:func:`_uniform_bytes`). Up to
    256 rows, one stream of bytes uniform on the rows is cut into resamples of n draws; where that
    stream would refuse over a quarter of its bytes (n = 86 to 95, 129 to 191), each resample's n
    draws are made in two parts instead, joined in its n bytes (:func:`_split_stream`). From 257
    rows, the rows are cut into groups of 256 (the last one of the n % 256 left); each resample's
    numbers of draws in the groups are Multinomial(n, rows / n): below 512 rows Binomial(n, 256 / n)
    in the whole group, by exact inversion (:func:`_binomial_counts`), from 512 drawn from *rng* as
    :class:`GroupResamples` draws them (:func:`_group_counts`); and group g's draws of every
    resample in turn (resample 0's count, then resample 1's, ...) are one stream of bytes uniform
    on its rows: SHAKE-128's bytes as they come for a whole group, by rejection for the last. So
    every resample is n independent uniform draws of the n rows: the textbook bootstrap.

    Each column, less its least value, is split at a bit cut into a high part and a low part
    bounded by its range. Sums are made in limbs of as many bits as n draws sum exactly in
    adler32's low half (8 up to 256 pairs, 7 up to 515, 6 up to 1,039): per limb and group, one
    ``bytes.translate`` gathers the drawn rows' limbs, and one ``zlib.adler32`` call a resample
    and group sums them (each resample's piece cut by ``struct`` where all have n bytes, else by
    a slice), running on from group to group (its value argument); a column's limbs are then
    masked, shifted and added in 32- or 64-bit lanes of big integers: a few C calls a resample, not n
    draws in Python. The first pass sums the high parts of every resample (as
    few limbs as bound a total within about 2^-4 of the standard error read, :func:`_first_cut`);
    :meth:`exact` sums the low parts of the resamples asked for the same way, over their drawn
    bytes joined; :meth:`drawn` lists a resample's rows.
    """

    def __init__(self, columns: Sequence[Sequence[int]], n_resamples: int, rng: random.Random, bits: int | None,
                 log_sds: Sequence[float] | None = None) -> None:
        n = len(columns[0])
        self.n = n
        lows = [min(column) for column in columns]
        shifted = [[v - low for v in column] for low, column in zip(lows, columns)]
        self._first = [*range(0, n, _GROUP_ROWS), n]  # group g: rows first[g] .. first[g + 1] - 1
        self._streams, self._layouts = self._draw(rng, n, n_resamples)
        # One adler32 call a resample and limb runs on from group to group (its value argument), so
        # a limb is as wide as n draws allow: (1 + sum) mod 65521 is the sum plus 1 while the sum is
        # below 65520 (8 bits up to 256 pairs, 7 up to 515, 6 up to 1,040).
        self._width = width = next(bits for bits in range(8, 0, -1) if n * ((1 << bits) - 1) <= 65519)
        self._cuts = cuts = [_first_cut(values, n, bits, width, None if log_sds is None else log_sds[c])
                             for c, values in enumerate(shifted)]
        self._rests = rests = [[v & ((1 << cut) - 1) for v in values] for cut, values in zip(cuts, shifted)]
        self._base = [n * low for low in lows]
        self._floor = [n * low + n * min(rest) for low, rest in zip(lows, rests)]
        self._spread = [n * (max(rest) - min(rest)) for rest in rests]
        self._greatest = [n * max(column) for column in columns]
        self._keys, self._added = [], []
        for cut, values in zip(cuts, shifted):
            keys, added = self._sums(self._byte_tables([v >> cut for v in values]), self._streams, self._layouts, n_resamples)
            self._keys.append(keys)
            self._added.append(added)
        self._exact: dict[int, tuple[int, ...]] = {}
        self._rest_tables: dict[int, list] = {}  # a column's low parts' tables, made at its first replay

    def _byte_tables(self, values: Sequence[int]) -> list[tuple[int, list[bytes | None]]]:
        """The ``bytes.translate`` tables of *values* (non-negative, one a row): per limb, its place and
        one table a group (byte r: the limb of the group's row r), None where no row has the limb."""
        bits = self._width
        mask = (1 << bits) - 1
        groups = [values[self._first[g]:self._first[g + 1]] for g in range(len(self._first) - 1)]
        out = []
        for k in range(-(-max(values).bit_length() // bits)):
            tables = [bytes([v >> (k * bits) & mask for v in rows]).ljust(256, b"\0") if max(rows) >> (k * bits) else None
                      for rows in groups]
            if any(tables):
                out.append((k * bits, tables))
        return out

    def _sums(self, tables: list[tuple[int, list[bytes | None]]], streams: Sequence[bytes], layouts: Sequence[_Layout],
              count: int) -> tuple[list[int], int]:
        """Each resample's sum of the values *tables* hold (:meth:`_byte_tables`) over its draws (each
        group's *streams* cut as *layouts* say: :func:`_pieces`), plus a constant, and that constant
        (each limb's adler32 chain adds 1)."""
        if not tables:
            return [0] * count, 0
        added = sum(1 << place for place, _ in tables)
        # Every limb's low half (below 2^16), shifted to its place, fits one lane a resample: 32 bits
        # when the top limb's place is at most 15 (two limbs of 8 bits), else 64; masked, shifted and
        # added as big integers, a few C calls a limb, not a Python-level map a resample and step.
        # Each limb's adler32 values go straight into its array (no list between).
        lane = next((lane for lane in _LANES if tables[-1][0] + 17 <= 8 * lane.itemsize), None)
        total = 0
        low_halves = int.from_bytes(lane * count, sys.byteorder) if lane is not None else 0
        limbs: list[tuple[int, list[int]]] = []  # (the limb's place, each resample's adler32 value): no lane
        for place, group_tables in tables:
            sums = None
            for table, stream, layout in zip(group_tables, streams, layouts):
                if table is None:
                    continue  # no row of this group has this limb: it adds nothing
                drawn = _pieces(stream.translate(table), layout, count)
                sums = map(_adler32, drawn) if sums is None else map(_adler32, drawn, sums)
            if lane is not None:
                total += (int.from_bytes(array(lane.typecode, sums), sys.byteorder) & low_halves) << place  # type: ignore[arg-type]
            else:
                limbs.append((place, list(sums)))  # type: ignore[arg-type]
        if lane is not None:
            return array(lane.typecode, total.to_bytes(lane.itemsize * count, sys.byteorder)).tolist(), added
        combined: Iterable[int] | None = None
        for place, sums in limbs:
            shifted = map(lshift, map(and_, sums, repeat(0xFFFF)), repeat(place))
            combined = shifted if combined is None else map(add, combined, shifted)
        return list(combined), added  # type: ignore[arg-type]

    @staticmethod
    def _draw(rng: random.Random, n: int, n_resamples: int) -> tuple[list[bytes], list[_Layout]]:
        """Each group's stream of drawn rows (bytes) and how it is cut into resamples (:func:`_pieces`):
        up to 256 rows, one stream and n bytes a resample; else, per group, its resamples' counts."""
        key = rng.getrandbits(128).to_bytes(16, "little")  # every stream is SHAKE-128 of it and the group
        if n <= _GROUP_ROWS:
            if 256 % n * _SPLIT_FROM > 256:  # many bytes refused: drawn in two parts (no more than n a resample)
                return [_split_stream(rng, key, n, n_resamples)], [n]
            # Untrimmed: the stream's few extra bytes (no copy of a million) are never cut into a resample.
            return [_uniform_bytes(key + b"\0", n * n_resamples, n, trim=False)], [n]
        if n < 2 * _GROUP_ROWS:  # one whole group and the rest: a resample's count in the whole group, by inversion
            whole = _binomial_counts(rng, n, _GROUP_ROWS, n_resamples)
            group_counts = [whole, list(map(sub, repeat(n), whole))]
        else:
            group_counts = _group_counts(rng, n, n_resamples)
        streams: list[bytes] = []
        layouts: list[_Layout] = []
        for g, counts in enumerate(group_counts):  # Multinomial(n, rows / n) a resample
            runs = _Runs(counts)
            streams.append(_uniform_bytes(key + bytes([g]), runs.ends[-1] if runs.ends else 0, min(_GROUP_ROWS, n - g * _GROUP_ROWS)))
            layouts.append(runs)
        return streams, layouts

    def bounds(self, column: int) -> tuple[list[int], list[int]]:
        """Every resample's least and greatest possible total of *column*, as exact integers."""
        keys, offset, scale, spread = self.band(column)
        lows = list(map(add, map(lshift, keys, repeat(scale.bit_length() - 1)), repeat(offset)))
        return lows, (list(map(add, lows, repeat(spread))) if spread else lows)

    def greatest(self, column: int) -> int:
        """A total of *column* no resample exceeds: n times its greatest value (no pass over the totals)."""
        return self._greatest[column]

    def band(self, column: int) -> tuple[list[int], int, int, int]:
        """(keys, offset, scale, spread): resample i's total of *column* lies in
        [offset + scale keys[i], offset + scale keys[i] + spread], scale a power of two."""
        cut = self._cuts[column]
        return self._keys[column], self._floor[column] - (self._added[column] << cut), 1 << cut, self._spread[column]

    def exact(self, indices: Iterable[int]) -> dict[int, tuple[int, ...]]:
        """The exact totals (one per column) of the resamples numbered *indices*."""
        indices = list(indices)
        todo = [i for i in dict.fromkeys(indices) if i not in self._exact]
        if todo and not any(self._cuts):  # the first pass summed every bit
            highs = [[base + ((keys[i] - added) << cut) for i in todo]
                     for keys, added, cut, base in zip(self._keys, self._added, self._cuts, self._base)]
            self._exact.update(zip(todo, zip(*highs)))
        elif todo:
            # The low parts of just these resamples: their drawn bytes joined, summed as the first pass sums.
            streams: list[bytes] = []
            slices: list[_Layout] = []
            for stream, layout in zip(self._streams, self._layouts):
                if isinstance(layout, int):  # pieces of one length: joined, they keep it
                    streams.append(b"".join([stream[i * layout:(i + 1) * layout] for i in todo]))
                    slices.append(layout)
                    continue
                chosen = list(map(layout.__getitem__, todo))
                streams.append(b"".join(map(getitem, repeat(stream), chosen)))
                ends = list(accumulate([part.stop - part.start for part in chosen]))
                slices.append(list(map(slice, [0, *ends[:-1]], ends)))
            columns = []
            for c, (keys, cut, rest, base) in enumerate(zip(self._keys, self._cuts, self._rests, self._base)):
                highs = [(keys[i] - self._added[c]) << cut for i in todo]
                if cut:
                    if c not in self._rest_tables:
                        self._rest_tables[c] = self._byte_tables(rest)
                    lows, added = self._sums(self._rest_tables[c], streams, slices, len(todo))
                    columns.append([base + high + low - added for high, low in zip(highs, lows)])
                else:
                    columns.append([base + high for high in highs])
            self._exact.update(zip(todo, zip(*columns)))
        return {i: self._exact[i] for i in indices}

    def drawn(self, index: int) -> list[int]:
        """The rows resample *index* drew, group by group, each group's in the order drawn (for checks)."""
        rows: list[int] = []
        for g, (stream, layout) in enumerate(zip(self._streams, self._layouts)):
            piece = stream[index * layout:(index + 1) * layout] if isinstance(layout, int) else stream[layout[index]]
            rows += [self._first[g] + r for r in piece]
        return rows


_BAND_SHARE = 4  # the first pass bounds a total within about 2^-3 of the standard error that matters


def log2_sd(values: Sequence[int]) -> float:
    """log2 of the population standard deviation of the integers *values* (from their top 60 bits,
    about), or -inf when they are all equal.

    >>> log2_sd([0, 2]), log2_sd([5, 5])
    (0.0, -inf)
    """
    n = len(values)
    drop = max(0, max(max(values), -min(values)).bit_length() - 60)
    xs = list(map(rshift, values, repeat(drop)))
    spread = n * sum(map(mul, xs, xs)) - sum(xs) ** 2  # n^2 times the variance, exact
    if spread <= 0:
        return -math.inf
    return drop + 0.5 * math.log2(spread) - math.log2(n)


def _first_cut(shifted: Sequence[int], n: int, bits: int | None, limb: int, log_sd: float | None = None) -> int:
    """How many low bits of *shifted* (non-negative) the first pass leaves out: all but the top
    *bits*, or, when *bits* is None, all but as few whole limbs of *limb* bits as bound a resample
    total within about a quarter of the standard error sigma sqrt(n) that matters (2^cut at most
    sigma / (4 sqrt(n)); the low part's range, times n, is below n 2^cut), sigma = 2^log_sd, by
    default the column's own. It sets the speed (a limb more a pass, or more replays), never a total."""
    width = max(shifted).bit_length()
    if bits is not None:
        return max(0, width - bits)
    if log_sd is None:
        log_sd = log2_sd(shifted)
    if log_sd == -math.inf:
        return width  # one value: no high part to sum
    cut = max(0, min(width, math.floor(log_sd - 0.5 * math.log2(n)) - _BAND_SHARE))
    wanted = width - cut
    return max(0, width - -(-wanted // limb) * limb)


def bootstrap_byte_bounds(columns: Sequence[Sequence[int]], n_resamples: int, rng: random.Random,
                          log_sds: Sequence[float] | None = None) -> ByteResamples:
    """Resample the n rows of *columns* (n < :data:`BYTES_UNTIL`) uniformly with replacement,
    *n_resamples* times, every resample's rows drawn at once ("bytes" resampling,
    :class:`ByteResamples`); every resample's column totals, bounded, exact on demand.
    *log_sds* (log2 of a standard deviation a column, in its units) says how finely each column's
    totals will be read: the first pass bounds them within about a quarter of that, times sqrt(n).

    >>> r = bootstrap_byte_bounds([[0, 1000, 7]], 3, random.Random(0))
    >>> [lo <= t <= hi for lo, hi, (t,) in zip(*r.bounds(0), r.exact(range(3)).values())]
    [True, True, True]
    """
    return ByteResamples(columns, n_resamples, rng, None, log_sds)


class OrderStatistics(SequenceABC):
    """The sorted statistics of resamples known within bounds, each read exactly.

    Item i lies in ``[lows[i], highs[i]]``; ``exact(indices)`` gives the exact
    keys of the items numbered *indices* (a dict), ``value(key)`` the float
    reported.  ``self[r]`` is ``value`` of the r-th smallest exact key: with
    L and H the r-th smallest low and high bound, that key lies in [L, H];
    the items whose bounds miss [L, H] lie wholly below or above it, so only
    the items meeting it are computed exactly, and the r-th value is the
    (r - number below)-th of theirs.  Reading rank r computes r + 1 too (a
    percentile reads both).  *value* must not decrease as the key grows (a
    division by a positive constant or a fraction's float, each rounded once,
    does not), so the r-th value is the r-th of the sorted values.

    >>> stats = OrderStatistics([0, 5, 2], [9, 5, 3], lambda indices: {i: [7, 5, 3][i] for i in indices}, float)
    >>> [stats[r] for r in range(3)], len(stats)
    ([3.0, 5.0, 7.0], 3)
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
            self._read([r for r in (rank, rank + 1) if r < len(self) and r not in self._done])
        return self._done[rank]

    def _read(self, ranks: list[int]) -> None:
        """Set ``_done[r]`` for the consecutive *ranks*."""
        low, high = self._sorted_lows[ranks[0]], self._sorted_highs[ranks[-1]]
        meeting = list(compress(counting(), map(and_, map(le, self._lows, repeat(high)), map(ge, self._highs, repeat(low)))))
        keys = self._exact(meeting)
        for r in ranks:
            low, high = self._sorted_lows[r], self._sorted_highs[r]
            below = bisect_left(self._sorted_highs, low)  # highs < L: wholly below the r-th
            inside = sorted(keys[i] for i in meeting if self._lows[i] <= high and self._highs[i] >= low)
            self._done[r] = self._value(inside[r - below])


class BandStatistics(OrderStatistics):
    """The sorted statistics of items each known to lie in a band about a key of its own: as
    :class:`OrderStatistics`, with one sort of the keys and no bound a resample.

    Item i's exact key (``exact(indices)``, a dict) lies in a band of one width in key units about
    ``keys[i]``, so an item whose key is more than *slack* (the band's width, an int for int keys,
    a float or Fraction for float keys) below another's has an exact key below the other's.  Rank
    r's exact key is then one of the items whose keys lie within *slack* of the r-th smallest key;
    those below that window lie wholly below it.  *value* must not decrease as the exact key grows.

    >>> stats = BandStatistics([7, 5, 3], 0, lambda indices: {i: [7, 5, 3][i] for i in indices}, float)
    >>> [stats[r] for r in range(3)], len(stats)
    ([3.0, 5.0, 7.0], 3)
    """

    def __init__(self, keys: Sequence, slack, exact, value, hint: Sequence[int] | None = None) -> None:
        # Only the order is kept: a few bisections a read look the keys up through it (key=), cheaper
        # than a sorted copy of every key. *hint*, a permutation of the items near their order (another
        # statistic's order, correlated with this one), gives the sort runs to merge (ties may fall
        # either way: a window holds every item of a tied key).
        self._order = sorted(range(len(keys)) if hint is None else hint, key=keys.__getitem__)
        self._key = keys.__getitem__
        self._slack, self._exact, self._value = slack, exact, value
        self._done: dict[int, float] = {}

    def __len__(self) -> int:
        return len(self._order)

    @property
    def order(self) -> list[int]:
        """The items' numbers, their keys ascending."""
        return self._order

    def least(self):
        """The least key."""
        return self._key(self._order[0])

    def greatest(self):
        """The greatest key."""
        return self._key(self._order[-1])

    def _read(self, ranks: list[int]) -> None:
        order, key = self._order, self._key
        first = bisect_left(order, band_edge(key(order[ranks[0]]), self._slack, -1), key=key)
        last = bisect_right(order, band_edge(key(order[ranks[-1]]), self._slack, 1), key=key)
        keys = sorted(self._exact(self._order[first:last]).values())
        for r in ranks:
            self._done[r] = self._value(keys[r - first])

    def count_below(self, surely_below, surely_above, target) -> int:
        """Twice the number of items whose exact key is below *target* plus the number equal to it,
        given that a key below *surely_below* means an exact key below *target*, and one above
        *surely_above* an exact key above it (:func:`count_below`)."""
        first = bisect_left(self._order, surely_below, key=self._key)
        last = bisect_right(self._order, surely_above, key=self._key)
        doubled = 2 * first
        for key in self._exact(self._order[first:last]).values():
            doubled += 2 * (key < target) + (key == target)
        return doubled


def band_edge(key, slack, sign: int):
    """*key* + *sign* *slack*, exactly for ints; else the float on the far side of the exact sum
    (never nearer *key*), or an infinity beyond every float.

    >>> band_edge(5, 2, -1), band_edge(0.1, 0.2, 1) >= 0.1 + 0.2, band_edge(1.0, 2 ** 2000, 1)
    (3, True, inf)
    """
    if isinstance(key, int) and isinstance(slack, int):
        return key + sign * slack
    exact = Fraction(key) + sign * Fraction(slack)
    try:
        moved = float(exact)
    except OverflowError:
        return sign * math.inf
    if sign * (Fraction(moved) - exact) < 0:
        moved = math.nextafter(moved, sign * math.inf)
    return moved


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
