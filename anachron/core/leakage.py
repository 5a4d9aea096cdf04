"""The leakage metrics, per sample and per run (definitions: docs/metrics.md).

For a sample answered as of T, each tool interaction is judged on what it
surfaced:

- **result leak**: it returned an item with ``publish_date > T``
  (``publish_date == T`` does not leak).
  ``TCLR = leaking interactions / interactions``; 0.0 when there were none.
- **survivorship leak**: it returned an item naming an entity that is not
  point-in-time valid at T (``valid_from <= T <= valid_to``, a missing bound
  open).  Rate over the interactions that returned any entity-bearing item.
- **restatement leak**: it returned an item with ``restates`` set and
  ``publish_date > T``: a labelled subset of result leaks.
- **query-intent leak**: its query names a period that begins after T.
  Reported apart, never folded into TCLR.

Counts are of interactions; evidence has one line per finding, in fixed
shapes that users grep (docs/metrics.md lists them).
Means are computed with exact fractions and rounded once, to a float.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable, Sequence

from .corpus import Corpus
from .query_intent import future_references
from .trace import Interaction, Trace

__all__ = ["SampleResult", "RunSummary", "score_trace", "score_traces", "summarise"]


@dataclass(frozen=True)
class SampleResult:
    """The leakage of one sample run."""

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
        }


def _judge(interaction: Interaction, as_of: _dt.date, corpus: Corpus) -> tuple[bool, bool, bool, bool, bool, list[str]]:
    """(result, survivorship, entity-bearing, restatement, query-intent, evidence) of one interaction."""
    evidence: list[str] = []
    t = as_of.isoformat()
    if interaction.query is not None:
        query = " ".join(interaction.query.split())  # keep the evidence on one line
        for ref in future_references(interaction.query, as_of):
            evidence.append(f"query '{query}' reaches for {ref.begins} > {t}")
    query_leak = bool(evidence)

    late = [item for item in interaction.returned if item.publish_date > as_of]
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
            if entity.valid_from is not None and as_of < entity.valid_from:
                evidence.append(
                    f"entity '{entity.id}' (item {item.id}) not yet valid at {t} (valid_from {entity.valid_from})"
                )
            else:
                evidence.append(
                    f"entity '{entity.id}' (item {item.id}) no longer valid at {t} (valid_to {entity.valid_to})"
                )
    return bool(late), survivorship, entity_bearing, bool(restated), query_leak, evidence


def score_trace(trace: Trace, corpus: Corpus) -> SampleResult:
    """Score one validated :class:`Trace` against *corpus*'s entity registry."""
    counts = [0, 0, 0, 0, 0]
    evidence: list[str] = []
    for interaction in trace.interactions:
        *flags, lines = _judge(interaction, trace.as_of, corpus)
        for index, flag in enumerate(flags):
            counts[index] += bool(flag)
        evidence += lines
    result, survivorship, entity_bearing, restatement, query_intent = counts
    return SampleResult(
        sample_id=trace.sample_id,
        as_of=trace.as_of,
        mode=trace.mode,
        interactions=len(trace.interactions),
        result_leaks=result,
        survivorship_leaks=survivorship,
        survivorship_base=entity_bearing,
        restatement_leaks=restatement,
        query_intent_leaks=query_intent,
        evidence=tuple(evidence),
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
    (``None`` when no sample used a tool), so tool-using runs can be
    reported apart from runs that answered without searching.
    """
    tool_using = [r for r in results if r.interactions]
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
    )
