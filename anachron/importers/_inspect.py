"""Samples of any Inspect task (not one of Anachron's) as trace records (``--from inspect``).

A sample is read from its messages, then its events, as Inspect's own objects
(``EvalSample``: this module reads their attributes and imports nothing of
Inspect, so it loads without the extra):

- an assistant message's ``tool_calls`` are calls; the ``tool`` message that
  names a call's id is its result (``error`` set: the call failed);
- an assistant message's ``ContentToolUse`` parts (``type`` ``tool_use``: a
  provider's server-side web search, MCP call or code execution) are calls
  with their result in place (a JSON result is read as a list of items);
- a ``model`` event's output message that ``messages`` no longer holds (by
  message id: compacted, or trimmed by a solver) is read as an assistant
  message; a ``ToolEvent`` (``event`` ``tool``) whose id no message named is
  a call; one whose call had no result message gives it its result.  A
  ``pending`` event has none;
- a result made of ``ContentText`` parts with ``citations`` (what Inspect's
  ``web_search`` returns) shows one item per cited URL (title, cited text as
  snippet).  Inspect keeps no publish date there, so these items are dated by
  their URL (and snippet) only.

A call no result names stays ``unrecorded``.  A content part or event of a type
not known here is counted in the record's ``warnings``.  Shell tools
(:data:`~anachron.core.seal.SHELL_TOOLS`: Inspect's ``bash(cmd)``, ``python(code)``,
``bash_session(input)``) carry their ``command``.

The cutoff: the sample's ``metadata.as_of`` when it states one, by the rule
of every log that states its cutoff (:func:`._common.stated_cutoff`:
``--as-of`` / ``--as-of-map`` at another date rescore it, with a note;
``--as-of-field`` is refused for it, never ignored), else the
``--as-of-field`` path read on ``{"id", "epoch", "metadata"}`` of the
sample, else ``--as-of`` / ``--as-of-map``.

>>> import datetime
>>> from types import SimpleNamespace as O
>>> call = O(id="c1", function="bash", arguments={"cmd": "ls"})
>>> sample = O(id=1, epoch=1, metadata={}, events=[O(event="hologram")], output=None, messages=[
...     O(role="assistant", content=[O(type="smell")], tool_calls=[call])])
>>> where, record = sample_record("log.eval", sample, Options(as_of=datetime.date(2023, 1, 1)))
>>> where, record["interactions"]
('log.eval: sample 1', [{'tool': 'bash', 'status': 'unrecorded', 'command': 'ls', 'call_id': 'c1', 'arguments': {'cmd': 'ls'}, 'retrieval': False}])
>>> for line in record["warnings"]: print(line)
skipped 1 item of unknown type 'smell' (message 1): update anachron if they hold a tool call
skipped 1 item of unknown type 'hologram event' (event 1): update anachron if they hold a tool call
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from anachron.core.dates import parse_date
from anachron.core.errors import AnachronError
from anachron.core.jsonio import Record, json_or_none
from anachron.core.seal import SHELL_TOOLS
from anachron.importers._common import Options, Session, as_of_of, awaiting, stated_cutoff

# Inspect 0.3.285's content types that hold no tool call, and its event types that record none
# (tool calls are in "tool" events and, as messages, in "model" events).
_QUIET_CONTENT = frozenset({"text", "reasoning", "image", "audio", "video", "data", "document"})
_QUIET_EVENTS = frozenset({
    "sample_init", "sample_limit", "sandbox", "state", "store", "model", "anchor", "approval", "review",
    "sentinel", "branch", "checkpoint", "compaction", "input", "interrupt", "score", "score_edit", "error",
    "logger", "info", "span_begin", "span_end", "step", "subtask",
})
_SHELL_INPUT = ("input",)  # bash_session(action, input): the text typed into the shell


def _cutoff(where: str, sample: Any, options: Options) -> _dt.date | None:
    metadata = sample.metadata or {}
    if "as_of" in metadata:
        if options.as_of_field is not None:
            raise AnachronError(f"{where}: the sample states its cutoff (metadata as_of): --as-of-field is not read for it")
        try:
            stated = parse_date(metadata["as_of"])
        except AnachronError as exc:
            raise AnachronError(f"{where}: metadata as_of: {exc}") from None
        return stated_cutoff(where, str(sample.id), stated, options)
    return as_of_of({"id": sample.id, "epoch": sample.epoch, "metadata": metadata}, options, where)


def _value(result: Any) -> Any:
    """A tool result as the importers read it: text, or the cited items of Inspect's ``web_search``."""
    if isinstance(result, str):
        return result
    if isinstance(result, (bool, int, float)):
        return str(result)
    parts = result if isinstance(result, list) else [result]
    cited: list[dict[str, Any]] = []
    texts: list[str] = []
    for part in parts:
        for citation in getattr(part, "citations", None) or []:
            url = getattr(citation, "url", None)
            if isinstance(url, str) and url.strip():
                item = {"url": url, "title": getattr(citation, "title", None), "snippet": getattr(citation, "cited_text", None)}
                cited.append({k: v for k, v in item.items() if isinstance(v, str)})
        text = getattr(part, "text", None)
        if isinstance(text, str):
            texts.append(text)
    return cited if cited else "\n".join(texts)


def _complete(session: Session, entry: dict[str, Any], result: Any, error: Any) -> None:
    if error is not None:
        session.failed(entry, getattr(error, "message", None) or str(error))
    else:
        session.result(entry, _value(result))


def _call(session: Session, name: str, arguments: Any, ident: str | None) -> dict[str, Any]:
    command = None
    if name in SHELL_TOOLS and isinstance(arguments, dict):
        command = next((arguments[k] for k in _SHELL_INPUT if isinstance(arguments.get(k), str)), None)
    return session.call(name, arguments, call_id=ident, command=command)


def _assistant(
    session: Session, message: Any, place: str, calls: dict[str, dict[str, Any]], pending: dict[str, dict[str, Any]]
) -> None:
    """The calls of one assistant message (of ``messages``, or a model event's output) not read yet, by id."""
    for part in message.content if isinstance(message.content, list) else []:
        kind = getattr(part, "type", None)
        if kind == "tool_use":
            if part.id in calls:
                continue
            entry = calls[part.id] = session.call(part.name, json_or_none(part.arguments) if part.arguments.strip() else None, call_id=part.id)
            if part.error is not None:
                session.failed(entry, part.error)
            else:  # a provider's result, as the provider's JSON (or text)
                parsed = json_or_none(part.result)
                session.result(entry, parsed if parsed is not None else part.result)
        elif kind not in _QUIET_CONTENT:
            session.unknown_item(kind, {}, place)
    for call in message.tool_calls or []:
        if call.id not in calls:
            entry = calls[call.id] = _call(session, call.function, call.arguments, call.id)
            awaiting(pending, call.id, f"{session.where}: {place}")[call.id] = entry


def sample_record(path: str, sample: Any, options: Options) -> Record:
    """The ``(where, record)`` of one sample of *path* (an ``EvalSample``), by the module's rules."""
    where = f"{path}: sample {sample.id}"
    session = Session(where, "inspect", options.corpus)
    pending: dict[str, dict[str, Any]] = {}  # calls awaiting a result, by id
    calls: dict[str, dict[str, Any]] = {}  # every call read, by id
    read: set[str] = set()  # ids of the assistant messages read
    for number, message in enumerate(sample.messages or [], start=1):
        if message.role == "assistant":
            _assistant(session, message, f"message {number}", calls, pending)
            if getattr(message, "id", None):
                read.add(message.id)
        elif message.role == "tool":
            entry = pending.pop(message.tool_call_id or "", None)
            if entry is None:  # a result whose call no message holds: the call is known by its result
                entry = _call(session, message.function or "tool", None, message.tool_call_id)
            _complete(session, entry, message.content, message.error)
    for number, event in enumerate(sample.events or [], start=1):
        kind = getattr(event, "event", None)
        if kind == "model" and event.output is not None and event.output.choices:
            # A turn the messages no longer hold (compacted, or trimmed by a solver): its calls are read here.
            message = event.output.choices[0].message
            if getattr(message, "id", None) not in read:
                _assistant(session, message, f"event {number}", calls, pending)
        elif kind == "tool":
            entry = calls.get(event.id)
            if entry is None:
                entry = calls[event.id] = _call(session, event.function, event.arguments, event.id)
            pending.pop(event.id, None)
            if entry["status"] == "unrecorded" and not getattr(event, "pending", False):
                _complete(session, entry, event.result, event.error)
        elif kind not in _QUIET_EVENTS:
            session.unknown_item(f"{kind} event", {}, f"event {number}")
    output = sample.output
    message = output.message if output is not None and output.choices else None
    citations = [
        c.url
        for part in (message.content if message is not None and isinstance(message.content, list) else [])
        for c in getattr(part, "citations", None) or []
        if isinstance(getattr(c, "url", None), str)
    ]
    session.final_answer(output.completion if output is not None else None, citations)
    return where, session.record(str(sample.id), options, _cutoff(where, sample, options))
