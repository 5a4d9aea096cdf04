"""Transcripts of the harnesses `anachron run` launches score as their runs do.

- Every importer reads a call to the time lock by the lock's own rendering: the items it showed
  come back with their ids and dates without a corpus; a result cut short is ``unrecorded``
  with a warning, never a clean empty result.
- The lock's tools are one set of names (``lock_tool_names``) for every harness: a transcript of
  each harness, naming them each way, audits ``sealed`` with ``--sealed-tools-from`` and the
  lock's log, and the run directory's audit (``anachron score RUNDIR``'s) says the same.

The transcripts follow the harnesses' published shapes (docs/importers.md names the sources):
Claude Code session records, Codex rollout lines (``function_call`` with a ``namespace``,
``tool_search_call``/``tool_search_output``, ``token_usage_record``, ``world_state``) and
``codex exec --json`` events, Gemini CLI stream-json events and session records.
"""

import datetime as dt
import json
import tempfile
import unittest
from pathlib import Path

from anachron.core import load_corpus_dir
from anachron.core.corpus import default_corpus_dir
from anachron.launch.lock import CONFIG, EVENTS
from anachron.launch.runner import audit_run
from anachron.timelock import CorpusBackend, EventWriter, TimeLock
from tests.support import run_cli

T = "2023-01-01"
CALLS = [("search", {"query": "cygnus robotics"}), ("fetch", {"id_or_url": "fin-005"}), ("search", {"query": "aster logistics"})]


def lock_answers(mode, events=None):
    """The lock's (text, structured results) for CALLS, from a lock as of T in *mode*."""
    journal = EventWriter(events) if events is not None else _Discard()
    lock = TimeLock(CorpusBackend(load_corpus_dir()), dt.date.fromisoformat(T), journal, mode=mode, server="lock")
    return [(outcome.text, outcome.structured["results"]) for outcome in (lock.call(tool, args) for tool, args in CALLS)]


class _Discard:
    def write(self, header, record):
        pass


def _jsonl(rows):
    return "".join(json.dumps(row) + "\n" for row in rows)


def claude_code(answers, names):
    rows = [{"type": "user", "uuid": "u0", "sessionId": "cc-1", "message": {"role": "user", "content": "Will Cygnus list?"}}]
    for n, ((tool, args), (text, _)) in enumerate(zip(CALLS, answers)):
        rows.append({"type": "assistant", "uuid": f"a{n}", "sessionId": "cc-1", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": names[tool], "input": args}]}})
        rows.append({"type": "user", "uuid": f"r{n}", "sessionId": "cc-1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": [{"type": "text", "text": text}]}]}})
    rows.append({"type": "assistant", "uuid": "end", "sessionId": "cc-1", "message": {"role": "assistant", "content": [
        {"type": "text", "text": "Unclear."}]}})
    return _jsonl(rows)


