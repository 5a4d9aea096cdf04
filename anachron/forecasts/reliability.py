"""The reliability table: how often what a model called likely happened, bin by bin.

The forecasts are read as ``(probability, happened)`` pairs
(:func:`calibration_pairs`): one per binary forecast, and one per option of
a categorical forecast (its probability, and whether that option happened).
The pairs fall into :data:`RELIABILITY_BINS` (10) equal bins, [0, 0.1),
[0.1, 0.2), ... [0.9, 1.0]: a probability on an edge goes to the bin above
it and 1.0 to the last bin, so bin ``k`` of ``b`` holds
``min(floor(p * b), b - 1) == k``.  Each bin reports

- ``mean_forecast``: the mean probability of its pairs;
- ``observed``: the share of them that happened;
- ``ci_low``, ``ci_high``: that share's Wilson score interval
  (:func:`anachron.core.stats.wilson.wilson_interval`) at the report's
  confidence, 95% by default.

An empty bin has ``n = 0`` and ``None`` for the rest.  A calibrated model's
bins lie on the diagonal: ``observed`` near ``mean_forecast``.

>>> table = reliability(calibration_pairs(Forecast("s", "m", probability=0.8), 1))
>>> [(b.low, b.n, b.observed) for b in table if b.n]
[(0.8, 1, 1.0)]
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Iterable

from anachron.core.stats.wilson import Z95, wilson_interval
from anachron.forecasts.forecast import Forecast

__all__ = ["RELIABILITY_BINS", "ReliabilityBin", "calibration_pairs", "reliability"]

RELIABILITY_BINS = 10  # [0, 0.1), [0.1, 0.2), ..., [0.9, 1.0]


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


def calibration_pairs(forecast: Forecast, outcome: int | str) -> list[tuple[float, int]]:
    """The ``(probability, happened)`` pairs *forecast* adds to the reliability table once *outcome* is known.

    >>> calibration_pairs(Forecast("s", "m", probabilities={"a": 0.7, "b": 0.3}), "b")
    [(0.7, 0), (0.3, 1)]
    """
    if forecast.binary:
        assert forecast.probability is not None
        return [(forecast.probability, int(outcome == 1))]
    assert forecast.probabilities is not None
    return [(p, int(option == outcome)) for option, p in forecast.probabilities.items()]

