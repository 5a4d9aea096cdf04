"""Build the importer fixtures in tests/data/importers/ (see its README.md).

    python tests/fixtures_build/build_importer_fixtures.py [OUT_DIR]

The OpenAI and Anthropic logs are built with the vendors' own SDK types
(``openai`` and ``anthropic``, the ``test`` extra): response objects through
``Model.model_validate`` and request-side messages (TypedDicts) through
pydantic's ``TypeAdapter``, then serialised with ``mode="json"``, so they are
exactly what the SDKs accept and write.  Claude Code transcripts and OTLP JSON
have no SDK that builds them offline; they follow the published shapes named
in the README.  Deterministic: the same SDK versions give the same bytes
(tests/importers/test_fixtures.py rebuilds and compares).

The scenario: an agent forecasting, as of 2023-01-01, whether Cygnus Robotics
lists by March 2023.  Cygnus priced its IPO on 2023-02-09, so every item dated
after 2023-01-01 that mentions it is a leak.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "data" / "importers"
# The SDK versions the committed fixtures were built with: another version may serialise new
# (null) fields, so tests compare bytes only under these and the imported traces otherwise.
SDK_VERSIONS = {"openai": "3.57.0", "anthropic": "2.15.0"}
# The time lock's results exactly as anachron.timelock.render.render writes them (tests/timelock/test_render_parse.py
# holds them to it): the importers read them by the lock's own format.
LOCK_SEARCH = ('search #1: 1 result for "cygnus robotics"\n- id: https://example.net/2022/11/01/cygnus-robotics-funding\n'
               "  date: 2022-11-01\n  title: Cygnus Robotics raises funding\n  snippet: Cygnus Robotics raised a funding round.\n\n"
               "Budget remaining: search 4 of 5, fetch 5 of 5, calls unlimited.")
LOCK_FETCH = ("fetch #2: https://example.net/2022/11/01/cygnus-robotics-funding\ndate: 2022-11-01\n"
              "title: Cygnus Robotics raises funding\n\nCygnus Robotics raised a funding round.\n\n\n"
              "Budget remaining: search 4 of 5, fetch 4 of 5, calls unlimited.")


def _jsonl(rows: list) -> str:
    return "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in rows)


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


# --- openai-chat ------------------------------------------------------------------


def _chat_sent(message: dict) -> dict:
    """A request-side Chat message, as the SDK's ``ChatCompletionMessageParam`` validates and dumps it."""
    from openai.types.chat import ChatCompletionMessageParam
    from pydantic import TypeAdapter

    param = TypeAdapter(ChatCompletionMessageParam)
    return param.dump_python(param.validate_python(message), mode="json")


def _chat_replied(message: dict) -> dict:
    """An assistant message, as the SDK's ``ChatCompletionMessage`` dumps it."""
    from openai.types.chat import ChatCompletionMessage

    return ChatCompletionMessage.model_validate(message).model_dump(mode="json")


def openai_chat() -> str:
    sent, replied = _chat_sent, _chat_replied

    def call(ident: str, name: str, arguments: dict) -> dict:
        return {"id": ident, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}

    tavily_late = {
        "query": "cygnus robotics ipo february 2023",
        "results": [{
            "url": "https://www.reuters.com/markets/cygnus-prices-ipo/",
            "title": "Cygnus Robotics prices IPO above range",
            "content": "Cygnus Robotics priced its initial public offering above the marketed range.",
            "published_date": "Thu, 09 Feb 2023 14:00:00 GMT",
            "score": 0.91,
        }],
    }
    tavily_early = {
        "query": "cygnus robotics ipo",
        "results": [{
            "url": "https://example.com/cygnus-files",
            "title": "Cygnus Robotics files confidentially",
            "content": "The robot maker filed a draft registration statement.",
            "published_date": "Thu, 15 Dec 2022 09:00:00 GMT",
            "score": 0.84,
        }],
    }
    page = (
        '<html><head><meta property="article:published_time" content="2022-12-15T09:00:00Z">'
        "<title>Cygnus files</title></head><body><p>Cygnus Robotics filed a draft registration "
        "statement on December 15, 2022.</p></body></html>"
    )
    first = {"id": "chat-a", "messages": [
        sent({"role": "system", "content": "You are a forecaster. Today is 2023-01-01."}),
        sent({"role": "user", "content": "Will Cygnus Robotics list by March 2023?"}),
        replied({"role": "assistant", "content": None, "tool_calls": [
            call("call_1", "web_search", {"query": "cygnus robotics ipo"}),
            call("call_2", "web_search", {"query": "cygnus robotics ipo february 2023"}),
        ]}),
        # Parallel calls may be answered in any order: paired by tool_call_id.
        sent({"role": "tool", "tool_call_id": "call_2", "content": json.dumps(tavily_late)}),
        sent({"role": "tool", "tool_call_id": "call_1", "content": json.dumps(tavily_early)}),
        # A later turn reuses the id call_1: ids are paired within their turn.
        replied({"role": "assistant", "content": None, "tool_calls": [
            call("call_1", "fetch_page", {"url": "https://example.com/cygnus-files"}),
        ]}),
        sent({"role": "tool", "tool_call_id": "call_1", "content": page}),
        replied({"role": "assistant", "content": (
            "Likely yes. Sources: https://example.com/cygnus-files and "
            "https://www.reuters.com/markets/cygnus-prices-ipo/."
        )}),
    ]}
    second = {"id": "chat-b", "messages": [
        sent({"role": "user", "content": "What was Acme's share price?"}),
        replied({"role": "assistant", "content": None, "tool_calls": [
            call("call_1", "execute_command", {"command": "curl -s 'https://api.example.com/prices?symbol=ACME&date=2023-03-01'"}),
        ]}),
        sent({"role": "tool", "tool_call_id": "call_1", "content": "ACME 41.20"}),
        replied({"role": "assistant", "content": None, "tool_calls": [
            call("call_2", "web_search", {"query": "acme share price"}),
            # A custom tool call: free-form input, answered below.
            {"id": "call_3", "type": "custom", "custom": {"name": "python", "input": "print(41.2)"}},
        ]}),
        sent({"role": "tool", "tool_call_id": "call_3", "content": "41.2"}),
        # No tool message answers call_2 before the next assistant message: an error call.
        replied({"role": "assistant", "content": "About 41.20."}),
    ]}
    return _jsonl([first, second])


