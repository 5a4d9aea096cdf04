"""``pydantic-ai``: a pydantic-ai message history, as ``ModelMessagesTypeAdapter.dump_json(result.all_messages())``
writes it (checked against pydantic-ai-slim 2.68.0).

A conversation is a JSON list of messages (or an object with ``messages``); a
file is one conversation, or JSON Lines of them.  Its own id (the default
sample id) is the messages' ``conversation_id``, else their ``run_id``.
Parts read, by ``part_kind``:

- ``tool-call`` / ``builtin-tool-call`` (``tool_name``, ``args`` as an object
  or a JSON string, ``tool_call_id``) in a ``response``, timed by the
  response's ``timestamp``;
- ``tool-return`` / ``builtin-tool-return``: the call's result, paired by
  ``tool_call_id``; its ``content`` is kept as the tool returned it (a list of
  objects keeps their ``published_date``); ``outcome`` other than ``success``
  is an ``error`` call (``denied``: ``refused``);
- ``retry-prompt`` naming a tool: the call failed (its ``content`` is the error);
- ``text`` parts of a ``response``: the answer (the latest response with text wins).

Prompts, instructions, thinking, files and the other bookkeeping parts are
read as not being calls; any other part or message kind is counted in the
record's ``warnings``.  A call with no result by the end of the history is
``unrecorded``; a result naming no earlier call is counted in the warnings too
(a history processor may have cut the start).

>>> import datetime as dt
>>> from anachron.importers._common import Options
>>> history = [{"kind": "response", "conversation_id": "c-1", "parts": [
...     {"part_kind": "tool-call", "tool_name": "search", "args": {"query": "q"}, "tool_call_id": "t1"}]}]
>>> (obj, (session, gaps, own)) = conversation("h.json", history, Options())
>>> own, gaps.record(session, own, Options(as_of=dt.date(2023, 1, 1)))["interactions"][0]["status"]
('c-1', 'unrecorded')
"""

from __future__ import annotations

from typing import Any, Iterator

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import Record
from anachron.importers._common import Options, Session, awaiting, expect_list, expect_object, message_list, parse_arguments
from anachron.importers._results import text_of
from anachron.importers._shared_sessions import Built, Gaps, per_document

FORMAT = "pydantic-ai"
CAUSE = "the history ends before their tool-return parts (save result.all_messages() after the run has finished)"
_CALLS = ("tool-call", "builtin-tool-call")
_RETURNS = ("tool-return", "builtin-tool-return")
_NOT_CALLS = frozenset({
    "system-prompt", "user-prompt", "thinking", "file", "compaction", "speech", "retry-feedback", "instruction",
    "instruction-delta", "instruction-digest", "instruction-baseline", "tool-availability-delta",
    "capability-load-delta", "model-settings-delta",
})


def _own_id(messages: list[Any]) -> str | None:
    for key in ("conversation_id", "run_id"):
        for message in messages:
            value = message.get(key) if isinstance(message, dict) else None
            if isinstance(value, str) and value:
                return value
    return None


def _ident(part: dict[str, Any], at: str) -> str:
    ident = part.get("tool_call_id")
    if not isinstance(ident, str) or not ident:
        raise AnachronError(f"{at}: tool_call_id is {describe(ident)}, expected the id pairing the call with its return")
    return ident


def conversation(where: str, value: Any, options: Options) -> tuple[Any, Built]:
    obj, messages = message_list(where, value)
    session, gaps = Session(where, FORMAT, options.corpus), Gaps(CAUSE)
    pending: dict[str, dict[str, Any]] = {}
    for m, raw in enumerate(messages):
        message = expect_object(raw, f"{where} message {m}", "a message")
        kind = message.get("kind")
        if kind not in ("request", "response"):
            if not isinstance(kind, str):
                raise AnachronError(f"{where} message {m}: kind is {describe(kind)}, expected 'request' or 'response'")
            gaps.skip(kind)
            continue
        time = message.get("timestamp")
        texts = []
        for p, raw_part in enumerate(expect_list(message.get("parts"), f"{where} message {m}", "field 'parts'")):
            at = f"{where} message {m} part {p}"
            part = expect_object(raw_part, at, "a part")
            part_kind = part.get("part_kind")
            if part_kind in _CALLS:
                name = part.get("tool_name")
                if not isinstance(name, str) or not name:
                    raise AnachronError(f"{at}: tool_name is {describe(name)}, expected the tool's name")
                ident = _ident(part, at)
                awaiting(pending, ident, at)[ident] = session.call(name, parse_arguments(part.get("args")), call_id=ident, time=time)
            elif part_kind in _RETURNS or (part_kind == "retry-prompt" and part.get("tool_name") is not None):
                entry = pending.pop(_ident(part, at), None)
                if entry is None:
                    gaps.skip(f"{part_kind} without its call")
                elif part_kind == "retry-prompt":
                    session.failed(entry, part.get("content"))
                elif part.get("outcome", "success") == "success":
                    content = part.get("content")
                    session.result(entry, content)
                else:
                    session.failed(entry, f"tool {part.get('outcome')}: {text_of(part.get('content'))}")
                    if part.get("outcome") == "denied":
                        entry["status"] = "refused"
            elif part_kind == "text" and kind == "response":
                if isinstance(part.get("content"), str):
                    texts.append(part["content"])
            elif part_kind not in _NOT_CALLS and part_kind != "retry-prompt":
                if not isinstance(part_kind, str):
                    raise AnachronError(f"{at}: part_kind is {describe(part_kind)}, expected a part kind")
                gaps.skip(part_kind)
        if texts:
            session.final_answer("".join(texts))
    return obj, (session, gaps, _own_id(messages))


def read(path: str, options: Options) -> Iterator[Record]:
    return per_document(path, options, conversation)
