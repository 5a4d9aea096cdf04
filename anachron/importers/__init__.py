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
Dating and every metric stay in the core.  Standard library only (the
``inspect`` format needs the ``inspect`` extra, as ``anachron export`` does).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, Sequence

from anachron.core.errors import AnachronError
from anachron.core.jsonio import Record
from anachron.importers import _inspect as _inspect_log
from anachron.importers import _anthropic, _claude_code, _codex, _gemini_cli, _openai_chat, _openai_responses, _langchain, _otel, _pydantic_ai
from anachron.importers._common import Options
from anachron.importers._mcp_config import seal_declaration, sealed_tools_from

__all__ = ["FORMATS", "Options", "import_logs", "seal_declaration", "sealed_tools_from"]

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
FORMATS = (*_READERS, "inspect", "mcp-events")


def _inspect(paths: Sequence[str], options: Options, corpus_dir: str | None) -> Iterator[Record]:
    try:
        from anachron.inspect.export import log_records
    except ImportError as exc:
        # anachron.inspect's own message names the extra and its install; say it once
        hint = "" if "pip install" in str(exc) else "; install it with: pip install 'anachron[inspect]'"
        raise AnachronError(f"--from inspect: {exc}{hint}") from None
    given = [name for name, value in (("--as-of", options.as_of), ("--as-of-map", options.as_of_map),
                                       ("--as-of-field", options.as_of_field), ("--retrieval-tools", options.retrieval_tools))
             if value is not None]
    # An anachron task's sample is rebuilt by its scorer (cutoff: its task's); any other sample by _inspect.
    records, _ = log_records(
        list(paths),
        corpus=corpus_dir,
        foreign=lambda path, sample: _inspect_log.sample_record(path, sample, options),
        refuse=" / ".join(given) or None,
    )
    yield from records  # one batch of samples at a time


def _mcp_events(paths: Sequence[str], options: Options) -> Iterator[Record]:
    from anachron.core import load_corpus_dir
    from anachron.timelock.events import events_trace, load_events

    corpus = options.scoring_corpus or options.corpus or load_corpus_dir(None)
    for path in paths:
        log = load_events(path)
        if not log.header and not log.calls:
            torn = f" ({log.torn})" if log.torn else ""
            raise AnachronError(f"{path}: the log holds no complete event record{torn}")
        if log.torn and options.warn is not None:
            options.warn(f"warning: {log.torn}; scored the {len(log.calls)} complete call(s) before it")
        sample_id = Path(path).name.removesuffix(".jsonl")
        as_of = options.as_of if options.as_of_map is None else None
        if options.as_of_map is not None:
            as_of = options.as_of_map.get(sample_id)
        as_of = as_of or log.as_of
        if as_of is None:
            raise AnachronError(f"{path}: the log names no as-of date: pass --as-of DATE or --as-of-map FILE.json")
        yield str(path), events_trace(log, corpus, sample_id=sample_id, as_of=as_of)


def import_logs(
    log_format: str,
    paths: Sequence[str | os.PathLike[str]],
    options: Options,
    *,
    corpus_dir: str | None = None,
) -> Iterator[Record]:
    """The trace records of *paths*, read as *log_format* (one of :data:`FORMATS`), log by log.

    Every error is an :class:`~anachron.core.errors.AnachronError` naming the file
    and the line, message or span.  *corpus_dir* is the corpus directory an
    ``inspect`` log is scored with (default: its task's).  ``claude-code`` paths
    are read together: the files of one session (its subagents') are one record.
    An option a format does not read (``--as-of-field`` for ``mcp-events``; ``--as-of``
    for a sample of an anachron Inspect task) is refused, never ignored.
    """
    if log_format not in FORMATS:
        raise AnachronError(f"unknown log format {log_format!r}: choose one of {', '.join(FORMATS)}")
    if not paths:
        raise AnachronError("no log given")
    names = [str(path) for path in paths]
    if log_format == "mcp-events" and options.retrieval_tools is not None:
        raise AnachronError(f"--retrieval-tools is not read for {log_format} logs: every call of Anachron's own tools retrieves")
    if log_format == "mcp-events" and options.as_of_field is not None:
        raise AnachronError(f"--as-of-field is not read for {log_format} logs: each names its own cutoff")
    if log_format == "inspect":
        # --as-of, --as-of-map, --as-of-field and --retrieval-tools apply to samples of other tasks
        # and are refused, sample by sample, for an anachron task's (anachron.inspect.export).
        if options.sample_id_from is not None:
            raise AnachronError("--sample-id-from is not read for inspect logs: their samples have ids")
        return _inspect(names, options, corpus_dir)
    if log_format == "mcp-events":
        if options.sample_id_from is not None:
            raise AnachronError("--sample-id-from is not read for mcp-events logs: each log's file name names its run")
        return _mcp_events(names, options)
    if log_format == "claude-code":
        return _claude_code.read_sessions(names, options)  # a session's files merge, wherever they were passed
    reader = _READERS[log_format]
    return (record for path in names for record in reader(path, options))
