"""Streaming scorer: trace records in, one result at a time out.

:func:`score_stream` reads, validates, scores and writes one trace at a time,
so memory holds the corpus and one trace, not the trace file.  A source of
records is any iterable of ``(where, object)`` (a JSON Lines file through
:func:`anachron.core.jsonio.stream_records`, an importer, an event log), and an output
format is a :class:`Writer`; :data:`WRITERS` names the built-in ones:

- ``json``: the score JSON, written sample by sample with the summary last
  by the core's one writer (:class:`~anachron.core.leakage.score_json.ScoreJsonWriter`),
  byte for byte what ``dump_json`` of the whole document gives;
- ``jsonl``: one compact line per sample (``SampleResult.to_dict()``), then
  one line ``{"summary": {...}}``;
- ``table``: the per-sample table of :mod:`anachron.output.text_table`.  Its first lines are
  the completeness line (when incomplete) and the seal verdict (where an audit could apply:
  :func:`~anachron.output.text_table.head_lines`), and its sample column is as wide as the longest id, both
  known only at the end, so rows wait in a temporary file (not in memory)
  until then;
- ``csv``: :func:`anachron.output.records.csv_text` of the results' records, a
  header then one line per sample (no summary).

A command may add to the run summary what only it knows (``score-events``:
the protocol errors of its logs): :class:`Addenda`, fields of the JSON
summary and lines under the table's summary, read when the writer finishes.

Writers write to a text stream; :func:`anachron.core.atomic.staged_output` gives one
that appears whole or not at all.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from typing import AbstractSet, Callable, Iterable, Iterator, Mapping, Protocol, TextIO

from anachron.core.corpus import Corpus
from anachron.core.leakage import RunSummary, SampleResult, ScoreJsonWriter, score_trace, summarise
from anachron.core.trace import iter_traces
from anachron.core.jsonio import Record, dump_json
from anachron.output.records import SAMPLE_COLUMNS, csv_header, csv_line, sample_record
from anachron.output.text_table import evidence_line, head_lines, summary_lines, table_header, table_row

__all__ = ["FORMATS", "WRITERS", "Addenda", "Writer", "score_stream"]


@dataclass
class Addenda:
    """What a command adds to the run summary: *fields* of the JSON summary (``json``, ``jsonl``), after
    the core's, and *lines* under the table's summary.  Filled while the records are read, so a
    writer reads them when it finishes; ``csv`` has no summary and shows neither."""

    fields: dict = field(default_factory=dict)
    lines: list = field(default_factory=list)


def _summary_dict(summary: RunSummary, addenda: "Addenda | None") -> dict:
    return summary.to_dict() if addenda is None else {**summary.to_dict(), **addenda.fields}


class Writer(Protocol):
    """An output format: told each result as it is scored, then the run's summary.

    For ``--jobs``, a format also writes one sample as a text ``part``
    (static: workers write parts to files), and ``add_parts`` takes a file
    of *count* parts whose longest sample id is *width* characters.
    """

    @staticmethod
    def part(result: SampleResult) -> str: ...

    def sample(self, result: SampleResult) -> None: ...

    def add_parts(self, parts: TextIO, count: int, width: int) -> None: ...

    def finish(self, summary: RunSummary) -> None: ...

    def close(self) -> None:
        """Let go of anything held (temporary files), finished or not."""


def score_stream(
    records: Iterable[Record], corpus: Corpus, writer: Writer, *, sealed_tools: AbstractSet[str] | None = None
) -> RunSummary:
    """Validate and score each trace record in order, handing each result to *writer* as it is ready.

    *sealed_tools* are the tools audited for seal breaches (see
    :func:`~anachron.core.leakage.score_trace`; ``None``: no audit).

    The summary is computed in the same single pass (:func:`summarise` over
    the stream) and handed to ``writer.finish``.  A bad record raises
    :class:`~anachron.core.errors.AnachronError` when it is reached, after the
    results before it were written: write to a staged output.
    """
    try:
        summary = summarise(_scored(records, corpus, writer, sealed_tools))
        writer.finish(summary)
    finally:
        writer.close()
    return summary


def _scored(
    records: Iterable[Record], corpus: Corpus, writer: Writer, sealed_tools: AbstractSet[str] | None
) -> Iterator[SampleResult]:
    for trace in iter_traces(records, corpus):
        result = score_trace(trace, corpus, sealed_tools=sealed_tools)
        writer.sample(result)
        yield result


_COPY = 1 << 20  # characters per read when a writer copies a file of parts


class JsonWriter(ScoreJsonWriter):
    """The score JSON (:class:`~anachron.core.leakage.score_json.ScoreJsonWriter`), with a command's :class:`Addenda`."""

    addenda: Addenda | None = None

    def finish(self, summary: RunSummary) -> None:  # type: ignore[override]
        super().finish(summary, None if self.addenda is None else self.addenda.fields)


