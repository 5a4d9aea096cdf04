"""Per-sample scores: the input of :func:`anachron.core.compare_modes`.

A score set maps sample id -> the value of one per-sample **metric**.  Two
JSON shapes carry one (see docs/formats.md):

- a plain object ``{"finance-001": 1.0, ...}``, as ``anachron demo`` writes
  (its numbers are taken as the values of the metric named, TCLR by default);
- the output of ``anachron score --format json``,
  ``{"samples": [{"sample_id": ..., "tclr": ..., ...}, ...], "summary": ...}``,
  from which the metric's field is picked.

Metrics are the numeric per-sample fields of the score output.  A **rate**
(``tclr``, ``survivorship_rate``) must be a finite number in [0, 1]; a
**count** (``interactions`` and the ``*_leaks``) a non-negative integer.
A null value is an error naming the sample: ``survivorship_rate`` is null
when a sample returned no entity-bearing item, and a pair with an undefined
side cannot be compared (dropping it would silently change the sample set;
compare ``survivorship_leaks`` instead).

Nothing here reads files: the CLI reads, and passes the parsed JSON value
and the file name to :func:`parse_scores`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import Any

from .errors import AnachronError, describe

__all__ = ["METRICS", "check_scores", "parse_scores"]

# The numeric per-sample fields of SampleResult.to_dict() and their kind.
METRICS: dict[str, str] = {
    "tclr": "rate",
    "tclr_low": "rate",
    "tclr_high": "rate",
    "survivorship_rate": "rate",
    "interactions": "count",
    "result_leaks": "count",
    "survivorship_leaks": "count",
    "restatement_leaks": "count",
    "query_intent_leaks": "count",
    "blocked_attempts": "count",
    "undated": "count",
    "content_leaks": "count",
    "revision_risks": "count",
    "date_conflicts": "count",
    "survivorship_base": "count",
    "not_yet_listed": "count",
    "already_delisted": "count",
    "answer_leaks_retrieved": "count",
    "answer_leaks_parametric": "count",
    "open_period_queries": "count",
    "unrecorded": "count",  # calls whose result the log does not hold
    "seal_breaches": "count",  # null when the run was not audited (no --sealed-tools)
}

_EXPECTED = {"rate": "a number in [0, 1]", "count": "a non-negative integer"}
MAX_COUNT = 2**53  # the largest count every mean of counts represents exactly


def metric_kind(metric: object) -> str:
    """``"rate"`` or ``"count"``; an unknown metric is an error."""
    if not isinstance(metric, str) or metric not in METRICS:
        raise AnachronError(f"unknown metric {metric!r}: choose one of {', '.join(METRICS)}")
    return METRICS[metric]


def _value(value: object, kind: str) -> float | int | None:
    """The checked value, or None when it breaks the kind's rule."""
    exact_type = type(value)
    if exact_type is float or exact_type is int:  # JSON's numbers: skip the slow ABC checks
        if kind == "count":
            return value if exact_type is int and 0 <= value <= MAX_COUNT else None
        return float(value) if 0.0 <= value <= 1.0 else None  # False for NaN
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    if kind == "count":
        return int(value) if isinstance(value, numbers.Integral) and 0 <= value <= MAX_COUNT else None
    number = float(value)
    return number if 0.0 <= number <= 1.0 else None  # False for NaN


def check_scores(scores: object, where: str, metric: str = "tclr") -> dict[str, float | int]:
    """Validate a mapping sample id -> *metric* value; return a plain dict.

    *where* names the source in every message (a file, or "unrestricted").
    """
    kind = metric_kind(metric)
    if not isinstance(scores, Mapping):
        raise AnachronError(f"{where}: expected a mapping of sample id -> {metric}, got {describe(scores)}")
    if not scores:
        raise AnachronError(f"{where}: no samples")
    checked: dict[str, float | int] = {}
    for sample_id, raw in scores.items():
        if not isinstance(sample_id, str):
            raise AnachronError(f"{where}: sample id {sample_id!r} is not a string")
        value = _value(raw, kind)
        if value is None:
            description = describe(raw) + (" (no value for this sample)" if raw is None else "")
            if kind == "rate" and isinstance(raw, numbers.Real) and not isinstance(raw, bool) and math.isfinite(raw):
                problem = f"{description}, outside [0, 1]"
            elif kind == "count" and isinstance(raw, numbers.Integral) and not isinstance(raw, bool) and raw > MAX_COUNT:
                problem = f"{description}, above 2**53, the largest exact count"
            else:
                problem = f"{description}, expected {_EXPECTED[kind]}"
            raise AnachronError(f"{where}: sample {sample_id!r}: {metric} is {problem}")
        checked[sample_id] = value
    return checked


def parse_scores(document: Any, where: str, metric: str = "tclr") -> dict[str, float | int]:
    """The scores in a parsed JSON *document* (either shape), validated."""
    metric_kind(metric)
    if not isinstance(document, dict):
        raise AnachronError(
            f"{where}: expected a JSON object (sample id -> number, or the output of "
            f"anachron score --format json), got {describe(document)}"
        )
    samples = document.get("samples")
    if not isinstance(samples, list):
        return check_scores(document, where, metric)
    picked: dict[str, object] = {}
    for index, entry in enumerate(samples):
        if not isinstance(entry, dict):
            raise AnachronError(f"{where}: samples[{index}]: expected an object, got {describe(entry)}")
        sample_id = entry.get("sample_id")
        if not isinstance(sample_id, str):
            raise AnachronError(f"{where}: samples[{index}]: sample_id is {describe(sample_id)}, expected a string")
        if sample_id in picked:
            raise AnachronError(f"{where}: sample {sample_id!r} appears twice")
        if metric not in entry:
            raise AnachronError(f"{where}: sample {sample_id!r} has no field {metric!r}")
        picked[sample_id] = entry[metric]
    return check_scores(picked, where, metric)
