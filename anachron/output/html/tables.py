"""HTML fragments for results: the tables of the report and of notebook displays.

Every figure is shown with its denominator (the count it is a share of, or
the count it was counted over), so a reader can check it.  Text goes
through :func:`~anachron.output.html._text.esc`.
"""

from __future__ import annotations

import html
from typing import Any, Mapping, Sequence

from anachron.core.leakage import FAILED_STATUSES, RunSummary, SampleResult
from anachron.output.text_table import completeness_line, seal_line
from anachron.output.html._text import esc, num, pct

__all__ = ["bank_card", "bank_run_card", "comparison_card", "comparison_table", "sample_card", "sample_table", "summary_rows", "summary_table"]


_SHORT = 24  # characters: a longer value (a verdict, a warning) is prose, and wraps instead of widening the table


def _row(label: str, value: str, over: str) -> str:
    """One figure's row; prose with nothing to be over (a warning) spans the "over" column too,
    so it wraps in the table's width instead of in one narrow column."""
    if len(str(value)) > _SHORT and not over:
        return f'<tr><th scope="row">{esc(label)}</th><td class="prose" colspan="2">{esc(value)}</td></tr>'
    return (f'<tr><th scope="row">{esc(label)}</th><td class="{"num" if len(str(value)) <= _SHORT else "prose"}">'
            f'{esc(value)}</td><td class="den">{esc(over)}</td></tr>')


def _table(rows: Sequence[tuple[str, str, str]], caption: str, klass: str) -> str:
    body = "".join(_row(a, b, c) for a, b, c in rows)
    return (
        f'<table class="{klass}"><caption>{esc(caption)}</caption>'
        f"<thead><tr><th>figure</th><th>value</th><th>over</th></tr></thead><tbody>{body}</tbody></table>"
    )


def _seal_value(r: SampleResult) -> str:
    """A sample's seal figure: its breaches with its status (``2 (breached)``), or the status alone."""
    if r.seal_status is None:
        return "not audited"
    return r.seal_status if r.seal_breaches is None else f"{r.seal_breaches} ({r.seal_status})"


