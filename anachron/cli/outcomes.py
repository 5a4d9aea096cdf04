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
                        help="forecast file(s), one or more models each (with --forecastbench: ForecastBench question, "
                        "resolution and forecast sets, or directories of them, any number of rounds)")
    # Optional to argparse so that --forecastbench takes a single directory; without it the last path is required.
    parser.add_argument("resolutions", nargs="?", metavar="RESOLUTIONS",
                        help="resolutions: a ForecastBench resolution set or JSON Lines of {sample_id, resolved_to}")
    parser.add_argument("--scores", action="append", default=[], metavar="[MODEL=]SCORE.json",
                        help="leakage scores of the same samples (`anachron score --format json`); MODEL= binds "
                        "them to one model (repeatable); without it they apply to every model")
    parser.add_argument("--model-cutoffs", metavar="FILE",
                        help="model cutoff table (JSON or CSV, as `anachron bank run` reads): the badge")
    parser.add_argument("--baseline", default="0.5", metavar="0.5|base-rate|FILE",
                        help="the Brier skill score's reference: 0.5 (uniform), the base rate, or a forecast file "
                        "(a market or community forecast) (default: 0.5)")
    add_format_option(parser, extra=("csv",))
    board = parser.add_argument_group("ForecastBench leaderboard (--forecastbench)")
    board.add_argument("--forecastbench", action="store_true",
                       help="read every path as ForecastBench files of one or more rounds and print its leaderboard: a row per "
                       "model and question type (dataset, market) and the overall mean of the two, with the Brier Index")
    board.add_argument("--by", action="append", default=[], choices=("source", "round"),
                       help="also a row per model and question source (or round) (repeatable)")
    board.add_argument("--difficulty-pool", choices=("all", "forecastbench"), default="all",
                       help="the models the question effects are fitted on: all (default) or forecastbench (without its dummy "
                       "baselines, and without models released 365 days or more before a round's due date, per --model-cutoffs)")
    board.add_argument("--difficulty-pool-exclude", action="append", default=[], metavar="MODEL",
                       help="leave MODEL out of the difficulty pool (repeatable)")
    board.add_argument("--difficulty-from", action="append", default=[], metavar="TYPE=FILE",
                       help="take the question effects of TYPE (dataset or market) from FILE, ForecastBench's question "
                       "fixed effects (JSON array or JSON Lines)")
    board.add_argument("--impute", action="store_true",
                       help="fill a missing forecast with 0.5 (flagged) and drop a model's round with more than 5%% filled")
    board.add_argument("--reference", metavar="MODEL",
                       help="also give skill as the Brier difference from MODEL (ForecastBench's BSS vs its Naive Forecaster)")
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


_BOARD_ONLY = (("by", "--by"), ("difficulty_from", "--difficulty-from"), ("difficulty_pool_exclude", "--difficulty-pool-exclude"),
               ("impute", "--impute"), ("reference", "--reference"))


def _difficulty_from(values: list[str]) -> dict[str, dict]:
    from anachron.forecasts.forecastbench import load_question_effects

    out: dict[str, dict] = {}
    for value in values:
        qtype, sep, path = value.partition("=")
        if not sep or qtype not in ("dataset", "market") or not path:
            raise AnachronError(f"--difficulty-from {value!r}: expected dataset=FILE or market=FILE")
        if qtype in out:
            raise AnachronError(f"--difficulty-from given twice for {qtype}")
        effects = load_question_effects(path).get(qtype)
        if not effects:
            raise AnachronError(f"{path}: no {qtype} question effect")
        out[qtype] = effects
    return out


def _leaderboard(args: argparse.Namespace, scores: dict[str | None, str], cutoffs) -> str:
    from anachron.forecasts.forecastbench import load_rounds
    from anachron.forecasts.leaderboard import CSV_COLUMNS, build_leaderboard, csv_records, render_leaderboard
    from anachron.forecasts.reading import load_scores

    if args.html is not None or args.figures is not None:
        raise AnachronError("--html and --figures draw the single-run report: not with --forecastbench")
    if args.baseline != "0.5":
        raise AnachronError("--baseline is the single-run report's: with --forecastbench give --reference MODEL")
    paths = args.predictions + ([args.resolutions] if args.resolutions is not None else [])
    external = _difficulty_from(args.difficulty_from)
    rounds = load_rounds(paths)
    tables = {key: load_scores(path) for key, path in scores.items()} if scores else None
    with progress(args, "steps") as shown:
        report = build_leaderboard(
            rounds, by=list(dict.fromkeys(args.by)), pool_exclude=args.difficulty_pool_exclude,
            pool_preset=args.difficulty_pool == "forecastbench", cutoffs=cutoffs, external=external, impute=args.impute,
            reference=args.reference, scores=tables, n_resamples=args.resamples, seed=args.seed,
            confidence=args.confidence, progress=shown.step,
        )
    if args.format == "json":
        return dump_json(report)
    if args.format == "csv":
        from anachron.output.records import csv_text

        return csv_text(csv_records(report), CSV_COLUMNS)
    return render_leaderboard(report) + "\n"


def run(args: argparse.Namespace) -> int:
    from anachron.forecasts.report import build_report
    from anachron.forecasts.table import render_table

    check_options(args.confidence, args.resamples, args.seed, names=_FLAGS)
    if not args.forecastbench and args.resolutions is None and len(args.predictions) > 1:
        # argparse gives every path to PREDICTIONS (RESOLUTIONS is optional for --forecastbench): the last is RESOLUTIONS.
        args.resolutions = args.predictions.pop()
    scores = _scores(args.scores)
    # MODEL=FILE hides the file from the generic check (the value is no path): check the paths themselves.
    refuse_output_input(argparse.Namespace(**{**vars(args), "scores": sorted(scores.values())}), ("out", "html", "figures"))
    if args.out is not None and args.html is not None and os.path.realpath(args.out) == os.path.realpath(args.html):
        raise AnachronError(f"--out and --html both name {args.out}: choose two paths")
    cutoffs = None
    if args.model_cutoffs is not None:
        from anachron.bank.cutoffs import load_model_cutoffs

        cutoffs = load_model_cutoffs(args.model_cutoffs)
    if args.forecastbench:
        text = _leaderboard(args, scores, cutoffs)
        if args.out is not None:
            write_files_atomic({args.out: text})
        else:
            with staged_output(None) as stream:
                stream.write(text)
            sys.stdout.flush()
        return 0
    for name, flag in _BOARD_ONLY + (("difficulty_pool", "--difficulty-pool"),):
        if getattr(args, name) not in (None, False, [], "all"):
            raise AnachronError(f"{flag} needs --forecastbench (the ForecastBench leaderboard)")
    if args.format == "csv":
        raise AnachronError("--format csv needs --forecastbench (one row per model and question type)")
    if args.resolutions is None:
        raise AnachronError("give the forecast file(s), then the RESOLUTIONS file (or --forecastbench with ForecastBench files)")
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
