"""The outcome scores (anachron.forecasts.scoring): Brier, log loss, skill, reliability, the leak split, fixed effects."""

from __future__ import annotations

import math
import unittest

from anachron.core.errors import AnachronError
from anachron.forecasts.scoring import (
    LOG_CLIP,
    SUM_TOLERANCE,
    Forecast,
    ScoredSample,
    answer_probability,
    base_rate,
    brier,
    check_distribution,
    check_probability,
    difficulty_adjusted,
    leak_class,
    leak_sources,
    log_loss,
    reliability,
    score_model,
    scored_sample,
    uniform,
)
from anachron.core.stats import wilson_interval


def binary(p: float, sample: str = "s") -> Forecast:
    return Forecast(sample, "m", probability=p)


def sample(sample_id: str, b: float, leak: str | None, sources: tuple[str, ...] = ()) -> ScoredSample:
    return ScoredSample(sample_id, b, 0.5, 0.25, ((0.5, 1),), leak, sources)


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

    def test_baselines(self):
        self.assertEqual(uniform(binary(0.9)).probability, 0.5)
        self.assertEqual(uniform(Forecast("s", "m", probabilities={"a": 0.9, "b": 0.05, "c": 0.05})).probabilities,
                         {"a": 1 / 3, "b": 1 / 3, "c": 1 / 3})
        self.assertEqual(base_rate([1, 0, 0, 1]), 0.5)
        with self.assertRaisesRegex(AnachronError, "binary"):
            base_rate([1, "a"])
        with self.assertRaisesRegex(AnachronError, "no resolved sample"):
            base_rate([])


class LeakClassTest(unittest.TestCase):
    def test_classes(self):
        self.assertEqual(leak_class({}), "clean")
        for name in ("result_leaks", "survivorship_leaks", "restatement_leaks", "query_intent_leaks", "content_leaks",
                     "answer_leaks_retrieved", "answer_leaks_parametric", "seal_breaches"):
            with self.subTest(name=name):
                self.assertEqual(leak_class({name: 1, "undated": 3, "seal_status": "breached" if name == "seal_breaches" else None}), "leaked")
        for name in ("undated", "unrecorded", "date_conflicts", "revision_risks"):  # a page modified after T: cannot tell
            with self.subTest(name=name):
                self.assertEqual(leak_class({name: 1}), "unverified")
        # An importer's warning on the log (an item of an unknown type skipped): cannot tell, never clean.
        self.assertEqual(leak_class({"warnings": ["skipped 1 item of unknown type 'foo_note' (items[3])"]}), "unverified")
        self.assertEqual(leak_class({"warnings": [], "result_leaks": 0}), "clean")
        with self.assertRaisesRegex(AnachronError, "warnings is"):
            leak_class({"warnings": "skipped"})
        self.assertEqual(leak_class({"seal_breaches": None}), "clean")  # not audited: the trace's judgement
        self.assertEqual(leak_class({"seal_breaches": 0, "seal_status": "sealed"}), "clean")
        self.assertEqual(leak_class({"seal_breaches": 0, "seal_status": "no verdict"}), "clean")  # no call to judge
        self.assertEqual(leak_class({"seal_breaches": 0, "seal_status": "unverified"}), "unverified")
        self.assertEqual(leak_class({"seal_breaches": 0, "seal_status": "lock-only"}), "unverified")
        self.assertEqual(leak_class({"seal_breaches": 0}), "unverified")  # written before seal_status: not proven sealed
        self.assertEqual(leak_class({"seal_breaches": 2, "seal_status": "breached"}), "leaked")
        with self.assertRaisesRegex(AnachronError, "seal_status"):
            leak_class({"seal_breaches": 0, "seal_status": "maybe"})
        with self.assertRaisesRegex(AnachronError, "does not agree"):
            leak_class({"seal_breaches": 0, "seal_status": "breached"})

    def test_bad_counts(self):
        for bad in (-1, 1.5, "1", True):
            with self.subTest(bad=bad), self.assertRaisesRegex(AnachronError, "result_leaks is"):
                leak_class({"result_leaks": bad}, "s.json (sample x)")

    def test_sources(self):
        self.assertEqual(leak_sources({"answer_leaks_retrieved": 2}), ("retrieved",))
        self.assertEqual(leak_sources({"answer_leaks_parametric": 1}), ("parametric",))
        self.assertEqual(leak_sources({}), ())

    def test_no_record_is_unverified_under_a_split(self):
        f = binary(0.5)
        self.assertEqual(scored_sample(f, 1, uniform(f), None, split=True).leak, "unverified")
        self.assertIsNone(scored_sample(f, 1, uniform(f), None).leak)


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


