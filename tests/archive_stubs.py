"""A loopback Wayback Machine and Common Crawl, in their published shapes, serving a small world for
one question ("who won the Ruritania election of 2022-06-12?", asked as of 2022-06-01), traps included.

One server answers both archives: the Wayback CDX API (``/cdx/search/cdx``) and raw captures
(``/web/{timestamp}id_/{url}``); Common Crawl's ``/collinfo.json``, ``/{CRAWL}-index`` and the
WARC files under ``/crawl-data/`` read by HTTP Range.  It binds 127.0.0.1 only, answers each
request in its own thread, logs every request path, and stops on exit.  Its CDX API ignores
``to=`` (a careless archive): the backend must pick the capture itself.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

T = "2022-06-01"
CDX_HEADER = ["urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length"]


def html(title: str, body: str, *, meta: str | None = None) -> str:
    head = f'<meta property="article:published_time" content="{meta}">' if meta else ""
    return f"<html><head><title>{title}</title>{head}</head><body><p>{body}</p></body></html>"


def warc_member(
    url: str, warc_date: str, body: bytes, *, status: int = 200, http_headers: tuple[str, ...] = ("Content-Type: text/html; charset=utf-8",),
    warc_type: str = "response", version: str = "WARC/1.0", extra_length: int = 0,
) -> bytes:
    """One gzip member holding one WARC record, as Common Crawl writes them (``extra_length`` makes
    the record claim more bytes than it has)."""
    response = (f"HTTP/1.1 {status} X\r\n" + "".join(h + "\r\n" for h in http_headers) + "\r\n").encode("latin-1") + body
    head = (
        f"{version}\r\nWARC-Type: {warc_type}\r\nWARC-Date: {warc_date}\r\nWARC-Target-URI: {url}\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000000>\r\nContent-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(response) + extra_length}\r\n\r\n"
    ).encode("latin-1")
    return gzip.compress(head + response + b"\r\n\r\n", mtime=0)


# --- the Wayback world ----------------------------------------------------------------------------

PAGE_MARCH = html("Ruritania votes in June", "Polls open on 12 June.", meta="2022-03-01")
PAGE_MAY = html("Ruritania: the final stretch", "Two candidates remain, Anna and Boris.", meta="2022-05-20")
PAGE_LEAK = html("Anna wins Ruritania", "Anna won the election of 12 June.", meta="2022-06-13")

# url -> CDX rows (timestamp, statuscode); served whatever `to=` says.
CAPTURES = {
    "https://news.example/story": [("20220301090000", "200"), ("20220520120000", "200"), ("20220613080000", "200")],
    "https://news.example/closest": [("20220530000000", "200")],
    "https://news.example/earlier": [("20220531000000", "200")],
    "https://news.example/2022/06/13/result": [("20220525000000", "200")],
    "https://news.example/stated": [("20220525000000", "200")],
    "https://news.example/memento": [("20220528000000", "200")],
    "https://news.example/jsonld": [("20220525000000", "200")],
    "https://news.example/time-tag": [("20220525000000", "200")],
    "https://news.example/only-redirects": [("20220520000000", "301")],
    "https://news.example/outside": [("20220520000000", "200")],
    "https://news.example/image": [("20220520000000", "200")],
}
# (timestamp, url) -> ("page", html[, Memento-Datetime]) or ("redirect", location)
SNAPSHOTS = {
    ("20220301090000", "https://news.example/story"): ("page", PAGE_MARCH),
    ("20220520120000", "https://news.example/story"): ("page", PAGE_MAY),
    ("20220613080000", "https://news.example/story"): ("page", PAGE_LEAK),
    # The Wayback "closest" behaviour: the asked capture redirects to a later one.
    ("20220530000000", "https://news.example/closest"): ("redirect", "/web/20220614000000id_/https://news.example/closest"),
    ("20220614000000", "https://news.example/closest"): ("page", PAGE_LEAK),
    ("20220531000000", "https://news.example/earlier"): ("redirect", "/web/20220502000000id_/https://news.example/earlier"),
    ("20220502000000", "https://news.example/earlier"): ("page", html("Ruritania: early May", "Campaigns begin.", meta="2022-05-02")),
    # Meta before T, URL after it.
    ("20220525000000", "https://news.example/2022/06/13/result"): ("page", html("Result", "Anna won.", meta="2022-05-01")),
    # Meta before T, text stating a publication after it.
    ("20220525000000", "https://news.example/stated"): ("page", html("Result", "Published on June 14, 2022. Anna won.", meta="2022-05-01")),
    # Meta before T, JSON-LD or a <time> element after it.
    ("20220525000000", "https://news.example/jsonld"): ("page", html(
        "Result", '<script type="application/ld+json">{"@type": "NewsArticle", "datePublished": "2022-06-14"}</script>', meta="2022-05-01"
    )),
    ("20220525000000", "https://news.example/time-tag"): ("page", html("Result", '<time datetime="2022-06-15">Wednesday</time>', meta="2022-05-01")),
    ("20220528000000", "https://news.example/memento"): ("page", PAGE_LEAK, "Fri, 17 Jun 2022 10:00:00 GMT"),
    ("20220520000000", "https://news.example/outside"): ("redirect", "http://elsewhere.example/web/20220520000000id_/https://news.example/outside"),
    ("20220520000000", "https://news.example/image"): ("image", b"\x89PNG\r\n\x1a\n"),
}

# --- the Common Crawl world -----------------------------------------------------------------------

CRAWLS = [
    {"id": "CC-MAIN-2022-27", "name": "June/July 2022 Index", "from": "2022-06-24T10:00:00", "to": "2022-07-07T12:00:00"},
    {"id": "CC-MAIN-2022-21", "name": "May 2022 Index", "from": "2022-05-16T08:00:00", "to": "2022-05-29T10:00:00"},
    {"id": "CC-MAIN-2022-05", "name": "January 2022 Index", "from": "2022-01-16T08:00:00", "to": "2022-01-29T08:00:00"},
    {"id": "CC-MAIN-UNDATED", "name": "An index whose end is unknown"},
]
WARC_FILE = "crawl-data/CC-MAIN-2022-21/segments/1/warc/CC-MAIN-1.warc.gz"
# crawl -> url -> [(index timestamp, WARC-Date, body or member)]
RECORDS = {
    "CC-MAIN-2022-27": {"https://news.example/story": [("20220625000000", "2022-06-25T00:00:00Z", PAGE_LEAK)]},
    "CC-MAIN-2022-21": {
        "https://news.example/story": [
            ("20220520000000", "2022-05-20T09:30:00Z", PAGE_MAY),
            ("20220701000000", "2022-07-01T00:00:00Z", PAGE_LEAK),  # an index row after T: ignored
        ],
        # The index says May; the record's own WARC-Date says after T.
        "https://news.example/late-warc": [("20220525000000", "2022-06-20T00:00:00Z", PAGE_LEAK)],
        "https://news.example/truncated": [("20220525000000", "2022-05-25T00:00:00Z", "truncated")],
        "https://news.example/2022/06/13/result": [("20220525000000", "2022-05-25T00:00:00Z", html("Result", "Anna won.", meta="2022-05-01"))],
    },
    "CC-MAIN-2022-05": {"https://news.example/old": [("20220120000000", "2022-01-20T12:00:00Z", PAGE_MARCH)]},
    "CC-MAIN-UNDATED": {"https://news.example/story": [("20220520000000", "2022-05-20T00:00:00Z", PAGE_LEAK)]},
}


def _build_crawls() -> tuple[dict[str, bytes], dict[str, dict[str, list[dict]]]]:
    """The WARC files (one a crawl) and the index rows pointing into them."""
    files: dict[str, bytes] = {}
    index: dict[str, dict[str, list[dict]]] = {}
    for crawl, pages in RECORDS.items():
        name = WARC_FILE.replace("CC-MAIN-2022-21", crawl)
        data = b""
        for url, records in pages.items():
            for timestamp, warc_date, body in records:
                if body == "truncated":
                    member = warc_member(url, warc_date, PAGE_MAY.encode())[:-20]
                else:
                    member = warc_member(url, warc_date, body.encode())
                row = {
                    "urlkey": "example,news)/" + url.split("/", 3)[3], "timestamp": timestamp, "url": url, "mime": "text/html",
                    "mime-detected": "text/html", "status": "200", "digest": "X" * 32, "length": str(len(member)),
                    "offset": str(len(data)), "filename": name, "languages": "eng", "encoding": "UTF-8",
                }
                index.setdefault(crawl, {}).setdefault(url, []).append(row)
                data += member
        files[name] = data
    return files, index


class ArchiveStub:
    """The loopback server (module docstring); ``url`` is its base, ``paths`` what it was asked."""

    def __init__(self, slow_seconds: float = 2.0) -> None:
        self.paths: list[str] = []
        self.slow_seconds = slow_seconds
        self.files, self.index = _build_crawls()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                stub.paths.append(self.path)
                stub.answer(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> "ArchiveStub":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)
        # Backend workers left behind by a timeout end once the server is gone; wait for them.
        for worker in threading.enumerate():
            if worker.name.startswith("anachron-upstream"):
                worker.join(timeout=10)

    # --- answers ---

    @staticmethod
    def _send(handler, status: int, body: bytes, content_type: str = "application/json", headers: tuple[tuple[str, str], ...] = ()) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)

    def answer(self, handler) -> None:
        parts = urllib.parse.urlsplit(handler.path)
        query = dict(urllib.parse.parse_qsl(parts.query))
        path = parts.path
        if path == "/cdx/search/cdx":
            return self._cdx(handler, query)
        if path.startswith("/web/"):
            return self._snapshot(handler, handler.path[len("/web/"):])
        if path == "/collinfo.json":
            rows = [{**c, "timegate": f"{self.url}/{c['id']}/", "cdx-api": f"{self.url}/{c['id']}-index"} for c in CRAWLS]
            return self._send(handler, 200, json.dumps(rows).encode())
        if path.endswith("-index"):
            return self._index(handler, path[1:-len("-index")], query)
        if path.lstrip("/") in self.files:
            return self._range(handler, self.files[path.lstrip("/")])
        self._send(handler, 404, b"not found", "text/plain")

    def _cdx(self, handler, query: dict) -> None:
        url = query.get("url", "")
        if url == "https://news.example/slow":
            time.sleep(self.slow_seconds)
        if url == "https://news.example/broken-http":
            handler.wfile.write(b"NOT HTTP AT ALL\r\n\r\n")
            handler.close_connection = True
            return None
        if url == "https://news.example/unknown-shape":
            return self._send(handler, 200, b'{"captures": []}')
        if url == "https://news.example/huge":  # one byte over the backends' cap (16 MiB)
            return self._send(handler, 200, b"[" + b" " * (16 * 1024 * 1024 - 1) + b"]")
        if url == "https://news.example/server-error":
            return self._send(handler, 500, b"oops", "text/plain")
        rows = [[f"example,news)/{url.split('/', 3)[-1]}", ts, url, "text/html", status, "D" * 32, "1000"] for ts, status in CAPTURES.get(url, [])]
        return self._send(handler, 200, json.dumps([CDX_HEADER, *rows] if rows else []).encode())

    def _snapshot(self, handler, rest: str) -> None:
        timestamp, _, url = rest.partition("id_/")
        found = SNAPSHOTS.get((timestamp, urllib.parse.unquote(url)))
        if found is None:
            return self._send(handler, 404, b"not in the archive", "text/plain")
        if found[0] == "redirect":
            return self._send(handler, 302, b"", "text/plain", (("Location", found[1]),))
        if found[0] == "image":
            return self._send(handler, 200, found[1], "image/png")
        headers = (("Memento-Datetime", found[2]),) if len(found) > 2 else ()
        return self._send(handler, 200, found[1].encode(), "text/html; charset=utf-8", headers)

    def _index(self, handler, crawl: str, query: dict) -> None:
        if query.get("url") == "https://news.example/misconfigured":  # the 404 of a wrong address, not of "no captures"
            return self._send(handler, 404, b"<html>Not Found</html>", "text/html")
        rows = self.index.get(crawl, {}).get(query.get("url", ""))
        if not rows:
            return self._send(handler, 404, json.dumps({"message": f"No Captures found for: {query.get('url')}"}).encode())
        return self._send(handler, 200, "".join(json.dumps(row) + "\n" for row in rows).encode(), "text/x-ndjson")

    def _range(self, handler, data: bytes) -> None:
        wanted = handler.headers.get("Range", "")
        if not wanted.startswith("bytes=") or "-" not in wanted:
            return self._send(handler, 200, data, "application/octet-stream")
        first, _, last = wanted[len("bytes="):].partition("-")
        start, end = int(first), min(int(last), len(data) - 1)
        headers = (("Content-Range", f"bytes {start}-{end}/{len(data)}"),)
        return self._send(handler, 206, data[start:end + 1], "application/octet-stream", headers)
