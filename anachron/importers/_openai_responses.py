"""``openai-responses``: Responses API items.

A conversation is a Response object (its ``input`` items, when a list, then
its ``output``), or a list of items.  Items read:

- ``function_call`` (``name``, ``arguments`` as a JSON string) and its
  ``function_call_output``, paired by ``call_id``;
- ``web_search_call``: tool ``web_search``, ``action.query`` (or
  ``action.queries``) as the query, ``action.sources`` as the returned items
  (``open_page`` and ``find_in_page`` return their ``url``); status ``failed`` or
  unfinished is an ``error`` call;
- ``code_interpreter_call``: tool ``code_interpreter``, ``code`` as its command,
  its logs as the result; ``shell_call`` / ``local_shell_call`` and their
  outputs: tool ``shell``, the commands as its command;
- ``mcp_call``: tool ``mcp__SERVER__NAME`` (its ``server_label`` and ``name``,
  as Claude Code names MCP tools, so an MCP configuration's declaration
  matches), ``arguments``; ``output`` is its result, ``error`` a failed call;
- ``custom_tool_call`` (``name``, free-form ``input``) and its
  ``custom_tool_call_output``; ``apply_patch_call`` (tool ``apply_patch``, the
  ``operation`` as arguments) and its ``apply_patch_call_output``;
  ``computer_call`` (tool ``computer``, the ``action`` or ``actions``) and its
  ``computer_call_output`` (a screenshot: nothing dated is read from it);
  ``program`` (tool ``program``, ``code`` as its command) and its
  ``program_output``; ``tool_search_call`` and its ``tool_search_output``;
- ``file_search_call``: tool ``file_search``, ``queries`` as the query, the
  ``results`` texts as the result (absent unless the request included
  ``file_search_call.results``: then no result is read);
  ``image_generation_call``: tool ``image_generation`` (no result is read);
- ``message``: the assistant's ``output_text`` is the answer, its
  ``url_citation`` annotations the citations.

An item whose ``status`` is ``failed`` or ``incomplete`` is a failed call.
``reasoning``, ``compaction``, ``item_reference``, ``mcp_list_tools``,
``mcp_approval_request``/``_response`` and the other non-call items are
skipped.  An item of a type not named here is reported in the record's
``warnings``, and read as a call when it looks like one
(:meth:`._common.Session.unknown_item`), its result unread.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import Record
from anachron.importers._common import Options, Session, awaiting, epoch_iso, expect_list, expect_object, parse_arguments, read_conversations
from anachron.importers._results import text_of

FORMAT = "openai-responses"


def _items(where: str, value: Any) -> tuple[Any, tuple[list[tuple[str, Any]], str | None]]:
    """The conversation object, and its items labelled by their place (``output[3]``) with its time."""
    if isinstance(value, list):
        if not value:
            raise AnachronError(f"{where}: the conversation has no item")
        return value, ([(f"items[{i}]", item) for i, item in enumerate(value)], None)
    if isinstance(value, dict) and "output" in value:
        output = expect_list(value["output"], where, "field 'output'")
        inputs = value.get("input") if isinstance(value.get("input"), list) else []
        if not output and not inputs:
            raise AnachronError(f"{where}: the response has no output item")
        labelled = [(f"input[{i}]", item) for i, item in enumerate(inputs)]
        labelled += [(f"output[{i}]", item) for i, item in enumerate(output)]
        return value, (labelled, epoch_iso(value.get("created_at")))
    raise AnachronError(f"{where}: expected a Response object with 'output' or a list of items, got {describe(value)}")


def _id(item: Mapping[str, Any], at: str) -> str:
    call_id = item.get("call_id")
    if not isinstance(call_id, str) or not call_id:
        raise AnachronError(f"{at}: call_id is {describe(call_id)}, expected the id pairing the call with its output")
    return call_id


def _web_search(session: Session, item: Mapping[str, Any], at: str, time: str | None) -> None:
    action = item.get("action")
    action = action if isinstance(action, dict) else {}
    query = action.get("query")
    if not isinstance(query, str):
        queries = action.get("queries")
        query = "\n".join(q for q in queries if isinstance(q, str)) if isinstance(queries, list) and queries else None
    entry = session.call("web_search", dict(action), call_id=item.get("id") if isinstance(item.get("id"), str) else None, time=time, query=query)
    status = item.get("status")
    if status != "completed":
        session.failed(entry, f"web_search_call status {status}")
        return
    if action.get("type") in ("open_page", "find_in_page", "find"):  # "find": the name before find_in_page
        url = action.get("url")
        session.ok(entry, [{"url": url}] if isinstance(url, str) and url.strip() else [])
        return
    sources = action.get("sources")
    if sources is None:  # logged only when the request asked for them (include=["web_search_call.action.sources"])
        return  # the call stays unrecorded: what it showed is not in the log
    urls = [s.get("url") for s in expect_list(sources, at, "action.sources") if isinstance(s, dict)]
    session.ok(entry, list({u: {"url": u} for u in urls if isinstance(u, str) and u.strip()}.values()))


def _message(session: Session, item: Mapping[str, Any]) -> None:
    if item.get("role") != "assistant":
        return
    texts, cited = [], []
    for part in item.get("content") or []:
        if isinstance(part, dict) and part.get("type") == "output_text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
            for annotation in part.get("annotations") or []:
                if isinstance(annotation, dict) and annotation.get("type") == "url_citation":
                    if isinstance(annotation.get("url"), str):
                        cited.append(annotation["url"])
    if texts:
        session.final_answer("".join(texts), cited)


def _shell_command(item: Mapping[str, Any]) -> str | None:
    action = item.get("action")
    if not isinstance(action, dict):
        return None
    for key in ("commands", "command"):
        value = action.get(key)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return ("\n" if key == "commands" else " ").join(value)
        if isinstance(value, str):
            return value
    return None


# Items that are no call of a tool: skipped.
_NOT_CALLS = frozenset({
    "message", "reasoning", "compaction", "compaction_trigger", "item_reference", "mcp_list_tools",
    "mcp_approval_request", "mcp_approval_response", "additional_tools", "configuration_update",
})
# Call items answered by a later output item (``KIND_output``, by call_id): tool name and arguments.
_PAIRED = {
    "custom_tool_call": ("name", "input"),
    "apply_patch_call": ("apply_patch", "operation"),
    "computer_call": ("computer", "action"),
    "program": ("program", "code"),
    "tool_search_call": ("tool_search", "arguments"),
}
_OUTPUTS = {"function_call_output", "shell_call_output", "local_shell_call_output", "program_output",
            *(f"{kind}_output" for kind in _PAIRED if kind != "program")}


def _failed_status(item: Mapping[str, Any]) -> str | None:
    status = item.get("status")
    return f"{item.get('type')} status {status}" if status in ("failed", "incomplete") else None


def _paired_call(session: Session, item: Mapping[str, Any], kind: str, at: str, time: str | None) -> dict[str, Any]:
    tool, key = _PAIRED[kind]
    if tool == "name":
        tool = item.get("name")
        if not isinstance(tool, str) or not tool:
            raise AnachronError(f"{at}: name is {describe(tool)}, expected the tool's name")
    arguments = item.get(key)
    if kind == "computer_call" and arguments is None:
        arguments = item.get("actions")
    code = arguments if kind == "program" and isinstance(arguments, str) else None
    return session.call(tool, parse_arguments(arguments) if kind == "tool_search_call" else arguments,
                        call_id=_id(item, at), time=time, command=code)


def _output_value(item: Mapping[str, Any], kind: str) -> Any:
    if kind == "program_output":
        return item.get("result")
    output = item.get("output")
    if kind == "shell_call_output" and isinstance(output, list):
        return "\n".join(
            text_of([{"text": o.get("stdout")}, {"text": o.get("stderr")}]) for o in output if isinstance(o, dict)
        )
    if kind == "tool_search_output":
        return item.get("tools")
    return output


def _output(session: Session, pending: dict[str, dict[str, Any]], item: Mapping[str, Any], kind: str, at: str) -> None:
    call_id = _id(item, at)
    entry = pending.pop(call_id, None)
    if entry is None:
        raise AnachronError(f"{at}: {kind} for call_id {call_id!r}, which no earlier call made")
    failed = _failed_status(item)
    if failed is not None:
        session.failed(entry, failed)
    elif kind == "computer_call_output":
        return  # a screenshot: the call stays one whose result the log does not show as text
    else:
        output = _output_value(item, kind)
        session.result(entry, output if isinstance(output, str) else text_of(output))


def _mcp_call(session: Session, item: Mapping[str, Any], at: str, time: str | None) -> None:
    name, server = item.get("name"), item.get("server_label")
    if not isinstance(name, str) or not name:
        raise AnachronError(f"{at}: name is {describe(name)}, expected the MCP tool's name")
    tool = f"mcp__{server}__{name}" if isinstance(server, str) and server else name
    ident = item.get("id") if isinstance(item.get("id"), str) else None
    entry = session.call(tool, parse_arguments(item.get("arguments")), call_id=ident, time=time)
    error = item.get("error")
    if error not in (None, ""):
        message = error.get("message") if isinstance(error, dict) and isinstance(error.get("message"), str) else error
        session.failed(entry, message)
    elif _failed_status(item) is not None:
        session.failed(entry, _failed_status(item))
    elif isinstance(item.get("output"), str):
        session.result(entry, item["output"])


def _file_search(session: Session, item: Mapping[str, Any], time: str | None) -> None:
    queries = [q for q in item.get("queries") or [] if isinstance(q, str)]
    ident = item.get("id") if isinstance(item.get("id"), str) else None
    entry = session.call("file_search", {"queries": queries}, call_id=ident, time=time, query="\n".join(queries) or None)
    results = item.get("results")
    if _failed_status(item) is not None:
        session.failed(entry, _failed_status(item))
    elif isinstance(results, list):
        session.result(entry, text_of([r for r in results if isinstance(r, dict)]))


def _image_generation(session: Session, item: Mapping[str, Any], time: str | None) -> None:
    ident = item.get("id") if isinstance(item.get("id"), str) else None
    prompt = item.get("revised_prompt")
    entry = session.call("image_generation", {"prompt": prompt} if isinstance(prompt, str) else None, call_id=ident, time=time)
    if item.get("status") == "failed" or item.get("error") not in (None, ""):
        session.failed(entry, item.get("error") or "image_generation_call status failed")
    elif item.get("status") == "completed":
        session.ok(entry, [])  # an image: it shows the agent nothing dated


def conversation(where: str, body: tuple[list[tuple[str, Any]], str | None], options: Options) -> Session:
    items, time = body
    session = Session(where, FORMAT, options.corpus)
    pending: dict[str, dict[str, Any]] = {}
    for label, raw in items:
        at = f"{where} {label}"
        item = expect_object(raw, at, "an item")
        kind = item.get("type")
        if kind == "function_call":
            name = item.get("name")
            if not isinstance(name, str) or not name:
                raise AnachronError(f"{at}: name is {describe(name)}, expected the function's name")
            call_id = _id(item, at)
            awaiting(pending, call_id, at)[call_id] = session.call(name, parse_arguments(item.get("arguments")), call_id=call_id, time=time)
        elif kind in ("shell_call", "local_shell_call"):
            call_id = _id(item, at)
            awaiting(pending, call_id, at)[call_id] = session.call("shell", item.get("action"), call_id=call_id, time=time, command=_shell_command(item))
        elif kind in _PAIRED:
            call_id = _id(item, at)
            awaiting(pending, call_id, at)[call_id] = _paired_call(session, item, kind, at, time)
        elif kind in _OUTPUTS:
            _output(session, pending, item, kind, at)
        elif kind == "mcp_call":
            _mcp_call(session, item, at, time)
        elif kind == "file_search_call":
            _file_search(session, item, time)
        elif kind == "image_generation_call":
            _image_generation(session, item, time)
        elif kind == "web_search_call":
            _web_search(session, item, at, time)
        elif kind == "code_interpreter_call":
            code = item.get("code") if isinstance(item.get("code"), str) else None
            entry = session.call("code_interpreter", {"code": code}, time=time, command=code)
            if item.get("status") != "completed":
                session.failed(entry, f"code_interpreter_call status {item.get('status')}")
            elif item.get("outputs") is not None:  # logged only on request (include=["code_interpreter_call.outputs"])
                logs = [o.get("logs") for o in expect_list(item["outputs"], at, "outputs") if isinstance(o, dict)]
                session.result(entry, "\n".join(log for log in logs if isinstance(log, str)))
        elif kind == "message":
            _message(session, item)
        elif kind is None and "role" in item:
            _message(session, item)  # an input message may omit its type (EasyInputMessage)
        elif not isinstance(kind, str):
            raise AnachronError(f"{at}: type is {describe(kind)}, expected an item type")
        elif kind not in _NOT_CALLS:
            _unknown(session, pending, item, kind, label, time)
    return session


def _unknown(session: Session, pending: dict[str, dict[str, Any]], item: Mapping[str, Any], kind: str, label: str, time: str | None) -> None:
    """An item of a type not known: reported; a call-like one becomes a call (its output, of a type
    not known either, is reported and not read: the call keeps no result)."""
    entry = session.unknown_item(kind, item, label, time)
    call_id = item.get("call_id")
    if entry is not None and isinstance(call_id, str) and call_id:
        awaiting(pending, call_id, label)[call_id] = entry


def _is_response(value: Any) -> bool:
    """A Response object (with ``output``), not an item: a JSON array of them is one conversation each."""
    return isinstance(value, dict) and "output" in value and "type" not in value


def read(path: str, options: Options) -> Iterator[Record]:
    return read_conversations(path, options, _items, conversation, _is_response)
