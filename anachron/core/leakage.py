"""The leakage metrics, per sample and per run (definitions: docs/metrics.md).

For a sample answered as of T, each tool call (an :class:`Interaction`) is
judged by the rule of its ``status``:

- an ``ok`` call is one **interaction**, the denominator of every rate.  It
  *leaks a result* when it returned an item not :func:`known_at` T
  (``publish_date > T``; ``publish_date == T`` does not leak);
  ``TCLR = leaking interactions / interactions``, 0 without any.  It *leaks
  survivorship* when it returned an item naming an entity not point-in-time
  valid at T (rate over the interactions that returned an entity-bearing
  item), and *leaks a restatement* when a returned post-T item has
  ``restates`` set (a labelled subset of result leaks);
- a ``refused``, ``exhausted`` or ``error`` call returned nothing to the
  agent: it is a **failed call**, counted by status, never an interaction.
  A refused call whose target is a known item dated after T is a
  **blocked attempt**: the agent reached for the future and a lock stopped
  it.  Reported apart, never folded into TCLR;
- an ``unrecorded`` call (the log shows the call, not its result) may have
  shown anything: it widens TCLR's band, counted clean in ``tclr_low`` and
  leaking in ``tclr_high``, over interactions plus unrecorded calls, and
  the run carries a warning that its figures are a band, not a value;
- a local call (``retrieval: false``: a file read, an edit) retrieved
  nothing: it is neither an interaction nor a failed call, and nothing is
  judged on it but the seal audit;
- every other call that carried a query, whatever its status, is judged for
  **query intent**: the query names a period that begins after T; and for
  an **open period**: it asks for the results of a period that contains T
  and ends after T (counted apart, never folded into TCLR);
- an ``ok`` call has a **date conflict** when a returned open-web item's
  sources disagree across T: one dates it on or before T, another after
  (:meth:`~anachron.core.attribution.Attribution.conflict`).  The item is
  still judged by its first source; the conflict is counted apart
  (``date_conflicts``), never folded into TCLR, with one line per item.

Counts are of calls; evidence has one line per finding, in fixed shapes
that users grep (docs/metrics.md lists them).  Means are computed with
exact fractions and rounded once, to a float.
"""

from __future__ import annotations

import datetime as _dt
import statistics
from dataclasses import dataclass, field
from fractions import Fraction
from typing import AbstractSet, Any, Iterable, Mapping, Sequence

from anachron.core.docs import doc_url
from anachron.core.frozen import maker
from anachron.core.answers import answer_leaks
from anachron.core.attribution import chrome_spans, conflict_evidence, without_chrome
from anachron.core.corpus import Corpus
from anachron.core.dates import known_at
from anachron.core.display import render_html
from anachron.core.query_intent import QUERY_SCAN_CHARS, DateReference, future_references, query_findings
from anachron.core.seal import audit, run_status, stored_status
from anachron.core.trace import STATUSES, Interaction, ReturnedItem, Trace

__all__ = [
    "FAILED_STATUSES",
    "HORIZON_BANDS",
    "Horizon",
    "Judgement",
    "RunSummary",
    "SampleResult",
    "horizon",
    "judge",
    "sample_slice",
    "score_trace",
    "score_traces",
    "run_warnings",
    "summarise",
]

# An unrecorded call is not failed: its result may have reached the agent, the log does not say.
FAILED_STATUSES = tuple(status for status in STATUSES if status not in ("ok", "unrecorded"))


def _no_failures() -> Mapping[str, int]:
    return {status: 0 for status in FAILED_STATUSES}


@dataclass(frozen=True)
class Judgement:
    """The findings on one call; every flag is False for what does not apply to its status."""

    interaction: bool  # an ok call: counts in every denominator
    result_leak: bool = False
    survivorship_leak: bool = False
    entity_bearing: bool = False
    restatement_leak: bool = False
    query_intent_leak: bool = False
    open_period: bool = False
    blocked_attempt: bool = False
    undated: bool = False  # returned an undated or uncertain item, and no leaking one
    content_leak: bool = False
    revision_risk: bool = False
    date_conflict: bool = False  # a returned item whose date sources disagree across T
    horizons: tuple[int, ...] = ()  # days from T to each post-T item it returned
    evidence: tuple[str, ...] = ()
    # Survivorship, split: an entity not yet listed at T (future information) or already delisted
    # (a stale universe).  A call showing both counts as not_yet_listed: the split partitions the total.
    not_yet_listed: bool = False
    already_delisted: bool = False
    unrecorded: bool = False  # an unrecorded retrieval call: leaking or not, the log cannot tell


_judgement = maker(Judgement)  # Judgement(**values), in one dictionary update: one is built per call

QUOTED_QUERY = 80  # characters of a query an evidence line quotes
QUOTED_MENTION = 40  # characters of a content mention


