"""The Common Crawl backend's reading of what the crawl sends (the crawl list, index lines, WARC
records in gzip members built here), and its face (no network: in process).  Its behaviour over
HTTP, traps included, is tests/timelock/web/slow_archives.py."""

import datetime as dt
import gzip
import json
import unittest
import zlib

from anachron.core.errors import AnachronError
from anachron.timelock import UpstreamError
from anachron.timelock.web.commoncrawl import CommonCrawlBackend, parse_collinfo, parse_index, read_record

from tests.archive_stubs import warc_member

T = dt.date(2022, 6, 1)
NOWHERE = "http://127.0.0.1:9"
URL = "https://news.example/story"
PAGE = b"<html><title>Story</title><p>Two candidates remain.</p></html>"


def utc(*parts):
    return dt.datetime(*parts, tzinfo=dt.timezone.utc)


class ReadRecordTest(unittest.TestCase):
    def test_a_response_record_gives_its_warc_date_target_status_and_body(self):
        record = read_record(warc_member(URL, "2022-05-20T09:30:00Z", PAGE))
        self.assertEqual((record.date, record.target, record.status, record.body), (utc(2022, 5, 20, 9, 30), URL, 200, PAGE))
        self.assertEqual(record.http_headers["content-type"], "text/html; charset=utf-8")

    def test_warc_1_1_a_bracketed_target_fractional_seconds_and_an_offset_are_read(self):
        record = read_record(warc_member(f"<{URL}>", "2022-05-20T11:30:00.25+02:00", PAGE, version="WARC/1.1"))
        self.assertEqual((record.date, record.target), (utc(2022, 5, 20, 9, 30, 0, 250000), URL))

    def test_a_warc_date_after_any_cutoff_is_read_as_it_is(self):
        # Judging the date is the backend's and the lock's job: the reader must not move it.
        self.assertEqual(read_record(warc_member(URL, "2022-06-20T00:00:00Z", PAGE)).date, utc(2022, 6, 20))

    def test_a_chunked_or_compressed_http_body_is_decoded(self):
        chunked = b"5\r\n<html\r\n3\r\n>ok\r\n0\r\n\r\n"
        record = read_record(warc_member(URL, "2022-05-20T00:00:00Z", chunked, http_headers=("Transfer-Encoding: chunked",)))
        self.assertEqual(record.body, b"<html>ok")
        squeezed = gzip.compress(PAGE, mtime=0)
        record = read_record(warc_member(URL, "2022-05-20T00:00:00Z", squeezed, http_headers=("Content-Encoding: gzip",)))
        self.assertEqual(record.body, PAGE)
        deflated = zlib.compress(PAGE)
        record = read_record(warc_member(URL, "2022-05-20T00:00:00Z", deflated, http_headers=("Content-Encoding: deflate",)))
        self.assertEqual(record.body, PAGE)

    def test_a_broken_record_is_an_upstream_error_naming_the_cause(self):
        good = warc_member(URL, "2022-05-20T00:00:00Z", PAGE)
        cases = {
            "truncated": good[:-20],
            "not valid compressed data": b"WARC/1.0\r\n\r\n",
            "not a WARC record": gzip.compress(b"HTTP/1.1 200 OK\r\n\r\nhello", mtime=0),
            "not a response": warc_member(URL, "2022-05-20T00:00:00Z", PAGE, warc_type="revisit"),
            "unreadable WARC-Date": warc_member(URL, "20 May 2022", PAGE),
            "shorter than its Content-Length": warc_member(URL, "2022-05-20T00:00:00Z", PAGE, extra_length=500),
            "encoding not read here": warc_member(URL, "2022-05-20T00:00:00Z", PAGE, http_headers=("Content-Encoding: br",)),
            "chunked body is broken": warc_member(URL, "2022-05-20T00:00:00Z", b"zz\r\n", http_headers=("Transfer-Encoding: chunked",)),
            "chunked body is truncated": warc_member(URL, "2022-05-20T00:00:00Z", b"ff\r\nab", http_headers=("Transfer-Encoding: chunked",)),
            "gzip body is truncated": warc_member(
                URL, "2022-05-20T00:00:00Z", gzip.compress(PAGE, mtime=0)[:-6], http_headers=("Content-Encoding: gzip",)
            ),
            "without the end of its headers": gzip.compress(b"WARC/1.0\r\nWARC-Type: response\r\n", mtime=0),
            "broken header line": gzip.compress(b"WARC/1.0\r\nno colon here\r\n\r\n", mtime=0),
        }
        for cause, member in cases.items():
            with self.subTest(cause=cause), self.assertRaises(UpstreamError) as caught:
                read_record(member)
            self.assertIn("commoncrawl", str(caught.exception))
            self.assertIn(cause, str(caught.exception))

    def test_a_warc_date_off_the_calendar_or_without_a_time_is_unreadable(self):
        for value in ("2022-02-30T00:00:00Z", "2022-05-20", "2022-05-20T25:00:00Z", "2022-05-20T10:00:00+24:00", ""):
            with self.subTest(value=value), self.assertRaisesRegex(UpstreamError, "unreadable WARC-Date"):
                read_record(warc_member(URL, value, PAGE))

    def test_a_broken_http_status_line_inside_is_an_upstream_error(self):
        member = warc_member(URL, "2022-05-20T00:00:00Z", PAGE)
        raw = gzip.decompress(member).replace(b"HTTP/1.1 200 X", b"HTTX/1.1 200 X")
        with self.assertRaisesRegex(UpstreamError, "status line is broken"):
            read_record(gzip.compress(raw, mtime=0))


