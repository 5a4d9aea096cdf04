"""The question bootstrap (anachron.forecasts.resampling): groups kept, the fit redone per resample, p-values and first places."""

from __future__ import annotations

import itertools
import json
import random
import unittest
from unittest import mock

from anachron.core.errors import AnachronError
from anachron.forecasts import resampling
from anachron.forecasts.difficulty import difficulty_adjusted
from anachron.forecasts.resampling import brier_index, question_bootstrap
from tests.support import require_extra


def _refit_on(panel: dict[str, dict[str, float]], drawn: tuple[str, ...], model: str) -> float | None:
    """The difficulty-adjusted Brier of *model* fitted on the questions *drawn* (a copy per draw)."""
    obs = [(f"{q}#{i}", m, v) for i, q in enumerate(drawn) for m, v in panel[q].items()]
    fit = difficulty_adjusted(obs)
    return fit.models.get(model)


def _pool_effects(rows: list[tuple[str, str, float]], pool: set[str]) -> dict[str, float]:
    """Least squares (numpy) of brier ~ question + model on the pool's rows: the question effects, averaging 0."""
    import numpy as np

    fitted = [(q, m, b) for q, m, b in rows if m in pool]
    questions = sorted({q for q, _, _ in fitted})
    models = sorted({m for _, m, _ in fitted})
    qi = {q: i for i, q in enumerate(questions)}
    mi = {m: i for i, m in enumerate(models[1:])}
    x = np.zeros((len(fitted), len(questions) + len(mi)))
    y = np.array([b for _, _, b in fitted])
    for r, (q, m, _) in enumerate(fitted):
        x[r, qi[q]] = 1.0
        if m in mi:
            x[r, len(questions) + mi[m]] = 1.0
    coef = np.linalg.lstsq(x, y, rcond=None)[0]
    shift = float(np.mean(coef[:len(questions)]))
    return {q: float(coef[qi[q]]) - shift for q in questions}


def _scores_against_pool(rows: list[tuple[str, str, float]], pool: set[str]) -> dict[str, float]:
    """Every model's mean of brier - effect (:func:`_pool_effects`) over its questions that have an effect."""
    effect = _pool_effects(rows, pool)
    out = {}
    for m in sorted({m for _, m, _ in rows}):
        mine = [b - effect[q] for q, mm, b in rows if mm == m and q in effect]
        if mine:
            out[m] = sum(mine) / len(mine)
    return out


class GroupsTest(unittest.TestCase):
    def test_resamples_keep_each_group_its_size(self):
        # Model a scores 0 on every question of group x and 1 on every one of group y.  Drawn within the
        # groups, every resample holds 4 questions of each: a's mean Brier is 0.5 in every resample.
        # Drawn from one pool, the mix varies, and so does the mean.
        obs = [(f"x{i}", "a", 0.0) for i in range(4)] + [(f"y{i}", "a", 1.0) for i in range(4)]
        groups = {f"x{i}": "x" for i in range(4)} | {f"y{i}": "y" for i in range(4)}
        kept = question_bootstrap(obs, groups=groups, n_resamples=300).models["a"].brier
        self.assertEqual((kept.ci_low, kept.ci_high), (0.5, 0.5))
        pooled = question_bootstrap(obs, n_resamples=300)
        self.assertLess(pooled.models["a"].brier.ci_low, 0.4)
        self.assertGreater(pooled.models["a"].brier.ci_high, 0.6)
        self.assertEqual((pooled.groups, pooled.ungrouped), (0, 8))

    def test_question_without_group_joins_the_ungrouped_pool(self):
        obs = [(f"q{i}", "a", i / 10) for i in range(6)]
        result = question_bootstrap(obs, groups={"q0": ("2025-01-01", "acled"), "q1": ("2025-01-01", "acled"), "q2": None},
                                    n_resamples=100)
        self.assertEqual((result.groups, result.ungrouped, result.singleton_groups), (1, 4, 0))
        self.assertEqual(result.to_dict()["ungrouped_questions"], 4)

    def test_group_of_one_question_is_counted_and_adds_no_spread(self):
        obs = [("q1", "a", 0.2), ("q2", "a", 0.4), ("q3", "a", 0.9)]
        result = question_bootstrap(obs, groups={"q1": 1, "q2": 1, "q3": 2}, n_resamples=400)
        self.assertEqual(result.singleton_groups, 1)
        brier = result.models["a"].brier
        # q3 is in every resample; q1 and q2 make up the other two draws: the mean lies in [(0.4+0.9)/3 .. (0.8+0.9)/3].
        self.assertAlmostEqual(brier.ci_low, (0.4 + 0.9) / 3, places=7)
        self.assertAlmostEqual(brier.ci_high, (0.8 + 0.9) / 3, places=7)


