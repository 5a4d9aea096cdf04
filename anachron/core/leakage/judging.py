"""The judging of each call of a run: what one tool call surfaced, as of T (definitions: docs/metrics.md).

For a sample answered as of T, each tool call (an :class:`Interaction`) is
judged by the rule of its ``status``:

- an ``ok`` call is one **interaction**, the denominator of every rate.  It
  *leaks a result* when it returned an item not :func:`known_at` T
  (``publish_date > T``; ``publish_date == T`` does not leak);
  ``TCLR = leaking interactions / interactions``, 0 without any.  It *leaks
  survivorship* when it returned an item naming an entity not point-in-time
  valid at T (rate over the interactions that returned an entity-bearing
  item), and *leaks a restatement* when a returned post-T item has
  ``restates`` set, or is a series value first published after T (its
  ``realtime_start``: a revised figure; a labelled subset of result leaks);
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
  still judged by its first source for the point TCLR; the conflict is
  counted (``date_conflicts``, one line per item) and, when the call
  leaked nothing else, the call is uncertain: counted in ``undated``, so
  leaking in ``tclr_high`` (a forged earlier date never scores clean alone).

Counts are of calls (summed per sample by :mod:`anachron.core.leakage.sample`);
evidence has one line per finding, in fixed shapes that users grep
(docs/metrics.md lists them).

Judging
-------

========================  ===============================================
:func:`judge`             The findings on one call, with their evidence lines.
:func:`page_day`          The day a page's text speaks from.
:func:`no_failures`       A count of zero for each failed status.
:class:`Judgement`        The findings on one call.
:data:`FAILED_STATUSES`   The statuses of a failed call.
:data:`CLEAN`             The shared judgements of an ok call that found nothing.
========================  ===============================================
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Mapping

from anachron.core.attribution import chrome_spans, conflict_evidence, without_chrome
from anachron.core.corpus import Corpus
from anachron.core.dates import known_at
from anachron.core.frozen import maker
from anachron.core.query_intent import QUERY_SCAN_CHARS, DateReference, future_references, query_findings
from anachron.core.trace import STATUSES, Interaction, ReturnedItem

__all__ = ["CLEAN", "FAILED_STATUSES", "Judgement", "judge", "no_failures", "page_day"]

# An unrecorded call is not failed: its result may have reached the agent, the log does not say.
FAILED_STATUSES = tuple(status for status in STATUSES if status not in ("ok", "unrecorded"))


def no_failures() -> Mapping[str, int]:
    """``{status: 0}`` for each of :data:`FAILED_STATUSES`: a sample's or a run's failed calls before counting."""
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
            if item.observation is not None:
                series, observed, value = item.observation
                shown = "missing" if value is None else value
                restated.append(f"restatement series {series} observation {observed} value {shown} first published {_dated(item)} > {t}")
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
        return CLEAN[entity_bearing]
    return _judgement(
        interaction=True,
        result_leak=bool(late),
        survivorship_leak=survivorship,
        entity_bearing=entity_bearing,
        restatement_leak=bool(restated),
        query_intent_leak=query_leak,
        open_period=open_period,
        # A date conflict across T is uncertain too: the forged earlier date may be the false one.
        undated=bool(unsure or conflicts) and not late,
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
CLEAN = {False: Judgement(True), True: Judgement(True, entity_bearing=True)}
