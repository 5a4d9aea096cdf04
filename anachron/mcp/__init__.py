"""The time-lock MCP server: ``search`` and ``fetch`` frozen at an as-of date.

Needs the official MCP SDK (``pip install 'anachron[mcp]'``).  The lock
itself is :mod:`anachron.timelock` (standard library); only
:func:`build_server` and the transports touch the SDK.  Every incoming
message is checked strictly first (:func:`check_message`).  ``anachron serve``
is the command line; docs/mcp.md describes the tools, the upstream protocol
and the event log.
"""

from __future__ import annotations

import inspect as _inspect

# This package is ``anachron.mcp``; ``import mcp`` below is absolute and
# reaches the SDK, never this package.
try:
    from mcp.server.lowlevel import Server as _Server
except ImportError as exc:  # exercised in a subprocess by the tests
    raise ImportError(f"anachron.mcp needs the official MCP SDK ({exc}): pip install 'anachron[mcp]'") from exc

# mcp 1.x registers handlers with decorators; the 2.x constructor takes them.
if "on_call_tool" not in _inspect.signature(_Server.__init__).parameters:
    raise ImportError("anachron.mcp needs the MCP SDK 2.x (mcp>=2.0), found an older one: pip install -U 'anachron[mcp]'")

from anachron.mcp._server import LOOPBACK, TOOL_NAMES, build_server, serve_http, serve_stdio, tool_definitions  # noqa: E402
from anachron.mcp._wire import MAX_DEPTH, MAX_DIGITS, MAX_ID, MAX_MESSAGE, Checked, check_message  # noqa: E402

__all__ = [
    "LOOPBACK",
    "TOOL_NAMES",
    "build_server",
    "serve_http",
    "serve_stdio",
    "tool_definitions",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_ID",
    "MAX_MESSAGE",
    "Checked",
    "check_message",
]
