"""SearchEngine's inverted index returns exactly what the linear scan it replaced returned."""

import datetime as dt
import random
import unittest

from anachron.core import AnachronError
from anachron.store import SearchEngine

from tests.corpus_fixtures import corpus, entity, item


def _generated(n_items: int, seed: int):
    """A corpus with a small, skewed vocabulary: many ties, many shared words, entity names."""
    rng = random.Random(seed)
    vocab = [f"w{n}" for n in range(60)]
    weights = [1 / (rank + 1) for rank in range(len(vocab))]
    entities = [entity(f"E{n}", name=f"{rng.choice(vocab)} {rng.choice(vocab)} co") for n in range(8)]
    items = []
    for n in range(n_items):
        day = dt.date(2019, 1, 1) + dt.timedelta(days=rng.randrange(5 * 365))
        items.append(item(
            f"i{n:04d}" if n % 7 else f"z{n}",  # ids not in date order
            day.isoformat(),
            title=" ".join(rng.choices(vocab, weights, k=rng.randint(1, 5))).capitalize(),
            text=" ".join(rng.choices(vocab, weights, k=rng.randint(0, 12))) + rng.choice(["", " The of and", " W3!"]),
            entities=rng.sample([e["id"] for e in entities], rng.randint(0, 2)),
        ))
    return corpus(entities=entities, items=items), vocab




class BoundaryTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus(items=[
            item("b", "2022-06-01", title="Zephyr"),  # on T: visible when enforced
            item("a", "2022-06-01", title="Zephyr"),
            item("late", "2022-06-02", title="Zephyr zephyr"),
        ])
        self.engine = SearchEngine(self.c)

    def test_published_on_t_is_visible_the_day_after_is_not(self):
        ids = [i.id for i in self.engine.search("zephyr", as_of=dt.date(2022, 6, 1), mode="enforced")]
        self.assertEqual(ids, ["a", "b"])  # equal score and date: by id
        ids = [i.id for i in self.engine.search("zephyr", as_of=dt.date(2022, 6, 1), mode="unrestricted")]
        self.assertEqual(ids, ["late", "a", "b"])  # equal scores (terms are sets): the newest first, then by id
        ids = [i.id for i in self.engine.search("zephyr", as_of=dt.date(2022, 6, 1), mode="unrestricted", ranking="count")]
        self.assertEqual(ids, ["a", "b", "late"])  # the count ranking's ties: the oldest first, as before
        self.assertEqual(self.engine.search("zephyr", as_of=dt.date(2022, 5, 31), mode="enforced"), [])

    def test_cutoff_is_an_argument_not_part_of_the_query(self):
        ids = [i.id for i in self.engine.search("zephyr 2022-06-02", as_of=dt.date(2022, 6, 1), mode="enforced")]
        self.assertEqual(ids, ["a", "b"])

    def test_bad_arguments(self):
        for kwargs, message in [
            ({"as_of": "2022-06-01"}, "as_of must be a datetime.date"),
            ({"as_of": dt.datetime(2022, 6, 1)}, "as_of must be a datetime.date"),
            ({"as_of": dt.date(2022, 6, 1), "mode": "lenient"}, "unknown mode"),
            ({"as_of": dt.date(2022, 6, 1), "k": 0}, "positive integer"),
            ({"as_of": dt.date(2022, 6, 1), "k": True}, "positive integer"),
        ]:
            with self.assertRaisesRegex(AnachronError, message):
                self.engine.search("zephyr", **kwargs)
        with self.assertRaisesRegex(AnachronError, "query must be a string"):
            self.engine.search(None, as_of=dt.date(2022, 6, 1))

    def test_empty_corpus_and_empty_query(self):
        empty = SearchEngine(corpus(items=[]))
        self.assertEqual(empty.search("zephyr", as_of=dt.date(2022, 6, 1), mode="enforced"), [])
        self.assertEqual(self.engine.search("the of !!", as_of=dt.date(2022, 6, 1)), [])


if __name__ == "__main__":
    unittest.main()
