"""Citation verification: is every source an answer cites one its own run was shown?

A citation passes when the id or URL it names (compared exactly: no URL
normalisation, which could merge distinct documents) was *shown* by an
``ok`` call of the run, dated on or before the cutoff.  Withheld items never
reached the agent and are never accepted.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass
from typing import Any, Iterable

from anachron.core.dates import known_at
from anachron.core.trace import ReturnedItem, Trace
from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import read_json
from anachron.timelock.events import EventLog, Seen, Withheld

__all__ = ["Citation", "CitationCheck", "parse_answer", "load_answer", "verify_citations", "verify_trace_citations"]

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
        raise AnachronError(f"{where}: expected a JSON object with a 'citations' list, got {describe(obj)}")
    if "citations" not in obj:
        raise AnachronError(f"{where}: missing field 'citations'")
    entries = obj["citations"]
    if not isinstance(entries, list):
        raise AnachronError(f"{where}: field 'citations': expected a list, got {describe(entries)}")
    citations = []
    for index, entry in enumerate(entries):
        at = f"{where} citations[{index}]"
        if isinstance(entry, dict):
            key = "url" if "url" in entry else "id"
            if key not in entry:
                raise AnachronError(f"{at}: a citation object needs 'url' or 'id'")
            entry = entry[key]
        if not isinstance(entry, str) or not entry.strip():
            raise AnachronError(f"{at}: expected an id or URL string, got {describe(entry)}")
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
        if cutoff is not None and known_at(s.published, cutoff):  # type: ignore[arg-type]
            return CitationCheck(citation, True, f"returned by call {seq}, dated {s.published}")
    seq, s = dated[0]
    return CitationCheck(citation, False, f"returned by call {seq} but dated {s.published}, after the cutoff {cutoff}")


def verify_trace_citations(trace: Trace) -> list[CitationCheck]:
    """Check each citation of a trace (an imported run's ``citations``) against its own calls.

    The rule of :func:`verify_citations`, on the trace's resolved items: a
    citation passes when an ``ok`` call returned an item of that id or URL
    (compared exactly) known at the trace's as-of (the core's dating: an
    open-web item dated by attribution, a corpus item by its date).  It fails
    when no call returned it (a call that only asked for it says so), when it
    was returned only undated or uncertain, or only dated after the cutoff.
    """
    shown: dict[str, list[tuple[int, ReturnedItem]]] = {}
    asked: dict[str, tuple[int, str]] = {}
    for number, interaction in enumerate(trace.interactions, start=1):
        for item in interaction.returned:
            shown.setdefault(item.id, []).append((number, item))
        if interaction.status != "ok" and interaction.target is not None:
            asked.setdefault(interaction.target.id, (number, interaction.status))
    where = f"sample {trace.sample_id}"
    return [
        _trace_check(Citation(ref, f"{where} citations[{index}]"), shown.get(ref, []), asked.get(ref), trace.as_of)
        for index, ref in enumerate(trace.citations)
    ]


def _trace_check(
    citation: Citation, shown: list[tuple[int, ReturnedItem]], asked: tuple[int, str] | None, cutoff: _dt.date
) -> CitationCheck:
    if not shown:
        if asked is not None:
            return CitationCheck(citation, False, f"asked for by call {asked[0]} ({asked[1]}), never shown to the agent")
        return CitationCheck(citation, False, "never returned by a tool in this run")
    statuses = [(number, item, item.status(cutoff)) for number, item in shown]
    for number, item, status in statuses:
        if status == "known":
            return CitationCheck(citation, True, f"returned by call {number}, dated {_day(item)}")
    late = [(number, item) for number, item, status in statuses if status == "leak"]
    if late:
        number, item = late[0]
        return CitationCheck(citation, False, f"returned by call {number} but dated {_day(item)}, after the cutoff {cutoff}")
    number, item, status = statuses[0]
    reason = "undated" if status == "undated" else f"dated {_day(item)}, a period containing the cutoff"
    return CitationCheck(citation, False, f"returned {reason} by call {number}: cannot be placed on or before the cutoff")


def _day(item: ReturnedItem) -> str:
    dating = item.dating
    if dating is None or dating.granularity == "day" or dating.first is None:
        return f"{item.publish_date}"
    return f"{dating.first:%Y-%m}" if dating.granularity == "month" else f"{dating.first.year}"
