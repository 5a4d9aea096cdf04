"""One sealed run: write the lock's configuration, start the harness, preflight it, guard it,
audit its transcript against the lock's log, and write the run directory.

The run directory (``--out``) must be new or empty.  It receives:

- ``mcp.json``: the lock's MCP configuration (what ``--sealed-tools-from`` reads);
- ``lock-events.jsonl``: the lock's own event log, written by the lock process (which the launcher
  starts, :class:`~anachron.launch.lock.LockHost`) in a private directory and copied here when the
  run ends, its digest chain pinned in ``run.json`` (``lock_log``); when the lock never started, an
  empty file, and ``run.json`` says ``lock_started: false``; ``lock-stderr.txt``, the lock's stderr;
- ``transcript.jsonl``: the harness's stdout as it came (or our loop's conversation);
- ``harness-stderr.txt``; for gemini-cli ``gemini-home/`` (its HOME: ``.gemini/settings.json``), for claude-code ``harness-mcp.json`` (the
  relay to the lock it is given) and ``claude-settings.json``
  (when its ``--help`` lists ``--settings``); an empty ``workspace/``,
  the harness's working directory (no project file of yours is read);
- ``model.jsonl``: every request to the model and its answer, as the model gateway forwarded or
  refused it (:mod:`anachron.launch.gateway`), chained by digest, keys redacted;
- ``run.json``, written last and atomically: a directory without it is a run that did not finish.

The exit status is 0 for a run that went through (whatever the audit found: the
verdict is in ``run.json``) and 2, with one line, for a refusal: a failed preflight,
a call outside the lock (the guard), or a harness that could not start.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from anachron import __version__
from anachron.core.dates import format_date, known_at
from anachron.core.errors import AnachronError
from anachron.core.atomic import write_atomic
from anachron.core.seal import lock_tool_names
from anachron.importers.run_dir import write_run
from anachron.launch.harnesses import (HARNESSES, LOOPS, Check, ClaudeCode, DuplicateKey, Harness, Prepared, guard_breach,
                                       local_tools, lock_config_text, read_event, version_of, version_warning)
from anachron.launch.lock import (CONFIG, EVENTS, RUN_MARKER, SERVER, TOOLS, Lock, LockHost, corpus_fingerprint, kill_marked,
                                  relay_entry, stop_group)

TRANSCRIPT = "transcript.jsonl"
STDERR = "harness-stderr.txt"
LOCK_STDERR = "lock-stderr.txt"
MAX_BEFORE_INIT = 20
EXIT_GRACE = 5.0  # seconds a stream may stay open after the harness exits before its holders are killed
MAX_PROMPT = 1 << 20  # bytes of --prompt: a task, not a corpus (an unbounded read of /dev/zero ran out of memory)
# What each harness writes of today's date into its model's context (docs/run-rules.md).
DATE_LEAKS = {
    "claude-code": "writes today's date into its model's context: the system prompt's <env> block "
                   "(anthropics/claude-code#18374), in 2.1.197 a user-context message ('# currentDate', "
                   "'Today's date is ...'); no flag sets it: TZ=UTC only fixes its time zone",
    "codex": "writes an environment context (cwd, shell; recent versions the current date, openai/codex#5993); "
             "no flag sets it: TZ=UTC only fixes its time zone",
    "gemini-cli": "writes today's date into its session context; no flag sets it: TZ=UTC only fixes its time zone",
    "responses": "nothing: our loop sends only the prompt and the two tools (the endpoint may add its own system prompt)",
    "chat": "nothing: our loop sends only the prompt and the two tools (the endpoint may add its own system prompt)",
}


@dataclass
class RunSpec:
    harness: str
    as_of: _dt.date
    prompt: Path
    out: Path
    corpus: str | None = None
    lock_as_of: _dt.date | None = None  # default: T
    model: str | None = None
    budget: int | None = None
    k: int = 5
    base_url: str | None = None
    max_turns: int = 20
    executable: str | None = None
    startup_timeout: float = 30.0
    init_timeout: float = 120.0
    timeout: float | None = None
    sample_id: str | None = None
    max_line: int = 64 * 1024 * 1024  # bytes in one line of the harness's stream; a longer one stops the run
    no_isolation: bool = False  # run a command-line harness with the machine's network (anachron.launch.isolation)


class Refused(AnachronError):
    """A run refused (preflight, guard, start-up): one line; ``run.json`` records it."""


class Interrupted(Refused):
    """A run stopped by SIGTERM or SIGINT: everything it started is stopped, ``run.json`` records it
    (``refused``), and the command exits with 128 + the signal's number (143, 130)."""

    def __init__(self, message: str, signum: int) -> None:
        super().__init__(message)
        self.signum = signum


