"""``anachron compare`` (also ``anachron-compare``): paired comparison of two runs."""

from __future__ import annotations

import argparse
import sys

from ..core.stats import compare_modes
from ..core.stats.paired import check_options
from ..core.stats.intervals import CI_METHODS
from ..core.jsonio import dump_json, read_json
from ..core.scores import METRICS, parse_scores
from ..output.records import COMPARISON_COLUMNS, comparison_records
from .options import add_format_option, emit_csv


DESCRIPTION = (
    "Compare the per-sample scores of an unrestricted and an enforced run as paired "
    "observations: mean reduction, paired bootstrap CI (percentile or BCa), relative reduction and its CI, "
    "exact sign test, and warnings where the interval is less than it looks. "
    "Each file is a JSON object of sample id -> number (as `anachron demo` writes) or the "
    "output of `anachron score --format json`."
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare an unrestricted and an enforced run sample by sample (paired bootstrap, sign test)",
        description=DESCRIPTION,
    )
    configure(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``anachron compare``, also those of ``anachron-compare``."""
    parser.add_argument("unrestricted", metavar="UNRESTRICTED.json", help="per-sample scores of the unrestricted run")
    parser.add_argument("enforced", metavar="ENFORCED.json", help="per-sample scores of the enforced run")
    add_format_option(parser, extra=("csv",))
    parser.add_argument("--confidence", type=float, default=0.95, metavar="C", help="CI level, in (0, 1) (default: 0.95)")
    parser.add_argument("--resamples", type=int, default=10_000, metavar="B", help="bootstrap resamples (default: 10000)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed of the bootstrap (default: 0)")
    parser.add_argument(
        "--ci-method",
        choices=CI_METHODS,
        default="percentile",
        help="bootstrap interval: percentile, or bca (bias-corrected and accelerated) (default: percentile; "
        "coverage of both: docs/metrics.md)",
    )
    parser.add_argument(
        "--metric",
        default="tclr",
        metavar="NAME",
        help=f"per-sample field to compare: {', '.join(METRICS)} (default: tclr); "
        "a plain JSON object's numbers are taken as this metric",
    )
    parser.set_defaults(func=run)


# The flags a bad option's message names, for the parameters compare_modes checks.
_FLAGS = {"confidence": "--confidence", "n_resamples": "--resamples", "seed": "--seed", "ci_method": "--ci-method"}


def run(args: argparse.Namespace) -> int:
    check_options(args.confidence, args.resamples, args.seed, args.ci_method, names=_FLAGS)
    unrestricted = parse_scores(read_json(args.unrestricted), args.unrestricted, args.metric)
    enforced = parse_scores(read_json(args.enforced), args.enforced, args.metric)
    report = compare_modes(
        unrestricted,
        enforced,
        confidence=args.confidence,
        n_resamples=args.resamples,
        seed=args.seed,
        metric=args.metric,
        ci_method=args.ci_method,
    )
    if args.format == "csv":
        emit_csv(comparison_records(report), COMPARISON_COLUMNS)
        return 0
    sys.stdout.write(dump_json(report.to_dict()) if args.format == "json" else report.table() + "\n")
    return 0
