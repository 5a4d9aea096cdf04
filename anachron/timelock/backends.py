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
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol

from anachron.core import Corpus
from anachron.core.attribution import DATE_FIELDS, MODIFIED_FIELDS
from anachron.core.dates import format_date
from anachron.core.errors import AnachronError
from anachron.core.search import Engine
from anachron.store import SearchEngine, load_corpus, open_corpus
from anachron.store.engine import extremes
from anachron.store.ranking import DEFAULT_RANKING, check_ranking
from anachron.timelock.render import DatePresentation

__all__ = [
    "Backend",
    "CANCELLED_WAITING",
    "CorpusBackend",
    "Hit",
    "PendingBackend",
    "UpstreamBackend",
    "UpstreamError",
    "load_served_corpus",
    "open_engine",
    "service_hit",
]

UPSTREAM_MAX_BYTES = 16 * 1024 * 1024  # of one reply of any web service (anachron.timelock.web.transport)
MAX_TIMEOUT = 3600.0  # seconds: a documented ceiling, so "inf" or 1e400 is refused at start-up
TEXT_FIELDS = ("text", "snippet")
_DATED_BY = frozenset(DATE_FIELDS + MODIFIED_FIELDS + TEXT_FIELDS)


@dataclass(frozen=True)
class Hit:
    """One item as a backend returned it, before the re-check.

    ``dates`` holds a local corpus's exact day (a ``date``); an upstream
    item instead carries ``entry``, the fields it was sent with (its date
    fields, URL, snippet, text), which the re-check dates by attribution.
    """

    id: str | None
    title: str
    text: str
    dates: tuple[Any, ...] = ()
    entry: Mapping[str, Any] | None = None
    score: float | None = None  # a local corpus's ranking score (anachron.store.ranking), for `anachron search`
    backend: str | None = None  # which backend answered it, for the log (anachron.timelock.web)
    guarantee: str | None = None  # what that backend promised about its date (events.GUARANTEES)


class UpstreamError(AnachronError):
    """The backend failed or answered out of shape: the call's status is ``error``."""


class Backend(Protocol):
    kind: str
    source: str

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]: ...

    def fetch(self, ref: str, *, as_of: _dt.date, mode: str) -> list[Hit]: ...


def load_served_corpus(spec: str | os.PathLike[str] | None = None) -> Corpus:
    """The corpus *spec* names (:func:`anachron.store.open_corpus`) as served: never its samples."""
    return load_corpus(spec, samples=False)


def open_engine(spec: str | os.PathLike[str] | None = None) -> Engine:
    """The engine serving ``--corpus`` *spec* (:func:`anachron.store.open_corpus`), reading only what is served.

    A directory (default: v0) is loaded into memory without its samples; an
    index file or a ``postgresql://`` URL is searched in place.
    """
    return open_corpus(spec, samples=False).engine


class CorpusBackend:
    """A local corpus through an :class:`~anachron.core.search.Engine`: in memory
    (:class:`~anachron.store.SearchEngine`), an index file or a PostgreSQL server,
    all ranking alike (docs/index.md).

    ``search`` ranks only what *mode* lets be seen (enforced: nothing dated
    after the as-of date competes for the top k).  ``fetch`` returns the item
    whatever its date: refusing a post-T id is the lock's re-check, so a
    refused fetch of a known item is logged as what it was.
    """

    kind = "corpus"

    def __init__(self, corpus: "Corpus | Engine", *, ranking: str = DEFAULT_RANKING) -> None:
        self.engine = SearchEngine(corpus) if isinstance(corpus, Corpus) else corpus
        if not isinstance(self.engine, Engine):
            raise AnachronError(f"a corpus backend needs a corpus or a search engine, got {type(corpus).__name__}")
        # Which ranking serves every search (anachron.store.ranking); an engine without `scored`
        # (not one of anachron.store's) ranks as it does, and no ranking is recorded.
        self._scored = getattr(self.engine, "scored", None)
        self.ranking = check_ranking(ranking) if callable(self._scored) else None
        self.corpus = getattr(self.engine, "corpus", None)  # in memory only
        source = getattr(self.engine, "source", None) or (self.corpus.source if self.corpus is not None else None)
        self.source = source or "corpus"

    def check_presentation(self, presentation: DatePresentation) -> None:
        """Fail early when *presentation* shifts an item of this corpus off the calendar."""
        presentation.check(extremes(self.engine))

    @staticmethod
    def _hit(item, score: float | None = None) -> Hit:
        # The exact day: no attribution.  Tagged here, so every adapter's log says where an item came from.
        return Hit(item.id, item.title, item.text, (item.publish_date,), score=score, backend="corpus", guarantee="corpus")

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]:
        if self.ranking is None:
            return [self._hit(item) for item in self.engine.search(query, as_of=as_of, mode=mode, k=k)]
        return [self._hit(item, score) for item, score in self._scored(query, as_of=as_of, mode=mode, k=k, ranking=self.ranking)]

    def fetch(self, ref: str, *, as_of: _dt.date, mode: str) -> list[Hit]:
        item = self.engine.fetch(ref, as_of=as_of, mode="unrestricted")
        return [] if item is None else [self._hit(item)]