class RefitTest(unittest.TestCase):
    # Five questions in one group; b skipped q3.  A resample is a multiset of five questions, and each
    # resample's figure must be the fixed effects refitted on it (each copy of a question its own question).
    panel = {"q1": {"a": 0.04, "b": 0.36}, "q2": {"a": 0.49, "b": 0.09}, "q3": {"a": 0.81},
             "q4": {"a": 0.16, "b": 0.64}, "q5": {"a": 0.25, "b": 0.01}}

    def test_interval_ends_are_refits_on_resamples(self):
        obs = [(q, m, v) for q, row in self.panel.items() for m, v in row.items()]
        multisets = list(itertools.combinations_with_replacement(sorted(self.panel), 5))
        refits = {_refit_on(self.panel, drawn, "b") for drawn in multisets} - {None}
        # Not refitted: the full panel's question effects kept, b's mean of brier - effect over its draws,
        # on the same scale (the drawn questions' effects averaging 0).
        full = difficulty_adjusted(obs)
        kept = set()
        for drawn in multisets:
            mine = [q for q in drawn if "b" in self.panel[q]]
            if mine:
                kept.add(sum(self.panel[q]["b"] - full.questions[q] for q in mine) / len(mine)
                         + sum(full.questions[q] for q in drawn) / len(drawn))
        # B = 2001 puts the 2.5% and 97.5% points on order statistics (no interpolation).
        interval = question_bootstrap(obs, n_resamples=2001, seed=3).models["b"].adjusted
        ends = (interval.ci_low, interval.ci_high)
        for end in ends:
            self.assertTrue(any(abs(end - r) < 1e-7 for r in refits), (end, sorted(refits)))
        self.assertFalse(all(any(abs(end - k) < 1e-7 for k in kept) for end in ends),
                         "this panel must tell a refit from the kept effects")

    def test_point_is_the_fixed_effects_fit(self):
        rng = random.Random(5)
        obs = [(f"q{q}", m, rng.random() ** 2) for q in range(40) for m in "abcd" if rng.random() < 0.7]
        fit = difficulty_adjusted(obs)
        result = question_bootstrap(obs, n_resamples=100)
        for model, row in result.models.items():
            self.assertAlmostEqual(row.adjusted.value, fit.models[model], places=10)
            self.assertAlmostEqual(row.brier_index.value, brier_index(fit.models[model]), places=8)
            self.assertLessEqual(row.adjusted.ci_low, row.adjusted.ci_high)
            # the index falls as the Brier rises: its interval is the other way round
            self.assertLess(abs(row.brier_index.ci_low - brier_index(row.adjusted.ci_high)), 2.0)


