"""The dated facts: consistent with the v0 corpus, and the bank rebuilt from them byte for byte."""

import copy
import datetime as dt
import json
import unittest

from anachron.core import default_corpus_dir, load_corpus_dir
from anachron.bank import build_bank, load_bank, load_facts, manifest
from anachron.bank.judging import candidates
from anachron.bank.values import matches
from anachron.core.jsonio import dump_json
from anachron.core.errors import AnachronError

CORPUS_DIR = default_corpus_dir()


def fact_dicts():
    return [obj for _, obj in load_facts()]


def build(facts):
    return build_bank([(f"f:{n}", f) for n, f in enumerate(facts, start=1)], load_corpus_dir())


class ReproducibleTest(unittest.TestCase):
    def test_the_committed_bank_and_manifest_are_rebuilt_byte_for_byte(self):
        bank = build_bank(load_facts(), load_corpus_dir())
        self.assertEqual(bank.canonical.encode("utf-8"), (CORPUS_DIR / "bank.jsonl").read_bytes())
        self.assertEqual(dump_json(manifest(bank)), (CORPUS_DIR / "bank.manifest.json").read_text(encoding="utf-8"))

    def test_fact_order_does_not_matter(self):
        self.assertEqual(build(list(reversed(fact_dicts()))).version, load_bank().version)


class CorpusConsistencyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.corpus = load_corpus_dir()
        cls.facts = fact_dicts()
        cls.by_id = {f["id"]: f for f in cls.facts}

    def test_sourced_figures_are_stated_by_their_item_on_their_day(self):
        sourced = [f for f in self.facts if f.get("source") and f["unit"] != "status"]
        self.assertGreaterEqual(len(sourced), 13)
        for fact in sourced:
            with self.subTest(fact=fact["id"]):
                item = self.corpus.items[fact["source"]]
                self.assertEqual(item.publish_date.isoformat(), fact["published"])
                self.assertIn(self.corpus.entities[fact["instrument"]].name, item.title + " " + item.text)
                stated = candidates(item.text, fact["unit"])
                self.assertTrue(any(matches(c, fact["value"], fact["unit"]) for c in stated), (item.text, stated))

    def test_the_corpus_restatements_are_fact_revisions(self):
        restatements = {i.id: i.restates for i in self.corpus.items.values() if i.restates}
        revised_sources = {}
        for fact in self.facts:
            if fact["revises"] and fact.get("source"):
                revised_sources[fact["source"]] = self.by_id[fact["revises"]].get("source")
        self.assertEqual(revised_sources, restatements)
        # The figures named in the issue.
        dltp = [f for f in self.facts if f["instrument"] == "DLTP" and f["period"] == "2020-Q4"]
        self.assertEqual([(f["value"], f["published"]) for f in dltp], [("412000000", "2021-02-04"), ("377000000", "2021-09-17")])

    def test_listing_facts_follow_the_entity_windows(self):
        for entity in self.corpus.entities.values():
            with self.subTest(entity=entity.id):
                listing = [f for f in self.facts if f["instrument"] == entity.id and f["field"] == "listing_status"]
                expected = [("listed", entity.valid_from.isoformat())]
                if entity.valid_to is not None:
                    expected.append(("delisted", (entity.valid_to + dt.timedelta(days=1)).isoformat()))
                self.assertEqual([(f["value"], f["published"]) for f in listing], expected)

    def test_listing_answers_agree_with_point_in_time_validity(self):
        items = [i for i in load_bank().items.values() if i.field == "listing_status"]
        self.assertEqual(len(items), 2 * len(self.corpus.entities) + 2 * sum(e.valid_to is not None for e in self.corpus.entities.values()))
        for i in items:
            entity = self.corpus.entities[i.instrument]
            expected = "listed" if entity.valid_at(i.as_of) else ("not listed" if i.as_of < entity.valid_from else "delisted")
            self.assertEqual(i.answer, expected, i.id)

    def test_every_release_has_a_question_on_each_side(self):
        bank = load_bank()
        days = {}
        for i in bank.items.values():
            days.setdefault((i.instrument, i.field, i.period), []).append(i.as_of)
        for fact in self.facts:
            published = dt.date.fromisoformat(fact["published"])
            asked = days[(fact["instrument"], fact["field"], fact["period"])]
            with self.subTest(fact=fact["id"]):
                self.assertTrue(any(d < published for d in asked))
                self.assertTrue(any(d >= published for d in asked))

    def test_revision_items_exist_where_the_revised_figure_is_a_leak(self):
        bank = load_bank()
        item = bank.items["dltp-revenue-2020q4-2021-09-16"]
        self.assertFalse(item.embargoed)
        self.assertEqual(item.answer, "412000000")
        self.assertEqual(item.later_values(), (("377000000", dt.date(2021, 9, 17)),))
        self.assertGreaterEqual(manifest(bank)["revision_items"], 8)


