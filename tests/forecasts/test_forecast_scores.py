"""One forecast's scores (anachron.forecasts.forecast): Brier, log loss, the checks, the probability an answer states."""

from __future__ import annotations

import math
import unittest

from anachron.core.errors import AnachronError
from anachron.forecasts.forecast import (
    LOG_CLIP,
    SUM_TOLERANCE,
    Forecast,
    answer_probability,
    brier,
    check_distribution,
    check_probability,
    log_loss,
)


def binary(p: float, sample: str = "s") -> Forecast:
    return Forecast(sample, "m", probability=p)


class ScoresTest(unittest.TestCase):
    def test_brier_binary_and_categorical(self):
        self.assertEqual(brier(binary(0.7), 1), (0.7 - 1) ** 2)
        self.assertEqual(brier(binary(0.7), 0), 0.7**2)
        self.assertEqual(brier(binary(1.0), 1), 0.0)
        self.assertEqual(brier(binary(0.0), 1), 1.0)
        two = Forecast("s", "m", probabilities={"yes": 0.7, "no": 0.3})
        self.assertAlmostEqual(brier(two, "yes"), brier(binary(0.7), 1))  # two options: the binary Brier
        three = Forecast("s", "m", probabilities={"a": 0.2, "b": 0.3, "c": 0.5})
        self.assertAlmostEqual(brier(three, "c"), (0.2**2 + 0.3**2 + 0.5**2) / 2)
        self.assertEqual(brier(Forecast("s", "m", probabilities={"a": 0.0, "b": 1.0}), "a"), 1.0)  # the worst: 1

    def test_log_loss_is_clipped(self):
        self.assertAlmostEqual(log_loss(binary(0.8), 1), -math.log(0.8))
        self.assertAlmostEqual(log_loss(binary(0.8), 0), -math.log(0.2))
        self.assertEqual(log_loss(binary(0.0), 1), -math.log(LOG_CLIP))
        self.assertEqual(log_loss(binary(LOG_CLIP / 2), 1), -math.log(LOG_CLIP))  # below the clip: the clip
        self.assertLess(log_loss(binary(LOG_CLIP * 2), 1), -math.log(LOG_CLIP))  # above it: its own value
        self.assertEqual(log_loss(binary(1.0), 1), 0.0)

    def test_resolution_must_fit_the_forecast(self):
        with self.assertRaisesRegex(AnachronError, "0 or 1"):
            brier(binary(0.5), "yes")
        with self.assertRaisesRegex(AnachronError, "not one of the options"):
            brier(Forecast("s", "m", probabilities={"a": 0.5, "b": 0.5}), "c")

    def test_bad_probabilities(self):
        for bad in (float("nan"), -0.01, 1.01, True, "0.5", None, float("inf")):
            with self.subTest(bad=bad), self.assertRaisesRegex(AnachronError, "^f.jsonl:3: probability is"):
                check_probability(bad, "f.jsonl:3")
        self.assertEqual(check_probability(0, "x"), 0.0)
        self.assertEqual(check_probability(1, "x"), 1.0)

    def test_distribution_sum_tolerance(self):
        inside = {"a": 0.5, "b": 0.5 + SUM_TOLERANCE / 2}
        self.assertEqual(check_distribution(inside, "x"), inside)
        with self.assertRaisesRegex(AnachronError, r"sum to .*not 1 \(tolerance 1e-06\)"):
            check_distribution({"a": 0.5, "b": 0.5 + 3 * SUM_TOLERANCE}, "x")
        with self.assertRaisesRegex(AnachronError, "at least two options"):
            check_distribution({"a": 1.0}, "x")
        with self.assertRaisesRegex(AnachronError, "option 'b': probability is NaN"):
            check_distribution({"a": 1.0, "b": float("nan")}, "x")

    def test_answer_probability(self):
        self.assertEqual(answer_probability("Final answer: 70%"), 0.7)
        self.assertEqual(answer_probability("I'd say 0.35."), 0.35)
        self.assertEqual(answer_probability("first 20%, then on reflection 0.4"), 0.4)  # the last one
        self.assertEqual(answer_probability("100%"), 1.0)
        self.assertEqual(answer_probability("0%"), 0.0)
        self.assertEqual(answer_probability("Final answer: 65%\n\nSources: [1], [2]"), 0.65)  # citations are no probability
        self.assertEqual(answer_probability("about 0.65 (scenario 1 of 3)"), 0.65)
        self.assertEqual(answer_probability("0.7 on a scale of 0 to 1"), 0.7)
        self.assertEqual(answer_probability("certain: 1.0"), 1.0)
        self.assertEqual(answer_probability("no chance: 0.0"), 0.0)
        for none in ("Revenue will be $5bn.", "It will happen in 2025.", "120%", "maybe", "7 of 9 analysts", "-0.3",
                     "1 in 3 chance", "Answer: 1", "0"):
            with self.subTest(answer=none):
                self.assertIsNone(answer_probability(none))


if __name__ == "__main__":
    unittest.main()
