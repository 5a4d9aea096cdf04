"""The model gateway end to end (anachron/launch/gateway.py; docs/run-rules.md, "Model gateway").

- a faithful ``responses`` run goes through the gateway: every request forwarded to the scripted
  upstream (examples/stub_model.py) and logged with its answer, the key never logged, the chain
  pinned in run.json; ``score RUNDIR`` finds the run sealed, and breached once the log is edited;
- a request offering a hosted web search is refused in the vendor's shape and never reaches the
  upstream; the run stops, its verdict naming the tool;
- a streamed answer reaches the harness as it came, and the log holds its events;
- the command-line harnesses are pointed at the gateway by their own variable (Codex: a provider),
  and a request of theirs offering a server tool stops the run (the stand-ins of tests/launch_stub.py).

Slow: each test starts servers, and most a lock process.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from unittest import mock

from anachron.core.chain import broken_links, log_chain
from anachron.launch.gateway import Gateway
from tests.launch.test_run import DATA, LaunchCase, _stub_model
from tests.support import require_extra, run_cli

KEY = "sk-test-never-logged-0123456789"


class Recorder:
    """A loopback upstream that records every request and answers each with *answer* (an SSE stream
    when *chunks* are given)."""

    def __init__(self, answer: dict | None = None, chunks: list[bytes] | None = None) -> None:
        self.requests: list[tuple[str, bytes]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                recorder.requests.append((self.path, data))
                if chunks is not None:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for chunk in chunks:
                        self.wfile.write(chunk)
                        self.wfile.flush()
                    self.close_connection = True
                    return
                out = json.dumps(answer or {}).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def post(url: str, body: dict, headers: dict | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


class GatewayServer(unittest.TestCase):
    """The gateway alone, against a recording upstream."""

    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def wait_for_refusal(self, stopped: list[str]) -> None:
        """The gateway reports a refusal after it has answered the harness: wait for it (up to 10 s)."""
        deadline = time.monotonic() + 10
        while not stopped and time.monotonic() < deadline:
            time.sleep(0.01)

    def gateway(self, harness: str, upstream: Recorder, path: str = "") -> tuple[Gateway, list[str]]:
        stopped: list[str] = []
        gateway = Gateway(harness, upstream.url + path, self.tmp, on_refusal=stopped.append).start()
        self.addCleanup(gateway.close)
        self.addCleanup(upstream.close)
        return gateway, stopped

    def test_a_hosted_web_search_never_reaches_the_upstream(self):
        upstream = Recorder({"output": []})
        gateway, stopped = self.gateway("responses", upstream, "/v1")
        status, data = post(gateway.url + "/responses", {"model": "m", "input": "hi", "tools": [{"type": "web_search"}]},
                            {"Authorization": f"Bearer {KEY}"})
        self.assertEqual(status, 400)
        self.assertIn("'web_search' (a hosted tool)", json.loads(data)["error"]["message"])
        self.assertEqual(upstream.requests, [])
        self.wait_for_refusal(stopped)
        self.assertEqual(len(stopped), 1)
        self.assertIn("'web_search'", stopped[0])
        self.assertEqual(gateway.verdict, stopped[0])
        # Once refused, the run is over: a later request that offers nothing leaky is not forwarded either.
        status, _ = post(gateway.url + "/responses", {"model": "m", "input": "hi"})
        self.assertEqual((status, upstream.requests), (400, []))
        gateway.close()  # the log is copied into the run directory when the gateway closes
        log = records(self.tmp / "model.jsonl")
        self.assertEqual([r["record"] for r in log], ["request", "refused", "request", "refused"])
        self.assertNotIn(KEY, (self.tmp / "model.jsonl").read_text(encoding="utf-8"))

    def test_an_anthropic_server_tool_gets_an_anthropic_error(self):
        upstream = Recorder({})
        gateway, stopped = self.gateway("claude-code", upstream)
        status, data = post(gateway.url + "/v1/messages", {"model": "m", "messages": [],
                                                           "tools": [{"type": "web_search_20250305", "name": "web_search"}]},
                            {"x-api-key": KEY})
        self.assertEqual(status, 400)
        self.assertEqual(json.loads(data)["type"], "error")
        self.assertEqual(upstream.requests, [])
        self.wait_for_refusal(stopped)
        self.assertIn("'web_search'", stopped[0])

    def test_a_streamed_answer_is_relayed_and_logged(self):
        events = [b"event: message_start\ndata: {\"type\": \"message_start\"}\n\n",
                  b"event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"delta\": {\"text\": \"0.6\"}}\n\n",
                  b"event: message_stop\ndata: {\"type\": \"message_stop\"}\n\n"]
        upstream = Recorder(chunks=events)
        gateway, stopped = self.gateway("claude-code", upstream)
        body = {"model": "m", "stream": True, "messages": [], "tools": [{"name": "mcp__lock__search", "input_schema": {}}]}
        status, data = post(gateway.url + "/v1/messages?beta=true&key=" + KEY, body, {"x-api-key": KEY})
        self.assertEqual((status, data), (200, b"".join(events)))
        self.assertEqual(stopped, [])
        self.assertEqual(upstream.requests[0][0], "/v1/messages?beta=true&key=" + KEY)  # the key passes through
        gateway.close()
        text = (self.tmp / "model.jsonl").read_text(encoding="utf-8")
        self.assertNotIn(KEY, text)
        answer = records(self.tmp / "model.jsonl")[1]
        self.assertEqual(answer["record"], "answer")
        self.assertEqual(answer["body_text"], b"".join(events).decode("utf-8"))
        self.assertEqual(log_chain((self.tmp / "model.jsonl").read_bytes()).sha256, gateway.record()["sha256"])

    def test_an_upstream_that_cannot_be_reached_is_a_502_in_the_vendors_shape(self):
        upstream = Recorder({})
        upstream.close()
        gateway, stopped = self.gateway("gemini-cli", upstream)
        status, data = post(gateway.url + "/v1beta/models/g:generateContent", {"contents": []})
        self.assertEqual(status, 502)
        self.assertEqual(json.loads(data)["error"]["status"], "UNAVAILABLE")
        self.assertEqual(stopped, [])  # not a refusal: the run's own error
        gateway.close()
        self.assertEqual(records(self.tmp / "model.jsonl")[-1]["record"], "error")


class LoopThroughTheGateway(LaunchCase):
    def setUp(self) -> None:
        require_extra("mcp", "mcp")
        super().setUp()
        self.env["OPENAI_API_KEY"] = KEY

    def loop(self, **script):
        stub = _stub_model()
        model = stub.Script(["Aster Logistics revenue"], "Probability: 0.6", **script)
        server, base = stub.start(model)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return self.launch("responses", None, "--model", "stub", "--base-url", base), model

    def test_a_faithful_run_is_forwarded_logged_and_pinned(self):
        (status, stdout, stderr, out), model = self.loop()
        self.assertEqual(status, 0, stderr)
        manifest = self.manifest(out)
        log = records(out / "model.jsonl")
        self.assertEqual([r["record"] for r in log], ["request", "answer"] * len(model.requests))
        self.assertEqual([r["body"] for r in log if r["record"] == "request"], model.requests)
        self.assertEqual(log[0]["headers"]["authorization"], "[redacted]")
        self.assertNotIn(KEY, (out / "model.jsonl").read_text(encoding="utf-8"))
        data = (out / "model.jsonl").read_bytes()
        self.assertEqual(broken_links(data), [])
        chain = log_chain(data)
        self.assertEqual((manifest["gateway"]["records"], manifest["gateway"]["sha256"]), (chain.records, chain.sha256))
        self.assertIsNone(manifest["gateway"]["verdict"])
        status, stdout, stderr = run_cli("score", str(out), "--format", "json")
        self.assertEqual(status, 0, stderr)
        self.assertEqual(json.loads(stdout)["summary"]["seal_status"], "sealed")
        # An answer edited after the run: the chain run.json pins no longer holds, and the seal is breached.
        (out / "model.jsonl").write_bytes(data.replace(b"Probability: 0.6", b"Probability: 0.9"))
        status, stdout, stderr = run_cli("score", str(out), "--format", "json")
        self.assertEqual(status, 0, stderr)
        scored = json.loads(stdout)
        self.assertEqual(scored["summary"]["seal_status"], "breached")
        self.assertIn("#0 seal: the model log model.jsonl", json.dumps(scored["samples"][0]))

    def test_a_request_offering_a_hosted_web_search_stops_the_run(self):
        from anachron.launch.loop import Loop

        offered = Loop.offered

        async def leaky(self):  # a loop that also offers the endpoint's own web search
            return [*(await offered(self)), {"type": "web_search", "name": "web_search"}]

        with mock.patch.object(Loop, "offered", leaky):
            (status, stdout, stderr, out), model = self.loop()
        manifest = self.assertRefused((status, stdout, stderr, out), "gateway: request 1 (POST /v1/responses) offered the model 'web_search' (a hosted tool)")
        self.assertEqual(model.requests, [])  # the upstream never saw it
        self.assertEqual(manifest["gateway"]["refused"], ["'web_search' (a hosted tool)"])
        self.assertEqual([r["record"] for r in records(out / "model.jsonl")], ["request", "refused"])


class HarnessesThroughTheGateway(LaunchCase):
    """The stand-ins of claude, codex and gemini speak HTTP to the base URL they were given."""

    CASES = {
        "claude-code": ("claude_sealed.jsonl", "ANTHROPIC_BASE_URL", "/v1/messages",
                        {"tools": [{"name": "mcp__lock__search", "input_schema": {}}]},
                        {"tools": [{"type": "web_search_20250305", "name": "web_search"}]}, "'web_search'"),
        "codex": ("codex_sealed.jsonl", "OPENAI_BASE_URL", "/responses",
                  {"tools": [{"type": "function", "name": "mcp__lock__search"}, {"type": "function", "name": "update_plan"}]},
                  {"tools": [{"type": "web_search"}]}, "'web_search' (a hosted tool)"),
        "gemini-cli": ("gemini_sealed.jsonl", "GOOGLE_GEMINI_BASE_URL", "/v1beta/models/g:generateContent",
                       {"tools": [{"functionDeclarations": [{"name": "mcp_lock_search"}]}]},
                       {"tools": [{"googleSearch": {}}]}, "'googleSearch'"),
    }

    def run_with(self, harness: str, request: dict, upstream: Recorder, stopped: bool = False):
        script_name, variable, path, _, _, _ = self.CASES[harness]
        lines = (DATA / script_name).read_text(encoding="utf-8").split("\n")
        model = json.dumps({"$model": {"path": path, "body": {"model": "m", **request}}})
        script = self.tmp / f"{harness}-{len(upstream.requests)}-{self.runs}.jsonl"
        # A run the gateway stops is stopped at once: the stand-in's long sleep never ends it.
        wait = [json.dumps({"$sleep": 30})] if stopped else []
        script.write_text("\n".join([lines[0], model, *wait, *lines[1:]]), encoding="utf-8")
        suffix = "/v1" if harness == "codex" else ""
        env = {"STUB_SCRIPT": str(script), "STUB_KEY": KEY, variable: upstream.url + suffix}
        with mock.patch.dict(os.environ, {"OPENAI_API_KEY": KEY}):
            return self.launch(harness, None, env=env)

    def test_each_harness_is_pointed_at_the_gateway_and_forwarded(self):
        require_extra("mcp", "mcp")
        for harness, (_, variable, path, faithful, _, _) in self.CASES.items():
            with self.subTest(harness):
                upstream = Recorder({})
                self.addCleanup(upstream.close)
                status, stdout, stderr, out = self.run_with(harness, faithful, upstream)
                self.assertEqual(status, 0, stderr)
                self.assertEqual([p for p, _ in upstream.requests], [("/v1" if harness == "codex" else "") + path])
                self.assertEqual(self.manifest(out)["gateway"]["records"], 2)
                self.assertNotIn(KEY, (out / "model.jsonl").read_text(encoding="utf-8"))

    def test_a_model_log_the_harness_forges_in_its_reach_is_not_the_gateways(self):
        # The stand-in overwrites ../model.jsonl with a log of its own (here: one that would hide what the
        # model was offered), then appends to it: the gateway's log, written out of its reach, replaces it.
        require_extra("mcp", "mcp")
        script_name, variable, path, faithful, _, _ = self.CASES["claude-code"]
        lines = (DATA / script_name).read_text(encoding="utf-8").split("\n")
        forged = json.dumps({"prev": "0" * 64, "record": "request", "n": 1, "body": {"tools": []}}) + "\n"
        script = self.tmp / "forge-model-log.jsonl"
        script.write_text("\n".join([lines[0], json.dumps({"$model": {"path": path, "body": {"model": "m", **faithful}}}),
                                     json.dumps({"$model_log": forged}), json.dumps({"$model_log": forged, "append": True}),
                                     *lines[1:]]), encoding="utf-8")
        upstream = Recorder({})
        self.addCleanup(upstream.close)
        status, _, stderr, out = self.launch("claude-code", None, env={"STUB_SCRIPT": str(script), "STUB_KEY": KEY,
                                                                        variable: upstream.url})
        self.assertEqual(status, 0, stderr)
        manifest = self.manifest(out)
        data = (out / "model.jsonl").read_bytes()
        self.assertNotIn(b'"tools": []', data)
        self.assertEqual([r["record"] for r in records(out / "model.jsonl")], ["request", "answer"])
        chain = log_chain(data)
        self.assertEqual((manifest["gateway"]["records"], manifest["gateway"]["sha256"]), (chain.records, chain.sha256))
        status, stdout, stderr = run_cli("score", str(out), "--format", "json")
        self.assertEqual(status, 0, stderr)
        self.assertNotIn("#0 seal: the model log", stdout)
        self.assertEqual(json.loads(stdout)["summary"]["seal_status"], manifest["seal"]["status"])

    def test_a_server_tool_stops_each_harness(self):
        for harness, (_, _, _, _, leaky, named) in self.CASES.items():
            with self.subTest(harness):
                upstream = Recorder({})
                self.addCleanup(upstream.close)
                started = time.monotonic()
                result = self.run_with(harness, leaky, upstream, stopped=True)
                self.assertLess(time.monotonic() - started, 25)
                manifest = self.assertRefused(result, named)
                self.assertIn("gateway:", manifest["refused"])
                self.assertEqual(upstream.requests, [])


if __name__ == "__main__":
    unittest.main()
