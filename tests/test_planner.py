"""The shared planner (anachron.core.engine.top_ords), pruned and not, against a brute-force ranking.

The postings here are plain Python sets over seeded random items (many ties on
score, so the ord tie order decides); the reference sums 2 per strong word and
1 per weak word of every item and sorts by (score descending, ord).
"""

import random
import unittest
from unittest import mock

from anachron.core import engine as planner
from anachron.core.engine import top_ords


class _Memory:
    """Postings and PartialPostings over {ord: {word: 2 or 1}}, items up to ord *bound*."""

    def __init__(self, items, bound):
        self.rows, self.bound, self.items = items, bound, len(items)
        self.hit_ords = 0  # how many ords hits() scored: the pruning's work

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

    matches = scan

    def aggregate(self, words, k):
        return reference(self, words, k)

    def partials(self, words):
        return {o: self._score(row, words) for o, row in self._visible() if any(w in row for w in words)}

    def hits(self, ords, words):
        self.hit_ords += len(ords)
        return [self._score(self.rows[o], words) for o in ords]


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
    def test_pruned_and_previous_equal_brute_force(self):
        rng = random.Random(16)
        vocabulary = [f"w{i}" for i in range(12)]
        compared, pruned_less = 0, 0
        for trial in range(30):
            items = corpus(rng, rng.choice((40, 200, 600)), vocabulary)
            for _ in range(12):
                words = sorted(set(rng.sample(vocabulary + ["absent"], rng.randint(1, 6))))
                bound = rng.choice((len(items), len(items) // 2, 1, 0))
                k = rng.choice((1, 2, 5, 50))
                plan = rng.choice(((1000, 4, 0.02, 0.1), (0, 4, 0.0, 0.0), (5, 2, 0.0, 1.0), (30, 1, 0.0, 0.0), (0, 0, 0.0, 0.1)))
                with mock.patch.multiple(planner, RARE_POSTINGS=plan[0], MAX_COMMON=plan[1], RARE_SHARE=plan[2], SECOND_SHARE=plan[3]):
                    for pruned in (True, False):
                        postings = _Memory(items, bound)
                        want = reference(postings, words, k)
                        got = top_ords(postings, words, k, pruned=pruned)
                        self.assertEqual(got, want, (trial, words, bound, k, plan, pruned))
                        compared += 1
                        if pruned and want:
                            candidates = len(postings.partials(words))
                            pruned_less += postings.hit_ords < candidates
        self.assertGreater(compared, 500)
        self.assertGreater(pruned_less, 50, "the pruning never skipped a candidate")

    def test_a_tie_at_the_kth_score_goes_to_the_earlier_item(self):
        # Item 3 scores 3 only through the common word, item 1 scores 3 through rare words alone:
        # with k=1 the earlier (ord 1) wins; with the score of 3 raised to 4 item 3 wins.
        items = {1: {"r": 2, "s": 1}, 2: {"c": 1}, 3: {"r": 1, "c": 2}, 4: {"c": 2}}
        with mock.patch.multiple(planner, RARE_POSTINGS=3, RARE_SHARE=0.0):
            self.assertEqual(top_ords(_Memory(items, 4), ["c", "r", "s"], 1), [1])
            items[3]["s"] = 1
            self.assertEqual(top_ords(_Memory(items, 4), ["c", "r", "s"], 1), [3])
            self.assertEqual(top_ords(_Memory(items, 4), ["c", "r", "s"], 3), [3, 1, 4])
            self.assertEqual(top_ords(_Memory(items, 2), ["c", "r", "s"], 3), [1, 2])  # the enforced bound

    def test_no_word_held(self):
        self.assertEqual(top_ords(_Memory({1: {"a": 1}}, 1), ["b"], 5), [])


if __name__ == "__main__":
    unittest.main()
