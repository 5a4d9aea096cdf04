"""The leaderboard's arithmetic through its public API: the difficulty-adjusted Brier against a two-way
fixed-effects least-squares fit solved by numpy on an uneven panel, the pool that leaves models out, the
Brier Index, and the memory gap of knowledge in the weights."""

from __future__ import annotations

import datetime as dt
import random
import tempfile
import unittest
from pathlib import Path

from anachron.core.errors import AnachronError
from anachron.forecasts.forecastbench import load_rounds
from anachron.forecasts.leaderboard import brier_index, build_leaderboard, memory_gap
from tests.forecastbench_fixtures import baselines, forecast_set, make_round, write_round
from tests.support import require_extra


def _fixed_effects_scores(observations, all_models, answered):
    """ForecastBench's adjusted Brier by least squares: brier ~ question + model dummies over *observations*
    (the pool), then each model's mean of brier - question effect, shifted so that Always 0.5 scores 0.25."""
    import numpy as np

    questions = sorted({q for q, _, _ in observations})
    models = sorted({m for _, m, _ in observations})
    qi = {q: i for i, q in enumerate(questions)}
    mi = {m: i for i, m in enumerate(models[1:])}  # the first model's dummy dropped: the questions carry the level
    x = np.zeros((len(observations), len(questions) + len(mi)))
    y = np.zeros(len(observations))
    for row, (q, m, b) in enumerate(observations):
        x[row, qi[q]] = 1.0
        if m in mi:
            x[row, len(questions) + mi[m]] = 1.0
        y[row] = b
    coef = np.linalg.lstsq(x, y, rcond=None)[0]
    effect = {q: coef[qi[q]] for q in questions}
    raw = {m: float(np.mean([b - effect[q] for q, b in answered[m]])) for m in all_models}
    always_half = float(np.mean([0.25 - effect[q] for q in questions]))
    return {m: v + 0.25 - always_half for m, v in raw.items()}


class DifficultyPoolTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = Path(self.tmp.name)

    def _uneven(self):
        r = make_round("2025-03-02", dataset=25, market=0, seed=21)
        rng = random.Random(22)
        sets = baselines(r)
        skill = {"a": 0.8, "b": 0.5, "c": 0.2}
        for name, s in skill.items():
            # Uneven: each model skips a different random third of the questions (model a answers all, so the
            # panel is connected and every question has a pool observation).
            def forecast(ident, source, day, outcome, s=s, name=name):
                if name != "a" and rng.random() < 0.35:
                    return None
                return round(min(1.0, max(0.0, 0.5 + s * (outcome - 0.5) + rng.uniform(-0.3, 0.3))), 4)
            sets[name] = forecast_set(r, name, forecast)
        write_round(self.root, r, sets)
        return load_rounds([str(self.root)])

    def test_adjusted_brier_with_the_baselines_out_of_the_pool_matches_least_squares(self):
        require_extra("numpy", "test")
        rounds = self._uneven()
        for how in ({"pool_preset": True}, {"pool_exclude": ["Always 0", "Always 1", "Always 0.5"]}):
            with self.subTest(how):
                report = build_leaderboard(rounds, n_resamples=100, **how)
                answered, pool = {}, []
                for fs in rounds.sets:
                    rows = []
                    for entry, _, p in rounds.resolve(fs):
                        if entry is not None and entry.outcome is not None:
                            rows.append((entry.sample_id, (p - entry.outcome) ** 2))
                    answered[fs.model] = rows
                    if fs.bare in ("a", "b", "c"):
                        pool += [(q, fs.model, b) for q, b in rows]
                self.assertLess(min(len(answered[m]) for m in ("Lab b", "Lab c")), 50)  # the panel is uneven
                expected = _fixed_effects_scores(pool, list(answered), answered)
                for m in report["models"]:
                    row = next(r for r in m["rows"] if r["value"] == "dataset")
                    self.assertAlmostEqual(row["difficulty_adjusted_brier"], expected[m["model"]], places=9, msg=m["model"])
                self.assertEqual(report["difficulty"]["dataset"]["pool"], ["Lab a", "Lab b", "Lab c"])
                half = next(m for m in report["models"] if m["model"] == "ForecastBench Always 0.5")["rows"][0]
                self.assertAlmostEqual(half["difficulty_adjusted_brier"], 0.25, places=12)

    def test_a_pool_with_the_baselines_differs_from_one_without(self):
        rounds = self._uneven()
        without = build_leaderboard(rounds, n_resamples=100, pool_preset=True)
        every = build_leaderboard(rounds, n_resamples=100)
        get = lambda rep: next(m for m in rep["models"] if m["model"] == "Lab c")["rows"][0]["difficulty_adjusted_brier"]  # noqa: E731
        self.assertNotAlmostEqual(get(without), get(every), places=6)

    def test_models_older_than_365_days_at_the_due_date_leave_the_pool(self):
        from anachron.bank.cutoffs import ModelCutoff

        rounds = self._uneven()
        old = {"Lab b": ModelCutoff("Lab b", dt.date(2023, 1, 1), dt.date(2024, 3, 2)),  # 365 days before: out
               "Lab c": ModelCutoff("Lab c", dt.date(2023, 1, 1), dt.date(2024, 3, 3))}  # 364 days: in
        report = build_leaderboard(rounds, n_resamples=100, pool_preset=True, cutoffs=old)
        self.assertEqual(report["difficulty"]["dataset"]["pool"], ["Lab a", "Lab c"])

    def test_an_interval_function_plugs_in_per_row_with_the_row_groups(self):
        from anachron.forecasts.model_score import score_model

        seen = []

        def score_row(model, samples, entries):
            seen.append((model, {e.qtype for e in entries}, len(samples) == len(entries)))
            return score_model(model, samples, baseline="0.5", n_resamples=100)
        report = build_leaderboard(self._uneven(), n_resamples=100, score_row=score_row)
        self.assertEqual(sorted(seen), sorted((m["model"], {"dataset"}, True) for m in report["models"]))

    def test_unknown_reference_is_an_error(self):
        with self.assertRaises(AnachronError):
            build_leaderboard(self._uneven(), n_resamples=100, reference="nobody")


