"""anachron.store.bitmaps: the exact top k over posting bitmaps, against a brute-force count."""

import random
import unittest

from anachron.store import bitmaps


def _brute(columns, visible, k):
    """Score every visible item one by one; best k by (score descending, number)."""
    size = max([visible.bit_length()] + [bits.bit_length() for bits, _ in columns])
    scores = {o: sum(w for bits, w in columns if bits >> o & 1) for o in range(size) if visible >> o & 1}
    return sorted((o for o, s in scores.items() if s), key=lambda o: (-scores[o], o))[:k]


class TopTest(unittest.TestCase):
    def test_random_columns_against_brute_force(self):
        rng = random.Random(20261201)
        checked = 0
        for _ in range(2000):
            n = rng.randint(1, 200)
            columns = []
            for _ in range(rng.randint(0, 7)):
                share = rng.choice([0.0, 0.01, 0.2, 0.5, 0.9, 1.0])
                columns.append((bitmaps.from_ords(o for o in range(n) if rng.random() < share), rng.choice([1, 2, 3, 7])))
            visible = rng.choice([(1 << rng.randint(0, n)) - 1, rng.getrandbits(n)])
            k = rng.randint(1, 15)
            want = _brute(columns, visible, k)
            self.assertEqual(bitmaps.top(columns, visible, k), want, (columns, visible, k))
            checked += bool(want)
        self.assertGreater(checked, 1000)

    def test_ties_break_on_the_smaller_number(self):
        every = bitmaps.from_ords(range(10))
        self.assertEqual(bitmaps.top([(every, 1)], every, 3), [0, 1, 2])
        # Item 9 alone scores more; the tied rest come in number order after it.
        self.assertEqual(bitmaps.top([(every, 1), (1 << 9, 2)], every, 4), [9, 0, 1, 2])

    def test_exactly_k_above_the_rest(self):
        ones = bitmaps.from_ords([1, 4, 6])
        every = bitmaps.from_ords(range(8))
        self.assertEqual(bitmaps.top([(every, 1), (ones, 2)], every, 3), [1, 4, 6])

    def test_items_scoring_zero_and_hidden_items_are_left_out(self):
        columns = [(0b1010, 1)]
        self.assertEqual(bitmaps.top(columns, 0b1111, 5), [1, 3])
        self.assertEqual(bitmaps.top(columns, 0b0111, 5), [1])
        self.assertEqual(bitmaps.top(columns, 0, 5), [])
        self.assertEqual(bitmaps.top([], 0b1111, 5), [])
        self.assertEqual(bitmaps.top([(0, 2)], 0b1111, 5), [])

    def test_k_of_zero_or_less_returns_nothing(self):
        self.assertEqual(bitmaps.top([(0b1, 1)], 0b1, 0), [])
        self.assertEqual(bitmaps.top([(0b1, 1)], 0b1, -3), [])

    def test_weights_must_be_positive_ints(self):
        for weight in (0, -1, 1.0, 1.5, "2"):
            with self.assertRaises(ValueError):
                bitmaps.top([(0b1, weight)], 0b1, 1)

    def test_large_numbers(self):
        # Far beyond a machine word: items near a million, as at the index's scale.
        rng = random.Random(4)
        numbers = sorted(rng.sample(range(1_000_000), 300))
        columns = [(bitmaps.from_ords(numbers), 1), (bitmaps.from_ords(numbers[::3]), 2)]
        visible = (1 << 1_000_000) - 1
        self.assertEqual(bitmaps.top(columns, visible, 5), numbers[::3][:5])
        self.assertEqual(bitmaps.top(columns, visible, 150), numbers[::3] + [o for o in numbers if o not in set(numbers[::3])][:50])


class FromOrdsAndOrdsTest(unittest.TestCase):
    def test_round_trip(self):
        rng = random.Random(9)
        for _ in range(200):
            numbers = sorted(rng.sample(range(5000), rng.randint(0, 300)))
            bits = bitmaps.from_ords(numbers)
            self.assertEqual(bits, sum(1 << o for o in numbers))
            self.assertEqual(bitmaps.ords(bits), numbers)
            limit = rng.randint(0, 400)
            self.assertEqual(bitmaps.ords(bits, limit), numbers[:limit])

    def test_repeated_and_unsorted_numbers(self):
        self.assertEqual(bitmaps.from_ords([5, 1, 5, 0]), 0b100011)
        self.assertEqual(bitmaps.ords(0b100011), [0, 1, 5])

    def test_from_scores_adds_up_to_the_scores(self):
        rng = random.Random(12)
        for _ in range(300):
            scores = {o: rng.randint(1, 9) for o in rng.sample(range(400), rng.randint(0, 60))}
            columns = bitmaps.from_scores(scores)
            self.assertEqual(len(columns), len(set(scores.values())))
            self.assertEqual({o: sum(w for bits, w in columns if bits >> o & 1) for o in range(400) if any(bits >> o & 1 for bits, _ in columns)}, scores)
            visible = (1 << 400) - 1
            self.assertEqual(bitmaps.top(columns, visible, 7), _brute([(1 << o, s) for o, s in scores.items()], visible, 7))

    def test_empty(self):
        self.assertEqual(bitmaps.from_ords([]), 0)
        self.assertEqual(bitmaps.ords(0), [])
        self.assertEqual(bitmaps.ords(0b11, 0), [])



if __name__ == "__main__":
    unittest.main()
