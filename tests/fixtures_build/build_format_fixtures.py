"""Build the fixtures of the conversation-log formats (pydantic-ai, langchain, codex, gemini-cli)
in tests/data/importers/ (see its README.md).

    python tests/fixtures_build/build_format_fixtures.py [OUT_DIR]

pydantic-ai and LangChain logs are written by those packages themselves, offline:
pydantic-ai's ``FunctionModel`` scripts the model's turns and the agent runs the
real tools, then ``ModelMessagesTypeAdapter`` dumps the history; LangChain's
``messages_to_dict`` dumps the messages of a tool-calling loop driven by its
``GenericFakeChatModel``.  The volatile fields (timestamps, run ids) are set to
fixed values and validated again by the same package, so the bytes are
deterministic under the pinned versions (:data:`VERSIONS`).  Codex and Gemini
CLI logs have no package that runs offline: they follow the published schemas
named in the README and in each file's first record.

The scenario (the same as build_importer_fixtures.py): as of 2023-01-01, will
Cygnus Robotics list by March 2023?  It priced its IPO on 2023-02-09.  Each
agent searches once (a post-T item, a pre-T item, an undated one), fetches the
pre-T page and runs one local tool, then answers citing the pre-T page.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "data" / "importers"
VERSIONS = {"pydantic-ai-slim": "2.68.0", "langchain-core": "0.3.76"}
QUERY = "cygnus robotics ipo"
PAGE_URL = "https://example.com/cygnus-files"
SEARCH_RESULTS = [
    {"url": "https://www.reuters.com/markets/cygnus-prices-ipo/", "title": "Cygnus Robotics prices IPO above range",
     "content": "Cygnus Robotics priced its initial public offering above the marketed range.",
     "published_date": "2023-02-09"},
    {"url": PAGE_URL, "title": "Cygnus Robotics files confidentially",
     "content": "The robot maker filed a draft registration statement.", "published_date": "2022-12-15"},
    {"url": "https://robotics-digest.example.org/companies/cygnus", "title": "Cygnus Robotics: company profile",
     "content": "Cygnus builds warehouse robots."},
]
PAGE = (
    '<html><head><meta property="article:published_time" content="2022-12-15T09:00:00Z">'
    "<title>Cygnus files</title></head><body><p>Cygnus Robotics filed a draft registration "
    "statement on December 15, 2022.</p></body></html>"
)
ANSWER = f"Likely yes: it filed a draft registration statement in December ({PAGE_URL})."
LOCAL = ("days_between", {"start": "2023-01-01", "end": "2023-03-31"}, 89)


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1) + "\n"


# --- pydantic-ai ------------------------------------------------------------------


def _pydantic_ai_history() -> list:
    """The messages of a real pydantic-ai run, scripted by FunctionModel, with fixed timestamps and ids."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    steps = [
        ToolCallPart("search", {"query": QUERY}, tool_call_id="call_search"),
        ToolCallPart("fetch", {"url": PAGE_URL}, tool_call_id="call_fetch"),
        ToolCallPart(LOCAL[0], LOCAL[1], tool_call_id="call_days"),
        TextPart(ANSWER),
    ]

    def model(messages, info):
        return ModelResponse(parts=[steps[sum(1 for m in messages if m.kind == "response")]])

    agent = Agent(FunctionModel(model), system_prompt="You are a forecaster. Today is 2023-01-01.")

    @agent.tool_plain
    def search(query: str) -> list:
        return SEARCH_RESULTS

    @agent.tool_plain
    def fetch(url: str) -> str:
        return PAGE

    @agent.tool_plain
    def days_between(start: str, end: str) -> int:
        return LOCAL[2]

    messages = ModelMessagesTypeAdapter.dump_python(agent.run_sync("Will Cygnus Robotics list by March 2023?").all_messages(), mode="json")
    for n, message in enumerate(messages):  # fixed times and ids, so the bytes are deterministic
        stamp = f"2023-01-01T12:00:{n:02d}Z"
        message["timestamp"] = stamp
        message["run_id"] = "0192f4e0-6b1a-7c3d-9e8f-a1b2c3d4e5f6"
        message["conversation_id"] = "0192f4e0-6b1a-7c3d-9e8f-c0ffee000001"
        for part in message["parts"]:
            if "timestamp" in part:
                part["timestamp"] = stamp
    return messages


