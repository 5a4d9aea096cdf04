"""The time lock's event log: its format, its records, the writer and the strict reader.

Every adapter's lock records the same ``call`` records, built here: the MCP
server appends them to its event log (docs/mcp.md) after a ``start`` record
naming the run and its cutoff; the Inspect tools keep them in the sample
store.  Either way they are read back by the same strict reader, so one run
scores the same through every adapter (as a trace:
:mod:`anachron.timelock.run_trace`).  What of a call's arguments the log
keeps is decided in :mod:`anachron.timelock.loggable`; citations are checked
in :mod:`anachron.timelock.citations`.

Records:

- :class:`Seen`, :class:`Withheld`, :class:`CallEvent`, :class:`EventLog`: the records as read;
- :data:`FORMAT`, :data:`FORMATS`, :data:`WITHHELD_REASONS`.

Writing:

- :func:`now`: the time as records carry it;
- :func:`start_record`, :func:`call_record`, :func:`protocol_error_record`: each record;
- :func:`sources_list`: an item's date sources as the log gives them;
- :class:`EventWriter`: the log as a file, one whole record a line.

Reading:

- :func:`parse_calls`: ``call`` records (an Inspect sample store);
- :func:`parse_events`: a log's records into an :class:`EventLog`;
- :func:`load_events`: a log file, its torn last line left out.

Pinning: :func:`log_chain`, the log's SHA-256 digest chain (each line's
digest over the previous one's), which ``anachron run`` records in
``run.json`` and ``anachron score RUNDIR`` recomputes; it is
:func:`anachron.core.chain.log_chain`, re-exported (one rule for the lock's
log and the model gateway's).

Two rules hold everywhere here:

- only what the agent was *shown* counts: a ``call`` record's ``returned``
  list.  Items the server withheld never reached the agent, so they are
  neither scored as surfaced nor accepted as citations;
- one log is one run: a second ``start`` record, a ``call`` of another run
  or a gap in the sequence numbers is an error, never silently merged.

Standard library only; the readers and the writer are the only I/O.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from anachron.core.dates import format_date, parse_date
from anachron.core.attribution import GRANULARITIES, SourceDate
from anachron.core.attribution.values import month_granule, year_granule
from anachron.core.trace import STATUSES
from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import Record, dump_json, read_log_records
from anachron.core.validate import Fields
from anachron.core.chain import CHAIN_START, LogChain, log_chain  # re-exported (Pinning, below)
from anachron.timelock.loggable import MAX_LOGGED_ARGUMENTS, MAX_LOGGED_TEXT, loggable
from anachron.timelock.series import Observation

try:  # POSIX: a log is claimed with an exclusive lock; elsewhere the size check alone guards it.
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "FORMAT",
    "FORMATS",
    "STATUSES",
    "WITHHELD_REASONS",
    "GUARANTEES",
    "UNRECORDED",
    "Seen",
    "SeriesShown",
    "Withheld",
    "CallEvent",
    "EventLog",
    "EventWriter",
    "now",
    "start_record",
    "call_record",
    "series_record",
    "protocol_error_record",
    "sources_list",
    "parse_calls",
    "parse_events",
    "load_events",
    "load_scored_events",
    "CHAIN_START",
    "LogChain",
    "log_chain",
]

FORMAT = "anachron-events/2"
# Read as well: /1 had one status "rejected" for a refusal and an exhausted budget.
FORMATS = ("anachron-events/1", FORMAT)

# Why an item was withheld from the agent by the lock's re-check.
WITHHELD_REASONS = ("after-cutoff", "uncertain", "undated", "unparseable-date", "contradictory-date", "no-id")

# What a backend promised about an item's date (docs/mcp.md, "Backends and their guarantees"): an archive's
# capture time, a service's own as-of index, a publish-date filter, a dated corpus.  An item recorded
# without one (a log written before items carried it, an upstream that said nothing) is "unrecorded".
GUARANTEES = ("capture", "index", "claimed", "corpus")
UNRECORDED = "unrecorded"


@dataclass(frozen=True)
class Seen:
    """An item the agent was shown.  ``published`` is ``None`` only for an
    undated item let through (``--allow-undated``, or the unrestricted mode);
    ``undated`` then says why."""

    id: str
    title: str
    published: _dt.date | None
    undated: str | None = None
    granularity: str = "day"  # of the date: a month or year granule is dated by its first day
    dated_by: str | None = None  # how an upstream item was dated (attribution's source); None for a corpus item
    modified: _dt.date | None = None  # a modification day the item showed (a revision risk when after T)
    text: str = ""  # what the agent read of it (a search's snippet, the head of a fetched text): the content check
    sources: tuple[SourceDate, ...] = ()  # every date source an upstream item carried, in attribution's order
    backend: str | None = None  # which backend answered it (anachron.timelock.web); None in older logs
    guarantee: str | None = None  # what that backend promised about its date (GUARANTEES); None: unrecorded


@dataclass(frozen=True)
class Withheld:
    """An item the backend returned that the lock did not show.

    ``published`` is the backend's date text as given (it may not parse).
    """

    id: str | None
    published: str | None
    reason: str
    dated_by: str | None = None  # the source that decided the withholding (an upstream item)
    sources: tuple[SourceDate, ...] = ()  # every date source the item carried
    backend: str | None = None  # as Seen's
    guarantee: str | None = None
    why: str | None = None  # a word more on the reason (an undated result of a `claimed` backend)


@dataclass(frozen=True)
class SeriesShown:
    """What a ``series`` call showed: the series, its vintage, and each value with its realtime period
    (``value`` ``None``: missing), as the log records them (scored for restatement leaks)."""

    id: str
    vintage: _dt.date | None
    observations: tuple[Observation, ...]
    not_served: int = 0


@dataclass(frozen=True)
class CallEvent:
    """One recorded call.  ``seq`` is 0 for a call the lock never saw (an
    adapter refused it first, as Inspect does for arguments off the schema)."""

    where: str  # "file:line" of the record, or the sample and message
    seq: int
    tool: str
    arguments: Any  # an object for every call the lock ran; any JSON value on a refused one
    status: str
    returned: tuple[Seen, ...] = ()
    withheld: tuple[Withheld, ...] = ()
    error: str | None = None
    call_id: str | None = None  # the adapter's id of the call, when it gave one
    series: SeriesShown | None = None  # what an ok series call showed

    @property
    def query(self) -> str | None:
        """The call's ``query`` argument, whatever the tool: a smuggled query asks too."""
        query = self.arguments.get("query") if isinstance(self.arguments, Mapping) else None
        return query if isinstance(query, str) else None

    @property
    def target(self) -> Any:
        """What a fetch asked for, as a trace ``target``: the withheld post-T item
        (id and date), else the requested id or URL; ``None`` for other tools."""
        if self.tool != "fetch":
            return None
        for w in self.withheld:
            if w.reason == "after-cutoff" and w.id is not None and w.published is not None:
                return {"id": w.id, "publish_date": w.published}
        ref = self.arguments.get("id_or_url") if isinstance(self.arguments, Mapping) else None
        return ref.strip() if isinstance(ref, str) and ref.strip() else None


