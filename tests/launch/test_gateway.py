"""The model gateway's rules (anachron/launch/gateway.py; docs/run-rules.md, "Model gateway").

- a request may offer the model the lock's two tools, under its harness's naming, and the few tools
  the harness runs in its own process; any other tool, in every API shape, is refused and named;
- a body whose tools cannot be read (not JSON, not an object, a tool list of another shape) is refused;
- the model's answer is read too: every tool it calls is named, in each API shape, streamed or not;
- keys never reach the log: key headers and key query parameters are redacted;
- the upstream is the variable the harness reads, else the vendor's endpoint; the harness is pointed
  at the gateway by that same variable (Codex: a provider of its own).

In process, no server: the slow tests (slow_gateway.py) run the gateway itself.
"""

from __future__ import annotations

import json
import unittest

from anachron.core.errors import AnachronError
from anachron.launch.gateway import (
    allowed_tools, answer_calls, check_request, error_body, redact_headers, redact_path, shape_of, upstream_of, wiring,
)


def body(**fields) -> bytes:
    return json.dumps({"model": "m", **fields}).encode("utf-8")


def fn(name: str) -> dict:
    return {"type": "function", "name": name, "parameters": {"type": "object"}}


class Allowed(unittest.TestCase):
    def test_the_locks_tools_pass_under_each_harness_naming(self):
        cases = {
            ("claude-code", "anthropic"): body(tools=[{"name": "mcp__lock__search", "input_schema": {}},
                                                      {"name": "mcp__lock__fetch", "input_schema": {}}]),
            ("codex", "responses"): body(tools=[fn("mcp__lock__search"), fn("lock__fetch")]),
            ("gemini-cli", "gemini"): body(tools=[{"functionDeclarations": [{"name": "mcp_lock_search"}, {"name": "mcp_lock_fetch"}]}]),
            ("responses", "responses"): body(tools=[fn("mcp__lock__search"), fn("mcp__lock__fetch")]),
            ("chat", "chat"): body(tools=[{"type": "function", "function": {"name": "mcp__lock__search"}}]),
        }
        for (harness, shape), data in cases.items():
            with self.subTest(harness):
                self.assertEqual(check_request(shape, data, allowed_tools(harness)), [])

    def test_a_namespace_of_the_locks_tools_passes(self):
        for prefix in ("mcp__lock", "mcp__lock__"):
            namespace = {"type": "namespace", "name": prefix, "tools": [fn("search"), fn("fetch")]}
            self.assertEqual(check_request("responses", body(tools=[namespace]), allowed_tools("codex")), [])

    def test_a_namespace_holding_another_tool_is_refused(self):
        namespace = {"type": "namespace", "name": "mcp__lock", "tools": [fn("search"), fn("shell")]}
        refused = check_request("responses", body(tools=[namespace]), allowed_tools("codex"))
        self.assertEqual(len(refused), 1)
        self.assertIn("'mcp__lock__shell'", refused[0])

    def test_the_harness_local_tools_pass_only_for_their_harness(self):
        todo = body(tools=[{"name": "TodoWrite", "input_schema": {}}])
        self.assertEqual(check_request("anthropic", todo, allowed_tools("claude-code")), [])
        self.assertEqual(len(check_request("anthropic", todo, allowed_tools("responses"))), 1)
        plan = body(tools=[fn("update_plan")])
        self.assertEqual(check_request("responses", plan, allowed_tools("codex")), [])
        self.assertEqual(len(check_request("responses", plan, allowed_tools("responses"))), 1)

    def test_a_request_without_tools_passes(self):
        self.assertEqual(check_request("anthropic", body(messages=[]), allowed_tools("claude-code")), [])
        self.assertEqual(check_request("gemini", b"", allowed_tools("gemini-cli")), [])


