"""The HTML page of ``anachron outcomes --html``: leaderboards, reliability plots and the leak split.

It reads the report :func:`anachron.outcomes.build_report` made and decides
nothing.  Pre-event models and web-locked ones get separate tables and
separate figures: the two kinds of rows are never drawn together.  One
self-contained page under the same no-fetch Content-Security-Policy as
``anachron report``; the same report gives the same bytes.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .. import __version__
from . import svg
from ._text import esc, num
from .report import content_security_policy

__all__ = ["outcomes_html", "reliability_plot"]

_BADGES = ("pre-event model", "web-locked only")
_PLOT = 300  # px: the reliability diagram's square plot area
_LEFT = 64  # px: the y tick labels and the turned axis title

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1300px;padding:0 16px;color:#1b1f24}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:28px}
h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:8px 0 12px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left}td.num{text-align:right;white-space:nowrap}
svg.plot{display:block;max-width:100%;height:auto}svg.plot .diagonal{stroke:#8c959f;stroke-dasharray:4 3;fill:none}
figure.fig{margin:4px 0 14px;width:600px;max-width:100%}
figure.fig figcaption{font-size:13px;color:#444c56;margin:4px 0 0;line-height:1.4}
.figs{display:flex;flex-wrap:wrap;gap:8px 28px;align-items:flex-start}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;background:#ddf4ff}
.badge.web{background:#fff8c5}p.meta{color:#57606a}
"""


def _f(x: float) -> str:
    return f"{x + 0.0:.2f}"


def _reliability_figure(name: str, model: str, bins: Sequence[Mapping[str, Any]], reason: str) -> svg.Figure:
    """Observed frequency against mean forecast per bin, with each bin's 95% Wilson interval; the dashed
    diagonal is perfect calibration.  An empty bin is not drawn (it has no frequency); the caption counts it."""
    key, key_h = svg.legend([("point s0", "diamond", "observed frequency of a bin"), ("ci", "whisker", "95% Wilson CI"),
                             ("diagonal", "line", "perfect calibration")], 16, 8, svg.WIDTH - 32)
    top = 8 + key_h + 12
    x = svg.Linear(0.0, 1.0, _LEFT, _LEFT + _PLOT)
    y = svg.Linear(0.0, 1.0, top + _PLOT, top)
    ticks = [(t, f"{t:g}") for t in (0, 0.25, 0.5, 0.75, 1)]
    parts = [key,
             svg.y_axis(y, _LEFT, ticks, "observed frequency (share that happened)", grid_right=_LEFT + _PLOT),
             svg.x_axis(x, top + _PLOT, ticks, "mean forecast of the bin (probability)", grid_top=top),
             f'<path class="diagonal" d="M{_f(x(0))} {_f(y(0))}L{_f(x(1))} {_f(y(1))}"/>']
    drawn = [b for b in bins if b["n"]]
    for b in drawn:
        title = (f"forecasts in [{b['low']:g}, {b['high']:g}): n={b['n']}, mean {num(b['mean_forecast'])}, "
                 f"observed {num(b['observed'])} [{num(b['ci_low'])}, {num(b['ci_high'])}]")
        px, py = x(b["mean_forecast"]), y(b["observed"])
        whisker = f"M{_f(px)} {_f(y(b['ci_low']))}V{_f(y(b['ci_high']))}M{_f(px - 4)} {_f(y(b['ci_low']))}H{_f(px + 4)}" \
                  f"M{_f(px - 4)} {_f(y(b['ci_high']))}H{_f(px + 4)}"
        parts.append(f'<path class="ci" d="{whisker}"><title>{esc(title)}</title></path>')
        parts.append(f'<path class="point s0" d="M{_f(px - 5)} {_f(py)}L{_f(px)} {_f(py - 5)}L{_f(px + 5)} {_f(py)}'
                     f'L{_f(px)} {_f(py + 5)}Z"><title>{esc(title)}</title></path>')
    total = sum(b["n"] for b in bins)
    caption = (f"Reliability of {model}: {total} forecast probabilit{'y' if total == 1 else 'ies'} (a categorical "
               f"forecast gives one per option) in {len(bins)} equal bins of the forecast, {len(drawn)} of them "
               "non-empty. A point is a bin's share that happened (over its n) at the bin's mean forecast; the whisker "
               "its 95% Wilson interval; on the dashed diagonal the forecasts are calibrated." + (f" Badge: {reason}." if reason else ""))
    height = int(top + _PLOT + svg.AXIS_BELOW)
    return svg.Figure(name, f"reliability of {model}", svg.WIDTH, height, "".join(parts), caption)


def reliability_plot(bins: Sequence[Mapping[str, Any]], *, label: str) -> str:
    """The reliability diagram of *bins* as an inline ``<svg>`` (see :func:`_reliability_figure`), *label* its model."""
    return _reliability_figure("reliability", label, bins, "").svg()


