"""Loading a corpus directory: the bundled v0 corpus, and every validation error."""

import json
import tempfile
import unittest
from pathlib import Path

from anachron.core import AnachronError, default_corpus_dir, load_corpus_dir

from tests.support import ROOT

GOOD_ENTITY = {"id": "ACME", "name": "Acme Corp", "valid_from": "2010-01-01", "valid_to": None}
GOOD_ITEM = {"id": "i1", "slice": "finance", "publish_date": "2021-01-05", "title": "Acme results",
             "text": "Acme reported.", "entities": ["ACME"], "restates": None}
GOOD_SAMPLE = {"id": "s1", "slice": "finance", "as_of": "2021-06-01", "input": "As of 2021-06-01, how is Acme?"}


def write_lines(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")


class V0CorpusTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = load_corpus_dir()

    def test_default_is_the_bundled_v0_corpus_of_the_clone(self):
        self.assertEqual(default_corpus_dir().resolve(), (ROOT / "corpus" / "v0").resolve())

    def test_size_and_slices(self):
        self.assertGreaterEqual(len(self.c.samples), 27)
        slices = {s.slice for s in self.c.samples.values()}
        self.assertTrue({"finance", "news"} <= slices)
        restating = [i for i in self.c.items.values() if i.restates]
        self.assertGreaterEqual(len(restating), 4)

    def test_bounded_entities_are_those_with_a_bound(self):
        import datetime as dt

        from anachron.core.corpus import build_corpus

        rows = [
            {"id": "OPEN", "name": "Open Co", "valid_from": None, "valid_to": None},
            {"id": "FROM", "name": "From Co", "valid_from": "2020-01-01", "valid_to": None},
            {"id": "TO", "name": "To Co", "valid_from": None, "valid_to": "2020-01-01"},
        ]
        corpus = build_corpus([("items.jsonl:1", dict(GOOD_ITEM, entities=["OPEN"]))], [(f"e:{n}", r) for n, r in enumerate(rows)])
        self.assertEqual(corpus.bounded_entities, {"FROM", "TO"})
        days = (dt.date(1, 1, 1), dt.date(2019, 12, 31), dt.date(2020, 1, 2), dt.date(9999, 12, 31))
        self.assertTrue(all(corpus.entities["OPEN"].valid_at(day) for day in days))
        self.assertIn("CYGN", self.c.bounded_entities)  # v0: valid from 2023-02-09

    def test_worked_case_facts(self):
        c = self.c
        self.assertEqual(str(c.entity("CYGN").valid_from), "2023-02-09")
        self.assertEqual(c.entity("CYGN").name, "Cygnus Robotics")
        self.assertEqual(str(c.item("fin-005").publish_date), "2023-02-09")
        self.assertEqual(str(c.item("fin-006").publish_date), "2024-05-22")
        self.assertEqual(str(c.entity("BORX").valid_to), "2019-11-05")
        self.assertIn("BORX", c.item("fin-003").entities)
        self.assertLess(c.item("fin-003").publish_date.isoformat(), "2020-06-01")
        self.assertEqual((str(c.item("fin-008").publish_date), c.item("fin-009").restates), ("2021-02-04", "fin-008"))
        self.assertIn("$412M", c.item("fin-008").text)
        self.assertIn("$377M", c.item("fin-009").text)
        self.assertEqual(str(c.item("fin-009").publish_date), "2021-09-17")
        as_of = {s.extra["subject"]: str(s.as_of) for s in c.samples.values()}
        self.assertEqual(as_of["Cygnus Robotics"], "2022-06-01")
        self.assertEqual(as_of["Borealis Mining"], "2020-06-01")
        self.assertEqual(as_of["Delta Pharma"], "2021-06-01")

    def test_boundary_cases_are_present(self):
        c = self.c
        dated_on_t = [(s.id, i.id) for s in c.samples.values() for i in c.items.values()
                      if i.publish_date == s.as_of and s.extra["subject"].lower() in i.title.lower()]
        self.assertTrue(dated_on_t, "no item dated exactly on its sample's as-of date")
        listed_on_t = [e.id for e in c.entities.values() for s in c.samples.values()
                       if e.valid_from == s.as_of and e.name == s.extra["subject"]]
        self.assertTrue(listed_on_t, "no entity listed exactly on its sample's as-of date")
        restated_before = [i.id for i in c.items.values() for s in c.samples.values()
                           if i.restates and i.publish_date < s.as_of and s.extra["subject"] in i.title]
        self.assertTrue(restated_before, "no restatement published before its sample's as-of date")

    def test_extra_fields_are_preserved(self):
        self.assertTrue(self.c.sample("finance-001").extra["worked_example"])


class LoaderErrorTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.addCleanup(self.tmp.cleanup)

    def corpus(self, items=(GOOD_ITEM,), entities=(GOOD_ENTITY,), samples=(GOOD_SAMPLE,)):
        write_lines(self.dir / "items.jsonl", items)
        write_lines(self.dir / "entities.jsonl", entities)
        write_lines(self.dir / "samples.jsonl", samples)

    def assertLoadError(self, expected_prefix, *fragments):
        with self.assertRaises(AnachronError) as cm:
            load_corpus_dir(self.dir)
        message = str(cm.exception)
        self.assertTrue(message.startswith(str(self.dir / expected_prefix)), message)
        for fragment in fragments:
            self.assertIn(fragment, message)
        self.assertIsInstance(cm.exception, ValueError)

    def test_a_good_corpus_loads(self):
        self.corpus()
        c = load_corpus_dir(self.dir)
        self.assertEqual((list(c.items), list(c.entities), list(c.samples)), (["i1"], ["ACME"], ["s1"]))

    def test_impossible_date(self):
        self.corpus(items=[dict(GOOD_ITEM, publish_date="2021-02-30")])
        self.assertLoadError("items.jsonl:1", "'publish_date'", "not a real calendar day")

    def test_malformed_dates(self):
        for bad in ("2021-2-3", "03/02/2021", 20210203, None, ""):
            with self.subTest(bad=bad):
                self.corpus(samples=[dict(GOOD_SAMPLE, as_of=bad)])
                self.assertLoadError("samples.jsonl:1", "'as_of'")

    def test_unknown_entity(self):
        self.corpus(items=[dict(GOOD_ITEM, entities=["NOPE"])])
        self.assertLoadError("items.jsonl:1", "'entities'", "unknown entity id 'NOPE'")

    def test_unknown_restates(self):
        self.corpus(items=[dict(GOOD_ITEM, restates="ghost")])
        self.assertLoadError("items.jsonl:1", "'restates'", "unknown item id 'ghost'")

    def test_restating_a_later_item(self):
        later = dict(GOOD_ITEM, id="i2", publish_date="2021-03-01")
        self.corpus(items=[dict(GOOD_ITEM, restates="i2"), later])
        self.assertLoadError("items.jsonl:1", "'restates'", "later than")

    def test_restating_itself(self):
        self.corpus(items=[dict(GOOD_ITEM, restates="i1")])
        self.assertLoadError("items.jsonl:1", "itself")

    def test_duplicate_ids(self):
        self.corpus(items=[GOOD_ITEM, GOOD_ITEM])
        self.assertLoadError("items.jsonl:2", "duplicate item id 'i1'", "items.jsonl:1")
        self.corpus(entities=[GOOD_ENTITY, GOOD_ENTITY])
        self.assertLoadError("entities.jsonl:2", "duplicate entity id 'ACME'")
        self.corpus(samples=[GOOD_SAMPLE, GOOD_SAMPLE])
        self.assertLoadError("samples.jsonl:2", "duplicate sample id 's1'")

    def test_valid_from_after_valid_to(self):
        self.corpus(entities=[dict(GOOD_ENTITY, valid_from="2020-01-02", valid_to="2020-01-01")])
        self.assertLoadError("entities.jsonl:1", "'valid_from'", "after valid_to")

    def test_missing_and_mistyped_fields(self):
        for field in ("id", "slice", "publish_date", "title", "text"):
            with self.subTest(field=field):
                self.corpus(items=[{k: v for k, v in GOOD_ITEM.items() if k != field}])
                self.assertLoadError("items.jsonl:1", f"missing field '{field}'")
        self.corpus(items=[dict(GOOD_ITEM, title=7)])
        self.assertLoadError("items.jsonl:1", "'title'", "expected a string")
        self.corpus(items=[dict(GOOD_ITEM, entities="ACME")])
        self.assertLoadError("items.jsonl:1", "'entities'", "list")
        self.corpus(items=[dict(GOOD_ITEM, entities=["ACME", "ACME"])])
        self.assertLoadError("items.jsonl:1", "twice")
        self.corpus(entities=[dict(GOOD_ENTITY, name="")])
        self.assertLoadError("entities.jsonl:1", "'name'", "empty")

    def test_bad_json_lines(self):
        self.corpus(items=[GOOD_ITEM, "{not json"])
        self.assertLoadError("items.jsonl:2", "invalid JSON")
        self.corpus(items=["[1, 2]"])
        self.assertLoadError("items.jsonl:1", "expected a JSON object")
        self.corpus(items=['{"id": "a", "id": "b"}'])
        self.assertLoadError("items.jsonl:1", "duplicate key 'id'")
        self.corpus(items=['{"id": NaN}'])
        self.assertLoadError("items.jsonl:1", "NaN")

    def test_blank_lines_keep_line_numbers(self):
        self.corpus(items=[GOOD_ITEM, "", dict(GOOD_ITEM, id="i3", publish_date="bad")])
        self.assertLoadError("items.jsonl:3", "'publish_date'")

    def test_missing_files_and_directories(self):
        with self.assertRaisesRegex(AnachronError, "not a corpus directory"):
            load_corpus_dir(self.dir / "nowhere")
        with self.assertRaisesRegex(AnachronError, "items.jsonl: no such file"):
            load_corpus_dir(self.dir)

    def test_entities_and_samples_files_are_optional(self):
        write_lines(self.dir / "items.jsonl", [dict(GOOD_ITEM, entities=[])])
        c = load_corpus_dir(self.dir)
        self.assertEqual((len(c.items), len(c.entities), len(c.samples)), (1, 0, 0))

    def test_not_utf8(self):
        self.corpus()
        (self.dir / "items.jsonl").write_bytes(b'{"id": "\xff"}\n')
        self.assertLoadError("items.jsonl", "not UTF-8")


if __name__ == "__main__":
    unittest.main()


class EpochSampleIdTest(unittest.TestCase):
    """``ID#epochN`` (one epoch of a run in several, docs/inspect.md "Export") is scored against the
    corpus sample ``ID``: its as-of, slice and subject; anything else names no corpus sample."""

    def test_an_epoch_id_names_its_corpus_sample(self):
        from anachron.core import parse_traces, score_traces

        corpus = load_corpus_dir()
        self.assertIs(corpus.sample_of("finance-001#epoch2"), corpus.samples["finance-001"])
        self.assertIs(corpus.sample_of("finance-001"), corpus.samples["finance-001"])
        for other in ("finance-001#epoch0", "finance-001#epoch", "finance-001#epoch2x", "#epoch2", "nope#epoch1"):
            with self.subTest(other):
                self.assertIsNone(corpus.sample_of(other))
        base = {"sample_id": "finance-001", "mode": "unrestricted",
                "interactions": [{"tool": "search", "query": "q", "returned": ["fin-005"]}]}
        plain, epoch = score_traces(parse_traces([("t:1", base), ("t:2", {**base, "sample_id": "finance-001#epoch2"})],
                                                 corpus), corpus)
        self.assertEqual({**epoch.to_dict(), "sample_id": "finance-001"}, plain.to_dict())
        with self.assertRaises(AnachronError) as caught:  # no corpus sample, no as_of: refused, never guessed
            parse_traces([("t:3", {**base, "sample_id": "finance-001#epoch0"})], corpus)
        self.assertIn("missing field 'as_of'", str(caught.exception))
