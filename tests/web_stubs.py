"""Loopback stubs of the search services, in their vendors' published shapes, serving one question's small world.

The question: will Cygnus beat its Q3 2022 guidance, asked as of T = 2022-06-01.  Every service answers
every query with the same world, the traps included (docs/mcp.md names the shapes' sources):

- ``HONEST``: a page of 2022-05-10, in every date field: must be served;
- ``LATE``: a page of 2022-07-01, returned although the request's filter excluded it;
- ``URL_LATE``: a page whose date field says 2022-05-01 while its URL dates it 2022-08-15;
- ``TEXT_LATE``: a page whose date field says 2022-05-02 while its text says it was published 2022-08-20;
- ``UNDATED``: a page with no date at all;
- (OpenReward) ``CRAWLED_LATE``: ``publish_date`` 2022-05-03 but ``crawl_date`` 2022-09-01.

Each vendor lives under its own prefix of one server (``/exa``, ``/tavily``, ``/brave``, ``/openreward``),
so ``--search exa=URL/exa`` points a backend at it.  A request without the vendor's key header is
answered 401; every request is kept (path, headers, body) for the tests to read.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

T = "2022-06-01"
QUERY = "Cygnus Q3 2022 guidance"
KEY = "test-key"
KEYS = {"exa": "EXA_API_KEY", "tavily": "TAVILY_API_KEY", "brave": "BRAVE_API_KEY", "openreward": "OPENREWARD_API_KEY"}

HONEST = "https://news.example/cygnus-guidance"
LATE = "https://news.example/cygnus-results"
URL_LATE = "https://news.example/2022/08/15/cygnus-recap"
TEXT_LATE = "https://news.example/cygnus-analysis"
UNDATED = "https://blog.example/cygnus-thoughts"
CRAWLED_LATE = "https://news.example/cygnus-preview"

# (url, title, date or None, text): the world, vendor-neutral.
WORLD = [
    (HONEST, "Cygnus reaffirms its guidance", "2022-05-10", "Cygnus reaffirmed its full-year guidance on Tuesday."),
    (LATE, "Cygnus beats Q3 guidance", "2022-07-01", "Cygnus beat its Q3 guidance, the company said."),
    (URL_LATE, "Cygnus: a recap", "2022-05-01", "A look back at the quarter."),
    (TEXT_LATE, "Cygnus analysis", "2022-05-02", "This article was published on 20 August 2022. Cygnus beat guidance."),
    (UNDATED, "Thoughts on Cygnus", None, "Some thoughts on the company."),
]
SERVED = [HONEST]  # what the lock must show of a search, whatever the vendor


def _iso(day: str | None, *, time: bool) -> str | None:
    return None if day is None else f"{day}T08:00:00.000Z" if time else day


def exa_results() -> dict[str, Any]:
    return {
        "requestId": "stub",
        "resolvedSearchType": "neural",
        "results": [
            {"id": url, "url": url, "title": title, "score": 0.5, "publishedDate": _iso(day, time=True), "author": None, "text": text}
            for url, title, day, text in WORLD
        ],
    }


def tavily_results() -> dict[str, Any]:
    results = []
    for url, title, day, text in WORLD:
        result = {"url": url, "title": title, "content": text, "score": 0.5, "raw_content": None}
        if day is not None:
            result["published_date"] = f"{day}T08:00:00Z"
        results.append(result)
    return {"query": QUERY, "answer": None, "images": [], "results": results, "response_time": 0.1}


def brave_results() -> dict[str, Any]:
    results = []
    for url, title, day, text in WORLD:
        result = {"type": "search_result", "url": url, "title": title, "description": text}
        if day is not None:
            result["page_age"] = f"{day}T08:00:00"
        results.append(result)
    return {"type": "search", "query": {"original": QUERY}, "web": {"type": "search", "results": results}}


def openreward_hits() -> list[dict[str, Any]]:
    hits = [
        {"url": url, "title": title, "snippet": text, "publish_date": day, "crawl_date": day, "source": "cc_news", "score": 0.5}
        for url, title, day, text in WORLD
    ]
    hits.append(
        {"url": CRAWLED_LATE, "title": "Cygnus preview", "snippet": "What to expect from Cygnus.", "publish_date": "2022-05-03",
         "crawl_date": "2022-09-01", "source": "cc_news", "score": 0.4}
    )
    return hits


class WebStubs:
    """One loopback server speaking the four vendors' shapes; ``url(vendor)`` is a vendor's base URL."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], Any]] = []
        stubs = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                parsed = urllib.parse.urlsplit(self.path)
                stubs.requests.append((self.path, dict(self.headers), None))
                if parsed.path != "/brave/res/v1/web/search":
                    return self._send(404, {"error": "not found"})
                if self.headers.get("X-Subscription-Token") != KEY:
                    return self._send(401, {"error": "unauthorized"})
                query = urllib.parse.parse_qs(parsed.query).get("q", [""])[0]
                if query == "garbage":
                    return self._send(200, {"unexpected": True})
                self._send(200, brave_results())

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"null")
                stubs.requests.append((self.path, dict(self.headers), body))
                vendor = self.path.split("/")[1]
                auth = {
                    "exa": self.headers.get("x-api-key") == KEY,
                    "tavily": self.headers.get("Authorization") == f"Bearer {KEY}",
                    "openreward": self.headers.get("X-API-Key") == KEY,
                }
                if not auth.get(vendor, False):
                    return self._send(401, {"error": "unauthorized"})
                if isinstance(body, dict) and body.get("query") == "garbage":
                    return self._send(200, {"unexpected": True})
                if self.path in ("/exa/search",):
                    return self._send(200, exa_results())
                if self.path == "/tavily/search":
                    return self._send(200, tavily_results())
                if self.path == "/openreward/search":
                    return self._send(200, {"mode": "hybrid", "hits": openreward_hits(), "candidates": 6, "timing": {}})
                if self.path == "/openreward/fetch":
                    for hit in openreward_hits():
                        if hit["url"] == body.get("url"):
                            page = {"url": hit["url"], "text": hit["snippet"], "host": "news.example", "title": hit["title"],
                                    "crawl_date": hit["crawl_date"], "publish_date": hit["publish_date"], "redirect": None}
                            return self._send(200, page)
                    return self._send(404, {"result": False, "message": "not in the index"})
                self._send(404, {"error": "not found"})

            def _send(self, code: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, vendor: str) -> str:
        return f"{self.base}/{vendor}"

    def __enter__(self) -> "WebStubs":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=30)
