"""The MCP face of :class:`~anachron.timelock.TimeLock`, on the SDK's lowlevel ``Server``.

The lowlevel server is used (not ``MCPServer``) because the schemas are
published exactly as written here: one string argument per tool,
``additionalProperties: false``, no date anywhere.  Argument checking is the
lock's own, so an extra argument (say ``as_of``) is refused by the server
whatever the client validated.  Tool failures are returned as
``isError`` results, which the model sees, rather than protocol errors.
"""

from __future__ import annotations

import functools
import math
import socket
import sys
import time
from typing import Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.shared.message import SessionMessage
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings

from anachron import __version__
from anachron.timelock import ARGUMENT, MAX_ARGUMENT, TOOLS, PendingBackend, TimeLock
from anachron.timelock.backends import CANCELLED_WAITING
from anachron.timelock.lock import SERIES
from anachron.timelock.events import now, protocol_error_record
from anachron.mcp._wire import MAX_MESSAGE, Checked, check_message, error_response

__all__ = ["NAME", "TOOL_NAMES", "tool_definitions", "build_server", "serve_stdio", "http_app", "serve_http"]

NAME = "anachron-timelock"
TOOL_NAMES = TOOLS
HTTP_PATH = "/mcp"
LOOPBACK = ("127.0.0.1", "localhost", "::1")

_INSTRUCTIONS = (
    "Research tools over a document archive. Use search to find documents and fetch to read one "
    "in full; cite documents by the id or URL these tools show. Calls are budgeted: every result "
    "ends with the budget that remains."
)


def _schema(name: str, limit: int, description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "minLength": 1, "maxLength": limit, "description": description}},
        "required": [name],
        "additionalProperties": False,
    }


def tool_definitions(lock: TimeLock) -> list[types.Tool]:
    """The two tools, exactly as listed to clients."""
    read_only = types.ToolAnnotations(read_only_hint=True, open_world_hint=lock.backend.kind == "upstream")
    return [
        types.Tool(
            name="search",
            description=(
                f"Search the archive. Returns up to {lock.k} documents, best first, each with its id "
                "(or URL), publication date, title and a snippet."
            ),
            input_schema=_schema(ARGUMENT["search"], MAX_ARGUMENT["search"], "What to look for: words, names, tickers."),
            annotations=read_only,
        ),
        types.Tool(
            name="fetch",
            description="Return one document in full, by the id or URL that search showed.",
            input_schema=_schema(ARGUMENT["fetch"], MAX_ARGUMENT["fetch"], "The id or URL of a document from search results."),
            annotations=read_only,
        ),
    ] + _series_tool(lock)


def _series_tool(lock: TimeLock) -> list[types.Tool]:
    """The ``series`` tool, listed only when the lock has a series source (``anachron serve --series``)."""
    if lock.series is None:
        return []
    return [
        types.Tool(
            name=SERIES,
            description=(
                "Return an economic data series by its FRED id (say GDPC1 or UNRATE): each observation's date "
                "and value, as published in the vintage the answer names; a missing value reads 'missing'."
            ),
            input_schema=_schema(ARGUMENT[SERIES], MAX_ARGUMENT[SERIES], "The series id, letters, digits and _."),
            annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=lock.series.kind == "alfred"),
        )
    ]


