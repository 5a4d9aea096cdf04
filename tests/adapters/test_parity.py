"""One agent behaviour, two adapters, one result.

The same scripted run goes through the Inspect tools (a real evaluation with a
scripted ``mockllm`` model) and through the MCP server (the real SDK client
against the real server object), both over the same stub upstream on
loopback: a leaking search, calls that smuggle a date argument, a tool error,
a turn of parallel calls, a fetch of a post-T item and an exhausted budget.
Both runs must score identically, numbers and evidence lines, in both modes.
"""

import json
import tempfile
import unittest
import warnings
from pathlib import Path

from tests.mcp_support import TIMEOUT, StubUpstream
from tests.support import require_extra, run_cli

T = "2022-06-01"  # finance-001, Cygnus Robotics: fin-005 and fin-006 are published after it
BUDGET = 5  # refusals count against it: a, b, c, d and e use it up, f is over


def setUpModule():
    require_extra("inspect_ai", "inspect")
    require_extra("mcp", "mcp")
    warnings.filterwarnings("ignore", category=ResourceWarning, module=r"anyio\.")
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"inspect_ai\.")


def upstream_results():
    """The stub upstream answers every search with these corpus items, pre- and post-T alike."""
    from anachron.core import load_corpus_dir

    corpus = load_corpus_dir()
    return [
        {"id": i.id, "title": i.title, "published": i.publish_date.isoformat(), "text": i.text}
        for i in (corpus.items[name] for name in ("fin-004", "fin-005", "fin-006"))
    ]


# Turns of tool calls: (call id, tool, arguments).  Turn 1 is a turn of parallel calls.
SCRIPT = [
    [
        ("a", "search", {"query": "cygnus robotics"}),                                 # ok, leaks
        ("b", "search", {"query": "cygnus q3 2023 results", "as_of": "2030-01-01"}),  # refused; query intent
        ("c", "fetch", {"id_or_url": "fin-005", "date": "2030-01-01"}),               # refused; reaches past T
        # (Inspect refuses b and c itself, before its tools run; the agent records them in the lock.)
    ],
    [("d", "search", {"query": "boom"})],        # the upstream answers HTTP 500: error (costs budget)
    [("e", "fetch", {"id_or_url": "fin-005"})],  # unrestricted: ok, leaks; enforced: refused, blocked
    [("f", "search", {"query": "cygnus robotics 2023"})],  # the budget of 5 is spent: exhausted
    [("z", "submit", {"answer": "done"})],
]


def inspect_result(url, mode, log_dir):
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.tool import ToolCall

    from anachron.core import load_corpus_dir
    from anachron.inspect import anachron_agent, retrieval_tools, tclr_scorer, time_lock
    from anachron.inspect.task import corpus_samples
    from anachron.timelock import UpstreamBackend

    def generate(input, tools, tool_choice, config):
        turn = sum(1 for m in input if m.role == "assistant")
        calls = SCRIPT[turn] if turn < len(SCRIPT) else [("z", "submit", {"answer": "done"})]
        out = ModelOutput.for_tool_call("mockllm/model", calls[0][1], calls[0][2], tool_call_id=calls[0][0], content="")
        out.choices[0].message.tool_calls = [ToolCall(id=i, function=f, arguments=a) for i, f, a in calls]
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no token counting offline
        return out

    corpus = load_corpus_dir()
    tools = retrieval_tools(UpstreamBackend(url), mode=mode, budget=BUDGET)
    samples = [s for s in corpus_samples(corpus, mode) if s.id == "finance-001"]
    task = Task(dataset=MemoryDataset(samples), setup=time_lock(), solver=anachron_agent(tools, budget=BUDGET),
                scorer=tclr_scorer(corpus))
    [log] = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=generate), display="none", log_dir=log_dir)
    assert log.status == "success", (log.status, log.error)
    return dict(log.samples[0].scores["tclr_scorer"].metadata["anachron"]), log.samples[0]


def mcp_result(url, mode, events, *, concurrent=False):
    import anyio
    from mcp import Client

    from anachron.mcp import build_server
    from anachron.timelock import EventWriter, Limits, TimeLock, UpstreamBackend
    from anachron.core.dates import parse_date

    lock = TimeLock(UpstreamBackend(url), parse_date(T), EventWriter(events), mode=mode, limits=Limits(calls=BUDGET))

    async def session():
        with anyio.fail_after(TIMEOUT):
            async with Client(build_server(lock)) as client:
                for turn in SCRIPT[:-1]:
                    if concurrent:
                        async with anyio.create_task_group() as group:
                            for _, tool, arguments in turn:
                                group.start_soon(client.call_tool, tool, arguments)
                    else:
                        for _, tool, arguments in turn:
                            await client.call_tool(tool, arguments)

    anyio.run(session)
    lock.journal.close()
    status, out, err = run_cli("score-events", str(events), "--as-of", T, "--sample-id", "finance-001", "--format", "json")
    assert status == 0, err
    return json.loads(out)["samples"][0]


class ParityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls._tmp.name)
        cls.inspect, cls.mcp, cls.samples, cls.concurrent = {}, {}, {}, {}
        with StubUpstream(upstream_results()) as upstream:
            for mode in ("unrestricted", "enforced"):
                cls.inspect[mode], cls.samples[mode] = inspect_result(upstream.url, mode, str(tmp / f"logs-{mode}"))
                cls.mcp[mode] = mcp_result(upstream.url, mode, tmp / f"{mode}.jsonl")
                cls.concurrent[mode] = mcp_result(upstream.url, mode, tmp / f"{mode}-concurrent.jsonl", concurrent=True)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_both_adapters_give_identical_results(self):
        # The tool calls score the same through both; only Inspect knows the submitted answer
        # ("done", which states no fact), so the answer fields differ in `answered` alone.
        for mode in ("unrestricted", "enforced"):
            with self.subTest(mode=mode):
                inspect, mcp = dict(self.inspect[mode]), dict(self.mcp[mode])
                self.assertEqual((inspect.pop("answered"), mcp.pop("answered")), (True, False))
                # Neither gives a seal verdict: the event log says why (it holds only the lock's calls).
                self.assertEqual((inspect.pop("seal_status", None), mcp.pop("seal_status")), (None, "lock-only"))
                self.assertEqual(inspect, mcp)
                self.assertEqual((inspect["answer_leaks_retrieved"], inspect["answer_leaks_parametric"]), (0, 0))

    def test_the_results_are_the_rule_applied_to_the_script(self):
        query = "query 'cygnus q3 2023 results' reaches for 2023-07-01 > 2022-06-01"
        query_2023 = "query 'cygnus robotics 2023' reaches for 2023-01-01 > 2022-06-01"
        late = ["#1 result item fin-005 dated 2023-02-09 > 2022-06-01", "#1 result item fin-006 dated 2024-05-22 > 2022-06-01",
                "#1 entity 'CYGN' (item fin-005) not yet valid at 2022-06-01 (valid_from 2023-02-09)"]
        blocked = "blocked fetch of fin-005 dated 2023-02-09 > 2022-06-01"
        u, e = self.mcp["unrestricted"], self.mcp["enforced"]
        # Unrestricted: a and e ran and leaked; b and c were refused, d failed, f was over budget.
        self.assertEqual((u["interactions"], u["result_leaks"], u["tclr"], u["blocked_attempts"]), (2, 2, 1.0, 1))
        self.assertEqual(u["failed_calls"], {"refused": 2, "exhausted": 1, "error": 1})
        self.assertEqual(u["evidence"], [*late, f"#2 {query}", f"#3 {blocked}",
                                         "#5 result item fin-005 dated 2023-02-09 > 2022-06-01",
                                         "#5 entity 'CYGN' (item fin-005) not yet valid at 2022-06-01 (valid_from 2023-02-09)",
                                         f"#6 {query_2023}"])
        # Enforced: the lock withheld the post-T items and refused e, a second blocked attempt.
        self.assertEqual((e["interactions"], e["result_leaks"], e["tclr"], e["blocked_attempts"]), (1, 0, 0.0, 2))
        self.assertEqual(e["failed_calls"], {"refused": 3, "exhausted": 1, "error": 1})
        self.assertEqual(e["evidence"], [f"#2 {query}", f"#3 {blocked}", f"#5 {blocked}", f"#6 {query_2023}"])
        self.assertEqual(e["query_intent_leaks"], 2)

    def test_concurrent_mcp_calls_give_the_same_counts_and_findings(self):
        for mode in ("unrestricted", "enforced"):
            with self.subTest(mode=mode):
                got, want = dict(self.concurrent[mode]), dict(self.mcp[mode])
                # The calls arrive in any order: the same findings, numbered by arrival.
                def unnumbered(lines):
                    return sorted(line.split(" ", 1)[1] for line in lines)

                self.assertEqual(unnumbered(got.pop("evidence")), unnumbered(want.pop("evidence")))
                self.assertEqual(got, want)

    def test_inspect_saw_the_refusals_before_its_tools_ran(self):
        # Inspect refuses calls off the schema itself; the scorer recorded them, the store never saw them.
        sample = self.samples["enforced"]
        errors = {m.tool_call_id: m.error for m in sample.messages if m.role == "tool" and m.error is not None}
        self.assertEqual({errors["b"].type, errors["c"].type}, {"parsing"})
        store = sample.store["anachron:calls"]
        self.assertEqual([r["status"] for r in store], ["ok", "refused", "refused", "error", "refused", "exhausted"])
        self.assertEqual([r.get("call_id") for r in store[1:3]], ["b", "c"])  # recorded by the agent after the turn


if __name__ == "__main__":
    unittest.main()
