"""The CLI as a user runs it: demo, score, and bad input (exit 2, one line, nothing on stdout)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from tests.support import ROOT, run_cli

WORKED = {
    # sample id: mode -> (tclr, survivorship, restatement, evidence)
    "finance-001": {
        "unrestricted": (1.0, 1, 0, [  # BM25: fin-006 ranks first (`--ranking count` keeps fin-005 first)
            "#1 result item fin-006 dated 2024-05-22 > 2022-06-01",
            "#1 result item fin-005 dated 2023-02-09 > 2022-06-01",
            "#1 entity 'CYGN' (item fin-005) not yet valid at 2022-06-01 (valid_from 2023-02-09)",
        ]),
        "enforced": (0.0, 0, 0, []),
    },
    "finance-002": {
        "unrestricted": (0.0, 1, 0, ["#1 entity 'BORX' (item fin-003) no longer valid at 2020-06-01 (valid_to 2019-11-05)"]),
        "enforced": (0.0, 1, 0, ["#1 entity 'BORX' (item fin-003) no longer valid at 2020-06-01 (valid_to 2019-11-05)"]),
    },
    "finance-013": {
        "unrestricted": (1.0, 0, 1, [
            "#1 result item fin-009 dated 2021-09-17 > 2021-06-01",
            "#1 restatement item fin-009 dated 2021-09-17 > 2021-06-01 silently revises fin-008",
        ]),
        "enforced": (0.0, 0, 0, []),
    },
}


class DemoTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = Path(cls.tmp.name) / "demo"
        cls.status, cls.stdout, cls.stderr = run_cli("demo", "--out", str(cls.out))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def scored(self, mode):
        status, out, err = run_cli("score", str(self.out / f"{mode}.jsonl"), "--format", "json")
        self.assertEqual((status, err), (0, ""))
        return json.loads(out)

    def test_demo_succeeds_and_writes_four_files(self):
        self.assertEqual((self.status, self.stderr), (0, ""))
        self.assertEqual(sorted(p.name for p in self.out.iterdir()),
                         ["enforced.json", "enforced.jsonl", "unrestricted.json", "unrestricted.jsonl"])

    def test_worked_cases_in_both_modes(self):
        for mode in ("unrestricted", "enforced"):
            samples = {s["sample_id"]: s for s in self.scored(mode)["samples"]}
            for sample_id, expected in WORKED.items():
                with self.subTest(mode=mode, sample=sample_id):
                    s = samples[sample_id]
                    got = (s["tclr"], s["survivorship_leaks"], s["restatement_leaks"], s["evidence"])
                    self.assertEqual(got, expected[mode])
                    self.assertEqual(s["interactions"], 1)

    def test_worked_cases_are_printed_with_their_evidence(self):
        for cases in WORKED.values():
            for _, _, _, evidence in cases.values():
                for line in evidence:
                    self.assertIn(f"! {line}", self.stdout)
        self.assertIn("Cygnus Robotics (finance-001), as of 2022-06-01", self.stdout)

    def test_tclr_files_match_the_scored_traces(self):
        for mode in ("unrestricted", "enforced"):
            tclr = json.loads((self.out / f"{mode}.json").read_text())
            scored = {s["sample_id"]: s["tclr"] for s in self.scored(mode)["samples"]}
            self.assertEqual(tclr["tclr"], scored)
            self.assertEqual(tclr["run"]["mode"], mode)

    def test_enforced_mode_has_no_date_leak_but_keeps_survivorship(self):
        enforced = self.scored("enforced")["summary"]
        unrestricted = self.scored("unrestricted")["summary"]
        self.assertEqual((enforced["mean_tclr"], enforced["date_leak_runs"], enforced["restatement_leaks"]), (0.0, 0, 0))
        self.assertGreater(enforced["survivorship_leaks"], 0)
        self.assertGreater(unrestricted["mean_tclr"], 0)
        self.assertGreater(unrestricted["survivorship_leaks"], enforced["survivorship_leaks"])
        # The printed table shows the same figures the score files give.
        self.assertRegex(self.stdout, rf"mean TCLR\s+{unrestricted['mean_tclr']:.3f}\s+0\.000")
        self.assertRegex(self.stdout, rf"date-leak runs\s+{unrestricted['date_leak_runs']} / 27\s+0 / 27")

    def test_same_inputs_same_bytes(self):
        with tempfile.TemporaryDirectory() as other:
            status, stdout, _ = run_cli("demo", "--out", other)
            self.assertEqual(status, 0)
            for name in ("unrestricted.jsonl", "unrestricted.json", "enforced.jsonl", "enforced.json"):
                self.assertEqual((Path(other) / name).read_bytes(), (self.out / name).read_bytes(), name)
            self.assertEqual(stdout.replace(other, "DIR"), self.stdout.replace(str(self.out), "DIR"))

    def test_out_that_is_a_file_is_bad_input_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            blocker = Path(tmp) / "file"
            blocker.write_text("keep me")
            status, out, err = run_cli("demo", "--out", str(blocker))
            self.assertEqual((status, out), (2, ""))
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertIn(str(blocker), err)
            self.assertEqual(blocker.read_text(), "keep me")


class ModuleEntryTest(unittest.TestCase):
    def test_python_m_anachron_demo_from_a_fresh_directory_without_install(self):
        with tempfile.TemporaryDirectory() as cwd:
            env = dict(os.environ, PYTHONPATH=str(ROOT))
            proc = subprocess.run(
                [sys.executable, "-m", "anachron", "demo", "--out", "out"],
                cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
            )
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertIn("Worked cases", proc.stdout)
            self.assertTrue((Path(cwd) / "out" / "unrestricted.json").is_file())

    def test_usage_errors_are_one_line_with_status_2(self):
        status, out, err = run_cli("score")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        status, out, err = run_cli("no-such-command")
        self.assertEqual((status, out), (2, ""))


class ScoreTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = Path(self.tmp.name)

    def trace_file(self, *records, name="trace.jsonl"):
        path = self.dir / name
        path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
        return path

    def assertBadInput(self, path, *fragments, args=()):
        status, out, err = run_cli("score", str(path), *args)
        self.assertEqual((status, out), (2, ""), err)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        for fragment in fragments:
            self.assertIn(fragment, lines[0])

    def test_table_output(self):
        path = self.trace_file({"sample_id": "finance-001", "mode": "unrestricted",
                                "interactions": [{"tool": "search", "query": "cygnus q3 2023", "returned": ["fin-005"]}]})
        status, out, err = run_cli("score", str(path))
        self.assertEqual((status, err), (0, ""))
        self.assertIn("! #1 result item fin-005 dated 2023-02-09 > 2022-06-01", out)
        self.assertIn("! #1 query 'cygnus q3 2023' reaches for 2023-07-01 > 2022-06-01", out)
        self.assertRegex(out, r"mean TCLR\s+1\.000")
        self.assertRegex(out, r"query-intent leaks\s+1")

    def test_json_output_shape(self):
        path = self.trace_file(
            {"sample_id": "finance-002", "interactions": []},
            {"sample_id": "ext-1", "as_of": "2024-01-01", "interactions": [
                {"tool": "search", "query": "x", "returned": [{"id": "u1", "publish_date": "2024-01-02"}]}]},
        )
        status, out, _ = run_cli("score", str(path), "--format", "json")
        self.assertEqual(status, 0)
        doc = json.loads(out)
        self.assertEqual(set(doc), {"samples", "summary"})
        keys = {"sample_id", "as_of", "tclr", "interactions", "result_leaks", "survivorship_leaks",
                "survivorship_rate", "restatement_leaks", "query_intent_leaks", "evidence"}
        for sample in doc["samples"]:
            self.assertTrue(keys <= set(sample))
        self.assertEqual([s["tclr"] for s in doc["samples"]], [0.0, 1.0])
        self.assertEqual(doc["samples"][0]["as_of"], "2020-06-01")
        self.assertEqual(doc["summary"]["tool_using_runs"], 1)
        self.assertEqual(doc["summary"]["mean_tclr"], 0.5)

    def test_custom_corpus(self):
        corpus = self.dir / "c"
        corpus.mkdir()
        (corpus / "items.jsonl").write_text(json.dumps({
            "id": "a", "slice": "x", "publish_date": "2020-01-02", "title": "t", "text": "", "entities": [], "restates": None}) + "\n")
        path = self.trace_file({"sample_id": "s", "as_of": "2020-01-01", "interactions": [{"tool": "search", "returned": ["a"]}]})
        status, out, _ = run_cli("score", str(path), "--corpus", str(corpus), "--format", "json")
        self.assertEqual(status, 0)
        self.assertEqual(json.loads(out)["samples"][0]["tclr"], 1.0)

    def test_bad_traces(self):
        cases = [
            ({"sample_id": "finance-001", "interactions": [{"tool": "search", "returned": ["ghost-1"]}]}, ":1 (sample finance-001)", "ghost-1"),
            ({"sample_id": "finance-001", "as_of": "2022-02-30", "interactions": []}, ":1 (sample finance-001)", "as_of"),
            ({"sample_id": "zz", "interactions": []}, ":1 (sample zz)", "as_of"),
            ({"interactions": []}, ":1", "sample_id"),
            ("{broken", ":1", "invalid JSON"),
            ('{"sample_id": "a", "sample_id": "b", "interactions": []}', ":1", "duplicate key"),
        ]
        for record, where, fragment in cases:
            with self.subTest(record=record):
                path = self.trace_file(record)
                self.assertBadInput(path, f"{path}{where}", fragment)

    def test_error_names_the_line(self):
        good = {"sample_id": "finance-001", "interactions": []}
        path = self.trace_file(good, "", {"sample_id": "finance-002", "interactions": [{"tool": "s", "returned": ["nope"]}]})
        self.assertBadInput(path, f"{path}:3 (sample finance-002)")

    def test_unreadable_inputs(self):
        self.assertBadInput(self.dir / "missing.jsonl", "missing.jsonl: no such file")
        self.assertBadInput(self.dir, "is a directory")
        path = self.trace_file({"sample_id": "s", "interactions": []})
        self.assertBadInput(path, "not a corpus directory", args=("--corpus", str(self.dir / "none")))


if __name__ == "__main__":
    unittest.main()
