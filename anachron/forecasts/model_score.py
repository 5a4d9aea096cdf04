"""A model's scores over its resolved samples, each with a seeded percentile-bootstrap CI.

Over a model's ``n`` samples (:class:`ScoredSample`, one per resolved
forecast, from :func:`scored_sample`):

- the mean **Brier** and mean **log loss** (:mod:`anachron.forecasts.forecast`);
- the **Brier skill score** ``1 - mean Brier / mean baseline Brier``,
  ``None`` when the baseline's mean is 0 (a perfect baseline leaves nothing
  to beat).  The baseline is 0.5 (:func:`uniform`: uniform over a
  categorical forecast's options), the base rate (:func:`base_rate`: the
  mean outcome of the samples scored; binary only) or a given forecast (a
  market or community probability);
- the **reliability table** (:mod:`anachron.forecasts.reliability`);
- with leakage scores, **the leak split** (:mod:`anachron.forecasts.leak_split`):
  the mean Brier per leak class, the **leak inflation** ``mean(all) -
  mean(clean)`` (``None`` without a clean sample), and both again per
  answer-leak source.

Every figure but the reliability table (whose bins carry Wilson intervals)
is an :class:`Interval`: the value, its CI and its ``n``.  The CIs come
from B resamples (``random.Random(seed)``, ``n`` samples drawn uniformly
with replacement by the block resampler,
:func:`anachron.core.stats.bootstrap.bootstrap_column_totals`, which sums the
draws in C: the scores enter its sums in fixed point, ``round(x * 2**20)``,
each within 2**-21 of its float, far below the bootstrap's own spread; the
point figures are from the floats), each statistic recomputed on the same resample, so they are
paired: the inflation's CI is that of ``mean(all) - mean(clean)`` within
each resample.  Without a leak split and with a baseline whose Brier is the
same on every sample (0.5 on binary forecasts), the three CIs are read from
the same draws' totals first bounded, then made exact only for the
resamples whose bounds meet a percentile's order statistics
(:func:`anachron.core.stats.bootstrap.bootstrap_column_bounds`): the same
figures, to the bit, with fewer limbs summed.  The CI's ends are the ``(1 - confidence) / 2`` and
``(1 + confidence) / 2`` percentiles of the draws
(:func:`anachron.core.stats.bootstrap.percentile`).  A resample without a
clean sample has no inflation and is left out of its CI
(``undefined_resamples`` counts them).

>>> f = Forecast("s1", "m", probability=0.75)
>>> score = score_model("m", [scored_sample(f, 1, uniform(f))], baseline="0.5", n_resamples=10)
>>> score.brier.value, score.skill.value  # 1 - 0.0625 / 0.25
(0.0625, 0.75)
"""

from __future__ import annotations

import gc
import math
import random
from contextlib import contextmanager
from functools import wraps
from itertools import repeat
from operator import mul
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence, TypeVar

from anachron.core.errors import AnachronError
from anachron.core.stats.bootstrap import OrderStatistics, bootstrap_column_bounds, bootstrap_column_totals, log2_sd, percentile
from anachron.forecasts.forecast import Forecast, binary_briers, binary_log_losses, brier, log_loss
from anachron.forecasts.leak_split import SOURCES, leak_class, leak_sources
from anachron.forecasts.reliability import ReliabilityBin, calibration_pairs, reliability

__all__ = ["Interval", "ModelScore", "ScoredSample", "base_rate", "binary_scored_samples", "score_model", "scored_sample", "uniform"]

T = TypeVar("T")


@dataclass(frozen=True)
class Interval:
    """A statistic, its bootstrap percentile CI, and how many samples it is over (``value`` None: no sample)."""

    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "ci_low": self.ci_low, "ci_high": self.ci_high, "n": self.n}


@dataclass(frozen=True, slots=True)  # slots: one per forecast, 10**6 in a large report
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


# The fixed point of the resampled sums: 2^-20 (a score within 2^-21 of its float) is three 7-bit limbs of
# the resampler a Brier score, where 2^-27 took four: 20% to 30% less time a model, the figures the same to
# far below their printed 4 decimals (docs/outcomes.md).
_SCALE = 1 << 20


