"""Scripted loopback models for the real, released harness CLIs (tests/launch/slow_real_clis.py).

Each speaks one vendor's public API shape, written from that vendor's published
API reference (not from any CLI's source): the Anthropic Messages API with
server-sent events (``POST /v1/messages``, ``stream: true``: ``message_start``,
``content_block_start``/``_delta``/``_stop``, ``message_delta``, ``message_stop``), and the Gemini
API's ``generateContent``/``streamGenerateContent`` (``alt=sse``: ``data:`` events of
``GenerateContentResponse``; a call is a ``functionCall`` part, its result a ``functionResponse``).

The script is two turns of the agent's own conversation, recognised as the
request whose ``tools`` list holds the lock's search tool (whatever name the
harness gives it): turn 1 calls that tool (or, with ``rogue``, a tool the
request never offered), turn 2, once a tool result is in the conversation,
answers with text.  Any other request (a title, a quota probe, a token count)
gets a short text answer, so no harness waits on a side request.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANSWER = "Probability: 0.6"
QUERY = "Aster Logistics revenue"


def _tools(body: dict[str, Any]) -> list[Any]:
    """A request's tools: its ``tools`` list and, in the Responses API, the tools a client-run
    ``tool_search`` found (its ``tool_search_output`` items), offered from then on."""
    tools = list(body.get("tools")) if isinstance(body.get("tools"), list) else []
    for item in body.get("input") if isinstance(body.get("input"), list) else ():
        if isinstance(item, dict) and item.get("type") == "tool_search_output" and isinstance(item.get("tools"), list):
            tools += item["tools"]
    return tools


def offered(body: dict[str, Any]) -> list[str]:
    """The tool names a request offers: Anthropic's ``tools[].name``, Gemini's ``tools[].functionDeclarations[].name``."""
    names = []
    for tool in _tools(body):
        if not isinstance(tool, dict):
            continue
        declarations = tool.get("functionDeclarations") or tool.get("function_declarations")
        if tool.get("type") == "namespace" and isinstance(tool.get("tools"), list):  # Responses: mcp__lock + search
            names += [f"{str(tool.get('name')).rstrip('_')}__{item.get('name')}" for item in tool["tools"] if isinstance(item, dict)]
            continue
        for item in declarations if isinstance(declarations, list) else [tool]:
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                names.append(item["name"])
            elif isinstance(item, dict) and isinstance(item.get("type"), str):
                names.append(item["type"])  # a hosted or built-in tool named by its type (tool_search, web_search)
    return names


def lock_search(body: dict[str, Any]) -> str | None:
    """The name the request gives the lock's search (``mcp__lock__search``, ``mcp_lock_search`` and the like)."""
    return next((name for name in offered(body) if "lock" in name and name.endswith("search")), None)


def _has_tool_result(body: dict[str, Any]) -> bool:
    """Whether the conversation holds a tool's result (Anthropic ``tool_result``, Gemini ``functionResponse``)."""
    turns = body.get("messages") if isinstance(body.get("messages"), list) else body.get("contents")
    for turn in turns if isinstance(turns, list) else ():
        pieces = turn.get("content") if isinstance(turn, dict) else None
        if not isinstance(pieces, list):
            pieces = turn.get("parts") if isinstance(turn, dict) else None
        for piece in pieces if isinstance(pieces, list) else ():
            if isinstance(piece, dict) and (piece.get("type") == "tool_result" or "functionResponse" in piece):
                return True
    items = body.get("input")  # Responses: the conversation's items
    return isinstance(items, list) and any(isinstance(i, dict) and i.get("type") == "function_call_output" for i in items)


