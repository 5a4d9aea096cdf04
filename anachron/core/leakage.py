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
- every call that carried a query, whatever its status, is judged for
  **query intent**: the query names a period that begins after T.

Counts are of calls; evidence has one line per finding, in fixed shapes
that users grep (docs/metrics.md lists them).  Means are computed with
exact fractions and rounded once, to a float.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

from .corpus import Corpus
from .dates import known_at
from .query_intent import future_references
from .trace import STATUSES, Interaction, Trace

__all__ = ["FAILED_STATUSES", "Judgement", "judge", "SampleResult", "RunSummary", "score_trace", "score_traces", "summarise"]

FAILED_STATUSES = tuple(status for status in STATUSES if status != "ok")


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
    blocked_attempt: bool = False
    evidence: tuple[str, ...] = ()


QUOTED_QUERY = 80  # characters of a query an evidence line quotes


def _query_evidence(interaction: Interaction, as_of: _dt.date) -> list[str]:
    """One line per distinct period start the query reaches for, in order of appearance."""
    if interaction.query is None:
        return []
    query = " ".join(interaction.query.split())  # keep the evidence on one line
    if len(query) > QUOTED_QUERY:  # a megabyte query must not make megabytes of evidence per reference
        query = query[: QUOTED_QUERY - 3] + "..."
    t = as_of.isoformat()
    starts = dict.fromkeys(ref.begins for ref in future_references(interaction.query, as_of))
    return [f"query '{query}' reaches for {begins} > {t}" for begins in starts]


def judge(interaction: Interaction, as_of: _dt.date, corpus: Corpus) -> Judgement:
    """The findings on one call made as of *as_of*, with their evidence lines."""
    t = as_of.isoformat()
    evidence = _query_evidence(interaction, as_of)
    query_leak = bool(evidence)

    if interaction.status != "ok":
        target = interaction.target
        blocked = interaction.status == "refused" and target is not None and not known_at(target.publish_date, as_of)
        if blocked:
            evidence.append(f"blocked {interaction.tool} of {target.id} dated {target.publish_date} > {t}")  # type: ignore[union-attr]
        return Judgement(False, query_intent_leak=query_leak, blocked_attempt=blocked, evidence=tuple(evidence))

    late = [item for item in interaction.returned if not known_at(item.publish_date, as_of)]
    evidence += [f"result item {item.id} dated {item.publish_date} > {t}" for item in late]
    restated = [item for item in late if item.restates is not None]
    evidence += [
        f"restatement item {item.id} dated {item.publish_date} > {t} silently revises {item.restates}"
        for item in restated
    ]

    entity_bearing = False
    survivorship = False
    for item in interaction.returned:
        for entity_id in item.entities:
            entity_bearing = True
            entity = corpus.entities[entity_id]
            if entity.valid_at(as_of):
                continue
            survivorship = True
            if entity.valid_from is not None and not known_at(entity.valid_from, as_of):
                evidence.append(
                    f"entity '{entity.id}' (item {item.id}) not yet valid at {t} (valid_from {entity.valid_from})"
                )
            else:
                evidence.append(
                    f"entity '{entity.id}' (item {item.id}) no longer valid at {t} (valid_to {entity.valid_to})"
                )
    return Judgement(
        True,
        result_leak=bool(late),
        survivorship_leak=survivorship,
        entity_bearing=entity_bearing,
        restatement_leak=bool(restated),
        query_intent_leak=query_leak,
        evidence=tuple(evidence),
    )


