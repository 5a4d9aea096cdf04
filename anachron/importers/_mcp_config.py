"""The sealed tools an MCP client configuration declares.

A configuration (Claude Code's ``.mcp.json``, Claude Desktop's
``claude_desktop_config.json``, Cursor's ``mcp.json``; VS Code's ``servers``
key too) names servers under ``mcpServers``.  A server is a time lock when
it runs ``anachron serve`` (its ``command`` and ``args`` hold ``anachron``
followed by ``serve``, as in ``anachron serve ...`` or ``python -m anachron
serve ...``) in the enforced mode (``--mode enforced``, serve's default: an
``unrestricted`` server filters nothing) with an ``--as-of DATE``.  Its two
tools are then sealed under every name a harness gives them
(:func:`anachron.core.seal.lock_tool_names`: ``mcp__SERVER__search`` in
Claude Code, ``SERVER__search`` in Codex, ``mcp_SERVER_search`` in Gemini
CLI; ``fetch`` likewise), and the declaration
carries that date: the audit (:mod:`anachron.core.seal`) makes every call to
them a breach in a sample whose T is before it.  Any other server is not a
time lock, whatever it serves; a note says why.

A configuration is text, and names tools only: it cannot show what a
wrapper (``sh -c '...' anachron serve``, ``echo anachron serve``, a script
named ``anachron``), an abbreviation or a client-expanded ``${VAR}`` really
ran.  A declaration read from it gives at best an ``unverified`` verdict;
only the lock's own event log (``--lock-events``) proves a call sealed
(:mod:`anachron.core.seal`).
"""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import Any, Mapping

from anachron.core.dates import parse_date
from anachron.core.seal import Declaration, lock_tool_names
from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import read_json

LOCK_TOOLS = ("search", "fetch")


def _option(args: list[str], name: str) -> str | None:
    """The value of ``--name VALUE`` or ``--name=VALUE`` in *args* (the last one, as argparse takes it)."""
    value = None
    for index, arg in enumerate(args):
        if arg == name and index + 1 < len(args):
            value = args[index + 1]
        elif arg.startswith(name + "="):
            value = arg[len(name) + 1 :]
    return value


def _lock_as_of(name: str, server: Mapping[str, Any]) -> tuple[Any, str | None]:
    """(the as-of date of the enforced ``anachron serve`` this server runs, None) or (None, why it seals nothing)."""
    command = server.get("command")
    args = server.get("args") or []
    if not isinstance(command, str) or not isinstance(args, list):
        return None, f"server {name!r} has no command and args list: it seals no tool"
    words = [command] + [a for a in args if isinstance(a, str)]
    names = [PurePath(word).name.removesuffix(".exe") for word in words]
    starts = [i + 1 for i, (word, nxt) in enumerate(zip(names, words[1:])) if word == "anachron" and nxt == "serve"]
    if not starts:
        return None, f"server {name!r} does not run `anachron serve`: it seals no tool"
    serve_args = words[starts[0] + 1 :]
    mode = _option(serve_args, "--mode") or "enforced"
    if mode != "enforced":
        return None, f"server {name!r} runs `anachron serve --mode {mode}`, which filters nothing: it seals no tool"
    as_of = _option(serve_args, "--as-of")
    try:
        return parse_date(as_of), None
    except (TypeError, ValueError):
        return None, f"server {name!r} runs `anachron serve` without a valid --as-of date ({'none given' if as_of is None else repr(as_of)}): it seals no tool"


def seal_declaration(path: str | os.PathLike[str]) -> tuple[Declaration, tuple[str, ...]]:
    """The tools sealed by the enforced ``anachron serve`` servers of an MCP configuration file, each with
    its lock's as-of date, and one note per server that seals nothing (``FILE: server 'x' ...``)."""
    config = read_json(path)
    servers = config.get("mcpServers", config.get("servers")) if isinstance(config, dict) else None
    if not isinstance(servers, dict):
        raise AnachronError(f"{path}: expected an MCP configuration with an 'mcpServers' object, got {describe(servers)}")
    locked: dict[str, Any] = {}
    reasons = []
    notes = []  # for the servers that run `anachron serve` yet seal nothing: other servers are plainly no lock
    for name, server in servers.items():
        as_of, why = _lock_as_of(name, server) if isinstance(server, dict) else (None, f"server {name!r} is not an object")
        if why is not None:
            reasons.append(why)
            if "does not run `anachron serve`" not in why:
                notes.append(f"{path}: {why}")
            continue
        # The series tool is the lock's too when the server serves it (`anachron serve --series`).
        args = [a for a in server.get("args") or [] if isinstance(a, str)]
        tools = LOCK_TOOLS + ("series",) if _option(args, "--series") is not None else LOCK_TOOLS
        locked.update((tool, as_of) for tool in lock_tool_names(name, tools))
    if not locked:
        raise AnachronError(
            f"{path}: the configuration seals no tool ({'; '.join(reasons) or 'it names no server'}); "
            "name sealed tools with --sealed-tools"
        )
    return Declaration(locked, locked), tuple(notes)


def sealed_tools_from(path: str | os.PathLike[str]) -> Declaration:
    """The tool names sealed by the enforced ``anachron serve`` servers of an MCP configuration file
    (with each lock's as-of date: :func:`seal_declaration`)."""
    return seal_declaration(path)[0]
