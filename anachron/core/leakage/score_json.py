"""The score JSON: the one reader and the one writer of what ``anachron score --format json`` writes.

The document is ``{"samples": [SampleResult.to_dict(), ...], "summary":
RunSummary.to_dict()}`` (docs/formats.md, "Score output"), indented by two
spaces with sorted keys (:func:`anachron.core.jsonio.pretty_json`).

Every reader of a score document goes through :func:`read_samples` (or
:func:`read_sample` for one stored sample), so each reads it with one
strictness: every field checked, an unknown field refused, a count a
non-negative integer, a date by :func:`anachron.core.dates.parse_date`, and
every figure derived from the counts (``tclr``, ``tclr_low``, ``tclr_high``,
``survivorship_rate``, ``horizon_days``) equal to what its counts give.  A
malformed file is an :class:`~anachron.core.errors.AnachronError` naming
the file and the sample, never read as clean.

Reading and writing
-------------------

=======================  ==================================================
:func:`read_sample`      One sample of a score document, checked.
:func:`read_samples`     Every sample of a score document, checked.
:class:`ScoreJsonWriter` The document, written sample by sample.
=======================  ==================================================
"""

from __future__ import annotations

import math
from typing import Any, Mapping, TextIO

from anachron.core.errors import AnachronError, describe, did_you_mean
from anachron.core.jsonio import pretty_json
from anachron.core.leakage.judging import FAILED_STATUSES
from anachron.core.leakage.sample import SampleResult
from anachron.core.leakage.summary import RunSummary
from anachron.core.seal import stored_status
from anachron.core.trace import warnings_of
from anachron.core.validate import Fields, positive_int

__all__ = ["ScoreJsonWriter", "read_sample", "read_samples"]

# Counts every sample carries.
_COUNTS = ("interactions", "result_leaks", "survivorship_leaks", "survivorship_base", "restatement_leaks",
           "query_intent_leaks", "blocked_attempts", "undated", "content_leaks", "revision_risks")
# Counts absent from score files written before these fields existed: read as 0.
_LATER_COUNTS = ("not_yet_listed", "already_delisted", "answer_leaks_retrieved", "answer_leaks_parametric",
                 "open_period_queries", "unrecorded", "date_conflicts")
# Figures derived from the counts: checked against them when present (tclr always is).
_DERIVED = ("tclr", "tclr_low", "tclr_high", "survivorship_rate", "horizon_days")
# Every field SampleResult.to_dict() writes; anything else is a file of another kind, or a typo.
_FIELDS = frozenset((
    "sample_id", "as_of", "mode", "slice", "evidence", "warnings", "failed_calls", "horizons", "answered",
    "seal_breaches", "seal_calls", "seal_status", "seal_assumptions", *_COUNTS, *_LATER_COUNTS, *_DERIVED,
))


def _count(where: str, value: Any, name: str) -> int:
    try:
        return positive_int(value, name, minimum=0)
    except AnachronError as exc:
        raise AnachronError(f"{where}: {exc}") from None


def _same(stated: Any, derived: Any) -> bool:
    """Whether a stated figure is the one its counts give (floats to within rounding)."""
    if derived is None or stated is None:
        return stated is derived
    if not isinstance(stated, (int, float)) or isinstance(stated, bool):
        return False
    if isinstance(derived, int):
        return type(stated) is int and stated == derived
    return math.isclose(stated, derived, abs_tol=1e-12)  # False for NaN