class BuilderErrorTest(unittest.TestCase):
    def assertBuildError(self, facts, *parts):
        with self.assertRaises(AnachronError) as caught:
            build(facts)
        for part in parts:
            self.assertIn(part, str(caught.exception))

    def changed(self, fact_id, **change):
        facts = copy.deepcopy(fact_dicts())
        for f in facts:
            if f["id"] == fact_id:
                f.update(change)
        return facts

    def test_bad_facts_are_rejected_naming_the_line_and_fact(self):
        first = fact_dicts()[0]["id"]  # dltp-revenue-2020q4-r0, line 1
        restated = fact_dicts()[1]["id"]  # its restatement, line 2
        cases = [
            (self.changed(first, instrument="NOPE"), "f:1 (fact 'dltp-revenue-2020q4-r0')", "unknown entity id 'NOPE'"),
            (self.changed(first, unit="EUR"), "f:1", "field 'unit'"),
            (self.changed(first, unit="percent"), "f:2", "'revenue' is 'percent'"),
            (self.changed(first, value="412M"), "f:1", "field 'value'"),
            (self.changed(first, period="2020Q4"), "f:1", "field 'period'"),
            (self.changed(first, published="2021-02-30"), "f:1", "not a real calendar day"),
            (self.changed(first, source="fin-009"), "f:1", "item 'fin-009' is dated 2021-09-17"),
            (self.changed(first, source="nope"), "f:1", "unknown item id 'nope'"),
            (self.changed(first, field="listing_status"), "f:1", "the unit 'status'"),
            (self.changed(restated, revises="nope"), "f:2", "unknown fact id 'nope'"),
            (self.changed(restated, revises=None), "needs exactly one first release"),
            (self.changed(restated, published="2021-01-01", source=None), "f:2", "not before 2021-01-01"),
            (self.changed(restated, value="412000000"), "f:2", "already has the value"),
            (self.changed(restated, value="413000000"), "f:2", "within tolerance"),
            (self.changed(restated, revises="hlcf-revenue-fy2019-r0"), "f:2", "another instrument, field or period"),
        ]
        for facts, *parts in cases:
            with self.subTest(parts=parts):
                self.assertBuildError(facts, *parts)

    def test_a_fact_revised_twice_and_duplicates(self):
        facts = fact_dicts()
        branch = dict(facts[1], id="dltp-revenue-2020q4-branch", value="300000000", source=None, published="2021-10-01")
        self.assertBuildError(facts + [branch], "already revised by 'dltp-revenue-2020q4-r1'")
        self.assertBuildError(facts + [facts[0]], "duplicate fact id 'dltp-revenue-2020q4-r0'")
        missing = [{k: v for k, v in f.items() if k != "revises"} for f in facts]
        self.assertBuildError(missing, "f:1", "missing field 'revises'")

    def test_facts_without_a_source_are_fine(self):
        facts = [{k: v for k, v in f.items() if k != "source"} for f in fact_dicts()]
        bank = build(facts)
        self.assertEqual(bank.version, load_bank().version)  # sources shape no question
        self.assertEqual(json.loads(bank.canonical.splitlines()[0])["id"], next(iter(bank.items)))


if __name__ == "__main__":
    unittest.main()
