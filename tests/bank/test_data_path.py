"""The oracles through the system's data path: a sound lock passes checks 2 and 3, a leaky one fails check 2."""

import dataclasses
import datetime as dt
import json
import tempfile
import unittest
from pathlib import Path

from anachron.bank import load_bank, load_facts, oracle_responses, run_bank
from anachron.bank.oracle_agents import data_path_oracles, oracle_agent, timelock_factory
from anachron.bank.filings import default_filings_dir, filing_records, filings_text
from anachron.core import load_corpus_dir
from anachron.timelock import CorpusBackend

from tests.support import run_cli

YEAR = dt.timedelta(days=365)


class BackdatingBackend:
    """A deliberately leaky data layer: it serves every document, each dated a year early."""

    kind = "corpus"

    def __init__(self, inner):
        self.inner, self.source = inner, "backdating " + inner.source

    def _shift(self, hits):
        return [dataclasses.replace(h, dates=tuple(d - YEAR for d in h.dates)) for h in hits]

    def search(self, query, *, k, as_of, mode):
        return self._shift(self.inner.search(query, k=k, as_of=as_of + YEAR, mode=mode))

    def fetch(self, ref, *, as_of, mode):
        return self._shift(self.inner.fetch(ref, as_of=as_of, mode=mode))


class RevisedInPlaceBackend:
    """Another leak: each first release shows its final revision's text under the first release's date."""

    kind = "corpus"

    def __init__(self, inner):
        self.inner, self.source = inner, "revised-in-place " + inner.source
        items = inner.corpus.items
        self.latest = {}
        for item in sorted(items.values(), key=lambda i: i.publish_date):
            root = item
            while root.restates is not None:
                root = items[root.restates]
            self.latest[root.id] = item.text

    def search(self, query, *, k, as_of, mode):
        hits = [h for h in self.inner.search(query, k=k, as_of=as_of, mode=mode)]
        return [dataclasses.replace(h, text=self.latest.get(h.id, h.text)) for h in hits]

    def fetch(self, ref, *, as_of, mode):
        return self.inner.fetch(ref, as_of=as_of, mode=mode)


class EmptyBackend:
    kind, source = "corpus", "nothing"

    def search(self, query, *, k, as_of, mode):
        return []

    def fetch(self, ref, *, as_of, mode):
        return []


class DataPathTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bank = load_bank()
        cls.backend = CorpusBackend(load_corpus_dir(default_filings_dir(), samples=False))

    def run_through(self, backend, **lock):
        oracles = data_path_oracles(self.bank, timelock_factory(backend, **lock))
        return run_bank(self.bank, oracle_responses(self.bank, "respect"), manifest_version=self.bank.version,
                        oracles=oracles, oracle_source=backend.source)

    def test_a_sound_lock_gives_the_oracles_their_figures(self):
        card = self.run_through(self.backend).to_dict()
        self.assertTrue(card["valid"], card["failed_checks"])
        self.assertEqual((card["oracle_respect_accuracy"], card["oracle_respect_leak_rate"]), (1.0, 0.0))
        self.assertEqual((card["oracle_ignore_leak_rate"], card["oracle_ignore_accuracy"]), (1.0, 56 / 108))
        self.assertEqual(card["oracle_failures"], [])
        self.assertIn("filings", card["oracle_source"])
        # The same figures as the oracles answering from the bank's own history.
        history = run_bank(self.bank, oracle_responses(self.bank, "respect"), manifest_version=self.bank.version).to_dict()
        self.assertEqual(history["oracle_source"], "bank history")
        for key in ("oracle_respect_accuracy", "oracle_respect_leak_rate", "oracle_ignore_leak_rate", "oracle_ignore_accuracy"):
            self.assertEqual(card[key], history[key], key)

    def test_a_backdating_backend_fails_check_2(self):
        result = self.run_through(BackdatingBackend(self.backend))
        self.assertEqual(result.failed_checks, ["oracle_respect"])
        self.assertGreater(result.respect.leaked, 0)
        failure = next(f for f in result.oracle_failures if f["item_id"] == "dltp-revenue-2020q4-2021-02-03")
        self.assertEqual((failure["oracle"], failure["judgement"], failure["expected"]), ("respect", "leaked", "refused"))

    def test_a_document_revised_in_place_fails_check_2(self):
        result = self.run_through(RevisedInPlaceBackend(self.backend))
        self.assertEqual(result.failed_checks, ["oracle_respect"])
        self.assertEqual(result.respect.leaked, 0)  # nothing is shown early: the leak is in the answerable items
        self.assertGreater(result.respect.leaked_answerable, 0)
        failure = next(f for f in result.oracle_failures if f["item_id"] == "dltp-revenue-2020q4-2021-02-04")
        self.assertEqual((failure["response"], failure["judgement"]), ("377,000,000 USD", "leaked"))

    def test_a_data_path_with_nothing_fails_checks_2_and_3(self):
        result = self.run_through(EmptyBackend())
        self.assertEqual(result.failed_checks, ["oracle_respect", "oracle_ignore"])

    def test_hidden_dates_leave_the_respect_oracle_nothing_it_can_use(self):
        result = self.run_through(self.backend, presentation="hidden")
        self.assertIn("oracle_respect", result.failed_checks)
        self.assertEqual(result.respect.correct, sum(1 for i in self.bank.items.values() if i.answer == "not listed"))

    def test_the_oracle_reads_only_results_about_the_item(self):
        item = self.bank.items["dltp-revenue-2020q4-2021-02-04"]
        other = {"id": "x", "title": "DLTP revenue 2021-Q1", "published": "2021-01-01",
                 "text": "Delta Pharma (DLTP) reported revenue for 2021-Q1 of 999,000,000 USD."}
        unreadable = dict(other, text="Delta Pharma (DLTP) reported revenue for 2020-Q4 of 1 USD.", published="someday")
        right = dict(other, text="Delta Pharma (DLTP) reported revenue for 2020-Q4 of 412,000,000 USD.", published="2021-02-04")
        later = dict(right, text="Delta Pharma (DLTP) revised its revenue for 2020-Q4 to 377,000,000 USD.", published="2021-09-17")
        call = lambda tool, args: {"results": [other, unreadable, right, later]}  # noqa: E731
        self.assertEqual(oracle_agent(item, "respect", call), "412,000,000 USD")
        self.assertEqual(oracle_agent(item, "ignore", call), "377,000,000 USD")
        self.assertEqual(oracle_agent(item, "respect", lambda tool, args: {"error": "down", "results": []}), "unknown")


class FilingsTest(unittest.TestCase):
    def test_the_committed_filings_are_rebuilt_byte_for_byte(self):
        text = filings_text(filing_records(load_facts(), load_corpus_dir()))
        self.assertEqual(text.encode("utf-8"), (default_filings_dir() / "items.jsonl").read_bytes())

    def test_one_filing_per_fact_on_its_day(self):
        facts = {obj["id"]: obj for _, obj in load_facts()}
        corpus = load_corpus_dir(default_filings_dir(), samples=False)
        self.assertEqual(len(corpus.items), len(facts))
        for item in corpus.items.values():
            fact = facts[item.id.removeprefix("filing-")]
            self.assertEqual(item.publish_date.isoformat(), fact["published"])
            if fact["revises"] and fact["unit"] != "status":
                self.assertEqual(item.restates, "filing-" + fact["revises"])


class CliTest(unittest.TestCase):
    def test_data_option(self):
        status, out, err = run_cli("bank", "run", "--system", "respect", "--data", str(default_filings_dir()), "--format", "json")
        self.assertEqual((status, err), (0, ""))
        self.assertTrue(json.loads(out)["oracle_source"].startswith("data path: time lock (enforced)"))
        with tempfile.TemporaryDirectory() as tmp:
            # A leaky data layer on disk: the filings, each dated a year early.
            lines = []
            for line in (default_filings_dir() / "items.jsonl").read_text(encoding="utf-8").split("\n"):
                if line:
                    obj = json.loads(line)
                    obj["publish_date"] = (dt.date.fromisoformat(obj["publish_date"]) - YEAR).isoformat()
                    lines.append(json.dumps(obj))
            Path(tmp, "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
            status, out, err = run_cli("bank", "run", "--system", "respect", "--data", tmp)
            self.assertEqual(status, 3)
            self.assertIn("failed check(s): oracle_respect", err)
            self.assertNotIn("oracle_ignore", err)
            self.assertIn("Oracle responses off their expected judgement", out)
            status, out, err = run_cli("bank", "run", "--system", "respect", "--data", str(Path(tmp, "missing")))
            self.assertEqual((status, out), (2, ""))


if __name__ == "__main__":
    unittest.main()
