"""``anachron replay RUNDIR``: replay the lock's side of a run from its record, offline (docs/run-rules.md).

Each call of the run's pinned lock log (``lock-events.jsonl``) is made again,
in order, on a :class:`~anachron.timelock.TimeLock` built as the run's start
record says (as-of date, mode, k, budgets, date presentation, ranking) over the
corpus ``run.json`` names; what it returns (the shown ids in order, the
withheld ids and reasons, the status) is compared with the record.  Exit 0
when every call is the same, 1 when any differs, 2 on bad input: no
``run.json``, a log that differs from the chain it pins, an upstream (web)
backend, which cannot be replayed without the network.  ``--format json``: one
document, each call's comparison and the totals (:func:`replay_document`);
``--out FILE`` writes the output there, atomically, instead of stdout.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Mapping

from anachron.core.docs import doc_url
from anachron.core.errors import AnachronError
from anachron.cli.options import add_corpus_option, add_format_option, add_out_option, examples, stdout_to
from anachron.timelock.backends import CANCELLED_WAITING

# The MCP adapter refused such a call before the lock saw it, so the replay passes the refusal on as recorded.
_ADAPTER_REFUSALS = (CANCELLED_WAITING,)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="replay a run's lock calls offline and show whether each gives the same results",
        description="Replay the lock's side of `anachron run` from its record, with no network: every call of "
        "RUNDIR/lock-events.jsonl (checked first against the chain run.json pins) is made again, in order, on a "
        "lock built as the log's start record says, over the corpus run.json names; one line per call says "
        "whether it returns the same items, in the same order, withholds the same and ends with the same status. "
        f"Exit 0: every call the same; 1: some call differs; 2: bad input ({doc_url('run-rules.md')}).",
    )
    parser.add_argument("rundir", metavar="RUNDIR", help="a run directory (`anachron run --out RUNDIR`)")
    add_corpus_option(parser, help="replay over this corpus instead of the one run.json names "
                      "(a directory, index file or postgresql:// URL)", metavar="DIR|INDEX|URL")
    add_format_option(parser)
    add_out_option(parser)
    parser.epilog = examples(
        "anachron replay runs/aster   # after: anachron run ... --out runs/aster",
        "anachron replay runs/aster --corpus corpus/v0",
        "anachron replay runs/aster --format json --out replay.json",
    )
    parser.set_defaults(func=run)


def _calls(rundir: str):
    """The run's record and its lock log's calls, refused (one line) unless the log is the one run.json pins."""
    from anachron.importers.run_dir import proof_differences, read_run
    from anachron.timelock.events import load_scored_events

    record = read_run(rundir)
    if record.lock_events is None:
        raise AnachronError(f"{rundir}: run.json names no lock log: nothing to replay")
    differences = proof_differences(record)
    if differences:
        more = f" (and {len(differences) - 1} more difference(s))" if len(differences) > 1 else ""
        raise AnachronError(f"{rundir}: {differences[0]}{more}: not replayed")
    log = load_scored_events(record.rundir / record.lock_events)
    return record, log


def _lock(log, corpus_spec: str | None):
    """A lock as the log's start record describes it, journaling to memory (the record is never rewritten)."""
    from anachron.core.dates import parse_date
    from anachron.timelock import CorpusBackend, Limits, TimeLock, open_engine

    header = log.header
    where = log.source
    if header.get("backend") != "corpus":
        raise AnachronError(f"{where}: the lock served an {header.get('backend')!r} backend ({header.get('source')}): "
                            "a web search cannot be replayed offline")
    try:
        limits = header.get("limits") or {}
        lock = TimeLock(
            CorpusBackend(open_engine(corpus_spec), ranking=header.get("ranking") or "bm25"),
            parse_date(header["as_of"]),
            _Memory(),
            mode=header.get("mode", "enforced"),
            limits=Limits(limits.get("searches"), limits.get("fetches"), limits.get("calls")),
            k=header.get("k", 5),
            presentation=header.get("date_presentation", "visible"),
            allow_undated=bool(header.get("allow_undated", False)),
            run=header.get("run"),
        )
    except AnachronError as exc:
        raise AnachronError(f"{where}: start record: {exc}") from None
    except (KeyError, TypeError, ValueError) as exc:  # a field of the wrong shape (the chain pins it as written)
        raise AnachronError(f"{where}: start record: cannot rebuild the lock: {type(exc).__name__}: {exc}") from None
    return lock


