"""The text table of leakage results (and its head: the summary, seal and completeness lines), and the per-sample TCLR file.

The score JSON is written by the core's one writer
(:class:`anachron.core.leakage.score_json.ScoreJsonWriter`, through
:class:`anachron.output.stream.JsonWriter`); the table, sample by sample, by
:class:`anachron.output.stream.TableWriter` from the lines made here.

Shared by ``anachron score``, ``anachron demo`` and every adapter that
scores (Inspect export, MCP event logs), so one format serves them all.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from anachron.core.leakage import HORIZON_BANDS, RunSummary, SampleResult
from anachron.core.scores import tclr_document

__all__ = ["completeness_line", "head_lines", "seal_line", "summary_lines", "tclr_file", "tclr_object"]


def tclr_object(results: Sequence[SampleResult]) -> dict[str, float]:
    """``{sample_id: tclr}``, the input of ``anachron-compare``."""
    return {result.sample_id: result.tclr for result in results}


def tclr_file(results: Sequence[SampleResult], run: Mapping[str, Any]) -> dict[str, Any]:
    """The per-sample TCLR file of ``demo`` and ``export``: ``{"run": {...}, "tclr": {sample_id: tclr}}``
    (:func:`anachron.core.scores.tclr_document`; *run* its mode, model, corpus and corpus fingerprint)."""
    return tclr_document(tclr_object(results), run)


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def summary_lines(summary: RunSummary, *, every_line: bool = False) -> list[str]:
    """The per-run figures, one per line.

    The TCLR band appears when some interaction was undated, the leak horizon
    when something leaked; with *every_line* both always do (the demo sets
    two runs side by side, line for line).  The answer-leak lines appear when
    some run carried a final answer.
    """
    band = []
    if summary.undated or summary.unrecorded or every_line:
        band = [f"mean TCLR band           [{_rate(summary.mean_tclr)}, {_rate(summary.mean_tclr_high)}]"]
    h = summary.horizon
    reach = []
    if h.max is not None:
        reach = [f"leak horizon median/max  {h.median:g} / {h.max} days"]
        reach += [f"{f'  within {days} days':<25}{n}" for days, n in h.within.items()]
        reach += [f"{'  beyond 366 days':<25}{h.beyond}"]
    elif every_line:
        reach = ["leak horizon median/max  n/a"] + [f"{f'  within {days} days':<25}0" for days in HORIZON_BANDS]
        reach += [f"{'  beyond 366 days':<25}0"]
    answers = []
    if summary.answered_runs:
        answers = [
            f"answered runs            {summary.answered_runs} / {summary.n}",
            f"answer leaks retrieved   {summary.answer_leaks_retrieved}",
            f"answer leaks parametric  {summary.answer_leaks_parametric}",
        ]
    return [
        f"samples                  {summary.n}",
        f"mean TCLR                {_rate(summary.mean_tclr)}",
        *band,
        f"date-leak runs           {summary.date_leak_runs} / {summary.n}",
        f"tool-using runs          {summary.tool_using_runs} / {summary.n}",
        f"TCLR over tool-using     {_rate(summary.tool_using_mean_tclr)}",
        f"survivorship leaks       {summary.survivorship_leaks}",
        f"  not yet listed         {summary.not_yet_listed}",
        f"  already delisted       {summary.already_delisted}",
        f"restatement leaks        {summary.restatement_leaks}",
        f"query-intent leaks       {summary.query_intent_leaks}",
        f"open-period queries      {summary.open_period_queries}",
        f"content leaks            {summary.content_leaks}",
        f"date conflicts           {summary.date_conflicts}",
        f"revision risks           {summary.revision_risks}",
        *answers,
        f"undated interactions     {summary.undated}",
        *([f"unrecorded calls         {summary.unrecorded} / {summary.calls}"] if summary.unrecorded else []),
        f"blocked attempts         {summary.blocked_attempts}",
        f"failed calls             {_failed(summary.failed_calls)}",
        *reach,
        *(f"warning: {warning}" for warning in summary.warnings),
    ]


def _failed(counts) -> str:
    """``0``, or the total with its split by status: ``3 (refused 2, error 1)``."""
    total = sum(counts.values())
    if not total:
        return "0"
    return f"{total} (" + ", ".join(f"{status} {n}" for status, n in counts.items() if n) + ")"


def seal_line(summary: RunSummary) -> str:
    """The seal verdict, the table's first line, with the calls it judged: never a clean time-locked
    result with a breach, with no call audited, or without the lock's own log (``unverified``)."""
    status = summary.seal_status
    if status is None:
        return "seal audit: not run (no tools declared sealed: pass --sealed-tools or --sealed-tools-from)"
    if status == "lock-only":
        return "seal audit: no verdict: this log holds only the lock's calls (audit the harness's own log with --lock-events)"
    samples = f"{summary.n} sample{'' if summary.n == 1 else 's'}"
    audited = "" if summary.seal_calls is None else f"; {summary.seal_calls} call{'' if summary.seal_calls == 1 else 's'} audited"
    if status == "no verdict":
        return f"seal audit: no verdict (0 calls audited in {samples}): nothing shows the run was sealed"
    if status == "breached":
        breaches = f"{summary.seal_breaches} seal breach{'' if summary.seal_breaches == 1 else 'es'}"
        return f"sealed: false ({breaches} in {summary.seal_breached_runs} / {samples}{audited}): NOT a time-locked result"
    if status == "unverified":
        return f"sealed: unverified (config only: pass --lock-events EVENTS.jsonl to check the calls against the lock's log; 0 seal breaches in {samples}{audited})"
    given = f", given that {' and '.join(summary.seal_assumptions)}" if summary.seal_assumptions else ""
    return f"sealed: true{given} (0 seal breaches in {samples}{audited}; every call in the lock's log)"


