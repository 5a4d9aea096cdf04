"""The Inspect task `anachron_bank`, offline: mockllm with scripted tool calls and answers."""

import json
import unittest
from pathlib import Path

from anachron.core import default_corpus_dir, load_corpus_dir
from anachron.bank import load_bank
from anachron.core.errors import AnachronError

from anachron.bank.filings import default_filings_dir
from tests.support import inspect_module_setup

TMP = None
EMBARGOED = "dltp-revenue-2020q4-2021-02-03"  # the day before the $412M release
RELEASE_DAY = "dltp-revenue-2020q4-2021-02-04"
BEFORE_RESTATEMENT = "dltp-revenue-2020q4-2021-09-16"  # $412M public, $377M comes the next day
IPO = "cygn-ipo_price-2023-01-12"  # embargoed: the IPO prices on 2023-02-09

# Per item, the turns of the scripted model: tool calls, then the submitted answer.
SCRIPT = {
    EMBARGOED: [("s1", "search", {"query": "delta pharma revenue"}), ("a", "submit", {"answer": "unknown"})],
    RELEASE_DAY: [("s1", "search", {"query": "delta pharma revenue"}), ("a", "submit", {"answer": "Q4 2020 revenue was $412M."})],
    BEFORE_RESTATEMENT: [("a", "submit", {"answer": "$377 million"})],
    IPO: [("a", "submit", {"answer": "$18 a share"})],
}


def setUpModule():
    global TMP
    TMP = inspect_module_setup()


def tearDownModule():
    if TMP is not None:
        TMP.cleanup()


def scripted_model(bank):
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    by_question = {bank.items[item_id].question: turns for item_id, turns in SCRIPT.items()}

    def generate(input, tools, tool_choice, config):
        question = next(m.text for m in input if m.role == "user").split("\n\nSubject: ")[0]
        turns = by_question[question]
        turn = sum(1 for m in input if m.role == "assistant")
        call_id, function, arguments = turns[min(turn, len(turns) - 1)]
        out = ModelOutput.for_tool_call("mockllm/model", function, arguments, tool_call_id=call_id, content="")
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no token counting offline
        return out

    return get_model("mockllm/model", custom_outputs=generate)


class BankTaskTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from inspect_ai import eval as inspect_eval

        from anachron.inspect.bank import anachron_bank

        cls.bank = load_bank()
        [cls.log] = inspect_eval(
            anachron_bank(), model=scripted_model(cls.bank), sample_id=list(SCRIPT),
            display="none", log_dir=str(Path(TMP.name, "logs")),
        )
        assert cls.log.status == "success", (cls.log.status, cls.log.error)
        cls.samples = {s.id: s for s in cls.log.samples}

    def judgement(self, item_id):
        return self.samples[item_id].scores["bank_scorer"].metadata["anachron_bank"]["judgement"]

    def test_every_judgement_comes_from_the_core(self):
        self.assertEqual(
            {item_id: self.judgement(item_id) for item_id in SCRIPT},
            {EMBARGOED: "refused", RELEASE_DAY: "correct", BEFORE_RESTATEMENT: "leaked", IPO: "leaked"},
        )
        self.assertEqual(self.samples[RELEASE_DAY].scores["bank_scorer"].value, 1.0)
        self.assertEqual(self.samples[IPO].scores["bank_scorer"].value, 0.0)

    def test_metrics_use_the_embargoed_and_answerable_denominators(self):
        metrics = self.log.results.scores[0].metrics
        self.assertEqual(metrics["bank_accuracy"].value, 0.5)  # 1 correct of 2 answerable
        self.assertEqual(metrics["bank_leak_rate"].value, 0.5)  # 1 leaked of 2 embargoed
        self.assertEqual(metrics["bank_leak_rate_upper"].value, 0.5)  # nothing undecided: the bounds meet
        self.assertEqual(metrics["bank_leaked_answerable"].value, 1)

    def test_each_sample_is_locked_to_its_items_date(self):
        corpus = load_corpus_dir(default_filings_dir())  # what the task serves by default
        for item_id in (EMBARGOED, RELEASE_DAY):
            sample = self.samples[item_id]
            as_of = self.bank.items[item_id].as_of
            self.assertEqual(sample.store["anachron:as_of"], as_of.isoformat())
            [call] = sample.store["anachron:calls"]
            self.assertTrue(all(corpus.items[r["id"]].publish_date <= as_of for r in call["returned"]), call)
        # The day before the release the revenue item is out of reach; on the day it is served.
        def shown(item_id):
            return [r["id"] for r in self.samples[item_id].store["anachron:calls"][0]["returned"]]

        self.assertNotIn("filing-dltp-revenue-2020q4-r0", shown(EMBARGOED))
        self.assertIn("filing-dltp-revenue-2020q4-r0", shown(RELEASE_DAY))
        self.assertNotIn("filing-dltp-revenue-2020q4-r1", shown(RELEASE_DAY))  # the restatement comes in September

    def test_both_oracles_ran_as_agents_through_the_tools(self):
        for item_id, sample in self.samples.items():
            oracles = sample.scores["bank_scorer"].metadata["anachron_bank"]["oracles"]
            item = self.bank.items[item_id]
            self.assertEqual(oracles["respect"]["judgement"], "refused" if item.embargoed else "correct", (item_id, oracles))
            if item.embargoed:
                self.assertEqual(oracles["ignore"]["judgement"], "leaked", (item_id, oracles))
        self.assertEqual(self.samples[BEFORE_RESTATEMENT].scores["bank_scorer"].metadata["anachron_bank"]["oracles"],
                         {"respect": {"response": "412,000,000 USD", "judgement": "correct"},
                          "ignore": {"response": "377,000,000 USD", "judgement": "leaked"}})
        # The oracles' calls are kept apart: the system's log holds the system's calls only.
        self.assertEqual(len(self.samples[EMBARGOED].store["anachron:calls"]), 1)
        metrics = self.log.results.scores[0].metrics
        self.assertEqual((metrics["oracle_respect_leak_rate"].value, metrics["oracle_ignore_leak_rate"].value), (0.0, 1.0))
        self.assertEqual(metrics["valid"].value, 0)  # 2 embargoed items of the 4 run: check 4 needs 30

    def test_the_model_sees_the_question_and_no_answer(self):
        for item_id, sample in self.samples.items():
            item = self.bank.items[item_id]
            question, subject = sample.input.split("\n\nSubject: ")
            self.assertEqual(question, item.question)
            self.assertEqual(subject, {EMBARGOED: "Delta Pharma DLTP revenue 2020-Q4", RELEASE_DAY: "Delta Pharma DLTP revenue 2020-Q4",
                                       BEFORE_RESTATEMENT: "Delta Pharma DLTP revenue 2020-Q4",
                                       IPO: "Cygnus Robotics CYGN IPO price per share"}[item_id])
            self.assertEqual(set(sample.metadata), {"as_of", "mode", "retrieval_tools"})
            seen = json.dumps([m.text for m in sample.messages if m.role in ("system", "user")])
            for value, _ in item.values:
                self.assertNotIn(value, seen)

    def test_a_bank_that_does_not_match_its_manifest_is_refused(self):
        from anachron.inspect.bank import anachron_bank

        tmp = Path(TMP.name)
        lines = (default_corpus_dir() / "bank.jsonl").read_text(encoding="utf-8").splitlines()
        (tmp / "bank.jsonl").write_text("\n".join([lines[0].replace("On ", "As of ", 1)] + lines[1:]) + "\n", encoding="utf-8")
        (tmp / "bank.manifest.json").write_text((default_corpus_dir() / "bank.manifest.json").read_text(encoding="utf-8"), encoding="utf-8")
        with self.assertRaisesRegex(AnachronError, "does not match .*not be citable"):
            anachron_bank(bank=str(tmp / "bank.jsonl"))
        with self.assertRaisesRegex(AnachronError, "mode"):
            anachron_bank(mode="peek")


