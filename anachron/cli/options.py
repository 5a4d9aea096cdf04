"""Options and argument types shared by several subcommands (one definition each)."""

from __future__ import annotations

import argparse
import datetime as _dt
import re
import sys
from typing import Sequence

from ..core.dates import parse_date

__all__ = ["add_corpus_option", "add_format_option", "count", "emit_csv", "emit_scores", "iso_date"]


def add_corpus_option(parser: argparse.ArgumentParser, *, help: str | None = None, metavar: str = "DIR|INDEX") -> None:
    parser.add_argument(
        "--corpus",
        metavar=metavar,
        help=help or "corpus directory or index file built by `anachron index` (default: the bundled v0 corpus)",
    )


def add_format_option(parser: argparse.ArgumentParser, *, extra: Sequence[str] = ()) -> None:
    """``--format table|json`` and the *extra* formats (``csv``: docs/formats.md, "CSV")."""
    parser.add_argument("--format", choices=("table", "json", *extra), default="table", help="output format (default: table)")


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


def emit_scores(results: Sequence, fmt: str) -> None:
    """Print scored results as ``anachron score`` does."""
    from ..io import dump_json
    from ..records import SAMPLE_COLUMNS, sample_records
    from ..report import score_document, score_table

    if fmt == "csv":
        emit_csv(sample_records(results), SAMPLE_COLUMNS)
        return
    text = dump_json(score_document(results)) if fmt == "json" else score_table(results)
    sys.stdout.write(text)


def emit_csv(records: Sequence, columns: Sequence[str]) -> None:
    """Print flat records as CSV (docs/formats.md, "CSV")."""
    from ..records import csv_text

    sys.stdout.write(csv_text(records, columns))
