"""``anachron score-events EVENTS.jsonl --as-of DATE``: score served runs.

Each event log written by ``anachron serve`` is one sample run; it is
converted to the trace format (:func:`anachron.timelock.events_trace`) and
scored by the core, and the output is that of ``anachron score`` plus one
summary fields: ``protocol_errors``, the malformed messages the lock refused
(:attr:`~anachron.timelock.EventLog.protocol_errors`, never calls), summed
over the logs, with a table line when there are any (a log holding them is
no error: the lock answered each with a JSON-RPC error); and ``guarantees``,
the items shown to the agent counted by what their backend promised about
their dates (:meth:`~anachron.timelock.EventLog.guarantees`: ``capture``,
``index``, ``claimed``, ``corpus``, or ``unrecorded``), so a study can say
"every page was an archive capture before T", or sees that it cannot.
"""

from __future__ import annotations

import argparse

from anachron.core.docs import doc_url
import sys
from pathlib import Path
from typing import Iterator

from anachron.store import load_corpus
from anachron.core.errors import AnachronError
from anachron.core.seal import Declaration
from anachron.output.stream import Addenda
from anachron.timelock.events import load_scored_events
from anachron.timelock.run_trace import events_trace
from anachron.importers import rescored_note
from anachron.cli.options import add_corpus_option, add_format_option, add_out_option, examples, frozen_heap, iso_date, write_scores


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score-events",
        help="score the event logs of `anachron serve` runs, as `anachron score` does",
        description="Convert event logs of the time-lock server to traces (one sample per log) and score them. "
        "Only items shown to the agent count; withheld items never reached it.",
    )
    parser.add_argument("events", nargs="+", metavar="EVENTS.jsonl", help=f"event log(s) of `anachron serve` ({doc_url('mcp.md')})")
    parser.add_argument("--as-of", required=True, type=iso_date, metavar="DATE", help="the task's as-of date T to score against")
    parser.add_argument(
        "--sample-id",
        metavar="ID",
        help="sample id of the run (one log only; default: the log's file name without .jsonl)",
    )
    add_corpus_option(parser)
    add_format_option(parser, extra=("jsonl", "csv"))  # csv: the rows of `score --format csv`, one writer
    add_out_option(parser)
    parser.epilog = examples(
        'anachron score-events runs/b/events.jsonl --as-of 2022-06-01   # a log `anachron serve` wrote',
        'anachron score-events runs/b/events.jsonl --as-of 2022-06-01 --format csv --out events.csv',
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    as_of = args.as_of
    if args.sample_id is not None and len(args.events) > 1:
        raise AnachronError("--sample-id names one run: give one event log, or let each log's file name name it")
    corpus = load_corpus(args.corpus)
    notes: list[str] = []
    addenda = Addenda({"protocol_errors": 0, "guarantees": {}})

    def records() -> Iterator[tuple[str, dict]]:
        # One log in memory at a time: each is converted, scored and written before the next is read.
        for path in args.events:
            log = load_scored_events(path)  # an empty file is refused, never a clean run
            sample_id = args.sample_id if args.sample_id is not None else Path(path).name.removesuffix(".jsonl")
            yield path, events_trace(log, corpus, sample_id=sample_id, as_of=as_of)
            addenda.fields["protocol_errors"] += len(log.protocol_errors)
            shown = addenda.fields["guarantees"]
            for guarantee, count in log.guarantees().items():
                shown[guarantee] = shown.get(guarantee, 0) + count
            if log.as_of is not None and log.as_of != as_of:
                notes.append(rescored_note(path, log.as_of, as_of))
            if log.torn:
                notes.append(f"warning: {log.torn}; scored the {len(log.calls)} complete call(s) before it")
            if log.undated_shown:
                notes.append(f"note: {path}: {log.undated_shown} undated item(s) were shown: they make TCLR's band (tclr_high)")
        shown = addenda.fields["guarantees"]
        addenda.fields["guarantees"] = dict(sorted(shown.items()))  # one order, whatever the logs' order
        listed = ", ".join(f"{guarantee} {count}" for guarantee, count in addenda.fields["guarantees"].items()) or "none shown"
        addenda.lines.append(f"{'shown, by guarantee':<25}{listed}")
        refused = addenda.fields["protocol_errors"]
        if refused:  # known once every log is read, before the writer finishes
            addenda.lines.append(f"{'protocol errors':<25}{refused} (malformed messages the lock refused)")

    with frozen_heap():
        # Staged: bad input found in a later log leaves stdout (or --out) untouched.
        # The lock's own log shows no other tool the harness had: it gives no seal verdict.
        write_scores(records(), corpus, args.format, args.out, sealed_tools=Declaration((), lock_only=True),
                     addenda=addenda)
    for note in notes:
        print(note, file=sys.stderr)
    return 0
