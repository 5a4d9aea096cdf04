"""``--from otel`` on logs the real instrumentations wrote (tests/data/importers/otel/, built by
tests/fixtures_build/build_otel_fixtures.py): calls rebuilt from chat spans, one sample per
conversation, unrecorded calls and their warnings when content capture is off; and the rules on
hand-made spans: joining, deduplication against tool spans, truncated logs."""

import datetime as dt
import importlib.metadata
import json
import tempfile
import unittest
from pathlib import Path

from anachron.importers import Options, import_logs
from anachron.importers._common import NO_TOOL_CALL

from tests.support import ROOT, extras_required, run_cli

DATA = ROOT / "tests" / "data" / "importers" / "otel"
FIGURES = json.loads((DATA / "figures.json").read_text(encoding="utf-8"))
T = "2023-01-01"
OPTIONS = Options(as_of=dt.date(2023, 1, 1))
CAPTURED = ("openai-v2-content.json", "openai-v2-events.jsonl", "openinference-content.json", "traceloop-content.json",
            "pydantic-ai-v2-content.json", "openinference-langchain.json", "traceloop-langchain.json",
            "openinference-agents-content.json", "traceloop-agents-responses.json")
UNCAPTURED = ("openai-v2-no-content.json", "openinference-hidden.json", "traceloop-no-content.json",
              "pydantic-ai-v2-no-content.json")
TIMES = {"pydantic-ai-v2-content.json": ("2023-01-01T00:00:03+00:00", "2023-01-01T00:00:07+00:00", "2023-01-01T00:00:08+00:00"),
         "openai-v2-events.jsonl": ("2023-01-01T00:00:02+00:00", "2023-01-01T00:00:05+00:00", "2023-01-01T00:00:05+00:00")}
# The Agents SDK's tool spans (call ids from their chat spans) are timed by their own start.
TIMES["openinference-agents-content.json"] = ("2023-01-01T00:00:06+00:00", "2023-01-01T00:00:12+00:00", "2023-01-01T00:00:13+00:00")
TIMES["traceloop-agents-responses.json"] = ("2023-01-01T00:00:04+00:00", "2023-01-01T00:00:08+00:00", "2023-01-01T00:00:09+00:00")
# LangChain: each model call and each tool run is a trace of its own; the tool spans (no call id) are
# the chat calls of the same name and arguments, timed by their own start.
TIMES["openinference-langchain.json"] = TIMES["traceloop-langchain.json"] = (
    "2023-01-01T00:00:02+00:00", "2023-01-01T00:00:06+00:00", "2023-01-01T00:00:08+00:00")
OPENINFERENCE_FIX = ("unset OPENINFERENCE_HIDE_INPUTS and OPENINFERENCE_HIDE_OUTPUTS; "
                     "the OpenAI Agents SDK also needs RunConfig(trace_include_sensitive_data=True), its default")
GENAI_FIX = ("set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY with "
             "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental")


def records(path, options=OPTIONS):
    return [record for _, record in import_logs("otel", [str(path)], options)]


def scored(path, *extra):
    status, out, err = run_cli("score", "--from", "otel", str(path), "--as-of", T, "--format", "json", *extra)
    if status != 0:
        raise AssertionError(err)
    return json.loads(out)


