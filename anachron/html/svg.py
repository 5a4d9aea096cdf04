"""Inline SVG plots, drawn by the package itself (no plotting library).

Each function returns one ``<svg>`` element as text.  Every mark is a
``<path>`` with a ``class`` naming its series and a ``<title>`` a reader
sees on hover; coordinates are written with two decimals, so the same data
give the same bytes.  Labels go through :func:`anachron.html._text.esc`.
"""

from __future__ import annotations

import math
from typing import Sequence

from ._text import esc, num

__all__ = ["HORIZON_BINS", "bar_plot", "horizon_bins", "horizon_histogram", "interval_plot"]

WIDTH = 560
_LEFT, _RIGHT, _TOP, _BOTTOM = 48, 12, 12, 34


def _f(x: float) -> str:
    return f"{x + 0.0:.2f}"


def _open(height: int, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{esc(label)}">'
    )


def _axes(height: int) -> str:
    """The left and bottom axis lines of a plot area."""
    x0, y0, y1 = _LEFT, _TOP, height - _BOTTOM
    return f'<path class="axis" d="M{_f(x0)} {_f(y0)}V{_f(y1)}H{_f(WIDTH - _RIGHT)}"/>'


def _ytick(y: float, label: str) -> str:
    return (
        f'<path class="grid" d="M{_f(_LEFT)} {_f(y)}H{_f(WIDTH - _RIGHT)}"/>'
        f'<text class="tick" x="{_f(_LEFT - 6)}" y="{_f(y + 4)}" text-anchor="end">{esc(label)}</text>'
    )