def summary_rows(summary: RunSummary, results: Sequence[SampleResult] | None = None) -> list[tuple[str, str, str]]:
    """``(figure, value, denominator)`` for each figure of a run.

    With the *results*, leak counts are shown over the interactions (the
    ``ok`` calls), survivorship over the entity-bearing ones, query intent
    and failed calls over every call, blocked attempts over the refused
    calls; the band appears when some interaction was undated.
    """
    n = summary.n
    interactions = calls = entity = refused = items = None
    if results is not None:
        interactions = sum(r.interactions for r in results)
        calls = sum(r.calls for r in results)
        entity = sum(r.survivorship_base for r in results)
        refused = sum(r.failed_calls.get("refused", 0) for r in results)
        items = sum(len(r.horizons) for r in results)

    def over(count: int | None, what: str) -> str:
        return what if count is None else plural(count, what)

    incomplete = completeness_line(summary)
    rows = [
        # An incomplete log first, then the seal verdict: neither a run with a breach nor one whose
        # results are missing is ever shown as a clean value.
        *([("completeness", incomplete, plural(summary.calls, "calls"))] if incomplete is not None else []),
        # The verdict only where an audit could apply, as above the CLI's table (output.text_table.head_lines).
        *([("seal audit", seal_line(summary), plural(n, "samples"))]
          if summary.seal_status is not None or summary.seal_relevant_runs else []),
        ("samples", str(n), ""),
        ("mean TCLR", num(summary.mean_tclr), plural(n, "samples")),
    ]
    if summary.undated or summary.unrecorded:
        rows.append(("mean TCLR band", f"[{num(summary.mean_tclr)}, {num(summary.mean_tclr_high)}]",
                     f"{plural(n, 'samples')}; at the top, {_band_top(summary.undated, summary.unrecorded)} "
                     "counted as leaking"))
    failed_total = sum(summary.failed_calls.values())
    split = ", ".join(f"{s} {summary.failed_calls.get(s, 0)}" for s in FAILED_STATUSES if summary.failed_calls.get(s, 0))
    rows += [
        ("date-leak runs", str(summary.date_leak_runs), plural(n, "samples")),
        ("tool-using runs", str(summary.tool_using_runs), plural(n, "samples")),
        ("TCLR over tool-using runs", num(summary.tool_using_mean_tclr), plural(summary.tool_using_runs, "tool-using runs")),
        ("result leaks", str(summary.result_leaks), over(interactions, "interactions")),
        ("survivorship leaks", str(summary.survivorship_leaks), over(entity, "entity-bearing interactions")),
        ("survivorship: not yet listed", str(summary.not_yet_listed), "future information"),
        ("survivorship: already delisted", str(summary.already_delisted), "a stale universe"),
        ("restatement leaks", str(summary.restatement_leaks), over(interactions, "interactions")),
        ("query-intent leaks", str(summary.query_intent_leaks), over(calls, "calls")),
        ("open-period queries", str(summary.open_period_queries), over(calls, "calls")),
        ("content leaks", str(summary.content_leaks), over(interactions, "interactions")),
        ("date conflicts", str(summary.date_conflicts), over(interactions, "interactions")),
        ("revision risks", str(summary.revision_risks), over(interactions, "interactions")),
        ("undated interactions", str(summary.undated), over(interactions, "interactions")),
        ("blocked attempts", str(summary.blocked_attempts), over(refused, "refused calls")),
        ("failed calls", f"{failed_total}" + (f" ({split})" if split else ""), over(calls, "calls")),
    ]
    if summary.unrecorded:
        rows.append(("unrecorded calls", str(summary.unrecorded), plural(summary.calls, "calls")))
    if summary.answered_runs:
        rows += [
            ("answer leaks retrieved", str(summary.answer_leaks_retrieved), "post-T facts stated, in total"),
            ("answer leaks parametric", str(summary.answer_leaks_parametric), "post-T facts stated, in total"),
            ("runs with an answer leak", str(summary.answer_leak_runs), plural(summary.answered_runs, "answered runs")),
        ]
    h = summary.horizon
    if h.max is not None:
        rows.append(("leak horizon median / max", f"{h.median:g} / {h.max} days", over(items, "post-T items")))
        rows += [(f"within {days} days", str(count), over(items, "post-T items")) for days, count in h.within.items()]
        rows.append(("beyond 366 days", str(h.beyond), over(items, "post-T items")))
    rows += [("warning", warning, "") for warning in summary.warnings]
    return rows


def _band_top(undated: int, unrecorded: int) -> str:
    """What the top of a TCLR band counts as leaking: ``2 undated interactions and 1 unrecorded call``."""
    parts = [plural(undated, "undated interactions")] if undated else []
    parts += [plural(unrecorded, "unrecorded calls")] if unrecorded else []
    return " and ".join(parts)


def plural(count: int, words: str) -> str:
    """``3 calls``, ``1 call``: *words* is written in the plural (its last word ending in s)."""
    return f"{count} {words[:-1] if count == 1 and words.endswith('s') else words}"


def summary_table(summary: RunSummary, results: Sequence[SampleResult] | None = None, caption: str = "Run summary",
                  *, mean_ci: tuple[str, str, str] | None = None) -> str:
    """The run's figures; *mean_ci* ``(level, value, over)``, when given, is the mean TCLR's CI, shown under the mean."""
    rows = summary_rows(summary, results)
    if mean_ci is not None:
        at = next(i for i, row in enumerate(rows) if row[0] == "mean TCLR") + 1
        rows.insert(at, (f"mean TCLR {mean_ci[0]} CI", mean_ci[1], mean_ci[2]))
    return _table(rows, caption, "summary")


_SAMPLE_HEAD = (
    ("sample", "text"), ("as of", "text"), ("TCLR", "num"), ("band high", "num"), ("ok calls", "num"),
    ("result leaks", "num"), ("undated", "num"), ("unrecorded", "num"), ("surv.", "num"), ("restated", "num"), ("query", "num"),
    ("open", "num"), ("content", "num"), ("conflicts", "num"), ("blocked", "num"), ("failed", "num"), ("seal", "num"), ("horizon", "num"),
    ("evidence", "num"),
)


_FLAT = ("TCLR", "evidence")  # headers written across: their cells are wide anyway


def _evidence(lines: Sequence[str]) -> str:
    if not lines:
        return '<span class="none">none</span>'
    items = "".join(f"<li><code>{esc(line)}</code></li>" for line in lines)
    return f"<details><summary>{len(lines)} line{'s' if len(lines) != 1 else ''}</summary><ul>{items}</ul></details>"


def _cell(value: Any, sort: Any, klass: str = "num") -> str:
    return f'<td class="{klass}" data-sort="{esc(sort)}">{esc(value)}</td>'


def sample_table(results: Sequence[SampleResult], *, sortable: bool = True, table_id: str | None = None) -> str:
    """One row per sample, its evidence lines folded in the last cell; headers sort when *sortable*."""
    focus = ' tabindex="0"' if sortable else ""
    # The seal column only where an audit ran: on a plain trace it would be a column of "-" (as the seal line is left out).
    audited = any(r.seal_breaches is not None for r in results)
    # The count columns' names run upwards, so each column is as narrow as its numbers and the evidence has the room.
    head = "".join(
        f'<th data-type="{kind}"{focus} class="v"><span>{esc(name)}</span></th>' if kind == "num" and name not in _FLAT
        else f'<th data-type="{kind}"{focus}>{esc(name)}</th>'
        for name, kind in _SAMPLE_HEAD if audited or name != "seal"
    )
    rows = []
    for r in results:
        high = float(r.tclr_high_exact)
        failed = sum(r.failed_calls.values())
        horizon = r.horizon_days
        rows.append(
            "<tr>"
            + _cell(r.sample_id, r.sample_id, "text id")
            + _cell(r.as_of.isoformat(), r.as_of.isoformat(), "text")
            + _cell(f"{r.tclr:.3f} ({r.result_leaks}/{r.tclr_base})", repr(r.tclr))
            + _cell(f"{high:.3f}", repr(high))
            + "".join(
                _cell(v, v)
                for v in (r.interactions, r.result_leaks, r.undated, r.unrecorded, r.survivorship_leaks, r.restatement_leaks,
                          r.query_intent_leaks, r.open_period_queries, r.content_leaks, r.date_conflicts, r.blocked_attempts, failed)
            )
            + ("" if not audited else _cell("-", -1) if r.seal_breaches is None else _cell(r.seal_breaches, r.seal_breaches))
            + _cell("" if horizon is None else f"{horizon} d", -1 if horizon is None else horizon)
            + f'<td class="text evidence" data-sort="{len(r.evidence)}">{_evidence(r.evidence)}</td>'
            + "</tr>"
        )
    klass = "samples sortable" if sortable else "samples"
    ident = f' id="{esc(table_id)}"' if table_id else ""
    return f'<table class="{klass}"{ident}><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def sample_card(result: SampleResult) -> str:
    """One sample: its figures with their denominators, and its evidence lines."""
    r = result
    failed = sum(r.failed_calls.values())
    split = ", ".join(f"{s} {n}" for s, n in r.failed_calls.items() if n)
    rows = [
        ("as of", r.as_of.isoformat(), ""),
        ("mode", r.mode or "n/a", ""),
        ("TCLR", f"{r.tclr:.3f}", f"{r.result_leaks} of {r.tclr_base} interactions leaked"
                                  + (" (unrecorded calls counted clean)" if r.unrecorded else "")),
    ]
    if r.undated or r.unrecorded:
        rows.append(("TCLR band", f"[{r.tclr:.3f}, {float(r.tclr_high_exact):.3f}]", f"{r.undated} undated interactions"
                     + (f" and {plural(r.unrecorded, 'unrecorded calls')}" if r.unrecorded else "")))
    rows += [
        ("survivorship leaks", str(r.survivorship_leaks), f"{r.survivorship_base} entity-bearing interactions"),
        ("restatement leaks", str(r.restatement_leaks), f"{r.interactions} interactions"),
        ("query-intent leaks", str(r.query_intent_leaks), f"{r.calls} calls"),
        ("open-period queries", str(r.open_period_queries), f"{r.calls} calls"),
        ("content leaks", str(r.content_leaks), f"{r.interactions} interactions"),
        ("date conflicts", str(r.date_conflicts), f"{r.interactions} interactions"),
        ("revision risks", str(r.revision_risks), f"{r.interactions} interactions"),
        ("blocked attempts", str(r.blocked_attempts), f"{r.failed_calls.get('refused', 0)} refused calls"),
        ("failed calls", f"{failed}" + (f" ({split})" if split else ""), f"{r.calls} calls"),
        ("seal breaches", _seal_value(r), f"{r.calls} calls"),
        ("leak horizon", "n/a" if r.horizon_days is None else f"{r.horizon_days} days", f"{len(r.horizons)} post-T items"),
    ]
    if r.answered:
        rows += [
            ("answer leaks retrieved", str(r.answer_leaks_retrieved), "post-T facts the answer states that a tool showed"),
            ("answer leaks parametric", str(r.answer_leaks_parametric), "post-T facts no tool showed"),
        ]
    if r.unrecorded:
        rows.append(("unrecorded calls", str(r.unrecorded), f"{r.calls} calls"))
    rows += [("warning", warning, "") for warning in r.warnings]
    return (
        f'<div class="anachron-sample">{_table(rows, f"Sample {r.sample_id}", "summary")}'
        f'<div class="evidence">evidence: {_evidence(r.evidence)}</div></div>'
    )


