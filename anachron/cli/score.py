"""``anachron score TRACE.jsonl``: score a trace file with the core, one trace at a time."""

from __future__ import annotations

import argparse

from anachron.core.docs import doc_url

from anachron.store import load_corpus
from anachron.core.errors import AnachronError
from anachron.cli.log_options import add_log_options, add_seal_options, sealed_tools, trace_records
from anachron.cli.options import add_corpus_option, add_format_option, add_jobs_option, add_out_option, frozen_heap, write_scores


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a trace file (JSON Lines) for look-ahead leakage",
        description="Score a trace file: per-sample TCLR, survivorship, restatement and query-intent leaks, "
        "blocked attempts and failed calls.  Traces are read, scored and written one at a time.",
    )
    parser.add_argument(
        "logs", nargs="+", metavar="TRACE.jsonl",
        help=f"one JSON object per sample run ({doc_url('formats.md')}); with --from FORMAT, the log(s) to import; "
        "or a run directory of `anachron run`",
    )
    add_log_options(parser, required=False)
    add_seal_options(parser)
    add_corpus_option(parser)
    add_format_option(parser, extra=("jsonl", "csv"))
    add_out_option(parser)
    add_jobs_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from anachron.launch.manifest import run_inputs

    run_inputs(args)  # a run directory (`anachron run --out RUNDIR`) names its transcript, format, T and seal
    corpus = load_corpus(args.corpus)
    sealed = sealed_tools(args)
    records = trace_records(args, corpus)  # checks the options; reads nothing yet
    with frozen_heap():
        if args.jobs > 1:
            if args.log_format is not None:
                raise AnachronError("--jobs shards a trace file: with --from FORMAT, score with --jobs 1")
            from anachron.output.jobs import score_file_parallel

            score_file_parallel(args.logs[0], corpus, args.format, args.out, jobs=args.jobs, sealed_tools=sealed, source=args.corpus)
        else:
            # Written to a staged output: bad input found halfway leaves stdout (or --out) untouched.
            write_scores(records, corpus, args.format, args.out, sealed_tools=sealed)
    return 0
