"""The slow tests beside test_run.py, whose docstring states the rules they hold: ClaudeCodePreflight, ClaudeCodeFlags, OtherHarnessPreflight, Unlogged, PinnedProof, Http.

They run the stand-in harnesses as processes (the preflight, the flags, the proof a run
leaves, the lock over HTTP), so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

from __future__ import annotations
import datetime as _dt
import json
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread
from tests.support import run_cli
from tests.launch.test_run import DATA, T, LaunchCase, _forged_log


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

    def test_claude_code_gets_a_home_and_config_dir_of_the_runs_own(self):
        # Whatever the user's environment names: the user's settings (their env, plugins, servers, hooks) are never read.
        _, out = self.flags(env={"CLAUDE_CONFIG_DIR": str(self.tmp / "users-claude")})
        env = self.stub_calls()[0]["env"]
        home = out.resolve() / "claude-home"
        self.assertEqual((env["HOME"], env["CLAUDE_CONFIG_DIR"]), (str(home), str(home / ".claude")))
        self.assertTrue((home / ".claude").is_dir())

    def test_claude_code_waits_for_the_lock_before_its_init(self):
        # 2.1.197 connects MCP servers in the background unless told not to: its init then lists the lock as pending.
        self.flags()
        self.assertEqual(self.stub_calls()[0]["env"]["MCP_CONNECTION_NONBLOCKING"], "false")

    def test_the_deny_list_follows_the_version(self):
        from anachron.launch.harnesses import CLAUDE_UNKNOWN_SINCE

        unknown = CLAUDE_UNKNOWN_SINCE[1]
        # 2.1.197 on warns of each name it does not know; an older or unreadable version gets them all
        # (an unknown name only warns, a name left out may leave its tool on).
        for version, all_named in (("2.1.197 (Claude Code)", False), ("2.2.0 (Claude Code)", False),
                                   ("2.1.196 (Claude Code)", True), ("Claude Code", True)):
            with self.subTest(version):
                self.launch("claude-code", "claude_no_servers.jsonl", env={"STUB_START_LOCK": "0", "STUB_VERSION": version})
                argv = self.stub_calls()[-1]["argv"]
                disallowed = set(argv[argv.index("--disallowedTools") + 1].split(","))
                self.assertEqual(unknown <= disallowed, all_named)
                self.assertEqual(bool(unknown & disallowed), all_named)
                self.assertLessEqual({"WebSearch", "WebFetch", "Bash", "Task", "ReportFindings", "Workflow"}, disallowed)

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
        # The lock's two tools under every harness's name of them (core.seal.lock_tool_names).
        self.assertEqual(set(declared), {"mcp__lock__search", "mcp__lock__fetch", "lock__search", "lock__fetch",
                                         "mcp_lock_search", "mcp_lock_fetch"})
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

    def test_codex_gets_a_codex_home_of_the_runs_own(self):
        self.launch("codex", "codex_shell.jsonl", env={"STUB_START_LOCK": "0", "CODEX_HOME": str(self.tmp / "users-codex")})
        self.assertEqual(self.stub_calls()[0]["env"]["CODEX_HOME"], str((self.tmp / "run1").resolve() / "codex-home"))

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
        # Settings in a HOME of the run's own (a system settings file under /tmp is skipped); headless needs trust.
        home = Path(call["env"]["HOME"])
        self.assertEqual(home, (self.tmp / "run1").resolve() / "gemini-home")
        self.assertEqual(call["env"]["GEMINI_CLI_TRUST_WORKSPACE"], "true")
        settings = json.loads((home / ".gemini" / "settings.json").read_text(encoding="utf-8"))
        self.assertNotIn("core", settings["tools"])  # an empty tools.core removes the lock's tools too
        for tool in ("run_shell_command", "google_web_search", "web_fetch"):
            self.assertIn(tool, settings["tools"]["exclude"])
        self.assertTrue(settings["mcpServers"]["lock"]["trust"])
        self.assertEqual(settings["security"]["auth"]["selectedType"], "gemini-api-key")
        # PYTHONPATH is dropped from a server's env by Gemini CLI: the relay runs by its file, isolated.
        lock = settings["mcpServers"]["lock"]
        self.assertNotIn("PYTHONPATH", lock["env"])
        self.assertEqual(lock["args"][0], "-I")
        self.assertTrue(lock["args"][1].endswith("relay.py"))


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


if __name__ == "__main__":
    unittest.main()
