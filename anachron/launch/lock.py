"""The lock a launched run is sealed by: its ``anachron serve`` command, the MCP configuration
that names it, and the fingerprint of the corpus it serves.

The lock always runs as a separate ``anachron serve`` process in the
enforced mode with its own event log: the harness (or our own loop) starts
it from the generated configuration, so the log is written by the lock
alone, and the configuration is the one ``--sealed-tools-from`` reads
(:mod:`anachron.importers`).  The server is named :data:`SERVER`, so its
tools are ``mcp__lock__search`` and ``mcp__lock__fetch`` in Claude Code's
naming.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anachron.core.dates import format_date
from anachron.core.errors import AnachronError

SERVER = "lock"
TOOLS = ("search", "fetch")
EVENTS = "lock-events.jsonl"
CONFIG = "mcp.json"


@dataclass(frozen=True)
class Lock:
    """What the lock serves: its cutoff, corpus (``None``: the bundled one), budget, results per search."""

    as_of: _dt.date
    corpus: str | None = None
    max_calls: int | None = None
    k: int = 5

    def args(self, events: Path) -> list[str]:
        """``anachron serve``'s arguments (after ``serve``): enforced, its own event log."""
        args = ["--as-of", format_date(self.as_of), "--mode", "enforced", "--events", str(events), "-k", str(self.k)]
        if self.corpus is not None:
            args += ["--corpus", self.corpus]
        if self.max_calls is not None:
            args += ["--max-calls", str(self.max_calls)]
        return args

    def command(self, events: Path) -> list[str]:
        """The whole command line: this interpreter running this package's ``anachron serve``."""
        return [sys.executable, "-m", "anachron", "serve", *self.args(events)]


def package_path() -> str:
    """The directory holding this ``anachron`` package: the lock runs the same code as the launcher."""
    return str(Path(__file__).resolve().parent.parent.parent)


def server_entry(lock: Lock, events: Path) -> dict[str, Any]:
    """The configuration entry of the lock: a stdio server with an explicit ``type``.

    The type is written out because Claude Code drops an entry whose type it
    has to guess, silently, and the only sign is ``mcp_servers: []``
    (anthropics/claude-code#73885).
    """
    command = lock.command(events)
    return {
        "type": "stdio",
        "command": command[0],
        "args": command[1:],
        "env": {"PYTHONPATH": package_path(), "TZ": "UTC"},
    }


def mcp_config(lock: Lock, events: Path) -> dict[str, Any]:
    """The MCP configuration naming the lock, and nothing else."""
    return {"mcpServers": {SERVER: server_entry(lock, events)}}


def corpus_fingerprint(spec: str | None) -> dict[str, Any]:
    """``{"source", "sha256", "files"}`` of the corpus the lock serves: the SHA-256 of its bytes.

    A directory hashes every regular file under it (sorted by relative path,
    each path and content hashed); an index file hashes its bytes; a
    ``postgresql://`` URL cannot be fingerprinted from here (``sha256`` null,
    with a note).  ``None`` is the bundled corpus.
    """
    if spec is not None and spec.startswith(("postgresql://", "postgres://")):
        return {"source": "postgresql", "sha256": None, "note": "a database is not fingerprinted: record its dump's hash yourself"}
    if spec is None:
        from anachron.core.corpus import default_corpus_dir

        path = default_corpus_dir()
    else:
        path = Path(spec)
    digest = hashlib.sha256()
    try:
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file())
            for file in files:
                digest.update(file.relative_to(path).as_posix().encode("utf-8") + b"\0")
                digest.update(hashlib.sha256(file.read_bytes()).digest())
            count = len(files)
        elif path.is_file():
            digest.update(path.read_bytes())
            count = 1
        else:
            raise AnachronError(f"--corpus {spec}: no such corpus directory or index file")
    except OSError as exc:
        raise AnachronError(f"--corpus {spec}: cannot read the corpus: {exc.strerror or exc}") from None
    return {"source": str(path.resolve()), "sha256": digest.hexdigest(), "files": count}


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The harness's environment: ours, with the time zone pinned to UTC (what can be set of the
    date a harness shows its model: docs/run-rules.md) and *extra*."""
    env = dict(os.environ)
    env["TZ"] = "UTC"
    env.update(extra or {})
    return env
