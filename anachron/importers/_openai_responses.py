"""``openai-responses``: Responses API items.

A conversation is a Response object (its ``input`` items, when a list, then
its ``output``), or a list of items.  Items read:

- ``function_call`` (``name``, ``arguments`` as a JSON string) and its
  ``function_call_output``, paired by ``call_id``;
- ``web_search_call``: tool ``web_search``, ``action.query`` (or
  ``action.queries``) as the query, ``action.sources`` as the returned items
  (``open_page`` and ``find`` return their ``url``); status ``failed`` or
  unfinished is an ``error`` call;
- ``code_interpreter_call``: tool ``code_interpreter``, ``code`` as its command,
  its logs as the result; ``shell_call`` / ``local_shell_call`` and their
  outputs: tool ``shell``, the commands as its command;
- ``message``: the assistant's ``output_text`` is the answer, its
  ``url_citation`` annotations the citations.

Other items (reasoning, file search, ...) are not calls of a tool that can
reach a date and are skipped.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from ..core.errors import AnachronError, describe
from ..core.jsonio import Record
from ._common import Options, Session, awaiting, epoch_iso, expect_list, expect_object, parse_arguments, read_conversations
from ._results import text_of

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
    if action.get("type") in ("open_page", "find"):
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
        elif kind in ("function_call_output", "shell_call_output", "local_shell_call_output"):
            call_id = _id(item, at)
            entry = pending.pop(call_id, None)
            if entry is None:
                raise AnachronError(f"{at}: {kind} for call_id {call_id!r}, which no earlier call made")
            output = item.get("output")
            if kind == "shell_call_output" and isinstance(output, list):
                output = "\n".join(
                    text_of([{"text": o.get("stdout")}, {"text": o.get("stderr")}]) for o in output if isinstance(o, dict)
                )
            session.result(entry, output if isinstance(output, str) else text_of(output))
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
        elif not isinstance(kind, str):
            raise AnachronError(f"{at}: type is {describe(kind)}, expected an item type")
    return session


def read(path: str, options: Options) -> Iterator[Record]:
    return read_conversations(path, options, _items, conversation)
