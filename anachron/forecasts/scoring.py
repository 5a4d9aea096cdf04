"""Forecast outcome scores and the leak split (``anachron outcomes``; docs/outcomes.md).

Pure arithmetic on forecasts already read: no I/O.  A **forecast** is one
model's prediction for one sample: a binary probability (of the outcome 1,
"yes") or a categorical distribution over named options.  A **resolution**
is what happened: ``0``/``1``, or the option that came true.

Scores of one sample, lower is better:

- **Brier**: binary ``(p - o)**2``; categorical half the sum over the options
  of ``(p_k - o_k)**2``, so it lies in [0, 1] and equals the binary Brier
  for two options;
- **log loss** ("log score", negatively oriented): ``-ln(q)`` for the
  probability ``q`` given to what happened, ``q`` clipped below at
  :data:`LOG_CLIP` (1e-6), so a confident miss costs at most ``ln(1e6)``
  (about 13.8) instead of infinity.

Over a model's samples: the means, the **Brier skill score**
``1 - mean Brier / mean baseline Brier`` (``None`` when the baseline's mean
is 0) against a baseline of 0.5 (uniform over the options), the base rate
(the mean outcome of the samples scored; binary only) or a given forecast
(a market or community probability); the **reliability table**
(:func:`reliability`); each with a seeded percentile-bootstrap CI over the
samples (:func:`score_model`).

**The leak split** reads each sample's leakage scores (a record of
``anachron score --format json``) through :func:`leak_class`:

- ``leaked``: any post-T result, survivorship, restatement, query-intent,
  content or answer leak, or a seal breach;
- ``unverified`` (cannot tell; never clean): no leak, but an undated or
  uncertain interaction, an unrecorded call, a date conflict or a revision
  risk (an item modified after T), an importer's warning on the log
  (``warnings``: items of an unknown type skipped, no tool call recorded), or a seal
  audit that could not show the calls went through the lock (``seal_status``
  ``unverified`` or ``lock-only``; a record without the field reads as
  :func:`anachron.core.seal.stored_status` says);
- ``clean``: neither.

**Leak inflation** is the mean over all samples minus the mean over clean
ones; its CI resamples the samples and recomputes both means on the same
resample (paired).  The split by answer-leak source (:func:`leak_sources`)
repeats it over the clean samples plus those whose answer stated a
retrieved (or parametric) post-T fact.

**Difficulty-adjusted Brier** (:func:`difficulty_adjusted`) is ForecastBench's:
the two-way fixed-effects fit ``brier[q, m] = question[q] + model[m]``.
"""

from __future__ import annotations

import math
import numbers
import random
from statistics import NormalDist
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from anachron.core.errors import AnachronError, describe
from anachron.core.figures import read_figures
from anachron.core.seal import stored_status
from anachron.core.stats.bootstrap import percentile
from anachron.core.stats.wilson import Z95, wilson_interval

__all__ = [
    "LOG_CLIP",
    "SUM_TOLERANCE",
    "RELIABILITY_BINS",
    "Forecast",
    "Interval",
    "ReliabilityBin",
    "ScoredSample",
    "ModelScore",
    "FixedEffects",
    "answer_probability",
    "brier",
    "check_distribution",
    "check_kind",
    "check_probability",
    "difficulty_adjusted",
    "leak_class",
    "leak_sources",
    "log_loss",
    "reliability",
    "score_model",
    "scored_sample",
    "uniform",
    "base_rate",
]

LOG_CLIP = 1e-6  # the smallest probability the log loss reads: -ln(1e-6) ~ 13.8
SUM_TOLERANCE = 1e-6  # a categorical forecast's probabilities sum to 1 within this
RELIABILITY_BINS = 10  # [0, 0.1), [0.1, 0.2), ..., [0.9, 1.0]

