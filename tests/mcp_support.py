"""Helpers for the time-lock server tests: real SDK clients, real server processes, a stub upstream.

Every wait is bounded (TIMEOUT) and every server process is stopped on exit.
The SDK is imported inside the helpers, so this module imports without it.
"""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
from contextlib import asynccontextmanager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.support import ROOT

TIMEOUT = 60  # seconds, for any one server session or process wait


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "anachron", "serve", *args]


@asynccontextmanager
async def stdio_client(args, *, errlog: Path, command=None, env=None):
    """A connected ``mcp.Client`` over stdio to ``anachron serve ARGS`` (spawned, stopped on exit).

    *command* replaces the whole command line; *env* adds to the SDK's minimal child environment.
    """
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client as transport

    command = command or serve_command(*args)
    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT), env=env)
    with open(errlog, "a", encoding="utf-8") as log, anyio.fail_after(TIMEOUT):
        async with Client(transport(params, errlog=log), read_timeout_seconds=TIMEOUT) as client:
            yield client


@contextmanager
def http_server(*args: str):
    """``anachron serve ARGS --http 127.0.0.1:0`` as a process; yields (process, url, stderr lines)."""
    process = subprocess.Popen(
        serve_command(*args, "--http", "127.0.0.1:0"),
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    lines: queue.Queue = queue.Queue()
    seen: list[str] = []
    reader = threading.Thread(target=lambda: [lines.put(line) for line in process.stderr], daemon=True)
    reader.start()
    try:
        try:
            first = lines.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError("the HTTP server announced no address") from None
        seen.append(first)
        match = re.search(r"http://\S+/mcp", first)
        if not match:
            raise AssertionError(f"no URL in the server's first line: {first!r}")
        yield process, match.group(0), seen
    finally:
        process.terminate()
        try:
            process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=TIMEOUT)
        reader.join(timeout=TIMEOUT)
        while not lines.empty():
            seen.append(lines.get_nowait())
        process.stdout.close()
        process.stderr.close()


def text_of(result) -> str:
    return "".join(block.text for block in result.content if getattr(block, "type", None) == "text")


def read_log(path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


class StubUpstream:
    """A loopback backdated-search service: fixed answers, every request recorded.

    ``/search`` answers ``{"results": search_results}`` (query ``boom``: HTTP
    500; query ``garbage``: a body that is not JSON); ``/fetch`` answers the
    item whose ``url`` or ``id`` is asked for, or no results.
    """

    def __init__(self, search_results: list[dict[str, Any]]) -> None:
        self.search_results = search_results
        self.requests: list[tuple[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"null")
                stub.requests.append((self.path, body))
                if self.path == "/search" and body.get("query") == "boom":
                    return self._send(500, b'{"error": "down"}')
                if self.path == "/search" and body.get("query") == "garbage":
                    return self._send(200, b"<html>not json</html>")
                if self.path == "/search":
                    return self._send(200, json.dumps({"results": stub.search_results}).encode())
                if self.path == "/fetch":
                    found = [r for r in stub.search_results if body.get("url") in (r.get("url"), r.get("id"))]
                    return self._send(200, json.dumps({"results": found}).encode())
                self._send(404, b"{}")

            def _send(self, code: int, payload: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "StubUpstream":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=TIMEOUT)