# --- openai-responses -------------------------------------------------------------


def openai_responses() -> str:
    from openai.types.responses import (
        EasyInputMessage,
        ResponseCodeInterpreterToolCall,
        ResponseFunctionToolCall,
        ResponseFunctionWebSearch,
        ResponseOutputMessage,
    )
    from openai.types.responses.response_input_item import FunctionCallOutput

    filings = {"data": [{
        "link": "https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&company=cygnus",
        "title": "Cygnus Robotics: draft registration statement",
        "date": "2022-11-30",
    }]}
    items = [
        EasyInputMessage.model_validate({"type": "message", "role": "user", "content": "Will Cygnus Robotics list by March 2023?"}),
        ResponseFunctionWebSearch.model_validate({
            "id": "ws_1", "type": "web_search_call", "status": "completed",
            "action": {"type": "search", "query": "cygnus robotics ipo date", "sources": [
                {"type": "url", "url": "https://www.cnbc.com/2023/02/09/cygnus-robotics-ipo.html"},
                {"type": "url", "url": "https://example.com/about-cygnus"},
            ]},
        }),
        ResponseFunctionWebSearch.model_validate({
            "id": "ws_2", "type": "web_search_call", "status": "failed",
            "action": {"type": "search", "query": "cygnus robotics s-1"},
        }),
        ResponseFunctionToolCall.model_validate({
            "type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "get_filings",
            "arguments": json.dumps({"company": "cygnus"}), "status": "completed",
        }),
        FunctionCallOutput.model_validate({"type": "function_call_output", "call_id": "call_a", "output": json.dumps(filings)}),
        ResponseCodeInterpreterToolCall.model_validate({
            "id": "ci_1", "type": "code_interpreter_call", "status": "completed", "container_id": "cntr_1",
            "code": "import requests\nprint(requests.get('https://example.com/cygnus.json').status_code)",
            "outputs": [{"type": "logs", "logs": "200"}],
        }),
        ResponseOutputMessage.model_validate({
            "id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "Yes: Cygnus priced its IPO in February.", "annotations": [
                {"type": "url_citation", "url": "https://www.cnbc.com/2023/02/09/cygnus-robotics-ipo.html",
                 "title": "Cygnus Robotics IPO", "start_index": 0, "end_index": 38},
            ]}],
        }),
    ]
    return _json([item.model_dump(mode="json") for item in items])


# --- anthropic --------------------------------------------------------------------


def _anthropic_message(content: list, ident: str):
    from anthropic.types import Message

    return Message.model_validate({
        "id": ident, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": content,
        "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 20},
    }).model_dump(mode="json")