class ToolSearchRoute(unittest.TestCase):
    """Codex 0.171.0 with a slug it knows defers MCP tools behind a client-run ``tool_search``: the tool itself
    is Codex's own (from the version measured), and the tools it finds are offered in the conversation
    (``tool_search_output``), so they are checked as a tool list is."""

    CODEX = "codex-cli 0.171.0"
    SEARCH = {"type": "tool_search", "execution": "client", "parameters": {"type": "object"}}

    def found(self, *tools) -> dict:
        return {"type": "tool_search_output", "call_id": "c1", "execution": "client", "tools": list(tools)}

    def test_a_client_tool_search_and_apply_patch_pass_for_the_version_measured(self):
        data = body(tools=[self.SEARCH, {"type": "custom", "name": "apply_patch"}])
        self.assertEqual(check_request("responses", data, allowed_tools("codex", self.CODEX)), [])
        self.assertEqual(check_request("responses", data, allowed_tools("codex", "codex-cli 1.2.0")), [])

    def test_before_that_version_or_unread_or_for_another_harness_they_are_refused(self):
        data = body(tools=[self.SEARCH, {"type": "custom", "name": "apply_patch"}])
        for harness, version in (("codex", "codex-cli 0.170.9"), ("codex", None), ("codex", "codex-cli"),
                                 ("responses", self.CODEX)):
            with self.subTest(harness=harness, version=version):
                refused = check_request("responses", data, allowed_tools(harness, version))
                self.assertEqual(refused, ["'tool_search' (a hosted tool)", "'apply_patch' (a custom tool)"])

    def test_a_tool_search_the_api_runs_is_refused(self):
        for tool in ({"type": "tool_search"}, {"type": "tool_search", "execution": "server"}):
            with self.subTest(tool=tool):
                self.assertEqual(check_request("responses", body(tools=[tool]), allowed_tools("codex", self.CODEX)),
                                 ["'tool_search' (a hosted tool)"])

    def test_the_tools_a_tool_search_found_are_checked(self):
        lock = {"type": "namespace", "name": "mcp__lock", "tools": [fn("search"), fn("fetch")]}
        allowed = allowed_tools("codex", self.CODEX)
        ok = body(tools=[self.SEARCH], input=[{"type": "message", "role": "user", "content": "q"}, self.found(lock)])
        self.assertEqual(check_request("responses", ok, allowed), [])
        other = {"type": "namespace", "name": "mcp__news", "tools": [fn("search")]}
        for found, named in ((self.found(lock, other), "'mcp__news__search'"), (self.found({"type": "web_search"}), "'web_search'"),
                             (self.found(fn("shell")), "'shell'")):
            with self.subTest(named):
                refused = check_request("responses", body(tools=[self.SEARCH], input=[found]), allowed)
                self.assertEqual(len(refused), 1, refused)
                self.assertIn(named, refused[0])

    def test_a_tool_search_output_whose_tools_cannot_be_read_is_refused(self):
        for tools in (None, "mcp__lock", [["search"]]):
            with self.subTest(tools=tools):
                found = {"type": "tool_search_output", "call_id": "c1", "tools": tools}
                self.assertEqual(check_request("responses", body(input=[found]), allowed_tools("codex", self.CODEX)),
                                 ["'tool_search_output' (its tools cannot be read)"])

    def test_the_answers_tool_search_call_is_named_tool_search_when_the_client_runs_it(self):
        client = {"type": "tool_search_call", "execution": "client", "call_id": "c1", "arguments": {"query": "lock"}}
        self.assertEqual(answer_calls("responses", json.dumps({"output": [client]}).encode()), ["tool_search"])
        hosted = {**client, "execution": "server"}
        self.assertEqual(answer_calls("responses", json.dumps({"output": [hosted]}).encode()), ["tool_search_call"])