def comparison_table(comparison: Any, caption: str = "Paired comparison") -> str:
    """The comparison's figures, with the metric, the seed and the resamples that made them."""
    c = comparison
    name = "TCLR" if c.metric == "tclr" else c.metric
    relative = "n/a (unrestricted mean is 0)" if c.relative_reduction is None else pct(c.relative_reduction)
    rows = [
        ("metric", c.metric, ""),
        (f"unrestricted mean {name}", num(c.unrestricted_mean), f"{c.n} samples"),
        (f"enforced mean {name}", num(c.enforced_mean), f"{c.n} samples"),
        ("mean reduction", f"{c.mean_reduction + 0.0:+.3f}", f"{c.n} pairs"),
        (f"{c.confidence * 100:.10g}% {'paired' if c.ci_method == 'percentile' else 'BCa'} bootstrap CI",
         f"[{c.ci_low + 0.0:+.3f}, {c.ci_high + 0.0:+.3f}]",
         f"{c.n_resamples} resamples, seed {c.seed} ({c.resampling})"),
        ("relative reduction", relative, "of the unrestricted mean"),
        ("relative reduction CI", "n/a" if c.relative_ci_low is None else f"[{pct(c.relative_ci_low)}, {pct(c.relative_ci_high)}]",
         f"{c.n_resamples} resamples"),
        ("improved / worsened / tied", f"{c.improved} / {c.worsened} / {c.tied}", f"{c.n} pairs"),
        ("exact sign-test p", _p(c), f"{c.improved + c.worsened} untied pairs"),
    ]
    rows += [("warning", warning, "") for warning in c.warnings]
    return _table(rows, f"{caption} (n={c.n})", "summary comparison")


def _p(c: Any) -> str:
    # The comparison's own rendering of p (exact, even below a double).
    line = next(line for line in c.table().splitlines() if "exact sign-test p" in line)
    return line.split("exact sign-test p", 1)[1].strip()


