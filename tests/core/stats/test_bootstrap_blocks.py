"""The "blocks" resampling of compare_modes (continuous scores, n >= BLOCKS_FROM): uniform, exact, seeded.

Speed is measured in benchmarks/compare_modes.py --continuous, never here.
"""

from __future__ import annotations

import inspect
import math
import random
import unittest
from fractions import Fraction
from unittest import mock

from anachron.core import compare_modes
from anachron.core.stats import bootstrap as _bootstrap, paired as _paired
from anachron.core.stats.bootstrap import (
    BLOCKS_FROM, BYTES_UNTIL, OrderStatistics, binomial, bootstrap_column_bounds, bootstrap_column_totals, count_below, resampling_method,
)
from anachron.core.stats.intervals import interval
from anachron.core.stats.paired import EXACT_JACKKNIFE
from tests.support import require_extra
from tests.core.stats.test_bootstrap_groups import reference_group_totals
from tests.core.stats.test_paired import order_statistic_band, plain_bootstrap, type7


def continuous(n: int, seed: int) -> tuple[dict, dict]:
    rng = random.Random(seed)
    u = {f"s{i}": rng.random() for i in range(n)}
    return u, {s: rng.random() * v for s, v in u.items()}


def reference_totals(columns: list[list[int]], b: int, rng: random.Random) -> list[tuple[int, ...]]:
    """The "blocks" draws as docs/metrics.md states them, summed plainly: blocks of 256 rows, then
    n's binary digits below 256; block j gets Binomial(draws left, rows in j / rows left) draws
    (the last: the draws left); within a block of 2^k > 1 rows, the low k bits of randbytes(m)."""
    n = len(columns[0])
    sizes = [256] * (n // 256) + [1 << k for k in range(7, -1, -1) if n >> k & 1]
    out = []
    for _ in range(b):
        totals = [0] * len(columns)
        left, rows, start = n, n, 0
        for number, size in enumerate(sizes):
            m = left if number == len(sizes) - 1 else binomial(rng, left, size, rows)
            left -= m
            rows -= size
            if m:
                picked = [0] * m if size == 1 else [x % size for x in rng.randbytes(m)]
                for c, column in enumerate(columns):
                    totals[c] += sum(column[start + x] for x in picked)
            start += size
        out.append(tuple(totals))
    return out


def plain_ratio_bootstrap(u: dict, e: dict, b: int, seed: int) -> list[float]:
    """The textbook loop of the relative reduction: resample the pairs, sum(u - e) / sum(u), sorted."""
    rng = random.Random(seed)
    ids = list(u)
    ratios = []
    for _ in range(b):
        drawn = rng.choices(ids, k=len(ids))
        ratios.append(math.fsum(u[s] - e[s] for s in drawn) / math.fsum(u[s] for s in drawn))
    return sorted(ratios)


def rows_of(u: dict, e: dict) -> list[list[int]]:
    """compare_modes's columns: u and d = u - e as integers over the common power-of-two
    denominator, the rows sorted by (u, d)."""
    ratios = [x.as_integer_ratio() for s in u for x in (u[s], e[s])]
    den = max(d for _, d in ratios)
    rows = sorted((Fraction(u[s]) * den, (Fraction(u[s]) - Fraction(e[s])) * den) for s in u)
    return [[int(r[0]) for r in rows], [int(r[1]) for r in rows]], den


class ColumnTotalsTest(unittest.TestCase):
    def test_every_row_is_drawn_uniformly_in_every_kind_of_block(self):
        # 300 = a block of 256 and blocks of 32, 8 and 4: indicator columns of rows in each kind of block.
        for n in (1, 2, 3, 300):
            rows = sorted({0, n // 2, n - 1, min(n - 1, 256), min(n - 1, 299)})
            columns = [[int(i == r) for i in range(n)] for r in rows]
            b = 3000
            totals = bootstrap_column_totals(columns, b, random.Random(n))
            for position, r in enumerate(rows):
                draws = [t[position] for t in totals]
                mean = sum(draws) / b
                # Each resample's count of row r is Binomial(n, 1/n): mean 1, variance 1 - 1/n.
                with self.subTest(n=n, row=r):
                    if n == 1:
                        self.assertEqual(set(draws), {1})
                        continue
                    self.assertLessEqual(abs(mean - 1), 5 * math.sqrt((1 - 1 / n) / b))
                    variance = sum((x - mean) ** 2 for x in draws) / (b - 1)
                    self.assertLess(abs(variance - (1 - 1 / n)), 0.15)

    def test_large_n_the_blocks_are_weighted_by_their_rows(self):
        # The row numbers as values: a resample's sum has mean n (n - 1) / 2 and variance n (n^2 - 1) / 12;
        # a block given the wrong share of the draws moves the mean by far more than 5 standard errors.
        for n in (1000, 70_001):
            b = 200
            sums = [t for t, in bootstrap_column_totals([list(range(n))], b, random.Random(n))]
            sd = math.sqrt(n * (n * n - 1) / 12)
            with self.subTest(n=n):
                self.assertLessEqual(abs(sum(sums) / b - n * (n - 1) / 2), 5 * sd / math.sqrt(b))
                spread = math.sqrt(sum((x - sum(sums) / b) ** 2 for x in sums) / (b - 1))
                self.assertLess(abs(spread / sd - 1), 0.3)

    def test_the_sums_are_exact_and_each_resample_has_n_draws(self):
        rng = random.Random(3)
        n = 777
        big = [rng.getrandbits(200) - (1 << 199) for _ in range(n)]  # beyond any machine word
        ones = [1] * n
        for total, count in bootstrap_column_totals([big, ones], 50, random.Random(4)):
            self.assertEqual(count, n)
            self.assertIsInstance(total, int)
        lone = bootstrap_column_totals([[7]], 3, random.Random(0))
        self.assertEqual(lone, [(7,), (7,), (7,)])

    def test_the_same_seed_draws_the_same_resamples(self):
        column = list(range(1500))
        self.assertEqual(bootstrap_column_totals([column], 30, random.Random(9)), bootstrap_column_totals([column], 30, random.Random(9)))
        self.assertNotEqual(bootstrap_column_totals([column], 30, random.Random(9)), bootstrap_column_totals([column], 30, random.Random(10)))

    def test_the_path_is_chosen_by_size(self):
        self.assertEqual(resampling_method(BLOCKS_FROM - 1, BLOCKS_FROM - 1), "direct")
        self.assertEqual(resampling_method(BLOCKS_FROM, BLOCKS_FROM), "blocks")
        self.assertEqual(resampling_method(3, 10 * BLOCKS_FROM), "multinomial")  # few distinct differences: unchanged


class BlocksThroughCompareModesTest(unittest.TestCase):
    def test_continuous_scores_at_n_1200_take_the_blocks_path_and_agree_with_a_plain_loop(self):
        u, e = continuous(1200, 2)
        report = compare_modes(u, e, n_resamples=2000, seed=0)
        self.assertEqual(report.resampling, "blocks")
        reference = plain_bootstrap(u, e, 2000, seed=12345)
        for estimate, q in ((report.ci_low, 0.025), (report.ci_high, 0.975)):
            with self.subTest(q=q):
                self.assertLessEqual(abs(estimate - type7(reference, q)), order_statistic_band(reference, q))

    def test_the_relative_interval_agrees_with_a_plain_ratio_bootstrap(self):
        for n, path in ((200, "bytes"), (1200, "blocks")):  # both ways of reading one draw for two intervals
            u, e = continuous(n, 5)
            report = compare_modes(u, e, n_resamples=2000, seed=1)
            self.assertEqual(report.resampling, path)
            ratios = plain_ratio_bootstrap(u, e, 2000, seed=77)
            for estimate, q in ((report.relative_ci_low, 0.025), (report.relative_ci_high, 0.975)):
                with self.subTest(n=n, q=q):
                    self.assertLessEqual(abs(estimate - type7(ratios, q)), order_statistic_band(ratios, q))

    def test_agrees_with_scipy_within_monte_carlo_error(self):
        require_extra("scipy", "test")
        import numpy
        import scipy.stats

        seeding = "rng" if "rng" in inspect.signature(scipy.stats.bootstrap).parameters else "random_state"
        u, e = continuous(1500, 3)
        report = compare_modes(u, e, n_resamples=2000, seed=0)
        ua, ea = numpy.array([u[s] for s in u]), numpy.array([e[s] for s in u])
        result = scipy.stats.bootstrap(
            (ua, ea), lambda x, y, axis: numpy.mean(x - y, axis=axis), paired=True, vectorized=True,
            method="percentile", n_resamples=2000, **{seeding: numpy.random.default_rng(7)},
        )
        reference = sorted(result.bootstrap_distribution.tolist())
        for estimate, theirs, q in ((report.ci_low, result.confidence_interval.low, 0.025),
                                    (report.ci_high, result.confidence_interval.high, 0.975)):
            with self.subTest(q=q):
                self.assertLessEqual(abs(estimate - theirs), order_statistic_band(reference, q))

    def test_deterministic_for_a_seed_and_blind_to_the_order_of_the_samples(self):
        u, e = continuous(1200, 4)
        for ci_method in ("percentile",):  # bca: its jackknife of the ratio sums Fractions, slow on continuous scores
            with self.subTest(ci_method=ci_method):
                first = compare_modes(u, e, n_resamples=300, seed=42, ci_method=ci_method).to_dict()
                self.assertEqual(first["resampling"], "blocks")
                self.assertEqual(compare_modes(u, e, n_resamples=300, seed=42, ci_method=ci_method).to_dict(), first)
                shuffled = dict(reversed(list(u.items())))
                self.assertEqual(compare_modes(shuffled, e, n_resamples=300, seed=42, ci_method=ci_method).to_dict(), first)
                self.assertNotEqual(compare_modes(u, e, n_resamples=300, seed=43, ci_method=ci_method).ci_low, first["ci_low"])

    def test_no_unrestricted_mass_draws_only_the_differences(self):
        zeros = {f"s{i}": 0.0 for i in range(1200)}
        e = {f"s{i}": i / 4096 for i in range(1200)}
        report = compare_modes(zeros, e, n_resamples=200, seed=0)
        self.assertEqual((report.resampling, report.relative_reduction, report.relative_ci_low), ("blocks", None, None))
        self.assertLess(report.ci_high, 0)


class TwoPassesTest(unittest.TestCase):
    """The first pass over the high bits, then exact replays: the same totals as the plain sums."""

    def test_the_totals_are_the_reference_draws_summed(self):
        rng = random.Random(5)
        for n in (1, 2, 3, 255, 256, 257, 300, 1000, 1537):
            big = [rng.getrandbits(130) - (1 << 129) for _ in range(n)]  # signed, beyond any machine word
            small = [rng.randrange(3) for _ in range(n)]
            # From BYTES_UNTIL rows the draws are made by groups (test_bootstrap_groups states them).
            reference = reference_totals if n < BYTES_UNTIL else reference_group_totals
            with self.subTest(n=n):
                self.assertEqual(bootstrap_column_totals([big, small], 40, random.Random(n)),
                                 reference([big, small], 40, random.Random(n)))

    def test_bounds_hold_the_exact_totals_and_replays_give_them_at_any_split(self):
        rng = random.Random(6)
        n = 1030  # 4 blocks of 256 and blocks of 4 and 2, below BYTES_UNTIL (above, test_bootstrap_groups)
        columns = [[rng.getrandbits(90) for _ in range(n)], [rng.getrandbits(70) - (1 << 69) for _ in range(n)],
                   [7] * n, [rng.choice((0, 1 << 80)) for _ in range(n)]]
        b = 60
        reference = reference_totals(columns, b, random.Random(1))
        for bits in (None, 0, 1, 7, 8, 15, 64, 200):
            with self.subTest(bits=bits):
                generator = random.Random(1)
                resamples = bootstrap_column_bounds(columns, b, generator, first_pass_bits=bits)
                after = generator.random()
                check = random.Random(1)
                reference_totals(columns, b, check)
                self.assertEqual(after, check.random())  # left where one pass leaves it
                for c in range(len(columns)):
                    lows, highs = resamples.bounds(c)
                    self.assertTrue(all(lo <= t[c] <= hi for lo, hi, t in zip(lows, highs, reference)))
                # Out of order, repeated, and in two calls: every replay from its saved state.
                picked = [b - 1, 3, 3, 17, 0, 18, 40]
                self.assertEqual(resamples.exact(picked), {i: reference[i] for i in picked})
                self.assertEqual(list(resamples.exact(range(b)).values()), reference)

    def test_without_zlib_the_sums_are_the_same(self):
        rng = random.Random(12)
        n = 1030
        columns = [[rng.getrandbits(80) for _ in range(n)], [rng.getrandbits(40) for _ in range(n)]]
        reference = reference_totals(columns, 30, random.Random(2))
        with mock.patch.object(_bootstrap, "_adler32", _bootstrap._python_adler32):
            self.assertEqual(bootstrap_column_totals(columns, 30, random.Random(2)), reference)
            resamples = bootstrap_column_bounds(columns, 30, random.Random(2), first_pass_bits=5)
            self.assertEqual(list(resamples.exact(range(30)).values()), reference)
        # A block's draws summed a few at a time (its adler32 calls are capped at 515 and 256 draws).
        with mock.patch.object(_bootstrap, "_FIRST_DRAWS", 3), mock.patch.object(_bootstrap, "_REST_DRAWS", 2):
            resamples = bootstrap_column_bounds(columns, 30, random.Random(2), first_pass_bits=9)
            self.assertEqual(list(resamples.exact(range(30)).values()), reference)

    def test_order_statistics_read_the_exact_sorted_values(self):
        rng = random.Random(8)
        for trial in range(40):
            count = rng.randrange(1, 60)
            values = [rng.choice((rng.randrange(-5, 5), rng.randrange(-1000, 1000))) for _ in range(count)]  # ties
            widths = [rng.choice((0, 1, 3, 50, 2000)) for _ in range(count)]
            lows = [v - rng.randrange(w + 1) for v, w in zip(values, widths)]
            highs = [lo + w for lo, w in zip(lows, widths)]
            asked = []

            def exact(indices):
                asked.extend(indices)
                return {i: values[i] for i in indices}

            stats = OrderStatistics(lows, highs, exact, lambda v: v / 4)
            order = list(range(count))
            rng.shuffle(order)
            with self.subTest(trial=trial):
                self.assertEqual(len(stats), count)
                for r in order:
                    self.assertEqual(stats[r], sorted(values)[r] / 4)
                self.assertEqual(stats[-1], max(values) / 4)
                for target in (values[0], values[0] + 1, min(values) - 1):
                    self.assertEqual(count_below(lows, highs, target, exact),
                                     sum(2 * (v < target) + (v == target) for v in values))
        with self.assertRaises(IndexError):
            OrderStatistics([1], [1], exact, float)[1]

    def test_exact_bounds_need_no_replay(self):
        stats = OrderStatistics([3, 1, 2], [3, 1, 2], lambda indices: {i: [3, 1, 2][i] for i in indices}, float)
        self.assertEqual([stats[0], stats[1], stats[2]], [1.0, 2.0, 3.0])


def reference_report(u: dict, e: dict, b: int, seed: int, ci_method: str, metric: str, confidence: float = 0.95,
                     totals_of=reference_totals) -> tuple:
    """compare_modes's two intervals recomputed from the plain reference sums of every resample
    (*totals_of*: the draws of the path compare_modes takes, summed plainly)."""
    columns, den = rows_of(u, e)
    n = len(u)
    sum_u, sum_d = sum(columns[0]), sum(columns[1])
    totals = totals_of(columns if sum_u else columns[1:], b, random.Random(seed))
    d_totals = [t[-1] for t in totals]
    below = Fraction(sum(2 * (t < sum_d) + (t == sum_d) for t in d_totals), 2 * b)
    report = compare_modes(u, e, n_resamples=b, seed=seed, ci_method=ci_method, confidence=confidence, metric=metric)
    a = 0.0
    if ci_method == "bca":  # compare_modes's own accelerations: only the resampled parts are checked here
        a = _bca_a(columns[1], sum_d, n)
    d_ci = interval(sorted(t / (n * den) for t in d_totals), ci_method, confidence, below=below, a=a)
    relative = None
    if sum_u:
        defined = [(tu, td) for tu, td in totals if tu]
        q = Fraction(sum_d, sum_u)
        below = Fraction(sum(2 * (Fraction(td, tu) < q) + (Fraction(td, tu) == q) for tu, td in defined), 2 * len(defined))
        a_ratio = _ratio_a(columns, sum_u, sum_d) if ci_method == "bca" else 0.0
        relative = interval(sorted(td / tu for tu, td in defined), ci_method, confidence, below=below, a=a_ratio)
        relative = relative + (b - len(defined),)
    return report, d_ci, relative


def _bca_a(d: list[int], sum_d: int, n: int) -> float:
    from anachron.core.stats.intervals import acceleration
    centred = [n * x - sum_d for x in d]
    return acceleration(sum(y ** 3 for y in centred), sum(y * y for y in centred))


def _ratio_a(columns: list[list[int]], sum_u: int, sum_d: int) -> float:
    from anachron.core.stats.intervals import acceleration
    if any(sum_u - x <= 0 for x in columns[0]):
        return 0.0
    thetas = [Fraction(sum_d - d, sum_u - x) for x, d in zip(*columns)]
    mean = sum(thetas, Fraction(0)) / len(thetas)
    return acceleration(sum((mean - t) ** 3 for t in thetas), sum((mean - t) ** 2 for t in thetas))




class RatioJackknifeTest(unittest.TestCase):
    def test_many_distinct_pairs_give_the_exact_fractions_interval_within_1e_12(self):
        # More than EXACT_JACKKNIFE distinct pairs: the rounded rule, against the same report with the
        # exact-fraction jackknife (the threshold raised): the same resamples, the acceleration within 1e-12.
        for n, seed in ((EXACT_JACKKNIFE + 1, 0), (200, 1)):
            u, e = continuous(n, seed)
            report = compare_modes(u, e, n_resamples=500, seed=seed, ci_method="bca")
            with mock.patch.object(_paired, "EXACT_JACKKNIFE", 10**9):
                exact = compare_modes(u, e, n_resamples=500, seed=seed, ci_method="bca")
            with self.subTest(n=n):
                self.assertEqual((report.ci_low, report.ci_high), (exact.ci_low, exact.ci_high))  # mean(d): not a ratio
                for ours, theirs in ((report.relative_ci_low, exact.relative_ci_low), (report.relative_ci_high, exact.relative_ci_high)):
                    self.assertLessEqual(abs(ours - theirs), 1e-12 * abs(theirs))
                plain = compare_modes(u, e, n_resamples=500, seed=seed)
                self.assertNotEqual(report.relative_ci_low, plain.relative_ci_low)  # the acceleration moved the ends

    def test_bca_on_continuous_scores_is_no_longer_superlinear_in_its_jackknife(self):
        # n = 3000 distinct pairs: before, the exact fractions' common denominator grew with each one.
        u, e = continuous(3000, 5)
        report = compare_modes(u, e, n_resamples=100, seed=0, ci_method="bca")
        self.assertIsNotNone(report.relative_ci_low)


if __name__ == "__main__":
    unittest.main()