def _schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a Gemini request asks its answer to follow (a side request: routing, a check)."""
    config = body.get("generationConfig") if isinstance(body.get("generationConfig"), dict) else {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    return schema if isinstance(schema, dict) else None


def _fill(schema: dict[str, Any]) -> Any:
    """The plainest value *schema* accepts: the first of an enum, the low end of a range, every property."""
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        return {name: _fill(value if isinstance(value, dict) else {}) for name, value in properties.items()}
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "scripted"


class Script:
    """The two-turn script, whatever the API: every request body it was sent (``requests``) and the
    agent turns it answered (``turns``: ``"call NAME"`` or ``"answer"``)."""

    def __init__(self, rogue: str | None = None) -> None:
        self.rogue = rogue
        self.requests: list[dict[str, Any]] = []
        self.turns: list[str] = []
        self._lock = threading.Lock()
        self._ids = 0

    def _id(self, prefix: str) -> str:
        with self._lock:
            self._ids += 1
            return f"{prefix}_{self._ids:024d}"

    def decide(self, body: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
        """``("text", TEXT, {})`` or ``("call", NAME, ARGUMENTS)``: the answer to *body*."""
        with self._lock:
            self.requests.append(body)
        search = lock_search(body)
        schema = _schema(body)
        if search is None and schema is not None:
            return "text", json.dumps(_fill(schema)), {}
        if search is None:
            return "text", "ok", {}
        if _has_tool_result(body):
            self.turns.append("answer")
            return "text", ANSWER, {}
        name = self.rogue or search
        self.turns.append(f"call {name}")
        return "call", name, {"query": QUERY}


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode("utf-8")


class AnthropicScript(Script):
    """The script as the Anthropic Messages API answers it."""

    def blocks(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        """The content blocks of the answer to *body*, and its stop reason."""
        kind, value, arguments = self.decide(body)
        if kind == "text":
            return [{"type": "text", "text": value}], "end_turn"
        return [{"type": "tool_use", "id": self._id("toolu"), "name": value, "input": arguments}], "tool_use"

    def message(self, body: dict[str, Any]) -> dict[str, Any]:
        blocks, stop = self.blocks(body)
        return {"id": self._id("msg"), "type": "message", "role": "assistant", "model": body.get("model", "scripted"),
                "content": blocks, "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5}}

    def stream(self, body: dict[str, Any]) -> bytes:
        message = self.message(body)
        head = {**message, "content": [], "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 1}}
        out = [_sse("message_start", {"type": "message_start", "message": head})]
        for index, block in enumerate(message["content"]):
            if block["type"] == "text":
                start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
            else:
                start = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            out.append(_sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
            out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
            out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": index}))
        out.append(_sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": message["stop_reason"],
                                                                             "stop_sequence": None},
                                          "usage": {"output_tokens": 5}}))
        out.append(_sse("message_stop", {"type": "message_stop"}))
        return b"".join(out)


    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        """(status, content type, body) of the answer to a POST to *path*."""
        if path.endswith("/count_tokens"):
            return 200, "application/json", json.dumps({"input_tokens": 10}).encode("utf-8")
        if path.endswith("/messages") and body.get("stream"):
            return 200, "text/event-stream", self.stream(body)
        if path.endswith("/messages"):
            return 200, "application/json", json.dumps(self.message(body)).encode("utf-8")
        return _not_found(path)


class GeminiScript(Script):
    """The script as the Gemini API answers it: ``models/M:generateContent`` (one JSON response),
    ``models/M:streamGenerateContent?alt=sse`` (``data:`` events, each a ``GenerateContentResponse``),
    ``models/M:countTokens``."""

    def response(self, body: dict[str, Any]) -> dict[str, Any]:
        kind, value, arguments = self.decide(body)
        part = {"text": value} if kind == "text" else {"functionCall": {"name": value, "args": arguments}}
        return {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
                "modelVersion": "scripted"}

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        if path.endswith(":countTokens"):
            return 200, "application/json", json.dumps({"totalTokens": 10}).encode("utf-8")
        if path.endswith(":streamGenerateContent"):
            return 200, "text/event-stream", f"data: {json.dumps(self.response(body))}\r\n\r\n".encode("utf-8")
        if path.endswith(":generateContent"):
            return 200, "application/json", json.dumps(self.response(body)).encode("utf-8")
        return _not_found(path)


class ResponsesScript(Script):
    """The script as the OpenAI Responses API answers it: ``POST /responses``, ``stream: true`` (``event:``
    and ``data:`` lines: ``response.created``, ``response.output_item.added``, the item's deltas,
    ``response.output_item.done``, ``response.completed``)."""

    def items(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        if lock_search(body) is None and "tool_search" in offered(body):
            # The lock's tools are deferred behind the client's tool_search (Codex with a slug it knows): search first.
            with self._lock:
                self.requests.append(body)
            self.turns.append("call tool_search")
            return [{"type": "tool_search_call", "id": self._id("ts"), "call_id": self._id("call"), "status": "completed",
                     "execution": "client", "arguments": {"query": "lock search documents", "limit": 8}}]
        kind, value, arguments = self.decide(body)
        if kind == "text":
            return [{"type": "message", "id": self._id("msg"), "status": "completed", "role": "assistant",
                     "content": [{"type": "output_text", "text": value, "annotations": []}]}]
        namespace, _, name = value.rpartition("__")
        item = {"type": "function_call", "id": self._id("fc"), "call_id": self._id("call"), "status": "completed",
                "name": value, "arguments": json.dumps(arguments)}
        if self.namespaced(body, namespace):
            item.update(name=name, namespace=namespace)
        return [item]

    @staticmethod
    def namespaced(body: dict[str, Any], namespace: str) -> bool:
        return any(isinstance(t, dict) and t.get("type") == "namespace" and str(t.get("name")).rstrip("_") == namespace
                   for t in _tools(body))

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        if not path.endswith("/responses"):
            return _not_found(path)
        response = {"id": self._id("resp"), "object": "response", "created_at": 0, "model": body.get("model", "scripted"),
                    "status": "completed", "output": self.items(body),
                    "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                              "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}}
        if not body.get("stream"):
            return 200, "application/json", json.dumps(response).encode("utf-8")
        events = [("response.created", {"response": {**response, "status": "in_progress", "output": []}})]
        for index, item in enumerate(response["output"]):
            events.append(("response.output_item.added", {"output_index": index, "item": item}))
            if item["type"] == "message":
                events.append(("response.output_text.delta", {"item_id": item["id"], "output_index": index,
                                                              "content_index": 0, "delta": item["content"][0]["text"]}))
            else:
                events.append(("response.function_call_arguments.delta", {"item_id": item["id"], "output_index": index,
                                                                          "delta": item["arguments"]}))
            events.append(("response.output_item.done", {"output_index": index, "item": item}))
        events.append(("response.completed", {"response": response}))
        data = b"".join(_sse(name, {"type": name, "sequence_number": n, **fields})
                        for n, (name, fields) in enumerate(events))
        return 200, "text/event-stream", data


def _not_found(path: str) -> tuple[int, str, bytes]:
    error = {"type": "error", "error": {"type": "not_found_error", "code": 404, "message": f"no {path} here"}}
    return 404, "application/json", json.dumps(error).encode("utf-8")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_Server"

    def log_message(self, *args: Any) -> None:
        pass

    def _reply(self, status: int, kind: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        self._reply(*self.server.script.answer(self.path.split("?", 1)[0], body if isinstance(body, dict) else {}))

    def do_GET(self) -> None:  # noqa: N802
        self._reply(404, "application/json", b'{"type": "error", "error": {"type": "not_found_error", "message": "GET"}}')

    do_HEAD = do_GET  # noqa: N815


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a harness stopped mid-request: no traceback on the test's stderr
    script: Script


def serve(script: Script) -> tuple[ThreadingHTTPServer, str]:
    """Start *script* on a loopback port in a thread: (server, base URL).  Stop it with ``shutdown()``."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.script = script
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


SCRIPTS = {"anthropic": AnthropicScript, "gemini": GeminiScript, "responses": ResponsesScript}


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.real_cli_models API --port N``: serve the two-turn script on loopback until Ctrl-C
    (docs/run-rules.md, "Real CLIs": a released CLI run by hand against it, offline)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tests.real_cli_models", allow_abbrev=False,
                                     description="A scripted loopback model for the released harness CLIs (not a model).")
    parser.add_argument("api", choices=sorted(SCRIPTS), help="the API shape it speaks")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args(argv)
    server = _Server(("127.0.0.1", args.port), _Handler)
    server.script = SCRIPTS[args.api]()
    print(f"scripted {args.api} model on http://127.0.0.1:{args.port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