def _quote(text: str, limit: int) -> str:
    # Keep the evidence on one line; only a bounded head is split (a 20 MB query made millions of words).
    head = 4 * limit
    whole = " ".join(text[:head].split())
    if len(text) > head and len(whole) <= limit:
        whole += " ..."  # the head was mostly blanks: say that more follows
    return whole if len(whole) <= limit else whole[: limit - 3] + "..."


def _query_evidence(interaction: Interaction, as_of: _dt.date, corpus: Corpus) -> tuple[list[str], list[str]]:
    """Lines for the future periods the query reaches for (one per distinct start) and the open ones it asks about.

    The fiscal calendar is that of the entity the query names (:meth:`Corpus.fiscal_year_end_in`).
    """
    if interaction.query is None:
        return [], []
    intent = query_findings(interaction.query, as_of, fiscal_year_end=corpus.fiscal_year_end_in(interaction.query))
    if not intent.future and not intent.open_periods:
        return [], []
    query = _quote(interaction.query, QUOTED_QUERY)  # a megabyte query makes one short line per period
    t = as_of.isoformat()
    starts = dict.fromkeys(ref.begins for ref in intent.future)
    future = [f"query '{query}' reaches for {begins} > {t}" for begins in starts]
    open_lines = [
        f"query '{query}' asks for results of {ref.begins}..{ref.ends}, still open at {t}" for ref in intent.open_periods
    ]
    return future, open_lines


def _query_cut(interaction: Interaction) -> list[str]:
    """The line saying a long query was read only in part (:func:`~anachron.core.query_intent.scanned_query`)."""
    if interaction.query is None or len(interaction.query) <= QUERY_SCAN_CHARS:
        return []
    return [f"query cut at {QUERY_SCAN_CHARS} characters for date detection"]


def _dated(item: ReturnedItem) -> str:
    """An item's date as evidence shows it: the day, or the granule with how it was dated."""
    dating = item.dating
    if dating is None or dating.first is None:
        return f"{item.publish_date}"
    if dating.granularity == "month":
        return f"{dating.first:%Y-%m}"
    if dating.granularity == "year":
        return f"{dating.first.year}"
    return f"{dating.first}"


def _how(item: ReturnedItem) -> str:
    """`` (dated by field 'page_age')`` for an open-web item; nothing for a corpus item or an exact date."""
    dating = item.dating
    if dating is None or dating.first is None:
        return ""
    if dating.granularity == "day" and dating.source == "field 'publish_date'":
        return ""  # the trace format's own date field: nothing to explain
    granule = "" if dating.granularity == "day" else f"{dating.granularity}, "
    return f" ({granule}dated by {dating.source})"


def _undated_evidence(item: ReturnedItem, status: str, t: str) -> str:
    dating = item.dating
    if status == "uncertain":
        return f"uncertain item {item.id} dated {_dated(item)}{_how(item)} contains {t}"
    reason = "; ".join(dating.problems[:3]) if dating is not None and dating.problems else "no date found"
    return f"undated item {item.id} ({_quote(reason, 160)})"


def page_day(item: ReturnedItem) -> _dt.date | None:
    """The day a page's text speaks from: its publication day, when it is dated to the day (else None).

    A page's "next year" or "until September 8th" is read at this day
    (:mod:`anachron.core.grammar.page`); a page dated only to a month or a
    year, or not at all, has no such reading: what it names relative to
    itself cannot be told.
    """
    dating = item.dating
    if dating is None:
        return item.publish_date
    return dating.first if dating.granularity == "day" else None


def _future_in_text(item: ReturnedItem, as_of: _dt.date) -> list[DateReference]:
    """:func:`future_references` of the item's text (written out, and anchored at :func:`page_day`), from its
    references when they were worked out once.

    Page chrome (modification stamps, copyright notices, render banners:
    :func:`~anachron.core.attribution.without_chrome`) states nothing about the world: a reference found
    only there is no content leak.
    """
    if item.references is None:
        future = future_references(item.text, as_of, page_date=page_day(item))
    else:
        future = [ref for ref in item.references if not known_at(ref.begins, as_of)]
    if future and chrome_spans(item.text):  # rare: the text is read again only when it has chrome and a finding
        future = future_references(without_chrome(item.text), as_of, page_date=page_day(item))
    return future


def _invalid_entities(item: ReturnedItem, as_of: _dt.date, corpus: Corpus, t: str, lines: list[str]) -> tuple[bool, bool]:
    """Add a line to *lines* for each entity of *item* not valid at *as_of*; return whether any is not
    valid, and whether any is not valid yet (not yet listed, rather than already delisted)."""
    invalid = not_yet = False
    for entity_id in item.entities:
        entity = corpus.entities[entity_id]
        if entity.valid_at(as_of):
            continue
        invalid = True
        if entity.valid_from is not None and not known_at(entity.valid_from, as_of):
            not_yet = True
            lines.append(f"entity '{entity.id}' (item {item.id}) not yet valid at {t} (valid_from {entity.valid_from})")
        else:
            lines.append(f"entity '{entity.id}' (item {item.id}) no longer valid at {t} (valid_to {entity.valid_to})")
    return invalid, not_yet