class SkillTest(unittest.TestCase):
    def test_dominated_model_never_first_and_p_value_zero(self):
        rng = random.Random(1)
        obs = []
        for q in range(30):
            good = rng.random() * 0.2
            obs += [(f"q{q}", "good", good), (f"q{q}", "bad", good + 0.1)]
        result = question_bootstrap(obs, reference="good", n_resamples=500)
        self.assertEqual(result.models["good"].rank_first, 1.0)
        self.assertEqual(result.models["bad"].rank_first, 0.0)
        self.assertEqual(result.models["bad"].p_value, 0.0)
        self.assertEqual(result.models["good"].p_value, 1.0)  # the reference against itself

    def test_mirror_models_share_first_place_and_p_value_three_quarters(self):
        # q1: a 0, b 1; q2: a 1, b 0.  A resample of two: {q1,q1} a wins (1/4), {q2,q2} b wins (1/4),
        # {q1,q2} a tie (1/2), shared.  So each ranks first in half the resamples, and
        # P(b <= a) = 1/4 + 1/2 = 3/4.
        obs = [("q1", "a", 0.0), ("q1", "b", 1.0), ("q2", "a", 1.0), ("q2", "b", 0.0)]
        result = question_bootstrap(obs, reference="a", n_resamples=2000, seed=7)
        self.assertAlmostEqual(result.models["a"].rank_first, 0.5, delta=0.04)
        self.assertAlmostEqual(result.models["a"].rank_first + result.models["b"].rank_first, 1.0, places=12)
        self.assertAlmostEqual(result.models["b"].p_value, 0.75, delta=0.04)

    def test_model_missing_from_a_resample_is_undefined_not_first(self):
        obs = [(f"q{q}", "a", 0.3) for q in range(10)] + [("q0", "b", 0.0)]
        result = question_bootstrap(obs, n_resamples=1000)
        b = result.models["b"]
        # q0 is missed with probability (9/10)**10, about 0.35
        self.assertGreater(b.undefined_resamples, 250)
        self.assertLess(b.undefined_resamples, 450)
        self.assertAlmostEqual(b.rank_first, 1 - b.undefined_resamples / 1000, places=12)


class DeterminismTest(unittest.TestCase):
    def test_same_seed_same_bytes_other_seed_other_draws(self):
        rng = random.Random(2)
        obs = [(f"q{q}", m, rng.random()) for q in range(50) for m in "abc"]
        groups = {f"q{q}": q % 4 for q in range(50)}
        one = json.dumps(question_bootstrap(obs, groups=groups, reference="a", n_resamples=300, seed=9).to_dict())
        two = json.dumps(question_bootstrap(list(reversed(obs)), groups=groups, reference="a", n_resamples=300, seed=9).to_dict())
        other = json.dumps(question_bootstrap(obs, groups=groups, reference="a", n_resamples=300, seed=10).to_dict())
        self.assertEqual(one, two)
        self.assertNotEqual(one, other)


class PartsTest(unittest.TestCase):
    def test_overall_is_the_mean_of_the_part_figures(self):
        # ForecastBench's overall score: the mean of the type means, not the pooled mean.  a is 0.1 on the
        # 2 dataset questions and 0.3 on the 6 market ones: overall 0.2 (pooled: 0.25), in every resample.
        obs = [(f"d{i}", "a", 0.1) for i in range(2)] + [(f"m{i}", "a", 0.3) for i in range(6)]
        obs += [(f"d{i}", "b", 0.2 + 0.1 * i) for i in range(2)] + [(f"m{i}", "b", 0.05 * i) for i in range(6)]
        obs += [(f"m{i}", "c", 0.5) for i in range(6)]  # market questions only
        parts = {f"d{i}": "dataset" for i in range(2)} | {f"m{i}": "market" for i in range(6)}
        result = question_bootstrap(obs, parts=parts, groups=parts, reference="a", n_resamples=300)
        a = result.models["a"]
        self.assertAlmostEqual(a.adjusted.value, 0.2, places=12)
        self.assertAlmostEqual(a.brier.value, 0.2, places=12)
        # Every resample gives 0.2 up to the resampled sums' fixed point (a step of 1 / SCALE).
        self.assertAlmostEqual(a.adjusted.ci_low, 0.2, delta=1 / resampling.SCALE)
        self.assertAlmostEqual(a.adjusted.ci_high, 0.2, delta=1 / resampling.SCALE)
        self.assertEqual(a.questions, 8)
        self.assertAlmostEqual(result.parts["market"]["a"].brier.value, 0.3, places=12)
        self.assertAlmostEqual(result.parts["dataset"]["b"].brier.value, 0.25, places=12)
        # c answered no dataset question: no overall figure (cannot tell), but its market row stands
        self.assertIsNone(result.models["c"].adjusted.value)
        self.assertEqual(result.models["c"].undefined_resamples, 300)
        self.assertIsNotNone(result.parts["market"]["c"].adjusted.value)
        self.assertEqual(sorted(result.to_dict()["parts"]), ["dataset", "market"])

    def test_question_without_a_part_is_an_error(self):
        with self.assertRaises(AnachronError):
            question_bootstrap([("q1", "a", 0.1), ("q2", "a", 0.2)], parts={"q1": "dataset"}, n_resamples=10)


