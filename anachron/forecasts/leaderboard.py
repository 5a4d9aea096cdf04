"""ForecastBench's leaderboard from its own files, with the leak split: ``anachron outcomes --forecastbench``.

OUTCOME MATERIAL (reads resolutions): never imported by a serving path.
The files are read by :mod:`anachron.forecasts.forecastbench`; every row's
intervals on the Brier, the skill ratio, the adjusted Brier and the Brier
Index, its p-value and its first places come from one question bootstrap of
the board (:func:`anachron.forecasts.resampling.question_bootstrap`:
questions resampled within (due date, source), the difficulty refitted on
each resample; a ``--by`` row is a subset scored against its type's effects
on the same draws); its n, log loss and leak split are
:func:`anachron.forecasts.model_score.score_model`'s (another can be
plugged in per row as *score_row*: it is given the row's samples and their
entries); the question effects are :func:`anachron.forecasts.difficulty.difficulty_adjusted`'s
fit on the difficulty pool, or an outside file's.  docs/outcomes.md,
"ForecastBench leaderboards", gives each definition and its source in
ForecastBench's code:

- a row per model and question type (``dataset``, ``market``: the
  question's ``source``), and ``overall``, the mean of the type means;
  with *by*, a row per model and source (or round) too;
- per row: n, the Brier (with its CI), the difficulty-adjusted Brier on
  ForecastBench's scale (the question effects averaging 0 over the type's
  questions, so "Always 0.5" scores 0.25), the **Brier Index**
  ``(1 - sqrt(adjusted Brier)) * 100``, the skill ratio against 0.5, the
  skill **difference** from a named reference forecaster (ForecastBench's
  BSS against its Naive Forecaster), and the leak split;
- imputation (only when asked): a forecast missing from a round is 0.5,
  flagged, and a model's round with more than 5% filled is dropped;
- knowledge in the weights: given a training cutoff, the Brier over the
  questions resolved on or before it and over those after, and the gap
  with a bootstrap CI.
"""

from __future__ import annotations

import datetime as _dt
import math
import random
from typing import Any, Callable, Mapping, Sequence

from anachron.bank.cutoffs import BADGES
from anachron.core.dates import known_at
from anachron.core.errors import AnachronError
from anachron.core.stats.bootstrap import bootstrap_column_totals, percentile
from anachron.core.validate import positive_int
from anachron.forecasts.difficulty import difficulty_adjusted
from anachron.forecasts.forecast import Forecast
from anachron.forecasts.forecastbench import BENCHMARK, DUMMY_MODELS, Entry, Rounds
from anachron.forecasts.model_score import ModelScore, ScoredSample, score_model, scored_sample, uniform
from anachron.forecasts.report import model_badge, small_n_warnings
from anachron.forecasts.resampling import ModelResamples, brier_index, question_bootstrap
from anachron.forecasts.table import grid

__all__ = [
    "CSV_COLUMNS", "IMPUTED_CUTOFF", "ScoreRow", "MODEL_AGE_CUTOFF_DAYS", "TYPES", "brier_index", "build_leaderboard", "csv_records", "effect_key",
    "memory_gap", "ranked_rows", "render_leaderboard",
]

TYPES = ("dataset", "market")
IMPUTED_CUTOFF = 0.05  # ForecastBench's IMPUTED_CUTOFF_PCT: a round with more than 5% filled is dropped
MODEL_AGE_CUTOFF_DAYS = 365  # ForecastBench's MODEL_RELEASE_DAYS_CUTOFF: older models leave the difficulty pool
FILL = 0.5  # ForecastBench's default imputation (src/resolve/_impute.py)
_SCALE = 1 << 27  # the fixed point of the memory gap's resampled Brier sums (each within 2**-28 of its float)

