"""Scripted loopback models for the real, released harness CLIs (tests/launch/slow_real_clis.py).

Each speaks one vendor's public API shape, written from that vendor's published
API reference (not from any CLI's source): the Anthropic Messages API with
server-sent events (``POST /v1/messages``, ``stream: true``: ``message_start``,
``content_block_start``/``_delta``/``_stop``, ``message_delta``, ``message_stop``).

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


def lock_search(tools: Any) -> str | None:
    """The name the request's ``tools`` list gives the lock's search (``mcp__lock__search`` and the like)."""
    for tool in tools if isinstance(tools, list) else ():
        name = tool.get("name") if isinstance(tool, dict) else None
        if isinstance(name, str) and "lock" in name and name.endswith("search"):
            return name
    return None


def _has_tool_result(messages: Any) -> bool:
    for message in messages if isinstance(messages, list) else ():
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return True
    return False


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode("utf-8")


class AnthropicScript:
    """The script's state: every request body it was sent (``requests``) and the agent turns it answered."""

    def __init__(self, rogue: str | None = None) -> None:
        self.rogue = rogue
        self.requests: list[dict[str, Any]] = []
        self.turns: list[str] = []  # "call NAME" or "answer", per agent request
        self._lock = threading.Lock()
        self._ids = 0

    def _id(self, prefix: str) -> str:
        with self._lock:
            self._ids += 1
            return f"{prefix}_{self._ids:024d}"

    def blocks(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        """The content blocks of the answer to *body*, and its stop reason."""
        with self._lock:
            self.requests.append(body)
        search = lock_search(body.get("tools"))
        if search is None:
            return [{"type": "text", "text": "ok"}], "end_turn"
        if _has_tool_result(body.get("messages")):
            self.turns.append("answer")
            return [{"type": "text", "text": ANSWER}], "end_turn"
        name = self.rogue or search
        self.turns.append(f"call {name}")
        return [{"type": "tool_use", "id": self._id("toolu"), "name": name, "input": {"query": QUERY}}], "tool_use"

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
        path = self.path.split("?", 1)[0]
        script = self.server.script
        if path.endswith("/count_tokens"):
            self._reply(200, "application/json", json.dumps({"input_tokens": 10}).encode("utf-8"))
        elif path.endswith("/messages") and body.get("stream"):
            self._reply(200, "text/event-stream", script.stream(body))
        elif path.endswith("/messages"):
            self._reply(200, "application/json", json.dumps(script.message(body)).encode("utf-8"))
        else:
            error = {"type": "error", "error": {"type": "not_found_error", "message": f"no {path} here"}}
            self._reply(404, "application/json", json.dumps(error).encode("utf-8"))

    def do_GET(self) -> None:  # noqa: N802
        self._reply(404, "application/json", b'{"type": "error", "error": {"type": "not_found_error", "message": "GET"}}')

    do_HEAD = do_GET  # noqa: N815


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    script: AnthropicScript


def serve(script: AnthropicScript) -> tuple[ThreadingHTTPServer, str]:
    """Start *script* on a loopback port in a thread: (server, base URL).  Stop it with ``shutdown()``."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.script = script
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
