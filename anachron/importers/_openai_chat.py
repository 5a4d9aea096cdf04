"""``openai-chat``: Chat Completions message lists.

A conversation is a list of messages, or an object with ``messages`` (its
other fields may name the sample, ``--sample-id-from``).  An assistant
message's ``tool_calls`` (``function.name``, ``function.arguments`` as a JSON
string; several at once are allowed) are answered by ``tool`` messages with
the call's ``tool_call_id``, before the next assistant message: ids are
paired within that turn.  A call no tool message answers is an ``error``
call.  A custom tool call (``type: custom``) carries ``custom.name`` and its
free-form ``custom.input``.  A ``tool`` message with ``is_error: true`` (an MCP host's
mark of a tool error, as ``anachron run chat`` writes it) is a failed call.  The legacy single ``function_call`` (``name``,
``arguments``) of an assistant message is a call too, answered by the next
``function`` message of that turn (``role: function``, its ``name``); a tool
call of another type is read as a call of its name and reported in the
record's ``warnings``, as is a message of an unknown role.  The last
assistant text is the answer; its ``url_citation`` annotations are its
citations.  A JSON array of conversations (lists of messages, or objects
with ``messages``) is one conversation each.
"""

from __future__ import annotations

from typing import Any, Iterator

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import Record
from anachron.importers._common import Options, Session, awaiting, expect_list, expect_object, is_conversation, message_list, parse_arguments, read_conversations
from anachron.importers._results import text_of

FORMAT = "openai-chat"


def _answer_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return text_of(content) or None
    return None


_ROLES = ("system", "developer", "user")  # messages that carry no call and no result


def _legacy_call(session: Session, message: dict[str, Any], at: str) -> dict[str, Any] | None:
    """The legacy ``function_call`` of an assistant message, as a call (``None`` when it has none)."""
    function = message.get("function_call")
    if function is None:
        return None
    function = expect_object(function, at, "field 'function_call'")
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise AnachronError(f"{at}: function_call.name is {describe(name)}, expected the function's name")
    return session.call(name, parse_arguments(function.get("arguments")))


def conversation(where: str, messages: list[Any], options: Options) -> Session:
    session = Session(where, FORMAT, options.corpus)
    pending: dict[str, dict[str, Any]] = {}
    legacy: dict[str, Any] | None = None  # the turn's function_call awaiting its function message
    for index, raw in enumerate(messages):
        at = f"{where} messages[{index}]"
        message = expect_object(raw, at, "a message")
        role = message.get("role")
        if role == "assistant":
            pending = {}  # a new turn: ids may repeat across turns
            legacy = _legacy_call(session, message, at)
            calls = message.get("tool_calls") or []
            for number, call in enumerate(expect_list(calls, at, "field 'tool_calls'")):
                call_at = f"{at} tool_calls[{number}]"
                call = expect_object(call, call_at, "a tool call")
                if call.get("type") not in (None, "function", "custom"):
                    entry = session.unknown_item(call.get("type"), call, f"messages[{index}] tool_calls[{number}]")
                    if entry is not None and isinstance(call.get("id"), str) and call["id"]:
                        awaiting(pending, call["id"], call_at)[call["id"]] = entry
                    continue
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
            if message.get("is_error") is True:  # an MCP host's mark of a tool error (anachron run's chat loop)
                session.failed(entry, content if isinstance(content, str) else text_of(content))
            else:
                session.result(entry, content if isinstance(content, str) else text_of(content))
        elif role == "function":
            if legacy is None or message.get("name") != legacy["tool"]:
                raise AnachronError(
                    f"{at}: function message of {describe(message.get('name'))}, which the assistant turn before it did not call"
                )
            content = message.get("content")
            session.result(legacy, content if isinstance(content, str) else text_of(content))
            legacy = None
        elif not isinstance(role, str):
            raise AnachronError(f"{at}: role is {describe(role)}, expected 'system', 'user', 'assistant' or 'tool'")
        elif role not in _ROLES:
            session.unknown_item(f"role {role}", {}, f"messages[{index}]")
    return session


def read(path: str, options: Options) -> Iterator[Record]:
    return read_conversations(path, options, message_list, conversation, is_conversation)
