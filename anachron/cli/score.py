"""``anachron score TRACE.jsonl``: score a trace file with the core."""

from __future__ import annotations

import argparse
import sys

from ..core import load_corpus, load_traces, score_traces
from ..core._files import dump_json
from ..report import score_document, score_table


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a trace file (JSON Lines) for look-ahead leakage",
        description="Score a trace file: per-sample TCLR, survivorship, restatement and query-intent leaks.",
    )
    parser.add_argument("trace", metavar="TRACE.jsonl", help="one JSON object per sample run (docs/formats.md)")
    add_corpus_option(parser)
    add_format_option(parser)
    parser.set_defaults(func=run)


def add_corpus_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", metavar="DIR", help="corpus directory (default: the bundled v0 corpus)")


def add_format_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("table", "json"), default="table", help="output format (default: table)")


def emit(results, fmt: str) -> None:
    """Print scored results as ``anachron score`` does."""
    text = dump_json(score_document(results)) if fmt == "json" else score_table(results)
    sys.stdout.write(text)


def run(args: argparse.Namespace) -> int:
    corpus = load_corpus(args.corpus)
    # Everything is validated before anything is printed: bad input leaves stdout empty.
    results = score_traces(load_traces(args.trace, corpus), corpus)
    emit(results, args.format)
    return 0
