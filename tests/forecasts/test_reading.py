"""The inputs of ``anachron outcomes`` (anachron.forecasts.reading): their shapes (JSON Lines, ForecastBench sets,
trace answers), and every rejection naming its file and line or entry."""

from __future__ import annotations

import datetime as dt
import json
import unittest
from unittest import mock

from anachron.forecasts import reading

from tests.outcome_fixtures import OutcomesCase, jsonl, score_record


class ReadingTest(OutcomesCase):
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
            "twice, among other models": ('{"sample_id": "s1", "model": "a", "probability": 0.5}\n\n{"sample_id": "s1", "probability": 0.5}\n'
                                          '{"sample_id": "s1", "model": "bad", "probability": 0.4}\n',
                                          r"bad\.jsonl:4: model 'bad' .*twice \(first at .*bad\.jsonl:3\)"),
            "not an object": ("[1]\n", r"bad\.jsonl:1: expected a JSON object"),
        }
        for name, (text, pattern) in cases.items():
            with self.subTest(name):
                bad = self.files.write("bad.jsonl", text)
                code, out, err = self.outcomes(bad, self.res)
                self.assertEqual((code, out), (2, ""))
                self.assertEqual(err.count("\n"), 1, err)
                self.assertRegex(err, pattern)

    def test_a_resolution_keeps_its_file_line_and_dates(self):
        lines = [json.dumps({"sample_id": f"s{i}", "resolved_to": i % 2}) for i in range(1, 13)]
        lines[10] = json.dumps({"sample_id": "s11", "resolved_to": "yes", "resolution_date": "2024-03-05", "as_of": "2024-01-02"})
        path = self.files.write("res12.jsonl", "\n".join(lines[:4]) + "\n\n" + "\n".join(lines[4:]) + "\n")
        resolutions, unresolved = reading.load_resolutions(path)
        self.assertEqual((len(resolutions), unresolved), (12, 0))
        self.assertEqual(resolutions["s3"], reading.Resolution("s3", 1, None, None, f"{path}:3"))
        self.assertEqual(resolutions["s12"].where, f"{path}:13")  # after the blank line
        self.assertEqual(resolutions["s11"], reading.Resolution("s11", "yes", dt.date(2024, 3, 5), dt.date(2024, 1, 2), f"{path}:12"))
        self.assertNotIn("s13", resolutions)
        self.assertEqual(list(resolutions), [f"s{i}" for i in range(1, 13)])
        again = self.files.write("res13.jsonl", "\n".join(lines) + "\n" + lines[9] + "\n")
        code, out, err = self.outcomes(self.pred, again)
        self.assertEqual((code, out), (2, ""))
        self.assertIn(f"{again}:13: sample 's10' resolved twice (first at {again}:10)", err)
        document = self.files.write("set.json", json.dumps({"forecast_due_date": "2024-01-01", "resolutions": [
            {"id": f"m{i}", "resolution_date": "2024-02-01", "resolved_to": 1, "resolved": True} for i in range(11)]}))
        resolutions, _ = reading.load_resolutions(document)
        self.assertEqual(resolutions["m10@2024-02-01"].where, f"{document}: resolutions[10]")
        self.assertEqual(resolutions["m10"], resolutions["m10@2024-02-01"])  # a market question's dateless alias
        self.assertEqual(resolutions["m0"].as_of, dt.date(2024, 1, 1))

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
            ((self.pred, self.res, "--scores", w("s2.json", json.dumps({"samples": [score_record("s1"), score_record("s1")]}))),
             r"s2\.json: sample 's1' appears twice"),
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
        twice = self.files.write("fbtwice.json", json.dumps({"model": "x", "forecasts": [
            {"id": "q", "forecast": 0.2}, {"id": "r", "forecast": 0.2}, {"id": "q", "forecast": 0.3}]}))
        code, _, err = self.outcomes(twice, resolution)
        self.assertEqual(code, 2)
        self.assertRegex(err, r"fbtwice\.json: forecasts\[2\]: .*twice \(first at .*fbtwice\.json: forecasts\[0\]\)")
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

    def test_bad_leakage_record_names_its_file(self):
        bad = self.files.write("leaky.json", json.dumps({"samples": [{**score_record("s1"), "result_leaks": "1"}]}))
        for argv in (("--scores", bad), ("--scores", f"m-a={bad}")):
            with self.subTest(argv=argv):
                code, out, err = self.outcomes(self.pred, self.res, *argv)
                self.assertEqual((code, out), (2, ""))
                self.assertRegex(err, r"leaky\.json: samples\[0\] \(sample 's1'\): result_leaks must be a non-negative integer")



