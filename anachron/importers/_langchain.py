"""``langchain``: LangChain messages, as ``messages_to_dict(messages)`` writes them, or a
LangGraph-style state ``{"messages": [...]}`` (checked against langchain-core 0.3.76).

A conversation is a JSON list of messages or an object with ``messages``; a
file is one conversation, or JSON Lines of them.  Its own id (the default
sample id) is the object's ``thread_id`` or ``id``, when it has one.  Each
message is unwrapped from whichever of LangChain's dumps wrote it, so a
tool's JSON ``content`` is read as JSON and its items keep their
``published_date``:

- ``messages_to_dict``: ``{"type": "tool", "data": {...}}``;
- ``dumpd`` / ``dumps`` (LangChain's serialisation, which LangGraph states
  use): ``{"lc": 1, "type": "constructor", "id": [..., "ToolMessage"], "kwargs": {...}}``;
- a message's own fields: ``{"type": "tool", "content": ...}`` (``model_dump()``).

Read: an ``ai`` message's ``tool_calls`` (``name``, ``args``, ``id``; else
the OpenAI-style ``additional_kwargs.tool_calls``) and its
``invalid_tool_calls`` (``error`` calls: their arguments did not parse, so
they never ran) and its text (a string, or ``text`` blocks; other content
blocks, such as a provider's server-side web search, are counted in the
warnings); a ``tool`` message's ``content`` is its call's result,
paired by ``tool_call_id`` (``status: "error"``: an ``error`` call); an
``ai`` message's text is the answer (the latest wins).  ``system``,
``human``, ``chat`` and ``remove`` messages are not calls; any other
message type is counted in the record's ``warnings``, and so is a tool
message naming no earlier call.  A call with no tool message by the end is
``unrecorded``.

>>> unwrap({"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
...         "kwargs": {"content": "[]", "tool_call_id": "c1"}}, "log.json")
('tool', {'content': '[]', 'tool_call_id': 'c1'})
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import Record
from anachron.importers._common import Options, Session, awaiting, expect_object, message_list, parse_arguments
from anachron.importers._results import text_of
from anachron.importers._shared_sessions import Built, Gaps, per_document

FORMAT = "langchain"
CAUSE = "no tool message answers them (save the messages after the tool node has run)"
_CLASSES = {"AIMessage": "ai", "AIMessageChunk": "ai", "HumanMessage": "human", "SystemMessage": "system",
            "ToolMessage": "tool", "ToolMessageChunk": "tool", "ChatMessage": "chat", "FunctionMessage": "function",
            "RemoveMessage": "remove", "HumanMessageChunk": "human", "SystemMessageChunk": "system"}
_NOT_CALLS = frozenset({"system", "human", "chat", "remove", "developer"})
_NOT_TEXT = frozenset({"tool_use", "tool_call", "tool_call_chunk", "thinking", "reasoning", "redacted_thinking"})  # calls are read from tool_calls


def unwrap(message: Any, at: str) -> tuple[str, Mapping[str, Any]]:
    """The message's type (``ai``, ``tool``, ...) and its fields, from any of LangChain's dumps."""
    message = expect_object(message, at, "a message")
    if message.get("lc") == 1 and message.get("type") == "constructor":
        ident = message.get("id")
        name = ident[-1] if isinstance(ident, list) and ident and isinstance(ident[-1], str) else None
        fields = expect_object(message.get("kwargs"), at, "field 'kwargs'")
        kind = _CLASSES.get(name or "", fields.get("type") if isinstance(fields.get("type"), str) else name)
    elif isinstance(message.get("data"), dict):
        kind, fields = message.get("type"), message["data"]
    else:
        kind, fields = message.get("type"), message
    if not isinstance(kind, str) or not kind:
        raise AnachronError(f"{at}: type is {describe(kind)}, expected a message type ('ai', 'tool', ...)")
    return kind.removesuffix("Chunk") if kind.endswith("MessageChunk") else kind, fields


def _tool_calls(fields: Mapping[str, Any]) -> list[tuple[Any, Any, Any]]:
    """(name, arguments, id) of an AI message's calls: ``tool_calls``, else OpenAI's ``additional_kwargs``."""
    calls = fields.get("tool_calls")
    if isinstance(calls, list) and calls:
        return [(c.get("name"), c.get("args"), c.get("id")) for c in calls if isinstance(c, dict)]
    extra = fields.get("additional_kwargs")
    raw = extra.get("tool_calls") if isinstance(extra, dict) else None
    if not isinstance(raw, list):
        return []
    out = []
    for c in raw:
        function = c.get("function") if isinstance(c, dict) else None
        if isinstance(function, dict):
            out.append((function.get("name"), parse_arguments(function.get("arguments")), c.get("id")))
    return out


def _ai_text(content: Any, gaps: Gaps) -> str | None:
    """An AI message's text: the string, or its ``text`` blocks; other blocks (a provider's server
    tool calls and results) are not read and are counted in the warnings."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else "string" if isinstance(block, str) else None
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "string":
            texts.append(block)
        elif kind not in _NOT_TEXT:
            gaps.skip(f"content block {kind}")
    return "".join(texts)


def _own_id(obj: Any) -> str | None:
    if isinstance(obj, dict):
        for key in ("thread_id", "id"):
            if isinstance(obj.get(key), str) and obj[key]:
                return obj[key]
    return None


def conversation(where: str, value: Any, options: Options) -> tuple[Any, Built]:
    obj, messages = message_list(where, value)
    session, gaps = Session(where, FORMAT, options.corpus), Gaps(CAUSE)
    pending: dict[str, dict[str, Any]] = {}
    for m, raw in enumerate(messages):
        at = f"{where} message {m}"
        kind, fields = unwrap(raw, at)
        if kind == "ai":
            for name, arguments, ident in _tool_calls(fields):
                if not isinstance(name, str) or not name:
                    raise AnachronError(f"{at}: a tool call's name is {describe(name)}, expected the tool's name")
                if not isinstance(ident, str) or not ident:
                    raise AnachronError(f"{at}: tool call {name!r}: id is {describe(ident)}, expected the id its tool message names")
                awaiting(pending, ident, at)[ident] = session.call(name, arguments, call_id=ident)
            for bad in fields.get("invalid_tool_calls") or []:
                if isinstance(bad, dict):
                    entry = session.call(str(bad.get("name") or "invalid_tool_call"), bad.get("args"),
                                         call_id=bad.get("id") if isinstance(bad.get("id"), str) else None)
                    session.failed(entry, f"invalid tool call: {bad.get('error') or 'its arguments did not parse'}")
            session.final_answer(_ai_text(fields.get("content"), gaps))
        elif kind == "tool":
            ident = fields.get("tool_call_id")
            entry = pending.pop(ident, None) if isinstance(ident, str) else None
            if entry is None:
                gaps.skip("tool message without its call")
            elif fields.get("status") == "error":
                session.errored(entry, text_of(fields.get("content")))  # read for what it still showed
            else:
                content = fields.get("content")
                session.result(entry, content if isinstance(content, str) else text_of(content))
        elif kind not in _NOT_CALLS:
            gaps.skip(kind)
    return obj, (session, gaps, _own_id(obj))


def read(path: str, options: Options) -> Iterator[Record]:
    return per_document(path, options, conversation)
