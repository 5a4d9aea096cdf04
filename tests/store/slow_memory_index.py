"""The slow tests beside test_memory_index.py, whose docstring states the rules they hold: SameResultsAsTheScanTest.

They start processes, browsers or servers, or build large inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

import datetime as dt
import itertools
import random
import unittest
from unittest import mock
from anachron.core import MODES, load_corpus_dir
from anachron.store import SearchEngine
from tests import engine_cases
from anachron.store import memory as retrieval
from anachron.store.terms import tokenize
from benchmarks.reference_engines import ScanSearch
from tests.store.test_memory_index import _generated


class SameResultsAsTheScanTest(unittest.TestCase):
    def assertSame(self, data, queries, days, ks=(1, 3, 5, 50)):
        engine, scan = SearchEngine(data), ScanSearch(data)
        checked = 0
        for query in queries:
            for day in days:
                for mode in MODES:
                    for k, ranking in itertools.product(ks, ("bm25", "count")):
                        want = [(i.id, s) for i, s in scan.scored(query, as_of=day, mode=mode, k=k, ranking=ranking)]
                        # BM25's exact ways (store.ranking.top_bm25), each forced.
                        for way in (engine_cases.BM25_WAYS if ranking == "bm25" else (None,)):
                            with engine_cases.bm25_way(way):
                                got = [(i.id, s) for i, s in engine.scored(query, as_of=day, mode=mode, k=k, ranking=ranking)]
                            self.assertEqual(got, want, f"{query!r} {day} {mode} k={k} {ranking} way={way}")
                        checked += bool(want)
        self.assertGreater(checked, 0)

    def test_v0_corpus(self):
        data = load_corpus_dir()
        words = sorted({w for i in data.items.values() for w in tokenize(f"{i.title} {i.text}")})
        rng = random.Random(3)
        queries = [" ".join(rng.sample(words, rng.randint(1, 4))) for _ in range(150)]
        queries += [e.name for e in data.entities.values()] + [e.id for e in data.entities.values()]
        queries += ["", "the of", "zzz-not-a-word", "CYGN robotics 2023"]
        days = sorted({i.publish_date for i in data.items.values()})
        self.assertSame(data, queries, [days[0], days[len(days) // 2], days[-1], dt.date(1990, 1, 1)])

    def test_generated_corpus(self):
        # Small vocabulary and skewed words: rare, common and all-matching words, counted one by one
        # or as bitmaps.
        data, vocab = _generated(600, seed=11)
        rng = random.Random(5)
        queries = [" ".join(rng.sample(vocab, rng.randint(1, 6))) for _ in range(120)]
        queries += ["w0", "w0 w1", "w59", "w0 w59", "co", "E3 w2", "w0 w1 w2 w3 w4 w5 w6 w7"]
        days = [dt.date(2018, 12, 31), dt.date(2019, 1, 1), dt.date(2021, 6, 30), dt.date(2030, 1, 1)]
        self.assertSame(data, queries, days)

    def test_generated_corpus_bitmap_path_forced(self):
        # Small budgets send most queries to the bitmaps; each column's bitmap is made at start
        # (every one, or the dense ones) or at the query (none made at start).
        data, vocab = _generated(600, seed=13)
        rng = random.Random(7)
        queries = [" ".join(rng.sample(vocab, rng.randint(2, 6))) for _ in range(80)]
        for budget in (0, 1, 20, 150):
            for dense in (10**9, 256, 1):
                with mock.patch.object(retrieval, "_RARE_POSTINGS", budget), mock.patch.object(retrieval, "_DENSE", dense):
                    engine = SearchEngine(data)
                    if dense == 1:
                        self.assertEqual(engine._bits, {})
                    elif dense == 10**9:
                        self.assertEqual(len(engine._bits), sum(map(len, (engine._strong, engine._weak))))
                    self.assertSame(data, queries, [dt.date(2020, 3, 1), dt.date(2030, 1, 1)], ks=(1, 5, 20))

    def test_generated_corpus_large_postings(self):
        # Enough items that common words outgrow the pruned path's budget of postings.
        data, vocab = _generated(3000, seed=12)
        rng = random.Random(6)
        queries = [" ".join(rng.sample(vocab, rng.randint(1, 4))) for _ in range(40)]
        self.assertSame(data, queries, [dt.date(2020, 3, 1), dt.date(2030, 1, 1)], ks=(5,))


if __name__ == "__main__":
    unittest.main()
