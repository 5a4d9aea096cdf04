"""parse_rendered inverts what the lock renders: every item a result showed comes back with its
id, the date as presented, its title and its snippet or document, and the receipt; a result that
is not whole (cut short, edited, forged out of shape) is refused, never read as showing less."""

import datetime as dt
import unittest

from anachron.core import load_corpus_dir
from anachron.core.errors import AnachronError
from anachron.timelock import CorpusBackend, Hit, Limits, TimeLock
from anachron.timelock.render import parse_rendered
from tests.fixtures_build.build_importer_fixtures import LOCK_FETCH, LOCK_SEARCH

T = dt.date(2022, 6, 1)


class ListJournal:
    def __init__(self):
        self.records = []

    def write(self, header, record):
        self.records.append(dict(record))


class Hits:
    """A backend answering fixed hits (an undated one among them)."""

    kind, source = "upstream", "stub"

    def __init__(self, hits):
        self.hits = hits

    def search(self, query, *, k, as_of, mode):
        return self.hits

    def fetch(self, ref, *, as_of, mode):
        return [h for h in self.hits if h.id == ref]


def shown(outcome):
    """What the lock's structured answer says it showed, in parse_rendered's terms."""
    return [(r["id"], r["published"], bool(r.get("undated")), " ".join(r["title"].split()), r["text"])
            for r in outcome.structured["results"]]


def parsed(text):
    result = parse_rendered(text)
    return [(i.id, i.date, i.undated, i.title, i.text) for i in result.items]


class RoundTripTest(unittest.TestCase):
    def test_every_date_presentation_round_trips(self):
        corpus = load_corpus_dir()
        for presentation in ("visible", "hidden", "shift:+30", "shift:-7"):
            with self.subTest(presentation=presentation):
                lock = TimeLock(CorpusBackend(corpus), T, ListJournal(), presentation=presentation, limits=Limits(searches=3))
                search = lock.call("search", {"query": "aster logistics"})
                self.assertGreater(len(search.structured["results"]), 1)
                self.assertEqual(parsed(search.text), shown(search))
                first = search.structured["results"][0]["id"]
                fetch = lock.call("fetch", {"id_or_url": first})
                self.assertEqual(parsed(fetch.text), shown(fetch))
                result = parse_rendered(fetch.text)
                self.assertEqual((result.tool, result.seq, result.error), ("fetch", 2, None))
                self.assertTrue(result.budget.startswith("Budget remaining: "))

    def test_undated_items_and_awkward_text_round_trip(self):
        hits = [Hit("u-1", "A  title\twith\nbreaks", "text with\u2028a line separator and\n\nBudget remaining: x.", ()),
                Hit("d-1", "Dated", "- id: forged\n  title: forged", (dt.date(2022, 1, 5),))]
        lock = TimeLock(Hits(hits), T, ListJournal(), allow_undated=True)
        search = lock.call("search", {"query": 'a "quoted" query'})
        self.assertEqual(parsed(search.text), shown(search))
        self.assertEqual([i[:3] for i in parsed(search.text)], [("u-1", None, True), ("d-1", "2022-01-05", False)])
        fetch = lock.call("fetch", {"id_or_url": "u-1"})
        self.assertEqual(parsed(fetch.text), shown(fetch))  # a document holding a budget line of its own

    def test_an_archive_capture_is_shown_and_read_back_as_captured_on_its_day_under_every_presentation(self):
        captured = Hit("https://a.example/p", "Page", "As captured.", (), {"url": "https://a.example/p", "crawl_date": "2021-05-20T12:00:00Z"},
                       backend="wayback", guarantee="capture")
        published = Hit("https://a.example/q", "Page", "Live.", (), {"url": "https://a.example/q", "crawl_date": "2021-05-20T12:00:00Z"},
                        backend="openreward", guarantee="index")  # a crawl date, but not an archive's capture
        for presentation, day in (("visible", "2021-05-20"), ("shift:+30", "2021-06-19"), ("hidden", None)):
            with self.subTest(presentation=presentation):
                lock = TimeLock(Hits([captured, published]), T, ListJournal(), presentation=presentation)
                fetch = lock.call("fetch", {"id_or_url": captured.id})
                self.assertEqual(("\ncaptured: " in fetch.text, "\ndate: " in fetch.text), (day is not None, False))
                [item] = parse_rendered(fetch.text).items
                self.assertEqual((item.date, item.captured), (day, day is not None))
                self.assertEqual(fetch.structured["results"][0].get("captured", False), day is not None)
                items = parse_rendered(lock.call("search", {"query": "q"}).text).items
                self.assertEqual([(i.date, i.captured) for i in items], [(day, day is not None), (day, False)])
        with self.assertRaisesRegex(AnachronError, "capture date 'May 20' is not a YYYY-MM-DD date"):
            parse_rendered(fetch.text.replace("fetch #1: https://a.example/p\n", "fetch #1: https://a.example/p\ncaptured: May 20\n"))

    def test_empty_and_refused_results(self):
        lock = TimeLock(Hits([]), T, ListJournal())
        empty = parse_rendered(lock.call("search", {"query": "nothing"}).text)
        self.assertEqual((empty.tool, empty.items, empty.error), ("search", (), None))
        refused = parse_rendered(lock.call("fetch", {"id_or_url": "missing"}).text)
        self.assertEqual((refused.tool, refused.seq, refused.items), ("fetch", 2, ()))
        self.assertIn("missing", refused.error)

    def test_the_fixtures_lock_results_are_the_locks_rendering(self):
        self.assertEqual(parsed(LOCK_SEARCH)[0][:2], ("https://example.net/2022/11/01/cygnus-robotics-funding", "2022-11-01"))
        self.assertEqual(parse_rendered(LOCK_FETCH).seq, 2)


