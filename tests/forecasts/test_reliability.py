"""The reliability table (anachron.forecasts.reliability): its bins' edges and their Wilson intervals."""

from __future__ import annotations

import unittest

from anachron.core.stats import wilson_interval
from anachron.forecasts.model_score import ScoredSample, score_model
from anachron.forecasts.reliability import reliability


class ReliabilityTest(unittest.TestCase):
    def test_edges_and_wilson(self):
        bins = reliability([(0.0, 0), (0.1, 1), (0.19, 0), (0.9, 1), (1.0, 1), (1.0, 0)])
        self.assertEqual(len(bins), 10)
        self.assertEqual((bins[0].n, bins[1].n, bins[9].n), (1, 2, 3))  # 0.1 goes up; 1.0 is in the last bin
        self.assertEqual((bins[9].low, bins[9].high), (0.9, 1.0))
        self.assertAlmostEqual(bins[9].observed, 2 / 3)
        self.assertAlmostEqual(bins[9].mean_forecast, (0.9 + 1.0 + 1.0) / 3)
        self.assertEqual((bins[9].ci_low, bins[9].ci_high), wilson_interval(2, 3))
        self.assertEqual((bins[5].n, bins[5].observed, bins[5].ci_low), (0, None, None))  # empty bin

    def test_wilson_at_the_report_level(self):
        pairs = [(0.95, 1), (0.92, 1), (0.97, 0), (0.91, 1)]
        ninety = reliability(pairs, confidence=0.90)[9]
        self.assertAlmostEqual(ninety.ci_low, wilson_interval(3, 4, 1.6448536269514722)[0], places=12)
        wide = reliability(pairs)[9]
        self.assertLess(wide.ci_low, ninety.ci_low)  # 95% is wider than 90%
        self.assertEqual((wide.ci_low, wide.ci_high), wilson_interval(3, 4))
        score = score_model("m", [ScoredSample("a", 0.1, 0.1, 0.25, ((0.95, 1),))], baseline="0.5", n_resamples=100,
                            confidence=0.9)
        self.assertAlmostEqual(score.reliability[9].ci_low, wilson_interval(1, 1, 1.6448536269514722)[0], places=12)


if __name__ == "__main__":
    unittest.main()
