"""The event log of a time-locked tool server, and what is checked against it.

``anachron serve`` (the MCP adapter) appends one JSON object per line to its
event log (docs/mcp.md): a ``start`` record naming the run and its cutoff,
then one ``call`` record per tool call, in order.  This module owns that
format: the record builders the server writes with, the strict reader, the
conversion to the trace format (so the core metrics score a served run), and
the citation check of an answer against the log.

Two rules hold everywhere here:

- only what the agent was *shown* counts: a ``call`` record's ``returned``
  list.  Items the server withheld never reached the agent, so they are
  neither scored as surfaced nor accepted as citations;
- one log is one run: a second ``start`` record, a ``call`` of another run
  or a gap in the sequence numbers is an error, never silently merged.

Standard library only; the readers are the only I/O.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from ._files import read_json, read_jsonl
from .corpus import Corpus, Record, _Fields, _json_type
from .dates import format_date, parse_date
from .errors import AnachronError

__all__ = [
    "FORMAT",
    "STATUSES",
    "WITHHELD_REASONS",
    "Seen",
    "Withheld",
    "CallEvent",
    "EventLog",
    "start_record",
    "call_record",
    "parse_events",
    "load_events",
    "events_trace",
    "Citation",
    "CitationCheck",
    "parse_answer",
    "load_answer",
    "verify_citations",
]

FORMAT = "anachron-events/1"

# ok: the call ran and its results (possibly none) were shown;
# rejected: refused before any retrieval (bad arguments, budget exhausted);
# error: accepted, but retrieval failed (the agent was shown an error).
STATUSES = ("ok", "rejected", "error")

# Why an item was withheld from the agent by the server's second filter.
WITHHELD_REASONS = ("after-cutoff", "undated", "unparseable-date", "no-id")


@dataclass(frozen=True)
class Seen:
    """An item the agent was shown.  ``published`` is ``None`` only for an
    undated item let through by ``--allow-undated``; ``undated`` then says why."""

    id: str
    title: str
    published: _dt.date | None
    undated: str | None = None


@dataclass(frozen=True)
class Withheld:
    """An item the backend returned that the server did not show.

    ``published`` is the backend's date text as given (it may not parse).
    """

    id: str | None
    published: str | None
    reason: str


@dataclass(frozen=True)
class CallEvent:
    where: str  # "file:line" of the record
    seq: int
    tool: str
    arguments: Mapping[str, Any]
    status: str
    returned: tuple[Seen, ...]
    withheld: tuple[Withheld, ...]

    @property
    def query(self) -> str | None:
        """The search query, the only argument that can name a period; ``None`` for other tools."""
        query = self.arguments.get("query")
        return query if self.tool == "search" and isinstance(query, str) else None


@dataclass(frozen=True)
class EventLog:
    """A parsed event log.  An empty file is a run that made no call:
    ``header`` is empty and ``as_of`` is ``None``."""

    source: str
    header: Mapping[str, Any]
    calls: tuple[CallEvent, ...]

    @property
    def as_of(self) -> _dt.date | None:
        value = self.header.get("as_of")
        return parse_date(value) if value is not None else None

    @property
    def run(self) -> str | None:
        return self.header.get("run")

    @property
    def undated_shown(self) -> int:
        """Undated items shown to the agent (only under ``--allow-undated``)."""
        return sum(1 for call in self.calls for seen in call.returned if seen.published is None)


# ---------------------------------------------------------------------------
# Writing: the server builds every record here, so the format has one owner.


def start_record(
    *,
    run: str,
    time: str,
    as_of: _dt.date,
    backend: str,
    source: str,
    k: int,
    allow_undated: bool,
    limits: Mapping[str, int | None],
    server: str,
) -> dict[str, Any]:
    """The first record of a log."""
    return {
        "event": "start",
        "format": FORMAT,
        "run": run,
        "time": time,
        "as_of": format_date(as_of),
        "backend": backend,
        "source": source,
        "k": k,
        "allow_undated": allow_undated,
        "limits": dict(limits),
        "server": server,
    }


def _seen_dict(seen: Seen) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": seen.id,
        "title": seen.title,
        "published": format_date(seen.published) if seen.published is not None else None,
    }
    if seen.published is None:
        entry["undated"] = seen.undated or "no date"
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
) -> dict[str, Any]:
    """One tool call: what was asked, what was shown, what was withheld and why."""
    if status not in STATUSES:
        raise ValueError(f"unknown status {status!r}")
    return {
        "event": "call",
        "run": run,
        "seq": seq,
        "time": time,
        "tool": tool,
        "arguments": arguments,
        "status": status,
        "error": error,
        "returned": [_seen_dict(seen) for seen in returned],
        "withheld": [{"id": w.id, "published": w.published, "reason": w.reason} for w in withheld],
        "withheld_count": len(withheld),
        "budget": dict(budget),
    }


# ---------------------------------------------------------------------------
# Reading.


def _seen(where: str, entry: Any) -> Seen:
    if not isinstance(entry, dict):
        raise AnachronError(f"{where}: expected an object, got {_json_type(entry)}")
    f = _Fields(where, entry)
    ident = f.text("id")
    title = entry.get("title", "")
    if not isinstance(title, str):
        raise f.error("title", f"expected a string, got {_json_type(title)}")
    if "published" not in entry:
        raise AnachronError(f"{where}: missing field 'published'")
    published = f.date("published", nullable=True)
    undated = entry.get("undated")
    if published is None and not (isinstance(undated, str) and undated):
        raise f.error("undated", "an item shown without a date must say why (a non-empty string)")
    return Seen(ident, title, published, undated if published is None else None)


def _withheld(where: str, entry: Any) -> Withheld:
    if not isinstance(entry, dict):
        raise AnachronError(f"{where}: expected an object, got {_json_type(entry)}")
    f = _Fields(where, entry)
    reason = f.text("reason")
    if reason not in WITHHELD_REASONS:
        raise f.error("reason", f"{reason!r} is not one of {', '.join(WITHHELD_REASONS)}")
    ident = entry.get("id")
    if ident is None and reason != "no-id":
        raise AnachronError(f"{where}: missing field 'id'")
    if ident is not None and (not isinstance(ident, str) or not ident):
        raise f.error("id", f"expected a non-empty string, got {_json_type(ident)}")
    published = entry.get("published")
    if published is not None and not isinstance(published, str):
        raise f.error("published", f"expected a string or null, got {_json_type(published)}")
    return Withheld(ident, published, reason)


def _list(f: _Fields, name: str) -> list[Any]:
    value = f.obj.get(name)
    if not isinstance(value, list):
        if name not in f.obj:
            raise AnachronError(f"{f.where}: missing field '{name}'")
        raise f.error(name, f"expected a list, got {_json_type(value)}")
    return value


def _call(where: str, obj: Mapping[str, Any], run: str, expected_seq: int) -> CallEvent:
    f = _Fields(where, obj)
    if obj.get("run") != run:
        raise f.error("run", f"{obj.get('run')!r} is not this log's run {run!r}: one log holds one run")
    seq = obj.get("seq")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise f.error("seq", f"expected an integer, got {_json_type(seq)}")
    if seq != expected_seq:
        raise f.error("seq", f"{seq}, expected {expected_seq}: a record is missing or out of order")
    tool = f.text("tool")
    arguments = obj.get("arguments")
    if arguments is None:  # a client may send no arguments at all (the call is then rejected)
        arguments = {}
    if not isinstance(arguments, dict):
        raise f.error("arguments", f"expected an object or null, got {_json_type(arguments)}")
    status = f.text("status")
    if status not in STATUSES:
        raise f.error("status", f"{status!r} is not one of {', '.join(STATUSES)}")
    returned = tuple(_seen(f"{where} returned[{i}]", e) for i, e in enumerate(_list(f, "returned")))
    withheld = tuple(_withheld(f"{where} withheld[{i}]", e) for i, e in enumerate(_list(f, "withheld")))
    if status != "ok" and returned:
        raise f.error("returned", f"a call with status {status!r} cannot have shown results")
    if obj.get("withheld_count") != len(withheld):
        raise f.error("withheld_count", f"{obj.get('withheld_count')!r} does not count the {len(withheld)} withheld item(s)")
    return CallEvent(where, seq, tool, arguments, status, returned, withheld)


def parse_events(records: Iterable[Record], *, source: str = "events") -> EventLog:
    """Validate event records ``(where, object)`` into an :class:`EventLog`.

    The first record must be the ``start`` record of a known format; every
    later one a ``call`` of the same run, numbered 1, 2, 3, ... without gaps.
    """
    header: Mapping[str, Any] = {}
    run: str | None = None
    calls: list[CallEvent] = []
    for where, obj in records:
        f = _Fields(where, obj)
        event = f.text("event")
        if run is None:
            if event != "start":
                raise AnachronError(f"{where}: the log must begin with a 'start' record, found {event!r}")
            fmt = obj.get("format")
            if fmt != FORMAT:
                raise f.error("format", f"{fmt!r} is not {FORMAT!r}")
            run = f.text("run")
            f.date("as_of")
            header = dict(obj)
        elif event == "start":
            raise AnachronError(f"{where}: a second run starts here; one log holds one run (one server per run)")
        elif event == "call":
            calls.append(_call(where, obj, run, len(calls) + 1))
        else:
            raise f.error("event", f"unknown event {event!r}")
    return EventLog(source, header, tuple(calls))


def load_events(path: str | os.PathLike[str]) -> EventLog:
    """Read and validate an event log (JSON Lines)."""
    return parse_events(((f"{path}:{line}", obj) for line, obj in read_jsonl(path)), source=str(path))


# ---------------------------------------------------------------------------
# Scoring a served run: the event log as a trace.


def events_trace(log: EventLog, corpus: Corpus, *, sample_id: str, as_of: _dt.date, mode: str = "mcp") -> dict[str, Any]:
    """The trace record (docs/formats.md) of one served run, for :func:`parse_traces`.

    Each ``ok`` call is one interaction; ``rejected`` and ``error`` calls
    retrieved nothing and are not interactions.  A shown item that is a
    corpus item is referenced by id (so its entities and restatement link
    are scored); any other (a URL from an upstream) is inline
    ``{"id", "publish_date"}``.  Withheld items were never shown and are not
    returned; undated items cannot be judged against a date and are left out
    (:attr:`EventLog.undated_shown` counts them).  A search query is kept for
    the query-intent check; other tools have none.
    """
    interactions = []
    for call in log.calls:
        if call.status != "ok":
            continue
        returned: list[Any] = []
        for seen in call.returned:
            if seen.published is None:
                continue
            item = corpus.items.get(seen.id)
            if item is None:
                returned.append({"id": seen.id, "publish_date": format_date(seen.published)})
                continue
            if item.publish_date != seen.published:
                raise AnachronError(
                    f"{call.where}: item '{seen.id}' is dated {seen.published} in the log but "
                    f"{item.publish_date} in the corpus {corpus.source}: score with the corpus the server used"
                )
            returned.append(seen.id)
        interactions.append({"tool": call.tool, "query": call.query, "returned": returned})
    return {"sample_id": sample_id, "as_of": format_date(as_of), "mode": mode, "interactions": interactions}


# ---------------------------------------------------------------------------
# Citations.


@dataclass(frozen=True)
class Citation:
    ref: str  # an item id or a URL, exactly as cited
    where: str


@dataclass(frozen=True)
class CitationCheck:
    citation: Citation
    ok: bool
    reason: str


def parse_answer(obj: Any, where: str) -> tuple[Citation, ...]:
    """The citations of an answer object ``{"citations": [...], ...}``.

    A citation is a string (an id or a URL) or an object with ``url`` or
    ``id`` (``url`` wins when both are present); other fields are free.
    """
    if not isinstance(obj, dict):
        raise AnachronError(f"{where}: expected a JSON object with a 'citations' list, got {_json_type(obj)}")
    if "citations" not in obj:
        raise AnachronError(f"{where}: missing field 'citations'")
    entries = obj["citations"]
    if not isinstance(entries, list):
        raise AnachronError(f"{where}: field 'citations': expected a list, got {_json_type(entries)}")
    citations = []
    for index, entry in enumerate(entries):
        at = f"{where} citations[{index}]"
        if isinstance(entry, dict):
            key = "url" if "url" in entry else "id"
            if key not in entry:
                raise AnachronError(f"{at}: a citation object needs 'url' or 'id'")
            entry = entry[key]
        if not isinstance(entry, str) or not entry.strip():
            raise AnachronError(f"{at}: expected an id or URL string, got {_json_type(entry)}")
        citations.append(Citation(entry.strip(), at))
    return tuple(citations)


def load_answer(path: str | os.PathLike[str]) -> tuple[Citation, ...]:
    """Read ANSWER.json and return its citations."""
    return parse_answer(read_json(path), str(path))


def verify_citations(
    citations: Iterable[Citation], log: EventLog, *, cutoff: _dt.date | None = None
) -> list[CitationCheck]:
    """Check each citation against the run's own tool results.

    A citation passes when its id or URL (compared exactly: no URL
    normalisation, which could merge distinct documents) was *shown* by an
    ``ok`` call of this log with a date on or before *cutoff* (default: the
    log's as-of).  It fails when it was never shown (withheld items say so),
    when it was shown only undated, or only dated after the cutoff.
    """
    cutoff = cutoff if cutoff is not None else log.as_of
    shown: dict[str, list[tuple[int, Seen]]] = {}
    withheld: dict[str, list[tuple[int, Withheld]]] = {}
    for call in log.calls:
        if call.status == "ok":
            for seen in call.returned:
                shown.setdefault(seen.id, []).append((call.seq, seen))
        for w in call.withheld:
            if w.id is not None:
                withheld.setdefault(w.id, []).append((call.seq, w))
    return [_check(c, shown.get(c.ref, []), withheld.get(c.ref, []), cutoff) for c in citations]


def _check(
    citation: Citation, shown: list[tuple[int, Seen]], withheld: list[tuple[int, Withheld]], cutoff: _dt.date | None
) -> CitationCheck:
    if not shown:
        if withheld:
            seq, w = withheld[0]
            return CitationCheck(citation, False, f"withheld by the server ({w.reason}, call {seq}), never shown to the agent")
        return CitationCheck(citation, False, "never returned by a tool in this run")
    dated = [(seq, s) for seq, s in shown if s.published is not None]
    if not dated:
        seq, s = shown[0]
        return CitationCheck(citation, False, f"returned undated by call {seq} ({s.undated}): cannot be placed on or before the cutoff")
    for seq, s in dated:
        if cutoff is not None and s.published <= cutoff:  # type: ignore[operator]
            return CitationCheck(citation, True, f"returned by call {seq}, dated {s.published}")
    seq, s = dated[0]
    return CitationCheck(citation, False, f"returned by call {seq} but dated {s.published}, after the cutoff {cutoff}")