@dataclass(frozen=True)
class EventLog:
    """A parsed event log.  An empty file is a run that made no call:
    ``header`` is empty and ``as_of`` is ``None``."""

    source: str
    header: Mapping[str, Any]
    calls: tuple[CallEvent, ...]
    torn: str | None = None  # a note when the log's last line was cut short and left out
    protocol_errors: tuple[Mapping[str, Any], ...] = ()  # messages the transport refused (never calls)

    @property
    def as_of(self) -> _dt.date | None:
        value = self.header.get("as_of")
        return parse_date(value) if value is not None else None

    @property
    def run(self) -> str | None:
        return self.header.get("run")

    def guarantees(self) -> dict[str, int]:
        """Items shown to the agent, counted by their backend's guarantee (:data:`GUARANTEES`).

        An item without one counts as :data:`UNRECORDED`, except in a log of a
        local corpus (its ``start`` record says ``backend: corpus``), whose
        items predate the field and are all the corpus's.
        """
        default = "corpus" if self.header.get("backend") == "corpus" else UNRECORDED
        counts: dict[str, int] = {}
        for call in self.calls:
            for seen in call.returned:
                key = seen.guarantee or default
                counts[key] = counts.get(key, 0) + 1
        return counts

    @property
    def undated_shown(self) -> int:
        """Undated items shown to the agent (they cannot be judged against a date)."""
        return sum(1 for call in self.calls for seen in call.returned if seen.published is None)


