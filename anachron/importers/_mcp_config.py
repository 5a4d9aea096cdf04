"""The sealed tools an MCP client configuration declares.

A configuration (Claude Code's ``.mcp.json``, Claude Desktop's
``claude_desktop_config.json``, Cursor's ``mcp.json``; VS Code's ``servers``
key too) names servers under ``mcpServers``.  A server is a time lock when
it runs ``anachron serve`` (its ``command`` and ``args`` hold ``anachron``
followed by ``serve``, as in ``anachron serve ...`` or ``python -m anachron
serve ...``).  Its two tools are then sealed under the names Claude Code
gives MCP tools, ``mcp__SERVER__search`` and ``mcp__SERVER__fetch``.  Any other
server is not a time lock, whatever it serves.
"""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import Any, Mapping

from ..errors import AnachronError
from ..io import read_json
from ..validate import describe

LOCK_TOOLS = ("search", "fetch")


def _runs_the_lock(server: Mapping[str, Any]) -> bool:
    command = server.get("command")
    args = server.get("args") or []
    if not isinstance(command, str) or not isinstance(args, list):
        return False
    words = [PurePath(command).name] + [a for a in args if isinstance(a, str)]
    names = [PurePath(word).name.removesuffix(".exe") for word in words]
    return any(name == "anachron" and nxt == "serve" for name, nxt in zip(names, words[1:]))


def sealed_tools_from(path: str | os.PathLike[str]) -> frozenset[str]:
    """The tool names sealed by the ``anachron serve`` servers of an MCP configuration file."""
    config = read_json(path)
    servers = config.get("mcpServers", config.get("servers")) if isinstance(config, dict) else None
    if not isinstance(servers, dict):
        raise AnachronError(f"{path}: expected an MCP configuration with an 'mcpServers' object, got {describe(servers)}")
    sealed = {
        f"mcp__{name}__{tool}"
        for name, server in servers.items()
        if isinstance(server, dict) and _runs_the_lock(server)
        for tool in LOCK_TOOLS
    }
    if not sealed:
        raise AnachronError(
            f"{path}: no server runs `anachron serve`, so the configuration seals no tool; name sealed tools with --sealed-tools"
        )
    return frozenset(sealed)
