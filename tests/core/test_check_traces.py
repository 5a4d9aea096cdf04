"""check_traces (what `anachron import` checks its records with) against iter_traces (the scorer's validation).

The two must accept the same records, count the same calls and refuse the same records with
the same error; check_traces only skips dating items seen once in a run.
"""

import unittest

from anachron.core.errors import AnachronError
from anachron.core.trace import check_traces, iter_traces
from anachron.store import load_corpus

CORPUS = load_corpus()


def record(sample_id, *calls, **extra):
    return {"sample_id": sample_id, "as_of": "2022-06-01", "interactions": list(calls), **extra}


def search(*returned, **extra):
    return {"tool": "search", "query": "q", "returned": list(returned), **extra}


def outcome(fn, records):
    try:
        return ("ok", [r for r in fn([(f"t.jsonl:{i + 1}", obj) for i, obj in enumerate(records)], CORPUS)])
    except AnachronError as exc:
        return ("error", str(exc))


class CheckTracesTest(unittest.TestCase):
    def same(self, *records):
        checked = outcome(check_traces, records)
        validated = outcome(iter_traces, records)
        if validated[0] == "ok":
            validated = ("ok", [(t.sample_id, len(t.interactions)) for t in validated[1]])
        self.assertEqual(checked, validated)
        return checked

    def test_good_records_count_alike(self):
        status, counts = self.same(
            record("a", search({"url": "https://x.example/2022/01/05/a"}, "fin-001"), search(), {"tool": "fetch", "target": "fin-002"}),
            record("b", search({"url": "https://x.example/b", "published_date": "2022-03-01"},
                               {"url": "https://x.example/b", "published_date": "2022-03-01"})),
            record("c"),
        )
        self.assertEqual((status, counts), ("ok", [("a", 3), ("b", 1), ("c", 0)]))

    def test_an_item_dated_twice_differently_is_the_same_error(self):
        status, message = self.same(record(
            "a",
            search({"url": "https://x.example/b", "published_date": "2022-03-01"}),
            {"tool": "fetch", "status": "ok", "target": {"url": "https://x.example/b", "published_date": "2023-03-01"}},
        ))
        self.assertEqual(status, "error")
        self.assertIn("is dated 2022-03-01", message)

    def test_hostile_dates_of_items_seen_once_or_twice_are_judged_alike(self):
        # Seeded: inline entries with bad, odd and conflicting date fields (the dating check_traces skips
        # for an item seen once must never have been able to refuse it), alone or with a second sighting.
        import random

        from anachron.core.attribution.sources import DATE_FIELDS

        rng = random.Random(22)
        values = ["2022-13-01", "2022-02-30", "Monday, 2 June 2022", "1e400", "-5", 1e308, float("nan"), -1, 10**30, None, [], {},
                  True, "2022-06-01T25:00:00Z", "2022-06-01T10:00:00+25:00", "3 days ago", "", "\ud800", "2022", "2022-06",
                  "Q3 2022", "2022-06-01", "June 31 2022", 1654041600, 1654041600000, "0000-01-01", "9999-12-31", "2021-06-01"]
        keys = [*DATE_FIELDS, "snippet", "text", "title", "html"]
        statuses = set()
        for _ in range(600):
            entries = []
            for j in range(rng.randint(1, 3)):
                entry = {"url": rng.choice(["https://x.example/a", f"https://x.example/2022/05/0{j + 1}/b", "https://x.example/c"])}
                for _ in range(rng.randint(0, 3)):
                    entry[rng.choice(keys)] = rng.choice(values)
                entries.append(entry)
            call = search(*entries)
            if rng.random() < 0.3:
                call["time"] = rng.choice(["2022-06-01T00:00:00Z", "bad", None, 5])
            statuses.add(self.same(record("s", call))[0])
        self.assertEqual(statuses, {"ok", "error"})

    def test_every_other_refusal_is_the_same_error(self):
        cases = [
            [record("a"), record("a")],  # a duplicate sample id
            [record("a", search({"title": "no id or url"}))],
            [record("a", search({"url": "https://x.example/a", "entities": ["NOPE"]}))],
            [record("a", search({"id": "fin-001", "publish_date": "1999-01-01"}))],  # a corpus item, dated otherwise
            [record("a", search("not-in-corpus"))],
            [record("a", {"tool": "search", "status": "refused", "returned": [{"url": "https://x.example/a"}]})],
            [record("a", search({"url": "https://x.example/a"}, time="yesterday"))],
            [record("a", "not an interaction")],
            [{"sample_id": "a", "interactions": "nope", "as_of": "2022-06-01"}],
            [{"as_of": "2022-06-01", "interactions": []}],
        ]
        for records in cases:
            with self.subTest(records=records):
                self.assertEqual(self.same(*records)[0], "error")


if __name__ == "__main__":
    unittest.main()
