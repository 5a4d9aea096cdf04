"""Routes v2: the frozen outcome analysis of the date-presentation study.

The design is research/routes-v2/PROTOCOL.md.  Every source is run in four
arms that differ only in how the document's date is shown (the Inspect
adapter's ``date_presentation`` task parameter; the arm labels below are its
values).  Per run, the outcome extraction records whether the agent saw the
source in a search result (``exposed``), fetched its text (``used``) and named
it in the final answer (``cited``).

:func:`run_outcome_analysis` is the only entry point.  It first requires the
freeze gate to pass and the code it is about to execute to be byte-identical to
sealed analysis files; only then does it read the outcome file.  Everything it
computes is fixed here, before any outcome exists: the arms, the exclusion
rule, the contrasts, the null margin and the bootstrap settings.
"""

from __future__ import annotations

import csv
import datetime as _dt
import io
import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

from ..core.dates import parse_date
from ..core.stats import compare_modes, holm
from ..core.errors import AnachronError
from ..core.jsonio import read_jsonl
from .freeze import require_passed, sha256_hex, verify_code

__all__ = ["ARMS", "STUDY", "run_outcome_analysis"]

STUDY = "routes-v2"
CUTOFF_GAP_DAYS = 30  # |true date - as-of date| of every source
SHIFT_DAYS = 60  # the shift arms move the shown date this far: across the cutoff, 30 days beyond it
ARMS = ("visible", "hidden", f"shift:+{SHIFT_DAYS}", f"shift:-{SHIFT_DAYS}")
STRATA = ("pre", "post")
MIN_VALID_RUNS = 3  # per source and arm, or the source leaves every contrast
NULL_MARGIN = Fraction(1, 10)  # a CI inside (-0.10, +0.10) is a null result
CONFIDENCE = 0.95
N_RESAMPLES = 10_000
SEED = 0

SOURCE_COLUMNS = (
    "source_id",
    "stratum",
    "true_date",
    "as_of",
    "content_sha256",
    "origin",
    "revalidated_by",
    "revalidated_on",
)
_RECORD_KEYS = {"source_id", "arm", "run", "status", "exposed", "used", "cited", "error"}
_OUTCOMES = ("exposed", "used", "cited")
_RATE_FIELDS = {"citation": "cited", "exposure": "exposed"}


@dataclass(frozen=True)
class Source:
    id: str
    stratum: str
    true_date: _dt.date
    as_of: _dt.date


@dataclass(frozen=True)
class Contrast:
    """``a`` minus ``b`` on one per-source rate, over one stratum or all."""

    name: str
    outcome: str  # "reliance" (used or cited) or "citation"
    a: str
    b: str
    stratum: str | None = None


_BEFORE, _PAST = f"shift:-{SHIFT_DAYS}", f"shift:+{SHIFT_DAYS}"
PRIMARY = Contrast("shown-before-vs-shown-past", "reliance", _BEFORE, _PAST)
SECONDARY = (
    Contrast("hidden-vs-visible", "reliance", "hidden", "visible"),
    Contrast("shown-before-vs-shown-past:pre", "reliance", _BEFORE, _PAST, "pre"),
    Contrast("shown-before-vs-shown-past:post", "reliance", _BEFORE, _PAST, "post"),
    Contrast("citation:shown-before-vs-shown-past", "citation", _BEFORE, _PAST),
)


# -------------------------------------------------------------------- inputs


def _read_sources(path: Path, sealed_sha256: str) -> dict[str, Source]:
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AnachronError(f"{path}: cannot read the source list: {exc}") from None
    # Parse the very bytes the seal vouches for, not a later copy.
    if sha256_hex(data) != sealed_sha256:
        raise AnachronError(f"{path}: changed since the freeze check; run it again")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    sources: dict[str, Source] = {}
    try:
        header = next(reader, None)
        if header is None or tuple(header) != SOURCE_COLUMNS:
            raise AnachronError(f"{path}:1: the header must be {','.join(SOURCE_COLUMNS)}")
        for cells in reader:
            where = f"{path}:{reader.line_num}"
            if not cells:
                continue
            if len(cells) != len(SOURCE_COLUMNS):
                raise AnachronError(f"{where}: expected {len(SOURCE_COLUMNS)} fields, found {len(cells)}")
            row = dict(zip(SOURCE_COLUMNS, cells))
            source_id = row["source_id"]
            if not source_id or source_id != source_id.strip():
                raise AnachronError(f"{where}: source_id must be non-empty with no surrounding space")
            if source_id in sources:
                raise AnachronError(f"{where}: duplicate source_id {source_id!r}")
            sources[source_id] = _source(row, where)
    except csv.Error as exc:
        raise AnachronError(f"{path}:{reader.line_num}: malformed CSV: {exc}") from None
    return sources


