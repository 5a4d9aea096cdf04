"""The HTML page of ``anachron outcomes --html``: leaderboards, reliability diagrams and the leak split.

It reads the report :func:`anachron.forecasts.report.build_report` made and decides
nothing.  Pre-event models and web-locked ones get separate tables and
separate figures: the two kinds of rows are never drawn together.  Per
badge: the Brier of each model with its bootstrap CI; with leakage scores,
the Brier over clean and leaked samples and the leak inflation with its
paired CI; per model, the reliability table and its diagram (observed
frequency against mean forecast per bin, each bin's 95% Wilson interval,
the diagonal of perfect calibration, and the forecasts per bin drawn below).

The figures are :class:`anachron.output.html.svg.Figure` s built on the report's
primitives, so they render inline or as standalone files
(``anachron outcomes --figures DIR``, :func:`outcomes_page`).  One
self-contained page under the same no-fetch Content-Security-Policy as
``anachron report`` (it carries no script); the same report gives the same bytes.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from anachron import __version__
from anachron.bank.cutoffs import BADGES
from anachron.forecasts.report import ranked
from anachron.output.html import svg
from anachron.output.html._text import esc, num
from anachron.output.html.page import content_security_policy

__all__ = ["count_label", "outcomes_figures", "outcomes_html", "outcomes_page", "reliability_figure", "reliability_table"]

# Each badge with the slug of its section and figures (the names are the bank's: bank.cutoffs.BADGES).
_BADGES = tuple(zip(BADGES, ("pre-event", "web-locked")))
_WILSON = "95% Wilson score interval"

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin:28px 0 8px}
h3{font-size:15px;margin:18px 0 6px}p.meta{color:#57606a;margin:0 0 12px}
table{border-collapse:collapse;margin:8px 0 12px;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}td.num{text-align:right;white-space:nowrap}
td.none{color:#8c959f}
svg.plot{display:block;max-width:100%;height:auto}
figure.fig{margin:0;max-width:100%}
figure.fig figcaption{font-size:13px;color:#444c56;margin:4px 0 0;line-height:1.4}
.row{display:flex;flex-wrap:wrap;gap:20px 28px;align-items:flex-start}.scroll{overflow-x:auto;max-width:100%}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;border:1px solid #57606a;background:#fff}
.badge.web{border-style:dashed}
"""


