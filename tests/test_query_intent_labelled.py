"""Query intent against hand-labelled agent queries: precision and recall, development and held-out.

The sets and how they were labelled: tests/data/query_intent/README.md.  Run this file directly
to print the figures recorded in docs/metrics.md:

    PYTHONPATH=. python tests/test_query_intent_labelled.py
"""

import datetime as dt
import json
import sys
import unittest
from pathlib import Path

from anachron.core import query_findings

DATA = Path(__file__).resolve().parent / "data" / "query_intent"
KINDS = ("future", "open_period")


def load(name):
    with open(DATA / name, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle.read().split("\n") if line]


def findings(record):
    intent = query_findings(record["query"], dt.date.fromisoformat(record["as_of"]),
                          fiscal_year_end=record.get("fiscal_year_end"))
    return {kind for kind, refs in zip(KINDS, (intent.future, intent.open_periods)) if refs}


def measure(records):
    """Counts per finding kind and over both: a (query, kind) pair is one decision."""
    counts = {kind: {"tp": 0, "fp": 0, "fn": 0} for kind in (*KINDS, "all")}
    misses = []
    for record in records:
        expected, got = set(record["findings"]), findings(record)
        for kind in KINDS:
            outcome = "tp" if kind in expected and kind in got else "fp" if kind in got else "fn" if kind in expected else None
            if outcome:
                counts[kind][outcome] += 1
                counts["all"][outcome] += 1
        if expected != got:
            misses.append((record["as_of"], record["query"], sorted(expected), sorted(got)))
    return counts, misses


def rates(count):
    tp, fp, fn = count["tp"], count["fp"], count["fn"]
    return (tp / (tp + fp) if tp + fp else 1.0), (tp / (tp + fn) if tp + fn else 1.0)


class LabelledSetsTest(unittest.TestCase):
    def test_the_sets_are_well_formed_and_disjoint(self):
        development, heldout = load("development.jsonl"), load("heldout.jsonl")
        self.assertGreaterEqual(len(development), 300)
        self.assertGreaterEqual(len(heldout), 200)
        for record in development + heldout:
            self.assertLessEqual(set(record["findings"]), set(KINDS), record)
            dt.date.fromisoformat(record["as_of"])
        keys = lambda records: {(r["as_of"], r["query"]) for r in records}
        self.assertEqual(keys(development) & keys(heldout), set())

    def assert_meets_the_goal(self, name):
        counts, misses = measure(load(name))
        precision, recall = rates(counts["all"])
        detail = "\n".join(map(str, misses))
        self.assertGreaterEqual(precision, 0.95, detail)
        self.assertGreaterEqual(recall, 0.90, detail)

    def test_heldout_precision_and_recall(self):
        self.assert_meets_the_goal("heldout.jsonl")

    def test_development_precision_and_recall(self):
        self.assert_meets_the_goal("development.jsonl")

    def test_the_measure_counts_what_it_should(self):
        # A check of the scoring itself: a query that leaks and one that does not.
        records = [
            {"as_of": "2022-06-15", "query": "q3 2023 results", "findings": ["future"]},
            {"as_of": "2022-06-15", "query": "q1 2022 results", "findings": ["future"]},
            {"as_of": "2022-06-15", "query": "q2 2022 results", "findings": []},
        ]
        counts, misses = measure(records)
        self.assertEqual(counts["future"], {"tp": 1, "fp": 0, "fn": 1})
        self.assertEqual(counts["open_period"], {"tp": 0, "fp": 1, "fn": 0})
        self.assertEqual(len(misses), 2)


def main():
    for name in ("development.jsonl", "heldout.jsonl"):
        records = load(name)
        counts, misses = measure(records)
        print(f"{name}: {len(records)} queries")
        for kind in (*KINDS, "all"):
            precision, recall = rates(counts[kind])
            c = counts[kind]
            print(f"  {kind:<12} precision {precision:.3f}  recall {recall:.3f}  (tp {c['tp']}, fp {c['fp']}, fn {c['fn']})")
        if "-v" in sys.argv and name == "development.jsonl":  # the held-out set is never tuned on
            for miss in misses:
                print("   miss", *miss)


if __name__ == "__main__":
    main()
