"""``anachron compare`` / ``anachron-compare``: inputs, outputs and every bad input."""

from __future__ import annotations

import dataclasses
import json
import re
import tempfile
import unittest
from pathlib import Path

from anachron.cli import compare_main
from anachron.core import AnachronError, compare_modes
from anachron.core.jsonio import dump_json, read_json
from anachron.core.scores import METRICS, parse_scores
from tests.outcome_fixtures import score_record
from tests.support import run_cli


def labelled(report, unrestricted: str, enforced: str):
    """*report* as the CLI gives it: each run labelled (its file, and what a score file says of its run)."""
    return dataclasses.replace(report, unrestricted_label=unrestricted, enforced_label=enforced)

U = {"finance-001": 1.0, "finance-002": 0.5, "news-001": 0.0, "news-002": 1.0, "news-003": 0.25}
E = {"finance-001": 0.0, "finance-002": 0.5, "news-001": 0.0, "news-002": 0.0, "news-003": 0.5}


class CompareCliTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name: str, content) -> str:
        path = self.dir / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return str(path)

    def compare(self, *argv: str) -> tuple[int, str, str]:
        """Run both entry points; they must agree byte for byte, but for the name each gives itself."""
        result = run_cli("compare", *argv)
        status, out, err = run_cli(*argv, entry=compare_main)
        self.assertTrue(not err or err.startswith("anachron-compare"), err)
        err = re.sub(r"^anachron-compare: error", "anachron compare: error", err, flags=re.M)
        self.assertEqual((status, out, re.sub(r"^anachron-compare: ", "anachron: ", err, flags=re.M)), result)
        return result

    # -- good input ------------------------------------------------------------------------

    def test_table_and_json(self):
        u, e = self.write("u.json", U), self.write("e.json", E)
        status, out, err = self.compare(u, e)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out, labelled(compare_modes(U, E), u, e).table() + "\n")
        self.assertTrue(out.startswith(f"Paired mode comparison (n=5)\n  unrestricted run            {u}\n"
                                       f"  enforced run                {e}\n  unrestricted mean TCLR      0.550\n"))
        status, out, err = self.compare(u, e, "--format", "json")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out, dump_json(labelled(compare_modes(U, E), u, e).to_dict()))
        self.assertEqual(json.loads(out)["metric"], "tclr")

    def test_options_reach_the_report(self):
        u, e = self.write("u.json", U), self.write("e.json", E)
        status, out, _ = self.compare(u, e, "--format", "json", "--confidence", "0.8", "--resamples", "300", "--seed", "9")
        self.assertEqual(status, 0)
        self.assertEqual(json.loads(out), labelled(compare_modes(U, E, confidence=0.8, n_resamples=300, seed=9), u, e).to_dict())
        self.assertEqual(self.compare(u, e, "--seed", "9"), self.compare(u, e, "--seed", "9"))  # deterministic

    def test_bca_and_warnings_reach_both_formats(self):
        u, e = self.write("u.json", U), self.write("e.json", E)
        status, out, err = self.compare(u, e, "--format", "json", "--ci-method", "bca", "--resamples", "500")
        self.assertEqual((status, err), (0, ""))
        data = json.loads(out)
        self.assertEqual(data, labelled(compare_modes(U, E, n_resamples=500, ci_method="bca"), u, e).to_dict())
        self.assertEqual(data["ci_method"], "bca")
        self.assertEqual(data["warnings"], [
            "n = 5 is below 30: the interval's coverage is approximate "
            "(https://github.com/anachron/anachron/blob/main/docs/metrics.md, 'Coverage')",
            "500 resamples are fewer than 1,000: the interval's ends are noisy"])
        status, table, _ = self.compare(u, e, "--ci-method", "bca", "--resamples", "500")
        self.assertIn("\n  95% BCa bootstrap CI        [", table)
        self.assertTrue(table.endswith("\n  warning: 500 resamples are fewer than 1,000: the interval's ends are noisy\n"))
        # anachron-compare takes the same option.
        self.assertEqual(run_cli(u, e, "--ci-method", "bca", "--resamples", "500", entry=compare_main), (status, table, ""))

    def test_demo_files(self):
        out_dir = self.dir / "demo"
        status, _, err = run_cli("demo", "--out", str(out_dir))
        self.assertEqual((status, err), (0, ""))
        u, e = str(out_dir / "unrestricted.json"), str(out_dir / "enforced.json")
        status, out, err = self.compare(u, e, "--format", "json")
        self.assertEqual((status, err), (0, ""))
        labels = [f"{path} ({mode}, model anachron/naive, corpus v0 (bundled))" for path, mode in ((u, "unrestricted"), (e, "enforced"))]
        expected = labelled(compare_modes(parse_scores(read_json(u), u), parse_scores(read_json(e), e)), *labels).to_dict()
        self.assertEqual(json.loads(out), expected)
        self.assertEqual(expected["n"], len(read_json(u)["tclr"]))

    def test_score_output_and_metric(self):
        out_dir = self.dir / "demo"
        self.assertEqual(run_cli("demo", "--out", str(out_dir))[0], 0)
        scored = {}
        for mode in ("unrestricted", "enforced"):
            status, out, err = run_cli("score", str(out_dir / f"{mode}.jsonl"), "--format", "json")
            self.assertEqual((status, err), (0, ""))
            scored[mode] = self.write(f"{mode}-score.json", out)
        documents = {mode: json.loads(Path(path).read_text()) for mode, path in scored.items()}
        for metric in ("tclr", "survivorship_leaks", "result_leaks", "interactions"):
            with self.subTest(metric=metric):
                status, out, err = self.compare(scored["unrestricted"], scored["enforced"], "--format", "json", "--metric", metric)
                self.assertEqual((status, err), (0, ""))
                picked = [{s["sample_id"]: s[metric] for s in documents[mode]["samples"]} for mode in ("unrestricted", "enforced")]
                labels = [f"{scored[mode]} ({mode})" for mode in ("unrestricted", "enforced")]
                self.assertEqual(json.loads(out), labelled(compare_modes(*picked, metric=metric), *labels).to_dict())
        # The score output's TCLR is the demo's TCLR file's TCLR: the same figures, but for the first run's label.
        status, out, _ = self.compare(scored["unrestricted"], str(out_dir / "enforced.json"))
        status_demo, out_demo, _ = self.compare(str(out_dir / "unrestricted.json"), str(out_dir / "enforced.json"))
        self.assertEqual((status, out.split("\n")[2:]), (status_demo, out_demo.split("\n")[2:]))

    def test_plain_object_of_counts(self):
        u, e = self.write("u.json", {"a": 3, "b": 0}), self.write("e.json", {"a": 1, "b": 0})
        status, out, _ = self.compare(u, e, "--metric", "survivorship_leaks")
        self.assertEqual(status, 0)
        self.assertIn("  unrestricted mean survivorship_leaks  1.500\n", out)

    # -- bad input ------------------------------------------------------------------------

    def assert_bad(self, argv: tuple[str, ...], message: str) -> None:
        status, out, err = self.compare(*argv)
        self.assertEqual(status, 2)
        self.assertEqual(out, "")
        self.assertEqual(err, f"anachron: {message}\n")

    def assert_bad_file(self, content, message_tail: str, metric: str = "tclr", side: str = "u") -> None:
        """A bad UNRESTRICTED (or ENFORCED) file: CLI line = API message, naming the file."""
        bad = self.write(f"{side}-bad.json", content)
        good = self.write("good.json", U)
        argv = (bad, good) if side == "u" else (good, bad)
        message = f"{bad}: {message_tail}"
        self.assert_bad((*argv, "--metric", metric), message)
        with self.assertRaises(AnachronError) as caught:
            parse_scores(read_json(bad), bad, metric)
        self.assertEqual(str(caught.exception), message)

    def test_mismatched_ids(self):
        u = self.write("u.json", {**U, "extra-1": 0.0, "extra-2": 1.0})
        e = self.write("e.json", {**E, **{f"only-e-{i}": 0.0 for i in range(7)}})
        message = ("sample ids differ: only in unrestricted: 'extra-1', 'extra-2'; only in enforced: "
                   "'only-e-0', 'only-e-1', 'only-e-2', 'only-e-3', 'only-e-4', ... (7 in all)")
        self.assert_bad((u, e), message)
        with self.assertRaises(AnachronError) as caught:
            compare_modes(read_json(u), read_json(e))
        self.assertEqual(str(caught.exception), message)

    def test_bad_values(self):
        self.assert_bad_file({**U, "news-001": "high"}, "sample 'news-001': tclr is the string 'high', expected a number in [0, 1]")
        self.assert_bad_file({**U, "news-001": None}, "sample 'news-001': tclr is null (no value for this sample), expected a number in [0, 1]")
        self.assert_bad_file({**U, "news-001": 1.5}, "sample 'news-001': tclr is 1.5, outside [0, 1]", side="e")
        self.assert_bad_file({**U, "news-001": -1}, "sample 'news-001': tclr is -1, outside [0, 1]")
        self.assert_bad_file('{"a": 1e999}', "sample 'a': tclr is inf, expected a number in [0, 1]")
        self.assert_bad_file('{"a": -1e999}', "sample 'a': tclr is -inf, expected a number in [0, 1]")
        self.assert_bad_file({"a": 1.5}, "sample 'a': survivorship_leaks is 1.5, expected a non-negative integer; a plain "
                             "{sample_id: number} file such as a per-sample TCLR file holds one number per sample, read as "
                             "survivorship_leaks: for survivorship_leaks, `anachron score TRACES.jsonl --format json --out "
                             "RUN.json` (traces, as demo writes them) or `anachron export LOG --format score --out RUN.json` "
                             "(Inspect logs) writes every per-sample metric", "survivorship_leaks")

    def test_api_names_the_side_where_the_cli_names_the_file(self):
        bad = self.write("u-bad.json", {**U, "news-001": 1.5})
        with self.assertRaises(AnachronError) as caught:
            compare_modes(read_json(bad), E)
        status, _, err = self.compare(bad, self.write("e.json", E))
        self.assertEqual(status, 2)
        self.assertEqual(err, f"anachron: {str(caught.exception).replace('unrestricted', bad, 1)}\n")

    def test_nan_and_infinity_literals(self):
        for literal in ("NaN", "Infinity", "-Infinity"):
            with self.subTest(literal=literal):
                self.assert_bad_file('{"a": %s}' % literal, f"invalid JSON: {literal} is not valid JSON")

    def test_empty_and_non_objects(self):
        self.assert_bad_file({}, "no samples")
        self.assert_bad_file({"samples": [], "summary": {}}, "no samples")
        for content, shown in (([0.5], "an array"), (0.5, "0.5"), ('"x"', "the string 'x'"), (None, "null")):
            with self.subTest(content=content):
                self.assert_bad_file(
                    content,
                    "expected a JSON object (sample id -> number, or the output of anachron score --format json), "
                    f"got {shown}",
                )

    def test_duplicate_keys(self):
        self.assert_bad_file('{"a": 0.5, "a": 1.0}', "invalid JSON: duplicate key 'a'")

    def test_malformed_score_output(self):
        a = score_record("a")
        self.assert_bad_file({"samples": [{"tclr": 0.5}]}, "samples[0]: missing field 'sample_id'")
        self.assert_bad_file({"samples": [a, 3]}, "samples[1]: expected an object, got 3")
        self.assert_bad_file({"samples": [a, a]}, "sample 'a' appears twice")
        no_tclr = {k: v for k, v in a.items() if k != "tclr"}
        self.assert_bad_file({"samples": [no_tclr]}, "samples[0] (sample 'a'): missing field 'tclr'")
        # A file written before a field existed: the metric is unknown, not 0.
        older = {k: v for k, v in a.items() if k != "date_conflicts"}
        self.assert_bad_file({"samples": [older]}, "sample 'a' has no field 'date_conflicts'", "date_conflicts")
        self.assert_bad_file(
            {"samples": [a]},
            "sample 'a': survivorship_rate is null (no value for this sample), expected a number in [0, 1]",
            "survivorship_rate",
        )

    def test_unreadable_files(self):
        good = self.write("good.json", U)
        missing = str(self.dir / "missing.json")
        self.assert_bad((missing, good), f"{missing}: no such file")
        self.assert_bad((good, str(self.dir)), f"{self.dir}: is a directory, expected a file")
        latin = self.write("latin.json", b'{"caf\xe9": 0.5}')
        self.assert_bad((latin, good), f"{latin}: not UTF-8 text (byte 5)")
        broken = self.write("broken.json", '{"a": 0.5,\n"b"')
        status, out, err = self.compare(broken, good)
        self.assertEqual((status, out), (2, ""))
        with self.assertRaises(AnachronError) as caught:
            read_json(broken)
        self.assertEqual(err, f"anachron: {caught.exception}\n")
        self.assertRegex(err, rf"^anachron: {re.escape(broken)}:2: invalid JSON: [^\n]+ \(column 4\)\n$")

    def test_bad_options(self):
        u, e = self.write("u.json", U), self.write("e.json", E)
        self.assert_bad((u, e, "--confidence", "1.5"), "--confidence must be a number strictly between 0 and 1, got 1.5")
        self.assert_bad((u, e, "--confidence", "nan"), "--confidence must be a number strictly between 0 and 1, got nan")
        self.assert_bad((u, e, "--resamples", "0"), "--resamples must be a positive integer, got 0")
        # Every metric is named, in the order of METRICS (the list grows with the score output).
        self.assertEqual(list(METRICS)[:15], ["tclr", "tclr_low", "tclr_high", "survivorship_rate", "interactions",
                                              "result_leaks", "survivorship_leaks", "restatement_leaks",
                                              "query_intent_leaks", "blocked_attempts", "undated", "content_leaks",
                                              "revision_risks", "date_conflicts", "survivorship_base"])
        self.assertIn("answer_leaks_parametric", METRICS)
        self.assert_bad((u, e, "--metric", "TCLR"), f"unknown metric 'TCLR': choose one of {', '.join(METRICS)}")
        self.assert_bad((u, e, "--resamples", "99"), "--resamples must be at least 100 (fewer give an interval of noise), got 99")
        self.assert_bad((u, e, "--resamples", "1000001"), "--resamples must be at most 1,000,000, got 1000001")
        # anachron-compare, the same parser: the same line, naming the flag.
        status, out, err = run_cli(u, e, "--resamples", "99", entry=compare_main)
        self.assertEqual((status, out, err), (2, "", "anachron-compare: --resamples must be at least 100 (fewer give an interval of noise), got 99\n"))
        for argv in (("--resamples", "many"), ("--seed", "1.5"), ("--format", "xml"), ("--confidence", "high"),
                     ("--ci-method", "normal")):
            with self.subTest(argv=argv):
                status, out, err = self.compare(u, e, *argv)
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(err.count("\n"), 1, err)
                self.assertTrue(err.startswith("anachron compare: error: "), err)
        status, out, err = self.compare(u)
        self.assertEqual((status, out, err.count("\n")), (2, "", 1))


if __name__ == "__main__":
    unittest.main()
