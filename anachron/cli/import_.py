"""``anachron import --from FORMAT LOG... --as-of DATE --out TRACE.jsonl``: other harnesses' logs as traces.

The options it shares with ``anachron score`` are :mod:`anachron.cli.log_options`'s.
"""

from __future__ import annotations

import argparse
from typing import Iterator, TextIO

from anachron.core.docs import doc_url
from anachron.core.trace import check_traces
from anachron.store import load_corpus
from anachron.core.jsonio import Record, dump_json
from anachron.core.atomic import staged_output
from anachron.cli.log_options import add_log_options, trace_records
from anachron.cli.options import add_corpus_option, add_quiet_option, examples, progress


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "import",
        help="convert agent logs (OpenAI, Anthropic, Claude Code, OpenTelemetry, ...) to a trace file",
        description="Read the logs of another harness and write the trace format (one record per conversation or "
        "session), ready for `anachron score` and `anachron verify-citations --trace`. "
        f"{doc_url('importers.md')} lists every format and result shape read.",
    )
    parser.add_argument("logs", nargs="+", metavar="LOG", help="log file(s) of the format given by --from")
    add_log_options(parser, required=True)
    add_corpus_option(parser, help="corpus directory, index or postgresql:// URL: its item ids are recognised in tool results")
    parser.add_argument("--out", required=True, metavar="TRACE.jsonl", help="the trace file to write (atomically)")
    add_quiet_option(parser)
    parser.epilog = examples(
        'anachron import --from openai-chat tests/data/importers/openai-chat.jsonl --as-of 2023-01-01 --sample-id-from id --out trace.jsonl',
        'anachron score trace.jsonl',
    )
    parser.set_defaults(func=run)


def _written(records: Iterator[Record], out: TextIO) -> Iterator[Record]:
    """*records*, each written to *out* as one JSON line as it passes."""
    for where, record in records:
        out.write(dump_json(record, indent=None))
        yield where, record


def run(args: argparse.Namespace) -> int:
    corpus = load_corpus(args.corpus)
    samples = calls = 0
    # One record at a time: each is written, then checked as a trace, once (what is written scores;
    # check_traces skips only the dating nothing could contradict); the output is staged, so a bad
    # log leaves no file.
    with staged_output(args.out) as out, progress(args, "samples") as shown:
        for _, interactions in check_traces(_written(shown.iterate(trace_records(args, corpus)), out), corpus):
            samples += 1
            calls += interactions
    print(f"wrote {args.out}: {samples} sample{'s' if samples != 1 else ''}, {calls} tool call{'s' if calls != 1 else ''}")
    return 0
