"""``anthropic``: Messages API content blocks.

A conversation is a list of messages (``role``, ``content``: a string or
blocks), or an object with ``messages``.  Blocks read:

- ``tool_use`` (``id``, ``name``, ``input``) in an assistant message, paired
  with a ``tool_result`` of the next user message by ``tool_use_id``;
  ``is_error: true`` is an ``error`` call; a call the next user message does
  not answer is an ``error`` call too;
- ``server_tool_use`` (``web_search``, ``web_fetch``, code execution, ...),
  paired by ``tool_use_id`` with the ``*_tool_result`` block that follows it:
  ``web_search_tool_result`` entries (``web_search_result``: ``url``,
  ``title``, ``page_age``) are the returned items, ``web_fetch_tool_result``
  is one item (``url``, the document's title and text); an error content
  (``*_tool_result_error``) is an ``error`` call;
- ``mcp_tool_use`` (the MCP connector: ``server_name``, ``name``, ``input``):
  tool ``mcp__SERVER__NAME`` (as Claude Code names MCP tools), paired by
  ``tool_use_id`` with its ``mcp_tool_result`` (its text is the result;
  ``is_error: true`` a failed call);
- ``text`` of the last assistant message with text is the answer; the
  ``url`` of its ``web_search_result_location`` citations (the ``source`` of
  ``search_result_location`` ones) are the citations.

Thinking, images, documents and the other content blocks that are no call
are skipped; a block of a type not named here is reported in the record's
``warnings`` and, when it looks like a call, read as one
(:meth:`._common.Session.unknown_item`).  A JSON array of conversations is
one conversation each.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import Record
from anachron.importers._common import Options, Session, awaiting, expect_list, expect_object, is_conversation, message_list, read_conversations
from anachron.importers._results import fetch_item, result_items, text_of

FORMAT = "anthropic"


def _blocks(message: Mapping[str, Any], at: str) -> list[Any]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return expect_list(content, at, "field 'content'")


def _tool_use_id(block: Mapping[str, Any], key: str, at: str) -> str:
    value = block.get(key)
    if not isinstance(value, str) or not value:
        raise AnachronError(f"{at}: {key} is {describe(value)}, expected the tool use id")
    return value


def _client_result(block: Mapping[str, Any], corpus: Any) -> tuple[bool, Any]:
    """(is_error, items or message) of a ``tool_result`` block."""
    content = block.get("content")
    if block.get("is_error") is True:
        return True, text_of(content)
    if isinstance(content, list):
        items: list[Any] = []
        for part in content:
            if not isinstance(part, dict):
                continue
            kind, source = part.get("type"), part.get("source")
            if kind == "search_result" and isinstance(source or part.get("url"), str):
                items.append({"url": source or part["url"], "title": part.get("title"), "snippet": text_of(part.get("content"))})
            elif kind == "text" and isinstance(part.get("text"), str):
                items += result_items(part["text"], corpus)
            elif kind == "document" and isinstance(source, dict) and isinstance(source.get("data"), str):
                items += result_items(source["data"], corpus)  # a plain-text document: its data is the result
            elif kind != "image":  # any other part is read as JSON (its URLs, its dated entries): never dropped
                items += result_items(part, corpus)
        return False, items
    return False, result_items(content if isinstance(content, str) else text_of(content), corpus)


def _server_result(block: Mapping[str, Any], entry: dict[str, Any], corpus: Any) -> tuple[bool, Any]:
    content = block.get("content")
    kind = content.get("type") if isinstance(content, dict) else None
    if isinstance(kind, str) and kind.endswith("_error"):
        return True, f"{kind}: {content.get('error_code')}"  # type: ignore[union-attr]
    if block.get("type") == "mcp_tool_result":
        if block.get("is_error") is True:
            return True, text_of(content)
        return False, result_items(text_of(content), corpus)
    if block.get("type") == "web_search_tool_result":
        return False, result_items(content if isinstance(content, list) else [], corpus)
    if block.get("type") == "web_fetch_tool_result" and isinstance(content, dict):
        url = content.get("url") if isinstance(content.get("url"), str) else entry.get("target")
        document = content.get("content") if isinstance(content.get("content"), dict) else {}
        source = document.get("source") if isinstance(document.get("source"), dict) else {}
        text = source.get("data") if source.get("type") == "text" and isinstance(source.get("data"), str) else None
        title = document.get("title") if isinstance(document.get("title"), str) else None
        return False, [fetch_item(url, text, corpus, title)] if isinstance(url, str) and url.strip() else []
    return False, result_items(content, corpus)


def _settle(session: Session, entry: dict[str, Any], failed: bool, found: Any) -> None:
    if failed:
        session.errored(entry, found)  # an error's text is still read for what it showed
    else:
        session.ok(entry, found)


def _citations(blocks: list[Mapping[str, Any]]) -> list[str]:
    cited = []
    for block in blocks:
        citations = block.get("citations")
        for citation in citations if isinstance(citations, list) else []:
            if isinstance(citation, dict):
                ref = citation.get("url") if citation.get("type") == "web_search_result_location" else citation.get("source")
                if isinstance(ref, str):
                    cited.append(ref)
    return cited


# Content blocks that carry no call and no result.
_NOT_CALLS = frozenset({
    "text", "thinking", "redacted_thinking", "image", "document", "search_result", "container_upload", "compaction",
    "fallback", "mcp_tool_listing",
})


def _tool_name(block: Mapping[str, Any], kind: str, at: str) -> str:
    name = block.get("name")
    if not isinstance(name, str) or not name:
        raise AnachronError(f"{at}: name is {describe(name)}, expected the tool's name")
    server = block.get("server_name")
    return f"mcp__{server}__{name}" if kind == "mcp_tool_use" and isinstance(server, str) and server else name


def conversation(where: str, messages: list[Any], options: Options) -> Session:
    session = Session(where, FORMAT, options.corpus)
    client: dict[str, dict[str, Any]] = {}  # tool_use calls awaiting the next user message
    server: dict[str, dict[str, Any]] = {}  # server_tool_use calls awaiting their result block
    for index, raw in enumerate(messages):
        at = f"{where} messages[{index}]"
        message = expect_object(raw, at, "a message")
        role = message.get("role")
        blocks = _blocks(message, at)
        if role == "assistant":
            client = {}  # unanswered calls of an earlier turn stay error calls
            texts = []
            for number, raw_block in enumerate(blocks):
                block_at = f"{at} content[{number}]"
                block = expect_object(raw_block, block_at, "a content block")
                kind = block.get("type")
                if kind in ("tool_use", "server_tool_use", "mcp_tool_use"):
                    name = _tool_name(block, kind, block_at)
                    ident = _tool_use_id(block, "id", block_at)
                    pending = awaiting(client if kind == "tool_use" else server, ident, block_at)
                    pending[ident] = session.call(name, block.get("input"), call_id=ident)
                elif isinstance(kind, str) and kind.endswith("_tool_result"):
                    ident = _tool_use_id(block, "tool_use_id", block_at)
                    entry = server.pop(ident, None)
                    if entry is None:
                        raise AnachronError(f"{block_at}: {kind} for {ident!r}, which no earlier server_tool_use made")
                    _settle(session, entry, *_server_result(block, entry, options.corpus))
                elif kind == "text" and isinstance(block.get("text"), str):
                    texts.append(block)
                elif kind not in _NOT_CALLS:
                    _unknown(session, server, block, kind, f"messages[{index}] content[{number}]")
            if texts:
                session.final_answer("".join(b["text"] for b in texts), _citations(texts))
        elif role == "user":
            for number, raw_block in enumerate(blocks):
                block_at = f"{at} content[{number}]"
                block = expect_object(raw_block, block_at, "a content block")
                if block.get("type") != "tool_result":
                    if block.get("type") not in _NOT_CALLS:
                        _unknown(session, {}, block, block.get("type"), f"messages[{index}] content[{number}]")
                    continue
                ident = _tool_use_id(block, "tool_use_id", block_at)
                entry = client.pop(ident, None)
                if entry is None:
                    raise AnachronError(f"{block_at}: tool_result for {ident!r}, which the assistant turn before it did not make")
                _settle(session, entry, *_client_result(block, options.corpus))
            client = {}
        else:
            raise AnachronError(f"{at}: role is {describe(role)}, expected 'user' or 'assistant'")
    return session


def _unknown(session: Session, server: dict[str, dict[str, Any]], block: Mapping[str, Any], kind: Any, place: str) -> None:
    """A block of an unknown type: reported; a call-like one is a call (awaiting a result block by its id)."""
    entry = session.unknown_item(kind, block, place)
    ident = block.get("id")
    if entry is not None and isinstance(ident, str) and ident and ident not in server:
        server[ident] = entry


def read(path: str, options: Options) -> Iterator[Record]:
    return read_conversations(path, options, message_list, conversation, is_conversation)