def judge(interaction: Interaction, as_of: _dt.date, corpus: Corpus) -> Judgement:
    """The findings on one call made as of *as_of*, with their evidence lines."""
    if not interaction.retrieval:  # a local call: no interaction, no failed call, nothing judged
        return _LOCAL
    t = as_of.isoformat()
    future_lines, open_lines = _query_evidence(interaction, as_of, corpus)
    evidence = future_lines + open_lines + _query_cut(interaction)
    query_leak, open_period = bool(future_lines), bool(open_lines)

    if interaction.status != "ok":
        target = interaction.target
        blocked = interaction.status == "refused" and target is not None and target.status(as_of) == "leak"
        if blocked:
            evidence.append(f"blocked {interaction.tool} of {target.id} dated {_dated(target)} > {t}{_how(target)}")  # type: ignore[union-attr]
        unrecorded = interaction.status == "unrecorded"
        if unrecorded:
            evidence.append(f"unrecorded {_quote(interaction.tool, QUOTED_MENTION)}: the log holds no result (clean in tclr_low, leaking in tclr_high)")
        return _judgement(
            interaction=False, query_intent_leak=query_leak, open_period=open_period, blocked_attempt=blocked,
            evidence=tuple(evidence), unrecorded=unrecorded,
        )

    # One pass over the items; the lines of each kind are kept apart and joined in the order of the
    # kinds (result, restatement, undated, entity, content and revision), each kind in item order.
    late: list[str] = []
    restated: list[str] = []
    unsure: list[str] = []
    conflicts: list[str] = []
    named: list[str] = []
    read: list[str] = []
    horizons: list[int] = []
    entity_bearing = survivorship = not_yet = content = revised = False
    bounded = corpus.bounded_entities
    for item in interaction.returned:
        status = item.status(as_of)
        if status == "leak":
            late.append(f"result item {item.id} dated {_dated(item)} > {t}{_how(item)}")
            horizons.append((item.publish_date - as_of).days)  # type: ignore[operator]
            if item.restates is not None:
                restated.append(f"restatement item {item.id} dated {_dated(item)} > {t} silently revises {item.restates}")
        elif status in ("undated", "uncertain"):
            unsure.append(_undated_evidence(item, status, t))
        if item.dating is not None and item.dating.sources:
            pair = item.dating.conflict(as_of)
            if pair is not None:
                conflicts.append(conflict_evidence(item.id, *pair))
        if item.entities:
            entity_bearing = True
            if not bounded.isdisjoint(item.entities):  # else every entity it names is valid at every day
                invalid, early = _invalid_entities(item, as_of, corpus, t, named)
                survivorship = survivorship or invalid
                not_yet = not_yet or early
        if status == "leak":
            continue
        # What the agent read of an item not already leaking: a page dated before T may talk about after T.
        if item.references != ():  # (): a corpus item whose text names no date, worked out once
            future = _future_in_text(item, as_of)
            for ref in dict((ref.text.lower(), ref) for ref in future).values() if future else ():
                content = True
                read.append(f"content of item {item.id} mentions {_quote(ref.text, QUOTED_MENTION)} > {t}")
        if item.dating is not None and item.dating.revision_risk(as_of):
            revised = True
            read.append(f"item {item.id} published {_dated(item)} but modified {item.dating.modified} > {t}")
    evidence += late + restated + unsure + conflicts + named + read
    if not evidence:  # nothing found (every flag below but entity_bearing comes with a line): a shared judgement
        return _CLEAN[entity_bearing]
    return _judgement(
        interaction=True,
        result_leak=bool(late),
        survivorship_leak=survivorship,
        entity_bearing=entity_bearing,
        restatement_leak=bool(restated),
        query_intent_leak=query_leak,
        open_period=open_period,
        undated=bool(unsure) and not late,
        content_leak=content,
        revision_risk=revised,
        date_conflict=bool(conflicts),
        horizons=tuple(horizons),
        evidence=tuple(evidence),
        not_yet_listed=not_yet,
        already_delisted=survivorship and not not_yet,
    )


# Judgements are immutable, so the commonest ones are shared: a local call's, and an ok call's
# that found nothing (every flag but entity_bearing is set only with an evidence line).
_LOCAL = Judgement(False)
_CLEAN = {False: Judgement(True), True: Judgement(True, entity_bearing=True)}


