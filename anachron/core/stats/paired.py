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

import math
import numbers
import random
import sys
from collections import Counter
from itertools import repeat
from operator import add, and_, lshift, mul, rshift, sub, truediv
from fractions import Fraction
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

from anachron.core.display import render_html
from anachron.core.docs import doc_url
from anachron.core.errors import AnachronError
from anachron.core.validate import positive_int
from anachron.core.scores import check_scores, metric_kind
from anachron.core.stats.bootstrap import (
    BandStatistics, BlockResamples, band_edge, log2_sd, ByteResamples, OrderStatistics, bootstrap_byte_bounds, bootstrap_column_bounds, bootstrap_pair_totals, bootstrap_totals, count_below,
    paired_method, resampling_method,
)
from anachron.core.stats.intervals import CI_METHODS, acceleration, interval
from anachron.core.stats.signtest import sign_test

__all__ = ["COMPARISON_COLUMNS", "ModeComparison", "compare_modes"]

# The columns of ModeComparison.to_records() (and the CSV of `anachron compare --format csv`).
COMPARISON_COLUMNS: tuple[str, ...] = (
    "metric", "n", "unrestricted_mean", "enforced_mean", "mean_reduction", "ci_low", "ci_high", "confidence",
    "relative_reduction", "improved", "worsened", "tied", "sign_test_p", "sign_test_log10_p", "n_resamples",
    "seed", "resampling", "ci_method", "relative_ci_low", "relative_ci_high",
    "unrestricted_label", "enforced_label", "warnings",
)

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
    relative_reduction: float | None  # mean_reduction / unrestricted_mean; None when that is 0, or beyond a float
    improved: int  # pairs with unrestricted > enforced
    worsened: int
    tied: int
    sign_test_p: float  # never below 5e-324: see sign_test_log10_p
    sign_test_log10_p: float  # log10 of the exact p, even where p underflows a double
    n_resamples: int
    seed: int
    metric: str
    resampling: str  # "multinomial", "direct" or "blocks": the same estimator, three ways to draw it
    ci_method: str = "percentile"  # or "bca" (stats.intervals)
    relative_ci_low: float | None = None  # the bootstrap CI of relative_reduction; None when it is None
    relative_ci_high: float | None = None
    warnings: tuple[str, ...] = ()  # what makes the interval less than it looks (docs/metrics.md)
    # What each run is (its file, mode, model, corpus: anachron.core.scores.run_label); None: not told.
    unrestricted_label: str | None = None
    enforced_label: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-safe (``relative_reduction`` and its CI may be None)."""
        data = asdict(self)
        data["warnings"] = list(self.warnings)
        return data

    def to_records(self) -> list[dict[str, Any]]:
        """The comparison as one flat record (columns :data:`COMPARISON_COLUMNS`), for
        ``pandas.DataFrame`` and CSV: the warnings joined with ``\\n``, so they travel with the interval."""
        data = self.to_dict()
        row = {name: data.get(name) for name in COMPARISON_COLUMNS}
        row["warnings"] = "\n".join(self.warnings)
        return [row]

    def table_rows(self) -> list[tuple[str, int, str]]:
        """(label, label width, value): one width, the longest label's, so the values form one column."""
        name = "TCLR" if self.metric == "tclr" else self.metric
        if self.relative_reduction is not None:
            relative = f"{self.relative_reduction * 100:.1f}%"
        else:
            beyond = any(w.startswith(BEYOND_A_FLOAT) for w in self.warnings)
            relative = "n/a (beyond a float; see warnings)" if beyond else "n/a (unrestricted mean is 0)"
        if self.relative_ci_low is None or self.relative_ci_high is None:
            relative_ci = "n/a"
        else:
            relative_ci = f"[{self.relative_ci_low * 100:.1f}%, {self.relative_ci_high * 100:.1f}%]"
        kind = "paired bootstrap" if self.ci_method == "percentile" else "BCa bootstrap"
        rows = [
            (f"unrestricted mean {name}", f"{self.unrestricted_mean:.3f}"),
            (f"enforced mean {name}", f"{self.enforced_mean:.3f}"),
            ("mean reduction", _signed(self.mean_reduction)),
            (f"{self.confidence * 100:.10g}% {kind} CI", f"[{_signed(self.ci_low)}, {_signed(self.ci_high)}]"),
            ("relative reduction", relative),
            ("relative reduction CI", relative_ci),
            ("improved / worsened / tied", f"{self.improved} / {self.worsened} / {self.tied}"),
            ("exact sign-test p", _format_p(self.sign_test_p, self.sign_test_log10_p)),
        ]
        width = max(len(label) for label, _ in rows)
        return [(label, width, value) for label, value in rows]

    def method_rows(self) -> list[tuple[str, int, str]]:
        """What made the figures: the metric, the resamples and the seed (shown in HTML)."""
        runs = [(f"{side} run", 0, label) for side, label in
                (("unrestricted", self.unrestricted_label), ("enforced", self.enforced_label)) if label is not None]
        return runs + [
            ("metric", 0, self.metric),
            ("bootstrap resamples", 0, str(self.n_resamples)),
            ("seed", 0, str(self.seed)),
            ("resampling", 0, self.resampling),
            ("interval", 0, self.ci_method),
        ]

    def table(self) -> str:
        """The human-readable report, one figure a line (no trailing newline)."""
        lines = [f"Paired mode comparison (n={self.n})"]
        rows = self.table_rows()
        width = rows[0][1]  # every value starts in one column, the run labels' too
        for side, label in (("unrestricted", self.unrestricted_label), ("enforced", self.enforced_label)):
            if label is not None:
                lines.append(f"  {side + ' run':<{width}}  {label}")
        lines += [f"  {label:<{width}}  {value}" for label, _, value in rows]
        lines += [f"  warning: {warning}" for warning in self.warnings]
        return "\n".join(lines)

    def _repr_html_(self) -> str | None:
        """A notebook's display, by the renderer the output side registers (:mod:`anachron.core.display`)."""
        return render_html(self)


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
# A documented floor: fewer resamples than this give quantiles that are mostly noise.
MIN_RESAMPLES = 100
# Below these, the report says why its interval is less than it looks.
SMALL_N = 30
FEW_RESAMPLES = 1_000


