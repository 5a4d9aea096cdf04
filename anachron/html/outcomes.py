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
from ..bank.cutoffs import BADGES
from ..outcomes import ranked
from . import svg
from ._text import esc, num
from .report import content_security_policy

__all__ = ["outcomes_html", "reliability_plot"]

_SIZE = 320
_PAD = 40

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#1b1f24}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0 12px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left}td.num{text-align:right;white-space:nowrap}
svg.plot{display:block;max-width:100%;height:auto;margin:4px 0 10px}
svg .axis{stroke:#57606a;fill:none}svg .grid{stroke:#eaeef2;fill:none}svg .diagonal{stroke:#8c959f;stroke-dasharray:4 3;fill:none}
svg .tick,svg .label{font:11px system-ui,sans-serif;fill:#57606a}
svg .ci{stroke:#1b1f24;stroke-width:2;fill:none}svg .point{fill:#0969da}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;background:#ddf4ff}
.badge.web{background:#fff8c5}p.meta{color:#57606a}
"""


def _f(x: float) -> str:
    return f"{x + 0.0:.2f}"


def reliability_plot(bins: Sequence[Mapping[str, Any]], *, label: str) -> str:
    """Observed frequency against mean forecast per bin, with each bin's Wilson interval; the diagonal is perfect calibration."""
    inner = _SIZE - 2 * _PAD

    def x(v: float) -> float:
        return _PAD + v * inner

    def y(v: float) -> float:
        return _SIZE - _PAD - v * inner

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" width="{_SIZE}" height="{_SIZE}" '
        f'viewBox="0 0 {_SIZE} {_SIZE}" role="img" aria-label="{esc(label)}">'
    ]
    for t in (0, 0.25, 0.5, 0.75, 1):
        parts.append(f'<path class="grid" d="M{_f(x(0))} {_f(y(t))}H{_f(x(1))}M{_f(x(t))} {_f(y(0))}V{_f(y(1))}"/>')
        parts.append(f'<text class="tick" x="{_f(x(0) - 6)}" y="{_f(y(t) + 4)}" text-anchor="end">{t:g}</text>')
        parts.append(f'<text class="tick" x="{_f(x(t))}" y="{_f(y(0) + 14)}" text-anchor="middle">{t:g}</text>')
    parts.append(f'<path class="axis" d="M{_f(x(0))} {_f(y(1))}V{_f(y(0))}H{_f(x(1))}"/>')
    parts.append(f'<path class="diagonal" d="M{_f(x(0))} {_f(y(0))}L{_f(x(1))} {_f(y(1))}"/>')
    for b in bins:
        if not b["n"]:
            continue
        title = (f"forecasts in [{b['low']:g}, {b['high']:g}): n={b['n']}, mean {num(b['mean_forecast'])}, "
                 f"observed {num(b['observed'])} [{num(b['ci_low'])}, {num(b['ci_high'])}]")
        px = x(b["mean_forecast"])
        parts.append(f'<path class="ci" d="M{_f(px)} {_f(y(b["ci_low"]))}V{_f(y(b["ci_high"]))}"><title>{esc(title)}</title></path>')
        py = y(b["observed"])
        parts.append(f'<path class="point" d="M{_f(px - 4)} {_f(py)}L{_f(px)} {_f(py - 4)}L{_f(px + 4)} {_f(py)}L{_f(px)} {_f(py + 4)}Z">'
                     f'<title>{esc(title)}</title></path>')
    parts.append(f'<text class="label" x="{_f(x(0.5))}" y="{_f(_SIZE - 6)}" text-anchor="middle">mean forecast</text>')
    parts.append(f'<text class="label" x="12" y="{_f(y(0.5))}" text-anchor="middle" transform="rotate(-90 12 {_f(y(0.5))})">observed</text>')
    parts.append("</svg>")
    return "".join(parts)


def _ci(iv: Mapping[str, Any] | None) -> str:
    if not iv or iv.get("value") is None:
        return "n/a"
    if iv.get("ci_low") is None:
        return num(iv["value"])
    return f"{num(iv['value'])} [{num(iv['ci_low'])}, {num(iv['ci_high'])}]"


def _rows(iv_rows: list[tuple[str, Mapping[str, Any] | None]]) -> list[tuple[str, float, float, float]]:
    return [(name, iv["value"], iv["ci_low"], iv["ci_high"]) for name, iv in iv_rows
            if iv and iv.get("value") is not None and iv.get("ci_low") is not None]


def _board(badge: str, models: list[Mapping[str, Any]], split: bool) -> str:
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
    kind = "web" if badge == BADGES[1] else "pre"
    parts = [f'<h2><span class="badge {kind}">{esc(badge)}</span> leaderboard</h2>',
             f"<table><tbody>{''.join(cells)}</tbody></table>"]
    rows = _rows([(m["model"], m["brier"]) for m in models])
    if rows:
        parts.append(svg.interval_plot(rows, label=f"Brier by model ({badge})", series="brier"))
    if split:
        rows = _rows([(m["model"], m["leak_split"]["inflation"]) for m in models])
        if rows:
            parts.append(f"<h3>Leak inflation: Brier over all minus over clean ({esc(badge)})</h3>")
            parts.append(svg.interval_plot(rows, label=f"leak inflation by model ({badge})", series="inflation"))
    for m in models:
        parts.append(f"<h3>{esc(m['model'])}: reliability</h3>")
        parts.append(reliability_plot(m["reliability"], label=f"reliability of {m['model']}"))
        parts.append(f'<p class="meta">{esc(m["badge_reason"])}</p>')
    return "".join(parts)


def outcomes_html(report: Mapping[str, Any]) -> str:
    """The self-contained page of *report* (the JSON of ``anachron outcomes``)."""
    body = [
        "<h1>Forecast outcomes</h1>",
        f'<p class="meta">Brier (lower is better), {report["confidence"] * 100:.10g}% bootstrap CIs, '
        f'{report["resamples"]} resamples, seed {report["seed"]}; skill against {esc(report["baseline"])}; '
        f'log loss clipped at {report["log_clip"]:g}. anachron {esc(__version__)}</p>',
    ]
    for badge in BADGES:
        models = ranked(report, badge)
        if models:
            body.append(_board(badge, models, report["leak_split"]))
    script = ""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f'<meta http-equiv="Content-Security-Policy" content="{esc(content_security_policy(script))}">'
        f"<title>anachron outcomes</title><style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )
