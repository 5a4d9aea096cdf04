"""`anachron score` streams: same bytes as the scorer it replaced, jsonl, --out, --jobs, bad input.

The expected outputs in tests/data/scale/expected/ were written by the scorer before streaming
(main's non-streaming scorer, regenerated before the streaming branch was merged: commit
"expected outputs of main's scorer"), from the v0 demo traces and from a hostile generated set
(benchmarks/workload.py --items 200 --samples 150 --interactions 6 --hostile --seed 7).
Issue 27 added fields (per sample ``unrecorded`` and ``warnings``; in the summary also ``calls`` and
``incomplete``; CSV columns ``unrecorded`` and ``warnings``): the files were rewritten after checking
that every other field and every table byte is unchanged and the new fields hold nothing (0, [], false).
Issue 24 added the per-sample ``slice`` (JSON, JSONL, CSV column after ``mode``) and dropped the
table's first line ``seal audit: not run ...`` (and the blank line under it) where no audit could
apply: the files were rewritten after checking that nothing else changed (/tmp script: JSON and CSV
equal once ``slice`` is dropped, tables equal once the two lines are put back).
"""

from __future__ import annotations

import gzip
import json
import tempfile
import unittest
from pathlib import Path

from anachron.core.jsonio import dump_json

from tests.support import ROOT, run_cli, score_table

DATA = ROOT / "tests" / "data" / "scale"
GENERATED = (str(DATA / "traces.jsonl"), "--corpus", str(DATA / "corpus"))


def expected(name: str) -> str:
    return gzip.decompress((DATA / "expected" / f"{name}.gz").read_bytes()).decode("utf-8")


def shown(text: str) -> str:
    """*text* as standard output shows it (the CLI prints lone surrogates as \\udXXXX escapes)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")




class SealAuditTest(unittest.TestCase):
    """The seal audit streams: the verdict (known only at the end) is the table's first line."""

    def library(self, sealed):
        from anachron.core import load_corpus_dir, parse_traces, score_traces, summarise
        from anachron.core.jsonio import read_records

        corpus = load_corpus_dir(str(DATA / "corpus"))
        traces = parse_traces(read_records(str(DATA / "traces.jsonl")), corpus)
        results = score_traces(traces, corpus, sealed_tools=sealed)
        # The JSON is dump_json of the whole document, not the streamed writer's pieces.
        document = {"samples": [r.to_dict() for r in results], "summary": summarise(results).to_dict()}
        return shown(score_table(results)), shown(dump_json(document))

    def test_streamed_audit_is_the_library_audit_in_every_process_count(self):
        table, document = self.library(frozenset({"search"}))
        self.assertTrue(table.startswith("sealed: false ("), table[:80])
        for jobs in ("1", "3"):
            for fmt, want in (("table", table), ("json", document)):
                status, out, err = run_cli("score", *GENERATED, "--sealed-tools", "search", "--format", fmt, "--jobs", jobs)
                self.assertEqual((status, err), (0, ""))
                self.assertEqual(shown(out), want, f"{fmt} --jobs {jobs}")

    def test_no_audit_without_sealed_tools(self):
        table, _ = self.library(None)
        # A plain trace (no shell command, local call or lock receipt): no seal line, the JSON keeps null.
        self.assertTrue(table.startswith("sample "), table[:80])
        self.assertEqual(table, expected("gen.table"))
        summary = json.loads(expected("gen.json"))["summary"]
        self.assertIsNone(summary["seal_breaches"])

    def test_jobs_with_imported_logs_is_refused(self):
        status, out, err = run_cli(
            "score", str(DATA / "traces.jsonl"), "--from", "openai-chat", "--as-of", "2024-01-01", "--jobs", "2"
        )
        self.assertEqual((status, out), (2, ""))
        self.assertIn("--jobs", err)
        self.assertEqual(err.count("\n"), 1)