def bar_plot(
    bars: Sequence[tuple[str, float, float]],
    *,
    label: str,
    x_label: str,
    height: int = 220,
    series: str = "value",
) -> str:
    """Columns in [0, 1], one per ``(title, value, high)``; ``high > value`` draws a band above.

    A zero value is drawn as a short mark on the baseline, so every column
    is visible.  The y axis is ticked at 0, 0.25, 0.5, 0.75 and 1.
    """
    inner_w = WIDTH - _LEFT - _RIGHT
    base = height - _BOTTOM
    inner_h = base - _TOP
    parts = [_open(height, label)]
    parts += [_ytick(base - t * inner_h, f"{t:g}") for t in (0, 0.25, 0.5, 0.75, 1)]
    parts.append(_axes(height))
    slot = inner_w / max(len(bars), 1)
    width = max(slot * 0.8, 0.6)
    for i, (title, value, high) in enumerate(bars):
        x = _LEFT + i * slot + (slot - width) / 2
        top = base - value * inner_h
        if value > 0:
            d = f"M{_f(x)} {_f(base)}V{_f(top)}H{_f(x + width)}V{_f(base)}Z"
            parts.append(f'<path class="bar {series}" d="{d}"><title>{esc(title)}</title></path>')
        else:
            d = f"M{_f(x)} {_f(base - 1.5)}H{_f(x + width)}V{_f(base)}H{_f(x)}Z"
            parts.append(f'<path class="bar zero" d="{d}"><title>{esc(title)}</title></path>')
        if high > value:
            d = f"M{_f(x)} {_f(top)}V{_f(base - high * inner_h)}H{_f(x + width)}V{_f(top)}Z"
            parts.append(f'<path class="bar band" d="{d}"><title>{esc(title)} (band)</title></path>')
    parts.append(
        f'<text class="label" x="{_f(_LEFT + inner_w / 2)}" y="{_f(height - 8)}" text-anchor="middle">{esc(x_label)}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


# Days past T: the core's bands (7, 31, 366) are edges, with a quarter and a half year between.
HORIZON_BINS: tuple[tuple[int, int | None], ...] = ((1, 7), (8, 31), (32, 92), (93, 183), (184, 366), (367, None))


def horizon_bins(days: Sequence[int]) -> list[tuple[str, int]]:
    """``(label, count)`` per bin of :data:`HORIZON_BINS` for post-T items *days* past T."""
    out = []
    for low, high in HORIZON_BINS:
        n = sum(1 for d in days if d >= low and (high is None or d <= high))
        out.append((f"{low}-{high}" if high is not None else f">{low - 1}", n))
    return out


def horizon_histogram(days: Sequence[int], *, height: int = 200) -> str:
    """A histogram of how far past T the post-T items were dated, in days (bins: :data:`HORIZON_BINS`)."""
    bins = horizon_bins(days)
    top = max([n for _, n in bins] + [1])
    inner_w = WIDTH - _LEFT - _RIGHT
    base = height - _BOTTOM
    inner_h = base - _TOP
    parts = [_open(height, f"leak horizon: {len(days)} post-T items by days past T")]
    step = max(1, -(-top // 4))
    parts += [_ytick(base - t / top * inner_h, str(t)) for t in range(0, top + 1, step)]
    parts.append(_axes(height))
    slot = inner_w / len(bins)
    for i, (name, n) in enumerate(bins):
        x = _LEFT + i * slot + slot * 0.1
        w = slot * 0.8
        if n:
            d = f"M{_f(x)} {_f(base)}V{_f(base - n / top * inner_h)}H{_f(x + w)}V{_f(base)}Z"
            parts.append(f'<path class="bar horizon" d="{d}"><title>{esc(name)} days: {n} items</title></path>')
        parts.append(
            f'<text class="tick" x="{_f(x + w / 2)}" y="{_f(base + 14)}" text-anchor="middle">{esc(name)}</text>'
        )
    parts.append(
        f'<text class="label" x="{_f(_LEFT + inner_w / 2)}" y="{_f(height - 4)}" text-anchor="middle">days past T</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def _ticks(low: float, high: float) -> list[float]:
    """Round ticks (1, 2 or 5 times a power of ten apart) inside [low, high], about five of them."""
    raw = (high - low) / 5
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step)
    return [k * step for k in range(first, math.floor(high / step) + 1)]


def interval_plot(rows: Sequence[tuple[str, float, float, float]], *, label: str, series: str = "interval") -> str:
    """Points with intervals on one horizontal axis: ``(name, point, low, high)`` per row.

    The axis spans every interval and zero (drawn as a reference line);
    a degenerate span (all values equal) is widened by 0.05 each side.
    """
    row_h = 34
    height = _TOP + row_h * len(rows) + 30
    left = 170
    lo = min([0.0] + [r[2] for r in rows])
    hi = max([0.0] + [r[3] for r in rows])
    pad = (hi - lo) * 0.08 or 0.05
    lo, hi = lo - pad, hi + pad
    inner_w = WIDTH - left - _RIGHT

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * inner_w

    base = _TOP + row_h * len(rows)
    parts = [_open(height, label)]
    for t in _ticks(lo, hi):
        parts.append(f'<path class="grid" d="M{_f(x(t))} {_f(_TOP)}V{_f(base)}"/>')
        parts.append(f'<text class="tick" x="{_f(x(t))}" y="{_f(base + 14)}" text-anchor="middle">{t:g}</text>')
    parts.append(f'<path class="axis zero" d="M{_f(x(0.0))} {_f(_TOP)}V{_f(base)}"/>')
    for i, (name, point, low, high) in enumerate(rows):
        y = _TOP + row_h * i + row_h / 2
        title = f"{name}: {num(point)} [{num(low)}, {num(high)}]"
        whiskers = (
            f"M{_f(x(low))} {_f(y)}H{_f(x(high))}"
            f"M{_f(x(low))} {_f(y - 7)}V{_f(y + 7)}M{_f(x(high))} {_f(y - 7)}V{_f(y + 7)}"
        )
        parts.append(f'<path class="ci {series}" d="{whiskers}"><title>{esc(title)}</title></path>')
        px = x(point)
        marker = f"M{_f(px - 5)} {_f(y)}L{_f(px)} {_f(y - 5)}L{_f(px + 5)} {_f(y)}L{_f(px)} {_f(y + 5)}Z"
        parts.append(f'<path class="point {series}" d="{marker}"><title>{esc(title)}</title></path>')
        parts.append(f'<text class="tick" x="{_f(left - 8)}" y="{_f(y + 4)}" text-anchor="end">{esc(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)