# The refusal a call gets when its client cancels it while a PendingBackend still opens the corpus:
# the lock never saw it, so a replay passes it through as recorded (anachron.cli.replay).
CANCELLED_WAITING = "cancelled while the corpus was still opening: nothing was searched"


class PendingBackend:
    """A corpus backend still being opened, in a background thread: a server built on it can answer
    ``initialize`` (and list its tools) at once, however long a large corpus takes to load or index.

    *opener* returns the :class:`CorpusBackend` (it may take minutes); it
    runs once, from :meth:`start`.  ``kind`` and ``source`` are known before
    it returns, so the run's start record is the same as an open backend's.
    A call waits for the opening to finish, then is answered by the opened
    backend; if the opening failed, every call is an :class:`UpstreamError`
    naming why (the call's status is ``error``), and :meth:`wait` returns
    the exception, for the server to stop on.  :attr:`phase` says what it is
    doing (for progress notices).
    """

    kind = "corpus"

    def __init__(
        self, opener: "Callable[[], CorpusBackend]", source: str, *, phase: str = "opening the corpus", ranking: str | None = None
    ) -> None:
        self.source = source
        self.phase = phase
        # The ranking the opened backend will serve with (anachron.store.ranking), known now: the
        # run's start record names it before the corpus is open.
        self.ranking = check_ranking(ranking) if ranking is not None else None
        self.started = time.monotonic()
        self._opener = opener
        self._opened: CorpusBackend | None = None
        self._failure: BaseException | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "PendingBackend":
        """Begin opening (once), in a daemon thread: a server stopped meanwhile does not wait for it."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._open, name="anachron-corpus-open", daemon=True)
            self._thread.start()
        return self

    def _open(self) -> None:
        try:
            self._opened = self._opener()
        except BaseException as exc:  # kept for every waiting call and for the server, never lost in the thread
            self._failure = exc
        finally:
            self._done.set()

    @property
    def ready(self) -> bool:
        """Whether the opening has finished (opened or failed)."""
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> BaseException | None:
        """Wait for the opening (at most *timeout* seconds); the exception it failed with, or ``None``."""
        self._done.wait(timeout)
        return self._failure

    def _backend(self) -> CorpusBackend:
        self.start()
        self._done.wait()
        if self._failure is not None:
            reason = self._failure if isinstance(self._failure, AnachronError) else type(self._failure).__name__
            raise UpstreamError(f"the corpus could not be opened: {reason}")
        assert self._opened is not None
        return self._opened

    @property
    def engine(self) -> Engine:
        return self._backend().engine

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]:
        return self._backend().search(query, k=k, as_of=as_of, mode=mode)

    def fetch(self, ref: str, *, as_of: _dt.date, mode: str) -> list[Hit]:
        return self._backend().fetch(ref, as_of=as_of, mode=mode)


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _clean(text: str) -> str:
    """Text an upstream sent, made safe to show and to log: lone surrogates become U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def _one_line(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", _clean(text)).split())


def service_hit(result: Mapping[str, Any], *, text_fields: tuple[str, ...] = TEXT_FIELDS, **tag: Any) -> Hit:
    """One item a web service returned, as a :class:`Hit` the re-check dates by attribution.

    Its id is ``url`` (else ``id``); an id with a line break or another
    control character, or longer than 2048 characters, is no id (the item is
    withheld: a forged row).  Its text is the first string of *text_fields*;
    what attribution may read is kept in ``entry``: the date fields, the URL,
    the snippet and any fetched text.  The title is made one line; lone
    surrogates become U+FFFD.  *tag*: the hit's ``backend`` and ``guarantee``.
    """
    ref = next((result[key] for key in ("url", "id") if isinstance(result.get(key), str) and result[key].strip()), None)
    if ref is not None:
        ref = _clean(ref.strip())
        if _CONTROL.search(ref) or len(ref) > 2048:
            ref = None
    title = result.get("title")
    text = next((result[key] for key in text_fields if isinstance(result.get(key), str)), "")
    entry = {key: _clean(v) if isinstance(v, str) else v for key, v in result.items() if key in _DATED_BY}
    if text and not any(key in entry for key in TEXT_FIELDS):
        entry["snippet"] = _clean(text)  # a service's own name for it (Brave's description): still read for dates
    if ref is not None:
        entry["url"] = ref
    return Hit(ref, _one_line(title) if isinstance(title, str) else "", _clean(text), (), entry, **tag)


class UpstreamBackend:
    """A backdated search service: POST JSON to ``URL/search`` and ``URL/fetch`` (the ``anachron`` backend).

    Requests: ``{"query", "as_of", "k"}`` and ``{"url", "as_of"}``, with the
    as-of injected here (``null`` in the unrestricted mode).  Response, both
    endpoints: ``{"results": [item, ...]}``; an item has ``url`` or ``id``,
    ``title``, ``published`` or ``publish_date`` (date or ISO timestamp),
    and ``text`` or ``snippet`` (docs/mcp.md), and may say its
    ``guarantee`` (one of :data:`~anachron.timelock.events.GUARANTEES`).

    Every fault of the service is an :class:`UpstreamError` (the call's
    status is ``error``): an HTTP error or a redirect (never followed), a
    broken reply (bad status line, HTTP/0.9, broken chunking, too many or
    too long headers), more than :data:`~anachron.timelock.web.transport.MAX_BYTES`,
    a body that is not the expected JSON, or a reply that takes longer than
    *timeout* in total (a slow drip included).  Items are read by
    :func:`service_hit`.  *transport* (:mod:`anachron.timelock.web.transport`)
    records or replays the exchanges; by default, the network.
    """

    kind = "upstream"
    name = "anachron"
    guarantee = None  # as the upstream says, item by item

    def __init__(self, url: str, *, timeout: float = 30.0, transport: Any = None) -> None:
        from anachron.timelock.web.transport import Transport, check_timeout  # the web package imports this module

        if not isinstance(url, str) or not re.match(r"https?://[^/\s]+", url):
            raise AnachronError(f"--upstream: {url!r} is not an http(s) URL")
        check_timeout(timeout)
        self.source = url.rstrip("/")
        self.transport = transport if transport is not None else Transport(timeout=timeout)

    @staticmethod
    def _as_of(as_of: _dt.date, mode: str) -> str | None:
        return format_date(as_of) if mode == "enforced" else None

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]:
        return self._post("search", {"query": query, "as_of": self._as_of(as_of, mode), "k": k})

    def fetch(self, ref: str, *, as_of: _dt.date, mode: str) -> list[Hit]:
        return self._post("fetch", {"url": ref, "as_of": self._as_of(as_of, mode)})

    def _post(self, endpoint: str, body: Mapping[str, Any]) -> list[Hit]:
        from anachron.timelock.events import GUARANTEES
        from anachron.timelock.web.transport import Request

        label = f"upstream /{endpoint}"
        document = self.transport.send(
            Request(
                "POST", f"{self.source}/{endpoint}", label, json.dumps(body, ensure_ascii=True).encode("ascii"),
                {"Content-Type": "application/json", "Accept": "application/json"},
            )
        ).json_body(label)
        results = document.get("results") if isinstance(document, dict) else None
        if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
            raise UpstreamError(f"upstream /{endpoint}: expected {{\"results\": [objects]}}")
        return [
            service_hit(r, backend=self.name, guarantee=r.get("guarantee") if r.get("guarantee") in GUARANTEES else None)
            for r in results
        ]