# Per-sample counts of anachron score that make a sample leaked / unverified.
_LEAK_COUNTS = (
    "result_leaks", "survivorship_leaks", "restatement_leaks", "query_intent_leaks", "content_leaks",
    "answer_leaks_retrieved", "answer_leaks_parametric", "seal_breaches",
)
# A revision risk (an item showing a modification after T) is doubt: what the agent read may hold
# edits made after T, and a modification stamp is read only here, not as a content leak.
_DOUBT_COUNTS = ("undated", "unrecorded", "date_conflicts", "revision_risks")
# Seal statuses that leave the run's other channels open (anachron.core.seal): a seal audit that ran
# and could not show every call went through the lock.  Not audited (null) and "no verdict" (no call
# to judge) leave the sample to its trace's judgement.
_DOUBT_STATUSES = ("unverified", "lock-only")
SOURCES = ("retrieved", "parametric")


@dataclass(frozen=True)
class Forecast:
    """One model's forecast of one sample: ``probability`` (binary) or ``probabilities`` (categorical)."""

    sample_id: str
    model: str
    probability: float | None = None
    probabilities: Mapping[str, float] | None = None

    @property
    def binary(self) -> bool:
        return self.probabilities is None


def check_probability(value: object, where: str) -> float:
    """*value* as a probability: a finite number in [0, 1] (not a boolean); else an error naming *where*.

    >>> check_probability(0.25, "x"), check_probability(1, "x")
    (0.25, 1.0)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:  # False for NaN
        raise AnachronError(f"{where}: probability is {describe(value)}, expected a number in [0, 1]")
    return float(value)


def check_distribution(value: object, where: str) -> dict[str, float]:
    """A categorical forecast: an object of at least two options, each a probability, summing to 1 within 1e-6."""
    if not isinstance(value, Mapping) or len(value) < 2:
        raise AnachronError(f"{where}: probabilities must be an object of at least two options, got {describe(value)}")
    out = {}
    for option, p in value.items():
        if not isinstance(option, str) or not option:
            raise AnachronError(f"{where}: option {option!r} is not a non-empty string")
        out[option] = check_probability(p, f"{where}: option {option!r}")
    total = math.fsum(out.values())
    if abs(total - 1) > SUM_TOLERANCE:
        raise AnachronError(f"{where}: probabilities sum to {total!r}, not 1 (tolerance {SUM_TOLERANCE:g})")
    return out


def _outcome_vector(forecast: Forecast, outcome: int | str) -> dict[str, int]:
    assert forecast.probabilities is not None
    if outcome not in forecast.probabilities:
        raise AnachronError(
            f"sample {forecast.sample_id!r}: resolved to {outcome!r}, not one of the options {sorted(forecast.probabilities)}",
            sample_id=forecast.sample_id,
        )
    return {option: int(option == outcome) for option in forecast.probabilities}


def _check_kind(forecast: Forecast, outcome: int | str) -> None:
    if forecast.binary and outcome not in (0, 1):
        raise AnachronError(
            f"sample {forecast.sample_id!r}: a binary forecast needs a resolution of 0 or 1, got {outcome!r}",
            sample_id=forecast.sample_id,
        )


def check_kind(forecast: Forecast, outcome: int | str) -> None:
    """An error unless *outcome* can resolve *forecast*: 0 or 1 for a binary one, one of its options for a categorical one.

    >>> check_kind(Forecast("s", "m", probability=0.5), 1)
    >>> check_kind(Forecast("s", "m", probabilities={"a": 0.5, "b": 0.5}), "c")
    Traceback (most recent call last):
    anachron.core.errors.AnachronError: sample 's': resolved to 'c', not one of the options ['a', 'b']
    """
    _check_kind(forecast, outcome)
    if not forecast.binary:
        _outcome_vector(forecast, outcome)


def brier(forecast: Forecast, outcome: int | str) -> float:
    """The Brier score of one forecast (module docstring).

    >>> brier(Forecast("s", "m", probability=0.75), 1)
    0.0625
    >>> brier(Forecast("s", "m", probabilities={"a": 0.5, "b": 0.25, "c": 0.25}), "a")  # (0.25 + 0.0625 + 0.0625) / 2
    0.1875
    """
    _check_kind(forecast, outcome)
    if forecast.binary:
        assert forecast.probability is not None
        return (forecast.probability - outcome) ** 2  # type: ignore[operator]
    hit = _outcome_vector(forecast, outcome)
    assert forecast.probabilities is not None
    return math.fsum((p - hit[k]) ** 2 for k, p in forecast.probabilities.items()) / 2


def _realized(forecast: Forecast, outcome: int | str) -> float:
    _check_kind(forecast, outcome)
    if forecast.binary:
        assert forecast.probability is not None
        return forecast.probability if outcome == 1 else 1 - forecast.probability
    _outcome_vector(forecast, outcome)
    assert forecast.probabilities is not None
    return forecast.probabilities[outcome]  # type: ignore[index]


def log_loss(forecast: Forecast, outcome: int | str) -> float:
    """``-ln(max(q, 1e-6))`` for the probability ``q`` the forecast gave to what happened.

    >>> round(log_loss(Forecast("s", "m", probability=0.5), 0), 6)
    0.693147
    >>> round(log_loss(Forecast("s", "m", probability=1.0), 0), 4)  # clipped: -ln(1e-6)
    13.8155
    """
    return -math.log(max(_realized(forecast, outcome), LOG_CLIP)) + 0.0


def answer_probability(text: str) -> float | None:
    """The probability a free-text answer states: its last figure written as a percentage
    in [0, 100] (``70%``) or as a decimal in [0, 1] (``0.7``, ``.5``, ``1.0``); ``None`` when it states none.

    Figures are read by :mod:`anachron.core.figures` (the one reader), so a
    year, a currency amount or ``120%`` is no probability.  A whole number
    ``0`` or ``1`` is none either: it is a citation (``[1]``), a count or a
    step (``1 in 3``, ``step 1``) far more often than a certainty, and read
    as one it would turn a stated 65% into 1.

    >>> answer_probability("I estimate 30% at first, but my final answer is 0.65.")
    0.65
    >>> answer_probability("Revenue will be $5bn in 2025."), answer_probability("70 percent")
    (None, 0.7)
    >>> answer_probability("Final answer: 65%. Sources: [1], [2]"), answer_probability("1 in 3")
    (0.65, None)
    """
    found = None
    for figure in read_figures(text):
        value = figure.value
        if figure.percent and not (figure.currency or figure.scaled or figure.mass) and 0 <= value <= 100:
            found = float(value / 100)
        elif figure.bare and not figure.negative and 0 <= value <= 1 and figure.exp < 0:
            found = float(value)
    return found


# --------------------------------------------------------------------------- the leak split


def _count(sample: Mapping[str, Any], name: str, where: str) -> int:
    value = sample.get(name, 0)
    if value is None:
        return 0  # seal_breaches is null when the run was not audited: no breach found (and none claimed)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise AnachronError(f"{where}: {name} is {describe(value)}, expected a non-negative integer")
    return value


def leak_class(sample: Mapping[str, Any], where: str = "scores") -> str:
    """``"leaked"``, ``"unverified"`` or ``"clean"`` for one sample's leakage scores (module docstring).

    >>> leak_class({"result_leaks": 1}), leak_class({"undated": 2}), leak_class({"result_leaks": 0})
    ('leaked', 'unverified', 'clean')
    """
    leaked = any(_count(sample, name, where) for name in _LEAK_COUNTS)
    status = stored_status(sample.get("seal_status", ...), sample.get("seal_breaches"), f"{where}: seal_status")
    if leaked or status == "breached":
        return "leaked"
    if status in _DOUBT_STATUSES or any(_count(sample, name, where) for name in _DOUBT_COUNTS) or _warned(sample, where):
        return "unverified"
    return "clean"


def _warned(sample: Mapping[str, Any], where: str) -> bool:
    # The importer's warnings on the sample's log (items of an unknown type skipped, model turns
    # with no tool call): the log may not hold every call, so a clean count proves nothing.
    warnings = sample.get("warnings", [])
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise AnachronError(f"{where}: warnings is {describe(warnings)}, expected a list of strings")
    return bool(warnings)


def leak_sources(sample: Mapping[str, Any], where: str = "scores") -> tuple[str, ...]:
    """The answer-leak sources of one sample: ``("retrieved",)``, ``("parametric",)``, both or none.

    >>> leak_sources({"answer_leaks_retrieved": 1, "answer_leaks_parametric": 2})
    ('retrieved', 'parametric')
    """
    return tuple(s for s in SOURCES if _count(sample, f"answer_leaks_{s}", where))


# --------------------------------------------------------------------------- calibration


@dataclass(frozen=True)
class ReliabilityBin:
    """Forecasts in ``[low, high)`` (the last bin includes 1): their mean, the observed frequency and its Wilson CI."""

    low: float
    high: float
    n: int
    mean_forecast: float | None
    observed: float | None
    ci_low: float | None
    ci_high: float | None

    def to_dict(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, "n": self.n, "mean_forecast": self.mean_forecast,
                "observed": self.observed, "ci_low": self.ci_low, "ci_high": self.ci_high}


def reliability(
    pairs: Iterable[tuple[float, int]], bins: int = RELIABILITY_BINS, confidence: float = 0.95
) -> tuple[ReliabilityBin, ...]:
    """The reliability table of ``(probability, happened)`` pairs in *bins* equal bins.

    A probability on a bin edge goes to the bin above it (0.1 is in
    [0.1, 0.2)); 1.0 is in the last bin.  Each bin's observed frequency
    carries its Wilson interval at *confidence* (95% by default, the level
    of the report's other intervals); an empty bin has ``n = 0`` and ``None``
    elsewhere.  A categorical forecast contributes one pair per option (its
    probability, and whether that option happened).

    >>> [(b.n, b.observed) for b in reliability([(0.05, 0), (0.1, 1), (0.15, 0), (1.0, 1)], bins=2)]
    [(3, 0.3333333333333333), (1, 1.0)]
    """
    z = Z95 if confidence == 0.95 else NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    counts = [[0, 0, 0.0] for _ in range(bins)]  # n, hits, sum of forecasts
    for p, hit in pairs:
        k = min(int(p * bins), bins - 1)
        counts[k][0] += 1
        counts[k][1] += hit
        counts[k][2] += p
    out = []
    for k, (n, hits, total) in enumerate(counts):
        ci = wilson_interval(hits, n, z)
        out.append(ReliabilityBin(k / bins, (k + 1) / bins, n, total / n if n else None, hits / n if n else None,
                                  ci[0] if ci else None, ci[1] if ci else None))
    return tuple(out)


def _calibration_pairs(forecast: Forecast, outcome: int | str) -> list[tuple[float, int]]:
    if forecast.binary:
        assert forecast.probability is not None
        return [(forecast.probability, int(outcome == 1))]
    assert forecast.probabilities is not None
    return [(p, int(option == outcome)) for option, p in forecast.probabilities.items()]


# --------------------------------------------------------------------------- a model's scores


@dataclass(frozen=True)
class Interval:
    """A statistic, its bootstrap percentile CI, and how many samples it is over (``value`` None: no sample)."""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "ci_low": self.ci_low, "ci_high": self.ci_high, "n": self.n}


@dataclass(frozen=True)
class ScoredSample:
    """One sample's scores under one model, with its baseline's Brier and its leak class (None: no leakage scores)."""

    sample_id: str
    brier: float
    log_loss: float
    baseline_brier: float
    calibration: tuple[tuple[float, int], ...]
    leak: str | None = None
    sources: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModelScore:
    """A model's scores over its resolved samples (docs/outcomes.md, "JSON")."""

    model: str
    n: int
    brier: Interval
    log_loss: Interval
    skill: Interval  # the Brier skill score against the baseline
    baseline: str
    reliability: tuple[ReliabilityBin, ...]
    split: Mapping[str, Interval] | None = None  # leak class -> mean Brier over it
    inflation: Interval | None = None  # mean Brier over all - over clean
    by_source: Mapping[str, Mapping[str, Interval]] | None = None  # source -> {"brier", "inflation"}
    undefined_resamples: int = 0  # resamples without a clean sample, left out of the inflation CI
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": self.model,
            "n": self.n,
            "brier": self.brier.to_dict(),
            "log_loss": self.log_loss.to_dict(),
            "brier_skill": {**self.skill.to_dict(), "baseline": self.baseline},
            "reliability": [b.to_dict() for b in self.reliability],
        }
        if self.split is not None:
            out["leak_split"] = {
                **{name: interval.to_dict() for name, interval in self.split.items()},
                "inflation": self.inflation.to_dict() if self.inflation else None,
                "undefined_resamples": self.undefined_resamples,
                "by_source": {
                    source: {name: iv.to_dict() for name, iv in parts.items()} for source, parts in (self.by_source or {}).items()
                },
            }
        out.update(self.extra)
        return out


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _interval(point: float | None, draws: list[float], confidence: float, n: int) -> Interval:
    if point is None or not draws:
        return Interval(point, None, None, n)
    draws.sort()
    alpha = (1 - confidence) / 2
    return Interval(point, percentile(draws, alpha), percentile(draws, 1 - alpha), n)


