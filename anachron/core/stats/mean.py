"""The percentile-bootstrap CI of one run's mean (a per-sample rate or count).

The rule is the paired comparison's (:mod:`.paired`), applied to one run:
resample the n samples with replacement B times, take each resample's mean
and report the alpha and 1 - alpha quantiles (alpha = (1 - confidence) / 2).
The arithmetic is exact: every value is a dyadic rational, so one common
denominator turns them into integers and each resample's mean is an exact
sum rounded once.  The same values and seed give the same interval.

Edge cases: one sample, or every value equal, gives an interval collapsed
on the mean (the bootstrap sees no spread; the report says so); no value at
all, a value that is not a finite number, or an option the paired
comparison refuses (:func:`.paired.check_options`: a level outside (0, 1),
fewer than 100 or more than 1,000,000 resamples, a seed that is no
integer) is an :class:`~anachron.core.errors.AnachronError`.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from anachron.core.errors import AnachronError
from anachron.core.stats.bootstrap import BandStatistics, bootstrap_byte_bounds, bootstrap_totals, paired_method, resampling_method
from anachron.core.stats.intervals import interval
from anachron.core.stats.paired import check_options

__all__ = ["MeanInterval", "mean_interval"]


@dataclass(frozen=True)
class MeanInterval:
    """A run's mean with its percentile-bootstrap CI, and what made it."""

    n: int
    mean: float
    low: float
    high: float
    confidence: float
    n_resamples: int
    seed: int
    resampling: str  # "multinomial", "direct", "blocks" or "bytes" (stats.bootstrap): the same estimator

    @property
    def degenerate(self) -> bool:
        """True when the interval is collapsed on the mean (one sample, or no spread)."""
        return self.low == self.high


def mean_interval(
    values: Sequence[float | int], *, confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0
) -> MeanInterval:
    """The mean of *values* with its percentile-bootstrap CI (``random.Random(seed)``).

    >>> m = mean_interval([0.0, 0.0, 1.0, 1.0], n_resamples=2000)
    >>> m.mean, 0.0 <= m.low < m.mean < m.high <= 1.0
    (0.5, True)
    >>> mean_interval([0.25, 0.25]).low, mean_interval([0.25]).degenerate
    (0.25, True)
    """
    if not values:
        raise AnachronError("a mean's interval needs at least one value")
    check_options(confidence, n_resamples, seed)  # the paired comparison's options, refused as it refuses them
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise AnachronError(f"a mean's interval needs finite numbers, got {v!r}")
    ratios = {v: float(v).as_integer_ratio() for v in values}
    denominator = max(den for _, den in ratios.values())
    numerator = {v: num * (denominator // den) for v, (num, den) in ratios.items()}
    tally = Counter(numerator[v] for v in values)
    distinct = sorted(tally)
    counts = [tally[v] for v in distinct]
    n = len(values)
    scale = n * denominator
    method = paired_method(len(distinct), n, n_resamples)  # type: ignore[arg-type]
    if method == "bytes":  # compare_modes' draws, so a run against zeros reads the same interval
        drawn = bootstrap_byte_bounds([[v for v, c in zip(distinct, counts) for _ in range(c)]], n_resamples, random.Random(seed))  # type: ignore[arg-type]
        keys, _, step, spread = drawn.band(0)
        means: Sequence[float] = BandStatistics(keys, spread // step, lambda indices: {i: t for i, (t,) in drawn.exact(indices).items()},
                                                lambda total: total / scale)
    else:
        method = resampling_method(len(distinct), n)
        means = sorted(t / scale for t in bootstrap_totals(distinct, counts, n_resamples, random.Random(seed), method))
    low, high = interval(means, "percentile", float(confidence))
    mean = sum(v * c for v, c in zip(distinct, counts)) / scale
    return MeanInterval(n, mean, low, high, float(confidence), n_resamples, int(seed), method)
