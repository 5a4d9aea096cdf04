"""The bank judge against a careful human grader: agreement on labelled natural responses.

tests/data/bank_judge_dev.jsonl was used to develop the judge; bank_judge_heldout.jsonl was
written at the same time and never used to tune it (tests/data/bank_judge_sets.py says how both
were made).  The agreement is computed here and must be what docs/bank.md reports.
"""

import json
import re
import unittest
from collections import Counter

from anachron.bank import JUDGEMENTS, load_bank
from anachron.bank.judge import judge
from tests.support import ROOT

DATA = ROOT / "tests" / "data"
HELD_OUT_FLOOR = 0.95


def labelled(name):
    return [json.loads(line) for line in (DATA / f"bank_judge_{name}.jsonl").read_text(encoding="utf-8").split("\n") if line]


def agreement(bank, rows):
    """(agreed, total, confusion {(label, judgement): n})."""
    confusion = Counter((row["label"], judge(bank.items[row["item_id"]], row["response"])) for row in rows)
    return sum(n for (label, got), n in confusion.items() if label == got), len(rows), confusion


class AgreementTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bank = load_bank()
        cls.sets = {name: labelled(name) for name in ("dev", "heldout")}

    def test_the_sets_are_well_formed_and_large(self):
        for name, rows in self.sets.items():
            with self.subTest(set=name):
                self.assertGreaterEqual(len(rows), 300)
                for row in rows:
                    self.assertEqual(set(row), {"item_id", "response", "label"}, row)
                    self.assertIn(row["item_id"], self.bank.items)
                    self.assertIn(row["label"], JUDGEMENTS)
                labels = Counter(row["label"] for row in rows)
                self.assertEqual(set(labels), set(JUDGEMENTS), labels)  # every outcome is represented
                keys = [(row["item_id"], row["response"]) for row in rows]
                self.assertEqual(len(keys), len(set(keys)))
        dev = {(r["item_id"], r["response"]) for r in self.sets["dev"]}
        self.assertFalse(dev & {(r["item_id"], r["response"]) for r in self.sets["heldout"]})

    def test_held_out_agreement_reaches_the_floor(self):
        agreed, total, confusion = agreement(self.bank, self.sets["heldout"])
        misses = {k: n for k, n in confusion.items() if k[0] != k[1]}
        self.assertGreaterEqual(agreed / total, HELD_OUT_FLOOR, misses)

    def test_docs_report_the_computed_agreement(self):
        text = (ROOT / "docs" / "bank.md").read_text(encoding="utf-8")
        for name, label in (("dev", "development"), ("heldout", "held-out")):
            agreed, total, _ = agreement(self.bank, self.sets[name])
            match = re.search(rf"\| {label} \| ([0-9]+) \| ([0-9]+)/([0-9]+) = ([0-9.]+)% \|", text)
            self.assertIsNotNone(match, f"docs/bank.md has no row for the {label} set")
            self.assertEqual((int(match[1]), int(match[2]), int(match[3])), (total, agreed, total))
            self.assertEqual(match[4], f"{100 * agreed / total:.1f}")

    def test_no_refusal_of_the_audit_is_a_leak(self):
        # The phrasings the audit found judged `leaked`, on an embargoed item.
        embargoed = self.bank.items["dltp-revenue-2020q4-2021-02-03"]
        for text in ("I don't have data for that date", "hasn't been reported yet", "isn't available",
                     "I'm not able to determine that", "TBD"):
            with self.subTest(text=text):
                self.assertEqual(judge(embargoed, text), "refused")


if __name__ == "__main__":
    unittest.main()