class StreamingTest(OutcomesCase):
    def test_json_lines_forecasts_are_read_a_line_at_a_time_and_a_document_whole(self):
        # A file of 10**6 forecasts must never be in memory as text and dicts at once: JSON Lines whose first
        # line is a record are streamed (the whole-file reader is never called), a one-document set is read whole.
        path = self.files.write("stream.jsonl", '{"sample_id": "s1", "probability": 0.25}\n{"sample_id": "s2", "model": "m", "probability": 1}\n')
        whole = reading.load_forecasts(path)
        with mock.patch.object(reading, "read_text", side_effect=AssertionError("read whole")):
            streamed = reading.load_forecasts(path)
            self.assertEqual(streamed.by_model, whole.by_model)
            self.assertEqual(sorted(streamed.by_model), ["m", "stream"])
            document = self.files.write("doc.json", json.dumps({"model": "x", "forecasts": [{"id": "q", "forecast": 0.2}]}))
            with self.assertRaisesRegex(AssertionError, "read whole"):
                reading.load_forecasts(document)

    def test_every_forecast_line_reads_as_its_forecast(self):
        # The usual line (a float probability) is held as a float, any other is checked the long way: the
        # table gives each back as the Forecast it states, whichever way it was read.
        rows = [
            {"sample_id": "s1", "probability": 0.25},
            {"sample_id": "s2", "probability": 1},  # an integer: the long way
            {"sample_id": "s3", "probability": 0.5, "note": "a field the reader ignores"},
            {"sample_id": "s4", "probabilities": {"a": 0.75, "b": 0.25}},
            {"sample_id": "s5", "answer": "I'd say 30%."},
            {"sample_id": "s1", "model": "other", "probability": 0.0},
            {"sample_id": "s6", "probability": -0.0},
        ]
        path = self.files.write("mixed.jsonl", jsonl(rows))
        by_model = reading.load_forecasts(path).by_model
        Forecast = reading.Forecast
        self.assertEqual(dict(by_model["mixed"]), {
            "s1": Forecast("s1", "mixed", probability=0.25), "s2": Forecast("s2", "mixed", probability=1.0),
            "s3": Forecast("s3", "mixed", probability=0.5), "s4": Forecast("s4", "mixed", probabilities={"a": 0.75, "b": 0.25}),
            "s5": Forecast("s5", "mixed", probability=0.3), "s6": Forecast("s6", "mixed", probability=-0.0),
        })
        self.assertEqual(dict(by_model["other"]), {"s1": Forecast("s1", "other", probability=0.0)})
        table = by_model["mixed"]
        self.assertEqual((len(table), "s4" in table, "s1x" in table, table.get("s1x")), (6, True, False, None))
        self.assertEqual(sorted(table), ["s1", "s2", "s3", "s4", "s5", "s6"])

    def test_a_sample_forecast_twice_in_two_kinds_is_refused(self):
        for first, second in (({"probabilities": {"a": 0.5, "b": 0.5}}, {"probability": 0.5}),
                              ({"probability": 0.5}, {"probabilities": {"a": 0.5, "b": 0.5}})):
            with self.subTest(first=first):
                path = self.files.write("twice.jsonl", jsonl([{"sample_id": "s0", "probability": 0.1}, {"sample_id": "s1", **first},
                                                               {"sample_id": "s1", **second}]))
                code, out, err = self.outcomes(path, self.res)
                self.assertEqual((code, out), (2, ""))
                self.assertRegex(err, r"twice\.jsonl:3: model 'twice' forecast sample 's1' twice \(first at .*twice\.jsonl:2\)\n$")

    def test_an_integer_or_boolean_resolution_reads_as_its_outcome(self):
        path = self.files.write("r.jsonl", jsonl([{"sample_id": "a", "resolved_to": 1}, {"sample_id": "b", "resolved_to": True},
                                                  {"sample_id": "c", "resolved_to": 0.0}, {"sample_id": "d", "resolved_to": 0}]))
        resolutions, _ = reading.load_resolutions(path)
        self.assertEqual([(s, resolutions[s].outcome, resolutions[s].where) for s in resolutions],
                         [("a", 1, f"{path}:1"), ("b", 1, f"{path}:2"), ("c", 0, f"{path}:3"), ("d", 0, f"{path}:4")])
        self.assertEqual(resolutions.outcomes_of(["d", "x", "a"]), [0, None, 1])


if __name__ == "__main__":
    unittest.main()
