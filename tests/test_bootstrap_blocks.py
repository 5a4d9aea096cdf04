"""The "blocks" resampling of compare_modes (continuous scores, n >= BLOCKS_FROM): uniform, exact, seeded.

Speed is measured in benchmarks/compare_modes.py --continuous, never here.
"""

from __future__ import annotations

import inspect
import math
import random
import unittest

from anachron.core import compare_modes
from anachron.core.stats import bootstrap as _bootstrap
from anachron.core.stats.bootstrap import BLOCKS_FROM, bootstrap_column_totals, resampling_method
from tests.support import require_extra
from tests.test_paired import order_statistic_band, plain_bootstrap, type7


def continuous(n: int, seed: int) -> tuple[dict, dict]:
    rng = random.Random(seed)
    u = {f"s{i}": rng.random() for i in range(n)}
    return u, {s: rng.random() * v for s, v in u.items()}


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
        u, e = continuous(1000, 5)
        report = compare_modes(u, e, n_resamples=2000, seed=1)
        rng = random.Random(77)
        ids = list(u)
        ratios = []
        for _ in range(2000):
            drawn = rng.choices(ids, k=len(ids))
            su = math.fsum(u[s] for s in drawn)
            ratios.append(math.fsum(u[s] - e[s] for s in drawn) / su)
        ratios.sort()
        for estimate, q in ((report.relative_ci_low, 0.025), (report.relative_ci_high, 0.975)):
            with self.subTest(q=q):
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
        u, e = continuous(1000, 4)
        for ci_method in ("percentile",):  # bca: its jackknife of the ratio sums Fractions, slow on continuous scores
            with self.subTest(ci_method=ci_method):
                first = compare_modes(u, e, n_resamples=300, seed=42, ci_method=ci_method).to_dict()
                self.assertEqual(first["resampling"], "blocks")
                self.assertEqual(compare_modes(u, e, n_resamples=300, seed=42, ci_method=ci_method).to_dict(), first)
                shuffled = dict(reversed(list(u.items())))
                self.assertEqual(compare_modes(shuffled, e, n_resamples=300, seed=42, ci_method=ci_method).to_dict(), first)
                self.assertNotEqual(compare_modes(u, e, n_resamples=300, seed=43, ci_method=ci_method).ci_low, first["ci_low"])

    def test_no_unrestricted_mass_draws_only_the_differences(self):
        zeros = {f"s{i}": 0.0 for i in range(1000)}
        e = {f"s{i}": i / 4096 for i in range(1000)}
        report = compare_modes(zeros, e, n_resamples=200, seed=0)
        self.assertEqual((report.resampling, report.relative_reduction, report.relative_ci_low), ("blocks", None, None))
        self.assertLess(report.ci_high, 0)


if __name__ == "__main__":
    unittest.main()
