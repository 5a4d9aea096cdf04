"""``openai-chat``: Chat Completions message lists.

A conversation is a list of messages, or an object with ``messages`` (its
other fields may name the sample, ``--sample-id-from``).  An assistant
message's ``tool_calls`` (``function.name``, ``function.arguments`` as a JSON
string; several at once are allowed) are answered by ``tool`` messages with
the call's ``tool_call_id``, before the next assistant message: ids are
paired within that turn.  A call no tool message answers is an ``error``
call.  A custom tool call (``type: custom``) carries ``custom.name`` and its
free-form ``custom.input``.  The legacy single ``function_call`` is not read.  The last assistant text is the answer; its ``url_citation``
annotations are its citations.
"""

from __future__ import annotations

from typing import Any, Iterator

from ..core.errors import AnachronError, describe
from ..core.jsonio import Record
from ._common import Options, Session, awaiting, expect_list, expect_object, message_list, parse_arguments, read_conversations
from ._results import text_of

FORMAT = "openai-chat"


def _answer_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return text_of(content) or None
    return None


def conversation(where: str, messages: list[Any], options: Options) -> Session:
    session = Session(where, FORMAT, options.corpus)
    pending: dict[str, dict[str, Any]] = {}
    for index, raw in enumerate(messages):
        at = f"{where} messages[{index}]"
        message = expect_object(raw, at, "a message")
        role = message.get("role")
        if role == "assistant":
            pending = {}  # a new turn: ids may repeat across turns
            calls = message.get("tool_calls") or []
            for number, call in enumerate(expect_list(calls, at, "field 'tool_calls'")):
                call_at = f"{at} tool_calls[{number}]"
                call = expect_object(call, call_at, "a tool call")
                # A custom tool call carries its name and free-form input under "custom".
                kind = "custom" if call.get("type") == "custom" else "function"
                function = expect_object(call.get(kind), call_at, f"field {kind!r}")
                name = function.get("name")
                if not isinstance(name, str) or not name:
                    raise AnachronError(f"{call_at}: {kind}.name is {describe(name)}, expected the tool's name")
                call_id = call.get("id")
                if not isinstance(call_id, str) or not call_id:
                    raise AnachronError(f"{call_at}: id is {describe(call_id)}, expected the call id its tool message replies to")
                arguments = function.get("input") if kind == "custom" else parse_arguments(function.get("arguments"))
                awaiting(pending, call_id, call_at)[call_id] = session.call(name, arguments, call_id=call_id)
            text = _answer_text(message.get("content"))
            if text:
                annotations = message.get("annotations") or []
                cited = [
                    a["url_citation"].get("url")
                    for a in annotations
                    if isinstance(a, dict) and a.get("type") == "url_citation" and isinstance(a.get("url_citation"), dict)
                ]
                session.final_answer(text, [c for c in cited if isinstance(c, str)])
        elif role == "tool":
            call_id = message.get("tool_call_id")
            entry = pending.pop(call_id, None) if isinstance(call_id, str) else None
            if entry is None:
                raise AnachronError(
                    f"{at}: tool message replies to {describe(call_id)}, which no tool call of the turn before it made"
                )
            content = message.get("content")
            session.result(entry, content if isinstance(content, str) else text_of(content))
        elif not isinstance(role, str):
            raise AnachronError(f"{at}: role is {describe(role)}, expected 'system', 'user', 'assistant' or 'tool'")
    return session


def read(path: str, options: Options) -> Iterator[Record]:
    return read_conversations(path, options, message_list, conversation)