def imported(path):
    """The trace records ``anachron import --from otel`` writes."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "trace.jsonl"
        status, _, err = run_cli("import", "--from", "otel", str(path), "--as-of", T, "--out", str(out))
        if status != 0:
            raise AssertionError(err)
        return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


class RealInstrumentationTest(unittest.TestCase):
    def test_content_captured(self):
        for name in CAPTURED:
            with self.subTest(name):
                truth = FIGURES[name]
                doc = scored(DATA / name)
                self.assertEqual(len(doc["samples"]), truth["samples"])  # three traces, one conversation
                (sample,) = doc["samples"]
                for key in ("interactions", "result_leaks", "tclr", "tclr_low", "tclr_high", "undated", "content_leaks",
                            "answered", "seal_breaches"):
                    self.assertEqual(sample[key], truth[key], key)
                self.assertEqual(sample["evidence"], [
                    "#1 result item https://www.reuters.com/markets/cygnus-prices-ipo/ dated 2023-02-09 > 2023-01-01 "
                    "(dated by field 'published_date')",
                    "#1 undated item https://blog.example.org/robotics-listings (no date found)",
                ])
                sealed = scored(DATA / name, "--sealed-tools", "days_between")["samples"][0]
                self.assertEqual(sealed["seal_breaches"], truth["seal_breaches_if_only_days_between_sealed"])
                self.assertEqual(scored(DATA / name, "--sealed-tools", "web_search,fetch_page,days_between")["samples"][0]["seal_breaches"], 0)

    def test_content_captured_calls(self):
        for name in CAPTURED:
            with self.subTest(name):
                (record,) = imported(DATA / name)
                self.assertEqual(record["sample_id"], "000000000000000000000000a0000001")  # the first trace
                self.assertNotIn("warnings", record)
                self.assertEqual(record["answer"], "Likely yes: Cygnus filed a draft registration in December "
                                                   "(https://example.com/cygnus-files).")
                self.assertEqual(record["citations"], ["https://example.com/cygnus-files"])
                calls = [(c["tool"], c["status"], c.get("call_id"), c.get("query"), c.get("target"),
                          c.get("retrieval", True), len(c["returned"])) for c in record["interactions"]]
                self.assertEqual(calls, [
                    ("web_search", "ok", "call_search", "cygnus robotics ipo", None, True, 3),
                    ("fetch_page", "ok", "call_fetch", None, "https://example.com/cygnus-files", True, 1),
                    ("days_between", "ok", "call_days", None, None, False, 0),
                ])
                # Chat calls are timed by the end of the chat span that made them; pydantic-ai's by its tool spans.
                times = TIMES.get(name, ("2023-01-01T00:00:01+00:00", "2023-01-01T00:00:03+00:00", "2023-01-01T00:00:03+00:00"))
                self.assertEqual(tuple(c["time"] for c in record["interactions"]), times)
                search = record["interactions"][0]["returned"]
                self.assertEqual([item.get("published_date") for item in search],
                                 ["Thu, 09 Feb 2023 14:00:00 GMT", "Thu, 15 Dec 2022 09:00:00 GMT", None])
                self.assertIn("2022-12-15T09:00:00Z", record["interactions"][1]["returned"][0]["text"])

    def test_content_off_is_unrecorded_and_warned(self):
        # `anachron import` and scoring wait for the core's `unrecorded` status (issue 27, completeness):
        # the records are checked as the importer yields them.
        for name in UNCAPTURED:
            with self.subTest(name):
                truth = FIGURES[name]
                got = records(DATA / name)
                self.assertEqual(len(got), truth["samples"])  # no message: the traces cannot be joined
                self.assertEqual([[c["status"] for c in r["interactions"]] for r in got], truth["statuses"])
                self.assertEqual([r.get("warnings") for r in got], truth["warnings"])
                for record in got:
                    self.assertNotIn("answer", record)
                    for call in record["interactions"]:
                        self.assertNotIn("returned", call)
                        self.assertNotIn("error", call)
                        if name != "pydantic-ai-v2-no-content.json":
                            # An unknown tool may have retrieved: not local.
                            self.assertEqual(call, {"tool": "unknown", "status": "unrecorded", "time": call["time"]})

    def test_event_mode_logs_alone(self):
        # The logs document without its spans: each event is its chat call, joined by trace and messages.
        spans, events = (DATA / "openai-v2-events.jsonl").read_text(encoding="utf-8").splitlines()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "logs.json"
            path.write_text(events, encoding="utf-8")
            (record,) = records(path)
            with_spans = records(DATA / "openai-v2-events.jsonl")[0]
        self.assertEqual([{k: v for k, v in c.items() if k != "time"} for c in record["interactions"]],
                         [{k: v for k, v in c.items() if k != "time"} for c in with_spans["interactions"]])
        self.assertEqual(record["answer"], with_spans["answer"])
        self.assertNotIn("warnings", record)

    def test_pydantic_ai_without_content_keeps_names_and_ids(self):
        (record,) = records(DATA / "pydantic-ai-v2-no-content.json")
        self.assertEqual([(c["tool"], c["call_id"], c.get("retrieval", True), "arguments" in c) for c in record["interactions"]], [
            ("web_search", "call_search", True, False), ("fetch_page", "call_fetch", True, False),
            ("days_between", "call_days", True, False),  # no result: nothing shows it was local (fail closed)
        ])

    def test_agents_sdk_spans_without_content_are_unrecorded_never_clean(self):
        # OpenInference writes "__REDACTED__" for a hidden value; the Agents SDK's own setting leaves the
        # values out. Either way the tool spans hold no result: each call unrecorded, the band [0, 1], a warning.
        for name in ("openinference-agents-hidden.json", "openinference-agents-no-content.json"):
            with self.subTest(name):
                truth = FIGURES[name]
                got = records(DATA / name)
                self.assertEqual([[c["status"] for c in r["interactions"]] for r in got], truth["statuses"])
                self.assertEqual([r.get("warnings") for r in got], truth["warnings"])
                for call in got[0]["interactions"]:
                    self.assertNotIn("returned", call)
                    self.assertNotIn("arguments", call)  # never the placeholder read as arguments
                (sample,) = scored(DATA / name)["samples"]
                self.assertEqual((sample["tclr_low"], sample["tclr_high"], sample["answered"]),
                                 (truth["tclr_low"], truth["tclr_high"], truth["answered"]))

    def test_every_content_off_log_warns(self):
        # No importer may turn a log without results into a clean run: every sample warns.
        for name in UNCAPTURED:
            for record in records(DATA / name):
                self.assertTrue(record.get("warnings"), (name, record["sample_id"]))


def span(trace, start, attributes, *, name="chat", end=None, status=None):
    out = {"traceId": trace, "spanId": f"{trace}{start}", "name": name, "startTimeUnixNano": str(start * 10**9),
           "endTimeUnixNano": str((end or start + 1) * 10**9),
           "attributes": [{"key": k, "value": {"stringValue": v if isinstance(v, str) else json.dumps(v)}}
                          for k, v in attributes.items()]}
    if status is not None:
        out["status"] = status
    return out


def log(tmp, *spans):
    path = Path(tmp) / "log.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}), encoding="utf-8")
    return path


SYSTEM = {"role": "user", "parts": [{"type": "text", "content": "Will Cygnus list?"}]}


def call(ident, name, arguments):
    return {"role": "assistant", "parts": [{"type": "tool_call", "id": ident, "name": name, "arguments": arguments}]}


def reply(ident, response):
    return {"role": "tool", "parts": [{"type": "tool_call_response", "id": ident, "response": response}]}


def chat(trace, start, inputs, outputs):
    return span(trace, start, {"gen_ai.operation.name": "chat", "gen_ai.input.messages": inputs,
                               "gen_ai.output.messages": outputs})


SEARCH = json.dumps({"results": [{"url": "https://x.example/late", "published_date": "2023-02-09"}]})


class ChatSpanRuleTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_two_runs_of_one_prompt_stay_apart(self):
        # Same first message, different call ids: each continuation joins its own run.
        spans = []
        for trace, start, ident in (("aa", 0, "c1"), ("bb", 1, "c2")):
            spans.append(chat(trace, start, [SYSTEM], [call(ident, "web_search", {"query": "q"})]))
        for trace, start, ident in (("cc", 10, "c2"), ("dd", 11, "c1")):
            spans.append(chat(trace, start, [SYSTEM, call(ident, "web_search", {"query": "q"}), reply(ident, SEARCH)],
                              [{"role": "assistant", "parts": [{"type": "text", "content": f"done {ident}"}]}]))
        got = records(log(self.tmp.name, *spans))
        self.assertEqual([(r["sample_id"], r["answer"], [c["call_id"] for c in r["interactions"]]) for r in got],
                         [("aa", "done c1", ["c1"]), ("bb", "done c2", ["c2"])])
        self.assertEqual([len(r["interactions"][0]["returned"]) for r in got], [1, 1])

    def test_sample_id_from_keeps_its_grouping(self):
        spans = [chat("aa", 0, [SYSTEM], [call("c1", "web_search", {"query": "q"})]),
                 chat("bb", 5, [SYSTEM, call("c1", "web_search", {"query": "q"}), reply("c1", SEARCH)], [])]
        for s, run in zip(spans, ("r1", "r2")):
            s["attributes"].append({"key": "session.id", "value": {"stringValue": run}})
        got = records(log(self.tmp.name, *spans), Options(as_of=dt.date(2023, 1, 1), sample_id_from="session.id"))
        self.assertEqual([r["sample_id"] for r in got], ["r1", "r2"])
        # r1 saw the call, not its result (that is in r2's span): unrecorded, and said so.
        self.assertEqual(got[0]["interactions"][0]["status"], "unrecorded")
        self.assertEqual(got[0]["warnings"], ["1 tool call(s) recorded no result: the log ends before the chat span "
                                              "that would show it (a truncated log, or a run that stopped)"])
        self.assertEqual(got[1]["interactions"][0]["status"], "ok")

    def test_a_tool_span_and_a_chat_call_with_one_id_are_one_call(self):
        tool = span("aa", 2, {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "web_search",
                              "gen_ai.tool.call.id": "c1", "gen_ai.tool.call.arguments": {"query": "q"}}, name="execute_tool")
        spans = [chat("aa", 0, [SYSTEM], [call("c1", "web_search", {"query": "q"})]), tool,
                 chat("aa", 5, [SYSTEM, call("c1", "web_search", {"query": "q"}), reply("c1", SEARCH)], [])]
        (record,) = records(log(self.tmp.name, *spans))
        (entry,) = record["interactions"]
        # The tool span is the call (its time); its missing result comes from the next chat span's input.
        self.assertEqual((entry["status"], entry["time"], entry["returned"]),
                         ("ok", "1970-01-01T00:00:02+00:00", [{"url": "https://x.example/late", "published_date": "2023-02-09"}]))
        self.assertNotIn("warnings", record)

    def test_a_tool_span_without_its_result_is_unrecorded(self):
        for attributes, fix in (
            ({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "web_search"},
             f"content capture is off ({GENAI_FIX})"),
            ({"openinference.span.kind": "TOOL", "tool.name": "web_search"},
             "inputs and outputs are hidden or not captured (" + OPENINFERENCE_FIX + ")"),
            ({"traceloop.span.kind": "tool", "traceloop.entity.name": "web_search"},
             "content capture is off (set TRACELOOP_TRACE_CONTENT=true)"),
        ):
            with self.subTest(fix):
                (record,) = records(log(self.tmp.name, span("aa", 0, attributes), span("aa", 3, attributes)))
                self.assertEqual([c["status"] for c in record["interactions"]], ["unrecorded", "unrecorded"])
                self.assertNotIn("returned", record["interactions"][0])
                self.assertEqual(record["warnings"], [f"2 tool call(s) recorded no result: {fix}"])

    def test_a_redacted_tool_result_is_read_from_the_next_chat_span_else_unrecorded(self):
        # OPENINFERENCE_HIDE_OUTPUTS alone: the tool span's output is "__REDACTED__" (no result, never an
        # empty one); the next chat span's input messages still show the result by call id.
        tool = span("t1", 2, {"openinference.span.kind": "TOOL", "tool.name": "web_search",
                              "input.value": "__REDACTED__", "output.value": "__REDACTED__"}, name="web_search")
        made = {"openinference.span.kind": "LLM", "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.tool_calls.0.tool_call.id": "c1",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "web_search",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"query": "q"}'}
        shown = {"openinference.span.kind": "LLM", "llm.input_messages.0.message.role": "tool",
                 "llm.input_messages.0.message.tool_call_id": "c1", "llm.input_messages.0.message.content": SEARCH}
        (record,) = records(log(self.tmp.name, span("t1", 0, made), tool, span("t1", 4, shown)))
        (call,) = record["interactions"]
        self.assertEqual((call["status"], call["query"]), ("ok", "q"))
        self.assertEqual([i["url"] for i in call["returned"]], ["https://x.example/late"])
        (alone,) = records(log(self.tmp.name, span("t1", 0, made), tool))
        self.assertEqual([c["status"] for c in alone["interactions"]], ["unrecorded"])
        self.assertTrue(alone["warnings"])

    def test_an_input_call_under_the_item_id_is_the_output_call_it_restates(self):
        # The Responses API's two ids of one call: the output names call_id "c1", the next span's input
        # the item id "fc_c1" (Traceloop's Agents SDK spans): one call with its result, not a second one.
        search = {"query": "q"}
        first = chat("t1", 0, [SYSTEM], [call("c1", "search", search), call("c2", "search", {"query": "other"})])
        second = chat("t1", 3, [SYSTEM, call("fc_c1", "search", search), call("fc_c2", "search", {"query": "other"}),
                                reply("c1", SEARCH), reply("c2", "[]")], [])
        (record,) = records(log(self.tmp.name, first, second))
        self.assertEqual([(c["call_id"], c["status"], c["query"]) for c in record["interactions"]],
                         [("c1", "ok", "q"), ("c2", "ok", "other")])
        # An input call no output made (its arguments differ) stays a call of its own, unrecorded.
        third = chat("t1", 3, [SYSTEM, call("fc_c1", "search", {"query": "changed"}), reply("c1", SEARCH)], [])
        (record,) = records(log(self.tmp.name, chat("t1", 0, [SYSTEM], [call("c1", "search", search)]), third))
        self.assertEqual([(c["call_id"], c["status"]) for c in record["interactions"]], [("c1", "ok"), ("fc_c1", "unrecorded")])

    def test_a_failed_tool_span_stays_an_error(self):
        attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "web_search"}
        (record,) = records(log(self.tmp.name, span("aa", 0, attributes, status={"code": 2, "message": "quota"})))
        self.assertEqual((record["interactions"][0]["status"], record["interactions"][0]["error"]), ("error", "quota"))
        self.assertNotIn("warnings", record)

    def test_calls_without_ids_are_matched_by_name_arguments_and_rank(self):
        anonymous = {"role": "assistant", "parts": [{"type": "tool_call", "name": "web_search", "arguments": {"query": "q"}}]}
        spans = [chat("aa", 0, [SYSTEM], [anonymous]),
                 chat("aa", 5, [SYSTEM, anonymous, {"role": "tool", "parts": [{"type": "text", "content": "x"}]}], [anonymous])]
        (record,) = records(log(self.tmp.name, *spans))
        # The second span repeats the first call in its input and makes a second one: two calls, no result paired.
        self.assertEqual([c["status"] for c in record["interactions"]], ["unrecorded", "unrecorded"])

    def test_openinference_flattened_messages(self):
        flat = {"openinference.span.kind": "LLM",
                "llm.input_messages.0.message.role": "user", "llm.input_messages.0.message.content": "Will Cygnus list?",
                "llm.input_messages.1.message.role": "assistant",
                "llm.input_messages.1.message.tool_calls.0.tool_call.id": "c1",
                "llm.input_messages.1.message.tool_calls.0.tool_call.function.name": "web_search",
                "llm.input_messages.1.message.tool_calls.0.tool_call.function.arguments": '{"query": "q"}',
                "llm.input_messages.2.message.role": "tool", "llm.input_messages.2.message.tool_call_id": "c1",
                "llm.input_messages.2.message.content": SEARCH,
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": "See https://x.example/late"}
        (record,) = records(log(self.tmp.name, span("aa", 0, flat)))
        self.assertEqual([(c["tool"], c["query"], c["status"]) for c in record["interactions"]], [("web_search", "q", "ok")])
        self.assertEqual((record["answer"], record["citations"]), ("See https://x.example/late", ["https://x.example/late"]))

    def test_openinference_answers(self):
        completion = {"choices": [{"message": {"role": "assistant", "content": "Maybe.", "tool_calls": [
            {"id": "c9", "type": "function", "function": {"name": "web_search", "arguments": '{"query": "q"}'}}]}}]}
        llm = span("aa", 0, {"openinference.span.kind": "LLM", "output.value": completion})
        agent = span("aa", 5, {"openinference.span.kind": "AGENT", "output.value": {"output": "Yes, by March."}}, end=9)
        (record,) = records(log(self.tmp.name, llm))
        # No llm.output_messages (OPENINFERENCE_HIDE_OUTPUT_MESSAGES): the response in output.value.
        self.assertEqual((record["answer"], [(c["tool"], c["call_id"], c["status"]) for c in record["interactions"]]),
                         ("Maybe.", [("web_search", "c9", "unrecorded")]))
        (record,) = records(log(self.tmp.name, llm, agent))
        self.assertEqual(record["answer"], "Yes, by March.")  # the last span to end
        for value, answer in (("Plain text.", "Plain text."), ("__REDACTED__", "Maybe."), ({"other": "x"}, "Maybe."),
                              ({"final_output": "Final."}, "Final.")):
            agent = span("aa", 5, {"openinference.span.kind": "AGENT", "output.value": value}, end=9)
            self.assertEqual(records(log(self.tmp.name, llm, agent))[0]["answer"], answer, value)

    def test_log_records(self):
        def event(trace, time, attributes):
            record = {"timeUnixNano": str(time * 10**9), "eventName": "gen_ai.client.inference.operation.details",
                      "attributes": [{"key": k, "value": {"stringValue": v if isinstance(v, str) else json.dumps(v)}}
                                     for k, v in attributes.items()]}
            if trace:
                record["traceId"] = trace
            return record

        first = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": [SYSTEM],
                 "gen_ai.output.messages": [call("c1", "web_search", {"query": "q"})]}
        second = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": [SYSTEM, call("c1", "web_search", {"query": "q"}),
                                                                            reply("c1", SEARCH)], "gen_ai.output.messages": []}
        other = {"log.message": "connected"}  # not a GenAI event: not read
        path = Path(self.tmp.name) / "logs.json"
        path.write_text(json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [
            event(None, 1, first), event("", 2, other), event(None, 3, second)]}]}]}), encoding="utf-8")
        (record,) = records(path)  # no trace context: joined by their messages
        self.assertEqual([(c["tool"], c["status"], c["time"]) for c in record["interactions"]],
                         [("web_search", "ok", "1970-01-01T00:00:01+00:00")])
        self.assertEqual(record["sample_id"], f"{path} resourceLogs[0] scopeLogs[0] logRecords[0]")
        path.write_text(json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [event("", 2, other)]}]}]}), encoding="utf-8")
        with self.assertRaisesRegex(Exception, "no span in the log"):
            records(path)
        path.write_text(json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [7]}]}]}), encoding="utf-8")
        with self.assertRaisesRegex(Exception, r"resourceLogs\[0\] scopeLogs\[0\] logRecords\[0\]: a log record: expected an object, got 7"):
            records(path)

    def test_langchain_tool_spans(self):
        def tool(trace, start, inputs, output):
            return span(trace, start, {"openinference.span.kind": "TOOL", "tool.name": "web_search",
                                       "input.value": inputs, "output.value": output}, name="web_search")

        page = {"type": "tool", "data": {"content": SEARCH, "tool_call_id": "c1"}}
        calls = [call("c1", "web_search", {"query": "a"}), call("c2", "web_search", {"query": "b"})]
        spans = [chat("aa", 0, [SYSTEM], [{"role": "assistant", "parts": [p for m in calls for p in m["parts"]]}]),
                 tool("bb", 2, "{'query': 'a'}", page), tool("cc", 3, "{'query': 'b'}", page)]
        (record,) = records(log(self.tmp.name, *spans))
        # Two tool spans of one name, no ids: the first and the second call, in order; one sample.
        self.assertEqual([(c["call_id"], c["query"], c["time"], c["returned"][0].get("published_date"))
                          for c in record["interactions"]],
                         [("c1", "a", "1970-01-01T00:00:02+00:00", "2023-02-09"), ("c2", "b", "1970-01-01T00:00:03+00:00", "2023-02-09")])
        for inputs, arguments in (
            ("{'query': 'a', 'n': 3}", {"query": "a", "n": 3}),
            ("{'query': {1, 2}}", "{'query': {1, 2}}"),  # a set is no JSON value: kept as the text
            ("{'query': b'x'}", "{'query': b'x'}"),
            ("{1: 'a'}", "{1: 'a'}"),
            ("{'q': 1e999}", "{'q': 1e999}"),  # infinity is no JSON number
            ("{'query': __import__('os')}", "{'query': __import__('os')}"),  # not a literal: never run
            ("{" * 200 + "}" * 200, "{" * 200 + "}" * 200),
            ("{'q': '" + "x" * (64 * 1024) + "'}", "{'q': '" + "x" * (64 * 1024) + "'}"),  # too long to read
        ):
            with self.subTest(inputs[:30]):
                (record,) = records(log(self.tmp.name, tool("dd", 0, inputs, "no link")))
                self.assertEqual(record["interactions"][0]["arguments"], arguments)
        for output, items in (
            ({"type": "tool", "data": {"content": SEARCH}}, 1),
            ({"output": {"lc": 1, "type": "constructor", "kwargs": {"content": SEARCH}}, "kwargs": {}}, 1),
            ({"output": {"other": "https://x.example/a"}}, 1),  # not a message: read whole
            ({"data": {"content": "x"}}, 0),  # no type: not a message dump, and no URL
        ):
            with self.subTest(output):
                (record,) = records(log(self.tmp.name, tool("dd", 0, "{'query': 'a'}", output)))
                self.assertEqual(len(record["interactions"][0]["returned"]), items)

    def test_unreadable_messages_are_not_a_clean_run(self):
        for value in ("not json", '{"role": "user"}', "[1, 2]", '[{"role": 3, "parts": []}]'):
            with self.subTest(value):
                bad = span("aa", 0, {"gen_ai.operation.name": "chat", "gen_ai.input.messages": value,
                                     "gen_ai.response.finish_reasons": ["tool_calls"]})
                bad["attributes"][-1] = {"key": "gen_ai.response.finish_reasons",
                                         "value": {"arrayValue": {"values": [{"stringValue": "tool_calls"}]}}}
                (record,) = records(log(self.tmp.name, bad))
                # No call read, and its finish reason says it made one: unrecorded, and warned about.
                self.assertEqual([(c["tool"], c["status"]) for c in record["interactions"]], [("unknown", "unrecorded")])
                self.assertIn(GENAI_FIX, record["warnings"][0])
        huge = {"openinference.span.kind": "LLM", "llm.output_messages.99999999.message.role": "assistant",
                "llm.finish_reason": "stop"}
        (record,) = records(log(self.tmp.name, span("aa", 0, huge)))
        self.assertEqual(record["warnings"], ["1 chat span(s) recorded no message and the trace no tool call: inputs and "
                                              "outputs are hidden or not captured (" + OPENINFERENCE_FIX + ")"])

    def test_chat_spans_without_a_tool_call_are_warned_even_when_their_content_is_recorded(self):
        spans = [chat("aa", 0, [SYSTEM], [{"role": "assistant", "parts": [{"type": "text", "content": "No."}]}])]
        (record,) = records(log(self.tmp.name, *spans))
        self.assertEqual((record["interactions"], record["answer"]), ([], "No."))
        # Issue 27: a trace with chat spans and no tool call is warned about, content or not: the spans
        # of its tool calls may simply be missing (another exporter, a sampled trace).
        self.assertEqual(record["warnings"], [NO_TOOL_CALL])



class BuilderTest(unittest.TestCase):
    """The committed fixtures are what the pinned packages write today."""

    def test_rebuilt_fixtures_match(self):
        from tests.fixtures_build import build_otel_fixtures as builder

        installed = installed_or_skip(self, builder.PACKAGES)
        built = builder.build([stem for stem in builder.RUNS if stem not in builder.SLOW])  # the rest: slow_otel.py
        self.assertEqual(sorted([*built, *(stem + ".json" for stem in builder.SLOW)]),
                         sorted(p.name for p in DATA.glob("*.json*") if p.name != "figures.json"))
        compare_rebuilt(self, installed == builder.PACKAGES, built)


def installed_or_skip(test, packages):
    """The installed version of each of *packages*; a test skips without them (fails when CI requires them)."""
    try:
        return {name: importlib.metadata.version(name) for name in packages}
    except importlib.metadata.PackageNotFoundError as exc:
        if extras_required():
            raise AssertionError(f"the fixture packages are not installed ({exc}): pip install -e '.[test]'")
        test.skipTest(f"the fixture packages are not installed ({exc})")


def compare_rebuilt(test, pinned, built):
    """The fixtures *built* now against the committed ones: the same bytes under the pinned versions,
    else the same imported traces."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in built.items():
            with test.subTest(name):
                if pinned:
                    test.assertEqual(text, (DATA / name).read_text(encoding="utf-8"))
                else:  # another version may add attributes: the imported traces must not change
                    (Path(tmp) / name).write_text(text, encoding="utf-8")
                    test.assertEqual(records(Path(tmp) / name), records(DATA / name))


if __name__ == "__main__":
    unittest.main()
