"""A stand-in for the ``claude``, ``codex`` and ``gemini`` executables, for tests/launch/test_run.py.

Installed first on PATH by :func:`install` (one small shell script per
name, running this file with the harness's name).  It records its argv,
stdin, working directory and a few environment variables (one JSON line
to ``$STUB_LOG``), answers ``--version`` and ``--help``, and replays
``$STUB_SCRIPT``: JSON Lines of events printed as they are, except a line
``{"$lock": {"id", "tool", "arguments"}}``, which it turns into a real call
of the lock its configuration names (started as the real harness would:
Claude Code's ``--mcp-config`` file, Codex's ``-c mcp_servers.lock.*``
overrides, Gemini CLI's user settings in the HOME it is given), printed as that harness's
call and result events.  ``{"$sleep": S}`` waits S seconds; ``{"$exit": N}`` exits with N; ``{"$raw": TEXT, "times": N}``
writes TEXT's bytes N times as they are (a line that is not JSON, or too long); ``{"$spawn": S, "pidfile": F}``
leaves a ``sleep S`` child running (its pid in F) when the stub exits; ``{"$setsid": S, "pidfile": F}`` the same
in a session of its own, holding the stub's stdout open; ``{"$events": TEXT, "append": B}`` writes (or appends) TEXT
to ``../lock-events.jsonl``, where a forger would put the lock's log (``{"$model_log": TEXT, "append": B}``: to
``../model.jsonl``, the model gateway's); ``{"$kill_lock": true}`` kills the lock; ``{"$connect": PORT}`` tries a TCP connection to ``127.0.0.1:PORT``
and logs whether it connected; ``{"$model": {"path", "body"}}`` POSTs *body* to
the model's base URL as the launcher set it (Claude Code's ``ANTHROPIC_BASE_URL``, Gemini CLI's
``GOOGLE_GEMINI_BASE_URL``, Codex's provider ``base_url`` override), with ``$STUB_KEY`` as its key, and logs the status.  ``STUB_START_LOCK=0`` leaves the lock unstarted;
``STUB_HELP_TOOLS=0`` drops ``--tools`` from the help (an older Claude
Code).  The MCP client is a minimal JSON-RPC one over the lock's stdio.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

SERVER = "lock"


def install(directory: Path) -> Path:
    """Write ``claude``, ``codex`` and ``gemini`` into *directory* (a bin directory to put first on PATH)."""
    directory.mkdir(parents=True, exist_ok=True)
    for name in ("claude", "codex", "gemini"):
        script = directory / name
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).resolve()}" {name} "$@"\n', encoding="utf-8")
        script.chmod(0o755)
    return directory


def _config(name: str, args: list[str]) -> dict | None:
    """The lock's server entry as this harness would read it, or None."""
    if name == "claude" and "--mcp-config" in args:
        servers = json.loads(Path(args[args.index("--mcp-config") + 1]).read_text(encoding="utf-8"))["mcpServers"]
        return servers.get(SERVER)
    if name == "codex":
        entry: dict = {"env": {}}
        for i, arg in enumerate(args):
            if arg == "-c" and args[i + 1].startswith(f"mcp_servers.{SERVER}."):
                key, _, value = args[i + 1][len(f"mcp_servers.{SERVER}."):].partition("=")
                if key.startswith("env."):
                    entry["env"][key[4:]] = json.loads(value)
                else:
                    entry[key] = json.loads(value)
        return entry if "command" in entry else None
    if name == "gemini" and (Path(os.environ["HOME"]) / ".gemini" / "settings.json").exists():
        settings = json.loads((Path(os.environ["HOME"]) / ".gemini" / "settings.json").read_text(encoding="utf-8"))
        return settings["mcpServers"].get(SERVER)
    return None


def _base_url(name: str, args: list[str]) -> str:
    if name == "codex":
        prefix = "model_providers.anachron.base_url="
        return json.loads(next(arg[len(prefix):] for arg in args if arg.startswith(prefix)))
    return os.environ["ANTHROPIC_BASE_URL" if name == "claude" else "GOOGLE_GEMINI_BASE_URL"]


