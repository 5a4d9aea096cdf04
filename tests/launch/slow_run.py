"""The slow tests beside test_run.py, whose docstring states the rules they hold: SealedRuns, FailClosed.

They start processes, browsers or servers, or build large inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

from __future__ import annotations
import datetime as _dt
import json
import os
import signal
import subprocess
import sys
import time
import unittest
from pathlib import Path
from unittest import mock
from tests.support import ROOT, require_extra, run_cli
from tests.launch.test_run import DATA, INIT, T, LaunchCase, _alive, _assistant, _stub_model


class SealedRuns(LaunchCase):
    """Whole runs whose harness really calls the lock: sealed, audited, scored from the run directory."""

    def setUp(self) -> None:
        require_extra("mcp", "mcp")
        super().setUp()

    def score(self, out: Path) -> dict:
        status, stdout, stderr = run_cli("score", str(out), "--format", "json")
        self.assertEqual(status, 0, stderr)
        return json.loads(stdout)

    def check_sealed(self, result, calls: int = 1) -> dict:
        status, stdout, stderr, out = result
        self.assertEqual(status, 0, stderr)
        self.assertIn("seal sealed", stdout)
        manifest = self.manifest(out)
        self.assertTrue(manifest["preflight"]["passed"])
        self.assertEqual(manifest["seal"]["status"], "sealed")
        self.assertEqual(manifest["seal"]["calls"], calls)
        events = [json.loads(line) for line in (out / "lock-events.jsonl").read_text(encoding="utf-8").split("\n") if line]
        self.assertEqual(events[0]["as_of"], T)
        self.assertEqual(events[0]["mode"], "enforced")
        self.assertEqual(len(events) - 1, calls)
        summary = self.score(out)["summary"]
        self.assertEqual(summary["seal_status"], "sealed")
        self.assertEqual(summary["seal_calls"], calls)
        return manifest

    def test_claude_code(self):
        self.check_sealed(self.launch("claude-code", "claude_sealed.jsonl"))

    def test_codex(self):
        self.check_sealed(self.launch("codex", "codex_sealed.jsonl"))

    def test_gemini_cli(self):
        result = self.launch("gemini-cli", "gemini_sealed.jsonl")
        self.check_sealed(result)
        # Gemini CLI 0.46 on names the lock's tool mcp_lock_search: the guard lets it through, the audit pairs it.
        self.assertIn('"tool_name": "mcp_lock_search"', (result[3] / "transcript.jsonl").read_text(encoding="utf-8"))

    def test_codex_guard_stops_the_shell(self):
        self.assertRefused(self.launch("codex", "codex_shell.jsonl"), "guard: the harness called 'shell'")

    def test_gemini_guard_stops_web_search(self):
        self.assertRefused(self.launch("gemini-cli", "gemini_websearch.jsonl"), "'google_web_search', outside the lock")

    def loop(self, kind: str, *, queries=("Aster Logistics revenue",), **script):
        stub = _stub_model()
        model = stub.Script(list(queries), "Probability: 0.6", **script)
        server, base = stub.start(model)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return self.launch(kind, None, "--model", "stub", "--base-url", base), model

    def test_responses(self):
        result, model = self.loop("responses", queries=("Aster Logistics revenue", "Aster Logistics guidance"))
        manifest = self.check_sealed(result, calls=2)
        self.assertEqual(manifest["turns"], 3)
        offered = [tool["name"] for tool in model.requests[0]["tools"]]
        self.assertEqual(offered, ["mcp__lock__search", "mcp__lock__fetch"])
        self.assertEqual({tool["type"] for tool in model.requests[0]["tools"]}, {"function"})
        trace = self.score(result[3])["samples"][0]
        self.assertEqual(trace["interactions"], 2)

    def test_chat(self):
        result, model = self.loop("chat")
        self.check_sealed(result)
        self.assertEqual(model.requests[0]["tools"][0]["function"]["name"], "mcp__lock__search")

    def test_responses_rogue_tool_is_stopped(self):
        result, _ = self.loop("responses", rogue="web_search")
        self.assertRefused(result, "guard: the model called 'web_search', which is not the lock's")

    def test_responses_hosted_tool_is_stopped(self):
        result, _ = self.loop("responses", hosted=True)
        self.assertRefused(result, "the endpoint ran a 'web_search_call' item, outside the lock")

    def test_a_lock_that_dies_mid_run_is_never_sealed(self):
        # Claude Code reports the calls after the lock died as errors; the lock's log holds none of them.
        lines = (DATA / "claude_sealed.jsonl").read_text(encoding="utf-8").split("\n")
        after = [_assistant({"type": "tool_use", "id": "toolu_02", "name": "mcp__lock__search", "input": {"query": "Aster guidance"}}),
                 {"type": "user", "parent_tool_use_id": None, "session_id": "stub-session", "message": {"role": "user", "content": [
                     {"type": "tool_result", "tool_use_id": "toolu_02", "is_error": True, "content": "MCP error -32000: Connection closed"}]}}]
        script = self.tmp / "dies.jsonl"
        script.write_text("\n".join([*lines[:2], json.dumps({"$kill_lock": True}), *map(json.dumps, after), *lines[2:]]), encoding="utf-8")
        status, stdout, stderr, out = self.launch("claude-code", None, env={"STUB_SCRIPT": str(script)})
        self.assertEqual(status, 0, stderr)
        seal = self.manifest(out)["seal"]
        self.assertEqual(seal["status"], "breached")
        self.assertEqual(seal["breaches"], ["call to 'mcp__lock__search' is not in the lock's log"])

    def test_budget_is_the_locks(self):
        for kind in ("responses", "chat"):
            with self.subTest(kind):
                self.budget(kind)

    def budget(self, kind: str):
        # The lock refuses the second search; the transcript marks it failed, so the audit finds no breach.
        stub = _stub_model()
        server, base = stub.start(stub.Script(["Aster Logistics revenue", "Aster Logistics guidance"], "Probability: 0.6"))
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        status, _, stderr, out = self.launch(kind, None, "--model", "stub", "--base-url", base, "--budget", "1")
        self.assertEqual(status, 0, stderr)
        events = [json.loads(line) for line in (out / "lock-events.jsonl").read_text(encoding="utf-8").split("\n") if line]
        self.assertEqual([e.get("status") for e in events[1:]], ["ok", "exhausted"])
        manifest = self.manifest(out)
        self.assertEqual(manifest["lock"]["max_calls"], 1)
        self.assertEqual(manifest["seal"]["status"], "sealed")  # the lock refused the second search itself

    def test_broken_endpoint_is_one_line_and_recorded(self):
        status, _, stderr, out = self.launch("responses", None, "--model", "stub", "--base-url", "http://127.0.0.1:9/v1")
        self.assertEqual(status, 2)
        self.assertIn("http://127.0.0.1:9/v1/responses: cannot reach the endpoint", stderr)
        self.assertEqual(len(stderr.strip().split("\n")), 1)
        self.assertIn("cannot reach", self.manifest(out)["refused"])


class FailClosed(LaunchCase):
    """Every way a stream could pass unchecked is a refusal; nothing the harness started outlives the run."""

    # The run's answer: an assistant record and the result record (a stream holding no call).
    RESULT = _assistant({"type": "text", "text": "Probability: 0.6"})

    def script(self, *events) -> dict:
        path = self.tmp / f"script{self.runs + 1}.jsonl"
        path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
        return {"STUB_SCRIPT": str(path), "STUB_START_LOCK": "0"}

    def test_a_hook_before_the_init_is_refused(self):
        hook = {"type": "system", "subtype": "hook_started", "hook_name": "SessionStart:startup", "session_id": "stub-session"}
        self.assertRefused(self.launch("claude-code", None, env=self.script(hook, INIT, self.RESULT)),
                           "preflight: a hook ran (SessionStart:startup): a command outside the lock")

    def test_a_later_init_with_web_tools_stops_the_run(self):
        later = {**INIT, "tools": [*INIT["tools"], "WebSearch"]}
        manifest = self.assertRefused(self.launch("claude-code", None, env=self.script(INIT, later, self.RESULT)),
                                      "guard: a later init event (line 2) fails the preflight: tools outside the lock are present: WebSearch (web)")
        self.assertTrue(manifest["preflight"]["passed"])  # the first init passed; the run was stopped after it

    def test_a_later_init_that_passes_is_allowed(self):
        status, stdout, stderr, out = self.launch("claude-code", None, env=self.script(INIT, INIT, self.RESULT))
        self.assertEqual(status, 0, stderr)
        self.assertEqual(self.manifest(out)["seal"]["status"], "no verdict")  # no call: nothing to vouch for

    def run_with_limit(self, limit: int, *events):
        from anachron.launch import Refused, RunSpec, launch

        env = dict(self.env, **self.script(*events))
        self.runs += 1
        spec = RunSpec("claude-code", _dt.date(2023, 1, 1), self.prompt, self.tmp / f"run{self.runs}", max_line=limit)
        with mock.patch.dict(os.environ, env):
            try:
                return launch(spec), None
            except Refused as exc:
                return json.loads((spec.out / "run.json").read_text(encoding="utf-8")), str(exc)

    def test_a_line_at_the_limit_passes_and_one_byte_more_stops_the_run(self):
        longest = max(len(json.dumps(event).encode("utf-8")) + 1 for event in (INIT, self.RESULT))
        manifest, refused = self.run_with_limit(longest, INIT, self.RESULT)
        self.assertIsNone(refused)
        self.assertEqual(manifest["seal"]["status"], "no verdict")
        result_line = len(json.dumps(self.RESULT).encode("utf-8")) + 1
        init_line = len(json.dumps(INIT).encode("utf-8")) + 1
        padded = {**self.RESULT, "result": "x" * (init_line - result_line + 1)}  # the second line, one byte longer
        manifest, refused = self.run_with_limit(init_line, INIT, padded)
        self.assertEqual(refused, f"guard: line 2 of the harness's stream is over {init_line} bytes: it cannot be checked: run stopped")
        self.assertIsNone(manifest["seal"])
        manifest, refused = self.run_with_limit(init_line - 1, INIT, self.RESULT)
        self.assertIn("preflight: line 1 of the harness's stream is over", refused)
        self.assertFalse(manifest["preflight"]["passed"])

    def test_a_line_past_the_init_that_is_not_json_stops_the_run(self):
        for raw in ("\xff\xfe{\"type\":\"assistant\"}\n", "Loaded cached credentials.\n", "[1, 2]\n",
                    '{"type":"assistant","x":' + "[" * 200000 + "]" * 200000 + "}\n"):  # nested past the parser's reach
            with self.subTest(line=raw[:40]):
                env = self.script(INIT, {"$raw": raw}, self.RESULT)
                self.assertRefused(self.launch("claude-code", None, env=env), "is not a JSON object: run stopped")

    def test_a_stream_cut_mid_line_cannot_be_checked(self):
        env = self.script(INIT, {"$raw": '{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Web'}, {"$exit": 1})
        manifest = self.assertRefused(self.launch("claude-code", None, env=env),
                                      "guard: line 2 of the harness's stream is cut off (the stream ended mid-line): run stopped")
        self.assertEqual(manifest["exit_status"], 1)

    def test_a_banner_before_the_init_is_kept_not_refused(self):
        status, _, stderr, out = self.launch("claude-code", None, env=self.script({"$raw": "Loaded cached credentials.\n"}, INIT, self.RESULT))
        self.assertEqual(status, 0, stderr)
        self.assertTrue((out / "transcript.jsonl").read_bytes().startswith(b"Loaded cached credentials.\n"))

    def test_line_separators_and_lone_surrogates_do_not_hide_a_call(self):
        web = {"type": "tool_use", "id": "toolu_9", "name": "WebSearch", "input": {"query": "q"}}
        for text in ("a\u2028b\u2029c\x85d", "\ud800 alone"):
            with self.subTest(text=ascii(text)):
                line = json.dumps(_assistant({"type": "text", "text": text}, web), ensure_ascii=False, separators=(",", ":"))
                # U+2028, U+2029 and U+0085 raw (str.splitlines would split there); a lone surrogate escaped.
                path = self.tmp / f"sep{self.runs + 1}.jsonl"
                path.write_bytes(json.dumps(INIT).encode() + b"\n" + line.encode("utf-8", "backslashreplace").replace(b"\\ud800", b"\\ud800") + b"\n")
                self.assertRefused(self.launch("claude-code", None, env={"STUB_SCRIPT": str(path), "STUB_START_LOCK": "0"}),
                                   "guard: the harness called 'WebSearch', outside the lock")

    def test_a_timeout_stops_the_harness_and_is_recorded(self):
        status, _, stderr, out = self.launch("claude-code", None, "--timeout", "1", env=self.script(INIT, {"$sleep": 60}, self.RESULT))
        self.assertEqual(status, 0, stderr)
        manifest = self.manifest(out)
        self.assertEqual(manifest["stopped"], "stopped by --timeout after 1 s")
        self.assertIn("note: stopped by --timeout after 1 s", stderr)
        self.assertIsNotNone(manifest["exit_status"])

    def test_a_timeout_holds_against_a_setsid_child_holding_the_stream(self):
        # The child left the harness's group and keeps its stdout open: the run still ends at the deadline.
        pidfile = self.tmp / "setsid.pid"
        begun = time.monotonic()
        status, _, stderr, out = self.launch("claude-code", None, "--timeout", "2",
                                             env=self.script(INIT, {"$setsid": 300, "pidfile": str(pidfile)}, {"$sleep": 300}))
        self.assertLess(time.monotonic() - begun, 60)
        self.assertEqual(status, 0, stderr)
        manifest = self.manifest(out)
        self.assertEqual(manifest["stopped"], "stopped by --timeout after 2 s")
        self.assertEqual(manifest["timeout"], {"seconds": 2.0, "hit": True})
        self.assertGreaterEqual(manifest["escaped_processes"], 1)
        self.assertFalse(_alive(int(pidfile.read_text(encoding="utf-8"))), "the setsid child outlived the run")

    def test_a_setsid_child_cannot_keep_a_finished_run_open(self):
        pidfile = self.tmp / "setsid.pid"
        begun = time.monotonic()
        status, _, stderr, out = self.launch("claude-code", None,
                                             env=self.script(INIT, {"$setsid": 300, "pidfile": str(pidfile)}, self.RESULT))
        self.assertLess(time.monotonic() - begun, 60)
        self.assertEqual(status, 0, stderr)
        manifest = self.manifest(out)
        self.assertEqual(manifest["timeout"], {"seconds": None, "hit": False})
        self.assertGreaterEqual(manifest["escaped_processes"], 1)
        self.assertFalse(_alive(int(pidfile.read_text(encoding="utf-8"))), "the setsid child outlived the run")

    def test_a_harness_that_fails_part_way_is_recorded(self):
        status, _, stderr, out = self.launch("claude-code", None, env=self.script(INIT, {"$exit": 3}))
        self.assertEqual(status, 0, stderr)
        manifest = self.manifest(out)
        self.assertEqual((manifest["exit_status"], manifest["stopped"]), (3, "the harness exited with status 3"))

    def test_nothing_the_harness_started_outlives_the_run(self):
        web = _assistant({"type": "tool_use", "id": "toolu_9", "name": "WebSearch", "input": {"query": "q"}})
        cases = {"exit": ((), self.RESULT), "guard": ((), web), "timeout": (("--timeout", "1"), {"$sleep": 60})}
        for case, (extra, last) in cases.items():
            with self.subTest(case):
                pidfile = self.tmp / f"{case}.pid"
                self.launch("claude-code", None, *extra, env=self.script(INIT, {"$spawn": 300, "pidfile": str(pidfile)}, last))
                pid = int(pidfile.read_text(encoding="utf-8"))
                self.assertFalse(_alive(pid), f"the harness's child {pid} outlived the {case} run")

    def test_a_call_record_the_harness_appends_to_the_log_is_not_the_locks(self):
        # One real search, then a fetch of a document dated after T the lock never served, with a call record
        # for it appended where the harness can reach a log: the run is breached, and so is its score.
        require_extra("mcp", "mcp")
        fetch = {"type": "tool_use", "id": "toolu_02", "name": "mcp__lock__fetch", "input": {"id_or_url": "fin-005"}}
        result = {"type": "user", "message": {"role": "user", "content": [
            {"tool_use_id": "toolu_02", "type": "tool_result", "content": [{"type": "text", "text": "fin-005 (2023-02-09)"}]}]}}
        forged = {"event": "call", "run": "f" * 32, "seq": 2, "time": "2026-01-01T00:00:02.000Z", "tool": "fetch",
                  "arguments": {"id_or_url": "fin-005"}, "status": "ok", "error": None,
                  "returned": [{"id": "fin-005", "title": "t", "published": "2023-02-09"}], "withheld": [],
                  "withheld_count": 0, "budget": {}}
        env = self.script(INIT, {"$lock": {"id": "toolu_01", "tool": "search", "arguments": {"query": "Aster Logistics revenue"}}},
                          _assistant(fetch), result, {"$events": json.dumps(forged) + "\n", "append": True}, self.RESULT)
        env["STUB_START_LOCK"] = "1"
        status, stdout, stderr, out = self.launch("claude-code", None, env=env)
        self.assertEqual(status, 0, stderr)
        manifest = self.manifest(out)
        self.assertEqual(manifest["seal"]["status"], "breached")
        self.assertIn("call to 'mcp__lock__fetch' is not in the lock's log", manifest["seal"]["breaches"])
        log = (out / "lock-events.jsonl").read_text(encoding="utf-8").split("\n")
        self.assertEqual([json.loads(line)["event"] for line in log if line], ["start", "call"])
        self.assertEqual(manifest["lock_log"]["records"], 2)
        status, stdout, stderr = run_cli("score", str(out), "--format", "json")
        self.assertEqual(status, 0, stderr)
        self.assertEqual(json.loads(stdout)["summary"]["seal_status"], "breached")


class Signals(LaunchCase):
    """SIGTERM stops a run as SIGINT does: the harness and its children stopped, run.json written, the
    transcript finalized, the shell's status for the signal."""

    def start(self, out: Path, pidfile: Path) -> subprocess.Popen:
        script = self.tmp / "signal.jsonl"
        script.write_text("".join(json.dumps(e) + "\n" for e in (INIT, {"$spawn": 300, "pidfile": str(pidfile)}, {"$sleep": 300})),
                          encoding="utf-8")
        env = dict(os.environ, **self.env, STUB_SCRIPT=str(script), STUB_START_LOCK="0", PYTHONPATH=str(ROOT))
        return subprocess.Popen([sys.executable, "-m", "anachron", "run", "claude-code", "--as-of", T, "--prompt", str(self.prompt),
                                 "--out", str(out)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def interrupt(self, sig: int) -> tuple[int, str, Path, int]:
        out, pidfile = self.tmp / f"run-{sig}", self.tmp / f"child-{sig}.pid"
        process = self.start(out, pidfile)
        self.addCleanup(lambda: process.poll() is None and process.kill())
        end = time.monotonic() + 60
        while not pidfile.exists() or not pidfile.read_text(encoding="utf-8"):  # the harness is past its init
            self.assertLess(time.monotonic(), end, "the stub never started")
            time.sleep(0.05)
        time.sleep(0.3)
        process.send_signal(sig)
        _, stderr = process.communicate(timeout=60)
        return process.returncode, stderr, out, int(pidfile.read_text(encoding="utf-8"))

    def test_sigterm_and_sigint_stop_everything_and_record_the_run(self):
        for sig, status in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
            with self.subTest(signal.Signals(sig).name):
                code, stderr, out, child = self.interrupt(sig)
                name = signal.Signals(sig).name
                self.assertEqual(code, status, stderr)
                self.assertEqual(stderr, f"anachron: interrupted by {name}: run stopped\n")
                manifest = self.manifest(out)
                self.assertEqual(manifest["refused"], f"interrupted by {name}: run stopped")
                self.assertIsNone(manifest["seal"])
                self.assertTrue((out / "transcript.jsonl").is_file())
                self.assertFalse((out / "transcript.jsonl.partial").exists())
                self.assertFalse(_alive(child), f"the harness's child {child} outlived the {name}")
                self.assertFalse(_alive(self.stub_calls()[-1]["pid"]), f"the harness outlived the {name}")
                status, _, stderr = run_cli("score", str(out))
                self.assertEqual(status, 2)
                self.assertIn(f"the run was refused (interrupted by {name}", stderr)


if __name__ == "__main__":
    unittest.main()
