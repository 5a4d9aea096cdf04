"""Build the OTel fixtures in tests/data/importers/otel/ with the real instrumentations.

    python tests/fixtures_build/build_otel_fixtures.py [OUT_DIR]

A scripted agent (the ``openai`` SDK's Chat Completions client and a plain
tool loop) talks to a stub model server on 127.0.0.1 that speaks just enough
of the Chat Completions API: its first reply calls ``web_search``, its
second calls ``fetch_page`` and the local ``days_between`` together, its
third answers.  The search shows an item published after the cutoff, one
before it and an undated one; the fetch reads a page dated before it.  Each
run is instrumented by one real package (``opentelemetry-instrumentation-
openai-v2``, ``openinference-instrumentation-openai``, Traceloop's
``opentelemetry-instrumentation-openai``), with content
capture on or off; the OpenAI Agents SDK runs it (its Chat Completions
model on the stub) under ``openinference-instrumentation-openai-agents``,
content on, hidden, and left out by the SDK; and pydantic-ai runs the same agent with its
``FunctionModel`` and its own instrumentation (format version 2).  The
spans are exported by the SDK's in-memory
exporter, encoded by ``opentelemetry-exporter-otlp-proto-common`` as an
``ExportTraceServiceRequest`` and written as OTLP/JSON (protobuf's JSON
mapping, with trace and span ids as hex as the OTLP/JSON spec requires).

The instrumentations write random ids and wall-clock times: the builder
gives the tracer provider a counting id generator and a fixed
``service.instance.id``, rewrites each time to a fixed start plus its rank
(order kept) and the stub's free port to 8000, so a rebuild writes the
same bytes with the same package versions (:data:`PACKAGES`; :data:`AGENTS_PACKAGES` for the
OpenAI Agents SDK's runs, :data:`SLOW`).  No enclosing span: each chat call
is its own trace, as an uninstrumented agent loop exports them.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "data" / "importers" / "otel"
PACKAGES = {
    "opentelemetry-sdk": "1.45.2",
    "opentelemetry-exporter-otlp-proto-common": "1.45.2",
    "opentelemetry-instrumentation-openai-v2": "2.4b0",
    "openinference-instrumentation-openai": "0.1.66",
    "opentelemetry-instrumentation-openai": "0.62.4",  # Traceloop's OpenLLMetry
    "pydantic-ai-slim": "2.68.0",
    "langchain-core": "0.3.76",
    "openinference-instrumentation-langchain": "0.1.80",
    "opentelemetry-instrumentation-langchain": "0.62.4",
    "opentelemetry-util-genai": "1.1b0",  # openai-v2 2.4b0 imports its `instruments` (renamed in 1.2b0)
    "openai": "3.57.0",
}
AGENTS_PACKAGES = {**PACKAGES, "openai-agents": "0.24.0", "openinference-instrumentation-openai-agents": "2.6.0",
                   "opentelemetry-instrumentation-openai-agents": "0.62.4"}  # the last: Traceloop's
START_NS = 1_672_531_200_000_000_000  # 2023-01-01T00:00:00Z: the agent works as of this day
MODEL = "gpt-4o-mini"

SEARCH = {
    "query": "cygnus robotics ipo",
    "results": [
        {"url": "https://www.reuters.com/markets/cygnus-prices-ipo/", "title": "Cygnus Robotics prices IPO above range",
         "content": "Cygnus Robotics priced its initial public offering above the marketed range.",
         "published_date": "Thu, 09 Feb 2023 14:00:00 GMT"},
        {"url": "https://example.com/cygnus-files", "title": "Cygnus Robotics files confidentially",
         "content": "The robot maker filed a draft registration statement.",
         "published_date": "Thu, 15 Dec 2022 09:00:00 GMT"},
        {"url": "https://blog.example.org/robotics-listings", "title": "Robotics listings to watch",
         "content": "A roundup of robot makers said to be weighing a listing."},
    ],
}
PAGE = (
    '<html><head><meta property="article:published_time" content="2022-12-15T09:00:00Z">'
    "<title>Cygnus files</title></head><body><p>Cygnus Robotics filed a draft registration "
    "statement on December 15, 2022.</p></body></html>"
)
ANSWER = "Likely yes: Cygnus filed a draft registration in December (https://example.com/cygnus-files)."
TOOLS = [
    {"type": "function", "function": {"name": name, "description": text, "parameters": {
        "type": "object", "properties": {key: {"type": "string"} for key in keys}, "required": list(keys)}}}
    for name, text, keys in (
        ("web_search", "Search the web.", ("query",)),
        ("fetch_page", "Read a web page.", ("url",)),
        ("days_between", "Days between two ISO dates.", ("start", "end")),
    )
]


def run_tool(name: str, arguments: dict) -> str:
    if name == "web_search":
        return json.dumps(SEARCH)
    if name == "fetch_page":
        return PAGE
    return "90"  # days_between 2023-01-01 and 2023-03-31, counted locally


# The tools as plain functions, for the frameworks that build a tool from a signature and docstring.
def web_search(query: str) -> str:
    """Search the web."""
    return run_tool("web_search", {"query": query})


def fetch_page(url: str) -> str:
    """Read a web page."""
    return run_tool("fetch_page", {"url": url})


def days_between(start: str, end: str) -> str:
    """Days between two ISO dates."""
    return run_tool("days_between", {"start": start, "end": end})


# --- the stub model server -------------------------------------------------------


def _reply(request: dict) -> dict:
    """The scripted turn: by the number of tool results the request carries."""
    answered = sum(1 for m in request["messages"] if m.get("role") == "tool")
    message: dict = {"role": "assistant", "content": None}
    if answered == 0:
        calls = [("call_search", "web_search", {"query": "cygnus robotics ipo"})]
    elif answered == 1:
        calls = [("call_fetch", "fetch_page", {"url": "https://example.com/cygnus-files"}),
                 ("call_days", "days_between", {"start": "2023-01-01", "end": "2023-03-31"})]
    else:
        calls = []
        message["content"] = ANSWER
    if calls:
        message["tool_calls"] = [{"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                                 for i, n, a in calls]
    return {
        "id": f"chatcmpl-{answered + 1}", "object": "chat.completion", "created": 1672531200, "model": MODEL,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": 50 + 40 * answered, "completion_tokens": 20, "total_tokens": 70 + 40 * answered},
    }


def _responses_reply(request: dict) -> dict:
    """The scripted turn as a Responses API response: by the number of function call outputs in the input."""
    answered = sum(1 for item in request.get("input", []) if isinstance(item, dict) and item.get("type") == "function_call_output")
    message = _reply({"messages": [{"role": "tool"}] * answered})["choices"][0]["message"]
    output = [{"type": "function_call", "id": f"fc_{call['id']}", "call_id": call["id"], "name": call["function"]["name"],
               "arguments": call["function"]["arguments"], "status": "completed"} for call in message.get("tool_calls", [])]
    if not output:
        output = [{"type": "message", "id": "msg_answer", "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": message["content"], "annotations": []}]}]
    return {"id": f"resp_{answered + 1}", "object": "response", "created_at": 1672531200, "model": MODEL, "output": output,
            "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": 50 + 40 * answered, "output_tokens": 20, "total_tokens": 70 + 40 * answered,
                      "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}}


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        data = json.dumps(_responses_reply(body) if self.path.endswith("/responses") else _reply(body)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def stub_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


# --- the agent ---------------------------------------------------------------------


def agent(base_url: str) -> None:
    from openai import OpenAI

    client = OpenAI(base_url=base_url, api_key="stub", max_retries=0)
    messages: list = [{"role": "system", "content": "You forecast as of 2023-01-01."},
                      {"role": "user", "content": "Will Cygnus Robotics list by March 2023?"}]
    while True:
        reply = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return
        for call in message.tool_calls:
            output = run_tool(call.function.name, json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": output})


# --- instrumented runs -------------------------------------------------------------

RUNS = {
    # file stem: (instrumentation, environment)
    "openai-v2-content": ("openai-v2", {"OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
                                        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_ONLY"}),
    "openai-v2-no-content": ("openai-v2", {"OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}),
    "openinference-content": ("openinference", {}),
    "openinference-hidden": ("openinference", {"OPENINFERENCE_HIDE_INPUTS": "true", "OPENINFERENCE_HIDE_OUTPUTS": "true"}),
    # Event mode: the messages go to a log event (resourceLogs) that names its chat span.
    "openai-v2-events": ("openai-v2", {"OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
                                       "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "EVENT_ONLY"}),
    "traceloop-content": ("traceloop", {"TRACELOOP_TRACE_CONTENT": "true"}),
    "traceloop-no-content": ("traceloop", {"TRACELOOP_TRACE_CONTENT": "false"}),
    # LangChain, traced by OpenInference and by Traceloop (content on: their default).
    "openinference-langchain": ("openinference-langchain", {}),
    "traceloop-langchain": ("traceloop-langchain", {"TRACELOOP_TRACE_CONTENT": "true"}),
    # pydantic-ai instruments itself: format version 2 (tool_arguments, tool_response), content on and off.
    "pydantic-ai-v2-content": ("pydantic-ai", {"include_content": True}),
    "pydantic-ai-v2-no-content": ("pydantic-ai", {"include_content": False}),
    # The OpenAI Agents SDK (its Chat Completions model on the stub) traced by OpenInference: content on,
    # hidden by OpenInference's settings, and left out by the SDK's own RunConfig(trace_include_sensitive_data=False).
    "openinference-agents-content": ("openinference-agents", {}),
    "openinference-agents-hidden": ("openinference-agents", {"OPENINFERENCE_HIDE_INPUTS": "true", "OPENINFERENCE_HIDE_OUTPUTS": "true"}),
    "openinference-agents-no-content": ("openinference-agents", {"trace_include_sensitive_data": False}),
    # The Agents SDK's default model (the Responses API, on the stub) under Traceloop's instrumentation.
    "traceloop-agents-responses": ("traceloop-agents", {"TRACELOOP_TRACE_CONTENT": "true"}),
}
_ENV = ("OTEL_SEMCONV_STABILITY_OPT_IN", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "OPENINFERENCE_HIDE_INPUTS",
        "OPENINFERENCE_HIDE_OUTPUTS", "OPENINFERENCE_HIDE_INPUT_MESSAGES", "OPENINFERENCE_HIDE_OUTPUT_MESSAGES",
        "TRACELOOP_TRACE_CONTENT")


def _ids():
    from opentelemetry.sdk.trace.id_generator import IdGenerator

    class Counting(IdGenerator):
        def __init__(self) -> None:
            self.n = 0

        def generate_span_id(self) -> int:
            self.n += 1
            return 0x1000 + self.n

        def generate_trace_id(self) -> int:
            self.n += 1
            return 0xA0000000 + self.n

    return Counting()


def pydantic_ai_agent(provider, include_content: bool) -> None:
    """The same agent as :func:`agent`, run by pydantic-ai with its FunctionModel (no network at all)."""
    import warnings

    from pydantic_ai import Agent
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.models.instrumented import InstrumentationSettings

    def model(messages, info):
        answered = sum(1 for m in messages for p in getattr(m, "parts", []) if p.part_kind == "tool-return")
        if answered == 0:
            return ModelResponse(parts=[ToolCallPart("web_search", {"query": "cygnus robotics ipo"}, tool_call_id="call_search")])
        if answered == 1:
            return ModelResponse(parts=[
                ToolCallPart("fetch_page", {"url": "https://example.com/cygnus-files"}, tool_call_id="call_fetch"),
                ToolCallPart("days_between", {"start": "2023-01-01", "end": "2023-03-31"}, tool_call_id="call_days")])
        return ModelResponse(parts=[TextPart(ANSWER)])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # format version 2 is deprecated: logs written with it are still read
        settings = InstrumentationSettings(tracer_provider=provider, version=2, include_content=include_content)
    runner = Agent(FunctionModel(model), capabilities=[Instrumentation(settings=settings)])

    @runner.tool_plain
    def web_search(query: str) -> str:
        return run_tool("web_search", {"query": query})

    @runner.tool_plain
    def fetch_page(url: str) -> str:
        return run_tool("fetch_page", {"url": url})

    @runner.tool_plain
    def days_between(start: str, end: str) -> str:
        return run_tool("days_between", {"start": start, "end": end})

    runner.run_sync("Will Cygnus Robotics list by March 2023?")


# Importing the Agents SDK takes seconds: the fast tests rebuild the other fixtures, a slow test these
# (with AGENTS_PACKAGES).
SLOW = ("openinference-agents-content", "openinference-agents-hidden", "openinference-agents-no-content",
        "traceloop-agents-responses")


def agents_sdk_agent(base_url: str, sensitive: bool, responses: bool = False) -> None:
    """The same agent in the OpenAI Agents SDK: its Chat Completions model (or, *responses*, its default
    Responses model) on the stub server, ``@function_tool``s."""
    from agents import Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, RunConfig, Runner, function_tool
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key="stub", max_retries=0)
    model = (OpenAIResponsesModel if responses else OpenAIChatCompletionsModel)(model=MODEL, openai_client=client)
    runner = Agent(name="forecaster", instructions="You forecast as of 2023-01-01.", model=model,
                   tools=[function_tool(f) for f in (web_search, fetch_page, days_between)])
    Runner.run_sync(runner, "Will Cygnus Robotics list by March 2023?",
                    run_config=RunConfig(trace_include_sensitive_data=sensitive))


def langchain_agent() -> None:
    """The same agent in LangChain: a scripted chat model (langchain-core's FakeMessagesListChatModel) and
    ``@tool`` functions invoked with the model's tool calls, as an agent loop does."""
    import warnings

    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
    from langchain_core.tools import tool

    tools = {t.name: t for t in (tool(f) for f in (web_search, fetch_page, days_between))}
    model = FakeMessagesListChatModel(responses=[
        AIMessage("", id="msg-1", tool_calls=[{"name": "web_search", "args": {"query": "cygnus robotics ipo"}, "id": "call_search"}]),
        AIMessage("", id="msg-2", tool_calls=[{"name": "fetch_page", "args": {"url": "https://example.com/cygnus-files"}, "id": "call_fetch"},
                                  {"name": "days_between", "args": {"start": "2023-01-01", "end": "2023-03-31"}, "id": "call_days"}]),
        AIMessage(ANSWER, id="msg-3"),
    ])  # fixed message ids: LangChain draws random ones
    messages = [SystemMessage("You forecast as of 2023-01-01."), HumanMessage("Will Cygnus Robotics list by March 2023?")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while True:
            reply = model.invoke(messages)
            messages.append(reply)
            if not reply.tool_calls:
                return
            for call in reply.tool_calls:
                messages.append(tools[call["name"]].invoke(call))


def spans_of(instrumentation: str, env: dict) -> list:
    """The finished spans of one instrumented run of the agent."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor

    logs = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider(resource=Resource.create({"service.name": "forecaster", "service.instance.id": "stub-run"}))
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "forecaster", "service.instance.id": "stub-run"}), id_generator=_ids())
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    if instrumentation == "pydantic-ai":
        pydantic_ai_agent(provider, env["include_content"])
        return list(exporter.get_finished_spans()), []
    saved = {key: os.environ.pop(key, None) for key in _ENV}
    sensitive = env.get("trace_include_sensitive_data", True)
    os.environ.update({key: value for key, value in env.items() if key in _ENV})
    if instrumentation == "openinference-langchain":
        from openinference.instrumentation.langchain import LangChainInstrumentor as Instrumentor
    elif instrumentation == "traceloop-langchain":
        from opentelemetry.instrumentation.langchain import LangchainInstrumentor as Instrumentor
    elif instrumentation == "openinference-agents":
        from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor as Instrumentor
    elif instrumentation == "traceloop-agents":
        from agents import set_trace_processors
        from opentelemetry.instrumentation.openai_agents import OpenAIAgentsInstrumentor as Instrumentor

        set_trace_processors([])  # not the SDK's exporter to OpenAI (no key, no network): Traceloop's alone
    elif instrumentation == "openai-v2":
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor as Instrumentor
    elif instrumentation == "traceloop":
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # its pydantic models use a deprecated config style
            from opentelemetry.instrumentation.openai import OpenAIInstrumentor as Instrumentor
    else:
        from openinference.instrumentation.openai import OpenAIInstrumentor as Instrumentor
    instrumentor = Instrumentor()
    try:
        instrumentor.instrument(tracer_provider=provider, logger_provider=logger_provider)
        if instrumentation.endswith("langchain"):
            langchain_agent()
        elif instrumentation in ("openinference-agents", "traceloop-agents"):
            with stub_server() as url:
                agents_sdk_agent(url, sensitive, responses=instrumentation == "traceloop-agents")
        else:
            with stub_server() as url:
                agent(url)
    finally:
        instrumentor.uninstrument()
        for key, value in saved.items():
            os.environ.pop(key, None)
            if value is not None:
                os.environ[key] = value
    return list(exporter.get_finished_spans()), list(logs.get_finished_logs())


def otlp_json(spans: list, logs: list) -> list[dict]:
    """*spans* (and *logs*, when there are any) as OTLP/JSON ``ExportTraceServiceRequest`` (and
    ``ExportLogsServiceRequest``) documents: ids in hex, times and run-dependent values fixed (module docstring)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    documents = [MessageToDict(encode_spans(spans))] + ([MessageToDict(encode_logs(logs))] if logs else [])
    items = [item for document in documents for kind, scopes, key in (("resourceSpans", "scopeSpans", "spans"),
                                                                       ("resourceLogs", "scopeLogs", "logRecords"))
             for entry in document.get(kind, []) for scope in entry[scopes] for item in scope[key]]
    time_keys = ("startTimeUnixNano", "endTimeUnixNano", "timeUnixNano", "observedTimeUnixNano")
    times = sorted({int(item[k]) for item in items for k in time_keys if k in item})
    rank = {t: START_NS + i * 1_000_000_000 for i, t in enumerate(times)}
    for item in items:
        for key in ("traceId", "spanId", "parentSpanId"):
            if key in item:
                item[key] = base64.b64decode(item[key]).hex()
        for key in time_keys:
            if key in item:
                item[key] = str(rank[int(item[key])])
        for pair in item.get("attributes", []):
            if pair["key"] == "server.port":  # the stub's free port changes from run to run
                pair["value"] = {"intValue": "8000"}
            elif pair["key"] == "gen_ai.openai.api_base":
                pair["value"] = {"stringValue": "http://127.0.0.1:8000/v1/"}
            elif pair["key"] == "llm.invocation_parameters" and "127.0.0.1:" in pair["value"].get("stringValue", ""):
                pair["value"] = {"stringValue": json.dumps({"base_url": "http://127.0.0.1:8000/v1/"})}  # the Agents SDK's
            elif pair["key"] in ("gen_ai.agent.call.id", "gen_ai.conversation.id"):  # pydantic-ai's uuid7s
                pair["value"] = {"stringValue": pair["key"].split(".")[1] + "-1"}
    return documents


def _dump(documents: list[dict]) -> tuple[str, str]:
    """One document as JSON; a traces and a logs document as JSON Lines, as the collector's file exporter writes."""
    if len(documents) == 1:
        return ".json", json.dumps(documents[0], ensure_ascii=False, sort_keys=True, indent=1) + "\n"
    return ".jsonl", "".join(json.dumps(d, ensure_ascii=False, sort_keys=True) + "\n" for d in documents)


def build(stems: list[str] | None = None) -> dict[str, str]:
    """Every fixture, or those of *stems* (file names without their suffix)."""
    out = {}
    for stem, run in RUNS.items():
        if stems is not None and stem not in stems:
            continue
        suffix, text = _dump(otlp_json(*spans_of(*run)))
        out[stem + suffix] = text
    return out


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else OUT
    out.mkdir(parents=True, exist_ok=True)
    for name, text in build().items():
        (out / name).write_text(text, encoding="utf-8")
        print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
