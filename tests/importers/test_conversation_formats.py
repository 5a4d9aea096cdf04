"""The conversation-log formats (docs/importers.md): pydantic-ai, langchain, codex and gemini-cli,
each fixture imported and scored with the exact figures its README row states, the conversation's
own id as the default sample id, calls without a result ``unrecorded`` with a warning, unknown items
counted in ``warnings``, bad logs as one-line errors, and the fixtures rebuilt by the packages."""

import datetime as dt
import importlib.util
import json
import tempfile
import unittest
from pathlib import Path

from anachron.core.errors import AnachronError
from anachron.importers import FORMATS, Options, import_logs

from tests.support import ROOT, require_extra, run_cli
from tests.importers.test_fixtures import DATA, T, fixture, scored

OPTIONS = Options(as_of=dt.date(2023, 1, 1))
REUTERS = "https://www.reuters.com/markets/cygnus-prices-ipo/"
PAGE = "https://example.com/cygnus-files"
DIGEST = "https://robotics-digest.example.org/companies/cygnus"
ANSWER = f"Likely yes: it filed a draft registration statement in December ({PAGE})."
# The scenario's true figures: the search leaks (Reuters, 2023-02-09), the fetch reads the pre-T page,
# the local tool is no interaction; 2 interactions, TCLR 1/2, one undated item, the answer cites the page.
TRUE = {"interactions": 2, "result_leaks": 1, "undated": 0, "content_leaks": 0, "query_intent_leaks": 0,
        "tclr": 0.5, "tclr_low": 0.5, "tclr_high": 0.5, "answered": True}
EVIDENCE = [
    f"#1 result item {REUTERS} dated 2023-02-09 > 2023-01-01 (dated by field 'published_date')",
    f"#1 undated item {DIGEST} (no date found)",
]


def figures(sample):
    return {key: sample[key] for key in TRUE}


def records(fmt, *logs, options=OPTIONS):
    return [record for _, record in import_logs(fmt, [fixture(log) if not Path(log).is_absolute() else log for log in logs], options)]


def calls(record):
    return [(c["tool"], c["status"], c.get("retrieval", True)) for c in record["interactions"]]


