"""``claude-code``: a Claude Code session transcript (``~/.claude/projects/.../SESSION.jsonl``).

One file is one session: JSON Lines of records with ``type``; ``user`` and
``assistant`` records carry a Messages API ``message``, other types
(``summary``, ``system``, ``file-history-snapshot``, ...) are skipped.  An
assistant record holds content blocks (Claude Code writes one block per
record, several records per API message); a ``tool_use`` block is paired
with the ``tool_result`` of a later user record by ``tool_use_id`` (results
may come out of order).  The user record's ``toolUseResult`` holds the
tool's structured output, read where it is richer than the text:

- ``WebSearch``: ``input.query``; the items are ``toolUseResult.results``
  entries' ``content`` lists (``title``, ``url``), else the URLs of the text;
- ``WebFetch``: ``input.url`` and what the agent read of it
  (``toolUseResult.result``, else the text), one item;
- ``Bash``: ``input.command`` is the call's command (for the seal audit);
- ``Read``, ``Edit``, ``TodoWrite``, ``Grep`` and the other built-in local
  tools are local calls (``retrieval: false``, :func:`._common.is_retrieval`),
  as is a ``Bash`` call that does not reach the network;
- every other tool, MCP tools ``mcp__SERVER__TOOL`` among them: the
  generic rule of the result text.

``is_error: true`` is an ``error`` call; a call no record answers is an
``error`` call.  The sample id is the records' ``sessionId`` (else the file
name); the call's time is its record's ``timestamp``.  The answer is the
last assistant text of the main chain (not a subagent's, ``isSidechain``).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from ..core.errors import AnachronError, describe
from ..core.jsonio import Record, parse_json, read_text
from ._common import Options, Session, awaiting, expect_list, expect_object, sample_id_of, stem
from ._results import fetch_item, result_items, text_of

FORMAT = "claude-code"


def _lines(path: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        line = line.removesuffix("\r")
        if line.strip():
            where = f"{path}:{number}"
            yield where, expect_object(parse_json(line, where), where, "a transcript record")


def _search_items(tool_result: Any, corpus: Any) -> list[Any] | None:
    """The items of a WebSearch ``toolUseResult``: its results' ``content`` link lists."""
    results = tool_result.get("results") if isinstance(tool_result, dict) else None
    if not isinstance(results, list):
        return None
    links = [
        link
        for entry in results
        if isinstance(entry, dict) and isinstance(entry.get("content"), list)
        for link in entry["content"]
        if isinstance(link, dict)
    ]
    return result_items(links, corpus)


def _resolve(session: Session, entry: dict[str, Any], block: Mapping[str, Any], structured: Any, corpus: Any) -> None:
    text = text_of(block.get("content"))
    session.receipt(entry, text)  # an MCP time lock's result begins with its receipt
    if block.get("is_error") is True:
        session.failed(entry, text)
        return
    tool = entry["tool"]
    if tool == "WebSearch":
        items = _search_items(structured, corpus)
        session.ok(entry, items if items is not None else result_items(text, corpus))
    elif tool == "WebFetch" and isinstance(entry.get("target"), str):
        read = structured.get("result") if isinstance(structured, dict) and isinstance(structured.get("result"), str) else text
        session.ok(entry, [fetch_item(entry["target"], read, corpus)])
    else:
        session.ok(entry, result_items(text, corpus))


def session_of(path: str, options: Options) -> tuple[str, Session]:
    session = Session(str(path), FORMAT, options.corpus)
    pending: dict[str, dict[str, Any]] = {}
    sample_id = None
    messages = 0
    for where, record in _lines(path):
        kind = record.get("type")
        if kind not in ("user", "assistant"):
            continue
        messages += 1
        if sample_id is None:
            if options.sample_id_from is not None:
                sample_id = sample_id_of(record, options, "", where)
            elif isinstance(record.get("sessionId"), str) and record["sessionId"]:
                sample_id = record["sessionId"]
        message = expect_object(record.get("message"), where, "field 'message'")
        content = message.get("content")
        if isinstance(content, str):
            if kind == "assistant" and not record.get("isSidechain"):
                session.final_answer(content)
            continue
        blocks = expect_list(content, where, "message.content")
        time = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        for number, raw in enumerate(blocks):
            at = f"{where} content[{number}]"
            block = expect_object(raw, at, "a content block")
            btype = block.get("type")
            if kind == "assistant" and btype == "tool_use":
                name, ident = block.get("name"), block.get("id")
                if not isinstance(name, str) or not name or not isinstance(ident, str) or not ident:
                    raise AnachronError(f"{at}: a tool_use needs a name and an id, got name {describe(name)}, id {describe(ident)}")
                awaiting(pending, ident, at)[ident] = session.call(name, block.get("input"), call_id=ident, time=time)
            elif kind == "assistant" and btype == "text" and isinstance(block.get("text"), str):
                if not record.get("isSidechain"):
                    session.final_answer(block["text"])
            elif kind == "user" and btype == "tool_result":
                ident = block.get("tool_use_id")
                entry = pending.pop(ident, None) if isinstance(ident, str) else None
                if entry is None:
                    raise AnachronError(f"{at}: tool_result for {describe(ident)}, which no earlier tool_use made")
                # toolUseResult belongs to the record, so it describes its result only when there is one.
                structured = record.get("toolUseResult") if len(results) == 1 else None
                _resolve(session, entry, block, structured, options.corpus)
    if not messages:
        raise AnachronError(f"{path}: no 'user' or 'assistant' record: not a Claude Code session transcript")
    return (sample_id or stem(path)), session


def read(path: str, options: Options) -> Iterator[Record]:
    sample_id, session = session_of(path, options)
    yield str(path), session.record(sample_id, options)
