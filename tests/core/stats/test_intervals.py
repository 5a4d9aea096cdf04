"""BCa intervals, the relative reduction's interval, the warnings and the resample floor."""

from __future__ import annotations

import inspect
import math
import random
import unittest
from fractions import Fraction
from statistics import NormalDist

from anachron.core import AnachronError, compare_modes
from anachron.core.stats.intervals import acceleration, bca_levels
from tests.support import require_extra
from tests.core.stats.test_paired import order_statistic_band


def continuous(n: int, seed: int) -> tuple[dict, dict]:
    rng = random.Random(seed)
    u = {f"s{i}": rng.random() ** 3 for i in range(n)}  # skewed: BCa moves away from the percentile ends
    return u, {s: rng.random() * v for s, v in u.items()}


def zero_inflated(n: int, seed: int) -> tuple[dict, dict]:
    rng = random.Random(seed)
    u = {f"s{i}": 0.0 if rng.random() < 0.75 else rng.randint(1, 5) / 5 for i in range(n)}
    return u, {s: 0.0 if rng.random() < 0.95 else rng.randint(1, 5) / 5 for s in u}


class BcaFormulaTest(unittest.TestCase):
    def test_acceleration_is_the_jackknife_skewness_formula(self):
        d = [Fraction(x) for x in (0, 0, 0, 1, Fraction(1, 2), 3)]
        n = len(d)
        jack = [(sum(d) - x) / (n - 1) for x in d]
        mean = sum(jack) / n
        expected = float(sum((mean - j) ** 3 for j in jack)) / (6 * float(sum((mean - j) ** 2 for j in jack)) ** 1.5)
        centred = [n * x - sum(d) for x in d]
        self.assertAlmostEqual(acceleration(sum(y**3 for y in centred), sum(y * y for y in centred)), expected, places=14)
        self.assertEqual(acceleration(0, 0), 0.0)
        # Counts far beyond a double stay finite: exact sums, rounded through logarithms.
        self.assertAlmostEqual(acceleration(10**900, 10**600), 1 / 6, places=12)

    def test_levels(self):
        z = NormalDist()
        # No bias and no acceleration: the percentile levels.
        low, high = bca_levels(Fraction(1, 2), 0.0, 0.95, 1000)
        self.assertAlmostEqual(low, 0.025, places=12)
        self.assertAlmostEqual(high, 0.975, places=12)
        # A bias correction alone shifts both ends by 2 z0.
        z0 = z.inv_cdf(0.6)
        low, high = bca_levels(Fraction(3, 5), 0.0, 0.95, 1000)
        self.assertAlmostEqual(low, z.cdf(2 * z0 + z.inv_cdf(0.025)), places=12)
        self.assertAlmostEqual(high, z.cdf(2 * z0 + z.inv_cdf(0.975)), places=12)
        # Every resample below the estimate: p0 is clamped to 1 - 1 / (2B), never infinite.
        low, high = bca_levels(Fraction(1), 0.0, 0.95, 1000)
        self.assertAlmostEqual(low, z.cdf(2 * z.inv_cdf(1 - 1 / 2000) + z.inv_cdf(0.025)), places=12)
        self.assertTrue(0.99 < low <= high <= 1.0)
        # A huge acceleration makes a denominator non-positive: that end goes to the extreme.
        self.assertEqual(bca_levels(Fraction(1, 2), 5.0, 0.95, 1000)[1], 1.0)


