"""The report of ``anachron outcomes`` (anachron.forecasts.report): missing resolutions counted, the baselines,
the leak split per model, the paired comparisons and the badges."""

from __future__ import annotations

import json
import math
import unittest

from tests.outcome_fixtures import OutcomesCase, jsonl, score_doc, score_record


class ReportTest(OutcomesCase):
    def test_scores_and_missing_resolutions(self):
        report = self.report(self.pred, self.res)
        (m,) = report["models"]
        self.assertEqual(m["model"], "m-a")
        self.assertEqual(m["n"], 3)
        self.assertAlmostEqual(m["brier"]["value"], (0.1**2 + 0.2**2 + 0.6**2) / 3)
        self.assertEqual(m["missing_resolutions"], {"n": 1, "samples": ["s4"]})  # counted, never dropped silently
        self.assertAlmostEqual(m["brier_skill"]["value"], 1 - m["brier"]["value"] / 0.25)
        self.assertEqual(report["baseline"], "0.5")
        self.assertEqual(report["log_clip"], 1e-6)
        self.assertFalse(report["leak_split"])
        code, out, _ = self.outcomes(self.pred, self.res)
        self.assertIn("1 forecast(s) without a resolution, not scored: s4", out)

    def test_base_rate_and_given_baseline(self):
        report = self.report(self.pred, self.res, "--baseline", "base-rate")
        self.assertAlmostEqual(report["base_rate"], 1 / 3)
        other = self.files.write("only1.jsonl", jsonl([{"sample_id": "s1", "probability": 0.5, "model": "m-b"}]))
        both = self.report(self.pred, other, self.res, "--baseline", "base-rate")
        self.assertAlmostEqual(both["base_rate"], 1 / 3)  # s1 once, though two models forecast it
        (b,) = [m for m in both["models"] if m["model"] == "m-b"]
        self.assertAlmostEqual(b["brier_skill"]["value"], 1 - 0.25 / (1 - 1 / 3) ** 2)
        base = self.files.write("market.jsonl", jsonl([{"sample_id": s, "probability": 0.5} for s in ("s1", "s2", "s3")]))
        given = self.report(self.pred, self.res, "--baseline", base)
        self.assertEqual(given["models"][0]["brier_skill"]["value"], self.report(self.pred, self.res)["models"][0]["brier_skill"]["value"])
        short = self.files.write("short.jsonl", jsonl([{"sample_id": "s1", "probability": 0.5}]))
        code, out, err = self.outcomes(self.pred, self.res, "--baseline", short)
        self.assertEqual((code, out), (2, ""))
        self.assertIn("no baseline forecast for sample 's2'", err)

    def test_categorical(self):
        pred = self.files.write("c.jsonl", jsonl([{"sample_id": "c1", "probabilities": {"x": 0.5, "y": 0.3, "z": 0.2}}]))
        res = self.files.write("cr.jsonl", jsonl([{"sample_id": "c1", "resolved_to": "y"}]))
        (m,) = self.report(pred, res)["models"]
        self.assertAlmostEqual(m["brier"]["value"], (0.5**2 + 0.7**2 + 0.2**2) / 2)
        self.assertEqual(m["model"], "c")  # no model field: the file's name
        code, _, err = self.outcomes(pred, res, "--baseline", "base-rate")
        self.assertEqual(code, 2)
        self.assertIn("base-rate needs binary", err)

    def test_leak_split(self):
        scores = self.files.write("s.json", score_doc({
            "s1": {"result_leaks": 1}, "s2": {"result_leaks": 0}, "s3": {"undated": 1},
        }))
        (m,) = self.report(self.pred, self.res, "--scores", scores)["models"]
        split = m["leak_split"]
        self.assertEqual((split["clean"]["n"], split["leaked"]["n"], split["unverified"]["n"]), (1, 1, 1))
        self.assertAlmostEqual(split["clean"]["value"], 0.2**2)
        self.assertAlmostEqual(split["inflation"]["value"], m["brier"]["value"] - 0.2**2)
        sourced = self.files.write("src.json", score_doc({
            "s1": {"answer_leaks_retrieved": 1}, "s2": {}, "s3": {"answer_leaks_parametric": 2},
        }))
        (m,) = self.report(self.pred, self.res, "--scores", sourced)["models"]
        by_source = m["leak_split"]["by_source"]
        self.assertEqual((by_source["retrieved"]["brier"]["n"], by_source["parametric"]["brier"]["n"]), (1, 1))
        self.assertAlmostEqual(by_source["retrieved"]["brier"]["value"], 0.1**2)
        self.assertAlmostEqual(by_source["parametric"]["inflation"]["value"], (0.2**2 + 0.6**2) / 2 - 0.2**2)
        code, out, _ = self.outcomes(self.pred, self.res, "--scores", sourced)
        self.assertIn("retrieved answer leaks 1 (Brier 0.010", out)
        self.assertIn("parametric answer leaks 1 (Brier 0.360", out)
        # a sample missing from the scores cannot be shown clean
        partial = self.files.write("p.json", score_doc({"s1": {}, "s2": {}}))
        (m,) = self.report(self.pred, self.res, "--scores", partial)["models"]
        self.assertEqual(m["leak_split"]["unverified"]["n"], 1)
        self.assertEqual(m["unscored_samples"], {"n": 1, "samples": ["s3"]})

    def test_scores_per_model_and_bad_scores(self):
        other = self.files.write("b.jsonl", jsonl([{"sample_id": s, "probability": 0.5, "model": "m-b"} for s in ("s1", "s2", "s3")]))
        sa = self.files.write("sa.json", score_doc({s: {} for s in ("s1", "s2", "s3")}))
        sb = self.files.write("sb.json", score_doc({s: {"result_leaks": 1} for s in ("s1", "s2", "s3")}))
        report = self.report(self.pred, other, self.res, "--scores", f"m-a={sa}", "--scores", f"m-b={sb}")
        by = {m["model"]: m for m in report["models"]}
        self.assertEqual(by["m-a"]["leak_split"]["clean"]["n"], 3)
        self.assertEqual(by["m-b"]["leak_split"]["leaked"]["n"], 3)
        (comparison,) = report["comparisons"]
        self.assertEqual((comparison["a"], comparison["b"], comparison["n"], comparison["metric"]), ("m-a", "m-b", 3, "brier"))
        self.assertAlmostEqual(comparison["mean_reduction"], by["m-a"]["brier"]["value"] - by["m-b"]["brier"]["value"])
        for argv, message in (
            (("--scores", f"nobody={sa}"), "names model 'nobody'"),
            (("--scores", sa, "--scores", f"m-a={sa}"), "not both"),
            (("--scores", sa, "--scores", sa), "given twice"),
        ):
            with self.subTest(argv=argv):
                code, out, err = self.outcomes(self.pred, other, self.res, *argv)
                self.assertEqual((code, out), (2, ""))
                self.assertIn(message, err)
        bad = self.files.write("bad.json", json.dumps({"samples": [{**score_record("s1"), "result_leaks": -1}]}))
        code, _, err = self.outcomes(self.pred, self.res, "--scores", bad)
        self.assertEqual(code, 2)
        self.assertIn("bad.json: samples[0] (sample 's1'): result_leaks must be a non-negative integer, got -1", err)

    def test_badges(self):
        # Released on the day of s1 and s2's resolution (2024-03-01): web-locked only (the conservative side).
        on_day = self.files.write("cut1.json", json.dumps({"m-a": {"training_cutoff": "2023-01-01", "release_date": "2024-03-01"}}))
        (m,) = self.report(self.pred, self.res, "--model-cutoffs", on_day)["models"]
        self.assertEqual(m["badge"], "web-locked only")
        before = self.files.write("cut2.json", json.dumps({"m-a": {"training_cutoff": "2023-01-01", "release_date": "2024-02-29"}}))
        (m,) = self.report(self.pred, self.res, "--model-cutoffs", before)["models"]
        self.assertEqual(m["badge"], "pre-event model")
        other = self.files.write("cut3.json", json.dumps({"m-z": {"training_cutoff": "2023-01-01", "release_date": "2023-02-01"}}))
        (m,) = self.report(self.pred, self.res, "--model-cutoffs", other)["models"]
        self.assertEqual(m["badge"], "web-locked only")
        self.assertIn("not in --model-cutoffs", m["badge_reason"])
        (m,) = self.report(self.pred, self.res)["models"]
        self.assertEqual(m["badge"], "web-locked only")  # no table: nothing shows it predates the events
        undated = self.files.write("res5.jsonl", '{"sample_id": "s1", "resolved_to": 1}\n')
        (m,) = self.report(self.pred, undated, "--model-cutoffs", before)["models"]
        self.assertEqual(m["badge"], "web-locked only")  # no resolution date and no T: cannot tell
        with_t = self.files.write("res6.jsonl", '{"sample_id": "s1", "resolved_to": 1, "as_of": "2024-03-01"}\n')
        (m,) = self.report(self.pred, with_t, "--model-cutoffs", before)["models"]
        self.assertEqual(m["badge"], "pre-event model")  # released before T, so before the event

    def test_binary_models_score_alike_in_columns_and_sample_by_sample(self):
        # Binary forecasts against a constant baseline are scored in columns; a cutoffs table naming no model
        # sends every model through the per-sample loop instead.  Every figure but the badge is the same.
        rows = [{"sample_id": f"q{i}", "probability": p} for i, p in enumerate([0.0, 1.0, 0.5, 1e-9, 0.999999, 0.3, 0.71, 0.2])]
        pred = self.files.write("bin.jsonl", jsonl(rows + [{"sample_id": "q99", "probability": 0.4}]))  # q99: unresolved
        other = self.files.write("other.jsonl", jsonl([{"sample_id": f"q{i}", "probability": 0.1 * i} for i in range(1, 8)]))
        res = self.files.write("bres.jsonl", jsonl([{"sample_id": f"q{i}", "resolved_to": i % 3 % 2} for i in range(8)]))
        cutoffs = self.files.write("none.json", json.dumps({"m-z": {"training_cutoff": "2023-01-01", "release_date": "2023-02-01"}}))
        for baseline in ("0.5", "base-rate"):
            with self.subTest(baseline=baseline):
                columns = self.report(pred, other, res, "--baseline", baseline)
                loop = self.report(pred, other, res, "--baseline", baseline, "--model-cutoffs", cutoffs)
                for report in (columns, loop):
                    for model in report["models"]:
                        del model["badge_reason"]
                self.assertEqual(columns, loop)
                (b, _) = columns["models"]
                self.assertEqual((b["n"], b["missing_resolutions"]), (8, {"n": 1, "samples": ["q99"]}))
                given = [(r["probability"], i % 3 % 2) for i, r in enumerate(rows)]  # what each gave to what happened
                self.assertAlmostEqual(b["log_loss"]["value"], sum(-math.log(max(p if o else 1 - p, 1e-6)) for p, o in given) / 8)
                self.assertAlmostEqual(b["brier"]["value"], sum((p - o) ** 2 for p, o in given) / 8)


