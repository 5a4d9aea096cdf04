"""The log options that ``anachron score`` and ``anachron import`` share.

``--from`` and its companions (:func:`add_log_options`, :func:`trace_records`: the
records to score, a trace file or other harnesses' logs imported) and the seal
declaration (:func:`add_seal_options`, :func:`sealed_tools`; docs/importers.md).
"""

from __future__ import annotations

import argparse
import sys
from typing import Iterator

from anachron.core.docs import doc_url
from anachron.core import Corpus
from anachron.core.dates import parse_date
from anachron.core.seal import Declaration
from anachron.core.errors import AnachronError
from anachron.core.jsonio import Record, read_json, stream_records
from anachron.core.trace import some_records
from anachron.cli.options import iso_date


def _formats() -> tuple[str, ...]:
    """The importers' formats and ``inspect`` (read by the Inspect adapter), in the docs' order."""
    from anachron.importers import FORMATS

    return (*FORMATS[:-1], "inspect", FORMATS[-1])


def _inspect_logs(logs, options, corpus_dir):
    from anachron.importers import check_inspect_options

    check_inspect_options(options)  # a refusal needs no extra
    try:
        from anachron.inspect.export import import_inspect_logs
    except ImportError as exc:
        # anachron.inspect's own message names the extra and its install; say it once
        hint = "" if "pip install" in str(exc) else "; install it with: pip install 'anachron[inspect]'"
        raise AnachronError(f"--from inspect: {exc}{hint}") from None
    return import_inspect_logs(logs, options, corpus_dir=corpus_dir)


def add_log_options(parser: argparse.ArgumentParser, *, required: bool) -> None:
    """``--from FORMAT``, ``--as-of``, ``--as-of-map``, ``--as-of-field``, ``--sample-id-from`` (docs/importers.md)."""
    parser.add_argument(
        "--from", dest="log_format", required=required, choices=_formats(), metavar="FORMAT",
        help=f"read logs of this format: {', '.join(_formats())}",
    )
    parser.add_argument("--as-of", type=iso_date, metavar="DATE", help="the cutoff T of every imported sample")
    parser.add_argument("--as-of-map", metavar="FILE.json", help="a JSON object: sample id -> its cutoff T")
    parser.add_argument(
        "--as-of-field", metavar="FIELD",
        help="read each conversation's cutoff T from this field of the log (dotted path, as --sample-id-from)",
    )
    parser.add_argument(
        "--sample-id-from", metavar="FIELD",
        help="name each sample by this field of the conversation (dotted path), record or span attribute",
    )
    parser.add_argument(
        "--retrieval-tools", metavar="NAME,...",
        help="only these tools are retrieval interactions (judged for leakage); every other call is local "
        f"(kept for the seal audit). Default: {doc_url('importers.md')}, 'Retrieval and local calls'",
    )


def add_seal_options(parser: argparse.ArgumentParser) -> None:
    """The seal declaration: ``--sealed-tools``, ``--sealed-tools-from``, ``--isolated-shell`` and
    ``--lock-events`` (docs/importers.md, "Seal audit")."""
    parser.add_argument(
        "--sealed-tools", metavar="NAME,...",
        help="audit the seal: the tools that go through a time lock (e.g. mcp__timelock__search,mcp__timelock__fetch); "
        "any other call is a breach",
    )
    parser.add_argument(
        "--sealed-tools-from", metavar="MCPCONFIG.json",
        help="audit the seal: the tools of the `anachron serve` servers of this MCP configuration are sealed",
    )
    parser.add_argument(
        "--isolated-shell", metavar="NAME,...",
        help="these shell tools had no network (the verdict is then given that assumption); "
        "without, every shell call is a seal breach",
    )
    parser.add_argument(
        "--lock-events", nargs="+", metavar="EVENTS.jsonl",
        help="the event logs of the `anachron serve` runs: every call to a sealed tool must be in one; "
        "without, a run with no breach is `unverified`",
    )


def _names(option: str, value: str) -> list[str]:
    listed = [name.strip() for name in value.split(",")]
    if not any(listed) or not all(listed):
        raise AnachronError(f"{option}: expected tool names separated by commas, got {value!r}")
    return listed


