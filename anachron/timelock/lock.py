"""The time lock: one implementation of ``search`` and ``fetch`` (and ``series``, given a series
source: :mod:`anachron.timelock.series`) as of a fixed date.

:class:`TimeLock` answers one tool call at a time, for every adapter (the
Inspect tools and the MCP server are thin wrappers over it).  The as-of date
is its constructor argument and appears in no argument a caller can pass, so
what an agent types cannot move the cutoff.  Each call goes through, in order:

1. the argument check: exactly one non-empty string argument of bounded
   length, nothing else (a smuggled ``as_of`` is refused) -> ``refused``;
2. the budget -> ``exhausted``;
3. the backend, with the as-of date passed server side -> ``error`` if it fails;
4. the re-check (:func:`recheck`) of every hit against the cutoff rule
   :func:`~anachron.core.dates.known_at`: in the enforced mode nothing that
   any of its date sources dates after T is shown, whatever the backend did; a fetch left with nothing to
   show is ``refused``, with the same answer for a post-T id as for an
   unknown one;
5. the journal: every call is recorded (:mod:`anachron.timelock.events`
   builds the record) before anything is shown.  A call that cannot be
   recorded shows nothing.

A refused call counts against the ``calls`` cap (refusals are not free); an
exhausted one costs nothing; a call that reached the backend costs one of
its tool's cap and one of ``calls``.  The backend is called outside the
mutex, so a slow upstream holds up no other session.
The statuses are the core's (:data:`anachron.core.trace.STATUSES`).
"""

from __future__ import annotations

import datetime as _dt
import threading
import uuid
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Protocol, Sequence

from anachron.core.search import check_mode
from anachron.core.attribution import DATE_FIELDS, Attribution, attribute, evidence_of
from anachron.core.dates import format_date
from anachron.core.errors import AnachronError
from anachron.core.validate import positive_int
from anachron.timelock.backends import Backend, Hit, UpstreamError
from anachron.timelock.events import Seen, Withheld, call_record, now, series_record, start_record
from anachron.timelock.render import DatePresentation, render, render_series, snippet
from anachron.timelock.series import SeriesAnswer, SeriesSource, check_series_id, select_at

__all__ = [
    "ARGUMENT",
    "MAX_ARGUMENT",
    "SERIES",
    "TOOLS",
    "Journal",
    "Limits",
    "Outcome",
    "Rechecked",
    "TimeLock",
    "check_arguments",
    "recheck",
]

TOOLS = ("search", "fetch")
# The log's word on an undated result of a publish-date filter: the filter had nothing to apply to it.
CLAIMED_UNDATED = "a `claimed` backend (a publish-date filter) returned it without a usable date: its filter cannot have applied"
SERIES = "series"  # the third tool, served only when the lock has a series source (anachron.timelock.series)
ARGUMENT = {"search": "query", "fetch": "id_or_url", SERIES: "id"}  # each tool's one argument
MAX_ARGUMENT = {"search": 1000, "fetch": 2048, SERIES: 64}  # characters
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
            if value is not None:
                positive_int(value, f"--max-{name}", minimum=0)

    def as_dict(self) -> dict[str, int | None]:
        return {"searches": self.searches, "fetches": self.fetches, "calls": self.calls}


@dataclass(frozen=True)
class Outcome:
    """What a tool call answers: text for the model, the same as data, and the call's record."""

    text: str
    structured: dict[str, Any]
    is_error: bool
    record: Mapping[str, Any]

    @property
    def status(self) -> str:
        return self.record.get("status", "error")


class Journal(Protocol):
    """Where the lock records its calls: an event log file, an Inspect sample store."""

    def write(self, header: Mapping[str, Any], record: Mapping[str, Any]) -> None:
        """Record one call; *header* is the run's start record (a journal may keep it once)."""


@dataclass(frozen=True)
class Rechecked:
    """The re-check's verdict on a backend's hits: ``shown[i]`` is the hit behind ``seen[i]``."""

    seen: tuple[Seen, ...] = ()
    withheld: tuple[Withheld, ...] = ()
    shown: tuple[Hit, ...] = ()