def _tally_cells(t: Mapping[str, Any]) -> tuple[str, str]:
    """Accuracy and leak-rate cells; with undecided embargoed responses the leak rate is its bounds."""
    accuracy = f"{t['correct']}/{t['answerable']} {pct(t['accuracy'])}"
    undecided = t.get("ambiguous_embargoed") or 0
    bounds, bounds_ci = t.get("leak_rate_bounds"), t.get("leak_rate_bounds_ci")
    if undecided and bounds:
        interval = f" [{pct(bounds_ci[0])}, {pct(bounds_ci[1])}]" if bounds_ci else ""
        return accuracy, (f"{t['leaked']}\u2013{t['leaked'] + undecided}/{t['embargoed']} ({undecided} undecided) "
                          f"{pct(bounds[0])}\u2013{pct(bounds[1])}{interval}")
    ci = t.get("leak_rate_ci")
    interval = f" [{pct(ci[0])}, {pct(ci[1])}]" if ci else ""
    return accuracy, f"{t['leaked']}/{t['embargoed']} {pct(t['leak_rate'])}{interval}"


def bank_card(card: Mapping[str, Any], oracles: Mapping[str, Mapping[str, Any]] | None = None) -> str:
    """A bank score card (``BankRun.to_dict()``): rates, the four checks, the oracles' source, the cutoff split.

    *oracles* (``{"respect": tally, "ignore": tally}``) gives the oracles'
    columns; by default the card's own ``oracles`` key.  An older card read
    from JSON without it carries only the oracles' rates, shown instead.
    The card's ``oracle_source`` and ``validity`` are shown as they are: an
    older card without them is completed first by
    :func:`anachron.bank.run.complete_card` (``anachron report`` does), since
    the bank's rules are outcome material, which this package never imports.
    """
    oracles = oracles or card.get("oracles")
    # The CLI's order: the system, then oracle respect, then oracle ignore (a card read from JSON may hold them
    # in any order); its rows likewise.
    sides = [oracles[k] for k in ("respect", "ignore")] if oracles else []
    accuracy, leak = _tally_cells(card)
    head = "<tr><th></th><th>system</th><th>oracle respect</th><th>oracle ignore</th></tr>"
    if sides:
        cells = [_tally_cells(t) for t in sides]
        acc_o = "".join(f'<td class="num">{esc(c[0])}</td>' for c in cells)
        leak_o = "".join(f'<td class="num">{esc(c[1])}</td>' for c in cells)
        amb_o = "".join(f'<td class="num">{esc(t.get("ambiguous", 0))} ({esc(t.get("ambiguous_embargoed", 0))})</td>' for t in sides)
        leaked_o = "".join(f'<td class="num">{esc(t.get("leaked_answerable", "n/a"))}</td>' for t in sides)
        refused_o = "".join(f'<td class="num">{esc(t.get("refused", "n/a"))}</td>' for t in sides)
    else:
        acc_o = "".join(f'<td class="num">{esc(pct(card[f"oracle_{k}_accuracy"]))}</td>' for k in ("respect", "ignore"))
        leak_o = "".join(f'<td class="num">{esc(pct(card[f"oracle_{k}_leak_rate"]))}</td>' for k in ("respect", "ignore"))
        amb_o = leaked_o = refused_o = '<td class="num">n/a</td>' * 2
    rates = (
        f'<table class="bank"><caption>Question bank: system {esc(card["system"])}, bank {esc(card["bank_version"])}'
        f'</caption><thead>{head}</thead><tbody>'
        f'<tr><th scope="row">accuracy (over answerable)</th><td class="num">{esc(accuracy)}</td>{acc_o}</tr>'
        f'<tr><th scope="row">leak rate (over embargoed, 95% Wilson CI)</th><td class="num">{esc(leak)}</td>{leak_o}</tr>'
        f'<tr><th scope="row">leaked answerable</th><td class="num">{esc(card["leaked_answerable"])}</td>{leaked_o}</tr>'
        f'<tr><th scope="row">refused</th><td class="num">{esc(card["refused"])}</td>{refused_o}</tr>'
        f'<tr><th scope="row">ambiguous (embargoed)</th><td class="num">{esc(card.get("ambiguous", 0))} '
        f'({esc(card.get("ambiguous_embargoed", 0))})</td>{amb_o}</tr>'
        f'<tr><th scope="row">hindsight accuracy</th><td class="num">{esc(pct(card.get("hindsight_accuracy")))}</td>'
        '<td colspan="2" class="den">scored against today\'s values: not a leak-aware score</td></tr>'
        "</tbody></table>"
    )
    checks = "".join(
        f'<tr class="{"pass" if c["passed"] else "fail"}"><td>{"PASS" if c["passed"] else "FAIL"}</td>'
        f'<th scope="row">{esc(c["name"])}</th><td class="val">{esc(_show(c["value"]))}</td>'
        f'<td class="val">{esc(_show(c["threshold"]))}</td><td>{esc(c["rule"])}</td></tr>'
        for c in card["checks"]
    )
    source, verdict = card["oracle_source"], card["validity"]
    parts = [
        rates,
        f'<table class="checks"><caption>Time-gate checks (oracles answered from: {esc(source)})</caption><thead><tr><th></th><th>check</th><th>value</th>'
        f"<th>threshold</th><th>rule</th></tr></thead><tbody>{checks}</tbody></table>",
        f'<p class="verdict {_verdict_class(card)}">{esc(verdict)}</p>',
    ]
    overlap = card.get("overlap")
    if overlap:
        model = card.get("model") or {}
        by_answer = card.get("overlap_by_answer")
        rows = "".join(
            f'<tr><th scope="row">{esc(label)}</th><td class="num">{esc(t["items"])}</td>'
            f'<td class="num">{esc(_tally_cells(t)[0])}</td><td class="num">{esc(_tally_cells(t)[1])}</td></tr>'
            for label, t in (("overlapping (as_of < cutoff)", overlap["overlapping"]),
                             ("non-overlapping", overlap["non_overlapping"]),
                             *((("overlapping by answer (public <= cutoff)", by_answer["overlapping"]),
                                ("non-overlapping by answer", by_answer["non_overlapping"])) if by_answer else ()))
        )
        badges = ", ".join(f"{k} {v}" for k, v in (card.get("badges") or {}).items())
        parts.append(
            f'<table class="cutoff"><caption>Cutoff split: model {esc(model.get("name", "?"))}, training cutoff '
            f'{esc(model.get("training_cutoff", "?"))}, released {esc(model.get("release_date", "?"))}</caption>'
            f"<thead><tr><th></th><th>items</th><th>accuracy</th><th>leak rate</th></tr></thead><tbody>{rows}</tbody></table>"
            f'<p class="badges">badges: {esc(badges)}</p>'
        )
    return f'<div class="anachron-bank">{"".join(parts)}</div>'


