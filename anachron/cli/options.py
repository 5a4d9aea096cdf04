"""Options and argument types shared by several subcommands (one definition each)."""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import gc
import os
import re
import sys
from typing import AbstractSet, Iterator, Sequence

from anachron.core.dates import parse_date
from anachron.core.errors import AnachronError

# The command the user started: `python -m anachron` sets it (anachron/__main__.py), so a hint
# such as demo's next step names a command that runs without an install.
PROGRAM = "anachron"

__all__ = [
    "PROGRAM",
    "add_corpus_option",
    "add_format_option",
    "add_jobs_option",
    "add_out_option",
    "add_ranking_option",
    "count",
    "emit_csv",
    "examples",
    "frozen_heap",
    "iso_date",
    "positive_count",
    "refuse_missing_directory",
    "refuse_output_input",
    "stdout_to",
    "write_scores",
]


def add_corpus_option(parser: argparse.ArgumentParser, *, help: str | None = None, metavar: str = "DIR|INDEX|URL") -> None:
    parser.add_argument(
        "--corpus",
        metavar=metavar,
        help=help
        or "corpus directory, index file built by `anachron index`, or postgresql:// URL (postgres extra) (default: the bundled v0 corpus)",
    )


def add_format_option(parser: argparse.ArgumentParser, *, extra: Sequence[str] = ()) -> None:
    """``--format table|json`` and the *extra* formats (``csv``: docs/formats.md, "CSV"; ``jsonl``: one result per line)."""
    help = "output format (default: table"
    if "jsonl" in extra:
        help += "; jsonl: one result per line, then the summary"
    parser.add_argument("--format", choices=("table", "json", *extra), default="table", help=help + ")")


def add_ranking_option(parser: argparse.ArgumentParser) -> None:
    """``--ranking bm25|count`` of a local corpus (:mod:`anachron.store.ranking`; default ``None``: BM25)."""
    from anachron.store.ranking import RANKINGS

    parser.add_argument(
        "--ranking", choices=RANKINGS, metavar="|".join(RANKINGS),
        help="ranking of a local corpus: bm25 (default; BM25F with statistics of the items visible at the cutoff) "
        "or count (the earlier ranking, to reproduce earlier runs)",
    )


def add_out_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out", metavar="FILE", help="write the output to FILE (atomically: complete or untouched) instead of stdout"
    )


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quiet", action="store_true",
        help="show no progress (shown on stderr only when it is a terminal)",
    )


def progress(args: argparse.Namespace, unit: str, *, total: int | None = None):
    """The command's progress line on stderr (:class:`anachron.output.progress.Progress`), off with ``--quiet``."""
    from anachron.output.progress import Progress

    return Progress(f"anachron {args.command}", unit, total=total, enabled=not getattr(args, "quiet", False))


@contextlib.contextmanager
def stdout_to(out: str | None) -> Iterator[None]:
    """Send what the block prints to *out* (``--out FILE``: staged, so the file is complete or
    untouched) or, without one, to standard output as it is printed."""
    if out is None:
        yield
        return
    from anachron.core.atomic import staged_output

    with staged_output(out) as stream, contextlib.redirect_stdout(stream):
        yield


def examples(*lines: str) -> str:
    """A command's help epilog: ``examples:`` and one command a line, shown as written
    (:class:`anachron.cli.HelpFormatter` keeps an epilog that starts so unwrapped).  Each line
    runs from a fresh clone, in order (tests/cli/test_help_examples.py parses every one)."""
    return "examples:\n" + "".join(f"  {line}\n" for line in lines)


def add_jobs_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--jobs", type=positive_count, default=1, metavar="N",
        help="score in N processes, each a contiguous share of the traces (same output as 1; default: 1)",
    )