# (model, the row's samples, their entries in the same order) -> the row's scores and intervals.
ScoreRow = Callable[[str, Sequence[ScoredSample], Sequence[Entry]], ModelScore]


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def memory_gap(
    before: Sequence[float], after: Sequence[float], *, n_resamples: int, seed: int, confidence: float
) -> dict[str, Any]:
    """The Brier over questions resolved after the training cutoff minus that over those resolved on or before it.

    A positive gap: the model does better on what it could have read in
    training.  The CI is a percentile bootstrap resampling each part apart
    (``random.Random(seed)``, the after part's B resamples drawn first; each
    part's resample sums made in C by the block resampler, on the Briers in
    fixed point as :func:`anachron.forecasts.model_score.score_model` does);
    no part, no gap.

    >>> memory_gap([0.0, 0.0], [0.25, 0.25], n_resamples=100, seed=0, confidence=0.9)["gap"]["value"]
    0.25
    """
    out: dict[str, Any] = {
        "before": {"brier": _mean(before), "n": len(before)},
        "after": {"brier": _mean(after), "n": len(after)},
        "gap": {"value": None, "ci_low": None, "ci_high": None},
        "warnings": small_n_warnings(min(len(before), len(after))) if before and after else [],
    }
    positive_int(n_resamples, "n_resamples")
    if not before or not after:
        out["warnings"].append("no question on one side of the cutoff: no gap")
        return out
    rng = random.Random(seed)
    nb, na = len(before), len(after)
    after_sums = bootstrap_column_totals([[round(v * _SCALE) for v in after]], n_resamples, rng)
    before_sums = bootstrap_column_totals([[round(v * _SCALE) for v in before]], n_resamples, rng)
    draws = sorted(a / (na * _SCALE) - b / (nb * _SCALE) for (a,), (b,) in zip(after_sums, before_sums))
    alpha = (1 - confidence) / 2
    out["gap"] = {
        "value": out["after"]["brier"] - out["before"]["brier"],
        "ci_low": percentile(draws, alpha),
        "ci_high": percentile(draws, 1 - alpha),
    }
    return out


def _in_pool(model: str, bare: str, day: _dt.date, exclude: set[str], preset: bool, cutoffs: Mapping[str, Any] | None) -> bool:
    if model in exclude or bare in exclude:
        return False
    if not preset:
        return True
    if bare in DUMMY_MODELS:
        return False
    cutoff = (cutoffs or {}).get(model)
    # No release date: nothing shows the model is old, and ForecastBench keeps such models too.
    return cutoff is None or (day - cutoff.release_date).days < MODEL_AGE_CUTOFF_DAYS


def effect_key(entry: Entry) -> tuple[str, str, str, int | None]:
    """How ForecastBench's question-effects file names *entry*'s question: ``(due date, source, id, horizon)``,
    the horizon in days for a dataset question and ``None`` for a market one (``write_question_fixed_effects``)."""
    horizon = None
    if entry.qtype == "dataset" and entry.resolution_date is not None:
        horizon = (entry.resolution_date - entry.round).days
    return (entry.round.isoformat(), entry.source, entry.question, horizon)


def _effects(
    observations: list[tuple[str, str, float]], questions: set[str], external: Mapping[str, float] | None
) -> tuple[dict[str, float], dict[str, Any]]:
    """The question effects of one type, averaging 0 over its questions that have one, and how they were got."""
    if external is not None:
        raw = {q: external[q] for q in questions if q in external}
        info: dict[str, Any] = {"from": "file"}
    elif observations:
        fit = difficulty_adjusted(observations)
        raw = dict(fit.questions)
        info = {"from": "fit", "iterations": fit.iterations, "converged": fit.converged}
    else:
        raw, info = {}, {"from": "fit"}
    if raw:
        shift = math.fsum(raw.values()) / len(raw)
        raw = {q: v - shift for q, v in raw.items()}
    info["questions"] = len(questions)
    info["without_effect"] = len(questions - raw.keys())
    return raw, info


