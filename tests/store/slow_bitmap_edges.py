"""The slow tests beside test_bitmap_edges.py, whose docstring states the rules they hold: SearchEngineForcedOntoBitmapsTest, IndexEngineBitmapsTest.

They start processes, browsers or servers, or build large inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

import random
import threading
import unittest
from unittest import mock
from anachron.core import MODES, load_corpus_dir
from anachron.store import SearchEngine
from anachron.store import engine as planner
from anachron.store import memory as retrieval
from anachron.store.index import IndexEngine, build_index
from anachron.store.index import postings as index_module
from benchmarks.reference_engines import ScanSearch
from tests.store.test_bitmap_edges import HUGE, _Corpora, _days, _queries


class SearchEngineForcedOntoBitmapsTest(_Corpora):
    def test_against_the_scan(self):
        rng = random.Random(3)
        compared = 0
        for directory in self.dirs:
            corpus = load_corpus_dir(directory)
            scan = ScanSearch(corpus)
            queries = _queries(rng, self.vocabulary, 25)
            for budget, dense in ((0, 256), (0, 10**9), (0, 1), (retrieval._RARE_POSTINGS, 256)):
                with mock.patch.object(retrieval, "_RARE_POSTINGS", budget), mock.patch.object(retrieval, "_DENSE", dense):
                    engine = SearchEngine(corpus)
                    for query in queries:
                        for day in _days(corpus):
                            for mode in MODES:
                                for k in (1, 3, len(corpus.items), HUGE):
                                    want = [i.id for i in scan.search(query, as_of=day, mode=mode, k=k)]
                                    got = [i.id for i in engine.search(query, as_of=day, mode=mode, k=k)]
                                    self.assertEqual(got, want, (directory.name, budget, dense, query, day, mode, k))
                                    compared += bool(want)
        self.assertGreater(compared, 3000)


class IndexEngineBitmapsTest(_Corpora):
    def test_against_the_in_memory_engine(self):
        rng = random.Random(4)
        compared = first = 0
        for directory in self.dirs:
            corpus = load_corpus_dir(directory)
            reference = SearchEngine(corpus)
            build_index(directory, directory.with_suffix(".db"))
            engine = IndexEngine(directory.with_suffix(".db"))
            self.addCleanup(engine.close)
            earliest = min(corpus.items.values(), key=lambda i: (i.publish_date, i.id)).id
            queries = _queries(rng, self.vocabulary, 25)
            for rare, share in ((0, 0.0), (planner.RARE_POSTINGS, planner.RARE_SHARE)):
                with mock.patch.multiple(planner, RARE_POSTINGS=rare, RARE_SHARE=share):
                    for query in queries:
                        for day in _days(corpus):
                            for mode in MODES:
                                for k in (1, 3, len(corpus.items), HUGE):
                                    want = [i.id for i in reference.search(query, as_of=day, mode=mode, k=k)]
                                    got = [i.id for i in engine.search(query, as_of=day, mode=mode, k=k)]
                                    self.assertEqual(got, want, (directory.name, rare, query, day, mode, k))
                                    compared += bool(want)
                                    first += earliest in got
        self.assertGreater(compared, 3000)
        self.assertGreater(first, 100)  # ord 1 is returned, not only skipped

    def test_threads_share_a_small_cache(self):
        # A cache smaller than the postings of a query: entries are evicted while other threads read.
        directory = self.dirs[-1]
        corpus = load_corpus_dir(directory)
        reference = SearchEngine(corpus)
        path = directory.with_name("threads.db")
        build_index(directory, path)
        rng = random.Random(5)
        queries = _queries(rng, self.vocabulary, 40)
        day = max(i.publish_date for i in corpus.items.values())
        want = {q: [i.id for i in reference.search(q, as_of=day, mode="enforced", k=7)] for q in queries}
        with mock.patch.object(IndexEngine, "CACHE_BYTES", 600), mock.patch.multiple(planner, RARE_POSTINGS=0, RARE_SHARE=0.0):
            engine = IndexEngine(path)
            self.addCleanup(engine.close)
            wrong = []

            def work(seed):
                order = random.Random(seed).sample(queries, len(queries))
                for _ in range(3):
                    for q in order:
                        got = [i.id for i in engine.search(q, as_of=day, mode="enforced", k=7)]
                        if got != want[q]:
                            wrong.append((q, got))

            threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(wrong, [])
            cache = engine._cache
            kept = list(cache._kept.values())
            self.assertTrue(kept)
            self.assertEqual(cache.used, sum(index_module._size(v) + index_module._ENTRY for v in kept))
            self.assertLessEqual(cache.used, cache.limit)

    def test_the_cache_bounds_what_it_really_holds(self):
        # Many tiny entries (rows of one posting, one-byte bitmaps): the memory they really take,
        # traced, stays near the limit, not 4 bytes a row.
        import array
        import tracemalloc

        limit = 1 << 20
        cache = index_module.PostingCache(limit)
        tracemalloc.start()
        try:
            start = tracemalloc.get_traced_memory()[0]
            for j in range(50_000):
                cache.put(f"u{j}", (array.array("I", [j + 1]), array.array("I"), None, None))
                cache.put((f"u{j}", 1), 1 << (j % 8))
            held = tracemalloc.get_traced_memory()[0] - start
        finally:
            tracemalloc.stop()
        self.assertGreater(len(cache._kept), 1000)
        self.assertLessEqual(cache.used, limit)
        self.assertLess(held, 1.5 * limit, (held, len(cache._kept)))


if __name__ == "__main__":
    unittest.main()
