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
import functools
import json
import os
import shutil
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from anachron.launch.isolation import probe as _machine_probe
from tests.launch_stub import install
from tests.support import ROOT, run_cli

DATA = ROOT / "tests" / "data" / "launch"
T = "2023-01-01"


def _stub_model():
    spec = importlib.util.spec_from_file_location("stub_model", ROOT / "examples" / "stub_model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module



ISOLATED_HARNESSES = ("claude-code", "codex", "gemini-cli")


@functools.lru_cache(maxsize=None)
def _no_namespaces() -> bool:
    """Whether this machine cannot give a harness a network namespace (tests/launch/test_isolation.py
    holds the refusal; the other launch tests then run with --no-isolation).  The probe is the one
    bound at import, so a test that replaces ``isolation.probe`` changes nothing here."""
    return isinstance(_machine_probe(), str)


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
        if harness in ISOLATED_HARNESSES and _no_namespaces() and "--no-isolation" not in extra:
            extra = (*extra, "--no-isolation")  # these tests hold other rules: on such a machine, run them unisolated
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