@dataclass(frozen=True)
class SampleResult:
    """The leakage of one sample run.

    ``interactions`` counts the ``ok`` calls (the denominator);
    ``failed_calls`` the others, by status.  ``undated`` counts the
    interactions whose items include an undated or uncertain one and no
    leaking one, and ``unrecorded`` the retrieval calls whose result the log
    does not hold: TCLR's band runs from counting both as not leaking
    (``tclr_low``, the point value ``tclr``) to counting both as leaking
    (``tclr_high``), over ``interactions + unrecorded`` calls
    (:attr:`tclr_base`).  ``horizons`` holds the days from T to each post-T
    item; ``warnings`` the importer's warnings on the log.
    """

    sample_id: str
    as_of: _dt.date
    mode: str | None
    interactions: int
    result_leaks: int
    survivorship_leaks: int
    survivorship_base: int  # interactions that returned any entity-bearing item
    restatement_leaks: int
    query_intent_leaks: int
    evidence: tuple[str, ...]
    blocked_attempts: int = 0
    failed_calls: Mapping[str, int] = field(default_factory=_no_failures)
    undated: int = 0
    content_leaks: int = 0
    revision_risks: int = 0
    date_conflicts: int = 0  # interactions that returned an item whose date sources disagree across T
    horizons: tuple[int, ...] = ()
    not_yet_listed: int = 0  # survivorship leaks split: not_yet_listed + already_delisted = survivorship_leaks
    already_delisted: int = 0
    answered: bool = False  # the trace carried a final answer
    answer_leaks_retrieved: int = 0  # post-T facts the answer states that a tool showed
    answer_leaks_parametric: int = 0  # ... that no tool showed
    open_period_queries: int = 0
    # Calls that breached the declared time lock (anachron.core.seal); None: no tool was declared sealed.
    seal_breaches: int | None = None
    seal_calls: int | None = None  # calls the seal audit judged (local ones too); None: not audited
    unrecorded: int = 0  # retrieval calls whose result the log does not hold
    warnings: tuple[str, ...] = ()  # the importer's, from the trace record
    seal_status: str | None = None  # anachron.core.seal.STATUSES; None: not audited
    seal_assumptions: tuple[str, ...] = ()  # what a "sealed" verdict rests on (an isolated shell)
    # Whether the trace holds what a seal audit judges beyond retrieval (a shell command, a local call,
    # a lock receipt): the table's "seal audit: not run" line is shown for such a run only. Not in to_dict().
    seal_relevant: bool = field(default=False, compare=False)
    slice: str | None = None  # the corpus sample's slice (Sample.slice); None for a sample the corpus does not hold

    @property
    def tclr_base(self) -> int:
        """TCLR's denominator: interactions plus unrecorded calls."""
        return self.interactions + self.unrecorded

    @property
    def tclr(self) -> float:
        """Leaking interactions over :attr:`tclr_base`; 0.0 when it is 0."""
        # int / int is correctly rounded, so this is float(tclr_exact), without building a Fraction.
        return self.result_leaks / self.tclr_base if self.tclr_base else 0.0

    @property
    def tclr_exact(self) -> Fraction:
        return Fraction(self.result_leaks, self.tclr_base) if self.tclr_base else Fraction(0)

    @property
    def tclr_high_exact(self) -> Fraction:
        """TCLR with every undated or uncertain interaction and every unrecorded call counted as leaking."""
        high = self.result_leaks + self.undated + self.unrecorded
        return Fraction(high, self.tclr_base) if self.tclr_base else Fraction(0)

    @property
    def survivorship_rate(self) -> float | None:
        """Survivorship leaks over entity-bearing interactions; ``None`` without any."""
        if not self.survivorship_base:
            return None
        return self.survivorship_leaks / self.survivorship_base

    @property
    def horizon_days(self) -> int | None:
        """The farthest post-T item: days from T to its date; ``None`` without a result leak."""
        return max(self.horizons) if self.horizons else None

    @property
    def calls(self) -> int:
        """Every retrieval call of the run: interactions, failed calls and unrecorded calls."""
        return self.interactions + sum(self.failed_calls.values()) + self.unrecorded

    def to_dict(self) -> dict[str, Any]:
        return {
            "sample_id": self.sample_id,
            "as_of": self.as_of.isoformat(),
            "mode": self.mode,
            "slice": self.slice,
            "tclr": self.tclr,
            "tclr_low": self.tclr,
            "tclr_high": (self.result_leaks + self.undated + self.unrecorded) / self.tclr_base if self.tclr_base else 0.0,
            "interactions": self.interactions,
            "result_leaks": self.result_leaks,
            "undated": self.undated,
            "unrecorded": self.unrecorded,
            "survivorship_leaks": self.survivorship_leaks,
            "survivorship_rate": self.survivorship_rate,
            "survivorship_base": self.survivorship_base,
            "restatement_leaks": self.restatement_leaks,
            "query_intent_leaks": self.query_intent_leaks,
            "open_period_queries": self.open_period_queries,
            "content_leaks": self.content_leaks,
            "revision_risks": self.revision_risks,
            "date_conflicts": self.date_conflicts,
            "blocked_attempts": self.blocked_attempts,
            "failed_calls": dict(self.failed_calls),
            "horizon_days": self.horizon_days,
            "horizons": list(self.horizons),
            "seal_breaches": self.seal_breaches,
            "seal_calls": self.seal_calls,
            "seal_status": self.seal_status,
            "seal_assumptions": list(self.seal_assumptions),
            "evidence": list(self.evidence),
            "not_yet_listed": self.not_yet_listed,
            "already_delisted": self.already_delisted,
            "answered": self.answered,
            "answer_leaks_retrieved": self.answer_leaks_retrieved,
            "answer_leaks_parametric": self.answer_leaks_parametric,
            "warnings": list(self.warnings),
        }

    def _repr_html_(self) -> str | None:
        """A notebook's display: the figures with their denominators, and the evidence (:mod:`.display`)."""
        return render_html(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "SampleResult":
        """The result back from :meth:`to_dict` (an adapter's stored copy)."""
        return cls(
            sample_id=data["sample_id"],
            as_of=_dt.date.fromisoformat(data["as_of"]),
            mode=data["mode"],
            slice=data.get("slice"),  # absent from score files before it was written
            interactions=data["interactions"],
            result_leaks=data["result_leaks"],
            survivorship_leaks=data["survivorship_leaks"],
            survivorship_base=data["survivorship_base"],
            restatement_leaks=data["restatement_leaks"],
            query_intent_leaks=data["query_intent_leaks"],
            evidence=tuple(data["evidence"]),
            blocked_attempts=data["blocked_attempts"],
            failed_calls=dict(data["failed_calls"]),
            undated=data["undated"],
            content_leaks=data["content_leaks"],
            revision_risks=data["revision_risks"],
            date_conflicts=data.get("date_conflicts", 0),  # absent from copies stored before it existed
            horizons=tuple(data["horizons"]),
            # Absent from copies stored before these fields existed: read as none.
            not_yet_listed=data.get("not_yet_listed", 0),
            already_delisted=data.get("already_delisted", 0),
            answered=data.get("answered", False),
            answer_leaks_retrieved=data.get("answer_leaks_retrieved", 0),
            answer_leaks_parametric=data.get("answer_leaks_parametric", 0),
            open_period_queries=data.get("open_period_queries", 0),  # absent from copies stored before it existed
            seal_breaches=data.get("seal_breaches"),
            seal_calls=data.get("seal_calls"),
            unrecorded=data.get("unrecorded", 0),
            warnings=tuple(data.get("warnings", ())),
            seal_status=stored_status(data.get("seal_status", ...), data.get("seal_breaches")),
            seal_assumptions=tuple(data.get("seal_assumptions", ())),
        )


HORIZON_BANDS = (7, 31, 366)  # days: within a week, a month, a year; then beyond


@dataclass(frozen=True)
class Horizon:
    """How far past T the result leaks of a run reached, in days (over every post-T item)."""

    median: float | None
    max: int | None
    within: Mapping[int, int]  # band -> items at most that many days past T
    beyond: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "median": self.median,
            "max": self.max,
            **{f"within_{band}": n for band, n in self.within.items()},
            "beyond": self.beyond,
        }


