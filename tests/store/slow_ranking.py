"""The slow tests beside test_ranking.py, whose docstring states the rules they hold: TimeLockPropertyTest, RandomizedAgainstTheScanTest.

They start processes, browsers or servers, or build large inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

import datetime as dt
import tempfile
import unittest
from pathlib import Path
from anachron.core import load_corpus_dir
from anachron.store import SearchEngine
from anachron.store.index import IndexEngine, build_index
from tests import engine_cases
from tests.corpus_fixtures import corpus, item
from tests.store.test_ranking import T, assert_like_the_scan, split_at


class TimeLockPropertyTest(unittest.TestCase):
    """Adding items published after T changes no enforced result: ids, order and scores."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        root = Path(cls.tmp.name)
        cls.full_dir = engine_cases.generated_corpus(root / "full", items=1500)
        cls.full = load_corpus_dir(cls.full_dir)
        days = sorted({i.publish_date for i in cls.full.items.values()})
        cls.T = days[len(days) // 2]
        cls.past_dir = split_at(cls.full_dir, root / "past", cls.T)
        cls.past = load_corpus_dir(cls.past_dir)
        cls.later = sum(1 for i in cls.full.items.values() if i.publish_date > cls.T)
        cls.indexes = [IndexEngine(build_index(d, root / f"{d.name}.db", samples=False).path) for d in (cls.past_dir, cls.full_dir)]

    @classmethod
    def tearDownClass(cls):
        for engine in cls.indexes:
            engine.close()
        cls.tmp.cleanup()

    def queries(self):
        return engine_cases.queries(self.full, n=60)[:-4]

    def test_enforced_results_ignore_later_items(self):
        self.assertGreater(self.later, 500)
        pairs = [(SearchEngine(self.past), SearchEngine(self.full)), tuple(self.indexes)]
        compared = 0
        for past, full in pairs:
            for query in self.queries():
                for day in (self.T, self.T - dt.timedelta(days=30)):
                    for way in (None, *engine_cases.BM25_WAYS):  # as chosen, then each exact way forced
                        with engine_cases.bm25_way(way):
                            want = [(i.id, s) for i, s in past.scored(query, as_of=day, mode="enforced", k=10)]
                            got = [(i.id, s) for i, s in full.scored(query, as_of=day, mode="enforced", k=10)]
                        self.assertEqual(got, want, (type(full).__name__, query[:40], day, way))
                        compared += bool(want)
        self.assertGreater(compared, 100)

    def test_unrestricted_statistics_do_see_later_items(self):
        # Not vacuous: over all items the same queries score differently (N, df, lengths change).
        past, full = SearchEngine(self.past), SearchEngine(self.full)
        changed = sum(
            past.scored(q, as_of=self.T, mode="unrestricted", k=10) != full.scored(q, as_of=self.T, mode="unrestricted", k=10)
            for q in self.queries()
        )
        self.assertGreater(changed, len(self.queries()) // 2)

    def test_an_item_published_on_t_counts_one_the_day_after_does_not(self):
        base = [item("a", "2022-05-01", title="Zephyr winds"), item("b", "2022-05-02", title="Other")]
        on_t = SearchEngine(corpus(items=base + [item("c", "2022-06-01", title="Zephyr")]))
        after = SearchEngine(corpus(items=base + [item("c", "2022-06-02", title="Zephyr")]))
        alone = SearchEngine(corpus(items=base))
        self.assertEqual(after.scored("zephyr", as_of=T, mode="enforced"), alone.scored("zephyr", as_of=T, mode="enforced"))
        a_on_t = dict((i.id, s) for i, s in on_t.scored("zephyr", as_of=T, mode="enforced"))
        self.assertEqual(set(a_on_t), {"a", "c"})
        self.assertNotEqual(a_on_t["a"], dict((i.id, s) for i, s in alone.scored("zephyr", as_of=T, mode="enforced"))["a"])


class RandomizedAgainstTheScanTest(unittest.TestCase):
    """Seeded: each store's top k, by each exact way of top_bm25 (over bitmaps, by length groups, and term
    at a time with MaxScore), is the naive scan's over the items visible at T (statistics of those items only), for many
    queries and days T: publish days themselves (an item on T is visible), the days after, and beyond the
    corpus at both ends.  Common words are drawn often, so the groups stored for dense words (built over
    all items, cut at T) are the ones searched."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        root = Path(cls.tmp.name)
        directory = engine_cases.generated_corpus(root / "gen", items=1200)
        cls.corpus = load_corpus_dir(directory)
        cls.index = IndexEngine(build_index(directory, root / "gen.db", samples=False).path)

    @classmethod
    def tearDownClass(cls):
        cls.index.close()
        cls.tmp.cleanup()

    def test_every_store_equals_the_scan_over_the_visible_items(self):
        self.assertGreater(assert_like_the_scan(self, self.corpus, [SearchEngine(self.corpus), self.index]), 150)


if __name__ == "__main__":
    unittest.main()