class _Memory:
    """A journal that keeps nothing: the replay compares, it writes no log."""

    def write(self, header: Mapping[str, Any], record: Mapping[str, Any]) -> None:
        pass


def _side(status: str, returned, withheld) -> dict[str, Any]:
    """What a call gave, as compared: shown ids in order, withheld (id, reason) in order, status."""
    return {
        "status": status,
        "returned": [seen.id for seen in returned],
        "withheld": [(w.id, w.reason) for w in withheld],
    }


def _recorded(call) -> dict[str, Any]:
    return _side(call.status, call.returned, call.withheld)


def _replayed(record: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "status": record.get("status", "error"),
        "returned": [entry.get("id") for entry in record.get("returned", [])],
        "withheld": [(entry.get("id"), entry.get("reason")) for entry in record.get("withheld", [])],
    }


def _what(call) -> str:
    from anachron.timelock.lock import ARGUMENT

    name = ARGUMENT.get(call.tool)
    value = call.arguments.get(name) if name and isinstance(call.arguments, Mapping) else call.arguments
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _withheld_text(items) -> str:
    return "[" + ", ".join(f"{item_id} ({reason})" for item_id, reason in items) + "]"


def compare_line(n: int, call, recorded: Mapping[str, Any], replayed: Mapping[str, Any]) -> str:
    """``#N tool 'argument': same`` or ``... differs: ...``, naming each part that differs."""
    head = f"#{n} {call.tool} {_what(call)}"
    if recorded == replayed:
        return f"{head}: same"
    parts = []
    if recorded["returned"] != replayed["returned"]:
        parts.append(f"recorded [{', '.join(map(str, recorded['returned']))}], "
                     f"replayed [{', '.join(map(str, replayed['returned']))}]")
    if recorded["withheld"] != replayed["withheld"]:
        parts.append(f"withheld recorded {_withheld_text(recorded['withheld'])}, replayed {_withheld_text(replayed['withheld'])}")
    if recorded["status"] != replayed["status"]:
        parts.append(f"status recorded {recorded['status']}, replayed {replayed['status']}")
    return f"{head}: differs: {'; '.join(parts)}"


def _differing(recorded: Mapping[str, Any], replayed: Mapping[str, Any]) -> list[str]:
    return [part for part in ("returned", "withheld", "status") if recorded[part] != replayed[part]]


def _as_json(side: Mapping[str, Any]) -> dict[str, Any]:
    return {"status": side["status"], "returned": list(side["returned"]),
            "withheld": [{"id": item_id, "reason": reason} for item_id, reason in side["withheld"]]}


def replay_document(rundir: str, as_of: str, corpus: str | None, compared) -> dict[str, Any]:
    """The JSON output: the run, each call's comparison (*compared*: ``(call, recorded, replayed)``) and the totals."""
    calls = []
    for call, recorded, replayed in compared:
        differing = _differing(recorded, replayed)
        calls.append({"seq": call.seq, "tool": call.tool, "arguments": call.arguments, "same": not differing,
                      "differs": differing, "recorded": _as_json(recorded), "replayed": _as_json(replayed)})
    same = sum(entry["same"] for entry in calls)
    return {"rundir": rundir, "as_of": as_of, "corpus": corpus, "calls": calls,
            "totals": {"calls": len(calls), "same": same, "differ": len(calls) - same}}


def run(args: argparse.Namespace) -> int:
    from anachron.core.jsonio import dump_json

    record, log = _calls(args.rundir)
    spec = args.corpus if args.corpus is not None else record.corpus_spec
    lock = _lock(log, spec)
    compared = []
    for call in log.calls:  # every call replayed before anything is written: --out is complete or untouched
        refused = call.error if call.status == "refused" and call.error in _ADAPTER_REFUSALS else None
        outcome = lock.call(call.tool, call.arguments, refused=refused, call_id=call.call_id)
        compared.append((call, _recorded(call), _replayed(outcome.record)))
    differing = sum(recorded != replayed for _, recorded, replayed in compared)
    with stdout_to(args.out):
        if args.format == "json":
            sys.stdout.write(dump_json(replay_document(args.rundir, log.header["as_of"], spec, compared)))
        else:
            for call, recorded, replayed in compared:
                print(compare_line(call.seq, call, recorded, replayed))
            total = len(compared)
            corpus = spec if spec is not None else "the bundled corpus"
            verdict = "every call the same" if not differing else f"{differing} of {total} call(s) differ"
            print(f"replayed {total} call(s) as of {log.header['as_of']} over {corpus}: {verdict}")
    sys.stdout.flush()
    return 1 if differing else 0