def anthropic() -> str:
    from anthropic.types import MessageParam
    from pydantic import TypeAdapter

    param = TypeAdapter(MessageParam)

    def sent(message: dict) -> dict:
        return param.dump_python(param.validate_python(message), mode="json")

    fetched = (
        "Cygnus Robotics has filed confidentially and is expected to list in March 2023, "
        "people familiar with the matter said."
    )
    messages = [
        sent({"role": "user", "content": "As of 2023-01-01: will Cygnus Robotics list by March 2023?"}),
        _anthropic_message([
            {"type": "text", "text": "I'll search for recent news."},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "cygnus robotics ipo"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "url": "https://www.ft.com/content/cygnus-robotics-ipo",
                 "title": "Cygnus Robotics prices IPO", "page_age": "February 9, 2023", "encrypted_content": "EqQBCioIAhgB"},
                {"type": "web_search_result", "url": "https://example.org/2022/12/20/cygnus-robotics",
                 "title": "Cygnus Robotics weighs a listing", "page_age": "December 20, 2022", "encrypted_content": "EqQBCioIAhgC"},
            ]},
            {"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_fetch", "input": {"url": "https://example.org/2022/12/20/cygnus-robotics"}},
            {"type": "web_fetch_tool_result", "tool_use_id": "srvtoolu_2", "content": {
                "type": "web_fetch_result", "url": "https://example.org/2022/12/20/cygnus-robotics",
                "retrieved_at": "2025-06-01T10:00:00Z",
                "content": {"type": "document", "title": "Cygnus Robotics weighs a listing",
                            "source": {"type": "text", "media_type": "text/plain", "data": fetched}},
            }},
            {"type": "server_tool_use", "id": "srvtoolu_3", "name": "web_search", "input": {"query": "cygnus robotics s-1"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_3", "content": {
                "type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
            {"type": "tool_use", "id": "toolu_1", "name": "get_price", "input": {"ticker": "CYGN"}},
        ], "msg_01"),
        sent({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "upstream timeout", "is_error": True},
        ]}),
        _anthropic_message([
            {"type": "text", "text": "Probably yes: it was weighing a listing in December.", "citations": [
                {"type": "web_search_result_location", "url": "https://example.org/2022/12/20/cygnus-robotics",
                 "title": "Cygnus Robotics weighs a listing", "cited_text": "Cygnus Robotics weighs a listing",
                 "encrypted_index": "Eo8BCioIAhgB"},
            ]},
        ], "msg_02"),
    ]
    return _json(messages)


# --- claude-code (published schema: no SDK builds transcripts) ---------------------


def _record(kind: str, uuid: str, parent: str | None, timestamp: str, message: dict, **extra) -> dict:
    return {
        "parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/home/analyst/forecast",
        "sessionId": "5f0c6a9e-7c1d-4c55-9d8e-2f3b1a6c0d11", "version": "2.0.49", "gitBranch": "main",
        "type": kind, "message": message, "uuid": uuid, "timestamp": timestamp, **extra,
    }


def _assistant(uuid: str, parent: str, timestamp: str, message_id: str, block: dict) -> dict:
    return _record("assistant", uuid, parent, timestamp, {
        "model": "claude-sonnet-4-5-20250929", "id": message_id, "type": "message", "role": "assistant",
        "content": [block], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 4, "output_tokens": 30, "service_tier": "standard"},
    }, requestId="req_011CV")


