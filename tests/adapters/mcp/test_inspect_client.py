"""An Inspect agent sealed behind the time-lock server, through Inspect's own MCP support (offline)."""

import json
import sys
import tempfile
import unittest
from pathlib import Path

from tests.mcp_support import TIMEOUT, read_log
from tests.support import ROOT, require_extra, run_cli

T = "2021-06-01"


def setUpModule():
    require_extra("mcp", "mcp")
    require_extra("inspect_ai", "inspect")


class InspectAgentTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from inspect_ai import Task, eval
        from inspect_ai.agent import react
        from inspect_ai.dataset import Sample
        from inspect_ai.model import ModelOutput, ModelUsage, get_model
        from inspect_ai.tool import mcp_server_stdio, mcp_tools

        cls._tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls._tmp.name)
        cls.events = tmp / "events.jsonl"
        server = mcp_server_stdio(
            name="timelock",
            command=sys.executable,
            args=["-m", "anachron", "serve", "--as-of", T, "--events", str(cls.events), "--max-searches", "1"],
            cwd=ROOT,
        )
        # A scripted model: a search, a second search over budget, a fetch, then an answer citing what it read.
        script = [
            ("search", {"query": "delta pharma revenue"}),
            ("search", {"query": "delta pharma restated"}),
            ("fetch", {"id_or_url": "fin-008"}),
            ("submit", {"answer": "fin-008"}),
        ]
        outputs = []
        for tool, arguments in script:
            output = ModelOutput.for_tool_call("mockllm/model", tool, arguments, content="")
            output.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
            outputs.append(output)
        task = Task(
            dataset=[Sample(input=f"As of {T}, what was Delta Pharma's fourth-quarter 2020 revenue?", target="x")],
            solver=react(tools=[mcp_tools(server)]),
            time_limit=TIMEOUT,  # bounded: a hung server fails the sample instead of the suite
        )
        model = get_model("mockllm/model", custom_outputs=outputs)
        (cls.eval_log,) = eval(task, model=model, log_dir=str(tmp / "logs"), display="none", log_samples=True)
        cls.messages = cls.eval_log.samples[0].messages
        cls.log = read_log(cls.events)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def tool_messages(self):
        return [m for m in self.messages if m.role == "tool" and m.function in ("search", "fetch")]

    def test_the_agent_saw_the_two_tools_and_their_results(self):
        self.assertEqual(self.eval_log.status, "success", self.eval_log.error)
        replies = self.tool_messages()
        self.assertEqual([m.function for m in replies], ["search", "search", "fetch"])
        self.assertIn("fin-008", replies[0].text)
        self.assertIn("Budget remaining: searches 0 of 1", replies[0].text)
        # The over-budget search reaches the model as a tool error, and the run goes on.
        self.assertIsNotNone(replies[1].error)
        self.assertIn("searches budget exhausted", replies[1].error.message)
        self.assertIn("fin-008", replies[2].text)

    def test_nothing_after_the_cutoff_reached_the_agent(self):
        # fin-009 restates fin-008 after T: the unlocked search would show it.
        from anachron.core import load_corpus_dir
        from anachron.store import SearchEngine
        from anachron.core.dates import parse_date

        corpus = load_corpus_dir()
        unlocked = [i.id for i in SearchEngine(corpus).search("delta pharma revenue", as_of=parse_date(T))]
        self.assertIn("fin-009", unlocked)
        for message in self.tool_messages():
            self.assertNotIn("fin-009", message.text)

    def test_the_run_is_logged_scored_and_its_citation_verified(self):
        self.assertEqual([(c["tool"], c["status"]) for c in self.log[1:]],
                         [("search", "ok"), ("search", "exhausted"), ("fetch", "ok")])
        status, out, err = run_cli("score-events", str(self.events), "--as-of", T, "--format", "json")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual((json.loads(out)["samples"][0]["interactions"], json.loads(out)["samples"][0]["tclr"]), (2, 0.0))
        answer = Path(self._tmp.name) / "answer.json"
        answer.write_text(json.dumps({"citations": [self.eval_log.samples[0].output.completion.strip()]}), encoding="utf-8")
        status, out, _ = run_cli("verify-citations", str(answer), str(self.events))
        self.assertEqual(status, 0, out)


if __name__ == "__main__":
    unittest.main()
