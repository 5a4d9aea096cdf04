"""The search services: ``openreward`` (search and fetch), ``exa``, ``tavily`` and ``brave`` (search).

Each builds its vendor's request with the as-of date T (docs/mcp.md,
"Backends and their guarantees", says where each shape comes from), sends
it through a :mod:`~anachron.timelock.web.transport` (so it is recorded or
replayed), and turns the vendor's results into :class:`Hit` objects with
:func:`~anachron.timelock.backends.service_hit`.  Nothing here decides what
the agent sees: every hit goes through the lock's re-check, which reads all
of its dates (the vendor's date fields, ``crawl_date`` included, the URL,
the snippet and the text).  A reply out of the vendor's shape is an
:class:`UpstreamError` naming the backend.

In the unrestricted mode no date filter is sent (the baseline run sees the
live index).
"""

from __future__ import annotations

import datetime as _dt
import json
import urllib.parse
from typing import Any, Mapping

from anachron.core.dates import format_date
from anachron.timelock.backends import Hit, UpstreamError, service_hit
from anachron.timelock.web.transport import Request

__all__ = ["BraveBackend", "ExaBackend", "OpenRewardBackend", "TavilyBackend"]

_JSON = {"Content-Type": "application/json", "Accept": "application/json"}


class _Service:
    """What the four share: a base URL, a key, a transport, JSON in and out."""

    name = ""
    guarantee = ""
    kind = "web"

    def __init__(self, url: str, *, transport: Any, key: str | None = None) -> None:
        self.source = url.rstrip("/")
        self.transport = transport
        self.key = key or ""

    def _post(self, path: str, body: Mapping[str, Any], headers: Mapping[str, str]) -> Any:
        label = f"{self.name} {path}"
        data = json.dumps(body, ensure_ascii=True, sort_keys=True).encode("ascii")  # sorted: one request, one address
        return self.transport.send(Request("POST", self.source + path, label, data, {**_JSON, **headers})).json_body(label)

    def _results(self, document: Any, *path: str) -> list[Mapping[str, Any]]:
        """The list at *path* of *document*, every entry an object; an :class:`UpstreamError` otherwise."""
        found = document
        for key in path:
            found = found.get(key) if isinstance(found, dict) else None
        if not isinstance(found, list) or not all(isinstance(r, dict) for r in found):
            raise UpstreamError(f"{self.name}: expected a list of objects at {'.'.join(path)}: an unknown shape")
        return found

    def _hit(self, result: Mapping[str, Any], text_fields: tuple[str, ...]) -> Hit:
        return service_hit(result, text_fields=text_fields, backend=self.name, guarantee=self.guarantee)

    def fetch(self, ref: str, *, as_of: _dt.date, mode: str) -> list[Hit]:
        raise UpstreamError(f"{self.name} serves search only: give --fetch (an archive: wayback or commoncrawl) to fetch pages")


class OpenRewardBackend(_Service):
    """OpenReward's Backsearch and Backfetch: the service's own as-of index (``index``).

    ``POST /search {query, as_of, k, mode: "hybrid"}`` -> ``{hits: [{url,
    title, snippet, crawl_date, publish_date, source, score}]}``; ``POST
    /fetch {url, as_of}`` -> ``{url, text, title, crawl_date, publish_date,
    redirect}``; the key in ``X-API-Key``.  A hit's ``crawl_date`` is one of
    its dates: one after T withholds it, whatever its ``publish_date``.
    """

    name = "openreward"
    guarantee = "index"

    def _headers(self) -> dict[str, str]:
        return {"X-API-Key": self.key}

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]:
        body: dict[str, Any] = {"query": query, "k": k, "mode": "hybrid"}
        if mode == "enforced":
            body["as_of"] = format_date(as_of)
        return [self._hit(r, ("snippet", "text")) for r in self._results(self._post("/search", body, self._headers()), "hits")]

    def fetch(self, ref: str, *, as_of: _dt.date, mode: str) -> list[Hit]:
        body: dict[str, Any] = {"url": ref}
        if mode == "enforced":
            body["as_of"] = format_date(as_of)
        page = self._post("/fetch", body, self._headers())
        if not isinstance(page, dict) or not isinstance(page.get("text"), str):
            raise UpstreamError(f"{self.name} /fetch: expected {{'text': string, ...}}, an unknown shape")
        # The page answers for the URL asked (a redirect's target is a date source of it, read by the re-check).
        result = {key: value for key, value in page.items() if key != "url"}
        result["url"] = ref
        redirect = page.get("redirect")
        if isinstance(redirect, dict) and isinstance(redirect.get("to"), str):
            result["snippet"] = f"redirected to {redirect['to']}"
        return [self._hit(result, ("text",))]


class ExaBackend(_Service):
    """Exa search: a publish-date filter (``claimed``).

    ``POST /search {query, numResults, endPublishedDate, endCrawlDate,
    contents: {text: {maxCharacters}}}`` with ``x-api-key`` -> ``{results:
    [{id, url, title, publishedDate, text, ...}]}``.
    """

    name = "exa"
    guarantee = "claimed"

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]:
        body: dict[str, Any] = {"query": query, "numResults": k, "contents": {"text": {"maxCharacters": 2000}}}
        if mode == "enforced":
            end = f"{format_date(as_of)}T23:59:59.999Z"  # the last moment of T: a page of T itself is not after it
            body.update(endPublishedDate=end, endCrawlDate=end)
        document = self._post("/search", body, {"x-api-key": self.key})
        return [self._hit(r, ("text", "snippet")) for r in self._results(document, "results")]


class TavilyBackend(_Service):
    """Tavily search: a publish-date filter (``claimed``).

    ``POST /search {query, max_results, topic: "news", end_date}`` with
    ``Authorization: Bearer KEY`` -> ``{results: [{url, title, content,
    score, published_date}]}``.  The news topic, since only its results
    carry ``published_date``: a general result is undated, and withheld.
    """

    name = "tavily"
    guarantee = "claimed"

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]:
        body: dict[str, Any] = {"query": query, "max_results": k, "topic": "news"}
        if mode == "enforced":
            body["end_date"] = format_date(as_of)
        document = self._post("/search", body, {"Authorization": f"Bearer {self.key}"})
        return [self._hit(r, ("content",)) for r in self._results(document, "results")]


class BraveBackend(_Service):
    """Brave web search: a freshness filter (``claimed``).

    ``GET /res/v1/web/search?q=&count=&freshness=FROMtoT`` with
    ``X-Subscription-Token`` -> ``{web: {results: [{url, title, description,
    age, page_age}]}}``; a reply with no ``web`` section has no results.
    """

    name = "brave"
    guarantee = "claimed"
    EARLIEST = "1990-01-01"  # freshness is a range: from before the web, to T

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]:
        params = {"q": query, "count": str(min(k, 20))}  # Brave's documented maximum count is 20
        if mode == "enforced":
            params["freshness"] = f"{self.EARLIEST}to{format_date(as_of)}"
        label = f"{self.name} /res/v1/web/search"
        url = f"{self.source}/res/v1/web/search?{urllib.parse.urlencode(params)}"
        headers = {"Accept": "application/json", "X-Subscription-Token": self.key}
        document = self.transport.send(Request("GET", url, label, None, headers)).json_body(label)
        if isinstance(document, dict) and "web" not in document and isinstance(document.get("type"), str):
            return []  # Brave leaves the section out when nothing matched
        return [self._hit(r, ("description",)) for r in self._results(document, "web", "results")]