def _slug(text: str) -> str:
    """A file-name-safe form of a model name (the figure names stay unique by their rank)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "model"


def _bin_label(b: Mapping[str, Any], last: bool) -> str:
    return f"[{b['low']:.1f}, {b['high']:.1f}{']' if last else ')'}"


def count_label(n: int, room: float) -> str:
    """*n* as a bar's label in *room* px: its digits, or rounded to thousands (``12k``) or millions (``1.2M``)
    where the digits do not fit (the bar's title and the table keep the exact count).

    >>> count_label(123456, 200), count_label(123456, 38), count_label(1234567, 38), count_label(2000000, 38)
    ('123456', '123k', '1.2M', '2M')
    """
    text = str(n)
    if svg.text_width(text) <= room:
        return text
    if n >= 1_000_000:
        text = f"{n / 1_000_000:.1f}M"
    else:
        text = f"{n / 1000:.0f}k" if n >= 10_000 else f"{n / 1000:.1f}k"
    return text.replace(".0", "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# ---------------------------------------------------------------- the reliability diagram

_RELIABILITY_WIDTH = 520
_SIDE = 400  # px: the square plot area, so the diagonal runs at 45 degrees
_STRIP = 76  # px: the forecasts-per-bin strip below it


def reliability_figure(name: str, model: str, badge: str, bins: Sequence[Mapping[str, Any]], *, samples: int) -> svg.Figure:
    """The reliability diagram of one model: per non-empty bin, the observed frequency at the bin's mean forecast
    with its 95% Wilson interval; the diagonal of perfect calibration; below, the forecasts per bin with their n.

    *bins* are the report's ``reliability`` rows (``low``, ``high``, ``n``,
    ``mean_forecast``, ``observed``, ``ci_low``, ``ci_high``); *samples* the
    model's scored samples (a categorical forecast gives one probability per
    option, so the forecasts can outnumber them).  An empty bin draws no
    point and no bar; the caption counts them.
    """
    width = _RELIABILITY_WIDTH
    left = 72
    right = left + _SIDE
    entries = [("point s0", "circle", "observed frequency in a bin"), ("ci", "whisker", "95% Wilson CI"),
               ("ref diagonal", "line", "perfect calibration"), ("bar hist", "rect", "forecasts per bin")]
    key, key_h = svg.legend(entries, 24, 8, width - 36)
    top = 8 + key_h + 12
    base = top + _SIDE
    x = svg.Linear(0.0, 1.0, left, right)
    y = svg.Linear(0.0, 1.0, base, top)
    ticks = [(t, f"{t:g}") for t in svg.nice_ticks(0.0, 1.0)]
    parts = [key, svg.y_axis(y, left, ticks, "observed frequency", grid_right=right)]
    for value, _ in ticks:  # vertical grid lines and tick marks on the plot's floor (the labels are under the strip)
        parts.append(f'<path class="grid" d="M{x(value):.2f} {top:.2f}V{base:.2f}"/>')
        parts.append(f'<path class="tickmark" d="M{x(value):.2f} {base:.2f}V{base + 5:.2f}"/>')
    parts.append(f'<path class="axis" d="M{left:.2f} {base:.2f}H{right:.2f}"/>')
    parts.append(f'<path class="ref diagonal" d="M{x(0):.2f} {y(0):.2f}L{x(1):.2f} {y(1):.2f}">'
                 "<title>perfect calibration: observed frequency = mean forecast</title></path>")
    shown = [b for b in bins if b["n"]]
    points = []
    for b in shown:
        last = b is bins[-1]
        title = (f"forecasts in {_bin_label(b, last)}: n = {b['n']}, mean forecast {num(b['mean_forecast'])}, observed "
                 f"{num(b['observed'])}, {_WILSON} [{num(b['ci_low'])}, {num(b['ci_high'])}]")
        px, lo, hi = x(b["mean_forecast"]), y(b["ci_low"]), y(b["ci_high"])
        parts.append(f'<path class="ci" d="M{px:.2f} {lo:.2f}V{hi:.2f}M{px - 5:.2f} {lo:.2f}H{px + 5:.2f}'
                     f'M{px - 5:.2f} {hi:.2f}H{px + 5:.2f}"><title>{esc(title)}</title></path>')
        points.append((px, y(b["observed"]), title))
    if len(points) > 1:  # joined in bin order, so the curve reads against the diagonal
        d = "".join(f"{'M' if i == 0 else 'L'}{px:.2f} {py:.2f}" for i, (px, py, _) in enumerate(points))
        parts.append(f'<path class="link" d="{d}"/>')
    for px, py, title in points:
        parts.append(f'<circle class="point s0" cx="{px:.2f}" cy="{py:.2f}" r="4.50"><title>{esc(title)}</title></circle>')
    # The strip: one bar per bin, drawn to the bin's width, its n above it.
    strip_top = base + 16  # clear of the floor's tick marks, with the tallest bar's n
    floor = strip_top + _STRIP
    most = max(b["n"] for b in bins)
    count_ticks = svg.integer_ticks(most, target=2)
    yc = svg.Linear(0, count_ticks[-1], floor, strip_top + 16)  # room above the tallest bar for its n
    room = left - 8 - 28  # the tick labels end 8 px left of the axis; the turned title takes the 28 px at the edge
    parts.append(svg.y_axis(yc, left, [(0, "0"), (count_ticks[-1], count_label(count_ticks[-1], room))], "count"))
    for b in shown:
        last = b is bins[-1]
        title = f"forecasts in {_bin_label(b, last)}: n = {b['n']}"
        x0, x1, top_y = x(b["low"]) + 1, x(b["high"]) - 1, min(yc(b["n"]), floor - 1.5)  # a bin of few still shows
        parts.append(f'<path class="bar hist" d="M{x0:.2f} {top_y:.2f}H{x1:.2f}V{floor:.2f}H{x0:.2f}Z">'
                     f"<title>{esc(title)}</title></path>")
        parts.append(f'<text class="count" x="{(x0 + x1) / 2:.2f}" y="{top_y - 4:.2f}" text-anchor="middle">'
                     f"{count_label(b['n'], x1 - x0)}</text>")
    parts.append(svg.x_axis(x, floor, ticks, "mean forecast (probability)"))
    total = sum(b["n"] for b in bins)
    empty = len(bins) - len(shown)
    caption = (
        f"Reliability of {model} ({badge}): n = {_plural(total, 'forecast')} "
        + (f"over its {_plural(samples, 'resolved sample')} (a categorical forecast gives one per option) " if total != samples
           else f"(its {_plural(samples, 'resolved sample')}) ")
        + f"in {len(bins)} equal-width bins of the forecast probability, [0, {1 / len(bins):g}) to [{1 - 1 / len(bins):g}, 1]. "
        "A point is a bin's observed frequency of the outcome at the bin's mean forecast; its whisker the "
        f"{_WILSON} of that frequency over the bin's n. Dashed diagonal: perfect calibration. "
        "Bars below: forecasts per bin, n above each."
        + (f" {_plural(empty, 'bin')} without a forecast draw{'s' if empty == 1 else ''} nothing." if empty else "")
    )
    label = f"reliability of {model} ({badge})"
    return svg.Figure(name, label, width, int(floor + svg.AXIS_BELOW), "".join(parts), caption)


def reliability_table(bins: Sequence[Mapping[str, Any]], *, caption: str) -> str:
    """The reliability table: per bin, n, the mean forecast, the observed frequency and its 95% Wilson interval."""
    head = ["forecast bin", "n", "mean forecast", "observed frequency", "95% Wilson CI"]
    rows = ["<tr>" + "".join(f'<th scope="col">{esc(h)}</th>' for h in head) + "</tr>"]
    for i, b in enumerate(bins):
        if b["n"]:
            cells = [num(b["mean_forecast"]), num(b["observed"]), f"[{num(b['ci_low'])}, {num(b['ci_high'])}]"]
            values = "".join(f'<td class="num">{esc(c)}</td>' for c in cells)
        else:
            values = '<td class="none" colspan="3">no forecast</td>'
        rows.append(f'<tr><th scope="row">{esc(_bin_label(b, i == len(bins) - 1))}</th><td class="num">{b["n"]}</td>{values}</tr>')
    return f'<table class="reliability"><caption>{esc(caption)}</caption><tbody>{"".join(rows)}</tbody></table>'


# ---------------------------------------------------------------- the figures of one badge


def _row(name: str, iv: Mapping[str, Any] | None, series: str, shape: str) -> svg.IntervalRow:
    """A statistic with its CI as an interval row; without a value (no sample), an ``n/a`` row."""
    if not iv or iv.get("value") is None:
        return svg.IntervalRow(name, None, 0.0, 0.0, series=series, shape=shape, title=f"{name}: n/a")
    low = iv["ci_low"] if iv.get("ci_low") is not None else iv["value"]
    high = iv["ci_high"] if iv.get("ci_high") is not None else iv["value"]
    return svg.IntervalRow(name, iv["value"], low, high, series=series, shape=shape)


def _how(report: Mapping[str, Any]) -> tuple[str, str]:
    return f"{report['confidence'] * 100:.10g}%", f"{report['resamples']} resamples, seed {report['seed']}"


def _badge_figures(report: Mapping[str, Any], badge: str, slug: str, models: Sequence[Mapping[str, Any]]) -> list[svg.Figure]:
    level, how = _how(report)
    total = sum(m["n"] for m in models)
    kind = f"models badged \u201c{badge}\u201d ({len(models)})"
    panel = svg.Panel("Brier score (mean over samples; lower is better)",
                      tuple(_row(f"{m['model']} (n={m['n']})", m["brier"], "s0", "circle") for m in models), lo=0.0)
    caption = (
        f"Brier score of the {kind}, ranked; n = {_plural(total, 'scored forecast')} in all, each model's n in its "
        f"label. A point is the mean over the model's resolved samples, with its {level} percentile-bootstrap CI over the samples ({how}). "
        "Models with the other badge are drawn in their own figure, never here."
    )
    figures = [svg.interval_panels(f"{slug}-brier", f"Brier by model ({badge})", [panel],
                                   [("point s0", "circle", "Brier (all samples)"), ("ci", "whisker", f"{level} CI")], caption)]
    if not report["leak_split"]:
        return figures
    rows = []
    for m in models:
        s = m["leak_split"]
        rows.append(_row(f"{m['model']}: clean n={s['clean']['n']}", s["clean"], "s1", "square"))
        rows.append(_row(f"{m['model']}: leaked n={s['leaked']['n']}", s["leaked"], "s2", "diamond"))
        if s["unverified"]["n"]:
            rows.append(_row(f"{m['model']}: unverified n={s['unverified']['n']}", s["unverified"], "s3", "square"))
        for source, parts in _sources(m):
            rows.append(_row(f"{m['model']}: {source} n={parts['brier']['n']}", parts["brier"], "open", "circle"))
    inflation = []
    for m in models:
        inflation.append(_row(f"{m['model']} (n={m['n']})", m["leak_split"]["inflation"], "s0", "circle"))
        for source, parts in _sources(m):
            inflation.append(_row(f"{m['model']}: {source} (n={parts['inflation']['n']})", parts["inflation"], "open", "circle"))
    panels = [
        svg.Panel("Brier score by leak class (lower is better)", tuple(rows), lo=0.0),
        svg.Panel("leak inflation (Brier over all minus over clean)", tuple(inflation)),
    ]
    key = [("point s1", "square", "clean"), ("point s2", "diamond", "leaked")]
    if any(m["leak_split"]["unverified"]["n"] for m in models):
        key.append(("point s3", "square", "unverified (cannot tell)"))
    sourced = any(_sources(m) for m in models)
    if sourced:  # one open circle in both panels: the panel says which statistic
        key.append(("point open", "circle", "by answer-leak source"))
    key += [("point s0", "circle", "leak inflation"), ("ci", "whisker", f"{level} CI")]
    undefined = sum(m["leak_split"].get("undefined_resamples", 0) for m in models)
    none = [m["model"] for m in models if m["leak_split"]["inflation"] is None or m["leak_split"]["inflation"].get("value") is None]
    caption = (
        f"Leak split of the {kind}; n = {_plural(total, 'scored forecast')} in all, each row's n in its label. Top: the "
        "Brier score over each model's clean and leaked samples (by its leakage scores), with its "
        f"{level} percentile-bootstrap CI. Bottom: the leak inflation, the Brier over all of a model's samples minus "
        f"over its clean ones, with its paired {level} percentile-bootstrap CI (both means recomputed on each resample; "
        f"{how}). Below zero: the leaked samples make the model look better than its clean samples earn."
    )
    if sourced:
        caption += (" Open circles: the samples whose answer stated a retrieved (a tool showed it) or a parametric "
                    "(no tool did) post-T fact, and the inflation over the clean samples plus those, minus over clean.")
    if undefined:
        caption += f" {_plural(undefined, 'resample')} without a clean sample are left out of the CIs."
    if none:
        caption += f" No clean sample, no inflation (n/a): {', '.join(none)}."
    figures.append(svg.interval_panels(f"{slug}-inflation", f"leak inflation by model ({badge})", panels, key, caption))
    return figures


def _sources(m: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The answer-leak sources (retrieved, parametric) with a sample, in the report's order."""
    return [(source, parts) for source, parts in (m["leak_split"].get("by_source") or {}).items() if parts["brier"]["n"]]


