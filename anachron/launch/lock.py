"""The lock a launched run is sealed by: its ``anachron serve`` command, the MCP configuration
that names it, and the fingerprint of the corpus it serves.

The lock always runs as a separate ``anachron serve`` process in the
enforced mode with its own event log, started by the launcher
(:class:`LockHost`), never by the harness: the harness's configuration
names a relay (:mod:`anachron.launch.relay`) that connects to the
launcher's socket, and the launcher starts one lock per connection with its
log in a private directory the harness is never told of.  When the run ends
the launcher copies that log into the run directory, chaining each line's
digest as it copies (:func:`anachron.timelock.events.log_chain`), so the
harness can neither write the log during the run nor edit it unseen
afterwards.  The lock's own configuration (``mcp.json``, what
``--sealed-tools-from`` reads, :mod:`anachron.importers`) names that log by
its place in the run directory.  The server is named :data:`SERVER`, so its
tools are ``mcp__lock__search`` and ``mcp__lock__fetch`` in Claude Code's
naming.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
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


def relay_entry(socket_path: Path) -> dict[str, Any]:
    """The configuration entry the harness is given: the relay to the launcher's lock (a stdio server)."""
    return {
        "type": "stdio",
        "command": sys.executable,
        "args": ["-m", "anachron.launch.relay", str(socket_path)],
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


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: a member we may not signal is still there
        return True
    return True


def stop_group(process: subprocess.Popen, grace: float = 5.0) -> None:
    """Stop a process we started in its own session and everything in its process group (a
    shell's children), whether or not the process itself has exited: nothing it started outlives
    the run.  A group whose leader has exited gets *grace* seconds to finish before SIGTERM, then
    SIGKILL."""
    pgid = process.pid  # start_new_session: it leads its own group
    if process.poll() is not None:
        end = time.monotonic() + grace
        while _group_alive(pgid) and time.monotonic() < end:
            time.sleep(0.05)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if process.poll() is None:
            try:
                os.killpg(pgid, sig)
            except OSError:
                process.send_signal(sig)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                continue
        if not _group_alive(pgid):
            return
        try:
            os.killpg(pgid, sig)  # the leader is gone; its group is not
        except OSError:
            return
        end = time.monotonic() + 10
        while _group_alive(pgid) and time.monotonic() < end:
            time.sleep(0.05)


# Set in the harness's environment to a fresh value per run, and inherited by everything it starts:
# a descendant that left the harness's process group (setsid) is found by it in /proc.
RUN_MARKER = "ANACHRON_RUN_ID"


def marked_processes(marker: str) -> list[int]:
    """The pids whose environment holds ``ANACHRON_RUN_ID=marker`` (Linux ``/proc``; elsewhere none)."""
    needle = b"\0" + f"{RUN_MARKER}={marker}".encode() + b"\0"
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    found = []
    for entry in entries:
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as environ:
                data = environ.read()
        except OSError:  # gone, or not ours to read
            continue
        if needle in b"\0" + data:
            found.append(int(entry))
    return found


def kill_marked(marker: str) -> list[int]:
    """SIGKILL every process of the run's marker (the harness's escaped descendants); the pids killed."""
    killed: list[int] = []
    for _ in range(5):  # a dying parent may start another before it goes
        pids = [pid for pid in marked_processes(marker) if pid not in killed]
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
        time.sleep(0.05)
    return killed


class LockHost:
    """The lock processes of one run, started by the launcher: a Unix socket the harness's relay
    connects to, one ``anachron serve`` per connection, its log in a private directory.

    :meth:`close` stops the locks (each gets *grace* seconds to write its last record once its
    relay has gone); :meth:`copy_log` then copies the log into the run directory and returns its
    digest chain.  Use as a context manager: the private directories are removed at exit.
    """

    def __init__(self, lock: Lock, stderr: Path) -> None:
        self.lock = lock
        self.stderr = stderr
        # Two directories: the socket's (its path is in the harness's configuration) and the log's (never told).
        self._socket_dir = Path(tempfile.mkdtemp(prefix="anachron-relay-"))
        self._log_dir = Path(tempfile.mkdtemp(prefix="anachron-lock-"))
        self.socket_path = self._socket_dir / "lock.sock"
        self.events = self._log_dir / EVENTS
        self.processes: list[subprocess.Popen] = []
        self._done = threading.Event()
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._listener.bind(str(self.socket_path))
            self._listener.listen(8)
        except OSError as exc:
            self._cleanup()
            raise AnachronError(f"cannot open the lock's socket {self.socket_path}: {exc.strerror or exc}") from None
        self._listener.settimeout(0.1)  # so the accepting thread sees close() promptly
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def __enter__(self) -> "LockHost":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close(grace=0)
        self._cleanup()

    def started(self) -> bool:
        """Whether a lock started (it creates its event log at start-up)."""
        return self.events.exists()

    def _accept(self) -> None:
        env = child_env({"PYTHONPATH": package_path()})
        while not self._done.is_set():
            try:
                conn, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with conn, open(self.stderr, "ab") as errors:
                conn.setblocking(True)
                try:
                    process = subprocess.Popen(self.lock.command(self.events), stdin=conn.fileno(), stdout=conn.fileno(),
                                               stderr=errors, env=env, cwd=self._log_dir, start_new_session=True)
                except OSError:
                    continue  # the relay sees its socket close: the harness reports a lock that failed
            self.processes.append(process)

    def close(self, grace: float = 5.0) -> None:
        """Stop accepting, then stop every lock: *grace* seconds to exit on its own (its relay gone, it
        writes its last record), then SIGTERM, SIGKILL."""
        if not self._done.is_set():
            self._done.set()
            self._thread.join()
            self._listener.close()
        end = time.monotonic() + grace
        for process in self.processes:
            try:
                process.wait(timeout=max(0.0, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            stop_group(process, grace=0)

    def copy_log(self, dest: Path) -> Any:
        """Copy the lock's log (an empty one when no lock started) to *dest*, atomically; its
        :class:`~anachron.timelock.events.LogChain`, computed over the bytes written."""
        from anachron.timelock.events import log_chain

        try:
            data = self.events.read_bytes() if self.events.exists() else b""
        except OSError as exc:
            raise AnachronError(f"cannot read the lock's log {self.events}: {exc.strerror or exc}") from None
        staged = dest.with_name(dest.name + ".staged")
        with open(staged, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(staged, dest)  # over anything the harness may have put at this path
        return log_chain(data)

    def _cleanup(self) -> None:
        shutil.rmtree(self._socket_dir, ignore_errors=True)
        shutil.rmtree(self._log_dir, ignore_errors=True)