def refused(test, fmt, text, message, *, name="log.json"):
    """*text* as a log of *fmt*: the CLI exits 2 with one line naming the file (and line)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, name)
        path.write_text(text, encoding="utf-8")
        status, out, err = run_cli("score", "--from", fmt, str(path), "--as-of", T)
        test.assertEqual((status, out), (2, ""), err)
        test.assertEqual(err.count("\n"), 1, err)
        test.assertIn(str(path), err)
        test.assertIn(message, err)


class PydanticAiTest(unittest.TestCase):
    def test_history_scores_the_true_figures(self):
        (s,) = scored("pydantic-ai", fixture("pydantic-ai.json"))["samples"]
        self.assertEqual(s["sample_id"], "0192f4e0-6b1a-7c3d-9e8f-c0ffee000001")  # its conversation_id
        self.assertEqual(figures(s), TRUE)
        self.assertEqual(s["evidence"], EVIDENCE)

    def test_calls_items_and_answer(self):
        (record,) = records("pydantic-ai", "pydantic-ai.json")
        self.assertEqual(calls(record), [("search", "ok", True), ("fetch", "ok", True), ("days_between", "ok", False)])
        search, fetch, _ = record["interactions"]
        self.assertEqual((search["query"], search["call_id"], search["time"]), ("cygnus robotics ipo", "call_search", "2023-01-01T12:00:01Z"))
        self.assertEqual([i["published_date"] for i in search["returned"] if "published_date" in i], ["2023-02-09", "2022-12-15"])
        self.assertEqual([i["url"] for i in fetch["returned"]], [PAGE])
        self.assertEqual((record["answer"], record["citations"]), (ANSWER, [PAGE]))
        self.assertNotIn("warnings", record)

    def test_history_saved_mid_run_is_unrecorded_with_a_warning(self):
        (record,) = records("pydantic-ai", "pydantic-ai-cut.json")
        self.assertEqual(calls(record), [("search", "unrecorded", True)])
        self.assertNotIn("returned", record["interactions"][0])
        self.assertEqual(record["warnings"], [
            "1 tool call(s) recorded no result: the history ends before their tool-return parts "
            "(save result.all_messages() after the run has finished)"])

    def test_as_of_map_and_sample_id_from(self):
        with tempfile.TemporaryDirectory() as tmp:
            mapping = Path(tmp, "map.json")
            mapping.write_text(json.dumps({"0192f4e0-6b1a-7c3d-9e8f-c0ffee000001": "2023-03-01"}), encoding="utf-8")
            status, out, err = run_cli("score", "--from", "pydantic-ai", fixture("pydantic-ai.json"), "--as-of-map", str(mapping), "--format", "json")
        self.assertEqual(status, 0, err)
        (s,) = json.loads(out)["samples"]
        self.assertEqual((s["as_of"], s["result_leaks"], s["tclr"]), ("2023-03-01", 0, 0.0))

    def test_retry_denied_unknown_parts_and_orphan_returns(self):
        history = [
            {"kind": "response", "timestamp": "2023-01-01T00:00:00Z", "parts": [
                {"part_kind": "tool-call", "tool_name": "search", "args": '{"query": "a"}', "tool_call_id": "1"},
                {"part_kind": "tool-call", "tool_name": "fetch", "args": {"url": PAGE}, "tool_call_id": "2"},
                {"part_kind": "hologram", "content": "?"},
            ]},
            {"kind": "request", "parts": [
                {"part_kind": "retry-prompt", "tool_name": "search", "tool_call_id": "1", "content": "bad   query"},
                {"part_kind": "tool-return", "tool_name": "fetch", "tool_call_id": "2", "content": "no", "outcome": "denied"},
                {"part_kind": "tool-return", "tool_name": "x", "tool_call_id": "9", "content": "late"},
            ]},
            {"kind": "summary", "parts": []},
        ]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "h.json")
            path.write_text(json.dumps(history), encoding="utf-8")
            (record,) = records("pydantic-ai", str(path))
        self.assertEqual(record["sample_id"], "h")  # no conversation_id: the file name
        self.assertEqual(calls(record), [("search", "error", True), ("fetch", "refused", True)])
        self.assertEqual(record["interactions"][0]["error"], "bad query")
        self.assertEqual(record["warnings"], ["skipped 1 item(s) of unknown type 'hologram'",
                                              "skipped 1 item(s) of unknown type 'summary'",
                                              "skipped 1 item(s) of unknown type 'tool-return without its call'"])

    def test_bad_histories(self):
        refused(self, "pydantic-ai", "{}", "expected a list of messages")
        refused(self, "pydantic-ai", '[{"parts": []}]', "message 0: kind is null")
        refused(self, "pydantic-ai", '[{"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "s"}]}]',
                "message 0 part 0: tool_call_id is null")
        two = '{"part_kind": "tool-call", "tool_name": "s", "tool_call_id": "1"}'
        refused(self, "pydantic-ai", f'[{{"kind": "response", "parts": [{two}, {two}]}}]', "already awaiting")
        refused(self, "pydantic-ai", '[[]]\n[{"kind": 3}]\n', "log.jsonl:1", name="log.jsonl")


class LangchainTest(unittest.TestCase):
    def test_messages_to_dict_and_langgraph_state_score_the_true_figures(self):
        for log, sample_id in (("langchain.json", "langchain"), ("langchain-state.json", "thread-cygnus-1")):
            with self.subTest(log):
                (s,) = scored("langchain", fixture(log))["samples"]
                self.assertEqual(s["sample_id"], sample_id)  # the state's thread_id; messages_to_dict has no id
                self.assertEqual(figures(s), TRUE)
                self.assertEqual(s["evidence"], EVIDENCE)

    def test_both_dumps_give_one_record(self):
        (plain,), (state,) = records("langchain", "langchain.json"), records("langchain", "langchain-state.json")
        self.assertEqual(plain["interactions"], state["interactions"])
        self.assertEqual(calls(plain), [("search", "ok", True), ("fetch", "ok", True), ("days_between", "ok", False)])
        search, fetch, _ = plain["interactions"]
        # The tool message's content is a JSON string inside its message object: read as JSON, dates kept.
        self.assertEqual([i.get("published_date") for i in search["returned"]], ["2023-02-09", "2022-12-15", None])
        self.assertEqual([i["url"] for i in fetch["returned"]], [PAGE])
        self.assertEqual((plain["answer"], plain["citations"]), (ANSWER, [PAGE]))

    def test_unanswered_invalid_error_and_unknown_messages(self):
        messages = json.loads((DATA / "langchain.json").read_text(encoding="utf-8"))[:3]  # the search call, no tool message
        messages += [
            {"type": "ai", "content": "", "additional_kwargs": {"tool_calls": [
                {"id": "o1", "type": "function", "function": {"name": "web_search", "arguments": '{"query": "b"}'}}]},
             "invalid_tool_calls": [{"name": "fetch", "args": "{url", "id": "bad", "error": "bad json"}]},
            {"type": "tool", "content": "HTTP 500", "tool_call_id": "o1", "status": "error"},
            {"type": "tool", "content": "x", "tool_call_id": "nobody"},
            {"type": "telepathy", "content": "?"},
            {"type": "ai", "content": [{"type": "server_tool_use", "name": "web_search"}, "Final ", {"type": "text", "text": "answer"},
                                       {"type": "tool_use", "id": "x"}]},
        ]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "run.json")
            path.write_text(json.dumps(messages), encoding="utf-8")
            (record,) = records("langchain", str(path))
        self.assertEqual(calls(record), [("search", "unrecorded", True), ("web_search", "error", True), ("fetch", "error", True)])
        self.assertEqual([c.get("error") for c in record["interactions"]], [None, "HTTP 500", "invalid tool call: bad json"])
        self.assertEqual(record["answer"], "Final answer")
        self.assertEqual(record["warnings"], [
            "1 tool call(s) recorded no result: no tool message answers them (save the messages after the tool node has run)",
            "skipped 1 item(s) of unknown type 'content block server_tool_use'",
            "skipped 1 item(s) of unknown type 'telepathy'",
            "skipped 1 item(s) of unknown type 'tool message without its call'",
        ])

    def test_bad_messages(self):
        refused(self, "langchain", "[]", "the conversation has no message")
        refused(self, "langchain", '[{"data": {}}]', "message 0: type is null")
        refused(self, "langchain", '[{"type": "ai", "tool_calls": [{"name": "s", "args": {}}]}]', "message 0: tool call 's': id is null")
        refused(self, "langchain", '[{"lc": 1, "type": "constructor", "id": ["AIMessage"]}]', "message 0: field 'kwargs'")


class CodexTest(unittest.TestCase):
    ROLLOUT_ID = "0199a0c1-3b2d-7e4f-8a9b-0c1d2e3f4a5b"

    def test_rollout_scores_the_true_figures(self):
        (s,) = scored("codex", fixture("codex-rollout.jsonl"))["samples"]
        self.assertEqual(s["sample_id"], self.ROLLOUT_ID)  # session_meta's id
        self.assertEqual(figures(s), TRUE)
        self.assertEqual(s["evidence"], EVIDENCE)

    def test_rollout_calls(self):
        (record,) = records("codex", "codex-rollout.jsonl")
        self.assertEqual(calls(record), [("tavily__search", "ok", True), ("fetch__fetch", "ok", True), ("shell_command", "ok", False)])
        search, fetch, ls = record["interactions"]
        self.assertEqual((search["query"], search["time"]), ("cygnus robotics ipo", "2023-01-01T12:00:04.000Z"))
        self.assertEqual([i["url"] for i in fetch["returned"]], [PAGE])
        self.assertEqual(ls["command"], "ls notes")
        self.assertEqual((record["answer"], record["citations"]), (ANSWER, [PAGE]))
        self.assertNotIn("warnings", record)  # event_msg, turn_context and reasoning are known

    def test_exec_json_web_search_is_unrecorded_and_the_shell_has_its_command(self):
        (record,) = records("codex", "codex-exec.jsonl")
        self.assertEqual(record["sample_id"], "0199a0c1-3b2d-7e4f-8a9b-exec00000001")  # thread.started
        self.assertEqual(calls(record), [("web_search", "unrecorded", True), ("fetch__fetch", "ok", True), ("shell", "ok", True)])
        search, fetch, shell = record["interactions"]
        self.assertEqual((search["query"], "returned" in search), ("cygnus robotics ipo", False))
        self.assertEqual([i["url"] for i in fetch["returned"]], [PAGE])
        self.assertEqual(shell["command"], "bash -lc 'curl -s https://news.example.com/cygnus'")
        self.assertEqual(record["answer"], ANSWER)
        self.assertEqual(len(record["warnings"]), 1)
        self.assertTrue(record["warnings"][0].startswith("1 tool call(s) recorded no result: Codex logs a web search's query"))

    def test_a_shell_that_curls_one_url_returned_that_page_dated_by_its_own_text(self):
        # shell's {output, metadata} and exec_command's "Output:" header unwrapped; the open_page search
        # holds no result (unrecorded): 3 calls, 2 read pages (one after T), TCLR band 1/3 to 2/3.
        (s,) = scored("codex", fixture("codex-rollout-shells.jsonl"))["samples"]
        self.assertEqual((s["interactions"], s["unrecorded"], s["result_leaks"], s["undated"]), (2, 1, 1, 0))
        self.assertEqual((s["tclr"], s["tclr_low"], s["tclr_high"]), (1 / 3, 1 / 3, 2 / 3))
        (record,) = records("codex", "codex-rollout-shells.jsonl")
        search, curl, exec_command = record["interactions"]
        self.assertEqual((search["status"], search["target"]), ("unrecorded", REUTERS))
        self.assertEqual([i["url"] for i in curl["returned"]], [PAGE])
        self.assertTrue(curl["returned"][0]["text"].startswith("<html>"))  # the envelope is gone
        self.assertEqual([i["url"] for i in exec_command["returned"]], ["https://news.example.com/cygnus-prices"])
        self.assertTrue(exec_command["returned"][0]["text"].startswith("<html>"))

    def test_a_shell_naming_several_urls_or_none_reads_the_urls_its_output_shows(self):
        lines = [
            {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": "curl -s https://a.example/x https://b.example/y"}), "call_id": "a"},
            {"type": "function_call_output", "call_id": "a", "output": "Exit code: 0\nOutput:\nsee https://c.example/z"},
            {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": "echo 'curl https://a.example/x'"}), "call_id": "b"},
            {"type": "function_call_output", "call_id": "b", "output": "curl https://a.example/x"},
        ]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "rollout.jsonl")
            path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
            (record,) = records("codex", str(path))
        several, echo = record["interactions"]
        self.assertEqual([i["url"] for i in several["returned"]], ["https://c.example/z"])
        self.assertEqual(echo["command"], "echo 'curl https://a.example/x'")
        self.assertEqual(echo.get("returned"), [])  # a quoted curl runs nothing: a local call

    def test_shells_older_rollouts_failures_and_unknown_items(self):
        lines = [
            {"id": "old-session", "timestamp": "2025-06-01T00:00:00Z", "instructions": None},
            {"record_type": "state"},
            {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["bash", "-lc", "wget x"]}), "call_id": "a"},
            {"type": "local_shell_call", "call_id": "b", "status": "completed", "action": {"type": "exec", "command": ["curl", "y"]}},
            {"type": "function_call_output", "call_id": "b", "output": "ok"},
            {"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch", "call_id": "c"},
            {"type": "custom_tool_call_output", "call_id": "c", "output": "Done"},
            {"type": "function_call", "name": "read_file", "arguments": json.dumps({"path": "notes.md"}), "call_id": "r"},
            {"type": "function_call_output", "call_id": "r", "output": "see https://news.example.com/cygnus-ipo"},
            {"type": "web_search_call", "status": "failed", "action": {"type": "search", "query": "z"}},
            {"type": "web_search_call", "status": "completed", "action": {"type": "open_page", "url": PAGE}},
            {"type": "hologram_call"},
            {"type": "function_call_output", "call_id": "nobody", "output": "?"},
            {"type": "item.completed", "item": {"id": "i1", "type": "mcp_tool_call", "server": "s", "tool": "t",
                                                "arguments": {}, "error": {"message": "boom"}, "status": "failed"}},
            {"type": "item.completed", "item": {"id": "i2", "type": "command_execution", "command": "rm -rf /",
                                                "aggregated_output": "", "exit_code": None, "status": "declined"}},
            {"type": "item.started", "item": {"id": "i3", "type": "command_execution", "command": "sleep 9",
                                              "aggregated_output": "", "exit_code": None, "status": "in_progress"}},
            {"type": "item.completed", "item": {"id": "i4", "type": "telepathy"}},
        ]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "rollout.jsonl")
            path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
            (record,) = records("codex", str(path))
        self.assertEqual(record["sample_id"], "old-session")
        self.assertEqual([(c["tool"], c["status"], c.get("command")) for c in record["interactions"]], [
            ("shell", "unrecorded", "bash -lc wget x"), ("shell", "ok", "curl y"), ("apply_patch", "ok", None),
            ("read_file", "ok", None), ("web_search", "error", None), ("web_search", "unrecorded", None), ("s__t", "error", None),
            ("shell", "refused", "rm -rf /"), ("shell", "unrecorded", "sleep 9"),
        ])
        self.assertEqual(record["interactions"][5]["target"], PAGE)
        # A built-in local tool is local whatever its output shows (here a URL).
        self.assertEqual((record["interactions"][3]["retrieval"], record["interactions"][3]["returned"]), (False, []))
        self.assertEqual(record["warnings"][1:], [
            "skipped 1 item(s) of unknown type 'function_call_output without its call'",
            "skipped 1 item(s) of unknown type 'hologram_call'",
            "skipped 1 item(s) of unknown type 'telepathy'",
        ])
        self.assertTrue(record["warnings"][0].startswith("3 tool call(s) recorded no result"))

    def test_bad_rollouts(self):
        refused(self, "codex", '{"type": "session_meta", "payload": {"id": "s"}}\n[1]\n', "log.jsonl:2: a line", name="log.jsonl")
        refused(self, "codex", '{"type": "response_item", "payload": {"type": "function_call", "name": "s"}}\n',
                "log.jsonl: call_id is null", name="log.jsonl")  # one line: the file is one document
        refused(self, "codex", '{"type": "response_item", "payload": 3}\n{"a": 1}\n', "log.jsonl:1: field 'payload'", name="log.jsonl")
        refused(self, "codex", '{"payload": {}}\n{"b": 2}\n', "log.jsonl:1: type is null", name="log.jsonl")


class GeminiCliTest(unittest.TestCase):
    def test_session_file_scores_the_true_figures(self):
        (s,) = scored("gemini-cli", fixture("gemini-cli-session.jsonl"))["samples"]
        self.assertEqual(s["sample_id"], "8f0e2c4a-1b3d-4e5f-9a7b-6c5d4e3f2a1b")  # the metadata record's sessionId
        self.assertEqual(figures(s), TRUE)
        self.assertEqual(s["evidence"], EVIDENCE)

    def test_session_calls(self):
        (record,) = records("gemini-cli", "gemini-cli-session.jsonl")
        self.assertEqual(calls(record), [("tavily_search", "ok", True), ("web_fetch", "ok", True), ("read_file", "ok", False)])
        _, fetch, _ = record["interactions"]
        self.assertEqual((fetch["target"], [i["url"] for i in fetch["returned"]]), (PAGE, [PAGE]))
        self.assertEqual((record["answer"], record["citations"]), (ANSWER, [PAGE]))
        self.assertNotIn("warnings", record)

    def test_retrieval_tools_override_the_local_list(self):
        (record,) = records("gemini-cli", "gemini-cli-session.jsonl",
                            options=Options(as_of=dt.date(2023, 1, 1), retrieval_tools=frozenset({"read_file"})))
        self.assertEqual(calls(record), [("tavily_search", "ok", False), ("web_fetch", "ok", False), ("read_file", "ok", True)])

    def test_stream_json(self):
        (record,) = records("gemini-cli", "gemini-cli-stream.jsonl")
        self.assertEqual(record["sample_id"], "5a6b7c8d-0000-4000-8000-stream000001")  # init's session_id
        self.assertEqual([(c["tool"], c["status"]) for c in record["interactions"]],
                         [("google_web_search", "ok"), ("run_shell_command", "ok"), ("web_fetch", "unrecorded")])
        search, shell, fetch = record["interactions"]
        # Google's grounding sources are redirect links: one undated item, whatever the page's date.
        self.assertEqual([i["url"] for i in search["returned"]], ["https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ1a2b3c"])
        self.assertEqual(shell["command"], "curl -s https://news.example.com/cygnus")
        self.assertEqual((fetch["target"], "returned" in fetch), (PAGE, False))
        self.assertEqual(record["answer"], "Likely yes.")  # the assistant's deltas joined
        self.assertEqual(record["warnings"], ["1 tool call(s) recorded no result: the session ended before their results "
                                              "were recorded (a run cut short, or a call still awaiting approval)"])

    def test_legacy_json_rewinds_replacements_and_statuses(self):
        def call(ident, status, result=None, name="google_web_search"):
            record = {"id": ident, "name": name, "args": {"query": ident}, "status": status, "timestamp": "2023-01-01T00:00:00Z"}
            return record | ({"result": result} if result is not None else {})

        ok = [{"functionResponse": {"id": "a", "name": "x", "response": {"output": PAGE}}}]
        err = [{"functionResponse": {"id": "b", "name": "x", "response": {"error": "quota exceeded"}}}]
        legacy = {"sessionId": "legacy-1", "projectHash": "p", "messages": [
            {"id": "1", "type": "gemini", "content": "", "toolCalls": [
                call("a", "success", ok), call("b", "success", err), call("c", "cancelled"), call("d", "awaiting_approval"),
                call("e", "success"),
                call("f", "success", [{"functionResponse": {"response": {"output": "notes.md: https://news.example.com/x"}}}], "grep_search")]},
            {"id": "2", "type": "compression", "content": ""},
        ]}
        lines = [
            {"sessionId": "jsonl-1", "projectHash": "p"},
            {"id": "1", "type": "gemini", "content": "draft", "toolCalls": [call("a", "executing")]},
            {"id": "1", "type": "gemini", "content": "first", "toolCalls": [call("a", "success", ok)]},
            {"id": "2", "type": "gemini", "content": "second", "toolCalls": [call("z", "success", ok)]},
            {"$rewindTo": "2"},
            {"$set": {"summary": "s"}},
            {"type": "hologram"},
        ]
        with tempfile.TemporaryDirectory() as tmp:
            one, many = Path(tmp, "session.json"), Path(tmp, "session.jsonl")
            one.write_text(json.dumps(legacy), encoding="utf-8")
            many.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
            (a,), (b,) = records("gemini-cli", str(one)), records("gemini-cli", str(many))
        self.assertEqual(a["sample_id"], "legacy-1")
        self.assertEqual([(c["query"], c["status"], c.get("error")) for c in a["interactions"]], [
            ("a", "ok", None), ("b", "error", "quota exceeded"), ("c", "error", "tool call cancelled"),
            ("d", "unrecorded", None), ("e", "unrecorded", None), ("f", "ok", None)])
        # grep_search is a built-in local tool: local, though its name says "search" and its output shows a URL.
        self.assertEqual((a["interactions"][5]["retrieval"], a["interactions"][5]["returned"]), (False, []))
        self.assertEqual(a["warnings"][1:], ["skipped 1 item(s) of unknown type 'compression'"])
        self.assertTrue(a["warnings"][0].startswith("2 tool call(s) recorded no result"))
        self.assertEqual(b["sample_id"], "jsonl-1")
        self.assertEqual([(c["query"], c["status"]) for c in b["interactions"]], [("a", "ok")])  # replaced; "2" rewound
        self.assertEqual(b["answer"], "first")
        self.assertEqual(b["warnings"], ["skipped 1 item(s) of unknown type 'hologram'"])

    def test_bad_sessions(self):
        refused(self, "gemini-cli", '{"sessionId": "s", "messages": [{"id": "1"}]}', "messages[0]: type is null")
        refused(self, "gemini-cli", '{"sessionId": "s", "messages": 3}', "field 'messages'")
        refused(self, "gemini-cli", '{"type": "init", "session_id": "s"}\n{"type": "tool_use", "tool_name": "x"}\n',
                "log.jsonl:2: tool_id is null", name="log.jsonl")
        refused(self, "gemini-cli", '{"type": "init"}\n3\n', "log.jsonl:2: a record", name="log.jsonl")
        refused(self, "gemini-cli", '{"sessionId": "s", "messages": [{"id": "1", "type": "gemini", "toolCalls": [{"id": "c"}]}]}',
                "toolCalls[0]: the tool's name is null")


class FormatsTest(unittest.TestCase):
    def test_formats_listed(self):
        for name in ("pydantic-ai", "langchain", "codex", "gemini-cli"):
            self.assertIn(name, FORMATS)

    def test_sample_id_from_overrides_the_own_id(self):
        (record,) = records("langchain", "langchain-state.json", options=Options(as_of=dt.date(2023, 1, 1), sample_id_from="thread_id"))
        self.assertEqual(record["sample_id"], "thread-cygnus-1")
        with self.assertRaisesRegex(AnachronError, r"gemini-cli-session\.jsonl: field 'projectHash\.x' \(--sample-id-from\) is null"):
            records("gemini-cli", "gemini-cli-session.jsonl", options=Options(as_of=dt.date(2023, 1, 1), sample_id_from="projectHash.x"))

    def test_as_of_map_without_the_own_id_is_refused(self):
        for fmt, log in (("codex", "codex-rollout.jsonl"), ("gemini-cli", "gemini-cli-stream.jsonl")):
            with self.subTest(fmt), self.assertRaisesRegex(AnachronError, "is not in the --as-of-map file"):
                records(fmt, log, options=Options(as_of_map={"codex-rollout": dt.date(2023, 1, 1)}))

    def test_a_json_array_of_conversations(self):
        history = json.loads((DATA / "pydantic-ai.json").read_text(encoding="utf-8"))
        state = json.loads((DATA / "langchain-state.json").read_text(encoding="utf-8"))
        plain = json.loads((DATA / "langchain.json").read_text(encoding="utf-8"))
        anonymous = [{k: v for k, v in m.items() if k not in ("conversation_id", "run_id")} for m in history]
        with tempfile.TemporaryDirectory() as tmp:
            many, mixed = Path(tmp, "many.json"), Path(tmp, "mixed.json")
            many.write_text(json.dumps([history, anonymous]), encoding="utf-8")
            mixed.write_text(json.dumps([state, plain]), encoding="utf-8")
            a = records("pydantic-ai", str(many))
            b = records("langchain", str(mixed))
        self.assertEqual([r["sample_id"] for r in a], ["0192f4e0-6b1a-7c3d-9e8f-c0ffee000001", "many-2"])
        self.assertEqual([r["sample_id"] for r in b], ["thread-cygnus-1", "mixed-2"])
        self.assertEqual([len(r["interactions"]) for r in a + b], [3, 3, 3, 3])
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp, "bad.json")
            bad.write_text(json.dumps([history, [{"kind": 1}]]), encoding="utf-8")
            with self.assertRaisesRegex(AnachronError, r"bad\.json \[1\] message 0: kind is 1"):
                records("pydantic-ai", str(bad))

    def test_fixtures_rebuilt_by_the_packages(self):
        require_extra("pydantic_ai", "test")
        require_extra("langchain_core", "test")
        import importlib.metadata as metadata

        spec = importlib.util.spec_from_file_location("build_format_fixtures", ROOT / "tests" / "fixtures_build" / "build_format_fixtures.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        same = all(metadata.version(name) == version for name, version in module.VERSIONS.items())
        with tempfile.TemporaryDirectory() as tmp:
            built = module.build(Path(tmp))
            for name, text in built.items():
                with self.subTest(name):
                    if same:
                        self.assertEqual(text, (DATA / name).read_text(encoding="utf-8"))
                    fmt = name.split(".")[0].removesuffix("-cut").removesuffix("-state")
                    fmt = next(f for f in FORMATS if fmt.startswith(f))
                    self.assertEqual(records(fmt, str(Path(tmp, name))), records(fmt, name))


if __name__ == "__main__":
    unittest.main()
