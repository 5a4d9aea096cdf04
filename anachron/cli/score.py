"""``anachron score TRACE.jsonl``: score a trace file with the core, one trace at a time."""

from __future__ import annotations

import argparse

from ..core import load_corpus
from ..io import stream_records
from .options import add_corpus_option, add_format_option, add_jobs_option, add_out_option, frozen_heap, write_scores


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a trace file (JSON Lines) for look-ahead leakage",
        description="Score a trace file: per-sample TCLR, survivorship, restatement and query-intent leaks, "
        "blocked attempts and failed calls.  Traces are read, scored and written one at a time.",
    )
    parser.add_argument("trace", metavar="TRACE.jsonl", help="one JSON object per sample run (docs/formats.md)")
    add_corpus_option(parser)
    add_format_option(parser, streaming=True)
    add_out_option(parser)
    add_jobs_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    corpus = load_corpus(args.corpus)
    with frozen_heap():
        if args.jobs > 1:
            from ..parallel import score_file_parallel

            score_file_parallel(args.trace, corpus, args.format, args.out, jobs=args.jobs)
        else:
            # Written to a staged output: bad input found halfway leaves stdout (or --out) untouched.
            write_scores(stream_records(args.trace), corpus, args.format, args.out)
    return 0
