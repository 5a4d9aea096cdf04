"""Where the time lock's documents come from: a local corpus or a backdated search service.

A backend answers ``search`` and ``fetch`` with :class:`Hit` objects and is
trusted with nothing: every hit, local or upstream, goes through the lock's
re-check before the agent sees it.  The as-of date is passed in by the lock
on every call (never taken from the agent).

Standard library only: plain ``urllib`` for the upstream (two JSON POSTs
need no client library).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Mapping, Protocol

from ..core import Corpus, SearchEngine, load_corpus
from ..core.dates import format_date
from ..errors import AnachronError
from ..io import parse_json

__all__ = [
    "Backend",
    "CorpusBackend",
    "Hit",
    "UpstreamBackend",
    "UpstreamError",
    "load_served_corpus",
]

UPSTREAM_MAX_BYTES = 16 * 1024 * 1024
DATE_FIELDS = ("published", "publish_date")
TEXT_FIELDS = ("text", "snippet")


@dataclass(frozen=True)
class Hit:
    """One item as a backend returned it, before the re-check.

    ``dates`` holds the backend's date values as given (strings, or
    ``date`` objects from a local corpus); an empty tuple is undated.
    """

    id: str | None
    title: str
    text: str
    dates: tuple[Any, ...]


class UpstreamError(AnachronError):
    """The backend failed or answered out of shape: the call's status is ``error``."""


class Backend(Protocol):
    kind: str
    source: str

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]: ...

    def fetch(self, ref: str, *, as_of: _dt.date, mode: str) -> list[Hit]: ...


def load_served_corpus(directory: str | os.PathLike[str] | None = None) -> Corpus:
    """The corpus as served: only :data:`SERVED_FILES`, never samples or outcome files."""
    return load_corpus(directory, samples=False)


class CorpusBackend:
    """A local corpus through :class:`~anachron.core.SearchEngine` (the one retrieval implementation).

    ``search`` ranks only what *mode* lets be seen (enforced: nothing dated
    after the as-of date competes for the top k).  ``fetch`` returns the item
    whatever its date: refusing a post-T id is the lock's re-check, so a
    refused fetch of a known item is logged as what it was.
    """

    kind = "corpus"

    def __init__(self, corpus: Corpus | SearchEngine) -> None:
        self.engine = corpus if isinstance(corpus, SearchEngine) else SearchEngine(corpus)
        self.corpus = self.engine.corpus
        self.source = self.corpus.source or "corpus"

    @staticmethod
    def _hit(item) -> Hit:
        return Hit(item.id, item.title, item.text, (item.publish_date,))

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]:
        return [self._hit(item) for item in self.engine.search(query, as_of=as_of, mode=mode, k=k)]

    def fetch(self, ref: str, *, as_of: _dt.date, mode: str) -> list[Hit]:
        item = self.engine.fetch(ref, as_of=as_of, mode="unrestricted")
        return [] if item is None else [self._hit(item)]


class UpstreamBackend:
    """A backdated search service: POST JSON to ``URL/search`` and ``URL/fetch``.

    Requests: ``{"query", "as_of", "k"}`` and ``{"url", "as_of"}``, with the
    as-of injected here (``null`` in the unrestricted mode).  Response, both
    endpoints: ``{"results": [item, ...]}``; an item has ``url`` or ``id``,
    ``title``, ``published`` or ``publish_date`` (date or ISO timestamp),
    and ``text`` or ``snippet`` (docs/mcp.md).
    """

    kind = "upstream"

    def __init__(self, url: str, *, timeout: float = 30.0) -> None:
        if not isinstance(url, str) or not re.match(r"https?://[^/\s]+", url):
            raise AnachronError(f"--upstream: {url!r} is not an http(s) URL")
        if not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0):
            raise AnachronError(f"--upstream-timeout: expected a positive number of seconds, got {timeout!r}")
        self.source = url.rstrip("/")
        self._timeout = float(timeout)

    @staticmethod
    def _as_of(as_of: _dt.date, mode: str) -> str | None:
        return format_date(as_of) if mode == "enforced" else None

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]:
        return self._post("search", {"query": query, "as_of": self._as_of(as_of, mode), "k": k})

    def fetch(self, ref: str, *, as_of: _dt.date, mode: str) -> list[Hit]:
        return self._post("fetch", {"url": ref, "as_of": self._as_of(as_of, mode)})

    def _post(self, endpoint: str, body: Mapping[str, Any]) -> list[Hit]:
        url = f"{self.source}/{endpoint}"
        request = urllib.request.Request(
            url,
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "anachron-timelock"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                payload = response.read(UPSTREAM_MAX_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise UpstreamError(f"upstream /{endpoint} answered HTTP {exc.code}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise UpstreamError(f"upstream /{endpoint} unreachable: {reason}") from None
        if len(payload) > UPSTREAM_MAX_BYTES:
            raise UpstreamError(f"upstream /{endpoint} answered more than {UPSTREAM_MAX_BYTES} bytes")
        try:
            document = parse_json(payload.decode("utf-8"), f"upstream /{endpoint}")
        except (AnachronError, UnicodeDecodeError) as exc:
            raise UpstreamError(str(exc)) from None
        results = document.get("results") if isinstance(document, dict) else None
        if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
            raise UpstreamError(f"upstream /{endpoint}: expected {{\"results\": [objects]}}")
        return [self._hit(r) for r in results]

    @staticmethod
    def _hit(result: Mapping[str, Any]) -> Hit:
        ref = next((result[key] for key in ("url", "id") if isinstance(result.get(key), str) and result[key].strip()), None)
        title = result.get("title")
        text = next((result[key] for key in TEXT_FIELDS if isinstance(result.get(key), str)), "")
        dates = tuple(result[key] for key in DATE_FIELDS if result.get(key) is not None)
        return Hit(ref.strip() if ref else None, title if isinstance(title, str) else "", text, dates)
