"""The time lock itself, standard library only: argument checks, budgets, the re-check in
both modes, refusals that reveal nothing, rendering, the journal, and resuming a run."""

import datetime as dt
import unittest

from anachron.core import load_corpus_dir
from anachron.core.errors import AnachronError
from anachron.timelock import SNIPPET, CorpusBackend, Hit, Limits, TimeLock, UpstreamError, recheck

T = dt.date(2022, 6, 1)


class ListJournal:
    def __init__(self):
        self.header, self.records = None, []

    def write(self, header, record):
        self.header = self.header or dict(header)
        self.records.append(dict(record))


class FlakyJournal(ListJournal):
    """A disk that is full for the first write only."""

    def __init__(self):
        super().__init__()
        self.failed = False

    def write(self, header, record):
        if not self.failed:
            self.failed = True
            raise OSError(28, "No space left on device")
        super().write(header, record)


class FixedBackend:
    kind, source = "upstream", "stub"

    def __init__(self, hits=(), fail=None):
        self.hits, self.fail, self.asked = list(hits), fail, []

    def search(self, query, *, k, as_of, mode):
        self.asked.append(("search", query, as_of, mode))
        if self.fail is not None:
            raise self.fail
        return self.hits

    def fetch(self, ref, *, as_of, mode):
        self.asked.append(("fetch", ref, as_of, mode))
        return [h for h in self.hits if h.id == ref]


def lock(backend=None, **options):
    journal = options.pop("journal", None) or ListJournal()
    return TimeLock(backend or CorpusBackend(load_corpus_dir()), T, journal, **options), journal


class RecheckTest(unittest.TestCase):
    HITS = [Hit("on-t", "", "", ("2022-06-01",)), Hit("late", "", "", ("2022-06-02",)),
            Hit("late-in-utc", "", "", ("2022-06-01T23:30:00-02:00",)), Hit("undated", "", "", ()),
            Hit("garbled", "", "", ("June 1st",)), Hit(None, "", "", ("2020-01-01",))]

    def test_enforced_shows_only_what_was_known_on_t(self):
        checked = recheck(self.HITS, T)
        self.assertEqual([s.id for s in checked.seen], ["on-t"])
        self.assertEqual([(w.id, w.reason) for w in checked.withheld], [
            ("late", "after-cutoff"), ("late-in-utc", "after-cutoff"), ("undated", "undated"),
            ("garbled", "unparseable-date"), (None, "no-id")])

    def test_allow_undated_shows_undated_items_as_such(self):
        checked = recheck(self.HITS, T, allow_undated=True)
        self.assertEqual([(s.id, s.published, s.undated) for s in checked.seen], [
            ("on-t", T, None), ("undated", None, "no date"), ("garbled", None, "field 'publish_date': unreadable value 'June 1st'")])

    def test_unrestricted_withholds_only_what_has_no_id(self):
        checked = recheck(self.HITS, T, mode="unrestricted")
        self.assertEqual(len(checked.seen), 5)
        self.assertEqual([w.reason for w in checked.withheld], ["no-id"])