def recheck(
    hits: Sequence[Hit],
    as_of: _dt.date,
    *,
    mode: str = "enforced",
    allow_undated: bool = False,
    now: _dt.datetime | None = None,
) -> Rechecked:
    """The second filter: split *hits* into shown and withheld.

    A corpus hit carries its exact day; an upstream hit is dated by
    :func:`~anachron.core.attribution.attribute` (its date fields, URL,
    snippet, HTML metadata; *now*, the call's time, resolves "3 days ago").
    Withheld, always: no id or URL (``no-id``).  In the enforced mode an
    item is shown only if **no** source it carries dates it after *as_of*
    (:meth:`~anachron.core.attribution.Attribution.every_source_status`):
    withheld are an item any source dates after *as_of* (``after-cutoff``,
    with that source's day), one with a self-contradicting date, such as a
    wrong weekday (``contradictory-date``, even with *allow_undated*) and,
    unless *allow_undated*, one a source dates to a granule containing
    *as_of* (``uncertain``: fail closed), with no date (``undated``) or
    only unreadable ones (``unparseable-date``): the lock never guesses,
    and never picks the convenient date.  A date equal to *as_of* is not
    after it.  The unrestricted mode shows everything that has an id.
    Every record names the deciding source (``dated_by``) and every source
    with its value (``sources``).
    """
    seen: list[Seen] = []
    withheld: list[Withheld] = []
    shown: list[Hit] = []
    enforced = mode == "enforced"
    for hit in hits:
        tag = {"backend": hit.backend, "guarantee": hit.guarantee}  # recorded with the item, served or not
        if hit.id is None:
            withheld.append(Withheld(None, _raw(hit), "no-id", **tag))
            continue
        entry = _entry(hit)
        if entry is None:  # a corpus item: its exact day
            first = hit.dates[0]
            dating = Attribution(first, first, "day", None, None)
        else:
            dating = attribute(entry, now=now)
        status, decided = dating.every_source_status(as_of) if enforced else (dating.status(as_of), None)
        dated_by = decided.source if decided is not None else dating.source
        if enforced and status == "leak":
            day = decided.first if decided is not None else dating.first  # a corpus item has no sources
            withheld.append(Withheld(hit.id, format_date(day), "after-cutoff", dated_by, dating.sources, **tag))  # type: ignore[arg-type]
            continue
        if status == "contradictory":  # enforced only: the unrestricted mode judges by the first source
            withheld.append(Withheld(hit.id, _raw(hit) or evidence_of(dating), "contradictory-date", dated_by, dating.sources, **tag))
            continue
        if status in ("undated", "uncertain"):
            reason = "uncertain" if status == "uncertain" else "unparseable-date" if dating.problems else "undated"
            if enforced and not allow_undated:
                why = CLAIMED_UNDATED if reason in ("undated", "unparseable-date") and hit.guarantee == "claimed" else None
                withheld.append(Withheld(hit.id, _raw(hit) or evidence_of(dating), reason, dated_by, dating.sources, **tag, why=why))
                continue
        if dating.first is None:
            why = "; ".join(dating.problems[:2]) or "no date"
            seen.append(Seen(hit.id, hit.title, None, why[:200], dated_by=None, sources=dating.sources, **tag))
        else:
            seen.append(
                Seen(
                    hit.id, hit.title, dating.first, None, dating.granularity or "day", dating.source, dating.modified,
                    sources=dating.sources, **tag,
                )
            )
        shown.append(hit)
    return Rechecked(tuple(seen), tuple(withheld), tuple(shown))


def _entry(hit: Hit) -> Mapping[str, Any] | None:
    """What attribution reads of *hit*; ``None`` for an exact corpus day."""
    if hit.entry is not None:
        return hit.entry
    # One exact day is the corpus's own date; several are sources, each of which must be read (a hit is
    # served only if none dates it after T).
    if len(hit.dates) == 1 and isinstance(hit.dates[0], _dt.date) and not isinstance(hit.dates[0], _dt.datetime):
        return None
    # Bare date values: read as date fields, in attribution's field order.
    return {"url": hit.id, **{name: value for name, value in zip(DATE_FIELDS, hit.dates)}}


