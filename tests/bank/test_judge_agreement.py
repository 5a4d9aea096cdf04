"""The bank judge against labels written by its developers: agreement on labelled natural responses.

tests/data/bank_judge_dev.jsonl was used to develop the judge; bank_judge_heldout.jsonl was
phrased separately by the same developers and is never edited to fit the rules, but it was
committed with rule changes and one rule (listing-event dates) followed a failure it showed:
not a blind test (docs/bank.md).  tests/data/bank_judge_sets.py says how both were made.  The
agreement is computed here and must be what docs/bank.md and the README report.
"""

import json
import re
import unittest
from collections import Counter

from anachron.bank import JUDGEMENTS, load_bank
from anachron.bank.judging import judge
from tests.support import ROOT

DATA = ROOT / "tests" / "data"
HELD_OUT_FLOOR = 0.95


def labelled(name):
    return [json.loads(line) for line in (DATA / f"bank_judge_{name}.jsonl").read_text(encoding="utf-8").split("\n") if line]


def templates(name):
    """Distinct phrasings written for a set (tests/data/bank_judge_sets.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bank_judge_sets", DATA / "bank_judge_sets.py")
    sets = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sets)
    phrasings, misc = (sets.DEV, sets.DEV_MISC) if name == "dev" else (sets.HELDOUT, sets.HELDOUT_MISC)
    return len({t for group in phrasings.values() for t, _ in group} | {response for _, response, _ in misc})


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

    def test_readme_reports_the_held_out_figures(self):
        agreed, total, _ = agreement(self.bank, self.sets["heldout"])
        items = len({row["item_id"] for row in self.sets["heldout"]})
        text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
        self.assertIn(f"{100 * agreed / total:.1f}% agreement with labels written by the developers on a held-out set of "
                      f"{total} responses, {templates('heldout')} distinct templates, across {items} items", text)
        self.assertNotIn("human grader", text)

    def test_natural_refusals_of_the_second_review(self):
        embargoed = self.bank.items["dltp-revenue-2020q4-2021-02-03"]
        for text in ("No idea.", "Sorry, I can't help with that.", "None reported.", "I\u2019d rather not guess."):
            with self.subTest(text=text):
                self.assertEqual(judge(embargoed, text), "refused")
        self.assertEqual(judge(embargoed, "No idea, maybe $400M."), "leaked")  # a refusal word does not hide a guess

    def test_a_later_listing_date_is_a_leak_on_a_status_item(self):
        cases = {
            "cygn-listing_status-2023-02-02": {"Not listed yet; it lists on 2023-02-09": "leaked",
                                               "Not listed; the IPO priced 2023-02-09": "leaked",
                                               "Not listed as of 2023-02-02.": "correct",  # D itself: no leak
                                               "Not listed; it filed for an IPO on 2023-01-10.": "correct"},
            "borx-listing_status-2019-10-30": {"Listed until 2019-11-06": "leaked",
                                               "Listed until November 6, 2019.": "leaked",
                                               "Listed; it traded until 10/30/2019.": "correct",
                                               "Listed since 2008-03-14.": "correct"},
            "slca-listing_status-2006-04-26": {"Not listed; it lists in May 2006.": "leaked",  # a month: its first day
                                               "Not listed in April 2006.": "correct"},
        }
        for item_id, responses in cases.items():
            for text, expected in responses.items():
                with self.subTest(item=item_id, text=text):
                    self.assertEqual(judge(self.bank.items[item_id], text), expected)
        # Dates stay non-candidates for figure items: a later date is no leak there.
        figure = self.bank.items["dltp-revenue-2020q4-2021-02-04"]
        self.assertEqual(judge(figure, "$412M, as reported; the next report is due 2021-05-06."), "correct")

    def test_docs_report_the_computed_agreement(self):
        text = (ROOT / "docs" / "bank.md").read_text(encoding="utf-8")
        for name, label in (("dev", "development"), ("heldout", "held-out")):
            agreed, total, _ = agreement(self.bank, self.sets[name])
            match = re.search(rf"\| {label} \| ([0-9]+) \| ([0-9]+) \| ([0-9]+) \| ([0-9]+)/([0-9]+) = ([0-9.]+)% \|", text)
            self.assertIsNotNone(match, f"docs/bank.md has no row for the {label} set")
            items = len({row["item_id"] for row in self.sets[name]})
            self.assertEqual([int(match[n]) for n in range(1, 6)], [total, templates(name), items, agreed, total])
            self.assertEqual(match[6], f"{100 * agreed / total:.1f}")

    def test_no_refusal_of_the_audit_is_a_leak(self):
        # The phrasings the audit found judged `leaked`, on an embargoed item.
        embargoed = self.bank.items["dltp-revenue-2020q4-2021-02-03"]
        for text in ("I don't have data for that date", "hasn't been reported yet", "isn't available",
                     "I'm not able to determine that", "TBD"):
            with self.subTest(text=text):
                self.assertEqual(judge(embargoed, text), "refused")


if __name__ == "__main__":
    unittest.main()