def _verdict_class(card: Mapping[str, Any]) -> str:
    """``pass`` only for a citable run; a valid run whose data path is untested is a caveat, never green."""
    if not card["valid"]:
        return "fail"
    citable = card.get("citable")
    if citable is None:  # an older card: citable when its oracles ran through a data path
        citable = card.get("oracle_source", "bank history") != "bank history"
    return "pass" if citable else "caveat"


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_show(v)}" for k, v in value.items())
    return "n/a" if value is None else str(value)


def comparison_card(comparison: Any) -> str:
    """A notebook's display of a :class:`~anachron.core.ModeComparison`: its figures, the method, the warnings."""
    rows = "".join(
        f'<tr><th style="text-align:left">{html.escape(label)}</th>'
        f'<td style="text-align:right">{html.escape(value)}</td></tr>'
        for label, _, value in comparison.table_rows() + comparison.method_rows()
    )
    notes = "".join(f"<p>warning: {html.escape(warning)}</p>" for warning in comparison.warnings)
    return f"<table><caption>Paired mode comparison (n={comparison.n})</caption><tbody>{rows}</tbody></table>{notes}"


def bank_run_card(run: Any) -> str:
    """A notebook's display of a :class:`~anachron.bank.run.BankRun`: the score card, the four checks, the cutoff split."""
    return bank_card(run.to_dict(), oracles={"respect": run.respect.to_dict(), "ignore": run.ignore.to_dict()})
