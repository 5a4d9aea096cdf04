"""``anachron outcomes PREDICTIONS... RESOLUTIONS``: forecast scores with the leak split (docs/outcomes.md).

OUTCOME MATERIAL (reads resolutions): never imported by a serving path.
Thin over :mod:`anachron.forecasts.report` (the report) and :mod:`anachron.forecasts.table` (its text).
"""

from __future__ import annotations

import argparse
import os
import sys

from anachron.core.errors import AnachronError
from anachron.core.jsonio import dump_json
from anachron.core.atomic import staged_output, write_files_atomic
from anachron.core.stats.paired import check_options
from anachron.cli.options import (
    add_format_option, add_out_option, add_quiet_option, examples, progress, refuse_output_input,
)

_FLAGS = {"confidence": "--confidence", "n_resamples": "--resamples", "seed": "--seed", "ci_method": "--ci-method"}


from anachron.core.docs import doc_url


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "outcomes",
        help="score forecasts (Brier, log loss, skill, calibration) with the leak split and model badges",
        description="Score forecasts against resolutions: Brier, log loss (clipped at 1e-6) and Brier skill, each "
        "with a seeded bootstrap CI, the reliability table with Wilson intervals (drawn with --html and --figures), and the difficulty-adjusted Brier; with "
        "--scores, the score over clean and leaked samples and the leak inflation; with --model-cutoffs, the "
        "pre-event / web-locked badge.  Forecast files: a ForecastBench forecast set, or JSON Lines of "
        f"{{sample_id, probability | probabilities | answer}} ({doc_url('outcomes.md')}).",
    )
    parser.add_argument("predictions", nargs="+", metavar="PREDICTIONS",
                        help="forecast file(s), one or more models each")
    parser.add_argument("resolutions", metavar="RESOLUTIONS",
                        help="resolutions: a ForecastBench resolution set or JSON Lines of {sample_id, resolved_to}")
    parser.add_argument("--scores", action="append", default=[], metavar="[MODEL=]SCORE.json",
                        help="leakage scores of the same samples (`anachron score --format json`); MODEL= binds "
                        "them to one model (repeatable); without it they apply to every model")
    parser.add_argument("--model-cutoffs", metavar="FILE",
                        help="model cutoff table (JSON or CSV, as `anachron bank run` reads): the badge")
    parser.add_argument("--baseline", default="0.5", metavar="0.5|base-rate|FILE",
                        help="the Brier skill score's reference: 0.5 (uniform), the base rate, or a forecast file "
                        "(a market or community forecast) (default: 0.5)")
    add_format_option(parser)
    parser.add_argument("--html", metavar="OUT.html", help="also write the HTML report (reliability diagrams, leak split)")
    parser.add_argument("--figures", metavar="DIR", help="also write each figure of the HTML report as a standalone SVG "
                        "file (light theme, prints in grey, its caption drawn below) into DIR, with figures.json listing "
                        "them; the set is written atomically. DIR must be new, empty, or a set this option wrote")
    add_out_option(parser)
    parser.add_argument("--confidence", type=float, default=0.95, metavar="C", help="CI level, in (0, 1) (default: 0.95)")
    parser.add_argument("--resamples", type=int, default=2000, metavar="B", help="bootstrap resamples (default: 2000)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed of the bootstrap (default: 0)")
    add_quiet_option(parser)
    parser.epilog = examples(
        'anachron outcomes examples/outcomes/model-x.enforced.jsonl examples/outcomes/resolutions.jsonl --model-cutoffs examples/outcomes/model-cutoffs.json',
        'anachron outcomes examples/outcomes/model-x.unrestricted.jsonl examples/outcomes/model-y.enforced.jsonl examples/outcomes/resolutions.jsonl --html outcomes.html',
    )
    parser.set_defaults(func=run, output_options=("out", "html", "figures"), directory_outputs=("figures",))


def _scores(values: list[str]) -> dict[str | None, str]:
    out: dict[str | None, str] = {}
    for value in values:
        model, sep, path = value.partition("=")
        key: str | None = model if sep and model else None
        path = path if sep and model else value
        if key in out:
            raise AnachronError(f"--scores given twice for {'every model' if key is None else repr(key)}")
        out[key] = path
    if None in out and len(out) > 1:
        raise AnachronError("--scores: give either one file for every model or MODEL=FILE for each, not both")
    return out


def run(args: argparse.Namespace) -> int:
    from anachron.forecasts.report import build_report
    from anachron.forecasts.table import render_table

    check_options(args.confidence, args.resamples, args.seed, names=_FLAGS)
    scores = _scores(args.scores)
    # MODEL=FILE hides the file from the generic check (the value is no path): check the paths themselves.
    refuse_output_input(argparse.Namespace(**{**vars(args), "scores": sorted(scores.values())}), ("out", "html", "figures"))
    if args.out is not None and args.html is not None and os.path.realpath(args.out) == os.path.realpath(args.html):
        raise AnachronError(f"--out and --html both name {args.out}: choose two paths")
    cutoffs = None
    if args.model_cutoffs is not None:
        from anachron.bank.cutoffs import load_model_cutoffs

        cutoffs = load_model_cutoffs(args.model_cutoffs)
    with progress(args, "steps") as shown:
        report = build_report(
            args.predictions, args.resolutions, scores=scores, cutoffs=cutoffs, baseline=args.baseline,
            n_resamples=args.resamples, seed=args.seed, confidence=args.confidence, progress=shown.step,
        )
    text = dump_json(report) if args.format == "json" else render_table(report) + "\n"
    html = figures = None
    if args.figures is not None:
        from anachron.output.html.forecasts import outcomes_page

        html, figures = outcomes_page(report)
    elif args.html is not None:
        from anachron.output.html.forecasts import outcomes_html

        html = outcomes_html(report)
    files = {**({args.html: html} if args.html is not None else {}), **({args.out: text} if args.out is not None else {})}
    if figures is not None:
        from anachron.output.figure_files import write_figure_set

        write_figure_set(args.figures, figures, files)  # one set with the page and --out
    elif files:
        # One set: a directory in the way of either leaves both untouched.
        write_files_atomic(files)
    if args.out is None:
        with staged_output(None) as stream:
            stream.write(text)
        sys.stdout.flush()
    return 0
