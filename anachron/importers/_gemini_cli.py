"""``gemini-cli``: Gemini CLI logs, one session per file: session files
(``~/.gemini/tmp/PROJECT/chats/session-*.jsonl``, or the older ``.json``) and the
events of ``gemini --output-format stream-json``.

No Gemini CLI runs offline here: the shapes are those of the
google-gemini/gemini-cli repository's published types
(``ConversationRecord``, ``MessageRecord`` and ``ToolCallRecord`` in
``packages/core/src/services/chatRecordingTypes.ts``, ``JsonStreamEvent`` in
``packages/core/src/output/types.ts``).

- A session file is one ``ConversationRecord`` (``sessionId``, ``messages``),
  or JSON Lines: a first record with ``sessionId`` and ``projectHash``, then
  message records (a record repeating an ``id`` replaces it), ``$rewindTo``
  (the messages from that id on are dropped) and ``$set`` records.  A
  ``gemini`` message's ``toolCalls`` are the calls: ``name``, ``args``,
  ``status`` (``success``; ``error`` and ``cancelled`` are ``error``
  calls; any other status never finished) and ``result``, the
  ``functionResponse.response`` parts (``output``, or ``error``).  A call
  with no result is ``unrecorded``.  A ``gemini`` message's ``content`` is the
  answer (the latest wins).
- ``stream-json`` events: ``init`` names the session; ``tool_use``
  (``tool_name``, ``tool_id``, ``parameters``) and its ``tool_result``
  (``status``, ``output``; ``error.message``); assistant ``message`` text
  after the last tool call is the answer.

The shell tool ``run_shell_command`` sets the call's ``command``;
``google_web_search`` reads ``query``; ``web_fetch`` fetches the first URL of
its ``prompt``; the other built-in tools (:data:`LOCAL_TOOLS`: files, memory,
plans) are local calls, whatever their output shows.  ``user``, ``info``, ``error`` and ``warning`` messages and
``error``/``result`` events hold no call; any other record, message or event
type is counted in the record's ``warnings``.

>>> first_url("Summarize https://example.com/a and https://example.com/b")
'https://example.com/a'
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Mapping

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import Record
from anachron.importers._common import Options, Session, awaiting, expect_list, expect_object, parse_arguments
from anachron.importers._results import text_of
from anachron.importers._shared_sessions import Built, Gaps, per_file

FORMAT = "gemini-cli"
CAUSE = "the session ended before their results were recorded (a run cut short, or a call still awaiting approval)"
_URL = re.compile(r"https?://[^\s<>\"')\]]+")
_NOT_CALLS = frozenset({"user", "info", "error", "warning"})
_STREAM = frozenset({"init", "message", "tool_use", "tool_result", "error", "result"})
_FAILED = frozenset({"error", "cancelled"})
# Gemini CLI's built-in tools that work on the local machine (ALL_BUILTIN_TOOL_NAMES of
# packages/core/src/tools/tool-names.ts, and the legacy name search_file_content); the shell
# (run_shell_command) is judged by its command, and google_web_search and web_fetch retrieve.
LOCAL_TOOLS = frozenset({
    "glob", "write_todos", "write_file", "replace", "grep_search", "search_file_content", "read_many_files",
    "read_file", "list_directory", "save_memory", "activate_skill", "ask_user", "get_internal_docs",
    "enter_plan_mode", "exit_plan_mode", "update_topic", "tracker_create_task", "tracker_update_task",
    "tracker_get_task", "tracker_list_tasks", "tracker_add_dependency", "tracker_visualize",
})


def first_url(text: Any) -> str | None:
    match = _URL.search(text) if isinstance(text, str) else None
    return match.group(0).rstrip(".,;") if match else None


def _call(session: Session, name: Any, arguments: Any, ident: Any, time: Any, at: str) -> dict[str, Any]:
    if not isinstance(name, str) or not name:
        raise AnachronError(f"{at}: the tool's name is {describe(name)}, expected a string")
    arguments = parse_arguments(arguments)
    entry = session.call(name, arguments, call_id=ident if isinstance(ident, str) else None, time=time)
    if name == "web_fetch" and "target" not in entry and isinstance(arguments, dict):
        url = first_url(arguments.get("prompt"))
        if url is not None:
            entry["target"] = url  # web_fetch names its pages inside a prompt
    return entry


NOTHING = object()  # a result that holds nothing to read: no output, an empty response, no part


def _response(result: Any) -> tuple[bool, Any]:
    """(failed, what the tool returned) of a ToolCallRecord's ``result`` parts; :data:`NOTHING` when
    they hold nothing to read (an empty list, a response without its output), which is no empty result."""
    responses = [p["functionResponse"].get("response") for p in result if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)] \
        if isinstance(result, list) else []
    for response in responses:
        if isinstance(response, dict) and "error" in response:
            return True, response["error"]
    outputs = [r.get("output") if isinstance(r, dict) and "output" in r else r for r in responses if r not in (None, {})]
    if outputs:
        return False, outputs[0] if len(outputs) == 1 else text_of(outputs)
    if responses or result == []:
        return False, NOTHING
    return False, result if isinstance(result, str) else text_of(result)


def _message(session: Session, gaps: Gaps, message: Mapping[str, Any], at: str) -> None:
    kind = message.get("type")
    if kind == "gemini":
        for n, raw in enumerate(message.get("toolCalls") or []):
            record = expect_object(raw, f"{at} toolCalls[{n}]", "a tool call")
            entry = _call(session, record.get("name"), record.get("args"), record.get("id"), record.get("timestamp"), f"{at} toolCalls[{n}]")
            status, result = record.get("status"), record.get("result")
            if status in _FAILED:
                failed, value = _response(result)
                session.errored(entry, value if failed or (value and value is not NOTHING) else f"tool call {status}")
            elif status == "success" and result is not None:
                failed, value = _response(result)
                if value is NOTHING:  # left unrecorded, and said: never a clean, empty result
                    session.notes.append(f"call #{session.calls.index(entry) + 1} ({entry['tool']}): its result holds nothing to read "
                                         "(no output): unrecorded")
                elif failed:
                    session.errored(entry, value)  # read for what it still showed
                else:
                    session.result(entry, value)
        content = message.get("content")
        session.final_answer(content if isinstance(content, str) else text_of(content) if isinstance(content, list) else None)
    elif not isinstance(kind, str):
        raise AnachronError(f"{at}: type is {describe(kind)}, expected a message type ('user', 'gemini', ...)")
    elif kind not in _NOT_CALLS:
        gaps.skip(kind)


def _stream(session: Session, gaps: Gaps, lines: list[tuple[str, Mapping[str, Any]]]) -> str | None:
    own, pending, answer = None, {}, []
    for at, event in lines:
        kind = event.get("type")
        if kind == "init":
            own = event.get("session_id") if isinstance(event.get("session_id"), str) else own
        elif kind == "tool_use":
            ident = event.get("tool_id")
            if not isinstance(ident, str) or not ident:
                raise AnachronError(f"{at}: tool_id is {describe(ident)}, expected the id its tool_result names")
            awaiting(pending, ident, at)[ident] = _call(session, event.get("tool_name"), event.get("parameters"), ident, event.get("timestamp"), at)
            answer = []
        elif kind == "tool_result":
            entry = pending.pop(event.get("tool_id"), None) if isinstance(event.get("tool_id"), str) else None
            if entry is None:
                gaps.skip("tool_result without its tool_use")
            elif event.get("status") == "error":
                error = event.get("error")
                session.failed(entry, error.get("message") if isinstance(error, dict) else "tool_result status error")
            elif event.get("status") != "success":
                gaps.skip(f"tool_result status {event.get('status')!r}")  # never read as a success: unrecorded, and said
            elif isinstance(event.get("output"), str):  # a success without its output stays unrecorded
                session.result(entry, event["output"])
        elif kind == "message":
            if event.get("role") == "assistant" and isinstance(event.get("content"), str):
                answer.append(event["content"])
        elif kind not in _STREAM:
            gaps.skip(kind)
    session.final_answer("".join(answer) or None)
    return own


def session(where: str, lines: list[tuple[str, Any]], options: Options) -> tuple[Any, Built]:
    session, gaps = Session(where, FORMAT, options.corpus), Gaps(CAUSE, LOCAL_TOOLS)
    if len(lines) == 1 and lines[0][0] == where and isinstance(lines[0][1], dict) and "messages" in lines[0][1]:
        record = lines[0][1]  # the older one-document session file
        for n, message in enumerate(expect_list(record["messages"], where, "field 'messages'")):
            _message(session, gaps, expect_object(message, f"{where} messages[{n}]", "a message"), f"{where} messages[{n}]")
        own = record.get("sessionId")
        return record, (session, gaps, own if isinstance(own, str) else None)
    objects = [(at, expect_object(raw, at, "a record")) for at, raw in lines]
    first = objects[0][1]
    if isinstance(first.get("type"), str) and first.get("type") in _STREAM:
        return first, (session, gaps, _stream(session, gaps, objects))
    own, messages = None, {}
    for at, record in objects:
        if isinstance(record.get("$rewindTo"), str):
            ids = list(messages)
            keep = ids[: ids.index(record["$rewindTo"])] if record["$rewindTo"] in ids else []
            messages = {ident: messages[ident] for ident in keep}
        elif isinstance(record.get("id"), str):
            messages[record["id"]] = (at, record)  # a later record of one id replaces it, in its first place
        elif isinstance(record.get("$set"), dict) or isinstance(record.get("sessionId"), str):
            fields = record.get("$set") if isinstance(record.get("$set"), dict) else record
            own = fields.get("sessionId") if isinstance(fields.get("sessionId"), str) else own
        else:
            gaps.skip(record.get("type", "record without id"))
    for at, record in messages.values():
        _message(session, gaps, record, at)
    return first, (session, gaps, own)


def read(path: str, options: Options) -> Iterator[Record]:
    return per_file(path, options, session)
