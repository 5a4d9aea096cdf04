"""The archive backends over HTTP against a loopback Wayback Machine and Common Crawl
(tests/archive_stubs.py): honest captures before T are served, every trap is withheld or an error,
through the backend and through the lock's log.  Slow: it starts a server."""

import datetime as dt
import tempfile
import unittest
from pathlib import Path

from anachron.timelock import EventWriter, TimeLock, UpstreamError, load_events, recheck
from anachron.timelock.web.commoncrawl import CommonCrawlBackend
from anachron.timelock.web.wayback import WaybackBackend

from tests.archive_stubs import PAGE_LEAK, ArchiveStub

T = dt.date(2022, 6, 1)
TIMEOUT = 1.0
SITE = "https://news.example/"


class _Stubbed(unittest.TestCase):
    backend_class = None

    @classmethod
    def setUpClass(cls):
        cls.stub = ArchiveStub(slow_seconds=TIMEOUT + 1.0).__enter__()
        cls.backend = cls.backend_class(cls.stub.url, timeout=TIMEOUT)

    @classmethod
    def tearDownClass(cls):
        cls.stub.__exit__(None, None, None)

    def fetch(self, page, mode="enforced"):
        self.stub.paths.clear()
        return self.backend.fetch(SITE + page, as_of=T, mode=mode)

    def served(self, page):
        hits = self.fetch(page)
        checked = recheck(hits, T)
        self.assertEqual([w.reason for w in checked.withheld], [])
        self.assertEqual(len(checked.shown), 1)
        return checked.shown[0]

    def withheld(self, page):
        checked = recheck(self.fetch(page), T)
        self.assertEqual(checked.shown, ())
        self.assertEqual(len(checked.withheld), 1)
        withheld = checked.withheld[0]
        self.assertEqual((withheld.id, withheld.reason), (SITE + page, "after-cutoff"))
        return withheld

    def assertNoLeak(self, hits):
        for hit in hits:
            self.assertNotIn("Anna won", hit.text)


class WaybackOverHttpTest(_Stubbed):
    backend_class = WaybackBackend

    def test_the_latest_capture_at_or_before_t_is_served_with_its_capture_time(self):
        hit = self.served("story")
        self.assertEqual((hit.id, hit.title, hit.entry["crawl_date"]), (SITE + "story", "Ruritania: the final stretch", "2022-05-20T12:00:00Z"))
        self.assertIn("Two candidates remain", hit.text)
        self.assertIn("to=20220601235959", self.stub.paths[0])

    def test_a_cdx_row_after_to_is_never_read(self):
        # The stub ignores `to=` and lists a capture of 2022-06-13: the backend picks before T itself.
        self.served("story")
        self.assertFalse(any("20220613" in path for path in self.stub.paths), self.stub.paths)

    def test_a_redirect_to_a_later_capture_is_withheld_unread(self):
        withheld = self.withheld("closest")
        self.assertEqual((withheld.published, withheld.dated_by), ("2022-06-14", "field 'crawl_date'"))
        self.assertFalse(any("20220614" in path for path in self.stub.paths), self.stub.paths)

    def test_a_redirect_to_an_earlier_capture_is_followed(self):
        hit = self.served("earlier")
        self.assertEqual((hit.title, hit.entry["crawl_date"]), ("Ruritania: early May", "2022-05-02T00:00:00Z"))

    def test_a_page_dated_after_t_by_its_url_or_text_is_withheld_whatever_its_meta_says(self):
        self.assertEqual(self.withheld("2022/06/13/result").dated_by, "url")
        self.assertEqual(self.withheld("stated").published, "2022-06-14")

    def test_a_page_dated_after_t_by_its_json_ld_or_time_element_is_withheld_whatever_its_meta_says(self):
        self.assertEqual(self.withheld("jsonld").dated_by, "html json-ld datePublished")
        self.assertEqual(self.withheld("time-tag").dated_by, "html <time datetime>")

    def test_a_later_memento_datetime_dates_the_capture(self):
        self.assertEqual(self.withheld("memento").published, "2022-06-17")

    def test_no_capture_or_only_captured_redirects_is_no_document(self):
        self.assertEqual(self.fetch("never-captured"), [])
        self.assertEqual(self.fetch("only-redirects"), [])

    def test_the_unrestricted_mode_reads_the_latest_capture(self):
        hits = self.fetch("story", mode="unrestricted")
        self.assertEqual(hits[0].text, PAGE_LEAK)
        self.assertNotIn("to=", self.stub.paths[0])

    def test_every_fault_is_an_upstream_error_naming_the_backend_and_cause(self):
        for page, cause in (
            ("slow", "took longer than 1 s"), ("broken-http", "broken reply"), ("unknown-shape", "unknown shape"),
            ("server-error", "HTTP 500"), ("huge", "more than 16777216 bytes"), ("outside", "redirected out of the archive"), ("image", "not text (image/png)"),
        ):
            with self.subTest(page=page), self.assertRaises(UpstreamError) as caught:
                self.fetch(page)
            self.assertIn("wayback: ", str(caught.exception))
            self.assertIn(cause, str(caught.exception))