def check_options(
    confidence: object, n_resamples: object, seed: object, ci_method: object = "percentile", *,
    names: Mapping[str, str] | None = None,
) -> None:
    """Refuse options :func:`compare_modes` cannot use, as it does.

    *names* renames a parameter in the messages: a command line passes its
    flags (``{"n_resamples": "--resamples"}``), so its user reads the name
    they typed.
    """
    name = {key: (names or {}).get(key, key) for key in ("confidence", "n_resamples", "seed", "ci_method")}
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, numbers.Real)
        or not 0 < confidence < 1  # False for NaN
    ):
        raise AnachronError(f"{name['confidence']} must be a number strictly between 0 and 1, got {confidence!r}")
    if positive_int(n_resamples, name["n_resamples"]) > MAX_RESAMPLES:
        raise AnachronError(f"{name['n_resamples']} must be at most {MAX_RESAMPLES:,}, got {n_resamples!r}")
    if n_resamples < MIN_RESAMPLES:  # type: ignore[operator]
        raise AnachronError(
            f"{name['n_resamples']} must be at least {MIN_RESAMPLES} (fewer give an interval of noise), got {n_resamples!r}"
        )
    if ci_method not in CI_METHODS:
        raise AnachronError(f"{name['ci_method']} must be one of {', '.join(CI_METHODS)}, got {ci_method!r}")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise AnachronError(f"{name['seed']} must be an integer, got {seed!r}")


def _id_list(ids: list[str]) -> str:
    if not ids:
        return "none"
    shown = [repr(i if len(i) <= 40 else i[:37] + "...") for i in ids[:_SHOWN_IDS]]
    more = f", ... ({len(ids)} in all)" if len(ids) > _SHOWN_IDS else ""
    return ", ".join(shown) + more


