"""``anachron outcomes``: the forecast, resolution, leakage-score and model-cutoff files joined into one report.

OUTCOME MATERIAL (reads resolutions): never imported by a serving path.
The files are read by :mod:`anachron.forecasts.reading`; each model's
scores are :func:`anachron.forecasts.model_score.score_model`'s, its
difficulty-adjusted Brier :func:`anachron.forecasts.difficulty.difficulty_adjusted`'s;
the model badge is the bank's rule
(:meth:`anachron.bank.cutoffs.ModelCutoff.badge_on`); the paired
comparison of two models is :func:`anachron.core.stats.compare_modes` over
their per-sample Brier scores.  The report is JSON-ready data
(docs/outcomes.md, "JSON"); :mod:`anachron.forecasts.table` prints it as the
leaderboard, :mod:`anachron.output.html.forecasts` draws it, and both rank
its models by :func:`ranked`.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
from array import array
from dataclasses import replace
from itertools import combinations, compress, repeat
from operator import is_
from typing import Any, Callable, Iterator, Mapping, Sequence

from anachron.bank.cutoffs import BADGES
from anachron.core.dates import parse_date
from anachron.core.errors import AnachronError
from anachron.core.stats import compare_modes
from anachron.core.stats.paired import SMALL_N
from anachron.forecasts.difficulty import difficulty_adjusted
from anachron.forecasts.forecast import LOG_CLIP, SUM_TOLERANCE, Forecast, check_kind
from anachron.forecasts.model_score import base_rate, binary_scored_samples, score_model, scored_sample, uniform
from anachron.forecasts.reading import ForecastTable, Forecasts, load_forecasts, load_resolutions, load_scores
from anachron.forecasts.resampling import question_bootstrap

__all__ = ["build_report", "model_badge", "ranked", "small_n_warnings"]


def _baseline_forecasts(spec: str) -> tuple[str, Any]:
    """``(label, how)`` of ``--baseline``: "0.5", "base-rate" or a forecast file of one model."""
    if spec == "0.5":
        return "0.5", None
    if spec == "base-rate":
        return "base rate", None
    forecasts = load_forecasts(spec)
    if len(forecasts.by_model) != 1:
        raise AnachronError(f"{spec}: a baseline file holds one forecaster, found {len(forecasts.by_model)}")
    (name, table), = forecasts.by_model.items()
    return f"{name} ({spec})", table


def model_badge(model: str, cutoffs: Mapping[str, Any] | None, days: Sequence[_dt.date | None]) -> tuple[str, str]:
    """The model's badge and why: pre-event only when every sample's event is known to come after its release."""
    if cutoffs is None:
        return BADGES[1], "no --model-cutoffs: its release cannot be shown to predate the events"
    cutoff = cutoffs.get(model)
    if cutoff is None:
        return BADGES[1], "not in --model-cutoffs: its release cannot be shown to predate the events"
    undated = sum(1 for d in days if d is None)
    if undated:
        return BADGES[1], f"{undated} sample(s) with neither a resolution date nor T"
    late = sum(1 for d in days if cutoff.badge_on(d) == BADGES[1])
    if late:
        return BADGES[1], f"released {cutoff.release_date} on or after the resolution of {late} sample(s)"
    return BADGES[0], f"released {cutoff.release_date}, before every event"


def small_n_warnings(n: int) -> list[str]:
    """The warning ``anachron compare`` gives below :data:`SMALL_N` samples (its interval's coverage is approximate)."""
    return [f"n = {n} is below {SMALL_N}: the interval's coverage is approximate"] if n < SMALL_N else []


def _ids(ids: Sequence[str]) -> list[str]:
    return sorted(ids)


def _steps(models: int) -> int:
    """The steps of a report: each model's scores, the question bootstrap, each pair's comparison."""
    return models + 1 + models * (models - 1) // 2


def _counted(models: list[str], progress: Callable[[int, int], None] | None) -> Iterator[str]:
    """*models*, each reported to *progress* once the loop over it is done (when the next is asked for)."""
    for model in models:
        yield model
        if progress is not None:
            progress(1, _steps(len(models)))


class _Compact:
    """One model's forecasts as read, held compactly until the model is scored: its sample ids sorted (the
    reader's interned strings), a binary forecast's probability in an ``array('d')`` (NaN: categorical, kept
    whole in *other*).  About 16 bytes a binary forecast, where a dict of :class:`Forecast` costs about 130."""

    __slots__ = ("model", "ids", "probabilities", "other")

    def __init__(self, model: str, table: Mapping[str, Forecast]) -> None:
        self.model = model
        self.ids = sorted(table)
        self.probabilities = array("d")
        self.other: dict[str, Forecast] = {}
        if isinstance(table, ForecastTable):  # the reader's own table: its probabilities read in C, no Forecast made
            self.probabilities = array("d", map(table.binary.get, self.ids, repeat(math.nan, len(self.ids))))
            if table.other:
                self.other = {sample_id: table.other[sample_id] for sample_id in self.ids if sample_id in table.other}
            return
        for sample_id in self.ids:
            forecast = table[sample_id]
            if forecast.probability is not None and forecast.probabilities is None:
                self.probabilities.append(forecast.probability)
            else:
                self.probabilities.append(math.nan)
                self.other[sample_id] = forecast

    def resolved(self, resolutions: Mapping[str, Any]) -> Iterator[Forecast]:
        """Its forecasts of a resolved sample, in the order of their ids, each made again as it is asked for."""
        for sample_id, p in zip(self.ids, self.probabilities):
            if sample_id in resolutions:
                yield self.other[sample_id] if p != p else Forecast(sample_id, self.model, probability=p)


def _common(a: tuple[list[str], array[float]], b: tuple[list[str], array[float]]) -> tuple[dict[str, float], dict[str, float]]:
    """Two models' Briers over the samples both scored, in the order of their ids (each side's ids are sorted)."""
    (ids_a, briers_a), (ids_b, briers_b) = a, b
    both = set(ids_a).intersection(ids_b)
    # Each side filtered in C: its ids are sorted, so both dicts list the common samples in one order.
    side_a = dict(compress(zip(ids_a, briers_a), map(both.__contains__, ids_a)))
    side_b = dict(compress(zip(ids_b, briers_b), map(both.__contains__, ids_b)))
    return side_a, side_b


def build_report(
    forecast_files: Sequence[str | os.PathLike[str]],
    resolutions_file: str | os.PathLike[str],
    *,
    scores: Mapping[str | None, str | os.PathLike[str]] | None = None,
    cutoffs: Mapping[str, Any] | None = None,
    baseline: str = "0.5",
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The report as JSON-ready data (docs/outcomes.md, "JSON").

    *progress*, if given, is told ``(1, steps in all)`` as each step is
    done: each model's scores (with their bootstrap), the question bootstrap
    of the difficulty-adjusted Brier, each pair's paired comparison.

    *scores* maps a model name (``None``: every model) to its run's
    ``anachron score --format json`` output.  A forecast without a
    resolution is counted and listed, never scored; so is a trace answer
    stating no probability.
    """
    resolutions, unresolved_entries = load_resolutions(resolutions_file)
    by_model: dict[str, _Compact] = {}
    unread: dict[str, list[str]] = {}
    trace_as_of: dict[str, _dt.date] = {}
    for path in forecast_files:
        loaded: Forecasts = load_forecasts(path)
        for model, table in loaded.by_model.items():
            if model in by_model:
                raise AnachronError(f"{path}: model {model!r} is also in another forecast file")
            by_model[model] = _Compact(model, table)
        for model, ids in (loaded.unread or {}).items():
            unread.setdefault(model, []).extend(ids)
        trace_as_of.update(loaded.as_of or {})
        loaded = table = None  # type: ignore[assignment]  # the file's forecasts as read: compacted above
    if not by_model:
        raise AnachronError("no forecast read from " + ", ".join(map(str, forecast_files)))
    score_tables = {key: load_scores(path) for key, path in (scores or {}).items()}
    unknown = [k for k in score_tables if k is not None and k not in by_model]
    if unknown:
        raise AnachronError(f"--scores names model {unknown[0]!r}, which has no forecasts (models: {', '.join(sorted(by_model))})")
    label, given = _baseline_forecasts(baseline)
    rate = None
    if baseline == "base-rate":
        forecast_ids = sorted({s for table in by_model.values() for s in table.ids if s in resolutions})
        rate = base_rate([resolutions[s].outcome for s in forecast_ids])  # each resolved sample once

    models: list[dict[str, Any]] = []
    # Per model its scored samples' ids (sorted; the interned strings shared by every model) and their Briers:
    # 16 bytes a forecast, the only per-forecast data held from a model's scoring to the end of the report.
    per_sample_brier: dict[str, tuple[list[str], array[float]]] = {}

    def observations() -> Iterator[tuple[str, str, float]]:
        # Made from per_sample_brier when read (models in order, each one's samples sorted): not a second copy.
        return ((sample_id, model, value) for model, (ids, briers) in per_sample_brier.items()
                for sample_id, value in zip(ids, briers))
    model_names = sorted(by_model)
    for model in _counted(model_names, progress):
        table = by_model.pop(model)  # scored below: its forecasts are not needed again (10**6 of them in a large report)
        leak_table = score_tables.get(model, score_tables.get(None)) if score_tables else None
        leak_file = (scores or {}).get(model, (scores or {}).get(None, "scores"))
        known = resolutions.outcomes_of(table.ids)  # None: no resolution
        missing = list(compress(table.ids, map(is_, known, repeat(None))))
        samples = []
        days: list[_dt.date | None] = []
        if leak_table is None and given is None and cutoffs is None:
            # The usual model, binary forecasts of 0-or-1 outcomes against a constant baseline, scored in columns
            # from the floats (no Forecast or Resolution made; no badge to date, so no day kept); any other model
            # takes the loop below, which checks each sample and names the one that fails.
            ids, probabilities, outcomes = table.ids, table.probabilities, known
            if None in outcomes:  # an unresolved forecast is counted in missing, never scored
                kept = [o is not None for o in outcomes]
                ids, probabilities = list(compress(ids, kept)), array("d", compress(probabilities, kept))
                outcomes = list(compress(outcomes, kept))
            if not any(map(math.isnan, probabilities)) and set(outcomes) <= {0, 1}:
                samples = binary_scored_samples(ids, probabilities, outcomes, 0.5 if rate is None else rate)
        for forecast in [] if samples else table.resolved(resolutions):
            sample_id = forecast.sample_id
            resolution = resolutions[sample_id]
            if given is not None:
                base = given.get(sample_id)
                if base is None:
                    raise AnachronError(f"{baseline}: no baseline forecast for sample {sample_id!r}", sample_id=sample_id)
            elif rate is not None:
                base = Forecast(sample_id, "baseline", probability=rate)
            else:
                base = uniform(forecast)
            try:  # a forecast of another kind than its resolution: name the resolution's line
                check_kind(forecast, resolution.outcome)
            except AnachronError as exc:
                raise AnachronError(f"{resolution.where}: {exc}", sample_id=sample_id) from None
            record = None if leak_table is None else leak_table.get(sample_id)
            samples.append(scored_sample(forecast, resolution.outcome, base, record, f"{leak_file} (sample {sample_id})",
                                         split=leak_table is not None))
            as_of = resolution.as_of or trace_as_of.get(sample_id)
            if as_of is None and record is not None and record.get("as_of") is not None:
                try:
                    as_of = parse_date(record["as_of"])
                except AnachronError as exc:
                    raise AnachronError(f"{leak_file} (sample {sample_id}): as_of: {exc}", sample_id=sample_id) from None
            days.append(resolution.resolution_date or as_of)
        if not samples:
            raise AnachronError(
                f"model {model!r}: none of its {len(table.ids)} forecasts has a resolution in {resolutions_file}"
            )
        del table
        score = score_model(model, samples, baseline=label, n_resamples=n_resamples, seed=seed, confidence=confidence)
        badge, why = model_badge(model, cutoffs, days)
        per_sample_brier[model] = ([s.sample_id for s in samples], array("d", [s.brier for s in samples]))
        entry = score.to_dict()
        entry.update({
            "warnings": small_n_warnings(len(samples)),
            "badge": badge,
            "badge_reason": why,
            "missing_resolutions": {"n": len(missing), "samples": _ids(missing)},
            "unread_answers": {"n": len(unread.get(model, [])), "samples": _ids(unread.get(model, []))},
        })
        if leak_table is not None:
            unscored = [s.sample_id for s in samples if s.sample_id not in leak_table]
            entry["unscored_samples"] = {"n": len(unscored), "samples": _ids(unscored)}
        models.append(entry)
        del samples, days, score  # one model's objects at a time, not two
    fit = difficulty_adjusted(observations())
    adjusted_brier, fixed_effects = fit.models, {"iterations": fit.iterations, "converged": fit.converged}
    del fit  # its question effects (one a question) are not reported
    # The interval ForecastBench's way: questions resampled (within groups when the files give them: the
    # resolutions read here carry no source, so every question is its own unit) and the fit redone on each.
    intervals = question_bootstrap(observations(), n_resamples=n_resamples, seed=seed, confidence=confidence)
    if progress is not None:
        progress(1, _steps(len(model_names)))
    for entry in models:
        entry["difficulty_adjusted_brier"] = adjusted_brier[entry["model"]]
        row = intervals.models[entry["model"]]
        entry["difficulty_adjusted"] = {
            **row.adjusted.to_dict(), "brier_index": row.brier_index.to_dict(),
            "rank_first": row.rank_first, "undefined_resamples": row.undefined_resamples,
        }
    comparisons = []
    badge_of = {entry["model"]: entry["badge"] for entry in models}
    for a, b in combinations(model_names, 2):
        # The pair's inputs are made for the pair and dropped after it: two dicts of its common samples at a time.
        side_a, side_b = _common(per_sample_brier[a], per_sample_brier[b])
        if not side_a:
            comparisons.append({"a": a, "b": b, "badges": [badge_of[a], badge_of[b]], "n": 0, "note": "no sample in common"})
            if progress is not None:
                progress(1, _steps(len(model_names)))
            continue
        # A Brier score is a rate in [0, 1]: compare_modes checks it by the rule of its rate metric (tclr), and
        # the report is labelled brier (the metrics of `anachron compare` are the score output's fields).
        report = compare_modes(side_a, side_b, confidence=confidence, n_resamples=n_resamples, seed=seed, metric="tclr")
        del side_a, side_b
        comparisons.append({"a": a, "b": b, "badges": [badge_of[a], badge_of[b]], **replace(report, metric="brier").to_dict()})
        if progress is not None:
            progress(1, _steps(len(model_names)))
    return {
        "format": "anachron-outcomes/1",
        "baseline": label,
        "base_rate": rate,
        "confidence": confidence,
        "resamples": n_resamples,
        "seed": seed,
        "log_clip": LOG_CLIP,
        "sum_tolerance": SUM_TOLERANCE,
        "unresolved_entries": unresolved_entries,
        "fixed_effects": fixed_effects,
        "question_bootstrap": {k: v for k, v in intervals.to_dict().items() if k not in ("models", "parts", "seed", "confidence", "resamples", "reference")},
        "leak_split": bool(score_tables),
        "models": models,
        "comparisons": comparisons,
    }


def ranked(report: Mapping[str, Any], badge: str) -> list[Mapping[str, Any]]:
    """The leaderboard of one badge: its models by Brier, then name (the table and the HTML page rank alike)."""
    return sorted((m for m in report["models"] if m["badge"] == badge), key=lambda m: (m["brier"]["value"], m["model"]))
