"""The MCP face of :class:`~anachron.timelock.TimeLock`, on the SDK's lowlevel ``Server``.

The lowlevel server is used (not ``MCPServer``) because the schemas are
published exactly as written here: one string argument per tool,
``additionalProperties: false``, no date anywhere.  Argument checking is the
lock's own, so an extra argument (say ``as_of``) is refused by the server
whatever the client validated.  Tool failures are returned as
``isError`` results, which the model sees, rather than protocol errors.
"""

from __future__ import annotations

import socket
from typing import Any

import anyio
import anyio.to_thread
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from .. import __version__
from ..timelock import ARGUMENT, MAX_ARGUMENT, TOOLS, TimeLock

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
    ]


def build_server(lock: TimeLock) -> Server:
    """An MCP server whose only tools are the lock's ``search`` and ``fetch``."""
    tools = tool_definitions(lock)

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
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


async def serve_stdio(server: Server) -> None:
    """Serve one client over stdin/stdout until it disconnects."""
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def http_app(server: Server, *, host: str):
    """The streamable HTTP app, at ``/mcp``.

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
        routes=[Route(HTTP_PATH, endpoint=StreamableHTTPASGIApp(manager))],
        lifespan=lambda app: manager.run(),
    )


async def serve_http(server: Server, sock: socket.socket, *, host: str) -> None:
    """Serve streamable HTTP on an already bound and listening socket until interrupted."""
    import uvicorn

    config = uvicorn.Config(http_app(server, host=host), log_level="warning", timeout_graceful_shutdown=2)
    await uvicorn.Server(config).serve(sockets=[sock])