class CommonCrawlOverHttpTest(_Stubbed):
    backend_class = CommonCrawlBackend

    def test_the_latest_crawl_ended_by_t_is_read_by_range_and_dated_by_warc_date(self):
        hit = self.served("story")
        self.assertEqual((hit.title, hit.entry["crawl_date"]), ("Ruritania: the final stretch", "2022-05-20T09:30:00Z"))
        self.assertIn("Two candidates remain", hit.text)

    def test_crawls_ending_after_t_or_at_no_known_time_are_never_searched(self):
        self.served("story")
        self.assertFalse(any("CC-MAIN-2022-27" in p or "CC-MAIN-UNDATED" in p for p in self.stub.paths), self.stub.paths)

    def test_an_index_row_after_t_is_never_read(self):
        self.assertNoLeak(self.fetch("story"))
        self.assertEqual(sum(path.startswith("/crawl-data/") for path in self.stub.paths), 1)

    def test_a_record_whose_warc_date_is_after_t_is_withheld_whatever_the_index_said(self):
        withheld = self.withheld("late-warc")
        self.assertEqual((withheld.published, withheld.dated_by), ("2022-06-20", "field 'crawl_date'"))

    def test_a_page_dated_after_t_by_its_url_is_withheld(self):
        self.assertEqual(self.withheld("2022/06/13/result").dated_by, "url")

    def test_an_older_crawl_serves_what_the_latest_did_not_capture(self):
        hit = self.served("old")
        self.assertEqual(hit.entry["crawl_date"], "2022-01-20T12:00:00Z")
        self.assertTrue(any("CC-MAIN-2022-05-index" in p for p in self.stub.paths))

    def test_no_capture_in_any_crawl_is_no_document(self):
        self.assertEqual(self.fetch("never-captured"), [])

    def test_the_unrestricted_mode_searches_the_latest_crawl_first(self):
        hits = self.fetch("story", mode="unrestricted")
        self.assertEqual(hits[0].text, PAGE_LEAK)
        self.assertIn("CC-MAIN-2022-27-index", self.stub.paths[1])

    def test_a_truncated_gzip_member_is_an_upstream_error(self):
        with self.assertRaisesRegex(UpstreamError, "commoncrawl: the WARC record's gzip member is truncated"):
            self.fetch("truncated")

    def test_a_404_that_is_not_the_index_saying_no_captures_is_an_upstream_error(self):
        with self.assertRaisesRegex(UpstreamError, "commoncrawl: index CC-MAIN-2022-21 answered HTTP 404"):
            self.fetch("misconfigured")


class ArchivesThroughTheLockTest(unittest.TestCase):
    """What a run logs: served captures, withheld traps (with the deciding source) and errors."""

    def test_the_log_holds_each_fetch_as_it_went(self):
        with tempfile.TemporaryDirectory() as tmp, ArchiveStub(slow_seconds=TIMEOUT + 1.0) as stub:
            expected = {
                WaybackBackend: {"story": "ok", "closest": "refused", "stated": "refused", "outside": "error", "old": "refused"},
                CommonCrawlBackend: {"story": "ok", "late-warc": "refused", "truncated": "error", "old": "ok"},
            }
            for backend_class, pages in expected.items():
                events = Path(tmp) / f"{backend_class.__name__}.jsonl"
                writer = EventWriter(events)
                lock = TimeLock(backend_class(stub.url, timeout=TIMEOUT), T, writer)
                for page in pages:
                    lock.call("fetch", {"id_or_url": SITE + page})
                search = lock.call("search", {"query": "Ruritania election"})
                writer.close()
                log = load_events(events)
                with self.subTest(backend=backend_class.name):
                    self.assertEqual(log.header["backend"], backend_class.name)
                    self.assertEqual([call.status for call in log.calls], [*pages.values(), "error"])
                    self.assertIn("serves fetch only", search.record["error"])
                    for call in log.calls:
                        self.assertFalse(any("Anna won" in (seen.text or "") for seen in call.returned))
                        self.assertTrue(all(w.reason == "after-cutoff" for w in call.withheld))


if __name__ == "__main__":
    unittest.main()
