"""BM25 ranking (anachron.store.ranking) through the engines: the formula, ties by recency, and the
time-lock property (statistics of the items visible at T only: later items change no enforced result)."""

import datetime as dt
import json
import math
import random
import shutil
import unittest
from pathlib import Path

from anachron.core import AnachronError
from anachron.store import SearchEngine

from tests import engine_cases
from tests.corpus_fixtures import corpus, item

T = dt.date(2022, 6, 1)


def _bm25(idf, weight, length, average, k1=0.1, b=0.9):
    """The documented formula, written out again (docs/index.md), in millionths."""
    t = weight / (1 - b + b * length / average)
    return round(1_000_000 * idf * t * (k1 + 1) / (k1 + t))


class FormulaTest(unittest.TestCase):
    def test_scores_follow_the_documented_formula(self):
        c = corpus(items=[
            item("a", "2022-01-01", title="Zephyr rises", text="quiet day"),
            item("b", "2022-02-01", title="Markets", text="zephyr mentioned in passing today"),
            item("c", "2022-03-01", title="Other news", text="nothing here"),
        ])
        got = SearchEngine(c).scored("zephyr", as_of=T, mode="enforced", k=5)
        n, df = 3, 2
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        strong_avg, weak_avg = (2 + 1 + 2) / 3, (2 + 4 + 2) / 3  # distinct terms, stop words out
        want = [("a", _bm25(idf, 1.25, 2, strong_avg) / 1e6), ("b", _bm25(idf, 1.0, 4, weak_avg) / 1e6)]
        self.assertEqual([(i.id, s) for i, s in got], want)

    def test_a_rarer_word_outranks_a_common_one(self):
        items = [item(f"x{n}", "2022-01-01", title="common words", text="filler") for n in range(8)]
        items.append(item("rare", "2021-01-01", title="rare", text="filler"))
        items.append(item("both", "2021-01-01", title="common", text="rare"))
        engine = SearchEngine(corpus(items=items))
        got = [i.id for i in engine.search("common rare", as_of=T, mode="enforced", k=3)]
        self.assertEqual(set(got[:2]), {"both", "rare"})  # a title hit on "rare" beats one on "common", the newer items'
        counted = [i.id for i in engine.search("common rare", as_of=T, mode="enforced", k=3, ranking="count")]
        self.assertEqual(counted, ["both", "rare", "x0"])  # counts: 3, 2, then 2 for the oldest common one

    def test_ties_break_by_recency_then_id(self):
        c = corpus(items=[
            item("b", "2022-05-01", title="Zephyr"),
            item("a", "2022-05-01", title="Zephyr"),
            item("old", "2021-01-01", title="Zephyr"),
            item("new", "2022-06-01", title="Zephyr"),  # on T: visible, and the newest
            item("late", "2022-06-02", title="Zephyr"),  # after T
        ])
        engine = SearchEngine(c)
        got = engine.scored("zephyr", as_of=T, mode="enforced", k=10)
        self.assertEqual([i.id for i, _ in got], ["new", "a", "b", "old"])
        self.assertEqual(len({s for _, s in got}), 1)  # one score: the order is the tie rule's
        self.assertEqual([i.id for i in engine.search("zephyr", as_of=T, mode="unrestricted", k=10)], ["late", "new", "a", "b", "old"])
        self.assertEqual([i.id for i in engine.search("zephyr", as_of=T, mode="enforced", k=2)], ["new", "a"])

    def test_count_ranking_is_kept(self):
        c = corpus(items=[item("a", "2022-01-01", title="Zephyr", text="wind"), item("b", "2022-02-01", title="Wind", text="zephyr")])
        engine = SearchEngine(c)
        self.assertEqual([(i.id, s) for i, s in engine.scored("zephyr wind", as_of=T, ranking="count")], [("a", 3), ("b", 3)])
        with self.assertRaisesRegex(AnachronError, "unknown ranking 'tfidf'"):
            engine.search("zephyr", as_of=T, ranking="tfidf")

    def test_no_visible_item_and_no_word(self):
        engine = SearchEngine(corpus(items=[item("a", "2022-01-01", title="Zephyr")]))
        self.assertEqual(engine.scored("zephyr", as_of=dt.date(2021, 12, 31), mode="enforced"), [])
        self.assertEqual(engine.scored("the of", as_of=T), [])
        self.assertEqual(engine.scored("unheard", as_of=T), [])


def split_at(source: Path, out: Path, day: dt.date) -> Path:
    """A copy of the corpus directory *source* keeping only the items published on or before *day*."""
    out.mkdir()
    shutil.copy(source / "entities.jsonl", out / "entities.jsonl")
    kept = [line for line in (source / "items.jsonl").read_text(encoding="utf-8").split("\n")
            if line and dt.date.fromisoformat(json.loads(line)["publish_date"]) <= day]
    (out / "items.jsonl").write_text("".join(line + "\n" for line in kept), encoding="utf-8")
    return out




