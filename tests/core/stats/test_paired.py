"""compare_modes: the table, the exact sign test, the bootstrap, bad input."""

from __future__ import annotations

import dataclasses
import inspect
import json
import itertools
import math
import random
import re
import statistics
import unittest
from decimal import Decimal
from fractions import Fraction
from unittest import mock

from anachron.core import AnachronError, ModeComparison, compare_modes
from anachron.core.stats import bootstrap as _bootstrap, signtest as _signtest
from anachron.core.leakage import SampleResult
from anachron.core.scores import METRICS, check_scores, parse_scores
from tests.support import ROOT, require_extra

# Spot values of the two-sided sign test: (n, k, scipy p, exact p to 25 digits).
# Generated once with scipy 1.17.1 and mpmath 1.3.0 (mp.dps = 50):
#   m = min(k, n - k); exact = min(1, binomial(n, m) / 2**(n - 1)
#       * sum_{i >= 0} prod_{j = m - i + 1}^{m} j / (n - j + 1))   (tail summed to 1e-60)
#   print(n, k, float(scipy.stats.binomtest(k, n, 0.5).pvalue), mpmath.nstr(exact, 25))
# scipy returns 0.0 where its floating-point pmf underflows, even for a normal-range p
# (n = 1100, k = 30); the exact column is the reference there.
SPOTS = [
    (1000, 0, 1.8665272370064378e-301, "1.866527237006437757980179e-301"),
    (1000, 300, 1.7665678007949568e-37, "1.766567800795013714040309e-37"),
    (1000, 480, 0.2174482932041415, "0.2174482932041409428115552"),
    (5001, 2000, 1.0826683230266833e-45, "1.082668323026703804081412e-45"),
    (5001, 101, 0.0, "1.116768598767797446493829e-1292"),
    (20000, 9800, 0.004780889455902781, "0.004780889455902643502118639"),
    (100000, 49500, 0.0015823598788515154, "0.001582359878851595644417956"),
    (100000, 49000, 2.5887160383468943e-10, "2.588716038346897884116544e-10"),
    (123457, 60000, 7.833147218441392e-23, "7.833147218440187440846238e-23"),
    (999999, 499000, 0.045716497807346095, "0.04571649780735703941276647"),
    (1000000, 499999, 0.9992021156386692, "0.9992021156386682499109128"),
    (1000000, 499500, 0.3177946913633297, "0.3177946913633055371178837"),
    (1000000, 499000, 0.0456082998653896, "0.04560829986538208642030966"),
    (1000000, 498500, 0.002708655306059374, "0.002708655306059756819354291"),
    (1000000, 497000, 1.98514976392289e-09, "1.985149763923020756836517e-9"),
    (1000000, 495000, 1.538155504390233e-23, "1.538155504390735189357687e-23"),
    (1000000, 490000, 5.544363287708518e-89, "5.544363287699224603461672e-89"),
    (1000000, 400000, 0.0, "8.841410257440919571898957e-8748"),
    (1000000, 101, 0.0, "2.132512549799369709790751e-300584"),
    (1000000, 1, 0.0, "2.020070138464178845466844e-301024"),
    (1000000, 0, 0.0, "2.020068118396060449406395e-301030"),
    (1075, 0, 0.0, "4.940656458412465441765688e-324"),
    (1076, 0, 0.0, "2.470328229206232720882844e-324"),
    (1100, 30, 0.0, "6.686236507682802090502231e-273"),
]
# scipy evaluates the binomial tail in floating point; against the exact values
# above its relative error reaches 1.7e-12 (n = 10**6).  Ours is correctly rounded.
SCIPY_RTOL = 1e-11
SMALLEST = 5e-324


def stored_binomtest() -> dict[tuple[int, int], float]:
    """scipy's binomtest p for n = 1..200, every k (tests/data, generated once)."""
    table = {}
    for line in (ROOT / "tests" / "data" / "binomtest_reference.txt").read_text().splitlines():
        if line.startswith("#"):
            continue
        head, _, rest = line.partition(":")
        n = int(head)
        for k, text in enumerate(rest.split()):
            table[n, k] = table[n, n - k] = float(text)
    return table