def horizon(days: Sequence[int]) -> Horizon:
    """The leak horizon of *days* (each > 0): median, max, and counts within 7, 31 and 366 days.

    A band counts items at most that many days past T, cumulatively; ``beyond``
    the rest.  Median and max are ``None`` for no leak.

    >>> horizon([1, 10, 400]).to_dict()
    {'median': 10, 'max': 400, 'within_7': 1, 'within_31': 2, 'within_366': 2, 'beyond': 1}
    """
    within = {band: sum(1 for d in days if d <= band) for band in HORIZON_BANDS}
    return Horizon(
        median=statistics.median(days) if days else None,
        max=max(days) if days else None,
        within=within,
        beyond=sum(1 for d in days if d > HORIZON_BANDS[-1]),
    )


@dataclass(frozen=True)
class RunSummary:
    """Totals over the samples of one run."""

    n: int
    mean_tclr: float | None
    date_leak_runs: int
    tool_using_runs: int
    tool_using_mean_tclr: float | None
    result_leaks: int
    survivorship_leaks: int
    restatement_leaks: int
    query_intent_leaks: int
    blocked_attempts: int = 0
    failed_calls: Mapping[str, int] = field(default_factory=_no_failures)
    mean_tclr_high: float | None = None
    undated: int = 0
    content_leaks: int = 0
    revision_risks: int = 0
    date_conflicts: int = 0
    horizon: Horizon = field(default_factory=lambda: horizon(()))
    not_yet_listed: int = 0
    already_delisted: int = 0
    answered_runs: int = 0
    answer_leaks_retrieved: int = 0
    answer_leaks_parametric: int = 0
    open_period_queries: int = 0
    seal_breaches: int | None = None  # None: not audited (no tool declared sealed)
    seal_breached_runs: int = 0
    seal_calls: int | None = None  # calls the seal audit judged; None: not counted
    seal_status: str | None = None  # the run's status (anachron.core.seal.STATUSES); None: not audited
    seal_assumptions: tuple[str, ...] = ()  # what a "sealed" verdict rests on, over every sample
    seal_relevant_runs: int = field(default=0, compare=False)  # samples whose SampleResult.seal_relevant; not in to_dict()
    answer_leak_runs: int = 0  # answered runs whose answer leaked at least one fact
    unrecorded: int = 0
    calls: int = 0  # retrieval calls (SampleResult.calls), the unrecorded ones' denominator
    # A cause and a fix each: the unrecorded calls' first, then the importers' (see summarise).
    warnings: tuple[str, ...] = ()

    @property
    def incomplete(self) -> bool:
        """True when some call's result is not in the log: the figures are a band, not a value."""
        return self.unrecorded > 0

    @property
    def sealed(self) -> bool | None:
        """True when the run's status is ``sealed`` (every call in the lock's log, given the assumptions),
        False when a call breached, ``None`` otherwise (not audited, no call, unverified, the lock's own log)."""
        return {"sealed": True, "breached": False}.get(self.seal_status or "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "mean_tclr": self.mean_tclr,
            "mean_tclr_low": self.mean_tclr,
            "mean_tclr_high": self.mean_tclr_high,
            "date_leak_runs": self.date_leak_runs,
            "tool_using_runs": self.tool_using_runs,
            "tool_using_mean_tclr": self.tool_using_mean_tclr,
            "result_leaks": self.result_leaks,
            "undated": self.undated,
            "calls": self.calls,
            "unrecorded": self.unrecorded,
            "incomplete": self.incomplete,
            "survivorship_leaks": self.survivorship_leaks,
            "restatement_leaks": self.restatement_leaks,
            "query_intent_leaks": self.query_intent_leaks,
            "open_period_queries": self.open_period_queries,
            "content_leaks": self.content_leaks,
            "revision_risks": self.revision_risks,
            "date_conflicts": self.date_conflicts,
            "blocked_attempts": self.blocked_attempts,
            "failed_calls": dict(self.failed_calls),
            "horizon_days": self.horizon.to_dict(),
            "sealed": self.sealed,
            "seal_breaches": self.seal_breaches,
            "seal_calls": self.seal_calls,
            "seal_breached_runs": self.seal_breached_runs,
            "seal_status": self.seal_status,
            "seal_assumptions": list(self.seal_assumptions),
            "not_yet_listed": self.not_yet_listed,
            "already_delisted": self.already_delisted,
            "answered_runs": self.answered_runs,
            "answer_leaks_retrieved": self.answer_leaks_retrieved,
            "answer_leaks_parametric": self.answer_leaks_parametric,
            "answer_leak_runs": self.answer_leak_runs,
            "warnings": list(self.warnings),
        }

    def _repr_html_(self) -> str | None:
        """A notebook's display: every figure with its denominator (:mod:`.display`)."""
        return render_html(self)