class BatchTest(unittest.TestCase):
    def test_columns_resampled_in_batches_give_the_same_figures(self):
        # A large group's columns are resampled a batch at a time (bounded memory) from the same
        # generator state: the same draws, so the same bytes as one pass.
        rng = random.Random(4)
        obs = [(f"q{q}", m, rng.random()) for q in range(60) for m in "abcd" if rng.random() < 0.8]
        groups = {f"q{q}": q % 3 for q in range(60)}
        one_pass = json.dumps(question_bootstrap(obs, groups=groups, reference="b", n_resamples=200).to_dict())
        with mock.patch.object(resampling, "_BATCH_CELLS", 25):
            batched = json.dumps(question_bootstrap(obs, groups=groups, reference="b", n_resamples=200).to_dict())
        self.assertEqual(one_pass, batched)


class ColumnsTest(unittest.TestCase):
    def test_sums_per_model_or_per_pattern_give_the_same_fit(self):
        # A part of many answer patterns keeps its mean-Brier sums per model instead of per pattern: the
        # same resamples, the same fit, up to the fixed point's rounding.
        rng = random.Random(6)
        obs = [(f"q{q}", m, rng.random()) for q in range(80) for m in "abcd" if rng.random() < 0.6]
        parts = {f"q{q}": "dm"[q % 2] for q in range(80)}
        figures = []
        for threshold in (0, 10**9):
            with mock.patch.object(resampling, "_PATTERNS_PER_MODEL", threshold):
                result = question_bootstrap(obs, parts=parts, groups={f"q{q}": q % 5 for q in range(80)}, reference="a",
                                            n_resamples=200)
            figures.append([(m.adjusted.ci_low, m.adjusted.ci_high, m.brier_index.ci_low, m.p_value, m.rank_first)
                            for rows in result.parts.values() for m in rows.values()])
        # Up to 128 steps of the fixed point: the Brier Index is 100 times a square root of the adjusted Brier.
        for per_model, per_pattern in zip(*figures):
            for x, y in zip(per_model, per_pattern):
                self.assertAlmostEqual(x, y, delta=128 / resampling.SCALE)


def _additive_panel(questions: int = 2000) -> tuple[list[tuple[str, str, float]], dict[str, float]]:
    """Briers that are a question's difficulty plus a model's skill, exactly, on an uneven panel of patterns
    from 1 to 300 questions (a large group: the groups resampler). On every resample each model's adjusted
    Brier is its skill plus the drawn questions' mean difficulty: every model's interval is the complete
    model a's shifted by the skills' difference, and a's adjusted interval is its Brier interval."""
    skill = {"a": 0.05, "b": 0.15, "c": 0.25, "d": 0.35}
    answered = {**dict.fromkeys(range(12), "abcd"), 12: "acd", 13: "acd", 14: "acd", 15: "abd", 16: "abd", 17: "abc",
                18: "ab", 19: "a"}
    rng = random.Random(11)
    obs = []
    for q in range(questions):
        difficulty = rng.random() / 2
        obs += [(f"q{q:05d}", m, difficulty + skill[m]) for m in answered[q % 20]]
    return obs, skill


