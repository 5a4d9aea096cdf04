"""Completeness accounting (issue 27): the ``unrecorded`` status, trace ``warnings``, the incomplete line.

A call whose result the log does not hold is ``unrecorded``: TCLR becomes a band over
interactions + unrecorded calls (clean at the bottom, leaking at the top), the run carries a
warning, and the table, CSV, HTML report and notebook records say so.  The last class runs every
importer on logs whose results are missing and checks that none comes out a silent clean zero.
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
import unittest
from fractions import Fraction
from pathlib import Path

from anachron.core import load_corpus_dir, parse_traces, score_traces, summarise
from anachron.core.leakage import read_sample
from anachron.output.records import SAMPLE_COLUMNS
from anachron.output.results import Results

from tests import golden_inputs
from tests.support import ROOT, require_extra, run_cli, score_table

T = "2022-06-01"
UNRECORDED_WARNING = ("1 tool call recorded no result (unrecorded): the figures are a band, not a value;"
                      " import a log that holds the tool results (https://github.com/anachron/anachron/blob/main/docs/importers.md)")
SKIPPED = "skipped 1 item of unknown type 'foo_call'"


def record(sample_id="s", warnings=None, extra=()):
    """A leaking call, an undated one, a clean one, an unrecorded search and an unrecorded local call."""
    obj = {"sample_id": sample_id, "as_of": T, "interactions": [
        {"tool": "search", "query": "a", "returned": ["fin-005"]},
        {"tool": "search", "returned": [{"id": "https://x.example/page", "title": "t"}]},
        {"tool": "search", "returned": ["fin-001"]},
        {"tool": "search", "query": "b", "status": "unrecorded"},
        {"tool": "read_file", "status": "unrecorded", "retrieval": False},
        *extra,
    ]}
    if warnings is not None:
        obj["warnings"] = warnings
    return obj


def scored(*objs):
    return score_traces(parse_traces([(f"t.jsonl:{i + 1}", o) for i, o in enumerate(objs)], load_corpus_dir()), load_corpus_dir())


def write_traces(folder, *objs):
    path = Path(folder, "traces.jsonl")
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return str(path)


class BandTest(unittest.TestCase):
    def test_the_band_counts_unrecorded_clean_then_leaking(self):
        (r,) = scored(record(warnings=[SKIPPED]))
        # 3 interactions + 1 unrecorded retrieval call (the local one is not judged): TCLR over 4.
        self.assertEqual((r.interactions, r.unrecorded, r.tclr_base, r.result_leaks, r.undated), (3, 1, 4, 1, 1))
        self.assertEqual((r.tclr, r.tclr_high_exact), (0.25, Fraction(3, 4)))
        d = r.to_dict()
        self.assertEqual((d["tclr"], d["tclr_low"], d["tclr_high"], d["unrecorded"]), (0.25, 0.25, 0.75, 1))
        self.assertEqual(d["warnings"], [SKIPPED])
        self.assertEqual(d["failed_calls"], {"refused": 0, "exhausted": 0, "error": 0})  # unrecorded is not failed
        self.assertEqual(r.calls, 4)
        self.assertIn("#4 unrecorded search: the log holds no result (clean in tclr_low, leaking in tclr_high)", r.evidence)
        self.assertEqual(read_sample(d, "run.json"), r)

    def test_only_unrecorded_calls_give_the_band_0_to_1(self):
        (r,) = scored({"sample_id": "s", "as_of": T, "interactions": [{"tool": "search", "status": "unrecorded"}] * 2})
        self.assertEqual((r.interactions, r.unrecorded, r.tclr, float(r.tclr_high_exact)), (0, 2, 0.0, 1.0))
        summary = summarise([r])
        self.assertEqual((summary.tool_using_runs, summary.mean_tclr, summary.mean_tclr_high), (1, 0.0, 1.0))

    def test_run_summary_totals_and_warnings(self):
        results = scored(record("a", [SKIPPED, SKIPPED]), record("b", [SKIPPED, "w2"]),
                         {"sample_id": "c", "as_of": T, "interactions": []})
        s = summarise(results)
        self.assertEqual((s.unrecorded, s.calls, s.incomplete), (2, 8, True))
        # means over the samples, each over its own base: (1/4 + 1/4 + 0) / 3 and (3/4 + 3/4 + 0) / 3
        self.assertEqual((s.mean_tclr, s.mean_tclr_high), (1 / 6, 0.5))
        self.assertEqual(s.warnings, (UNRECORDED_WARNING.replace("1 tool call", "2 tool calls"),
                                      f"{SKIPPED} (2 samples)", "w2"))
        d = s.to_dict()
        self.assertEqual((d["unrecorded"], d["calls"], d["incomplete"], d["warnings"]), (2, 8, True, list(s.warnings)))
        self.assertEqual(list(d)[-1], "warnings")

    def test_a_complete_run_has_no_warning_and_the_old_figures(self):
        (r,) = scored({"sample_id": "s", "as_of": T, "interactions": [{"tool": "search", "returned": ["fin-005"]}]})
        s = summarise([r])
        self.assertEqual((r.unrecorded, r.tclr, s.incomplete, s.warnings, s.calls), (0, 1.0, False, (), 1))


class ValidationTest(unittest.TestCase):
    def bad(self, obj):
        with tempfile.TemporaryDirectory() as tmp:
            status, out, err = run_cli("score", write_traces(tmp, obj), "--format", "json")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("traces.jsonl:1", err)
        return err

    def test_an_unrecorded_call_has_no_returned(self):
        for returned in ([], ["fin-001"]):
            err = self.bad({"sample_id": "s", "as_of": T, "interactions": [{"tool": "search", "status": "unrecorded", "returned": returned}]})
            self.assertIn("field 'returned': an 'unrecorded' call has no 'returned': its result is not in the log", err)

    def test_warnings_are_a_list_of_non_empty_strings(self):
        for value in ("one", [1], [""], ["  "], {"a": "b"}, None):
            err = self.bad({"sample_id": "s", "as_of": T, "interactions": [], "warnings": value})
            self.assertIn("field 'warnings': expected a list of non-empty strings", err)

    def test_warnings_become_one_line_and_keep_lone_surrogates(self):
        (r,) = scored({"sample_id": "s", "as_of": T, "interactions": [],
                       "warnings": ["a\u2028b\nc\td", "x\ud800y", "z" * 600]})
        self.assertEqual(r.warnings[:2], ("a b c d", "x\ud800y"))
        self.assertEqual(r.warnings[2], "z" * 497 + "...")
        with tempfile.TemporaryDirectory() as tmp:
            status, out, err = run_cli("score", write_traces(tmp, {"sample_id": "s", "as_of": T, "interactions": [],
                                                                    "warnings": ["x\ud800y"]}), "--format", "json")
        self.assertEqual((status, err), (0, ""))
        self.assertIn('"x\\ud800y"', out)


class OutputsTest(unittest.TestCase):
    def test_the_table_opens_with_the_incomplete_line_above_the_seal_verdict(self):
        results = scored(record(warnings=[SKIPPED]))
        lines = score_table(results).split("\n")
        self.assertEqual(lines[0], "incomplete: 1 of 4 tool calls recorded no result; TCLR is a band [0.250, 0.750]")
        self.assertTrue(lines[1].startswith("seal audit: not run"), lines[1])  # the record holds a local call
        self.assertIn("mean TCLR band           [0.250, 0.750]", lines)
        self.assertIn("unrecorded calls         1 / 4", lines)
        self.assertEqual([line for line in lines if line.startswith("warning: ")],
                         [f"warning: {UNRECORDED_WARNING}", f"warning: {SKIPPED}"])
        complete = score_table(scored({"sample_id": "s", "as_of": T, "interactions": []}))
        self.assertTrue(complete.startswith("sample "), complete[:80])
        self.assertNotIn("incomplete", complete)
        self.assertNotIn("warning", complete)

    def test_the_streamed_table_is_the_same(self):
        with tempfile.TemporaryDirectory() as tmp:
            status, out, err = run_cli("score", write_traces(tmp, record(warnings=[SKIPPED])), "--format", "table")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out, score_table(scored(record(warnings=[SKIPPED]))))

    def test_csv_and_notebook_records_carry_unrecorded_and_warnings(self):
        results = Results(scored(record(warnings=[SKIPPED, "w2"])))
        (row,) = results.to_records()
        self.assertEqual((row["unrecorded"], row["warnings"], row["calls"]), (1, f"{SKIPPED}\nw2", 4))
        self.assertEqual(list(row), list(SAMPLE_COLUMNS))
        (parsed,) = csv.DictReader(io.StringIO(results.to_csv()))
        self.assertEqual((parsed["unrecorded"], parsed["warnings"]), ("1", f"{SKIPPED}\nw2"))
        page = results._repr_html_()
        self.assertIn("incomplete: 1 of 4 tool calls recorded no result; TCLR is a band [0.250, 0.750]", page)
        self.assertIn(SKIPPED.replace("'", "&#x27;"), page)

    def test_a_sample_in_a_notebook_shows_its_band_and_warnings(self):
        (r,) = Results(scored(record(warnings=[SKIPPED])))
        card = r._repr_html_()
        for shown in ("1 of 4 interactions leaked (unrecorded calls counted clean)", "[0.250, 0.750]",
                      "1 undated interactions and 1 unrecorded call", "unrecorded calls", SKIPPED.replace("'", "&#x27;")):
            self.assertIn(shown, card)

    def test_the_html_report_shows_incomplete(self):
        with tempfile.TemporaryDirectory() as tmp:
            traces = write_traces(tmp, record(warnings=["<b>skipped</b>"]))
            status, out, err = run_cli("score", traces, "--format", "json")
            self.assertEqual((status, err), (0, ""))
            score = Path(tmp, "score.json")
            score.write_text(out, encoding="utf-8")
            for source in (traces, str(score)):
                page_path = Path(tmp, "r.html")
                status, _, err = run_cli("report", source, "--out", str(page_path))
                self.assertEqual((status, err), (0, ""), source)
                page = page_path.read_text(encoding="utf-8")
                self.assertIn("incomplete: 1 of 4 tool calls recorded no result; TCLR is a band [0.250, 0.750]", page)
                self.assertIn("&lt;b&gt;skipped&lt;/b&gt;", page)
                self.assertNotIn("<b>skipped", page)


# --- every importer, on logs whose results are missing --------------------------------------------
# Each log below is derived from a fixture of tests/data/importers (made by the real SDKs or after
# their published schemas: see its README) by removing what a log without results lacks: the tool
# result messages or blocks, the Responses `sources` (logged only on request), the OTel span
# attributes that content capture writes, the lock's last record (a torn event log), the Inspect
# tool messages.  Nothing else is changed.  The pydantic-ai and langchain logs are derived from
# histories written by pydantic-ai-slim and langchain-core themselves; the codex and gemini-cli logs
# from fixtures that follow those CLIs' published schemas (no CLI runs offline).  The OTel
# content-off logs are not derived: the real instrumentations wrote them with capture off
# (tests/data/importers/otel/README.md).

DATA = ROOT / "tests" / "data" / "importers"
AS_OF = "2023-01-01"


def _openai_chat():
    lines = [json.loads(line) for line in (DATA / "openai-chat.jsonl").read_text().splitlines() if line.strip()]
    for conversation in lines:
        conversation["messages"] = [m for m in conversation["messages"] if m.get("role") != "tool"]
    return "log.jsonl", "".join(json.dumps(c) + "\n" for c in lines)


def _openai_responses():
    items = [i for i in json.loads((DATA / "openai-responses.json").read_text()) if i.get("type") != "function_call_output"]
    for item in items:
        if item.get("type") == "web_search_call":
            item["action"]["sources"] = None
        if item.get("type") == "code_interpreter_call":
            item["outputs"] = None
    return "log.json", json.dumps(items)


def _anthropic():
    messages = json.loads((DATA / "anthropic.json").read_text())
    for message in messages:
        if isinstance(message["content"], list):
            message["content"] = [b for b in message["content"] if not b["type"].endswith("tool_result")]
    return "log.json", json.dumps([m for m in messages if m["content"]])


def _claude_code():
    out = []
    for line in (DATA / "claude-code.jsonl").read_text().splitlines():
        obj = json.loads(line)
        content = obj.get("message", {}).get("content")
        if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
            continue
        out.append(json.dumps(obj))
    return "log.jsonl", "\n".join(out) + "\n"


def _otel(keep_tool_spans=True):
    doc = json.loads((DATA / "otel.json").read_text())
    captured = {"gen_ai.tool.call.arguments", "gen_ai.tool.call.result", "input.value", "output.value",
                "input.mime_type", "output.mime_type", "traceloop.entity.input", "traceloop.entity.output"}
    for resource in doc["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                span["attributes"] = [a for a in span.get("attributes", []) if a["key"] not in captured]
            if not keep_tool_spans:  # an instrumentation that writes chat spans only
                scope["spans"] = [s for s in scope["spans"] if s["name"].startswith("chat")]
    return "log.json", json.dumps(doc)


def _mcp_events():
    return "events.jsonl", golden_inputs.event_log(torn=True)


def _lines(name):
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


def _json_lines(objs):
    return "".join(json.dumps(o) + "\n" for o in objs)


def _pydantic_ai():  # the tool-return parts (and the requests left empty) removed
    messages = json.loads((DATA / "pydantic-ai.json").read_text())
    for message in messages:
        message["parts"] = [p for p in message["parts"] if p["part_kind"] != "tool-return"]
    return "log.json", json.dumps([m for m in messages if m["parts"]])


def _langchain():  # messages_to_dict without its tool messages
    return "log.json", json.dumps([m for m in json.loads((DATA / "langchain.json").read_text()) if m["type"] != "tool"])


def _langchain_state():  # a LangGraph state saved before the tool node ran
    state = json.loads((DATA / "langchain-state.json").read_text())
    state["messages"] = [m for m in state["messages"] if m["id"][-1] != "ToolMessage"]
    return "log.json", json.dumps(state)


def _codex_rollout():  # the function_call_output items removed
    return "log.jsonl", _json_lines(o for o in _lines("codex-rollout.jsonl") if o["payload"].get("type") != "function_call_output")


def _codex_exec():  # torn: the item.completed events of items that had started are lost
    events = _lines("codex-exec.jsonl")
    started = {e["item"]["id"] for e in events if e["type"] == "item.started"}
    return "log.jsonl", _json_lines(e for e in events if not (e["type"] == "item.completed" and e["item"]["id"] in started))


def _gemini_session():  # the toolCalls' result removed (ToolCallRecord.result is optional)
    records = _lines("gemini-cli-session.jsonl")
    for record in records:
        for call in record.get("toolCalls", []):
            del call["result"]
    return "log.jsonl", _json_lines(records)


def _gemini_stream():  # the tool_result events removed
    return "log.jsonl", _json_lines(o for o in _lines("gemini-cli-stream.jsonl") if o["type"] != "tool_result")


def _otel_fixture(name):
    return lambda: ("log.json", (DATA / "otel" / name).read_text())


LOGS = {
    "openai-chat": _openai_chat,
    "openai-responses": _openai_responses,
    "anthropic": _anthropic,
    "claude-code": _claude_code,
    "otel": _otel,
    "mcp-events": _mcp_events,
    "pydantic-ai": _pydantic_ai,
    "langchain": _langchain,
    "langchain state": _langchain_state,
    "codex": _codex_rollout,
    "codex exec": _codex_exec,
    "gemini-cli": _gemini_session,
    "gemini-cli stream": _gemini_stream,
    "otel openai-v2-no-content": _otel_fixture("openai-v2-no-content.json"),
    "otel openinference-hidden": _otel_fixture("openinference-hidden.json"),
    "otel traceloop-no-content": _otel_fixture("traceloop-no-content.json"),
    "otel pydantic-ai-v2-no-content": _otel_fixture("pydantic-ai-v2-no-content.json"),
}


class MissingResultsTest(unittest.TestCase):
    def score(self, fmt, name, text):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, name)
            path.write_text(text, encoding="utf-8")
            status, out, err = run_cli("score", "--from", fmt, str(path), "--as-of", AS_OF, "--format", "json")
        self.assertEqual(status, 0, f"{fmt}: {err}")
        return json.loads(out)

    def assert_not_silent(self, fmt, doc):
        summary = doc["summary"]
        self.assertTrue(summary["mean_tclr_high"] > 0 or summary["warnings"], f"{fmt}: a silent clean zero")
        for sample in doc["samples"]:  # each sample on its own: a run warning does not excuse a clean zero
            self.assertTrue(sample["tclr_high"] > 0 or sample["warnings"], f"{fmt} {sample['sample_id']}: a silent clean zero")

    def test_every_importer_flags_missing_results(self):
        # Exact figures per format: (unrecorded calls, interactions, run warnings).
        expected = {
            # Both conversations' calls; a call with no result cannot be shown local, so `python` counts too.
            "openai-chat": (5, 0, 1),  # its `python` call is a shell with a local command: local (core.seal.SHELL_TOOLS)
            # The search without sources, get_filings, code_interpreter without outputs; the failed search stays failed.
            "openai-responses": (3, 0, 1),
            "anthropic": (4, 0, 1),  # two searches, the fetch and get_price, their result blocks removed
            "claude-code": (4, 0, 1),  # WebSearch, Bash (curl), WebFetch, the lock's search
            "otel": (3, 0, 4),  # three spans without content (one per instrumentation: each warns with its setting); the failed brave_search stays failed
            "mcp-events": (0, 5, 1),  # the torn last call is not scored, and the run says so
            # Run warnings below: the core's band warning and the importer's cause-and-fix line.
            "pydantic-ai": (3, 0, 2),  # search, fetch, days_between: nothing shows the local one local
            "langchain": (3, 0, 2),
            "langchain state": (3, 0, 2),
            "codex": (2, 0, 2),  # tavily__search, fetch__fetch; shell_command `ls` stays local (its warning counts 3)
            "codex exec": (2, 1, 2),  # the native web_search (never has results) and the MCP fetch; the curl shell is scored
            "gemini-cli": (2, 0, 2),  # tavily_search, web_fetch; read_file is local by name (its warning counts 3)
            "gemini-cli stream": (3, 0, 2),  # google_web_search, run_shell_command (curl), web_fetch
            # Written with capture off: the two tool-calling model turns give one unrecorded call
            # each; the last turn's sample has no call and warns on its own (3 samples in all).
            "otel openai-v2-no-content": (2, 0, 3),
            "otel openinference-hidden": (2, 0, 3),
            "otel traceloop-no-content": (2, 0, 3),
            "otel pydantic-ai-v2-no-content": (3, 0, 2),  # pydantic-ai writes tool spans, without content
        }
        self.assertEqual(set(expected), set(LOGS))
        for name, build in LOGS.items():
            fmt = name.split(" ")[0]
            with self.subTest(name):
                doc = self.score(fmt, *build())
                self.assert_not_silent(name, doc)
                s = doc["summary"]
                self.assertEqual((s["unrecorded"], sum(x["interactions"] for x in doc["samples"]), len(s["warnings"])),
                                 expected[name])
                self.assertEqual(s["incomplete"], s["unrecorded"] > 0)

    def test_score_events_on_a_torn_log_warns_in_the_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "events.jsonl")
            path.write_text(golden_inputs.event_log(torn=True), encoding="utf-8", errors="surrogatepass")
            status, out, err = run_cli("score-events", str(path), "--as-of", T, "--format", "json")
        self.assertEqual(status, 0, err)
        (warning,) = json.loads(out)["summary"]["warnings"]
        self.assertEqual(warning, f"{path}:11: the last line is torn (a write was cut short): it is left out;"
                                  " a call it held is not scored (let the server finish its run)")

    def test_chat_spans_without_any_tool_call_are_warned_about(self):
        doc = self.score("otel", *_otel(keep_tool_spans=False))
        self.assert_not_silent("otel", doc)
        (sample,) = doc["samples"]
        self.assertEqual((sample["interactions"], sample["unrecorded"], sample["tclr_high"]), (0, 0, 0.0))
        self.assertEqual(len(sample["warnings"]), 1)
        self.assertIn("model turns but no tool call", sample["warnings"][0])
        self.assertEqual(doc["summary"]["warnings"], sample["warnings"])

    def test_inspect_calls_without_results(self):
        require_extra("inspect_ai", "inspect")
        from inspect_ai.model import ChatMessageAssistant, ChatMessageUser
        from inspect_ai.tool import ToolCall

        from anachron.inspect.scorer import trace_record

        # An Inspect conversation whose tool messages were removed and whose store holds no lock record.
        messages = [ChatMessageUser(content="q"), ChatMessageAssistant(content="", tool_calls=[
            ToolCall(id="a", function="search", arguments={"query": "cygnus"}),
            ToolCall(id="b", function="fetch", arguments={"id_or_url": "fin-005"})])]
        obj = trace_record("s", T, "unrestricted", messages, corpus=load_corpus_dir())
        (r,) = scored(obj)
        self.assertEqual((r.interactions, r.unrecorded, r.tclr, float(r.tclr_high_exact)), (0, 2, 0.0, 1.0))
        self.assertTrue(summarise([r]).warnings)


if __name__ == "__main__":
    unittest.main()
