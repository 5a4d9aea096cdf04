"""The Wayback backend's reading of what the archive sends, and its face (no network: in process).
Its behaviour over HTTP, traps included, is tests/timelock/web/slow_archives.py."""

import datetime as dt
import json
import unittest

from anachron.core.errors import AnachronError
from anachron.timelock import UpstreamError
from anachron.timelock.web.wayback import WaybackBackend, capture_time, parse_cdx

T = dt.date(2022, 6, 1)
# An address nothing listens on: a backend that tried the network would fail with an UpstreamError.
NOWHERE = "http://127.0.0.1:9"


class CaptureTimeTest(unittest.TestCase):
    def test_a_cdx_timestamp_is_a_utc_moment(self):
        self.assertEqual(capture_time("20220520123456"), dt.datetime(2022, 5, 20, 12, 34, 56, tzinfo=dt.timezone.utc))

    def test_anything_else_is_no_capture_time(self):
        for value in ("2022052012345", "202205201234567", "20221320000000", "20220230000000", "2022-05-20", " 20220520123456", None, 20220520123456):
            with self.subTest(value=value):
                self.assertIsNone(capture_time(value))


class ParseCdxTest(unittest.TestCase):
    HEADER = ["urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length"]

    def test_rows_are_named_by_the_header_row(self):
        rows = parse_cdx(json.dumps([self.HEADER, ["k", "20220520000000", "https://a.example/", "text/html", "200", "D", "9"]]))
        self.assertEqual(rows, [dict(zip(self.HEADER, ["k", "20220520000000", "https://a.example/", "text/html", "200", "D", "9"]))])

    def test_a_header_with_fewer_fields_is_read_by_its_names(self):
        rows = parse_cdx(json.dumps([["original", "timestamp"], ["https://a.example/", "20220520000000"]]))
        self.assertEqual(rows, [{"original": "https://a.example/", "timestamp": "20220520000000"}])

    def test_nothing_captured_is_no_rows(self):
        self.assertEqual(parse_cdx("[]"), [])
        self.assertEqual(parse_cdx(json.dumps([self.HEADER])), [])

    def test_an_unknown_shape_is_an_upstream_error_naming_the_backend(self):
        for text in (
            '{"captures": []}', "not json", "", "[[1, 2]]", json.dumps([["urlkey", "original"], ["k", "u"]]),
            json.dumps([self.HEADER, ["k", "20220520000000"]]), json.dumps([["timestamp", "timestamp", "original"], ["a", "b", "c"]]),
            json.dumps([self.HEADER, "k 20220520000000"]),
        ):
            with self.subTest(text=text), self.assertRaises(UpstreamError) as caught:
                parse_cdx(text)
            self.assertIn("wayback", str(caught.exception))


class WaybackFaceTest(unittest.TestCase):
    def test_it_declares_a_fetch_only_capture_backend(self):
        backend = WaybackBackend()
        self.assertEqual((backend.name, backend.guarantee, backend.tools), ("wayback", "capture", ("fetch",)))
        self.assertEqual(backend.source, "https://web.archive.org")
        self.assertEqual(WaybackBackend("http://127.0.0.1:8000/").source, "http://127.0.0.1:8000")

    def test_search_is_an_upstream_error(self):
        with self.assertRaisesRegex(UpstreamError, "wayback: backend serves fetch only"):
            WaybackBackend(NOWHERE).search("anything", k=5, as_of=T, mode="enforced")

    def test_a_bad_base_url_or_timeout_is_refused_at_construction(self):
        for url in ("ftp://web.archive.org", "web.archive.org", "http://", "http://a b", "http://host?x=1"):
            with self.subTest(url=url), self.assertRaises(AnachronError):
                WaybackBackend(url)
        for timeout in (0, -1, float("nan"), float("inf"), True, "30", 1e9):
            with self.subTest(timeout=timeout), self.assertRaises(AnachronError):
                WaybackBackend(NOWHERE, timeout=timeout)

    def test_what_is_no_web_address_is_no_document_without_asking_the_archive(self):
        backend = WaybackBackend(NOWHERE, timeout=1.0)
        for ref in ("doc-17", "ftp://files.example/a", "https://", "https://a.example/\nx", "javascript:alert(1)"):
            with self.subTest(ref=ref):
                self.assertEqual(backend.fetch(ref, as_of=T, mode="enforced"), [])

    def test_a_web_address_asks_the_archive(self):
        # The other side of the test above: the same backend does reach for the network on a URL.
        with self.assertRaisesRegex(UpstreamError, "wayback: CDX query unreachable"):
            WaybackBackend(NOWHERE, timeout=2.0).fetch("https://a.example/", as_of=T, mode="enforced")


if __name__ == "__main__":
    unittest.main()
