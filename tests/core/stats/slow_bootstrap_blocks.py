"""The slow tests beside test_bootstrap_blocks.py (and test_bootstrap_bytes.py), whose docstrings state the rules they hold: TwoPassesThroughCompareModesTest.

They start processes, browsers or servers, or build large inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

from __future__ import annotations
import itertools
import random
import unittest
from unittest import mock
from anachron.core.stats import bootstrap as _bootstrap
from anachron.core.stats.paired import EXACT_JACKKNIFE
from tests.core.stats.test_bootstrap_blocks import reference_report
from tests.core.stats.test_bootstrap_groups import reference_group_totals
from tests.core.stats.test_bootstrap_bytes import reference_totals as bytes_totals


class TwoPassesThroughCompareModesTest(unittest.TestCase):
    def cases(self, n: int):
        rng = random.Random(11)
        u = [rng.random() for _ in range(n)]
        yield "continuous", u, [x * rng.random() for x in u]
        yield "negative differences", u, [rng.random() for _ in range(n)]
        ties = [rng.choice((0.125, 0.5, 0.625)) if rng.random() < 0.85 else rng.random() for _ in range(n)]
        yield "resample totals tie", ties, [x * rng.choice((0.0, 0.5)) if rng.random() < 0.85 else 0.0 for x in ties]
        rare = [0.0] * n
        rare[3], rare[n // 2] = 0.75, 2.0 ** -60
        yield "resamples with no unrestricted mass", rare, [rng.random() * 0.01 for _ in range(n)]
        yield "tiny and extreme values", [rng.choice((1e-300, 5e-324, 0.999999, 1.0, 0.0)) if rng.random() < 0.3 else x for x in u], \
            [rng.choice((1e-300, 0.5)) if rng.random() < 0.3 else rng.random() for _ in range(n)]
        yield "no unrestricted mass", [0.0] * n, [rng.random() for _ in range(n)]
        counts = [rng.randrange(300) for _ in range(n)]  # integer totals in a narrow range: exact ties
        yield "counts", counts, [rng.randrange(x + 1) for x in counts]

    def test_the_intervals_are_the_plain_sums_ones(self):
        # The default first pass, and one so coarse (its bounds 2**8 standard errors wide) that
        # nearly every resample is replayed: the same figures either way.
        # Each path against its own draws; from BYTES_UNTIL pairs the blocks are drawn by groups.
        paths = ((1200, "blocks", reference_group_totals), (300, "bytes", bytes_totals))
        for (n, path, totals_of), share in itertools.product(paths, (_bootstrap._SPREAD_SHARE, -8)):
            for name, u, e in self.cases(n):
                ud = {f"s{i}": x for i, x in enumerate(u)}
                ed = {f"s{i}": x for i, x in enumerate(e)}
                for ci_method, seed, b in (("percentile", 0, 400), ("percentile", 3, 1001), ("bca", 1, 300)):
                    if ci_method == "bca" and name in ("continuous", "negative differences", "tiny and extreme values"):
                        continue  # the ratio's jackknife over Fractions: slow on continuous u
                    with self.subTest(path=path, share=share, case=name, ci_method=ci_method, seed=seed), \
                            mock.patch.object(_bootstrap, "_SPREAD_SHARE", share):
                        report, d_ci, relative = reference_report(ud, ed, b, seed, ci_method,
                                                                  "survivorship_leaks" if name == "counts" else "tclr",
                                                                  totals_of=totals_of)
                        self.assertEqual(report.resampling, path)
                        self.assertEqual((report.ci_low, report.ci_high), d_ci)
                        if relative is None:
                            self.assertIsNone(report.relative_ci_low)
                        else:
                            if ci_method == "bca" and len(u) > EXACT_JACKKNIFE:  # the jackknife's rounded rule
                                for ours, exact in zip((report.relative_ci_low, report.relative_ci_high), relative):
                                    self.assertLessEqual(abs(ours - exact), 1e-12 * abs(exact))
                            else:
                                self.assertEqual((report.relative_ci_low, report.relative_ci_high), relative[:2])
                            undefined = [w for w in report.warnings if "had an unrestricted mean of 0" in w]
                            self.assertEqual(bool(undefined), relative[2] > 0)


if __name__ == "__main__":
    unittest.main()
