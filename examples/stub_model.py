"""A scripted stand-in for an OpenAI-compatible model server, on loopback: for trying `anachron run
responses` (or `chat`) without a key or a network.

    python examples/stub_model.py --port 8765 --query "cygnus revenue" --answer "Probability: 0.7"
    anachron run responses --base-url http://127.0.0.1:8765/v1 --model stub ...

It answers ``POST /v1/responses`` and ``POST /v1/chat/completions``.  Each
``--query`` is one search turn: the model calls the offered tool whose name
ends in ``search`` with that query (in order); once every query has had
its result, it answers ``--answer``, citing the first item id the last
result named (``[cite: ID]``).  ``--rogue TOOL`` makes the first turn call a
tool that was not offered, and ``--hosted`` makes it return a hosted
``web_search_call`` item: both are what a launcher must refuse.  It is not a
model: it reads nothing of the conversation but the tool results' count.
"""

from __future__ import annotations

import argparse
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ID = re.compile(r"\b([a-z]+-\d{3,})\b")


class Script:
    def __init__(self, queries: list[str], answer: str, rogue: str | None = None, hosted: bool = False) -> None:
        self.queries, self.answer, self.rogue, self.hosted = queries, answer, rogue, hosted
        self.requests: list[dict[str, Any]] = []  # every request body, for a test to read

    def step(self, tools: list[str], results: list[str]) -> tuple[str, Any]:
        """("call", (tool, arguments)) or ("answer", text), from the tool results so far."""
        if self.rogue is not None and not results:
            return "call", (self.rogue, {"query": self.queries[0] if self.queries else "x"})
        if len(results) < len(self.queries):
            search = next((name for name in tools if name.endswith("search")), "search")
            return "call", (search, {"query": self.queries[len(results)]})
        found = ID.search(results[-1]) if results else None
        return "answer", self.answer + (f" [cite: {found.group(1)}]" if found else "")


def _responses(script: Script, body: dict[str, Any]) -> dict[str, Any]:
    items = body.get("input") if isinstance(body.get("input"), list) else []
    results = [str(i.get("output")) for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
    tools = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
    turn = len(results)
    if script.hosted:
        return {"id": "resp_hosted", "object": "response", "output": [
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "news"}}]}
    kind, value = script.step(tools, results)
    if kind == "call":
        name, arguments = value
        output = [{"type": "function_call", "id": f"fc_{turn}", "call_id": f"call_{turn}", "name": name,
                   "arguments": json.dumps(arguments), "status": "completed"}]
    else:
        output = [{"type": "message", "id": f"msg_{turn}", "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": value, "annotations": []}]}]
    return {"id": f"resp_{turn}", "object": "response", "model": body.get("model"), "output": output}


def _chat(script: Script, body: dict[str, Any]) -> dict[str, Any]:
    messages = body.get("messages") if isinstance(body.get("messages"), list) else []
    results = [str(m.get("content")) for m in messages if isinstance(m, dict) and m.get("role") == "tool"]
    tools = [t.get("function", {}).get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
    turn = len(results)
    kind, value = script.step(tools, results)
    if kind == "call":
        name, arguments = value
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{turn}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}]}
    else:
        message = {"role": "assistant", "content": value}
    return {"id": f"chatcmpl_{turn}", "object": "chat.completion", "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop" if kind == "answer" else "tool_calls"}]}


def make_server(script: Script, port: int = 0) -> ThreadingHTTPServer:
    """A loopback server of *script* (port 0: any free port); serve it with ``serve_forever``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                return self._send(400, {"error": {"message": "body is not JSON"}})
            script.requests.append(body)
            if self.path.rstrip("/").endswith("/responses"):
                return self._send(200, _responses(script, body))
            if self.path.rstrip("/").endswith("/chat/completions"):
                return self._send(200, _chat(script, body))
            return self._send(404, {"error": {"message": f"no route {self.path}"}})

        def _send(self, status: int, document: dict[str, Any]) -> None:
            data = json.dumps(document).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


def start(script: Script) -> tuple[ThreadingHTTPServer, str]:
    """Serve *script* on a free loopback port in a daemon thread; (server, base URL ``.../v1``)."""
    server = make_server(script)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--query", action="append", default=[], help="one search turn (repeatable)")
    parser.add_argument("--answer", default="Probability: 0.5")
    parser.add_argument("--rogue", metavar="TOOL", help="call this tool (not offered) first")
    parser.add_argument("--hosted", action="store_true", help="return a hosted web_search_call item")
    args = parser.parse_args()
    server = make_server(Script(args.query, args.answer, args.rogue, args.hosted), args.port)
    print(f"stub model on http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