def _reliability(models: Sequence[Mapping[str, Any]], badge: str, slug: str) -> list[svg.Figure]:
    return [reliability_figure(f"{slug}-reliability-{k}-{_slug(m['model'])}", m["model"], badge, m["reliability"], samples=m["n"])
            for k, m in enumerate(models, start=1)]


def outcomes_figures(report: Mapping[str, Any]) -> list[svg.Figure]:
    """Every figure of the page, in page order: per badge, the Brier by model, the leak split (with leakage
    scores) and each model's reliability diagram (:func:`outcomes_page` draws them once for both)."""
    return outcomes_page(report)[1]


# ---------------------------------------------------------------- the page


def _ci(iv: Mapping[str, Any] | None) -> str:
    if not iv or iv.get("value") is None:
        return "n/a"
    if iv.get("ci_low") is None:
        return num(iv["value"])
    return f"{num(iv['value'])} [{num(iv['ci_low'])}, {num(iv['ci_high'])}]"


def _board(badge: str, models: Sequence[Mapping[str, Any]], split: bool) -> str:
    head = ["rank", "model", "n", "Brier [CI]", "adj. Brier", "log loss", "skill"]
    if split:
        head += ["clean", "leaked", "unverified", "leak inflation [CI]"]
    cells = ["<tr>" + "".join(f'<th scope="col">{esc(h)}</th>' for h in head) + "</tr>"]
    for rank, m in enumerate(models, start=1):
        row = [str(rank), m["model"], str(m["n"]), _ci(m["brier"]), num(m["difficulty_adjusted_brier"]),
               num(m["log_loss"]["value"]), num(m["brier_skill"]["value"])]
        if split:
            s = m["leak_split"]
            row += [f"{s['clean']['n']}: {num(s['clean']['value'])}", f"{s['leaked']['n']}: {num(s['leaked']['value'])}",
                    f"{s['unverified']['n']}: {num(s['unverified']['value'])}", _ci(s["inflation"])]
        cells.append("<tr>" + "".join(f'<td class="num">{esc(c)}</td>' if i != 1 else f"<td>{esc(c)}</td>"
                                      for i, c in enumerate(row)) + "</tr>")
    return f'<div class="scroll"><table class="board"><tbody>{"".join(cells)}</tbody></table></div>'


