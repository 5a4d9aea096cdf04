"""Issue 26, loose ends: date conflicts scored from a lock's event log, shown in every output,
and the protocol errors of a log counted by ``score-events``.

The logs are written by the real lock (``anachron.timelock.TimeLock`` with an ``EventWriter``),
from a stub upstream backend; the "equivalent trace" is the upstream items as the backend sent
them, scored by ``anachron score``.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
import tempfile
import unittest
from pathlib import Path

from anachron.timelock import EventWriter, Hit, Limits, TimeLock
from anachron.timelock.events import protocol_error_record, start_record
from tests.timelock import test_date_conflicts as pairings
from tests.support import run_cli

T = dt.date(2022, 12, 15)
CONFLICT = {"url": "https://news.example/2023/03/02/story", "title": "A story", "published": "2022-05-01"}
AGREED = {"url": "https://news.example/2022/05/01/other", "title": "Another", "published": "2022-05-01"}
# An HTML source is not in the log (only the head of a fetched page is): it cannot be restated.
HTML = {"url": "https://news.example/story/html", "title": "Page", "published": "2022-05-01",
        "text": '<html><head><meta property="article:published_time" content="2023-03-02"></head></html>'}
CONFLICT_LINE = ('#1 date conflict: item https://news.example/2023/03/02/story dated 2022-05-01 by '
                 'field \'published\' ("2022-05-01") but 2023-03-02 by url ("/2023/03/02")')


# The stub upstream of the pairing tests: it returns its entries, as sent, to every search.
Backend = pairings.EventLogTest.Backend


class Files(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def lock_log(self, name, *calls, mode="unrestricted"):
        path = self.dir / name
        writer = EventWriter(path)
        """An event log of the real lock: one search per entry list in *calls*, served in turn."""
        queue = list(calls)

        class Turns(Backend):
            def search(self, query, *, k, as_of, mode):
                return [Hit(e["url"], e["title"], "", (), e) for e in queue.pop(0)]

        lock = TimeLock(Turns([]), T, writer, mode=mode, limits=Limits(), run="r" * 32)
        for _ in calls:
            self.assertEqual(lock.call("search", {"query": "the board"}).status, "ok")
        writer.close()
        return str(path)

    def score(self, *argv):
        status, out, err = run_cli(*argv)
        self.assertEqual(status, 0, err)
        return out, err

    def trace(self, name, *calls):
        """The equivalent trace: each call returned the items as the backend sent them."""
        path = self.dir / name
        record = {"sample_id": "run", "as_of": T.isoformat(), "mode": "unrestricted",
                  "interactions": [{"tool": "search", "query": "the board", "returned": list(c)} for c in calls]}
        path.write_text(json.dumps(record) + "\n", encoding="utf-8")
        return str(path)


class ScoreEventsConflictTest(Files):
    def sample(self, *calls):
        log = self.lock_log(f"run{len(list(self.dir.iterdir()))}.jsonl", *calls)
        out, _ = self.score("score-events", log, "--as-of", T.isoformat(), "--format", "json")
        return json.loads(out)

    def test_an_unrestricted_run_reports_the_conflict_its_trace_reports(self):
        events = self.sample([CONFLICT])
        trace, _ = self.score("score", self.trace("run.jsonl.trace", [CONFLICT]), "--format", "json")
        trace = json.loads(trace)
        got, want = events["samples"][0], trace["samples"][0]
        self.assertIn(CONFLICT_LINE, got["evidence"])
        self.assertEqual([l for l in got["evidence"] if "conflict" in l], [l for l in want["evidence"] if "conflict" in l])
        self.assertEqual((got["date_conflicts"], events["summary"]["date_conflicts"]), (1, 1))
        self.assertEqual((want["date_conflicts"], trace["summary"]["date_conflicts"]), (1, 1))
        # Judged by its first source, as the trace: no result leak; the conflict is apart.
        self.assertEqual((got["result_leaks"], got["tclr"]), (0, 0.0))
        self.assertEqual(got["warnings"], [])

    def test_sources_that_agree_are_no_conflict(self):
        sample = self.sample([AGREED])["samples"][0]
        self.assertEqual((sample["date_conflicts"], sample["result_leaks"], sample["warnings"]), (0, 0, []))

    def test_conflicts_are_counted_per_interaction_over_calls(self):
        doc = self.sample([CONFLICT, AGREED], [AGREED], [CONFLICT])
        self.assertEqual((doc["samples"][0]["date_conflicts"], doc["samples"][0]["interactions"]), (2, 3))
        self.assertEqual(sum("date conflict" in line for line in doc["samples"][0]["evidence"]), 2)

    def test_sources_the_trace_cannot_restate_are_a_warning_never_a_silent_zero(self):
        sample = self.sample([HTML, AGREED])["samples"][0]
        self.assertEqual(sample["date_conflicts"], 0)
        self.assertEqual(sample["warnings"], [
            "1 shown item(s) carried date sources the trace cannot restate (first: https://news.example/story/html); "
            "they are scored by the date the lock chose, and a conflict among their sources is not counted "
            "(score the harness's own log to see them)"
        ])

    def test_a_source_on_t_is_not_after_t(self):
        on_t = {**CONFLICT, "url": "https://news.example/2022/12/15/story"}
        day_after = {**CONFLICT, "url": "https://news.example/2022/12/16/story"}
        self.assertEqual(self.sample([on_t])["samples"][0]["date_conflicts"], 0)
        sample = self.sample([day_after])["samples"][0]
        self.assertEqual(sample["date_conflicts"], 1)
        self.assertIn('#1 date conflict: item https://news.example/2022/12/16/story dated 2022-05-01 by '
                      'field \'published\' ("2022-05-01") but 2022-12-16 by url ("/2022/12/16")', sample["evidence"])

    def test_an_enforced_lock_shows_no_conflicting_item(self):
        log = self.lock_log("run.jsonl", [CONFLICT, AGREED], mode="enforced")
        out, _ = self.score("score-events", log, "--as-of", T.isoformat(), "--format", "json")
        sample = json.loads(out)["samples"][0]
        self.assertEqual((sample["date_conflicts"], sample["result_leaks"], sample["interactions"]), (0, 0, 1))

    def test_a_single_source_the_trace_cannot_restate_is_no_warning(self):
        only_html = {"url": "https://news.example/story/page", "title": "Page",
                     "text": '<meta property="article:published_time" content="2022-05-01">'}
        sample = self.sample([only_html])["samples"][0]
        self.assertEqual((sample["date_conflicts"], sample["result_leaks"], sample["warnings"]), (0, 0, []))

    def test_the_table_shows_the_count(self):
        log = self.lock_log("run.jsonl", [CONFLICT])
        out, _ = self.score("score-events", log, "--as-of", T.isoformat())
        self.assertIn("\ndate conflicts           1\n", out)
        self.assertIn("  ! " + CONFLICT_LINE + "\n", out)


class DisplayTest(Files):
    """The count is shown wherever the other counts are: table, CSV, HTML (summary and rows)."""

    def setUp(self):
        super().setUp()
        self.traces = self.trace("t.jsonl", [CONFLICT], [AGREED])

    def test_table_summary_line_zero_and_one(self):
        out, _ = self.score("score", self.traces)
        self.assertIn("\ncontent leaks            0\ndate conflicts           1\n", out)
        clean = self.trace("clean.jsonl", [AGREED])
        out, _ = self.score("score", clean)
        self.assertIn("\ndate conflicts           0\n", out)

    def test_csv_column(self):
        out, _ = self.score("score", self.traces, "--format", "csv")
        [row] = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual((row["date_conflicts"], row["interactions"]), ("1", "2"))
        header = out.splitlines()[0].split(",")
        self.assertEqual(header.index("date_conflicts"), header.index("revision_risks") + 1)

    def test_html_summary_and_sample_row(self):
        scores = self.dir / "s.json"
        out, _ = self.score("score", self.traces, "--format", "json", "--out", str(scores))
        html = self.dir / "r.html"
        self.score("report", str(scores), "--out", str(html))
        text = html.read_text(encoding="utf-8")
        self.assertRegex(text, r"date conflicts</t[hd]>\s*<td[^>]*>1</td>")
        # The sample row: its "conflicts" cell, beside "content".
        head = re.findall(r'<th data-type="\w+"[^>]*>(?:<span>)?([^<]*)(?:</span>)?</th>', text)
        row = re.search(r'<tr><td class="text id".*?</tr>', text).group()
        cells = dict(zip(head, re.findall(r"<td[^>]*>(.*?)</td>", row)))
        self.assertEqual((cells["content"], cells["conflicts"], cells["ok calls"]), ("0", "1", "2"))
        self.assertEqual(head.index("conflicts"), head.index("content") + 1)


    def test_a_score_file_with_a_bad_count_is_refused(self):
        scores = self.dir / "s.json"
        self.score("score", self.traces, "--format", "json", "--out", str(scores))
        document = json.loads(scores.read_text(encoding="utf-8"))
        for bad, why in [(-1, "date_conflicts must be a non-negative integer, got -1"),
                         ("1", "date_conflicts must be a non-negative integer, got '1'"),
                         (True, "date_conflicts must be a non-negative integer, got True"),
                         (3, "more interactions with a date conflict than interactions")]:
            with self.subTest(bad=bad):
                document["samples"][0]["date_conflicts"] = bad
                scores.write_text(json.dumps(document), encoding="utf-8")
                status, out, err = run_cli("report", str(scores), "--out", str(self.dir / "r.html"))
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(err.splitlines(), [f"anachron: {scores}: samples[0] (sample 'run'): {why}"])
        # At the boundary (every interaction) it is read; absent (a file from before it) it is 0.
        for value, shown in [(2, "2"), (None, "0")]:
            with self.subTest(value=value):
                if value is None:
                    del document["samples"][0]["date_conflicts"]
                else:
                    document["samples"][0]["date_conflicts"] = value
                scores.write_text(json.dumps(document), encoding="utf-8")
                self.score("report", str(scores), "--out", str(self.dir / "r.html"))
                text = (self.dir / "r.html").read_text(encoding="utf-8")
                head = re.findall(r'<th data-type="\w+"[^>]*>(?:<span>)?([^<]*)(?:</span>)?</th>', text)
                row = re.search(r'<tr><td class="text id".*?</tr>', text).group()
                self.assertEqual(dict(zip(head, re.findall(r"<td[^>]*>(.*?)</td>", row)))["conflicts"], shown)


class ProtocolErrorsTest(Files):
    def log(self, name, errors):
        start = start_record(
            run="p" * 32, time="2026-01-01T00:00:00.000Z", as_of=T, mode="enforced", backend="upstream",
            source="http://127.0.0.1:9/", k=5, allow_undated=False, limits={"searches": None, "fetches": None, "calls": None},
            date_presentation="visible", server="test",
        )
        refused = [protocol_error_record(run="p" * 32, time="t", transport="stdio", code=-32700, error="Parse error",
                                         request_id=None, raw=b"{" * (i + 1)) for i in range(errors)]
        path = self.dir / name
        path.write_text("".join(json.dumps(r) + "\n" for r in [start, *refused]), encoding="utf-8")
        return str(path)

    def test_three_errors_one_line_and_a_field(self):
        log = self.log("a.jsonl", 3)
        out, _ = self.score("score-events", log, "--as-of", T.isoformat())
        self.assertEqual(out.splitlines()[-1], "protocol errors          3 (malformed messages the lock refused)")
        out, _ = self.score("score-events", log, "--as-of", T.isoformat(), "--format", "json")
        self.assertEqual(json.loads(out)["summary"]["protocol_errors"], 3)
        out, _ = self.score("score-events", log, "--as-of", T.isoformat(), "--format", "jsonl")
        self.assertEqual(json.loads(out.splitlines()[-1])["summary"]["protocol_errors"], 3)

    def test_summed_over_logs_and_zero_without_any(self):
        a, b, none = self.log("a.jsonl", 1), self.log("b.jsonl", 2), self.log("c.jsonl", 0)
        out, _ = self.score("score-events", a, b, none, "--as-of", T.isoformat(), "--format", "json")
        self.assertEqual(json.loads(out)["summary"]["protocol_errors"], 3)
        out, _ = self.score("score-events", none, "--as-of", T.isoformat(), "--format", "json")
        self.assertEqual(json.loads(out)["summary"]["protocol_errors"], 0)
        out, _ = self.score("score-events", none, "--as-of", T.isoformat())
        self.assertNotIn("protocol errors", out)

    def test_score_keeps_its_summary(self):
        out, _ = self.score("score", self.trace("t.jsonl", [AGREED]), "--format", "json")
        self.assertNotIn("protocol_errors", json.loads(out)["summary"])


if __name__ == "__main__":
    unittest.main()