class BcaTest(unittest.TestCase):
    def test_agrees_with_scipy_bca_within_monte_carlo_error(self):
        require_extra("scipy", "test")
        import numpy
        import scipy.stats

        seeding = "rng" if "rng" in inspect.signature(scipy.stats.bootstrap).parameters else "random_state"
        # Continuous data: no resample mean ties the estimate, where scipy counts ties as above
        # and we count them one half (docs/metrics.md).
        for n, seed in ((40, 1), (100, 2)):
            u, e = continuous(n, seed)
            ours = compare_modes(u, e, n_resamples=10_000, seed=0, ci_method="bca")
            ua, ea = numpy.array([u[s] for s in u]), numpy.array([e[s] for s in u])
            theirs = scipy.stats.bootstrap(
                (ua, ea), lambda x, y, axis: numpy.mean(x - y, axis=axis), paired=True, vectorized=True,
                method="BCa", n_resamples=10_000, **{seeding: numpy.random.default_rng(7)},
            )
            reference = sorted(theirs.bootstrap_distribution.tolist())
            for estimate, bound in ((ours.ci_low, theirs.confidence_interval.low), (ours.ci_high, theirs.confidence_interval.high)):
                with self.subTest(n=n):
                    q = sum(1 for x in reference if x < bound) / len(reference)
                    self.assertLessEqual(abs(estimate - bound), order_statistic_band(reference, q))

    def test_bca_differs_from_percentile_on_skewed_data_and_keeps_the_figures(self):
        u, e = continuous(30, 4)
        percentile = compare_modes(u, e, n_resamples=2000, seed=3)
        bca = compare_modes(u, e, n_resamples=2000, seed=3, ci_method="bca")
        self.assertNotEqual((percentile.ci_low, percentile.ci_high), (bca.ci_low, bca.ci_high))
        for field in ("mean_reduction", "relative_reduction", "sign_test_p", "improved", "n"):
            self.assertEqual(getattr(percentile, field), getattr(bca, field))
        self.assertEqual((percentile.ci_method, bca.ci_method), ("percentile", "bca"))

    def test_deterministic(self):
        u, e = zero_inflated(100, 5)
        first = compare_modes(u, e, n_resamples=1000, seed=8, ci_method="bca").to_dict()
        self.assertEqual(compare_modes(dict(reversed(list(u.items()))), e, n_resamples=1000, seed=8, ci_method="bca").to_dict(), first)

    def test_all_ties_and_a_constant_difference_collapse(self):
        u, _ = zero_inflated(40, 6)
        tied = compare_modes(u, dict(u), n_resamples=1000, ci_method="bca")
        self.assertEqual((tied.ci_low, tied.ci_high), (0.0, 0.0))
        shifted = compare_modes({"a": 1.0, "b": 0.5}, {"a": 0.5, "b": 0.0}, n_resamples=1000, ci_method="bca")
        self.assertEqual((shifted.ci_low, shifted.ci_high), (0.5, 0.5))

    def test_bad_method(self):
        with self.assertRaisesRegex(AnachronError, r"^ci_method must be one of percentile, bca, got 'BCa'$"):
            compare_modes({"a": 1.0}, {"a": 0.0}, ci_method="BCa")