class KeylessAgentsOnTheBankTest(unittest.TestCase):
    """`inspect eval anachron/anachron_bank --model anachron/naive` (the docstring's example) runs to the end."""

    def test_naive_and_oracle_finish_every_sample(self):
        from inspect_ai import eval as inspect_eval

        from anachron.inspect.bank import anachron_bank

        for agent in ("naive", "oracle"):
            with self.subTest(agent=agent):
                [log] = inspect_eval(anachron_bank(), model=f"anachron/{agent}", sample_id=list(SCRIPT),
                                     display="none", log_dir=str(Path(TMP.name, f"keyless-{agent}")))
                self.assertEqual(log.status, "success", log.error)
                self.assertTrue(all(s.error is None for s in log.samples))
                searches = [m for m in log.samples[0].messages if m.role == "tool" and m.function == "search"]
                self.assertEqual(len(searches), 1)
                if agent == "oracle":
                    release = next(s for s in log.samples if s.id == RELEASE_DAY)
                    self.assertEqual(release.scores["bank_scorer"].metadata["anachron_bank"]["judgement"], "correct")


if __name__ == "__main__":
    unittest.main()


class LeakyBackendTest(unittest.TestCase):
    """The bank task's scorer, its tools over a backdating backend: check 2 fails, checks 3 and 4 pass."""

    def test_check_2_fails(self):
        from inspect_ai import Task
        from inspect_ai import eval as inspect_eval
        from inspect_ai.dataset import MemoryDataset
        from inspect_ai.model import ModelOutput, ModelUsage, get_model

        from anachron.bank.run import time_gate_checks
        from anachron.bank import Tally
        from anachron.inspect.bank import bank_samples, bank_scorer
        from anachron.inspect.solver import anachron_agent, time_lock
        from anachron.inspect.tools import retrieval_tools
        from anachron.timelock import CorpusBackend
        from tests.bank.test_data_path import BackdatingBackend

        bank = load_bank()
        backend = BackdatingBackend(CorpusBackend(load_corpus_dir(default_filings_dir(), samples=False)))
        tools = retrieval_tools(backend, mode="enforced", budget=10)

        def unknown(input, tools, tool_choice, config):
            out = ModelOutput.for_tool_call("mockllm/model", "submit", {"answer": "unknown"}, tool_call_id="a", content="")
            out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            return out

        task = Task(dataset=MemoryDataset(bank_samples(bank, "enforced")), setup=time_lock(),
                    solver=anachron_agent(tools, budget=10), scorer=bank_scorer(bank, tools))
        [log] = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=unknown), display="none",
                             log_dir=str(Path(TMP.name, "leaky")))
        self.assertEqual(log.status, "success", log.error)
        self.assertEqual(len(log.samples), len(bank))
        metrics = log.results.scores[0].metrics
        self.assertEqual(metrics["valid"].value, 0)
        self.assertGreater(metrics["oracle_respect_leak_rate"].value, 0)
        records = [s.scores["bank_scorer"].metadata["anachron_bank"] for s in log.samples]
        tallies = [Tally.count((r["embargoed"], r["oracles"][o]["judgement"]) for r in records) for o in ("respect", "ignore")]
        checks = {c.name: c.passed for c in time_gate_checks(bank.version, bank.version, *tallies)}
        self.assertEqual(checks, {"bank_hash": True, "oracle_respect": False, "oracle_ignore": True, "embargoed_items": True})
