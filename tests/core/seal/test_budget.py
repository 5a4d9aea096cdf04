"""Issue 26 §1: the seal audit takes the budget from the lock's start record, shows it, and judges it.

The logs are the real lock's (``TimeLock`` with ``Limits``, writing through ``EventWriter``); the
harness's traces are built call by call.  Every cap (searches, fetches, calls) at its boundary:
as many answered calls as the cap is sealed, one more is a breach; a cap of 0; no cap.
"""

from __future__ import annotations

import json
import os
import tempfile
import unittest
from pathlib import Path

from anachron.core import score_trace
from anachron.core.seal import Declaration
from anachron.timelock import CorpusBackend, EventWriter, Limits, TimeLock, load_events
from anachron.timelock.run_trace import lock_run

from tests.corpus_fixtures import T, corpus, item, trace
from tests.support import run_cli

LOCK = frozenset({"mcp__timelock__search", "mcp__timelock__fetch"})


def _result(status):
    return {"returned": []} if status == "ok" else {}  # an ok call's result, here empty (none: unrecorded)


def search(query, status="ok", **fields):
    return {"tool": "mcp__timelock__search", "query": query, "status": status, **_result(status), **fields}


def fetch(target, status="ok"):
    return {"tool": "mcp__timelock__fetch", "target": target, "status": status, **_result(status)}


def set_cap(path, name, value):
    """Rewrite the start record's cap *name* (an edited record, or a log several samples share)."""
    start, *rest = Path(path).read_text(encoding="utf-8").splitlines()
    record = json.loads(start)
    record["limits"][name] = value
    Path(path).write_text("\n".join([json.dumps(record), *rest]) + "\n", encoding="utf-8")


class BudgetTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus([item("fin-1", "2021-01-01")])
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)

    def served(self, name, calls, limits):
        """The real lock's log of *calls* (``("search", query)`` or ``("fetch", ref)``) under *limits*."""
        path = os.path.join(self._tmp.name, name)
        lock = TimeLock(CorpusBackend(self.c), T, EventWriter(path), limits=limits)
        statuses = [lock.call(tool, {"query" if tool == "search" else "id_or_url": arg}).status for tool, arg in calls]
        lock.journal.close()
        return path, statuses

    def audit(self, path, *calls):
        declared = Declaration(LOCK, locks=[lock_run(load_events(path))])
        return score_trace(trace(self.c, calls), self.c, sealed_tools=declared)

    def breaches(self, r):
        return tuple(line for line in r.evidence if " paired with lock run " not in line)

    def test_the_budget_is_shown_with_the_run(self):
        path, _ = self.served("e.jsonl", [("search", "a")], Limits(searches=2, calls=5))
        r = self.audit(path, search("a"))
        run = load_events(path).run
        self.assertEqual(r.evidence, (f"#1 paired with lock run {run} ({path}): as of {T.isoformat()}, mode enforced, "
                                      "budget searches 2, fetches unlimited, calls 5",))
        self.assertEqual(r.seal_status, "sealed")

    def test_answered_where_the_lock_refused_for_budget(self):
        path, statuses = self.served("e.jsonl", [("search", "a"), ("search", "b"), ("search", "c")], Limits(searches=2))
        self.assertEqual(statuses, ["ok", "ok", "exhausted"])
        # The harness shows what the lock did: sealed, the third call failed (exhausted).
        honest = self.audit(path, search("a"), search("b"), search("c", status="exhausted"))
        self.assertEqual((honest.seal_status, honest.seal_breaches, self.breaches(honest)), ("sealed", 0, ()))
        # The harness shows the third answered: the answer did not come from this lock.
        forged = self.audit(path, search("a"), search("b"), search("c"))
        self.assertEqual((forged.seal_status, forged.seal_breaches), ("breached", 1))
        self.assertEqual(self.breaches(forged), (
            f"#3 answered, but the lock refused it for budget (record #3, {path})",
            f"#3 answered call 3 of 3, beyond the lock's budget of 2 searches ({path})",
        ))

    def test_a_cap_at_its_boundary(self):
        # The lock's log has three answered searches, but its start record says a cap of 2 (an edited
        # start record, or two samples sharing one log): the third answered call is beyond it.
        for cap, breached in [(3, ()), (2, (3,)), (1, (2, 3)), (0, (1, 2, 3))]:
            with self.subTest(cap=cap):
                path, _ = self.served(f"e{cap}.jsonl", [("search", q) for q in "abc"], Limits())
                set_cap(path, "searches", cap)
                r = self.audit(path, search("a"), search("b"), search("c"))
                self.assertEqual(r.seal_breaches, len(breached))
                self.assertEqual(self.breaches(r), tuple(
                    f"#{n} answered call {n} of 3, beyond the lock's budget of {cap} searches ({path})" for n in breached
                ))

    def test_the_calls_cap_counts_searches_and_fetches_and_only_answered_calls(self):
        path, statuses = self.served("e.jsonl", [("search", "a"), ("fetch", "fin-1")], Limits(calls=2))
        self.assertEqual(statuses, ["ok", "ok"])
        self.assertEqual(self.audit(path, search("a"), fetch("fin-1")).seal_status, "sealed")
        set_cap(path, "calls", 1)
        r = self.audit(path, search("a"), fetch("fin-1"))
        self.assertEqual(self.breaches(r), (f"#2 answered call 2 of 2, beyond the lock's budget of 1 calls ({path})",))
        # A failed call costs no answered slot: the same calls with the fetch refused are sealed.
        r = self.audit(path, search("a"), fetch("fin-1", status="refused"))
        self.assertEqual((r.seal_status, self.breaches(r)), ("sealed", ()))

    def test_the_fetches_cap(self):
        path, statuses = self.served("e.jsonl", [("fetch", "fin-1"), ("fetch", "fin-1")], Limits(fetches=1))
        self.assertEqual(statuses, ["ok", "exhausted"])
        r = self.audit(path, fetch("fin-1"), fetch("fin-1"))
        self.assertEqual(self.breaches(r), (
            f"#2 answered, but the lock refused it for budget (record #2, {path})",
            f"#2 answered call 2 of 2, beyond the lock's budget of 1 fetches ({path})",
        ))

    def test_a_cap_that_is_not_a_count_is_unlimited(self):
        path, _ = self.served("e.jsonl", [("search", "a"), ("search", "b")], Limits())
        for bad in (None, -1, True, "1", 1.0):
            with self.subTest(bad=bad):
                set_cap(path, "searches", bad)
                r = self.audit(path, search("a"), search("b"))
                self.assertEqual((r.seal_status, self.breaches(r)), ("sealed", ()))

    def test_the_cli_shows_it(self):
        path, _ = self.served("lock.jsonl", [("search", "a"), ("search", "b")], Limits(searches=1))
        traces = os.path.join(self._tmp.name, "t.jsonl")
        with open(traces, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"sample_id": "s", "as_of": T.isoformat(), "interactions": [search("a"), search("b")]}) + "\n")
        status, out, err = run_cli("score", traces, "--sealed-tools", ",".join(sorted(LOCK)), "--lock-events", path, "--format", "json")
        self.assertEqual(status, 0, err)
        sample = json.loads(out)["samples"][0]
        self.assertEqual((sample["seal_status"], sample["seal_breaches"]), ("breached", 1))
        self.assertIn("budget searches 1, fetches unlimited, calls unlimited", sample["evidence"][0])
        self.assertIn(f"#2 answered call 2 of 2, beyond the lock's budget of 1 searches ({path})", sample["evidence"])


if __name__ == "__main__":
    unittest.main()