# ---------------------------------------------------------------------------
# Writing: the lock builds every record here, so the format has one owner.


def now() -> str:
    """The current UTC time, as records carry it."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def start_record(
    *,
    run: str,
    time: str,
    as_of: _dt.date,
    mode: str,
    backend: str,
    source: str,
    k: int,
    allow_undated: bool,
    limits: Mapping[str, int | None],
    date_presentation: str,
    server: str,
    ranking: str | None = None,
    series: str | None = None,
) -> dict[str, Any]:
    """The first record of a log (*ranking*: the local corpus's ranking, :mod:`anachron.store.ranking`; none upstream;
    *series*: the series source, ``file PATH`` or ``alfred URL``, when the lock serves the ``series`` tool)."""
    record = {
        "event": "start",
        "format": FORMAT,
        "run": run,
        "time": time,
        "as_of": format_date(as_of),
        "mode": mode,
        "backend": backend,
        "source": source,
        "k": k,
        "allow_undated": allow_undated,
        "limits": dict(limits),
        "date_presentation": date_presentation,
        "server": server,
    }
    if ranking is not None:
        record["ranking"] = ranking
    if series is not None:
        record["series"] = series
    return record


def series_record(answer: Any) -> dict[str, Any]:
    """A ``series`` call's ``series`` field (answer: :class:`anachron.timelock.series.SeriesAnswer`):
    ``{"id", "vintage", "observations": [{"date", "value", "realtime_start", "realtime_end"}], "not_served"}``."""
    return {
        "id": answer.id,
        "vintage": format_date(answer.vintage) if answer.vintage is not None else None,
        "observations": [row.as_dict() for row in answer.observations],
        "not_served": answer.not_served,
    }


def _seen_dict(seen: Seen) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": seen.id,
        "title": seen.title,
        "published": format_date(seen.published) if seen.published is not None else None,
    }
    if seen.published is None:
        entry["undated"] = seen.undated or "no date"
    elif seen.granularity != "day":
        entry["granularity"] = seen.granularity
    if seen.dated_by is not None:
        entry["dated_by"] = seen.dated_by
    if seen.modified is not None:
        entry["modified"] = format_date(seen.modified)
    if seen.sources:
        entry["sources"] = sources_list(seen.sources)
    if seen.text:
        entry["text"] = seen.text[:MAX_LOGGED_TEXT]
    _provenance(entry, seen)
    return entry


def _provenance(entry: dict[str, Any], item: "Seen | Withheld") -> None:
    """An item's ``backend`` and ``guarantee``, when known (older records have neither)."""
    if item.backend is not None:
        entry["backend"] = item.backend
    if item.guarantee is not None:
        entry["guarantee"] = item.guarantee


MAX_LOGGED_SOURCES = 16  # date sources of one item kept in the log
_SOURCE_VALUE_CHARS = 200


def sources_list(sources: Sequence[SourceDate]) -> list[dict[str, Any]]:
    """The log's form of an item's date sources: ``{"source", "value", "published", "granularity"}``
    each (``published`` the granule's first day, null with a ``contradiction`` for a self-contradicting value)."""
    out = []
    for source in sources[:MAX_LOGGED_SOURCES]:
        entry: dict[str, Any] = {
            "source": source.source,
            "value": source.value[:_SOURCE_VALUE_CHARS],
            "published": format_date(source.first) if source.first is not None else None,
            "granularity": source.granularity,
        }
        if source.contradiction is not None:
            entry["contradiction"] = source.contradiction[:_SOURCE_VALUE_CHARS]
        out.append(entry)
    return out


def _withheld_dict(w: Withheld) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": w.id, "published": w.published, "reason": w.reason}
    if w.dated_by is not None:
        entry["dated_by"] = w.dated_by
    if w.sources:
        entry["sources"] = sources_list(w.sources)
    if w.why is not None:
        entry["why"] = w.why
    _provenance(entry, w)
    return entry


