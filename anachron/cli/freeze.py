"""``anachron freeze check|seal|analyze DIR``: the fail-closed study gate.

Exit statuses: 0 the gate passes (or the seal was recorded); 2 bad input (one
line on stderr naming the file and line, nothing on stdout); 3 the gate is
closed: unmet rows, changed, missing or unsealed files.  3 is the project's
"invalid measurement" status: the inputs were readable, but no valid
measurement may be made from them yet.
"""

from __future__ import annotations

import argparse

from anachron.cli.options import examples
from anachron.core.docs import doc_url
import sys

from anachron.core.jsonio import dump_json
from anachron.core.atomic import write_atomic
from anachron.research.freeze import FreezeNotPassed, check, seal

EXIT_GATE_CLOSED = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "freeze",
        help="check or seal a study's freeze contract; run its analysis only once the gate passes",
        description="The pre-registration gate of a study directory holding FREEZE_CONTRACT.json "
        f"({doc_url('freeze.md')}).  Exit 3 means the gate is closed.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    from anachron.cli import help_of

    parser.epilog = examples(
        'anachron freeze check research/routes-v2   # exit 3 today: the gate is closed',
    )
    parser.set_defaults(func=help_of(parser))  # bare `anachron freeze`: its help

    p = actions.add_parser("check", help="recompute hashes and read the matrix; exit 3 naming every problem")
    p.add_argument("dir", metavar="DIR", help="study directory (e.g. research/routes-v2)")
    p.epilog = examples(
        'anachron freeze check research/routes-v2   # exit 3 today: 9 of 9 rows unmet',
    )
    p.set_defaults(func=run_check)

    p = actions.add_parser("seal", help="record the current SHA-256 of every listed file (atomic)")
    p.add_argument("dir", metavar="DIR", help="study directory (e.g. research/routes-v2)")
    p.epilog = examples(
        'cp -r research/routes-v2 my-study && anachron freeze seal my-study',
    )
    p.set_defaults(func=run_seal)

    p = actions.add_parser("analyze", help="run the study's frozen outcome analysis; refuses unless the gate passes")
    p.add_argument("dir", metavar="DIR", help="study directory (e.g. research/routes-v2)")
    p.add_argument("outcomes", metavar="OUTCOMES.jsonl", help=f"one JSON object per run ({doc_url('freeze.md')})")
    p.add_argument("--out", metavar="FILE", help="write the JSON result here (atomically) instead of stdout")
    p.epilog = examples(
        'anachron freeze analyze research/routes-v2 outcomes.jsonl --out analysis.json   # refused until the gate passes',
    )
    p.set_defaults(func=run_analyze)


def run_check(args: argparse.Namespace) -> int:
    report = check(args.dir)
    for line in report.problems():
        print(line)
    print(report.summary())
    return 0 if report.passed else EXIT_GATE_CLOSED


def run_seal(args: argparse.Namespace) -> int:
    for line in seal(args.dir).lines():
        print(line)
    return 0


def run_analyze(args: argparse.Namespace) -> int:
    # Imported here: the analysis is reachable only through this path and the gate.
    from anachron.research.routes_v2 import run_outcome_analysis

    try:
        result = run_outcome_analysis(args.dir, args.outcomes)
    except FreezeNotPassed as exc:
        # stdout is reserved for the result: the closed gate reports on stderr.
        for line in exc.problems:
            print(line, file=sys.stderr)
        print(f"anachron: {exc}; no outcome was read", file=sys.stderr)
        return EXIT_GATE_CLOSED
    text = dump_json(result)
    if args.out:
        write_atomic(args.out, text)
    else:
        sys.stdout.write(text)
    return 0
