"""The HTML report: one self-contained page (inline CSS, SVG and script; no network).

:func:`report_html` lays out, for each run, the summary with every figure
and its denominator, the per-sample TCLR plot (the band above each column
where interactions were undated), the leak-horizon histogram and the
sortable per-sample table with the evidence lines; for two runs, the
paired comparison with its CI drawn; and a question-bank score card.

The page carries a Content-Security-Policy that forbids every fetch, so it
cannot reach the network even if asked to, and lets only its one script run
(named by its SHA-256, :func:`content_security_policy`).  That script only
sorts the tables; it holds no data.  The same inputs give the same bytes: nothing
depends on the clock, the host or a hash seed.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .. import __version__
from ..core.leakage import SampleResult, summarise
from . import svg
from ._text import esc
from .tables import bank_card, comparison_table, plural, sample_table, summary_table

__all__ = ["Run", "content_security_policy", "report_html"]


@dataclass(frozen=True)
class Run:
    """One run of the report: a label (its source, as given) and its scored samples."""

    label: str
    results: tuple[SampleResult, ...]
    source: str = ""  # what the input was: score JSON, traces, Inspect logs


_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}p.meta{color:#57606a;margin:0 0 12px}
table{border-collapse:collapse;margin:8px 0 12px;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border:1px solid #d0d7de;padding:3px 8px;vertical-align:top;text-align:left}
td.num{text-align:right;white-space:nowrap}td.prose{white-space:normal;overflow-wrap:anywhere;min-width:12em}td.den{color:#57606a}
table.samples th{background:#f6f8fa;cursor:pointer;user-select:none;white-space:nowrap}
table.samples th[aria-sort=ascending]::after{content:" \\25B2"}table.samples th[aria-sort=descending]::after{content:" \\25BC"}
td.id{font-family:ui-monospace,monospace;word-break:break-all}table.samples td{white-space:nowrap}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px;white-space:pre-wrap;word-break:break-word}
details ul{margin:4px 0;padding-left:18px}.none{color:#8c959f}
svg.plot{display:block;max-width:100%;height:auto;margin:4px 0 10px}
svg .axis{stroke:#57606a;fill:none;stroke-width:1}svg .grid{stroke:#eaeef2;fill:none}
svg .tick,svg .label{font:11px system-ui,sans-serif;fill:#57606a}
svg .bar.unrestricted,svg .bar.run0{fill:#cf222e}svg .bar.enforced,svg .bar.run1{fill:#0969da}
svg .bar.run2{fill:#8250df}svg .bar.run3{fill:#1a7f37}svg .bar.zero{fill:#8c959f}
svg .bar.band{fill:#d4a72c;opacity:.55}svg .bar.horizon{fill:#bc4c00}
svg .ci{stroke:#1b1f24;stroke-width:2;fill:none}svg .point{fill:#1b1f24}
svg .axis.zero{stroke:#8c959f;stroke-dasharray:3 3}
tr.pass td:first-child{color:#1a7f37;font-weight:700}tr.fail td:first-child{color:#cf222e;font-weight:700}
p.verdict.pass{color:#1a7f37;font-weight:600}p.verdict.fail{color:#cf222e;font-weight:600}
ul.inputs{margin:4px 0 0;padding-left:18px;color:#57606a}
.pair{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:20px;align-items:start}
.scroll{overflow-x:auto}td.val{max-width:340px;word-break:break-all}
@media (max-width:900px){.pair{grid-template-columns:minmax(0,1fr)}}
"""

_SCRIPT = """
(function () {
  function key(cell, type) {
    var v = cell.getAttribute("data-sort");
    return type === "num" ? parseFloat(v) : v;
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, i) {
      function sort() {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var type = th.getAttribute("data-type");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[i], type), y = key(b.cells[i], type);
          var c = x < y ? -1 : x > y ? 1 : 0;
          return ascending ? c : -c;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
      });
    });
  });
})();
"""

def content_security_policy(script: str) -> str:
    """The page's CSP: no fetch of any kind, and only the one inline *script* runs (by its SHA-256).

    A script injected into the page through a hole in the escaping would
    not match the hash, so it would not run: the escaping is not the only
    barrier.  Inline styles stay allowed (the SVG plots use them).

    >>> content_security_policy("")
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='; img-src data:"
    """
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; img-src data:"


