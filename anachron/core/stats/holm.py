"""Holm's step-down adjustment of p-values for multiple comparisons."""

from __future__ import annotations

from typing import Sequence

__all__ = ["holm"]


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm step-down adjusted p-values, in the order given; ``None`` entries are left out.

    With the m non-``None`` p-values sorted ascending, p_(1) <= ... <= p_(m),
    the adjusted value of p_(i) is ``max over j <= i of min(1, (m - j + 1) p_(j))``:
    each is at least its raw p and the adjusted values keep the raw order.
    A ``None`` (a comparison that could not be made) stays ``None`` and does
    not count towards m; an empty list gives an empty list.

    >>> holm([0.01, 0.04, None, 0.03])  # m = 3: 3 * 0.01, 2 * 0.03, max(2 * 0.03, 1 * 0.04)
    [0.03, 0.06, None, 0.06]
    """
    ranked = sorted((p, i) for i, p in enumerate(pvalues) if p is not None)
    adjusted: list[float | None] = [None] * len(pvalues)
    running = 0.0
    for rank, (p, i) in enumerate(ranked):
        running = max(running, min(1.0, (len(ranked) - rank) * p))
        adjusted[i] = running
    return adjusted
