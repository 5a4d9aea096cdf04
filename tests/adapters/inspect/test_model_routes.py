"""Real model routes, offline: Inspect's ``openai-api`` provider (the OpenAI SDK) against a
loopback stub that speaks the Chat Completions API with tool calls, and a model that answers in
plain text instead of calling ``submit``.

The stub is written from the published Chat Completions schema (request: ``messages``,
``tools``; response: ``choices[0].message.tool_calls`` with JSON-string ``arguments``,
``finish_reason``, ``usage``); the client side is the real ``openai`` package through Inspect.
Expected TCLRs come from the core, on the calls the stub made the model make.
"""

import json
import os
import tempfile
import threading
import unittest
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.support import require_extra

TMP = None


def setUpModule():
    require_extra("inspect_ai", "inspect")
    warnings.filterwarnings("ignore", category=ResourceWarning, module=r"anyio\.")
    # the OpenAI client's pooled loopback connections, closed with the event loop: not ours
    warnings.filterwarnings("ignore", category=ResourceWarning, module=r"inspect_ai\.")
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"inspect_ai\.")
    global TMP
    TMP = tempfile.TemporaryDirectory()


def tearDownModule():
    if TMP is not None:
        TMP.cleanup()


# Per subject, the tool calls of each turn: (call id, function, arguments).
SCRIPT = {
    "Cygnus Robotics": [
        [("call_a", "search", {"query": "cygnus robotics"}), ("call_b", "fetch", {"id_or_url": "fin-006"})],
        [("call_a", "search", {"query": "cygnus robotics q3 2023"})],  # an id reused in a new turn
        [("call_c", "submit", {"answer": "Cygnus Robotics is private as of 2022-06-01."})],
    ],
}