class PatternBriersTest(unittest.TestCase):
    """A pattern with many questions in a large group draws its Briers per (pattern, model) and its mean-Brier
    sums are made from them: the fit on every resample is still the fit of the drawn questions."""

    def assert_shifted(self, result, skill, places=7):
        a = result.models["a"]
        self.assertAlmostEqual(a.adjusted.ci_low, a.brier.ci_low, places=places)
        self.assertAlmostEqual(a.adjusted.ci_high, a.brier.ci_high, places=places)
        for m, row in result.models.items():
            self.assertAlmostEqual(row.adjusted.ci_low - a.adjusted.ci_low, skill[m] - skill["a"], places=places)
            self.assertAlmostEqual(row.adjusted.ci_high - a.adjusted.ci_high, skill[m] - skill["a"], places=places)

    def test_each_model_is_its_skill_plus_the_drawn_difficulty_sums_per_pattern_or_per_model(self):
        obs, skill = _additive_panel()
        for threshold in (0, 10**9):  # mean-Brier sums per model, or per pattern
            with self.subTest(per_model=threshold == 0), mock.patch.object(resampling, "_PATTERNS_PER_MODEL", threshold):
                result = question_bootstrap(obs, n_resamples=40)
                self.assertGreater(result.models["a"].adjusted.ci_high, result.models["a"].adjusted.ci_low)
                self.assert_shifted(result, skill)

    def test_each_model_is_its_skill_plus_the_drawn_difficulty_with_a_pool(self):
        # Effects fitted on a, b and c: d, outside the pool, is scored against them.
        obs, skill = _additive_panel()
        result = question_bootstrap(obs, n_resamples=40, pool=lambda question, model: model != "d")
        self.assert_shifted(result, skill)

    def test_patterns_drawn_by_their_briers_give_the_figures_of_their_mean_brier_sums(self):
        # With the mean-Brier sums per model the rows keep their order, so the same questions are drawn:
        # the same figures, up to the fixed point's rounding of each question's mean Brier.
        obs, _ = _additive_panel()
        noisy = [(q, m, min(1.0, v + random.Random(q + m).random() / 10)) for q, m, v in obs]
        figures = []
        for rows in (_PATTERN_ROWS_DEFAULT, 10**9):
            with mock.patch.object(resampling, "_PATTERNS_PER_MODEL", 0), mock.patch.object(resampling, "_PATTERN_ROWS", rows):
                result = question_bootstrap(noisy, n_resamples=40, reference="b")
            figures.append([(m.brier.ci_low, m.brier.ci_high, m.adjusted.ci_low, m.adjusted.ci_high, m.p_value, m.rank_first)
                            for m in result.models.values()])
        for drawn_by_briers, drawn_by_means in zip(*figures):
            self.assertEqual(drawn_by_briers[:2], drawn_by_means[:2])  # the Brier sums are the same integers
            self.assertEqual(drawn_by_briers[4:], drawn_by_means[4:])
            for x, y in zip(drawn_by_briers[2:4], drawn_by_means[2:4]):
                self.assertAlmostEqual(x, y, places=8)

    def test_a_large_group_resampled_in_batches_draws_the_same_questions_for_every_column(self):
        # Each batch of columns is drawn from the same generator state by a resampler that orders the rows
        # by its columns: unless the order is fixed, the batches would sum other questions.
        obs, skill = _additive_panel()
        with mock.patch.object(resampling, "_BATCH_CELLS", 4 * 2000):
            result = question_bootstrap(obs, n_resamples=30)
        self.assert_shifted(result, skill)


_PATTERN_ROWS_DEFAULT = resampling._PATTERN_ROWS