def sealed_tools(args: argparse.Namespace) -> Declaration | None:
    """The declaration (``lock-only`` for the lock's own log, ``--from mcp-events``; else the union of both tool options; a configuration's locks carry their as-of
    dates; the isolated shells; the lock's logs), or ``None``: no seal verdict.  Each configured server
    that seals nothing gets a note on stderr."""
    if getattr(args, "log_format", None) == "mcp-events":
        # The lock's own log shows no other tool the harness had: it gives no seal verdict.
        return Declaration((), lock_only=True)
    if args.sealed_tools is None and args.sealed_tools_from is None:
        if args.isolated_shell is not None or args.lock_events is not None:
            raise AnachronError("--isolated-shell and --lock-events qualify a seal audit: give --sealed-tools or --sealed-tools-from")
        return None
    names: set[str] = set()
    lock_as_of = {}
    if args.sealed_tools is not None:
        names.update(_names("--sealed-tools", args.sealed_tools))
    if args.sealed_tools_from is not None:
        from anachron.importers import seal_declaration

        declared, notes = seal_declaration(args.sealed_tools_from)
        for note in notes:
            print(f"note: {note}", file=sys.stderr)
        names.update(declared)
        lock_as_of.update(declared.lock_as_of)
    locks = None
    if args.lock_events is not None:
        from anachron.timelock.events import load_events
        from anachron.timelock.run_trace import lock_run

        locks = [lock_run(load_events(path)) for path in args.lock_events]
    isolated = _names("--isolated-shell", args.isolated_shell) if args.isolated_shell is not None else ()
    # A run directory whose files differ from what its run.json pins: the lock's log, the transcript, the
    # configuration, the model gateway's log (anachron.cli.score.run_inputs).
    tampered = getattr(args, "seal_tampered", None) or ()
    local = getattr(args, "local_tools", None) or ()  # a run directory's (run.json's local_tools)
    return Declaration(names, lock_as_of, isolated_shells=isolated, locks=locks, tampered=tampered, local_tools=local)


def _as_of_map(path: str) -> dict[str, object]:
    document = read_json(path)
    if not isinstance(document, dict) or not document:
        empty = "an empty object: " if isinstance(document, dict) else ""  # an object, but naming no sample
        raise AnachronError(f"{path}: {empty}expected a JSON object mapping sample id -> YYYY-MM-DD")
    days = {}
    for sample_id, value in document.items():
        try:
            days[sample_id] = parse_date(value)
        except (TypeError, ValueError) as exc:
            raise AnachronError(f"{path}: sample {sample_id!r}: {exc}") from None
    return days


def trace_records(args: argparse.Namespace, corpus: Corpus) -> Iterator[Record]:
    """The trace records to score: the trace file, or the ``--from`` logs imported (one at a time)."""
    logs = args.logs
    if args.log_format is None:
        if any(v is not None for v in (args.as_of, args.as_of_map, args.sample_id_from, args.retrieval_tools)):
            raise AnachronError("--as-of, --as-of-map, --sample-id-from and --retrieval-tools read logs: give --from FORMAT")
        if args.as_of_field is not None:
            raise AnachronError("--as-of-field reads logs: give --from FORMAT")
        if len(logs) != 1:
            raise AnachronError("a trace is one file: give one TRACE.jsonl, or --from FORMAT for logs")
        return some_records(stream_records(logs[0]), logs[0])  # one at a time; an empty file is refused
    from anachron.importers import Options, import_logs

    if sum(v is not None for v in (args.as_of, args.as_of_map, args.as_of_field)) > 1:
        given = [name for name, v in (("--as-of", args.as_of), ("--as-of-map", args.as_of_map), ("--as-of-field", args.as_of_field)) if v is not None]
        raise AnachronError(f"{' and '.join(given)} each give the cutoff: give one")
    options = Options(
        as_of=args.as_of,
        as_of_map=_as_of_map(args.as_of_map) if args.as_of_map is not None else None,
        sample_id_from=args.sample_id_from,
        as_of_field=args.as_of_field,
        retrieval_tools=frozenset(_names("--retrieval-tools", args.retrieval_tools)) if args.retrieval_tools is not None else None,
        corpus=corpus if args.corpus is not None else None,
        scoring_corpus=corpus,
        warn=lambda line: print(line, file=sys.stderr),
    )
    if args.log_format == "inspect":
        return _inspect_logs(logs, options, args.corpus)
    return import_logs(args.log_format, logs, options)