class ChatCompletionsStub(BaseHTTPRequestHandler):
    """POST /v1/chat/completions: the next scripted turn for the sample named in the user message."""

    requests = []

    def log_message(self, *args):  # keep test output clean
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append((self.path, self.headers.get("Authorization"), body))
        if self.path != "/v1/chat/completions":
            self.send_error(404)
            return
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        user = user if isinstance(user, str) else " ".join(part.get("text", "") for part in user)
        script = next(turns for subject, turns in SCRIPT.items() if f"Subject: {subject}" in user)
        turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
        calls = script[min(turn, len(script) - 1)]
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": fn, "arguments": json.dumps(args)}}
                for cid, fn, args in calls
            ],
        }
        reply = json.dumps({
            "id": f"chatcmpl-{turn}", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls", "logprobs": None}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


class OpenAIApiRoute(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_extra("openai", "inspect")
        from inspect_ai import eval as inspect_eval

        import anachron.inspect as ai

        ChatCompletionsStub.requests = []
        cls.server = ThreadingHTTPServer(("127.0.0.1", 0), ChatCompletionsStub)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        env = {"STUB_BASE_URL": f"http://127.0.0.1:{cls.server.server_port}/v1", "STUB_API_KEY": "not-a-key"}
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            cls.logs = {
                mode: inspect_eval(task, model="openai-api/stub/local-model", display="none", sample_id="finance-001",
                                   log_dir=str(Path(TMP.name, mode)))[0]
                for mode, task in (("unrestricted", ai.anachron()), ("enforced", ai.anachron_enforced()))
            }
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def expected(self, mode):
        """The core's result for the calls the stub scripted, answered by the core's search."""
        from anachron.core import load_corpus_dir, parse_traces, score_traces
        from anachron.store import SearchEngine

        corpus = load_corpus_dir()
        engine = SearchEngine(corpus)
        sample = corpus.samples["finance-001"]
        interactions = []
        for turn in SCRIPT["Cygnus Robotics"][:2]:
            for _, fn, args in turn:
                if fn == "search":
                    hits = engine.search(args["query"], as_of=sample.as_of, mode=mode, k=5)
                    interactions.append({"tool": "search", "query": args["query"], "returned": [h.id for h in hits]})
                elif mode == "unrestricted" or corpus.items[args["id_or_url"]].publish_date <= sample.as_of:
                    interactions.append({"tool": "fetch", "query": None, "returned": [args["id_or_url"]]})
                else:  # the enforced lock refuses a post-T fetch: a blocked attempt, never an interaction
                    interactions.append({"tool": "fetch", "query": None, "status": "refused", "target": args["id_or_url"]})
        # The answer the model submitted (it states no fact, so no answer leak).
        trace = {"sample_id": "finance-001", "mode": mode, "interactions": interactions,
                 "answer": "Cygnus Robotics is private as of 2022-06-01."}
        [result] = score_traces(parse_traces([("expected", trace)], corpus), corpus)
        return result

    def test_the_scorer_gets_the_exact_tclr(self):
        for mode, log in self.logs.items():
            with self.subTest(mode=mode):
                self.assertEqual(log.status, "success", log.error)
                [sample] = log.samples
                score = next(iter(sample.scores.values()))
                want = self.expected(mode)
                self.assertEqual(score.value, want.tclr)
                self.assertEqual(score.metadata["anachron"], want.to_dict())
                self.assertEqual(score.answer, "Cygnus Robotics is private as of 2022-06-01.")
        # Cygnus listed after T: every unrestricted call surfaced a post-T item; enforced, none did and
        # the fetch of fin-006 (dated after T) was a blocked attempt.
        self.assertEqual((self.expected("unrestricted").tclr, self.expected("unrestricted").interactions), (1.0, 3))
        self.assertEqual((self.expected("enforced").tclr, self.expected("enforced").blocked_attempts), (0.0, 1))

    def test_the_stub_saw_the_sdk_speak_chat_completions(self):
        paths = {path for path, _, _ in ChatCompletionsStub.requests}
        self.assertEqual(paths, {"/v1/chat/completions"})
        self.assertTrue(all(auth == "Bearer not-a-key" for _, auth, _ in ChatCompletionsStub.requests))
        bodies = [b for _, _, b in ChatCompletionsStub.requests]
        self.assertEqual(len(bodies), 6)  # three turns in each mode
        self.assertEqual(sorted(t["function"]["name"] for t in bodies[0]["tools"]), ["fetch", "search", "submit"])
        # the tool results went back under the ids of their turn
        second = bodies[1]["messages"]
        self.assertEqual([m["tool_call_id"] for m in second if m["role"] == "tool"], ["call_a", "call_b"])
        self.assertTrue(any("search #1:" in m["content"] for m in second if m["role"] == "tool"))


class PlainTextAnswer(unittest.TestCase):
    """A model that never calls submit: reminded once, then its plain reply is the answer."""

    def run_script(self, replies):
        from inspect_ai import eval as inspect_eval
        from inspect_ai.model import ModelOutput, ModelUsage, get_model

        import anachron.inspect as ai

        calls = []

        def generate(input, tools, tool_choice, config):
            turn = sum(1 for m in input if m.role == "assistant")
            calls.append(turn)
            reply = replies[min(turn, len(replies) - 1)]
            if isinstance(reply, str):
                out = ModelOutput.from_content("mockllm/model", reply)
            else:
                out = ModelOutput.for_tool_call("mockllm/model", reply[0], reply[1], tool_call_id=f"t{turn}", content="")
            out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            return out

        model = get_model("mockllm/model", custom_outputs=generate)
        [log] = inspect_eval(ai.anachron(), model=model, display="none", sample_id="finance-001",
                             log_dir=str(Path(TMP.name, "plain")))
        self.assertEqual(log.status, "success", log.error)
        [sample] = log.samples
        return sample, calls

    def test_two_plain_replies_end_the_sample_with_the_second(self):
        from anachron.inspect.solver import SUBMIT_REMINDER

        sample, calls = self.run_script(["I think it is private.", "It is private as of 2022-06-01."])
        self.assertEqual(len(calls), 2)  # not the message limit
        users = [m.text for m in sample.messages if m.role == "user"]
        self.assertEqual(users.count(SUBMIT_REMINDER), 1)
        score = next(iter(sample.scores.values()))
        self.assertEqual(score.answer, "It is private as of 2022-06-01.")
        self.assertEqual((score.value, score.metadata["anachron"]["interactions"]), (0.0, 0))

    def test_a_submit_after_the_reminder_is_the_answer(self):
        sample, calls = self.run_script(["Let me think.", ("search", {"query": "cygnus robotics"}),
                                         ("submit", {"answer": "submitted"})])
        self.assertEqual(len(calls), 3)
        score = next(iter(sample.scores.values()))
        self.assertEqual(score.answer, "submitted")
        self.assertEqual(score.metadata["anachron"]["interactions"], 1)


if __name__ == "__main__":
    unittest.main()
