"""Inputs a user's first hour meets that must never score clean: an empty file, a misspelt field,
a Windows byte order mark (docs/formats.md).  Exit 2 with one line naming the file, or a score."""

from __future__ import annotations

import json
import shutil
import tempfile
import unittest
from pathlib import Path

from anachron.core import AnachronError, load_corpus_dir, load_traces

from tests.support import run_cli

TRACE = {"sample_id": "finance-001", "mode": "unrestricted",
         "interactions": [{"tool": "search", "query": "cygnus robotics", "returned": ["fin-005"]}]}


class EmptyInputsAreRefused(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.dir)

    def file(self, name: str, text: str) -> str:
        path = self.dir / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    def refused(self, message: str, *argv: str) -> None:
        status, out, err = run_cli(*argv)
        self.assertEqual((status, out, err), (2, "", f"anachron: {message}\n"))

    def test_an_empty_trace_file_is_no_clean_result(self) -> None:
        for text in ("", "\n\n", "\r\n  \n"):
            with self.subTest(text=text):
                path = self.file("empty.jsonl", text)
                self.refused(f"{path}: no trace record", "score", path)
                self.refused(f"{path}: no trace record", "score", path, "--format", "json")
                with self.assertRaisesRegex(AnachronError, f"^{path}: no trace record$"):
                    load_traces(path, load_corpus_dir(None))

    def test_one_record_is_scored(self) -> None:
        path = self.file("one.jsonl", json.dumps(TRACE) + "\n")
        status, out, err = run_cli("score", path, "--format", "json")
        self.assertEqual(status, 0, err)
        self.assertEqual(json.loads(out)["summary"]["n"], 1)

    def test_an_empty_event_log_is_refused_by_both_readers(self) -> None:
        path = self.file("events.jsonl", "")
        message = f"{path}: the log holds no complete event record"
        self.refused(message, "score-events", path, "--as-of", "2022-06-01")
        self.refused(message, "score", "--from", "mcp-events", path, "--as-of", "2022-06-01")

    def test_report_names_the_empty_file(self) -> None:
        path = self.file("empty.jsonl", "")
        self.refused(f"{path}: no trace record", "report", path, "--out", str(self.dir / "r.html"))
        self.assertFalse((self.dir / "r.html").exists())


class MisspeltTracesAreRefused(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.dir)

    def score(self, *records: dict, data: bytes | None = None) -> tuple[int, str, str, str]:
        path = self.dir / "t.jsonl"
        if data is None:
            data = "".join(json.dumps(r) + "\n" for r in records).encode()
        path.write_bytes(data)
        return (*run_cli("score", str(path), "--format", "json"), str(path))

    def test_a_misspelt_returned_is_refused_naming_file_line_and_the_likely_field(self) -> None:
        bad = {**TRACE, "sample_id": "finance-002",
               "interactions": [{"tool": "search", "query": "borealis", "retuned": ["fin-005"]}]}
        status, out, err, path = self.score(TRACE, bad)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, f"anachron: {path}:2 (sample finance-002) interactions[0]: unknown field 'retuned'"
                              " (did you mean 'returned'?)\n")

    def test_a_misspelt_mode_is_refused(self) -> None:
        status, out, err, path = self.score({**TRACE, "mode": "unrestrictd"})
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, f"anachron: {path}:1 (sample finance-001): field 'mode': the string 'unrestrictd' is not"
                              " one of unrestricted, enforced (did you mean 'unrestricted'?)\n")

    def test_a_call_without_returned_widens_the_band_and_warns(self) -> None:
        status, out, err, _ = self.score({**TRACE, "interactions": [{"tool": "search", "query": "cygnus"}]})
        self.assertEqual(status, 0, err)
        doc = json.loads(out)
        sample = doc["samples"][0]
        self.assertEqual((sample["tclr_low"], sample["tclr_high"], sample["unrecorded"]), (0.0, 1.0, 1))
        self.assertTrue(any("no 'returned' field" in w for w in doc["summary"]["warnings"]))

    def test_a_byte_order_mark_scores_as_the_file_without_it(self) -> None:
        plain = (json.dumps(TRACE) + "\r\n").encode()
        without = self.score(data=plain)
        with_mark = self.score(data=b"\xef\xbb\xbf" + plain)
        self.assertEqual(with_mark[0], 0, with_mark[2])
        self.assertEqual(with_mark[:3], without[:3])
        self.assertEqual(json.loads(with_mark[1])["samples"][0]["tclr"], 1.0)


if __name__ == "__main__":
    unittest.main()