def _series(run: Run, index: int) -> str:
    modes = {r.mode for r in run.results}
    if len(modes) == 1 and next(iter(modes)) in ("unrestricted", "enforced"):
        return str(next(iter(modes)))
    return f"run{index % 4}"


def _run_section(run: Run, index: int) -> str:
    results = run.results
    summary = summarise(results)
    series = _series(run, index)
    modes = sorted({r.mode for r in results if r.mode})
    heading = f"Run {index + 1}: {run.label}" + (f" ({', '.join(modes)})" if modes else "")
    bars = [
        (f"{r.sample_id}: TCLR {r.tclr:.3f} ({r.result_leaks}/{r.interactions})", r.tclr, float(r.tclr_high_exact))
        for r in results
    ]
    parts = [
        f'<section class="run" id="run-{index + 1}"><h2>{esc(heading)}</h2>',
        f'<p class="meta">{esc(run.source)}</p>' if run.source else "",
        '<div class="pair"><div>',
        summary_table(summary, results),
        "</div><div><h3>TCLR per sample</h3>",
        svg.bar_plot(bars, label=f"TCLR per sample, {heading}", x_label=f"{plural(len(results), 'samples')}, in input order "
                     "(the band above a column: undated interactions counted as leaking)", series=series),
        "<h3>Leak horizon</h3>",
    ]
    days = [d for r in results for d in r.horizons]
    if days:
        parts.append(svg.horizon_histogram(days))
    else:
        parts.append('<p class="none">No result leak: no item dated after T reached the agent.</p>')
    parts += ["</div></div><h3>Samples</h3>", '<p class="meta">Click a column to sort.</p>',
              f'<div class="scroll">{sample_table(results)}</div>', "</section>"]
    return "".join(parts)


def _comparison_section(comparison: Any, labels: Sequence[str]) -> str:
    c = comparison
    name = "TCLR" if c.metric == "tclr" else c.metric
    rows = [
        (f"unrestricted mean {name}", c.unrestricted_mean, c.unrestricted_mean, c.unrestricted_mean),
        (f"enforced mean {name}", c.enforced_mean, c.enforced_mean, c.enforced_mean),
        (f"mean reduction, {c.confidence * 100:.10g}% CI", c.mean_reduction, c.ci_low, c.ci_high),
    ]
    return (
        '<section class="comparison" id="comparison"><h2>Paired comparison</h2>'
        f'<p class="meta">unrestricted: {esc(labels[0])}; enforced: {esc(labels[1])}. Each sample is one pair; '
        f"the CI is the paired {'percentile' if c.ci_method == 'percentile' else 'BCa'} bootstrap "
        f"({c.n_resamples} resamples, seed {c.seed}).</p>"
        + '<div class="pair"><div>'
        + comparison_table(c)
        + "</div><div>"
        + svg.interval_plot(rows, label=f"paired comparison of {name}: means and the mean reduction with its CI")
        + "</div></div></section>"
    )


def report_html(
    runs: Sequence[Run],
    *,
    comparison: Any = None,
    bank: Mapping[str, Any] | None = None,
    title: str = "Anachron report",
) -> str:
    """The page for *runs* (each with its results), a paired *comparison* of the first two, a *bank* card.

    *comparison* is a :class:`~anachron.core.ModeComparison` (the first run
    unrestricted, the second enforced); *bank* a score card as
    ``BankRun.to_dict()`` gives it.
    """
    inputs = [f"<li>{esc(run.label)}: {esc(run.source or 'scores')}, {plural(len(run.results), 'samples')}</li>" for run in runs]
    if bank is not None:
        inputs.append(f"<li>question bank score card: system {esc(bank['system'])}</li>")
    body = [
        f"<h1>{esc(title)}</h1>",
        f'<p class="meta">anachron {esc(__version__)}. Definitions: docs/metrics.md. Inputs:</p>',
        f'<ul class="inputs">{"".join(inputs)}</ul>',
    ]
    if comparison is not None:
        body.append(_comparison_section(comparison, [runs[0].label, runs[1].label]))
    body += [_run_section(run, i) for i, run in enumerate(runs)]
    if bank is not None:
        body.append(f'<section class="bank" id="bank"><h2>Question bank</h2><div class="scroll">{bank_card(bank)}</div></section>')
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(_SCRIPT)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{_CSS}</style></head>\n"
        f"<body>{''.join(body)}<script>{_SCRIPT}</script></body></html>\n"
    )
