"""``anachron outcomes``: the input shapes, bad inputs, the leak split, badges, HTML, and the README example."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import tempfile
import unittest
from pathlib import Path

from tests.support import ROOT, run_cli


def jsonl(rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


class Files:
    def __init__(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.root = Path(self.dir.name)

    def write(self, name: str, text: str) -> str:
        path = self.root / name
        path.write_text(text, encoding="utf-8")
        return str(path)


def score_doc(samples: dict[str, dict]) -> str:
    return json.dumps({"samples": [{"sample_id": s, "as_of": "2024-01-01", **fields} for s, fields in samples.items()],
                       "summary": {}})


class OutcomesCliTest(unittest.TestCase):
    def setUp(self) -> None:
        self.files = Files()
        self.addCleanup(self.files.dir.cleanup)
        w = self.files.write
        self.pred = w("a.jsonl", jsonl([
            {"sample_id": "s1", "probability": 0.9, "model": "m-a"},
            {"sample_id": "s2", "probability": 0.2, "model": "m-a"},
            {"sample_id": "s3", "probability": 0.6, "model": "m-a"},
            {"sample_id": "s4", "probability": 0.5, "model": "m-a"},
        ]))
        self.res = w("res.jsonl", jsonl([
            {"sample_id": "s1", "resolved_to": 1, "resolution_date": "2024-03-01"},
            {"sample_id": "s2", "resolved_to": 0, "resolution_date": "2024-03-01"},
            {"sample_id": "s3", "resolved_to": 0, "resolution_date": "2024-03-02"},
        ]))

    def outcomes(self, *argv: str) -> tuple[int, str, str]:
        return run_cli("outcomes", *argv, "--resamples", "200")

    def report(self, *argv: str) -> dict:
        code, out, err = self.outcomes(*argv, "--format", "json")
        self.assertEqual(code, 0, err)
        return json.loads(out)

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

    def test_same_input_same_bytes(self):
        for form in ("json", "table"):
            with self.subTest(form):
                one = self.outcomes(self.pred, self.res, "--format", form)
                self.assertEqual(one[0], 0, one[2])
                self.assertEqual(one, self.outcomes(self.pred, self.res, "--format", form))

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

    def test_bad_inputs_name_file_and_line(self):
        cases = {
            "out of range": ('{"sample_id": "s1", "probability": 1.5}\n', r"bad\.jsonl:1 \(sample s1\): probability is 1\.5"),
            "negative": ('\n{"sample_id": "s1", "probability": -0.1}\n', r"bad\.jsonl:2 \(sample s1\): probability is -0\.1"),
            "NaN": ('{"sample_id": "s1", "probability": NaN}\n', r"bad\.jsonl:1"),
            "string": ('{"sample_id": "s1", "probability": "0.5"}\n', r"bad\.jsonl:1 \(sample s1\): probability is the string"),
            "sum": ('{"sample_id": "s1", "probabilities": {"a": 0.5, "b": 0.6}}\n', r"bad\.jsonl:1 \(sample s1\): probabilities sum to 1\.1, not 1 \(tolerance 1e-06\)"),
            "no sample id": ('{"probability": 0.5}\n', r"bad\.jsonl:1: sample_id is"),
            "nothing": ('{"sample_id": "s1"}\n', r"bad\.jsonl:1 \(sample s1\): no probability"),
            "two kinds": ('{"sample_id": "s1", "probability": 0.5, "probabilities": {"a": 0.5, "b": 0.5}}\n',
                          r"bad\.jsonl:1 \(sample s1\): both probability and probabilities"),
            "a probability and an answer": ('{"sample_id": "s1", "probability": 0.5, "answer": "90%"}\n',
                                            r"bad\.jsonl:1 \(sample s1\): both probability and answer"),
            "a lone surrogate in an id": ('{"sample_id": "s\\ud800", "probability": 2}\n', r"bad\.jsonl:1 \(sample s.{1,6}\): probability is 2"),
            "U+2028 in an id": ('{"sample_id": "s\u2028", "probability": 1.5}\n', r"bad\.jsonl:1 \(sample s\u2028\): probability is 1\.5"),
            "twice": ('{"sample_id": "s1", "probability": 0.5}\n{"sample_id": "s1", "probability": 0.4}\n', r"bad\.jsonl:2: .*twice \(first at .*bad\.jsonl:1\)"),
            "not an object": ("[1]\n", r"bad\.jsonl:1: expected a JSON object"),
        }
        for name, (text, pattern) in cases.items():
            with self.subTest(name):
                bad = self.files.write("bad.jsonl", text)
                code, out, err = self.outcomes(bad, self.res)
                self.assertEqual((code, out), (2, ""))
                self.assertEqual(err.count("\n"), 1, err)
                self.assertRegex(err, pattern)

    def test_bad_resolutions(self):
        cases = {
            "a value": ('{"sample_id": "s1", "resolved_to": 2}\n', r"res2\.jsonl:1 \(sample s1\): resolved_to is 2"),
            "twice": ('{"sample_id": "s1", "resolved_to": 1}\n{"sample_id": "s1", "resolved_to": 0}\n', r"res2\.jsonl:2: .*resolved twice"),
            "a date": ('{"sample_id": "s1", "resolved_to": 1, "resolution_date": "2024-02-30"}\n', r"res2\.jsonl:1: resolution_date"),
            "a time": ('{"sample_id": "s1", "resolved_to": 1, "resolution_date": "2024-02-01T25:00"}\n', r"res2\.jsonl:1: resolution_date"),
        }
        for name, (text, pattern) in cases.items():
            with self.subTest(name):
                bad = self.files.write("res2.jsonl", text)
                code, out, err = self.outcomes(self.pred, bad)
                self.assertEqual((code, out), (2, ""))
                self.assertRegex(err, pattern)
        option = self.files.write("res3.jsonl", '{"sample_id": "s1", "resolved_to": "yes"}\n')
        code, out, err = self.outcomes(self.pred, option)
        self.assertEqual((code, out), (2, ""))
        self.assertRegex(err, r"res3\.jsonl:1: sample 's1': a binary forecast needs a resolution of 0 or 1")
        categorical = self.files.write("cat.jsonl", '{"sample_id": "s1", "probabilities": {"a": 0.5, "b": 0.5}}\n')
        other = self.files.write("res7.jsonl", '\n{"sample_id": "s1", "resolved_to": "c"}\n')
        code, out, err = self.outcomes(categorical, other)
        self.assertEqual((code, out), (2, ""))
        self.assertEqual(err.count("\n"), 1, err)
        self.assertRegex(err, r"res7\.jsonl:2: sample 's1': resolved to 'c', not one of the options \['a', 'b'\]")
        none = self.files.write("res4.jsonl", '{"sample_id": "zz", "resolved_to": 1}\n')
        code, _, err = self.outcomes(self.pred, none)
        self.assertEqual(code, 2)
        self.assertIn("none of its 4 forecasts has a resolution", err)

    def test_bad_documents(self):
        w = self.files.write
        cases = [
            ((self.pred, w("r.json", json.dumps({"resolutions": {"id": 1}}))), r"r\.json: resolutions is an object, expected an array"),
            ((w("f.json", json.dumps({"forecasts": 3})), self.res), r"f\.json: forecasts is 3, expected an array"),
            ((self.pred, self.res, "--scores", w("s.json", "[]")), r"s\.json: expected the output of `anachron score --format json`"),
            ((self.pred, self.res, "--scores", w("s2.json", json.dumps({"samples": [{"sample_id": "s1"}, {"sample_id": "s1"}]}))),
             r"s2\.json: samples\[1\]: sample 's1' scored twice"),
            ((self.pred, self.res, "--baseline", w("two.jsonl", jsonl([{"sample_id": "s1", "probability": 0.5, "model": "x"},
                                                                   {"sample_id": "s1", "probability": 0.5, "model": "y"}]))),
             r"two\.jsonl: a baseline file holds one forecaster, found 2"),
            ((self.pred, self.pred, self.res), r"model 'm-a' is also in another forecast file"),
            ((self.pred, str(self.files.root / "absent.jsonl")), r"absent\.jsonl"),
            ((self.pred, w("empty.jsonl", "")), r"empty\.jsonl: no resolution entry"),
            ((self.pred, w("blank.jsonl", "\n\n")), r"blank\.jsonl: no resolution entry"),
            ((self.pred, w("emptyset.json", json.dumps({"resolutions": []}))), r"emptyset\.json: no resolution entry"),
            ((w("nothing.jsonl", ""), self.res), r"nothing\.jsonl: no forecast"),
        ]
        for argv, pattern in cases:
            with self.subTest(pattern=pattern):
                code, out, err = self.outcomes(*argv)
                self.assertEqual((code, out), (2, ""))
                self.assertEqual(err.count("\n"), 1, err)
                self.assertRegex(err, pattern)

    def test_html_is_deterministic(self):
        one, two = str(self.files.root / "1.html"), str(self.files.root / "2.html")
        self.assertEqual(self.outcomes(self.pred, self.res, "--html", one)[0], 0)
        self.assertEqual(self.outcomes(self.pred, self.res, "--html", two)[0], 0)
        self.assertEqual(Path(one).read_bytes(), Path(two).read_bytes())

    def test_categorical(self):
        pred = self.files.write("c.jsonl", jsonl([{"sample_id": "c1", "probabilities": {"x": 0.5, "y": 0.3, "z": 0.2}}]))
        res = self.files.write("cr.jsonl", jsonl([{"sample_id": "c1", "resolved_to": "y"}]))
        (m,) = self.report(pred, res)["models"]
        self.assertAlmostEqual(m["brier"]["value"], (0.5**2 + 0.7**2 + 0.2**2) / 2)
        self.assertEqual(m["model"], "c")  # no model field: the file's name
        code, _, err = self.outcomes(pred, res, "--baseline", "base-rate")
        self.assertEqual(code, 2)
        self.assertIn("base-rate needs binary", err)

    def test_trace_answers(self):
        traces = self.files.write("t.jsonl", jsonl([
            {"sample_id": "s1", "as_of": "2024-01-01", "interactions": [], "answer": "My forecast: 80%"},
            {"sample_id": "s2", "as_of": "2024-01-01", "interactions": [], "answer": "No idea."},
            {"sample_id": "s3", "as_of": "2024-01-01", "interactions": [], "answer": None},
        ]))
        (m,) = self.report(traces, self.res)["models"]
        self.assertEqual(m["n"], 1)
        self.assertAlmostEqual(m["brier"]["value"], 0.2**2)
        self.assertEqual(m["unread_answers"], {"n": 2, "samples": ["s2", "s3"]})
        silent = self.files.write("u.jsonl", jsonl([{"sample_id": "s1", "as_of": "2024-01-01", "answer": "No idea."}]))
        code, out, err = self.outcomes(silent, self.res)
        self.assertEqual((code, out), (2, ""))
        self.assertIn("model 'u': none of its 1 answers states a probability", err)

    def test_forecastbench_shapes(self):
        forecast = self.files.write("fb.json", json.dumps({
            "organization": "Org", "model": "Model-1", "question_set": "2025-03-02-llm.json", "forecast_due_date": "2025-03-02",
            "forecasts": [
                {"id": "m1", "source": "manifold", "forecast": 0.8, "resolution_date": None, "direction": None},
                {"id": "d1", "source": "fred", "forecast": 0.3, "resolution_date": "2025-03-09", "direction": None},
                {"id": "d1", "source": "fred", "forecast": 0.4, "resolution_date": "2025-06-02", "direction": None},
                {"id": ["a", "b"], "source": "acled", "forecast": 0.1, "resolution_date": "2025-03-09", "direction": [1, -1]},
                {"id": "t1", "source": "manifold", "forecast": 0.5, "resolution_date": "2025-03-06", "direction": None},
            ]}))
        resolution = self.files.write("fbr.json", json.dumps({
            "forecast_due_date": "2025-03-02", "question_set": "2025-03-02-llm.json",
            "resolutions": [
                {"id": "m1", "source": "manifold", "direction": None, "resolution_date": None, "resolved_to": 1.0, "resolved": True},
                {"id": "t1", "source": "manifold", "direction": None, "resolution_date": "2025-03-05T23:30:00-05:00", "resolved_to": 0.0, "resolved": True},
                {"id": "d1", "source": "fred", "direction": None, "resolution_date": "2025-03-09", "resolved_to": 0.0, "resolved": True},
                {"id": "d1", "source": "fred", "direction": None, "resolution_date": "2025-06-02", "resolved_to": None, "resolved": False},
                {"id": ["a", "b"], "source": "acled", "direction": [1, -1], "resolution_date": "2025-03-09", "resolved_to": 0.0, "resolved": True},
            ]}))
        report = self.report(forecast, resolution)
        (m,) = report["models"]
        self.assertEqual(m["model"], "Org Model-1")
        self.assertEqual(m["n"], 4)  # t1 resolved at 23:30 on the 5th, UTC-5: its UTC day, the 6th, as forecast
        self.assertAlmostEqual(m["brier"]["value"], (0.2**2 + 0.3**2 + 0.1**2 + 0.5**2) / 4)
        self.assertEqual(m["missing_resolutions"]["samples"], ["d1@2025-06-02"])
        self.assertEqual(report["unresolved_entries"], 1)
        # The market question has no resolution date: its T is the set's forecast_due_date.
        cut = self.files.write("fbcut.json", json.dumps({"Org Model-1": {"training_cutoff": "2024-01-01", "release_date": "2025-03-01"}}))
        self.assertEqual(self.report(forecast, resolution, "--model-cutoffs", cut)["models"][0]["badge"], "pre-event model")
        cut = self.files.write("fbcut2.json", json.dumps({"Org Model-1": {"training_cutoff": "2024-01-01", "release_date": "2025-03-02"}}))
        self.assertEqual(self.report(forecast, resolution, "--model-cutoffs", cut)["models"][0]["badge"], "web-locked only")
        bad = self.files.write("fbbad.json", json.dumps({"model": "x", "forecasts": [{"id": "q", "forecast": 2}]}))
        code, _, err = self.outcomes(bad, resolution)
        self.assertEqual(code, 2)
        self.assertRegex(err, r"fbbad\.json: forecasts\[0\] \(sample q\): probability is 2")

    def test_forecastbench_market_questions_as_published(self):
        # As ForecastBench publishes them: a market question's forecast has "resolution_date": null, its
        # resolution entry the market's close date (forecast_sets/2024-07-21, resolution_sets/2026-03-01).
        forecast = self.files.write("fb.json", json.dumps({
            "organization": "Org", "model": "M", "forecast_due_date": "2026-03-01", "forecasts": [
                {"id": "mkt", "source": "manifold", "forecast": 0.8, "resolution_date": None, "direction": None},
                {"id": "open", "source": "manifold", "forecast": 0.3, "resolution_date": None, "direction": None},
                {"id": "ds", "source": "fred", "forecast": 0.4, "resolution_date": None, "direction": None},
                {"id": "ds", "source": "fred", "forecast": 0.1, "resolution_date": "2026-03-08", "direction": None},
            ]}))
        resolution = self.files.write("fbr.json", json.dumps({
            "forecast_due_date": "2026-03-01", "question_set": "2026-03-01-llm.json", "resolutions": [
                {"id": "mkt", "source": "manifold", "direction": None, "resolution_date": "2026-03-15", "resolved_to": 0.0, "resolved": True},
                {"id": "open", "source": "manifold", "direction": None, "resolution_date": "2026-10-02", "resolved_to": 0.17, "resolved": False},
                {"id": "ds", "source": "fred", "direction": None, "resolution_date": "2026-03-08", "resolved_to": 1.0, "resolved": True},
                {"id": "ds", "source": "fred", "direction": None, "resolution_date": "2026-03-31", "resolved_to": 0.0, "resolved": True},
            ]}))
        (m,) = self.report(forecast, resolution)["models"]
        self.assertEqual(m["n"], 2)  # mkt (by its only entry) and ds@2026-03-08
        self.assertAlmostEqual(m["brier"]["value"], (0.8**2 + 0.9**2) / 2)
        # not resolved yet (its entry holds a market price), and a dataset question named without its horizon
        self.assertEqual(m["missing_resolutions"]["samples"], ["ds", "open"])
        # the market question's event date is its close: released the day after, web-locked only
        cut = self.files.write("cut.json", json.dumps({"Org M": {"training_cutoff": "2025-01-01", "release_date": "2026-03-09"}}))
        (m,) = self.report(forecast, resolution, "--model-cutoffs", cut)["models"]
        self.assertEqual(m["badge"], "web-locked only")
        self.assertIn("resolution of 1 sample(s)", m["badge_reason"])

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
        bad = self.files.write("bad.json", json.dumps({"samples": [{"sample_id": "s1", "result_leaks": -1}]}))
        code, _, err = self.outcomes(self.pred, self.res, "--scores", bad)
        self.assertEqual(code, 2)
        self.assertIn("result_leaks is -1", err)

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

    def test_badges_split_the_table_and_the_figures(self):
        other = self.files.write("b.jsonl", jsonl([{"sample_id": s, "probability": 0.5, "model": "m-b"} for s in ("s1", "s2", "s3")]))
        cut = self.files.write("cut.json", json.dumps({
            "m-a": {"training_cutoff": "2023-01-01", "release_date": "2023-06-01"},
            "m-b": {"training_cutoff": "2024-01-01", "release_date": "2024-06-01"},
        }))
        html = str(self.files.root / "out.html")
        scores = self.files.write("s.json", score_doc({s: {} for s in ("s1", "s2", "s3")}))
        code, out, err = self.outcomes(self.pred, other, self.res, "--model-cutoffs", cut, "--scores", scores, "--html", html)
        self.assertEqual(code, 0, err)
        pre, web = out.index("[pre-event model]"), out.index("[web-locked only]")
        self.assertLess(out.index("m-a", pre), web)
        self.assertGreater(out.index("m-b", web), web)
        page = Path(html).read_text(encoding="utf-8")
        self.assertIn("Content-Security-Policy", page)
        figures = re.findall(r'<svg[^>]*aria-label="([^"]*)"', page)
        for label in figures:
            self.assertFalse("pre-event" in label and "web-locked" in label, label)
        self.assertIn("Brier by model (pre-event model)", figures)
        self.assertIn("Brier by model (web-locked only)", figures)
        self.assertIn("reliability of m-a (pre-event model)", figures)
        self.assertEqual(oct(os.stat(html).st_mode & 0o777), oct(0o666 & ~_umask()))

    def test_out_and_bad_options(self):
        target = str(self.files.root / "report.txt")
        code, out, _ = self.outcomes(self.pred, self.res, "--out", target)
        self.assertEqual((code, out), (0, ""))
        self.assertIn("Forecast outcomes", Path(target).read_text(encoding="utf-8"))
        code, _, err = self.outcomes(self.pred, self.res, "--out", self.res)
        self.assertEqual(code, 2)
        self.assertIn("names an input", err)
        code, _, err = run_cli("outcomes", self.pred, self.res, "--resamples", "5")
        self.assertEqual(code, 2)
        self.assertIn("--resamples must be at least", err)
        code, _, err = run_cli("outcomes", self.pred)
        self.assertEqual(code, 2)

    def test_outputs_written_as_a_set_and_never_over_an_input(self):
        # A directory in the way of --out leaves --html unwritten too (nothing written on bad input).
        html, folder = self.files.root / "r.html", self.files.root / "folder"
        folder.mkdir()
        code, out, err = self.outcomes(self.pred, self.res, "--html", str(html), "--out", str(folder))
        self.assertEqual((code, out), (2, ""))
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("is a directory", err)
        self.assertFalse(html.exists())
        self.assertEqual(list(self.files.root.glob(".*.tmp")), [])
        code, out, err = self.outcomes(self.pred, self.res, "--html", str(folder))
        self.assertEqual((code, out), (2, ""))
        # --scores MODEL=FILE names an input all the same: --out over it is refused, the file kept.
        scores = self.files.write("s.json", score_doc({s: {} for s in ("s1", "s2", "s3")}))
        before = Path(scores).read_bytes()
        for option in ("--out", "--html"):
            with self.subTest(option):
                code, out, err = self.outcomes(self.pred, self.res, "--scores", f"m-a={scores}", option, scores)
                self.assertEqual((code, out), (2, ""))
                self.assertIn("names an input", err)
                self.assertEqual(Path(scores).read_bytes(), before)
        same = str(self.files.root / "same.txt")
        code, out, err = self.outcomes(self.pred, self.res, "--out", same, "--html", same)
        self.assertEqual((code, out), (2, ""))
        self.assertIn("name", err)
        self.assertFalse(os.path.exists(same))
        # Both written, with normal modes, when all is well.
        target = self.files.root / "t.txt"
        code, out, err = self.outcomes(self.pred, self.res, "--out", str(target), "--html", str(html))
        self.assertEqual((code, out), (0, ""), err)
        self.assertIn("Forecast outcomes", target.read_text(encoding="utf-8"))
        self.assertIn("<html", html.read_text(encoding="utf-8"))
        self.assertEqual(oct(os.stat(target).st_mode & 0o777), oct(0o666 & ~_umask()))

    def test_bad_leakage_record_names_its_file(self):
        bad = self.files.write("leaky.json", json.dumps({"samples": [{"sample_id": "s1", "result_leaks": "1"}]}))
        for argv in (("--scores", bad), ("--scores", f"m-a={bad}")):
            with self.subTest(argv=argv):
                code, out, err = self.outcomes(self.pred, self.res, *argv)
                self.assertEqual((code, out), (2, ""))
                self.assertRegex(err, r"leaky\.json \(sample s1\): result_leaks is")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class ReadmeExampleTest(unittest.TestCase):
    """The README's outcomes example runs as written and prints the table it shows."""

    def test_readme_commands(self):
        text = (ROOT / "README.md").read_text(encoding="utf-8")
        block = text.split("<!-- outcomes-example -->", 1)[1].split("<!-- /outcomes-example -->", 1)[0]
        commands = re.findall(r"^\$ (.+)$", block, re.M)
        shown = re.search(r"```text\n(.*?)```", block, re.S).group(1)
        self.assertTrue(commands)
        with tempfile.TemporaryDirectory() as tmp, _cwd(tmp):
            os.symlink(ROOT / "examples", Path(tmp) / "examples")
            out = ""
            for command in commands:
                argv = shlex.split(command)
                self.assertEqual(argv[0], "anachron", command)
                code, out, err = run_cli(*argv[1:])
                self.assertEqual(code, 0, f"{command}: {err}")
            self.assertTrue((Path(tmp) / "outcomes-demo" / "outcomes.html").exists())
        self.assertEqual(out, shown)


@contextlib.contextmanager
def _cwd(path: str):
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


if __name__ == "__main__":
    unittest.main()