def codex_rollout(answers, names, version=None):
    """Each call by its plain name, or in ``namespace`` ``mcp__lock`` (names[tool] ``"ns"``), found
    first through Codex's ``tool_search`` route (names[tool] None); *version*: session_meta's ``cli_version``."""
    line = lambda kind, payload: {"timestamp": "2026-01-02T00:00:00.000Z", "type": kind, "payload": payload}
    meta = {"id": "codex-1", "cwd": "/w"} if version is None else {"id": "codex-1", "cwd": "/w", "cli_version": version}
    rows = [line("session_meta", meta)]
    for n, ((tool, args), (text, _)) in enumerate(zip(CALLS, answers)):
        if names[tool] is None:  # the route to a deferred tool: found through tool_search, then called in its namespace
            rows.append(line("response_item", {"type": "tool_search_call", "call_id": f"ts_{n}", "status": "completed",
                                               "execution": "client", "arguments": {"query": f"lock {tool}", "limit": 1}}))
            rows.append(line("response_item", {"type": "tool_search_output", "call_id": f"ts_{n}", "status": "completed",
                                               "execution": "client", "tools": [{"type": "namespace", "name": "mcp__lock",
                                                                                 "tools": [{"type": "function", "name": tool}]}]}))
        if names[tool] in (None, "ns"):
            call = {"type": "function_call", "namespace": "mcp__lock", "name": tool}
        else:
            call = {"type": "function_call", "name": names[tool]}
        rows.append(line("response_item", {**call, "arguments": json.dumps(args), "call_id": f"call_{n}"}))
        rows.append(line("token_usage_record", {"response_id": f"resp_{n}", "usage": {"total_tokens": 10}}))
        rows.append(line("response_item", {"type": "function_call_output", "call_id": f"call_{n}", "output": text}))
    rows.append(line("world_state", {"cwd": "/w"}))
    rows.append(line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Unclear."}]}))
    return _jsonl(rows)


def codex_exec(answers, names):
    rows = [{"type": "thread.started", "thread_id": "exec-1"}]
    for n, ((tool, args), (text, results)) in enumerate(zip(CALLS, answers)):
        server, _, name = names[tool].rpartition("__")
        rows.append({"type": "item.completed", "item": {"id": f"item_{n}", "type": "mcp_tool_call", "server": server, "tool": name,
                                                        "arguments": args, "status": "completed", "result": {
                                                            "content": [{"type": "text", "text": text}],
                                                            "structured_content": {"results": results}}}})
    rows.append({"type": "item.completed", "item": {"id": "end", "type": "agent_message", "text": "Unclear."}})
    return _jsonl(rows)


def gemini_stream(answers, names):
    rows = [{"type": "init", "session_id": "gem-1", "model": "gemini-2.5-pro"}]
    for n, ((tool, args), (text, _)) in enumerate(zip(CALLS, answers)):
        rows.append({"type": "tool_use", "tool_name": names[tool], "tool_id": f"t{n}", "parameters": args})
        rows.append({"type": "tool_result", "tool_id": f"t{n}", "status": "success", "output": text})
    rows.append({"type": "message", "role": "assistant", "content": "Unclear."})
    return _jsonl(rows)


def gemini_session(answers, names):
    calls = [{"id": f"c{n}", "name": names[tool], "args": args, "status": "success", "result": [
        {"functionResponse": {"id": f"c{n}", "name": names[tool], "response": {"output": text}}}]}
        for n, ((tool, args), (text, _)) in enumerate(zip(CALLS, answers))]
    return _jsonl([{"sessionId": "gem-2", "projectHash": "p"}, {"id": "m0", "type": "user", "content": "Will Cygnus list?"},
                   {"id": "m1", "type": "gemini", "content": "Unclear.", "toolCalls": calls}])


def names_of(pattern):
    return {tool: pattern.format(tool=tool) for tool, _ in CALLS}


# (format, writer, how it names the lock's tools): every spelling each harness uses.
HARNESSES = [
    ("claude-code", claude_code, names_of("mcp__lock__{tool}")),
    ("codex", codex_rollout, names_of("lock__{tool}")),
    ("codex", codex_rollout, {"search": "ns", "fetch": "ns"}),  # namespace mcp__lock, tool search
    ("codex", codex_exec, names_of("lock__{tool}")),
    ("gemini-cli", gemini_stream, names_of("mcp_lock_{tool}")),
    ("gemini-cli", gemini_session, names_of("mcp_lock_{tool}")),
]


class LockResultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls._tmp.name)
        cls.open = lock_answers("unrestricted")  # shows items after T: a reader that drops them scores clean
        cutoff = dt.date.fromisoformat(T)
        cls.leaking = sum(any(r["published"] and dt.date.fromisoformat(r["published"]) > cutoff for r in results)
                          for _, results in cls.open)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def score(self, fmt, text, *extra):
        path = self.dir / "transcript.jsonl"
        path.write_text(text, encoding="utf-8")
        status, out, err = run_cli("score", "--from", fmt, str(path), "--as-of", T, "--format", "json", *extra)
        self.assertEqual(status, 0, err)
        return json.loads(out)["samples"][0]

    def test_the_items_a_lock_call_showed_are_read_without_a_corpus(self):
        self.assertGreater(self.leaking, 0)
        for fmt, write, names in HARNESSES + [ROUTED]:
            with self.subTest(fmt=fmt, writer=write.__name__, names=names["search"]):
                sample = self.score(fmt, write(self.open, names))
                self.assertEqual((sample["result_leaks"], sample["unrecorded"], sample["warnings"]), (self.leaking, 0, []))
                self.assertAlmostEqual(sample["tclr"], self.leaking / len(CALLS))

    def test_with_a_corpus_the_shown_ids_are_its_items(self):
        path = self.dir / "trace.jsonl"
        for fmt, write, names in HARNESSES:
            with self.subTest(fmt=fmt, writer=write.__name__):
                (self.dir / "t.jsonl").write_text(write(self.open, names), encoding="utf-8")
                status, _, err = run_cli("import", "--from", fmt, str(self.dir / "t.jsonl"), "--as-of", T,
                                         "--corpus", str(default_corpus_dir()),
                                         "--out", str(path))
                self.assertEqual(status, 0, err)
                calls = [c for c in json.loads(path.read_text(encoding="utf-8"))["interactions"] if c["tool"] != "tool_search"]
                self.assertEqual([c["returned"] for c in calls], [[r["id"] for r in results] for _, results in self.open])

    def test_a_lock_result_cut_short_is_unrecorded_with_a_warning(self):
        cut = [(text[: len(text) // 2], results) if n == 1 else (text, results) for n, (text, results) in enumerate(self.open)]
        for fmt, write, names in HARNESSES + [ROUTED]:
            with self.subTest(fmt=fmt, writer=write.__name__):
                sample = self.score(fmt, write(cut, names))
                self.assertEqual(sample["unrecorded"], 1)
                self.assertLess(sample["tclr_low"], sample["tclr_high"])  # a band: the cut call may have leaked
                self.assertTrue(any("time lock's receipt" in w and "no budget line" in w for w in sample["warnings"]),
                                sample["warnings"])


    def test_a_gemini_result_of_a_status_other_than_success_or_error_is_unrecorded_and_named(self):
        text = gemini_stream(self.open, names_of("mcp_lock_{tool}")).replace('"status": "success"', '"status": "sucess"', 1)
        sample = self.score("gemini-cli", text)
        self.assertEqual(sample["unrecorded"], 1)
        self.assertLess(sample["tclr_low"], sample["tclr_high"])
        self.assertIn("skipped 1 item(s) of unknown type \"tool_result status 'sucess'\"", sample["warnings"])

    def test_a_gemini_session_success_holding_nothing_to_read_is_unrecorded_with_a_warning(self):
        for result in ([], [{"functionResponse": {"id": "c0", "name": "mcp_lock_search", "response": {}}}]):
            with self.subTest(result=result):
                rows = [json.loads(row) for row in gemini_session(self.open, names_of("mcp_lock_{tool}")).split("\n") if row]
                rows[-1]["toolCalls"][0]["result"] = result
                sample = self.score("gemini-cli", _jsonl(rows))
                self.assertEqual(sample["unrecorded"], 1)
                self.assertLess(sample["tclr_low"], sample["tclr_high"])
                self.assertIn("call #1 (mcp_lock_search): its result holds nothing to read (no output): unrecorded",
                              sample["warnings"])

    def test_a_codex_call_output_without_its_output_is_unrecorded_with_a_warning(self):
        rows = codex_rollout(self.open, names_of("lock__{tool}"), "0.171.0").split("\n")
        first = next(n for n, row in enumerate(rows) if '"function_call_output"' in row)
        line = json.loads(rows[first])
        del line["payload"]["output"]
        rows[first] = json.dumps(line)
        sample = self.score("codex", "\n".join(rows))
        self.assertEqual(sample["unrecorded"], 1)
        self.assertLess(sample["tclr_low"], sample["tclr_high"])
        self.assertTrue(any(w.startswith("1 tool call(s) recorded no result") for w in sample["warnings"]), sample["warnings"])


    def test_a_codex_exec_mcp_call_not_completed_or_without_content_is_unrecorded_with_a_warning(self):
        for change in ({"status": "in_progress"}, {"status": "completd"}, {"result": {}}, {"result": {"meta": 1}}):
            with self.subTest(change=change):
                rows = [json.loads(row) for row in codex_exec(self.open, names_of("lock__{tool}")).split("\n") if row]
                rows[1]["item"].update(change)
                sample = self.score("codex", _jsonl(rows))
                self.assertEqual(sample["unrecorded"], 1)
                self.assertLess(sample["tclr_low"], sample["tclr_high"])
                self.assertTrue(any(w.startswith("1 tool call(s) recorded no result") for w in sample["warnings"]),
                                sample["warnings"])


ROUTED = ("codex", codex_rollout, {"search": None, "fetch": None})  # each call after a tool_search


class ToolSearchTest(unittest.TestCase):
    def test_codex_tool_search_is_a_local_call_and_bookkeeping_lines_are_skipped(self):
        with tempfile.TemporaryDirectory() as tmp:
            path, trace = Path(tmp) / "rollout.jsonl", Path(tmp) / "trace.jsonl"
            path.write_text(codex_rollout(lock_answers("enforced"), ROUTED[2]), encoding="utf-8")
            status, _, err = run_cli("import", "--from", "codex", str(path), "--as-of", T, "--out", str(trace))
            self.assertEqual((status, err), (0, ""))
            record = json.loads(trace.read_text(encoding="utf-8"))
        self.assertNotIn("warnings", record)  # token_usage_record and world_state: no unknown type
        self.assertNotIn("harness_version", record)  # this rollout states none
        searches = [c for c in record["interactions"] if c["tool"] == "tool_search"]
        self.assertEqual([(c["status"], c["retrieval"], c["returned"]) for c in searches], [("ok", False, [])] * len(CALLS))
        self.assertEqual([c["tool"] for c in record["interactions"] if c["tool"] != "tool_search"],
                         [f"mcp__lock__{tool}" for tool, _ in CALLS])

    def test_a_rollouts_stated_version_is_kept_on_its_trace(self):
        with tempfile.TemporaryDirectory() as tmp:
            path, trace = Path(tmp) / "rollout.jsonl", Path(tmp) / "trace.jsonl"
            path.write_text(codex_rollout(lock_answers("enforced"), ROUTED[2], version="0.171.0"), encoding="utf-8")
            status, _, err = run_cli("import", "--from", "codex", str(path), "--as-of", T, "--out", str(trace))
            self.assertEqual((status, err), (0, ""))
            record = json.loads(trace.read_text(encoding="utf-8"))
        self.assertEqual((record["log_format"], record["harness_version"]), ("codex", "0.171.0"))

    def test_a_tool_search_output_without_its_call_is_reported(self):
        line = {"timestamp": "2026-01-02T00:00:00.000Z", "type": "response_item",
                "payload": {"type": "tool_search_output", "call_id": "nope", "execution": "client", "tools": []}}
        with tempfile.TemporaryDirectory() as tmp:
            path, trace = Path(tmp) / "rollout.jsonl", Path(tmp) / "trace.jsonl"
            path.write_text(_jsonl([{"timestamp": "2026-01-02T00:00:00.000Z", "type": "session_meta", "payload": {"id": "s"}}, line]),
                            encoding="utf-8")
            status, _, err = run_cli("import", "--from", "codex", str(path), "--as-of", T, "--out", str(trace))
            self.assertEqual(status, 0, err)
            warnings = json.loads(trace.read_text(encoding="utf-8"))["warnings"]
        self.assertIn("skipped 1 item(s) of unknown type 'tool_search_output without its call'", warnings)


class SealNamesTest(unittest.TestCase):
    """One rule names the lock's tools: the audit of a transcript and of its run directory agree."""

    def run_dir(self, fmt, text):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        rundir = Path(tmp.name)
        answers = lock_answers("enforced", rundir / EVENTS)
        config = {"mcpServers": {"lock": {"command": "anachron", "args": ["serve", "--as-of", T, "--events", EVENTS]}}}
        (rundir / CONFIG).write_text(json.dumps(config), encoding="utf-8")
        return rundir, answers

    def test_every_harness_spelling_audits_sealed_both_ways(self):
        for fmt, write, names in HARNESSES:
            with self.subTest(fmt=fmt, writer=write.__name__, names=names["search"]):
                rundir, answers = self.run_dir(fmt, None)
                (rundir / "transcript.jsonl").write_text(write(answers, names), encoding="utf-8")
                status, out, err = run_cli("score", "--from", fmt, str(rundir / "transcript.jsonl"), "--as-of", T,
                                           "--sealed-tools-from", str(rundir / CONFIG), "--lock-events", str(rundir / EVENTS),
                                           "--format", "json")
                self.assertEqual(status, 0, err)
                sample = json.loads(out)["samples"][0]
                self.assertEqual((sample["seal_status"], sample["seal_breaches"]), ("sealed", 0), sample["evidence"])
                run = audit_run(rundir, dt.date.fromisoformat(T), None, [], "transcript.jsonl", fmt)
                self.assertEqual((run["status"], run["breaches"]), ("sealed", []))

    def audit_both_ways(self, write):
        """(score --from codex's sample, the run audit's result) of the Codex rollout *write* makes of a
        run directory's lock answers."""
        rundir, answers = self.run_dir("codex", None)
        (rundir / "transcript.jsonl").write_text(write(answers), encoding="utf-8")
        status, out, err = run_cli("score", "--from", "codex", str(rundir / "transcript.jsonl"), "--as-of", T,
                                   "--sealed-tools-from", str(rundir / CONFIG), "--lock-events", str(rundir / EVENTS),
                                   "--format", "json")
        self.assertEqual(status, 0, err)
        return json.loads(out)["samples"][0], audit_run(rundir, dt.date.fromisoformat(T), None, [], "transcript.jsonl", "codex")

    def test_codex_tool_search_is_its_own_in_a_rollout_stating_a_version_that_has_it(self):
        # The route of 0.171.0 (tool_search, then namespace mcp__lock): the version comes from session_meta.
        sample, run = self.audit_both_ways(lambda answers: codex_rollout(answers, ROUTED[2], version="0.171.0"))
        self.assertEqual((sample["seal_status"], sample["seal_breaches"], sample["seal_calls"]), ("sealed", 0, len(CALLS)),
                         sample["evidence"])
        self.assertEqual(sample["warnings"], [])
        self.assertEqual((run["status"], run["breaches"], run["calls"]), ("sealed", [], len(CALLS)))

    def test_codex_tool_search_is_outside_the_lock_in_a_rollout_without_a_version_that_has_it(self):
        # Fail closed: no version (with a warning saying so), or one before the first measured to offer it.
        for version, warned in ((None, True), ("dev", True), ("0.170.0", False)):
            with self.subTest(version=version):
                sample, run = self.audit_both_ways(lambda answers: codex_rollout(answers, ROUTED[2], version=version))
                self.assertEqual((sample["seal_status"], sample["seal_breaches"]), ("breached", len(CALLS)))
                self.assertIn("#1 tool 'tool_search' is outside the time lock", sample["evidence"])
                notes = [w for w in sample["warnings"] if "does not state the codex version" in w and "tool_search" in w]
                self.assertEqual(len(notes), int(warned), sample["warnings"])
                self.assertEqual(run["status"], "breached")

    def test_codex_tools_local_only_in_a_run_are_outside_the_lock_in_a_users_rollout(self):
        # A user's own Codex may have other MCP servers (its resource tools reach them) and a user to ask.
        call = {"type": "function_call", "name": "read_mcp_resource", "arguments": "{}", "call_id": "res"}
        extra = json.dumps({"timestamp": "2026-01-02T00:00:00.000Z", "type": "response_item", "payload": call}) + "\n"
        sample, _ = self.audit_both_ways(lambda answers: codex_rollout(answers, names_of("lock__{tool}"), "0.171.0") + extra)
        self.assertEqual(sample["seal_status"], "breached")
        self.assertIn(f"#{len(CALLS) + 1} tool 'read_mcp_resource' is outside the time lock", sample["evidence"])

    def test_another_servers_tools_stay_outside_the_lock(self):
        rundir, answers = self.run_dir("codex", None)
        (rundir / "transcript.jsonl").write_text(codex_rollout(answers, names_of("other__{tool}")), encoding="utf-8")
        status, out, err = run_cli("score", "--from", "codex", str(rundir / "transcript.jsonl"), "--as-of", T,
                                   "--sealed-tools-from", str(rundir / CONFIG), "--lock-events", str(rundir / EVENTS), "--format", "json")
        self.assertEqual(status, 0, err)
        self.assertEqual(json.loads(out)["samples"][0]["seal_status"], "breached")
        self.assertEqual(audit_run(rundir, dt.date.fromisoformat(T), None, [], "transcript.jsonl", "codex")["status"], "breached")


if __name__ == "__main__":
    unittest.main()
