"""The slow tests beside test_bootstrap_groups.py and test_bootstrap_bytes.py: many random cases of
the "groups" and "bytes" resamplers, each against brute force (the rows a resample drew, summed in
Python and sorted). BruteForceTest holds that every total is exact and inside its bounds, every
rank an order statistic reads is the sorted exact totals', and every BCa count is the exact one,
whatever the size (256 k, 256 k + 1, exactly 1,040), the data's shape (one value, 0/1, ties,
values a last bit apart, near 2^53, signed beyond a machine word) or the first pass's cut.

They build many inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

from __future__ import annotations

import random
import sys
import unittest
from fractions import Fraction
from unittest import mock

from anachron.core import compare_modes
from anachron.core.stats import paired as _paired
from anachron.core.stats.bootstrap import BYTES_UNTIL, BandStatistics, ByteResamples, GroupResamples
from tests.core.stats.test_bootstrap_blocks import rows_of
from tests.core.stats.test_bootstrap_bytes import reference_totals


def shapes(rng: random.Random, n: int) -> dict[str, list[int]]:
    return {
        "signed beyond a word": [rng.getrandbits(70) - (1 << 69) for _ in range(n)],
        "0/1": [rng.randrange(2) for _ in range(n)],
        "one value": [rng.getrandbits(40) - (1 << 39)] * n,
        "near 2^53": [(1 << 53) - rng.randrange(4) for _ in range(n)],
        "a last bit apart": [(1 << 60) + rng.randrange(2) for _ in range(n)],
        "ties and fractions": [rng.choice((0, 0, 0, 1 << 52, (1 << 52) + 1, 3 << 50)) for _ in range(n)],
        "one outlier": [0] * (n - 1) + [1 << 62],
        "runs of one value": sorted(rng.randrange(rng.randrange(1, 8)) * 1000 for _ in range(n)),
    }


def exact_below(totals: list[int], target: int) -> int:
    return sum(2 * (t < target) + (t == target) for t in totals)


class BruteForceTest(unittest.TestCase):
    def test_groups_totals_are_the_drawn_rows_summed_and_lie_in_their_bounds(self):
        rng = random.Random(20)
        sizes = (BYTES_UNTIL, BYTES_UNTIL + 1, 1280, 1281, 1536, 2048, 2049, 3072)
        for case in range(120):
            n = rng.choice(sizes) if case % 2 else rng.randrange(BYTES_UNTIL, 3500)
            b = rng.choice((1, 15, 16, 17, 33))
            data = shapes(rng, n)
            names = rng.sample(sorted(data), 2)
            columns = [data[name] for name in names] if case % 3 else [data[names[0]]] * 2
            seed, bits = rng.randrange(1 << 30), rng.choice((None, None, 0, 1, 7, 8, sys.maxsize))
            with self.subTest(case=case, n=n, b=b, names=names, bits=bits):
                drawn = GroupResamples(columns, b, random.Random(seed), bits)
                split = rng.randrange(b + 1)
                exact = {**drawn.exact(range(split, b)), **drawn.exact(range(split))}
                brute = []
                for i in range(b):
                    rows = drawn.drawn(i)
                    self.assertEqual(len(rows), n)
                    brute.append(tuple(sum(column[r] for r in rows) for column in columns))
                self.assertEqual([exact[i] for i in range(b)], brute)
                for c in range(2):
                    lows, highs = drawn.bounds(c)
                    self.assertTrue(all(lo <= t[c] <= hi for lo, hi, t in zip(lows, highs, brute)))

    def test_bytes_bands_read_the_exact_ranks_and_counts(self):
        rng = random.Random(21)
        for case in range(150):
            n = rng.choice((64, 65, 255, 256, 257, 512, 513, 768, 1024, BYTES_UNTIL - 1, rng.randrange(64, BYTES_UNTIL)))
            b = rng.choice((1, 2, 7, 40, 101))
            data = shapes(rng, n)
            names = [rng.choice(sorted(data)) for _ in range(2)]
            columns = [data[name] for name in names]
            seed, bits = rng.randrange(1 << 30), rng.choice((None, None, 0, 1, 5, 8, sys.maxsize))
            log_sds = None if case % 2 else [rng.uniform(-5, 80), rng.uniform(-5, 80)]  # how finely a total is read: never a total
            with self.subTest(case=case, n=n, b=b, names=names, bits=bits, log_sds=log_sds):
                expected = reference_totals(columns, b, random.Random(seed))
                drawn = ByteResamples(columns, b, random.Random(seed), bits, log_sds)
                self.assertEqual(list(drawn.exact(range(b)).values()), expected)
                for i in range(b):  # the rows each resample drew, n of them, summed in Python
                    rows = drawn.drawn(i)
                    self.assertEqual((len(rows), tuple(sum(column[r] for r in rows) for column in columns)), (n, expected[i]))
                for c in range(2):
                    keys, offset, step, spread = drawn.band(c)
                    totals = [t[c] for t in expected]
                    truth = sorted(totals)

                    def lookup(indices, c=c):
                        return {i: t[c] for i, t in drawn.exact(indices).items()}

                    # compare_modes' and mean_interval's reading: keys within spread // step of each other may swap
                    stats = BandStatistics(keys, spread // step, lookup, int)
                    for rank in {0, b - 1, rng.randrange(b), round(0.025 * (b - 1)), round(0.975 * (b - 1))}:
                        self.assertEqual(stats[rank], truth[rank])
                    for target in {truth[rng.randrange(b)], truth[0] - 1, truth[-1] + 1, truth[b // 2] + rng.choice((-1, 1))}:
                        stats = BandStatistics(keys, spread // step, lookup, int)
                        doubled = stats.count_below(-((offset + spread - target) // step), (target - offset) // step, target)
                        self.assertEqual(doubled, exact_below(totals, target))

    def test_compare_modes_reads_the_brute_force_order_statistics_on_both_paths(self):
        rng = random.Random(22)

        def scores(n: int, kind: str) -> tuple[dict, dict]:
            if kind == "continuous":
                u = {f"s{i}": rng.random() for i in range(n)}
                return u, {s: rng.random() * v for s, v in u.items()}
            if kind == "a last bit apart":
                u = {f"s{i}": 0.5 + rng.randrange(2) * 2.0 ** -52 for i in range(n)}
                return u, {s: rng.choice((0.5, 0.5 - 2.0 ** -53)) for s in u}
            u = {f"s{i}": rng.choice((0.0, 0.25, 1 / 3, 0.5, 1.0)) for i in range(n)}  # ties, a few fractions
            return u, {s: rng.choice((0.0, 0.0, v / 2, v)) for s, v in u.items()}

        paths = []
        for case in range(24):
            n = rng.choice((100, 257, 600, BYTES_UNTIL - 1)) if case % 2 else rng.choice((BYTES_UNTIL, 1281, 2048, 2049))
            kind = rng.choice(("continuous", "a last bit apart", "ties"))
            u, e = scores(n, kind)
            seed = rng.randrange(1000)
            for ci_method in ("percentile", "bca"):
                with mock.patch.object(_paired, "interval", wraps=_paired.interval) as seen:
                    report = compare_modes(u, e, n_resamples=199, seed=seed, ci_method=ci_method)
                if report.resampling not in ("bytes", "blocks"):
                    continue
                columns, den = rows_of(u, e)
                if report.resampling == "bytes":
                    totals = reference_totals(columns, 199, random.Random(seed))
                else:
                    drawn = GroupResamples(columns, 199, random.Random(seed), None)
                    totals = [tuple(sum(column[r] for r in drawn.drawn(i)) for column in columns) for i in range(199)]
                sum_u, sum_d = sum(columns[0]), sum(columns[1])
                with self.subTest(case=case, n=n, kind=kind, ci_method=ci_method, path=report.resampling):
                    (d_stats, *_), d_options = seen.call_args_list[0]
                    self.assertEqual(d_stats[:], sorted(td / (n * den) for _, td in totals))
                    defined = [(tu, td) for tu, td in totals if tu]
                    (ratio_stats, *_), ratio_options = seen.call_args_list[1]
                    self.assertEqual(ratio_stats[:], sorted(td / tu for tu, td in defined))
                    if ci_method == "bca":
                        self.assertEqual(d_options["below"], Fraction(exact_below([td for _, td in totals], sum_d), 2 * 199))
                        self.assertEqual(ratio_options["below"], Fraction(
                            sum(2 * (td * sum_u < sum_d * tu) + (td * sum_u == sum_d * tu) for tu, td in defined), 2 * len(defined)))
                paths.append(report.resampling)
        self.assertGreater(min(paths.count("bytes"), paths.count("blocks")), 5)  # both paths were met, not skipped


if __name__ == "__main__":
    unittest.main()