if __name__ == "__main__":
    unittest.main()


class QuestionBootstrapInReportTest(OutcomesCase):
    def test_adjusted_brier_interval_and_first_place_shares(self):
        other = self.files.write("b.jsonl", jsonl([
            {"sample_id": "s1", "probability": 0.5, "model": "m-b"},
            {"sample_id": "s2", "probability": 0.5, "model": "m-b"},
        ]))
        report = self.report(self.pred, other, self.res)
        self.assertEqual(report["question_bootstrap"]["questions"], 3)
        # the resolution files carry no source: every question is its own unit, and the report says so
        self.assertEqual((report["question_bootstrap"]["groups"], report["question_bootstrap"]["ungrouped_questions"]), (0, 3))
        shares = 0.0
        for m in report["models"]:
            adjusted = m["difficulty_adjusted"]
            self.assertAlmostEqual(adjusted["value"], m["difficulty_adjusted_brier"], places=9)
            self.assertLessEqual(adjusted["ci_low"], adjusted["ci_high"])
            self.assertAlmostEqual(adjusted["brier_index"]["value"], (1 - adjusted["value"] ** 0.5) * 100, places=9)
            shares += adjusted["rank_first"]
        self.assertAlmostEqual(shares, 1.0, places=9)

    def test_progress_counts_models_bootstrap_and_pairs(self):
        from anachron.forecasts.report import build_report

        other = self.files.write("b.jsonl", jsonl([{"sample_id": "s1", "probability": 0.5, "model": "m-b"}]))
        calls = []
        build_report([self.pred, other], self.res, n_resamples=100, progress=lambda n, total: calls.append((n, total)))
        self.assertEqual(calls, [(1, 4)] * 4)  # 2 models, the question bootstrap, 1 pair