@dataclass(frozen=True)
class SampleResult:
    """The leakage of one sample run.

    ``interactions`` counts the ``ok`` calls (the denominator);
    ``failed_calls`` the others, by status.
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

    @property
    def tclr(self) -> float:
        """Leaking interactions over interactions; 0.0 without interactions."""
        return float(self.tclr_exact)

    @property
    def tclr_exact(self) -> Fraction:
        return Fraction(self.result_leaks, self.interactions) if self.interactions else Fraction(0)

    @property
    def survivorship_rate(self) -> float | None:
        """Survivorship leaks over entity-bearing interactions; ``None`` without any."""
        if not self.survivorship_base:
            return None
        return self.survivorship_leaks / self.survivorship_base

    @property
    def calls(self) -> int:
        """Every tool call of the run: interactions plus failed calls."""
        return self.interactions + sum(self.failed_calls.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "sample_id": self.sample_id,
            "as_of": self.as_of.isoformat(),
            "mode": self.mode,
            "tclr": self.tclr,
            "interactions": self.interactions,
            "result_leaks": self.result_leaks,
            "survivorship_leaks": self.survivorship_leaks,
            "survivorship_rate": self.survivorship_rate,
            "restatement_leaks": self.restatement_leaks,
            "query_intent_leaks": self.query_intent_leaks,
            "blocked_attempts": self.blocked_attempts,
            "failed_calls": dict(self.failed_calls),
            "evidence": list(self.evidence),
        }


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "mean_tclr": self.mean_tclr,
            "date_leak_runs": self.date_leak_runs,
            "tool_using_runs": self.tool_using_runs,
            "tool_using_mean_tclr": self.tool_using_mean_tclr,
            "result_leaks": self.result_leaks,
            "survivorship_leaks": self.survivorship_leaks,
            "restatement_leaks": self.restatement_leaks,
            "query_intent_leaks": self.query_intent_leaks,
            "blocked_attempts": self.blocked_attempts,
            "failed_calls": dict(self.failed_calls),
        }


def score_trace(trace: Trace, corpus: Corpus) -> SampleResult:
    """Score one validated :class:`Trace` against *corpus*'s entity registry."""
    judgements = [judge(interaction, trace.as_of, corpus) for interaction in trace.interactions]
    failed = _no_failures()
    for interaction, verdict in zip(trace.interactions, judgements):
        if not verdict.interaction:
            failed[interaction.status] += 1
    return SampleResult(
        sample_id=trace.sample_id,
        as_of=trace.as_of,
        mode=trace.mode,
        interactions=sum(j.interaction for j in judgements),
        result_leaks=sum(j.result_leak for j in judgements),
        survivorship_leaks=sum(j.survivorship_leak for j in judgements),
        survivorship_base=sum(j.entity_bearing for j in judgements),
        restatement_leaks=sum(j.restatement_leak for j in judgements),
        query_intent_leaks=sum(j.query_intent_leak for j in judgements),
        evidence=tuple(line for j in judgements for line in j.evidence),
        blocked_attempts=sum(j.blocked_attempt for j in judgements),
        failed_calls=failed,
    )


def score_traces(traces: Iterable[Trace], corpus: Corpus) -> list[SampleResult]:
    """Score each trace, in order."""
    return [score_trace(trace, corpus) for trace in traces]


def _mean(values: Sequence[Fraction]) -> float | None:
    return float(sum(values, Fraction(0)) / len(values)) if values else None


def summarise(results: Sequence[SampleResult]) -> RunSummary:
    """Per-run totals.

    ``mean_tclr`` averages over all samples (``None`` for an empty run);
    ``tool_using_mean_tclr`` over samples with at least one interaction
    (an ``ok`` call; ``None`` when no sample has one), so tool-using runs
    are reported apart from runs that answered without retrieving anything.
    """
    tool_using = [r for r in results if r.interactions]
    failed = _no_failures()
    for r in results:
        for status, count in r.failed_calls.items():
            failed[status] += count
    return RunSummary(
        n=len(results),
        mean_tclr=_mean([r.tclr_exact for r in results]),
        date_leak_runs=sum(1 for r in results if r.result_leaks),
        tool_using_runs=len(tool_using),
        tool_using_mean_tclr=_mean([r.tclr_exact for r in tool_using]),
        result_leaks=sum(r.result_leaks for r in results),
        survivorship_leaks=sum(r.survivorship_leaks for r in results),
        restatement_leaks=sum(r.restatement_leaks for r in results),
        query_intent_leaks=sum(r.query_intent_leaks for r in results),
        blocked_attempts=sum(r.blocked_attempts for r in results),
        failed_calls=failed,
    )