def _result(uuid: str, parent: str, timestamp: str, tool_use_id: str, content, tool_use_result, is_error=None) -> dict:
    block = {"tool_use_id": tool_use_id, "type": "tool_result", "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return _record("user", uuid, parent, timestamp, {"role": "user", "content": [block]}, toolUseResult=tool_use_result)


def claude_code() -> str:
    links = [
        {"title": "Cygnus Robotics prices IPO", "url": "https://www.bloomberg.com/news/articles/2023-02-09/cygnus-robotics-prices-ipo"},
        {"title": "Cygnus Robotics company profile", "url": "https://example.net/cygnus-profile"},
    ]
    search_text = (
        'Web search results for query: "cygnus robotics ipo 2023"\n\nLinks: ' + json.dumps(links, separators=(",", ":"))
        + "\n\nCygnus Robotics is a robot maker."
    )
    timelock_text = LOCK_SEARCH
    rows = [
        {"type": "summary", "summary": "Cygnus Robotics IPO forecast", "leafUuid": "a9"},
        _record("user", "u1", None, "2025-06-01T10:00:00.000Z", {"role": "user", "content": "As of 2023-01-01, will Cygnus Robotics list by March 2023?"}),
        _assistant("a1", "u1", "2025-06-01T10:00:02.000Z", "msg_01A", {"type": "text", "text": "Let me look this up."}),
        _assistant("a2", "a1", "2025-06-01T10:00:03.000Z", "msg_01A",
                   {"type": "tool_use", "id": "toolu_01WS", "name": "WebSearch", "input": {"query": "cygnus robotics ipo 2023"}}),
        _assistant("a3", "a2", "2025-06-01T10:00:03.100Z", "msg_01A",
                   {"type": "tool_use", "id": "toolu_01BA", "name": "Bash",
                    "input": {"command": "curl -s https://example.com/cygnus.json", "description": "Fetch Cygnus data"}}),
        # Results out of order: paired by tool_use_id.
        _result("u2", "a3", "2025-06-01T10:00:04.000Z", "toolu_01BA", '{"price": 41}',
                {"stdout": '{"price": 41}', "stderr": "", "interrupted": False, "isImage": False}),
        _result("u3", "a2", "2025-06-01T10:00:05.000Z", "toolu_01WS", search_text,
                {"query": "cygnus robotics ipo 2023",
                 "results": [{"tool_use_id": "srvtoolu_01", "content": links}, "Cygnus Robotics is a robot maker."],
                 "durationSeconds": 2.1}),
        _assistant("a4", "u3", "2025-06-01T10:00:07.000Z", "msg_01B",
                   {"type": "tool_use", "id": "toolu_01WF", "name": "WebFetch",
                    "input": {"url": "https://example.net/cygnus-profile", "prompt": "Summarise the company"}}),
        _result("u4", "a4", "2025-06-01T10:00:09.000Z", "toolu_01WF", "Cygnus Robotics builds warehouse robots.",
                {"bytes": 20480, "code": 200, "codeText": "OK", "result": "Cygnus Robotics builds warehouse robots.",
                 "durationMs": 1243, "url": "https://example.net/cygnus-profile"}),
        _assistant("a5", "u4", "2025-06-01T10:00:10.000Z", "msg_01C",
                   {"type": "tool_use", "id": "toolu_01TL", "name": "mcp__timelock__search", "input": {"query": "cygnus robotics"}}),
        _result("u5", "a5", "2025-06-01T10:00:11.000Z", "toolu_01TL", [{"type": "text", "text": timelock_text}], None),
        _assistant("a6", "u5", "2025-06-01T10:00:13.000Z", "msg_01D", {"type": "text", "text": (
            "Probably yes, in the first quarter.\n\nSources:\n- [Profile](https://example.net/cygnus-profile)"
        )}),
    ]
    return _jsonl(rows)


def claude_code_sealed() -> str:
    """A session whose every call goes through the time lock: sealed."""
    def row(kind, uuid, parent, seconds, message, **extra):
        record = _record(kind, uuid, parent, f"2025-06-02T09:00:{seconds:02d}.000Z", message, **extra)
        record["sessionId"] = "0c2d7f4e-1b9a-4e8e-a3c5-6d7e8f9a0b12"
        return record

    search, fetch = LOCK_SEARCH, LOCK_FETCH
    tool = lambda ident, name, arguments: {"model": "claude-sonnet-4-5-20250929", "id": f"msg_{ident}", "type": "message", "role": "assistant",
                                             "content": [{"type": "tool_use", "id": ident, "name": name, "input": arguments}],
                                             "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    answer = {"model": "claude-sonnet-4-5-20250929", "id": "msg_end", "type": "message", "role": "assistant",
              "content": [{"type": "text", "text": "Unclear as of the cutoff."}], "stop_reason": "end_turn",
              "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    result = lambda ident, text: {"role": "user", "content": [{"tool_use_id": ident, "type": "tool_result", "content": [{"type": "text", "text": text}]}]}
    rows = [
        row("user", "s1", None, 0, {"role": "user", "content": "As of 2023-01-01, will Cygnus Robotics list by March 2023?"}),
        row("assistant", "s2", "s1", 1, tool("toolu_02S", "mcp__timelock__search", {"query": "cygnus robotics"})),
        row("user", "s3", "s2", 2, result("toolu_02S", search)),
        row("assistant", "s4", "s3", 3, tool("toolu_02F", "mcp__timelock__fetch", {"id_or_url": "https://example.net/2022/11/01/cygnus-robotics-funding"})),
        row("user", "s5", "s4", 4, result("toolu_02F", fetch)),
        row("assistant", "s6", "s5", 5, answer),
    ]
    return _jsonl(rows)


def claude_code_local() -> str:
    """One leaking WebSearch among four local tools (Read of a file full of URLs, Edit, TodoWrite, Grep)."""
    def row(kind, uuid, parent, seconds, message, **extra):
        record = _record(kind, uuid, parent, f"2025-06-03T08:00:{seconds:02d}.000Z", message, **extra)
        record["sessionId"] = "7d1e2f3a-4b5c-4d6e-8f90-a1b2c3d4e5f6"
        return record

    def tool(ident, name, arguments):
        return {"model": "claude-sonnet-4-5-20250929", "id": f"msg_{ident}", "type": "message", "role": "assistant",
                "content": [{"type": "tool_use", "id": ident, "name": name, "input": arguments}],
                "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}

    def result(ident, text):
        return {"role": "user", "content": [{"tool_use_id": ident, "type": "tool_result", "content": text}]}

    links = [{"title": "Cygnus Robotics prices IPO", "url": "https://www.bloomberg.com/news/articles/2023-02-09/cygnus-robotics-prices-ipo"}]
    search_text = 'Web search results for query: "cygnus robotics ipo"\n\nLinks: ' + json.dumps(links, separators=(",", ":"))
    notes = ("     1\t# Reading list\n     2\thttps://example.net/cygnus-notes\n"
             "     3\thttps://www.reuters.com/2024/05/01/cygnus-results/\n")
    calls = [
        ("toolu_03WS", "WebSearch", {"query": "cygnus robotics ipo"}, search_text,
         {"query": "cygnus robotics ipo", "results": [{"tool_use_id": "srvtoolu_03", "content": links}], "durationSeconds": 1.5}),
        ("toolu_03RD", "Read", {"file_path": "/home/analyst/forecast/notes.md"}, notes,
         {"type": "text", "file": {"filePath": "/home/analyst/forecast/notes.md", "content": notes, "numLines": 3, "startLine": 1, "totalLines": 3}}),
        ("toolu_03ED", "Edit", {"file_path": "/home/analyst/forecast/notes.md", "old_string": "# Reading list", "new_string": "# Sources"},
         "The file /home/analyst/forecast/notes.md has been updated.", {"filePath": "/home/analyst/forecast/notes.md"}),
        ("toolu_03TD", "TodoWrite", {"todos": [{"content": "Check https://example.org/ipo-calendar", "status": "pending", "activeForm": "Checking"}]},
         "Todos have been modified successfully.", {"oldTodos": [], "newTodos": []}),
        ("toolu_03GR", "Grep", {"pattern": "https?://", "path": "/home/analyst/forecast"}, "Found 1 file\n/home/analyst/forecast/notes.md",
         {"mode": "files_with_matches", "filenames": ["/home/analyst/forecast/notes.md"], "numFiles": 1}),
    ]
    rows = [row("user", "l0", None, 0, {"role": "user", "content": "As of 2023-01-01, will Cygnus Robotics list by March 2023?"})]
    parent = "l0"
    for number, (ident, name, arguments, text, structured) in enumerate(calls):
        rows.append(row("assistant", f"l{2 * number + 1}", parent, 2 * number + 1, tool(ident, name, arguments)))
        rows.append(row("user", f"l{2 * number + 2}", f"l{2 * number + 1}", 2 * number + 2, result(ident, text), toolUseResult=structured))
        parent = f"l{2 * number + 2}"
    return _jsonl(rows)


def mcp_config() -> str:
    return _json({"mcpServers": {
        "timelock": {"command": "anachron", "args": ["serve", "--as-of", "2023-01-01", "--events", "events.jsonl"]},
        "browser": {"command": "npx", "args": ["-y", "@playwright/mcp"]},
    }})


# --- otel (OTLP JSON, published schema) ----------------------------------------------


def _attr(key: str, value) -> dict:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(trace: str, span: str, parent: str, name: str, start_s: int, attributes: dict, status=None) -> dict:
    base = 1672531200  # 2023-01-01T00:00:00Z, seconds: the run's clock (the spans only order the calls)
    return {
        "traceId": trace, "spanId": span, "parentSpanId": parent, "name": name, "kind": 1,
        "startTimeUnixNano": str((base + start_s) * 10**9), "endTimeUnixNano": str((base + start_s + 1) * 10**9),
        "attributes": [_attr(k, v) for k, v in attributes.items()], "status": status or {},
    }


def otel() -> str:
    t1, t2 = "5b8efff798038103d269b633813fc60c", "0af7651916cd43dd8448eb211c80319c"
    tavily = {"results": [{"url": "https://www.reuters.com/markets/cygnus-prices-ipo/", "title": "Cygnus Robotics prices IPO",
                           "content": "Cygnus Robotics priced its IPO.", "published_date": "2023-02-09"}]}
    serper = {"searchParameters": {"q": "cygnus ipo"}, "organic": [
        {"title": "Cygnus Robotics IPO", "link": "https://www.marketwatch.com/story/cygnus-robotics-ipo",
         "snippet": "Cygnus Robotics priced shares ...", "date": "Feb 9, 2023", "position": 1}]}
    brave = {"type": "search", "web": {"type": "search", "results": [
        {"title": "Cygnus Robotics", "url": "https://example.com/cygnus-overview", "description": "A robot maker.",
         "page_age": "2022-12-01T00:00:00", "age": "December 1, 2022"}]}}
    semconv = [
        _span(t1, "a1a1a1a1a1a1a1a1", "", "invoke_agent forecaster", 0,
              {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "forecaster"}),
        _span(t1, "b1b1b1b1b1b1b1b1", "a1a1a1a1a1a1a1a1", "execute_tool tavily_search", 10, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "tavily_search", "gen_ai.tool.call.id": "call_t1",
            "gen_ai.tool.type": "function", "gen_ai.tool.call.arguments": json.dumps({"query": "cygnus robotics ipo"}),
            "gen_ai.tool.call.result": json.dumps(tavily)}),
        _span(t1, "c1c1c1c1c1c1c1c1", "a1a1a1a1a1a1a1a1", "execute_tool brave_search", 20, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "brave_search", "gen_ai.tool.call.id": "call_t2",
            "gen_ai.tool.call.arguments": json.dumps({"query": "cygnus robotics"}), "error.type": "RateLimitError"},
            {"code": 2, "message": "429 Too Many Requests"}),
        _span(t1, "d1d1d1d1d1d1d1d1", "a1a1a1a1a1a1a1a1", "chat gpt-4o", 30, {
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                {"type": "text", "content": "Yes, see https://www.reuters.com/markets/cygnus-prices-ipo/"}], "finish_reason": "stop"}])}),
    ]
    openinference = [
        _span(t2, "a2a2a2a2a2a2a2a2", "", "AgentExecutor", 100, {"openinference.span.kind": "CHAIN", "session.id": "fc-otel-2"}),
        _span(t2, "b2b2b2b2b2b2b2b2", "a2a2a2a2a2a2a2a2", "serper_search", 110, {
            "openinference.span.kind": "TOOL", "tool.name": "serper_search", "session.id": "fc-otel-2",
            "input.value": json.dumps({"q": "cygnus ipo"}), "input.mime_type": "application/json",
            "output.value": json.dumps(serper), "output.mime_type": "application/json"}),
    ]
    openllmetry = [
        _span(t2, "c2c2c2c2c2c2c2c2", "a2a2a2a2a2a2a2a2", "brave_search.tool", 120, {
            "traceloop.span.kind": "tool", "traceloop.entity.name": "brave_search",
            "traceloop.entity.input": json.dumps({"inputs": {"query": "cygnus robotics"}, "tags": [], "metadata": {}}),
            "traceloop.entity.output": json.dumps({"outputs": brave, "kwargs": {}})}),
    ]
    resource = {"attributes": [_attr("service.name", "forecaster")]}
    document = {"resourceSpans": [
        {"resource": resource, "scopeSpans": [
            {"scope": {"name": "opentelemetry.instrumentation.openai_agents", "version": "0.1.0"}, "spans": semconv},
            {"scope": {"name": "openinference.instrumentation.langchain", "version": "0.1.0"}, "spans": openinference},
            {"scope": {"name": "opentelemetry.instrumentation.langchain", "version": "0.1.0"}, "spans": openllmetry},
        ]},
    ]}
    return _json(document)


