"""The "bytes" resampling of compare_modes (BYTES_FROM <= n < BYTES_UNTIL): every resample's rows
drawn at once; uniform, exact, seeded, and the plain path's figures wherever the data leave no
room for chance.

Speed is measured in benchmarks/compare_modes.py, never here.
"""

from __future__ import annotations

import math
import random
import sys
import unittest
from unittest import mock

from anachron.core import AnachronError, compare_modes
from anachron.core.stats import bootstrap as _bootstrap
from anachron.core.stats.bootstrap import BYTES_FROM, BYTES_UNTIL, ByteResamples, paired_method
from anachron.core.stats.mean import mean_interval
from tests.core.stats.test_bootstrap_blocks import continuous, rows_of
from tests.core.stats.test_paired import order_statistic_band, plain_bootstrap, type7


def reference_totals(columns: list[list[int]], b: int, rng: random.Random) -> list[tuple[int, ...]]:
    """The "bytes" draws as docs/metrics.md states them, summed plainly, one draw at a time."""
    n = len(columns[0])
    groups = -(-n // 256)
    size = -(-n // groups)
    short = groups * size - n

    def uniform(count: int, over: int) -> list[int]:
        keep = 256 // over * over
        out: list[int] = []
        while len(out) < count:
            out += [x % over for x in rng.randbytes((count - len(out)) * 256 // keep + 64) if x < keep]
        return out[:count]

    count = n * b
    if groups == 1:
        drawn = uniform(count, size)
        return [tuple(sum(column[r] for r in drawn[i * n:(i + 1) * n]) for column in columns) for i in range(b)]
    picked: list[int] = []
    while len(picked) < count:
        left = count - len(picked)
        want = left + left * short // (groups * size) + 64
        chosen = uniform(want, groups)
        if short:
            coins = uniform(want, size)
            chosen = [g for g, coin in zip(chosen, coins) if not (g >= groups - short and coin == size - 1)]
        picked += chosen
    picked = picked[:count]
    first = [g * size - max(0, g - (groups - short)) for g in range(groups + 1)]
    per_group = [[picked[i * n:(i + 1) * n].count(g) for i in range(b)] for g in range(groups)]
    streams = [iter(uniform(sum(per_group[g]), first[g + 1] - first[g])) for g in range(groups)]
    out = []
    for i in range(b):
        rows = [first[g] + next(streams[g]) for g in range(groups) for _ in range(per_group[g][i])]
        out.append(tuple(sum(column[r] for r in rows) for column in columns))
    return out


class DrawsTest(unittest.TestCase):
    def test_the_totals_are_the_reference_draws_summed(self):
        rng = random.Random(5)
        for n in (1, 2, 3, 64, 255, 256, 257, 300, 513, 770, 1039):
            big = [rng.getrandbits(130) - (1 << 129) for _ in range(n)]  # signed, beyond any machine word
            small = [rng.randrange(3) for _ in range(n)]
            with self.subTest(n=n):
                expected = reference_totals([big, small], 20, random.Random(n))
                for bits in (None, 0, 1, 8, sys.maxsize):  # how much the first pass sums never changes a total
                    drawn = ByteResamples([big, small], 20, random.Random(n), bits)
                    exact = list(drawn.exact(range(20)).values())
                    self.assertEqual(exact, expected)
                    for c in range(2):
                        lows, highs = drawn.bounds(c)
                        self.assertTrue(all(lo <= t[c] <= hi for lo, hi, t in zip(lows, highs, exact)))

    def test_every_row_is_drawn_alike(self):
        # One draw a row of weight 1: a resample's total counts that row's draws. Over B resamples of n
        # rows, each row's count is Binomial(B n, 1 / n); the chi-square over rows stays near n - 1.
        for n in (100, 257, 300, 1000):
            with self.subTest(n=n):
                b = 3000 if n < 1000 else 1000
                read = range(0, n, max(1, n // 40))  # 40 rows a size, each its own column
                columns = [[int(i == row) for i in range(n)] for row in read]
                totals = ByteResamples(columns, b, random.Random(11), sys.maxsize).exact(range(b)).values()
                hits = [sum(column) for column in zip(*totals)]
                chi = sum((h - b) ** 2 / b for h in hits)
                self.assertLess(abs(chi - len(read)), 6 * math.sqrt(2 * len(read)))

    def test_the_same_seed_draws_the_same_resamples(self):
        column = list(range(300))
        first = ByteResamples([column], 30, random.Random(9), None).exact(range(30))
        self.assertEqual(ByteResamples([column], 30, random.Random(9), None).exact(range(30)), first)
        self.assertNotEqual(ByteResamples([column], 30, random.Random(10), None).exact(range(30)), first)


class PathTest(unittest.TestCase):
    def test_the_path_is_chosen_by_size_kind_and_budget(self):
        self.assertEqual(paired_method(40, BYTES_FROM - 1, 10_000), "direct")
        self.assertEqual(paired_method(40, BYTES_FROM, 10_000), "bytes")
        self.assertEqual(paired_method(3, 100, 10_000), "bytes")  # below 256 pairs, even few distinct differences
        self.assertEqual(paired_method(3, 300, 10_000), "multinomial")  # two binomial draws a resample: cheaper
        self.assertEqual(paired_method(40, BYTES_UNTIL - 1, 10_000), "bytes")
        self.assertEqual(paired_method(40, BYTES_UNTIL, 10_000), "blocks")
        self.assertEqual(paired_method(40, 1000, 20_000), "blocks")  # B n draws beyond what is held at once
        self.assertEqual(paired_method(40, 100), "direct")  # no B given: the rule before


def _without_bytes():
    return mock.patch.object(_bootstrap, "BYTES_FROM", sys.maxsize)


class ThroughCompareModesTest(unittest.TestCase):
    def test_agrees_with_a_plain_loop(self):
        for n in (100, 300):
            u, e = continuous(n, 2)
            report = compare_modes(u, e, n_resamples=2000, seed=0)
            self.assertEqual(report.resampling, "bytes")
            reference = plain_bootstrap(u, e, 2000, seed=12345)
            for estimate, q in ((report.ci_low, 0.025), (report.ci_high, 0.975)):
                with self.subTest(n=n, q=q):
                    self.assertLessEqual(abs(estimate - type7(reference, q)), order_statistic_band(reference, q))

    def test_the_figures_are_order_statistics_of_the_reference_totals(self):
        # Percentile and BCa read the exact resample means: the reference draws' sums, sorted.
        u, e = continuous(150, 8)
        columns, den = rows_of(u, e)
        totals = reference_totals(columns, 400, random.Random(4))
        means = sorted(td / (150 * den) for _, td in totals)
        report = compare_modes(u, e, n_resamples=400, seed=4)
        self.assertEqual((report.ci_low, report.ci_high), (_bootstrap.percentile(means, 0.025), _bootstrap.percentile(means, 0.975)))
        ratios = sorted(td / tu for tu, td in totals)
        self.assertEqual((report.relative_ci_low, report.relative_ci_high), (_bootstrap.percentile(ratios, 0.025), _bootstrap.percentile(ratios, 0.975)))

    def test_resamples_without_unrestricted_mass_are_counted_as_the_draws_say(self):
        n = 64
        u = {f"s{i}": 1.0 if i < 2 else 0.0 for i in range(n)}
        e = {f"s{i}": 0.0 for i in range(n)}
        totals = reference_totals(rows_of(u, e)[0], 300, random.Random(0))
        undefined = sum(1 for tu, _ in totals if tu == 0)
        self.assertGreater(undefined, 0)
        report = compare_modes(u, e, n_resamples=300, seed=0)
        self.assertEqual(report.resampling, "bytes")
        self.assertIn(f"{undefined:,} of 300 resamples had an unrestricted mean of 0", "\n".join(report.warnings))

    def test_deterministic_for_a_seed_and_blind_to_the_order_of_the_samples(self):
        u, e = continuous(120, 4)
        for ci_method in ("percentile", "bca"):
            with self.subTest(ci_method=ci_method):
                first = compare_modes(u, e, n_resamples=300, seed=42, ci_method=ci_method).to_dict()
                self.assertEqual(first["resampling"], "bytes")
                shuffled = dict(reversed(list(u.items())))
                self.assertEqual(compare_modes(shuffled, e, n_resamples=300, seed=42, ci_method=ci_method).to_dict(), first)
                self.assertNotEqual(compare_modes(u, e, n_resamples=300, seed=43, ci_method=ci_method).ci_low, first["ci_low"])

    def test_inputs_without_room_for_chance_give_the_plain_paths_figures(self):
        n = 100
        cases = {
            "every pair tied": ({f"s{i}": (i % 7) / 7 for i in range(n)}, None),
            "every value equal": ({f"s{i}": 0.75 for i in range(n)}, {f"s{i}": 0.25 for i in range(n)}),
            "nothing unrestricted": ({f"s{i}": 0.0 for i in range(n)}, {f"s{i}": 0.0 for i in range(n)}),
        }
        for name, (u, e) in cases.items():
            e = u if e is None else e
            for ci_method in ("percentile", "bca"):
                with self.subTest(name, ci_method=ci_method):
                    fast = compare_modes(u, e, n_resamples=200, ci_method=ci_method).to_dict()
                    with _without_bytes():
                        plain = compare_modes(u, e, n_resamples=200, ci_method=ci_method).to_dict()
                    self.assertEqual(fast.pop("resampling"), "bytes")
                    self.assertNotEqual(plain.pop("resampling"), "bytes")
                    self.assertEqual(fast, plain)

    def test_a_single_pair_reads_as_on_the_plain_path(self):
        with mock.patch.object(_bootstrap, "BYTES_FROM", 1):
            fast = compare_modes({"a": 0.5}, {"a": 0.25}, n_resamples=200).to_dict()
        plain = compare_modes({"a": 0.5}, {"a": 0.25}, n_resamples=200).to_dict()
        self.assertEqual((fast.pop("resampling"), plain.pop("resampling")), ("bytes", "direct"))
        self.assertEqual(fast, plain)
        self.assertEqual((fast["ci_low"], fast["ci_high"]), (0.25, 0.25))

    def test_a_value_that_is_not_a_number_is_refused_before_any_draw(self):
        u = {f"s{i}": (i % 30) / 30 for i in range(300)}
        for bad in (math.nan, math.inf, -0.5):
            with self.subTest(bad=bad), self.assertRaises(AnachronError):
                compare_modes(u | {"s0": bad}, {s: 0.0 for s in u})

    def test_one_runs_mean_reads_the_same_draws(self):
        values = [(i * 7 % 13) / 13 for i in range(300)]
        m = mean_interval(values, n_resamples=1000, seed=3)
        c = compare_modes({f"s{i}": v for i, v in enumerate(values)}, {f"s{i}": 0.0 for i in range(300)}, n_resamples=1000, seed=3)
        self.assertEqual((m.low, m.high, m.resampling), (c.ci_low, c.ci_high, "bytes"))


if __name__ == "__main__":
    unittest.main()