class EdgeTest(unittest.TestCase):
    def test_one_question_has_no_interval(self):
        result = question_bootstrap([("q1", "a", 0.25), ("q1", "b", 0.09)], reference="a", n_resamples=100)
        self.assertIsNotNone(result.degenerate)
        a = result.models["a"]
        self.assertAlmostEqual(a.adjusted.value, 0.25, places=12)
        self.assertEqual((a.adjusted.ci_low, a.adjusted.ci_high, a.brier_index.ci_low), (None, None, None))
        self.assertEqual((a.p_value, a.rank_first), (None, None))
        self.assertAlmostEqual(a.brier_index.value, 50.0, places=9)

    def test_bad_inputs_are_errors(self):
        obs = [("q1", "a", 0.25), ("q2", "a", 0.5)]
        for kwargs in ({"n_resamples": 0}, {"n_resamples": -3}, {"n_resamples": 2.5}, {"n_resamples": True},
                       {"confidence": 1.0}, {"confidence": 0.0}, {"reference": "zz"}):
            with self.subTest(kwargs=kwargs), self.assertRaises(AnachronError):
                question_bootstrap(obs, **kwargs)
        for bad in ([("q1", "a", 1.5)], [("q1", "a", float("nan"))], [("q1", "a", True)], [("q1", "a", "0.2")],
                    [("q1", "a", 0.1), ("q1", "a", 0.2)], []):
            with self.subTest(obs=bad), self.assertRaises(AnachronError):
                question_bootstrap(bad, n_resamples=10)

    def test_the_first_bad_observation_in_order_is_named(self):
        # A repeated pair before a Brier out of range is named, and the other way round.
        repeat_first = [("q1", "a", 0.1), ("q2", "b", 0.2), ("q2", "b", 0.3), ("q3", "a", 1.5)]
        with self.assertRaisesRegex(AnachronError, r"^model 'b' scored question 'q2' twice$"):
            question_bootstrap(repeat_first, n_resamples=10)
        range_first = [("q1", "a", 0.1), ("q3", "a", 1.5), ("q2", "b", 0.2), ("q2", "b", 0.3)]
        with self.assertRaisesRegex(AnachronError, r"model 'a', question 'q3': Brier 1\.5 is not in \[0, 1\]"):
            question_bootstrap(range_first, n_resamples=10)

    def test_brier_index(self):
        self.assertEqual(brier_index(0.25), 50.0)
        self.assertEqual(brier_index(1.0), 0.0)
        self.assertIsNone(brier_index(-1e-9))
        self.assertIsNone(brier_index(None))