def _fixed(value: float) -> int:
    return round(value * _SCALE)


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _interval(point: float | None, draws: Sequence[float], confidence: float, n: int, *, ordered: bool = False) -> Interval:
    """The point and its CI from the resamples' *draws* (sorted here unless *ordered*: already in order)."""
    if point is None or not draws:
        return Interval(point, None, None, n)
    if not ordered:
        draws.sort()  # type: ignore[attr-defined]
    alpha = (1 - confidence) / 2
    return Interval(point, percentile(draws, alpha), percentile(draws, 1 - alpha), n)


# The first pass of the bounded path sums each column's bits down to about 2^-3 of its bootstrap standard
# error (2^-5 is the resampler's default): fewer limbs a group; the few resamples whose bounds meet a
# percentile's order statistics are then replayed exactly, so the figures are those of the exact totals.
_BOUND_SLACK = 2.0


def _bounded_intervals(fixed_briers: list[int], fixed_logs: list[int], fixed_base: int, n_resamples: int, seed: int,
                       confidence: float) -> tuple[tuple[float | None, float | None], tuple[float | None, float | None],
                                                   Sequence[float]]:
    """The Brier's and the log loss's CI ends, and the sorted skill draws, of score_model's resamples when the
    baseline's Brier is the same on every sample (its resampled total is then n times it, drawn or not).

    The same rows, draws and totals as the exact path (:func:`bootstrap_column_totals` on the three columns: a
    constant column changes neither the rows' order nor the draws), but each resample's totals are first only
    bounded (:func:`bootstrap_column_bounds`, its high bits summed), and the order statistics a percentile reads
    are found among them (:class:`OrderStatistics`), only the resamples whose bounds meet them replayed to their
    exact totals.  The percentiles are therefore those of the exact totals, to the bit.
    """
    n = len(fixed_briers)
    columns = [fixed_briers, fixed_logs]
    log_sds = [log2_sd(column) + _BOUND_SLACK for column in columns]
    resamples = bootstrap_column_bounds(columns, n_resamples, random.Random(seed), log_sds=log_sds)
    scale_n = n * _SCALE
    base_total = n * fixed_base

    def exact(column: int, sign: int = 1):
        return lambda indices: {i: sign * totals[column] for i, totals in resamples.exact(indices).items()}

    alpha = (1 - confidence) / 2
    ends = []
    for column in range(2):
        stats = OrderStatistics(*resamples.bounds(column), exact(column), lambda total: total / scale_n)
        ends.append((percentile(stats, alpha), percentile(stats, 1 - alpha)))
    skill: Sequence[float] = []
    if base_total:
        # 1 - total / base_total falls as the Brier total grows: its order statistics are those of -total.
        lows, highs = resamples.bounds(0)
        skill = OrderStatistics([-h for h in highs], [-lo for lo in lows], exact(0, -1), lambda key: 1 - -key / base_total)
    return ends[0], ends[1], skill