class EmptyAndSmallTest(unittest.TestCase):
    def score(self, text, *args):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "t.jsonl"
            path.write_text(text, encoding="utf-8")
            return run_cli("score", str(path), *args)

    def test_an_empty_file_is_refused_with_any_number_of_jobs(self):
        for jobs in ("1", "2"):
            status, out, err = self.score("\n\n", "--format", "json", "--jobs", jobs)
            self.assertEqual((status, out), (2, ""))
            self.assertRegex(err, r"^anachron: \S+/t\.jsonl: no trace record\n$")

    def test_one_trace_many_jobs(self):
        line = '{"sample_id": "finance-001", "interactions": [{"tool": "search", "query": "x", "returned": ["fin-005"]}]}\n'
        _, one, _ = self.score(line, "--format", "json")
        status, many, _ = self.score(line, "--format", "json", "--jobs", "4")
        self.assertEqual((status, many), (0, one))
        self.assertEqual(json.loads(one)["samples"][0]["result_leaks"], 1)

    def test_jobs_must_be_positive(self):
        for bad in ("0", "-1", "x", "1.5"):
            status, out, err = self.score("", "--jobs", bad)
            self.assertEqual((status, out), (2, ""))
            self.assertIn("--jobs", err)




if __name__ == "__main__":
    unittest.main()


class PrettyJsonTest(unittest.TestCase):
    """pretty_json (and so dump_json) writes what json's indenting encoder writes, for every value, nested anywhere."""

    @staticmethod
    def reference(value, indent):
        import re

        text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
        text = re.sub("[\u0085\u2028\u2029\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)
        return text.replace("\n", "\n" + indent)

    def test_same_as_json_dumps(self):
        from anachron.core.jsonio import pretty_json

        import enum

        class Sub(str):
            pass

        class Flag(enum.IntEnum):
            ON = 1

        values = [
            {}, [], "", 0, -1, 2**70, 0.1, 1e300, -0.0, 1.0, True, False, None,
            {"b": [1, {"z": None, "a": []}], "a": {"x": {}, "\u2028": "\ud800\x00\u0085\"\\"}},
            [["nested", ["deep", [1.5, None]]], (1, 2)],
            {"evidence": ["#1 a\u2029b", "é 2024", "\udfff"], "failed_calls": {"refused": 0, "error": 2}},
            {"int_key": {1: "a", 2: "b"}},  # non-string keys: json's own rules
            [Sub("sub"), 3, "s"],  # a str subclass among others
            {"mixed": ["a", 1, None, "b"]},
            [3, 1, 2], [1, True, 0], [False], {"h": [5, 6], "flag": True, "n": None, "s": "x", "i": 7, "b": False},
            {"big": 2**70, "int_sub": Flag.ON, "list_sub": [Flag.ON, 1]},  # an int subclass: json's own rules
        ]
        for value in values:
            for indent in ("", "    "):
                want = self.reference(value, indent)
                self.assertEqual(pretty_json(value, indent), want, repr(value))
                if not indent:
                    self.assertEqual(dump_json(value), want + "\n", repr(value))

    def test_what_json_refuses_it_refuses(self):
        from anachron.core.jsonio import pretty_json

        for value in (float("nan"), [float("inf")], {"a": float("-inf")}, {"a": object()}, {(1, 2): 3}):
            for write in (pretty_json, dump_json):
                with self.assertRaises((ValueError, TypeError)):
                    write(value)


class FixedReferencesTest(unittest.TestCase):
    """A corpus item's date references are worked out once only when no cutoff could change them."""

    def test_four_digit_forms_are_fixed_and_equal_to_any_cutoff(self):
        import datetime as dt

        from anachron.core.query_intent import date_references, fixed_references

        text = "Revenue for Q3 2024, up from 14 March 2023 and FY2022; guidance for 2025."
        fixed = fixed_references(text)
        self.assertIsNotNone(fixed)
        for as_of in (dt.date(1990, 1, 1), dt.date(2023, 3, 14), dt.date(2060, 6, 30)):
            self.assertEqual(fixed, date_references(text, as_of))

    def test_a_two_digit_year_is_read_at_each_cutoff(self):
        import datetime as dt

        from anachron.core.query_intent import date_references, fixed_references

        for text in ("results for Q4 '99", "FY23 guidance", "3Q98 call"):
            self.assertIsNone(fixed_references(text), text)
            self.assertNotEqual(date_references(text, dt.date(1930, 1, 1)), date_references(text, dt.date(2090, 1, 1)))