class FixedEffectsTest(unittest.TestCase):
    def test_hand_solved_unbalanced_case(self):
        # a answered q1, q2; b answered q2, q3.  Four observations, four free effects: an exact fit.
        #   a + q1 = 0.1, a + q2 = 0.3, b + q2 = 0.5, b + q3 = 0.2
        # so b = a + 0.2, q1 = 0.1 - a, q2 = 0.3 - a, q3 = -a.  ForecastBench rescales so that Always 0.5
        # (0.25 - q on every question) scores 0.25: the question effects average 0 over the three
        # questions, q1 + q2 + q3 = 0.4 - 3a = 0, so a = 2/15 and b = 1/3 (raw means: 0.2 and 0.35).
        fit = difficulty_adjusted([("q1", "a", 0.1), ("q2", "a", 0.3), ("q2", "b", 0.5), ("q3", "b", 0.2)])
        self.assertTrue(fit.converged)
        self.assertAlmostEqual(fit.models["a"], 2 / 15, places=9)
        self.assertAlmostEqual(fit.models["b"], 1 / 3, places=9)
        self.assertAlmostEqual(fit.questions["q1"], 0.1 - 2 / 15, places=9)
        self.assertAlmostEqual(fit.questions["q2"], 0.3 - 2 / 15, places=9)
        self.assertAlmostEqual(fit.questions["q3"], -2 / 15, places=9)

    def test_always_half_scores_a_quarter(self):
        # ForecastBench's scale: a forecaster of 0.5 on every question (Brier 0.25 each), scored as
        # ForecastBench scores a model left out of the fit, mean(brier - question effect), gets 0.25,
        # however unevenly the other models covered the questions.
        obs = [("q1", "a", 0.01), ("q2", "a", 0.64), ("q3", "a", 0.09), ("q3", "b", 0.36), ("q4", "b", 0.0),
               ("q4", "c", 0.81), ("q1", "c", 0.25), ("q5", "c", 0.04)]
        fit = difficulty_adjusted(obs)
        always_half = sum(0.25 - effect for effect in fit.questions.values()) / len(fit.questions)
        self.assertAlmostEqual(always_half, 0.25, places=9)
        # and each model's figure is its mean of brier - question effect over the questions it answered
        for model in "abc":
            rows = [(q, v) for q, m, v in obs if m == model]
            self.assertAlmostEqual(fit.models[model], sum(v - fit.questions[q] for q, v in rows) / len(rows), places=9)

    def test_hand_solved_least_squares_with_residuals(self):
        # A full 2 x 2 panel plus nothing missing is balanced: a's effect is its mean, as is b's.
        #   q1: a 0.1, b 0.3;  q2: a 0.5, b 0.1  ->  a = 0.3, b = 0.2 (question effects 0 on average)
        fit = difficulty_adjusted([("q1", "a", 0.1), ("q1", "b", 0.3), ("q2", "a", 0.5), ("q2", "b", 0.1)])
        self.assertAlmostEqual(fit.models["a"], 0.3, places=9)
        self.assertAlmostEqual(fit.models["b"], 0.2, places=9)
        # q effects: q1 = mean(0.1 - 0.3, 0.3 - 0.2) = -0.05, q2 = +0.05
        self.assertAlmostEqual(fit.questions["q1"], -0.05, places=9)

    def test_three_models_with_a_cycle(self):
        # a: q1, q2; b: q2, q3; c: q3, q1 -- six observations, 3 + 3 - 1 = 5 effects: least squares.
        # Brier = model + question exactly (a 0.1, b 0.2, c 0.3; q1 0, q2 0.1, q3 0.2) is recovered,
        # once the question effects are centred over the questions (mean 0.1).
        truth_m, truth_q = {"a": 0.1, "b": 0.2, "c": 0.3}, {"q1": 0.0, "q2": 0.1, "q3": 0.2}
        obs = [(q, m, truth_m[m] + truth_q[q]) for m, qs in (("a", "q1 q2"), ("b", "q2 q3"), ("c", "q3 q1")) for q in qs.split()]
        fit = difficulty_adjusted(obs)
        for m, v in truth_m.items():
            self.assertAlmostEqual(fit.models[m], v + 0.1, places=9)

    def test_duplicates_and_empty(self):
        with self.assertRaisesRegex(AnachronError, "twice"):
            difficulty_adjusted([("q", "m", 0.1), ("q", "m", 0.2)])
        with self.assertRaisesRegex(AnachronError, "no observation"):
            difficulty_adjusted([])


if __name__ == "__main__":
    unittest.main()