def _skill(brier_sum: float, baseline_sum: float) -> float | None:
    return 1 - brier_sum / baseline_sum if baseline_sum else None


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused for the block (then restored as it was): a step that makes many
    objects in no cycle (a resampler's row tuples, a list of samples) would otherwise have it walk them, and
    every object alive, again and again.  Reference counting still frees what the step drops."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def without_collector(function: Callable[..., T]) -> Callable[..., T]:
    """*function* run with the cyclic collector paused (:func:`collector_paused`)."""
    @wraps(function)
    def run(*args: Any, **kwargs: Any) -> T:
        with collector_paused():
            return function(*args, **kwargs)
    return run


@without_collector  # its resampler's row tuples: about 5% of a model's time in the collector, within a report
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
    (``random.Random(seed)``, samples drawn with replacement; module docstring), so the
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
    fixed_briers = list(map(round, map(mul, briers, repeat(_SCALE))))  # _fixed's ints, made in C
    fixed_logs = list(map(round, map(mul, logs, repeat(_SCALE))))
    fixed_bases = list(map(round, map(mul, bases, repeat(_SCALE))))
    if not has_split and n_resamples >= 1 and min(fixed_bases) == max(fixed_bases):
        # The usual case (no leak split, a constant baseline): the three CIs are order statistics of the
        # Brier and log loss totals alone, read from bounds (below).
        brier_ci, log_ci, skill_ci = _bounded_intervals(fixed_briers, fixed_logs, fixed_bases[0], n_resamples, seed, confidence)
        return ModelScore(
            model=model,
            n=n,
            brier=Interval(math.fsum(briers) / n, *brier_ci, n),
            log_loss=Interval(math.fsum(logs) / n, *log_ci, n),
            skill=_interval(_skill(math.fsum(briers), math.fsum(bases)), skill_ci, confidence, n, ordered=True),
            baseline=baseline,
            reliability=reliability([pair for s in samples for pair in s.calibration], confidence=confidence),
        )
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
    # The resamples' sums are made in C by the block resampler, on the scores in fixed point
    # (round(x * 2**20): each within 2**-21 of its float); the point figures are from the floats.
    keys = sorted({key for keys_i in groups for key in keys_i})
    columns = [fixed_briers, fixed_logs, fixed_bases]
    for key in keys:
        columns.append([int(key in keys_i) for keys_i in groups])
        columns.append([_fixed(b) if key in keys_i else 0 for b, keys_i in zip(briers, groups)])
    slot = {key: 3 + 2 * j for j, key in enumerate(keys)}
    draws: dict[str, list[float]] = {"brier": [], "log": [], "skill": [], "inflation": []}
    draws.update({f"class:{c}": [] for c in classes})
    for src in SOURCES:
        draws[f"src:{src}"] = []
        draws[f"srcinf:{src}"] = []
    undefined = 0
    scale_n = n * _SCALE

    def mean_of(totals: tuple[int, ...], key: str) -> float | None:
        at = slot.get(key)
        return totals[at + 1] / (totals[at] * _SCALE) if at is not None and totals[at] else None

    for totals in bootstrap_column_totals(columns, n_resamples, random.Random(seed)):
        total, log_total, base_total = totals[0], totals[1], totals[2]
        draws["brier"].append(total / scale_n)
        draws["log"].append(log_total / scale_n)
        if base_total:
            draws["skill"].append(1 - total / base_total)
        if not has_split:
            continue
        for c in classes:
            value = mean_of(totals, f"class:{c}")
            if value is not None:
                draws[f"class:{c}"].append(value)
        clean = mean_of(totals, "class:clean")
        if clean is None:
            undefined += 1
        else:
            draws["inflation"].append(total / scale_n - clean)
        for src in SOURCES:
            value = mean_of(totals, f"src:{src}")
            if value is not None:
                draws[f"src:{src}"].append(value)
                if clean is not None:
                    merged = mean_of(totals, f"merged:{src}")
                    assert merged is not None  # a sample of the source is in the merged group
                    draws[f"srcinf:{src}"].append(merged - clean)

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
        tuple(calibration_pairs(forecast, outcome)),
        leak_label,
        () if leak is None else leak_sources(leak, where),
    )


def binary_scored_samples(
    sample_ids: Sequence[str], probabilities: Sequence[float], outcomes: Sequence[int], baseline: float
) -> list[ScoredSample]:
    """:func:`scored_sample` of each binary forecast (*probabilities*, each resolved to its *outcomes*, 0 or 1)
    against a constant *baseline* probability, without leakage scores: the same figures from the same floats,
    made in C by maps (a large report scores 10**6 of them)."""
    briers = binary_briers(probabilities, outcomes)
    logs = binary_log_losses(probabilities, outcomes)
    bases = binary_briers(repeat(baseline), outcomes)
    # zip of one iterable makes 1-tuples: ((p, o),), calibration_pairs' one pair (o is 1 when the event happened).
    samples = map(ScoredSample, sample_ids, briers, logs, bases, zip(zip(probabilities, outcomes)))
    # Three objects a sample, all kept and none in a cycle: the cyclic collector, paused for the list, would
    # otherwise walk the growing list again and again (about a fifth of this step's time).
    with collector_paused():
        return list(samples)


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