def build_server(lock: TimeLock) -> Server:
    """An MCP server whose only tools are the lock's ``search`` and ``fetch`` (and ``series``, with a series source)."""
    tools = tool_definitions(lock)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if isinstance(lock.backend, PendingBackend) and not lock.backend.ready:
            try:
                await _wait_for_corpus(ctx, lock.backend)
            except anyio.get_cancelled_exc_class():
                # A call the client gave up on (or the server stopped) before the corpus opened is
                # still a call of the run: logged, as a refusal saying why, never lost.
                with anyio.CancelScope(shield=True):
                    try:
                        await anyio.to_thread.run_sync(
                            functools.partial(lock.call, params.name, params.arguments, refused=CANCELLED_WAITING)
                        )
                    except Exception:  # a log that cannot be written costs the record, not the cancellation
                        pass
                raise
        # The lock blocks (file writes, upstream HTTP): keep it off the event loop.
        outcome = await anyio.to_thread.run_sync(lock.call, params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text)],
            structured_content=outcome.structured,
            is_error=outcome.is_error,
        )

    return Server(
        NAME,
        version=__version__,
        instructions=_INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


PROGRESS_EVERY = 2.0  # seconds between progress notices to a call waiting for the corpus


async def _wait_for_corpus(ctx: Any, backend: PendingBackend) -> None:
    """Hold a call until the corpus is open, telling the caller every :data:`PROGRESS_EVERY` seconds.

    The notices are ``notifications/progress`` against the call's progress
    token (none is sent when the caller gave none); a client that resets its
    timeout on progress keeps waiting.  A notice that cannot be sent costs
    nothing: the call is answered either way.
    """
    notices = 0
    while not backend.ready:
        notices += 1
        waited = time.monotonic() - backend.started
        try:
            await ctx.session.report_progress(notices, None, f"{backend.phase}: {waited:.0f} s so far; the call is answered once it is open")
        except Exception:  # a client gone, a transport without a back-channel
            pass
        await anyio.to_thread.run_sync(backend.wait, PROGRESS_EVERY, abandon_on_cancel=True)


class _Refusals:
    """Records each refused message in the lock's event log (a ``protocol_error`` record).

    A log that cannot be written costs the record, never the answer: the
    client is answered either way.
    """

    def __init__(self, lock: TimeLock | None, transport: str) -> None:
        self.lock = lock
        self.transport = transport

    async def record(self, checked: Checked, raw: bytes) -> None:
        if self.lock is None:
            return
        record = protocol_error_record(
            run=self.lock.header["run"], time=now(), transport=self.transport,
            code=checked.code, error=checked.error, request_id=checked.request_id, raw=raw,
        )
        try:
            await anyio.to_thread.run_sync(self.lock.journal.write, self.lock.header, record)
        except Exception as exc:  # a full disk, a log another server holds
            print(f"anachron serve: cannot log a refused message: {exc}", file=sys.stderr, flush=True)


class _StrictStdin:
    """stdin as the SDK's stdio transport reads it (an async iterator of lines),
    yielding only messages that pass :func:`check_message`, re-serialised.

    A line is read with a bounded size: a longer one is refused and the rest
    of it skipped in bounded chunks.  A refused line's error is queued on
    *answers*; blank lines are no message and are skipped.
    """

    def __init__(self, refusals: _Refusals, answers: Any) -> None:
        self.stdin = sys.stdin.buffer
        self.refusals = refusals
        self.answers = answers

    def __aiter__(self) -> "_StrictStdin":
        return self

    async def _readline(self, limit: int) -> bytes:
        # Abandoned on cancellation: a thread blocked on a quiet stdin must not hold up shutdown.
        return await anyio.to_thread.run_sync(self.stdin.readline, limit, abandon_on_cancel=True)

    async def __anext__(self) -> str:
        while True:
            # A message of MAX_MESSAGE bytes, its newline, and one byte more to tell a longer one.
            line = await self._readline(MAX_MESSAGE + 2)
            if not line:
                raise StopAsyncIteration
            if line.endswith(b"\n"):
                line = line[:-1]
            elif len(line) > MAX_MESSAGE + 1:
                while (rest := await self._readline(MAX_MESSAGE)) and not rest.endswith(b"\n"):
                    pass
            if not line.strip():
                continue
            checked = check_message(line)
            if checked.message is not None:
                return checked.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
            await self.refusals.record(checked, line[: MAX_MESSAGE + 1])
            try:
                await self.answers.send(SessionMessage(error_response(checked)))
            except anyio.ClosedResourceError:  # the server has stopped
                raise StopAsyncIteration from None


async def serve_stdio(server: Server, lock: TimeLock | None = None) -> None:
    """Serve one client over stdin/stdout until it disconnects.

    Every line is checked strictly first (:mod:`anachron.mcp._wire`); a
    refused one is answered with a JSON-RPC error and logged in *lock*'s
    event log.  stdout stays the SDK's (diverted from stray writes).
    """
    answers, queued = anyio.create_memory_object_stream(math.inf)
    stdin = _StrictStdin(_Refusals(lock, "stdio"), answers)
    async with stdio_server(stdin=stdin) as (read_stream, write_stream):

        async def answer() -> None:
            try:
                async for message in queued:
                    await write_stream.send(message)
            except anyio.ClosedResourceError:  # stdout is gone: nobody is left to answer
                pass

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(answer)
            await server.run(read_stream, write_stream, server.create_initialization_options())
            # The input has ended; the refusals still queued (a last line cut short) are written, then done.
            answers.close()


class _StrictBody:
    """An ASGI layer in front of the SDK's streamable HTTP endpoint: each POST
    body is read (at most :data:`MAX_MESSAGE` bytes) and checked strictly; a
    refused one is answered ``400`` with the JSON-RPC error and logged, the
    rest are replayed to the SDK unchanged.

    The SDK's header checks (``Content-Type``, and on loopback ``Host`` and
    ``Origin``) come first, with the SDK's own answers: a web page the lock
    does not admit can neither be answered nor write to the event log.
    """

    def __init__(self, app: Any, refusals: _Refusals, security: TransportSecuritySettings | None) -> None:
        self.app = app
        self.refusals = refusals
        self.headers = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from starlette.requests import Request

        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        refused = await self.headers.validate_request(Request(scope, receive), is_post=True)
        if refused is not None:
            return await refused(scope, receive, send)
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            event = await receive()
            if event["type"] == "http.disconnect":
                return
            chunk = event.get("body", b"")
            if size <= MAX_MESSAGE:  # kept up to one byte past the limit: enough to refuse it
                chunks.append(chunk)
            size += len(chunk)
            more = event.get("more_body", False)
        body = b"".join(chunks)[: MAX_MESSAGE + 1]
        checked = check_message(body)
        if checked.message is None:
            await self.refusals.record(checked, body)
            payload = error_response(checked).model_dump_json(by_alias=True, exclude_unset=True).encode()
            await send({"type": "http.response.start", "status": 400, "headers": [
                (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
            await send({"type": "http.response.body", "body": payload})
            return
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def http_app(server: Server, *, host: str, lock: TimeLock | None = None):
    """The streamable HTTP app, at ``/mcp``, each POST checked strictly first (refusals logged in *lock*'s log).

    On a loopback host, DNS-rebinding protection admits only loopback
    ``Host`` and ``Origin`` headers (a web page cannot drive the server).
    """
    from starlette.applications import Starlette
    from starlette.routing import Route

    security = None
    if host in LOOPBACK:
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
    manager = StreamableHTTPSessionManager(app=server, security_settings=security)
    return Starlette(
        routes=[Route(HTTP_PATH, endpoint=_StrictBody(StreamableHTTPASGIApp(manager), _Refusals(lock, "http"), security))],
        lifespan=lambda app: manager.run(),
    )


async def serve_http(server: Server, sock: socket.socket, *, host: str, lock: TimeLock | None = None) -> None:
    """Serve streamable HTTP on an already bound and listening socket until interrupted."""
    import uvicorn

    config = uvicorn.Config(http_app(server, host=host, lock=lock), log_level="warning", timeout_graceful_shutdown=2)
    await uvicorn.Server(config).serve(sockets=[sock])