class DifficultyPoolTest(unittest.TestCase):
    # An uneven panel: a answers every question, b and c skip some, the baseline z answers a few questions
    # and one (q9) that no pool model answered: it has no effect, and is left out of z's adjusted Brier.
    rows = [(f"q{i}", "a", ((i * 7) % 10) / 10) for i in range(9)]
    rows += [(f"q{i}", "b", ((i * 3) % 10) / 12) for i in range(9) if i % 3]
    rows += [(f"q{i}", "c", ((i * 5) % 9) / 9) for i in range(9) if i % 2 == 0]
    rows += [("q1", "z", 0.1), ("q2", "z", 0.6), ("q4", "z", 0.3), ("q7", "z", 0.9), ("q9", "z", 1.0)]
    pool = {"a", "b", "c"}

    def test_point_is_least_squares_on_the_pool_rows_and_every_model_scored_against_it(self):
        require_extra("numpy", "test")
        result = question_bootstrap(self.rows, n_resamples=50, pool=lambda q, m: m in self.pool)
        expected = _scores_against_pool(self.rows, self.pool)
        for model, value in expected.items():
            self.assertAlmostEqual(result.models[model].adjusted.value, value, places=10, msg=model)
        self.assertEqual(result.models["z"].questions, 5)  # q9 counts for its plain Brier, not its adjusted one
        self.assertAlmostEqual(result.models["z"].brier.value, (0.1 + 0.6 + 0.3 + 0.9 + 1.0) / 5, places=12)
        # Left out of the pool, z no longer moves the effects: b's figure differs from the fit on every model.
        every = question_bootstrap([r for r in self.rows if r[0] != "q9"], n_resamples=50)
        self.assertNotAlmostEqual(every.models["b"].adjusted.value, result.models["b"].adjusted.value, places=6)

    def test_interval_ends_are_refits_of_the_pool_on_resamples(self):
        require_extra("numpy", "test")
        rows = [r for r in self.rows if r[0] in ("q1", "q2", "q4", "q5", "q7")]
        panel: dict[str, list[tuple[str, float]]] = {}
        for q, m, b in rows:
            panel.setdefault(q, []).append((m, b))
        fit = _pool_effects(rows, self.pool)
        refits, kept = set(), set()
        for drawn in itertools.combinations_with_replacement(sorted(panel), len(panel)):
            if not any(m == "z" for q in drawn for m, _ in panel[q]):
                continue
            copies = [(f"{q}#{i}", m, b) for i, q in enumerate(drawn) for m, b in panel[q]]
            refits.add(_scores_against_pool(copies, self.pool)["z"])
            # Not refitted: the data's effects kept, recentred on the drawn questions.
            centre = sum(fit[q] for q in drawn) / len(drawn)
            mine = [b - (fit[q] - centre) for q in drawn for m, b in panel[q] if m == "z"]
            kept.add(sum(mine) / len(mine))
        interval = question_bootstrap(rows, n_resamples=2001, seed=4, pool=lambda q, m: m in self.pool).models["z"].adjusted
        ends = (interval.ci_low, interval.ci_high)
        for end in ends:
            self.assertTrue(any(abs(end - r) < 1e-7 for r in refits), (end, sorted(refits)))
        self.assertFalse(all(any(abs(end - k) < 1e-7 for k in kept) for end in ends),
                         "this panel must tell a refit from the kept effects")

    def test_fixed_effects_are_not_refitted(self):
        effects = {"q1": 0.1, "q2": -0.2, "q4": 0.05, "q7": 0.3}  # q9 has none: left out
        result = question_bootstrap(self.rows, n_resamples=2001, seed=2, fixed_effects={"": effects})
        z = result.models["z"].adjusted
        self.assertAlmostEqual(z.value, (0.1 - 0.1 + 0.6 + 0.2 + 0.3 - 0.05 + 0.9 - 0.3) / 4, places=12)
        zb = {q: b for q, m, b in self.rows if m == "z"}
        # Every resample: z's mean of brier - effect over its drawn questions with an effect, the effects as given.
        figures = set()
        for drawn in itertools.combinations_with_replacement(sorted({q for q, _, _ in self.rows}), 10):
            mine = [zb[q] - effects[q] for q in drawn if q in effects]
            if mine:
                figures.add(sum(mine) / len(mine))
        for end in (z.ci_low, z.ci_high):
            self.assertTrue(any(abs(end - f) < 1e-7 for f in figures), end)
        a = result.models["a"].adjusted
        mine = [b - effects[q] for q, m, b in self.rows if m == "a" and q in effects]
        self.assertAlmostEqual(a.value, sum(mine) / len(mine), places=12)

    def test_same_seed_same_figures(self):
        run = lambda: question_bootstrap(self.rows, n_resamples=300, seed=9, reference="a",  # noqa: E731
                                         pool=lambda q, m: m in self.pool).to_dict()
        self.assertEqual(json.dumps(run()), json.dumps(run()))

    def test_fixed_effects_for_a_part_without_questions_is_an_error(self):
        with self.assertRaises(AnachronError):
            question_bootstrap(self.rows, n_resamples=10, parts={q: "dataset" for q, _, _ in self.rows},
                               fixed_effects={"market": {"q1": 0.0}})