def _model(name: str, args: list[str], spec: dict) -> None:
    """POST spec's body to the model's base URL; the answer's status goes to the stub log."""
    request = urllib.request.Request(_base_url(name, args) + spec["path"], data=json.dumps(spec["body"]).encode("utf-8"),
                                     headers={"Content-Type": "application/json", "x-api-key": os.environ.get("STUB_KEY", "")},
                                     method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    with open(os.environ["STUB_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"name": name, "model_status": status}) + "\n")


def _connect(name: str, port: int) -> None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            outcome = "connected"
    except OSError as exc:
        outcome = f"failed: {exc.strerror or exc}"
    with open(os.environ["STUB_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"name": name, "connect": outcome}) + "\n")


class Lock:
    """The lock process of a server entry, spoken to in JSON-RPC over its stdio."""

    def __init__(self, entry: dict) -> None:
        env = dict(os.environ, **(entry.get("env") or {}))
        self.process = subprocess.Popen([entry["command"], *entry.get("args", [])], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=sys.stderr, text=True, env=env)
        self.next = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "stub", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict) -> dict:
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        for line in self.process.stdout:
            message = json.loads(line)
            if message.get("id") == self.next:
                if "error" in message:
                    raise SystemExit(f"stub: the lock refused {method}: {message['error']}")
                return message["result"]
        raise SystemExit("stub: the lock closed its stdout")

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


def _emit(event: dict) -> None:
    print(json.dumps(event), flush=True)


def _call(name: str, lock: Lock | None, spec: dict) -> None:
    ident, tool, arguments = spec["id"], spec["tool"], spec["arguments"]
    if lock is None:
        raise SystemExit("stub: a $lock line, but no lock was started")
    result = lock.request("tools/call", {"name": tool, "arguments": arguments})
    text = "\n".join(part.get("text", "") for part in result.get("content", []) if part.get("type") == "text")
    if name == "claude":
        _emit({"type": "assistant", "session_id": "stub-session", "parent_tool_use_id": None, "message": {
            "id": f"msg_{ident}", "type": "message", "role": "assistant",
            "content": [{"type": "tool_use", "id": ident, "name": f"mcp__{SERVER}__{tool}", "input": arguments}]}})
        _emit({"type": "user", "session_id": "stub-session", "parent_tool_use_id": None, "message": {
            "role": "user", "content": [{"tool_use_id": ident, "type": "tool_result", "content": [{"type": "text", "text": text}],
                                         "is_error": bool(result.get("isError"))}]}})
    elif name == "codex":
        item = {"id": ident, "type": "mcp_tool_call", "server": SERVER, "tool": tool, "arguments": arguments}
        _emit({"type": "item.started", "item": {**item, "status": "in_progress", "result": None, "error": None}})
        _emit({"type": "item.completed", "item": {**item, "status": "completed", "error": None, "result": {
            "content": result.get("content", []), "structured_content": result.get("structuredContent")}}})
    else:
        # Gemini CLI 0.46 on names an MCP tool mcp_SERVER_TOOL (auth0/auth0-evals#46).
        _emit({"type": "tool_use", "timestamp": "2026-01-01T00:00:00.000Z", "tool_name": f"mcp_{SERVER}_{tool}", "tool_id": ident,
               "parameters": arguments})
        _emit({"type": "tool_result", "timestamp": "2026-01-01T00:00:00.000Z", "tool_id": ident,
               "status": "error" if result.get("isError") else "success", "output": text})


def main() -> int:
    name, args = sys.argv[1], sys.argv[2:]
    if args == ["--version"]:
        # By default a version of a tested major (anachron.launch.harnesses.TESTED), as each CLI prints it.
        default = {"claude": "2.1.0 (Claude Code)", "codex": "codex-cli 0.46.0", "gemini": "0.46.0"}[name]
        print(os.environ.get("STUB_VERSION", default))
        return 0
    if args == ["--help"]:
        print(f"Usage: {name} [options]\n  --tools <tools...>  built-in tools\n  --settings <file-or-json>"
              if os.environ.get("STUB_HELP_TOOLS") != "0" else f"Usage: {name} [options]\n  --disallowedTools <tools...>")
        return 0
    stdin = sys.stdin.read()
    keep = ("TZ", "HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_TRUST_WORKSPACE", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "ENABLE_TOOL_SEARCH", "MCP_CONNECTION_NONBLOCKING",
            "ANTHROPIC_BASE_URL", "GOOGLE_GEMINI_BASE_URL", "OPENAI_BASE_URL")
    with open(os.environ["STUB_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"name": name, "pid": os.getpid(), "argv": args, "stdin": stdin, "cwd": os.getcwd(),
                              "env": {key: os.environ.get(key) for key in keep}}) + "\n")
    entry = _config(name, args) if os.environ.get("STUB_START_LOCK") != "0" else None
    lock = Lock(entry) if entry is not None else None
    try:
        for line in Path(os.environ["STUB_SCRIPT"]).read_text(encoding="utf-8").split("\n"):
            if not line.strip():
                continue
            event = json.loads(line)
            if "$lock" in event:
                _call(name, lock, event["$lock"])
            elif "$sleep" in event:
                time.sleep(float(event["$sleep"]))
            elif "$exit" in event:
                return int(event["$exit"])
            elif "$raw" in event:  # bytes as given (latin-1 maps each code point below 256 to one byte)
                sys.stdout.flush()
                sys.stdout.buffer.write(event["$raw"].encode("latin-1") * int(event.get("times", 1)))
                sys.stdout.buffer.flush()
            elif "$model" in event:
                _model(name, args, event["$model"])
            elif "$connect" in event:  # a TCP connection to 127.0.0.1:PORT, as a shell's curl would try; logged
                _connect(name, int(event["$connect"]))
            elif "$kill_lock" in event:  # the lock dies mid-run
                if lock is not None:
                    lock.process.kill()
                    lock.process.wait(timeout=60)
                    lock = None
            elif "$events" in event or "$model_log" in event:  # a forged log, where a harness in RUNDIR/workspace can reach one
                name, text = ("lock-events.jsonl", event["$events"]) if "$events" in event else ("model.jsonl", event["$model_log"])
                with open(Path("..") / name, "a" if event.get("append") else "w", encoding="utf-8") as forged:
                    forged.write(text)
            elif "$setsid" in event:  # a child in a session of its own holding the stub's stdout open, its pid in the file
                sys.stdout.flush()
                child = subprocess.Popen(["sleep", str(event["$setsid"])], stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         start_new_session=True)
                Path(event["pidfile"]).write_text(str(child.pid), encoding="utf-8")
            elif "$spawn" in event:  # a child left running in the harness's process group, its pid in the file
                child = subprocess.Popen(["sleep", str(event["$spawn"])], stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                Path(event["pidfile"]).write_text(str(child.pid), encoding="utf-8")
            else:
                _emit(event)
    finally:
        if lock is not None:
            lock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
