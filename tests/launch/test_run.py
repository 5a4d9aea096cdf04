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

    def test_missing_executable_is_refused(self):
        manifest = self.assertRefused(self.launch("claude-code", "claude_sealed.jsonl", "--executable", str(self.tmp / "nope")),
                           "cannot start")
        self.assertFalse(manifest["preflight"]["passed"])  # it never ran
        self.assertIsNone(manifest["files"]["transcript"])  # and wrote nothing
        self.assertEqual(sorted(p.name for p in (self.tmp / "run1").iterdir()),
                         ["harness-stderr.txt", "mcp.json", "model.jsonl", "run.json", "workspace"])
        self.assertEqual(manifest["gateway"]["records"], 0)  # the model gateway it would have talked through saw nothing

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
        self.assertEqual(argv[argv.index("--mcp-config") + 1], str(out.resolve() / "mcp.json"))
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