class RelativeReductionIntervalTest(unittest.TestCase):
    def test_it_brackets_the_estimate_and_matches_a_plain_ratio_bootstrap(self):
        u, e = zero_inflated(300, 7)
        report = compare_modes(u, e, n_resamples=10_000, seed=1)
        self.assertLessEqual(report.relative_ci_low, report.relative_reduction)
        self.assertGreaterEqual(report.relative_ci_high, report.relative_reduction)
        # The textbook loop: resample pairs, take sum(d) / sum(u).
        rng = random.Random(99)
        pairs = [(u[s], u[s] - e[s]) for s in u]
        ratios = []
        for _ in range(10_000):
            drawn = rng.choices(pairs, k=len(pairs))
            ratios.append(math.fsum(p[1] for p in drawn) / math.fsum(p[0] for p in drawn))
        ratios.sort()
        for estimate, q in ((report.relative_ci_low, 0.025), (report.relative_ci_high, 0.975)):
            self.assertLessEqual(abs(estimate - ratios[round(q * (len(ratios) - 1))]), order_statistic_band(ratios, q))

    def test_none_when_the_unrestricted_mean_is_zero(self):
        report = compare_modes({"a": 0.0, "b": 0.0}, {"a": 0.5, "b": 0.0}, n_resamples=100)
        self.assertEqual((report.relative_reduction, report.relative_ci_low, report.relative_ci_high), (None, None, None))
        self.assertIn("  relative reduction CI       n/a\n", report.table())

    def test_resamples_without_a_relative_reduction_are_counted_and_left_out(self):
        # One sample carries every unrestricted leak: about (1 - 1/5)**5 of resamples miss it.
        u = {"a": 1.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": 0.0}
        e = {k: 0.0 for k in u}
        report = compare_modes(u, e, n_resamples=2000, seed=2)
        warning = next(w for w in report.warnings if "no relative reduction" in w)
        left_out = int(warning.split(" of ")[0].replace(",", ""))
        self.assertLess(abs(left_out / 2000 - 0.8**5), 0.05)
        self.assertEqual((report.relative_ci_low, report.relative_ci_high), (1.0, 1.0))


class WarningsAndFloorTest(unittest.TestCase):
    def test_fewer_than_100_resamples_are_refused(self):
        with self.assertRaisesRegex(AnachronError, r"^n_resamples must be at least 100 \(fewer give an interval of noise\), got 99$"):
            compare_modes({"a": 1.0}, {"a": 0.0}, n_resamples=99)
        compare_modes({"a": 1.0}, {"a": 0.0}, n_resamples=100)

    def test_each_warning_at_its_boundary(self):
        u29, e29 = zero_inflated(29, 1)
        u30, e30 = zero_inflated(30, 1)
        small = [w for w in compare_modes(u29, e29, n_resamples=1000).warnings if w.startswith("n = ")]
        self.assertEqual(small, ["n = 29 is below 30: the interval's coverage is approximate (https://github.com/anachron/anachron/blob/main/docs/metrics.md, 'Coverage')"])
        self.assertFalse(any(w.startswith("n = ") for w in compare_modes(u30, e30, n_resamples=1000).warnings))
        few = compare_modes(u30, e30, n_resamples=999).warnings
        self.assertIn("999 resamples are fewer than 1,000: the interval's ends are noisy", few)
        self.assertFalse(any("resamples are fewer" in w for w in compare_modes(u30, e30, n_resamples=1000).warnings))
        tied = compare_modes(u30, dict(u30), n_resamples=1000)
        self.assertIn("every pair ties: a [0, 0] interval shows no variation in these samples, not certainty", tied.warnings)
        self.assertEqual(tied.to_dict()["warnings"], list(tied.warnings))
        u, e = zero_inflated(200, 3)
        self.assertEqual(compare_modes(u, e, n_resamples=1000).warnings, ())


    def test_a_relative_interval_that_cannot_vary_is_warned(self):
        enforced_zero = "every enforced value is 0: the relative reduction is 100% in every resample by construction, " \
                        "so its interval shows no variation in these samples, not certainty"
        u, _ = zero_inflated(60, 4)
        u["s0"] = 0.6  # some unrestricted leak
        report = compare_modes(u, {k: 0.0 for k in u}, n_resamples=1000)
        self.assertEqual((report.relative_ci_low, report.relative_ci_high), (1.0, 1.0))
        self.assertEqual(report.warnings, (enforced_zero,))
        self.assertEqual(report.to_dict()["warnings"], [enforced_zero])
        self.assertIn(f"  warning: {enforced_zero}", report.table())
        # One enforced leak and the interval can vary again: no warning.
        some = compare_modes(u, {k: (0.2 if k == "s0" else 0.0) for k in u}, n_resamples=1000)
        self.assertLess(some.relative_ci_low, some.relative_ci_high)
        self.assertEqual(some.warnings, ())
        # Enforced exactly half of unrestricted everywhere: every resample's ratio is 1/2.
        half = compare_modes(u, {k: v / 2 for k, v in u.items()}, n_resamples=1000)
        self.assertEqual((half.relative_ci_low, half.relative_ci_high), (0.5, 0.5))
        self.assertEqual(half.warnings, ("the relative reduction's interval has zero width ([50.0%, 50.0%]): "
                                         "every resample gave the same ratio, which is not certainty",))
        # No relative reduction at all (unrestricted all 0): neither warning.
        none = compare_modes({k: 0.0 for k in u}, {k: 0.0 for k in u}, n_resamples=1000)
        self.assertFalse(any("relative" in w or "enforced" in w for w in none.warnings))


if __name__ == "__main__":
    unittest.main()
