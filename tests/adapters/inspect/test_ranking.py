"""The Inspect tasks' ``-T ranking``: which ranking ranks the tools' searches, recorded with each call.

End to end with a scripted ``mockllm`` model (one search, then an answer): the calls the time lock
kept in each sample's store name the ranking that served them, and with ``count`` the items shown
are those of ``anachron search --ranking count`` (the same engine call).  A bad value is one line.
"""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

from tests.support import require_extra

TMP: tempfile.TemporaryDirectory | None = None


def setUpModule():
    global TMP
    TMP = tempfile.TemporaryDirectory()


def tearDownModule():
    TMP.cleanup()


def _generate(query: str):
    from inspect_ai.model import ModelOutput, ModelUsage

    def generate(input, tools, tool_choice, config):
        if not any(m.role == "assistant" for m in input):
            out = ModelOutput.for_tool_call("mockllm/model", "search", {"query": query}, tool_call_id="s1", content="")
        else:
            out = ModelOutput.from_content("mockllm/model", "done")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
        return out

    return generate


class RankingParameterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_extra("inspect_ai", "inspect")
        import warnings

        warnings.filterwarnings("ignore", category=ResourceWarning, module=r"anyio\.")
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"inspect_ai\.")

    def run_task(self, name, **params):
        from inspect_ai import eval as inspect_eval
        from inspect_ai.model import get_model

        from anachron.inspect import task as tasks

        query = "Cygnus Robotics revenue"
        [log] = inspect_eval(getattr(tasks, name)(slice="finance", **params),
                             model=get_model("mockllm/model", custom_outputs=_generate(query)), limit=2,
                             display="none", log_dir=str(Path(TMP.name, f"{name}-{params.get('ranking')}")))
        self.assertEqual(log.status, "success", log.error)
        return query, log

    def calls(self, log):
        from anachron.inspect.tools import CALLS

        return [[c for c in sample.store[CALLS] if c.get("tool") == "search"] for sample in log.samples]

    def test_each_ranking_is_recorded_and_serves_the_search(self):
        from anachron.core import load_corpus_dir
        from anachron.store import SearchEngine

        engine = SearchEngine(load_corpus_dir())
        for name in ("anachron", "anachron_enforced"):
            for ranking in (None, "bm25", "count"):
                with self.subTest(task=name, ranking=ranking):
                    query, log = self.run_task(name, **({} if ranking is None else {"ranking": ranking}))
                    served = ranking or "bm25"
                    self.assertEqual(log.eval.metadata["anachron_ranking"], served)
                    for sample, calls in zip(log.samples, self.calls(log)):
                        self.assertEqual(len(calls), 1, calls)
                        [call] = calls
                        self.assertEqual(call.get("ranking"), served, call)
                        mode = sample.metadata["mode"]
                        import datetime as dt

                        day = dt.date.fromisoformat(sample.metadata["as_of"])
                        want = [i.id for i in engine.search(query, as_of=day, mode=mode, k=5, ranking=served)]
                        self.assertEqual([r["id"] for r in call["returned"]], want, call)

    def test_the_two_rankings_differ_here(self):
        # Not vacuous: on this query the two rankings show different items in some sample.
        _, bm25 = self.run_task("anachron", ranking="bm25")
        _, count = self.run_task("anachron", ranking="count")
        shown = [[[r["id"] for c in calls for r in c["returned"]] for calls in self.calls(log)] for log in (bm25, count)]
        self.assertNotEqual(shown[0], shown[1])

    def test_a_bad_ranking_is_one_line_naming_the_task(self):
        from anachron.inspect.bank import anachron_bank
        from anachron.inspect.params import TaskParameterError
        from anachron.inspect.task import anachron, anachron_enforced

        for build, name in ((anachron, "anachron"), (anachron_enforced, "anachron_enforced"), (anachron_bank, "anachron_bank")):
            for value, message in (("tfidf", f"{name}: unknown ranking 'tfidf': expected one of bm25, count"),
                                   (3, f"{name}: -T ranking: expected a string, got 3")):
                with self.subTest(task=name, value=value), self.assertRaises(TaskParameterError) as ctx:
                    build(ranking=value)
                self.assertEqual(str(ctx.exception), message)

    def test_an_upstream_backend_refuses_a_ranking(self):
        from anachron.core import AnachronError
        from anachron.inspect.tools import retrieval_tools

        class Upstream:
            kind, source = "upstream", "https://example.invalid"

            def search(self, *a, **k):
                return []

            def fetch(self, *a, **k):
                return None

        retrieval_tools(Upstream(), mode="enforced")  # no ranking asked for: served as the upstream ranks
        with self.assertRaises(AnachronError) as ctx:
            retrieval_tools(Upstream(), mode="enforced", ranking="count")
        self.assertIn("only a local corpus is ranked by Anachron", str(ctx.exception))


if __name__ == "__main__":
    unittest.main()
