"""One sample's leakage: :class:`SampleResult`, and the scoring of a trace into one.

Each call of the trace is judged (:func:`anachron.core.leakage.judging.judge`)
and the findings summed per sample; the evidence lines are numbered by call.

Scoring
-------

=====================  ==================================================
:func:`score_trace`    Score one validated trace against a corpus.
:func:`score_traces`   Score each trace, in order.
:func:`sample_slice`   The corpus slice of a sample run as of its date.
:class:`SampleResult`  The leakage of one sample run.
=====================  ==================================================
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from fractions import Fraction
from typing import AbstractSet, Any, Iterable, Mapping

from anachron.core.answers import answer_leaks
from anachron.core.corpus import Corpus
from anachron.core.display import render_html
from anachron.core.frozen import maker
from anachron.core.leakage.judging import CLEAN, judge, no_failures
from anachron.core.seal import audit, stated_local_tools, unstated_version
from anachron.core.trace import Trace

__all__ = ["SampleResult", "sample_slice", "score_trace", "score_traces"]


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
    failed_calls: Mapping[str, int] = field(default_factory=no_failures)
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
    seal_calls: int | None = None  # calls the seal audit judged (local ones too, not the harness's own); None: not audited
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
        # int / int is correctly rounded: the exact ratio, rounded once, without building a Fraction.
        return self.result_leaks / self.tclr_base if self.tclr_base else 0.0

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
        """A notebook's display: the figures with their denominators, and the evidence (:mod:`anachron.core.display`)."""
        return render_html(self)


_sample_result = maker(SampleResult)  # SampleResult(**values), in one dictionary update: one is built per trace


def score_trace(trace: Trace, corpus: Corpus, *, sealed_tools: AbstractSet[str] | None = None) -> SampleResult:
    """Score one validated :class:`Trace` against *corpus*'s entity registry.

    Every evidence line starts with the number of the call that produced it
    (``#3 ...``, counting every call of the trace from 1); a call's seal
    breach lines come first, and the answer's lines (``answer states ...``,
    :mod:`anachron.core.answers`) follow every call's.  With *sealed_tools*
    (the tools declared to go through a time lock) the run is audited
    (:mod:`anachron.core.seal`): ``seal_breaches`` counts the calls that
    breached, and one more when the proof itself breached (lines ``#0 seal: ...``,
    first: a run directory whose lock log differs from the one pinned); without, it is ``None``.
    """
    judgements = [judge(interaction, trace.as_of, corpus) for interaction in trace.interactions]
    # The harness's own tools its log shows (its format and stated version) pass as the run's local_tools do.
    seal = audit(trace.interactions, sealed_tools, trace.as_of, stated_local_tools(trace.extra))
    # A tool that is the harness's own only from a version on, in a log stating none: judged as any (said once).
    unstated = unstated_version(trace.extra, trace.interactions) if seal is not None and seal.status != "lock-only" else None
    leaks = answer_leaks(trace, corpus)
    failed = no_failures()
    evidence: list[str] = [f"#0 seal: {line}" for line in seal.proof] if seal is not None else []
    horizons: list[int] = []
    # Each flag of a Judgement summed over the calls, in one pass.
    interactions = result_leaks = survivorship = entity_bearing = restatements = query_intent = open_period = 0
    blocked = undated = content = revised = not_yet = delisted = unrecorded = conflicted = 0
    for number, (interaction, verdict) in enumerate(zip(trace.interactions, judgements), start=1):
        if seal is not None:
            evidence += [f"#{number} {line}" for line in seal.breaches[number - 1] + seal.evidence[number - 1]]
        if verdict is CLEAN[False] or verdict is CLEAN[True]:  # the commonest: only interaction and entity_bearing
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
    return _sample_result(
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
        seal_breaches=None if seal is None or seal.status == "lock-only" else sum(1 for found in seal.breaches if found) + bool(seal.proof),
        seal_calls=None if seal is None or seal.status == "lock-only" else len(seal.breaches) - seal.own,
        seal_status=None if seal is None else seal.status,
        seal_assumptions=() if seal is None else seal.assumptions,
        unrecorded=unrecorded,
        warnings=trace.warnings + ((unstated,) if unstated else ()),
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
    sample = corpus.sample_of(sample_id)
    return sample.slice if sample is not None and sample.as_of == as_of else None


def score_traces(
    traces: Iterable[Trace], corpus: Corpus, *, sealed_tools: AbstractSet[str] | None = None
) -> list[SampleResult]:
    """Score each trace, in order (*sealed_tools*: see :func:`score_trace`)."""
    return [score_trace(trace, corpus, sealed_tools=sealed_tools) for trace in traces]

