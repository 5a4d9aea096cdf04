"""Date-aware retrieval: the two modes, ranking, and the as-of date outside the query."""

import datetime as dt
import unittest

from anachron.core import AnachronError, load_corpus_dir
from anachron.store import SearchEngine
from anachron.core.reference_agent import naive_query

from tests.corpus_fixtures import corpus, entity, item

T = dt.date(2022, 6, 1)


class ModesTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus(
            entities=[entity("GONE", valid_to="2020-01-01", name="Gone Mining")],
            items=[
                item("before", "2022-05-31", title="Zephyr outlook"),
                item("on", "2022-06-01", title="Zephyr results"),
                item("after", "2022-06-02", title="Zephyr guidance"),
                item("delisted", "2019-06-01", title="Mine update", entities=["GONE"]),
            ],
        )
        self.engine = SearchEngine(self.c)

    def ids(self, query, mode, **kw):
        return [i.id for i in self.engine.search(query, as_of=T, mode=mode, **kw)]

    def test_unrestricted_returns_post_t_items(self):
        self.assertEqual(set(self.ids("zephyr", "unrestricted")), {"before", "on", "after"})

    def test_enforced_drops_exactly_the_post_t_items(self):
        self.assertEqual(set(self.ids("zephyr", "enforced")), {"before", "on"})

    def test_enforced_does_not_filter_survivorship(self):
        self.assertEqual(self.ids("gone mining", "enforced"), ["delisted"])

    def test_entity_ids_and_names_are_searchable(self):
        self.assertEqual(self.ids("GONE", "unrestricted"), ["delisted"])

    def test_dates_in_the_query_do_not_move_the_cutoff(self):
        self.assertEqual(set(self.ids("zephyr 2022-06-02", "enforced")), {"before", "on"})

    def test_ranking_is_stable_score_then_date_then_id(self):
        # BM25 ties break by recency (the newest first); the count ranking's by the oldest first.
        self.assertEqual(self.ids("zephyr", "unrestricted"), ["after", "on", "before"])
        self.assertEqual(self.ids("zephyr guidance", "unrestricted"), ["after", "on", "before"])
        self.assertEqual(self.ids("zephyr", "unrestricted", ranking="count"), ["before", "on", "after"])
        self.assertEqual(self.ids("zephyr guidance", "unrestricted", ranking="count"), ["after", "before", "on"])

    def test_top_k(self):
        self.assertEqual(self.ids("zephyr", "unrestricted", k=2), ["after", "on"])
        self.assertEqual(self.ids("zephyr", "enforced", k=2), ["on", "before"])

    def test_no_words_or_only_stop_words_find_nothing(self):
        self.assertEqual(self.ids("", "unrestricted"), [])
        self.assertEqual(self.ids("the of and", "unrestricted"), [])

    def test_fetch_respects_the_mode(self):
        self.assertIsNone(self.engine.fetch("after", as_of=T, mode="enforced"))
        self.assertEqual(self.engine.fetch("after", as_of=T, mode="unrestricted").id, "after")
        self.assertEqual(self.engine.fetch("on", as_of=T, mode="enforced").id, "on")
        self.assertIsNone(self.engine.fetch("ghost", as_of=T))

    def test_bad_arguments(self):
        with self.assertRaisesRegex(AnachronError, "unknown mode 'strict'"):
            self.engine.search("zephyr", as_of=T, mode="strict")
        for k in (0, -1, 1.5, True):
            with self.subTest(k=k), self.assertRaisesRegex(AnachronError, "k must be a positive integer"):
                self.engine.search("zephyr", as_of=T, k=k)


class V0NaiveSearchTest(unittest.TestCase):
    """The naive query of each v0 sample finds only items about its own subject (no cross-talk)."""

    def test_naive_queries_are_precise(self):
        c = load_corpus_dir()
        engine = SearchEngine(c)
        for sample in c.samples.values():
            with self.subTest(sample=sample.id):
                hits = engine.search(naive_query(sample.extra["subject"]), as_of=sample.as_of, mode="unrestricted")
                self.assertTrue(hits)
                # The first word of each v0 subject is a proper name used nowhere else.
                subject = sample.extra["subject"].lower().split()[0]
                for hit in hits:
                    names = " ".join([hit.title, hit.text] + [c.entity(e).name for e in hit.entities]).lower()
                    self.assertIn(subject, names, hit.id)


if __name__ == "__main__":
    unittest.main()
