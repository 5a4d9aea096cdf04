"""The HTML report: one self-contained page (inline CSS, SVG and script; no network).

:func:`report_page` lays out, for each run, the summary with every figure
and its denominator, and four figures (:mod:`anachron.output.html.svg`): TCLR per
sample with the run's mean and its percentile-bootstrap CI
(:func:`anachron.core.stats.mean.mean_interval`), the leak horizon on a
log day axis drawn as a density (items per octave, so a bar's area is
its count), and for each slice and as-of year the share of its samples
with each kind of finding (one bar a kind, one scale for every run of the
page); then the per-sample table with the evidence lines, which sorts and
filters.  For two runs,
the paired comparison: each run's mean with its CI, the mean reduction with
its paired CI, and each sample's pair sorted by the difference.  A
question-bank score card adds its tables and two figures: the oracles'
separation and the cutoff split, with Wilson CIs.  Each figure carries a
caption stating n and the denominator; :func:`report_figures` gives the
same figures for standalone files.

The page carries a Content-Security-Policy that forbids every fetch, so it
cannot reach the network even if asked to, and lets only its one script run
(named by its SHA-256, :func:`content_security_policy`).  That script only
sorts, filters and pages the samples tables; it holds no data.  The same inputs give the same bytes: nothing
depends on the clock, the host or a hash seed.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping, Sequence

from anachron import __version__
from anachron.core.docs import doc_url
from anachron.core.leakage import RunSummary, SampleResult, summarise
from anachron.core.scores import metric_kind
from anachron.core.stats import wilson_interval
from anachron.core.stats.mean import MeanInterval, mean_interval
from anachron.output.html import svg
from anachron.output.html._text import esc, num, pct
from anachron.output.html.tables import bank_card, comparison_table, plural, sample_table, summary_table

__all__ = ["Run", "content_security_policy", "report_figures", "report_html", "report_page"]


@dataclass(frozen=True)
class Run:
    """One run of the report: a label (its source, as given) and its scored samples."""

    label: str
    results: tuple[SampleResult, ...]
    source: str = ""  # what the input was: score JSON, traces, Inspect logs
    slices: Mapping[str, str] | None = None  # sample id -> the corpus's slice; None: unknown (not in a corpus)

    @cached_property
    def summary(self) -> RunSummary:
        """The core's summary of the results (made once: the tables and the figures both read it)."""
        return summarise(self.results)


