"""Scans of agent-written text are linear (issue 26, section 4): large hostile inputs, exact results.

The inputs are the ones that took minutes before (a clause scanned again
from the start for every date; runs of blanks re-read by adjacent ``\\s*``
and by a line-start ``\\s*`` that crossed newlines).  The tests assert what
is read; the times are in benchmarks/linear_scans.py and docs/performance.md.
"""

from __future__ import annotations

import datetime as _dt
import json
import shutil
import tempfile
import unittest
from pathlib import Path

from anachron.bank.reading import event_dates, figures
from tests.support import run_cli


class EventDates(unittest.TestCase):
    def test_100_kb_of_dates_without_a_listing_word(self) -> None:
        self.assertEqual(event_dates("2021-02-04 " * 10_000), [])

    def test_100_kb_of_dates_in_one_listing_clause(self) -> None:
        text = "listed " + "2021-02-04 " * 10_000
        found = event_dates(text)
        self.assertEqual(len(found), 10_000)
        self.assertEqual(found[0], (_dt.date(2021, 2, 4), 7))
        self.assertEqual(found[-1], (_dt.date(2021, 2, 4), 7 + 11 * 9_999))

    def test_listing_clauses_separated_by_semicolons(self) -> None:
        found = event_dates("listed 2021-02-04; 2022-03-05 x; " * 5_000)
        self.assertEqual([day for day, _ in found[:2]], [_dt.date(2021, 2, 4)] * 2)
        self.assertEqual(len(found), 5_000)

    def test_a_full_stop_right_before_a_date_ends_the_clause(self) -> None:
        self.assertEqual(event_dates("listed.2021-02-04"), [])
        self.assertEqual(event_dates("listed 2021-02-04"), [(_dt.date(2021, 2, 4), 7)])

    def test_the_clause_runs_ten_characters_past_the_date(self) -> None:
        # The listing word after a clause end within ten characters of the date still counts.
        self.assertEqual(event_dates("Feb 2021; listed"), [(_dt.date(2021, 2, 1), 0)])
        self.assertEqual(event_dates("Feb 2021 xx; listed"), [])


class BlankRuns(unittest.TestCase):
    def test_tabs_and_newlines(self) -> None:
        self.assertEqual(figures("\t\n" * 50_000), [])
        self.assertEqual([(f.start, f.value) for f in figures(" \n" * 50_000 + "1. is 42")], [(100_006, 42)])

    def test_a_list_number_after_blank_lines_is_blanked(self) -> None:
        self.assertEqual([f.value for f in figures("\n\n  1. revenue 42")], [42])

    def test_a_period_label_before_a_long_run_of_blanks(self) -> None:
        for label in ("Q4", "H1", "FY", "CY", "fiscal year"):
            with self.subTest(label=label):
                self.assertEqual(figures(label + " " * 30_000 + "x"), [])
                self.assertEqual([f.value for f in figures(label + " " * 30_000 + "77 x")], [])  # the label's year

    def test_a_period_label_with_its_year(self) -> None:
        self.assertEqual(figures("Q4 FY - 20 and FY ' 19"), [])


class UrlsOfAPlainTextResult(unittest.TestCase):
    def test_16000_urls_on_one_line(self) -> None:
        tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, tmp)
        line = " ".join(f"https://e.com/{i}" for i in range(16_000))
        call = {"id": "c1", "type": "function", "function": {"name": "web_search", "arguments": '{"query": "x"}'}}
        log = {"id": "u", "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": line},
        ]}
        (tmp / "log.jsonl").write_text(json.dumps(log) + "\n", encoding="utf-8")
        status, _, err = run_cli("import", "--from", "openai-chat", str(tmp / "log.jsonl"), "--as-of", "2023-01-01",
                                 "--out", str(tmp / "trace.jsonl"))
        self.assertEqual((status, err), (0, ""))
        returned = json.loads((tmp / "trace.jsonl").read_text(encoding="utf-8"))["interactions"][0]["returned"]
        self.assertEqual([item["url"] for item in returned], [f"https://e.com/{i}" for i in range(16_000)])
        self.assertEqual({item["snippet"] for item in returned}, {line[:2048]})


def chat_log(query: str) -> str:
    call = {"id": "c1", "type": "function", "function": {"name": "web_search", "arguments": json.dumps({"query": query})}}
    log = {"id": "u", "messages": [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "nothing found"},
    ]}
    return json.dumps(log) + "\n"


class LongQueries(unittest.TestCase):
    """A query is read for dates in its first QUERY_SCAN_CHARS characters, and the evidence says so."""

    def score(self, query: str) -> dict:
        tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, tmp)
        (tmp / "log.jsonl").write_text(chat_log(query), encoding="utf-8")
        status, out, err = run_cli("score", "--from", "openai-chat", str(tmp / "log.jsonl"), "--as-of", "2023-01-01",
                                   "--format", "json")
        self.assertEqual((status, err), (0, ""))
        return json.loads(out)["samples"][0]

    def test_a_20_mb_query_is_read_in_its_first_16_kib(self) -> None:
        from anachron.core.query_intent import QUERY_SCAN_CHARS

        self.assertEqual(QUERY_SCAN_CHARS, 16_384)
        query = "news of March 2023 " + "word " * 4_000_000 + "results of 2030"
        sample = self.score(query)
        self.assertEqual(sample["query_intent_leaks"], 1)
        self.assertEqual(
            [line.split("' ", 1)[-1] for line in sample["evidence"]],
            ["reaches for 2023-03-01 > 2023-01-01", "#1 query cut at 16384 characters for date detection"],
        )
        self.assertTrue(sample["evidence"][0].startswith("#1 query 'news of March 2023 word word"))

    def test_a_date_after_the_cut_is_not_read(self) -> None:
        sample = self.score("word " * 4_000 + "results of 2030")
        self.assertEqual(sample["query_intent_leaks"], 0)
        self.assertEqual(sample["evidence"], ["#1 query cut at 16384 characters for date detection"])

    def test_a_query_of_exactly_16_kib_is_read_whole(self) -> None:
        query = "x" * (16_384 - len(" in 2030")) + " in 2030"
        sample = self.score(query)
        self.assertEqual(sample["query_intent_leaks"], 1)
        self.assertNotIn("cut at", " ".join(sample["evidence"]))


if __name__ == "__main__":
    unittest.main()