def _skill(brier_sum: float, baseline_sum: float) -> float | None:
    return 1 - brier_sum / baseline_sum if baseline_sum else None


def score_model(
    model: str,
    samples: Sequence[ScoredSample],
    *,
    baseline: str,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> ModelScore:
    """Score one model's *samples* (at least one), each figure with a percentile-bootstrap CI.

    Every statistic is recomputed on the same B resamples of the samples
    (``random.Random(seed)``, indices drawn with replacement), so the
    intervals are paired: the inflation's CI is that of ``mean(all) -
    mean(clean)`` over each resample.  A resample without a clean sample has
    no inflation and is left out of its CI (``undefined_resamples`` counts
    them); likewise per source.  The leak split is computed when every
    sample carries a leak class.
    """
    n = len(samples)
    if not n:
        raise AnachronError(f"model {model!r}: no resolved sample to score")
    briers = [s.brier for s in samples]
    logs = [s.log_loss for s in samples]
    bases = [s.baseline_brier for s in samples]
    has_split = all(s.leak is not None for s in samples)
    classes = ("clean", "leaked", "unverified")
    member = {c: [s.leak == c for s in samples] for c in classes}
    source_member = {src: [s.leak == "clean" or src in s.sources for s in samples] for src in SOURCES}

    # The groups each sample adds to: its class, each answer-leak source it has, and, for the source
    # split, "clean or that source".  One pass over a resample sums every group at once.
    groups: list[tuple[str, ...]] = []
    for i, s in enumerate(samples):
        keys: list[str] = []
        if has_split:
            keys.append(f"class:{s.leak}")
            keys += [f"src:{src}" for src in SOURCES if src in s.sources]
            keys += [f"merged:{src}" for src in SOURCES if source_member[src][i]]
        groups.append(tuple(keys))
    rng = random.Random(seed)
    draws: dict[str, list[float]] = {"brier": [], "log": [], "skill": [], "inflation": []}
    draws.update({f"class:{c}": [] for c in classes})
    for src in SOURCES:
        draws[f"src:{src}"] = []
        draws[f"srcinf:{src}"] = []
    undefined = 0
    indices = range(n)
    for _ in range(n_resamples):
        total = log_total = base_total = 0.0
        sums: dict[str, float] = {}
        counts: dict[str, int] = {}
        for i in rng.choices(indices, k=n):
            b = briers[i]
            total += b
            log_total += logs[i]
            base_total += bases[i]
            for key in groups[i]:
                sums[key] = sums.get(key, 0.0) + b
                counts[key] = counts.get(key, 0) + 1
        draws["brier"].append(total / n)
        draws["log"].append(log_total / n)
        skill = _skill(total, base_total)
        if skill is not None:
            draws["skill"].append(skill)
        if not has_split:
            continue
        for c in classes:
            if counts.get(f"class:{c}"):
                draws[f"class:{c}"].append(sums[f"class:{c}"] / counts[f"class:{c}"])
        clean = sums["class:clean"] / counts["class:clean"] if counts.get("class:clean") else None
        if clean is None:
            undefined += 1
        else:
            draws["inflation"].append(total / n - clean)
        for src in SOURCES:
            if counts.get(f"src:{src}"):
                draws[f"src:{src}"].append(sums[f"src:{src}"] / counts[f"src:{src}"])
                if clean is not None:
                    draws[f"srcinf:{src}"].append(sums[f"merged:{src}"] / counts[f"merged:{src}"] - clean)

    pairs = [pair for s in samples for pair in s.calibration]
    point_skill = _skill(math.fsum(briers), math.fsum(bases))
    split = inflation = by_source = None
    if has_split:
        split = {}
        for c in classes:
            values = [b for b, m in zip(briers, member[c]) if m]
            split[c] = _interval(_mean(values), draws[f"class:{c}"], confidence, len(values))
        clean = _mean([b for b, m in zip(briers, member["clean"]) if m])
        inflation = _interval(None if clean is None else math.fsum(briers) / n - clean, draws["inflation"], confidence, n)
        by_source = {}
        for src in SOURCES:
            with_src = [b for b, s in zip(briers, samples) if src in s.sources]
            merged = [b for b, m in zip(briers, source_member[src]) if m]
            point = None if clean is None or not with_src else math.fsum(merged) / len(merged) - clean
            by_source[src] = {
                "brier": _interval(_mean(with_src), draws[f"src:{src}"], confidence, len(with_src)),
                "inflation": _interval(point, draws[f"srcinf:{src}"] if with_src else [], confidence, len(merged)),
            }
    return ModelScore(
        model=model,
        n=n,
        brier=_interval(math.fsum(briers) / n, draws["brier"], confidence, n),
        log_loss=_interval(math.fsum(logs) / n, draws["log"], confidence, n),
        skill=_interval(point_skill, draws["skill"], confidence, n),
        baseline=baseline,
        reliability=reliability(pairs, confidence=confidence),
        split=split,
        inflation=inflation,
        by_source=by_source,
        undefined_resamples=undefined if has_split else 0,
    )


def scored_sample(
    forecast: Forecast,
    outcome: int | str,
    baseline: Forecast,
    leak: Mapping[str, Any] | None = None,
    where: str = "scores",
    *,
    split: bool = False,
) -> ScoredSample:
    """One sample's :class:`ScoredSample`: its Brier and log loss, its baseline's Brier, and its leak class from *leak*.

    With *split* (leakage scores were given for the run) a sample without
    its own record (*leak* ``None``) is ``unverified``: nothing shows it clean.
    """
    if split and leak is None:
        leak_label: str | None = "unverified"
    else:
        leak_label = None if leak is None else leak_class(leak, where)
    return ScoredSample(
        forecast.sample_id,
        brier(forecast, outcome),
        log_loss(forecast, outcome),
        brier(baseline, outcome),
        tuple(_calibration_pairs(forecast, outcome)),
        leak_label,
        () if leak is None else leak_sources(leak, where),
    )


def uniform(forecast: Forecast) -> Forecast:
    """The 0.5 baseline of *forecast*'s sample: 0.5, or uniform over its options."""
    if forecast.binary:
        return Forecast(forecast.sample_id, "baseline", probability=0.5)
    assert forecast.probabilities is not None
    k = len(forecast.probabilities)
    return Forecast(forecast.sample_id, "baseline", probabilities={option: 1 / k for option in forecast.probabilities})


def base_rate(outcomes: Sequence[int | str]) -> float:
    """The base rate of binary *outcomes* (its mean); an error if one is not 0 or 1 or there are none."""
    if not outcomes:
        raise AnachronError("--baseline base-rate: no resolved sample")
    if any(o not in (0, 1) for o in outcomes):
        raise AnachronError("--baseline base-rate needs binary resolutions (0 or 1); give a forecast file for categorical ones")
    return sum(outcomes) / len(outcomes)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- difficulty-adjusted Brier


@dataclass(frozen=True)
class FixedEffects:
    """The two-way fixed-effects fit: ``model`` is each model's difficulty-adjusted Brier."""

    models: Mapping[str, float]
    questions: Mapping[str, float]  # question effects, mean 0 over the questions
    iterations: int
    converged: bool


def difficulty_adjusted(
    observations: Iterable[tuple[str, str, float]], *, tolerance: float = 1e-12, max_iterations: int = 10_000
) -> FixedEffects:
    """Fit ``brier[q, m] = question[q] + model[m]`` by least squares (ForecastBench's difficulty adjustment).

    *observations* are ``(question, model, brier)``, at most one per pair.
    The fit alternates: each model's effect is the mean over its questions
    of ``brier - question``, then each question's the mean over its models of
    ``brier - model``, until no effect moves by more than *tolerance*
    (alternating demeaning converges to the least-squares fit).  A model's
    **difficulty-adjusted Brier** is the mean over its questions of
    ``brier - question``, on the scale ForecastBench fixes by rescaling so
    that "Always 0.5" (a forecast of 0.5 on every question, Brier 0.25)
    scores 0.25: that is, the question effects average 0 over the
    *questions* (each question once, however many models answered it).
    When every model answered every question it is its plain mean Brier.
    Models linked by no question are identified together all the same (one
    normalisation over all).

    >>> fit = difficulty_adjusted([("q1", "a", 0.25), ("q1", "b", 0.5), ("q2", "b", 0.0)])
    >>> {m: round(v, 6) for m, v in fit.models.items()}  # q1 is hard, q2 easy: b answered both
    {'a': 0.0, 'b': 0.25}
    """
    data: dict[tuple[str, str], float] = {}
    for question, model, value in observations:
        if (question, model) in data:
            raise AnachronError(f"model {model!r} scored question {question!r} twice")
        data[(question, model)] = value
    if not data:
        raise AnachronError("difficulty-adjusted Brier: no observation")
    by_model: dict[str, list[tuple[str, float]]] = {}
    by_question: dict[str, list[tuple[str, float]]] = {}
    for (question, model), value in data.items():
        by_model.setdefault(model, []).append((question, value))
        by_question.setdefault(question, []).append((model, value))
    q_eff = dict.fromkeys(by_question, 0.0)
    m_eff = dict.fromkeys(by_model, 0.0)
    converged = False
    iterations = 0
    for iterations in range(1, max_iterations + 1):
        moved = 0.0
        for model, rows in by_model.items():
            new = math.fsum(v - q_eff[q] for q, v in rows) / len(rows)
            moved = max(moved, abs(new - m_eff[model]))
            m_eff[model] = new
        for question, rows in by_question.items():
            new = math.fsum(v - m_eff[m] for m, v in rows) / len(rows)
            moved = max(moved, abs(new - q_eff[question]))
            q_eff[question] = new
        if moved <= tolerance:
            converged = True
            break
    # ForecastBench adds 0.25 - score("Always 0.5"), and Always 0.5 answers every question: its score is
    # 0.25 - mean(question effects over the questions), so the shift is that unweighted mean.
    shift = math.fsum(q_eff.values()) / len(q_eff)
    return FixedEffects(
        models={m: v + shift for m, v in sorted(m_eff.items())},
        questions={q: v - shift for q, v in sorted(q_eff.items())},
        iterations=iterations,
        converged=converged,
    )