class ParseIndexTest(unittest.TestCase):
    ROW = {"urlkey": "example,news)/story", "timestamp": "20220520000000", "url": URL, "status": "200",
           "length": "10", "offset": "0", "filename": "crawl-data/a.warc.gz"}

    def test_json_lines_and_cdxj_lines_are_read_alike(self):
        cdxj = "example,news)/story 20220520000000 " + json.dumps({k: v for k, v in self.ROW.items() if k not in ("urlkey", "timestamp")})
        self.assertEqual(parse_index(json.dumps(self.ROW) + "\n\n" + cdxj + "\n")[0], self.ROW)
        self.assertEqual(parse_index(cdxj)[0]["timestamp"], "20220520000000")

    def test_lines_split_on_newline_only(self):
        row = {**self.ROW, "title": "a\u2028b\rc"}
        self.assertEqual(parse_index(json.dumps(row, ensure_ascii=False)), [row])

    def test_an_unknown_shape_is_an_upstream_error_naming_the_line(self):
        for text, line in ((json.dumps(self.ROW) + "\n[1]", "line 2"), ("oops", "line 1"), ("a b {broken", "line 1"), ('{"a": 1', "line 1")):
            with self.subTest(text=text), self.assertRaises(UpstreamError) as caught:
                parse_index(text)
            self.assertIn(line, str(caught.exception))


class ParseCollinfoTest(unittest.TestCase):
    def test_each_crawl_is_read_with_its_end(self):
        text = json.dumps([
            {"id": "CC-MAIN-2022-21", "name": "May 2022 Index", "from": "2022-05-16T08:00:00", "to": "2022-05-29T10:00:00"},
            {"id": "CC-MAIN-2022-05", "to": "2022-01-29T08:00:00Z"},
            {"id": "CC-MAIN-OLD"},
            {"id": "CC-MAIN-BAD", "to": "late May"},
        ])
        self.assertEqual(parse_collinfo(text), [
            ("CC-MAIN-2022-21", utc(2022, 5, 29, 10)), ("CC-MAIN-2022-05", utc(2022, 1, 29, 8)), ("CC-MAIN-OLD", None), ("CC-MAIN-BAD", None),
        ])

    def test_an_unknown_shape_is_an_upstream_error(self):
        for text in ('{"crawls": []}', "[1]", '[{"name": "x"}]', '[{"id": "../etc"}]', '[{"id": "a b"}]', "nope"):
            with self.subTest(text=text), self.assertRaisesRegex(UpstreamError, "commoncrawl"):
                parse_collinfo(text)


class CommonCrawlFaceTest(unittest.TestCase):
    def test_it_declares_a_fetch_only_capture_backend(self):
        backend = CommonCrawlBackend()
        self.assertEqual((backend.name, backend.guarantee, backend.tools), ("commoncrawl", "capture", ("fetch",)))
        self.assertEqual((backend.source, backend.data), ("https://index.commoncrawl.org", "https://data.commoncrawl.org"))

    def test_one_base_url_serves_index_and_data_unless_the_data_host_is_given(self):
        backend = CommonCrawlBackend("http://127.0.0.1:8000/")
        self.assertEqual((backend.source, backend.data), ("http://127.0.0.1:8000", "http://127.0.0.1:8000"))
        backend = CommonCrawlBackend("http://127.0.0.1:8000", data_url="http://127.0.0.1:8001")
        self.assertEqual(backend.data, "http://127.0.0.1:8001")

    def test_search_is_an_upstream_error(self):
        with self.assertRaisesRegex(UpstreamError, "commoncrawl: backend serves fetch only"):
            CommonCrawlBackend(NOWHERE).search("anything", k=5, as_of=T, mode="enforced")

    def test_a_bad_base_url_or_timeout_is_refused_at_construction(self):
        for url in ("ftp://index.commoncrawl.org", "index.commoncrawl.org", "http://"):
            with self.subTest(url=url), self.assertRaises(AnachronError):
                CommonCrawlBackend(url)
            with self.subTest(data_url=url), self.assertRaises(AnachronError):
                CommonCrawlBackend(NOWHERE, data_url=url)
        for timeout in (0, float("nan"), True, 1e9):
            with self.subTest(timeout=timeout), self.assertRaises(AnachronError):
                CommonCrawlBackend(NOWHERE, timeout=timeout)

    def test_what_is_no_web_address_is_no_document_without_asking_the_crawl(self):
        backend = CommonCrawlBackend(NOWHERE, timeout=1.0)
        for ref in ("doc-17", "file:///etc/passwd", "https://a.example/\u2028x"):
            with self.subTest(ref=ref):
                self.assertEqual(backend.fetch(ref, as_of=T, mode="enforced"), [])
        with self.assertRaisesRegex(UpstreamError, "commoncrawl: collinfo.json unreachable"):
            backend.fetch("https://a.example/", as_of=T, mode="enforced")


if __name__ == "__main__":
    unittest.main()