def _ci(iv: Mapping[str, Any] | None) -> str:
    if not iv or iv.get("value") is None:
        return "n/a"
    if iv.get("ci_low") is None:
        return num(iv["value"])
    return f"{num(iv['value'])} [{num(iv['ci_low'])}, {num(iv['ci_high'])}]"


def _has_ci(iv: Mapping[str, Any] | None) -> bool:
    return bool(iv) and iv.get("value") is not None and iv.get("ci_low") is not None


def _board(badge: str, models: list[Mapping[str, Any]], split: bool, stats: Mapping[str, Any]) -> str:
    head = ["rank", "model", "n", "Brier [CI]", "adj. Brier", "log loss", "skill"]
    if split:
        head += ["clean", "leaked", "unverified", "leak inflation [CI]"]
    cells = ["<tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"]
    for rank, m in enumerate(models, start=1):
        row = [str(rank), m["model"], str(m["n"]), _ci(m["brier"]), num(m["difficulty_adjusted_brier"]),
               num(m["log_loss"]["value"]), num(m["brier_skill"]["value"])]
        if split:
            s = m["leak_split"]
            row += [f"{s['clean']['n']}: {num(s['clean']['value'])}", f"{s['leaked']['n']}: {num(s['leaked']['value'])}",
                    f"{s['unverified']['n']}: {num(s['unverified']['value'])}", _ci(s["inflation"])]
        cells.append("<tr>" + "".join(f'<td class="num">{esc(c)}</td>' if i != 1 else f"<td>{esc(c)}</td>"
                                      for i, c in enumerate(row)) + "</tr>")
    kind = "web" if badge == _BADGES[1] else "pre"
    parts = [f'<h2><span class="badge {kind}">{esc(badge)}</span> leaderboard</h2>',
             f"<table><tbody>{''.join(cells)}</tbody></table>"]
    figures = []
    level = f"{stats['confidence'] * 100:.10g}%"
    boot = f"{stats['resamples']} resamples, seed {stats['seed']}"
    rows = [svg.IntervalRow(f"{m['model']} (n={m['n']})", m["brier"]["value"], m["brier"]["ci_low"], m["brier"]["ci_high"])
            for m in models if _has_ci(m["brier"])]
    if rows:
        figures.append(svg.interval_panels(
            f"brier-{kind}", f"Brier by model ({badge})", [svg.Panel("Brier score (0 best, 1 worst)", tuple(rows), lo=0.0)],
            [("point s0", "diamond", "Brier over the model's n samples"), ("ci", "whisker", f"{level} bootstrap CI")],
            f"Brier score of each model ({badge}) over the samples it forecast that resolved (n in its label), with its "
            f"{level} percentile-bootstrap CI ({boot}); lower is better."))
    if split:
        rows = [svg.IntervalRow(f"{m['model']} (n={m['n']})",
                                m["leak_split"]["inflation"]["value"], m["leak_split"]["inflation"]["ci_low"],
                                m["leak_split"]["inflation"]["ci_high"])
                for m in models if _has_ci(m["leak_split"]["inflation"])]
        clean = "; ".join(f"{m['model']}: {m['leak_split']['clean']['n']} of {m['n']} clean" for m in models
                          if _has_ci(m["leak_split"]["inflation"]))
        if rows:
            figures.append(svg.interval_panels(
                f"inflation-{kind}", f"leak inflation by model ({badge})",
                [svg.Panel("leak inflation (Brier: all minus clean)", tuple(rows))],
                [("point s0", "diamond", "leak inflation"), ("ci", "whisker", f"{level} paired bootstrap CI")],
                f"Leak inflation of each model ({badge}): its Brier over all its n samples minus its Brier over the clean "
                f"ones ({clean}), with the {level} paired bootstrap CI ({boot}). Below 0, leakage bought a better score."))
    for i, m in enumerate(models, start=1):
        figures.append(_reliability_figure(f"reliability-{kind}-{i}", m["model"], m["reliability"], m["badge_reason"]))
    parts.append(f'<div class="figs">{"".join(f.html() for f in figures)}</div>')
    return "".join(parts)


def outcomes_html(report: Mapping[str, Any]) -> str:
    """The self-contained page of *report* (the JSON of ``anachron outcomes``)."""
    body = [
        "<h1>Forecast outcomes</h1>",
        f'<p class="meta">Brier (lower is better), {report["confidence"] * 100:.10g}% bootstrap CIs, '
        f'{report["resamples"]} resamples, seed {report["seed"]}; skill against {esc(report["baseline"])}; '
        f'log loss clipped at {report["log_clip"]:g}. anachron {esc(__version__)}</p>',
    ]
    for badge in _BADGES:
        models = sorted((m for m in report["models"] if m["badge"] == badge), key=lambda m: (m["brier"]["value"], m["model"]))
        if models:
            body.append(_board(badge, models, report["leak_split"], report))
    script = ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{esc(content_security_policy(script))}">'
        f"<title>anachron outcomes</title><style>{_CSS}{svg.SVG_CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )
