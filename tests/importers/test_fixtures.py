"""Importers (anachron.importers, docs/importers.md): each format's fixture imported and scored
with exact figures and evidence, malformed logs as one-line errors, result shapes of the search
services, citations of imported runs, and the fixtures rebuilt with the vendors' SDKs."""

import datetime as dt
import json
import os
import tempfile
import unittest
from pathlib import Path

from anachron.core import load_corpus_dir, parse_traces, score_traces
from anachron.core.errors import AnachronError, describe
from anachron.importers import FORMATS, Options, import_logs

from tests.support import ROOT, require_extra, run_cli

DATA = ROOT / "tests" / "data" / "importers"
T = "2023-01-01"


def fixture(name):
    return str(DATA / name)


def scored(fmt, *logs, extra=()):
    status, out, err = run_cli("score", "--from", fmt, *logs, "--as-of", T, "--format", "json", *extra)
    if status != 0:
        raise AssertionError(err)
    return json.loads(out)


def figures(sample):
    keys = ("interactions", "result_leaks", "undated", "query_intent_leaks", "content_leaks", "seal_breaches")
    return {key: sample[key] for key in keys} | {"tclr": sample["tclr"], "failed": sample["failed_calls"]["error"]}


class FormatTest(unittest.TestCase):
    def test_formats(self):
        self.assertEqual(FORMATS, ("openai-chat", "openai-responses", "anthropic", "claude-code", "otel",
                                   "pydantic-ai", "langchain", "codex", "gemini-cli", "mcp-events"))

    def test_inspect_logs_are_the_inspect_adapters_to_read(self):
        # the importers are standard library only; Inspect's reader sits a layer above them
        with self.assertRaisesRegex(AnachronError, "anachron.inspect.import_inspect_logs"):
            list(import_logs("inspect", [fixture("openai-chat.jsonl")], Options(as_of=dt.date(2023, 1, 1))))

    def test_openai_chat(self):
        doc = scored("openai-chat", fixture("openai-chat.jsonl"), extra=("--sample-id-from", "id", "--sealed-tools", "web_search,fetch_page"))
        a, b = doc["samples"]
        self.assertEqual((a["sample_id"], b["sample_id"]), ("chat-a", "chat-b"))
        # Three ok calls (two parallel searches, then a fetch reusing the id call_1); the second search leaks.
        self.assertEqual(figures(a), {"interactions": 3, "result_leaks": 1, "undated": 0, "query_intent_leaks": 1,
                                      "content_leaks": 0, "seal_breaches": 0, "tclr": 1 / 3, "failed": 0})
        self.assertEqual(a["evidence"], [
            "#2 query 'cygnus robotics ipo february 2023' reaches for 2023-02-01 > 2023-01-01",
            "#2 result item https://www.reuters.com/markets/cygnus-prices-ipo/ dated 2023-02-09 > 2023-01-01 (dated by field 'published_date')",
        ])
        # A shell call with curl (it reaches the network: a retrieval); then a search no tool message answered
        # (unrecorded: TCLR's band is [0, 1/2]) beside a custom tool call `python` (local: not search-like, no query, URL or item).
        self.assertEqual(figures(b), {"interactions": 1, "result_leaks": 0, "undated": 0, "query_intent_leaks": 0,
                                      "content_leaks": 0, "seal_breaches": 2, "tclr": 0.0, "failed": 0})
        self.assertEqual((b["unrecorded"], b["tclr_high"]), (1, 0.5))
        self.assertEqual(b["evidence"], [
            "#1 shell call 'execute_command' can reach the network: declare --isolated-shell execute_command if it could not",
            "#1 shell command names the network (evidence only): curl -s 'https://api.example.com/prices?symbol=ACME&date=2023-03-01'",
            "#2 unrecorded web_search: the log holds no result (clean in tclr_low, leaking in tclr_high)",
            "#3 shell call 'python' can reach the network: declare --isolated-shell python if it could not",
        ])
        self.assertEqual((doc["summary"]["sealed"], doc["summary"]["seal_breaches"]), (False, 2))
        _, record = list(import_logs("openai-chat", [fixture("openai-chat.jsonl")], Options(as_of=dt.date(2023, 1, 1))))[1]
        self.assertEqual([(c["tool"], c["status"], c.get("arguments")) for c in record["interactions"]], [
            ("execute_command", "ok", {"command": "curl -s 'https://api.example.com/prices?symbol=ACME&date=2023-03-01'"}),
            ("web_search", "unrecorded", {"query": "acme share price"}),
            ("python", "ok", "print(41.2)"),
        ])

    def test_default_sample_ids_are_the_conversations_own_else_the_line(self):
        doc = scored("openai-chat", fixture("openai-chat.jsonl"))
        self.assertEqual([s["sample_id"] for s in doc["samples"]], ["chat-a", "chat-b"])
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "log.jsonl"
            log.write_text("".join(json.dumps(conversation(("search", {"query": "q"}, "r"))) + "\n" for _ in range(2)))
            self.assertEqual([s["sample_id"] for s in scored("openai-chat", str(log))["samples"]], ["log-1", "log-2"])

    def test_openai_responses(self):
        doc = scored("openai-responses", fixture("openai-responses.json"), extra=("--sealed-tools", "web_search"))
        (s,) = doc["samples"]
        self.assertEqual(s["sample_id"], "openai-responses")
        # web_search (cnbc dated by its URL leaks), a failed web_search, get_filings (SEC, 2022-11-30), code_interpreter.
        self.assertEqual(figures(s), {"interactions": 3, "result_leaks": 1, "undated": 0, "query_intent_leaks": 0,
                                      "content_leaks": 0, "seal_breaches": 2, "tclr": 1 / 3, "failed": 1})
        self.assertEqual(s["evidence"], [
            "#1 result item https://www.cnbc.com/2023/02/09/cygnus-robotics-ipo.html dated 2023-02-09 > 2023-01-01 (dated by url)",
            "#1 undated item https://example.com/about-cygnus (no date found)",
            "#3 tool 'get_filings' is outside the time lock",
            "#4 shell call 'code_interpreter' can reach the network: declare --isolated-shell code_interpreter if it could not",
            "#4 shell command names the network (evidence only): import requests print(requests.get('https://example.com/cygnus.json').status_...",
        ])

    def test_anthropic(self):
        doc = scored("anthropic", fixture("anthropic.json"), extra=("--sealed-tools", "get_price"))
        (s,) = doc["samples"]
        # web_search (FT page_age Feb 9 2023 leaks), web_fetch (dated by URL, its text mentions March 2023),
        # a web_search error (max_uses_exceeded) and a client tool_use get_price answered is_error: true (a
        # local call by the default rule: not search-like, no query, URL or item; audited, never a failed call).
        self.assertEqual(figures(s), {"interactions": 2, "result_leaks": 1, "undated": 0, "query_intent_leaks": 0,
                                      "content_leaks": 1, "seal_breaches": 3, "tclr": 0.5, "failed": 1})
        self.assertEqual(s["evidence"], [
            "#1 tool 'web_search' is outside the time lock",
            "#1 result item https://www.ft.com/content/cygnus-robotics-ipo dated 2023-02-09 > 2023-01-01 (dated by field 'page_age')",
            "#2 tool 'web_fetch' is outside the time lock",
            "#2 content of item https://example.org/2022/12/20/cygnus-robotics mentions March 2023 > 2023-01-01",
            "#3 tool 'web_search' is outside the time lock",  # failed: the tool was reachable all the same
        ])

    def test_claude_code(self):
        doc = scored("claude-code", fixture("claude-code.jsonl"), extra=("--sealed-tools-from", fixture("mcp.json")))
        (s,) = doc["samples"]
        self.assertEqual(s["sample_id"], "5f0c6a9e-7c1d-4c55-9d8e-2f3b1a6c0d11")
        # WebSearch (Bloomberg dated by URL leaks; the query's "2023" begins on T: no query leak), Bash (curl),
        # WebFetch (an undated profile), mcp__timelock__search (a URL dated 2022-11-01).
        self.assertEqual(figures(s), {"interactions": 4, "result_leaks": 1, "undated": 1, "query_intent_leaks": 0,
                                      "content_leaks": 0, "seal_breaches": 3, "tclr": 0.25, "failed": 0})
        self.assertEqual(s["tclr_high"], 0.5)
        self.assertEqual(s["evidence"], [
            "#1 tool 'WebSearch' is outside the time lock",
            "#1 result item https://www.bloomberg.com/news/articles/2023-02-09/cygnus-robotics-prices-ipo dated 2023-02-09 > 2023-01-01 (dated by url)",
            "#1 undated item https://example.net/cygnus-profile (no date found)",
            "#2 shell call 'Bash' can reach the network: declare --isolated-shell Bash if it could not",
            "#2 shell command names the network (evidence only): curl -s https://example.com/cygnus.json",
            "#3 tool 'WebFetch' is outside the time lock",
            "#3 undated item https://example.net/cygnus-profile (no date found)",
        ])

    def test_a_claude_code_run_through_a_configured_lock_is_unverified(self):
        # A configuration is a claim: without the lock's own log the run is never shown sealed.
        status, out, err = run_cli("score", "--from", "claude-code", fixture("claude-code-sealed.jsonl"), "--as-of", T,
                                   "--sealed-tools-from", fixture("mcp.json"))
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.splitlines()[0], "sealed: unverified (config only: pass --lock-events EVENTS.jsonl to check "
                         "the calls against the lock's log; 0 seal breaches in 1 sample; 2 calls audited)")
        doc = scored("claude-code", fixture("claude-code-sealed.jsonl"), extra=("--sealed-tools-from", fixture("mcp.json")))
        self.assertEqual((doc["summary"]["sealed"], doc["summary"]["seal_status"], doc["samples"][0]["interactions"],
                          doc["samples"][0]["tclr"]), (None, "unverified", 2, 0.0))

    def test_claude_code_local_tools_are_not_interactions(self):
        # The review's case: one leaking WebSearch, then Read (a notes file full of URLs, one dated 2024), Edit,
        # TodoWrite and Grep.  Counted as interactions they made TCLR 2/5 = 0.400; the true rate is 1/1.
        doc = scored("claude-code", fixture("claude-code-local.jsonl"), extra=("--sealed-tools", "mcp__timelock__search"))
        (s,) = doc["samples"]
        self.assertEqual(figures(s), {"interactions": 1, "result_leaks": 1, "undated": 0, "query_intent_leaks": 0,
                                      "content_leaks": 0, "seal_breaches": 5, "tclr": 1.0, "failed": 0})
        self.assertEqual(s["tclr_high"], 1.0)
        self.assertEqual(s["evidence"], [
            "#1 tool 'WebSearch' is outside the time lock",
            "#1 result item https://www.bloomberg.com/news/articles/2023-02-09/cygnus-robotics-prices-ipo dated 2023-02-09 > 2023-01-01 (dated by url)",
            "#2 tool 'Read' is outside the time lock",  # local calls stay in the trace for the seal audit
            "#3 tool 'Edit' is outside the time lock",
            "#4 tool 'TodoWrite' is outside the time lock",
            "#5 tool 'Grep' is outside the time lock",
        ])
        _, record = next(import_logs("claude-code", [fixture("claude-code-local.jsonl")], Options(as_of=dt.date(2023, 1, 1))))
        self.assertEqual([(c["tool"], c.get("retrieval", True), len(c["returned"])) for c in record["interactions"]], [
            ("WebSearch", True, 1), ("Read", False, 0), ("Edit", False, 0), ("TodoWrite", False, 0), ("Grep", False, 0),
        ])

    def test_retrieval_tools_overrides_the_default(self):
        doc = scored("claude-code", fixture("claude-code-local.jsonl"), extra=("--retrieval-tools", "Read"))
        (s,) = doc["samples"]
        # Only Read retrieves: its file's 2024 Reuters URL leaks, its other URL is undated; WebSearch is local now.
        self.assertEqual((s["interactions"], s["result_leaks"], s["undated"], s["tclr"]), (1, 1, 0, 1.0))
        self.assertEqual(s["evidence"], [
            "#2 result item https://www.reuters.com/2024/05/01/cygnus-results/ dated 2024-05-01 > 2023-01-01 (dated by url)",
            "#2 undated item https://example.net/cygnus-notes (no date found)",
        ])
        status, _, err = run_cli("score", "--from", "claude-code", fixture("claude-code-local.jsonl"), "--as-of", T, "--retrieval-tools", "a,,b")
        self.assertEqual((status, err), (2, "anachron: --retrieval-tools: expected tool names separated by commas, got 'a,,b'\n"))

    def test_retrieval_tools_is_not_read_for_anachrons_own_logs(self):
        with self.assertRaisesRegex(AnachronError, "^--retrieval-tools is not read for mcp-events logs"):
            list(import_logs("mcp-events", [fixture("mcp.json")], Options(as_of=dt.date(2023, 1, 1), retrieval_tools=frozenset({"a"}))))

    def test_the_default_retrieval_rule(self):
        from anachron.importers._common import is_retrieval

        cases = [
            ("claude-code", {"tool": "Read", "returned": [{"url": "https://x.example/"}]}, False),
            ("claude-code", {"tool": "TodoWrite"}, False),
            ("claude-code", {"tool": "WebFetch", "status": "error"}, True),
            ("claude-code", {"tool": "mcp__tavily__tavily-extract"}, True),  # an MCP tool: retrieval
            ("claude-code", {"tool": "Bash", "command": "ls -la"}, False),
            ("claude-code", {"tool": "Bash", "command": "curl -s https://x.example/"}, True),
            ("claude-code", {"tool": "Bash"}, False),  # no command recorded: nothing says it reached the network
            ("openai-chat", {"tool": "calculator", "returned": []}, False),
            ("openai-chat", {"tool": "search_docs", "returned": []}, True),  # search-like name, even with nothing found
            ("openai-chat", {"tool": "lookup", "query": "acme"}, True),  # a query
            ("openai-chat", {"tool": "open", "target": "https://x.example/"}, True),  # a URL
            ("otel", {"tool": "get_company", "returned": [{"url": "https://x.example/"}]}, True),  # showed items
            ("anthropic", {"tool": "code_interpreter", "command": "print(1)"}, False),
            ("anthropic", {"tool": "code_interpreter", "command": "import requests"}, True),
        ]
        for log_format, entry, expected in cases:
            with self.subTest(log_format=log_format, entry=entry):
                self.assertIs(is_retrieval(entry, log_format, None), expected)
        self.assertIs(is_retrieval({"tool": "Read"}, "claude-code", frozenset({"Read"})), True)
        self.assertIs(is_retrieval({"tool": "WebSearch"}, "claude-code", frozenset({"Read"})), False)

    def test_otel(self):
        doc = scored("otel", fixture("otel.json"))
        semconv, langchain = doc["samples"]
        self.assertEqual((semconv["sample_id"], langchain["sample_id"]), ("5b8efff798038103d269b633813fc60c", "0af7651916cd43dd8448eb211c80319c"))
        # GenAI semconv: tavily_search leaks; brave_search failed (status code 2).
        self.assertEqual(figures(semconv), {"interactions": 1, "result_leaks": 1, "undated": 0, "query_intent_leaks": 0,
                                            "content_leaks": 0, "seal_breaches": None, "tclr": 1.0, "failed": 1})
        self.assertEqual(semconv["evidence"], [
            "#1 result item https://www.reuters.com/markets/cygnus-prices-ipo/ dated 2023-02-09 > 2023-01-01 (dated by field 'published_date')",
        ])
        # OpenInference serper_search (organic, "Feb 9, 2023") leaks; OpenLLMetry brave_search (web.results) is known.
        self.assertEqual(figures(langchain), {"interactions": 2, "result_leaks": 1, "undated": 0, "query_intent_leaks": 0,
                                              "content_leaks": 0, "seal_breaches": None, "tclr": 0.5, "failed": 0})
        self.assertEqual(langchain["evidence"], [
            "#1 result item https://www.marketwatch.com/story/cygnus-robotics-ipo dated 2023-02-09 > 2023-01-01 (dated by field 'date')",
        ])
        self.assertIsNone(doc["summary"]["sealed"])
        status, table, _ = run_cli("score", "--from", "otel", fixture("otel.json"), "--as-of", T)
        # Search calls only: no audit could apply, so no seal line (issue 24); the JSON's "sealed" is null.
        self.assertTrue(table.startswith("sample "), table[:80])

    def test_otel_samples_by_attribute(self):
        doc = scored("otel", fixture("otel.json"), extra=("--sample-id-from", "service.name"))
        # Both traces carry the resource attribute service.name=forecaster: one sample of both.
        (s,) = doc["samples"]
        self.assertEqual((s["sample_id"], s["interactions"], s["result_leaks"]), ("forecaster", 3, 2))
        status, out, err = run_cli("score", "--from", "otel", fixture("otel.json"), "--as-of", T, "--sample-id-from", "session.id")
        self.assertEqual((status, out), (2, ""))
        self.assertIn("no span or resource of trace 5b8efff798038103d269b633813fc60c has attribute 'session.id'", err)

    def test_the_imported_trace_keeps_calls_answer_and_citations(self):
        records = list(import_logs("otel", [fixture("otel.json")], Options(as_of=dt.date(2023, 1, 1))))
        first = records[0][1]
        self.assertEqual(first["answer"], "Yes, see https://www.reuters.com/markets/cygnus-prices-ipo/")
        self.assertEqual(first["citations"], ["https://www.reuters.com/markets/cygnus-prices-ipo/"])
        self.assertEqual([(c["tool"], c["status"], c.get("query"), c.get("call_id"), c["time"]) for c in first["interactions"]], [
            ("tavily_search", "ok", "cygnus robotics ipo", "call_t1", "2023-01-01T00:00:10+00:00"),
            ("brave_search", "error", "cygnus robotics", "call_t2", "2023-01-01T00:00:20+00:00"),
        ])
        self.assertEqual(first["interactions"][1]["error"], "429 Too Many Requests")
        _, chat = next(iter(import_logs("anthropic", [fixture("anthropic.json")], Options(as_of=dt.date(2023, 1, 1)))))
        self.assertEqual(chat["citations"], ["https://example.org/2022/12/20/cygnus-robotics"])
        self.assertEqual(chat["interactions"][2]["error"], "web_search_tool_result_error: max_uses_exceeded")

    def test_failed_calls_keep_their_message(self):
        with tempfile.TemporaryDirectory() as tmp:
            def errors(fmt, name, value, lines=False):
                path = Path(tmp, name)
                path.write_text("".join(json.dumps(v) + "\n" for v in value) if lines else json.dumps(value))
                (_, record), = import_logs(fmt, [str(path)], Options(as_of=dt.date(2023, 1, 1)))
                return [(c["tool"], c["status"], c.get("error")) for c in record["interactions"]]

            self.assertEqual(errors("anthropic", "a.json", [{"role": "assistant", "content": [
                {"type": "server_tool_use", "id": "s1", "name": "web_fetch", "input": {"url": "https://x.example/a"}},
                {"type": "web_fetch_tool_result", "tool_use_id": "s1", "content": {"type": "web_fetch_tool_result_error", "error_code": "url_not_accessible"}},
                {"type": "server_tool_use", "id": "s2", "name": "web_search", "input": {"query": "q"}},
            ]}]), [("web_fetch", "error", "web_fetch_tool_result_error: url_not_accessible"),
                   ("web_search", "unrecorded", None)])  # no result record: unrecorded, not failed
            self.assertEqual(errors("claude-code", "c.jsonl", [
                {"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "WebFetch", "input": {"url": "https://x.example/a"}}]}},
                {"type": "user", "toolUseResult": "Error: Request failed with status code 404", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "Request failed with status code 404"}]}},
            ], lines=True), [("WebFetch", "error", "Request failed with status code 404")])
            self.assertEqual(errors("openai-responses", "r.json", [
                {"type": "web_search_call", "id": "ws", "status": "incomplete", "action": {"type": "search", "query": "q"}},
            ]), [("web_search", "error", "web_search_call status incomplete")])

    def test_as_of_map(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "as-of.json")
            path.write_text(json.dumps({"chat-a": "2023-03-01", "chat-b": "2022-06-01"}))
            scored_with_map = json.loads(run_cli(
                "score", "--from", "openai-chat", fixture("openai-chat.jsonl"), "--as-of-map", str(path), "--sample-id-from", "id", "--format", "json",
            )[1])
            self.assertEqual([(s["sample_id"], s["as_of"], s["result_leaks"]) for s in scored_with_map["samples"]],
                             [("chat-a", "2023-03-01", 0), ("chat-b", "2022-06-01", 0)])
            path.write_text(json.dumps({"chat-a": "2023-03-01"}))
            status, out, err = run_cli("score", "--from", "openai-chat", fixture("openai-chat.jsonl"), "--as-of-map", str(path), "--sample-id-from", "id")
            self.assertEqual((status, out), (2, ""))
            self.assertEqual(err, f"anachron: {fixture('openai-chat.jsonl')}:2: sample 'chat-b' is not in the --as-of-map file\n")


class ImportCommandTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def test_import_writes_a_trace_that_scores_the_same(self):
        for fmt, name in [("openai-chat", "openai-chat.jsonl"), ("openai-responses", "openai-responses.json"),
                          ("anthropic", "anthropic.json"), ("claude-code", "claude-code.jsonl"), ("otel", "otel.json")]:
            with self.subTest(fmt=fmt):
                out = self.dir / f"{fmt}.jsonl"
                status, printed, err = run_cli("import", "--from", fmt, fixture(name), "--as-of", T, "--out", str(out))
                self.assertEqual((status, err), (0, ""))
                self.assertTrue(printed.startswith(f"wrote {out}: "))
                self.assertEqual(oct(out.stat().st_mode & 0o777), oct(0o666 & ~_umask()))
                direct = run_cli("score", "--from", fmt, fixture(name), "--as-of", T, "--format", "json")[1]
                self.assertEqual(run_cli("score", str(out), "--format", "json")[1], direct)
                again = self.dir / f"{fmt}-again.jsonl"
                run_cli("import", "--from", fmt, fixture(name), "--as-of", T, "--out", str(again))
                self.assertEqual(again.read_bytes(), out.read_bytes())  # same log, same bytes

    def test_verify_citations_on_imported_runs(self):
        anthropic_trace, chat_trace = self.dir / "a.jsonl", self.dir / "c.jsonl"
        run_cli("import", "--from", "anthropic", fixture("anthropic.json"), "--as-of", T, "--out", str(anthropic_trace))
        status, out, err = run_cli("verify-citations", "--trace", str(anthropic_trace))
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out, (
            "ok    anthropic  https://example.org/2022/12/20/cygnus-robotics: returned by call 1, dated 2022-12-20\n"
            "1 citation(s) in 1 sample(s): 1 verified, 0 failed\n"
        ))
        run_cli("import", "--from", "openai-chat", fixture("openai-chat.jsonl"), "--as-of", T, "--sample-id-from", "id", "--out", str(chat_trace))
        status, out, _ = run_cli("verify-citations", "--trace", str(chat_trace))
        self.assertEqual(status, 1)
        self.assertEqual(out, (
            "ok    chat-a  https://example.com/cygnus-files: returned by call 1, dated 2022-12-15\n"
            "FAIL  chat-a  https://www.reuters.com/markets/cygnus-prices-ipo/: returned by call 2 but dated 2023-02-09, after the cutoff 2023-01-01\n"
            "2 citation(s) in 2 sample(s): 1 verified, 1 failed; 1 sample(s) cite nothing\n"
        ))
        cc = self.dir / "cc.jsonl"
        run_cli("import", "--from", "claude-code", fixture("claude-code.jsonl"), "--as-of", T, "--out", str(cc))
        status, out, _ = run_cli("verify-citations", "--trace", str(cc))
        self.assertEqual(status, 1)
        self.assertIn("FAIL  5f0c6a9e-7c1d-4c55-9d8e-2f3b1a6c0d11  https://example.net/cygnus-profile: returned undated by call 1:"
                      " cannot be placed on or before the cutoff\n", out)

    def test_verify_citations_never_returned_and_only_asked_for(self):
        trace = self.dir / "t.jsonl"
        trace.write_text(json.dumps({"sample_id": "s", "as_of": T, "citations": ["https://a.example/x", "https://b.example/y"],
                                     "interactions": [{"tool": "fetch", "status": "refused",
                                                      "target": {"id": "https://b.example/y", "publish_date": "2023-02-01"}}]}) + "\n")
        status, out, _ = run_cli("verify-citations", "--trace", str(trace))
        self.assertEqual((status, out.splitlines()[:2]), (1, [
            "FAIL  s  https://a.example/x: never returned by a tool in this run",
            "FAIL  s  https://b.example/y: asked for by call 1 (refused), never shown to the agent",
        ]))
        status, out, err = run_cli("verify-citations", "--trace", str(trace), "--as-of", T)
        self.assertEqual((status, out), (2, ""))
        self.assertIn("--trace checks the citations and cutoff each sample carries", err)

    def test_corpus_ids_are_recognised_when_a_corpus_is_given(self):
        log = self.dir / "chat.json"
        log.write_text(json.dumps(conversation(
            ("search", {"query": "cygnus"}, json.dumps({"results": [{"id": "fin-005", "url": "https://x.example/a", "title": "t"}]})),
            ("fetch", {"id_or_url": "fin-004"}, "fin-004\nCygnus Robotics ..."),
            ("search", {"query": "cygnus"}, "1. fin-004 (2022-03-01) Cygnus ...\n2. https://x.example/b"),
        )))
        corpus_dir = str(ROOT / "corpus" / "v0")
        out = self.dir / "t.jsonl"
        self.assertEqual(run_cli("import", "--from", "openai-chat", str(log), "--as-of", "2022-06-01", "--corpus", corpus_dir, "--out", str(out))[0], 0)
        calls = json.loads(out.read_text())["interactions"]
        self.assertEqual([c["returned"] for c in calls], [
            ["fin-005"], ["fin-004"], ["fin-004", {"url": "https://x.example/b", "snippet": "2. https://x.example/b"}],
        ])
        run_cli("import", "--from", "openai-chat", str(log), "--as-of", "2022-06-01", "--out", str(out))
        calls = json.loads(out.read_text())["interactions"]
        self.assertEqual(calls[0]["returned"], [{"url": "https://x.example/a", "title": "t"}])  # no --corpus: no corpus ids

    def test_hostile_logs_import_and_write_back(self):
        log = self.dir / "hostile.json"
        chat = conversation(
            ("search", {}, json.dumps({"results": [{"url": "https://x.example/a", "published_date": "2023-02-09"}]})),
            ("search", {"query": "\u2028line\ud800"}, "see https://y.example/\u2028 and {\"a\": Infinity}"),
            ("search", {"query": "q" * 1_000_000}, "[" * 50_000),
        )
        chat["messages"][1]["tool_calls"][0]["function"]["arguments"] = '{"query": NaN}'  # what a model may emit
        log.write_text(json.dumps(chat), encoding="utf-8")
        out = self.dir / "t.jsonl"
        status, _, err = run_cli("import", "--from", "openai-chat", str(log), "--as-of", T, "--out", str(out))
        # core/jsonio.py rejects NaN (it could not be written back as JSON): the query is lost, and one line says so.
        self.assertEqual((status, err), (0, f"warning: {log}: call #1 (search): its arguments are not strict JSON "
                                            "(NaN, Infinity or a syntax error): no query or URL was read from them\n"))
        self.assertEqual(len(out.read_text(encoding="utf-8").split("\n")), 2)  # one record, one line: U+2028 is escaped
        calls = json.loads(out.read_text(encoding="utf-8"))["interactions"]
        self.assertEqual(calls[0]["arguments"], "{\"query\": NaN}")  # not JSON: kept as the string the model wrote
        self.assertEqual([len(c["returned"]) for c in calls], [1, 1, 0])
        status, _, err = run_cli("score", str(out))
        self.assertEqual((status, err), (0, ""))

    def test_an_unreadable_timestamp_is_left_out(self):
        path = self.dir / "s.jsonl"
        rows = [{"type": "assistant", "timestamp": "yesterday", "message": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t1", "name": "WebSearch", "input": {"query": "q"}}]}},
                {"type": "user", "timestamp": "2025-06-01T10:00:00Z", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "https://x.example/a"}]}}]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        (record,) = [r for _, r in import_logs("claude-code", [str(path)], Options(as_of=dt.date(2023, 1, 1)))]
        self.assertNotIn("time", record["interactions"][0])
        self.assertEqual(record["sample_id"], "s")

    def test_a_timestamp_with_no_day_in_utc_is_left_out(self):
        # The trace format refuses such a time (relative ages are counted in UTC): the importer leaves it
        # out, as any odd timestamp, so the trace it writes scores.  The last moment that has one is kept.
        for stamp, kept in (("9999-12-31T23:59:59-23:59", False), ("0001-01-01T00:00:00+00:01", False),
                            ("9999-12-31T23:59:59+00:00", True), ("0001-01-01T00:00:00-00:01", True)):
            path = self.dir / "s.jsonl"
            rows = [{"type": "assistant", "timestamp": stamp, "message": {"role": "assistant", "content": [
                        {"type": "tool_use", "id": "t1", "name": "WebSearch", "input": {"query": "q"}}]}},
                    {"type": "user", "message": {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "t1", "content": "https://x.example/a 2 days ago"}]}}]
            path.write_text("".join(json.dumps(r) + "\n" for r in rows))
            with self.subTest(stamp=stamp):
                (record,) = [r for _, r in import_logs("claude-code", [str(path)], Options(as_of=dt.date(2023, 1, 1)))]
                self.assertEqual(record["interactions"][0].get("time"), stamp if kept else None)
                (trace,) = parse_traces([("s.jsonl:1", record)], load_corpus_dir())
                self.assertEqual(trace.interactions[0].time is not None, kept)

    def test_mcp_events_through_the_same_entry(self):
        from tests.timelock.test_events import RUN_RECORDS

        log = self.dir / "run.jsonl"
        log.write_text("".join(json.dumps(r) + "\n" for r in RUN_RECORDS))
        via_import = run_cli("score", "--from", "mcp-events", str(log), "--as-of", "2022-06-01", "--format", "json")
        status, out, _ = run_cli("score-events", str(log), "--as-of", "2022-06-01", "--format", "json")
        self.assertEqual((via_import[0], status), (0, 0))
        events_doc = json.loads(out)
        # score-events alone counts the lock's protocol errors and the guarantees of what was shown (fields of the
        # lock's log, not of a trace).
        self.assertEqual(events_doc["summary"].pop("protocol_errors"), 0)
        self.assertEqual(events_doc["summary"].pop("guarantees"), {"unrecorded": 3})
        self.assertEqual(json.loads(via_import[1]), events_doc)
        # Without --as-of, the cutoff the server ran with.
        doc = json.loads(run_cli("score", "--from", "mcp-events", str(log), "--format", "json")[1])
        self.assertEqual(doc["samples"][0]["as_of"], "2022-12-31")


class EmptyLogTest(unittest.TestCase):
    """A log with no record, span or conversation is bad input, never a clean (or sealed) run of 0 calls."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = Path(self.tmp.name)

    def write(self, name, text):
        path = self.dir / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    def test_empty_and_unrelated_logs_are_one_line_errors(self):
        user = self.write("user.json", '{"role":"user"}\n')
        empty = self.write("empty.jsonl", "")
        cases = [
            ("claude-code", empty, f"{empty}: no 'user' or 'assistant' record: not a Claude Code session transcript"),
            ("claude-code", user, f"{user}: no 'user' or 'assistant' record: not a Claude Code session transcript"),
            ("otel", user, f"{user}: no span in the log (expected OTLP JSON with resourceSpans / scopeSpans / spans)"),
            ("otel", empty, f"{empty}: the log is empty"),
            ("openai-chat", empty, f"{empty}: the log is empty"),
            ("openai-chat", self.write("none.json", "[]"), f"{self.dir / 'none.json'}: the conversation has no message"),
            ("anthropic", self.write("none2.json", '{"messages": []}'), f"{self.dir / 'none2.json'}: the conversation has no message"),
            ("openai-responses", self.write("none3.json", "[]"), f"{self.dir / 'none3.json'}: the conversation has no item"),
            ("openai-responses", self.write("none4.json", '{"output": []}'), f"{self.dir / 'none4.json'}: the response has no output item"),
            ("mcp-events", self.write("torn.jsonl", '{"event": "start"'),
             f"{self.dir / 'torn.jsonl'}: the log holds no complete event record ({self.dir / 'torn.jsonl'}:1: the last line is torn "
             "(a write was cut short): it is left out)"),
        ]
        for log_format, path, message in cases:
            for command in ("import", "score"):
                with self.subTest(log_format=log_format, path=path, command=command):
                    argv = [command, "--from", log_format, path, "--as-of", T]
                    argv += ["--out", str(self.dir / "out.jsonl")] if command == "import" else ["--sealed-tools", "search"]
                    status, out, err = run_cli(*argv)
                    self.assertEqual((status, out, err), (2, "", f"anachron: {message}\n"))
                    self.assertFalse((self.dir / "out.jsonl").exists())

    def test_a_conversation_without_calls_has_no_seal_verdict(self):
        log = self.write("chat.json", json.dumps([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]))
        status, out, err = run_cli("score", "--from", "openai-chat", log, "--as-of", T, "--sealed-tools", "search")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.splitlines()[0], "seal audit: no verdict (0 calls audited in 1 sample): nothing shows the run was sealed")
        status, out, _ = run_cli("score", "--from", "openai-chat", log, "--as-of", T, "--sealed-tools", "search", "--format", "json")
        self.assertEqual((json.loads(out)["summary"]["sealed"], json.loads(out)["summary"]["seal_calls"]), (None, 0))

    def test_import_passes_the_torn_line_warning_through(self):
        from tests.timelock.test_events import RUN_RECORDS

        text = "".join(json.dumps(r) + "\n" for r in RUN_RECORDS) + '{"event": "call", "seq"'
        log = self.write("run.jsonl", text)
        out = self.dir / "t.jsonl"
        status, stdout, err = run_cli("import", "--from", "mcp-events", log, "--as-of", "2022-06-01", "--out", str(out))
        _, _, events_err = run_cli("score-events", log, "--as-of", "2022-06-01")
        self.assertEqual(status, 0)
        torn = [line for line in events_err.splitlines() if line.startswith("warning:")]
        self.assertEqual(len(torn), 1)
        rescored = [line for line in events_err.splitlines() if "the log states as of" in line]
        self.assertEqual(len(rescored), 1)
        self.assertEqual(err.splitlines(), torn + rescored)  # the same lines score-events writes
        self.assertIn("the last line is torn", err)


class PairingTest(unittest.TestCase):
    """Every importer pairs calls with results by id the same way: two calls awaiting one id are an error."""

    def test_two_calls_with_one_id_in_a_turn(self):
        with tempfile.TemporaryDirectory() as tmp:
            use = {"type": "tool_use", "id": "t1", "name": "search", "input": {"query": "q"}}
            anthropic = Path(tmp) / "a.json"
            anthropic.write_text(json.dumps([{"role": "user", "content": "q"}, {"role": "assistant", "content": [use, use]}]))
            chat = Path(tmp) / "c.json"
            tool_call = {"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}
            chat.write_text(json.dumps([{"role": "assistant", "content": None, "tool_calls": [tool_call, tool_call]}]))
            responses = Path(tmp) / "r.json"
            item = {"type": "function_call", "call_id": "f1", "name": "search", "arguments": "{}"}
            responses.write_text(json.dumps([item, item]))
            for log_format, path, at in [
                ("anthropic", anthropic, "messages[1] content[1]"),
                ("openai-chat", chat, "messages[0] tool_calls[1]"),
                ("openai-responses", responses, "items[1]"),
            ]:
                with self.subTest(log_format=log_format):
                    status, _, err = run_cli("score", "--from", log_format, str(path), "--as-of", T)
                    ident = {"anthropic": "t1", "openai-chat": "c1", "openai-responses": "f1"}[log_format]
                    self.assertEqual((status, err), (2, f"anachron: {path} {at}: tool call id {ident!r} is already awaiting its result (two calls with one id)\n"))


class OtelTimeTest(unittest.TestCase):
    def test_a_span_time_that_is_not_nanoseconds_is_an_error_naming_the_span(self):
        for key, value in [("startTimeUnixNano", "abc"), ("endTimeUnixNano", -5), ("startTimeUnixNano", True), ("startTimeUnixNano", "1e9")]:
            span = {"traceId": "ab", "spanId": "01", "name": "execute_tool search", key: value,
                    "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}]}
            document = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
            with tempfile.TemporaryDirectory() as tmp, self.subTest(key=key, value=value):
                path = Path(tmp) / "o.json"
                path.write_text(json.dumps(document))
                status, _, err = run_cli("score", "--from", "otel", str(path), "--as-of", T)
                self.assertEqual(status, 2)
                self.assertEqual(err, f"anachron: {path} resourceSpans[0] scopeSpans[0] spans[0]: {key} is {describe(value)}, "
                                      "expected nanoseconds since the epoch (a decimal string)\n")


def conversation(*calls, answer="done"):
    """A Chat Completions conversation: one assistant turn per (tool, arguments, result)."""
    messages = [{"role": "user", "content": "q"}]
    for number, (tool, arguments, result) in enumerate(calls, start=1):
        ident = f"call_{number}"
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": ident, "type": "function", "function": {"name": tool, "arguments": json.dumps(arguments)}}]})
        messages.append({"role": "tool", "tool_call_id": ident, "content": result})
    messages.append({"role": "assistant", "content": answer})
    return {"messages": messages}


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


class ResultShapeTest(unittest.TestCase):
    """Each search service's result shape becomes items the core dates (docs/importers.md)."""

    SHAPES = {
        "tavily": {"query": "q", "results": [{"url": "https://t.example/a", "title": "A", "content": "c", "published_date": "Thu, 09 Feb 2023 10:00:00 GMT"}]},
        "exa": {"results": [{"id": "https://e.example/a", "url": "https://e.example/a", "title": "A", "publishedDate": "2023-02-09T00:00:00.000Z", "text": "t"}]},
        "serper": {"organic": [{"title": "A", "link": "https://s.example/a", "snippet": "s", "date": "Feb 9, 2023"}]},
        "serpapi": {"search_metadata": {"id": "x"}, "organic_results": [{"position": 1, "title": "A", "link": "https://p.example/a", "date": "Feb 9, 2023", "snippet": "s"}]},
        "brave": {"web": {"results": [{"title": "A", "url": "https://b.example/a", "description": "d", "page_age": "2023-02-09T08:00:00", "age": "February 9, 2023"}]}},
        "data": {"success": True, "data": [{"url": "https://f.example/a", "title": "A", "description": "d", "date": "2023-02-09"}]},
        "bare list": [{"url": "https://l.example/a", "title": "A", "published": "2023-02-09"}],
    }
    SOURCES = {"tavily": "field 'published_date'", "exa": "field 'publishedDate'", "serper": "field 'date'", "serpapi": "field 'date'",
               "brave": "field 'page_age'", "data": "field 'date'", "bare list": "field 'published'"}

    def trace(self, result, tool="search", arguments=None):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp, "log.json")
            log.write_text(json.dumps(conversation((tool, arguments or {"query": "q"}, result))))
            records = list(import_logs("openai-chat", [str(log)], Options(as_of=dt.date(2023, 1, 1))))
        corpus = load_corpus_dir()
        return parse_traces(records, corpus)[0], corpus

    def test_every_shape(self):
        for name, shape in self.SHAPES.items():
            with self.subTest(shape=name):
                trace, corpus = self.trace(json.dumps(shape))
                (item,) = trace.interactions[0].returned
                self.assertEqual((item.publish_date, item.dating.source), (dt.date(2023, 2, 9), self.SOURCES[name]))
                self.assertEqual(score_traces([trace], corpus)[0].result_leaks, 1)

    def test_titles_snippets_and_text_are_what_the_agent_read(self):
        trace, _ = self.trace(json.dumps(self.SHAPES["exa"]))
        self.assertEqual(trace.interactions[0].returned[0].text, "A\nt")
        trace, _ = self.trace(json.dumps(self.SHAPES["brave"]))
        self.assertEqual(trace.interactions[0].returned[0].text, "A\nd")

    def test_plain_text_gives_its_urls_each_with_its_line(self):
        text = "Top results:\nFeb 9, 2023 - https://n.example/a. Cygnus priced\nsee (https://n.example/b) and https://n.example/a\nno url here"
        trace, _ = self.trace(text)
        items = trace.interactions[0].returned
        self.assertEqual([i.id for i in items], ["https://n.example/a", "https://n.example/b"])
        self.assertEqual(items[0].dating.source, "snippet")  # its line starts with the date
        self.assertIsNone(items[1].publish_date)

    def test_json_of_another_shape_gives_the_urls_in_its_strings(self):
        trace, _ = self.trace(json.dumps({"answer": "It listed.", "sources": {"main": "https://o.example/2023/02/09/x"}}))
        self.assertEqual([(i.id, i.publish_date) for i in trace.interactions[0].returned], [("https://o.example/2023/02/09/x", dt.date(2023, 2, 9))])

    def test_a_list_without_urls_and_an_empty_list(self):
        self.assertEqual(self.trace(json.dumps({"results": []}))[0].interactions[0].returned, ())
        # An entry with no URL was shown all the same: an item (undated here), never dropped as if clean.
        (item,) = self.trace(json.dumps({"results": [{"title": "no url"}]}))[0].interactions[0].returned
        self.assertTrue(item.id.startswith("urn:anachron:unlinked:"), item.id)
        self.assertEqual(item.status(dt.date(2023, 1, 1)), "undated")

    def test_an_entry_without_url_is_dated_by_its_fields(self):
        result = json.dumps({"results": [{"title": "Cygnus IPO", "content": "priced", "published_date": "2024-02-09"},
                                         {"url": "https://h.example/a", "published_date": "2022-01-01"}]})
        unlinked, linked = self.trace(result)[0].interactions[0].returned
        self.assertEqual((unlinked.status(dt.date(2023, 1, 1)), linked.status(dt.date(2023, 1, 1))), ("leak", "known"))
        self.assertEqual(unlinked.status(dt.date(2024, 2, 9)), "known")  # published on T is not a leak

    def test_a_fetch_is_one_item_with_its_text(self):
        page = '<html><head><meta property="article:published_time" content="2023-02-09T10:00:00Z"></head><body>x</body></html>'
        trace, _ = self.trace(page, tool="fetch_url", arguments={"url": "https://h.example/story"})
        (item,) = trace.interactions[0].returned
        self.assertEqual((item.id, item.dating.source), ("https://h.example/story", "html article:published_time"))

    def test_hostile_results(self):
        deep = "[" * 100_000 + "]" * 100_000
        for result in (deep, "\ud800 https://x.example/\u2028a", "https://" + "a" * 1_000_000, json.dumps({"results": [{"url": 3}]})):
            with self.subTest(result=result[:20]):
                trace, _ = self.trace(result)
                self.assertLessEqual(len(trace.interactions[0].returned), 1)


class MalformedLogTest(unittest.TestCase):
    """Every malformed log is one line on stderr naming the file and the line, message or span; exit 2, no output."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def check(self, fmt, name, text, expected):
        path = self.dir / name
        path.write_text(text, encoding="utf-8")
        out = self.dir / "out.jsonl"
        for argv in (["import", "--from", fmt, str(path), "--as-of", T, "--out", str(out)],
                     ["score", "--from", fmt, str(path), "--as-of", T]):
            status, stdout, err = run_cli(*argv)
            self.assertEqual((status, stdout), (2, ""), err)
            self.assertEqual(err, f"anachron: {path}{expected}\n")
            self.assertFalse(out.exists())

    def test_openai_chat(self):
        good = json.dumps(conversation(("search", {"query": "q"}, "r")))
        bad = conversation(("search", {"query": "q"}, "r"))
        bad["messages"][2]["tool_call_id"] = "call_9"
        self.check("openai-chat", "a.jsonl", good + "\n" + json.dumps(bad) + "\n",
                   ":2 messages[2]: tool message replies to the string 'call_9', which no tool call of the turn before it made")
        self.check("openai-chat", "b.jsonl", good + "\n{\"messages\": [\n", ":2: invalid JSON: Expecting value (column 15)")
        self.check("openai-chat", "c.json", '{"messages": [{"role": "assistant", "tool_calls": [{"id": "x", "function": {}}]}]}',
                   " messages[0] tool_calls[0]: function.name is null, expected the tool's name")
        self.check("openai-chat", "d.json", '{\n "messages": [\n  {"role": "user",}\n ]\n}',
                   ":3: invalid JSON: Expecting property name enclosed in double quotes (column 19)")
        self.check("openai-chat", "e.json", '"hello"', ": expected a list of messages or an object with 'messages', got the string 'hello'")

    def test_openai_responses(self):
        self.check("openai-responses", "a.json", json.dumps([{"type": "function_call_output", "call_id": "c1", "output": "x"}]),
                   " items[0]: function_call_output for call_id 'c1', which no earlier call made")
        self.check("openai-responses", "b.json", json.dumps({"output": [{"type": "function_call", "name": "f", "arguments": "{}"}]}),
                   " output[0]: call_id is null, expected the id pairing the call with its output")

    def test_anthropic(self):
        messages = [{"role": "user", "content": "q"},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "x"}]}]
        self.check("anthropic", "a.json", json.dumps(messages),
                   " messages[2] content[0]: tool_result for 'toolu_2', which the assistant turn before it did not make")
        self.check("anthropic", "b.json", json.dumps([{"role": "system", "content": "x"}]),
                   " messages[0]: role is the string 'system', expected 'user' or 'assistant'")

    def test_call_kinds(self):
        function = [{"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
                    {"role": "function", "name": "g", "content": "x"}]
        self.check("openai-chat", "f.json", json.dumps(function),
                   " messages[1]: function message of the string 'g', which the assistant turn before it did not call")
        self.check("openai-chat", "g.json", json.dumps([{"role": "assistant", "function_call": {"arguments": "{}"}}]),
                   " messages[0]: function_call.name is null, expected the function's name")
        self.check("openai-responses", "c.json", json.dumps([{"type": "mcp_call", "id": "m", "arguments": "{}"}]),
                   " items[0]: name is null, expected the MCP tool's name")
        self.check("openai-responses", "d.json", json.dumps([{"type": "custom_tool_call", "name": "f", "input": "x"}]),
                   " items[0]: call_id is null, expected the id pairing the call with its output")
        self.check("openai-responses", "e.json", json.dumps([{"type": "apply_patch_call_output", "call_id": "p", "output": "x"}]),
                   " items[0]: apply_patch_call_output for call_id 'p', which no earlier call made")
        self.check("anthropic", "c.json", json.dumps([{"role": "assistant", "content": [{"type": "mcp_tool_use", "id": "m", "input": {}}]}]),
                   " messages[0] content[0]: name is null, expected the tool's name")
        self.check("anthropic", "d.json", json.dumps([{"role": "assistant", "content": [{"type": "mcp_tool_result", "tool_use_id": "m"}]}]),
                   " messages[0] content[0]: mcp_tool_result for 'm', which no earlier server_tool_use made")

    def test_claude_code(self):
        user = {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "q"}}
        result = {"type": "user", "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "r"}]}}
        self.check("claude-code", "a.jsonl", json.dumps(user) + "\n" + json.dumps(result) + "\n",
                   ":2 content[0]: tool_result for the string 'toolu_x', which no earlier tool_use made")
        self.check("claude-code", "b.jsonl", json.dumps(user) + "\n\n{\"type\": \"assistant\"\n",
                   ":3: invalid JSON: Expecting ',' delimiter (column 21)")
        self.check("claude-code", "c.jsonl", json.dumps({"type": "assistant", "message": None}) + "\n",
                   ":1: field 'message': expected an object, got null")

    def test_otel(self):
        span = {"traceId": "ab", "spanId": "cd", "name": "t", "attributes": [{"value": {"stringValue": "x"}}]}
        self.check("otel", "a.json", json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}),
                   " resourceSpans[0] scopeSpans[0] spans[0] attributes[0]: key is null, expected a string")
        self.check("otel", "b.json", json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "x"}]}]}]}),
                   " resourceSpans[0] scopeSpans[0] spans[0]: traceId is null, expected a hex string")
        good = json.dumps({"resourceSpans": []})
        self.check("otel", "c.jsonl", good + "\n" + json.dumps({"resourceSpans": 3}) + "\n",
                   ":2: resourceSpans: expected a list, got 3")

    def test_missing_as_of_and_bad_combinations(self):
        path = fixture("anthropic.json")
        for argv, message in [
            (["score", "--from", "anthropic", path], f"anachron: {path}: no as-of date: pass --as-of DATE or --as-of-map FILE.json\n"),
            (["score", path, "--as-of", T], "anachron: --as-of, --as-of-map, --sample-id-from and --retrieval-tools read logs: give --from FORMAT\n"),
            (["score", path, path], "anachron: a trace is one file: give one TRACE.jsonl, or --from FORMAT for logs\n"),
            (["score", "--from", "anthropic", path, path, "--as-of", T], f"anachron: {path} (sample anthropic): duplicate sample_id (first at {path})\n"),
            (["score", "--from", "inspect", path, "--sample-id-from", "x"], "anachron: --sample-id-from is not read for inspect logs: their samples have ids\n"),
        ]:
            with self.subTest(argv=argv):
                status, out, err = run_cli(*argv)
                self.assertEqual((status, out), (2, ""))
                self.assertTrue(err.endswith(message) or message in err, err)
                self.assertEqual(len(err.splitlines()), 1)
        status, _, err = run_cli("score", "--from", "nonsense", path)
        self.assertEqual(status, 2)
        self.assertIn("invalid choice: 'nonsense'", err)

    def test_the_api_raises_anachron_error(self):
        with self.assertRaises(AnachronError):
            list(import_logs("claude-code", [str(self.dir / "missing.jsonl")], Options(as_of=dt.date(2023, 1, 1))))
        with self.assertRaisesRegex(AnachronError, "unknown log format 'x'"):
            import_logs("x", ["a"], Options())


def imported(fmt, *logs, **options):
    """The trace records *logs* import to (as-of 2023-01-01 unless given)."""
    options.setdefault("as_of", dt.date(2023, 1, 1))
    return [record for _, record in import_logs(fmt, [str(log) for log in logs], Options(**options))]


class CallKindTest(unittest.TestCase):
    """Issue 26: every call-like item of every format is an interaction the seal audit sees; an item
    of an unknown type is reported in the record's warnings, never skipped."""

    # (format, fixture, the tools of its calls in order)
    KINDS = [
        ("openai-responses", "openai-responses-kinds.json", [
            "mcp__timelock__search", "mcp__browser__navigate", "sql", "computer", "file_search", "image_generation",
            "apply_patch", "shell", "shell", "program", "web_search"]),
        ("openai-chat", "openai-chat-legacy.json", ["web_search", "run_shell"]),
        ("anthropic", "anthropic-mcp.json", ["mcp__timelock__search", "mcp__browser__navigate", "code_execution"]),
        ("claude-code", "claude-code-team.jsonl", ["Task", "WebSearch", "TaskOutput", "Notebook", "web_search", "WebFetch"]),
    ]

    def test_every_call_kind_is_an_audited_interaction(self):
        for fmt, name, tools in self.KINDS:
            with self.subTest(fmt=fmt):
                records = imported(fmt, fixture(name))
                self.assertEqual([c["tool"] for c in records[0]["interactions"]], tools)
                self.assertNotIn("warnings", records[0])
                doc = scored(fmt, fixture(name), extra=("--sealed-tools", "mcp__timelock__search"))
                # Every call outside the lock is one breach: no call kind escapes the audit.
                sealed = tools.count("mcp__timelock__search")
                self.assertEqual(doc["samples"][0]["seal_breaches"], len(tools) - sealed)
                self.assertFalse(doc["summary"]["sealed"])

    def test_responses_kinds_figures(self):
        (s,) = scored("openai-responses", fixture("openai-responses-kinds.json"),
                      extra=("--sealed-tools", "mcp__timelock__search"))["samples"]
        self.assertEqual(s["sample_id"], "resp_kinds")  # the Response's own id
        # Retrievals: the timelock search (2022), file_search (a 2023 URL in a file), the curl shell, a
        # web search's find_in_page (a 2022 URL).
        self.assertEqual(figures(s), {"interactions": 4, "result_leaks": 1, "undated": 0, "query_intent_leaks": 0,
                                      "content_leaks": 0, "seal_breaches": 10, "tclr": 1 / 5, "failed": 1})  # 1 unrecorded call
        (record,) = imported("openai-responses", fixture("openai-responses-kinds.json"))
        calls = {c["tool"]: c for c in record["interactions"]}
        self.assertEqual(calls["mcp__browser__navigate"]["error"], "navigation timed out")
        self.assertEqual(calls["computer"]["status"], "unrecorded")  # a screenshot: nothing read
        self.assertNotIn("returned", calls["computer"])
        self.assertEqual(calls["apply_patch"]["arguments"]["path"], "notes.md")
        self.assertEqual(record["interactions"][7]["command"], "curl -s https://example.com/cygnus.json")
        self.assertEqual(calls["program"]["command"], "print(1 + 1)")

    def test_legacy_function_call_and_an_array_of_conversations(self):
        doc = scored("openai-chat", fixture("openai-chat-legacy.json"))
        a, b = doc["samples"]
        self.assertEqual((a["sample_id"], b["sample_id"]), ("legacy-1", "openai-chat-legacy-2"))
        self.assertEqual(figures(a), {"interactions": 1, "result_leaks": 1, "undated": 0, "query_intent_leaks": 0,
                                      "content_leaks": 0, "seal_breaches": None, "tclr": 1 / 2, "failed": 0})  # + 1 unrecorded
        record = imported("openai-chat", fixture("openai-chat-legacy.json"))[0]
        self.assertEqual(record["interactions"][1]["arguments"], "curl -s https://example.com/x")  # not JSON: kept

    def test_anthropic_mcp_connector(self):
        (s,) = scored("anthropic", fixture("anthropic-mcp.json"), extra=("--sealed-tools", "mcp__timelock__search"))["samples"]
        self.assertEqual(s["sample_id"], "anthropic-mcp-run")
        self.assertEqual(figures(s), {"interactions": 1, "result_leaks": 0, "undated": 0, "query_intent_leaks": 0,
                                      "content_leaks": 0, "seal_breaches": 2, "tclr": 0.0, "failed": 1})
        self.assertEqual(s["evidence"], ["#2 tool 'mcp__browser__navigate' is outside the time lock",
                                         "#3 shell call 'code_execution' can reach the network: declare --isolated-shell code_execution if it could not"])

    def test_an_input_message_without_type_is_a_message(self):
        # The Agents SDK's to_input_list() writes {"role", "content"} items, which the Responses API accepts.
        items = [{"role": "user", "content": "q"},
                 {"type": "function_call", "call_id": "c1", "name": "web_search", "arguments": json.dumps({"query": "q"})},
                 {"type": "function_call_output", "call_id": "c1", "output": "none"},
                 {"role": "assistant", "content": [{"type": "output_text", "text": "done", "annotations": []}]}]
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "agents.json"
            log.write_text(json.dumps(items))
            (record,) = imported("openai-responses", log)
        self.assertEqual(([c["tool"] for c in record["interactions"]], record["answer"]), (["web_search"], "done"))
        self.assertNotIn("warnings", record)

    def test_a_shell_whose_arguments_are_not_json_keeps_them_as_its_command(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "s.json"
            call = {"id": "c1", "type": "function", "function": {"name": "shell", "arguments": "curl -s https://x.example/a"}}
            log.write_text(json.dumps([{"role": "assistant", "content": None, "tool_calls": [call]},
                                       {"role": "tool", "tool_call_id": "c1", "content": "ok"}]))
            (record,) = imported("openai-chat", log)
            self.assertEqual(record["interactions"][0]["command"], "curl -s https://x.example/a")

    def test_unknown_items_are_reported_never_skipped(self):
        cases = {
            "openai-responses": [{"type": "message", "role": "user", "content": "q"},
                                 {"type": "foo_call", "call_id": "f1", "name": "foo", "arguments": "{}"},
                                 {"type": "foo_call_output", "call_id": "f1", "output": "x"},
                                 {"type": "foo_note", "text": "n"}, {"type": "foo_note", "text": "m"}],
            "anthropic": [{"role": "user", "content": "q"},
                          {"role": "assistant", "content": [{"type": "foo_tool_use", "id": "x1", "name": "foo", "input": {}},
                                                            {"type": "foo_note"}, {"type": "foo_note"}]}],
            "openai-chat": [{"role": "assistant", "content": None,
                             "tool_calls": [{"id": "c1", "type": "foo", "name": "foo", "foo": {}}]},
                            {"role": "critic", "content": "n"}],
        }
        expected = {
            "openai-responses": ([("foo", "unrecorded")], [
                "read 1 item of unknown type 'foo_call' as a tool call, its result not read (items[1]): update anachron to score them",
                "skipped 1 item of unknown type 'foo_call_output' (items[2]): update anachron if they hold a tool call",
                "skipped 2 items of unknown type 'foo_note' (items[3], items[4]): update anachron if they hold a tool call"]),
            "anthropic": ([("foo", "unrecorded")], [
                "read 1 item of unknown type 'foo_tool_use' as a tool call, its result not read (messages[1] content[0]): update anachron to score them",
                "skipped 2 items of unknown type 'foo_note' (messages[1] content[1], messages[1] content[2]): update anachron if they hold a tool call"]),
            "openai-chat": ([("foo", "unrecorded")], [
                "read 1 item of unknown type 'foo' as a tool call, its result not read (messages[0] tool_calls[0]): update anachron to score them",
                "skipped 1 item of unknown type 'role critic' (messages[1]): update anachron if they hold a tool call"]),
        }
        with tempfile.TemporaryDirectory() as tmp:
            for fmt, log in cases.items():
                with self.subTest(fmt=fmt):
                    path = Path(tmp) / f"{fmt}.json"
                    path.write_text(json.dumps(log))
                    (record,) = imported(fmt, path)
                    calls, warnings = expected[fmt]
                    self.assertEqual([(c["tool"], c["status"]) for c in record["interactions"]], calls)
                    self.assertEqual(record["warnings"], warnings)
                    out = Path(tmp) / f"{fmt}.trace.jsonl"
                    status, _, err = run_cli("import", "--from", fmt, str(path), "--as-of", T, "--out", str(out))
                    self.assertEqual(status, 0, err)
                    self.assertEqual(json.loads(out.read_text())["warnings"], warnings)

    def test_claude_code_unknown_records_and_blocks(self):
        rows = [{"type": "user", "sessionId": "s1", "uuid": "u0", "message": {"role": "user", "content": "q"}},
                {"type": "mystery-record", "sessionId": "s1", "uuid": "u1"},
                {"type": "assistant", "sessionId": "s1", "uuid": "u2", "message": {"role": "assistant", "content": [
                    {"type": "gizmo_use", "id": "g1", "name": "Gizmo", "input": {}}]}},
                # A message with a tool call inside a record of another type: read.
                {"type": "assistant-replay", "sessionId": "s1", "uuid": "u3", "message": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t1", "name": "WebSearch", "input": {"query": "x"}}]}}]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "s.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in rows))
            (record,) = imported("claude-code", path)
        self.assertEqual([c["tool"] for c in record["interactions"]], ["Gizmo", "WebSearch"])
        self.assertEqual(record["warnings"], [
            f"skipped 1 item of unknown type 'record mystery-record' ({path}:2): update anachron if they hold a tool call",
            f"read 1 item of unknown type 'gizmo_use' as a tool call, its result not read ({path}:3 content[0]): update anachron to score them",
        ])


class ClaudeCodeSessionTest(unittest.TestCase):
    """Issue 27: a session's subagent files merge into it, however they are passed; never a duplicate."""

    SESSION = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
    MAIN = fixture("claude-code-team.jsonl")
    SUB = fixture("claude-code-team/subagents/agent-a1b2c3d.jsonl")

    def figures_of(self, *logs):
        (s,) = scored("claude-code", *logs, extra=("--sealed-tools", "mcp__timelock__search"))["samples"]
        return s["sample_id"], figures(s)

    def test_every_way_of_passing_a_session_gives_the_whole_session(self):
        # Task, the subagent's WebSearch (leaks) and WebFetch (undated), TaskOutput, Notebook (a built-in
        # Claude Code does not document: local), the server web_search (2022-12-20).
        whole = (self.SESSION, {"interactions": 3, "result_leaks": 1, "undated": 1, "query_intent_leaks": 0,
                                "content_leaks": 0, "seal_breaches": 6, "tclr": 1 / 3, "failed": 0})
        for logs in [(self.MAIN,), (self.MAIN, self.SUB), (self.SUB, self.MAIN), (fixture("claude-code-team"),)]:
            with self.subTest(logs=logs):
                self.assertEqual(self.figures_of(*logs), whole)

    def test_the_progress_records_alone_carry_the_subagents_first_calls(self):
        with tempfile.TemporaryDirectory() as tmp:
            main = Path(tmp) / "alone.jsonl"
            main.write_text(Path(self.MAIN).read_text())  # no subagents/ beside it
            (record,) = imported("claude-code", main)
            self.assertEqual([c["tool"] for c in record["interactions"]], ["Task", "WebSearch", "TaskOutput", "Notebook", "web_search"])
            (record,) = imported("claude-code", self.SUB)  # a subagent file alone is its session's sample
            self.assertEqual((record["sample_id"], [c["tool"] for c in record["interactions"]]), (self.SESSION, ["WebSearch", "WebFetch"]))

    def test_local_built_ins(self):
        (record,) = imported("claude-code", self.MAIN)
        local = {c["tool"] for c in record["interactions"] if c.get("retrieval") is False}
        self.assertEqual(local, {"Task", "TaskOutput", "Notebook"})
        self.assertEqual(record.get("answer"), "Probably yes.")  # the main chain's, not the subagent's

    def test_a_project_directory_is_its_sessions(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("claude-code-sealed.jsonl", "claude-code-team.jsonl", "claude-code-team/subagents/agent-a1b2c3d.jsonl"):
                (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
                (Path(tmp) / name).write_text((DATA / name).read_text())
            records = imported("claude-code", tmp)
        self.assertEqual([(r["sample_id"], len(r["interactions"])) for r in records],
                         [("0c2d7f4e-1b9a-4e8e-a3c5-6d7e8f9a0b12", 2), (self.SESSION, 6)])

    def test_a_directory_without_sessions(self):
        with tempfile.TemporaryDirectory() as tmp:
            status, out, err = run_cli("score", "--from", "claude-code", tmp, "--as-of", T)
            self.assertEqual((status, out), (2, ""))
            self.assertEqual(err, f"anachron: {tmp}: a directory with no session transcript (*.jsonl, or subagents/agent-*.jsonl)\n")


class AsOfFieldTest(unittest.TestCase):
    def test_each_conversation_names_its_cutoff(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "log.jsonl"
            rows = [dict(conversation(("search", {"query": "q"}, "https://a.example/2023/06/01/x")), id=f"c{n}", meta={"as_of": day})
                    for n, day in ((1, "2023-01-01"), (2, "2024-01-01T09:30:00Z"))]
            log.write_text("".join(json.dumps(r) + "\n" for r in rows))
            status, out, err = run_cli("score", "--from", "openai-chat", str(log), "--as-of-field", "meta.as_of", "--format", "json")
            self.assertEqual(status, 0, err)
            samples = json.loads(out)["samples"]
            self.assertEqual([(s["sample_id"], s["as_of"], s["result_leaks"]) for s in samples],
                             [("c1", "2023-01-01", 1), ("c2", "2024-01-01", 0)])
            session = Path(tmp) / "cc.jsonl"
            session.write_text(json.dumps({"type": "user", "sessionId": "s9", "when": "2022-05-05",
                                           "message": {"role": "user", "content": "q"}}) + "\n")
            self.assertEqual(imported("claude-code", session, as_of=None, as_of_field="when")[0]["as_of"], "2022-05-05")
            bad = Path(tmp) / "bad.jsonl"
            bad.write_text(json.dumps(dict(rows[0], meta={"as_of": "soon"})) + "\n")
            for argv, message in [
                (["score", "--from", "openai-chat", str(bad), "--as-of-field", "meta.as_of"],
                 f"anachron: {bad}: field 'meta.as_of' (--as-of-field): 'soon' is not a date of the form YYYY-MM-DD\n"),
                (["score", "--from", "openai-chat", str(bad), "--as-of-field", "meta.nothing"],
                 f"anachron: {bad}: field 'meta.nothing' (--as-of-field): expected a date string YYYY-MM-DD, got null\n"),
                (["score", "--from", "openai-chat", str(log), "--as-of-field", "meta.as_of", "--as-of", T],
                 "anachron: --as-of and --as-of-field each give the cutoff: give one\n"),
                (["score", str(log), "--as-of-field", "meta.as_of"], "anachron: --as-of-field reads logs: give --from FORMAT\n"),
                (["score", "--from", "otel", fixture("otel.json"), "--as-of-field", "x"],
                 f"anachron: {fixture('otel.json')}: --as-of-field is not read for otel logs\n"),
                (["score", "--from", "mcp-events", str(log), "--as-of-field", "x"],
                 "anachron: --as-of-field is not read for mcp-events logs: each names its own cutoff\n"),
            ]:
                with self.subTest(argv=argv):
                    status, out, err = run_cli(*argv)
                    self.assertEqual((status, out, err), (2, "", message))


class FixtureBuildTest(unittest.TestCase):
    def test_the_fixtures_are_what_the_sdks_build(self):
        require_extra("openai", "test")
        require_extra("anthropic", "test")
        import importlib.util

        spec = importlib.util.spec_from_file_location("build_fixtures", ROOT / "tests" / "fixtures_build" / "build_importer_fixtures.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        import anthropic
        import openai

        same_sdks = (openai.__version__, anthropic.__version__) == (module.SDK_VERSIONS["openai"], module.SDK_VERSIONS["anthropic"])
        formats = {"openai-chat.jsonl": "openai-chat", "openai-responses.json": "openai-responses", "anthropic.json": "anthropic",
                   "claude-code.jsonl": "claude-code", "claude-code-sealed.jsonl": "claude-code",
                   "claude-code-local.jsonl": "claude-code", "otel.json": "otel",
                   "openai-responses-kinds.json": "openai-responses", "openai-chat-legacy.json": "openai-chat",
                   "anthropic-mcp.json": "anthropic", "claude-code-team.jsonl": "claude-code"}
        with tempfile.TemporaryDirectory() as tmp:
            built = module.build(Path(tmp))
            for name, text in built.items():
                with self.subTest(name=name):
                    if same_sdks:
                        self.assertEqual((DATA / name).read_text(encoding="utf-8"), text)
                    elif name in formats:  # another SDK version: what matters is that it imports the same
                        options = Options(as_of=dt.date(2023, 1, 1))
                        rebuilt = [r for _, r in import_logs(formats[name], [str(Path(tmp, name))], options)]
                        committed = [r for _, r in import_logs(formats[name], [fixture(name)], options)]
                        self.assertEqual(rebuilt, committed)


if __name__ == "__main__":
    unittest.main()


class NothingShownIsDroppedTest(unittest.TestCase):
    """A result part or item an importer does not pair with a known shape is read, or the call stays
    unrecorded: never a clean, empty result (found by review)."""

    def test_anthropic_parts_of_other_types_are_read(self):
        dated = json.dumps({"results": [{"url": "https://a.example/x", "published_date": "2024-01-01"}]})
        parts = {
            "document": {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": dated}},
            "search_result with url": {"type": "search_result", "url": "https://a.example/x", "title": "x",
                                       "content": [{"type": "text", "text": "x"}]},
            "a type of its own": {"type": "weird", "payload": json.loads(dated)},
        }
        for name, part in parts.items():
            with self.subTest(part=name), tempfile.TemporaryDirectory() as tmp:
                log = Path(tmp, "m.json")
                log.write_text(json.dumps([
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "search", "input": {"query": "x"}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [part]}]},
                    {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
                ]))
                (record,) = imported("anthropic", log)
                (call,) = record["interactions"]
                self.assertEqual(call["status"], "ok")
                urls = [item["url"] if isinstance(item, dict) else item for item in call["returned"]]
                self.assertEqual(urls, ["https://a.example/x"])

    def test_a_codex_mcp_call_completed_without_a_result_is_unrecorded(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp, "exec.jsonl")
            log.write_text(json.dumps({"type": "item.completed", "item": {
                "id": "i1", "type": "mcp_tool_call", "server": "s", "tool": "search", "arguments": {"query": "x"},
                "status": "completed", "result": None}}) + "\n")
            (record,) = imported("codex", log)
            self.assertEqual([(c["tool"], c["status"], "returned" in c) for c in record["interactions"]],
                             [("s__search", "unrecorded", False)])  # Codex names an MCP tool SERVER__TOOL