def _check_same_ids(unrestricted: Mapping[str, object], enforced: Mapping[str, object]) -> None:
    if unrestricted.keys() == enforced.keys():  # the common case, one C-level comparison
        return
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
    ci_method: str = "percentile",
) -> ModeComparison:
    """Compare two runs of the same samples as paired observations.

    *unrestricted* and *enforced* map sample id -> the per-sample value of
    *metric* (a rate such as ``"tclr"`` in [0, 1], or a count such as
    ``"survivorship_leaks"``; see :data:`anachron.core.scores.METRICS`).
    Both must hold the same sample ids.  Bad input raises
    :class:`~anachron.core.errors.AnachronError` naming the side and sample.

    The bootstrap draws from ``random.Random(seed)``.  It resamples the
    distinct differences by multinomial counts when there are few of them
    (cost independent of n) and resamples pairs directly otherwise; both are
    the same estimator (``report.resampling`` says which ran).

    Degenerate inputs: every pair tied (identical inputs) gives a reduction
    of 0, CI [0, 0] and p = 1; a single pair gives a CI collapsed on its
    difference and p = 1.

    Four samples, differences 1, 0.5, 0 and 0:

    >>> r = compare_modes({"a": 1.0, "b": 0.5, "c": 0.5, "d": 0.0}, {"a": 0.0, "b": 0.0, "c": 0.5, "d": 0.0})
    >>> r.mean_reduction, r.relative_reduction
    (0.375, 0.75)
    >>> r.ci_low, r.ci_high  # P(resample mean = 0) = 1/16; P(resample mean > 0.75) = 5/256
    (0.0, 0.75)
    >>> r.improved, r.worsened, r.tied, r.sign_test_p  # p = 2 * (1/2)**2
    (2, 0, 2, 0.5)
    """
    metric_kind(metric)
    check_options(confidence, n_resamples, seed, ci_method)
    u = check_scores(unrestricted, "unrestricted", metric)
    e = check_scores(enforced, "enforced", metric)
    _check_same_ids(u, e)
    n = len(u)
    e_values = list(map(e.__getitem__, u))  # in u's order, pair by pair

    # Exact arithmetic: every value is num / den with den a power of two, so
    # one common denominator (the largest) turns them all into integers.
    ratios = {x: x.as_integer_ratio() for x in {*u.values(), *e_values}}
    denominator = max(den for _, den in ratios.values())
    numerator = {x: num * (denominator // den) for x, (num, den) in ratios.items()}
    u_numerators = list(map(numerator.__getitem__, u.values()))
    d_numerators = list(map(sub, u_numerators, map(numerator.__getitem__, e_values)))
    sum_u = sum(u_numerators)
    sum_e = sum_u - sum(d_numerators)
    differences: Counter[int] = Counter(d_numerators)
    scale = n * denominator

    b = int(n_resamples)
    method = paired_method(len(differences), n, b)
    rng = random.Random(seed)
    sum_d = sum_u - sum_e
    shared = None
    below = a = None
    d_band = None  # the d column's first-pass keys in order, where they were sorted
    if method in ("blocks", "bytes"):
        # One draw of rows serves both intervals: each resample's sums of u and of d, bounded by a
        # first pass over their high bits; only the resamples an order statistic or BCa's count
        # can depend on are replayed exactly (bootstrap_column_bounds).
        columns = _sorted_pairs(u_numerators, d_numerators, bool(sum_u))
        if method == "bytes":
            shared = bootstrap_byte_bounds(columns, b, rng, _read_scales(columns, sum_u, sum_d))
        else:
            shared = bootstrap_column_bounds(columns, b, rng, log_sds=_read_scales(columns, sum_u, sum_d), ordered=True)
        last = len(columns) - 1

        def exact_d(indices):
            return {i: t[last] for i, t in shared.exact(indices).items()}

        if isinstance(shared, ByteResamples):  # each total within one spread of a key: one sort of the keys
            keys, offset, step, spread = shared.band(last)
            band = BandStatistics(keys, spread // step, exact_d, lambda total: total / scale)
            means: Sequence[float] = band
            d_band = band
            if ci_method == "bca":  # a key below the first bound has its total below sum_d; above the second, above
                below = Fraction(band.count_below(-((offset + spread - sum_d) // step), (sum_d - offset) // step, sum_d), 2 * b)
        else:
            d_lows, d_highs = shared.bounds(last)
            means = OrderStatistics(d_lows, d_highs, exact_d, lambda total: total / scale)
            if ci_method == "bca":
                below = Fraction(count_below(d_lows, d_highs, sum_d, exact_d), 2 * b)
    else:
        values = sorted(differences)  # the drawn values' order fixes the draws
        totals = bootstrap_totals(values, [differences[v] for v in values], b, rng, method)
        means = sorted(total / scale for total in totals)
        if ci_method == "bca":
            below = Fraction(sum(2 * (t < sum_d) + (t == sum_d) for t in totals), 2 * b)
    if ci_method == "bca":
        centred = [(n * v - sum_d, c) for v, c in differences.items()]  # n (d_i - mean): the jackknife's spread, scaled (exact sums: any order)
        a = acceleration(sum(c * y**3 for y, c in centred), sum(c * y * y for y, c in centred))
    ci_low, ci_high = interval(means, ci_method, float(confidence), below=below, a=a or 0.0)
    relative_ci: tuple[float | None, float | None, int] = (None, None, 0)
    relative = None
    too_large: tuple[str, ...] = ()
    if sum_u:
        if _fits_a_float(abs(sum_d), sum_u):
            relative = sum_d / sum_u
        relative_ci = _relative_interval(u_numerators, d_numerators, sum_u, sum_d, b, rng, ci_method, float(confidence), shared, d_band)
        ends = [end for end in relative_ci[:2] if end is not None]
        if relative is None or not all(map(math.isfinite, ends)):
            # The estimate, or a resample's ratio read at an end of the interval, is beyond every float.
            too_large = ((BEYOND_A_FLOAT if relative is None else "the relative reduction's interval is not reported")
                         + ": the unrestricted scores come so close to 0 beside these differences that the ratio "
                         "mean(u - e) / mean(u) exceeds the largest float",)
            relative_ci = (None, None, relative_ci[2])

    improved = sum(c for v, c in differences.items() if v > 0)
    worsened = sum(c for v, c in differences.items() if v < 0)
    p, log10_p = sign_test(improved, improved + worsened)
    warnings = _warnings(n, improved + worsened, b, relative_ci[2]) + _relative_warnings(
        sum_u > 0 and sum_e == 0, relative_ci[0], relative_ci[1]) + too_large
    return ModeComparison(
        n=n,
        unrestricted_mean=sum_u / scale,
        enforced_mean=sum_e / scale,
        mean_reduction=(sum_u - sum_e) / scale,
        ci_low=ci_low,
        ci_high=ci_high,
        confidence=float(confidence),
        relative_reduction=relative,
        improved=improved,
        worsened=worsened,
        tied=n - improved - worsened,
        sign_test_p=p,
        sign_test_log10_p=log10_p,
        n_resamples=int(n_resamples),
        seed=int(seed),
        metric=metric,
        resampling=method,
        ci_method=ci_method,
        relative_ci_low=relative_ci[0],
        relative_ci_high=relative_ci[1],
        warnings=warnings,
    )


def _sorted_pairs(us: list[int], ds: list[int], with_u: bool) -> list[list[int]]:
    """The pairs (u, d) in lexicographic order, as columns (u's only *with_u*): sorted as one integer
    each, u above d less its least (ints compare faster than tuples; equal keys are equal pairs)."""
    low = min(ds)
    shift = (max(ds) - low).bit_length()
    keys = sorted(map(add, map(lshift, us, repeat(shift)), map(sub, ds, repeat(low))))
    d_column = list(map(add, map(and_, keys, repeat((1 << shift) - 1)), repeat(low)))
    return [list(map(rshift, keys, repeat(shift))), d_column] if with_u else [d_column]


def _read_scales(columns: list[list[int]], sum_u: int, sum_d: int) -> list[float] | None:
    """log2 of how finely each column's resample totals are read (bootstrap_byte_bounds): the ratio
    mean(d) / mean(u) = R moves with d - R u (the delta method), so u is read to that spread over
    |R| and d to the least of its own and that one; None (each its own) without a ratio."""
    if len(columns) < 2 or not sum_d:
        return None
    us, ds = columns
    moved = log2_sd(list(map(sub, map(mul, ds, repeat(sum_u)), map(mul, us, repeat(sum_d))))) - math.log2(sum_u)  # of d - R u
    if moved == -math.inf:
        return None  # every resample has the ratio R
    return [moved - (math.log2(abs(sum_d)) - math.log2(sum_u)), min(log2_sd(ds), moved)]


def _fits_a_float(numerator: int, denominator: int) -> bool:
    """Whether ``numerator / denominator`` (non-negative ints, denominator > 0), and anything smaller,
    is below half the largest float: it then rounds to a finite float (with room for rounding)."""
    return 2 * numerator <= _FLOAT_MAX * denominator


def _float_ratio(numerator: int, denominator: int) -> float:
    """``numerator / denominator`` (denominator > 0) rounded once, or +-inf beyond every float."""
    try:
        return numerator / denominator
    except OverflowError:
        return math.inf if numerator > 0 else -math.inf


_FLOAT_MAX = int(sys.float_info.max)
BEYOND_A_FLOAT = "the relative reduction is not reported"  # how the warning begins when its estimate is left out


def _relative_interval(
    us: Sequence[int], ds: Sequence[int], sum_u: int, sum_d: int, b: int, rng: random.Random, ci_method: str,
    confidence: float, shared: BlockResamples | ByteResamples | None = None, d_band: BandStatistics | None = None,
) -> tuple[float | None, float | None, int]:
    """The bootstrap CI of mean(d) / mean(u), and how many resamples had mean(u) = 0 (left out).

    *us* and *ds* are the pairs' u_i and d_i, as integers over one denominator.
    Resamples the pairs (u_i, d_i) themselves, drawing on after the CI of
    mean(d); each resample's ratio is its exact sums' quotient, rounded once.
    *shared*, the sums (of u, of d) of the resamples the CI of mean(d) was
    made from ("blocks" resampling), are used instead of drawing again; *d_band*, their d column's
    first-pass keys sorted ("bytes"), when the mean difference's interval sorted them.
    """
    keys: list[tuple[int, int]] = []
    counts: list[int] = []
    if shared is None or ci_method == "bca":  # the distinct pairs (u, d): to draw from, or for the jackknife
        categories: Counter[tuple[int, int]] = Counter(zip(us, ds))
        keys = sorted(categories)
        counts = [categories[k] for k in keys]
    n = sum(counts)
    below = a = None
    if shared is not None:
        ratios, doubled_below = _shared_ratios(shared, sum_u, sum_d, ci_method == "bca", d_band)
        undefined = b - len(ratios)
        if not ratios:
            return None, None, undefined
        if ci_method == "bca":
            below = Fraction(doubled_below, 2 * len(ratios))
    else:
        method = resampling_method(len(keys), n)  # drawn directly or by multinomials: paired_method's blocks are shared only
        totals = bootstrap_pair_totals(keys, counts, b, rng, "direct" if method == "blocks" else method)
        defined = [(tu, td) for tu, td in totals if tu]
        undefined = b - len(defined)
        if not defined:
            return None, None, undefined
        ratios = sorted(_float_ratio(td, tu) for tu, td in defined)
        if ci_method == "bca":
            # td / tu < sum_d / sum_u, with tu, sum_u > 0: compared as integers.
            below = Fraction(sum(2 * (td * sum_u < sum_d * tu) + (td * sum_u == sum_d * tu) for tu, td in defined), 2 * len(defined))
    if ci_method == "bca":
        a = _ratio_acceleration(keys, counts, sum_u, sum_d)
    low, high = interval(ratios, ci_method, confidence, below=below, a=a or 0.0)
    return low, high, undefined


def _ratio_bounds(u_low: int, u_high: int, d_low: int, d_high: int) -> tuple[float, float]:
    """Floats below and above every td / tu with td in [d_low, d_high] and tu in [u_low, u_high], u_low > 0.

    The quotient is monotone in each of td and tu, so its extremes are at the
    corners; each corner is rounded once and then moved one float outwards."""
    corners = []
    for td in (d_low, d_high):
        for tu in (u_low, u_high):
            try:
                corners.append(td / tu)
            except OverflowError:  # beyond every float: unbounded on that side
                corners.append(math.inf if td > 0 else -math.inf)
    return math.nextafter(min(corners), -math.inf), math.nextafter(max(corners), math.inf)


def _shared_ratios(shared: BlockResamples | ByteResamples, sum_u: int, sum_d: int, bca: bool,
                   d_band: BandStatistics | None = None) -> tuple[Sequence[float], int]:
    """The sorted ratios td / tu of the "blocks" resamples with tu > 0 (exact where read), and
    twice the number below sum_d / sum_u plus the number equal to it (when *bca*)."""
    if isinstance(shared, ByteResamples):
        banded = _band_ratios(shared, sum_u, sum_d, bca, d_band)
        if banded is not None:
            return banded
    u_lows, u_highs = shared.bounds(0)
    d_lows, d_highs = shared.bounds(1)
    if all(u_lows):  # every resample's tu > 0: float bounds on its ratio in C-level passes
        try:
            corners = [list(map(truediv, d, u)) for d in (d_lows, d_highs) for u in (u_lows, u_highs)]
        except OverflowError:  # a corner beyond every float: the loop below bounds it
            pass
        else:
            lows = list(map(math.nextafter, map(min, *corners), repeat(-math.inf)))
            highs = list(map(math.nextafter, map(max, *corners), repeat(math.inf)))
            return _ratio_statistics(shared, range(len(lows)), lows, highs, sum_u, sum_d, bca)
    # tu >= 0 (u is never negative): a resample whose bound on tu reaches 0 but not only 0 is resolved exactly.
    unsure = [i for i, (lo, hi) in enumerate(zip(u_lows, u_highs)) if lo == 0 < hi]
    known = shared.exact(unsure)
    numbers, lows, highs = [], [], []
    for i, (ul, uh, dl, dh) in enumerate(zip(u_lows, u_highs, d_lows, d_highs)):
        if uh == 0:
            continue  # tu = 0: no ratio
        if i in known:
            tu, td = known[i]
            if not tu:
                continue
            lows.append(Fraction(td, tu))
            highs.append(lows[-1])
        elif ul == uh and dl == dh:  # exact already
            lows.append(Fraction(dl, ul) if dl % ul else dl // ul)
            highs.append(lows[-1])
        else:
            low, high = _ratio_bounds(ul, uh, dl, dh)
            lows.append(low)
            highs.append(high)
        numbers.append(i)
    return _ratio_statistics(shared, numbers, lows, highs, sum_u, sum_d, bca)


_EPSILON = Fraction(1, 1 << 53)  # a float's relative rounding error, at most


def _band_ratios(shared: ByteResamples, sum_u: int, sum_d: int, bca: bool,
                 d_band: BandStatistics | None = None) -> tuple[Sequence[float], int] | None:
    """:func:`_shared_ratios` from the first pass's keys, with one band for every resample: None
    where it does not apply (a resample's unrestricted total may be 0, or a float overflows).

    Resample i's totals are tu = su xu_i and td = sd xd_i, xu_i in [pu_i, pu_i + bu] with
    pu_i = ku_i + au / su and bu = wu / su (xd_i likewise): its ratio, over sd / su, is xd_i / xu_i.
    With cu, cd the integers nearest the bands' centres' offsets au / su + bu / 2 and ad / sd + bd / 2,
    xu_i lies within ru = bu / 2 + |au / su + bu / 2 - cu| of the integer D_i = ku_i + cu (xd_i
    within rd of N_i = kd_i + cd), so xd_i / xu_i lies within W of the float q_i = N_i / D_i
    (exact integers, one rounding), with W, exact, bounding the bands' effect (rd + M ru) / P and
    the quotient's rounding (eps M), P below every xu_i and M above every |q_i|.  Read ratios are
    keyed by exact integers, floor(td 2^k / tu), 2^k above tu^2 and tu sum_u: distinct ratios,
    distinct keys. *d_band*: the d keys sorted, when they were (their least and greatest without a
    pass over them; their order, near the ratios', a start for the sort)."""
    ku, au, su, wu = shared.band(0)
    kd, ad, sd, wd = shared.band(1)
    half_u, half_d = Fraction(wu, 2 * su), Fraction(wd, 2 * sd)
    centre_u, centre_d = Fraction(au, su) + half_u, Fraction(ad, sd) + half_d
    # Integer offsets: each key's sums are exact integers (cheaper than an int and a float added
    # in a map), and each band widens by the offset's rounding, at most 1/2.
    cu, cd = round(centre_u), round(centre_d)
    radius_u, radius_d = half_u + abs(centre_u - cu), half_d + abs(centre_d - cd)
    low_u = min(ku)
    low_d, high_d = (d_band.least(), d_band.greatest()) if d_band is not None else (min(kd), max(kd))
    least = low_u + cu - radius_u  # below every xu_i
    if least <= 0:
        return None
    most = max(high_d + cd, -(low_d + cd)) / least  # above every |q_i| (D_i > least)
    half = (radius_d + most * radius_u) / least + _EPSILON * most + Fraction(1, 1 << 1074)
    try:
        keys = list(map(truediv, map(add, kd, repeat(cd)), map(add, ku, repeat(cu))))
    except OverflowError:  # a quotient beyond every float
        return None
    if not math.isfinite(sum(keys)):  # a sum of the keys beyond every float: the bounds a resample
        return None
    top = shared.greatest(0)  # no resample's tu is above it
    shift = top.bit_length() + max(top, sum_u).bit_length() + 1
    ratios_of: dict[int, tuple[int, int]] = {}

    def exact(indices):
        totals = shared.exact(indices)
        out = {}
        for i in indices:
            tu, td = totals[i]
            out[i] = key = (td << shift) // tu
            ratios_of[key] = (td, tu)
        return out

    ratios = BandStatistics(keys, 2 * half, exact, lambda key: _float_ratio(*ratios_of[key]), None if d_band is None else d_band.order)
    doubled = 0
    if bca:
        scaled = Fraction(sum_d * su, sum_u * sd)  # sum_d / sum_u in the keys' units
        doubled = ratios.count_below(band_edge(scaled, half, -1), band_edge(scaled, half, 1), (sum_d << shift) // sum_u)
    return ratios, doubled


def _ratio_statistics(shared: BlockResamples | ByteResamples, numbers: Sequence[int], lows: Sequence, highs: Sequence,
                      sum_u: int, sum_d: int, bca: bool) -> tuple[Sequence[float], int]:
    """The ratios of the resamples numbered *numbers*, each within [lows[j], highs[j]]: their
    order statistics and BCa's doubled count below sum_d / sum_u (as :func:`_shared_ratios`)."""

    def exact(indices):
        totals = shared.exact([numbers[j] for j in indices])
        return {j: Fraction(totals[numbers[j]][1], totals[numbers[j]][0]) for j in indices}

    ratios = OrderStatistics(lows, highs, exact, lambda r: _float_ratio(r.numerator, r.denominator) if isinstance(r, Fraction) else float(r))
    doubled = count_below(lows, highs, Fraction(sum_d, sum_u), exact) if bca else 0
    return ratios, doubled


# Distinct pairs (u, d) up to which the ratio's jackknife is summed in exact fractions (whose
# common denominator grows with every distinct leave-one-out sum(u)); beyond, the rounded rule.
EXACT_JACKKNIFE = 64
_JACKKNIFE_BITS = 96  # significant bits kept of the largest leave-one-out deviation


def _ratio_acceleration(keys: list[tuple[int, int]], counts: list[int], sum_u: int, sum_d: int) -> float:
    """The jackknife acceleration of sum(d) / sum(u); 0 when a leave-one-out has sum(u) = 0.

    theta_(i) = (sum d - d_i) / (sum u - u_i).  Up to :data:`EXACT_JACKKNIFE`
    distinct pairs the centred sums are exact fractions.  Beyond, each
    deviation theta_(i) - theta = (sum d * u_i - sum u * d_i) / (sum u (sum u - u_i))
    is rounded (half up) to a multiple of 2^-P, P chosen so that the largest
    keeps 96 significant bits, and the centred sums of those integers are exact:
    a linear cost, and an acceleration within about 2^-90 relative of the exact one.
    """
    n = sum(counts)
    if n < 2 or any(sum_u - u <= 0 for u, _ in keys):
        return 0.0
    if len(keys) <= EXACT_JACKKNIFE:
        leave_one_out = [(Fraction(sum_d - d, sum_u - u), c) for (u, d), c in zip(keys, counts)]
        mean = sum((theta * c for theta, c in leave_one_out), Fraction(0)) / n
        cubes = sum(((mean - theta) ** 3 * c for theta, c in leave_one_out), Fraction(0))
        squares = sum(((mean - theta) ** 2 * c for theta, c in leave_one_out), Fraction(0))
        return acceleration(cubes, squares)
    deviations = [(sum_d * u - sum_u * d, sum_u * (sum_u - u)) for u, d in keys]
    sizes = [num.bit_length() - den.bit_length() for num, den in deviations if num]
    if not sizes:
        return 0.0  # every leave-one-out ratio equals the whole sample's: no spread
    shift = _JACKKNIFE_BITS - max(sizes)
    s1 = s2 = s3 = 0
    for (num, den), c in zip(deviations, counts):
        if shift >= 0:
            num <<= shift
        else:
            den <<= -shift
        x = (2 * num + den) // (2 * den)
        s1 += c * x
        s2 += c * x * x
        s3 += c * x * x * x
    # n sum (x - mean)^2 and n^2 sum (x - mean)^3, in integers
    squares_n = n * s2 - s1 * s1
    cubes_n2 = n * n * s3 - 3 * n * s1 * s2 + 2 * s1**3
    return acceleration(Fraction(-cubes_n2, n * n), Fraction(squares_n, n))


def _relative_warnings(enforced_all_zero: bool, low: float | None, high: float | None) -> tuple[str, ...]:
    """What makes the relative reduction's interval less than it looks.

    Every enforced value 0 (values are never negative, so a zero sum is all
    zeros) makes every defined resample's ratio exactly 1: a [100%, 100%]
    interval by construction.  Any other zero-width interval shows that every
    resample gave one ratio.  Neither is certainty.
    """
    if enforced_all_zero:
        return ("every enforced value is 0: the relative reduction is 100% in every resample by construction, "
                "so its interval shows no variation in these samples, not certainty",)
    if low is not None and low == high:
        return (f"the relative reduction's interval has zero width ([{low * 100:.1f}%, {high * 100:.1f}%]): "
                "every resample gave the same ratio, which is not certainty",)
    return ()


def _warnings(n: int, untied: int, b: int, undefined_relative: int) -> tuple[str, ...]:
    out = []
    if n < SMALL_N:
        out.append(f"n = {n} is below {SMALL_N}: the interval's coverage is approximate ({doc_url('metrics.md')}, 'Coverage')")
    if untied == 0:
        out.append("every pair ties: a [0, 0] interval shows no variation in these samples, not certainty")
    if b < FEW_RESAMPLES:
        out.append(f"{b:,} resamples are fewer than {FEW_RESAMPLES:,}: the interval's ends are noisy")
    if undefined_relative:
        out.append(
            f"{undefined_relative:,} of {b:,} resamples had an unrestricted mean of 0 and no relative reduction; "
            "its interval is over the others"
        )
    return tuple(out)