def _question_intervals(samples, scored_models, bare, effects, difficulty, pool_exclude, pool_preset, cutoffs,
                        reference, n_resamples, seed, confidence, by, progress):
    """The question bootstrap of the whole board: questions resampled within (due date, source), the pool's
    fit redone on every resample (a type with outside effects keeps them), every model scored against it;
    each --by value a subset (``source=acled``) scored against its type's effects on the same resamples."""
    observations, groups, parts, day, subsets = [], {}, {}, {}, {}
    for m in scored_models:
        for e, s, _ in samples[m]:
            observations.append((e.sample_id, m, s.brier))
            groups[e.sample_id] = (e.round.isoformat(), e.source)
            parts[e.sample_id] = e.qtype
            day[e.sample_id] = e.round
            if by:
                subsets[e.sample_id] = [_subset(name, e) for name in by]
    exclude = set(pool_exclude)
    fixed = {t: {q: v for q, v in effects.items() if parts.get(q) == t} for t, info in difficulty.items() if info["from"] == "file"}
    return question_bootstrap(
        observations, groups=groups, parts=parts, reference=reference, n_resamples=n_resamples, seed=seed,
        confidence=confidence, pool=lambda q, m: _in_pool(m, bare[m], day[q], exclude, pool_preset, cutoffs),
        fixed_effects=fixed, subsets=subsets if by else None, progress=progress,
    )


_GROUPINGS: dict[str, Callable[[Entry], str]] = {"source": lambda e: e.source, "round": lambda e: e.round.isoformat()}


def _subset(name: str, entry: Entry) -> str:
    """The question bootstrap's name of the --by *name* row *entry* is in (``source=acled``)."""
    return f"{name}={_GROUPINGS[name](entry)}"


def _interval_fields(row: dict[str, Any], figures: ModelResamples | None) -> dict[str, Any]:
    """A row's figures from the question bootstrap: the intervals on the Brier (and so on the skill ratio,
    ``1 - Brier / 0.25``), on the adjusted Brier and on the Brier Index, the p-value against the reference,
    the share of first places."""
    brier = {**row["brier"], "ci_low": None if figures is None else figures.brier.ci_low,
             "ci_high": None if figures is None else figures.brier.ci_high}
    out: dict[str, Any] = {"brier": brier}
    if "brier_skill" in row:
        # A decreasing affine map of the Brier: its percentiles are the Brier's, mapped and swapped.
        out["brier_skill"] = {**row["brier_skill"],
                              "ci_low": None if brier["ci_high"] is None else 1 - brier["ci_high"] / 0.25,
                              "ci_high": None if brier["ci_low"] is None else 1 - brier["ci_low"] / 0.25}
    if figures is None:
        return {**out, "adjusted_brier_ci": None, "brier_index_ci": None, "p_value": None, "rank_first": None}
    return {**out, "adjusted_brier_ci": [figures.adjusted.ci_low, figures.adjusted.ci_high],
            "brier_index_ci": [figures.brier_index.ci_low, figures.brier_index.ci_high],
            "p_value": figures.p_value, "rank_first": figures.rank_first}