def call_record(
    *,
    run: str,
    seq: int,
    time: str,
    tool: str,
    arguments: Any,
    status: str,
    error: str | None,
    returned: Sequence[Seen],
    withheld: Sequence[Withheld],
    budget: Mapping[str, Any],
    call_id: str | None = None,
    ranking: str | None = None,
    series: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One tool call: what was asked, what was shown, what was withheld and why (*ranking*: which
    ranking served a search of a local corpus; *series*: what a series call showed, :func:`series_record`)."""
    if status not in STATUSES:
        raise AnachronError(f"unknown status {status!r}: expected one of {', '.join(STATUSES)}")
    changes: list[dict[str, Any]] = []
    logged_tool = loggable(tool, changes, "tool") if isinstance(tool, str) else repr(tool)
    logged = loggable(arguments, changes)
    text = dump_json(logged, indent=None)
    if len(text) > MAX_LOGGED_ARGUMENTS:  # many capped strings still add up: keep the head of the whole
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        changes.append({"path": "$", "change": "arguments truncated", "length": len(text), "sha256": digest})
        logged = text[:MAX_LOGGED_ARGUMENTS]
    record = {
        "event": "call",
        "run": run,
        "seq": seq,
        "time": time,
        "tool": logged_tool,
        "arguments": logged,
        "status": status,
        "error": loggable(error, changes, "error"),
        "returned": [_seen_dict(seen) for seen in returned],
        "withheld": [_withheld_dict(w) for w in withheld],
        "withheld_count": len(withheld),
        "budget": dict(budget),
    }
    if call_id is not None:
        record["call_id"] = loggable(call_id, changes, "call_id")
    if ranking is not None:
        record["ranking"] = ranking
    if series is not None:
        record["series"] = dict(series)
    if changes:
        record["arguments_changed"] = changes  # what the log could not keep as sent
    return record


def protocol_error_record(
    *, run: str, time: str, transport: str, code: int, error: str, request_id: "str | int | None", raw: bytes
) -> dict[str, Any]:
    """A message the transport refused before the lock saw it, and the JSON-RPC error it answered.

    The message itself is never copied (it may be megabytes, or not text):
    its size and SHA-256 identify it.  It is no call: it has no ``seq``,
    spends no budget and shows nothing.

    >>> r = protocol_error_record(run="r1", time="t", transport="stdio", code=-32700,
    ...     error="not JSON", request_id=None, raw=b"{")
    >>> r["event"], r["code"], r["bytes"], r["sha256"][:8]
    ('protocol_error', -32700, 1, '021fb596')
    """
    return {
        "event": "protocol_error",
        "run": run,
        "time": time,
        "transport": transport,
        "code": code,
        "error": error,
        "id": request_id,
        "bytes": len(raw),
        "sha256": hashlib.sha256(raw).hexdigest(),
    }


class EventWriter:
    """The lock's journal as a file: one line per record, each written whole or not at all.

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
        self._fd: int | None = None
        # The lock writes calls from worker threads and the transport writes protocol errors
        # from its own: one claim, whole records.
        self._writing = threading.Lock()

    def write(self, header: Mapping[str, Any], record: Mapping[str, Any]) -> None:
        with self._writing:
            if self._fd is None:
                self._claim(header)
            self._append(record)

    def _claim(self, header: Mapping[str, Any]) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    raise AnachronError(f"{self.path}: another server holds this event log") from None
            if os.fstat(fd).st_size:
                raise AnachronError(f"{self.path}: another run wrote to this event log after start-up")
            self._fd = fd
            self._append(header)
        except BaseException:
            self._fd = None
            os.close(fd)  # the next call claims the log afresh
            raise

    def _append(self, record: Mapping[str, Any]) -> None:
        """One record as one write; a write cut short (a full disk) is undone, so no torn or
        half-kept record is left for the next one to follow."""
        if self._fd is None:
            raise AnachronError(f"{self.path}: the event log is closed")
        data = dump_json(record, indent=None).encode("utf-8")
        size = os.fstat(self._fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
        except BaseException:
            try:
                os.ftruncate(self._fd, size)
            except OSError:
                pass
            raise

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


# ---------------------------------------------------------------------------
# Reading.


def _seen(where: str, entry: Any) -> Seen:
    if not isinstance(entry, dict):
        raise AnachronError(f"{where}: expected an object, got {describe(entry)}")
    f = Fields(where, entry)
    ident = f.text("id")
    title = entry.get("title", "")
    if not isinstance(title, str):
        raise f.error("title", f"expected a string, got {describe(title)}")
    if "published" not in entry:
        raise f.missing("published")
    published = f.date("published", nullable=True)
    undated = entry.get("undated")
    if published is None and not (isinstance(undated, str) and undated):
        raise f.error("undated", "an item shown without a date must say why (a non-empty string)")
    granularity = entry.get("granularity", "day")
    if granularity not in GRANULARITIES:
        raise f.error("granularity", f"{describe(granularity)} is not one of {', '.join(GRANULARITIES)}")
    dated_by = entry.get("dated_by")
    if dated_by is not None and not isinstance(dated_by, str):
        raise f.error("dated_by", f"expected a string or null, got {describe(dated_by)}")
    modified = f.date("modified", nullable=True)
    text = entry.get("text", "")
    if not isinstance(text, str):
        raise f.error("text", f"expected a string, got {describe(text)}")
    sources = _sources(f, entry)
    backend, guarantee = _read_provenance(f, entry)
    return Seen(
        ident, title, published, undated if published is None else None, granularity, dated_by, modified, text, sources,
        backend, guarantee,
    )


def _read_provenance(f: Fields, entry: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """An item's ``backend`` and ``guarantee``, read back (absent: ``None``, unrecorded)."""
    backend = entry.get("backend")
    if backend is not None and not (isinstance(backend, str) and backend):
        raise f.error("backend", f"expected a non-empty string, got {describe(backend)}")
    guarantee = entry.get("guarantee")
    if guarantee is not None and guarantee not in GUARANTEES:
        raise f.error("guarantee", f"{describe(guarantee)} is not one of {', '.join(GUARANTEES)}")
    return backend, guarantee


def _sources(f: Fields, entry: Mapping[str, Any]) -> tuple[SourceDate, ...]:
    """The ``sources`` list of a returned or withheld item, read back (absent: none)."""
    raw = entry.get("sources", [])
    if not isinstance(raw, list):
        raise f.error("sources", f"expected a list, got {describe(raw)}")
    out = []
    for index, one in enumerate(raw):
        where = f"sources[{index}]"
        if not isinstance(one, dict):
            raise f.error(where, f"expected an object, got {describe(one)}")
        g = Fields(f"{f.where}: {where}", one)
        label, value = g.text("source"), g.text("value", nonempty=False)
        first = g.date("published", nullable=True)
        granularity = one.get("granularity")
        contradiction = one.get("contradiction")
        if first is None:
            if not isinstance(contradiction, str) or not contradiction:
                raise g.error("contradiction", "a source without a date must say why (a non-empty string)")
            out.append(SourceDate(label, value, None, None, None, contradiction))
            continue
        if granularity not in GRANULARITIES:
            raise g.error("granularity", f"{describe(granularity)} is not one of {', '.join(GRANULARITIES)}")
        try:
            last = _granule_last(first, granularity)
        except AnachronError as exc:
            raise g.error("published", str(exc)) from None
        out.append(SourceDate(label, value, first, last, granularity))
    return tuple(out)


def _granule_last(first: _dt.date, granularity: str) -> _dt.date:
    """The last day of the granule of *granularity* that begins on *first*, by the core's own rules
    (a month or year outside the plausible years is refused, as the core refuses to read one)."""
    if granularity == "day":
        return first
    if granularity == "month":
        return month_granule(first.year, first.month, first.isoformat()[:7])[1]
    return year_granule(first.year, str(first.year))[1]


def _withheld(where: str, entry: Any) -> Withheld:
    if not isinstance(entry, dict):
        raise AnachronError(f"{where}: expected an object, got {describe(entry)}")
    f = Fields(where, entry)
    reason = f.text("reason")
    if reason not in WITHHELD_REASONS:
        raise f.error("reason", f"{reason!r} is not one of {', '.join(WITHHELD_REASONS)}")
    ident = entry.get("id")
    if ident is None and reason != "no-id":
        raise f.missing("id")
    if ident is not None and (not isinstance(ident, str) or not ident):
        raise f.error("id", f"expected a non-empty string, got {describe(ident)}")
    published = entry.get("published")
    if published is not None and not isinstance(published, str):
        raise f.error("published", f"expected a string or null, got {describe(published)}")
    dated_by = entry.get("dated_by")
    if dated_by is not None and not isinstance(dated_by, str):
        raise f.error("dated_by", f"expected a string or null, got {describe(dated_by)}")
    why = entry.get("why")
    if why is not None and not isinstance(why, str):
        raise f.error("why", f"expected a string or null, got {describe(why)}")
    return Withheld(ident, published, reason, dated_by, _sources(f, entry), *_read_provenance(f, entry), why)


def _status(f: Fields, fmt: str) -> str:
    status = f.text("status")
    if fmt == "anachron-events/1" and status == "rejected":
        error = f.obj.get("error")
        return "exhausted" if isinstance(error, str) and "budget exhausted" in error else "refused"
    if fmt == "anachron-events/1" and status == "ok" and f.obj.get("tool") == "fetch" and not f.obj.get("returned"):
        return "refused"  # /1 answered an unknown or withheld fetch "ok" with nothing shown
    if status not in STATUSES:
        raise f.error("status", f"{status!r} is not one of {', '.join(STATUSES)}")
    return status


def _call(where: str, obj: Mapping[str, Any], run: str, expected_seq: int, fmt: str = FORMAT) -> CallEvent:
    f = Fields(where, obj)
    if obj.get("run") != run:
        raise f.error("run", f"{obj.get('run')!r} is not this log's run {run!r}: one log holds one run")
    seq = obj.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise f.error("seq", f"expected an integer, got {describe(seq)}")
    if seq != expected_seq:
        raise f.error("seq", f"{seq}, expected {expected_seq}: a record is missing or out of order")
    tool = f.text("tool", nonempty=False)  # the lock logs, and refuses, a call to any name
    arguments = obj.get("arguments")
    if arguments is None:  # a client may send no arguments at all (the call is then refused)
        arguments = {}
    status = _status(f, fmt)
    if not isinstance(arguments, dict) and status not in ("refused", "exhausted"):
        raise f.error("arguments", f"expected an object or null, got {describe(arguments)}")
    returned = tuple(_seen(f"{where} returned[{i}]", e) for i, e in enumerate(f.list("returned")))
    withheld = tuple(_withheld(f"{where} withheld[{i}]", e) for i, e in enumerate(f.list("withheld")))
    if status != "ok" and returned:
        raise f.error("returned", f"a call with status {status!r} cannot have shown results")
    if obj.get("withheld_count") != len(withheld):
        raise f.error("withheld_count", f"{obj.get('withheld_count')!r} does not count the {len(withheld)} withheld item(s)")
    error = obj.get("error")
    call_id = obj.get("call_id")
    series = None
    if obj.get("series") is not None:
        if status != "ok" or tool != "series":
            raise f.error("series", f"a {tool!r} call with status {status!r} cannot have shown a series")
        series = _series(f"{where} series", obj["series"])
    return CallEvent(
        where, seq, tool, arguments, status, returned, withheld,
        error if isinstance(error, str) else None, call_id if isinstance(call_id, str) else None, series,
    )


def _series(where: str, entry: Any) -> SeriesShown:
    """A call's ``series`` field, read back strictly: every value shown needs its realtime period."""
    if not isinstance(entry, dict):
        raise AnachronError(f"{where}: expected an object, got {describe(entry)}")
    f = Fields(where, entry)
    ident = f.text("id")
    vintage = f.date("vintage", nullable=True)
    rows = []
    for index, one in enumerate(f.list("observations")):
        at = f"{where} observations[{index}]"
        if not isinstance(one, dict):
            raise AnachronError(f"{at}: expected an object, got {describe(one)}")
        g = Fields(at, one)
        value = one.get("value", ...)
        if value is ... or (value is not None and not isinstance(value, str)):
            raise g.error("value", f"expected a string or null (missing), got {describe(value) if value is not ... else 'nothing'}")
        rows.append(Observation(g.date("date"), value, g.date("realtime_start"), g.date("realtime_end")))  # type: ignore[arg-type]
    not_served = entry.get("not_served", 0)
    if not isinstance(not_served, int) or isinstance(not_served, bool) or not_served < 0:
        raise f.error("not_served", f"expected a count, got {describe(not_served)}")
    return SeriesShown(ident, vintage, tuple(rows), not_served)


def parse_calls(records: Iterable[Record], *, run: str) -> tuple[CallEvent, ...]:
    """Validate ``call`` records ``(where, object)`` of *run*, numbered 1, 2, 3, ... without gaps
    (an Inspect sample store holds these, with no ``start`` record)."""
    calls: list[CallEvent] = []
    for where, obj in records:
        if not isinstance(obj, Mapping):
            raise AnachronError(f"{where}: expected a call record, got {describe(obj)}")
        event = Fields(where, obj).text("event")
        if event != "call":
            raise Fields(where, obj).error("event", f"expected 'call', found {event!r}")
        calls.append(_call(where, obj, run, len(calls) + 1))
    return tuple(calls)


def parse_events(records: Iterable[Record], *, source: str = "events") -> EventLog:
    """Validate event records ``(where, object)`` into an :class:`EventLog`.

    The first record must be the ``start`` record of a known format; every
    later one a ``call`` of the same run, numbered 1, 2, 3, ... without gaps,
    or a ``protocol_error`` of the same run (kept in
    :attr:`EventLog.protocol_errors`, never a call).
    """
    header: Mapping[str, Any] = {}
    run: str | None = None
    fmt = FORMAT
    calls: list[CallEvent] = []
    refused: list[Mapping[str, Any]] = []
    for where, obj in records:
        f = Fields(where, obj)
        event = f.text("event")
        if run is None:
            if event != "start":
                raise AnachronError(f"{where}: the log must begin with a 'start' record, found {event!r}")
            fmt = obj.get("format")
            if fmt not in FORMATS:
                raise f.error("format", f"{fmt!r} is not one of {', '.join(map(repr, FORMATS))}")
            run = f.text("run")
            f.date("as_of")
            header = dict(obj)
        elif event == "start":
            raise AnachronError(f"{where}: a second run starts here; one log holds one run (one server per run)")
        elif event == "call":
            calls.append(_call(where, obj, run, len(calls) + 1, fmt))
        elif event == "protocol_error":
            if obj.get("run") != run:
                raise f.error("run", f"{obj.get('run')!r} is not this log's run {run!r}: one log holds one run")
            if not isinstance(obj.get("code"), int) or isinstance(obj.get("code"), bool):
                raise f.error("code", f"expected a JSON-RPC error code, got {describe(obj.get('code'))}")
            refused.append(dict(obj))
        else:
            raise f.error("event", f"unknown event {event!r}")
    return EventLog(source, header, tuple(calls), protocol_errors=tuple(refused))


def load_scored_events(path: str | os.PathLike[str]) -> EventLog:
    """:func:`load_events` for scoring: a log with no complete event record (an empty file) is refused.

    Scored, such a file would be a clean run that made no call; it is more
    likely the wrong file, or a server that never wrote.
    """
    log = load_events(path)
    if not log.header and not log.calls:
        torn = f" ({log.torn})" if log.torn else ""
        raise AnachronError(f"{path}: the log holds no complete event record{torn}", file=path)
    return log


def load_events(path: str | os.PathLike[str]) -> EventLog:
    """Read and validate an event log (JSON Lines).

    A torn last line (the server stopped mid-write) is left out and noted in
    :attr:`EventLog.torn`; the complete calls before it are read as usual.
    """
    records, torn = read_log_records(path)
    return replace(parse_events(records, source=str(path)), torn=torn)


# ---------------------------------------------------------------------------
# Pinning: the chain rule is written once, in anachron.core.chain (the model gateway's log uses the
# same one); it is re-exported here, where the launcher and ``anachron score RUNDIR`` read it for the
# lock's log.  Link *i* is ``SHA-256(link i-1 || line i)`` from :data:`CHAIN_START`, each line with
# its newline; a torn last line is chained without one.