def _section(report: Mapping[str, Any], badge: str, slug: str, models: Sequence[Mapping[str, Any]],
             figures: Sequence[svg.Figure], reliability: Sequence[svg.Figure]) -> str:
    kind = "web" if slug == "web-locked" else "pre"
    parts = [f'<section class="badge-{slug}" id="{slug}"><h2><span class="badge {kind}">{esc(badge)}</span> leaderboard</h2>',
             _board(badge, models, report["leak_split"]),
             '<div class="row">', "".join(f.html() for f in figures), "</div>"]
    for m, figure in zip(models, reliability):
        total = sum(b["n"] for b in m["reliability"])
        parts += [
            f"<h3>{esc(m['model'])}: reliability</h3>",
            f'<p class="meta">{esc(m["badge_reason"])}</p>',
            '<div class="row"><div class="scroll">',
            reliability_table(m["reliability"], caption=f"{_plural(total, 'forecast')}, {_WILSON} per bin"),
            "</div>", figure.html(), "</div>",
        ]
    parts.append("</section>")
    return "".join(parts)


def outcomes_page(report: Mapping[str, Any]) -> tuple[str, list[svg.Figure]]:
    """The self-contained page of *report* (the JSON of ``anachron outcomes``) and its figures, in page order."""
    level, how = _how(report)
    body = [
        "<h1>Forecast outcomes</h1>",
        f'<p class="meta">Brier (lower is better), {level} bootstrap CIs, {how}; skill against '
        f'{esc(report["baseline"])}; log loss clipped at {report["log_clip"]:g}; calibration bins with the {_WILSON}. '
        f"Each badge has its own leaderboard and figures. anachron {esc(__version__)}</p>",
    ]
    figures: list[svg.Figure] = []
    for badge, slug in _BADGES:
        models = ranked(report, badge)
        if not models:
            continue
        board = _badge_figures(report, badge, slug, models)
        reliability = _reliability(models, badge, slug)
        body.append(_section(report, badge, slug, models, board, reliability))
        figures += board + reliability
    # Each figure as wide as its drawing, so its caption wraps under it and a table fits beside it.
    widths = "".join(sorted({f"#fig-{f.name}{{width:{f.width}px}}" for f in figures}))
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy("")}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>anachron outcomes</title><style>{_CSS}{widths}{svg.SVG_CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )
    return page, figures


def outcomes_html(report: Mapping[str, Any]) -> str:
    """The self-contained page of *report* (:func:`outcomes_page`'s page)."""
    return outcomes_page(report)[0]