class ByRowsTest(unittest.TestCase):
    """The --by rows and every row's Brier CI come from the question bootstrap: questions resampled within
    (due date, source), the same draws as the adjusted Brier's."""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        root = Path(self.tmp.name)
        # One round: 10 dataset questions, two per dataset source, each at two horizons (groups of four
        # entries); 4 market questions, one per market source (groups of one: no spread in the bootstrap).
        r = make_round("2025-03-02", dataset=10, market=4, seed=31)
        rng = random.Random(32)
        sets = baselines(r)
        for name, skill in (("a", 0.7), ("b", 0.3)):
            sets[name] = forecast_set(r, name, lambda i, s, d, o, k=skill: round(min(1.0, max(0.0, 0.5 + k * (o - 0.5) + rng.uniform(-0.3, 0.3))), 4))
        write_round(root, r, sets)
        self.rounds = load_rounds([str(root)])

    def _rows(self, report, model):
        return {(r["group"], r["value"]): r for r in next(m for m in report["models"] if m["model"] == model)["rows"]}

    def test_a_row_whose_groups_hold_one_question_each_has_no_spread(self):
        report = build_leaderboard(self.rounds, by=["source"], n_resamples=300, seed=2, reference="Lab b")
        rows = self._rows(report, "Lab a")
        for key in (("type", "market"), ("source", "manifold"), ("source", "infer")):
            brier = rows[key]["brier"]
            self.assertEqual(brier["ci_low"], brier["ci_high"], key)  # every resample draws the same questions
            self.assertAlmostEqual(brier["ci_low"], brier["value"], places=7, msg=key)  # in fixed point (2**-23)
            self.assertAlmostEqual(rows[key]["adjusted_brier_ci"][0], rows[key]["adjusted_brier_ci"][1], places=7, msg=key)
        for key in (("type", "dataset"), ("source", "acled"), ("overall", "overall")):
            brier = rows[key]["brier"]
            self.assertLess(brier["ci_low"], brier["ci_high"], key)
            low, high = rows[key]["adjusted_brier_ci"]
            self.assertLess(low, high, key)
            self.assertLessEqual(brier["ci_low"], brier["value"])
            self.assertLessEqual(brier["value"], brier["ci_high"])
        for r in rows.values():
            self.assertIsNotNone(r["p_value"], r["value"])
            self.assertIsNotNone(r["rank_first"], r["value"])
            self.assertIsNotNone(r["brier_index_ci"], r["value"])

    def test_every_row_takes_its_intervals_from_the_grouped_question_bootstrap(self):
        from anachron.forecasts.resampling import question_bootstrap

        report = build_leaderboard(self.rounds, by=["source", "round"], n_resamples=200, seed=4)
        observations, groups, parts, subsets = [], {}, {}, {}
        for fs in self.rounds.sets:
            for entry, _, p in self.rounds.resolve(fs):
                if entry is not None and entry.outcome is not None:
                    observations.append((entry.sample_id, fs.model, (p - entry.outcome) ** 2))
                    groups[entry.sample_id] = (entry.round.isoformat(), entry.source)
                    parts[entry.sample_id] = entry.qtype
                    subsets[entry.sample_id] = [f"source={entry.source}", f"round={entry.round.isoformat()}"]
        direct = question_bootstrap(observations, groups=groups, parts=parts, subsets=subsets, n_resamples=200, seed=4)
        for m in report["models"]:
            for r in m["rows"]:
                figures = (direct.models if r["group"] == "overall" else direct.parts[r["value"]] if r["group"] == "type"
                           else direct.subsets[f"{r['group']}={r['value']}"])[m["model"]]
                with self.subTest(model=m["model"], row=(r["group"], r["value"])):
                    self.assertEqual([r["brier"]["ci_low"], r["brier"]["ci_high"]], [figures.brier.ci_low, figures.brier.ci_high])
                    self.assertEqual(r["adjusted_brier_ci"], [figures.adjusted.ci_low, figures.adjusted.ci_high])
                    self.assertEqual(r["brier_index_ci"], [figures.brier_index.ci_low, figures.brier_index.ci_high])
                    self.assertEqual(r["rank_first"], figures.rank_first)
                    if "brier_skill" in r and r["brier"]["ci_low"] is not None:
                        # the skill ratio 1 - Brier / 0.25: the Brier's ends, mapped and swapped
                        self.assertAlmostEqual(r["brier_skill"]["ci_low"], 1 - r["brier"]["ci_high"] / 0.25, places=12)
                        self.assertAlmostEqual(r["brier_skill"]["ci_high"], 1 - r["brier"]["ci_low"] / 0.25, places=12)

    def test_progress_counts_each_question_then_each_model_s_forecasts_per_row_up_to_its_total(self):
        calls = []
        report = build_leaderboard(self.rounds, by=["source", "round"], n_resamples=20,
                                   progress=lambda done, total: calls.append((done, total)))
        forecasts = [next(r for r in m["rows"] if r["group"] == "overall")["n"] for m in report["models"]]
        total = report["question_bootstrap"]["questions"] + 3 * sum(forecasts)  # type, source and round rows
        self.assertEqual({t for _, t in calls}, {total})
        self.assertEqual(sum(done for done, _ in calls), total)
        self.assertEqual(sorted(done for done, _ in calls[-len(forecasts):]), sorted(3 * n for n in forecasts))

    def test_an_unknown_grouping_is_an_error(self):
        with self.assertRaises(AnachronError):
            build_leaderboard(self.rounds, by=["model"], n_resamples=10)

    def test_no_resample_is_an_error_before_any_work(self):
        for bad in (0, -1, 2.5, True):
            with self.assertRaisesRegex(AnachronError, "n_resamples"):
                build_leaderboard(self.rounds, n_resamples=bad)


