"""``anachron verify-citations ANSWER.json EVENTS.jsonl``: are the citations real?

Every citation must have been shown to the agent by its own run's tools,
dated on or before the cutoff.  Prints one line per citation; exit status 1
when any fails, 2 on bad input.  ``--trace TRACE.jsonl`` checks the
``citations`` each sample of a trace carries (an imported run) instead.
"""

from __future__ import annotations

import argparse

from anachron.core.docs import doc_url
import sys

from anachron.core.errors import AnachronError
from anachron.timelock.citations import load_answer, verify_citations
from anachron.timelock.events import load_events
from anachron.cli.options import add_corpus_option, add_out_option, examples, iso_date, stdout_to

EXIT_FAILED = 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify-citations",
        help="check an answer's citations against the event log of its own run",
        description="Check that every citation in ANSWER.json was returned by a tool of this run "
        "(not withheld) and dated on or before the cutoff. Exit status 1 if any fails.",
    )
    parser.add_argument("answer", nargs="?", metavar="ANSWER.json", help=f"an object with a 'citations' list ({doc_url('mcp.md')})")
    parser.add_argument("events", nargs="?", metavar="EVENTS.jsonl", help="the event log of the run that produced the answer")
    parser.add_argument("--as-of", type=iso_date, metavar="DATE", help="cutoff (default: the as-of the server ran with)")
    parser.add_argument(
        "--trace", metavar="TRACE.jsonl",
        help="check the citations of every sample of a trace (e.g. from `anachron import`) against its own calls",
    )
    add_corpus_option(parser)
    add_out_option(parser)
    parser.epilog = examples(
        "anachron verify-citations answer.json runs/b/events.jsonl   # an answer's citations against its run's log",
        'anachron import --from openai-chat tests/data/importers/openai-chat.jsonl --as-of 2023-01-01 --sample-id-from id --out trace.jsonl',
        'anachron verify-citations --trace trace.jsonl   # exit 1: one citation is dated after the cutoff',
    )
    parser.set_defaults(func=run)


def run_trace(args: argparse.Namespace) -> int:
    from anachron.core import load_traces
    from anachron.store import load_corpus
    from anachron.timelock.citations import verify_trace_citations

    if args.answer is not None or args.as_of is not None:
        raise AnachronError("--trace checks the citations and cutoff each sample carries: give no ANSWER.json, EVENTS.jsonl or --as-of")
    traces = load_traces(args.trace, load_corpus(args.corpus))
    checks = [(trace, check) for trace in traces for check in verify_trace_citations(trace)]
    failed = sum(1 for _, check in checks if not check.ok)
    uncited = sum(1 for trace in traces if not trace.citations)
    with stdout_to(args.out):
        for trace, check in checks:
            print(f"{'ok  ' if check.ok else 'FAIL'}  {trace.sample_id}  {check.citation.ref}: {check.reason}")
        print(
            f"{len(checks)} citation(s) in {len(traces)} sample(s): {len(checks) - failed} verified, {failed} failed"
            + (f"; {uncited} sample(s) cite nothing" if uncited else "")
        )
    return EXIT_FAILED if failed else 0


def run(args: argparse.Namespace) -> int:
    if args.trace is not None:
        return run_trace(args)
    if args.answer is None or args.events is None:
        raise AnachronError("give ANSWER.json and EVENTS.jsonl, or --trace TRACE.jsonl")
    if args.corpus is not None:
        raise AnachronError("--corpus is read with --trace only: an event log carries its items' dates")
    cutoff = args.as_of
    citations = load_answer(args.answer)
    log = load_events(args.events)
    checks = verify_citations(citations, log, cutoff=cutoff)
    failed = sum(1 for check in checks if not check.ok)
    shown_cutoff = cutoff or log.as_of
    with stdout_to(args.out):  # written when a citation fails too: exit status 1 says so
        for check in checks:
            print(f"{'ok  ' if check.ok else 'FAIL'}  {check.citation.ref}: {check.reason}")
        print(
            f"{len(checks)} citation(s): {len(checks) - failed} verified, {failed} failed"
            + (f" (cutoff {shown_cutoff})" if shown_cutoff else "")
        )
    if log.torn:
        print(f"warning: {log.torn}; checked against the {len(log.calls)} complete call(s) before it", file=sys.stderr)
    return EXIT_FAILED if failed else 0
