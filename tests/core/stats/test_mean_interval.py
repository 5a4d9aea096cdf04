"""``core.stats.mean.mean_interval``: one run's mean with its percentile-bootstrap CI (the report draws it)."""

from __future__ import annotations

import random
import unittest
from fractions import Fraction

from anachron.core import AnachronError, compare_modes
from anachron.core.stats.mean import mean_interval


class MeanIntervalTest(unittest.TestCase):
    def test_is_the_paired_rule_against_a_zero_run(self):
        # The same rule as the paired comparison: against a run of zeros, the differences are the values,
        # so the two draw the same resamples from the same seed and give the same interval.
        rng = random.Random(5)
        for n in (3, 27, 200):
            values = [rng.randint(0, 4) / 4 for _ in range(n)]
            for seed in (0, 7):
                with self.subTest(n=n, seed=seed):
                    m = mean_interval(values, n_resamples=2000, seed=seed, confidence=0.9)
                    c = compare_modes({f"s{i}": v for i, v in enumerate(values)}, {f"s{i}": 0.0 for i in range(n)},
                                      n_resamples=2000, seed=seed, confidence=0.9)
                    self.assertEqual((m.mean, m.low, m.high, m.resampling), (c.mean_reduction, c.ci_low, c.ci_high, c.resampling))

    def test_mean_is_exact_and_inside_its_interval(self):
        values = [0.1] * 7 + [0.3] * 3  # floats whose naive sum is not the exact one
        m = mean_interval(values, n_resamples=500)
        self.assertEqual(m.mean, float(sum(Fraction(v) for v in values) / len(values)))
        self.assertLessEqual(m.low, m.mean)
        self.assertLessEqual(m.mean, m.high)
        self.assertEqual((m.n, m.n_resamples, m.seed), (10, 500, 0))

    def test_counts_as_well_as_rates(self):
        m = mean_interval([0, 3, 5, 5], n_resamples=1000)
        self.assertEqual(m.mean, 3.25)
        self.assertTrue(0 <= m.low < m.mean < m.high <= 5)

    def test_degenerate_inputs_collapse_on_the_mean(self):
        for values in ([0.0], [0.5] * 9, [2, 2]):
            with self.subTest(values=values):
                m = mean_interval(values)
                self.assertEqual((m.low, m.high), (m.mean, m.mean))
                self.assertTrue(m.degenerate)
        self.assertFalse(mean_interval([0.0, 1.0]).degenerate)

    def test_same_values_and_seed_same_interval(self):
        values = [random.Random(1).random() for _ in range(40)]
        self.assertEqual(mean_interval(values, seed=3), mean_interval(list(values), seed=3))
        self.assertNotEqual(mean_interval(values, seed=3, n_resamples=200), mean_interval(values, seed=4, n_resamples=200))
        self.assertEqual(mean_interval(values, n_resamples=100).n_resamples, 100)  # the floor is allowed

    def test_wider_at_a_higher_level(self):
        values = [0.0, 1.0] * 10
        narrow, wide = mean_interval(values, confidence=0.5), mean_interval(values, confidence=0.99)
        self.assertLess(wide.low, narrow.low)
        self.assertGreater(wide.high, narrow.high)

    def test_bad_inputs(self):
        cases = {
            (): "at least one value",
            (float("nan"),): "finite numbers",
            (float("inf"), 1.0): "finite numbers",
            (True, 0.0): "finite numbers",
            ("0.5",): "finite numbers",
        }
        for values, message in cases.items():
            with self.subTest(values=values):
                with self.assertRaisesRegex(AnachronError, message):
                    mean_interval(list(values))
        for kwargs, message in (({"confidence": 1.0}, "confidence"), ({"confidence": 0}, "confidence"),
                                ({"n_resamples": 0}, "n_resamples"), ({"n_resamples": 2.5}, "n_resamples"),
                                ({"n_resamples": 99}, "at least 100"), ({"n_resamples": True}, "n_resamples"),
                                ({"seed": 1.5}, "seed")):
            with self.subTest(kwargs=kwargs):
                with self.assertRaisesRegex(AnachronError, message):
                    mean_interval([0.0, 1.0], **kwargs)


if __name__ == "__main__":
    unittest.main()
