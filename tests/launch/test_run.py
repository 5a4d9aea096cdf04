"""``anachron run``: sealed launchers, their fail-closed preflight, the call guard and the seal audit.

No key, no network: the harness executables are stubs put first on PATH
(tests/launch_stub.py) that record their argv and replay the event streams
of tests/data/launch/ (hand-written from the published shapes, docs/run-rules.md);
the responses and chat loops talk to the loopback stub model of
examples/stub_model.py.  The runs whose stub really calls the lock (the
sealed ones, and every loop run) need the mcp extra, as `anachron serve` does.
"""

from __future__ import annotations

import datetime as _dt
import importlib.util
import json
import os
import shutil
import tempfile
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from unittest import mock

from tests.launch_stub import install
from tests.support import ROOT, run_cli

DATA = ROOT / "tests" / "data" / "launch"
T = "2023-01-01"


def _stub_model():
    spec = importlib.util.spec_from_file_location("stub_model", ROOT / "examples" / "stub_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class LaunchCase(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp, True)
        bin_dir = install(self.tmp / "bin")
        self.log = self.tmp / "stub.jsonl"
        self.prompt = self.tmp / "prompt.txt"
        self.prompt.write_text("Will Aster Logistics beat its guidance? Answer with a probability.\n", encoding="utf-8")
        self.env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "STUB_LOG": str(self.log)}
        self.runs = 0

    def launch(self, harness: str, script: str | None = None, *extra: str, env: dict | None = None):
        """(status, stdout, stderr, run directory) of ``anachron run HARNESS`` replaying *script*."""
        self.runs += 1
        out = self.tmp / f"run{self.runs}"
        variables = dict(self.env, **(env or {}))
        if script is not None:
            variables["STUB_SCRIPT"] = str(DATA / script)
        with mock.patch.dict(os.environ, variables):
            status, stdout, stderr = run_cli("run", harness, "--as-of", T, "--prompt", str(self.prompt),
                                             "--out", str(out), "--startup-timeout", "2", *extra)
        return status, stdout, stderr, out

    def manifest(self, out: Path) -> dict:
        return json.loads((out / "run.json").read_text(encoding="utf-8"))

    def stub_calls(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").split("\n") if line]

    def assertRefused(self, result, fragment: str) -> dict:
        status, stdout, stderr, out = result
        self.assertEqual(status, 2, stderr)
        self.assertEqual(stdout, "")
        self.assertEqual(len(stderr.strip().split("\n")), 1, stderr)
        self.assertIn(fragment, stderr)
        manifest = self.manifest(out)
        self.assertEqual(manifest["refused"], stderr.strip().removeprefix("anachron: "))
        self.assertIsNone(manifest["seal"])
        return manifest


class ClaudeCodePreflight(LaunchCase):
    """Each refusal of the Claude Code preflight, read from its stream-json system/init."""

    def test_websearch_in_init_is_refused(self):
        manifest = self.assertRefused(self.launch("claude-code", "claude_websearch.jsonl", env={"STUB_START_LOCK": "0"}),
                                      "WebSearch (web)")
        self.assertFalse(manifest["preflight"]["passed"])
        reason = manifest["preflight"]["reason"]
        for tool in ("Bash (shell)", "WebFetch (web)", "Task (not the lock's)"):
            self.assertIn(tool, reason)

    def test_no_mcp_servers_is_refused(self):
        # anthropics/claude-code#73885: an entry dropped silently shows only as mcp_servers: [].
        self.assertRefused(self.launch("claude-code", "claude_no_servers.jsonl", env={"STUB_START_LOCK": "0"}),
                           "the lock is not among the MCP servers (mcp_servers: [])")

    def test_lock_status_not_connected_is_refused(self):
        self.assertRefused(self.launch("claude-code", "claude_lock_failed.jsonl", env={"STUB_START_LOCK": "0"}),
                           "the lock's status is 'failed', not 'connected'")

    def test_a_call_before_the_init_is_refused(self):
        self.assertRefused(self.launch("claude-code", "claude_call_first.jsonl", env={"STUB_START_LOCK": "0"}),
                           "the harness sent 'assistant' before its init event")

    def test_no_output_at_all_is_refused(self):
        empty = self.tmp / "empty.jsonl"
        empty.write_text("", encoding="utf-8")
        result = self.launch("claude-code", None, env={"STUB_SCRIPT": str(empty), "STUB_START_LOCK": "0"})
        self.assertRefused(result, "without an init event")

    def test_a_silent_harness_is_stopped_and_refused(self):
        self.assertRefused(self.launch("claude-code", "silent.jsonl", "--init-timeout", "1", env={"STUB_START_LOCK": "0"}),
                           "no init event within 1 s")

    def test_lock_as_of_after_t_is_refused_before_anything_starts(self):
        manifest = self.assertRefused(self.launch("claude-code", "claude_sealed.jsonl", "--lock-as-of", "2023-01-02"),
                                      "lock --as-of 2023-01-02, T 2023-01-01")
        self.assertEqual(self.stub_calls(), [])  # the harness never ran
        self.assertEqual(manifest["lock"]["as_of"], "2023-01-02")

    def test_lock_as_of_on_t_is_not_refused_for_it(self):
        status, _, stderr, out = self.launch("claude-code", "claude_websearch.jsonl", "--lock-as-of", T,
                                             env={"STUB_START_LOCK": "0"})
        checks = {c["check"]: c["passed"] for c in self.manifest(out)["preflight"]["checks"]}
        self.assertTrue(checks["lock as-of on or before T"])
        self.assertIn("WebSearch", stderr)  # refused for its tools, not its date

    def test_lock_connected_without_its_tools_is_refused(self):
        script = self.tmp / "no_tools.jsonl"
        init = json.loads((DATA / "claude_sealed.jsonl").read_text(encoding="utf-8").split("\n")[0])
        script.write_text(json.dumps({**init, "tools": ["mcp__lock__search"]}) + "\n", encoding="utf-8")
        self.assertRefused(self.launch("claude-code", None, env={"STUB_SCRIPT": str(script), "STUB_START_LOCK": "0"}),
                           "missing from tools: mcp__lock__fetch")

    def test_missing_executable_is_one_line_with_its_install_command(self):
        empty = self.tmp / "empty-bin"
        empty.mkdir()
        cases = {"claude-code": "claude not found on PATH; install it with npm install -g @anthropic-ai/claude-code",
                 "codex": "codex not found on PATH; install it with npm install -g @openai/codex",
                 "gemini-cli": "gemini not found on PATH; install it with npm install -g @google/gemini-cli"}
        for harness, line in cases.items():
            with self.subTest(harness):
                status, stdout, stderr, out = self.launch(harness, "claude_sealed.jsonl", env={"PATH": str(empty)})
                self.assertEqual((status, stdout, stderr), (2, "", f"anachron: {line}\n"))
                self.assertFalse(out.exists())  # refused before anything is written
        status, _, stderr, out = self.launch("claude-code", "claude_sealed.jsonl", "--executable", str(self.tmp / "nope"))
        self.assertEqual((status, stderr), (2, f"anachron: --executable {self.tmp / 'nope'}: not found; "
                                               "install it with npm install -g @anthropic-ai/claude-code\n"))
        self.assertEqual(self.stub_calls(), [])

    def test_the_cli_version_is_recorded_and_an_untested_major_warned(self):
        status, _, stderr, out = self.launch("codex", "codex_sealed.jsonl", env={"STUB_START_LOCK": "0"})
        manifest = self.manifest(out)
        self.assertEqual((manifest["cli_version"], manifest["warnings"]), ("codex-cli 0.46.0", []))
        self.assertNotIn("warning", stderr)
        for version, warning in (("codex-cli 1.0.2", "codex 1.0 is an untested major version (tested: 0.x)"),
                                 ("nightly", "codex: cannot tell its version from --version ('nightly'); tested: 0.x")):
            with self.subTest(version):
                _, _, stderr, out = self.launch("codex", "codex_sealed.jsonl", env={"STUB_START_LOCK": "0", "STUB_VERSION": version})
                manifest = self.manifest(out)
                self.assertEqual(manifest["cli_version"], version)
                self.assertEqual(len(manifest["warnings"]), 1)
                self.assertIn(warning, manifest["warnings"][0])
                self.assertIn(f"warning: {manifest['warnings'][0]}\n", stderr)

    def test_every_cli_harness_has_a_tested_version_and_a_package(self):
        from anachron.launch.harnesses import HARNESSES, TESTED

        self.assertEqual(set(TESTED), set(HARNESSES))
        for name, cls in HARNESSES.items():
            self.assertTrue(cls.package.startswith("@"), name)

    def test_guard_stops_a_call_outside_the_lock(self):
        manifest = self.assertRefused(self.launch("claude-code", "claude_guard.jsonl", env={"STUB_START_LOCK": "0"}),
                                      "guard: the harness called 'WebSearch', outside the lock")
        self.assertTrue(manifest["preflight"]["passed"])
        # The transcript holds the stream up to the call, for the record.
        self.assertIn("WebSearch", (self.tmp / "run1" / "transcript.jsonl").read_text(encoding="utf-8"))


class ClaudeCodeFlags(LaunchCase):
    def flags(self, env: dict | None = None) -> tuple[list[str], Path]:
        self.launch("claude-code", "claude_no_servers.jsonl", env={"STUB_START_LOCK": "0", **(env or {})})
        calls = self.stub_calls()
        self.assertEqual(len(calls), 1)
        return calls[0]["argv"], self.tmp / "run1"

    def test_flags_remove_every_builtin_and_allow_only_the_lock(self):
        argv, out = self.flags()
        self.assertEqual(argv[:5], ["-p", "--output-format", "stream-json", "--verbose", "--strict-mcp-config"])
        self.assertEqual(argv[argv.index("--mcp-config") + 1], str(out.resolve() / "harness-mcp.json"))
        self.assertEqual(argv[argv.index("--tools") + 1], "")
        disallowed = argv[argv.index("--disallowedTools") + 1].split(",")
        for tool in ("ToolSearch", "WebSearch", "WebFetch", "Bash", "Task"):
            self.assertIn(tool, disallowed)
        self.assertEqual(argv[argv.index("--allowedTools") + 1], "mcp__lock__search,mcp__lock__fetch")
        self.assertEqual(self.stub_calls()[0]["stdin"], self.prompt.read_text(encoding="utf-8"))
        self.assertEqual(self.stub_calls()[0]["env"]["TZ"], "UTC")
        # Claude Code 2.x defers MCP tools behind ToolSearch, which the flags remove: tool search is off.
        self.assertEqual(self.stub_calls()[0]["env"]["ENABLE_TOOL_SEARCH"], "false")
        self.assertEqual(argv[argv.index("--settings") + 1], str(out.resolve() / "claude-settings.json"))
        self.assertEqual(json.loads((out / "claude-settings.json").read_text(encoding="utf-8")), {"disableAllHooks": True})
        self.assertEqual(Path(self.stub_calls()[0]["cwd"]), out.resolve() / "workspace")

    def test_without_the_tools_flag_the_disallowed_list_stands_alone(self):
        argv, _ = self.flags({"STUB_HELP_TOOLS": "0"})
        self.assertNotIn("--tools", argv)
        self.assertNotIn("--settings", argv)  # a flag the version does not list is never given
        self.assertIn("WebSearch", argv[argv.index("--disallowedTools") + 1].split(","))

    def test_config_entry_has_an_explicit_type_and_seals_the_lock(self):
        from anachron.importers import seal_declaration

        _, out = self.flags()
        config = json.loads((out / "mcp.json").read_text(encoding="utf-8"))
        entry = config["mcpServers"]["lock"]
        self.assertEqual(entry["type"], "stdio")
        self.assertIn("enforced", entry["args"])
        declared, notes = seal_declaration(out / "mcp.json")
        self.assertEqual(set(declared), {"mcp__lock__search", "mcp__lock__fetch"})
        self.assertEqual(set(declared.lock_as_of.values()), {_dt.date(2023, 1, 1)})
        self.assertEqual(notes, ())

    def test_the_harness_is_told_no_path_of_the_locks_log(self):
        # Its configuration names the relay to the launcher's lock: no --events, nothing in the run directory.
        argv, out = self.flags()
        given = (out / "harness-mcp.json").read_text(encoding="utf-8")
        entry = json.loads(given)["mcpServers"]["lock"]
        self.assertEqual(entry["args"][:2], ["-m", "anachron.launch.relay"])
        self.assertNotIn("--events", given)
        self.assertNotIn(str(out.resolve()), given)
        self.assertFalse(any("lock-events" in arg for arg in argv))

    def test_manifest_records_the_run(self):
        _, out = self.flags()
        manifest = self.manifest(out)
        self.assertEqual(manifest["harness"], "claude-code")
        self.assertEqual(manifest["version"], "2.1.0")  # from the init event, over --version
        self.assertEqual(manifest["as_of"], T)
        self.assertEqual(manifest["argv"][0], "claude")
        self.assertEqual(len(manifest["corpus"]["sha256"]), 64)
        self.assertIsNone(manifest["corpus"]["spec"])  # the bundled corpus
        self.assertIn("<env>", manifest["date_in_context"])


class OtherHarnessPreflight(LaunchCase):
    """Codex and Gemini CLI list no tools in their first event: the lock's start-up and the flags are checked."""

    def test_codex_flags(self):
        self.launch("codex", "codex_shell.jsonl", env={"STUB_START_LOCK": "0"})
        argv = self.stub_calls()[0]["argv"]
        self.assertEqual(argv[:2], ["exec", "--json"])
        overrides = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-c"]
        for needed in ('web_search="disabled"', "features.shell_tool=false",
                       'mcp_servers.lock.default_tools_approval_mode="approve"'):
            self.assertIn(needed, overrides)
        self.assertEqual(argv[-1], "-")

    def test_codex_lock_never_started_is_refused(self):
        self.assertRefused(self.launch("codex", "codex_sealed.jsonl", env={"STUB_START_LOCK": "0"}),
                           "the lock never started: no event log after 2 s")

    def test_gemini_lock_never_started_is_refused(self):
        self.assertRefused(self.launch("gemini-cli", "gemini_sealed.jsonl", env={"STUB_START_LOCK": "0"}),
                           "the lock never started")

    def test_gemini_settings_exclude_every_core_tool(self):
        self.launch("gemini-cli", "gemini_websearch.jsonl", env={"STUB_START_LOCK": "0"})
        call = self.stub_calls()[0]
        self.assertEqual(call["argv"][call["argv"].index("--allowed-mcp-server-names") + 1], "lock")
        settings = json.loads(Path(call["env"]["GEMINI_CLI_SYSTEM_SETTINGS_PATH"]).read_text(encoding="utf-8"))
        self.assertEqual(settings["tools"]["core"], [])
        for tool in ("run_shell_command", "google_web_search", "web_fetch"):
            self.assertIn(tool, settings["tools"]["exclude"])
        self.assertTrue(settings["mcpServers"]["lock"]["trust"])


class Unlogged(LaunchCase):
    def test_a_lock_call_the_lock_never_logged_is_a_breach(self):
        # The stream claims a lock search, but no lock ran: only the lock's own log proves the seal.
        status, stdout, stderr, out = self.launch("claude-code", "claude_unlogged.jsonl", env={"STUB_START_LOCK": "0"})
        self.assertEqual(status, 0, stderr)
        seal = self.manifest(out)["seal"]
        self.assertEqual(seal["status"], "breached")
        self.assertEqual(seal["breaches"], ["call to 'mcp__lock__search' is not in the lock's log"])


    def test_score_rundir(self):
        _, _, _, out = self.launch("claude-code", "claude_unlogged.jsonl", env={"STUB_START_LOCK": "0"})
        status, stdout, stderr = run_cli("score", str(out), "--format", "json")
        self.assertEqual(status, 0, stderr)
        summary = json.loads(stdout)["summary"]
        self.assertEqual((summary["seal_status"], summary["seal_breaches"]), ("breached", 1))
        status, _, stderr = run_cli("score", str(out), "--from", "claude-code")
        self.assertEqual(status, 2)
        self.assertIn("a run directory names its own --from", stderr)

    def test_score_of_a_refused_run_is_an_error(self):
        _, _, _, out = self.launch("claude-code", "claude_no_servers.jsonl", "--lock-as-of", "2023-06-01")
        status, stdout, stderr = run_cli("score", str(out))
        self.assertEqual((status, stdout), (2, ""))
        self.assertIn("the run was refused", stderr)

    def test_score_of_a_run_stopped_with_a_transcript_is_an_error_too(self):
        # Stopped by a later init listing WebSearch: its one lock call would pair, yet the run proves no seal.
        lines = (DATA / "claude_unlogged.jsonl").read_text(encoding="utf-8").split("\n")
        init = json.loads(lines[0])
        script = self.tmp / "later.jsonl"
        script.write_text("\n".join([*lines[:3], json.dumps({**init, "tools": [*init["tools"], "WebSearch"]}), *lines[3:]]),
                          encoding="utf-8")
        _, _, _, out = self.launch("claude-code", None, env={"STUB_SCRIPT": str(script), "STUB_START_LOCK": "0"})
        self.assertTrue((out / "transcript.jsonl").is_file())
        status, stdout, stderr = run_cli("score", str(out))
        self.assertEqual((status, stdout), (2, ""))
        self.assertIn("the run was refused (guard: a later init event (line 4)", stderr)
        self.assertIn(f"its transcript is {out / 'transcript.jsonl'}", stderr)


def _forged_log(as_of: str = T) -> str:
    """A lock log as a forger writes it: a start record and one call matching claude_unlogged.jsonl's search."""
    run = "f" * 32
    start = {"event": "start", "format": "anachron-events/2", "run": run, "time": "2026-01-01T00:00:00.000Z", "as_of": as_of,
             "mode": "enforced", "backend": "corpus", "source": "bundled", "k": 5, "allow_undated": False,
             "limits": {"searches": None, "fetches": None, "calls": None}, "date_presentation": "visible", "server": "lock"}
    call = {"event": "call", "run": run, "seq": 1, "time": "2026-01-01T00:00:01.000Z", "tool": "search",
            "arguments": {"query": "Aster Logistics revenue"}, "status": "ok", "error": None,
            "returned": [{"id": "fin-002", "title": "t", "published": "2021-04-28"}], "withheld": [], "withheld_count": 0, "budget": {}}
    return json.dumps(start) + "\n" + json.dumps(call) + "\n"


class PinnedProof(LaunchCase):
    """The lock's log is out of the harness's reach and pinned; score RUNDIR checks the files against run.json."""

    def unlogged(self) -> Path:
        # A run whose one lock call the lock never logged (no lock started): breached, an empty log pinned.
        status, _, stderr, out = self.launch("claude-code", "claude_unlogged.jsonl", env={"STUB_START_LOCK": "0"})
        self.assertEqual(status, 0, stderr)
        self.assertEqual(self.manifest(out)["seal"]["status"], "breached")
        return out

    def score(self, out: Path) -> tuple[dict, list[str]]:
        status, stdout, stderr = run_cli("score", str(out), "--format", "json")
        self.assertEqual(status, 0, stderr)
        sample = json.loads(stdout)["samples"][0]
        return sample, [line for line in sample["evidence"] if line.startswith("#0 seal: ")]

    def test_a_log_the_harness_forges_in_its_reach_is_not_the_locks(self):
        # The stand-in never starts the lock, claims it connected, and writes a log that pairs its call.
        lines = (DATA / "claude_unlogged.jsonl").read_text(encoding="utf-8").split("\n")
        script = self.tmp / "forge.jsonl"
        script.write_text("\n".join([lines[0], json.dumps({"$events": _forged_log()}), *lines[1:]]), encoding="utf-8")
        status, stdout, stderr, out = self.launch("claude-code", None, env={"STUB_SCRIPT": str(script), "STUB_START_LOCK": "0"})
        self.assertEqual(status, 0, stderr)
        manifest = self.manifest(out)
        self.assertFalse(manifest["lock_started"])
        self.assertEqual(manifest["seal"]["status"], "breached")
        self.assertEqual(manifest["lock_log"]["records"], 0)
        self.assertEqual((out / "lock-events.jsonl").read_bytes(), b"")  # the forgery was replaced by the lock's (empty) log
        sample, proof = self.score(out)
        self.assertEqual((sample["seal_status"], proof), ("breached", []))

    def test_the_pinned_chain_and_digests_are_recorded(self):
        from anachron.timelock.events import log_chain

        out = self.unlogged()
        manifest = self.manifest(out)
        self.assertEqual(manifest["lock_log"], log_chain(b"").to_dict())
        self.assertEqual(set(manifest["digests"]), {"transcript.jsonl", "mcp.json"})
        _, proof = self.score(out)
        self.assertEqual(proof, [])  # untouched: the proof stands

    def test_a_record_appended_after_the_run_breaches_even_when_it_pairs_the_call(self):
        out = self.unlogged()
        with open(out / "lock-events.jsonl", "a", encoding="utf-8") as log:
            log.write(_forged_log())
        sample, proof = self.score(out)
        self.assertEqual(sample["seal_status"], "breached")
        self.assertEqual(proof, [
            "#0 seal: the lock's log lock-events.jsonl holds 2 complete records; run.json pinned 0",
            "#0 seal: the files give the seal 'sealed'; run.json recorded 'breached'",
        ])

    def test_an_edited_removed_or_torn_record_breaches(self):
        from anachron.importers.run_dir import proof_differences, read_run

        out = self.unlogged()
        log = out / "lock-events.jsonl"
        manifest = self.manifest(out)
        forged = _forged_log()
        # Re-pin a two-record log, as if the launcher had copied it, then edit it each way.
        from anachron.timelock.events import log_chain

        manifest["lock_log"] = log_chain(forged.encode()).to_dict()
        (out / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
        cases = {
            "edited": (forged.replace("fin-002", "fin-005"), "differs from the one run.json pinned (its digest chain ends "),
            "removed": (forged.split("\n")[0] + "\n", "holds 1 complete records; run.json pinned 2"),
            "torn": (forged + '{"event": "call"', "ends in a torn line (line 3 has no newline)"),
        }
        for case, (text, fragment) in cases.items():
            with self.subTest(case):
                log.write_text(text, encoding="utf-8")
                lines = proof_differences(read_run(out))
                self.assertEqual(len(lines), 1 if case != "torn" else 2, lines)
                self.assertIn(fragment, lines[0])
                _, proof = self.score(out)
                self.assertIn(f"#0 seal: {lines[0]}", proof)
        log.write_text(forged, encoding="utf-8")
        self.assertEqual(proof_differences(read_run(out)), [])

    def test_an_edited_transcript_or_verdict_breaches(self):
        out = self.unlogged()
        manifest = self.manifest(out)
        manifest["seal"]["status"] = "sealed"
        (out / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
        sample, proof = self.score(out)
        self.assertEqual(proof, ["#0 seal: the files give the seal 'breached'; run.json recorded 'sealed'"])
        transcript = out / "transcript.jsonl"
        transcript.write_bytes(transcript.read_bytes() + b"\n")
        _, proof = self.score(out)
        self.assertIn("#0 seal: transcript.jsonl differs from the one run.json pinned", proof[0])

    def test_a_run_json_without_the_chain_is_refused(self):
        out = self.unlogged()
        manifest = self.manifest(out)
        del manifest["lock_log"]
        (out / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
        status, stdout, stderr = run_cli("score", str(out))
        self.assertEqual((status, stdout), (2, ""))
        self.assertEqual(len(stderr.strip().split("\n")), 1, stderr)
        self.assertIn("lock_log", stderr)


class GuardShapes(LaunchCase):
    """Shapes of a stream line that once passed the guard: an MCP connector block, a key given twice."""

    RESULT = {"type": "result", "subtype": "success", "is_error": False, "result": "Probability: 0.6", "session_id": "stub-session"}

    def run_lines(self, *lines: str):
        path = self.tmp / f"shapes{self.runs + 1}.jsonl"
        path.write_text("".join(json.dumps({"$raw": line}) + "\n" for line in lines), encoding="utf-8")
        return self.launch("claude-code", None, env={"STUB_SCRIPT": str(path), "STUB_START_LOCK": "0"})

    def test_an_mcp_tool_use_block_of_another_server_stops_the_run(self):
        block = {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "search", "server_name": "web", "input": {"q": "x"}}
        self.assertRefused(self.run_lines(json.dumps(INIT) + "\n", json.dumps(_assistant(block)) + "\n"),
                           "guard: the harness called 'mcp__web__search', outside the lock")

    def test_the_calls_of_an_mcp_tool_use_block_are_named_by_server_and_tool(self):
        from anachron.launch.harnesses import ClaudeCode, guard_breach

        harness = ClaudeCode()
        lock = {"type": "mcp_tool_use", "id": "m1", "name": "fetch", "server_name": "lock", "input": {}}
        other = {**lock, "server_name": "lockx"}
        self.assertEqual(harness.calls(_assistant(lock)), ["mcp__lock__fetch"])
        self.assertIsNone(guard_breach(harness, harness.calls(_assistant(lock))))
        self.assertEqual(guard_breach(harness, harness.calls(_assistant(lock, other))), "mcp__lockx__fetch")

    def test_a_key_given_twice_stops_the_run_wherever_it_is(self):
        hidden = ('{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1",'
                  '"name":"WebSearch","name":"mcp__lock__search","input":{"query":"q"}}]}}\n')
        manifest = self.assertRefused(self.run_lines(json.dumps(INIT) + "\n", hidden),
                                      "guard: line 2 of the harness's stream names the key 'name' twice in one object")
        self.assertTrue(manifest["preflight"]["passed"])
        outer = '{"type":"result","type":"assistant","message":{"content":[]}}\n'
        manifest = self.assertRefused(self.run_lines(outer, json.dumps(INIT) + "\n"),
                                      "preflight: line 1 of the harness's stream names the key 'type' twice")
        self.assertFalse(manifest["preflight"]["passed"])

    def test_a_line_without_a_repeated_key_is_read_as_before(self):
        from anachron.launch.harnesses import DuplicateKey, read_event

        self.assertEqual(read_event('{"a": {"b": 1}, "c": [{"b": 2}, {"b": 3}]}'), {"a": {"b": 1}, "c": [{"b": 2}, {"b": 3}]})
        with self.assertRaises(DuplicateKey):
            read_event('{"a": [{"b": 1, "b": 2}]}')
        status, _, stderr, out = self.run_lines(json.dumps(INIT) + "\n", json.dumps(self.RESULT) + "\n")
        self.assertEqual(status, 0, stderr)


class BadInput(LaunchCase):
    def test_non_empty_out_is_refused_before_anything(self):
        out = self.tmp / "full"
        out.mkdir()
        (out / "x").write_text("", encoding="utf-8")
        with mock.patch.dict(os.environ, self.env):
            status, _, stderr = run_cli("run", "claude-code", "--as-of", T, "--prompt", str(self.prompt), "--out", str(out))
        self.assertEqual(status, 2)
        self.assertIn("not an empty directory", stderr)
        self.assertEqual(self.stub_calls(), [])

    def test_a_prompt_over_one_mib_is_refused_before_anything(self):
        from anachron.launch.runner import MAX_PROMPT

        cases = {"at the bound": (b"x" * MAX_PROMPT, None), "one byte over": (b"x" * (MAX_PROMPT + 1), "over 1048576 bytes (1 MiB)"),
                 "endless": (None, "over 1048576 bytes (1 MiB)"), "not UTF-8": (b"\xff\xfe", "cannot read it")}
        for case, (data, refusal) in cases.items():
            with self.subTest(case):
                prompt = Path("/dev/zero") if data is None else self.tmp / f"{case}.txt"
                if data is not None:
                    prompt.write_bytes(data)
                out = self.tmp / f"out-{case}"
                with mock.patch.dict(os.environ, dict(self.env, STUB_SCRIPT=str(DATA / "claude_no_servers.jsonl"), STUB_START_LOCK="0")):
                    status, stdout, stderr = run_cli("run", "claude-code", "--as-of", T, "--prompt", str(prompt), "--out", str(out))
                if refusal is None:
                    self.assertTrue((out / "run.json").is_file(), stderr)  # read whole: the run went on (to its preflight)
                    continue
                self.assertEqual((status, stdout), (2, ""))
                self.assertEqual(len(stderr.strip().split("\n")), 1, stderr)
                self.assertTrue(stderr.startswith(f"anachron: --prompt {prompt}: "), stderr)
                self.assertIn(refusal, stderr)
                self.assertFalse(out.exists())  # nothing written

    def test_responses_needs_an_endpoint(self):
        with mock.patch.dict(os.environ, {"OPENAI_BASE_URL": ""}):
            status, _, stderr, _ = self.launch("responses", None, "--model", "m")
        self.assertEqual(status, 2)
        self.assertIn("give --base-url URL or set OPENAI_BASE_URL", stderr)


class Http(unittest.TestCase):
    """The loop's HTTP: every failure is one line naming the URL."""

    def serve(self, status: int, body: bytes) -> str:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return f"http://127.0.0.1:{server.server_address[1]}/v1"

    def post(self, base: str):
        from anachron.core.errors import AnachronError
        from anachron.launch.loop import Endpoint

        with self.assertRaises(AnachronError) as caught:
            Endpoint(base, "k", timeout=5).post("/responses", {"model": "m"})
        return str(caught.exception)

    def test_http_error_status(self):
        base = self.serve(500, b'{"error": "boom"}')
        self.assertEqual(self.post(base), f'{base}/responses: HTTP 500: {{"error": "boom"}}')

    def test_not_json(self):
        base = self.serve(200, b"<html>")
        self.assertIn("/responses: the reply is not JSON", self.post(base))

    def test_not_an_object(self):
        self.assertIn("expected a JSON object, got list", self.post(self.serve(200, b"[1]")))

    def test_refused_connection(self):
        base = self.serve(200, b"{}")
        port = base.rsplit(":", 1)[1].split("/")[0]
        closed = f"http://127.0.0.1:{port}/v1"
        self.doCleanups()  # the server is gone: nothing listens there now
        self.assertIn("cannot reach the endpoint", self.post(closed))




class StreamJsonImport(unittest.TestCase):
    """--from claude-code reads `claude -p --output-format stream-json` output."""

    def test_stream_json_with_a_lock_search(self):
        lines = [json.loads(line) for line in (DATA / "claude_unlogged.jsonl").read_text(encoding="utf-8").split("\n") if line]
        path = Path(tempfile.mkdtemp()) / "claude_code_stdout.jsonl"
        self.addCleanup(shutil.rmtree, path.parent, True)
        subagent = {"type": "assistant", "parent_tool_use_id": "toolu_99", "session_id": "stub-session", "uuid": "u-s",
                    "message": {"role": "assistant", "content": [{"type": "text", "text": "subagent text"}]}}
        partial = {"type": "stream_event", "session_id": "stub-session", "event": {"type": "content_block_delta"}}
        lines[3:3] = [subagent, partial]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        from anachron.importers import Options, import_logs

        [(where, record)] = list(import_logs("claude-code", [str(path)], Options(as_of=_dt.date(2023, 1, 1))))
        self.assertEqual(record["sample_id"], "stub-session")
        self.assertEqual([call["tool"] for call in record["interactions"]], ["mcp__lock__search"])
        self.assertEqual(record["interactions"][0]["query"], "Aster Logistics revenue")
        self.assertEqual(record["answer"], "Probability: 0.6")
        self.assertNotIn("warnings", record)
        # --output-format json --verbose: the same events as one array.
        array = path.with_name("claude_code_stdout.json")
        array.write_text(json.dumps(lines, indent=1), encoding="utf-8")
        [(_, same)] = list(import_logs("claude-code", [str(array)], Options(as_of=_dt.date(2023, 1, 1))))
        self.assertEqual(same["interactions"], record["interactions"])
        self.assertEqual((same["sample_id"], same["answer"]), (record["sample_id"], record["answer"]))


INIT = json.loads((DATA / "claude_sealed.jsonl").read_text(encoding="utf-8").split("\n")[0])


def _assistant(*content) -> dict:
    return {"type": "assistant", "parent_tool_use_id": None, "session_id": "stub-session",
            "message": {"id": "msg_x", "type": "message", "role": "assistant", "content": list(content)}}


def _alive(pid: int) -> bool:
    """Whether process *pid* runs (a zombie waiting for a reaper does not)."""
    stat = Path(f"/proc/{pid}/stat")
    if stat.parent.parent.is_dir() and Path("/proc/self").exists():
        try:
            return stat.read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True




class ClaudeStreamShapes(unittest.TestCase):
    """--from claude-code on the shapes Claude Code 2.1 writes with -p --output-format stream-json --verbose
    (tests/data/launch/claude_stream_mcp.jsonl, hand-written: SessionStart hook events, MCP tools deferred behind
    ToolSearch and its tool_reference result, rate_limit_event, an MCP result as a list of text blocks, an MCP
    error as a string with is_error, compact_boundary and status records, the result record's total_cost_usd)."""

    PATH = DATA / "claude_stream_mcp.jsonl"

    def test_every_call_is_read(self):
        from anachron.importers import Options, import_logs

        [(_, record)] = list(import_logs("claude-code", [str(self.PATH)], Options(as_of=_dt.date(2023, 1, 1))))
        calls = record["interactions"]
        self.assertEqual([(c["tool"], c["status"]) for c in calls],
                         [("ToolSearch", "ok"), ("mcp__forecast__search", "ok"), ("mcp__forecast__fetch", "error")])
        self.assertEqual(calls[0]["retrieval"], False)  # loading a deferred tool's schema reaches nothing
        self.assertEqual(calls[1]["query"], "Aster Logistics revenue")
        self.assertEqual([item["url"] for item in calls[1]["returned"]], ["https://news.example/aster-q1"])
        self.assertEqual(calls[2]["error"], "MCP error -32602: no such document")
        self.assertEqual(record["sample_id"], "3f1c9a2e-5b7d-4e11-9c0a-6d2b8e4f7a10")
        self.assertEqual(record["answer"], "Probability: 0.6")
        self.assertNotIn("warnings", record)  # every record type is known

    def test_score_counts_the_mcp_calls(self):
        status, stdout, stderr = run_cli("score", "--from", "claude-code", str(self.PATH), "--as-of", T, "--format", "json")
        self.assertEqual(status, 0, stderr)
        summary = json.loads(stdout)["summary"]
        self.assertEqual((summary["calls"], summary["failed_calls"]["error"]), (2, 1))

    def test_a_stream_cut_mid_line_names_the_line(self):
        # A harness killed mid-write (FutureSim terminates claude at the end of its run) leaves half a line.
        text = self.PATH.read_text(encoding="utf-8")
        cut = Path(tempfile.mkdtemp()) / "claude_code_stdout.jsonl"
        self.addCleanup(shutil.rmtree, cut.parent, True)
        cut.write_text(text[: text.index('"tool_use_id":"toolu_02"')], encoding="utf-8")
        status, stdout, stderr = run_cli("score", "--from", "claude-code", str(cut), "--as-of", T)
        self.assertEqual((status, stdout), (2, ""))
        self.assertIn(f"{cut}:9", stderr)


if __name__ == "__main__":
    unittest.main()