class CallTest(unittest.TestCase):
    def test_an_ok_search_is_recorded_and_rendered_with_a_receipt_and_the_budget(self):
        the_lock, journal = lock(limits=Limits(calls=2))
        outcome = the_lock.call("search", {"query": "aster logistics"})
        self.assertFalse(outcome.is_error)
        lines = outcome.text.split("\n")
        self.assertEqual(lines[0], 'search #1: 2 results for "aster logistics"')
        # BM25: fin-002's title is the shorter of the two holding both words (the count ranking tied them: fin-001 first).
        self.assertEqual(lines[1:5], ["- id: fin-002", "  date: 2021-04-28", "  title: Aster Logistics first-quarter results",
                                      "  snippet: " + load_corpus_dir().items["fin-002"].text])
        self.assertEqual(lines[-1], "Budget remaining: searches unlimited, fetches unlimited, calls 1 of 2.")
        [record] = journal.records
        self.assertEqual((record["seq"], record["status"], [r["id"] for r in record["returned"]]), (1, "ok", ["fin-002", "fin-001"]))
        self.assertEqual(journal.header["as_of"], "2022-06-01")

    def test_smuggled_and_bad_arguments_are_refused_and_count_against_the_call_cap(self):
        the_lock, journal = lock(limits=Limits(calls=6, searches=1))
        for tool, arguments in (("search", {"query": "x", "as_of": "2030-01-01"}), ("search", {"query": " "}),
                                ("search", {"query": 5}), ("search", None), ("fetch", {"id_or_url": "x" * 2049}),
                                ("browse", {"url": "x"})):
            with self.subTest(tool=tool, arguments=arguments):
                outcome = the_lock.call(tool, arguments)
                self.assertTrue(outcome.is_error)
                self.assertEqual(outcome.status, "refused")
        # Refusals retrieve nothing but are not free: each counts against --max-calls, none against a tool's cap.
        self.assertEqual(the_lock.used, {"searches": 0, "fetches": 0, "calls": 6})
        self.assertEqual(the_lock.call("search", {"query": "fine"}).status, "exhausted")
        self.assertEqual(len(journal.records), 7)
        self.assertEqual(journal.records[0]["arguments"], {"query": "x", "as_of": "2030-01-01"})

    def test_over_budget_calls_are_exhausted_and_reach_no_backend(self):
        backend = FixedBackend()
        the_lock, journal = lock(backend, limits=Limits(searches=1))
        the_lock.call("search", {"query": "a"})
        outcome = the_lock.call("search", {"query": "b"})
        self.assertEqual((outcome.status, len(backend.asked)), ("exhausted", 1))
        self.assertIn("searches budget exhausted (1 of 1 used)", outcome.text)

    def test_a_post_t_fetch_and_an_unknown_id_get_the_same_answer(self):
        the_lock, journal = lock()
        late, unknown = the_lock.call("fetch", {"id_or_url": "fin-005"}), the_lock.call("fetch", {"id_or_url": "fin-404"})
        self.assertEqual((late.status, unknown.status), ("refused", "refused"))
        body = [o.text.split("\n")[0].split(": ", 1)[1].replace("fin-005", "X").replace("fin-404", "X") for o in (late, unknown)]
        self.assertEqual(body[0], body[1])
        self.assertNotIn("2023", late.text)
        self.assertEqual(journal.records[0]["withheld"], [{"id": "fin-005", "published": "2023-02-09", "reason": "after-cutoff", "backend": "corpus", "guarantee": "corpus"}])
        self.assertEqual(journal.records[1]["withheld"], [])

    def test_a_fetch_dated_on_t_is_served_in_full(self):
        the_lock, _ = lock()
        corpus = load_corpus_dir()
        on_t = next(i for i in corpus.items.values() if i.publish_date == dt.date(2021, 4, 28))
        the_lock.as_of = on_t.publish_date
        outcome = the_lock.call("fetch", {"id_or_url": on_t.id})
        self.assertEqual(outcome.status, "ok")
        self.assertIn("\n\n" + on_t.text + "\n\n", outcome.text)

    def test_unrestricted_mode_serves_post_t_items(self):
        the_lock, journal = lock(mode="unrestricted")
        self.assertEqual(the_lock.call("fetch", {"id_or_url": "fin-005"}).status, "ok")

    def test_backend_failures_are_errors_never_crashes(self):
        for failure in (UpstreamError("upstream /search answered HTTP 500"), KeyError("bug"), RecursionError()):
            with self.subTest(failure=failure):
                the_lock, journal = lock(FixedBackend(fail=failure))
                outcome = the_lock.call("search", {"query": "a"})
                self.assertEqual((outcome.status, outcome.is_error, outcome.structured["results"]), ("error", True, []))
                self.assertEqual(journal.records[0]["status"], "error")
                self.assertEqual(the_lock.used["calls"], 1)  # it reached the backend

    def test_a_call_that_cannot_be_recorded_shows_nothing_and_loses_no_number(self):
        journal = FlakyJournal()
        the_lock, _ = lock(journal=journal)
        outcome = the_lock.call("search", {"query": "aster logistics"})
        self.assertTrue(outcome.is_error)
        self.assertEqual(outcome.structured["results"], [])
        self.assertNotIn("fin-001", outcome.text)
        self.assertIn("No space left on device", outcome.text)
        # The disk has room again: the next call is number 1, so the log has no gap.
        self.assertTrue(the_lock.call("search", {"query": "aster logistics"}).text.startswith("search #1:"))
        self.assertEqual([r["seq"] for r in journal.records], [1])

    def test_a_slow_backend_holds_up_no_other_call(self):
        import threading

        class Slow(FixedBackend):
            def search(self, query, **options):
                if query == "slow":
                    release.wait(5)
                return super().search(query, **options)

        release = threading.Event()
        the_lock, journal = lock(Slow([Hit("a", "t", "x", ("2020-01-01",))]))
        slow = threading.Thread(target=the_lock.call, args=("search", {"query": "slow"}))
        slow.start()
        fast = the_lock.call("search", {"query": "fast"})  # answered while the slow call still waits
        release.set()
        slow.join(5)
        self.assertEqual(fast.status, "ok")
        self.assertEqual([(r["seq"], r["arguments"]["query"]) for r in journal.records], [(1, "fast"), (2, "slow")])

    def test_hidden_dates_appear_nowhere_the_agent_reads(self):
        the_lock, journal = lock(presentation="hidden")
        outcome = the_lock.call("search", {"query": "aster logistics"})
        self.assertNotIn("date", outcome.text)
        self.assertNotIn("2021", outcome.text)
        self.assertEqual([r["published"] for r in outcome.structured["results"]], [None, None])
        self.assertEqual(journal.records[0]["returned"][0]["published"], "2021-04-28")  # the record keeps the truth

    def test_snippets_are_cut_at_a_word(self):
        text = "word " * 200
        the_lock, _ = lock(FixedBackend([Hit("a", "t", text, ("2020-01-01",))]))
        [result] = the_lock.call("search", {"query": "a"}).structured["results"]
        self.assertLessEqual(len(result["text"]), SNIPPET + 4)
        self.assertTrue(result["text"].endswith("word ..."))

    def test_a_resumed_lock_goes_on_numbering_and_counting(self):
        first, journal = lock(limits=Limits(calls=2))
        first.call("search", {"query": "a"})
        second = TimeLock(CorpusBackend(load_corpus_dir()), T, journal, limits=Limits(calls=2), resume=journal.records[-1:])
        self.assertTrue(second.call("search", {"query": "b"}).text.startswith("search #2:"))
        self.assertEqual(second.call("search", {"query": "c"}).status, "exhausted")

    def test_bad_settings_are_errors(self):
        for options in ({"mode": "strict"}, {"k": 0}, {"k": True}, {"presentation": "later"}):
            with self.subTest(options=options), self.assertRaises(AnachronError):
                lock(**options)
        for limits in ({"calls": -1}, {"searches": 1.5}, {"fetches": True}):
            with self.subTest(limits=limits), self.assertRaises(AnachronError):
                Limits(**limits)