def score_trace(trace: Trace, corpus: Corpus, *, sealed_tools: AbstractSet[str] | None = None) -> SampleResult:
    """Score one validated :class:`Trace` against *corpus*'s entity registry.

    Every evidence line starts with the number of the call that produced it
    (``#3 ...``, counting every call of the trace from 1); a call's seal
    breach lines come first, and the answer's lines (``answer states ...``,
    :mod:`anachron.core.answers`) follow every call's.  With *sealed_tools*
    (the tools declared to go through a time lock) the run is audited
    (:mod:`anachron.core.seal`): ``seal_breaches`` counts the calls that
    breached; without, it is ``None``.
    """
    judgements = [judge(interaction, trace.as_of, corpus) for interaction in trace.interactions]
    seal = audit(trace.interactions, sealed_tools, trace.as_of)
    leaks = answer_leaks(trace, corpus)
    failed = _no_failures()
    evidence: list[str] = []
    horizons: list[int] = []
    # Each flag of a Judgement summed over the calls, in one pass.
    interactions = result_leaks = survivorship = entity_bearing = restatements = query_intent = open_period = 0
    blocked = undated = content = revised = not_yet = delisted = unrecorded = conflicted = 0
    for number, (interaction, verdict) in enumerate(zip(trace.interactions, judgements), start=1):
        if seal is not None:
            evidence += [f"#{number} {line}" for line in seal.breaches[number - 1] + seal.evidence[number - 1]]
        if verdict is _CLEAN[False] or verdict is _CLEAN[True]:  # the commonest: only interaction and entity_bearing
            interactions += 1
            entity_bearing += verdict.entity_bearing
            continue
        if verdict.evidence:
            evidence += [f"#{number} {line}" for line in verdict.evidence]
        if verdict.horizons:
            horizons += verdict.horizons
        if not verdict.interaction and interaction.retrieval and interaction.status in failed:
            failed[interaction.status] += 1
        interactions += verdict.interaction
        result_leaks += verdict.result_leak
        survivorship += verdict.survivorship_leak
        entity_bearing += verdict.entity_bearing
        restatements += verdict.restatement_leak
        query_intent += verdict.query_intent_leak
        open_period += verdict.open_period
        blocked += verdict.blocked_attempt
        undated += verdict.undated
        content += verdict.content_leak
        revised += verdict.revision_risk
        conflicted += verdict.date_conflict
        not_yet += verdict.not_yet_listed
        delisted += verdict.already_delisted
        unrecorded += verdict.unrecorded
    return SampleResult(
        sample_id=trace.sample_id,
        as_of=trace.as_of,
        mode=trace.mode,
        interactions=interactions,
        result_leaks=result_leaks,
        survivorship_leaks=survivorship,
        survivorship_base=entity_bearing,
        restatement_leaks=restatements,
        query_intent_leaks=query_intent,
        evidence=tuple(evidence) + tuple(leak.evidence(trace.as_of) for leak in leaks),
        blocked_attempts=blocked,
        failed_calls=failed,
        undated=undated,
        content_leaks=content,
        revision_risks=revised,
        date_conflicts=conflicted,
        horizons=tuple(horizons),
        not_yet_listed=not_yet,
        already_delisted=delisted,
        answered=trace.answer is not None,
        answer_leaks_retrieved=sum(leak.source == "retrieved" for leak in leaks),
        answer_leaks_parametric=sum(leak.source == "parametric" for leak in leaks),
        open_period_queries=open_period,
        seal_breaches=None if seal is None or seal.status == "lock-only" else sum(1 for found in seal.breaches if found),
        seal_calls=None if seal is None or seal.status == "lock-only" else len(seal.breaches),
        seal_status=None if seal is None else seal.status,
        seal_assumptions=() if seal is None else seal.assumptions,
        unrecorded=unrecorded,
        warnings=trace.warnings,
        seal_relevant=any(i.command is not None or not i.retrieval or i.receipt is not None for i in trace.interactions),
        slice=_slice_of(trace, corpus),
    )