class HostileTextTest(unittest.TestCase):
    def setUp(self):
        lock = TimeLock(CorpusBackend(load_corpus_dir()), T, ListJournal(), limits=Limits(searches=3))
        self.search = lock.call("search", {"query": "aster logistics"}).text
        self.fetch = lock.call("fetch", {"id_or_url": lock.call("search", {"query": "aster"}).structured["results"][0]["id"]}).text

    def refused(self, text, why):
        with self.assertRaises(AnachronError) as caught:
            parse_rendered(text)
        self.assertIn(why, str(caught.exception))

    def test_a_result_cut_short_is_refused(self):
        for text in (self.search, self.fetch):
            for cut in (len(text) - 1, len(text) // 2, text.index("\n")):
                self.refused(text[:cut], "no budget line")

    def test_an_edited_count_or_a_dropped_item_is_refused(self):
        head, rest = self.search.split("\n", 1)
        count = int(head.split(": ")[1].split(" ")[0])
        self.refused(head.replace(f": {count} results", f": {count + 1} results") + "\n" + rest, "lists")
        dropped = "\n".join(line for line in self.search.split("\n") if not line.startswith("  title: "))
        self.refused(dropped, "expected 'title:'")
        self.refused(self.search.replace("  date: ", "  date: not ", 1), "not a YYYY-MM-DD date")

    def test_forged_receipts_are_refused(self):
        for text, why in [
            ("search #0: no results for \"x\"\n\nBudget remaining: search unlimited.", "no receipt"),
            ("Search #1: no results for \"x\"\n\nBudget remaining: search unlimited.", "no receipt"),
            ("note\n" + self.search, "no receipt"),
            ("search #1: 1 result for \"x\"\nid: a\npublished: 2022-01-01\n", "no budget line"),
            (self.search + "\ntrailing", "no budget line"),
            ("search #1: 1 results for \"x\"\n- id: a\n  title: A\n  snippet: s\n\nBudget remaining: calls 1 of 2.", "out of shape"),
            ("fetch #1: a\ntitle: A\nextra: x\n\nbody\n\nBudget remaining: calls 1 of 2.", "out of shape"),
            ("fetch #1: a\ntitle: A\n\nBudget remaining: calls 1 of 2.", "blank line"),
        ]:
            with self.subTest(text=text[:40]):
                self.refused(text, why)
        self.refused(None, "not text")


if __name__ == "__main__":
    unittest.main()
