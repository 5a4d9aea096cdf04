"""A broken or hostile upstream: every fault is a logged ``error`` call, never a crash or a stall,
and the log stays readable and scorable (standard library only: the lock, in process)."""

import datetime as dt
import json
import tempfile
import time
import unittest
from pathlib import Path

from anachron.timelock import EventWriter, TimeLock, UpstreamBackend, load_events

from tests.hostile_upstream import HostileUpstream
from tests.support import run_cli

T = dt.date(2022, 6, 1)
TIMEOUT = 1.0


class HostileUpstreamTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.events = Path(cls._tmp.name) / "events.jsonl"
        writer = EventWriter(cls.events)
        cls.outcomes, cls.elapsed = {}, {}
        with HostileUpstream(drip_seconds=0.15, drip_bytes=40) as upstream:
            lock = TimeLock(UpstreamBackend(upstream.url, timeout=TIMEOUT), T, writer, k=5)
            for fault in ("bad-status", "http09", "broken-chunked", "many-headers", "long-header", "slow-drip",
                          "redirect", "not-json", "http-500", "close", "surrogate", "newline-id", "extreme-offset"):
                start = time.monotonic()
                cls.outcomes[fault] = lock.call("search", {"query": fault})
                cls.elapsed[fault] = time.monotonic() - start
            cls.outcomes["forged fetch"] = lock.call("fetch", {"id_or_url": "https://news.example/2022/05/01/ok"})
            cls.outcomes["after"] = lock.call("search", {"query": "fine"})
            cls.requests = list(upstream.requests)
        writer.close()
        cls.log = load_events(cls.events)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_broken_replies_are_errors_that_name_the_fault(self):
        expected = {
            "bad-status": "broken reply", "http09": "broken reply", "broken-chunked": "broken reply",
            "many-headers": "broken reply", "long-header": "broken reply", "slow-drip": f"took longer than {TIMEOUT:g} s",
            "redirect": "redirects are not followed", "not-json": "invalid JSON", "http-500": "HTTP 500",
            "close": "upstream /search",
        }
        for fault, fragment in expected.items():
            with self.subTest(fault=fault):
                outcome = self.outcomes[fault]
                self.assertEqual((outcome.status, outcome.is_error), ("error", True), outcome.text)
                self.assertIn(fragment, outcome.text)

    def test_a_slow_drip_is_cut_at_the_total_deadline(self):
        # 40 bytes at 0.15 s would take 6 s; the margin is for a loaded CI machine's scheduling, not the rule.
        self.assertLess(self.elapsed["slow-drip"], TIMEOUT + 2.5)

    def test_a_redirect_is_never_followed(self):
        self.assertEqual([path for path, body in self.requests if body.get("query") == "redirect"], ["/search"])
        self.assertNotIn("/elsewhere", [path for path, _ in self.requests])

    def test_lone_surrogates_are_replaced_and_forged_rows_withheld(self):
        shown = self.outcomes["surrogate"].structured["results"]
        self.assertEqual([(r["id"], r["title"], r["text"]) for r in shown], [("https://x.example/\ufffd", "T\ufffditle", "a\ufffdb")])
        self.outcomes["surrogate"].text.encode("utf-8")
        newline = self.outcomes["newline-id"]
        self.assertEqual([r["id"] for r in newline.structured["results"]], ["https://news.example/2022/05/01/ok"])
        self.assertNotIn("FAKE", newline.text)
        [record] = [c for c in self.log.calls if c.arguments == {"query": "newline-id"}]
        self.assertEqual([w.reason for w in record.withheld], ["no-id"])

    def test_an_offset_off_the_calendar_is_unreadable_not_a_crash(self):
        # The published field cannot be read; the next source, the URL path, dates the item.
        outcome = self.outcomes["extreme-offset"]
        self.assertEqual((outcome.status, [r["published"] for r in outcome.structured["results"]]), ("ok", ["2022-05-01"]))
        [record] = [c for c in self.log.calls if c.arguments == {"query": "extreme-offset"}]
        self.assertEqual([(s.id, s.dated_by) for s in record.returned], [("https://news.example/2022/05/01/ok", "url")])

    def test_a_fetch_answered_with_another_document_is_an_error(self):
        outcome = self.outcomes["forged fetch"]
        self.assertEqual(outcome.status, "error")
        self.assertIn("'https://other.example/doc'", outcome.text)
        self.assertNotIn("ok", [r.get("text") for r in outcome.structured["results"]])

    def test_the_lock_carries_on_and_the_log_is_whole_and_scorable(self):
        self.assertEqual(self.outcomes["after"].status, "ok")
        self.assertEqual([c.seq for c in self.log.calls], list(range(1, 16)))
        status, out, err = run_cli("score-events", str(self.events), "--as-of", T.isoformat(), "--format", "json")
        self.assertEqual(status, 0, err)
        sample = json.loads(out)["samples"][0]
        self.assertEqual(sample["failed_calls"]["error"], 11)
        self.assertEqual(sample["interactions"], 4)  # surrogate, newline-id, extreme-offset, after


if __name__ == "__main__":
    unittest.main()
