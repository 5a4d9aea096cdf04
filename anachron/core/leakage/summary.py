"""A run's leakage: the totals over its samples (:class:`RunSummary`), in one pass.

Means are computed with exact fractions and rounded once, to a float.

Summaries
---------

======================  =================================================
:func:`summarise`       Per-run totals over a list or a stream of results.
:func:`horizon`         The leak horizon of a run's post-T days.
:func:`run_warnings`    A run's warnings, each sample warning once.
:class:`RunSummary`     Totals over the samples of one run.
:class:`Horizon`        How far past T a run's result leaks reached.
:data:`HORIZON_BANDS`   The horizon's bands, in days.
======================  =================================================
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Mapping, Sequence

from anachron.core.display import render_html
from anachron.core.docs import doc_url
from anachron.core.leakage.judging import no_failures
from anachron.core.leakage.sample import SampleResult
from anachron.core.seal import run_status

__all__ = ["HORIZON_BANDS", "Horizon", "RunSummary", "horizon", "run_warnings", "summarise"]


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
    failed_calls: Mapping[str, int] = field(default_factory=no_failures)
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
        """A notebook's display: every figure with its denominator (:mod:`anachron.core.display`)."""
        return render_html(self)



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
    failed = no_failures()
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