def _source(row: Mapping[str, str], where: str) -> Source:
    if row["stratum"] not in STRATA:
        raise AnachronError(f"{where}: stratum must be pre or post, found {row['stratum']!r}")
    try:
        true_date = parse_date(row["true_date"])
        as_of = parse_date(row["as_of"])
        parse_date(row["revalidated_on"])
    except ValueError as exc:
        raise AnachronError(f"{where}: {exc}") from None
    # "pre": the document predates the cutoff; "post": it postdates it.
    gap = (as_of - true_date).days if row["stratum"] == "pre" else (true_date - as_of).days
    if gap != CUTOFF_GAP_DAYS:
        side = "before" if row["stratum"] == "pre" else "after"
        raise AnachronError(
            f"{where}: a {row['stratum']} source's true_date must lie {CUTOFF_GAP_DAYS} days {side} its as_of, "
            f"found {row['true_date']} for {row['as_of']}"
        )
    digest = row["content_sha256"]
    if len(digest) != 64 or any(ch not in "0123456789abcdef" for ch in digest):
        raise AnachronError(f"{where}: content_sha256 must be 64 lowercase hex digits")
    for name in ("origin", "revalidated_by"):
        if not row[name].strip():
            raise AnachronError(f"{where}: {name} is empty")
    return Source(row["source_id"], row["stratum"], true_date, as_of)


def _read_outcomes(path: str | os.PathLike[str], sources: Mapping[str, Source]) -> tuple[dict[tuple[str, str], list[dict]], int]:
    """The valid runs per (source, arm), and how many runs errored."""
    runs: dict[tuple[str, str], list[dict]] = {}
    seen: dict[tuple[str, str, int], int] = {}
    errored = 0
    for number, record in read_jsonl(path):
        where = f"{path}:{number}"
        unknown = sorted(set(record) - _RECORD_KEYS)
        if unknown:
            raise AnachronError(f"{where}: unknown field {unknown[0]!r}")
        source_id, arm, run, status = (record.get(k) for k in ("source_id", "arm", "run", "status"))
        if not isinstance(source_id, str) or source_id not in sources:
            raise AnachronError(f"{where}: source_id {source_id!r} is not in the frozen source list")
        if arm not in ARMS:
            raise AnachronError(f"{where}: arm {arm!r} is not one of {', '.join(ARMS)}")
        if not isinstance(run, int) or isinstance(run, bool) or run < 1:
            raise AnachronError(f"{where}: run must be an integer >= 1")
        key = (source_id, arm, run)
        if key in seen:
            raise AnachronError(f"{where}: duplicate run {run} of {source_id} in arm {arm} (first on line {seen[key]})")
        seen[key] = number
        if not isinstance(record.get("error", ""), str):
            raise AnachronError(f"{where}: error must be a message string")
        if status == "error":
            if any(k in record for k in _OUTCOMES):
                raise AnachronError(f"{where}: an errored run carries no outcome fields")
            errored += 1
            continue
        if status != "ok":
            raise AnachronError(f"{where}: status must be ok or error, found {status!r}")
        for name in _OUTCOMES:
            if not isinstance(record.get(name), bool):
                raise AnachronError(f"{where}: {name} must be true or false")
        runs.setdefault((source_id, arm), []).append(record)
    return runs, errored


# ------------------------------------------------------------------ analysis


def _rate(records: list[dict], outcome: str) -> Fraction:
    """Hits over valid runs.  Reliance: the run fetched or cited the source."""
    if outcome == "reliance":
        hits = sum(r["used"] or r["cited"] for r in records)
    else:
        hits = sum(r[_RATE_FIELDS[outcome]] for r in records)
    return Fraction(hits, len(records))


def _mean_rate(included: list[Source], records: list[dict], arm: str, outcome: str) -> float:
    return float(sum(_rate(records[(s.id, arm)], outcome) for s in included) / len(included))


def _decision(ci_low: float, ci_high: float) -> str:
    if -NULL_MARGIN < Fraction(ci_low) and Fraction(ci_high) < NULL_MARGIN:
        return "null"
    if ci_low > 0 or ci_high < 0:
        return "effect"
    return "inconclusive"


