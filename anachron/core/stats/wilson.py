"""The Wilson score interval of a binomial proportion (the bank's leak-rate CI)."""

from __future__ import annotations

import math

from anachron.core.errors import AnachronError

__all__ = ["Z95", "wilson_interval"]

# Phi^-1(0.975), the two-sided 95% normal quantile (statistics.NormalDist().inv_cdf(0.975)).
Z95 = 1.959963984540054


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval for a binomial proportion; ``None`` when *trials* is 0.

    With ``p = k/n``::

        centre    = (p + z**2 / (2n)) / (1 + z**2 / n)
        halfwidth = z / (1 + z**2 / n) * sqrt(p (1 - p) / n + z**2 / (4 n**2))
        interval  = [centre - halfwidth, centre + halfwidth]

    ``z`` defaults to 1.959963984540054 (95%, two-sided).  Unlike the Wald
    interval it stays inside [0, 1] and is not degenerate at ``k = 0`` or
    ``k = n``: 0 of 40 gives [0, 0.0876], 40 of 40 gives [0.9124, 1].  At
    ``k = 0`` the lower bound is exactly 0 and at ``k = n`` the upper bound
    exactly 1 (the formula's value, without float residue); other bounds are
    clamped to [0, 1].  Counts that are not integers (``bool`` included) or
    not ``0 <= successes <= trials`` raise :class:`AnachronError`.

    >>> [round(x, 4) for x in wilson_interval(7, 20)]  # p = 0.35
    [0.1812, 0.5671]
    >>> [round(x, 4) for x in wilson_interval(0, 40)]
    [0.0, 0.0876]
    >>> wilson_interval(40, 40)[1], wilson_interval(0, 0)
    (1.0, None)
    """
    if isinstance(successes, bool) or isinstance(trials, bool) or not isinstance(successes, int) or not isinstance(trials, int):
        raise AnachronError("wilson_interval: counts must be integers")
    if trials < 0 or not 0 <= successes <= max(trials, 0):
        raise AnachronError(f"wilson_interval: need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return None
    n, p, z2 = trials, successes / trials, z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At k = 0 (k = n) the lower (upper) bound is exactly 0 (1); floats would leave 1e-17.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high