def _raw(hit: Hit) -> str | None:
    """The date values a hit came with, as given, for the log (cut at 200 characters)."""
    entry = _entry(hit) or {}
    values = [str(v) for k, v in entry.items() if k not in ("url", "id", "title", "text", "snippet")]
    return ", ".join(values)[:200] or None


def _short(value: Any) -> str:
    """A name as a refusal quotes it: its repr, cut at 40 characters (an agent's key may be a megabyte)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_arguments(tool: str, arguments: Any, tools: Sequence[str] = TOOLS) -> str | None:
    """Why the call's arguments are refused, or ``None``: exactly one string argument, nothing else
    (*tools*: those the lock serves; ``series`` only with a series source)."""
    if tool not in tools:
        return f"unknown tool {_short(tool)}: the tools are {', '.join(tools[:-1])} and {tools[-1]}"
    name = ARGUMENT[tool]
    if not isinstance(arguments, dict):
        return f"{tool} takes one argument, {name!r}"
    extra = sorted(set(arguments) - {name}, key=str)
    if extra:
        shown = ", ".join(_short(key) for key in extra[:5]) + (f" and {len(extra) - 5} more" if len(extra) > 5 else "")
        return f"unexpected argument(s) {shown}: {tool} takes only {name!r}"
    value = arguments.get(name)
    if not isinstance(value, str) or not value.strip():
        return f"{tool} needs {name!r}, a non-empty string"
    if len(value) > MAX_ARGUMENT[tool]:
        return f"{name!r} is longer than {MAX_ARGUMENT[tool]} characters"
    return None


@dataclass
class _Call:
    """One call in progress: what the journal records and the outcome renders."""

    tool: str
    arguments: Any
    status: str = "ok"
    error: str | None = None
    checked: Rechecked = field(default_factory=Rechecked)
    call_id: str | None = None
    series: SeriesAnswer | None = None  # what a series call served
    # One clock per call: the record's time and the "now" that resolves "3 days ago".
    moment: _dt.datetime = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc))


class TimeLock:
    """Serves ``search`` and ``fetch`` as of a fixed date, within budgets, recording every call.

    *resume* is the call records a journal already holds for this run (an
    Inspect sample's store): numbering and budgets go on from the last one.
    Admission (checks and budget) and recording are serialised (one mutex),
    so budgets and sequence numbers stay exact whatever the transport's
    concurrency; retrieval runs outside it.
    """

    def __init__(
        self,
        backend: Backend,
        as_of: _dt.date,
        journal: Journal,
        *,
        mode: str = "enforced",
        limits: Limits = Limits(),
        k: int = 5,
        presentation: "str | DatePresentation" = "visible",
        allow_undated: bool = False,
        server: str = "anachron",
        run: str | None = None,
        resume: Sequence[Mapping[str, Any]] = (),
        series: SeriesSource | None = None,
    ) -> None:
        check_mode(mode)
        if not isinstance(as_of, _dt.date) or isinstance(as_of, _dt.datetime):
            raise AnachronError(f"as_of: expected a date, got {as_of!r}")
        self.backend = backend
        # Point-in-time series (anachron.timelock.series): a third tool, only when a source is given.
        self.series = series
        self.tools = TOOLS + (SERIES,) if series is not None else TOOLS
        self.as_of = as_of
        self.journal = journal
        self.mode = mode
        self.limits = limits
        self.k = positive_int(k, "-k")
        self.presentation = DatePresentation.parse(presentation)
        self.allow_undated = bool(allow_undated)
        self.ranking = getattr(backend, "ranking", None)  # a local corpus's (anachron.store.ranking), recorded
        self.used = {"searches": 0, "fetches": 0, "calls": 0}
        self._seq = 0
        if resume:
            last = resume[-1]
            self._seq = int(last["seq"])
            self.used = {name: int(last["budget"][name]["used"]) for name in self.used}
        self._mutex = threading.Lock()
        self.header = start_record(
            run=run or uuid.uuid4().hex,
            time=now(),
            as_of=as_of,
            mode=mode,
            backend=backend.kind,
            source=backend.source,
            k=self.k,
            allow_undated=self.allow_undated,
            limits=limits.as_dict(),
            date_presentation=str(self.presentation),
            server=server,
            ranking=self.ranking,
            series=None if series is None else f"{series.kind} {series.source}",
        )

    # -- budget ---------------------------------------------------------------

    def budget(self) -> dict[str, dict[str, int | None]]:
        out = {}
        for name, limit in self.limits.as_dict().items():
            used = self.used[name]
            out[name] = {"used": used, "limit": limit, "remaining": None if limit is None else limit - used}
        return out

    # -- calls ----------------------------------------------------------------

    def call(self, tool: str, arguments: Any, *, refused: str | None = None, call_id: str | None = None) -> Outcome:
        """Answer one tool call; never raises for anything the agent or the backend sent.

        *refused* records a call that an adapter refused before the lock saw
        it (Inspect checks arguments against the schema first), with the
        adapter's reason: it is logged and budgeted like any refusal.
        *call_id*, the adapter's id of the call, is kept in the record.
        """
        call = _Call(tool, arguments, call_id=call_id)
        with self._mutex:
            self._admit(call, refused)
        if call.status == "ok":
            # Outside the mutex: a slow upstream holds up no other session's calls.
            self._retrieve(call)
        with self._mutex:
            return self._finish(call)

    def _admit(self, call: _Call, refused: str | None) -> None:
        """Check the call and reserve its budget (under the mutex)."""
        limit = self.limits.calls
        if limit is not None and self.used["calls"] >= limit:
            call.status, call.error = "exhausted", self._spent("calls", limit, call.tool)
            return
        problem = refused or check_arguments(call.tool, call.arguments, self.tools)
        if problem is not None:
            # A refusal retrieves nothing but counts against --max-calls: refusals are not free.
            self.used["calls"] += 1
            call.status, call.error = "refused", problem
            return
        name = _BUDGET_KEY.get(call.tool)  # a series call has no cap of its own: only --max-calls
        limit = getattr(self.limits, name) if name is not None else None
        if limit is not None and self.used[name] >= limit:
            call.status, call.error = "exhausted", self._spent(name, limit, call.tool)
            return
        if name is not None:
            self.used[name] += 1
        self.used["calls"] += 1

    def _spent(self, name: str, limit: int, tool: str) -> str:
        what = f"{tool} calls" if tool in self.tools else "calls"
        return f"{name} budget exhausted ({self.used[name]} of {limit} used): no more {what} in this run"

    def _retrieve(self, call: _Call) -> None:
        value = call.arguments[ARGUMENT[call.tool]].strip()
        if call.tool == SERIES:
            return self._series(call, value)
        options = {"as_of": self.as_of, "mode": self.mode}
        try:
            # A backend may return more than asked: only the first k (one for fetch) are considered.
            if call.tool == "search":
                hits = self.backend.search(value, k=self.k, **options)[: self.k]
            else:
                hits = self.backend.fetch(value, **options)[:1]
        except UpstreamError as exc:
            call.status, call.error = "error", str(exc)
            return
        except Exception as exc:  # a backend bug is the backend's error, never a crash of the lock
            call.status, call.error = "error", f"backend failed: {type(exc).__name__}"
            return
        if call.tool == "fetch" and hits and hits[0].id is not None and hits[0].id != value:
            # A backend answering another document than the one asked for is not trusted with it.
            call.status, call.error = "error", f"the backend answered {hits[0].id!r} for {value!r}"
            return
        checked = recheck(hits, self.as_of, mode=self.mode, allow_undated=self.allow_undated, now=call.moment)
        # The record keeps what the agent read of each item, so content is scored from the log too.
        read = [hit.text if call.tool == "fetch" else snippet(hit.text) for hit in checked.shown]
        call.checked = replace(checked, seen=tuple(replace(s, text=t) for s, t in zip(checked.seen, read)))
        if call.tool == "fetch" and not call.checked.seen:
            call.status, call.error = "refused", f"No document {value!r} is available."

    def _series(self, call: _Call, value: str) -> None:
        """A series as known at T (:func:`~anachron.timelock.series.select_at`): the source's rows re-checked
        whatever it was asked; an unknown series and one with nothing known at T get the same refusal."""
        assert self.series is not None
        try:
            ident = check_series_id(value)
        except AnachronError as exc:
            call.status, call.error = "refused", str(exc)
            return
        try:
            rows = self.series.rows(ident, as_of=self.as_of, mode=self.mode)
            answer = None if rows is None else select_at(rows, self.as_of, self.mode)
        except UpstreamError as exc:
            call.status, call.error = "error", str(exc)
            return
        except Exception as exc:  # a source's bug is its error, never a crash of the lock
            call.status, call.error = "error", f"series source failed: {type(exc).__name__}"
            return
        if answer is None or not answer.observations:
            call.status, call.error = "refused", f"No series {ident!r} is available."
            return
        call.series = answer

    def _finish(self, call: _Call) -> Outcome:
        """Record the call, then say what it answers (under the mutex: sequence numbers stay gapless)."""
        self._seq += 1
        budget = self.budget()
        record = call_record(
            run=self.header["run"],
            seq=self._seq,
            time=call.moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            tool=call.tool,
            arguments=call.arguments,
            status=call.status,
            error=call.error,
            returned=call.checked.seen,
            withheld=call.checked.withheld,
            budget=budget,
            call_id=call.call_id,
            ranking=self.ranking if call.tool == "search" and call.status == "ok" else None,
            series=series_record(call.series) if call.series is not None else None,
        )
        try:
            self.journal.write(self.header, record)
        except Exception as exc:  # a full disk, a closed log
            # Nothing unrecorded is ever shown, and the number goes to the next call that is recorded.
            self._seq -= 1
            message = str(exc) if isinstance(exc, AnachronError) else f"cannot write the event log: {type(exc).__name__}: {exc}"
            text = f"{call.tool if call.tool in self.tools else 'call'}: error: {message}. This call could not be logged, so nothing is shown."
            return Outcome(text, {"results": [], "budget": budget, "error": message}, True, record)
        tool = call.tool if call.tool in self.tools else "call"
        argument = call.arguments.get(ARGUMENT[tool], "") if tool in TOOLS and isinstance(call.arguments, dict) else ""
        if call.status != "ok":
            text = render(tool, self._seq, "", (), budget, error=call.error)
            return Outcome(text, {"results": [], "budget": budget, "error": call.error}, True, record)
        if call.series is not None:
            show = self.presentation.show
            text = render_series(self._seq, call.series, self.presentation, budget)
            structured = {"series": {"id": call.series.id, "vintage": show(call.series.vintage), "observations": [
                {"date": format_date(row.date), "value": row.value, "published": show(row.realtime_start)}
                for row in call.series.observations]}, "budget": budget}
            return Outcome(text, structured, False, record)
        results = [self._result(seen, hit, full=call.tool == "fetch") for seen, hit in zip(call.checked.seen, call.checked.shown)]
        text = render(tool, self._seq, argument.strip(), results, budget)
        return Outcome(text, {"results": results, "budget": budget}, False, record)

    def _result(self, seen: Seen, hit: Hit, *, full: bool) -> dict[str, Any]:
        result = {
            "id": seen.id,
            "title": seen.title,
            "published": self.presentation.show(seen.published),
            "text": hit.text if full else snippet(hit.text),
        }
        if seen.published is None and self.presentation.kind != "hidden":
            result["undated"] = True  # shown as "date: unknown": the agent is told it has no date
        return result
