"""The leakage metrics, per call, per sample and per run (definitions: docs/metrics.md).

This package only re-exports; each job is a module of its own:

- :mod:`~anachron.core.leakage.judging`: what one tool call surfaced as of T
  (:func:`judge`, :class:`Judgement`, :data:`FAILED_STATUSES`);
- :mod:`~anachron.core.leakage.sample`: one sample's leakage
  (:class:`SampleResult`, :func:`score_trace`, :func:`score_traces`, :func:`sample_slice`);
- :mod:`~anachron.core.leakage.summary`: a run's totals
  (:class:`RunSummary`, :func:`summarise`, :func:`horizon`, :func:`run_warnings`);
- :mod:`~anachron.core.leakage.score_json`: the one reader and writer of the
  score JSON document, what ``anachron score --format json`` writes
  (:func:`read_sample`, :func:`read_samples`, :class:`ScoreJsonWriter`).
"""

from anachron.core.leakage.judging import FAILED_STATUSES, Judgement, judge
from anachron.core.leakage.sample import SampleResult, sample_slice, score_trace, score_traces
from anachron.core.leakage.score_json import ScoreJsonWriter, read_sample, read_samples
from anachron.core.leakage.summary import HORIZON_BANDS, Horizon, RunSummary, horizon, run_warnings, summarise

__all__ = [
    "FAILED_STATUSES",
    "HORIZON_BANDS",
    "Horizon",
    "Judgement",
    "RunSummary",
    "SampleResult",
    "ScoreJsonWriter",
    "horizon",
    "judge",
    "read_sample",
    "read_samples",
    "sample_slice",
    "score_trace",
    "score_traces",
    "run_warnings",
    "summarise",
]