def completeness_line(summary: RunSummary) -> str | None:
    """``incomplete: ...`` when some call's result is not in the log (it then heads the table, above
    the seal verdict); ``None`` when every call's result is.

    >>> from anachron.core.leakage import RunSummary
    >>> completeness_line(RunSummary(1, 0.1, 0, 1, 0.1, 0, 0, 0, 0, mean_tclr_high=0.4, unrecorded=12, calls=40))
    'incomplete: 12 of 40 tool calls recorded no result; TCLR is a band [0.100, 0.400]'
    """
    if not summary.incomplete:
        return None
    return (
        f"incomplete: {summary.unrecorded} of {summary.calls} tool call{'' if summary.calls == 1 else 's'} recorded no result;"
        f" TCLR is a band [{_rate(summary.mean_tclr)}, {_rate(summary.mean_tclr_high)}]"
    )


def head_lines(summary: RunSummary) -> list[str]:
    """The lines above the table: the completeness line when the run is incomplete, then the seal verdict.

    The verdict is left out where no audit could apply: not run (no tools declared sealed) on
    samples that hold no shell command, local call or lock receipt (a plain trace of searches
    and fetches).  The JSON keeps its seal fields (null) either way.
    """
    incomplete = completeness_line(summary)
    seal = [seal_line(summary)] if summary.seal_status is not None or summary.seal_relevant_runs else []
    return ([] if incomplete is None else [incomplete]) + seal


def table_header(width: int) -> str:
    """The header line of the per-sample table (``anachron score``), its sample column *width* wide."""
    return f"{'sample':<{width}}  as_of       TCLR    ok  result  undated  surv  restate  query  open  content  blocked  failed  seal"


def table_row(r: SampleResult, width: int) -> str:
    """One sample's line of the per-sample table; with *width* 0 the id is not padded."""
    return (
        f"{r.sample_id:<{width}}  {r.as_of}  {r.tclr:5.3f}  {r.interactions:4d}  {r.result_leaks:6d}  {r.undated:7d}"
        f"  {r.survivorship_leaks:4d}  {r.restatement_leaks:7d}  {r.query_intent_leaks:5d}  {r.open_period_queries:4d}  {r.content_leaks:7d}"
        f"  {r.blocked_attempts:7d}  {sum(r.failed_calls.values()):6d}"
        f"  {'-' if r.seal_breaches is None else r.seal_breaches:>4}"
    )


def evidence_line(line: str, width: int) -> str:
    """An evidence line of the per-sample table, under the row of its sample."""
    return f"{'':<{width}}  ! {line}"