# --- every call kind (issue 26: "whole call kinds go unaudited") --------------------


def openai_responses_kinds() -> str:
    """One Response object (its id names the sample) whose output holds every call kind of the SDK."""
    from openai.types.responses import Response

    output = [
        {"type": "mcp_call", "id": "mcp_1", "server_label": "timelock", "name": "search", "status": "completed",
         "arguments": json.dumps({"query": "cygnus robotics"}),
         "output": LOCK_SEARCH},
        {"type": "mcp_call", "id": "mcp_2", "server_label": "browser", "name": "navigate", "status": "failed",
         "arguments": json.dumps({"url": "https://www.reuters.com/markets/cygnus-prices-ipo/"}), "error": {"type": "http_error", "code": 504, "message": "navigation timed out"}},
        {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_custom", "name": "sql", "input": "SELECT 1"},
        {"type": "custom_tool_call_output", "id": "ctco_1", "call_id": "call_custom", "output": "1", "status": "completed"},
        {"type": "computer_call", "id": "cu_1", "call_id": "call_computer", "status": "completed", "pending_safety_checks": [],
         "action": {"type": "click", "button": "left", "x": 10, "y": 20}},
        {"type": "computer_call_output", "id": "cuo_1", "call_id": "call_computer", "status": "completed",
         "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "file_search_call", "id": "fs_1", "status": "completed", "queries": ["cygnus robotics ipo"], "results": [
            {"file_id": "file_1", "filename": "notes.md", "score": 0.9,
             "text": "Pricing: https://www.cnbc.com/2023/02/09/cygnus-robotics-ipo.html"}]},
        {"type": "image_generation_call", "id": "ig_1", "status": "completed", "result": "iVBORw0KGgo="},
        {"type": "apply_patch_call", "id": "ap_1", "call_id": "call_patch", "status": "completed",
         "operation": {"type": "update_file", "path": "notes.md", "diff": "@@\n-a\n+b\n"}},
        {"type": "apply_patch_call_output", "id": "apo_1", "call_id": "call_patch", "status": "completed", "output": "patched"},
        {"type": "local_shell_call", "id": "ls_1", "call_id": "call_local", "status": "completed",
         "action": {"type": "exec", "command": ["curl", "-s", "https://example.com/cygnus.json"], "env": {}}},
        {"type": "local_shell_call_output", "id": "lso_1", "call_id": "call_local", "output": '{"price": 41}', "status": "completed"},
        {"type": "shell_call", "id": "sh_1", "call_id": "call_shell", "status": "completed",
         "action": {"commands": ["ls notes"], "timeout_ms": 1000, "max_output_length": 1000}},
        {"type": "shell_call_output", "id": "sho_1", "call_id": "call_shell", "status": "completed", "max_output_length": 1000,
         "output": [{"stdout": "notes.md", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]},
        {"type": "program", "id": "pr_1", "call_id": "call_program", "code": "print(1 + 1)", "fingerprint": "fp_1"},
        {"type": "program_output", "id": "pro_1", "call_id": "call_program", "result": "2", "status": "completed"},
        {"type": "web_search_call", "id": "ws_find", "status": "completed",
         "action": {"type": "find_in_page", "url": "https://example.net/2022/11/01/cygnus-robotics-funding", "pattern": "IPO"}},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [
            {"type": "output_text", "text": "Unclear as of the cutoff.", "annotations": []}]},
    ]
    response = Response.model_validate({
        "id": "resp_kinds", "object": "response", "created_at": 1672617600, "model": "gpt-5", "output": output,
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
    })
    return _json(response.model_dump(mode="json", exclude_none=True))