def read_sample(obj: Any, where: str) -> SampleResult:
    """One sample of a score document (``SampleResult.to_dict()``), checked field by field.

    *where* names the file and place (``run.json: samples[3]``); every
    message starts with it and, once read, the sample id.
    """
    if not isinstance(obj, dict):
        raise AnachronError(f"{where}: expected an object, got {describe(obj)}")
    sample_id = Fields(where, obj).text("sample_id")
    where = f"{where} (sample {sample_id!r})"
    f = Fields(where, obj)
    unknown = sorted(name for name in obj if name not in _FIELDS)
    if unknown:
        raise AnachronError(f"{where}: unknown field {unknown[0]!r}: {did_you_mean(unknown[0], sorted(_FIELDS))}"
                            "not a field of `anachron score --format json`")
    counts: dict[str, Any] = {}
    for name in _COUNTS:
        if name not in obj:
            raise f.missing(name)
        counts[name] = _count(where, obj[name], name)
    for name in _LATER_COUNTS:
        counts[name] = _count(where, obj.get(name, 0), name)
    for name in ("seal_breaches", "seal_calls"):  # null: the run was not audited
        if obj.get(name) is not None:
            counts[name] = _count(where, obj[name], name)
    try:  # absent from score files written before it existed: what their seal_breaches supports
        counts["seal_status"] = stored_status(obj.get("seal_status", ...), counts.get("seal_breaches"))
    except AnachronError as exc:
        raise AnachronError(f"{where}: {exc}") from None
    assumptions = obj.get("seal_assumptions", [])
    if not isinstance(assumptions, list) or not all(isinstance(line, str) for line in assumptions):
        raise f.error("seal_assumptions", "expected a list of strings")
    answered = obj.get("answered", False)
    if not isinstance(answered, bool):
        raise f.error("answered", f"expected true or false, got {describe(answered)}")
    mode = obj.get("mode")
    if mode is not None and not isinstance(mode, str):
        raise f.error("mode", f"expected a string or null, got {describe(mode)}")
    slice_ = obj.get("slice")  # absent from score files written before it existed
    if slice_ is not None and not isinstance(slice_, str):
        raise f.error("slice", f"expected a string or null, got {describe(slice_)}")
    evidence = f.list("evidence")
    if not all(isinstance(line, str) for line in evidence):
        raise f.error("evidence", "expected a list of strings")
    horizons = obj.get("horizons", [])
    if not isinstance(horizons, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in horizons
    ):
        raise f.error("horizons", "expected a list of positive integers (days past T)")
    failed = obj.get("failed_calls", {})
    if not isinstance(failed, dict) or set(failed) - set(FAILED_STATUSES):
        raise f.error("failed_calls", f"expected an object of {', '.join(FAILED_STATUSES)} -> count")
    failed_calls = {s: _count(where, failed.get(s, 0), f"failed_calls.{s}") for s in FAILED_STATUSES}
    result = SampleResult(
        sample_id=sample_id,
        as_of=f.date("as_of"),  # type: ignore[arg-type]
        mode=mode,
        slice=slice_,
        evidence=tuple(evidence),
        warnings=warnings_of(f),
        failed_calls=failed_calls,
        horizons=tuple(horizons),
        answered=answered,
        seal_assumptions=tuple(assumptions),
        **counts,
    )
    if counts["result_leaks"] > counts["interactions"] or counts["undated"] > counts["interactions"]:
        raise AnachronError(f"{where}: more leaking or undated interactions than interactions")
    if counts["date_conflicts"] > counts["interactions"]:  # each is an interaction that returned a conflicting item
        raise AnachronError(f"{where}: more interactions with a date conflict than interactions")
    if "tclr" not in obj:
        raise f.missing("tclr")
    derived = result.to_dict()
    for name in _DERIVED:
        if name in obj and not _same(obj[name], derived[name]):
            raise f.error(name, f"is {describe(obj[name])}, but its counts give {derived[name]!r}"
                          + (f" ({counts['result_leaks']}/{result.tclr_base})" if name in ("tclr", "tclr_low") else ""))
    return result


def read_samples(document: Any, where: str) -> list[SampleResult]:
    """The samples of a score document (``{"samples": [...], "summary": ...}``) in file *where*, each
    checked by :func:`read_sample`; none, or a sample id twice, is an error."""
    if not isinstance(document, dict) or not isinstance(document.get("samples"), list):
        raise AnachronError(f"{where}: expected the output of `anachron score --format json` (an object with 'samples')")
    results = [read_sample(entry, f"{where}: samples[{i}]") for i, entry in enumerate(document["samples"])]
    if not results:
        raise AnachronError(f"{where}: no samples")
    seen: set[str] = set()
    for r in results:
        if r.sample_id in seen:
            raise AnachronError(f"{where}: sample {r.sample_id!r} appears twice")
        seen.add(r.sample_id)
    return results


_COPY = 1 << 20  # characters per read when a writer copies a file of parts


class ScoreJsonWriter:
    """``{"samples": [...], "summary": {...}}``, written to *out* as it comes.

    The bytes are those of ``dump_json`` of the whole document: each sample's
    text is :meth:`part` (``pretty_json`` nested two levels deep), so samples
    scored in other processes (``--jobs``) are copied in unchanged.
    """

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.count = 0
        out.write('{\n  "samples": [')

    @staticmethod
    def part(result: SampleResult) -> str:
        """One sample's text, as it follows another (the first drops the comma)."""
        return ",\n    " + pretty_json(result.to_dict(), "    ")

    def sample(self, result: SampleResult) -> None:
        text = self.part(result)
        self.out.write(text if self.count else text[1:])
        self.count += 1

    def add_parts(self, parts: TextIO, count: int, width: int) -> None:
        """Copy *count* samples' parts, written by :meth:`part` to *parts* (``--jobs``)."""
        if not count:
            return
        if not self.count:
            parts.read(1)
        for chunk in iter(lambda: parts.read(_COPY), ""):
            self.out.write(chunk)
        self.count += count

    def finish(self, summary: RunSummary, fields: Mapping[str, Any] | None = None) -> None:
        """Write the *summary*, with a command's own *fields* after the core's, and close the document."""
        close = "\n  ]" if self.count else "]"
        shown = summary.to_dict() if fields is None else {**summary.to_dict(), **fields}
        self.out.write(f'{close},\n  "summary": {pretty_json(shown, "  ")}\n}}\n')

    def close(self) -> None:
        pass
