"""Paired comparison of two run modes, sample by sample (docs/metrics.md).

Each sample was run in both modes; its difference d = unrestricted - enforced
is one paired observation.  :func:`compare_modes` reports

- the **mean reduction** mean(d) = mean(unrestricted) - mean(enforced), and
  the **relative reduction** mean(d) / mean(unrestricted) (None when the
  unrestricted mean is 0);
- its **paired percentile-bootstrap CI**: resample the n pairs with
  replacement B times, take each resample's mean difference, and report the
  alpha and 1 - alpha quantiles (alpha = (1 - confidence) / 2; quantiles by
  linear interpolation, numpy's default), so a few outliers widen the
  interval instead of hiding in the average;
- the **exact two-sided sign test** over non-tied pairs: with k improved
  (d > 0) of n' = improved + worsened, p = min(1, 2 P(X <= min(k, n' - k)))
  for X ~ Binomial(n', 1/2), correctly rounded (1.0 when every pair ties).

All arithmetic on the data is exact: every value is a dyadic rational, the
means (including each resample's) are exact sums rounded once.  The same
inputs and seed give the same report, byte for byte.
"""

from __future__ import annotations

import html
import math
import numbers
import random
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Mapping

from ...errors import AnachronError
from ...validate import positive_int
from ..scores import check_scores, metric_kind
from .bootstrap import bootstrap_means, percentile, resampling_method
from .signtest import sign_test

__all__ = ["ModeComparison", "compare_modes"]

_SHOWN_IDS = 5


