"""A page that states its own later publication or update is post-T (docs/dating.md, source 5).

Through the time lock over an upstream (the real UpstreamBackend, its reply canned in-process) and
through the scorer of a trace: the lock withholds an item whose statement is after T, and the
scorer records the disagreement with the item's earlier date as a date conflict (the band's top
counts it). A statement on T is not after T; a month that straddles T is uncertain (the lock
withholds it unless undated items are allowed; the scorer takes no side); a finite verb about
another document is no statement.
"""

from __future__ import annotations

import datetime as dt
import json
import unittest

from anachron.core import parse_traces, score_trace
from anachron.core.attribution import STAMP_SCAN_CHARS
from anachron.timelock import Limits, TimeLock, UpstreamBackend
from anachron.timelock.web.transport import Reply
from tests.corpus_fixtures import corpus

URL = "https://example.com/retro"  # no date in the URL
LEAD = "Jan 2, 2020 — "


class CannedUpstream(UpstreamBackend):
    """The upstream backend over a transport that answers a fixed reply: everything else is the real one."""

    def __init__(self, results):
        reply = Reply(200, json.dumps({"results": results}).encode())
        super().__init__("http://upstream.invalid", transport=type("Canned", (), {"send": lambda self, request: reply})())


class Journal:
    def __init__(self):
        self.records = []

    def write(self, header, record):
        self.records.append(dict(record))


def through_lock(entry: dict, as_of: dt.date, **options) -> dict:
    """The lock's record of one search answered with *entry*: what it returned and withheld."""
    journal = Journal()
    lock = TimeLock(CannedUpstream([entry]), as_of, journal, limits=Limits(), run="r", **options)
    lock.call("search", {"query": "retrospective"})
    return journal.records[0]


def scored(entry: dict, as_of: dt.date):
    record = {"sample_id": "s", "as_of": as_of.isoformat(), "interactions": [{"tool": "search", "returned": [entry]}]}
    c = corpus(items=[])
    return score_trace(parse_traces([("t:1", record)], c)[0], c)


def item(snippet: str, **more) -> dict:
    return {"url": URL, "title": "A retrospective", "snippet": snippet, **more}


class StatedAfterT(unittest.TestCase):
    def test_a_retrospective_published_after_t_is_withheld_and_a_conflict(self):
        entry = item(LEAD + "a retrospective published in June 2023")
        T = dt.date(2022, 6, 1)
        record = through_lock(entry, T)
        self.assertEqual(record["returned"], [])
        [withheld] = record["withheld"]
        self.assertEqual((withheld["reason"], withheld["dated_by"], withheld["published"]),
                         ("after-cutoff", "snippet statement", "2023-06-01"))
        result = scored(entry, T)
        self.assertEqual(result.date_conflicts, 1)
        self.assertEqual(result.to_dict()["tclr_high"], 1.0)  # the band counts it leaking
        self.assertIn(f'#1 date conflict: item {URL} dated 2020-01-02 by snippet ("Jan 2, 2020") but 2023-06 (month) '
                      'by snippet statement ("published in June 2023")', result.evidence)

    def test_without_the_statement_the_same_item_is_served(self):
        entry = item(LEAD + "a retrospective of the year")
        record = through_lock(entry, dt.date(2022, 6, 1))
        self.assertEqual((len(record["returned"]), record["withheld"]), (1, []))
        self.assertEqual(scored(entry, dt.date(2022, 6, 1)).date_conflicts, 0)


class TheBoundary(unittest.TestCase):
    CASES = ("updated March 3, 2023", "first published on 2023-03-03", "Last updated: 2023-03-03 10:15",
             "This article was published on 3 March 2023")

    def test_a_statement_on_t_is_not_after_t(self):
        for statement in self.CASES:
            with self.subTest(statement=statement):
                entry = item(LEAD + statement)
                record = through_lock(entry, dt.date(2023, 3, 3))
                self.assertEqual((len(record["returned"]), record["withheld"]), (1, []))
                self.assertEqual(scored(entry, dt.date(2023, 3, 3)).date_conflicts, 0)

    def test_a_statement_the_day_after_t_is_after_t(self):
        for statement in self.CASES:
            with self.subTest(statement=statement):
                entry = item(LEAD + statement)
                record = through_lock(entry, dt.date(2023, 3, 2))
                self.assertEqual(record["returned"], [])
                self.assertEqual(record["withheld"][0]["reason"], "after-cutoff")
                self.assertEqual(scored(entry, dt.date(2023, 3, 2)).date_conflicts, 1)

    def test_a_stated_month_that_straddles_t_is_uncertain(self):
        entry = item(LEAD + "a retrospective published in June 2023")
        T = dt.date(2023, 6, 15)
        record = through_lock(entry, T)
        self.assertEqual((record["returned"], record["withheld"][0]["reason"]), ([], "uncertain"))  # fail closed
        self.assertEqual(len(through_lock(entry, T, allow_undated=True)["returned"]), 1)
        self.assertEqual(scored(entry, T).date_conflicts, 0)  # a granule containing T takes no side
        self.assertEqual(len(through_lock(entry, dt.date(2023, 6, 30))["returned"]), 1)  # known on its last day

    def test_the_latest_statement_wins(self):
        entry = item(LEAD + "first published on 2021-01-05", text="<p>Last updated: <b>July 9, 2022</b></p>")
        record = through_lock(entry, dt.date(2022, 6, 1))
        self.assertEqual((record["withheld"][0]["dated_by"], record["withheld"][0]["published"]),
                         ("text statement", "2022-07-09"))


class NotAStatement(unittest.TestCase):
    def test_another_document_s_publication_is_not_the_page_s(self):
        for snippet in ("the 2023 report was published in June 2023", "results will be published on 2023-06-04",
                        "the agency has updated its 2024 guidance", "figures were last updated: 2023-06-04"):
            with self.subTest(snippet=snippet):
                entry = item(LEAD + snippet)
                record = through_lock(entry, dt.date(2022, 6, 1))
                self.assertEqual(len(record["returned"]), 1)
                self.assertEqual([s["source"] for s in record["returned"][0]["sources"]], ["snippet"])

    def test_an_impossible_day_is_no_statement(self):
        entry = item(LEAD + "updated on 2023-02-30")
        self.assertEqual(len(through_lock(entry, dt.date(2022, 6, 1))["returned"]), 1)


class Hostile(unittest.TestCase):
    def test_the_scan_is_bounded(self):
        padding = "x " * (STAMP_SCAN_CHARS // 2)
        late = item(LEAD + "a page", text=padding + " published in June 2023")
        self.assertEqual(len(through_lock(late, dt.date(2022, 6, 1))["returned"]), 1)  # past the bound: unread
        early = item(LEAD + "a page", text="published in June 2023 " + padding)
        self.assertEqual(through_lock(early, dt.date(2022, 6, 1))["returned"], [])

    def test_many_phrases_without_dates_are_no_statement(self):
        entry = item(LEAD + "a page", text="published in updated on " * 20000)
        self.assertEqual(len(through_lock(entry, dt.date(2022, 6, 1))["returned"]), 1)


if __name__ == "__main__":
    unittest.main()