def pydantic_ai() -> tuple[str, str]:
    """The whole history, and the same history saved mid-run (after the search call, before its return)."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    messages = _pydantic_ai_history()
    whole = ModelMessagesTypeAdapter.dump_json(ModelMessagesTypeAdapter.validate_python(messages), indent=1).decode() + "\n"
    cut = ModelMessagesTypeAdapter.dump_json(ModelMessagesTypeAdapter.validate_python(messages[:2]), indent=1).decode() + "\n"
    return whole, cut


# --- langchain --------------------------------------------------------------------


def _langchain_messages() -> list:
    """The messages of a LangChain tool-calling loop: GenericFakeChatModel scripts the AI turns, @tool tools run."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
    from langchain_core.tools import tool

    @tool
    def search(query: str) -> list:
        """Search the web."""
        return SEARCH_RESULTS

    @tool
    def fetch(url: str) -> str:
        """Read a page."""
        return PAGE

    @tool
    def days_between(start: str, end: str) -> int:
        """Days from start to end."""
        return LOCAL[2]

    tools = {t.name: t for t in (search, fetch, days_between)}
    model = GenericFakeChatModel(messages=iter([
        AIMessage("", id="ai-1", tool_calls=[{"name": "search", "args": {"query": QUERY}, "id": "call_search"}]),
        AIMessage("", id="ai-2", tool_calls=[{"name": "fetch", "args": {"url": PAGE_URL}, "id": "call_fetch"}]),
        AIMessage("", id="ai-3", tool_calls=[{"name": LOCAL[0], "args": LOCAL[1], "id": "call_days"}]),
        AIMessage(ANSWER, id="ai-4"),
    ]))
    messages = [SystemMessage("You are a forecaster. Today is 2023-01-01.", id="system-1"),
                HumanMessage("Will Cygnus Robotics list by March 2023?", id="human-1")]
    while True:
        reply = model.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return messages
        messages += [tools[call["name"]].invoke(call) for call in reply.tool_calls]  # a ToolCall in, a ToolMessage out


def langchain() -> tuple[str, str]:
    """``messages_to_dict`` of the loop's messages, and a LangGraph-style state of their ``dumpd`` form."""
    from langchain_core.load import dumpd
    from langchain_core.messages import messages_to_dict

    messages = _langchain_messages()
    return _json(messages_to_dict(messages)), _json({"thread_id": "thread-cygnus-1", "messages": [dumpd(m) for m in messages]})


# --- codex ------------------------------------------------------------------------

CODEX_SCHEMA = ("no Codex CLI runs offline here: this follows the published schema of the openai/codex repository "
                "(codex-rs/protocol: RolloutLine, ResponseItem; codex-rs/exec: ThreadEvent)")


