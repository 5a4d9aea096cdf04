"""Hostile input is normal input: regressions of the audit's root causes outside the time lock
(which tests/timelock/test_lock.py, tests/timelock/test_events.py and tests/timelock/test_hostile_upstream.py cover)."""

import datetime as dt
import json
import os
import tempfile
import unittest
from pathlib import Path

from anachron.core import AnachronError, compare_modes, load_corpus_dir
from anachron.store import SearchEngine
from anachron.core.attribution import parse_when
from anachron.core.dates import parse_date

from tests.corpus_fixtures import corpus, item
from tests.support import run_cli


class AsciiDigitsTest(unittest.TestCase):
    def test_only_ascii_digits_make_a_date(self):
        for text in ("２０２２-06-01", "٢٠٢٢-06-01", "2022-٠٦-01", "2022-06-0１"):
            with self.subTest(text=text):
                with self.assertRaises(AnachronError):
                    parse_date(text)
                with self.assertRaises(AnachronError):
                    parse_when(text)

    def test_a_corpus_date_in_other_digits_is_an_error_naming_the_field(self):
        with self.assertRaisesRegex(AnachronError, "^items:1: field 'publish_date': '２０２２-06-01' is not a date"):
            corpus([item("a", "２０２２-06-01")])


class CalendarEdgeTest(unittest.TestCase):
    def test_an_offset_at_the_edge_of_the_calendar_is_an_error_not_an_overflow(self):
        for text in ("9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+00:01"):
            with self.subTest(text=text), self.assertRaisesRegex(AnachronError, "outside the plausible years"):
                parse_when(text)


class RestatementCycleTest(unittest.TestCase):
    def test_cycles_of_any_length_are_errors(self):
        for n in (2, 3):
            ids = [f"r{i}" for i in range(n)]
            rows = [item(ident, "2021-09-17", restates=ids[(i + 1) % n]) for i, ident in enumerate(ids)]
            with self.subTest(n=n), self.assertRaisesRegex(AnachronError, "restatements form a cycle: r0 -> r1"):
                corpus(rows)

    def test_a_chain_is_fine(self):
        c = corpus([item("a", "2021-01-01"), item("b", "2021-01-01", restates="a"), item("c", "2021-02-01", restates="b")])
        self.assertEqual(c.items["c"].restates, "b")


class ApiTypesTest(unittest.TestCase):
    def test_search_and_fetch_refuse_wrong_types_with_our_error(self):
        engine = SearchEngine(load_corpus_dir())
        day = dt.date(2022, 6, 1)
        cases = [
            (lambda: engine.search(None, as_of=day), "query must be a string"),
            (lambda: engine.search("x", as_of="2022-06-01"), "as_of must be a datetime.date"),
            (lambda: engine.search("x", as_of=None), "as_of must be a datetime.date"),
            (lambda: engine.fetch(None, as_of=day), "item_id must be a string"),
            (lambda: engine.fetch("fin-001", as_of="today"), "as_of must be a datetime.date"),
        ]
        for call, message in cases:
            with self.subTest(message=message), self.assertRaisesRegex(AnachronError, message):
                call()

    def test_resamples_have_a_ceiling(self):
        with self.assertRaisesRegex(AnachronError, "n_resamples must be at most 1,000,000"):
            compare_modes({"a": 0.5}, {"a": 0.0}, n_resamples=10**12)
        with self.assertRaisesRegex(AnachronError, "n_resamples must be at most"):
            compare_modes({"a": 0.5}, {"a": 0.0}, n_resamples=int("9" * 400))


class BadOptionValuesTest(unittest.TestCase):
    def test_a_huge_count_is_an_error_not_an_overflow(self):
        with self.assertRaisesRegex(AnachronError, r"above 2\*\*53"):
            compare_modes({"a": 10**400, "b": 1}, {"a": 0, "b": 0}, metric="survivorship_leaks", n_resamples=100)

    def test_an_infinite_or_absurd_upstream_timeout_is_refused_at_start_up(self):
        with tempfile.TemporaryDirectory() as tmp:
            for value in ("inf", "nan", "1e400", "0", "-1", "3601"):
                with self.subTest(value=value):
                    status, out, err = run_cli("serve", "--as-of", "2022-06-01", "--events", f"{tmp}/e.jsonl",
                                               "--upstream", "http://127.0.0.1:9", "--upstream-timeout", value)
                    self.assertEqual((status, out), (2, ""))
                    self.assertIn("--upstream-timeout", err)


class OutputTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = Path(self.tmp.name)

    def test_lone_surrogates_and_separators_in_input_are_read_and_printed(self):
        trace = self.dir / "t.jsonl"
        trace.write_text('{"sample_id": "a\\ud800\\u2028b", "as_of": "2022-06-01", "interactions": ['
                         '{"tool": "search", "query": "q3 2023\\u2029\\udc00", "returned": ["fin-005"]}]}\n', encoding="utf-8")
        for fmt in ("table", "json"):
            with self.subTest(fmt=fmt):
                status, out, err = run_cli("score", str(trace), "--format", fmt)
                self.assertEqual((status, err), (0, ""))
                out.encode("utf-8", "backslashreplace")
        document = json.loads(run_cli("score", str(trace), "--format", "json")[1])
        self.assertEqual(document["samples"][0]["sample_id"], "a\ud800\u2028b")  # escaped in JSON, given back whole

    def test_a_failed_write_is_one_error_line_and_the_set_is_untouched(self):
        out = self.dir / "demo"
        out.mkdir()
        (out / "unrestricted.json").write_text("old")
        (out / "enforced.json").mkdir()  # in the way: the set cannot be written
        status, stdout, err = run_cli("demo", "--out", str(out))
        self.assertEqual((status, len(err.splitlines())), (2, 1), err)
        self.assertIn("enforced.json: is a directory", err)
        self.assertEqual((out / "unrestricted.json").read_text(), "old")
        self.assertEqual(sorted(os.listdir(out)), ["enforced.json", "unrestricted.json"])


if __name__ == "__main__":
    unittest.main()
