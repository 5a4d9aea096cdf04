"""The cache of query findings (``query_findings``): exact, bounded, and the same bytes with or without it.

Its key is everything the findings depend on: the part of the query read, T and the fiscal
calendar.  Each test compares with the findings worked out afresh (``findings_cache_clear`` first, or
``CACHED_QUERY_CHARS`` set below every query's length, which sends every query past the cache).
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from anachron.core import query_findings
from anachron.core.query_intent import cache, findings_cache_clear, findings_cache_info

from tests.support import ROOT, run_cli

DATA = ROOT / "tests" / "data" / "scale"
D = dt.date.fromisoformat


def afresh(query, as_of, fiscal=None):
    findings_cache_clear()
    return query_findings(query, as_of, fiscal_year_end=fiscal)


class CacheTest(unittest.TestCase):
    def setUp(self):
        findings_cache_clear()

    def test_a_query_asked_again_is_kept_and_then_a_hit_with_the_same_findings(self):
        first = query_findings("revenue Q3 2024", D("2024-05-01"))
        self.assertEqual(findings_cache_info(), (0, 1, cache.FINDINGS_CACHE, 0))  # asked once: not kept
        second = query_findings("revenue Q3 2024", D("2024-05-01"))
        self.assertEqual(findings_cache_info()[:2], (0, 2))
        self.assertEqual(findings_cache_info().currsize, 1)  # asked again: kept
        third = query_findings("revenue Q3 2024", D("2024-05-01"))
        self.assertEqual(findings_cache_info()[:2], (1, 2))
        self.assertIs(third, second)
        self.assertEqual(first, second)
        self.assertEqual([r.begins for r in third.future], [D("2024-07-01")])

    def test_in_a_run_that_repeats_itself_a_query_is_kept_at_its_first_asking(self):
        as_of = D("2020-01-01")
        query_findings("first 2021", as_of)
        self.assertEqual(findings_cache_info().currsize, 0)
        for _ in range(40):  # a hit at every call from the third on
            query_findings("again 2021", as_of)
        self.assertEqual(findings_cache_info().hits, 38)
        query_findings("new 2021", as_of)
        self.assertEqual(findings_cache_info().currsize, 2)  # "again" and "new", at once
        with mock.patch.object(cache, "CACHED_QUERY_CHARS", -1):
            self.assertEqual(query_findings("new 2021", as_of), query_findings("new 2021", as_of))
        # a run of distinct queries then goes back to keeping only the ones asked again
        sizes = []
        for n in range(200):
            query_findings(f"item {n} 2021", as_of)
            sizes.append(findings_cache_info().currsize)
        self.assertGreater(sizes[0], 2)
        self.assertEqual(sizes[100], sizes[-1])
        self.assertLess(sizes[-1], 2 + 100)
        findings_cache_clear()  # and one that never repeated itself keeps nothing
        for n in range(200):
            query_findings(f"item {n} 2021", as_of)
            if n == 30:
                kept = findings_cache_info().currsize
        self.assertEqual((kept, findings_cache_info().currsize), (0, 0))

    def test_a_second_asking_out_of_the_window_of_keys_is_not_kept(self):
        as_of = D("2020-01-01")
        with mock.patch.object(cache, "ASKED_ONCE", 3):
            query_findings("item 0 2021", as_of)
            for n in (1, 2, 3):  # the key of the first falls out of the window of three
                query_findings(f"item {n} 2021", as_of)
            query_findings("item 0 2021", as_of)
            self.assertEqual(findings_cache_info().currsize, 0)
            query_findings("item 3 2021", as_of)  # still in the window: kept
            self.assertEqual(findings_cache_info().currsize, 1)

    def test_t_is_in_the_key(self):
        # the same query on either side of the day its period begins: a leak, then none, then a leak
        for as_of, leaks in (("2023-12-31", True), ("2024-01-01", False)) * 3:
            with self.subTest(as_of=as_of):
                self.assertEqual(bool(query_findings("results 2024", D(as_of)).future), leaks)
        # a two-digit year is read in the century nearest T
        for as_of in ("2019-06-01", "1919-06-01") * 3:
            self.assertEqual(query_findings("Q3 '20", D(as_of)), afresh("Q3 '20", D(as_of)))

    def test_the_fiscal_calendar_is_in_the_key(self):
        as_of = D("2023-08-01")
        for fiscal in (None, "06-30", "09-30", None, "06-30", "03-31", None, "06-30", "09-30"):
            with self.subTest(fiscal=fiscal):
                found = query_findings("FY2024 results", as_of, fiscal_year_end=fiscal)
                self.assertEqual(found, afresh("FY2024 results", as_of, fiscal))
        for _ in range(3):
            self.assertNotEqual(query_findings("FY2024 Q1", as_of, fiscal_year_end="06-30"),
                                query_findings("FY2024 Q1", as_of, fiscal_year_end="12-31"))
        self.assertGreater(findings_cache_info().hits, 0)

    def test_a_malformed_calendar_fails_every_time(self):
        for _ in range(3):
            with self.assertRaises(ValueError):
                query_findings("FY2024", D("2023-01-01"), fiscal_year_end="13-45")
        self.assertEqual(findings_cache_info().currsize, 0)

    def test_a_long_query_is_not_kept(self):
        long = "revenue 2030 " + "x" * cache.CACHED_QUERY_CHARS
        self.assertEqual([r.text for r in query_findings(long, D("2024-01-01")).future], ["2030"])
        self.assertEqual(findings_cache_info().currsize, 0)
        for _ in range(2):
            query_findings(long, D("2024-01-01"))
            query_findings("revenue 2030", D("2024-01-01"))
        self.assertEqual(findings_cache_info().currsize, 1)

    def test_subclasses_are_worked_out_every_time(self):
        class Query(str):
            def split(self, *args):  # might read differently from an equal str
                return []

        class Calendar(str):
            pass

        class Day(dt.date):
            pass

        for _ in range(3):
            self.assertEqual(query_findings(Query("sales 2030"), D("2024-01-01")), afresh("sales 2030", D("2024-01-01")))
            self.assertEqual(query_findings("sales 2030", Day(2024, 1, 1)), afresh("sales 2030", D("2024-01-01")))
            query_findings("FY2030", D("2024-01-01"), fiscal_year_end=Calendar("06-30"))
            findings_cache_clear()
        for _ in range(3):
            query_findings(Query("sales 2030"), D("2024-01-01"))
            query_findings("sales 2030", Day(2024, 1, 1))
            query_findings("FY2030", D("2024-01-01"), fiscal_year_end=Calendar("06-30"))
        self.assertEqual(findings_cache_info()[:2], (0, 0))  # none went through it
        for _ in range(2):
            query_findings("sales 2030", D("2024-01-01"))
        self.assertEqual(findings_cache_info().currsize, 1)

    def test_the_cache_is_bounded(self):
        size = cache.FINDINGS_CACHE
        self.assertEqual(findings_cache_info().maxsize, size)
        as_of = D("2020-01-01")
        for n in range(size + 50):
            query_findings(f"item {n} 2021", as_of)
            query_findings(f"item {n} 2021", as_of)  # kept on its second asking
        self.assertEqual(findings_cache_info().currsize, size)
        # the least recently used went first: the newest are still there, the oldest is not
        hits = findings_cache_info().hits
        query_findings(f"item {size + 49} 2021", as_of)
        self.assertEqual(findings_cache_info().hits, hits + 1)
        query_findings("item 0 2021", as_of)
        self.assertEqual(findings_cache_info().hits, hits + 1)


class SameBytesTest(unittest.TestCase):
    """`anachron score` over a sample rerun in five epochs: the same output with the cache and without."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        lines = []
        with open(DATA / "traces.jsonl", encoding="utf-8") as fh:
            for line in fh:
                record = json.loads(line)
                if "as_of" not in record:  # its date is in the corpus under its own id
                    continue
                for epoch in range(1, 6):  # each query kept at its second asking, a hit at the next three
                    lines.append(json.dumps({**record, "sample_id": f"{record['sample_id']}-e{epoch}"}) + "\n")
        cls.traces = Path(cls.tmp.name) / "epochs.jsonl"
        cls.traces.write_text("".join(lines), encoding="utf-8")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def score(self, fmt):
        status, out, err = run_cli("score", str(self.traces), "--corpus", str(DATA / "corpus"), "--format", fmt)
        self.assertEqual((status, err), (0, ""))
        return out

    def test_json_table_and_csv_are_the_same_bytes_without_the_cache(self):
        for fmt in ("json", "table", "csv"):
            with self.subTest(fmt=fmt):
                findings_cache_clear()
                cached = self.score(fmt)
                info = findings_cache_info()
                self.assertGreater(info.hits, info.misses)  # the reruns were answered from the cache
                findings_cache_clear()
                with mock.patch.object(cache, "CACHED_QUERY_CHARS", -1):
                    plain = self.score(fmt)
                self.assertEqual(findings_cache_info().currsize, 0)  # nothing went through it
                self.assertEqual(cached, plain)
                if fmt == "json":  # and the queries had findings to keep
                    self.assertIn("reaches for", cached)


if __name__ == "__main__":
    unittest.main()