def _jsonl(rows: list) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def codex() -> tuple[str, str]:
    """A rollout file of the scenario (search and fetch through MCP tools, a shell_command), and the
    events of a ``codex exec --json`` run (a native web search, whose results Codex never logs, an MCP
    fetch, a shell command that runs curl)."""
    session = "0199a0c1-3b2d-7e4f-8a9b-0c1d2e3f4a5b"

    def line(n: int, kind: str, payload: dict) -> dict:
        return {"timestamp": f"2023-01-01T12:00:{n:02d}.000Z", "type": kind, "payload": payload}

    def message(role: str, kind: str, text: str) -> dict:
        return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}

    def call(name: str, arguments: dict, ident: str) -> dict:
        return {"type": "function_call", "name": name, "arguments": json.dumps(arguments), "call_id": ident}

    def output(ident: str, text: str) -> dict:
        return {"type": "function_call_output", "call_id": ident, "output": text}

    rollout = [
        line(0, "session_meta", {"id": session, "timestamp": "2023-01-01T12:00:00.000Z", "cwd": "/work/forecast",
                                 "originator": "codex_cli_rs", "cli_version": "0.46.0", "instructions": None,
                                 "source": "cli", "note": CODEX_SCHEMA}),
        line(1, "turn_context", {"cwd": "/work/forecast", "approval_policy": "on-request", "model": "gpt-5-codex",
                                 "sandbox_policy": {"mode": "workspace-write"}, "summary": "auto"}),
        line(2, "response_item", message("user", "input_text", "Will Cygnus Robotics list by March 2023? Today is 2023-01-01.")),
        line(2, "event_msg", {"type": "user_message", "message": "Will Cygnus Robotics list by March 2023?", "images": []}),
        line(3, "response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Search first."}],
                                  "encrypted_content": None}),
        line(4, "response_item", call("tavily__search", {"query": QUERY}, "call_search")),
        line(5, "response_item", output("call_search", json.dumps({"query": QUERY, "results": SEARCH_RESULTS}))),
        line(6, "response_item", call("fetch__fetch", {"url": PAGE_URL}, "call_fetch")),
        line(7, "response_item", output("call_fetch", PAGE)),
        line(8, "response_item", call("shell_command", {"command": "ls notes", "workdir": "/work/forecast"}, "call_ls")),
        line(9, "response_item", output("call_ls", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\ncygnus.md\n")),
        line(9, "event_msg", {"type": "token_count", "info": None, "rate_limits": None}),
        line(10, "response_item", message("assistant", "output_text", ANSWER)),
        line(10, "event_msg", {"type": "agent_message", "message": ANSWER}),
    ]
    events = [
        {"type": "thread.started", "thread_id": "0199a0c1-3b2d-7e4f-8a9b-exec00000001"},
        {"type": "turn.started"},
        {"type": "item.started", "item": {"id": "item_0", "type": "web_search", "query": QUERY,
                                          "action": {"type": "search", "query": QUERY}}},
        {"type": "item.completed", "item": {"id": "item_0", "type": "web_search", "query": QUERY,
                                            "action": {"type": "search", "query": QUERY}}},
        {"type": "item.started", "item": {"id": "item_1", "type": "mcp_tool_call", "server": "fetch", "tool": "fetch",
                                          "arguments": {"url": PAGE_URL}, "result": None, "error": None, "status": "in_progress"}},
        {"type": "item.completed", "item": {"id": "item_1", "type": "mcp_tool_call", "server": "fetch", "tool": "fetch",
                                            "arguments": {"url": PAGE_URL}, "error": None, "status": "completed",
                                            "result": {"content": [{"type": "text", "text": PAGE}], "structured_content": None}}},
        {"type": "item.completed", "item": {"id": "item_2", "type": "command_execution",
                                            "command": "bash -lc 'curl -s https://news.example.com/cygnus'",
                                            "aggregated_output": "Cygnus Robotics prices IPO", "exit_code": 0, "status": "completed"}},
        {"type": "item.completed", "item": {"id": "item_3", "type": "agent_message", "text": ANSWER}},
        {"type": "turn.completed", "usage": {"input_tokens": 1200, "cached_input_tokens": 0, "output_tokens": 80}},
    ]
    return _jsonl(rollout), _jsonl(events)


# --- gemini-cli -------------------------------------------------------------------

GEMINI_SCHEMA = ("no Gemini CLI runs offline here: this follows the published types of the google-gemini/gemini-cli "
                 "repository (chatRecordingTypes.ts: ConversationRecord, MessageRecord, ToolCallRecord; output/types.ts: "
                 "JsonStreamEvent)")
PAGE_TEXT = "Cygnus Robotics filed a draft registration statement on December 15, 2022."


def gemini_cli() -> tuple[str, str]:
    """A JSON Lines session file of the scenario (an MCP search, web_fetch, read_file), and the stream-json
    events of a run: google_web_search (its sources are Google's redirect links, undated), a shell
    command running curl, and a web_fetch the run was cut before it returned."""
    session = "8f0e2c4a-1b3d-4e5f-9a7b-6c5d4e3f2a1b"

    def response(ident: str, name: str, output: str) -> list:
        return [{"functionResponse": {"id": ident, "name": name, "response": {"output": output}}}]

    def tool(ident: str, name: str, args: dict, output: str, n: int) -> dict:
        return {"id": ident, "name": name, "args": args, "result": response(ident, name, output), "status": "success",
                "timestamp": f"2023-01-01T12:00:{n:02d}.000Z", "displayName": name, "renderOutputAsMarkdown": True}

    def gemini(ident: str, n: int, content: str, calls: list) -> dict:
        record = {"id": ident, "timestamp": f"2023-01-01T12:00:{n:02d}.000Z", "type": "gemini", "content": content,
                  "thoughts": [], "tokens": {"input": 900, "output": 40, "cached": 0, "total": 940}, "model": "gemini-2.5-pro"}
        return record | ({"toolCalls": calls} if calls else {})

    search_output = json.dumps({"query": QUERY, "results": SEARCH_RESULTS})
    records = [
        {"sessionId": session, "projectHash": "3c1f0b5e9d", "startTime": "2023-01-01T12:00:00.000Z",
         "lastUpdated": "2023-01-01T12:00:09.000Z", "kind": "main", "summary": GEMINI_SCHEMA},
        {"id": "m1", "timestamp": "2023-01-01T12:00:01.000Z", "type": "user",
         "content": [{"text": "Will Cygnus Robotics list by March 2023? Today is 2023-01-01."}]},
        gemini("m2", 2, "", [tool("c1", "tavily_search", {"query": QUERY}, search_output, 2)]),
        gemini("m3", 4, "", [tool("c2", "web_fetch", {"prompt": f"Summarize {PAGE_URL}"}, PAGE, 4)]),
        gemini("m4", 6, "", [tool("c3", "read_file", {"absolute_path": "/work/forecast/notes.md"}, "# Notes\nNothing yet.", 6)]),
        {"id": "m5", "timestamp": "2023-01-01T12:00:07.000Z", "type": "info", "content": "Tool output truncated."},
        gemini("m6", 8, ANSWER, []),
        {"$set": {"lastUpdated": "2023-01-01T12:00:09.000Z"}},
    ]
    sources = ("Web search results for \"cygnus robotics ipo\":\n\nCygnus Robotics priced its IPO above range [1].\n\n"
               "Sources:\n[1] reuters.com (https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ1a2b3c)\n")

    def event(n: int, kind: str, **fields) -> dict:
        return {"type": kind, "timestamp": f"2023-01-01T12:00:{n:02d}.000Z", **fields}

    events = [
        event(0, "init", session_id="5a6b7c8d-0000-4000-8000-stream000001", model="gemini-2.5-pro"),
        event(1, "message", role="user", content="Will Cygnus Robotics list by March 2023?"),
        event(2, "tool_use", tool_name="google_web_search", tool_id="google_web_search-1", parameters={"query": QUERY}),
        event(3, "tool_result", tool_id="google_web_search-1", status="success", output=sources),
        event(4, "tool_use", tool_name="run_shell_command", tool_id="run_shell_command-2",
              parameters={"command": "curl -s https://news.example.com/cygnus", "description": "Read the news"}),
        event(5, "tool_result", tool_id="run_shell_command-2", status="success", output="Cygnus Robotics prices IPO"),
        event(6, "tool_use", tool_name="web_fetch", tool_id="web_fetch-3", parameters={"prompt": f"Summarize {PAGE_URL}"}),
        event(7, "message", role="assistant", content="Likely yes", delta=True),
        event(7, "message", role="assistant", content=".", delta=True),
        event(8, "result", status="success", stats={"total_tokens": 1200, "input_tokens": 1100, "output_tokens": 100,
                                                      "cached": 0, "input": 1100, "duration_ms": 8000, "tool_calls": 3}),
    ]
    return _jsonl(records), _jsonl(events)


def build(out: Path) -> dict[str, str]:
    files = {}
    files["pydantic-ai.json"], files["pydantic-ai-cut.json"] = pydantic_ai()
    files["langchain.json"], files["langchain-state.json"] = langchain()
    files["codex-rollout.jsonl"], files["codex-exec.jsonl"] = codex()
    files["gemini-cli-session.jsonl"], files["gemini-cli-stream.jsonl"] = gemini_cli()
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
    return files


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