class BitmapWayTest(unittest.TestCase):
    """The bitmap way (store.ranking's branch and bound) where it is easiest to get wrong: many items
    tied on one score across several days and cells (the newest win, then the smaller id), a k above
    the matching items, a field no item has, an item published on T; each against the scan."""

    def setUp(self):
        from benchmarks.reference_engines import ScanSearch

        self.scan_of = ScanSearch

    def check(self, data, queries, days, ks=(1, 3, 5, 12, 100)):
        engine, scan = SearchEngine(data), self.scan_of(data)
        filled = 0
        for query in queries:
            for day in days:
                for k in ks:
                    want = [(i.id, s) for i, s in scan.scored(query, as_of=day, mode="enforced", k=k)]
                    for way in ("bitmaps", "bitmaps, split to the end"):
                        with engine_cases.bm25_way(way):
                            got = [(i.id, s) for i, s in engine.scored(query, as_of=day, mode="enforced", k=k)]
                        self.assertEqual(got, want, (query, day, k, way))
                    filled += len(want) == k
        return filled

    def test_ties_across_days_and_cells(self):
        # 48 items over 4 days: the same words, so equal lengths tie exactly; ids not in date order.
        items = []
        for n in range(48):
            day = dt.date(2022, 5, 1 + n % 4)
            text = "alpha beta" if n % 3 else "alpha gamma beta"  # two weak lengths, so two tie levels
            items.append(item(f"t-{(n * 7) % 48:02d}", day.isoformat(), title="Zephyr winds" if n % 5 else "Zephyr", text=text))
        data = corpus(items=items)
        days = [dt.date(2022, 5, d) for d in (1, 2, 3, 4, 9)]
        filled = self.check(data, ["zephyr", "alpha", "zephyr alpha", "winds beta gamma", "zephyr nothing"], days)
        self.assertGreater(filled, 40)

    def test_ties_between_two_patterns(self):
        # "red" and "blue" are held by as many items, so (red in the title, blue in the text) and the
        # reverse score exactly the same: two cells of one score, met at different times.
        items = []
        for n in range(40):
            title, text = ("Red", "blue x") if n % 2 else ("Blue", "red x")
            items.append(item(f"p-{n:02d}", f"2022-05-{1 + n // 4:02d}", title=title, text=text + (" y" * (n % 3))))
        data = corpus(items=items)
        days = [dt.date(2022, 5, d) for d in (3, 6, 10, 20)]
        self.assertGreater(self.check(data, ["red blue", "blue red x", "red", "x y"], days, ks=(1, 2, 3, 4, 5, 7, 9, 30)), 30)

    def test_no_strong_term_anywhere_and_nothing_visible(self):
        # Titles with no term and no entity: no item has a strong term at all.
        data = corpus(items=[item(f"w-{n}", f"2022-05-{1 + n % 9:02d}", title="-", text=" ".join(["omega"] * (1 + n % 3)) + f" n{n}")
                             for n in range(30)])
        days = [dt.date(2022, 4, 30), dt.date(2022, 5, 1), dt.date(2022, 5, 5), dt.date(2022, 6, 1)]
        self.check(data, ["omega", "omega n3", "n4 n5"], days)
        engine = SearchEngine(data)
        with engine_cases.bm25_way("bitmaps"):
            self.assertEqual(engine.scored("omega", as_of=dt.date(2022, 4, 30), mode="enforced"), [])  # before every item
            on_t = [i.id for i, _ in engine.scored("n0", as_of=dt.date(2022, 5, 1), mode="enforced")]
        self.assertEqual(on_t, ["w-0"])  # published on T: visible




def assert_like_the_scan(test, corpus, engines, seed=2207):
    """Seeded: each of *engines*, by each exact way of top_bm25 forced (over bitmaps, by length groups, and
    term at a time with MaxScore), returns the naive scan's enforced top k (benchmarks/reference_engines.py) for many queries and
    days T: publish days themselves (an item on T is visible), the days after, and both ends.  The number
    of comparisons that filled the top k."""
    from collections import Counter
    from anachron.store.terms import tokenize
    from benchmarks.reference_engines import ScanSearch

    rng = random.Random(seed)
    counts = Counter(w for i in corpus.items.values() for w in set(tokenize(f"{i.title} {i.text}")))
    common = [w for w, _ in counts.most_common(15)]
    words = sorted(counts)
    queries = [" ".join(rng.sample(common, rng.randint(1, 3)) + rng.sample(words, rng.randint(0, 2))) for _ in range(30)]
    queries += [" ".join(rng.sample(words, rng.randint(1, 4))) for _ in range(10)]
    days = sorted({i.publish_date for i in corpus.items.values()})
    scan = ScanSearch(corpus)
    compared = 0
    for query in queries:
        picked = rng.sample(days, 2)
        for day in (picked[0], picked[1] + dt.timedelta(days=1), days[0] - dt.timedelta(days=1), days[-1]):
            for k in (1, 10):
                want = [(i.id, s) for i, s in scan.scored(query, as_of=day, mode="enforced", k=k)]
                for way in engine_cases.BM25_WAYS:
                    with engine_cases.bm25_way(way):
                        for engine in engines:
                            got = [(i.id, s) for i, s in engine.scored(query, as_of=day, mode="enforced", k=k)]
                            test.assertEqual(got, want, (type(engine).__name__, query, day, k, way))
                compared += len(want) == k
    return compared

if __name__ == "__main__":
    unittest.main()