def _slice_of(trace: Trace, corpus: Corpus) -> str | None:
    return sample_slice(corpus, trace.sample_id, trace.as_of)


def sample_slice(corpus: Corpus, sample_id: str, as_of: _dt.date) -> str | None:
    """The slice of the corpus sample *sample_id* run as of *as_of*, else ``None``.

    A sample id alone could name another corpus's sample (an imported log's
    own ``q1``), so the corpus sample counts only when its as-of date is the
    run's too: otherwise the slice is unknown, never guessed.
    """
    sample = corpus.samples.get(sample_id)
    return sample.slice if sample is not None and sample.as_of == as_of else None


def score_traces(
    traces: Iterable[Trace], corpus: Corpus, *, sealed_tools: AbstractSet[str] | None = None
) -> list[SampleResult]:
    """Score each trace, in order (*sealed_tools*: see :func:`score_trace`)."""
    return [score_trace(trace, corpus, sealed_tools=sealed_tools) for trace in traces]


class _ExactMean:
    """The exact mean of ratios ``numerator / denominator`` (0 for a zero denominator),
    added one at a time: numerators are summed per denominator in integers, and only
    the distinct denominators (a few dozen) meet as Fractions, once, at the end."""

    def __init__(self) -> None:
        self.sums: dict[int, int] = {}
        self.n = 0

    def add(self, numerator: int, denominator: int) -> None:
        self.n += 1
        if denominator:
            self.sums[denominator] = self.sums.get(denominator, 0) + numerator

    def value(self) -> float | None:
        if not self.n:
            return None
        total = sum((Fraction(num, den) for den, num in self.sums.items()), Fraction(0))
        return float(total / self.n)