class SubsetsTest(unittest.TestCase):
    # Six questions in two groups of three; b skips q2 and q4.  Subset x (q0, q1, q3) straddles the groups.
    rows = [(f"q{i}", "a", ((i * 7) % 10) / 10) for i in range(6)]
    rows += [(f"q{i}", "b", ((i * 3) % 10) / 12) for i in range(6) if i not in (2, 4)]
    rows += [(f"q{i}", "c", ((i * 5) % 9) / 9) for i in range(6)]
    groups = {f"q{i}": i // 3 for i in range(6)}
    subsets = {f"q{i}": ["x" if i in (0, 1, 3) else "y"] for i in range(6)}

    def test_a_subset_is_scored_against_the_effects_refitted_on_the_whole_resample(self):
        result = question_bootstrap(self.rows, groups=self.groups, subsets=self.subsets, n_resamples=2001, seed=5)
        panel: dict[str, dict[str, float]] = {}
        for q, m, b in self.rows:
            panel.setdefault(q, {})[m] = b
        refits, kept = set(), set()
        data_fit = difficulty_adjusted(self.rows)
        data_shift = sum(data_fit.questions.values()) / len(data_fit.questions)
        for one in itertools.combinations_with_replacement(["q0", "q1", "q2"], 3):
            for two in itertools.combinations_with_replacement(["q3", "q4", "q5"], 3):
                drawn = [(f"{q}#{i}", q) for i, q in enumerate(one + two)]
                fit = difficulty_adjusted([(copy, m, v) for copy, q in drawn for m, v in panel[q].items()])
                shift = sum(fit.questions.values()) / len(fit.questions)
                mine = [(panel[q]["b"], fit.questions[copy] - shift, q) for copy, q in drawn if q in ("q0", "q1", "q3")
                        and "b" in panel[q]]
                if mine:
                    refits.add(sum(b - e for b, e, _ in mine) / len(mine))
                    kept.add(sum(b - (data_fit.questions[q] - data_shift) for b, _, q in mine) / len(mine))
        b = result.subsets["x"]["b"].adjusted
        expected = [v - (data_fit.questions[q] - data_shift) for q, m, v in self.rows if m == "b" and q in ("q0", "q1", "q3")]
        self.assertAlmostEqual(b.value, sum(expected) / len(expected), places=12)
        for end in (b.ci_low, b.ci_high):
            self.assertTrue(any(abs(end - r) < 1e-7 for r in refits), (end, sorted(refits)))
        self.assertFalse(all(any(abs(end - k) < 1e-7 for k in kept) for end in (b.ci_low, b.ci_high)),
                         "this panel must tell a refit from the kept effects")

    def test_a_subset_spanning_a_part_gives_the_part_figures_on_the_same_draws(self):
        parts = {f"q{i}": "dataset" if i < 3 else "market" for i in range(6)}
        subsets = {q: [f"type={part}", "all"] for q, part in parts.items()}
        result = question_bootstrap(self.rows, groups=self.groups, parts=parts, subsets=subsets, reference="a",
                                    n_resamples=400, seed=3, pool=lambda q, m: m != "c")
        for part in ("dataset", "market"):
            for model in "abc":
                whole, sub = result.parts[part][model], result.subsets[f"type={part}"][model]
                for got, want in ((sub.adjusted, whole.adjusted), (sub.brier, whole.brier), (sub.brier_index, whole.brier_index)):
                    for x, y in ((got.value, want.value), (got.ci_low, want.ci_low), (got.ci_high, want.ci_high)):
                        self.assertAlmostEqual(x, y, places=7, msg=(part, model))
                self.assertEqual((sub.rank_first, sub.p_value), (whole.rank_first, whole.p_value))
        # "all" straddles the parts: its Brier pools their questions (not the mean of the part means)
        pooled = [b for _, m, b in self.rows if m == "b"]
        self.assertAlmostEqual(result.subsets["all"]["b"].brier.value, sum(pooled) / len(pooled), places=12)
        self.assertEqual(result.subsets["all"]["b"].questions, len(pooled))

    def test_subsets_leave_the_other_figures_as_they_were_to_the_bit(self):
        parts = {f"q{i}": "dataset" if i % 2 else "market" for i in range(6)}
        run = lambda **kw: question_bootstrap(self.rows, groups=self.groups, parts=parts, reference="b",  # noqa: E731
                                              n_resamples=300, seed=1, **kw).to_dict()
        without, with_ = run(), run(subsets=self.subsets)
        self.assertNotIn("subsets", without)
        self.assertEqual(sorted(with_["subsets"]), ["x", "y"])
        for key in ("models", "parts"):
            # the resampled ends and shares are exact sums; the points are equal up to the last bit
            for got, want in zip(with_[key] if key == "models" else with_[key]["dataset"],
                                 without[key] if key == "models" else without[key]["dataset"]):
                for figure in ("brier", "adjusted_brier", "brier_index"):
                    self.assertEqual((got[figure]["ci_low"], got[figure]["ci_high"]), (want[figure]["ci_low"], want[figure]["ci_high"]))
                self.assertEqual((got["p_value"], got["rank_first"]), (want["p_value"], want["rank_first"]))

    def test_a_question_without_subsets_is_an_error(self):
        for bad in ({"q0": ["x"]}, {**self.subsets, "q1": "x"}, {**self.subsets, "q2": [None]}):
            with self.subTest(bad), self.assertRaises(AnachronError):
                question_bootstrap(self.rows, n_resamples=10, subsets=bad)


if __name__ == "__main__":
    unittest.main()