class BrierIndexTest(unittest.TestCase):
    def test_the_index_of_the_reference_points(self):
        self.assertEqual(brier_index(0.25), 50.0)
        self.assertEqual(brier_index(0.0), 100.0)
        self.assertAlmostEqual(brier_index(0.09), 70.0, places=12)
        self.assertIsNone(brier_index(-0.01))  # no square root: never a made-up figure
        self.assertIsNone(brier_index(None))


class MemoryGapTest(unittest.TestCase):
    def test_one_empty_side_has_no_gap(self):
        out = memory_gap([], [0.1, 0.2], n_resamples=100, seed=0, confidence=0.95)
        self.assertIsNone(out["gap"]["value"])
        self.assertIn("no question on one side of the cutoff: no gap", out["warnings"])

    def test_no_resample_is_an_error_even_with_an_empty_side(self):
        for before in ([], [0.1, 0.2]):
            with self.assertRaisesRegex(AnachronError, "n_resamples"):
                memory_gap(before, [0.1, 0.3], n_resamples=0, seed=0, confidence=0.95)

    def test_the_gap_is_after_minus_before_with_a_seeded_interval(self):
        rng = random.Random(3)
        before = [rng.uniform(0, 0.1) for _ in range(40)]
        after = [rng.uniform(0.2, 0.3) for _ in range(40)]
        one = memory_gap(before, after, n_resamples=200, seed=5, confidence=0.95)
        self.assertEqual(one, memory_gap(before, after, n_resamples=200, seed=5, confidence=0.95))
        self.assertAlmostEqual(one["gap"]["value"], sum(after) / 40 - sum(before) / 40, places=12)
        self.assertLess(one["gap"]["ci_low"], one["gap"]["value"])
        self.assertGreater(one["gap"]["ci_low"], 0)


if __name__ == "__main__":
    unittest.main()
