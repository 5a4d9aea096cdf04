"""Flat records of results, for data frames and CSV (docs/formats.md, "CSV").

A record is a ``dict`` of column -> scalar (``str``, ``int``, ``float``,
``bool`` or ``None``), every record of a kind with the same columns in the
same order, so ``pandas.DataFrame(records)`` takes a list of them as it is
and :func:`csv_text` writes them under one header (:func:`csv_header`, then
one :func:`csv_line` per record, for a writer that streams).

- :func:`sample_records`: one row per :class:`~anachron.core.SampleResult`;
  ``failed_calls`` split into one column per failed status, ``evidence``
  joined with ``\\n`` (and counted in ``evidence_lines``), ``unrecorded``
  the calls whose result the log does not hold, ``warnings`` the importer's,
  joined with ``\\n``;
- :func:`comparison_records`: one row, the fields of a
  :class:`~anachron.core.ModeComparison`;
- a bank score card's rows are :meth:`anachron.bank.run.BankRun.to_records`,
  columns :data:`anachron.bank.run.BANK_COLUMNS` (defined beside it, as the
  comparison's are; not re-exported, since the output side never imports the
  bank, :mod:`anachron.timelock.quarantine`).

CSV is written with ``\\n`` line ends, a header row, fields quoted only
when needed, ``None`` as an empty field, booleans as ``true``/``false`` and
floats in their shortest round-trip form; a lone surrogate (valid JSON,
not UTF-8) is written as a ``\\udXXXX`` escape.  Same records, same bytes.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any, Iterable, Mapping, Sequence

from anachron.core.leakage import FAILED_STATUSES, SampleResult
from anachron.core.stats.paired import COMPARISON_COLUMNS  # defined beside ModeComparison.to_records()

__all__ = ["COMPARISON_COLUMNS", "SAMPLE_COLUMNS", "comparison_records",
           "csv_header", "csv_line", "csv_text", "sample_record", "sample_records"]

SAMPLE_COLUMNS: tuple[str, ...] = (
    "sample_id", "as_of", "mode", "slice", "tclr", "tclr_low", "tclr_high", "interactions", "result_leaks", "undated", "unrecorded",
    "survivorship_leaks", "survivorship_base", "survivorship_rate", "restatement_leaks", "query_intent_leaks",
    "content_leaks", "revision_risks", "date_conflicts", "blocked_attempts", "calls",
    "not_yet_listed", "already_delisted", "answer_leaks_retrieved", "answer_leaks_parametric",
    "open_period_queries", "answered", "seal_breaches", "seal_status",
    *(f"failed_{status}" for status in FAILED_STATUSES),
    "horizon_days", "evidence_lines", "evidence", "warnings",
)


def sample_records(results: Iterable[SampleResult]) -> list[dict[str, Any]]:
    """One flat record per result, columns :data:`SAMPLE_COLUMNS`."""
    return [sample_record(r) for r in results]


def sample_record(r: SampleResult) -> dict[str, Any]:
    """The flat record of one result, columns :data:`SAMPLE_COLUMNS`."""
    d = r.to_dict()
    row = {name: d.get(name) for name in SAMPLE_COLUMNS}
    row["calls"] = r.calls
    for status in FAILED_STATUSES:
        row[f"failed_{status}"] = r.failed_calls.get(status, 0)
    row["evidence_lines"] = len(r.evidence)
    row["evidence"] = "\n".join(r.evidence)
    row["warnings"] = "\n".join(r.warnings)  # each one line (anachron.core.trace.warnings_of)
    return row


def comparison_records(comparison: Any) -> list[dict[str, Any]]:
    """The comparison as one record, columns :data:`COMPARISON_COLUMNS` (``ModeComparison.to_records()``)."""
    return comparison.to_records()


_SURROGATE = re.compile("[\ud800-\udfff]")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", str(value))


def csv_text(records: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """*records* as CSV text: a header of *columns*, then one line per record."""
    return csv_header(columns) + "".join(csv_line(record, columns) for record in records)


def csv_header(columns: Sequence[str]) -> str:
    """The header line of CSV text with *columns*."""
    return _csv_row(columns)


def csv_line(record: Mapping[str, Any], columns: Sequence[str]) -> str:
    """One record's line of CSV text with *columns* (a streaming writer writes these one at a time)."""
    return _csv_row([_cell(record.get(name)) for name in columns])


def _csv_row(cells: Sequence[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(cells)
    return out.getvalue()
