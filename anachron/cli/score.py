"""``anachron score TRACE.jsonl``: score a trace file with the core."""

from __future__ import annotations

import argparse

from ..core import load_corpus, load_traces, score_traces
from .options import add_corpus_option, add_format_option, emit_scores


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a trace file (JSON Lines) for look-ahead leakage",
        description="Score a trace file: per-sample TCLR, survivorship, restatement and query-intent leaks, "
        "blocked attempts and failed calls.",
    )
    parser.add_argument("trace", metavar="TRACE.jsonl", help="one JSON object per sample run (docs/formats.md)")
    add_corpus_option(parser)
    add_format_option(parser, extra=("csv",))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    corpus = load_corpus(args.corpus)
    # Everything is validated before anything is printed: bad input leaves stdout empty.
    results = score_traces(load_traces(args.trace, corpus), corpus)
    emit_scores(results, args.format)
    return 0