def positive_count(text: str) -> int:
    """An argparse type: a positive integer written in digits."""
    value = count(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """Hide every object made so far (a loaded corpus) from the garbage collector, for the block.

    A loaded corpus is millions of long-lived objects that hold no cycle
    the collector could free; each full collection would walk them all
    again, and scoring allocates enough to trigger many (the collector took
    36% of a 1M-item run).  ``gc.freeze`` moves them to a permanent
    generation that collections skip; the scorer's own short-lived objects
    are still collected, and the objects are handed back at the end.
    Forked ``--jobs`` workers also leave the shared pages of a frozen
    corpus untouched by collections.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def write_scores(
    records, corpus, fmt: str, out: str | None, *, sealed_tools: AbstractSet[str] | None = None, addenda=None
) -> None:
    """Score *records* one at a time into *fmt*, to *out* or stdout, staged (all or nothing).

    *sealed_tools*: the tools audited for seal breaches (``None``: no audit); *addenda*: what the
    command adds to the summary (:class:`anachron.output.stream.Addenda`).
    """
    from anachron.core.atomic import staged_output
    from anachron.output.stream import WRITERS, score_stream

    with staged_output(out) as stream:
        writer = WRITERS[fmt](stream)
        if addenda is not None:
            writer.addenda = addenda
        score_stream(records, corpus, writer, sealed_tools=sealed_tools)


def refuse_output_input(args: argparse.Namespace, outputs: Sequence[str] = ("out",)) -> None:
    """Refuse a run whose output (``--out``, or each option dest in *outputs*) names one of its inputs.

    The inputs are every other path among the parsed arguments (a string or
    a list of strings naming something that exists), the bundled corpus
    directory (read when no corpus, facts or bank is given), and the files
    directly in a directory that is an input (a corpus's ``items.jsonl``).
    Paths are compared as files (``os.path.samefile``: through symlinks,
    hard links and ``..``); an output directory (``demo --out DIR``) is
    refused when it is an input directory.  A path that does not exist yet
    is no input.  Raises :class:`AnachronError` naming the input.

    >>> import tempfile, pathlib
    >>> corpus = pathlib.Path(tempfile.mkdtemp()); (corpus / "items.jsonl").write_text("")
    0
    >>> refuse_output_input(argparse.Namespace(corpus=str(corpus), out=str(corpus / "index.db")))
    >>> refuse_output_input(argparse.Namespace(corpus=str(corpus), out=str(corpus / "items.jsonl")))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    anachron.core.errors.AnachronError: --out names an input (.../items.jsonl): choose another path
    """
    from anachron.core.bundled import default_corpus_dir

    named = {dest: getattr(args, dest) for dest in outputs if isinstance(getattr(args, dest, None), str)}
    inputs: list[str] = []
    # The bundled corpus (and its facts and bank) is what a command reads when given none: never an output.
    given = [value for dest, value in vars(args).items() if dest not in named]
    with contextlib.suppress(AnachronError):  # an install without it has nothing to protect
        given.append(str(default_corpus_dir()))
    for value in given:
        for text in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(text, str) and text and os.path.exists(text):
                inputs.append(text)
                if os.path.isdir(text):
                    with os.scandir(text) as entries:
                        inputs.extend(entry.path for entry in entries if entry.is_file())
    for dest, out in named.items():
        if not os.path.exists(out):
            continue
        for path in inputs:
            if os.path.samefile(out, path):
                option = "--" + dest.replace("_", "-")
                raise AnachronError(f"{option} names an input ({os.path.realpath(path)}): choose another path")


def refuse_missing_directory(
    args: argparse.Namespace, outputs: Sequence[str] = ("out",), directories: Sequence[str] = ()
) -> None:
    """Refuse a file output (``--out``, or each option dest in *outputs*) whose directory does not exist.

    The rule of every command: a file output goes into a directory that
    exists, so a mistyped path is an error naming the missing directory,
    never a tree of new directories.  A directory output (the dests in
    *directories*: ``demo --out DIR``, ``run --out RUNDIR``, ``serve
    --events-dir DIR``, ``--figures DIR``) is a new directory by nature: the
    command makes it with its missing parents (``runs/aster`` in a fresh
    clone), so only a file standing where one of them should be is refused
    here.  A URL (``index --to postgresql://...``) is no path.  Raises
    :class:`AnachronError`.

    >>> refuse_missing_directory(argparse.Namespace(out="report.html"))
    >>> refuse_missing_directory(argparse.Namespace(out="/nonexistent/dir/x.html"))
    Traceback (most recent call last):
    anachron.core.errors.AnachronError: --out /nonexistent/dir/x.html: directory /nonexistent/dir does not exist; create it first
    >>> refuse_missing_directory(argparse.Namespace(out="/nonexistent/runs/a"), directories=("out",))
    """
    for dest in outputs:
        value = getattr(args, dest, None)
        if not isinstance(value, str) or not value or "://" in value:
            continue
        option = "--" + dest.replace("_", "-")
        parent = os.path.dirname(os.path.normpath(value)) or "."
        if dest in directories:
            while parent and not os.path.exists(parent) and os.path.dirname(parent) != parent:
                parent = os.path.dirname(parent)  # the nearest existing ancestor: the one that must be a directory
            if not parent or os.path.isdir(parent) or not os.path.exists(parent):
                continue
            raise AnachronError(f"{option} {value}: {parent} is not a directory")
        if os.path.isdir(parent):
            continue
        why = "is not a directory" if os.path.exists(parent) else "does not exist"
        raise AnachronError(f"{option} {value}: directory {parent} {why}; create it first")


def iso_date(text: str) -> _dt.date:
    """An argparse type: a strict ``YYYY-MM-DD`` day (a bad one is a one-line usage error)."""
    try:
        return parse_date(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def count(text: str) -> int:
    """An argparse type: a non-negative integer written in digits."""
    if not re.fullmatch(r"[0-9]+", text):
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return int(text)


def emit_csv(records: Sequence, columns: Sequence[str]) -> None:
    """Print flat records as CSV (docs/formats.md, "CSV")."""
    from anachron.output.records import csv_text

    sys.stdout.write(csv_text(records, columns))