def binomial_coefficients(n: int) -> list[int]:
    row = [1]
    for j in range(1, n + 1):
        row.append(row[-1] * (n - j + 1) // j)
    return row


def exact_sign_p(k: int, n: int, weights: list[int] | None = None) -> Fraction:
    """The definition: total probability of outcomes no more likely than k."""
    weights = weights or binomial_coefficients(n)
    return min(Fraction(1), Fraction(sum(w for w in weights if w <= weights[k]), 2**n))


def lower_tail(m: int, n: int) -> Fraction:
    """2 P(X <= m) for X ~ Binomial(n, 1/2), exactly."""
    return Fraction(sum(binomial_coefficients(n)[: m + 1]), 2 ** (n - 1))


def pairs_with(improved: int, worsened: int, tied: int) -> tuple[dict, dict]:
    u, e = {}, {}
    for index, (a, b) in enumerate([(1.0, 0.0)] * improved + [(0.0, 0.5)] * worsened + [(0.25, 0.25)] * tied):
        u[f"s{index:04d}"], e[f"s{index:04d}"] = a, b
    return u, e


def sign_p(improved: int, worsened: int) -> ModeComparison:
    return compare_modes(*pairs_with(improved, worsened, 1), n_resamples=100)


# -- the report ------------------------------------------------------------------------


class TableTest(unittest.TestCase):
    # The example: 7 improved, 20 tied, one tied pair at 1.0 in both modes.
    U = {**{f"i{j}": v for j, v in enumerate([1, 1, 1, 1, 0.5, 0.5, 0.5])}, "t0": 1.0, **{f"t{j}": 0 for j in range(1, 20)}}
    E = {**{f"i{j}": 0 for j in range(7)}, "t0": 1.0, **{f"t{j}": 0 for j in range(1, 20)}}

    def test_table_values_form_one_column(self):
        report = compare_modes(self.U, self.E, seed=0)
        lines = report.table().split("\n")
        expected = [
            "Paired mode comparison (n=27)",
            "  unrestricted mean TCLR      0.241",
            "  enforced mean TCLR          0.037",
            "  mean reduction              +0.204",
            None,  # the CI: numbers depend on the resamples, checked below
            "  relative reduction          84.6%",
            None,  # its CI, checked below
            "  improved / worsened / tied  7 / 0 / 20",
            "  exact sign-test p           0.0156",
            "  warning: n = 27 is below 30: the interval's coverage is approximate "
            "(https://github.com/anachron/anachron/blob/main/docs/metrics.md, 'Coverage')",
            "  warning: 1 of 10,000 resamples had an unrestricted mean of 0 and no relative reduction; its interval is over the others",
        ]
        self.assertEqual(len(lines), len(expected))
        for line, want in zip(lines, expected):
            if want is not None:
                self.assertEqual(line, want)
        self.assertRegex(lines[4], r"^  95% paired bootstrap CI     \[\+0\.\d{3}, \+0\.\d{3}\]$")
        self.assertEqual(lines[4], f"  95% paired bootstrap CI     [+{report.ci_low:.3f}, +{report.ci_high:.3f}]")
        self.assertEqual(lines[6], f"  relative reduction CI       [{report.relative_ci_low * 100:.1f}%, {report.relative_ci_high * 100:.1f}%]")
        # The longest label sets the column: two spaces after it, and every value starts there.
        starts = {re.match(r"  .+?  +(?=\S)", line).end() for line in lines[1:9]}
        self.assertEqual(starts, {2 + len("improved / worsened / tied") + 2})

    def test_run_labels_share_the_value_column(self):
        report = dataclasses.replace(compare_modes(self.U, self.E, n_resamples=100), unrestricted_label="u.json",
                                     enforced_label="e.json", metric="survivorship_leaks")
        lines = report.table().split("\n")
        column = 2 + len("unrestricted mean survivorship_leaks") + 2
        self.assertEqual(lines[1], "  unrestricted run".ljust(column) + "u.json")
        self.assertEqual(lines[2], "  enforced run".ljust(column) + "e.json")
        self.assertEqual({re.match(r"  .+?  +(?=\S)", line).end() for line in lines[3:11]}, {column})

    def test_figures(self):
        report = compare_modes(self.U, self.E)
        self.assertEqual((report.n, report.improved, report.worsened, report.tied), (27, 7, 0, 20))
        self.assertEqual(report.unrestricted_mean, 6.5 / 27)
        self.assertEqual(report.enforced_mean, 1 / 27)
        self.assertEqual(report.mean_reduction, 5.5 / 27)
        self.assertEqual(report.relative_reduction, 5.5 / 6.5)
        self.assertEqual(report.sign_test_p, 2 / 2**7)
        self.assertLessEqual(report.ci_low, report.mean_reduction)
        self.assertGreaterEqual(report.ci_high, report.mean_reduction)
        self.assertEqual((report.confidence, report.n_resamples, report.seed, report.metric), (0.95, 10_000, 0, "tclr"))

    def test_to_dict_is_json_safe_with_the_listed_keys(self):
        report = compare_modes(self.U, self.E, confidence=0.9, n_resamples=500, seed=3)
        data = report.to_dict()
        listed = {"n", "unrestricted_mean", "enforced_mean", "mean_reduction", "ci_low", "ci_high", "confidence",
                  "relative_reduction", "improved", "worsened", "tied", "sign_test_p", "n_resamples", "seed", "metric"}
        self.assertLessEqual(listed, set(data))
        self.assertEqual(json.loads(json.dumps(data, allow_nan=False)), data)
        self.assertEqual((data["confidence"], data["n_resamples"], data["seed"]), (0.9, 500, 3))
        self.assertEqual(data["ci_low"], report.ci_low)

    def test_confidence_and_metric_labels(self):
        table = compare_modes(self.U, self.E, confidence=0.9, n_resamples=100).table()
        self.assertIn("\n  90% paired bootstrap CI     [", table)
        counts = {k: int(v > 0.6) for k, v in self.U.items()}
        zero = {k: 0 for k in self.U}
        table = compare_modes(counts, zero, metric="survivorship_leaks", n_resamples=100).table()
        self.assertIn("\n  unrestricted mean survivorship_leaks  0.185\n  enforced mean survivorship_leaks      0.000\n", table)

    def test_relative_reduction_is_null_when_the_unrestricted_mean_is_zero(self):
        zero = {"a": 0.0, "b": 0.0}
        report = compare_modes(zero, {"a": 0.5, "b": 0.0}, n_resamples=100)
        self.assertIsNone(report.relative_reduction)
        self.assertIsNone(report.to_dict()["relative_reduction"])
        self.assertIn("  relative reduction          n/a (unrestricted mean is 0)", report.table())
        self.assertEqual((report.improved, report.worsened, report.tied), (0, 1, 1))
        self.assertIn("  mean reduction              -0.250\n", report.table())

    def test_a_ratio_beyond_every_float_is_not_reported_and_says_why(self):
        # mean(u) = 5e-324 / n beside differences near -1: mean(d) / mean(u) is about -1e323 * n.
        for n in (10, 1000):  # below and from BLOCKS_FROM: both resampling paths
            u = {f"s{i}": 0.0 for i in range(n)} | {"s0": 5e-324}
            report = compare_modes(u, {s: 1.0 for s in u}, n_resamples=200)
            self.assertIsNone(report.relative_reduction)
            self.assertIsNone(report.relative_ci_low)
            self.assertIn("n/a (beyond a float; see warnings)", report.table())
            self.assertTrue(any("exceeds the largest float" in w for w in report.warnings))
            self.assertEqual(report.mean_reduction, sum(u.values()) / n - 1.0)
        # A denormal u beside ordinary ones: every resample's ratio is a float, so all is reported.
        u = {f"s{i}": 1.0 for i in range(10)} | {"s0": 5e-324}
        report = compare_modes(u, {s: 1.0 if s != "s1" else 0.0 for s in u} | {"s0": 1.0}, n_resamples=200)
        self.assertEqual(report.relative_reduction, 5e-324 / 9)  # sum d = 5e-324 over sum u = 9 + 5e-324
        self.assertLess(report.relative_ci_low, report.relative_ci_high)
        self.assertFalse(any("largest float" in w for w in report.warnings))
        # The estimate fits, but resamples drawing the denormal u beside zeros do not: the interval's
        # lower end is read from them (14 of 16 samples have u = 0 and d = -1; about a quarter of the
        # resamples hold the denormal and no 1.0).
        u = {f"s{i}": 0.0 for i in range(16)} | {"s0": 5e-324, "s1": 1.0}
        e = {s: 1.0 for s in u} | {"s1": 0.0, "s0": 0.0}
        report = compare_modes(u, e, n_resamples=2000)
        self.assertIsNotNone(report.relative_reduction)
        self.assertIsNone(report.relative_ci_low)
        self.assertTrue(any(w.startswith("the relative reduction's interval is not reported") for w in report.warnings))

    def test_tiny_p_is_printed_from_its_logarithm(self):
        report = compare_modes(*pairs_with(2000, 0, 0), n_resamples=100)
        self.assertEqual(report.sign_test_p, SMALLEST)
        exact_log10 = (1 - 2000) * math.log10(2)  # p = 2 / 2**2000
        self.assertAlmostEqual(report.sign_test_log10_p, exact_log10, places=9)
        mantissa = 10 ** (exact_log10 - math.floor(exact_log10))
        self.assertIn(f"\n  exact sign-test p           {mantissa:.2f}e{math.floor(exact_log10)}\n", report.table())
        self.assertIn("p           1.82e-12\n", compare_modes(*pairs_with(40, 0, 0), n_resamples=100).table())


# -- the exact sign test -------------------------------------------------------------------


class SignTestTest(unittest.TestCase):
    def test_every_k_up_to_200_is_the_exact_p_correctly_rounded(self):
        for n in range(1, 201):
            weights = binomial_coefficients(n)
            for k in range(n + 1):
                with self.subTest(n=n, k=k):
                    self.assertEqual(_signtest.sign_test(k, n)[0], float(exact_sign_p(k, n, weights)))

    def test_every_k_up_to_200_matches_stored_scipy_values(self):
        stored = stored_binomtest()
        self.assertEqual(len(stored), sum(n + 1 for n in range(1, 201)))
        for (n, k), expected in stored.items():
            with self.subTest(n=n, k=k):
                self.assertLessEqual(abs(_signtest.sign_test(k, n)[0] - expected), SCIPY_RTOL * expected)

    def test_live_scipy_agrees(self):
        require_extra("scipy", "test")  # locally the stored values stand in; CI has scipy
        import scipy.stats
        # binomtest costs ~0.5 ms a call: every k for n <= 30, spot k beyond, and the spots;
        # the stored file holds every k to n = 200.
        cases = [(n, k) for n in range(1, 31) for k in range(n + 1)]
        cases += [(n, k) for n in range(31, 201) for k in {0, 1, n // 5, n // 3, n // 2 - 1, n // 2, n - 2}]
        for n, k in cases:
            with self.subTest(n=n, k=k):
                expected = scipy.stats.binomtest(k, n, 0.5).pvalue
                self.assertLessEqual(abs(_signtest.sign_test(k, n)[0] - expected), SCIPY_RTOL * expected)
        for n, k, stored, _ in SPOTS:
            live = float(scipy.stats.binomtest(k, n, 0.5).pvalue)
            self.assertLessEqual(abs(live - stored), SCIPY_RTOL * stored, (n, k))  # the stored column is scipy's
            if live > 0:
                self.assertLessEqual(abs(_signtest.sign_test(k, n)[0] - live), SCIPY_RTOL * live, (n, k))

    def test_spot_values_to_a_million(self):
        for n, k, scipy_p, exact in SPOTS:
            with self.subTest(n=n, k=k):
                p, log10_p = _signtest.sign_test(k, n)
                correctly_rounded = float(exact)  # 25 digits: far from any rounding boundary here
                self.assertEqual(p, correctly_rounded or SMALLEST)
                self.assertAlmostEqual(log10_p, float(Decimal(exact).log10()), delta=1e-12 * max(1, abs(log10_p)))
                if scipy_p > 0:
                    self.assertLessEqual(abs(p - scipy_p), SCIPY_RTOL * scipy_p)
                self.assertEqual(_signtest.sign_test(n - k, n), (p, log10_p))  # symmetric

    def test_no_underflow_to_zero(self):
        # 2**-1074 is the smallest double; 2**-1075 is not representable and 10**-301030 far less.
        p, log10_p = _signtest.sign_test(0, 1075)
        self.assertEqual(p, 2.0**-1074)
        self.assertAlmostEqual(log10_p, -1074 * math.log10(2), places=10)
        for n in (1076, 1077, 5000, 10**6):
            p, log10_p = _signtest.sign_test(0, n)
            self.assertEqual(p, SMALLEST)
            self.assertAlmostEqual(log10_p, (1 - n) * math.log10(2), delta=1e-12 * n)
        report = compare_modes(*pairs_with(0, 3000, 5), n_resamples=100)
        self.assertEqual((report.sign_test_p, report.worsened), (SMALLEST, 3000))
        self.assertGreater(report.to_dict()["sign_test_p"], 0)

    def test_logarithmic_path_is_exact_beyond_5000(self):
        # n > 5000 with m > 100 takes the decimal-logarithm path: still the exact p, rounded.
        for n, k in [(5001, 102), (5001, 2400), (6000, 2999 - 40), (9999, 4000), (12001, 5900), (20000, 9950)]:
            exact = lower_tail(min(k, n - k), n)
            with self.subTest(n=n, k=k):
                self.assertEqual(_signtest.sign_test(k, n)[0], float(exact) or SMALLEST)

    def test_fallback_when_too_close_to_a_rounding_boundary(self):
        with mock.patch.object(_signtest, "_ROUNDING_MARGIN", Decimal(1)):  # everything is "too close"
            with mock.patch.object(_signtest, "_exact", wraps=_signtest._exact) as exact:
                p = _signtest.sign_test(2400, 5001)[0]
        exact.assert_called_once_with(2400, 5001)
        self.assertEqual(p, float(lower_tail(2400, 5001)))

    def test_through_compare_modes(self):
        for improved, worsened in [(0, 0), (1, 0), (0, 1), (7, 0), (5, 5), (3, 9), (60, 40), (101, 99)]:
            with self.subTest(improved=improved, worsened=worsened):
                report = sign_p(improved, worsened)
                n = improved + worsened
                self.assertEqual(report.sign_test_p, float(exact_sign_p(improved, n)) if n else 1.0)
                self.assertEqual((report.improved, report.worsened, report.tied), (improved, worsened, 1))


# -- the bootstrap -----------------------------------------------------------------------


def order_statistic_band(sorted_means: list[float], q: float, sigmas: float = 4.0) -> float:
    """Width of the Monte Carlo band of a q-quantile estimate from B resamples.

    The empirical q-quantile of B draws lies between the true (q -/+ s) quantiles,
    s = sigmas * sqrt(q (1 - q) / B), with probability ~1 - 6e-5 at 4 sigmas; two
    independent estimates therefore differ by at most the width of that band.
    """
    b = len(sorted_means)
    s = sigmas * math.sqrt(q * (1 - q) / b)
    low = sorted_means[max(0, math.floor((q - s) * (b - 1)))]
    high = sorted_means[min(b - 1, math.ceil((q + s) * (b - 1)))]
    return high - low


def plain_bootstrap(u: dict, e: dict, b: int, seed: int) -> list[float]:
    """The textbook loop: resample the pairs, average the differences."""
    rng = random.Random(seed)
    diffs = [u[s] - e[s] for s in u]
    n = len(diffs)
    return sorted(math.fsum(rng.choices(diffs, k=n)) / n for _ in range(b))


def type7(sorted_values: list[float], q: float) -> float:
    return statistics.quantiles(sorted_values, n=1000, method="inclusive")[round(q * 1000) - 1]


def exact_bootstrap_cdf(diffs: list[Fraction]) -> list[tuple[Fraction, Fraction]]:
    """(mean, P(resample mean <= mean)) over every multinomial outcome."""
    n = len(diffs)
    values = sorted(set(diffs))
    weights = [Fraction(diffs.count(v), n) for v in values]
    masses: dict[Fraction, Fraction] = {}

    def walk(j: int, left: int, total: Fraction, prob: Fraction, coefficient: int) -> None:
        if j == len(values) - 1:
            mean = (total + left * values[j]) / n
            masses[mean] = masses.get(mean, 0) + prob * weights[j] ** left * coefficient
            return
        for c in range(left + 1):
            walk(j + 1, left - c, total + c * values[j], prob * weights[j] ** c, coefficient * math.comb(left, c))

    walk(0, n, Fraction(0), Fraction(1), 1)
    cdf, running = [], Fraction(0)
    for mean in sorted(masses):
        running += masses[mean]
        cdf.append((mean, running))
    return cdf


class BootstrapTest(unittest.TestCase):
    @staticmethod
    def leak_like(n: int, seed: int) -> tuple[dict, dict]:
        """TCLR-like scores: leaks / interactions with up to 3 interactions."""
        rng = random.Random(seed)
        rates = [0.0, 0.0, 0.0, 1 / 3, 0.5, 2 / 3, 1.0]
        u = {f"s{i}": rng.choice(rates) for i in range(n)}
        e = {s: rng.choice([0.0, 0.0, 0.0, 0.0, v]) for s, v in u.items()}
        return u, e

    @staticmethod
    def continuous(n: int, seed: int) -> tuple[dict, dict]:
        rng = random.Random(seed)
        u = {f"s{i}": rng.random() for i in range(n)}
        return u, {s: rng.random() * v for s, v in u.items()}

    def test_paths_are_chosen_by_cost(self):
        self.assertEqual(compare_modes(*self.leak_like(600, 1), n_resamples=100).resampling, "multinomial")
        self.assertEqual(compare_modes(*self.leak_like(400, 1), n_resamples=100).resampling, "bytes")
        self.assertEqual(compare_modes(*self.continuous(60, 1), n_resamples=100).resampling, "direct")
        self.assertEqual(compare_modes(*self.leak_like(20, 1), n_resamples=100).resampling, "direct")

    def test_agrees_with_a_plain_loop_within_monte_carlo_error(self):
        for u, e in (self.leak_like(400, 2), self.continuous(60, 2)):
            report = compare_modes(u, e, n_resamples=10_000, seed=0)
            reference = plain_bootstrap(u, e, 10_000, seed=12345)
            for estimate, q in ((report.ci_low, 0.025), (report.ci_high, 0.975)):
                with self.subTest(resampling=report.resampling, q=q):
                    tolerance = order_statistic_band(reference, q)
                    self.assertGreater(tolerance, 0)
                    self.assertLessEqual(abs(estimate - type7(reference, q)), tolerance)

    def test_agrees_with_scipy_within_monte_carlo_error(self):
        require_extra("scipy", "test")
        import numpy
        import scipy.stats
        # scipy >= 1.15 takes rng=; older versions random_state=.
        seeding = "rng" if "rng" in inspect.signature(scipy.stats.bootstrap).parameters else "random_state"
        for u, e in (self.leak_like(400, 3), self.continuous(60, 3)):
            report = compare_modes(u, e, n_resamples=10_000, seed=0)
            ua, ea = numpy.array([u[s] for s in u]), numpy.array([e[s] for s in u])
            result = scipy.stats.bootstrap(
                (ua, ea), lambda x, y, axis: numpy.mean(x - y, axis=axis), paired=True, vectorized=True,
                method="percentile", n_resamples=10_000, **{seeding: numpy.random.default_rng(7)},
            )
            reference = sorted(result.bootstrap_distribution.tolist())
            for estimate, theirs, q in ((report.ci_low, result.confidence_interval.low, 0.025),
                                        (report.ci_high, result.confidence_interval.high, 0.975)):
                with self.subTest(resampling=report.resampling, q=q):
                    self.assertLessEqual(abs(estimate - theirs), order_statistic_band(reference, q))

    def test_ci_brackets_the_exact_bootstrap_quantiles(self):
        # Small enough to enumerate the bootstrap distribution exactly, on both paths.
        rng = random.Random(5)
        cases = [
            ({f"s{i}": rng.random() for i in range(6)}, {f"s{i}": rng.random() for i in range(6)}),  # direct
            # multinomial, with a category over half the mass (drawn as a complement)
            ({f"s{i}": 1.0 if i < 30 else 0.5 if i < 42 else 0.0 for i in range(48)}, {f"s{i}": 0.5 for i in range(48)}),
        ]
        b = 4000
        for u, e in cases:
            report = compare_modes(u, e, n_resamples=b, seed=11, confidence=0.9)
            cdf = exact_bootstrap_cdf([Fraction(u[s]) - Fraction(e[s]) for s in u])
            for estimate, q in ((report.ci_low, 0.05), (report.ci_high, 0.95)):
                delta = 4 * math.sqrt(q * (1 - q) / b)
                x = Fraction(estimate)
                slack = Fraction(1, 10**12)  # the float estimate vs the exact atoms
                below = max((c for m, c in cdf if m < x - slack), default=Fraction(0))
                at_or_below = max((c for m, c in cdf if m <= x + slack), default=Fraction(0))
                with self.subTest(resampling=report.resampling, q=q):
                    self.assertLessEqual(below, q + delta)
                    self.assertGreaterEqual(at_or_below, q - delta)

    def test_percentile_is_linear_interpolation_type_7(self):
        rng = random.Random(3)
        for size in (2, 3, 7, 40, 1001):
            xs = sorted(rng.random() for _ in range(size))
            cuts = statistics.quantiles(xs, n=40, method="inclusive")  # type 7, at i / 40
            for i in (1, 2, 20, 38, 39):
                with self.subTest(size=size, q=i / 40):
                    self.assertAlmostEqual(_bootstrap.percentile(xs, i / 40), cuts[i - 1], delta=1e-15)
            self.assertEqual((_bootstrap.percentile(xs, 0.0), _bootstrap.percentile(xs, 1.0)), (xs[0], xs[-1]))
        self.assertEqual(_bootstrap.percentile([0.25], 0.975), 0.25)

    def test_deterministic_for_a_seed(self):
        for u, e in (self.leak_like(400, 4), self.continuous(60, 4)):
            first = compare_modes(u, e, n_resamples=500, seed=42).to_dict()
            self.assertEqual(compare_modes(u, e, n_resamples=500, seed=42).to_dict(), first)
            self.assertEqual(compare_modes(dict(reversed(list(u.items()))), e, n_resamples=500, seed=42).to_dict(), first)
            others = {compare_modes(u, e, n_resamples=500, seed=s).ci_low for s in range(5)}
            self.assertGreater(len(others), 1)

    def test_all_ties(self):
        u, _ = self.leak_like(50, 6)
        report = compare_modes(u, dict(u))
        self.assertEqual((report.mean_reduction, report.ci_low, report.ci_high, report.sign_test_p), (0, 0, 0, 1))
        self.assertEqual((report.improved, report.worsened, report.tied), (0, 0, 50))
        self.assertEqual(report.relative_reduction, 0.0)
        self.assertIn("[+0.000, +0.000]", report.table())
        zeros = {s: 0 for s in u}
        self.assertEqual(compare_modes(zeros, zeros).to_dict()["relative_reduction"], None)

    def test_one_pair(self):
        report = compare_modes({"only": 0.75}, {"only": 0.5})
        self.assertEqual((report.n, report.mean_reduction, report.ci_low, report.ci_high), (1, 0.25, 0.25, 0.25))
        self.assertEqual((report.improved, report.sign_test_p), (1, 1.0))

    def test_a_constant_difference_gives_a_point_interval(self):
        u = {f"s{i}": 0.3 for i in range(30)}
        e = {f"s{i}": 0.1 for i in range(30)}
        report = compare_modes(u, e)
        exact = float(Fraction(0.3) - Fraction(0.1))
        self.assertEqual((report.mean_reduction, report.ci_low, report.ci_high), (exact, exact, exact))

    def test_means_are_exact(self):
        u, e = self.continuous(300, 8)
        report = compare_modes(u, e, n_resamples=100)
        self.assertEqual(report.unrestricted_mean, float(sum(map(Fraction, u.values())) / 300))
        self.assertEqual(report.mean_reduction, float(sum(Fraction(u[s]) - Fraction(e[s]) for s in u) / 300))


class BinomialSamplerTest(unittest.TestCase):
    """The exact binomial sampler behind the multinomial path, checked by chi-square."""

    def assert_binomial(self, n: int, numerator: int, denominator: int, draws: int = 20_000) -> None:
        rng = random.Random(n * 1000 + numerator)
        observed = [_bootstrap.binomial(rng, n, numerator, denominator) for _ in range(draws)]
        self.assertTrue(all(0 <= x <= n for x in observed))
        log_p, log_q = math.log(numerator / denominator), math.log((denominator - numerator) / denominator)
        pmf = [
            math.exp(math.lgamma(n + 1) - math.lgamma(x + 1) - math.lgamma(n - x + 1) + x * log_p + (n - x) * log_q)
            for x in range(n + 1)
        ]
        # Pool outcomes into bins of expected count >= 20, in order.
        bins, expected, count, mass = [], [], 0, 0.0
        counts = [0] * (n + 1)
        for x in observed:
            counts[x] += 1
        for x in range(n + 1):
            count += counts[x]
            mass += pmf[x]
            if mass * draws >= 20:
                bins.append(count)
                expected.append(mass * draws)
                count, mass = 0, 0.0
        bins[-1] += count
        expected[-1] += mass * draws
        chi2 = sum((o - x) ** 2 / x for o, x in zip(bins, expected))
        df = len(bins) - 1
        # Wilson-Hilferty 1 - 1e-6 quantile of chi-square(df): a wrong sampler fails at once,
        # a right one passes except with probability 1e-6 (and the seeds are fixed).
        z = statistics.NormalDist().inv_cdf(1 - 1e-6)
        critical = df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3
        self.assertLess(chi2, critical, f"Binomial({n}, {numerator}/{denominator}): chi2 {chi2:.1f} on {df} df")

    def test_inversion_region(self):
        for n, num, den in [(5, 1, 3), (30, 1, 10), (19, 1, 2), (1000, 1, 200)]:
            with self.subTest(n=n, p=f"{num}/{den}"):
                self.assert_binomial(n, num, den)

    def test_rejection_region(self):
        for n, num, den in [(20, 1, 2), (100, 1, 2), (1000, 3, 10), (2000, 1, 190), (57, 13, 29)]:
            with self.subTest(n=n, p=f"{num}/{den}"):
                self.assert_binomial(n, num, den)

    def test_complement(self):
        for n, num, den in [(20, 9, 10), (300, 7, 10), (12, 2, 3)]:
            with self.subTest(n=n, p=f"{num}/{den}"):
                self.assert_binomial(n, num, den)

    def test_large_n_mean_and_variance(self):
        rng = random.Random(9)
        n, p, draws = 10**6, 1 / 7, 20_000
        xs = [_bootstrap.binomial(rng, n, 1, 7) for _ in range(draws)]
        mean, var = statistics.fmean(xs), statistics.variance(xs)
        sd = math.sqrt(n * p * (1 - p))
        self.assertLess(abs(mean - n * p), 5 * sd / math.sqrt(draws))
        self.assertLess(abs(var / sd**2 - 1), 5 * math.sqrt(2 / draws))

    def test_edges(self):
        rng = random.Random(0)
        self.assertEqual(_bootstrap.binomial(rng, 0, 1, 2), 0)
        self.assertEqual(_bootstrap.binomial(rng, 50, 0, 9), 0)
        self.assertEqual(_bootstrap.binomial(rng, 50, 9, 9), 50)


# -- bad input -----------------------------------------------------------------------------


class BadInputTest(unittest.TestCase):
    GOOD = {"a": 0.5, "b": 0.0}

    def assert_rejected(self, message: str, *args, **kwargs) -> None:
        with self.assertRaises(AnachronError) as caught:
            compare_modes(*args, **kwargs)
        self.assertIsInstance(caught.exception, ValueError)
        self.assertEqual(str(caught.exception), message)

    def test_mismatched_ids_name_both_sides_truncated(self):
        self.assert_rejected(
            "sample ids differ: only in unrestricted: 'c'; only in enforced: none",
            {**self.GOOD, "c": 1.0}, self.GOOD,
        )
        many = {f"x{i:02d}": 0.0 for i in range(12)}
        self.assert_rejected(
            "sample ids differ: only in unrestricted: 'c'; only in enforced: "
            "'x00', 'x01', 'x02', 'x03', 'x04', ... (12 in all)",
            {**self.GOOD, "c": 1.0}, {**self.GOOD, **many},
        )
        long_id = "z" * 80
        self.assert_rejected(
            f"sample ids differ: only in unrestricted: none; only in enforced: '{'z' * 37}...'",
            self.GOOD, {**self.GOOD, long_id: 0.0},
        )

    def test_values(self):
        cases = [
            ("abc", "unrestricted: sample 'a': tclr is the string 'abc', expected a number in [0, 1]"),
            (None, "unrestricted: sample 'a': tclr is null (no value for this sample), expected a number in [0, 1]"),
            (True, "unrestricted: sample 'a': tclr is true, expected a number in [0, 1]"),
            ([0.5], "unrestricted: sample 'a': tclr is an array, expected a number in [0, 1]"),
            (float("nan"), "unrestricted: sample 'a': tclr is NaN, expected a number in [0, 1]"),
            (float("inf"), "unrestricted: sample 'a': tclr is inf, expected a number in [0, 1]"),
            (float("-inf"), "unrestricted: sample 'a': tclr is -inf, expected a number in [0, 1]"),
            (1.5, "unrestricted: sample 'a': tclr is 1.5, outside [0, 1]"),
            (-0.25, "unrestricted: sample 'a': tclr is -0.25, outside [0, 1]"),
            (2, "unrestricted: sample 'a': tclr is 2, outside [0, 1]"),
        ]
        for value, message in cases:
            with self.subTest(value=value):
                self.assert_rejected(message, {**self.GOOD, "a": value}, self.GOOD)
        self.assert_rejected(
            "enforced: sample 'b': tclr is 1.0000001, outside [0, 1]", self.GOOD, {**self.GOOD, "b": 1.0000001}
        )

    def test_a_bad_value_among_many_is_named_wherever_it_is(self):
        # Many good values beside one bad one, first, in the middle or last: the one is named, as alone.
        many = {f"s{i:03d}": (i % 7) / 7 for i in range(300)}
        rates = [(math.nan, "NaN, expected a number in [0, 1]"), (1.5, "1.5, outside [0, 1]"),
                 (-0.25, "-0.25, outside [0, 1]"), (True, "true, expected a number in [0, 1]"),
                 (math.inf, "inf, expected a number in [0, 1]"), (10**400, None)]
        for (value, shown), place in itertools.product(rates, ("s000", "s150", "s299")):
            with self.subTest(value=value, place=place):
                with self.assertRaises(AnachronError) as caught:
                    compare_modes({**many, place: value}, many)
                self.assertTrue(str(caught.exception).startswith(f"unrestricted: sample {place!r}: tclr is "))
                if shown is not None:
                    self.assertEqual(str(caught.exception), f"unrestricted: sample {place!r}: tclr is {shown}")
                else:
                    self.assertTrue(str(caught.exception).endswith(", outside [0, 1]"))
        counts = {f"s{i:03d}": i % 5 for i in range(300)}
        for value in (-1, 2.5, True, 2**53 + 1):
            with self.subTest(count=value):
                with self.assertRaises(AnachronError) as caught:
                    compare_modes(counts, {**counts, "s299": value}, metric="survivorship_leaks")
                self.assertTrue(str(caught.exception).startswith("enforced: sample 's299': survivorship_leaks is "))
        with self.assertRaises(AnachronError) as caught:
            compare_modes(many, {**many, 7: 0.5})
        self.assertEqual(str(caught.exception), "enforced: sample id 7 is not a string")

    def test_int_rates_read_as_the_floats_they_equal(self):
        ints = {f"s{i}": i % 2 for i in range(200)}
        floats = {key: float(value) for key, value in ints.items()}
        half = {key: 0.5 for key in ints}
        checked = check_scores(ints | {"x": 0.25}, "unrestricted")
        self.assertEqual(checked, floats | {"x": 0.25})
        self.assertEqual({type(value) for value in checked.values()}, {float})
        self.assertEqual(compare_modes(ints | {"x": 0.25}, half | {"x": 0.5}, n_resamples=300),
                         compare_modes(floats | {"x": 0.25}, half | {"x": 0.5}, n_resamples=300))

    def test_count_metrics(self):
        base = {"a": 2, "b": 0}
        for value, shown in [(-1, "-1"), (2.5, "2.5"), (2.0, "2.0"), ("3", "the string '3'")]:
            with self.subTest(value=value):
                self.assert_rejected(
                    f"enforced: sample 'a': survivorship_leaks is {shown}, expected a non-negative integer",
                    base, {**base, "a": value}, metric="survivorship_leaks",
                )
        report = compare_modes(base, {"a": 0, "b": 7}, metric="survivorship_leaks", n_resamples=100)
        self.assertEqual((report.unrestricted_mean, report.enforced_mean, report.metric), (1.0, 3.5, "survivorship_leaks"))

    def test_empty_and_wrong_containers(self):
        self.assert_rejected("unrestricted: no samples", {}, {})
        self.assert_rejected("enforced: no samples", self.GOOD, {})
        self.assert_rejected("unrestricted: expected a mapping of sample id -> tclr, got an array", [0.5], self.GOOD)
        self.assert_rejected("unrestricted: expected a mapping of sample id -> tclr, got null", None, self.GOOD)
        self.assert_rejected("enforced: sample id 3 is not a string", self.GOOD, {**self.GOOD, 3: 0.0})

    def test_options(self):
        for confidence in (0, 1, 1.5, -0.5, float("nan"), "0.9", True):
            with self.subTest(confidence=confidence):
                self.assert_rejected(
                    f"confidence must be a number strictly between 0 and 1, got {confidence!r}",
                    self.GOOD, self.GOOD, confidence=confidence,
                )
        for resamples in (0, -5, 2.5, True, "100"):
            with self.subTest(n_resamples=resamples):
                self.assert_rejected(
                    f"n_resamples must be a positive integer, got {resamples!r}", self.GOOD, self.GOOD, n_resamples=resamples
                )
        for seed in ("x", 1.5, None):
            with self.subTest(seed=seed):
                self.assert_rejected(f"seed must be an integer, got {seed!r}", self.GOOD, self.GOOD, seed=seed)
        self.assert_rejected(
            "unknown metric 'TCLR': choose one of " + ", ".join(METRICS), self.GOOD, self.GOOD, metric="TCLR"
        )


class ScoresTest(unittest.TestCase):
    def test_metrics_are_the_numeric_fields_of_the_score_output(self):
        import datetime

        # An audited sample (seal_breaches is null when no tool was declared sealed).
        result = SampleResult("s", datetime.date(2022, 1, 1), "unrestricted", 3, 1, 1, 2, 0, 1, (), seal_breaches=0)
        fields = {k for k, v in result.to_dict().items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        self.assertEqual(fields, set(METRICS))
        for metric, kind in METRICS.items():
            value = result.to_dict()[metric]
            self.assertEqual(kind == "count", isinstance(value, int), metric)

    def test_parse_both_shapes(self):
        import datetime

        self.assertEqual(parse_scores({"a": 1, "b": 0.5}, "f.json"), {"a": 1.0, "b": 0.5})
        # No entity-bearing interaction: survivorship_rate is null.
        sample = SampleResult("a", datetime.date(2022, 1, 1), None, 2, 1, 0, 0, 0, 3, ())
        document = {"samples": [sample.to_dict()], "summary": {"n": 1}}
        self.assertEqual(parse_scores(document, "f.json"), {"a": 0.5})
        self.assertEqual(parse_scores(document, "f.json", "query_intent_leaks"), {"a": 3})
        with self.assertRaisesRegex(AnachronError, r"^f\.json: sample 'a': survivorship_rate is null"):
            parse_scores(document, "f.json", "survivorship_rate")
        # A plain object may well hold a sample called "samples".
        self.assertEqual(parse_scores({"samples": 0.25}, "f.json"), {"samples": 0.25})

    def test_check_scores_returns_a_copy(self):
        source = {"a": 1}
        checked = check_scores(source, "here")
        checked["b"] = 0.0
        self.assertEqual(source, {"a": 1})


if __name__ == "__main__":
    unittest.main()


def _fractions(n: int, denominators: int, seed: int = 7) -> tuple[dict[str, float], dict[str, float]]:
    """Leak-like scores: leaks / calls with 1..*denominators* calls, most pairs tied at 0."""
    rng = random.Random(seed)
    u, e = {}, {}
    for i in range(n):
        calls = rng.randint(1, denominators)
        u[f"s{i}"] = (0 if rng.random() < 0.5 else rng.randint(0, calls)) / calls
        e[f"s{i}"] = (0 if rng.random() < 0.8 else rng.randint(0, calls)) / calls
    return u, e


class PairedResamplingChoice(unittest.TestCase):
    """From 256 pairs on, dozens of distinct differences resample in blocks (K^2 > 0.4 n), not by K
    binomial draws a resample nor by n draws in Python: the same estimator, drawn faster (issue 37)."""

    def test_dozens_of_distinct_differences_from_256_pairs_resample_in_blocks(self):
        u, e = _fractions(2000, 6)
        self.assertEqual(len({u[s] - e[s] for s in u}), 36)  # 12 K <= n: multinomial by the rule before
        self.assertEqual(compare_modes(u, e, n_resamples=200).resampling, "blocks")
        u, e = _fractions(600, 6)  # below BYTES_UNTIL pairs, where blocks would be: every resample's bytes at once
        self.assertEqual(compare_modes(u, e, n_resamples=200).resampling, "bytes")
        u, e = _fractions(255, 6)
        self.assertEqual(compare_modes(u, e, n_resamples=200).resampling, "bytes")
        u, e = _fractions(63, 6)  # below BYTES_FROM pairs the rule is the one before
        self.assertEqual(compare_modes(u, e, n_resamples=200).resampling, "direct")
        binary = {f"s{i}": float(i % 3 == 0) for i in range(1000)}
        self.assertEqual(compare_modes(binary, {s: 0.0 for s in binary}, n_resamples=200).resampling, "multinomial")

    def test_blocks_and_multinomial_draw_the_same_interval(self):
        u, e = _fractions(2000, 6)
        report = compare_modes(u, e, n_resamples=4000, seed=3)
        self.assertEqual(report.resampling, "blocks")
        differences = [round((u[s] - e[s]) * 2**60) for s in u]  # exact: every TCLR here (0, or >= 1/6) is a multiple of 2**-60
        values = sorted(set(differences))
        counts = [differences.count(v) for v in values]
        totals = sorted(_bootstrap.bootstrap_totals(values, counts, 4000, random.Random(3), "multinomial"))
        low, high = (_bootstrap.percentile([t / 2**60 / 2000 for t in totals], q) for q in (0.025, 0.975))
        spread = statistics.pstdev(u[s] - e[s] for s in u) / math.sqrt(2000)
        self.assertLess(abs(report.ci_low - low), spread / 4)
        self.assertLess(abs(report.ci_high - high), spread / 4)

    def test_ties_and_a_single_pair_read_as_before(self):
        tied = {f"s{i}": (i % 7) / 7 for i in range(1500)}
        report = compare_modes(tied, tied, n_resamples=200)
        self.assertEqual((report.ci_low, report.ci_high, report.sign_test_p), (0.0, 0.0, 1.0))
        one = compare_modes({"a": 0.5}, {"a": 0.25}, n_resamples=200)
        self.assertEqual((one.ci_low, one.ci_high), (0.25, 0.25))
        with self.assertRaises(AnachronError):
            compare_modes({f"s{i}": (i % 30) / 30 for i in range(1000)} | {"s0": math.nan}, {f"s{i}": 0.0 for i in range(1000)})