if __name__ == "__main__":
    unittest.main()


class DatedByAttributionTest(unittest.TestCase):
    """Through a loopback upstream: every date format the web uses; post-T items are withheld in
    each, with or without --allow-undated (which lets only the truly undated through)."""

    RESULTS = [
        {"url": "https://a.example/rfc-before", "title": "t", "published": "Tue, 31 May 2022 23:00:00 GMT"},
        {"url": "https://a.example/rfc-after", "title": "t", "published": "Thu, 02 Jun 2022 08:00:00 +0000"},
        {"url": "https://a.example/epoch-before", "title": "t", "published": 1653955200},  # 2022-05-31
        {"url": "https://a.example/epoch-after", "title": "t", "published": 1654214400000},  # ms: 2022-06-03
        {"url": "https://a.example/offset-on-t", "title": "t", "published": "2022-06-01T18:00:00-05:00"},  # 23:00 UTC
        {"url": "https://a.example/offset-after", "title": "t", "published": "2022-06-01T20:00:00-05:00"},  # 01:00 UTC, June 2
        {"url": "https://a.example/2022/05/30/url-before", "title": "t"},
        {"url": "https://a.example/2022/06/02/url-after", "title": "t"},
        {"url": "https://a.example/2022/06/", "title": "the month containing T"},
        {"url": "https://a.example/nothing", "title": "no date at all"},
    ]
    AFTER = {"https://a.example/rfc-after", "https://a.example/epoch-after", "https://a.example/offset-after",
             "https://a.example/2022/06/02/url-after"}

    def run_lock(self, **options):
        from tests.mcp_support import StubUpstream
        from anachron.timelock import UpstreamBackend

        with StubUpstream(self.RESULTS) as upstream:
            the_lock, journal = lock(UpstreamBackend(upstream.url, timeout=5), k=20, **options)
            outcome = the_lock.call("search", {"query": "anything"})
        return outcome, journal.records[0]

    def test_every_format_is_dated_and_post_t_items_are_withheld(self):
        outcome, record = self.run_lock()
        shown = {r["id"]: r["published"] for r in outcome.structured["results"]}
        self.assertEqual(shown, {"https://a.example/rfc-before": "2022-05-31", "https://a.example/epoch-before": "2022-05-31",
                                 "https://a.example/offset-on-t": "2022-06-01", "https://a.example/2022/05/30/url-before": "2022-05-30"})
        withheld = {w["id"]: w["reason"] for w in record["withheld"]}
        self.assertEqual({i for i, reason in withheld.items() if reason == "after-cutoff"}, self.AFTER)
        self.assertEqual(withheld["https://a.example/2022/06/"], "uncertain")
        self.assertEqual(withheld["https://a.example/nothing"], "undated")
        self.assertEqual({r["id"]: r.get("dated_by") for r in record["returned"]}["https://a.example/rfc-before"], "field 'published'")

    def test_allow_undated_never_lets_a_post_t_item_through(self):
        outcome, record = self.run_lock(allow_undated=True)
        shown = {r["id"] for r in outcome.structured["results"]}
        self.assertFalse(shown & self.AFTER)
        self.assertIn("https://a.example/2022/06/", shown)
        self.assertIn("https://a.example/nothing", shown)
        returned = {r["id"]: r for r in record["returned"]}
        self.assertEqual((returned["https://a.example/2022/06/"]["granularity"], returned["https://a.example/2022/06/"]["dated_by"]),
                         ("month", "url"))
        self.assertEqual(returned["https://a.example/nothing"]["published"], None)


