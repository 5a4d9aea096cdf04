"""The shared planner (anachron.store.engine.top_ords), with bitmaps and without, against a brute-force ranking.

The postings here are plain Python sets over seeded random items (many ties on
score, so the ord tie order decides); the reference sums 2 per strong word and
1 per weak word of every item and sorts by (score descending, ord).
"""

import random
import unittest
from unittest import mock

from anachron.store import engine as planner
from anachron.store.engine import top_ords


class _Memory:
    """Postings and BitmapPostings over {ord: {word: 2 or 1}}, items up to ord *bound*."""

    def __init__(self, items, bound):
        self.rows, self.bound, self.items = items, bound, len(items)
        self.used = set()  # which of partials and columns answered

    def _visible(self):
        return ((o, row) for o, row in sorted(self.rows.items()) if o <= self.bound)

    def _score(self, row, words):
        return sum(row.get(w, 0) for w in words)

    def frequencies(self, words):
        out = {}
        for w in words:
            strong = sum(1 for row in self.rows.values() if row.get(w) == 2)
            weak = sum(1 for row in self.rows.values() if row.get(w) == 1)
            if strong or weak:
                out[w] = (strong, weak)
        return out

    def candidates(self, words, query):
        return [(o, self._score(row, query)) for o, row in self._visible() if any(w in row for w in words)]

    def scan(self, patterns, after, limit):
        hit = [o for o, row in self._visible() if o > after and any(all(row.get(w, 0) == x for w, x in p) for p in patterns)]
        return hit[:limit]

    def aggregate(self, words, k):
        return reference(self, words, k)

    def partials(self, words):
        self.used.add("partials")
        return {o: self._score(row, words) for o, row in self._visible() if any(w in row for w in words)}

    def columns(self, words):
        self.used.add("columns")
        return [
            (sum(1 << o for o, row in self.rows.items() if row.get(w) == weight), weight)
            for w in words for weight in (2, 1)
        ]

    def visible(self):
        return sum(1 << o for o, _ in self._visible())


class _FullText(_Memory):
    """:class:`_Memory` without its bitmaps: top_ords plans over full-text queries (PostgreSQL's planner)."""

    columns = partials = None


def _postings(use_bitmaps):
    return _Memory if use_bitmaps else _FullText


def reference(postings, words, k):
    scored = [(-postings._score(row, words), o) for o, row in postings._visible()]
    return [o for s, o in sorted(scored) if s][:k]


def corpus(rng, n, vocabulary):
    """Items holding each word with a Zipf-like chance, strong a third of the time."""
    items = {}
    for o in range(1, n + 1):
        row = {}
        for rank, word in enumerate(vocabulary, 1):
            if rng.random() < 0.9 / rank:
                row[word] = 2 if rng.random() < 0.33 else 1
        items[o] = row
    return items


class PlannerTest(unittest.TestCase):
    def test_bitmaps_and_previous_equal_brute_force(self):
        rng = random.Random(16)
        vocabulary = [f"w{i}" for i in range(12)]
        compared, used = 0, set()
        for trial in range(30):
            items = corpus(rng, rng.choice((40, 200, 600)), vocabulary)
            for _ in range(12):
                words = sorted(set(rng.sample(vocabulary + ["absent"], rng.randint(1, 6))))
                bound = rng.choice((len(items), len(items) // 2, 1, 0))
                k = rng.choice((1, 2, 5, 50))
                plan = rng.choice(((1000, 4, 0.02), (0, 4, 0.0), (5, 2, 0.0), (30, 1, 0.0), (0, 0, 0.0)))
                with mock.patch.multiple(planner, RARE_POSTINGS=plan[0], MAX_COMMON=plan[1], RARE_SHARE=plan[2]):
                    for use_bitmaps in (True, False):
                        postings = _postings(use_bitmaps)(items, bound)
                        want = reference(postings, words, k)
                        got = top_ords(postings, words, k)
                        self.assertEqual(got, want, (trial, words, bound, k, plan, use_bitmaps))
                        self.assertEqual(bool(postings.used), use_bitmaps and bool(set(words) - {"absent"}))
                        used |= postings.used
                        compared += 1
        self.assertGreater(compared, 500)
        self.assertEqual(used, {"partials", "columns"})

    def test_a_tie_at_the_kth_score_goes_to_the_earlier_item(self):
        # Item 3 scores 3 only through the common word, item 1 scores 3 through rare words alone:
        # with k=1 the earlier (ord 1) wins; with the score of 3 raised to 4 item 3 wins.
        for use_bitmaps in (True, False):
            items = {1: {"r": 2, "s": 1}, 2: {"c": 1}, 3: {"r": 1, "c": 2}, 4: {"c": 2}}
            with mock.patch.multiple(planner, RARE_POSTINGS=3, RARE_SHARE=0.0):
                postings = _postings(use_bitmaps)
                self.assertEqual(top_ords(postings(items, 4), ["c", "r", "s"], 1), [1])
                items[3]["s"] = 1
                self.assertEqual(top_ords(postings(items, 4), ["c", "r", "s"], 1), [3])
                self.assertEqual(top_ords(postings(items, 4), ["c", "r", "s"], 3), [3, 1, 4])
                self.assertEqual(top_ords(postings(items, 2), ["c", "r", "s"], 3), [1, 2])  # the enforced bound

    def test_no_word_held(self):
        self.assertEqual(top_ords(_Memory({1: {"a": 1}}, 1), ["b"], 5), [])



if __name__ == "__main__":
    unittest.main()