class _LineWriter:
    """A format of one text part per sample, copied through as it comes (jsonl, csv)."""

    addenda: Addenda | None = None

    def __init__(self, out: TextIO) -> None:
        self.out = out

    @staticmethod
    def part(result: SampleResult) -> str:
        raise NotImplementedError

    def sample(self, result: SampleResult) -> None:
        self.out.write(self.part(result))

    def add_parts(self, parts: TextIO, count: int, width: int) -> None:
        for chunk in iter(lambda: parts.read(_COPY), ""):
            self.out.write(chunk)

    def finish(self, summary: RunSummary) -> None:
        pass

    def close(self) -> None:
        pass


class JsonLinesWriter(_LineWriter):
    """One sample per line, then ``{"summary": ...}``: what ``dump_json(..., indent=None)`` writes."""

    @staticmethod
    def part(result: SampleResult) -> str:
        return dump_json(result.to_dict(), indent=None)

    def finish(self, summary: RunSummary) -> None:
        self.out.write(dump_json({"summary": _summary_dict(summary, self.addenda)}, indent=None))


class TableWriter:
    """The per-sample table (:mod:`anachron.output.text_table`'s lines); rows wait in temporary files for the column width."""

    addenda: Addenda | None = None

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.width = len("sample")
        self.rows = _spool()
        self.waiting = [self.rows]

    @staticmethod
    def part(result: SampleResult) -> str:
        # The id's length, its row unpadded, its evidence: one JSON line (ids may hold newlines).
        return json.dumps([len(result.sample_id), table_row(result, 0), *result.evidence], ensure_ascii=False) + "\n"

    def sample(self, result: SampleResult) -> None:
        self.width = max(self.width, len(result.sample_id))
        self.rows.write(self.part(result))

    def add_parts(self, parts: TextIO, count: int, width: int) -> None:
        spool = _spool()
        for chunk in iter(lambda: parts.read(_COPY), ""):
            spool.write(chunk)
        self.waiting.append(spool)
        self.width = max(self.width, width)

    def finish(self, summary: RunSummary) -> None:
        width, out = self.width, self.out
        header = table_header(width)
        head = head_lines(summary)
        out.write("".join(line + "\n" for line in head) + ("\n" if head else "") + f"{header}\n{'-' * len(header)}\n")
        for rows in self.waiting:
            rows.seek(0)
            for line in rows:
                length, row, *evidence = json.loads(line)
                out.write(row[:length].ljust(width) + row[length:] + "\n")
                for text in evidence:
                    out.write(evidence_line(text, width) + "\n")
        extra = [] if self.addenda is None else self.addenda.lines
        out.write("\n" + "\n".join([*summary_lines(summary), *extra]) + "\n")
        self.close()

    def close(self) -> None:
        for rows in self.waiting:
            rows.close()


class CsvWriter(_LineWriter):
    """A header, then one line per sample (:func:`anachron.output.records.csv_line`); no summary."""

    def __init__(self, out: TextIO) -> None:
        super().__init__(out)
        out.write(csv_header(SAMPLE_COLUMNS))

    @staticmethod
    def part(result: SampleResult) -> str:
        return csv_line(sample_record(result), SAMPLE_COLUMNS)


def _spool() -> TextIO:
    # surrogatepass: ids and evidence may hold lone surrogates; the final stream decides how to show them.
    return tempfile.TemporaryFile("w+", encoding="utf-8", errors="surrogatepass", newline="\n")  # type: ignore[return-value]


WRITERS: Mapping[str, Callable[[TextIO], Writer]] = {
    "table": TableWriter, "json": JsonWriter, "jsonl": JsonLinesWriter, "csv": CsvWriter,
}
FORMATS = tuple(WRITERS)
