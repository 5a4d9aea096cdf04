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
from operator import itemgetter
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


_MASKS = tuple(bytes((b & ((1 << k) - 1)) for b in range(256)) for k in range(9))  # keep the low k bits of a byte
_INDEX_CODES = {2: "H", 4: next((c for c in "IL" if array(c).itemsize == 4), "")}  # unsigned, 2 and 4 bytes


_BLOCK_BITS = 8
_LIMB_BITS = 52  # 2**11 draws of a block sum below 2**63
_LIMB_MASK = (1 << _LIMB_BITS) - 1


def _uniform_indices(rng: random.Random, bits: int, m: int) -> "array | bytes":
    """*m* independent draws, each uniform over ``range(2 ** bits)`` (``bits`` <= 32): random bytes, masked.

    Every value of *bits* random bits is equally likely, so no draw is rejected;
    the bytes come from ``rng.randbytes`` (``getrandbits``) and are read little-endian.
    """
    if bits <= 8:
        drawn = rng.randbytes(m)
        return drawn if bits == 8 else drawn.translate(_MASKS[bits])
    width = 2 if bits <= 16 else 4
    code = _INDEX_CODES[width]
    if not code:  # no 4-byte array type: never on CPython's platforms
        return array("Q", [rng.getrandbits(bits) for _ in range(m)])
    raw = bytearray(rng.randbytes(width * m))
    top, high = divmod(bits - 1, 8)  # the last byte holding index bits, and its bits less one
    raw[top::width] = raw[top::width].translate(_MASKS[high + 1])
    for byte in range(top + 1, width):
        raw[byte::width] = bytes(m)
    out = array(code, raw)
    if sys.byteorder == "big":
        out.byteswap()
    return out


def bootstrap_column_totals(columns: Sequence[Sequence[int]], n_resamples: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Resample the n rows of *columns* (each a sequence of n integers) uniformly with replacement,
    *n_resamples* times; each resample's exact sum of every column (one draw of indices serves them all).

    The indices are drawn in blocks ("blocks" resampling): n is split into
    power-of-two blocks (its binary digits, largest first), the n draws of a
    resample are shared out among the blocks by conditional binomials (block j
    of size s_j gets Binomial(draws left, s_j / rows left), as
    :func:`binomial` draws it), and within a block of 2^k rows each draw is k
    random bits.  So every draw is uniform over the n rows, independent of the
    others, exactly: the textbook bootstrap, with random bytes and C-level
    gathers (``operator.itemgetter``) doing the per-draw work.

    >>> bootstrap_column_totals([[5, 5, 5]], 2, random.Random(0))  # one value: every resample sums to 3 of it
    [(15,), (15,)]
    >>> round(sum(t for t, in bootstrap_column_totals([[1, 0]], 2000, random.Random(1))) / 2000, 1)  # E = n / 2
    1.0
    """
    n = len(columns[0])
    # Each column as its least value plus non-negative limbs of _LIMB_BITS bits: a block's sum of
    # limbs stays inside a machine word, where ``sum`` adds without making an integer per draw.
    lows = [min(column) for column in columns]
    limbs = []  # (column, shift, values)
    for c, column in enumerate(columns):
        shifted = [v - lows[c] for v in column]
        for k in range(max(1, -(-max(shifted).bit_length() // _LIMB_BITS))):
            limbs.append((c, k * _LIMB_BITS, [v >> (k * _LIMB_BITS) & _LIMB_MASK for v in shifted]))
    blocks = []
    start = 0
    # Blocks of 256 rows, then the rest in power-of-two blocks: a block's draws are bytes, whose
    # values Python keeps as shared small integers (a gather then allocates nothing per draw).
    sizes = [_BLOCK_BITS] * (n >> _BLOCK_BITS) + [bits for bits in range(_BLOCK_BITS - 1, -1, -1) if n >> bits & 1]
    for bits in sizes:
        size = 1 << bits
        blocks.append((bits, size, [(c, shift, values[start:start + size]) for c, shift, values in limbs]))
        start += size
    out = []
    width = len(columns)
    last = len(blocks) - 1
    for _ in range(n_resamples):
        sums = [0] * len(limbs)
        left, rows = n, n  # draws still to share out; rows in the blocks not yet served
        for number, (bits, size, tables) in enumerate(blocks):
            m = left if number == last else binomial(rng, left, size, rows)
            left -= m
            rows -= size
            if not m:
                continue
            if bits == 0:
                for j, (_, _, table) in enumerate(tables):
                    sums[j] += m * table[0]
                continue
            indices = _uniform_indices(rng, bits, m)
            if m == 1:
                for j, (_, _, table) in enumerate(tables):
                    sums[j] += table[indices[0]]
                continue
            gather = itemgetter(*indices)
            for j, (_, _, table) in enumerate(tables):
                sums[j] += sum(gather(table))
        totals = [n * low for low in lows]
        for (c, shift, _), total in zip(limbs, sums):
            totals[c] += total << shift
        out.append(tuple(totals))
    return out


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