def _contrast(contrast: Contrast, included: list[Source], runs) -> dict[str, Any]:
    chosen = [s for s in included if contrast.stratum in (None, s.stratum)]
    result: dict[str, Any] = {
        "name": contrast.name,
        "outcome": contrast.outcome,
        "a": contrast.a,
        "b": contrast.b,
        "stratum": contrast.stratum or "all",
        "n": len(chosen),
        "comparison": None,
    }
    if chosen:
        a = {s.id: float(_rate(runs[(s.id, contrast.a)], contrast.outcome)) for s in chosen}
        b = {s.id: float(_rate(runs[(s.id, contrast.b)], contrast.outcome)) for s in chosen}
        comparison = compare_modes(a, b, confidence=CONFIDENCE, n_resamples=N_RESAMPLES, seed=SEED).to_dict()
        # compare_modes names its sides after the enforcement study: here
        # "unrestricted" is arm a, "enforced" arm b, and a rate is checked
        # as TCLR is (a number in [0, 1]); the label says what was compared.
        comparison["metric"] = f"{contrast.outcome} rate"
        result["comparison"] = comparison
    return result


def run_outcome_analysis(directory: str | os.PathLike[str], outcomes: str | os.PathLike[str]) -> dict[str, Any]:
    """Run the frozen Routes v2 analysis on an outcome file (JSON Lines).

    Raises :class:`~anachron.research.freeze.FreezeNotPassed` before reading
    *outcomes* unless the freeze gate of *directory* passes and every module
    this analysis executes (:func:`~anachron.research.freeze.code_closure` of
    this module) is byte-identical to a sealed analysis file.
    Raises :class:`AnachronError` for a malformed source list or outcome file,
    and when no source is left for the primary contrast.

    A source enters the analysis when each arm has at least
    ``MIN_VALID_RUNS`` runs with status ``ok``; its rate in an arm is hits
    over valid runs.  The primary decision is ``effect`` when the paired
    bootstrap CI of the mean difference excludes 0 and does not lie inside
    (-0.10, +0.10), ``null`` when it lies inside, else ``inconclusive``.
    Secondary sign-test p-values are Holm-adjusted.
    """
    report = require_passed(directory)
    if report.contract.study != STUDY:
        raise AnachronError(f"{directory}: the contract is for study {report.contract.study!r}, not {STUDY!r}")
    verify_code(report, __name__)

    frozen = report.contract.role("sources")[0]
    sources = _read_sources(Path(report.root) / frozen.path, frozen.sha256)
    runs, errored = _read_outcomes(outcomes, sources)
    included, excluded = [], []
    for source in sources.values():
        counts = {arm: len(runs.get((source.id, arm), ())) for arm in ARMS}
        short = [f"{arm}: {n}" for arm, n in counts.items() if n < MIN_VALID_RUNS]
        if short:
            excluded.append({"source_id": source.id, "reason": f"fewer than {MIN_VALID_RUNS} valid runs ({'; '.join(short)})"})
        else:
            included.append(source)
    if not included:
        raise AnachronError(f"{outcomes}: no source has {MIN_VALID_RUNS} valid runs in every arm; the primary contrast is empty")

    # Exposure (the source surfaced in a search) is the manipulation check.
    rates = {arm: {o: _mean_rate(included, runs, arm, o) for o in ("reliance", "citation", "exposure")} for arm in ARMS}
    primary = _contrast(PRIMARY, included, runs)
    primary["decision"] = _decision(primary["comparison"]["ci_low"], primary["comparison"]["ci_high"])
    secondary = [_contrast(c, included, runs) for c in SECONDARY]
    adjusted = holm([s["comparison"]["sign_test_p"] if s["comparison"] else None for s in secondary])
    for result, p in zip(secondary, adjusted):
        result["holm_p"] = p

    return {
        "study": STUDY,
        "contract_sha256": report.contract_sha256,
        "parameters": {
            "arms": list(ARMS),
            "min_valid_runs": MIN_VALID_RUNS,
            "null_margin": float(NULL_MARGIN),
            "confidence": CONFIDENCE,
            "n_resamples": N_RESAMPLES,
            "seed": SEED,
        },
        "sources": {
            "listed": len(sources),
            "included": [s.id for s in included],
            "excluded": excluded,
        },
        "runs": {"valid": sum(len(v) for v in runs.values()), "errored": errored},
        "rates": rates,
        "primary": primary,
        "secondary": secondary,
    }
