"""The leaderboard of ``anachron outcomes``: the report of :func:`anachron.forecasts.report.build_report` as text.

One block per badge, pre-event models first, each ranked by Brier then
name (:func:`anachron.forecasts.report.ranked`, as the HTML page ranks):
the two badges are never ranked together.  Then per model its badge and
why, its leak split by class and by answer-leak source, and what was not
scored; then the paired comparisons.  A figure is printed to three
decimals (``n/a`` when it is undefined), a CI as ``value [low, high]``,
and an inflation or a difference with its sign.  It decides nothing: every
figure is the report's.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from anachron.bank.cutoffs import BADGES
from anachron.forecasts.report import ranked

__all__ = ["grid", "render_table"]

_SHOWN = 5  # sample ids a note names (no resolution, no probability read); "..." stands for the rest


def _f(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value + 0.0:.{digits}f}"


def _signed(value: float | None) -> str:
    return "n/a" if value is None else f"{value + 0.0:+.3f}"


def _ci(iv: Mapping[str, Any], signed: bool = False) -> str:
    show = _signed if signed else _f
    if iv is None or iv.get("value") is None:
        return "n/a"
    if iv.get("ci_low") is None:
        return show(iv["value"])
    return f"{show(iv['value'])} [{show(iv['ci_low'])}, {show(iv['ci_high'])}]"


def grid(header: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    lines = [indent + "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    lines.append(indent + "  ".join("-" * w for w in widths))
    lines += [indent + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return lines


def render_table(report: Mapping[str, Any]) -> str:
    """The leaderboard, one block per badge (pre-event models first; the two are never ranked together)."""
    level = f"{report['confidence'] * 100:.10g}%"
    out = [
        f"Forecast outcomes: {len(report['models'])} model(s); Brier (lower is better) with {level} bootstrap CIs "
        f"({report['resamples']} resamples, seed {report['seed']}); skill against {report['baseline']}"
    ]
    for badge in BADGES:
        rows = ranked(report, badge)
        if not rows:
            continue
        out += ["", f"[{badge}]"]
        header = ["rank", "model", "n", "Brier [CI]", "adj. Brier", "log loss", "skill"]
        if report["leak_split"]:
            header += ["clean n", "clean Brier", "leaked n", "leaked Brier", "leak inflation [CI]"]
        table = []
        for rank, m in enumerate(rows, start=1):
            row = [str(rank), m["model"], str(m["n"]), _ci(m["brier"]), _f(m["difficulty_adjusted_brier"]),
                   _f(m["log_loss"]["value"]), _f(m["brier_skill"]["value"])]
            if report["leak_split"]:
                split = m["leak_split"]
                row += [str(split["clean"]["n"]), _f(split["clean"]["value"]), str(split["leaked"]["n"]),
                        _f(split["leaked"]["value"]), _ci(split["inflation"], signed=True)]
            table.append(row)
        out += grid(header, table)
    notes = []
    for m in report["models"]:
        notes.append(f"{m['model']}: {m['badge']} ({m['badge_reason']})")
        notes += [f"  warning: {w}" for w in m.get("warnings", [])]
        if report["leak_split"]:
            split = m["leak_split"]
            parts = [f"unverified {split['unverified']['n']} (Brier {_f(split['unverified']['value'])}, never counted clean)"]
            for source, part in split["by_source"].items():
                if not part["brier"]["n"]:
                    continue
                parts.append(f"{source} answer leaks {part['brier']['n']} (Brier {_f(part['brier']['value'])}, "
                             f"inflation {_ci(part['inflation'], signed=True)})")
            notes.append("  " + "; ".join(parts))
            if m.get("unscored_samples", {}).get("n"):
                notes.append(f"  {m['unscored_samples']['n']} sample(s) without leakage scores: counted unverified")
        for key, what in (("missing_resolutions", "forecast(s) without a resolution, not scored"),
                          ("unread_answers", "answer(s) stating no probability, not scored")):
            if m[key]["n"]:
                shown = ", ".join(m[key]["samples"][:_SHOWN]) + (", ..." if m[key]["n"] > _SHOWN else "")
                notes.append(f"  {m[key]['n']} {what}: {shown}")
    out += ["", *notes]
    if report["comparisons"]:
        out += ["", "Paired comparisons (Brier of a minus b over the samples both forecast; compare_modes):"]
        for c in report["comparisons"]:
            if not c["n"]:
                out.append(f"  {c['a']} vs {c['b']}: {c['note']}")
                continue
            mixed = "" if c["badges"][0] == c["badges"][1] else f" ({c['badges'][0]} vs {c['badges'][1]}: not one leaderboard)"
            out.append(
                f"  {c['a']} vs {c['b']} (n={c['n']}): {_signed(c['mean_reduction'])} "
                f"[{_signed(c['ci_low'])}, {_signed(c['ci_high'])}], sign-test p {c['sign_test_p']:.4f}{mixed}"
            )
    if report["unresolved_entries"]:
        out += ["", f"{report['unresolved_entries']} resolution entr(ies) not resolved yet"]
    return "\n".join(out)
