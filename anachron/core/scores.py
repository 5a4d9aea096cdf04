"""Per-sample scores: the input of :func:`anachron.core.compare_modes`.

A score set maps sample id -> the value of one per-sample **metric**.  Two
JSON shapes carry one (see docs/formats.md):

- a plain object ``{"finance-001": 1.0, ...}``, as ``anachron demo`` writes
  (its numbers are taken as the values of the metric named, TCLR by default);
- the output of ``anachron score --format json``,
  ``{"samples": [{"sample_id": ..., "tclr": ..., ...}, ...], "summary": ...}``,
  read whole by :func:`anachron.core.leakage.read_samples` (a malformed
  sample is an error, whatever the metric), from which the metric's field is picked;
- a per-sample TCLR file with its run, as ``anachron demo`` and ``anachron
  export`` write: ``{"run": {"mode", "model", "corpus", "corpus_fingerprint"},
  "tclr": {"finance-001": 1.0, ...}}``.  It holds TCLR only: another metric
  is refused, with how to make a file that holds it.

**Runs** (:func:`run_info`, :func:`check_runs`): a TCLR file's ``run``, a
score document's ``summary.run`` (``anachron export --format score``) or the
one ``mode`` all its samples share say what a run was.  Two runs compared
are refused when their corpus fingerprints differ (the same ids on another
corpus are other samples), and warned about when the unrestricted run is an
enforced one or the other way round (swapped arguments) or when their models
differ.  A field a file does not carry is not checked.

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

from anachron.core.errors import AnachronError, describe, did_you_mean

__all__ = ["METRICS", "RUN_FIELDS", "check_runs", "check_scores", "parse_scores", "run_info", "run_label", "tclr_document"]

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
        raise AnachronError(f"unknown metric {metric!r}: {did_you_mean(metric, METRICS)}choose one of {', '.join(METRICS)}")
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
    if type(scores) is dict and set(map(type, scores)) == {str}:
        # The common case, checked in C-level passes: every value a float in [0, 1] (a rate), or an
        # int in [0, MAX_COUNT] (a count). Anything else is checked (and named) one by one below.
        values = scores.values()
        types = set(map(type, values))
        if kind == "rate" and types <= {float, int}:
            # min and max first: past them no value is beyond a float, so isnan cannot overflow
            # (a NaN first makes max NaN; elsewhere max and min skip it, and isnan finds it).
            if 0.0 <= min(values) and max(values) <= 1.0 and not any(map(math.isnan, values)):
                return dict(zip(scores, map(float, values))) if int in types else dict(scores)
        elif kind == "count" and types == {int}:
            if 0 <= min(values) and max(values) <= MAX_COUNT:
                return dict(scores)
    checked: dict[str, float | int] = {}
    for sample_id, raw in scores.items():
        if not isinstance(sample_id, str):
            raise AnachronError(f"{where}: sample id {sample_id!r} is not a string")
        value = _value(raw, kind)
        if value is None:
            description = describe(raw) + (" (no value for this sample)" if raw is None else "")
            # An int is finite however large (isfinite would overflow converting it to a float).
            if kind == "rate" and isinstance(raw, numbers.Real) and not isinstance(raw, bool) and (
                    isinstance(raw, numbers.Integral) or math.isfinite(raw)):
                problem = f"{description}, outside [0, 1]"
            elif kind == "count" and isinstance(raw, numbers.Integral) and not isinstance(raw, bool) and raw > MAX_COUNT:
                problem = f"{description}, above 2**53, the largest exact count"
            else:
                problem = f"{description}, expected {_EXPECTED[kind]}"
            raise AnachronError(f"{where}: sample {sample_id!r}: {metric} is {problem}")
        checked[sample_id] = value
    return checked


# How to make a file holding another metric than TCLR (the message of a TCLR file asked for one).
_HOLDS_METRIC = (
    "`anachron score TRACES.jsonl --format json --out RUN.json` (traces, as demo writes them) or "
    "`anachron export LOG --format score --out RUN.json` (Inspect logs) writes every per-sample metric"
)


def _is_tclr_document(document: Mapping[str, Any]) -> bool:
    # A plain object's values are numbers: a "run" object beside a "tclr" object is this shape.
    return isinstance(document.get("run"), dict) and isinstance(document.get("tclr"), dict) and len(document) == 2


def tclr_document(tclr: Mapping[str, float], run: Mapping[str, Any]) -> dict[str, Any]:
    """A per-sample TCLR file with its *run* (fields :data:`RUN_FIELDS`, each a string or None).

    >>> tclr_document({"s1": 0.5}, {"mode": "enforced", "model": None, "corpus": "v0", "corpus_fingerprint": None})
    {'run': {'mode': 'enforced', 'model': None, 'corpus': 'v0', 'corpus_fingerprint': None}, 'tclr': {'s1': 0.5}}
    """
    return {"run": {name: run.get(name) for name in RUN_FIELDS}, "tclr": dict(tclr)}


def parse_scores(document: Any, where: str, metric: str = "tclr") -> dict[str, float | int]:
    """The scores in a parsed JSON *document* (any shape of the module doc), validated."""
    metric_kind(metric)
    if not isinstance(document, dict):
        raise AnachronError(
            f"{where}: expected a JSON object (sample id -> number, or the output of "
            f"anachron score --format json), got {describe(document)}"
        )
    if _is_tclr_document(document):
        if metric != "tclr":
            raise AnachronError(f"{where}: a per-sample TCLR file holds TCLR only, not {metric}; {_HOLDS_METRIC}")
        return check_scores(document["tclr"], where, metric)
    samples = document.get("samples")
    if not isinstance(samples, list):
        try:
            return check_scores(document, where, metric)
        except AnachronError as exc:
            if metric == "tclr":
                raise
            # Most often a TCLR file (`demo`, `export`) under another metric: say that, not "1.0 is not a count".
            raise AnachronError(
                f"{exc}; a plain {{sample_id: number}} file such as a per-sample TCLR file holds one number per "
                f"sample, read as {metric}: for {metric}, {_HOLDS_METRIC}"
            ) from None
    # Imported here: the leakage scorer (and the corpus and query intent with it) loads only when a score
    # file is read, not in every process that compares numbers (anachron outcomes).
    from anachron.core.leakage.score_json import read_samples

    picked: dict[str, object] = {}
    # Every sample is read whole (read_samples), so a malformed one fails here, whatever the metric.
    for entry, result in zip(samples, read_samples(document, where)):
        if metric not in entry:  # a score file written before the field existed: unknown, not 0
            raise AnachronError(f"{where}: sample {result.sample_id!r} has no field {metric!r}")
        picked[result.sample_id] = entry[metric]
    return check_scores(picked, where, metric)


RUN_FIELDS = ("mode", "model", "corpus", "corpus_fingerprint")


def run_info(document: Any) -> dict[str, str]:
    """What *document* says of its run: the fields of :data:`RUN_FIELDS` it carries as strings.

    A TCLR file's ``run``; a score document's ``summary.run``, and its mode
    when every sample has the same one; nothing for a plain object.  A field
    that is absent, null or not a string is left out (not checked).

    >>> run_info({"samples": [{"sample_id": "a", "mode": "enforced"}], "summary": {}})
    {'mode': 'enforced'}
    >>> run_info({"a": 1.0})
    {}
    """
    if not isinstance(document, dict):
        return {}
    if _is_tclr_document(document):
        run = document["run"]
    else:
        summary = document.get("summary")
        run = summary.get("run") if isinstance(summary, dict) else None
        run = dict(run) if isinstance(run, dict) else {}
        samples = document.get("samples")
        if "mode" not in run and isinstance(samples, list) and samples:
            modes = {entry.get("mode") if isinstance(entry, dict) else None for entry in samples}
            if len(modes) == 1:
                run["mode"] = modes.pop()
    return {name: run[name] for name in RUN_FIELDS if isinstance(run.get(name), str)}


def run_label(where: str, info: Mapping[str, str]) -> str:
    """*where* with what its run says of itself: ``u.json (unrestricted, model m, corpus v0)``.

    >>> run_label("u.json", {"mode": "unrestricted", "model": "m", "corpus": "v0"})
    'u.json (unrestricted, model m, corpus v0)'
    >>> run_label("u.json", {})
    'u.json'
    """
    parts = [info["mode"]] if "mode" in info else []
    parts += [f"model {info['model']}"] if "model" in info else []
    parts += [f"corpus {info['corpus']}"] if "corpus" in info else []
    return f"{where} ({', '.join(parts)})" if parts else where


def check_runs(unrestricted: Mapping[str, str], enforced: Mapping[str, str], names: tuple[str, str]) -> tuple[str, ...]:
    """The warnings on comparing the two runs (the :func:`run_info` of each, *names* their files).

    Different corpus fingerprints are refused (:class:`AnachronError`): the same ids on
    another corpus are other samples.  Warned about: an unrestricted run given as the
    enforced one or the other way round (swapped arguments), and different models.

    >>> check_runs({"mode": "enforced"}, {"mode": "unrestricted"}, ("a.json", "b.json"))
    ('the runs look swapped: a.json, given as the unrestricted run, is an enforced run, and b.json, given as the enforced run, is an unrestricted run; give the unrestricted run first',)
    >>> check_runs({"corpus_fingerprint": "sha256:1"}, {"corpus_fingerprint": "sha256:2"}, ("a.json", "b.json"))
    Traceback (most recent call last):
    ...
    anachron.core.errors.AnachronError: a.json and b.json are runs on different corpora (fingerprints sha256:1 and sha256:2): a paired comparison needs the same samples on the same corpus
    """
    u_name, e_name = names
    u_fp, e_fp = unrestricted.get("corpus_fingerprint"), enforced.get("corpus_fingerprint")
    if u_fp is not None and e_fp is not None and u_fp != e_fp:
        shown = [f"{info['corpus']}, " if "corpus" in info else "" for info in (unrestricted, enforced)]
        raise AnachronError(
            f"{u_name} and {e_name} are runs on different corpora (fingerprints {shown[0]}{u_fp} and {shown[1]}{e_fp}):"
            " a paired comparison needs the same samples on the same corpus"
        )
    warnings = []
    wrong = []
    if unrestricted.get("mode") not in (None, "unrestricted"):
        wrong.append(f"{u_name}, given as the unrestricted run, is an {unrestricted['mode']} run")
    if enforced.get("mode") not in (None, "enforced"):
        wrong.append(f"{e_name}, given as the enforced run, is an {enforced['mode']} run")
    if wrong:
        swapped = unrestricted.get("mode") == "enforced" and enforced.get("mode") == "unrestricted"
        lead = "the runs look swapped: " if swapped else "a run is not of the mode its place says: "
        warnings.append(lead + ", and ".join(wrong) + ("; give the unrestricted run first" if swapped else ""))
    u_model, e_model = unrestricted.get("model"), enforced.get("model")
    if u_model is not None and e_model is not None and u_model != e_model:
        warnings.append(
            f"the runs are of different models ({u_model} and {e_model}): the difference is not the time lock's alone"
        )
    return tuple(warnings)