# Two columns: the tables with the short figures drawn to the tables' width under them, the tall figures beside;
# both fit a 1,150 px page (500 + 24 + 600) at their drawn size, and their heights come out close.
LEFT_WIDTH = 500  # px
BANK_WIDTH = 1100  # px: the bank card's figures span the card's width (a page at least 1,150 px wide draws them at size)

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}p.meta{color:#57606a;margin:0 0 12px}
table{border-collapse:collapse;margin:8px 0 12px;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{border:1px solid #d0d7de;padding:3px 8px;vertical-align:top;text-align:left}
td.num{text-align:right;white-space:nowrap}td.prose{white-space:normal;overflow-wrap:anywhere;min-width:12em}td.den{color:#57606a}
table.samples{width:100%;font-size:13px}table.samples th,table.samples td{padding:3px 5px}
table.samples th{background:#f6f8fa;cursor:pointer;user-select:none;vertical-align:bottom;white-space:nowrap}
table.samples th.v span{writing-mode:vertical-rl;transform:rotate(180deg);display:inline-block}
table.samples th.v{text-align:center;padding:5px 2px}
table.samples th[aria-sort=ascending]::after{content:" \\25B2"}table.samples th[aria-sort=descending]::after{content:" \\25BC"}
td.id{font-family:ui-monospace,monospace;word-break:break-all}table.samples td{white-space:nowrap}
table.samples td.evidence{white-space:normal;width:40%;min-width:15em}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px;white-space:pre-wrap;overflow-wrap:anywhere;word-break:break-word}
details ul{margin:4px 0;padding-left:18px}.none{color:#8c959f}
svg.plot{display:block;max-width:100%;height:auto}
figure.fig{margin:0;width:600px;max-width:100%}
figure.fig figcaption{font-size:13px;color:#444c56;margin:4px 0 0;line-height:1.4}
tr.pass td:first-child{color:#1a7f37;font-weight:700}tr.fail td:first-child{color:#cf222e;font-weight:700}
p.verdict{font-weight:600;padding:4px 10px;border-left:4px solid}
p.verdict.pass{color:#1a7f37;border-color:#1a7f37}p.verdict.fail{color:#cf222e;border-color:#cf222e}
p.verdict.caveat{color:#7d4e00;background:#fff8c5;border-color:#bf8700}
ul.inputs{margin:4px 0 0;padding-left:18px;color:#57606a}
.row{display:flex;flex-wrap:wrap;gap:20px 24px;align-items:flex-start}.col{display:flex;flex-direction:column;gap:24px}
.col.left{flex:0 1 LEFT_WIDTHpx;min-width:0}.col.right{flex:0 1 600px;min-width:0}.col.wide{flex:1 1 100%}
.tables>table{width:100%}table.summary th[scope=row]{white-space:nowrap}
.col.left figure.fig{width:LEFT_WIDTHpx}section.bank figure.fig{width:BANK_WIDTHpx}
div.controls{margin:4px 0}div.controls input{margin:0 12px 0 4px}span.status{margin-left:8px;color:#57606a}
.scroll{overflow-x:auto}td.val{max-width:340px;word-break:break-all}
""".replace("BANK_WIDTH", str(BANK_WIDTH)).replace("LEFT_WIDTH", str(LEFT_WIDTH))

_PAGE = 100  # rows of a samples table shown at once

# The samples table holds every row in the page (it reads without the script), but the script keeps only one page
# of rows in the DOM: at 10,000 rows, re-ordering and laying out the whole table took seconds per click.  A sort
# orders an index array by keys read once per column, a filter marks the rows whose text holds the query; then the
# page of rows shown is swapped in.  Ties keep the input order, so a sort is the same on every browser.
_SCRIPT = """
(function () {
  var PAGE = __PAGE__;
  Array.prototype.forEach.call(document.querySelectorAll("div.samples-view"), function (view) {
    var table = view.querySelector("table.sortable");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var heads = table.tHead.rows[0].cells;
    var keys = [], texts = null, query = "";
    var order = rows.map(function (_, i) { return i; });
    var shown = order, start = 0;
    var controls = view.querySelector(".controls");
    var filter = view.querySelector("input.filter");
    var prev = view.querySelector("button.prev"), next = view.querySelector("button.next");
    var status = view.querySelector(".status");
    controls.hidden = false;
    if (rows.length <= PAGE) { prev.hidden = true; next.hidden = true; }
    function render() {
      var end = Math.min(start + PAGE, shown.length);
      var frag = document.createDocumentFragment();
      for (var i = start; i < end; i++) { frag.appendChild(rows[shown[i]]); }
      body.textContent = "";
      body.appendChild(frag);
      status.textContent = shown.length
        ? "rows " + (start + 1) + "\u2013" + end + " of " + shown.length
          + (shown.length < rows.length ? " matching (of " + rows.length + ")" : "")
        : "no row matches (of " + rows.length + ")";
      prev.disabled = start === 0;
      next.disabled = end >= shown.length;
    }
    function select() {
      if (!query) { shown = order; return; }
      shown = order.filter(function (i) { return texts[i].indexOf(query) !== -1; });
    }
    function column(i, type) {
      if (!keys[i]) {
        keys[i] = rows.map(function (row) {
          var v = row.cells[i].getAttribute("data-sort");
          return type === "num" ? parseFloat(v) : v;
        });
      }
      return keys[i];
    }
    Array.prototype.forEach.call(heads, function (th, i) {
      function sort() {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var key = column(i, th.getAttribute("data-type"));
        order = order.slice().sort(function (a, b) {
          var x = key[a], y = key[b];
          var c = x < y ? -1 : x > y ? 1 : 0;
          return (ascending ? c : -c) || a - b;
        });
        select();
        start = 0;
        render();
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
      });
    });
    filter.addEventListener("input", function () {
      if (!texts) { texts = rows.map(function (row) { return row.textContent.toLowerCase(); }); }
      query = filter.value.trim().toLowerCase();
      select();
      start = 0;
      render();
    });
    prev.addEventListener("click", function () { start = Math.max(0, start - PAGE); render(); });
    next.addEventListener("click", function () { if (start + PAGE < shown.length) { start += PAGE; } render(); });
    render();
  });
})();
""".replace("__PAGE__", str(_PAGE))


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


def _run_name(run: Run, index: int) -> str:
    """``run 1 (unrestricted)``: a short name for a legend (the label is in the heading)."""
    modes = sorted({r.mode for r in run.results if r.mode})
    return f"run {index + 1}" + (f" ({', '.join(modes)})" if modes else "")


def _metric_words(metric: str) -> tuple[str, bool]:
    """The metric's name as the page writes it and whether it is a rate (else a count per sample)."""
    return ("TCLR" if metric == "tclr" else metric), metric_kind(metric) == "rate"


_FINDINGS = (("result", "a result leak"), ("survivorship", "a survivorship leak"), ("restatement", "a restatement leak"),
             ("query", "a query-intent leak"), ("blocked", "a blocked attempt"))


def _finding_counts(members: Sequence[SampleResult]) -> list[int]:
    """How many of *members* have at least one finding of each kind of :data:`_FINDINGS`."""
    return [sum(1 for r in members if r.result_leaks), sum(1 for r in members if r.survivorship_leaks),
            sum(1 for r in members if r.restatement_leaks), sum(1 for r in members if r.query_intent_leaks),
            sum(1 for r in members if r.blocked_attempts)]


def _breakdown_rows(run: Run, by: str) -> list[tuple[str, int, list[int]]]:
    """``(label with n, n, counts)`` per slice or per as-of year, in order."""
    groups: dict[str, list[SampleResult]] = {}
    for r in run.results:
        key = str(r.as_of.year) if by == "year" else (run.slices or {}).get(r.sample_id, "slice unknown")
        groups.setdefault(key, []).append(r)
    return [(f"{key} (n={len(members)})", len(members), _finding_counts(members)) for key, members in sorted(groups.items())]


def _breakdown_scale(runs: Sequence[Run]) -> tuple[float, list[str]]:
    """The one x axis of every breakdown on the page: its end, the largest share drawn (at least 10%) at a round
    tick, and every group's label (the axis starts past the longest)."""
    rows = [row for run in runs for by in ("slice", "year") for row in _breakdown_rows(run, by)]
    most = max([k / n for _, n, counts in rows for k in counts if n] + [0.1])
    ticks = svg.nice_ticks(0, most)
    return min(1.0, ticks[-1] if ticks[-1] >= most else ticks[-1] + (ticks[1] - ticks[0])), [label for label, _, _ in rows]


def _breakdown(run: Run, index: int, by: str, scale: tuple[float, list[str]]) -> svg.Figure:
    """The share of each group's samples with each kind of finding, per slice or per as-of year, one bar a kind."""
    n = len(run.results)
    rows = _breakdown_rows(run, by)
    empty = None
    if not any(any(c) for _, _, c in rows):
        empty = f"no leak finding and no blocked attempt in {plural(n, 'samples')}"
    what = "slice" if by == "slice" else "as-of year"
    caption = (
        f"Leak findings by {what} over the run's n = {plural(n, 'samples')}: for each group (its n in its label), the share "
        "of its samples with at least one result, survivorship, restatement or query-intent leak, and with a blocked "
        "attempt (dashed outline: a refused call, not a leak), one bar for each kind; the kinds overlap and are not added up. "
        "A missing bar is 0. Every breakdown on this page shares one axis."
    )
    if empty is None and not any(any(c[:4]) for _, _, c in rows):
        caption += f" No leak finding in {plural(n, 'samples')}."
    if by == "slice" and not run.slices:
        caption += " The slices are unknown: the samples are not in the corpus (give --corpus)."
    return svg.rate_bars(
        f"run-{index + 1}-by-{by}", f"leak findings by {what}, {_run_name(run, index)}", rows, _FINDINGS, hi=scale[0],
        x_title="samples with the finding (% of the group's n)", y_title=what, caption=caption, empty=empty,
        page_labels=scale[1], width=LEFT_WIDTH,
    )


def _run_figures(run: Run, index: int, stats: _Stats, breakdown: tuple[float, list[str]]) -> list[svg.Figure]:
    results = run.results
    n = len(results)
    series = f"s{index % 4}"
    name = _run_name(run, index)
    mean = stats.mean([r.tclr for r in results])
    base = sum(r.tclr_base for r in results)
    leaks = sum(r.result_leaks for r in results)
    rows = [(r.sample_id, r.tclr, float(r.tclr_high_exact)) for r in results]
    empty = None if any(high > 0 for _, _, high in rows) else f"no leak in {plural(n, 'samples')} ({plural(base, 'interactions')})"
    unrecorded = sum(r.unrecorded for r in results)
    caption = (
        f"TCLR of each of the n = {plural(n, 'samples')}, in input order: the sample's leaking interactions over its "
        f"interactions{' and unrecorded calls' if unrecorded else ''} ({leaks} of {base} in all). "
        f"Dashed line and the diamond above the rows: the run's mean TCLR {num(mean.mean)} over the {plural(n, 'samples')}; "
        "shaded and the whisker: its "
        f"{stats.level} percentile-bootstrap CI [{num(mean.low)}, {num(mean.high)}] ({stats.how})."
    )
    if mean.degenerate:
        caption += " The CI has no width: every sample has the same TCLR."
    if any(high > value for _, value, high in rows):
        caption += " The lighter band above a bar counts its undated interactions (and unrecorded calls) as leaking."
    if n > svg.LABELLED_ROWS:
        caption = caption.replace(", in input order:", ", sorted by TCLR, largest first:")
        caption += (f" Sample ids are omitted (more than {svg.LABELLED_ROWS} samples): see the table. The samples with "
                    "the same TCLR (and band) are one bar, as thick as their count (the left axis counts the samples).")
    if empty is not None:
        caption = f"No sample leaked: 0 of {base} interactions in the n = {plural(n, 'samples')} returned an item dated after T."
    figures = [svg.sample_bars(
        f"run-{index + 1}-tclr", f"TCLR per sample, {name}", rows, series=series, mean=(mean.mean, mean.low, mean.high),
        x_title="TCLR (leaking interactions / interactions)", caption=caption, empty=empty, confidence=stats.confidence,
    )]
    days = [d for r in results for d in r.horizons]
    h = run.summary.horizon
    if days:
        leaking = sum(1 for r in results if r.horizons)
        caption = (
            f"Days past T of the {plural(len(days), 'post-T items')} that reached the agent, in {leaking} of the "
            f"n = {plural(n, 'samples')}, on a log day axis. Bins 1-7, 8-31, 32-92, 93-183, 184-366 and over 366 days, "
            f"each drawn to the width of its days (the open last one through day {svg.horizon_end(days)}: the largest day "
            f"seen, {max(days)}, or two years if later); a bar's height is its items per octave of days (its count over its "
            f"width in octaves), so its area is its count, written above it. Median {h.median:g} days, max {h.max} days."
        )
        figures.append(svg.horizon_histogram(f"run-{index + 1}-horizon", f"leak horizon, {name}", days, caption=caption))
    else:
        figures.append(svg.horizon_histogram(
            f"run-{index + 1}-horizon", f"leak horizon, {name}", days, empty=f"no leak in {plural(n, 'samples')}",
            caption=f"No item dated after T reached the agent in the n = {plural(n, 'samples')} "
                    f"({plural(sum(r.interactions for r in results), 'interactions')}): no horizon to draw."))
    # In page order: the breakdowns under the summary table (the left column), then the tall figures beside it.
    return [_breakdown(run, index, "slice", breakdown), _breakdown(run, index, "year", breakdown)] + figures


def _run_section(run: Run, index: int, figures: Sequence[svg.Figure], stats: _Stats) -> str:
    results = run.results
    summary = run.summary
    modes = sorted({r.mode for r in results if r.mode})
    heading = f"Run {index + 1}: {run.label}" + (f" ({', '.join(modes)})" if modes else "")
    return "".join([
        f'<section class="run" id="run-{index + 1}"><h2>{esc(heading)}</h2>',
        f'<p class="meta">{esc(run.source)}</p>' if run.source else "",
        '<div class="row"><div class="col left"><div class="tables">',
        summary_table(summary, results, mean_ci=_mean_ci(run, stats)),
        "</div>", "".join(f.html() for f in figures if f.width == LEFT_WIDTH),
        '</div><div class="col right">',
        "".join(f.html() for f in figures if f.width != LEFT_WIDTH),
        "</div></div><h3>Samples</h3>", '<p class="meta">Click a column to sort.</p>',
        _samples_view(results, index), "</section>",
    ])


def _samples_view(results: Sequence[SampleResult], index: int) -> str:
    """The sortable table with its filter and pages (hidden until the script shows them: without it, every row is there)."""
    table = f"samples-{index + 1}"
    return (
        f'<div class="samples-view"><div class="controls" hidden><label>Filter rows <input type="search" class="filter" '
        f'aria-controls="{table}" autocomplete="off"></label> <button type="button" class="prev" aria-controls="{table}">'
        f'Previous {_PAGE}</button> <button type="button" class="next" aria-controls="{table}">Next {_PAGE}</button> '
        f'<span class="status" role="status" aria-live="polite"></span></div>'
        f'<div class="scroll">{sample_table(results, table_id=table)}</div></div>'
    )


@dataclass(frozen=True)
class _Stats:
    """How the report's own intervals are drawn: the comparison's level, resamples and seed."""

    confidence: float
    n_resamples: int
    seed: int

    @property
    def level(self) -> str:
        return f"{self.confidence * 100:.10g}%"

    @property
    def how(self) -> str:
        return f"{self.n_resamples} resamples, seed {self.seed}"

    cache: dict[tuple[float, ...], MeanInterval] = field(default_factory=dict, compare=False)

    def mean(self, values: Sequence[float]) -> MeanInterval:
        """The mean of *values* with its CI (once per set of values: the figure and the table show the same)."""
        key = tuple(values)
        if key not in self.cache:
            self.cache[key] = mean_interval(values, confidence=self.confidence, n_resamples=self.n_resamples, seed=self.seed)
        return self.cache[key]


def _mean_ci(run: Run, stats: _Stats) -> tuple[str, str, str]:
    """The summary table's row of the mean TCLR's CI: the interval the TCLR figure draws."""
    m = stats.mean([r.tclr for r in run.results])
    return stats.level, f"[{num(m.low)}, {num(m.high)}]", f"{plural(m.n, 'samples')}; bootstrap, {stats.how}"


def _comparison_figures(comparison: Any, runs: Sequence[Run], metric: str, stats: _Stats) -> list[svg.Figure]:
    c = comparison
    name, rate = _metric_words(metric)
    values = [{r.sample_id: r.to_dict()[metric] for r in run.results} for run in runs[:2]]
    names = (_run_name(runs[0], 0), _run_name(runs[1], 1))
    means = [stats.mean(list(v.values())) for v in values]
    unit = "share of interactions" if metric == "tclr" else ("a rate" if rate else "count per sample")
    method = "paired percentile" if c.ci_method == "percentile" else "BCa"
    panels = [
        svg.Panel(f"mean {name} per run ({unit})", tuple(
            svg.IntervalRow(names[i], m.mean, m.low, m.high, series=f"s{i}", shape=("circle", "square")[i])
            for i, m in enumerate(means)), lo=0.0),  # a rate or a count: never below 0
        svg.Panel(f"mean reduction, run 1 - run 2 ({'TCLR' if metric == 'tclr' else metric})", (
            svg.IntervalRow("mean reduction", c.mean_reduction, c.ci_low, c.ci_high, series="s2"),)),
    ]
    key = [("point s0", "circle", names[0]), ("point s1", "square", names[1]), ("point s2", "diamond", "paired reduction"),
           ("ci", "whisker", f"{stats.level} CI")]
    caption = (
        f"Top: each run's mean {name} over its n = {plural(c.n, 'samples')}, with its {stats.level} percentile-bootstrap CI "
        f"({stats.how}). Bottom: the mean paired reduction (run 1 - run 2) over the {plural(c.n, 'pairs')}, {num(c.mean_reduction)}, "
        f"with its {c.confidence * 100:.10g}% {method} bootstrap CI [{num(c.ci_low)}, {num(c.ci_high)}] "
        f"({c.n_resamples} resamples, seed {c.seed}); {c.improved} pairs improved, {c.worsened} worsened, {c.tied} tied."
    )
    flat = [names[i] for i, m in enumerate(means) if m.degenerate]
    if flat:
        caption += f" The CI of {' and of '.join(flat)} has no width: every sample has the same {name}."
    figures = [svg.interval_panels("comparison-means", f"paired comparison of {name}: each run's mean and the mean reduction, with CIs",
                                   panels, key, caption, width=LEFT_WIDTH)]
    ids = list(values[0])
    rows = sorted(((i, float(values[0][i]), float(values[1][i])) for i in ids), key=lambda t: (-(t[1] - t[2]), t[1], t[0]))
    caption = (
        f"{name} of each of the n = {plural(c.n, 'samples')} in both runs ({names[0]}: filled circle; {names[1]}: open square; "
        f"a line joins a pair that differs), sorted by the difference run 1 - run 2, largest first (ties by run 1's value). "
        f"{c.improved} of the {plural(c.n, 'pairs')} improved, {c.worsened} worsened and {c.tied} tied (their marks coincide)."
    )
    if c.n > svg.LABELLED_ROWS:
        caption = caption.replace("(their marks coincide)", "(their strips coincide)").replace(
            "filled circle; ", "filled strip; ").replace("open square;", "outlined strip;")
        caption += (f" Sample ids are omitted (more than {svg.LABELLED_ROWS} samples): see the tables. The pairs with the "
                    "same two values form one group, drawn as a strip whose height is its share of the n samples (the left "
                    "axis counts them), so a mark's area is in proportion to the samples it stands for; a group's count is "
                    "written at the right where its strip has room, and every group's count is in its title.")
    x_title = "TCLR per sample (leaking interactions / interactions)" if metric == "tclr" else (
        f"{metric} per sample" + ("" if rate else " (count)"))
    figures.append(svg.dumbbell_plot("comparison-samples", f"{name} per sample in both runs, sorted by the difference",
                                     rows, names=names, count=not rate, x_title=x_title, caption=caption))
    return figures


def _comparison_section(comparison: Any, labels: Sequence[str], figures: Sequence[svg.Figure]) -> str:
    c = comparison
    return (
        '<section class="comparison" id="comparison"><h2>Paired comparison</h2>'
        f'<p class="meta">run 1 (unrestricted): {esc(labels[0])}; run 2 (enforced): {esc(labels[1])}. Each sample is one pair; '
        f"the CI is the paired {'percentile' if c.ci_method == 'percentile' else 'BCa'} bootstrap "
        f"({c.n_resamples} resamples, seed {c.seed}).</p>"
        + '<div class="row"><div class="col left"><div class="tables">'
        + comparison_table(c)
        + "</div>" + "".join(f.html() for f in figures if f.width == LEFT_WIDTH)
        + '</div><div class="col right">'
        + "".join(f.html() for f in figures if f.width != LEFT_WIDTH)
        + "</div></div></section>"
    )


def _rate_row(label: str, tally: Mapping[str, Any], series: str, shape: str, kind: str) -> svg.IntervalRow:
    """A bank tally's accuracy or leak rate with its 95% Wilson CI (the bounds drawn as a span when undecided)."""
    if kind == "accuracy":
        hits, over, rate = tally.get("correct"), tally.get("answerable"), tally.get("accuracy")
        ci = wilson_interval(hits, over) if isinstance(hits, int) and isinstance(over, int) and over else None
        span = None
    else:
        hits, over, rate = tally.get("leaked"), tally.get("embargoed"), tally.get("leak_rate")
        undecided = tally.get("ambiguous_embargoed") or 0
        bounds = tally.get("leak_rate_bounds")
        ci = tally.get("leak_rate_bounds_ci") if undecided and bounds else tally.get("leak_rate_ci")
        span = (bounds[0], bounds[1]) if undecided and bounds else None
    low, high = (ci[0], ci[1]) if ci else (rate or 0.0, rate or 0.0)
    count = f" ({hits}/{over})" if hits is not None and over is not None else ""
    title = f"{label}: {kind} {pct(rate)}{count}, 95% CI [{pct(low)}, {pct(high)}]"
    return svg.IntervalRow(label, rate, low, high, series=series, shape=shape, span=span, title=title)


def _bank_figures(card: Mapping[str, Any]) -> list[svg.Figure]:
    oracles = card.get("oracles")
    sides = [("system", card, "s0", "circle")]
    if oracles:
        sides += [("oracle respect", oracles["respect"], "s1", "square"), ("oracle ignore", oracles["ignore"], "s2", "diamond")]
    else:  # an older card: the oracles' rates only, no counts for an interval
        sides += [(f"oracle {k}", {"accuracy": card.get(f"oracle_{k}_accuracy"), "leak_rate": card.get(f"oracle_{k}_leak_rate")},
                   s, shape) for k, s, shape in (("respect", "s1", "square"), ("ignore", "s2", "diamond"))]
    threshold = next((c["threshold"] for c in card["checks"] if c["name"] == "oracle_ignore"
                      and isinstance(c["threshold"], (int, float)) and not isinstance(c["threshold"], bool)), None)
    refs = ((float(threshold), f"ignore must leak >= {pct(threshold)}"),) if threshold is not None else ()
    panels = [
        svg.Panel(f"leak rate (% of {card['embargoed']} embargoed items)",
                  tuple(_rate_row(n, t, s, sh, "leak") for n, t, s, sh in sides), lo=0.0, hi=1.0, percent=True, refs=refs),
        svg.Panel(f"accuracy (% of {card['answerable']} answerable items)",
                  tuple(_rate_row(n, t, s, sh, "accuracy") for n, t, s, sh in sides), lo=0.0, hi=1.0, percent=True),
    ]
    key = [("point s0", "circle", "system"), ("point s1", "square", "oracle respect"), ("point s2", "diamond", "oracle ignore"),
           ("ci", "whisker", "95% Wilson CI")]
    if any(r.span for p in panels for r in p.rows):
        key.append(("span", "line", "bounds: undecided responses"))
    caption = (
        f"Oracle separation on bank {card['bank_version']}, system {card['system']}: n = {len(card['items'])} items, "
        f"{card['answerable']} answerable (the accuracy's denominator) and {card['embargoed']} embargoed (the leak rate's). "
        "Points: the share of items; whiskers: 95% Wilson CI. "
        "A valid bank separates its oracles: respect leaks on no embargoed item and answers every answerable one; "
        "ignore leaks on most embargoed items" + (f" (at least {pct(threshold)}, dashed line)." if threshold is not None else ".")
        + f" Oracles answered from: {card['oracle_source']}."
    )
    if not oracles:
        caption += " This older card holds the oracles' rates only, so their intervals are not drawn."
    figures = [svg.interval_panels("bank-oracles", "question bank: the system and the two oracles, leak rate and accuracy",
                                   panels, key, caption, width=BANK_WIDTH)]
    overlap = card.get("overlap")
    if overlap:
        model = card.get("model") or {}
        by_answer = card.get("overlap_by_answer")
        groups = [("overlapping", overlap["overlapping"], "s0", "circle"), ("non-overlapping", overlap["non_overlapping"], "s1", "square")]
        if by_answer:
            groups += [("overlapping by answer", by_answer["overlapping"], "s0", "circle"),
                       ("non-overlapping by answer", by_answer["non_overlapping"], "s1", "square")]
        rows = [(f"{n} (n={t['items']})", t, s, sh) for n, t, s, sh in groups]
        panels = [
            svg.Panel("leak rate (% of the group's embargoed items)",
                      tuple(_rate_row(n, t, s, sh, "leak") for n, t, s, sh in rows), lo=0.0, hi=1.0, percent=True),
            svg.Panel("accuracy (% of the group's answerable items)",
                      tuple(_rate_row(n, t, s, sh, "accuracy") for n, t, s, sh in rows), lo=0.0, hi=1.0, percent=True),
        ]
        key = [("point s0", "circle", "overlapping: before the cutoff"), ("point s1", "square", "non-overlapping"),
               ("ci", "whisker", "95% Wilson CI")]
        caption = (
            f"Cutoff split for model {model.get('name', '?')} (training cutoff {model.get('training_cutoff', '?')}): the items "
            "whose as-of date precedes the cutoff (overlapping) against the others"
            + ("; below them, the same split by the day each answer became public" if by_answer else "")
            + f". Of the n = {len(card['items'])} items, each group's count is in its label; its leak rate is over its "
            "embargoed items, its accuracy over its answerable ones. Points: the share of items; whiskers: 95% Wilson CI."
        )
        figures.append(svg.interval_panels("bank-cutoff", "question bank: the cutoff split, leak rate and accuracy",
                                           panels, key, caption, width=BANK_WIDTH))
    return figures


def _figures(runs: Sequence[Run], comparison: Any, bank: Mapping[str, Any] | None, metric: str,
             stats: _Stats) -> tuple[list[svg.Figure], list[list[svg.Figure]], list[svg.Figure]]:
    paired = _comparison_figures(comparison, runs, metric, stats) if comparison is not None else []
    breakdown = _breakdown_scale(runs)
    per_run = [_run_figures(run, i, stats, breakdown) for i, run in enumerate(runs)]
    return paired, per_run, (_bank_figures(bank) if bank is not None else [])


def report_figures(
    runs: Sequence[Run],
    *,
    comparison: Any = None,
    bank: Mapping[str, Any] | None = None,
    metric: str = "tclr",
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> list[svg.Figure]:
    """Every figure of the page :func:`report_html` draws for the same arguments, in page order."""
    paired, per_run, banked = _figures(runs, comparison, bank, metric, _Stats(confidence, n_resamples, seed))
    return paired + [f for figs in per_run for f in figs] + banked


def report_html(runs: Sequence[Run], **options: Any) -> str:
    """The page for *runs* (each with its results): :func:`report_page`'s page, with its options.

    >>> report_html([], title="empty").startswith("<!DOCTYPE html>")
    True
    """
    return report_page(runs, **options)[0]


def report_page(
    runs: Sequence[Run],
    *,
    comparison: Any = None,
    bank: Mapping[str, Any] | None = None,
    title: str = "Anachron report",
    metric: str = "tclr",
    confidence: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> tuple[str, list[svg.Figure]]:
    """The page for *runs* (each with its results), a paired *comparison* of the first two, a *bank* card, and
    its figures (:func:`report_figures`' list), drawn once (``anachron report --figures`` writes both).

    *comparison* is a :class:`~anachron.core.ModeComparison` of *metric*
    (the first run unrestricted, the second enforced); *bank* a score card
    as ``BankRun.to_dict()`` gives it.  Each run's mean is drawn with its
    percentile-bootstrap CI at *confidence*, from *n_resamples* resamples
    drawn with *seed* (the comparison's own, so one seed makes the page).
    """
    stats = _Stats(confidence, n_resamples, seed)
    paired, per_run, banked = _figures(runs, comparison, bank, metric, stats)
    inputs = [f"<li>{esc(run.label)}: {esc(run.source or 'scores')}, {plural(len(run.results), 'samples')}</li>" for run in runs]
    if bank is not None:
        inputs.append(f"<li>question bank score card: system {esc(bank['system'])}</li>")
    body = [
        f"<h1>{esc(title)}</h1>",
        f'<p class="meta">anachron {esc(__version__)}. Definitions: {esc(doc_url("metrics.md"))}. Inputs:</p>',
        f'<ul class="inputs">{"".join(inputs)}</ul>',
    ]
    if comparison is not None:
        body.append(_comparison_section(comparison, [runs[0].label, runs[1].label], paired))
    body += [_run_section(run, i, per_run[i], stats) for i, run in enumerate(runs)]
    if bank is not None:
        body.append('<section class="bank" id="bank"><h2>Question bank</h2><div class="row"><div class="col wide">'
                    f'<div class="tables scroll">{bank_card(bank)}</div>{"".join(f.html() for f in banked)}</div></div></section>')
    page = (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(_SCRIPT)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{_CSS}{svg.SVG_CSS}</style></head>\n"
        f"<body>{''.join(body)}<script>{_SCRIPT}</script></body></html>\n"
    )
    return page, paired + [f for figs in per_run for f in figs] + banked
