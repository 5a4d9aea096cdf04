"""Edge cases of the bitmap search paths, each engine against a brute force (a review's checks).

bitmaps.top against a per-item count with many columns and large weights (many
planes), huge k, visible masks wider than the columns; SearchEngine against
the scan (tests/reference_engines.ScanSearch) with every query forced onto the bitmaps,
the first and last items numbered 0 and n - 1, the as-of date on each item's
own day; IndexEngine against SearchEngine on the same corpora, the first ord
(1) and the enforced bound; the shared cache under threads.
"""

import datetime as dt
import json
import random
import tempfile
import threading
import unittest
from pathlib import Path
from unittest import mock

from anachron.core import MODES, load_corpus_dir
from anachron.store import SearchEngine
from anachron.store import bitmaps
from anachron.store import engine as planner
from anachron.store import memory as retrieval
from anachron.store.index import IndexEngine, build_index
from anachron.store.index import postings as index_module

from tests.reference_engines import ScanSearch
from tests.store.test_bitmaps import _brute

HUGE = 2**62


class TopEdgesTest(unittest.TestCase):
    def test_many_columns_large_weights_and_any_k(self):
        rng = random.Random(1201)
        nonempty = 0
        for _ in range(300):
            n = rng.randint(1, 120)
            columns = []
            for _ in range(rng.choice((1, 3, 20, 70))):
                share = rng.choice((0.0, 0.02, 0.3, 1.0))
                offset = rng.choice((0, 0, 200))  # columns beyond the visible mask, too
                columns.append((bitmaps.from_ords(o + offset for o in range(n) if rng.random() < share), rng.choice((1, 2, 5, 255, 256, 1000))))
            visible = rng.choice(((1 << n) - 1, (1 << (n + 300)) - 1, rng.getrandbits(n + 200) | 1, 1, 0))
            for k in (1, 2, rng.randint(1, n + 5), n, n + 300, HUGE):
                want = _brute(columns, visible, k)
                self.assertEqual(bitmaps.top(columns, visible, k), want, (columns, visible, k))
                nonempty += bool(want)
        self.assertGreater(nonempty, 1000)

    def test_all_tied_at_the_kth_score_and_bit_zero(self):
        every = bitmaps.from_ords(range(0, 40))
        for k in range(1, 45):
            self.assertEqual(bitmaps.top([(every, 3)], every, k), list(range(min(k, 40))))
        # Item 0 alone scores highest; then the rest tied.
        self.assertEqual(bitmaps.top([(every, 1), (1, 7)], every, 3), [0, 1, 2])
        self.assertEqual(bitmaps.top([(every, 1), (1, 7)], every & ~1, 3), [1, 2, 3])


def _items(rng, n, vocabulary, *, days=6):
    """Items over a few days (many same-day ties the id breaks), Zipf-like words, some in titles."""
    out = []
    for j in range(n):
        words = [w for rank, w in enumerate(vocabulary, 1) if rng.random() < 0.95 / rank]
        title = [w for w in words if rng.random() < 0.3] or ["x"]
        out.append({
            "id": f"i{rng.randrange(10**6):06d}-{j}",
            "slice": "news",
            "publish_date": (dt.date(2020, 1, 1) + dt.timedelta(days=rng.randrange(days))).isoformat(),
            "title": " ".join(title),
            "text": " ".join(w for w in words if w not in title),
            "entities": [],
            "restates": None,
        })
    return out


def _write(directory, items):
    directory.mkdir(parents=True)
    (directory / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return directory


def _queries(rng, vocabulary, n):
    queries = [" ".join(rng.sample(vocabulary + ["absent1", "absent2"], rng.randint(1, 8))) for _ in range(n)]
    return queries + [" ".join(vocabulary), vocabulary[0], "absent1 " + vocabulary[-1], " ".join(vocabulary[-5:])]


def _days(corpus):
    days = sorted({i.publish_date for i in corpus.items.values()})
    return [days[0] - dt.timedelta(days=1), *days, days[-1] + dt.timedelta(days=1)]


class _Corpora(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        rng = random.Random(77)
        cls.vocabulary = [f"w{j}" for j in range(40)]
        cls.dirs = [_write(Path(cls._tmp.name) / f"c{n}", _items(rng, n, cls.vocabulary)) for n in (1, 9, 300)]

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()


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
