"""The time lock itself, independent of any protocol: backends, the second
filter, budgets and the event log.

:class:`TimeLock` answers one tool call at a time.  The as-of date is its
constructor argument and appears in no argument a caller can pass, so what
an agent types cannot move the cutoff.  Every item a backend returns, local
or upstream, goes through the same re-check (:func:`recheck`) before it is
shown; what fails it is withheld and logged, never shown and never hinted at.

Standard library only: the MCP SDK glue lives in :mod:`anachron.mcp._server`.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import threading
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..core import SearchEngine, build_corpus, default_corpus_dir
from ..core._files import dump_json, parse_json, read_jsonl
from ..core.dates import format_date, parse_date
from ..core.errors import AnachronError
from ..core.events import Seen, Withheld, call_record, start_record

try:  # POSIX: a log is claimed with an exclusive lock; elsewhere the size check alone guards it.
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "SERVED_FILES",
    "OUTCOME_MODULES",
    "OUTCOME_FILES",
    "Hit",
    "recheck",
    "parse_timestamp",
    "load_served_corpus",
    "CorpusBackend",
    "UpstreamBackend",
    "UpstreamError",
    "Limits",
    "EventWriter",
    "Outcome",
    "TimeLock",
]

# Outcome quarantine.  The serving path (this package and `anachron serve`)
# reads only SERVED_FILES of a corpus directory, and never imports a module
# under OUTCOME_MODULES nor opens a file named in OUTCOME_FILES: ground truth
# (sample targets, bank answers, real outcomes) must be unreachable while an
# agent is sealed in.  tests/test_mcp_quarantine.py enforces all three.
SERVED_FILES = ("items.jsonl", "entities.jsonl")
OUTCOME_MODULES = (
    "anachron.core.bank",
    "anachron.core._bank_facts",
    "anachron.core._bank_judge",
    "anachron.cli.bank",
    "anachron.bank",
    "anachron.outcomes",
    "anachron.core.outcomes",
)
OUTCOME_FILES = (
    "samples.jsonl",
    "bank.jsonl",
    "bank.manifest.json",
    "facts.jsonl",
    "targets.jsonl",
    "outcomes.jsonl",
)

MAX_QUERY = 1000
MAX_REF = 2048
SNIPPET = 280
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


_TIMESTAMP = re.compile(
    r"(\d{4}-\d{2}-\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?"
    r"(Z|[+-]\d{2}:\d{2})?"
)


def parse_timestamp(value: Any) -> _dt.date:
    """The UTC day of a date or timestamp; ``ValueError`` if it is not one.

    Accepted: ``YYYY-MM-DD``, optionally followed by ``THH:MM[:SS[.ffffff]]``
    and ``Z`` or ``+HH:MM``.  A timestamp counts on its UTC day; one without
    an offset is taken as UTC.  Anything else (epoch numbers, ``2022-6-1``,
    prose) is unparseable: no guess can be allowed to move an item across
    the cutoff.
    """
    if isinstance(value, _dt.datetime):
        raise ValueError("expected a string")
    if isinstance(value, _dt.date):
        return value
    if not isinstance(value, str):
        raise ValueError(f"expected a date string, got {type(value).__name__}")
    match = _TIMESTAMP.fullmatch(value.strip())
    if not match:
        raise ValueError(f"{value!r} is not an ISO date or timestamp")
    day = parse_date(match.group(1))
    hour, minute, second, fraction, offset = match.groups()[1:]
    if offset and hour is None:
        raise ValueError(f"{value!r} has an offset but no time")
    if hour is None:
        return day
    try:
        moment = _dt.datetime(
            day.year, day.month, day.day, int(hour), int(minute), int(second or 0), int((fraction or "0").ljust(6, "0"))
        )
    except ValueError:
        raise ValueError(f"{value!r} is not a real time of day") from None
    if offset and offset != "Z":
        hours, minutes = int(offset[1:3]), int(offset[4:6])
        if hours > 23 or minutes > 59:
            raise ValueError(f"{value!r} has an impossible UTC offset")
        moment -= (1 if offset[0] == "+" else -1) * _dt.timedelta(hours=hours, minutes=minutes)
    return moment.date()


def recheck(hits: Sequence[Hit], as_of: _dt.date, *, allow_undated: bool = False) -> tuple[list[Seen], list[Withheld], list[Hit]]:
    """The second filter: split *hits* into shown and withheld.

    Withheld, always: no id or URL (``no-id``); any date after *as_of*
    (``after-cutoff``; with several date fields the latest decides).
    Withheld unless *allow_undated*: no date (``undated``); a date that does
    not parse (``unparseable-date``).  Returns ``(seen, withheld,
    shown_hits)`` with ``shown_hits[i]`` the hit behind ``seen[i]``.
    """
    seen: list[Seen] = []
    withheld: list[Withheld] = []
    shown: list[Hit] = []
    for hit in hits:
        raw = ", ".join(v if isinstance(v, str) else str(v) for v in hit.dates) or None
        if hit.id is None:
            withheld.append(Withheld(None, raw, "no-id"))
            continue
        days, bad = [], []
        for value in hit.dates:
            try:
                days.append(parse_timestamp(value))
            except ValueError:
                bad.append(value)
        if days and max(days) > as_of:
            withheld.append(Withheld(hit.id, format_date(max(days)), "after-cutoff"))
            continue
        if bad or not days:
            reason, why = ("unparseable-date", f"unparseable date {raw}") if bad else ("undated", "no date")
            if not allow_undated:
                withheld.append(Withheld(hit.id, raw, reason))
                continue
            seen.append(Seen(hit.id, hit.title, None, why))
        else:
            seen.append(Seen(hit.id, hit.title, max(days)))
        shown.append(hit)
    return seen, withheld, shown


# ---------------------------------------------------------------------------
# Backends.  Each returns hits; none is trusted to have filtered them.


def load_served_corpus(directory: str | os.PathLike[str] | None = None):
    """The corpus as served: only :data:`SERVED_FILES`, never samples or outcome files."""
    root = Path(directory) if directory is not None else default_corpus_dir()
    if not root.is_dir():
        raise AnachronError(f"{root}: not a corpus directory")
    items, entities = (root / name for name in SERVED_FILES)
    item_records = [(f"{items}:{line}", obj) for line, obj in read_jsonl(items)]
    entity_records = [(f"{entities}:{line}", obj) for line, obj in read_jsonl(entities)] if entities.exists() else []
    return build_corpus(item_records, entity_records, source=str(root))


class CorpusBackend:
    """A local corpus through :class:`SearchEngine` in enforced mode (one retrieval implementation)."""

    kind = "corpus"

    def __init__(self, corpus, as_of: _dt.date) -> None:
        self.corpus = corpus
        self.source = corpus.source or "corpus"
        self._engine = SearchEngine(corpus)
        self._as_of = as_of

    @staticmethod
    def _hit(item) -> Hit:
        return Hit(item.id, item.title, item.text, (item.publish_date,))

    def search(self, query: str, k: int) -> list[Hit]:
        return [self._hit(item) for item in self._engine.search(query, as_of=self._as_of, mode="enforced", k=k)]

    def fetch(self, ref: str) -> list[Hit]:
        item = self._engine.fetch(ref, as_of=self._as_of, mode="enforced")
        return [] if item is None else [self._hit(item)]


class UpstreamError(Exception):
    """The upstream service failed or answered out of shape (shown to the agent as a tool error)."""


class UpstreamBackend:
    """A backdated search service: POST JSON to ``URL/search`` and ``URL/fetch``.

    Requests: ``{"query", "as_of", "k"}`` and ``{"url", "as_of"}``, with the
    as-of injected here.  Response, both endpoints: ``{"results": [item,
    ...]}``; an item has ``url`` or ``id``, ``title``, ``published`` or
    ``publish_date`` (date or ISO timestamp), and ``text`` or ``snippet``
    (docs/mcp.md).  Plain ``urllib``: two JSON POSTs need no client library,
    and the SDK's own HTTP stack (httpx2) is not ours to depend on.
    """

    kind = "upstream"

    def __init__(self, url: str, as_of: _dt.date, *, timeout: float = 30.0) -> None:
        if not re.match(r"https?://[^/\s]+", url):
            raise AnachronError(f"--upstream: {url!r} is not an http(s) URL")
        self.source = url.rstrip("/")
        self._as_of = format_date(as_of)
        self._timeout = timeout

    def search(self, query: str, k: int) -> list[Hit]:
        return self._post("search", {"query": query, "as_of": self._as_of, "k": k})

    def fetch(self, ref: str) -> list[Hit]:
        return self._post("fetch", {"url": ref, "as_of": self._as_of})

    def _post(self, endpoint: str, body: Mapping[str, Any]) -> list[Hit]:
        url = f"{self.source}/{endpoint}"
        request = urllib.request.Request(
            url,
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "anachron-serve"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                payload = response.read(UPSTREAM_MAX_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise UpstreamError(f"upstream /{endpoint} answered HTTP {exc.code}") from None
        except (urllib.error.URLError, OSError) as exc:
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


# ---------------------------------------------------------------------------
# Budgets and the event log.


TOOLS = ("search", "fetch")
ARGUMENT = {"search": "query", "fetch": "id_or_url"}  # each tool's one argument
_BUDGET_KEY = {"search": "searches", "fetch": "fetches"}


@dataclass(frozen=True)
class Limits:
    """Per-run caps; ``None`` is unlimited.  ``calls`` caps searches and fetches together."""

    searches: int | None = None
    fetches: int | None = None
    calls: int | None = None

    def __post_init__(self) -> None:
        for name in ("searches", "fetches", "calls"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                raise AnachronError(f"--max-{name}: expected a non-negative integer, got {value!r}")

    def as_dict(self) -> dict[str, int | None]:
        return {"searches": self.searches, "fetches": self.fetches, "calls": self.calls}


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class EventWriter:
    """Appends records to the event log, one line per call, flushed as it goes.

    One log holds one run.  At start-up a non-empty log is refused (unless
    *overwrite*); the file is claimed on the first call, not at start-up, so
    a client that only lists tools leaves it empty.  The claim takes an
    exclusive lock and re-checks that the file is still empty, so a second
    server pointed at the same file cannot interleave its calls.
    """

    def __init__(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> None:
        self.path = Path(path)
        try:
            if self.path.is_dir():
                raise AnachronError(f"{self.path}: is a directory, expected an event log file")
            size = self.path.stat().st_size if self.path.exists() else 0
            if size and not overwrite:
                raise AnachronError(
                    f"{self.path}: event log already holds a run ({size} bytes); one log per server run: "
                    "choose a new file, or pass --overwrite-events to discard it"
                )
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "w" if overwrite else "a", encoding="utf-8"):
                pass  # created (or truncated) now, so a bad path fails at start-up
        except OSError as exc:
            raise AnachronError(f"{self.path}: cannot write the event log: {exc.strerror}") from None
        self._file = None

    def write(self, header: Mapping[str, Any], record: Mapping[str, Any]) -> None:
        if self._file is None:
            self._claim(header)
        self._append(record)

    def _claim(self, header: Mapping[str, Any]) -> None:
        handle = open(self.path, "a", encoding="utf-8", newline="\n")
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    raise AnachronError(f"{self.path}: another server holds this event log") from None
            if os.fstat(handle.fileno()).st_size:
                raise AnachronError(f"{self.path}: another run wrote to this event log after start-up")
        except BaseException:
            handle.close()
            raise
        self._file = handle
        self._append(header)

    def _append(self, record: Mapping[str, Any]) -> None:
        assert self._file is not None
        self._file.write(dump_json(record, indent=None))
        self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


@dataclass(frozen=True)
class Outcome:
    """What a tool call answers: text for the model, the same as data, and whether it failed."""

    text: str
    structured: dict[str, Any]
    is_error: bool


class TimeLock:
    """Serves ``search`` and ``fetch`` as of a fixed date, within budgets, logging every call.

    Calls are serialised (one lock), so budgets and sequence numbers stay
    exact whatever the transport's concurrency.
    """

    def __init__(
        self,
        backend,
        as_of: _dt.date,
        events: EventWriter,
        *,
        limits: Limits = Limits(),
        k: int = 5,
        allow_undated: bool = False,
        server: str = "anachron",
    ) -> None:
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise AnachronError(f"-k: expected a positive integer, got {k!r}")
        self.backend = backend
        self.as_of = as_of
        self.events = events
        self.limits = limits
        self.k = k
        self.allow_undated = allow_undated
        self.used = {"searches": 0, "fetches": 0, "calls": 0}
        self._seq = 0
        self._mutex = threading.Lock()
        self._header = start_record(
            run=uuid.uuid4().hex,
            time=_now(),
            as_of=as_of,
            backend=backend.kind,
            source=backend.source,
            k=k,
            allow_undated=allow_undated,
            limits=limits.as_dict(),
            server=server,
        )

    # -- budget ---------------------------------------------------------------

    def budget(self) -> dict[str, dict[str, int | None]]:
        out = {}
        for name, limit in self.limits.as_dict().items():
            used = self.used[name]
            out[name] = {"used": used, "limit": limit, "remaining": None if limit is None else limit - used}
        return out

    def budget_line(self) -> str:
        parts = []
        for name, state in self.budget().items():
            if state["limit"] is None:
                parts.append(f"{name} unlimited")
            else:
                parts.append(f"{name} {state['remaining']} of {state['limit']}")
        return "Budget remaining: " + ", ".join(parts) + "."

    def _exhausted(self, tool: str) -> str | None:
        for name in (_BUDGET_KEY[tool], "calls"):
            limit = getattr(self.limits, name)
            if limit is not None and self.used[name] >= limit:
                return f"{name} budget exhausted ({self.used[name]} of {limit} used): no more {tool} calls in this run"
        return None

    # -- calls ----------------------------------------------------------------

    def call(self, tool: str, arguments: Any) -> Outcome:
        with self._mutex:
            return self._call(tool, arguments)

    def _call(self, tool: str, arguments: Any) -> Outcome:
        problem = _check_arguments(tool, arguments) or (self._exhausted(tool) if tool in TOOLS else None)
        if problem is not None:
            return self._finish(tool, arguments, "rejected", problem, [], [], [])
        self.used[_BUDGET_KEY[tool]] += 1
        self.used["calls"] += 1
        value = arguments[ARGUMENT[tool]].strip()
        try:
            # An upstream may return more than asked: only the first k (one for fetch) are considered.
            hits = self.backend.search(value, self.k)[: self.k] if tool == "search" else self.backend.fetch(value)[:1]
        except UpstreamError as exc:
            return self._finish(tool, arguments, "error", str(exc), [], [], [])
        seen, withheld, shown = recheck(hits, self.as_of, allow_undated=self.allow_undated)
        return self._finish(tool, arguments, "ok", None, seen, withheld, shown)

    def _finish(self, tool, arguments, status, error, seen, withheld, shown) -> Outcome:
        self._seq += 1
        record = call_record(
            run=self._header["run"],
            seq=self._seq,
            time=_now(),
            tool=tool,
            arguments=arguments,
            status=status,
            error=error,
            returned=seen,
            withheld=withheld,
            budget=self.budget(),
        )
        try:
            self.events.write(self._header, record)
        except (AnachronError, OSError) as exc:
            # Nothing unlogged is ever shown: a run whose log cannot be kept gets no results.
            message = str(exc) if isinstance(exc, AnachronError) else f"cannot write the event log: {exc}"
            text = f"Error: {message}. This server cannot serve this run.\n\n{self.budget_line()}"
            return Outcome(text, {"results": [], "budget": self.budget(), "error": message}, True)
        results = [_result(s, h, full=tool == "fetch") for s, h in zip(seen, shown)]
        structured = {"results": results, "budget": self.budget()}
        if status != "ok":
            structured["error"] = error
            return Outcome(f"Error: {error}.\n\n{self.budget_line()}", structured, True)
        return Outcome(_render(tool, arguments, results) + "\n\n" + self.budget_line(), structured, False)


def _check_arguments(tool: str, arguments: Any) -> str | None:
    """Why the call's arguments are refused, or ``None``: exactly one string argument, nothing else."""
    if tool not in TOOLS:
        return f"unknown tool {tool!r}: this server has only search and fetch"
    name = ARGUMENT[tool]
    if not isinstance(arguments, dict):
        return f"{tool} takes one argument, {name!r}"
    extra = sorted(set(arguments) - {name})
    if extra:
        return f"unexpected argument(s) {', '.join(map(repr, extra))}: {tool} takes only {name!r}"
    value = arguments.get(name)
    if not isinstance(value, str) or not value.strip():
        return f"{tool} needs {name!r}, a non-empty string"
    limit = MAX_QUERY if tool == "search" else MAX_REF
    if len(value) > limit:
        return f"{name!r} is longer than {limit} characters"
    return None


def _result(seen: Seen, hit: Hit, *, full: bool) -> dict[str, Any]:
    text = hit.text if full else _snippet(hit.text)
    published = format_date(seen.published) if seen.published is not None else None
    return {"id": seen.id, "title": seen.title, "published": published, "text": text}


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= SNIPPET:
        return text
    cut = text[:SNIPPET].rsplit(" ", 1)[0]
    return cut + " ..."


def _render(tool: str, arguments: Mapping[str, Any], results: list[dict[str, Any]]) -> str:
    def head(r: dict[str, Any]) -> str:
        return f"{r['id']} | {r['published'] or 'date unknown'} | {r['title']}"

    if tool == "fetch":
        if not results:
            return f"No document {arguments['id_or_url'].strip()!r} is available."
        r = results[0]
        return head(r) + "\n\n" + r["text"]
    query = arguments["query"].strip()
    if not results:
        return f"No results for {query!r}."
    lines = [f"{len(results)} result(s) for {query!r}:"]
    for number, r in enumerate(results, start=1):
        lines += ["", f"[{number}] {head(r)}"] + ([f"    {r['text']}"] if r["text"] else [])
    lines += ["", "Cite a document by its id; fetch(id_or_url) returns it in full."]
    return "\n".join(lines)
