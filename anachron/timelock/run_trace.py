"""A served run's event log as the core reads it: a trace to score, and the lock's record for the seal audit.

- :func:`calls_trace`: recorded calls as one trace record (docs/formats.md), for
  :func:`~anachron.core.parse_traces`;
- :func:`events_trace`: :func:`calls_trace` of an :class:`~anachron.timelock.events.EventLog`,
  its torn last line a warning;
- :func:`lock_run`: an event log as :class:`~anachron.core.seal.LockRun`, for the seal audit.

Only what the agent was *shown* counts: a call's ``returned`` items.  Items
the lock withheld never reached the agent and are never scored as surfaced
(a withheld post-T fetch is the call's ``target``, a blocked attempt).
Every adapter's calls go through :func:`calls_trace`, so one run scores the
same through every adapter.

Standard library only; no I/O (the log is read by
:func:`anachron.timelock.events.load_events`).
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Iterable, Mapping

from anachron.core import Corpus
from anachron.core.attribution import DATE_FIELDS, attribute
from anachron.core.dates import format_date
from anachron.core.errors import AnachronError
from anachron.core.seal import LockCall, LockRun
from anachron.timelock.events import CallEvent, EventLog, Seen

__all__ = ["calls_trace", "events_trace", "lock_run"]


def _with_sources(seen: Seen, shown: Mapping[str, Any]) -> dict[str, Any] | None:
    """*shown* carrying the date sources the lock read of *seen*, as the trace gives them to attribution:
    a ``field 'NAME'`` source as field ``NAME``, the URL path and a leading snippet date as they are
    (the id is the URL; the snippet is ``text``).  ``None`` when attribution does not read back the
    same sources, in the same order, dating the item the same day: an HTML source (the page is not
    in the log), a relative age (no clock here), a URL other than the id.

    >>> import datetime as dt
    >>> from anachron.core.attribution import SourceDate
    >>> seen = Seen("https://x.com/2023/03/02/y", "t", dt.date(2022, 5, 1), sources=(
    ...     SourceDate("field 'published'", "2022-05-01", dt.date(2022, 5, 1), dt.date(2022, 5, 1), "day"),
    ...     SourceDate("url", "/2023/03/02", dt.date(2023, 3, 2), dt.date(2023, 3, 2), "day")))
    >>> _with_sources(seen, {"id": seen.id, "title": "t"})
    {'id': 'https://x.com/2023/03/02/y', 'title': 't', 'published': '2022-05-01'}
    """
    entry = dict(shown)
    for source in seen.sources:
        name = source.source[len("field '"):-1] if source.source.startswith("field '") else None
        if name in DATE_FIELDS and name not in entry:
            entry[name] = source.value
        elif name is not None:
            return None
    dating = attribute(entry)
    same = [(s.source, s.value, s.first) for s in dating.sources] == [(s.source, s.value, s.first) for s in seen.sources]
    return entry if same and dating.first == seen.published else None


def _observations(call: CallEvent) -> list[dict[str, Any]]:
    """A series call's values as trace items (docs/formats.md): each dated by the day it was first
    published (``realtime_start``), so a value revised after T is scored as a restatement leak."""
    assert call.series is not None
    return [
        {"id": f"{call.series.id}@{format_date(row.date)}", "series": call.series.id, "observation_date": format_date(row.date),
         "value": row.value, "realtime_start": format_date(row.realtime_start)}
        for row in call.series.observations
    ]


def _interaction(call: CallEvent, corpus: Corpus, corpus_backed: bool, lost: list[str]) -> dict[str, Any]:
    if call.series is not None:
        return {"tool": call.tool, "query": None, "status": call.status, "returned": _observations(call)}
    returned: list[Any] = []
    for seen in call.returned:
        shown: dict[str, Any] = {"id": seen.id, "title": seen.title}
        if seen.text:
            shown["snippet"] = seen.text  # what the agent read: its content is checked too
        if seen.modified is not None:
            shown["dateModified"] = format_date(seen.modified)  # so a revision risk is scored from the log too
        if seen.published is None:
            returned.append(shown)  # undated: it counts in TCLR's band
            continue
        if seen.sources and not corpus_backed and seen.id not in corpus.items:
            # An upstream item: every source it carried, so a conflict across T is scored from the log too.
            entry = _with_sources(seen, shown)
            if entry is not None:
                returned.append(entry)
                continue
            if len(seen.sources) > 1:  # its sources may disagree: say so, never a silent "no conflict"
                lost.append(seen.id)
        if seen.granularity != "day":  # a month or year: the core dates the granule as the lock did
            shown["date"] = f"{seen.published:%Y-%m}" if seen.granularity == "month" else f"{seen.published.year}"
            returned.append(shown)
            continue
        item = corpus.items.get(seen.id)
        if item is None and corpus_backed:
            returned.append(seen.id)  # served from a corpus: scoring with another one is an error, never a guess
            continue
        if item is None:
            returned.append({**shown, "publish_date": format_date(seen.published)})
            continue
        if item.publish_date != seen.published:
            raise AnachronError(
                f"{call.where}: item '{seen.id}' is dated {seen.published} in the log but "
                f"{item.publish_date} in the corpus {corpus.source}: score with the corpus the server used"
            )
        returned.append(seen.id)
    entry: dict[str, Any] = {"tool": call.tool, "query": call.query, "status": call.status, "returned": returned}
    if call.status == "unrecorded":  # nothing is known of what it showed: no 'returned' at all
        del entry["returned"]
    if call.target is not None:
        entry["target"] = call.target
    return entry


def calls_trace(
    calls: Iterable[CallEvent],
    corpus: Corpus,
    *,
    sample_id: str,
    as_of: _dt.date,
    mode: str | None,
    corpus_backed: bool = False,
) -> dict[str, Any]:
    """The trace record (docs/formats.md) of one run's recorded calls, for
    :func:`~anachron.core.parse_traces`.

    Every call is one trace interaction with its status; the core decides
    what counts.  A shown corpus item is referenced by id (so its entities
    and restatement link are scored), any other (a URL from an upstream) is
    inline ``{"id", "publish_date"}``.  Withheld items were never shown and
    are not returned (a withheld post-T fetch is the call's ``target``).
    A search query is kept for the query-intent check; other tools have none.
    With *corpus_backed* (the lock served a corpus) every shown item must be
    in *corpus*: scoring with another corpus is an error.
    """
    lost: list[str] = []
    interactions = [_interaction(call, corpus, corpus_backed, lost) for call in calls]
    record = {"sample_id": sample_id, "as_of": format_date(as_of), "mode": mode, "interactions": interactions}
    if lost:
        record["warnings"] = [
            f"{len(lost)} shown item(s) carried date sources the trace cannot restate (first: {lost[0][:200]}); "
            "they are scored by the date the lock chose, and a conflict among their sources is not counted "
            "(score the harness's own log to see them)"
        ]
    return record


def events_trace(
    log: EventLog, corpus: Corpus, *, sample_id: str, as_of: _dt.date, mode: str | None = None
) -> dict[str, Any]:
    """:func:`calls_trace` of a served run; *mode* defaults to the mode the server ran in.  A torn
    last line (:attr:`EventLog.torn`) becomes a trace warning: the call it held is not scored."""
    record = calls_trace(
        log.calls,
        corpus,
        sample_id=sample_id,
        as_of=as_of,
        mode=mode or log.header.get("mode", "enforced"),
        corpus_backed=log.header.get("backend") == "corpus",
    )
    if log.torn:  # said in the run's figures, not only on stderr
        record["warnings"] = [*record.get("warnings", ()), f"{log.torn}; a call it held is not scored (let the server finish its run)"]
    return record


def lock_run(log: EventLog) -> LockRun:
    """The lock's own record of a run, for the seal audit (:mod:`anachron.core.seal`): its run id,
    cutoff, mode and budget from the start record, and each call's tool, arguments and status.

    An empty log (a run with no call) vouches for no call; a start record without a mode is read
    as serve's default, ``enforced`` (the /1 logs wrote it always).
    """
    return LockRun(
        source=log.source,
        run=log.run,
        as_of=log.as_of,
        mode=log.header.get("mode", "enforced") if log.header else None,
        limits=dict(log.header.get("limits") or {}),
        calls=tuple(LockCall(call.seq, call.tool, call.arguments, call.status) for call in log.calls),
    )