class _Signalled(BaseException):
    """Raised in the main thread by the first SIGTERM or SIGINT, so the run's cleanup runs as it
    does for Ctrl-C (a BaseException: no ``except Exception`` swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _Signals:
    """SIGTERM and SIGINT while a run is on: the first raises :class:`_Signalled` while *raising*,
    any later one (or one after the run, while the record is written) is only noted."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.raising = True
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> "_Signals":
        if threading.current_thread() is threading.main_thread():  # signal handlers are the main thread's
            for sig in (signal.SIGTERM, signal.SIGINT):
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        first = self.signum is None
        if first:
            self.signum = signum
        if first and self.raising:
            raise _Signalled(signum)

    def __exit__(self, *exc: Any) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def _run_dir(out: Path) -> Path:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise AnachronError(f"--out {out}: exists and is not an empty directory: choose a new run directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "workspace").mkdir(exist_ok=True)
    except OSError as exc:
        raise AnachronError(f"--out {out}: cannot create the run directory: {exc.strerror or exc}") from None
    return out.resolve()


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _wait_for(path: Path, seconds: float, done: Callable[[], bool]) -> bool:
    """Whether *path* exists within *seconds* (polled; stops early when *done*)."""
    end = time.monotonic() + seconds
    while not path.exists():
        if done() or time.monotonic() >= end:
            return path.exists()
        time.sleep(0.05)
    return True


class _Outcome:
    def __init__(self) -> None:
        self.checks: list[Check] = []
        self.refusal: str | None = None
        self.version: str | None = None
        self.cli_version: str | None = None  # `EXECUTABLE --version`'s first line
        self.warnings: list[str] = []
        self.exit_status: int | None = None
        self.turns: int | None = None
        self.stopped: str | None = None
        self.timed_out = threading.Event()
        self.argv: list[str] = []
        self.process: subprocess.Popen | None = None  # the harness, once started
        self.escaped = 0  # processes of the harness's marker killed after it left them behind
        self.gateway: Any = None  # the model gateway (anachron.launch.gateway.Gateway) the harness talks through
        self.halt: Callable[[], None] | None = None  # stops the harness (set once it runs): the gateway's refusal
        self.isolation: Any = None  # the harness's network namespace (anachron.launch.isolation.Isolation), or None
        self.bridge: Any = None  # the gateway's Unix socket the namespace reaches it through


def _static_checks(spec: RunSpec, lock: Lock) -> list[Check]:
    ok = known_at(lock.as_of, spec.as_of)  # the lock's cutoff must be known at T: on or before it
    return [Check("lock as-of on or before T", ok,
                  f"lock --as-of {format_date(lock.as_of)}, T {format_date(spec.as_of)}")]


def _cli(spec: RunSpec, harness: Harness, host: LockHost, rundir: Path, prompt: str, outcome: _Outcome) -> None:
    events = host.events  # the lock's log, where the harness is never told
    prepared: Prepared = harness.prepare(relay_entry(host.socket_path), rundir, spec.model,
                                         spec.max_turns if spec.harness == "claude-code" else None)
    _point_at_gateway(spec, prepared, outcome)
    for name, text in prepared.files.items():
        (rundir / name).parent.mkdir(parents=True, exist_ok=True)  # gemini-cli's settings, in a HOME of its own
        write_atomic(rundir / name, text)
    outcome.argv = prepared.argv
    marker = uuid.uuid4().hex
    prepared.env[RUN_MARKER] = marker  # inherited by all it starts: found in /proc when one escapes its group
    partial = rundir / (TRANSCRIPT + ".partial")
    try:
        with open(rundir / STDERR, "w", encoding="utf-8") as errors, open(partial, "wb") as transcript:
            try:
                process = subprocess.Popen(
                    _isolated_argv(prepared.argv, outcome), cwd=rundir / "workspace", env=prepared.env, stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=errors,
                    start_new_session=True,
                )
            except OSError as exc:
                transcript.close()
                partial.unlink()  # nothing ran: no transcript
                raise Refused(f"cannot start {prepared.argv[0]}: {exc.strerror or exc}") from None
            outcome.process = process
            outcome.halt = lambda: threading.Thread(target=stop_group, args=(process, 0), daemon=True).start()
            assert process.stdout is not None
            lines = _Lines(process.stdout.fileno(), spec.max_line)

            def time_out() -> None:
                outcome.timed_out.set()
                stop_group(process, grace=0)

            timer = threading.Timer(spec.timeout, time_out) if spec.timeout else None
            if timer is not None:
                timer.daemon = True
                timer.start()
            try:
                _drive(harness, process, prepared, prompt, lines, transcript, events, spec, outcome, marker)
            finally:
                if timer is not None:
                    timer.cancel()
                stop_group(process)
                outcome.escaped += len(kill_marked(marker))  # descendants that left its group (setsid)
                if lines.finish(5.0):
                    process.stdout.close()
                # else: a process that shed the marker still holds the pipe: the reader thread is left to it
                outcome.exit_status = process.returncode
                if outcome.refusal is None and outcome.timed_out.is_set():
                    outcome.stopped = f"stopped by --timeout after {spec.timeout:g} s"
                elif outcome.refusal is None and process.returncode:
                    outcome.stopped = f"the harness exited with status {process.returncode}"
    finally:
        if partial.exists():
            os.replace(partial, rundir / TRANSCRIPT)


class _Lines:
    """The harness's stdout as lines, split on ``b"\\n"`` only, each at most *limit* + 1 bytes (a longer
    one comes in pieces, the first of limit + 1 bytes), read by a thread of its own so the run stops
    reading at its deadline whoever holds the pipe open (a ``setsid`` child of the harness)."""

    def __init__(self, fd: int, limit: int) -> None:
        self.fd, self.limit = fd, limit
        self.queue: queue.Queue[bytes | None] = queue.Queue(maxsize=16)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        buffer = bytearray()
        scanned = 0  # bytes of the buffer known to hold no newline
        try:
            while True:
                cut = buffer.find(b"\n", scanned, self.limit + 1)
                if cut >= 0 or len(buffer) > self.limit:
                    end = cut + 1 if cut >= 0 else self.limit + 1
                    self.queue.put(bytes(buffer[:end]))
                    del buffer[:end]
                    scanned = 0
                    continue
                scanned = len(buffer)
                data = os.read(self.fd, 1 << 16)
                if not data:
                    break
                buffer += data
        except OSError:
            pass
        if buffer:
            self.queue.put(bytes(buffer))  # the last line, cut off
        self.queue.put(None)

    def next(self, stop: Callable[[], bool]) -> bytes | None:
        """The next line; ``None`` at the end of the stream, or as soon as *stop* says so."""
        while True:
            try:
                return self.queue.get(timeout=0.1)
            except queue.Empty:
                if stop():
                    return None

    def finish(self, seconds: float) -> bool:
        """Whether the reader reached the end of the stream within *seconds* (what it still had is dropped)."""
        end = time.monotonic() + seconds
        while self.thread.is_alive() and time.monotonic() < end:
            try:
                self.queue.get(timeout=0.05)
            except queue.Empty:
                pass
        return not self.thread.is_alive()


def _drive(harness: Harness, process: subprocess.Popen, prepared: Prepared, prompt: str, lines: _Lines, transcript: Any,
           events: Path, spec: RunSpec, outcome: _Outcome, marker: str) -> None:
    """Feed the prompt, copy stdout (bytes) to the transcript, preflight at the init event, guard every call."""
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(prompt.encode("utf-8"))
        process.stdin.close()
    except OSError:
        pass  # a harness that exits at once: its stream (or its absence) says why
    # A harness that says nothing is stopped: no init within the wait is a refusal, never a hang.
    seen, silent = threading.Event(), threading.Event()

    def no_init() -> None:
        if not seen.is_set():
            silent.set()
            stop_group(process)

    waiting = threading.Timer(spec.init_timeout, no_init)
    waiting.daemon = True
    waiting.start()
    try:
        _read(harness, process, prepared, lines, transcript, events, spec, outcome, seen, silent, marker)
    finally:
        waiting.cancel()


def _read(harness: Harness, process: subprocess.Popen, prepared: Prepared, lines: _Lines, transcript: Any, events: Path,
          spec: RunSpec, outcome: _Outcome, seen: threading.Event, silent: threading.Event, marker: str) -> None:
    """The stream, line by line, until it ends, a check stops it, or the run's time is up; *seen* is set
    at the init event."""
    exited: list[float] = []  # when the harness was first seen exited

    def stop() -> bool:
        if outcome.timed_out.is_set() or silent.is_set():
            return True
        if process.poll() is None:
            return False
        # The harness is gone, yet its stream is open: a descendant holds it. After a grace, kill what
        # carries the run's marker; if the stream still does not end, stop reading.
        now = time.monotonic()
        if not exited:
            exited.append(now)
        waited = now - exited[0]
        if waited >= EXIT_GRACE and len(exited) == 1:
            exited.append(now)
            outcome.escaped += len(kill_marked(marker))
        return waited >= 2 * EXIT_GRACE

    checked = False
    before = 0  # events before the init event
    number = 0
    # Bytes, split on b"\n" only: the transcript is the stream as it came (a JSON string may hold U+2028).
    while True:
        raw = lines.next(stop)
        if not raw:
            break
        number += 1
        transcript.write(raw if raw.endswith(b"\n") else raw + b"\n")
        transcript.flush()
        if len(raw) > spec.max_line:
            # A line this long cannot be checked whole: nothing in it may go unguarded.
            detail = f"line {number} of the harness's stream is over {spec.max_line} bytes: it cannot be checked"
            if not checked:
                outcome.checks.append(Check("init event", False, detail))
            outcome.refusal = f"{'guard' if checked else 'preflight'}: {detail}: run stopped"
            return
        try:
            event = read_event(raw.decode("utf-8"))
        except DuplicateKey as exc:
            # Hostile wherever it comes: a key given twice may hide a call from one reader or another.
            detail = f"line {number} of the harness's stream names the key {str(exc)!r} twice in one object: it cannot be checked"
            if not checked:
                outcome.checks.append(Check("init event", False, detail))
            outcome.refusal = f"{'guard' if checked else 'preflight'}: {detail}: run stopped"
            return
        except (ValueError, RecursionError):  # not JSON (UnicodeDecodeError is a ValueError), or nested past reading
            event = None
        if not isinstance(event, dict):
            if checked and raw.strip():
                # Past the init every line is an event the guard must read: one it cannot read may hide a call.
                what = "is not a JSON object" if raw.endswith(b"\n") else "is cut off (the stream ended mid-line)"
                outcome.refusal = f"guard: line {number} of the harness's stream {what}: run stopped"
                return
            continue  # before the init: a banner or a warning, kept in the transcript
        why = harness.outside(event)
        if why is not None:
            if not checked:
                outcome.checks.append(Check("init event", False, why))
            outcome.refusal = f"{'guard' if checked else 'preflight'}: {why}: run stopped"
            return
        if not checked:
            if not harness.is_init(event):
                # A harness may report hooks or status first; a call, or too long a wait, before the init is refused.
                before += 1
                if harness.calls(event) or before > MAX_BEFORE_INIT:
                    detail = f"the harness sent {event.get('type')!r} before its init event"
                    outcome.checks.append(Check("init event", False, detail))
                    outcome.refusal = f"preflight: {detail}"
                    return
                continue
            seen.set()
            outcome.version = harness.reported_version(event) or outcome.version
            outcome.checks.append(Check("init event", True, f"type {event.get('type')!r}"))
            outcome.checks += harness.preflight(event, prepared)
            if not isinstance(harness, ClaudeCode):
                # No init lists the servers: the lock process creates its event log when it starts.
                started = _wait_for(events, spec.startup_timeout, lambda: process.poll() is not None)
                outcome.checks.append(Check(
                    "lock connected", started,
                    "the lock started (its event log exists)" if started
                    else f"the lock never started: no event log after {spec.startup_timeout:g} s"))
            failed = next((c for c in outcome.checks if not c.passed), None)
            if failed is not None:
                outcome.refusal = f"preflight: {failed.detail}"
                return
            checked = True
        elif harness.is_init(event):
            # Another init (a restarted session): it is checked as the first was, and must pass as well.
            failed = next((c for c in harness.preflight(event, prepared) if not c.passed), None)
            if failed is not None:
                outcome.refusal = f"guard: a later init event (line {number}) fails the preflight: {failed.detail}: run stopped"
                return
        outside = guard_breach(harness, harness.calls(event))
        if outside is not None:
            outcome.refusal = f"guard: the harness called {outside!r}, outside the lock: run stopped"
            return
    process.wait()
    if not checked:
        detail = (f"no init event within {spec.init_timeout:g} s" if silent.is_set()
                  else f"the harness exited (status {process.returncode}) without an init event")
        outcome.checks.append(Check("init event", False, detail))
        outcome.refusal = f"preflight: {detail}"


def _loop(spec: RunSpec, host: LockHost, rundir: Path, prompt: str, outcome: _Outcome) -> None:
    import anyio

    from anachron.launch.loop import Conversation, Endpoint, converse, transcript_text

    base = endpoint_of(spec)
    # Through the model gateway, which forwards to *base* (the argv recorded names *base*).
    endpoint = Endpoint(outcome.gateway.url if outcome.gateway is not None else base, os.environ.get("OPENAI_API_KEY") or None)
    entry = relay_entry(host.socket_path)
    command = [entry["command"], *entry["args"]]
    outcome.argv = ["anachron-loop", spec.harness, "--base-url", base, "--model", spec.model]
    conversation = Conversation()
    env = {**os.environ, **entry["env"]}
    try:
        anyio.run(lambda: converse(spec.harness, command, env, rundir / "workspace", rundir / STDERR,
                                   endpoint, spec.model, prompt, spec.max_turns, conversation))
        outcome.checks.append(Check("lock connected", True, "the lock listed search and fetch over MCP"))
        outcome.checks.append(Check("no built-in tools", True,
                                    "offered only " + ", ".join(tool["name"] for tool in conversation.tools)))
    except AnachronError as exc:
        if conversation.tools:
            outcome.checks.append(Check("lock connected", True, "the lock listed search and fetch over MCP"))
            if conversation.stopped is not None:
                outcome.refusal = f"guard: {conversation.stopped}: run stopped"
            else:
                raise
        else:
            outcome.checks.append(Check("lock connected", False, str(exc)))
            outcome.refusal = f"preflight: {exc}"
    except Exception as exc:  # the SDK's transport errors (a lock that would not start) arrive wrapped
        if conversation.tools:
            raise AnachronError(f"the lock failed during the run: {exc}") from None
        outcome.checks.append(Check("lock connected", False, f"the lock did not start: {exc}"))
        outcome.refusal = f"preflight: the lock did not start ({type(exc).__name__}: see {STDERR})"
    finally:
        outcome.turns = conversation.turns
        outcome.stopped = conversation.stopped if outcome.refusal is None else None
        write_atomic(rundir / TRANSCRIPT, transcript_text(spec.harness, spec.sample_id or rundir.name, conversation))


# --- The model gateway's wiring (anachron/launch/gateway.py): started before the harness, the harness
# pointed at it, its refusal stopping the run and becoming the run's verdict. ---


def _start_gateway(spec: RunSpec, rundir: Path, outcome: _Outcome, version: str | None = None) -> None:
    from anachron.launch.gateway import Gateway, upstream_of

    # The upstream is read from our environment before the harness's is pointed at the gateway.
    upstream = upstream_of(spec.harness, base_url=endpoint_of(spec) if spec.harness in LOOPS else None)

    def refused(verdict: str) -> None:
        outcome.refusal = verdict
        if outcome.halt is not None:
            outcome.halt()

    outcome.gateway = Gateway(spec.harness, upstream, rundir, on_refusal=refused, version=version).start()


def _point_at_gateway(spec: RunSpec, prepared: Prepared, outcome: _Outcome) -> None:
    from anachron.launch.gateway import wiring

    if outcome.gateway is not None:
        env, args = wiring(spec.harness, outcome.gateway.url)
        prepared.env.update(env)
        if args:  # codex: its provider's -c overrides, before the last argument ("-": the prompt from stdin)
            prepared.argv[-1:-1] = args


def _close_gateway(outcome: _Outcome) -> None:
    if outcome.gateway is not None:
        try:
            outcome.gateway.close()  # its log copied into the run directory, over whatever the harness put there
        except AnachronError as exc:  # no log as pinned: the run proves nothing of what the model was offered
            outcome.refusal = outcome.refusal or f"gateway: {exc}"
        if outcome.gateway.verdict is not None:
            outcome.refusal = outcome.gateway.verdict  # what stopped the run, whatever the harness said after


# --- end of the model gateway's wiring ---


# --- The harness's network namespace (anachron/launch/isolation.py): decided before anything is
# written, the harness's argv wrapped, the gateway reached through a Unix socket. ---


def _decide_isolation(spec: RunSpec) -> Any:
    from anachron.launch.isolation import decide

    return decide(spec.no_isolation) if spec.harness in HARNESSES else None  # our loops run no shell


def _isolated_argv(argv: list[str], outcome: _Outcome) -> list[str]:
    import urllib.parse

    from anachron.launch.isolation import Bridge

    if outcome.isolation is None:
        return argv
    port = None
    if outcome.gateway is not None:
        port = urllib.parse.urlsplit(outcome.gateway.url).port
        outcome.bridge = Bridge(port)
    return outcome.isolation.wrap(argv, port, outcome.bridge.socket_path if outcome.bridge is not None else None)


def _close_isolation(outcome: _Outcome) -> None:
    if outcome.bridge is not None:
        outcome.bridge.close()


def _isolation_fields(spec: RunSpec, outcome: _Outcome) -> dict[str, Any]:
    """``run.json``'s ``isolation``, and what the seal rests on (command-line harnesses only)."""
    from anachron.launch.isolation import assumption, record

    return {"isolation": record(outcome.isolation),
            "assumes": assumption(outcome.isolation) if spec.harness in HARNESSES else None}


# --- end of the network namespace ---


def endpoint_of(spec: RunSpec) -> str:
    """The loop's base URL (``--base-url``, else ``$OPENAI_BASE_URL``); an error without one or a model."""
    base = spec.base_url or os.environ.get("OPENAI_BASE_URL")
    if not base:
        raise AnachronError(f"anachron run {spec.harness}: give --base-url URL or set OPENAI_BASE_URL")
    if spec.model is None:
        raise AnachronError(f"anachron run {spec.harness}: give --model NAME")
    return base


def audit_run(rundir: Path, as_of: _dt.date, corpus_spec: str | None, tools: Iterable[str], transcript: str,
              log_format: str, isolated: bool = False, local: Iterable[str] = ()) -> dict[str, Any]:
    """The seal audit of a run directory's transcript: the lock's configuration (``mcp.json``) and
    *tools*, with the lock's log; *isolated*: the harness ran in its own network namespace, so its
    shells are declared isolated; *local*: the harness's tools that never leave its process (those
    the gateway let through, :func:`anachron.launch.harnesses.local_tools`), not counted outside the lock.  ``anachron run`` records it in ``run.json``; ``anachron score
    RUNDIR`` recomputes it from the files and compares."""
    from anachron.core.seal import SHELL_TOOLS, Declaration, audit, run_status
    from anachron.core.trace import iter_traces
    from anachron.importers import Options, import_logs, seal_declaration
    from anachron.store import load_corpus  # a directory, an index file or a postgresql:// URL, as --corpus names it
    from anachron.timelock.events import load_events
    from anachron.timelock.run_trace import lock_run

    names = set(tools)
    statuses, breaches, calls, samples = set(), [], 0, 0
    try:
        # Any of these failing (a lock log torn mid-file, a corpus that cannot be read) leaves no proof: cannot tell.
        declared, _ = seal_declaration(rundir / CONFIG)
        names |= set(declared)
        lock_as_of = dict(declared.lock_as_of)
        for name in names - set(lock_as_of):
            lock_as_of[name] = next(iter(declared.lock_as_of.values()))
        events = rundir / EVENTS
        locks = [lock_run(load_events(events))] if events.exists() else []
        declaration = Declaration(names, lock_as_of, isolated_shells=SHELL_TOOLS if isolated else (), locks=locks,
                                  local_tools=local)
        corpus = load_corpus(corpus_spec)
        options = Options(as_of=as_of, scoring_corpus=corpus)
        for trace in iter_traces(import_logs(log_format, [str(rundir / transcript)], options), corpus):
            samples += 1
            found = audit(trace.interactions, declaration, trace.as_of)
            statuses.add(found.status if found is not None else None)
            calls += sum(call.tool not in declaration.local_tools for call in trace.interactions)  # judged calls
            breaches += [line for lines in (found.breaches if found is not None else ()) for line in lines]
    except (AnachronError, OSError) as exc:
        return {"status": "cannot tell", "reason": f"the run could not be audited: {exc}", "sealed_tools": sorted(names)}
    status = run_status(statuses, calls) if samples else "no verdict"
    return {"status": status, "samples": samples, "calls": calls, "breaches": breaches, "sealed_tools": sorted(names)}


def sealed_tools(harness: Harness | None) -> list[str]:
    """The lock's tools by every name the run's log may give them: ``mcp__lock__*`` and the harness's own."""
    return sorted(set(lock_tool_names(SERVER, TOOLS)) | set(harness.lock_names if harness is not None else ()))


def _installed(spec: RunSpec) -> None:
    """Refuse, before anything is written, a harness whose executable is not there: one line with its install command."""
    cls = HARNESSES[spec.harness]
    executable = spec.executable or cls.executable
    if shutil.which(executable) is None:
        where = f"--executable {executable}: not found" if spec.executable else f"{executable} not found on PATH"
        raise AnachronError(f"{where}; install it with npm install -g {cls.package}")


def read_prompt(path: Path) -> str:
    """The prompt file's text (UTF-8), read up to :data:`MAX_PROMPT` bytes: a larger one (or an endless
    one, ``/dev/zero``) is refused before anything starts."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_PROMPT + 1)
        if len(data) > MAX_PROMPT:
            raise AnachronError(f"--prompt {path}: over {MAX_PROMPT} bytes (1 MiB): give a shorter prompt")
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AnachronError(f"--prompt {path}: cannot read it: {getattr(exc, 'strerror', None) or exc}") from None


def launch(spec: RunSpec, warn: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run *spec*; the manifest written to ``run.json``.  Raises :class:`Refused` (after writing the
    manifest) when the run is refused, :class:`AnachronError` on bad input (before any file)."""
    if spec.harness not in HARNESSES and spec.harness not in LOOPS:
        raise AnachronError(f"unknown harness {spec.harness!r}: choose one of {', '.join((*HARNESSES, *LOOPS))}")
    prompt = read_prompt(spec.prompt)
    if spec.harness in LOOPS:
        endpoint_of(spec)
    else:
        _installed(spec)
    isolation = _decide_isolation(spec)  # a platform that cannot isolate refuses here, before any file
    fingerprint = corpus_fingerprint(spec.corpus)
    corpus = str(Path(spec.corpus).resolve()) if spec.corpus is not None and "://" not in spec.corpus else spec.corpus
    lock = Lock(spec.lock_as_of or spec.as_of, corpus, spec.budget, spec.k)
    rundir = _run_dir(spec.out)
    config_text = lock_config_text(lock, rundir / EVENTS)
    write_atomic(rundir / CONFIG, config_text)
    outcome = _Outcome()
    outcome.checks = _static_checks(spec, lock)
    outcome.isolation = isolation
    harness: Harness | None = None
    started = _now()
    chain = None
    lock_started = False
    with _Signals() as signals, LockHost(lock, rundir / LOCK_STDERR) as host:
        if all(check.passed for check in outcome.checks):
            try:
                if spec.harness in HARNESSES:
                    cls = HARNESSES[spec.harness]
                    executable = spec.executable or cls.executable
                    harness = ClaudeCode(*ClaudeCode.probe(executable)) if cls is ClaudeCode else cls()
                    harness.executable = executable
                    outcome.version = outcome.cli_version = version_of(executable)
                    harness.cli_version = outcome.cli_version  # the flags of this version (its deny list, its local tools)
                    warning = version_warning(spec.harness, outcome.cli_version)
                    if warning is not None:
                        outcome.warnings.append(warning)
                        if warn is not None:
                            warn(warning)
                    _start_gateway(spec, rundir, outcome, outcome.cli_version)
                    _cli(spec, harness, host, rundir, prompt, outcome)
                else:
                    _start_gateway(spec, rundir, outcome)
                    outcome.version = f"anachron {__version__}"
                    _loop(spec, host, rundir, prompt, outcome)
            except AnachronError as exc:  # the run failed part way (a harness that would not start, a broken endpoint)
                outcome.refusal = outcome.refusal or str(exc)
            except _Signalled:
                # _cli's finally blocks stopped the harness, unless the signal cut them short: again, to be sure.
                if outcome.process is not None:
                    stop_group(outcome.process, grace=0)
            finally:
                signals.raising = False  # from here on a signal is noted, and the record still written
                _close_gateway(outcome)
                _close_isolation(outcome)
        else:
            outcome.refusal = f"preflight: {next(c for c in outcome.checks if not c.passed).detail}"
        signals.raising = False
        if signals.signum is not None:
            outcome.refusal = f"interrupted by {signal.Signals(signals.signum).name}: run stopped"
        host.close()  # the harness is gone: each lock writes its last record and exits (or is stopped)
        lock_started = host.started()
        if (rundir / TRANSCRIPT).exists() or lock_started:
            # The lock's log, copied from where the harness could not reach it over whatever the harness
            # wrote at this path, and pinned.  A lock that never ran logged no call: its log is empty, and
            # every call the transcript shows of it is a breach.
            chain = host.copy_log(rundir / EVENTS)
    write_atomic(rundir / CONFIG, config_text)  # the lock's configuration as the launcher wrote it, whatever the harness did
    log_format = harness.log_format if harness is not None else {"responses": "openai-responses", "chat": "openai-chat"}.get(spec.harness, spec.harness)
    ran = (rundir / TRANSCRIPT).exists()
    names = sealed_tools(harness)
    local = sorted(local_tools(harness.name, harness.cli_version)) if harness is not None else []
    isolation_fields = _isolation_fields(spec, outcome)
    seal = audit_run(rundir, spec.as_of, corpus, names, TRANSCRIPT, log_format, outcome.isolation is not None, local) \
        if ran and outcome.refusal is None else None
    if seal is not None and isolation_fields["assumes"] is not None:
        seal["assumes"] = isolation_fields["assumes"]
    # Passed: every check passed, and the harness's own checks ran (a harness that never started has none).
    passed = all(check.passed for check in outcome.checks) and len(outcome.checks) > 1 \
        and not (outcome.refusal or "").startswith("preflight:")
    manifest = {
        "anachron": __version__,
        "harness": spec.harness,
        "version": outcome.version,
        "cli_version": outcome.cli_version,
        "warnings": outcome.warnings,
        "argv": outcome.argv,
        "as_of": format_date(spec.as_of),
        "model": spec.model,
        "sample_id": spec.sample_id,
        "prompt": {"path": str(spec.prompt), "sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest()},
        "corpus": {"spec": corpus, **fingerprint},  # spec: what --corpus named (None: the bundled corpus)
        "lock": {"server": SERVER, "tools": [f"mcp__{SERVER}__{t}" for t in TOOLS], "as_of": format_date(lock.as_of),
                 "mode": "enforced", "max_calls": lock.max_calls, "k": lock.k},
        "started": started,
        "finished": _now(),
        "exit_status": outcome.exit_status,
        "timeout": {"seconds": spec.timeout, "hit": outcome.timed_out.is_set()},
        "escaped_processes": outcome.escaped,  # descendants that left the harness's group, killed by the run's marker
        "lock_started": lock_started,
        "turns": outcome.turns,
        "stopped": outcome.stopped,
        "preflight": {"passed": passed, "checks": [check.to_dict() for check in outcome.checks],
                      "reason": None if passed else outcome.refusal},
        "refused": outcome.refusal,
        "date_in_context": DATE_LEAKS[spec.harness],
        "environment": {"TZ": "UTC"},
        "files": {"transcript": TRANSCRIPT if ran else None, "transcript_format": log_format,
                  "lock_events": EVENTS if chain is not None else None, "mcp_config": CONFIG,
                  "stderr": STDERR if (rundir / STDERR).exists() else None,
                  "lock_stderr": LOCK_STDERR if (rundir / LOCK_STDERR).exists() else None},
        # What `anachron score RUNDIR` checks the files against: the lock's log's digest chain, and the SHA-256
        # of the transcript and the lock's configuration the audit read.
        "lock_log": chain.to_dict() if chain is not None else None,
        "digests": {name: hashlib.sha256((rundir / name).read_bytes()).hexdigest() for name in (TRANSCRIPT, CONFIG) if (rundir / name).exists()},
        "sealed_tools": names,
        "local_tools": local,  # the harness's own tools the gateway let through: not counted outside the lock
        "seal": seal,
        "gateway": outcome.gateway.record() if outcome.gateway is not None else None,
        "isolation": isolation_fields["isolation"],  # the harness's network namespace's method; null: none
    }
    manifest = write_run(rundir, manifest)  # with its format, checked as `anachron score RUNDIR` reads it
    if signals.signum is not None:
        raise Interrupted(outcome.refusal or f"interrupted by {signal.Signals(signals.signum).name}", signals.signum)
    if outcome.refusal is not None:
        raise Refused(outcome.refusal)
    return manifest
