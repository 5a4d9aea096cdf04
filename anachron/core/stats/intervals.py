"""Bootstrap confidence intervals from a resampled distribution: percentile and BCa.

Both read the same sorted resample statistics; they differ only in which
quantiles they take.  With alpha = (1 - confidence) / 2:

- **percentile**: the alpha and 1 - alpha quantiles;
- **BCa** (bias-corrected and accelerated; Efron 1987): the quantiles at

      a1 = Phi(z0 + (z0 + z_alpha) / (1 - a (z0 + z_alpha)))
      a2 = Phi(z0 + (z0 + z_{1-alpha}) / (1 - a (z0 + z_{1-alpha})))

  where z0 = Phi^-1(p0) is the bias correction, p0 the share of resample
  statistics below the estimate (ties count one half), and a the
  acceleration, from the jackknife values theta_(i) (the statistic without
  observation i) and their mean theta_.:

      a = sum (theta_. - theta_(i))**3 / (6 (sum (theta_. - theta_(i))**2) ** 1.5)

Edge cases, documented in docs/metrics.md: p0 of 0 or 1 (every resample on
one side) is clamped to 1 / (2B) or 1 - 1 / (2B); a zero jackknife spread
gives a = 0; a level whose denominator 1 - a (z0 + z) is not positive is
taken as 0 (lower end) or 1 (upper end).  The counting is exact: p0 compares
integers or fractions, never rounded means, and a is computed from exact
sums, rounded once through logarithms (so counts of any size stay finite).
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist
from typing import Sequence

from anachron.core.stats.bootstrap import percentile

__all__ = ["CI_METHODS", "acceleration", "bca_levels", "interval"]

CI_METHODS = ("percentile", "bca")
_NORMAL = NormalDist()


def acceleration(cubes: Fraction | int, squares: Fraction | int) -> float:
    """``cubes / (6 squares**1.5)``: the BCa acceleration from the jackknife's centred sums; 0 when *squares* is 0.

    >>> acceleration(6, 1), acceleration(0, 5), acceleration(3, 0)
    (1.0, 0.0, 0.0)
    >>> round(acceleration(Fraction(-3, 4), 4), 9)  # -0.75 / (6 * 4**1.5)
    -0.015625
    """
    if squares == 0 or cubes == 0:
        return 0.0
    sign = 1.0 if cubes > 0 else -1.0
    magnitude = abs(Fraction(cubes))
    squares = Fraction(squares)
    log_a = (
        math.log(magnitude.numerator) - math.log(magnitude.denominator)
        - 1.5 * (math.log(squares.numerator) - math.log(squares.denominator))
        - math.log(6)
    )
    return sign * math.exp(log_a)


def bca_levels(below: Fraction, a: float, confidence: float, n_resamples: int) -> tuple[float, float]:
    """The two quantile levels of the BCa interval; *below* is p0, the share under the estimate.

    With p0 = 1/2 and a = 0 they are the percentile interval's, alpha and
    1 - alpha; more resamples below the estimate move both up.

    >>> [round(level, 4) for level in bca_levels(Fraction(1, 2), 0.0, 0.95, 1000)]
    [0.025, 0.975]
    >>> [round(level, 4) for level in bca_levels(Fraction(3, 5), 0.1, 0.95, 1000)]
    [0.1142, 0.999]
    """
    floor = Fraction(1, 2 * n_resamples)
    p0 = min(max(below, floor), 1 - floor)
    z0 = _NORMAL.inv_cdf(float(p0))
    alpha = (1 - confidence) / 2
    levels = []
    for tail, extreme in ((alpha, 0.0), (1 - alpha, 1.0)):
        z = z0 + _NORMAL.inv_cdf(tail)
        denominator = 1 - a * z
        levels.append(_NORMAL.cdf(z0 + z / denominator) if denominator > 0 else extreme)
    return levels[0], levels[1]


def interval(
    sorted_stats: Sequence[float], method: str, confidence: float, *, below: Fraction | None = None, a: float = 0.0
) -> tuple[float, float]:
    """The CI from *sorted_stats*: percentile quantiles, or BCa's (needs *below*, p0, and *a*).

    >>> interval([float(x) for x in range(11)], "percentile", 0.5)  # the 25% and 75% quantiles
    (2.5, 7.5)
    """
    alpha = (1 - confidence) / 2
    if method == "percentile":
        low, high = alpha, 1 - alpha
    else:
        assert below is not None
        low, high = bca_levels(below, a, confidence, len(sorted_stats))
    return percentile(sorted_stats, low), percentile(sorted_stats, high)