@dataclass(frozen=True)
class ModeComparison:
    """The paired comparison of an unrestricted and an enforced run."""

    n: int
    unrestricted_mean: float
    enforced_mean: float
    mean_reduction: float  # unrestricted mean minus enforced mean
    ci_low: float
    ci_high: float
    confidence: float
    relative_reduction: float | None  # mean_reduction / unrestricted_mean; None when that is 0
    improved: int  # pairs with unrestricted > enforced
    worsened: int
    tied: int
    sign_test_p: float  # never below 5e-324: see sign_test_log10_p
    sign_test_log10_p: float  # log10 of the exact p, even where p underflows a double
    n_resamples: int
    seed: int
    metric: str
    resampling: str  # "multinomial" or "direct": the same estimator, two ways to draw it

    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-safe (``relative_reduction`` may be None)."""
        return asdict(self)

    def _rows(self) -> list[tuple[str, int, str]]:
        """(label, label width, value): the widths give the published table shape."""
        name = "TCLR" if self.metric == "tclr" else self.metric
        mean_width = max(22, len(f"unrestricted mean {name}"))  # longer metric names stay aligned
        relative = "n/a (unrestricted mean is 0)" if self.relative_reduction is None else f"{self.relative_reduction * 100:.1f}%"
        return [
            (f"unrestricted mean {name}", mean_width, f"{self.unrestricted_mean:.3f}"),
            (f"enforced mean {name}", mean_width, f"{self.enforced_mean:.3f}"),
            ("mean reduction", 23, _signed(self.mean_reduction)),
            (f"{self.confidence * 100:.10g}% paired bootstrap CI", 23, f"[{_signed(self.ci_low)}, {_signed(self.ci_high)}]"),
            ("relative reduction", 23, relative),
            ("improved / worsened / tied", 26, f"{self.improved} / {self.worsened} / {self.tied}"),
            ("exact sign-test p", 24, _format_p(self.sign_test_p, self.sign_test_log10_p)),
        ]

    def _method(self) -> list[tuple[str, int, str]]:
        """What made the figures: the metric, the resamples and the seed (shown in HTML)."""
        return [
            ("metric", 0, self.metric),
            ("bootstrap resamples", 0, str(self.n_resamples)),
            ("seed", 0, str(self.seed)),
            ("resampling", 0, self.resampling),
        ]

    def table(self) -> str:
        """The human-readable report, one figure a line (no trailing newline)."""
        lines = [f"Paired mode comparison (n={self.n})"]
        lines += [f"  {label:<{width}}  {value}" for label, width, value in self._rows()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(
            f'<tr><th style="text-align:left">{html.escape(label)}</th>'
            f'<td style="text-align:right">{html.escape(value)}</td></tr>'
            for label, _, value in self._rows() + self._method()
        )
        return f"<table><caption>Paired mode comparison (n={self.n})</caption><tbody>{rows}</tbody></table>"


def _signed(x: float) -> str:
    return f"{x + 0.0:+.3f}"  # + 0.0 turns -0.0 into 0.0


def _format_p(p: float, log10_p: float) -> str:
    if p >= 1e-4:
        return f"{p:.4f}"
    if p >= 2.2250738585072014e-308:  # a normal double
        return f"{p:.2e}"
    # Subnormal or below every double: print the exact p from its logarithm.
    exponent = math.floor(log10_p)
    mantissa = round(10 ** (log10_p - exponent), 2)
    if mantissa >= 10:
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{mantissa:.2f}e{exponent}"


# A documented ceiling: 10^6 resamples take a few seconds; 10^12 would never finish.
MAX_RESAMPLES = 1_000_000


def _check_options(confidence: object, n_resamples: object, seed: object) -> None:
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, numbers.Real)
        or not 0 < confidence < 1  # False for NaN
    ):
        raise AnachronError(f"confidence must be a number strictly between 0 and 1, got {confidence!r}")
    if positive_int(n_resamples, "n_resamples") > MAX_RESAMPLES:
        raise AnachronError(f"n_resamples must be at most {MAX_RESAMPLES:,}, got {n_resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise AnachronError(f"seed must be an integer, got {seed!r}")


def _id_list(ids: list[str]) -> str:
    if not ids:
        return "none"
    shown = [repr(i if len(i) <= 40 else i[:37] + "...") for i in ids[:_SHOWN_IDS]]
    more = f", ... ({len(ids)} in all)" if len(ids) > _SHOWN_IDS else ""
    return ", ".join(shown) + more


def _check_same_ids(unrestricted: Mapping[str, object], enforced: Mapping[str, object]) -> None:
    only_u = sorted(unrestricted.keys() - enforced.keys())
    only_e = sorted(enforced.keys() - unrestricted.keys())
    if only_u or only_e:
        raise AnachronError(
            f"sample ids differ: only in unrestricted: {_id_list(only_u)}; only in enforced: {_id_list(only_e)}"
        )


def compare_modes(
    unrestricted: Mapping[str, float],
    enforced: Mapping[str, float],
    *,
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
    metric: str = "tclr",
) -> ModeComparison:
    """Compare two runs of the same samples as paired observations.

    *unrestricted* and *enforced* map sample id -> the per-sample value of
    *metric* (a rate such as ``"tclr"`` in [0, 1], or a count such as
    ``"survivorship_leaks"``; see :data:`anachron.core.scores.METRICS`).
    Both must hold the same sample ids.  Bad input raises
    :class:`~anachron.errors.AnachronError` naming the side and sample.

    The bootstrap draws from ``random.Random(seed)``.  It resamples the
    distinct differences by multinomial counts when there are few of them
    (cost independent of n) and resamples pairs directly otherwise; both are
    the same estimator (``report.resampling`` says which ran).

    Degenerate inputs: every pair tied (identical inputs) gives a reduction
    of 0, CI [0, 0] and p = 1; a single pair gives a CI collapsed on its
    difference and p = 1.
    """
    metric_kind(metric)
    _check_options(confidence, n_resamples, seed)
    u = check_scores(unrestricted, "unrestricted", metric)
    e = check_scores(enforced, "enforced", metric)
    _check_same_ids(u, e)
    n = len(u)
    pairs = Counter((u[sample_id], e[sample_id]) for sample_id in u)

    # Exact arithmetic: every value is num / den with den a power of two, so
    # one common denominator (the largest) turns them all into integers.
    ratios = {x: x.as_integer_ratio() for pair in pairs for x in pair}
    denominator = max(den for _, den in ratios.values())
    numerator = {x: num * (denominator // den) for x, (num, den) in ratios.items()}
    sum_u = sum_e = 0
    differences: Counter[int] = Counter()
    for (a, b), count in pairs.items():
        sum_u += count * numerator[a]
        sum_e += count * numerator[b]
        differences[numerator[a] - numerator[b]] += count
    scale = n * denominator

    values = sorted(differences)
    counts = [differences[v] for v in values]
    method = resampling_method(len(values), n)
    means = bootstrap_means(values, counts, denominator, int(n_resamples), random.Random(seed), method)
    means.sort()
    alpha = (1 - confidence) / 2

    improved = sum(c for v, c in differences.items() if v > 0)
    worsened = sum(c for v, c in differences.items() if v < 0)
    p, log10_p = sign_test(improved, improved + worsened)
    return ModeComparison(
        n=n,
        unrestricted_mean=sum_u / scale,
        enforced_mean=sum_e / scale,
        mean_reduction=(sum_u - sum_e) / scale,
        ci_low=percentile(means, alpha),
        ci_high=percentile(means, 1 - alpha),
        confidence=float(confidence),
        relative_reduction=(sum_u - sum_e) / sum_u if sum_u else None,
        improved=improved,
        worsened=worsened,
        tied=n - improved - worsened,
        sign_test_p=p,
        sign_test_log10_p=log10_p,
        n_resamples=int(n_resamples),
        seed=int(seed),
        metric=metric,
        resampling=method,
    )
