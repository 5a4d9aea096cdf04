"""``anachron compare`` (also ``anachron-compare``): paired comparison of two runs."""

from __future__ import annotations

import argparse
import dataclasses
import sys

from anachron.core.stats import compare_modes
from anachron.core.docs import doc_url
from anachron.core.stats.paired import check_options
from anachron.core.stats.intervals import CI_METHODS
from anachron.core.jsonio import dump_json, read_json
from anachron.core.scores import METRICS, check_runs, parse_scores, run_info, run_label
from anachron.output.records import COMPARISON_COLUMNS, comparison_records
from anachron.cli.options import add_format_option, add_out_option, emit_csv, examples, stdout_to


DESCRIPTION = (
    "Compare the per-sample scores of an unrestricted and an enforced run as paired "
    "observations: mean reduction, paired bootstrap CI (percentile or BCa), relative reduction and its CI, "
    "exact sign test, and warnings where the interval is less than it looks. "
    "Each file is a per-sample TCLR file (as `anachron demo` and `anachron export` write), a JSON object of "
    "sample id -> number, or the output of `anachron score --format json`. Where the files say what their "
    "runs were, runs on different corpora are refused, and swapped runs (the enforced one first) and "
    "different models are warned about."
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
        f"coverage of both: {doc_url('metrics.md')}, 'Coverage')",
    )
    parser.add_argument(
        "--metric",
        default="tclr",
        metavar="NAME",
        help=f"per-sample field to compare: {', '.join(METRICS)} (default: tclr); "
        "a plain JSON object's numbers are taken as this metric",
    )
    add_out_option(parser)
    parser.epilog = examples(
        'anachron compare anachron-demo/unrestricted.json anachron-demo/enforced.json   # after `anachron demo`',
        'anachron compare anachron-demo/unrestricted.json anachron-demo/enforced.json --ci-method bca --format json',
    )
    parser.set_defaults(func=run)


# The flags a bad option's message names, for the parameters compare_modes checks.
_FLAGS = {"confidence": "--confidence", "n_resamples": "--resamples", "seed": "--seed", "ci_method": "--ci-method"}


def run(args: argparse.Namespace) -> int:
    check_options(args.confidence, args.resamples, args.seed, args.ci_method, names=_FLAGS)
    documents = read_json(args.unrestricted), read_json(args.enforced)
    unrestricted = parse_scores(documents[0], args.unrestricted, args.metric)
    enforced = parse_scores(documents[1], args.enforced, args.metric)
    runs = run_info(documents[0]), run_info(documents[1])
    # Different corpora are refused here; the warnings go first among the comparison's, in every format.
    cautions = check_runs(*runs, names=(args.unrestricted, args.enforced))
    report = compare_modes(
        unrestricted,
        enforced,
        confidence=args.confidence,
        n_resamples=args.resamples,
        seed=args.seed,
        metric=args.metric,
        ci_method=args.ci_method,
    )
    report = dataclasses.replace(
        report, warnings=cautions + report.warnings,
        unrestricted_label=run_label(args.unrestricted, runs[0]), enforced_label=run_label(args.enforced, runs[1]),
    )
    with stdout_to(args.out):
        if args.format == "csv":
            emit_csv(comparison_records(report), COMPARISON_COLUMNS)
        else:
            sys.stdout.write(dump_json(report.to_dict()) if args.format == "json" else report.table() + "\n")
    return 0