class Refused(unittest.TestCase):
    """Each leaky tool, in each API shape, is refused and named in the verdict line."""

    LOCK = [fn("mcp__lock__search")]

    def refused(self, shape: str, harness: str, data: bytes) -> list[str]:
        return check_request(shape, data, allowed_tools(harness))

    def test_anthropic_server_and_unknown_tools(self):
        lock = {"name": "mcp__lock__search", "input_schema": {}}
        for tool, named in [({"type": "web_search_20250305", "name": "web_search"}, "'web_search'"),
                            ({"type": "web_fetch_20250910", "name": "web_fetch"}, "'web_fetch'"),
                            ({"type": "code_execution_20250825", "name": "code_execution"}, "'code_execution'"),
                            ({"type": "bash_20250124", "name": "bash"}, "'bash'"),
                            ({"name": "WebSearch", "input_schema": {}}, "'WebSearch'"),
                            ({"type": "custom", "name": "Bash", "input_schema": {}}, "'Bash'")]:
            with self.subTest(tool=tool):
                refused = self.refused("anthropic", "claude-code", body(tools=[lock, tool]))
                self.assertEqual(len(refused), 1)
                self.assertIn(named, refused[0])

    def test_anthropic_mcp_connector(self):
        refused = self.refused("anthropic", "claude-code", body(mcp_servers=[{"type": "url", "name": "news", "url": "https://x"}]))
        self.assertEqual(refused, ["'news' (an MCP server the API connects to)"])

    def test_responses_hosted_tools(self):
        for kind in ("web_search", "web_search_preview", "file_search", "code_interpreter", "image_generation",
                     "tool_search", "local_shell", "computer_use_preview"):
            with self.subTest(kind):
                refused = self.refused("responses", "responses", body(tools=[*self.LOCK, {"type": kind}]))
                self.assertEqual(refused, [f"'{kind}' (a hosted tool)"])

    def test_responses_mcp_and_functions_not_the_locks(self):
        refused = self.refused("responses", "codex", body(tools=[{"type": "mcp", "server_label": "deepwiki", "server_url": "https://x"},
                                                                 fn("shell"), {"type": "custom", "name": "apply_patch"}]))
        self.assertEqual(len(refused), 3)
        self.assertIn("'deepwiki' (type 'mcp'", refused[0])
        self.assertIn("'shell'", refused[1])
        self.assertIn("'apply_patch'", refused[2])

    def test_chat_tools_functions_and_web_search_options(self):
        refused = self.refused("chat", "chat", body(tools=[{"type": "function", "function": {"name": "web_search"}},
                                                           {"type": "retrieval"}],
                                                    functions=[{"name": "browse"}], web_search_options={}))
        self.assertEqual(len(refused), 4)
        for name in ("'web_search'", "'retrieval'", "'browse'", "'web_search_options'"):
            self.assertTrue(any(name in line for line in refused), name)

    def test_gemini_builtin_tools(self):
        lock = {"functionDeclarations": [{"name": "mcp_lock_search"}]}
        for key in ("googleSearch", "googleSearchRetrieval", "codeExecution", "urlContext", "google_search"):
            with self.subTest(key):
                refused = self.refused("gemini", "gemini-cli", body(tools=[lock, {key: {}}]))
                self.assertEqual(refused, [f"'{key}' (a tool the API runs)"])
        refused = self.refused("gemini", "gemini-cli", body(tools=[{"functionDeclarations": [{"name": "google_web_search"}]}]))
        self.assertIn("'google_web_search'", refused[0])

    def test_gemini_cached_content_cannot_be_read(self):
        self.assertIn("'cachedContent'", self.refused("gemini", "gemini-cli", body(cachedContent="cachedContents/1"))[0])

    def test_a_tool_without_a_name_is_refused(self):
        self.assertEqual(self.refused("responses", "responses", body(tools=[{"type": "function"}])),
                         ["a tool without a name (a function tool)"])

    def test_unreadable_bodies_are_refused(self):
        for data, fragment in [(b"{not json", "not JSON"), (b"[1]", "not a JSON object"),
                               (body(tools={"name": "x"}), "'tools' is not a list of objects"),
                               (body(tools=["mcp__lock__search"]), "'tools' is not a list of objects")]:
            with self.subTest(data=data):
                refused = self.refused("responses", "responses", data)
                self.assertEqual(len(refused), 1)
                self.assertIn(fragment, refused[0])

    def test_an_unknown_shape_is_an_error(self):
        with self.assertRaises(AnachronError):
            check_request("soap", b"{}", ())


class Shapes(unittest.TestCase):
    def test_the_path_names_the_shape_else_the_harness_does(self):
        self.assertEqual(shape_of("/v1/messages?beta=true", "responses"), "anthropic")
        self.assertEqual(shape_of("/v1/messages/count_tokens", "responses"), "anthropic")
        self.assertEqual(shape_of("/v1/chat/completions", "responses"), "chat")
        self.assertEqual(shape_of("/v1/responses/compact", "chat"), "responses")
        self.assertEqual(shape_of("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", "responses"), "gemini")
        self.assertEqual(shape_of("/v1/other", "gemini"), "gemini")

    def test_errors_are_in_the_vendors_shape(self):
        self.assertEqual(json.loads(error_body("anthropic", 400, "no"))["error"]["type"], "invalid_request_error")
        self.assertEqual(json.loads(error_body("gemini", 400, "no"))["error"]["status"], "INVALID_ARGUMENT")
        self.assertEqual(json.loads(error_body("responses", 400, "no"))["error"]["message"], "no")


class Redaction(unittest.TestCase):
    def test_key_headers_are_redacted_and_others_kept(self):
        headers = [("Authorization", "Bearer sk-1"), ("x-api-key", "k"), ("X-Goog-Api-Key", "g"), ("api-key", "a"),
                   ("Content-Type", "application/json")]
        logged = redact_headers(headers)
        self.assertEqual(logged, {"authorization": "[redacted]", "x-api-key": "[redacted]", "x-goog-api-key": "[redacted]",
                                  "api-key": "[redacted]", "content-type": "application/json"})

    def test_key_query_parameters_are_redacted(self):
        logged = redact_path("/v1beta/models/g:generateContent?alt=sse&key=AIzaSECRET")
        self.assertNotIn("AIzaSECRET", logged)
        self.assertIn("alt=sse", logged)
        self.assertEqual(redact_path("/v1/responses"), "/v1/responses")


class Upstreams(unittest.TestCase):
    def test_the_users_variable_else_the_vendors_endpoint(self):
        self.assertEqual(upstream_of("claude-code", {}), "https://api.anthropic.com")
        self.assertEqual(upstream_of("claude-code", {"ANTHROPIC_BASE_URL": "https://proxy.example/a/"}), "https://proxy.example/a")
        self.assertEqual(upstream_of("codex", {}), "https://api.openai.com/v1")
        self.assertEqual(upstream_of("gemini-cli", {}), "https://generativelanguage.googleapis.com")
        self.assertEqual(upstream_of("responses", {"OPENAI_BASE_URL": "http://a/v1"}, base_url="http://b/v1"), "http://b/v1")

    def test_a_url_that_is_not_http_is_an_error(self):
        with self.assertRaises(AnachronError):
            upstream_of("claude-code", {"ANTHROPIC_BASE_URL": "file:///etc/passwd"})

    def test_each_harness_is_pointed_at_the_gateway(self):
        url = "http://127.0.0.1:5/v1"
        self.assertEqual(wiring("claude-code", url), ({"ANTHROPIC_BASE_URL": url}, []))
        self.assertEqual(wiring("gemini-cli", url), ({"GOOGLE_GEMINI_BASE_URL": url}, []))
        env, args = wiring("codex", url)
        self.assertIn(f"model_providers.anachron.base_url={json.dumps(url)}", args)
        self.assertIn('model_provider="anachron"', args)


if __name__ == "__main__":
    unittest.main()


def sse(*events: dict) -> bytes:
    return "".join(f"event: {e.get('type', 'x')}\ndata: {json.dumps(e)}\n\n" for e in events).encode("utf-8")


class AnswerCalls(unittest.TestCase):
    """What an answer has the model call: a call of a tool never offered may never show in the harness's log."""

    def test_each_shape_names_its_calls_streamed_or_not(self):
        cases = {
            "anthropic": [
                json.dumps({"content": [{"type": "text", "text": "x"}, {"type": "tool_use", "name": "WebSearch", "input": {}}]}).encode(),
                sse({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "name": "WebSearch", "input": {}}},
                    {"type": "message_stop"}),
            ],
            "responses": [
                json.dumps({"output": [{"type": "function_call", "name": "WebSearch", "arguments": "{}"}]}).encode(),
                sse({"type": "response.output_item.added", "item": {"type": "function_call", "name": "WebSearch"}},
                    {"type": "response.completed", "response": {"output": [{"type": "function_call", "name": "WebSearch"}]}}),
            ],
            "gemini": [
                json.dumps({"candidates": [{"content": {"parts": [{"functionCall": {"name": "WebSearch", "args": {}}}]}}]}).encode(),
                b"data: " + json.dumps({"candidates": [{"content": {"parts": [{"functionCall": {"name": "WebSearch"}}]}}]}).encode() + b"\r\n\r\n",
            ],
            "chat": [
                json.dumps({"choices": [{"message": {"tool_calls": [{"function": {"name": "WebSearch", "arguments": "{}"}}]}}]}).encode(),
                b"data: " + json.dumps({"choices": [{"delta": {"tool_calls": [{"function": {"name": "WebSearch"}}]}}]}).encode() + b"\n\ndata: [DONE]\n\n",
            ],
        }
        for shape, answers in cases.items():
            for answer in answers:
                with self.subTest(shape, streamed=answer.startswith((b"event", b"data"))):
                    self.assertEqual(answer_calls(shape, answer), ["WebSearch"])

    def test_a_namespaced_call_is_named_as_the_request_offered_it(self):
        item = {"type": "function_call", "name": "search", "namespace": "mcp__lock"}
        self.assertEqual(answer_calls("responses", json.dumps({"output": [item]}).encode()), ["mcp__lock__search"])

    def test_a_hosted_tool_the_api_ran_is_named_by_its_item(self):
        answer = json.dumps({"output": [{"type": "web_search_call", "status": "completed"}]}).encode()
        self.assertEqual(answer_calls("responses", answer), ["web_search_call"])

    def test_text_alone_calls_nothing(self):
        self.assertEqual(answer_calls("anthropic", sse({"type": "content_block_start", "content_block": {"type": "text", "text": ""}})), [])
        self.assertEqual(answer_calls("gemini", b"not json at all"), [])
