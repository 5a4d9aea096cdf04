"""The difficulty-adjusted Brier (anachron.forecasts.difficulty): ForecastBench's two-way fixed effects, solved by hand."""

from __future__ import annotations

import math
import random
import unittest

from anachron.core.errors import AnachronError
from anachron.forecasts.difficulty import difficulty_adjusted


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
        # The first pair repeated, in the order given, is the one named.
        with self.assertRaisesRegex(AnachronError, r"^model 'b' scored question 'q2' twice$"):
            difficulty_adjusted([("q1", "a", 0.1), ("q2", "b", 0.2), ("q1", "b", 0.3), ("q2", "b", 0.4), ("q1", "a", 0.5)])
        with self.assertRaisesRegex(AnachronError, "no observation"):
            difficulty_adjusted([])

    def test_the_fit_does_not_depend_on_the_order_of_the_observations(self):
        # Held in arrays grouped by question and by model: any order of the same panel gives the same bits.
        rng = random.Random(3)
        obs = [(f"q{q}", f"m{m}", rng.random()) for q in range(40) for m in range(4) if rng.random() < 0.8]
        fit = difficulty_adjusted(obs)
        for seed in range(3):
            shuffled = obs[:]
            random.Random(seed).shuffle(shuffled)
            again = difficulty_adjusted(iter(shuffled))
            self.assertEqual((again.models, again.questions, again.iterations), (fit.models, fit.questions, fit.iterations))
        self.assertEqual(list(fit.models), sorted({m for _, m, _ in obs}))
        self.assertEqual(list(fit.questions), sorted({q for q, _, _ in obs}))

    def test_the_fit_is_the_alternating_means_to_the_bit(self):
        # The fit's definition written out, one effect at a time: each model's effect the exactly rounded mean of
        # brier - question over its questions, then each question's of brier - model, until nothing moves by
        # more than the tolerance.  The fit must give the same floats and stop at the same pass.
        def reference(obs, tolerance=1e-12):
            questions = sorted({q for q, _, _ in obs})
            models = sorted({m for _, m, _ in obs})
            q_eff, m_eff = dict.fromkeys(questions, 0.0), dict.fromkeys(models, 0.0)
            for passes in range(1, 10_001):
                moved = 0.0
                for m in models:
                    new = math.fsum(b - q_eff[q] for q, mm, b in obs if mm == m) / sum(1 for _, mm, _ in obs if mm == m)
                    moved, m_eff[m] = max(moved, abs(new - m_eff[m])), new
                for q in questions:
                    new = math.fsum(b - m_eff[m] for qq, m, b in obs if qq == q) / sum(1 for qq, _, _ in obs if qq == q)
                    moved, q_eff[q] = max(moved, abs(new - q_eff[q])), new
                if moved <= tolerance:
                    break
            shift = math.fsum(q_eff.values()) / len(q_eff)
            return {m: e + shift for m, e in m_eff.items()}, {q: e - shift for q, e in q_eff.items()}, passes

        rng = random.Random(7)
        for case in range(6):
            with self.subTest(case=case):
                obs = [(f"q{q}", f"m{m}", rng.random() ** (1 + m)) for q in range(40) for m in range(1 + case % 4)
                       if rng.random() < 0.7 or m == 0]
                rng.shuffle(obs)
                fit = difficulty_adjusted(obs)
                self.assertEqual((fit.models, fit.questions, fit.iterations), reference(obs))


if __name__ == "__main__":
    unittest.main()
