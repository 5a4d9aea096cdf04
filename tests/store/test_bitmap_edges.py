"""Edge cases of the bitmap search paths, each engine against a brute force (a review's checks).

bitmaps.top against a per-item count with many columns and large weights (many
planes), huge k, visible masks wider than the columns; SearchEngine against
the scan (benchmarks/reference_engines.ScanSearch) with every query forced onto the bitmaps,
the first and last items numbered 0 and n - 1, the as-of date on each item's
own day; IndexEngine against SearchEngine on the same corpora, the first ord
(1) and the enforced bound; the shared cache under threads.
"""

import datetime as dt
import json
import random
import tempfile
import unittest
from pathlib import Path

from anachron.store import bitmaps

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






if __name__ == "__main__":
    unittest.main()