class ContentThroughTheLogTest(unittest.TestCase):
    def test_what_the_agent_read_is_logged_and_scored_for_content_and_revisions(self):
        import json
        import tempfile
        from pathlib import Path

        from anachron.timelock import EventWriter, UpstreamBackend
        from tests.mcp_support import StubUpstream
        from tests.support import run_cli

        results = [{"url": "https://a.example/outlook", "title": "Outlook", "published": "2022-05-01",
                    "snippet": "Analysts expect a rebound in Q4 2022.", "dateModified": "2022-09-01"}]
        with tempfile.TemporaryDirectory() as tmp, StubUpstream(results) as upstream:
            path = Path(tmp) / "events.jsonl"
            writer = EventWriter(path)
            the_lock, _ = lock(UpstreamBackend(upstream.url, timeout=5), journal=writer)
            self.assertEqual(the_lock.call("search", {"query": "outlook"}).status, "ok")
            writer.close()
            status, out, err = run_cli("score-events", str(path), "--as-of", "2022-06-01", "--format", "json")
        self.assertEqual(status, 0, err)
        sample = json.loads(out)["samples"][0]
        self.assertEqual((sample["tclr"], sample["content_leaks"], sample["revision_risks"]), (0.0, 1, 1))
        self.assertEqual(sample["evidence"], [
            "#1 content of item https://a.example/outlook mentions Q4 2022 > 2022-06-01",
            "#1 item https://a.example/outlook published 2022-05-01 but modified 2022-09-01 > 2022-06-01",
        ])


class SeveralDatesTest(unittest.TestCase):
    """A hit with several dates is served only if none is after T (the first is no shortcut)."""

    def test_every_date_of_a_hit_is_checked(self):
        t = dt.date(2023, 1, 1)
        for dates, shown in (((dt.date(2022, 1, 1), dt.date(2024, 1, 1)), False),
                             ((dt.date(2024, 1, 1), dt.date(2022, 1, 1)), False),
                             ((dt.date(2022, 1, 1), t), True),  # on T: known
                             ((dt.date(2022, 1, 1),), True), ((dt.date(2023, 1, 2),), False)):
            with self.subTest(dates=dates):
                checked = recheck([Hit("a", "t", "x", dates)], t)
                self.assertEqual([h.id for h in checked.shown], ["a"] if shown else [])
                self.assertEqual([w.id for w in checked.withheld], [] if shown else ["a"])