def openai_chat_legacy() -> str:
    """A JSON array of two conversations: one with the legacy ``function_call`` (and its own id), one without."""
    sent, replied = _chat_sent, _chat_replied
    results = {"results": [{"url": "https://www.reuters.com/markets/cygnus-prices-ipo/", "title": "Cygnus prices IPO",
                            "published_date": "2023-02-09"}]}
    first = {"id": "legacy-1", "messages": [
        sent({"role": "user", "content": "Will Cygnus Robotics list by March 2023?"}),
        replied({"role": "assistant", "content": None,
                 "function_call": {"name": "web_search", "arguments": json.dumps({"query": "cygnus robotics ipo"})}}),
        sent({"role": "function", "name": "web_search", "content": json.dumps(results)}),
        replied({"role": "assistant", "content": None,
                 "function_call": {"name": "run_shell", "arguments": "curl -s https://example.com/x"}}),
        # No function message answers run_shell: a call whose result the log does not hold.
        replied({"role": "assistant", "content": "Yes."}),
    ]}
    second = [
        sent({"role": "user", "content": "And Acme?"}),
        replied({"role": "assistant", "content": "No data."}),
    ]
    return _json([first, second])


def anthropic_mcp() -> str:
    """The MCP connector's blocks (beta types): a sealed search, a failed browser call, a code execution."""
    from anthropic.types import MessageParam
    from anthropic.types.beta import BetaMessage
    from pydantic import TypeAdapter

    param = TypeAdapter(MessageParam)
    message = BetaMessage.model_validate({
        "id": "msg_mcp", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 20}, "content": [
            {"type": "mcp_tool_use", "id": "mcptoolu_1", "server_name": "timelock", "name": "search", "input": {"query": "cygnus robotics"}},
            {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": False, "content": [
                {"type": "text", "text": "id: https://example.net/2022/11/01/cygnus-robotics-funding\npublished: 2022-11-01"}]},
            {"type": "mcp_tool_use", "id": "mcptoolu_2", "server_name": "browser", "name": "navigate",
             "input": {"url": "https://www.ft.com/content/cygnus-robotics-ipo"}},
            {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_2", "is_error": True, "content": [{"type": "text", "text": "blocked"}]},
            {"type": "server_tool_use", "id": "srvtoolu_9", "name": "code_execution", "input": {"code": "print(1)"}},
            {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_9", "content": {
                "type": "code_execution_result", "stdout": "1", "stderr": "", "return_code": 0, "content": []}},
            {"type": "text", "text": "It was raising money in November 2022."},
        ],
    }).model_dump(mode="json", exclude_none=True)
    return _json({"id": "anthropic-mcp-run", "messages": [
        param.dump_python(param.validate_python({"role": "user", "content": "As of 2023-01-01: will Cygnus list?"}), mode="json"),
        message,
    ]})


