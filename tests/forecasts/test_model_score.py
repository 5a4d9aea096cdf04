"""A model's scores (anachron.forecasts.model_score): the baselines, skill, the leak inflation and its paired CIs."""

from __future__ import annotations

import gc
import math
import random
import unittest

from anachron.core.errors import AnachronError
from anachron.core.stats.bootstrap import bootstrap_column_totals, percentile
from anachron.forecasts.forecast import Forecast
from anachron.forecasts.model_score import ScoredSample, base_rate, score_model, uniform


def binary(p: float, sample: str = "s") -> Forecast:
    return Forecast(sample, "m", probability=p)


def sample(sample_id: str, b: float, leak: str | None, sources: tuple[str, ...] = ()) -> ScoredSample:
    return ScoredSample(sample_id, b, 0.5, 0.25, ((0.5, 1),), leak, sources)


class BaselinesTest(unittest.TestCase):
    def test_baselines(self):
        self.assertEqual(uniform(binary(0.9)).probability, 0.5)
        self.assertEqual(uniform(Forecast("s", "m", probabilities={"a": 0.9, "b": 0.05, "c": 0.05})).probabilities,
                         {"a": 1 / 3, "b": 1 / 3, "c": 1 / 3})
        self.assertEqual(base_rate([1, 0, 0, 1]), 0.5)
        with self.assertRaisesRegex(AnachronError, "binary"):
            base_rate([1, "a"])
        with self.assertRaisesRegex(AnachronError, "no resolved sample"):
            base_rate([])


