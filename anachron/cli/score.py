"""``anachron score TRACE.jsonl``: score a trace file with the core."""

from __future__ import annotations

import argparse

from ..core import load_corpus, parse_traces, score_traces
from .import_ import add_log_options, add_seal_options, sealed_tools, trace_records
from .options import add_corpus_option, add_format_option, emit_scores


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a trace file (JSON Lines) for look-ahead leakage",
        description="Score a trace file: per-sample TCLR, survivorship, restatement and query-intent leaks, "
        "blocked attempts and failed calls.",
    )
    parser.add_argument(
        "logs", nargs="+", metavar="TRACE.jsonl",
        help="one JSON object per sample run (docs/formats.md); with --from FORMAT, the log(s) to import",
    )
    add_log_options(parser, required=False)
    add_seal_options(parser)
    add_corpus_option(parser)
    add_format_option(parser, extra=("csv",))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    corpus = load_corpus(args.corpus)
    # Everything is validated before anything is printed: bad input leaves stdout empty.
    sealed = sealed_tools(args)
    results = score_traces(parse_traces(trace_records(args, corpus), corpus), corpus, sealed_tools=sealed)
    emit_scores(results, args.format)
    return 0
