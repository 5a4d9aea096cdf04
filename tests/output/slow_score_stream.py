"""The slow tests beside test_score_stream.py, whose docstring states the rules they hold: SameBytesTest, BadInputTest.

They start processes, browsers or servers, or build large inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

from __future__ import annotations
import json
import os
import stat
import tempfile
import unittest
from pathlib import Path
from tests.support import run_cli
from tests.output.test_score_stream import DATA, GENERATED, expected, shown


class SameBytesTest(unittest.TestCase):
    def test_demo_traces_json_table_and_csv(self):
        for mode in ("unrestricted", "enforced"):
            for fmt in ("json", "table", "csv"):
                status, out, err = run_cli("score", str(DATA / f"demo-{mode}.jsonl"), "--format", fmt)
                self.assertEqual((status, err), (0, ""))
                self.assertEqual(shown(out), expected(f"demo-{mode}.{fmt}"), f"{mode} {fmt}")

    def test_generated_hostile_set_json_table_and_csv(self):
        for fmt in ("json", "table", "csv"):
            status, out, err = run_cli("score", *GENERATED, "--format", fmt)
            self.assertEqual((status, err), (0, ""))
            self.assertEqual(shown(out), expected(f"gen.{fmt}"), fmt)

    def test_jsonl_is_the_json_document_line_by_line(self):
        status, out, _ = run_cli("score", *GENERATED, "--format", "jsonl")
        self.assertEqual(status, 0)
        lines = out.split("\n")
        self.assertEqual(lines[-1], "")
        document = json.loads(expected("gen.json"))
        rows = [json.loads(line) for line in lines[:-1]]
        self.assertEqual(rows[:-1], document["samples"])
        self.assertEqual(rows[-1], {"summary": document["summary"]})
        for line in lines[:-1]:  # one line each, whatever the strings hold
            self.assertNotIn("\u2028", line)

    def test_jobs_give_the_same_bytes_as_one_process(self):
        for fmt in ("json", "table", "jsonl", "csv"):
            _, one, _ = run_cli("score", *GENERATED, "--format", fmt)
            for jobs in ("2", "3", "16"):
                status, out, err = run_cli("score", *GENERATED, "--format", fmt, "--jobs", jobs)
                self.assertEqual((status, err), (0, ""))
                self.assertEqual(out, one, f"{fmt} --jobs {jobs}")

    def test_spawned_workers_load_the_corpus_the_option_named(self):
        # Where processes cannot fork, each worker loads --corpus again (from what the option said).
        from unittest import mock

        _, one, _ = run_cli("score", *GENERATED, "--format", "json")
        with mock.patch("multiprocessing.get_all_start_methods", return_value=["spawn"]):
            status, out, err = run_cli("score", *GENERATED, "--format", "json", "--jobs", "2")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out, one)

    def test_out_writes_the_same_bytes_with_a_normal_mode(self):
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "scores.json"  # its directory exists: no command makes it (docs/formats.md)
            status, out, err = run_cli("score", *GENERATED, "--format", "json", "--out", str(target))
            self.assertEqual((status, out, err), (0, "", ""))
            self.assertEqual(target.read_text(encoding="utf-8"), expected("gen.json"))
            umask = os.umask(0)
            os.umask(umask)
            self.assertEqual(stat.S_IMODE(target.stat().st_mode), 0o666 & ~umask)
            self.assertEqual(sorted(p.name for p in target.parent.iterdir()), ["scores.json"])


class BadInputTest(unittest.TestCase):
    """Bad input found halfway: status 2, one line naming file and line, no output at all."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.good = (DATA / "traces.jsonl").read_text(encoding="utf-8").split("\n")[:-1]

    def file(self, lines):
        path = Path(self.tmp.name) / "t.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return str(path)

    def assert_bad(self, lines, message):
        path = self.file(lines)
        target = Path(self.tmp.name) / "out.json"
        target.write_text("old\n", encoding="utf-8")
        for jobs in ("1", "2", "5"):
            for fmt in ("json", "jsonl", "table"):
                status, out, err = run_cli("score", path, "--corpus", str(DATA / "corpus"), "--format", fmt, "--jobs", jobs)
                self.assertEqual((status, out), (2, ""), f"{fmt} --jobs {jobs}")
                self.assertEqual(err.count("\n"), 1, err)
                self.assertIn(message.replace("PATH", path), err, f"{fmt} --jobs {jobs}")
            status, out, err = run_cli("score", path, "--corpus", str(DATA / "corpus"), "--out", str(target), "--jobs", jobs)
            self.assertEqual((status, out), (2, ""))
            self.assertEqual(target.read_text(encoding="utf-8"), "old\n")  # untouched
            self.assertEqual(sorted(p.name for p in Path(self.tmp.name).iterdir()), ["out.json", "t.jsonl"])

    def test_bad_json_near_the_end(self):
        lines = self.good[:-3] + ["{nope"] + self.good[-3:]
        self.assert_bad(lines, f"PATH:{len(lines) - 3}: invalid JSON")

    def test_unknown_returned_id_near_the_end(self):
        record = json.loads(self.good[-1])
        record["sample_id"] = "fresh"
        record["interactions"] = [{"tool": "search", "query": "q", "returned": ["no-such-item"]}]
        lines = self.good + [json.dumps(record)]
        self.assert_bad(lines, f"PATH:{len(lines)} (sample fresh) interactions[0] returned[0]: returned id 'no-such-item'")

    def test_duplicate_sample_far_apart(self):
        lines = self.good + [self.good[3]]
        sample = json.loads(self.good[3])["sample_id"]
        self.assert_bad(lines, f"PATH:{len(lines)} (sample {sample}): duplicate sample_id (first at PATH:4)")

    def test_duplicate_wins_over_a_later_error_of_the_same_record(self):
        record = json.loads(self.good[0])
        record["interactions"] = "not a list"
        lines = self.good + [json.dumps(record)]
        self.assert_bad(lines, f"PATH:{len(lines)} (sample {record['sample_id']}): duplicate sample_id (first at PATH:1)")

    def test_the_first_error_in_file_order_wins(self):
        early = json.loads(self.good[1])
        early["mode"] = ""
        lines = self.good[:1] + [json.dumps(early)] + self.good[2:] + ["[1, 2]"]
        self.assert_bad(lines, f"PATH:2 (sample {early['sample_id']}): field 'mode'")

    def test_not_utf8_names_the_byte(self):
        path = Path(self.tmp.name) / "t.jsonl"
        head = ("\n".join(self.good[:5]) + "\n").encode("utf-8")
        path.write_bytes(head + b'{"sample_id": "\xff"}\n')
        for jobs in ("1", "3"):
            status, out, err = run_cli("score", str(path), "--corpus", str(DATA / "corpus"), "--jobs", jobs)
            self.assertEqual((status, out), (2, ""))
            self.assertEqual(err.strip(), f"anachron: {path}: not UTF-8 text (byte {len(head) + 15})")

    def test_missing_file(self):
        for jobs in ("1", "2"):
            status, out, err = run_cli("score", str(Path(self.tmp.name) / "none.jsonl"), "--jobs", jobs)
            self.assertEqual((status, out), (2, ""))
            self.assertIn("none.jsonl: no such file", err)


if __name__ == "__main__":
    unittest.main()