TEAM_SESSION = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"


def _team(kind, uuid, parent, seconds, message, sidechain=False, **extra):
    record = _record(kind, uuid, parent, f"2025-06-04T12:00:{seconds:02d}.000Z", message, **extra)
    record.update(sessionId=TEAM_SESSION, version="2.1.0", isSidechain=sidechain)
    return record


def _tool_message(ident, name, arguments, block_type="tool_use"):
    return {"model": "claude-sonnet-4-5-20250929", "id": f"msg_{ident}", "type": "message", "role": "assistant",
            "content": [{"type": block_type, "id": ident, "name": name, "input": arguments}],
            "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


def _tool_answer(ident, text):
    return {"role": "user", "content": [{"tool_use_id": ident, "type": "tool_result", "content": text}]}


def _subagent_rows() -> list:
    """The subagent's records (agent a1b2c3d): a WebSearch that leaks, then a WebFetch."""
    links = [{"title": "Cygnus Robotics prices IPO", "url": "https://www.bloomberg.com/news/articles/2023-02-09/cygnus-robotics-prices-ipo"}]
    search_text = 'Web search results for query: "cygnus ipo"\n\nLinks: ' + json.dumps(links, separators=(",", ":"))
    agent = {"agentId": "a1b2c3d"}
    return [
        _team("user", "sa0", None, 3, {"role": "user", "content": "Find the Cygnus IPO date."}, True, **agent),
        _team("assistant", "sa1", "sa0", 4, _tool_message("toolu_SA1", "WebSearch", {"query": "cygnus ipo"}), True, **agent),
        _team("user", "sa2", "sa1", 5, _tool_answer("toolu_SA1", search_text), True,
              toolUseResult={"query": "cygnus ipo", "results": [{"tool_use_id": "srvtoolu_SA", "content": links}], "durationSeconds": 1.0}, **agent),
        _team("assistant", "sa3", "sa2", 6, _tool_message("toolu_SA2", "WebFetch", {"url": "https://example.net/cygnus-profile", "prompt": "date?"}), True, **agent),
        _team("user", "sa4", "sa3", 7, _tool_answer("toolu_SA2", "Cygnus Robotics builds robots."), True,
              toolUseResult={"bytes": 100, "code": 200, "codeText": "OK", "result": "Cygnus Robotics builds robots.",
                             "durationMs": 10, "url": "https://example.net/cygnus-profile"}, **agent),
        _team("assistant", "sa5", "sa4", 8, {"model": "claude-sonnet-4-5-20250929", "id": "msg_sa5", "type": "message", "role": "assistant",
              "content": [{"type": "text", "text": "February 9, 2023."}], "stop_reason": "end_turn", "stop_sequence": None,
              "usage": {"input_tokens": 1, "output_tokens": 1}}, True, **agent),
    ]


def claude_code_team() -> str:
    """A main session that spawns a subagent (Task), reads its output (TaskOutput), calls a built-in
    Claude Code does not document (``Notebook``: local), and searches with the server tool."""
    sub = _subagent_rows()
    # Claude Code 2.1 copies the subagent's first records into progress records of the main file.
    progress = [
        {"type": "progress", "uuid": f"p{n}", "parentUuid": "m1", "sessionId": TEAM_SESSION, "timestamp": row["timestamp"],
         "toolUseID": "toolu_TASK", "parentToolUseID": "toolu_TASK", "isSidechain": False,
         "data": {"type": "agent_progress", "agentId": "a1b2c3d", "prompt": "Find the Cygnus IPO date.", "message": row}}
        for n, row in enumerate(sub[1:3])
    ]
    server = {"model": "claude-sonnet-4-5-20250929", "id": "msg_srv", "type": "message", "role": "assistant", "content": [
        {"type": "server_tool_use", "id": "srvtoolu_M1", "name": "web_search", "input": {"query": "cygnus robotics listing"}}],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    server_result = dict(server, content=[{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_M1", "content": [
        {"type": "web_search_result", "url": "https://example.org/2022/12/20/cygnus-robotics", "title": "Cygnus weighs a listing",
         "page_age": "December 20, 2022", "encrypted_content": "Eq"}]}])
    answer = {"model": "claude-sonnet-4-5-20250929", "id": "msg_end", "type": "message", "role": "assistant",
              "content": [{"type": "text", "text": "Probably yes."}], "stop_reason": "end_turn", "stop_sequence": None,
              "usage": {"input_tokens": 1, "output_tokens": 1}}
    rows = [
        _team("user", "m0", None, 0, {"role": "user", "content": "As of 2023-01-01, will Cygnus Robotics list by March 2023?"}),
        _team("assistant", "m1", "m0", 1, _tool_message("toolu_TASK", "Task", {"description": "IPO date", "prompt": "Find the Cygnus IPO date.",
                                                                              "subagent_type": "general-purpose", "run_in_background": True})),
        _team("user", "m2", "m1", 2, _tool_answer("toolu_TASK", "Async agent launched: a1b2c3d"),
              toolUseResult={"status": "async_launched", "agentId": "a1b2c3d"}),
        *progress,
        _team("assistant", "m3", "m2", 9, _tool_message("toolu_OUT", "TaskOutput", {"task_id": "a1b2c3d", "block": True})),
        _team("user", "m4", "m3", 10, _tool_answer("toolu_OUT", "February 9, 2023. See https://www.bloomberg.com/news/articles/2023-02-09/cygnus-robotics-prices-ipo"),
              toolUseResult={"retrieval_status": "success", "task": {"task_id": "a1b2c3d", "status": "completed"}}),
        _team("assistant", "m5", "m4", 11, _tool_message("toolu_NB", "Notebook", {"path": "notes.ipynb"})),
        _team("user", "m6", "m5", 12, _tool_answer("toolu_NB", "cells: 3, https://example.org/2024/01/01/later")),
        _team("assistant", "m7", "m6", 13, server),
        _team("assistant", "m8", "m7", 14, server_result),
        _team("assistant", "m9", "m8", 15, answer),
    ]
    return _jsonl(rows)


def claude_code_team_subagent() -> str:
    return _jsonl(_subagent_rows())


BUILDERS = {
    "openai-chat.jsonl": openai_chat,
    "openai-responses.json": openai_responses,
    "anthropic.json": anthropic,
    "claude-code.jsonl": claude_code,
    "claude-code-sealed.jsonl": claude_code_sealed,
    "claude-code-local.jsonl": claude_code_local,
    "mcp.json": mcp_config,
    "otel.json": otel,
    "openai-responses-kinds.json": openai_responses_kinds,
    "openai-chat-legacy.json": openai_chat_legacy,
    "anthropic-mcp.json": anthropic_mcp,
    "claude-code-team.jsonl": claude_code_team,
    "claude-code-team/subagents/agent-a1b2c3d.jsonl": claude_code_team_subagent,
}


def build(out: Path = OUT) -> dict[str, str]:
    """Write every fixture under *out*; return name -> text."""
    out.mkdir(parents=True, exist_ok=True)
    texts = {name: builder() for name, builder in BUILDERS.items()}
    for name, text in texts.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)  # a session's subagents live in SESSION/subagents/
        (out / name).write_text(text, encoding="utf-8")
    return texts


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