class ScoreModelTest(unittest.TestCase):
    def test_leak_inflation(self):
        samples = [sample("a", 0.25, "clean"), sample("b", 0.25, "clean"), sample("c", 0.0, "leaked"), sample("d", 0.0, "leaked")]
        score = score_model("m", samples, baseline="0.5", n_resamples=500)
        self.assertEqual(score.brier.value, 0.125)
        self.assertEqual(score.split["clean"].value, 0.25)
        self.assertEqual(score.split["leaked"].value, 0.0)
        self.assertEqual(score.inflation.value, 0.125 - 0.25)
        self.assertLessEqual(score.inflation.ci_low, score.inflation.value)
        self.assertLessEqual(score.inflation.ci_high, 0.0)  # no resample can make leaking worse here
        self.assertEqual(score.skill.value, 1 - 0.125 / 0.25)
        self.assertEqual(score.split["unverified"].n, 0)
        self.assertIsNone(score.split["unverified"].value)

    def test_inflation_ci_is_paired(self):
        # Every sample clean: in each resample the all-sample mean *is* the clean mean, so a paired CI is
        # [0, 0] exactly, where means drawn from separate resamples would spread around 0.
        samples = [sample(str(i), (i % 7) / 10, "clean") for i in range(40)]
        score = score_model("m", samples, baseline="0.5", n_resamples=300, seed=3)
        self.assertEqual((score.inflation.value, score.inflation.ci_low, score.inflation.ci_high), (0.0, 0.0, 0.0))
        self.assertLess(score.brier.ci_low, score.brier.ci_high)  # the Brier itself does vary between resamples
        # The same for a source with no sample: its inflation is undefined, never a spread
        self.assertIsNone(score.by_source["retrieved"]["inflation"].value)

    def test_undefined_resamples_without_a_clean_sample(self):
        samples = [sample("a", 0.25, "clean")] + [sample(f"l{i}", 0.0, "leaked") for i in range(9)]
        score = score_model("m", samples, baseline="0.5", n_resamples=400)
        # P(no clean sample in a resample of 10) = 0.9**10, about 0.35
        self.assertGreater(score.undefined_resamples, 0)
        self.assertLess(score.undefined_resamples, 400)

    def test_no_clean_sample_no_inflation(self):
        score = score_model("m", [sample("a", 0.1, "leaked"), sample("b", 0.2, "unverified")], baseline="0.5", n_resamples=100)
        self.assertIsNone(score.inflation.value)
        self.assertIsNone(score.split["clean"].value)

    def test_by_source(self):
        samples = [sample("a", 0.25, "clean"), sample("b", 0.0, "leaked", ("retrieved",)),
                   sample("c", 0.09, "leaked", ("parametric",))]
        score = score_model("m", samples, baseline="0.5", n_resamples=200)
        self.assertEqual(score.by_source["retrieved"]["brier"].value, 0.0)
        self.assertEqual(score.by_source["retrieved"]["inflation"].value, (0.25 + 0.0) / 2 - 0.25)
        self.assertAlmostEqual(score.by_source["parametric"]["inflation"].value, (0.25 + 0.09) / 2 - 0.25)

    def test_seeded_and_deterministic(self):
        samples = [sample(str(i), (i % 5) / 10, "clean" if i % 3 else "leaked") for i in range(30)]
        one = score_model("m", samples, baseline="0.5", n_resamples=300, seed=4).to_dict()
        self.assertEqual(one, score_model("m", samples, baseline="0.5", n_resamples=300, seed=4).to_dict())
        other = score_model("m", samples, baseline="0.5", n_resamples=300, seed=5).to_dict()
        self.assertNotEqual((one["brier"]["ci_low"], one["brier"]["ci_high"], one["leak_split"]["inflation"]),
                            (other["brier"]["ci_low"], other["brier"]["ci_high"], other["leak_split"]["inflation"]))
        self.assertEqual(one["brier"]["value"], other["brier"]["value"])

    def test_no_split_without_leak_classes(self):
        score = score_model("m", [sample("a", 0.1, None)], baseline="0.5", n_resamples=100)
        self.assertIsNone(score.split)
        self.assertNotIn("leak_split", score.to_dict())

    def test_no_samples(self):
        with self.assertRaisesRegex(AnachronError, "no resolved sample"):
            score_model("m", [], baseline="0.5")

    def test_skill_undefined_when_the_baseline_is_perfect(self):
        perfect = ScoredSample("a", 0.1, 0.1, 0.0, ((0.9, 1),))
        self.assertIsNone(score_model("m", [perfect], baseline="x", n_resamples=100).skill.value)


    def test_resampled_figures_are_within_the_fixed_points_half_step_of_their_floats(self):
        # Every resample of one repeated score has that score's mean: the drawn sums are in fixed point
        # (2^-20), so each CI end is within 2^-21 of it, on the direct draws and on the groups resampler's.
        for n in (30, 1500):
            score = score_model("m", [ScoredSample(f"s{i}", 0.123456789, 2.718281828, 0.25, ((0.5, 1),)) for i in range(n)],
                                baseline="0.5", n_resamples=50)
            for interval, value in ((score.brier, 0.123456789), (score.log_loss, 2.718281828)):
                self.assertEqual(interval.value, value)
                for end in (interval.ci_low, interval.ci_high):
                    self.assertLessEqual(abs(end - value), 2**-21)

    def test_without_a_leak_split_the_cis_are_the_exact_totals_percentiles(self):
        # Without a leak split and with a constant baseline the CIs are read from bounded totals, only the
        # resamples near the percentiles replayed exactly: the figures must be the exact totals' own, from
        # the same draws (bootstrap_column_totals on the three columns, the same seed), on the direct draws
        # (n < 1,040) and on the groups resampler's.
        rng = random.Random(11)
        for n, baseline in ((300, 0.25), (1500, 0.25), (1500, 0.09)):
            samples = []
            for i in range(n):
                p = round(rng.random(), 3)
                outcome = int(rng.random() < 0.4)
                samples.append(ScoredSample(f"s{i}", (p - outcome) ** 2, -math.log(max(p if outcome else 1 - p, 1e-15)),
                                            baseline, ((p, outcome),)))
            score = score_model("m", samples, baseline="b", n_resamples=400, seed=3, confidence=0.9)
            columns = [[round(getattr(s, name) * 2**20) for s in samples] for name in ("brier", "log_loss", "baseline_brier")]
            totals = bootstrap_column_totals(columns, 400, random.Random(3))
            expected = {
                "brier": sorted(t[0] / (n * 2**20) for t in totals),
                "log_loss": sorted(t[1] / (n * 2**20) for t in totals),
                "skill": sorted(1 - t[0] / t[2] for t in totals),
            }
            for name, draws in expected.items():
                interval = getattr(score, name)
                self.assertEqual((interval.ci_low, interval.ci_high), (percentile(draws, 0.05), percentile(draws, 0.95)), (n, name))

    def test_a_constant_perfect_baseline_leaves_the_skill_without_an_interval(self):
        samples = [ScoredSample(f"s{i}", (i % 7) / 10, 0.5, 0.0, ((0.5, 1),)) for i in range(1200)]
        score = score_model("m", samples, baseline="x", n_resamples=100)
        self.assertEqual((score.skill.value, score.skill.ci_low, score.skill.ci_high), (None, None, None))
        self.assertLess(score.brier.ci_low, score.brier.ci_high)

    def test_the_cyclic_collector_is_restored_as_it_was_after_a_score_or_an_error(self):
        # score_model pauses the cyclic collector for its run: it must come back on (or stay off when the
        # caller had it off), also when the call fails.
        good = [ScoredSample("a", 0.1, 0.2, 0.25, ((0.5, 1),))]
        try:
            for enabled in (True, False):
                gc.enable() if enabled else gc.disable()
                score_model("m", good, baseline="0.5", n_resamples=100)
                self.assertEqual(gc.isenabled(), enabled)
                with self.assertRaises(AnachronError):
                    score_model("m", [], baseline="0.5")
                self.assertEqual(gc.isenabled(), enabled)
        finally:
            gc.enable()


if __name__ == "__main__":
    unittest.main()