def summarise(results: Iterable[SampleResult]) -> RunSummary:
    """Per-run totals, in one pass over *results* (a list, or a stream of them).

    ``mean_tclr`` averages over all samples (``None`` for an empty run);
    ``tool_using_mean_tclr`` over samples with at least one interaction
    (an ``ok`` call) or unrecorded call (``None`` when no sample has one), so tool-using runs
    are reported apart from runs that answered without retrieving anything.
    The seal status (:func:`~anachron.core.seal.run_status`) is that of the samples taken together.
    Means are exact (see :class:`_ExactMean`), rounded once, each sample's
    TCLR over its :attr:`~SampleResult.tclr_base`.  ``warnings`` holds, first,
    one for the unrecorded calls when there are any, then each sample
    warning once, in the order first seen, with ``(N samples)`` after it
    when N > 1 samples carried it (:func:`run_warnings`).
    """
    n = date_leak_runs = answered_runs = seal_breached_runs = seal_calls = answer_leak_runs = seal_relevant = 0
    seal_breaches: int | None = 0  # None once a sample was not audited
    statuses: set[str | None] = set()
    assumptions: dict[str, None] = {}
    mean_tclr, tool_using, mean_high = _ExactMean(), _ExactMean(), _ExactMean()
    counts = dict.fromkeys(_SUMMED, 0)
    failed = _no_failures()
    days: dict[int, int] = {}  # days past T -> post-T items: a stream's memory grows with distinct days only
    seen: dict[str, int] = {}  # warning -> samples that carried it: memory grows with distinct warnings only
    calls = 0
    for r in results:
        n += 1
        calls += r.calls
        mean_tclr.add(r.result_leaks, r.tclr_base)
        mean_high.add(r.result_leaks + r.undated + r.unrecorded, r.tclr_base)
        for warning in dict.fromkeys(r.warnings):
            seen[warning] = seen.get(warning, 0) + 1
        if r.tclr_base:
            tool_using.add(r.result_leaks, r.tclr_base)
        if r.result_leaks:
            date_leak_runs += 1
        if r.answered:
            answered_runs += 1
        if r.answer_leaks_retrieved or r.answer_leaks_parametric:
            answer_leak_runs += 1
        seal_calls += r.seal_calls or 0
        seal_relevant += r.seal_relevant
        statuses.add(r.seal_status)
        assumptions.update(dict.fromkeys(r.seal_assumptions))
        if r.seal_breaches is None:
            seal_breaches = None
        elif r.seal_breaches:
            seal_breached_runs += 1
            if seal_breaches is not None:
                seal_breaches += r.seal_breaches
        for name in _SUMMED:
            counts[name] += getattr(r, name)
        for status, count in r.failed_calls.items():
            failed[status] += count
        for d in r.horizons:
            days[d] = days.get(d, 0) + 1
    return RunSummary(
        n=n,
        mean_tclr=mean_tclr.value(),
        date_leak_runs=date_leak_runs,
        tool_using_runs=tool_using.n,
        tool_using_mean_tclr=tool_using.value(),
        failed_calls=failed,
        mean_tclr_high=mean_high.value(),
        horizon=horizon([d for d, n in sorted(days.items()) for _ in range(n)]),
        answered_runs=answered_runs,
        seal_breaches=seal_breaches if n else None,
        seal_breached_runs=seal_breached_runs,
        seal_calls=seal_calls if seal_breaches is not None and n else None,
        seal_status=run_status(statuses, seal_calls) if n else None,
        seal_assumptions=tuple(assumptions),
        seal_relevant_runs=seal_relevant,
        answer_leak_runs=answer_leak_runs,
        calls=calls,
        warnings=run_warnings(counts["unrecorded"], seen),
        **counts,
    )


def run_warnings(unrecorded: int, seen: Mapping[str, int]) -> tuple[str, ...]:
    """A run's warnings: one for its *unrecorded* calls (when any), then each sample warning of *seen*
    (warning -> samples that carried it, in the order first seen), ``(N samples)`` after it when N > 1.

    >>> run_warnings(2, {"no tool call in the log": 3, "skipped 1 item": 1})  # doctest: +NORMALIZE_WHITESPACE
    ('2 tool calls recorded no result (unrecorded): the figures are a band, not a value;
      import a log that holds the tool results (https://github.com/anachron/anachron/blob/main/docs/importers.md)',
     'no tool call in the log (3 samples)', 'skipped 1 item')
    """
    lines = [f"{w} ({count} samples)" if count > 1 else w for w, count in seen.items()]
    if unrecorded:
        calls = f"{unrecorded} tool call{'' if unrecorded == 1 else 's'}"
        lines.insert(0, f"{calls} recorded no result (unrecorded): the figures are a band, not a value;"
                        f" import a log that holds the tool results ({doc_url('importers.md')})")
    return tuple(lines)


# The per-sample counts a run summary adds up, each under its own name.
_SUMMED = (
    "result_leaks",
    "survivorship_leaks",
    "restatement_leaks",
    "query_intent_leaks",
    "blocked_attempts",
    "undated",
    "content_leaks",
    "revision_risks",
    "date_conflicts",
    "not_yet_listed",
    "already_delisted",
    "answer_leaks_retrieved",
    "answer_leaks_parametric",
    "open_period_queries",
    "unrecorded",
)
