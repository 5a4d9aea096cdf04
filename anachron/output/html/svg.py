"""SVG figures drawn by the package itself (no plotting library): primitives and the report's charts.

A :class:`Figure` is one chart: its marks (``body``), its size, an
``aria-label`` and a caption stating n and the denominator.  It renders
inline for the HTML page (:meth:`Figure.html`, styled by the page's CSS) or
as a standalone SVG file for a paper (:meth:`Figure.standalone`, the same
marks with :data:`SVG_CSS` embedded and the caption drawn below).  The
palette is one light theme whose series differ in lightness and in marker
shape, so a figure printed in grey still reads.

The primitives are reusable by any chart (the report's and others):
:class:`Linear` and :class:`Log` scales, :func:`x_axis`, :func:`y_axis`,
:func:`legend`, :func:`note`, :func:`interval_panels` and :func:`caption_lines`.
Every mark is a ``<path>`` whose ``class`` names its kind and series, with
a ``<title>`` a reader sees on hover; every coordinate is written with two
decimals, so the same data give the same bytes.  Text goes through
:func:`anachron.output.html._text.esc`.  Layout estimates text widths from
:data:`CHAR_EM` (a generous average advance), so labels are spaced and
clipped before a browser measures them.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field
from typing import Callable, Sequence

from anachron.output.html._text import esc, num

__all__ = [
    "CHAR_EM", "FONT", "HORIZON_BINS", "LABELLED_ROWS", "SVG_CSS", "WIDTH", "Figure", "IntervalRow", "Linear", "Log", "Panel",
    "caption_lines", "clip", "dumbbell_plot", "horizon_bins", "horizon_density", "horizon_end", "horizon_histogram", "integer_ticks", "interval_panels", "legend",
    "nice_ticks", "note", "rate_bars", "sample_bars", "text_width", "x_axis", "y_axis",
]

WIDTH = 600  # px: every figure's width; the page never scales a figure up, and the fonts below stay >= 12 px
FONT = 12  # px: ticks, legend entries, row labels
TITLE_FONT = 13  # px: axis titles and notes
CHAR_EM = 0.64  # the widest average advance of a sans-serif text (DejaVu Sans digits are 0.636 em)
RIGHT = 20
LEGEND_ROW = 20
AXIS_BELOW = 46  # tick labels, then the axis title

# One light theme, shared by the page and the standalone files: the series differ in lightness
# (dark red, light blue, dark violet, light orange) and in marker shape, so they print in grey.
SVG_CSS = """
svg.plot{font-family:system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif}
svg.plot .axis{stroke:#24292f;fill:none;stroke-width:1}svg.plot .grid{stroke:#e1e4e8;fill:none;stroke-width:1}
svg.plot .tickmark{stroke:#24292f;fill:none}
svg.plot text{fill:#24292f}svg.plot .tick,svg.plot .legend,svg.plot .count,svg.plot .reflabel{font-size:12px}
svg.plot .label{font-size:13px;font-weight:600}svg.plot .note{font-size:13px;font-style:italic;fill:#444c56}
svg.plot .caption{font-size:12px;fill:#444c56}
svg.plot .s0{fill:#a50f15;stroke:#a50f15}svg.plot .s1{fill:#6baed6;stroke:#2b6d99}
svg.plot .s2{fill:#54278f;stroke:#54278f}svg.plot .s3{fill:#fdae6b;stroke:#b35806}
svg.plot .bar{stroke-width:.5}svg.plot .bar.zero{fill:#8c959f;stroke:#8c959f}
svg.plot .bar.band{fill:#fdd0a2;stroke:#b35806;stroke-dasharray:2 2;stroke-width:1}svg.plot .bar.band.thin{stroke:none}
svg.plot .ciband{fill:#24292f;opacity:.12;stroke:none}svg.plot .meanline{stroke:#24292f;stroke-width:1.5;fill:none;stroke-dasharray:6 3}
svg.plot .ci{stroke:#24292f;stroke-width:2;fill:none}svg.plot .span{stroke:#8c959f;stroke-width:7;fill:none;opacity:.7}
svg.plot .point{stroke:#24292f;stroke-width:1}svg.plot .point.mean{fill:#24292f}svg.plot .point.open{fill:#fff}
svg.plot .link{stroke:#8c959f;stroke-width:2;fill:none}svg.plot .ref{stroke:#57606a;stroke-dasharray:4 3;fill:none}
svg.plot .bar.horizon{fill:#6baed6;stroke:#2b6d99}svg.plot .rug{stroke:#08306b;stroke-width:1;fill:none}
svg.plot .seg.result{fill:#08306b;stroke:#fff}svg.plot .seg.survivorship{fill:#2171b5;stroke:#fff}
svg.plot .seg.restatement{fill:#6baed6;stroke:#fff}svg.plot .seg.query{fill:#c6dbef;stroke:#6baed6}
svg.plot .bar.blocked{fill:#fff;stroke:#24292f;stroke-width:1;stroke-dasharray:3 2}
svg.plot .bar.hist{fill:#c6dbef;stroke:#2b6d99}
"""


def _f(x: float) -> str:
    return f"{x + 0.0:.2f}"


def _advance(char: str) -> float:
    """A character's estimated advance in em: a wide (East Asian) one takes a whole em."""
    return 1.0 if unicodedata.east_asian_width(char) in ("W", "F") else CHAR_EM


def text_width(text: str, size: float = FONT) -> float:
    """A generous estimate of *text*'s width in px at *size* (layout only; a browser measures the truth).

    >>> text_width("ab"), text_width("\u5831\u544a")
    (15.36, 24.0)
    """
    if text.isascii():
        return len(text) * size * CHAR_EM
    return sum(map(_advance, text)) * size


def clip(text: str, width: float, size: float = FONT) -> str:
    """*text*, cut with an ellipsis to fit *width* px (the whole text stays in the mark's title).

    >>> clip("finance-001", 200), clip("finance-001", 50)
    ('finance-001', 'finan\u2026')
    """
    if text_width(text, size) <= width:
        return text
    room = width - size * CHAR_EM  # the ellipsis
    kept, used = [], 0.0
    for char in text:
        used += _advance(char) * size
        if used > room:
            break
        kept.append(char)
    return "".join(kept[: max(len(kept), 1)]) + "\u2026"


# ---------------------------------------------------------------- figures


@dataclass(frozen=True)
class Figure:
    """One chart: *body* is its marks in a ``width`` x ``height`` box; *caption* is plain text."""

    name: str  # the standalone file's stem, e.g. "run-1-tclr"
    label: str  # the aria-label: what the figure shows
    width: int
    height: int
    body: str
    caption: str

    def svg(self) -> str:
        """The figure as an inline ``<svg>`` (styled by the page)."""
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}" role="img" aria-label="{esc(self.label)}" '
            f'data-figure="{esc(self.name)}">{self.body}</svg>'
        )

    def html(self) -> str:
        """The figure with its caption, for the page."""
        return (
            f'<figure class="fig" id="fig-{esc(self.name)}">{self.svg()}'
            f"<figcaption>{esc(self.caption)}</figcaption></figure>"
        )

    def standalone(self) -> str:
        """A standalone SVG file: the theme embedded, a white background, the caption drawn below."""
        lines = caption_lines(self.caption, self.width - 24)
        height = self.height + 8 + 16 * len(lines) + 8
        text = "".join(
            f'<text class="caption" x="12" y="{_f(self.height + 8 + 16 * (i + 1) - 4)}">{esc(line)}</text>'
            for i, line in enumerate(lines)
        )
        return (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{self.width}" height="{height}" '
            f'viewBox="0 0 {self.width} {height}" role="img" aria-label="{esc(self.label)}">'
            f"<title>{esc(self.label)}</title><style>{SVG_CSS}</style>"
            f'<rect x="0" y="0" width="{self.width}" height="{height}" fill="#fff"/>'
            f"{self.body}{text}</svg>\n"
        )


def caption_lines(caption: str, width: float, size: float = FONT) -> list[str]:
    """*caption* broken into lines of at most *width* px (at the estimate), at spaces.

    >>> caption_lines("one two three", 60)
    ['one two', 'three']
    """
    room = max(int(width / (size * CHAR_EM)), 8)
    lines: list[str] = []
    line = ""
    for word in caption.split():
        while len(word) > room:  # a word longer than a line: split it
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:room])
            word = word[room:]
        if line and len(line) + 1 + len(word) > room:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


# ---------------------------------------------------------------- scales and axes


@dataclass(frozen=True)
class Linear:
    """Values in [lo, hi] drawn onto the pixels [a, b] (b < a for an upward y axis)."""

    lo: float
    hi: float
    a: float
    b: float

    def __call__(self, v: float) -> float:
        span = self.hi - self.lo
        return self.a + ((v - self.lo) / span if span else 0.5) * (self.b - self.a)


@dataclass(frozen=True)
class Log:
    """Positive values in [lo, hi] drawn on a log scale onto the pixels [a, b]."""

    lo: float
    hi: float
    a: float
    b: float

    def __call__(self, v: float) -> float:
        return self.a + (math.log(v) - math.log(self.lo)) / (math.log(self.hi) - math.log(self.lo)) * (self.b - self.a)


def nice_ticks(low: float, high: float, target: int = 5) -> list[float]:
    """Round ticks (1, 2 or 5 times a power of ten apart) inside [low, high], about *target* of them.

    >>> nice_ticks(0, 1)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> nice_ticks(0, 3)
    [0.0, 1.0, 2.0, 3.0]
    """
    if high <= low:
        return [low]
    raw = (high - low) / target
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    return [round(k * step, 12) + 0.0 for k in range(first, math.floor(high / step + 1e-9) + 1)]


def integer_ticks(high: int, target: int = 5) -> list[int]:
    """Integer ticks from 0 to at least *high* (the last one at or above it).

    >>> integer_ticks(7), integer_ticks(0)
    ([0, 2, 4, 6, 8], [0, 1])
    """
    if high <= 0:
        return [0, 1]
    raw = high / target
    power = 10 ** math.floor(math.log10(raw)) if raw >= 1 else 1
    step = max(1, int(next(m * power for m in (1, 2, 5, 10) if m * power >= raw)))
    top = -(-high // step) * step
    return list(range(0, top + 1, step))


def _spaced(ticks: Sequence[tuple[float, str]], position: Callable[[float], float]) -> list[tuple[float, str]]:
    """*ticks* whose labels do not touch the previous kept one (with 8 px between)."""
    kept: list[tuple[float, str]] = []
    right = -math.inf
    for value, text in ticks:
        x = position(value)
        half = text_width(text) / 2
        if x - half >= right + 8:
            kept.append((value, text))
            right = x + half
    return kept


def x_axis(scale: Linear | Log, y: float, ticks: Sequence[tuple[float, str]], title: str, *, grid_top: float | None = None) -> str:
    """A bottom axis at *y*: the line, tick marks and labels (thinned so none touch), the *title* below."""
    parts = []
    kept = _spaced(ticks, scale)
    for value, text in kept:
        x = scale(value)
        if grid_top is not None:
            parts.append(f'<path class="grid" d="M{_f(x)} {_f(grid_top)}V{_f(y)}"/>')
        parts.append(f'<path class="tickmark" d="M{_f(x)} {_f(y)}V{_f(y + 5)}"/>')
        parts.append(f'<text class="tick" x="{_f(x)}" y="{_f(y + 18)}" text-anchor="middle">{esc(text)}</text>')
    parts.append(f'<path class="axis" d="M{_f(min(scale.a, scale.b))} {_f(y)}H{_f(max(scale.a, scale.b))}"/>')
    middle = (scale.a + scale.b) / 2
    parts.append(f'<text class="label" x="{_f(middle)}" y="{_f(y + 38)}" text-anchor="middle">{esc(title)}</text>')
    return "".join(parts)


def y_axis(scale: Linear, x: float, ticks: Sequence[tuple[float, str]], title: str, *, grid_right: float | None = None,
           title_x: float = 16) -> str:
    """A left axis at *x*: the line, tick labels to its left, the *title* turned along it at *title_x*."""
    parts = []
    for value, text in ticks:
        y = scale(value)
        if grid_right is not None:
            parts.append(f'<path class="grid" d="M{_f(x)} {_f(y)}H{_f(grid_right)}"/>')
        parts.append(f'<path class="tickmark" d="M{_f(x - 5)} {_f(y)}H{_f(x)}"/>')
        parts.append(f'<text class="tick" x="{_f(x - 8)}" y="{_f(y + 4)}" text-anchor="end">{esc(text)}</text>')
    parts.append(f'<path class="axis" d="M{_f(x)} {_f(min(scale.a, scale.b))}V{_f(max(scale.a, scale.b))}"/>')
    parts.append(_turned(title, title_x, (scale.a + scale.b) / 2))
    return "".join(parts)


def _swatch(klass: str, shape: str, x: float, y: float) -> str:
    """A legend key at (x, y), its centre line; *shape*: rect, band, circle, square, diamond, line, dash, range."""
    if shape in ("rect", "band", "outline"):
        d = f"M{_f(x)} {_f(y - 6)}H{_f(x + 14)}V{_f(y + 6)}H{_f(x)}Z"
    elif shape == "circle":
        return f'<circle class="{klass} key" cx="{_f(x + 7)}" cy="{_f(y)}" r="4.5"/>'
    elif shape == "square":
        d = f"M{_f(x + 2.5)} {_f(y - 4.5)}H{_f(x + 11.5)}V{_f(y + 4.5)}H{_f(x + 2.5)}Z"
    elif shape == "diamond":
        d = f"M{_f(x + 2)} {_f(y)}L{_f(x + 7)} {_f(y - 5)}L{_f(x + 12)} {_f(y)}L{_f(x + 7)} {_f(y + 5)}Z"
    elif shape == "whisker":
        d = f"M{_f(x)} {_f(y)}H{_f(x + 14)}M{_f(x)} {_f(y - 5)}V{_f(y + 5)}M{_f(x + 14)} {_f(y - 5)}V{_f(y + 5)}"
    else:  # a line: a mean, a link, a reference
        d = f"M{_f(x)} {_f(y)}H{_f(x + 14)}"
    return f'<path class="{klass} key" d="{d}"/>'


def legend(entries: Sequence[tuple[str, str, str]], x: float, y: float, width: float) -> tuple[str, float]:
    """Legend entries ``(class, shape, text)`` laid left to right from (x, y), wrapping at *width*; (markup, height)."""
    parts = []
    cx, row = x, 0
    for klass, shape, text in entries:
        w = 14 + 6 + text_width(text) + 16
        if cx > x and cx + w > x + width:
            cx, row = x, row + 1
        cy = y + row * LEGEND_ROW + LEGEND_ROW / 2
        parts.append(f'<g class="legend-entry">{_swatch(klass, shape, cx, cy)}'
                     f'<text class="legend" x="{_f(cx + 20)}" y="{_f(cy + 4)}">{esc(text)}</text></g>')
        cx += w
    height = (row + 1) * LEGEND_ROW if entries else 0
    return "".join(parts), height


def note(x: float, y: float, text: str) -> str:
    """A sentence drawn in the plot area (e.g. ``no leak in 27 samples``), centred on *x*."""
    return f'<text class="note" x="{_f(x)}" y="{_f(y)}" text-anchor="middle">{esc(text)}</text>'


def _rect(klass: str, x0: float, x1: float, y0: float, y1: float, title: str) -> str:
    d = f"M{_f(x0)} {_f(y0)}H{_f(x1)}V{_f(y1)}H{_f(x0)}Z"
    return f'<path class="{klass}" d="{d}"><title>{esc(title)}</title></path>'


def _marker(klass: str, shape: str, x: float, y: float, r: float, title: str) -> str:
    if shape == "circle":
        return f'<circle class="{klass}" cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}"><title>{esc(title)}</title></circle>'
    if shape == "square":
        d = f"M{_f(x - r)} {_f(y - r)}H{_f(x + r)}V{_f(y + r)}H{_f(x - r)}Z"
    else:
        d = f"M{_f(x - r - 1)} {_f(y)}L{_f(x)} {_f(y - r - 1)}L{_f(x + r + 1)} {_f(y)}L{_f(x)} {_f(y + r + 1)}Z"
    return f'<path class="{klass}" d="{d}"><title>{esc(title)}</title></path>'


def _turned(text: str, x: float, middle: float) -> str:
    """An axis title turned to run up a left axis, centred on *middle*."""
    return (f'<text class="label" x="{_f(x)}" y="{_f(middle)}" text-anchor="middle" '
            f'transform="rotate(-90 {_f(x)} {_f(middle)})">{esc(text)}</text>')


def _row_title(title: str, top: float, base: float, short: str | None = None) -> str:
    """The title of a column of rows, turned along it; its *short* form (by default its first word), or nothing,
    where the rows are too few to hold it (the row labels then say what they are)."""
    room = base - top
    for text in (title, short or title.split()[0]):
        if text_width(text, TITLE_FONT) + 4 <= room:
            return _turned(text, 16, (top + base) / 2)
    return ""


def _rate_ticks(lo: float, hi: float, percent: bool) -> list[tuple[float, str]]:
    return [(t, f"{t * 100:g}%" if percent else f"{t:g}") for t in nice_ticks(lo, hi)]


def _left_margin(labels: Sequence[str], floor: float = 60, cap: float = 210) -> float:
    return min(max([floor] + [text_width(s) + 14 for s in labels]), cap)


# ---------------------------------------------------------------- interval panels


@dataclass(frozen=True)
class IntervalRow:
    """One row of an interval panel: a point with its CI; *span*, when set, a range drawn thick under it."""

    name: str
    point: float | None
    low: float
    high: float
    series: str = "s0"
    shape: str = "diamond"
    span: tuple[float, float] | None = None
    title: str = ""


@dataclass(frozen=True)
class Panel:
    """A group of :class:`IntervalRow` on one x axis, titled *x_title* (with its unit)."""

    x_title: str
    rows: tuple[IntervalRow, ...]
    lo: float | None = None  # None: from the rows (and zero)
    hi: float | None = None
    percent: bool = False  # tick labels in %
    refs: tuple[tuple[float, str], ...] = field(default=())  # dashed reference lines with a label


def interval_panels(name: str, label: str, panels: Sequence[Panel], legend_entries: Sequence[tuple[str, str, str]],
                    caption: str, *, width: int = WIDTH) -> Figure:
    """Points with their intervals, one row each, in panels stacked top to bottom, each on its own x axis.

    A panel spans its rows' intervals and zero, unless given *lo*/*hi*; a
    degenerate span is widened by 0.05 each side.  A reference line is drawn
    dashed, its label above the plot area.
    """
    row_h = 28
    left = _left_margin([r.name for p in panels for r in p.rows], cap=270)
    right = width - RIGHT
    key, key_h = legend(legend_entries, 24, 8, right - 24)
    parts = [key]
    y = 8 + key_h + 8
    for panel in panels:
        if panel.refs:
            y += 18
        lo = panel.lo if panel.lo is not None else min([0.0] + [r.low for r in panel.rows] + [r.span[0] for r in panel.rows if r.span])
        hi = panel.hi if panel.hi is not None else max([0.0] + [r.high for r in panel.rows] + [r.span[1] for r in panel.rows if r.span])
        if panel.lo is None or panel.hi is None:
            pad = (hi - lo) * 0.06 or 0.05
            lo, hi = (lo if panel.lo is not None else lo - pad), (hi if panel.hi is not None else hi + pad)
        scale = Linear(lo, hi, left + 6, right - 6)
        top, base = y, y + row_h * len(panel.rows) + 6
        parts.append(x_axis(scale, base, _rate_ticks(lo, hi, panel.percent), panel.x_title, grid_top=top))
        if lo < 0 < hi:
            parts.append(f'<path class="ref zero" d="M{_f(scale(0.0))} {_f(top)}V{_f(base)}"/>')
        for value, text in panel.refs:
            x = scale(value)
            anchor = "end" if x > (left + right) / 2 else "start"
            parts.append(f'<path class="ref" d="M{_f(x)} {_f(top - 4)}V{_f(base)}"><title>{esc(text)}</title></path>')
            parts.append(f'<text class="reflabel" x="{_f(x + (-4 if anchor == "end" else 4))}" y="{_f(top - 6)}" '
                         f'text-anchor="{anchor}">{esc(text)}</text>')
        for i, r in enumerate(panel.rows):
            cy = top + row_h * i + row_h / 2 + 3
            title = r.title or f"{r.name}: {num(r.point)} [{num(r.low)}, {num(r.high)}]"
            parts.append(f'<text class="tick" x="{_f(left - 8)}" y="{_f(cy + 4)}" text-anchor="end">{esc(clip(r.name, left - 12))}</text>')
            if r.point is None and r.span is None:  # no figure (a rate over no item): said, not drawn at 0
                parts.append(f'<text class="tick" x="{_f(left + 10)}" y="{_f(cy + 4)}">n/a</text>')
                continue
            if r.span is not None:
                parts.append(f'<path class="span" d="M{_f(scale(r.span[0]))} {_f(cy)}H{_f(scale(r.span[1]))}"><title>{esc(title)}</title></path>')
            x0, x1 = scale(r.low), scale(r.high)
            whiskers = f"M{_f(x0)} {_f(cy)}H{_f(x1)}M{_f(x0)} {_f(cy - 6)}V{_f(cy + 6)}M{_f(x1)} {_f(cy - 6)}V{_f(cy + 6)}"
            parts.append(f'<path class="ci" d="{whiskers}"><title>{esc(title)}</title></path>')
            if r.point is not None:
                parts.append(_marker(f"point {r.series}", r.shape, scale(r.point), cy, 5, title))
        y = base + AXIS_BELOW + 10
    return Figure(name, label, width, int(math.ceil(y - 4)), "".join(parts), caption)


# ---------------------------------------------------------------- per-sample charts

LABELLED_ROWS = 60  # up to this many samples a chart names each one; beyond, the ids are in the table


def _row_height(n: int) -> tuple[float, bool]:
    """The height of one sample's row and whether its id is drawn: beyond :data:`LABELLED_ROWS`, the rows share
    a fixed 540 px, so a figure of any n has one size."""
    if n <= LABELLED_ROWS:
        return 17.0, True
    return 540 / n, False


def _groups(rows: Sequence[tuple[str, float, float]], labelled: bool) -> list[tuple[int, int, str, float, float]]:
    """``(first row, rows, title id, a, b)``: each row alone when *labelled*; else each run of equal values as one
    mark, so an unlabelled figure draws one mark per distinct value, however many samples share it."""
    out: list[tuple[int, int, str, float, float]] = []
    for i, (sample, a, b) in enumerate(rows):
        if not labelled and out and (out[-1][3], out[-1][4]) == (a, b):
            first, k, _, _, _ = out[-1]
            out[-1] = (first, k + 1, f"{k + 1} samples", a, b)
        else:
            out.append((i, 1, sample if labelled else "1 sample", a, b))
    return out


def sample_bars(name: str, label: str, rows: Sequence[tuple[str, float, float]], *, series: str, mean: tuple[float, float, float],
                x_title: str, caption: str, empty: str | None = None, y_title: str = "sample (input order)",
                confidence: float = 0.95) -> Figure:
    """One horizontal bar per sample ``(id, value, high)`` in [0, 1], the band ``[value, high]`` drawn lighter,
    and the run's mean ``(mean, low, high)`` as a dashed line over its CI.

    A zero value is a short grey mark at 0, so every sample is visible.  With
    *empty* (every value and band zero), the rows are not drawn: the axis
    and the sentence *empty* are.  Beyond :data:`LABELLED_ROWS` samples the
    ids are not drawn, so the order given means nothing to a reader: the
    rows are then sorted by value (and band), largest first, and titled so.
    """
    right = WIDTH - RIGHT
    row_h, labelled = _row_height(len(rows))
    if not labelled:
        rows = sorted(rows, key=lambda r: (-r[1], -r[2], r[0]))
    left = 36 + (_left_margin([r[0] for r in rows], floor=40, cap=190) if labelled and empty is None
                 else 24 if empty is not None else text_width(str(len(rows))) + 22)
    entries = [(f"bar {series}", "rect", "TCLR")]
    if any(high > value for _, value, high in rows):
        entries.append(("bar band", "band", "band: undated or unrecorded counted as leaking"))
    if any(value == 0 and high == 0 for _, value, high in rows) and empty is None:
        entries.append(("bar zero", "rect", "0 (no leak)"))
    entries.append(("meanline", "line", "run mean"))
    entries.append(("ciband", "rect", f"{confidence * 100:.10g}% CI of the mean"))
    entries.append(("ci", "whisker", "mean and CI"))
    key, key_h = legend(entries, 24, 8, right - 24) if empty is None else ("", 0.0)
    top = 8 + key_h + 10
    scale = Linear(0.0, 1.0, left, right - 8)
    parts = [key]
    if empty is not None:
        base = top + 64
        parts.append(x_axis(scale, base, _rate_ticks(0, 1, False), x_title, grid_top=top))
        parts.append(f'<path class="axis" d="M{_f(left)} {_f(top)}V{_f(base)}"/>')
        parts.append(note((left + right) / 2, top + 36, empty))
        return Figure(name, label, WIDTH, int(base + AXIS_BELOW), "".join(parts), caption)
    m, lo, hi = mean
    # The mean with its CI as a whisker above the rows, where no bar hides it; the shaded CI runs behind the rows.
    ci_title = f"run mean {num(m)}, {confidence * 100:.10g}% CI [{num(lo)}, {num(hi)}]"
    whisker_y = top + 6
    parts.append(f'<path class="ci" d="M{_f(scale(lo))} {_f(whisker_y)}H{_f(scale(hi))}M{_f(scale(lo))} {_f(whisker_y - 5)}'
                 f'V{_f(whisker_y + 5)}M{_f(scale(hi))} {_f(whisker_y - 5)}V{_f(whisker_y + 5)}"><title>{esc(ci_title)}</title></path>')
    parts.append(_marker("point mean", "diamond", scale(m), whisker_y, 4, ci_title))
    top += 16
    base = top + row_h * len(rows) + 4
    parts.append(x_axis(scale, base, _rate_ticks(0, 1, False), x_title, grid_top=top - 16))
    parts.append(_rect("ciband", scale(lo), max(scale(hi), scale(lo) + 1), top, base, f"{confidence * 100:.10g}% CI of the mean [{num(lo)}, {num(hi)}]"))
    for i, k, sample, value, high in _groups(rows, labelled):
        y0 = top + row_h * i + (row_h * 0.15 if labelled else 0)
        y1 = top + row_h * (i + k) - (row_h * 0.15 if labelled else 0)
        title = f"{sample}: TCLR {num(value)}" + (f", band to {num(high)}" if high > value else "")
        if value > 0:
            parts.append(_rect(f"bar {series}", scale(0), scale(value), y0, y1, title))
        elif high == 0:
            parts.append(_rect("bar zero", scale(0), scale(0) + 2, y0, y1, title))
        if high > value:
            parts.append(_rect("bar band" + ("" if labelled else " thin"), scale(value), scale(high), y0, y1, title + " (band)"))
        if labelled:
            parts.append(f'<text class="tick" x="{_f(left - 6)}" y="{_f((y0 + y1) / 2 + 4)}" text-anchor="end">'
                         f"{esc(clip(sample, left - 42))}</text>")
    parts.append(f'<path class="meanline" d="M{_f(scale(m))} {_f(top)}V{_f(base)}"><title>run mean {num(m)}</title></path>')
    parts.append(f'<path class="axis" d="M{_f(left)} {_f(top)}V{_f(base)}"/>')
    if not labelled:  # the rows' heights are counts of samples: a scale says how many
        parts.append(_count_axis(len(rows), top, base - 4, left))
        y_title = "samples (count), sorted by TCLR"
    parts.append(_row_title(y_title, top, base, "samples (count)" if not labelled else "sample"))
    return Figure(name, label, WIDTH, int(base + AXIS_BELOW), "".join(parts), caption)


def _count_axis(n: int, top: float, base: float, x: float) -> str:
    """A left axis counting samples down the rows (0 at the top, *n* at the bottom): an unlabelled chart's y scale."""
    scale = Linear(0, n, top, base)
    steps = integer_ticks(n, target=4)
    ticks = [(t, str(t)) for t in steps if t <= n]
    if ticks[-1][0] != n and scale(n) - scale(ticks[-1][0]) >= 16:  # the last sample, unless it would touch a tick
        ticks.append((n, str(n)))
    parts = []
    for value, text in ticks:
        y = scale(value)
        parts.append(f'<path class="tickmark" d="M{_f(x - 5)} {_f(y)}H{_f(x)}"/>')
        parts.append(f'<text class="tick" x="{_f(x - 8)}" y="{_f(y + 4)}" text-anchor="end">{esc(text)}</text>')
    return "".join(parts)


def dumbbell_plot(name: str, label: str, rows: Sequence[tuple[str, float, float]], *, names: tuple[str, str],
                  count: bool, x_title: str, caption: str) -> Figure:
    """Paired values per sample ``(id, first, second)``: a filled circle, an open square, a line between.

    The axis runs over [0, 1] for a rate, from 0 to an integer tick at or
    past the largest value for a *count*.  Rows are drawn in the order given
    (the caller sorts them by the difference); a pair with equal values
    shows the circle inside the square.

    Beyond :data:`LABELLED_ROWS` samples the chart is a distribution: the
    pairs with the same two values are one group, drawn as two strips (a
    filled one at the first value, an outlined one at the second) whose
    height is the group's share of the rows, so a mark's area is in
    proportion to the samples it stands for; a left axis counts the
    samples, and a group tall enough for its count has it written at the
    right.
    """
    right = WIDTH - RIGHT
    row_h, labelled = _row_height(len(rows))
    groups = _groups(rows, labelled)
    counts_w = 0.0 if labelled else text_width(str(max(k for _, k, _, _, _ in groups))) + 10
    left = 36 + (_left_margin([r[0] for r in rows], floor=40, cap=190) if labelled else text_width(str(len(rows))) + 22)
    entries = [("point s0", "circle", names[0]), ("point s1 open", "square", names[1]), ("link", "line", "change")]
    if not labelled:
        entries[:2] = [("point s0", "rect", f"{names[0]} (height: samples)"), ("point s1 open", "outline", names[1])]
    key, key_h = legend(entries, 24, 8, right - 24)
    top = 8 + key_h + 10
    if count:
        steps = integer_ticks(math.ceil(max([0.0] + [max(a, b) for _, a, b in rows])))
        ticks: list[tuple[float, str]] = [(t, str(t)) for t in steps]
        scale = Linear(0, steps[-1], left + 8, right - 8 - counts_w)
    else:
        ticks = _rate_ticks(0, 1, False)
        scale = Linear(0, 1, left + 8, right - 8 - counts_w)
    base = top + row_h * len(rows) + 4
    parts = [key, x_axis(scale, base, ticks, x_title, grid_top=top)]
    for i, k, sample, a, b in groups:
        cy = top + row_h * (i + k / 2)
        title = f"{sample}: {names[0]} {num(a)}, {names[1]} {num(b)}, difference {num(a - b)}"
        if a != b:
            parts.append(f'<path class="link" d="M{_f(scale(a))} {_f(cy)}H{_f(scale(b))}"><title>{esc(title)}</title></path>')
        if labelled:
            r = min(4.5, max(1.8, row_h * 0.35))
            parts.append(_marker("point s1 open", "square", scale(b), cy, r + 0.5, title))
            parts.append(_marker("point s0", "circle", scale(a), cy, r * 0.8, title))
            parts.append(f'<text class="tick" x="{_f(left - 6)}" y="{_f(cy + 4)}" text-anchor="end">{esc(clip(sample, left - 42))}</text>')
            continue
        # Both strips span the group's rows exactly: their heights (and, at a fixed width, their areas) are its count.
        y0, y1 = top + row_h * i, top + row_h * (i + k)
        parts.append(_rect("point s1 open", scale(b) - 4.5, scale(b) + 4.5, y0, y1, title))
        parts.append(_rect("point s0", scale(a) - 2.5, scale(a) + 2.5, y0, y1, title))
        if y1 - y0 >= 15:  # room for its count without touching the next group's
            parts.append(f'<text class="count" x="{_f(right - 4)}" y="{_f(cy + 4)}" text-anchor="end">{k}</text>')
    parts.append(f'<path class="axis" d="M{_f(left)} {_f(top)}V{_f(base)}"/>')
    if labelled:
        parts.append(_row_title("sample (sorted by difference)", top, base))
    else:
        parts.append(_count_axis(len(rows), top, base - 4, left))
        parts.append(_row_title("samples (count), sorted by difference", top, base, "samples (count)"))
    return Figure(name, label, WIDTH, int(base + AXIS_BELOW), "".join(parts), caption)


# ---------------------------------------------------------------- the horizon histogram

# Days past T: the core's bands (7, 31, 366) are edges, with a quarter and a half year between.
HORIZON_BINS: tuple[tuple[int, int | None], ...] = ((1, 7), (8, 31), (32, 92), (93, 183), (184, 366), (367, None))


def horizon_bins(days: Sequence[int]) -> list[tuple[str, int]]:
    """``(label, count)`` per bin of :data:`HORIZON_BINS` for post-T items *days* past T.

    >>> horizon_bins([1, 7, 8, 400])
    [('1-7', 2), ('8-31', 1), ('32-92', 0), ('93-183', 0), ('184-366', 0), ('>366', 1)]
    """
    out = []
    for low, high in HORIZON_BINS:
        n = sum(1 for d in days if d >= low and (high is None or d <= high))
        out.append((f"{low}-{high}" if high is not None else f">{low - 1}", n))
    return out


def horizon_end(days: Sequence[int]) -> int:
    """The last day the open bin (> 366) is drawn through: the largest of *days*, at least 730 (two years).

    >>> horizon_end([5, 721]), horizon_end([900])
    (730, 900)
    """
    return max([730, *days])


def horizon_density(days: Sequence[int]) -> list[tuple[str, int, float, float, float]]:
    """``(label, count, first day, end day, items per octave)`` per bin of :data:`HORIZON_BINS`: the count over the
    bin's width in octaves (log2 of end / first, day d covering [d, d + 1)), so on a log day axis a bar's area is
    its count.

    >>> [(t, n, round(h, 2)) for t, n, _, _, h in horizon_density([1, 7, 8, 400])][:2]
    [('1-7', 2, 0.67), ('8-31', 1, 0.5)]
    """
    last = horizon_end(days) + 1
    edges = [low for low, _ in HORIZON_BINS] + [last]
    return [(text, n, x0, x1, n / math.log2(x1 / x0))
            for (text, n), x0, x1 in zip(horizon_bins(days), edges, edges[1:])]


def horizon_histogram(name: str, label: str, days: Sequence[int], *, caption: str, empty: str | None = None) -> Figure:
    """Post-T items by days past T on a log day axis: a density, items per octave of days, so that each bar
    (drawn to the width of its bin's days) has an area in proportion to its count of items.

    A day count d covers [d, d + 1) on the axis, so the bin 1-7 spans [1, 8).
    The open last bin (> 366) ends at the largest day seen (at least two
    years).  Each bar has its count written above it; each item is also a
    rug mark at its own day.  With *empty*, the axes and that sentence are
    drawn instead of bars.
    """
    right = WIDTH - RIGHT
    left = 64
    last = horizon_end(days) + 1  # day d covers [d, d + 1)
    scale = Log(1, last, left, right - 8)
    entries = [("bar horizon", "rect", "post-T items per octave (area: the bin's count)"), ("rug", "line", "one item's day")]
    key, key_h = legend(entries, left, 8, right - left) if empty is None else ("", 0.0)
    top = 8 + key_h + 22
    base = top + 150
    bins = horizon_density(days)
    most = max([h for *_, h in bins] + [0.0])
    yticks = nice_ticks(0, most, 4) if most > 0 else [0.0, 1.0]
    if yticks[-1] < most:  # the top tick at or above the tallest bar
        yticks.append(round(yticks[-1] + (yticks[1] - yticks[0]), 12))
    yscale = Linear(0, yticks[-1], base, top)
    # Ticks at the start of their day, the last at the last day drawn (the caption's "through day N"),
    # never at the axis's end (day N + 1's start, which no bin holds).
    tick_days = [1, 2, 4, 8, 16, 32, 93, 184, 367, last - 1]
    parts = [key, y_axis(yscale, left, [(t, f"{t:g}") for t in yticks], "items per octave of days", grid_right=right - 8)]
    parts.append(x_axis(scale, base, [(d, str(d)) for d in tick_days if d <= last], "days past T (log scale)"))
    if empty is not None:
        parts.append(note((left + right) / 2, (top + base) / 2, empty))
        return Figure(name, label, WIDTH, int(base + AXIS_BELOW), "".join(parts), caption)
    for text, n, x0, x1, height in bins:
        if not n:
            continue
        title = f"{text} days: {n} item{'s' if n != 1 else ''}, {height:.2f} per octave"
        # Inset by half a pixel each side: a bar never spills past its bin's edges.
        parts.append(_rect("bar horizon", scale(x0) + 0.5, scale(x1) - 0.5, yscale(height), base, title))
        parts.append(f'<text class="count" x="{_f((scale(x0) + scale(x1)) / 2)}" y="{_f(yscale(height) - 5)}" '
                     f'text-anchor="middle">{n}</text>')
    for d in sorted(set(days)):
        x = scale(d + 0.5)
        k = sum(1 for v in days if v == d)
        parts.append(f'<path class="rug" d="M{_f(x)} {_f(base - 7)}V{_f(base)}"><title>{d} days: {k} item{"s" if k != 1 else ""}</title></path>')
    return Figure(name, label, WIDTH, int(base + AXIS_BELOW), "".join(parts), caption)


# ---------------------------------------------------------------- rates by group


def rate_bars(name: str, label: str, groups: Sequence[tuple[str, int, Sequence[int]]], series: Sequence[tuple[str, str]],
              *, hi: float, x_title: str, y_title: str, caption: str, empty: str | None = None,
              page_labels: Sequence[str] = (), width: int = WIDTH) -> Figure:
    """Per group ``(name, n, counts)``, one bar per kind of *series* ``(class, legend text)``: the share of the
    group's *n* samples its count is (each kind its own bar, so nothing is added up), on an axis from 0 to
    *hi* (the caller's, so every figure of a page shares one scale), its left end past the longest of the labels
    and *page_labels* (the page's other groups, so that the axis is at the same place in every figure).  A count of 0 draws no bar; each bar's
    title holds its count over n.

    With *empty* (every count zero), the axes and that sentence are drawn.
    """
    right = width - RIGHT
    left = 36 + _left_margin([g[0] for g in groups] + list(page_labels), floor=40, cap=190)
    entries = [(("seg " if klass != "blocked" else "bar ") + klass, "rect" if klass != "blocked" else "outline", text)
               for klass, text in series]
    key, key_h = legend(entries, 24, 8, right - 24)
    top = 8 + key_h + 10
    bar_h, gap = 7.0, 10.0
    group_h = bar_h * len(series) + gap
    base = top + group_h * len(groups) + 4
    ticks = [(t, f"{t * 100:g}%") for t in nice_ticks(0, hi)]
    scale = Linear(0, hi, left, right - 8)
    parts = [key, x_axis(scale, base, ticks, x_title, grid_top=top)]
    for i, (group, n, counts) in enumerate(groups):
        y = top + group_h * i + gap / 2
        for j, ((klass, text), count) in enumerate(zip(series, counts)):
            if count and n:
                kind = f"bar {klass}" if klass == "blocked" else f"seg {klass}"
                parts.append(_rect(kind, scale(0), scale(count / n), y + bar_h * j, y + bar_h * (j + 1) - 1,
                                   f"{group}: {count} of {n} samples with {text} ({count / n * 100:.1f}%)"))
        parts.append(f'<text class="tick" x="{_f(left - 6)}" y="{_f(y + bar_h * len(series) / 2 + 4)}" text-anchor="end">'
                     f"{esc(clip(group, left - 42))}</text>")
    if empty is not None:
        parts.append(note((left + right) / 2, (top + base) / 2 + 4, empty))
    parts.append(f'<path class="axis" d="M{_f(left)} {_f(top)}V{_f(base)}"/>')
    parts.append(_row_title(y_title, top, base, y_title.split()[-1]))
    return Figure(name, label, width, int(base + AXIS_BELOW), "".join(parts), caption)
