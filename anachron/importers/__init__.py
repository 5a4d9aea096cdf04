"""Importers: agent logs of other harnesses as trace records (docs/importers.md).

    from anachron.importers import Options, import_logs
    records = import_logs("claude-code", ["session.jsonl"], Options(as_of=date(2023, 1, 1)))
    traces = parse_traces(records, corpus)

:func:`import_logs` yields ``(where, record)`` pairs, one trace record per
conversation or session, one log at a time, for
:func:`~anachron.core.parse_traces`.  The importers only read: they turn
each tool call into an interaction with its status, arguments, query,
command and the items its result showed (open-web items as shown, corpus
ids when a corpus is given), and keep the final answer and its citations.
Dating and every metric stay in the core.  Standard library only: Inspect logs
are read by :func:`anachron.inspect.import_inspect_logs` (the ``inspect`` extra), which
hands a sample of another task back to :func:`inspect_sample_record`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, Sequence

from anachron.core.errors import AnachronError
from anachron.core.jsonio import Record
from anachron.importers import _anthropic, _claude_code, _codex, _gemini_cli, _openai_chat, _openai_responses, _langchain, _otel, _pydantic_ai
from anachron.importers._common import Options, rescored_note, stated_cutoff
from anachron.importers._inspect import sample_record as inspect_sample_record
from anachron.importers._mcp_config import seal_declaration, sealed_tools_from

__all__ = ["FORMATS", "Options", "check_inspect_options", "import_logs", "inspect_sample_record", "rescored_note", "seal_declaration",
           "sealed_tools_from", "stated_cutoff"]

_READERS = {
    "openai-chat": _openai_chat.read,
    "openai-responses": _openai_responses.read,
    "anthropic": _anthropic.read,
    "claude-code": _claude_code.read,
    "otel": _otel.read,
    "pydantic-ai": _pydantic_ai.read,
    "langchain": _langchain.read,
    "codex": _codex.read,
    "gemini-cli": _gemini_cli.read,
}
FORMATS = (*_READERS, "mcp-events")
"""The formats :func:`import_logs` reads.  ``inspect`` logs are read by
:func:`anachron.inspect.import_inspect_logs` (the ``inspect`` extra, a layer above);
``anachron score`` and ``anachron import`` read both."""


def _mcp_events(paths: Sequence[str], options: Options) -> Iterator[Record]:
    from anachron.core import load_corpus_dir
    from anachron.timelock.events import load_scored_events
    from anachron.timelock.run_trace import events_trace

    corpus = options.scoring_corpus or options.corpus or load_corpus_dir(None)
    for path in paths:
        log = load_scored_events(path)
        if log.torn and options.warn is not None:
            options.warn(f"warning: {log.torn}; scored the {len(log.calls)} complete call(s) before it")
        sample_id = Path(path).name.removesuffix(".jsonl")
        fixed = corpus.samples.get(sample_id)
        as_of = stated_cutoff(path, sample_id, log.as_of, options, fixed.as_of if fixed is not None else None)
        if as_of is None:
            raise AnachronError(f"{path}: the log names no as-of date: pass --as-of DATE or --as-of-map FILE.json")
        yield str(path), events_trace(log, corpus, sample_id=sample_id, as_of=as_of)


def check_inspect_options(options: Options) -> None:
    """Refuse what Inspect logs never read (their samples have ids), before the Inspect adapter is
    imported, so the refusal does not wait on the ``inspect`` extra."""
    if options.sample_id_from is not None:
        raise AnachronError("--sample-id-from is not read for inspect logs: their samples have ids")


def import_logs(
    log_format: str,
    paths: Sequence[str | os.PathLike[str]],
    options: Options,
) -> Iterator[Record]:
    """The trace records of *paths*, read as *log_format* (one of :data:`FORMATS`), log by log.

    Every error is an :class:`~anachron.core.errors.AnachronError` naming the file
    and the line, message or span.  ``claude-code`` paths
    are read together: the files of one session (its subagents') are one record.
    An option a format does not read (``--as-of-field`` for ``mcp-events``) is
    refused, never ignored.
    """
    if log_format == "inspect":
        raise AnachronError("inspect logs are read by anachron.inspect.import_inspect_logs (the inspect extra)")
    if log_format not in FORMATS:
        raise AnachronError(f"unknown log format {log_format!r}: choose one of {', '.join(FORMATS)}")
    if not paths:
        raise AnachronError("no log given")
    names = [str(path) for path in paths]
    if log_format == "mcp-events" and options.retrieval_tools is not None:
        raise AnachronError(f"--retrieval-tools is not read for {log_format} logs: every call of Anachron's own tools retrieves")
    if log_format == "mcp-events" and options.as_of_field is not None:
        raise AnachronError(f"--as-of-field is not read for {log_format} logs: each names its own cutoff")
    if log_format == "mcp-events":
        if options.sample_id_from is not None:
            raise AnachronError("--sample-id-from is not read for mcp-events logs: each log's file name names its run")
        return _mcp_events(names, options)
    if log_format == "claude-code":
        return _claude_code.read_sessions(names, options)  # a session's files merge, wherever they were passed
    reader = _READERS[log_format]
    return (record for path in names for record in reader(path, options))