def build_leaderboard(
    rounds: Rounds,
    *,
    by: Sequence[str] = (),
    pool_exclude: Sequence[str] = (),
    pool_preset: bool = False,
    cutoffs: Mapping[str, Any] | None = None,
    external: Mapping[str, Mapping[str, float]] | None = None,
    impute: bool = False,
    reference: str | None = None,
    scores: Mapping[str, Mapping[str, dict]] | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
    score_row: ScoreRow | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The leaderboard as JSON-ready data (docs/outcomes.md, "ForecastBench leaderboards").

    *external* maps a question type to outside question effects keyed by
    :func:`effect_key` (:func:`anachron.forecasts.forecastbench.load_question_effects`); *scores* maps a model (``None``: every model)
    to its ``{sample id: leakage record}``; *cutoffs* is the bank's model
    table (the badge, the pool preset's model age, the training cutoff).
    *progress*, if given, is told ``(steps done, steps in all)``: a step per
    question as the question bootstrap draws its group, then per model a
    step per forecast and row it is scored in.
    *score_row* gives each row's n, log loss and leak split; its Brier and
    skill intervals are replaced by the question bootstrap's.
    """
    for name in by:
        if name not in _GROUPINGS:
            raise AnachronError(f"--by {name!r}: expected one of {', '.join(_GROUPINGS)}")
    positive_int(n_resamples, "n_resamples")  # before any work: every row's intervals need at least one resample
    if score_row is None:
        def score_row(model: str, samples: Sequence[ScoredSample], entries: Sequence[Entry]) -> ModelScore:
            return score_model(model, samples, baseline="0.5", n_resamples=n_resamples, seed=seed, confidence=confidence)
    single_round = len(rounds.entries) == 1
    models = sorted({fs.model for fs in rounds.sets})
    bare = {fs.model: fs.bare for fs in rounds.sets}
    for name in pool_exclude:
        if name not in models and name not in bare.values():
            raise AnachronError(f"--difficulty-pool-exclude names {name!r}, which has no forecast set (models: {', '.join(models)})")
    if reference is not None and reference not in models:
        raise AnachronError(f"--reference names {reference!r}, which has no forecast set (models: {', '.join(models)})")
    unknown = [k for k in (scores or {}) if k is not None and k not in models]
    if unknown:
        raise AnachronError(f"--scores names model {unknown[0]!r}, which has no forecast set (models: {', '.join(models)})")

    # Join each forecast set to its round's entries; impute when asked.
    joined: dict[str, list[tuple[Entry, float, bool]]] = {m: [] for m in models}
    notes: dict[str, dict[str, int]] = {m: {"filled": 0, "missing_forecasts": 0, "unmatched_forecasts": 0} for m in models}
    dropped: list[dict[str, Any]] = []
    for fs in rounds.sets:
        given: dict[str, float] = {}
        for entry, key, p in rounds.resolve(fs):
            if entry is None:
                notes[fs.model]["unmatched_forecasts"] += 1
            else:
                given[entry.key] = p
        asked = rounds.asked.get(fs.round)
        expected = [e for e in rounds.entries[fs.round].values() if asked is None or e.question in asked]
        missing = [e for e in expected if e.key not in given]
        filled: list[Entry] = []
        if impute:
            exempt = fs.organization == BENCHMARK and fs.model_organization == BENCHMARK
            # ForecastBench's three tests (get_df_info): over every question of the round, over the market
            # questions (resolved or not) and over the resolved dataset questions.
            parts = {
                "all": (expected, missing),
                "market": ([e for e in expected if e.qtype == "market"], [e for e in missing if e.qtype == "market"]),
                "dataset": ([e for e in expected if e.qtype == "dataset" and e.outcome is not None],
                            [e for e in missing if e.qtype == "dataset" and e.outcome is not None]),
            }
            over = {name: len(miss) / len(exp) for name, (exp, miss) in parts.items() if exp and len(miss) / len(exp) > IMPUTED_CUTOFF}
            if over and not exempt:
                dropped.append({"model": fs.model, "round": fs.round.isoformat(), "missing": len(missing),
                                "questions": len(expected), "share_over_cutoff": {k: round(v, 6) for k, v in sorted(over.items())}})
                continue
            filled = missing
        else:
            notes[fs.model]["missing_forecasts"] += sum(1 for e in missing if e.outcome is not None)
        for e in filled:
            if e.outcome is not None:
                notes[fs.model]["filled"] += 1
            given[e.key] = FILL
        filled_keys = {e.key for e in filled}
        for key, p in given.items():
            entry = rounds.entries[fs.round][key]
            if entry.outcome is not None:
                joined[fs.model].append((entry, p, key in filled_keys))

    # Per model, its scored samples.
    samples: dict[str, list[tuple[Entry, ScoredSample, bool]]] = {}
    for model in models:
        leak_table = None if scores is None else scores.get(model, scores.get(None))
        rows = []
        for entry, p, imputed in sorted(joined.pop(model), key=lambda t: t[0].sample_id):  # dropped once scored
            forecast = Forecast(entry.sample_id, model, probability=p)
            record = None
            if leak_table is not None:
                record = leak_table.get(entry.sample_id)
                if record is None and single_round:
                    record = leak_table.get(entry.key)
            rows.append((entry, scored_sample(forecast, entry.outcome, uniform(forecast), record,
                                              f"scores (sample {entry.sample_id})", split=leak_table is not None), imputed))
        samples[model] = rows
    scored_models = [m for m in models if samples[m]]
    if not scored_models:
        raise AnachronError("no forecast of a resolved question to score (every model's rounds dropped or unresolved)")

    # Question effects per type, fitted on the pool (or read from outside).
    effects: dict[str, float] = {}
    difficulty: dict[str, Any] = {}
    for qtype in TYPES:
        questions = {e.sample_id for m in scored_models for e, _, _ in samples[m] if e.qtype == qtype}
        if not questions:
            continue
        pool_models: set[str] = set()
        observations = []
        for m in scored_models:
            for e, s, _ in samples[m]:
                if e.qtype == qtype and _in_pool(m, bare[m], e.round, set(pool_exclude), pool_preset, cutoffs):
                    observations.append((e.sample_id, m, s.brier))
                    pool_models.add(m)
        outside = (external or {}).get(qtype)
        if outside is not None:
            keyed = {e.sample_id: effect_key(e) for m in scored_models for e, _, _ in samples[m] if e.qtype == qtype}
            outside = {q: outside[k] for q, k in keyed.items() if k in outside}
        found, info = _effects(observations, questions, outside)
        effects.update(found)
        info["pool"] = sorted(pool_models) if (external or {}).get(qtype) is None else None
        difficulty[qtype] = info
    types_present = [t for t in TYPES if t in difficulty]
    # Progress in steps: a step per question as its group's resamples are drawn, then per model a step per
    # forecast and row it is scored in (each row's own bootstrap of the log loss): both phases take time.
    rows_per_forecast = 1 + len(by) + (scores is not None)
    steps = len({e.sample_id for m in scored_models for e, _, _ in samples[m]}) + rows_per_forecast * sum(
        len(samples[m]) for m in scored_models)

    def question_steps(count: int, questions: int) -> None:
        if progress is not None:
            progress(count, steps)
    intervals = _question_intervals(samples, scored_models, bare, effects, difficulty, pool_exclude, pool_preset, cutoffs,
                                    reference, n_resamples, seed, confidence, by, question_steps)
    ref_brier = {} if reference is None else {e.sample_id: s.brier for e, s, _ in samples.get(reference, [])}

    def row(model: str, group: str, value: str, part: list[tuple[Entry, ScoredSample, bool]]) -> dict[str, Any]:
        score = score_row(model, [s for _, s, _ in part], [e for e, _, _ in part])
        with_effect = [s.brier - effects[e.sample_id] for e, s, _ in part if e.sample_id in effects]
        adjusted = _mean(with_effect)
        diffs = [ref_brier[e.sample_id] - s.brier for e, s, _ in part if e.sample_id in ref_brier]
        out = {"model": model, "group": group, "value": value, "n": score.n,
               "brier": score.brier.to_dict(), "log_loss": score.log_loss.to_dict(),
               "brier_skill": {**score.skill.to_dict(), "baseline": "0.5"},
               "difficulty_adjusted_brier": adjusted, "brier_index": brier_index(adjusted),
               "without_effect": len(part) - len(with_effect),
               "skill_vs_reference": None if reference is None else {"value": _mean(diffs), "n": len(diffs)},
               "imputed": sum(1 for _, _, imp in part if imp),
               "warnings": small_n_warnings(score.n)}
        entry = score.to_dict()
        if "leak_split" in entry:
            out["leak_split"] = entry["leak_split"]
        return out

    result_models = []
    for model in scored_models:
        part_of = samples[model]
        type_rows = [row(model, "type", t, [x for x in part_of if x[0].qtype == t]) for t in types_present
                     if any(x[0].qtype == t for x in part_of)]
        by_type = {r["value"]: r for r in type_rows}
        complete = all(t in by_type for t in types_present)

        def mean_of(get: Callable[[dict], float | None]) -> float | None:
            values = [get(by_type[t]) for t in types_present] if complete else []
            return None if not values or any(v is None for v in values) else math.fsum(values) / len(values)  # type: ignore[arg-type]

        # The pooled score is needed only for the overall row's leak split: spare its bootstrap otherwise.
        pooled = row(model, "all", "all", part_of) if scores is not None else {
            "imputed": sum(1 for _, _, imp in part_of if imp), "warnings": small_n_warnings(len(part_of))}
        adjusted = mean_of(lambda r: r["difficulty_adjusted_brier"])
        overall = {"model": model, "group": "overall", "value": "overall", "n": len(part_of),
                   "brier": {"value": mean_of(lambda r: r["brier"]["value"]), "ci_low": None, "ci_high": None, "n": len(part_of)},
                   "difficulty_adjusted_brier": adjusted, "brier_index": brier_index(adjusted),
                   "skill_vs_reference": None if reference is None else {"value": mean_of(lambda r: r["skill_vs_reference"]["value"]),
                                                                         "n": sum(r["skill_vs_reference"]["n"] for r in type_rows)},
                   "imputed": pooled["imputed"], "warnings": pooled["warnings"] + ([] if complete else [
                       "no question of every type: no overall score (ForecastBench's overall is the mean of the type means)"])}
        if "leak_split" in pooled:
            overall["leak_split"] = pooled["leak_split"]  # over every sample of the model, pooled
        for r in type_rows:
            r.update(_interval_fields(r, intervals.parts[r["value"]][model] if intervals.parts else None))
        overall.update(_interval_fields(overall, intervals.models[model]))
        rows = type_rows + [overall]
        for name in by:
            values = sorted({_GROUPINGS[name](e) for e, _, _ in part_of})
            for v in values:
                r = row(model, name, v, [x for x in part_of if _GROUPINGS[name](x[0]) == v])
                r.update(_interval_fields(r, intervals.subsets[f"{name}={v}"][model] if intervals.subsets else None))
                rows.append(r)
        badge, why = model_badge(model, cutoffs, [e.resolution_date or e.round for e, _, _ in part_of])
        entry: dict[str, Any] = {"model": model, "badge": badge, "badge_reason": why, "rows": rows, **notes[model]}
        cutoff = (cutoffs or {}).get(model)
        if cutoff is not None:
            # A filled 0.5 is no answer of the model's: it says nothing of what its weights hold.
            own = [(e, s) for e, s, imputed in part_of if not imputed]
            before = [s.brier for e, s in own if e.resolution_date is not None and known_at(e.resolution_date, cutoff.training_cutoff)]
            after = [s.brier for e, s in own if e.resolution_date is not None and not known_at(e.resolution_date, cutoff.training_cutoff)]
            entry["knowledge_in_weights"] = {
                "training_cutoff": cutoff.training_cutoff.isoformat(),
                "undated": sum(1 for e, _ in own if e.resolution_date is None),
                **memory_gap(before, after, n_resamples=n_resamples, seed=seed, confidence=confidence),
            }
        result_models.append(entry)
        if progress is not None:
            progress(rows_per_forecast * len(part_of), steps)
    return {
        "format": "anachron-leaderboard/1",
        "confidence": confidence,
        "resamples": n_resamples,
        "seed": seed,
        "rounds": sorted(d.isoformat() for d in rounds.entries),
        "types": types_present,
        "by": list(by),
        "reference": reference,
        "impute": impute,
        "filled": sum(n["filled"] for n in notes.values()),
        "dropped_rounds": dropped,
        "combination_questions_dropped": {"resolution_entries": rounds.combination_entries,
                                          "forecasts": rounds.combination_forecasts},
        "unresolved_entries": rounds.unresolved_entries,
        "difficulty": difficulty,
        "question_bootstrap": {k: v for k, v in intervals.to_dict().items()
                               if k in ("method", "questions", "groups", "singleton_groups", "degenerate")},
        "leak_split": scores is not None,
        "models": result_models,
        "unscored_models": [m for m in models if m not in scored_models],
    }


def ranked_rows(report: Mapping[str, Any], badge: str) -> list[Mapping[str, Any]]:
    """The models of one badge by overall difficulty-adjusted Brier (undefined last), then overall Brier, then name."""
    def key(m: Mapping[str, Any]) -> tuple:
        overall = next(r for r in m["rows"] if r["group"] == "overall")
        adj, raw = overall["difficulty_adjusted_brier"], overall["brier"]["value"]
        return (adj is None, adj or 0.0, raw is None, raw or 0.0, m["model"])
    return sorted((m for m in report["models"] if m["badge"] == badge), key=key)



CSV_COLUMNS = (
    "model", "badge", "group", "value", "n", "brier", "brier_ci_low", "brier_ci_high", "difficulty_adjusted_brier",
    "difficulty_adjusted_brier_ci_low", "difficulty_adjusted_brier_ci_high", "brier_index", "brier_index_ci_low",
    "brier_index_ci_high", "p_value_vs_reference", "rank_first", "brier_skill", "skill_vs_reference", "skill_vs_reference_n", "imputed", "clean_n", "clean_brier",
    "leaked_n", "leaked_brier", "unverified_n", "leak_inflation", "leak_inflation_ci_low", "leak_inflation_ci_high",
    "warnings",
)


def csv_records(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One record per model and row (type, overall, then each --by group), ranked as the table ranks."""
    out = []
    for badge in BADGES:
        for m in ranked_rows(report, badge):
            for r in m["rows"]:
                split = r.get("leak_split") or {}
                inflation = split.get("inflation") or {}
                ref = r.get("skill_vs_reference") or {}
                adj_ci, index_ci = r.get("adjusted_brier_ci") or (None, None), r.get("brier_index_ci") or (None, None)
                out.append({
                    "model": m["model"], "badge": badge, "group": r["group"], "value": r["value"], "n": r["n"],
                    "brier": r["brier"]["value"], "brier_ci_low": r["brier"]["ci_low"], "brier_ci_high": r["brier"]["ci_high"],
                    "difficulty_adjusted_brier": r["difficulty_adjusted_brier"], "difficulty_adjusted_brier_ci_low": adj_ci[0],
                    "difficulty_adjusted_brier_ci_high": adj_ci[1], "brier_index": r["brier_index"],
                    "brier_index_ci_low": index_ci[0], "brier_index_ci_high": index_ci[1],
                    "p_value_vs_reference": r.get("p_value"), "rank_first": r.get("rank_first"),
                    "brier_skill": (r.get("brier_skill") or {}).get("value"), "skill_vs_reference": ref.get("value"),
                    "skill_vs_reference_n": ref.get("n"), "imputed": r["imputed"],
                    "clean_n": (split.get("clean") or {}).get("n"), "clean_brier": (split.get("clean") or {}).get("value"),
                    "leaked_n": (split.get("leaked") or {}).get("n"), "leaked_brier": (split.get("leaked") or {}).get("value"),
                    "unverified_n": (split.get("unverified") or {}).get("n"), "leak_inflation": inflation.get("value"),
                    "leak_inflation_ci_low": inflation.get("ci_low"), "leak_inflation_ci_high": inflation.get("ci_high"),
                    "warnings": "\n".join(r["warnings"]),
                })
    return out


def _f(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value + 0.0:.{digits}f}"


def _ci(iv: Mapping[str, Any] | None, signed: bool = False) -> str:
    if not iv or iv.get("value") is None:
        return "n/a"
    fmt = "{:+.3f}" if signed else "{:.3f}"
    if iv.get("ci_low") is None:
        return fmt.format(iv["value"] + 0.0)
    return f"{fmt.format(iv['value'] + 0.0)} [{fmt.format(iv['ci_low'] + 0.0)}, {fmt.format(iv['ci_high'] + 0.0)}]"


def _with_ci(value: float | None, ends: Sequence[float | None] | None, digits: int = 3) -> str:
    if value is None or not ends or ends[0] is None:
        return _f(value, digits)
    return f"{_f(value, digits)} [{_f(ends[0], digits)}, {_f(ends[1], digits)}]"


def render_leaderboard(report: Mapping[str, Any]) -> str:
    """The leaderboard as text: one block per badge (pre-event models first), a line per model and row."""
    level = f"{report['confidence'] * 100:.10g}%"
    out = [
        f"ForecastBench leaderboard: {len(report['models'])} model(s), round(s) {', '.join(report['rounds'])}; "
        f"Brier (lower is better) with {level} bootstrap CIs ({report['resamples']} resamples, seed {report['seed']}); "
        "overall = mean of the type means; Brier Index = (1 - sqrt(adjusted Brier)) x 100; every row's CIs, p "
        "(P(adjusted <= the reference's)) and first (share of resamples ranked first) resample questions within "
        "(due date, source), the difficulty refitted on each; a source or round row is scored against its type's "
        "question effects"
    ]
    split = report["leak_split"]
    for badge in BADGES:
        models = ranked_rows(report, badge)
        if not models:
            continue
        out += ["", f"[{badge}]"]
        header = ["rank", "model", "questions", "n", "Brier [CI]", "adj. Brier [CI]", "Brier Index [CI]", "first", "skill"]
        if report["reference"] is not None:
            header += ["vs reference", "p"]
        if split:
            header += ["clean Brier", "leaked Brier", "leak inflation [CI]"]
        table = []
        for rank, m in enumerate(models, start=1):
            for r in m["rows"]:
                cells = [str(rank) if r["group"] == "overall" else "", m["model"],
                         r["value"] if r["group"] in ("type", "overall") else f"{r['group']}={r['value']}",
                         str(r["n"]), _ci(r["brier"]), _with_ci(r["difficulty_adjusted_brier"], r.get("adjusted_brier_ci")),
                         _with_ci(r["brier_index"], r.get("brier_index_ci"), 1), _f(r.get("rank_first"), 2),
                         _f((r.get("brier_skill") or {}).get("value"))]
                if report["reference"] is not None:
                    cells += [_f((r["skill_vs_reference"] or {}).get("value")), _f(r.get("p_value"))]
                if split:
                    ls = r.get("leak_split") or {}
                    cells += [_f((ls.get("clean") or {}).get("value")), _f((ls.get("leaked") or {}).get("value")),
                              _ci(ls.get("inflation"), signed=True)]
                table.append(cells)
        out += grid(header, table)
    notes = []
    for m in report["models"]:
        notes.append(f"{m['model']}: {m['badge']} ({m['badge_reason']})")
        for key, what in (("filled", "forecast(s) filled with 0.5 (--impute)"),
                          ("missing_forecasts", "resolved question(s) of its rounds without a forecast, not scored"),
                          ("unmatched_forecasts", "forecast(s) matching no resolution entry, not scored")):
            if m[key]:
                notes.append(f"  {m[key]} {what}")
        warned = sorted({w for r in m["rows"] for w in r["warnings"]})
        notes += [f"  warning: {w}" for w in warned]
        kw = m.get("knowledge_in_weights")
        if kw is not None:
            notes.append(
                f"  knowledge in the weights (training cutoff {kw['training_cutoff']}): Brier {_f(kw['before']['brier'])} "
                f"over {kw['before']['n']} question(s) resolved by the cutoff, {_f(kw['after']['brier'])} over "
                f"{kw['after']['n']} after; gap (after - before) {_ci(kw['gap'], signed=True)}"
            )
    out += ["", *notes, ""]
    combos = report["combination_questions_dropped"]
    out.append(f"Combination questions dropped, as ForecastBench drops them: {combos['resolution_entries']} resolution "
               f"entr(ies), {combos['forecasts']} forecast(s)")
    for qtype, info in report["difficulty"].items():
        source = "an outside file" if info["from"] == "file" else f"the pool of {len(info['pool'] or [])} model(s)"
        line = f"Difficulty of {qtype} questions from {source}"
        if info["without_effect"]:
            line += f"; {info['without_effect']} of {info['questions']} question(s) without an effect, left out of the adjusted Brier"
        out.append(line)
    if report["impute"]:
        out.append(f"--impute: {report['filled']} forecast(s) filled with 0.5; {len(report['dropped_rounds'])} model round(s) dropped "
                   f"(more than {IMPUTED_CUTOFF:.0%} filled)")
        out += [f"  dropped: {d['model']} round {d['round']} ({d['missing']} of {d['questions']} missing)" for d in report["dropped_rounds"]]
    if report["unscored_models"]:
        out.append("Not scored (no resolved forecast left): " + ", ".join(report["unscored_models"]))
    if report["unresolved_entries"]:
        out.append(f"{report['unresolved_entries']} resolution entr(ies) not resolved yet")
    return "\n".join(out)
