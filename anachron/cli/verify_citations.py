"""``anachron verify-citations ANSWER.json EVENTS.jsonl``: are the citations real?

Every citation must have been shown to the agent by its own run's tools,
dated on or before the cutoff.  Prints one line per citation; exit status 1
when any fails, 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys

from ..timelock.citations import load_answer, verify_citations
from ..timelock.events import load_events
from .options import iso_date

EXIT_FAILED = 1


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify-citations",
        help="check an answer's citations against the event log of its own run",
        description="Check that every citation in ANSWER.json was returned by a tool of this run "
        "(not withheld) and dated on or before the cutoff. Exit status 1 if any fails.",
    )
    parser.add_argument("answer", metavar="ANSWER.json", help="an object with a 'citations' list (docs/mcp.md)")
    parser.add_argument("events", metavar="EVENTS.jsonl", help="the event log of the run that produced the answer")
    parser.add_argument("--as-of", type=iso_date, metavar="DATE", help="cutoff (default: the as-of the server ran with)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    cutoff = args.as_of
    citations = load_answer(args.answer)
    log = load_events(args.events)
    checks = verify_citations(citations, log, cutoff=cutoff)
    for check in checks:
        print(f"{'ok  ' if check.ok else 'FAIL'}  {check.citation.ref}: {check.reason}")
    failed = sum(1 for check in checks if not check.ok)
    shown_cutoff = cutoff or log.as_of
    print(
        f"{len(checks)} citation(s): {len(checks) - failed} verified, {failed} failed"
        + (f" (cutoff {shown_cutoff})" if shown_cutoff else "")
    )
    if log.torn:
        print(f"warning: {log.torn}; checked against the {len(log.calls)} complete call(s) before it", file=sys.stderr)
    return EXIT_FAILED if failed else 0
