"""One sealed run: write the lock's configuration, start the harness, preflight it, guard it,
audit its transcript against the lock's log, and write the run directory.

The run directory (``--out``) must be new or empty.  It receives:

- ``mcp.json``: the lock's MCP configuration (what ``--sealed-tools-from`` reads);
- ``lock-events.jsonl``: the lock's own event log (written by the lock process; when the lock
  never started, an empty file the launcher writes, and ``run.json`` says ``lock_started: false``);
- ``transcript.jsonl``: the harness's stdout as it came (or our loop's conversation);
- ``harness-stderr.txt``; for gemini-cli ``gemini-settings.json``, for claude-code ``claude-settings.json``
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
import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from anachron import __version__
from anachron.core.dates import format_date, known_at
from anachron.core.errors import AnachronError
from anachron.core.atomic import write_atomic
from anachron.importers.run_dir import write_run
from anachron.launch.harnesses import HARNESSES, LOOPS, Check, ClaudeCode, Harness, Prepared, guard_breach, lock_config_text, version_of
from anachron.launch.lock import CONFIG, EVENTS, SERVER, TOOLS, Lock, child_env, corpus_fingerprint, package_path

TRANSCRIPT = "transcript.jsonl"
STDERR = "harness-stderr.txt"
MAX_BEFORE_INIT = 20
# What each harness writes of today's date into its model's context (docs/run-rules.md).
DATE_LEAKS = {
    "claude-code": "writes today's date into the system prompt's <env> block (anthropics/claude-code#18374); "
                   "no flag sets it: TZ=UTC only fixes its time zone",
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


class Refused(AnachronError):
    """A run refused (preflight, guard, start-up): one line; ``run.json`` records it."""


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


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: a member we may not signal is still there
        return True
    return True


def _stop(process: subprocess.Popen, grace: float = 5.0) -> None:
    """Stop the harness we started and everything in its process group (the lock it started, a
    shell's children), whether or not the harness itself has exited: nothing it started outlives
    the run.  A group whose leader has exited gets *grace* seconds to finish (the lock writing its
    last event once its stdin closes) before SIGTERM, then SIGKILL."""
    pgid = process.pid  # start_new_session: the harness leads its own group
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


class _Outcome:
    def __init__(self) -> None:
        self.checks: list[Check] = []
        self.refusal: str | None = None
        self.version: str | None = None
        self.exit_status: int | None = None
        self.turns: int | None = None
        self.stopped: str | None = None
        self.timed_out = threading.Event()
        self.argv: list[str] = []
        self.gateway: Any = None  # the model gateway (anachron.launch.gateway.Gateway) the harness talks through
        self.halt: Callable[[], None] | None = None  # stops the harness (set once it runs): the gateway's refusal


def _static_checks(spec: RunSpec, lock: Lock) -> list[Check]:
    ok = known_at(lock.as_of, spec.as_of)  # the lock's cutoff must be known at T: on or before it
    return [Check("lock as-of on or before T", ok,
                  f"lock --as-of {format_date(lock.as_of)}, T {format_date(spec.as_of)}")]


def _cli(spec: RunSpec, harness: Harness, lock: Lock, rundir: Path, prompt: str, outcome: _Outcome) -> None:
    events = rundir / EVENTS
    prepared: Prepared = harness.prepare(lock, events, rundir, spec.model, spec.max_turns if spec.harness == "claude-code" else None)
    _point_at_gateway(spec, prepared, outcome)
    for name, text in prepared.files.items():
        write_atomic(rundir / name, text)
    outcome.argv = prepared.argv
    partial = rundir / (TRANSCRIPT + ".partial")
    try:
        with open(rundir / STDERR, "w", encoding="utf-8") as errors, open(partial, "wb") as transcript:
            try:
                process = subprocess.Popen(
                    prepared.argv, cwd=rundir / "workspace", env=prepared.env, stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=errors,
                    start_new_session=True,
                )
            except OSError as exc:
                transcript.close()
                partial.unlink()  # nothing ran: no transcript
                raise Refused(f"cannot start {prepared.argv[0]}: {exc.strerror or exc}") from None
            outcome.halt = lambda: threading.Thread(target=_stop, args=(process, 0), daemon=True).start()
            def time_out() -> None:
                outcome.timed_out.set()
                _stop(process, grace=0)

            timer = threading.Timer(spec.timeout, time_out) if spec.timeout else None
            if timer is not None:
                timer.daemon = True
                timer.start()
            try:
                _drive(harness, process, prepared, prompt, transcript, events, spec, outcome)
            finally:
                if timer is not None:
                    timer.cancel()
                _stop(process)
                process.stdout.close()  # type: ignore[union-attr]
                outcome.exit_status = process.returncode
                if outcome.refusal is None and outcome.timed_out.is_set():
                    outcome.stopped = f"stopped by --timeout after {spec.timeout:g} s"
                elif outcome.refusal is None and process.returncode:
                    outcome.stopped = f"the harness exited with status {process.returncode}"
    finally:
        if partial.exists():
            os.replace(partial, rundir / TRANSCRIPT)


def _drive(harness: Harness, process: subprocess.Popen, prepared: Prepared, prompt: str, transcript: Any,
           events: Path, spec: RunSpec, outcome: _Outcome) -> None:
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
            _stop(process)

    waiting = threading.Timer(spec.init_timeout, no_init)
    waiting.daemon = True
    waiting.start()
    try:
        _read(harness, process, prepared, transcript, events, spec, outcome, seen, silent)
    finally:
        waiting.cancel()


def _read(harness: Harness, process: subprocess.Popen, prepared: Prepared, transcript: Any, events: Path,
          spec: RunSpec, outcome: _Outcome, seen: threading.Event, silent: threading.Event) -> None:
    """The stream, line by line, until it ends or a check stops it; *seen* is set at the init event."""
    assert process.stdout is not None
    checked = False
    before = 0  # events before the init event
    number = 0
    # Bytes, split on b"\n" only: the transcript is the stream as it came (a JSON string may hold U+2028).
    while True:
        raw = process.stdout.readline(spec.max_line + 1)
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
            event = json.loads(raw.decode("utf-8"))
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


def _loop(spec: RunSpec, lock: Lock, rundir: Path, prompt: str, outcome: _Outcome) -> None:
    import anyio

    from anachron.launch.loop import Conversation, Endpoint, converse, transcript_text

    base = endpoint_of(spec)
    # Through the model gateway, which forwards to *base* (the argv recorded names *base*).
    endpoint = Endpoint(outcome.gateway.url if outcome.gateway is not None else base, os.environ.get("OPENAI_API_KEY") or None)
    events = rundir / EVENTS
    command = lock.command(events)
    outcome.argv = ["anachron-loop", spec.harness, "--base-url", base, "--model", spec.model]
    conversation = Conversation()
    env = child_env({"PYTHONPATH": package_path()})
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


def _start_gateway(spec: RunSpec, rundir: Path, outcome: _Outcome) -> None:
    from anachron.launch.gateway import Gateway, upstream_of

    # The upstream is read from our environment before the harness's is pointed at the gateway.
    upstream = upstream_of(spec.harness, base_url=endpoint_of(spec) if spec.harness in LOOPS else None)

    def refused(verdict: str) -> None:
        outcome.refusal = verdict
        if outcome.halt is not None:
            outcome.halt()

    outcome.gateway = Gateway(spec.harness, upstream, rundir, on_refusal=refused).start()


def _point_at_gateway(spec: RunSpec, prepared: Prepared, outcome: _Outcome) -> None:
    from anachron.launch.gateway import wiring

    if outcome.gateway is not None:
        env, args = wiring(spec.harness, outcome.gateway.url)
        prepared.env.update(env)
        if args:  # codex: its provider's -c overrides, before the last argument ("-": the prompt from stdin)
            prepared.argv[-1:-1] = args


def _close_gateway(outcome: _Outcome) -> None:
    if outcome.gateway is not None:
        outcome.gateway.close()
        if outcome.gateway.verdict is not None:
            outcome.refusal = outcome.gateway.verdict  # what stopped the run, whatever the harness said after


# --- end of the model gateway's wiring ---


def endpoint_of(spec: RunSpec) -> str:
    """The loop's base URL (``--base-url``, else ``$OPENAI_BASE_URL``); an error without one or a model."""
    base = spec.base_url or os.environ.get("OPENAI_BASE_URL")
    if not base:
        raise AnachronError(f"anachron run {spec.harness}: give --base-url URL or set OPENAI_BASE_URL")
    if spec.model is None:
        raise AnachronError(f"anachron run {spec.harness}: give --model NAME")
    return base


def _audit(spec: RunSpec, harness: Harness | None, rundir: Path, log_format: str) -> dict[str, Any]:
    """The seal audit of the transcript: the generated configuration's tools, with the lock's log."""
    from anachron.core.seal import Declaration, audit, run_status
    from anachron.core.trace import iter_traces
    from anachron.importers import Options, import_logs, seal_declaration
    from anachron.store import load_corpus  # a directory, an index file or a postgresql:// URL, as --corpus names it
    from anachron.timelock.events import load_events
    from anachron.timelock.run_trace import lock_run

    names = set(sealed_tools(harness))
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
        declaration = Declaration(names, lock_as_of, locks=locks)
        corpus = load_corpus(spec.corpus)
        options = Options(as_of=spec.as_of, scoring_corpus=corpus)
        for trace in iter_traces(import_logs(log_format, [str(rundir / TRANSCRIPT)], options), corpus):
            samples += 1
            found = audit(trace.interactions, declaration, trace.as_of)
            statuses.add(found.status if found is not None else None)
            calls += len(trace.interactions)
            breaches += [line for lines in (found.breaches if found is not None else ()) for line in lines]
    except (AnachronError, OSError) as exc:
        return {"status": "cannot tell", "reason": f"the run could not be audited: {exc}", "sealed_tools": sorted(names)}
    status = run_status(statuses, calls) if samples else "no verdict"
    return {"status": status, "samples": samples, "calls": calls, "breaches": breaches, "sealed_tools": sorted(names)}


def sealed_tools(harness: Harness | None) -> list[str]:
    """The lock's tools by every name the run's log may give them: ``mcp__lock__*`` and the harness's own."""
    return sorted({f"mcp__{SERVER}__{tool}" for tool in TOOLS} | set(harness.lock_names if harness is not None else ()))


def launch(spec: RunSpec, warn: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run *spec*; the manifest written to ``run.json``.  Raises :class:`Refused` (after writing the
    manifest) when the run is refused, :class:`AnachronError` on bad input (before any file)."""
    if spec.harness not in HARNESSES and spec.harness not in LOOPS:
        raise AnachronError(f"unknown harness {spec.harness!r}: choose one of {', '.join((*HARNESSES, *LOOPS))}")
    try:
        prompt = spec.prompt.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AnachronError(f"--prompt {spec.prompt}: cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
    if spec.harness in LOOPS:
        endpoint_of(spec)
    fingerprint = corpus_fingerprint(spec.corpus)
    corpus = str(Path(spec.corpus).resolve()) if spec.corpus is not None and "://" not in spec.corpus else spec.corpus
    lock = Lock(spec.lock_as_of or spec.as_of, corpus, spec.budget, spec.k)
    rundir = _run_dir(spec.out)
    write_atomic(rundir / CONFIG, lock_config_text(lock, rundir / EVENTS))
    outcome = _Outcome()
    outcome.checks = _static_checks(spec, lock)
    harness: Harness | None = None
    started = _now()
    if all(check.passed for check in outcome.checks):
        try:
            _start_gateway(spec, rundir, outcome)
            if spec.harness in HARNESSES:
                cls = HARNESSES[spec.harness]
                executable = spec.executable or cls.executable
                harness = ClaudeCode(*ClaudeCode.probe(executable)) if cls is ClaudeCode else cls()
                harness.executable = executable
                outcome.version = version_of(executable)
                _cli(spec, harness, lock, rundir, prompt, outcome)
            else:
                outcome.version = f"anachron {__version__}"
                _loop(spec, lock, rundir, prompt, outcome)
        except AnachronError as exc:  # the run failed part way (a harness that would not start, a broken endpoint)
            outcome.refusal = outcome.refusal or str(exc)
        finally:
            _close_gateway(outcome)
    else:
        outcome.refusal = f"preflight: {next(c for c in outcome.checks if not c.passed).detail}"
    log_format = harness.log_format if harness is not None else {"responses": "openai-responses", "chat": "openai-chat"}.get(spec.harness, spec.harness)
    ran = (rundir / TRANSCRIPT).exists()
    lock_started = (rundir / EVENTS).exists()
    if ran and not lock_started:
        # The lock never ran, so it logged no call: an empty log says so to the audit (and to
        # `anachron score RUNDIR`), and every call the transcript shows of it is a breach.
        write_atomic(rundir / EVENTS, "")
    seal = _audit(spec, harness, rundir, log_format) if ran and outcome.refusal is None else None
    # Passed: every check passed, and the harness's own checks ran (a harness that never started has none).
    passed = all(check.passed for check in outcome.checks) and len(outcome.checks) > 1 \
        and not (outcome.refusal or "").startswith("preflight:")
    manifest = {
        "anachron": __version__,
        "harness": spec.harness,
        "version": outcome.version,
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
        "lock_started": lock_started,
        "turns": outcome.turns,
        "stopped": outcome.stopped,
        "preflight": {"passed": passed, "checks": [check.to_dict() for check in outcome.checks],
                      "reason": None if passed else outcome.refusal},
        "refused": outcome.refusal,
        "date_in_context": DATE_LEAKS[spec.harness],
        "environment": {"TZ": "UTC"},
        "files": {"transcript": TRANSCRIPT if ran else None, "transcript_format": log_format,
                  "lock_events": EVENTS if (rundir / EVENTS).exists() else None, "mcp_config": CONFIG,
                  "stderr": STDERR if (rundir / STDERR).exists() else None},
        "sealed_tools": sealed_tools(harness),
        "seal": seal,
        "gateway": outcome.gateway.record() if outcome.gateway is not None else None,
    }
    manifest = write_run(rundir, manifest)  # with its format, checked as `anachron score RUNDIR` reads it
    if outcome.refusal is not None:
        raise Refused(outcome.refusal)
    return manifest
