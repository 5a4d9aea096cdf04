"""An event log as the core reads it: each call one trace interaction, only what was shown returned,
a torn last line a warning, and the lock's own record of the run for the seal audit."""

from __future__ import annotations

import datetime as _dt
import unittest
from dataclasses import replace

from anachron.core import load_corpus_dir
from anachron.timelock.events import Withheld, parse_events
from anachron.timelock.run_trace import calls_trace, events_trace, lock_run

from tests.timelock.test_events import RUN_RECORDS, call, seen, start

T = _dt.date(2022, 6, 1)


def served(records):
    return parse_events([(f"run.jsonl:{i}", r) for i, r in enumerate(records, 1)], source="run.jsonl")


class EventsTrace(unittest.TestCase):
    corpus = load_corpus_dir(None)

    def test_each_call_is_one_interaction_with_its_status(self):
        trace = events_trace(served(RUN_RECORDS), self.corpus, sample_id="run", as_of=T)
        self.assertEqual((trace["sample_id"], trace["as_of"], trace["mode"]), ("run", "2022-06-01", "enforced"))
        self.assertEqual([i["status"] for i in trace["interactions"]], ["ok", "ok", "ok", "refused", "error"])

    def test_a_withheld_item_is_never_returned(self):
        trace = events_trace(served(RUN_RECORDS), self.corpus, sample_id="run", as_of=T)
        self.assertEqual(trace["interactions"][1]["returned"], ["fin-002"])  # fin-005 was withheld

    def test_a_withheld_post_cutoff_fetch_is_the_calls_target(self):
        log = served([start(), call(1, tool="fetch", arguments={"id_or_url": "fin-005"},
                                    withheld=[Withheld("fin-005", "2023-02-09", "after-cutoff")])])
        (interaction,) = calls_trace(log.calls, self.corpus, sample_id="s", as_of=T, mode="enforced")["interactions"]
        self.assertEqual(interaction["target"], {"id": "fin-005", "publish_date": "2023-02-09"})
        self.assertEqual(interaction["returned"], [])

    def test_an_upstream_item_is_inline_with_its_date(self):
        url = "https://news.example/2022/07/01/cygnus"
        log = served([start(), call(1, returned=[seen(url, "2022-07-01")])])
        (interaction,) = events_trace(log, self.corpus, sample_id="s", as_of=T)["interactions"]
        self.assertEqual(interaction["returned"], [{"id": url, "title": "t", "publish_date": "2022-07-01"}])

    def test_a_torn_last_line_becomes_a_warning(self):
        log = replace(served(RUN_RECORDS), torn="run.jsonl:7: torn last line")
        trace = events_trace(log, self.corpus, sample_id="run", as_of=T)
        self.assertTrue(any("torn last line" in w for w in trace["warnings"]))


class LockRunRecord(unittest.TestCase):
    def test_the_start_record_gives_cutoff_mode_and_limits_and_each_call_its_status(self):
        run = lock_run(served(RUN_RECORDS))
        self.assertEqual((run.source, run.as_of, run.mode), ("run.jsonl", _dt.date(2022, 12, 31), "enforced"))
        self.assertEqual([c.seq for c in run.calls], [1, 2, 3, 4, 5])
        self.assertEqual(run.calls[3].status, "refused")

    def test_an_empty_log_vouches_for_no_call(self):
        run = lock_run(served([]))
        self.assertEqual((run.run, run.as_of, run.mode, run.calls), (None, None, None, ()))


if __name__ == "__main__":
    unittest.main()
