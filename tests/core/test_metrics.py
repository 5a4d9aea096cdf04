"""The leakage metrics: every boundary rule, through the public core API."""

import unittest
from fractions import Fraction

from anachron.core import AnachronError, score_trace, summarise

from tests.corpus_fixtures import corpus, entity, item, trace


class ResultLeakTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus(
            items=[item("before", "2022-05-31"), item("on", "2022-06-01"), item("after", "2022-06-02")],
        )

    def score(self, *interactions):
        return score_trace(trace(self.c, interactions), self.c)

    def test_publish_date_equal_to_t_does_not_leak(self):
        r = self.score(("q", ["on"]))
        self.assertEqual((r.tclr, r.result_leaks, r.evidence), (0.0, 0, ()))

    def test_publish_date_one_day_after_t_leaks(self):
        r = self.score(("q", ["after"]))
        self.assertEqual(r.tclr, 1.0)
        self.assertEqual(r.evidence, ("#1 result item after dated 2022-06-02 > 2022-06-01",))

    def test_tclr_counts_interactions_not_items(self):
        r = self.score(("a", ["after", "before"]), ("b", ["before"]), ("c", ["on"]))
        self.assertEqual(r.interactions, 3)
        self.assertEqual(r.result_leaks, 1)
        self.assertEqual(r.tclr, 1 / 3)
        self.assertEqual(r.tclr, 1 / 3)

    def test_the_same_item_twice_in_one_result_is_one_finding(self):
        r = self.score(("q", ["after", "after"]))
        self.assertEqual(r.evidence, ("#1 result item after dated 2022-06-02 > 2022-06-01",))

    def test_no_interactions_is_zero_with_zero_interactions(self):
        r = score_trace(trace(self.c, []), self.c)
        self.assertEqual((r.tclr, r.interactions, r.survivorship_rate), (0.0, 0, None))

    def test_an_empty_result_is_an_interaction_that_does_not_leak(self):
        r = self.score(("nothing found", []), ("q", ["after"]))
        self.assertEqual((r.interactions, r.tclr), (2, 0.5))

    def test_inline_item_outside_the_corpus_is_dated_from_its_fields(self):
        r = self.score(("q", [{"id": "https://example.org/x", "publish_date": "2022-06-05"}]))
        self.assertEqual(r.evidence, ("#1 result item https://example.org/x dated 2022-06-05 > 2022-06-01",))


class SurvivorshipTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus(
            entities=[
                entity("LIST_ON_T", valid_from="2022-06-01"),
                entity("LIST_AFTER", valid_from="2022-06-02"),
                entity("DELIST_ON_T", valid_from="2000-01-01", valid_to="2022-06-01"),
                entity("DELIST_BEFORE", valid_to="2022-05-31"),
                entity("OPEN"),
            ],
            items=[
                item("a", "2020-01-01", entities=["LIST_ON_T"]),
                item("b", "2020-01-01", entities=["LIST_AFTER"]),
                item("c", "2020-01-01", entities=["DELIST_ON_T"]),
                item("d", "2020-01-01", entities=["DELIST_BEFORE"]),
                item("e", "2020-01-01", entities=["OPEN"]),
                item("plain", "2020-01-01"),
                item("two", "2020-01-01", entities=["LIST_AFTER", "DELIST_BEFORE"]),
            ],
        )

    def score(self, *interactions):
        return score_trace(trace(self.c, interactions), self.c)

    def test_entity_listed_exactly_on_t_is_valid(self):
        self.assertEqual(self.score(("q", ["a"])).survivorship_leaks, 0)

    def test_entity_listed_after_t_is_not_yet_valid(self):
        r = self.score(("q", ["b"]))
        self.assertEqual(r.survivorship_leaks, 1)
        self.assertEqual(r.evidence, ("#1 entity 'LIST_AFTER' (item b) not yet valid at 2022-06-01 (valid_from 2022-06-02)",))

    def test_entity_delisted_exactly_on_t_is_valid(self):
        self.assertEqual(self.score(("q", ["c"])).survivorship_leaks, 0)

    def test_entity_delisted_before_t_is_no_longer_valid(self):
        r = self.score(("q", ["d"]))
        self.assertEqual(r.evidence, ("#1 entity 'DELIST_BEFORE' (item d) no longer valid at 2022-06-01 (valid_to 2022-05-31)",))

    def test_open_bounds_are_always_valid(self):
        self.assertEqual(self.score(("q", ["e"])).survivorship_leaks, 0)

    def test_rate_is_over_interactions_with_entity_bearing_items(self):
        r = self.score(("q1", ["b"]), ("q2", ["e"]), ("q3", ["plain"]), ("q4", []))
        self.assertEqual((r.survivorship_leaks, r.survivorship_rate), (1, 0.5))

    def test_rate_is_null_without_entity_bearing_items(self):
        r = self.score(("q", ["plain"]))
        self.assertIsNone(r.survivorship_rate)
        self.assertIsNone(r.to_dict()["survivorship_rate"])

    def test_one_interaction_with_two_invalid_entities_counts_once_with_two_lines(self):
        r = self.score(("q", ["two"]))
        self.assertEqual(r.survivorship_leaks, 1)
        self.assertEqual(len(r.evidence), 2)

    def test_survivorship_is_independent_of_the_date_leak(self):
        r = self.score(("q", ["d"]))
        self.assertEqual((r.tclr, r.survivorship_leaks), (0.0, 1))


class RestatementTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus(
            items=[
                item("orig", "2021-01-01"),
                item("restated_before", "2022-05-01", restates="orig"),
                item("restated_on", "2022-06-01", restates="orig"),
                item("restated_after", "2022-09-01", restates="orig"),
            ]
        )

    def score(self, *ids):
        return score_trace(trace(self.c, [("q", list(ids))]), self.c)

    def test_restatement_published_before_or_on_t_is_the_correct_record(self):
        r = self.score("orig", "restated_before", "restated_on")
        self.assertEqual((r.restatement_leaks, r.result_leaks, r.evidence), (0, 0, ()))

    def test_restatement_after_t_is_a_labelled_result_leak(self):
        r = self.score("orig", "restated_after")
        self.assertEqual((r.result_leaks, r.restatement_leaks), (1, 1))
        self.assertEqual(
            r.evidence,
            (
                "#1 result item restated_after dated 2022-09-01 > 2022-06-01",
                "#1 restatement item restated_after dated 2022-09-01 > 2022-06-01 silently revises orig",
            ),
        )


class QueryIntentTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus(items=[item("x", "2020-01-01")])

    def test_query_intent_is_reported_apart_from_tclr(self):
        r = score_trace(trace(self.c, [("cygnus q3 2023 results", ["x"]), ("cygnus 2022", [])]), self.c)
        self.assertEqual((r.query_intent_leaks, r.tclr), (1, 0.0))
        self.assertEqual(r.evidence, ("#1 query 'cygnus q3 2023 results' reaches for 2023-07-01 > 2022-06-01",))

    def test_query_evidence_stays_on_one_line(self):
        r = score_trace(trace(self.c, [("results\n2023", [])]), self.c)
        self.assertEqual(r.evidence, ("#1 query 'results 2023' reaches for 2023-01-01 > 2022-06-01",))

    def test_interaction_without_query_has_no_intent(self):
        c = self.c
        from anachron.core import parse_traces

        t = parse_traces([("t", {"sample_id": "s", "as_of": "2022-06-01", "interactions": [{"tool": "fetch", "returned": ["x"]}]})], c)[0]
        self.assertEqual(score_trace(t, c).query_intent_leaks, 0)


class SummaryTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus(items=[item("old", "2020-01-01"), item("new", "2023-01-01")])

    def results(self):
        rows = [
            [("a", ["new"]), ("b", ["old"]), ("c", ["old"])],  # 1/3
            [("a", ["new"]), ("b", ["old"]), ("c", ["old"])],  # 1/3
            [("a", ["new"]), ("b", ["old"]), ("c", ["old"])],  # 1/3
            [],  # no tool use
        ]
        return [score_trace(trace(self.c, r, sample_id=f"s{i}"), self.c) for i, r in enumerate(rows)]

    def test_means_are_exact(self):
        s = summarise(self.results())
        # Three thirds and a zero: exactly 0.25, not 0.24999999999999997.
        self.assertEqual(s.mean_tclr, 0.25)
        self.assertEqual(s.tool_using_mean_tclr, float(Fraction(1, 3)))

    def test_counts(self):
        s = summarise(self.results())
        self.assertEqual((s.n, s.date_leak_runs, s.tool_using_runs, s.result_leaks), (4, 3, 3, 3))

    def test_empty_run_has_no_mean(self):
        s = summarise([])
        self.assertEqual((s.n, s.mean_tclr, s.tool_using_mean_tclr), (0, None, None))

    def test_no_tool_use_has_no_tool_using_mean(self):
        s = summarise(self.results()[3:])
        self.assertEqual((s.mean_tclr, s.tool_using_runs, s.tool_using_mean_tclr), (0.0, 0, None))


class TraceValidationTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus(
            entities=[entity("E")],
            items=[item("x", "2020-01-01")],
            samples=[{"id": "known", "slice": "finance", "as_of": "2022-06-01", "input": "q"}],
        )

    def parse(self, record):
        from anachron.core import parse_traces

        return parse_traces([("t.jsonl:7", record)], self.c)

    def assertRejected(self, record, *fragments):
        with self.assertRaises(AnachronError) as cm:
            self.parse(record)
        message = str(cm.exception)
        self.assertTrue(message.startswith("t.jsonl:7"), message)
        for fragment in fragments:
            self.assertIn(fragment, message)
        self.assertNotIn("\n", message)

    def base(self, **changes):
        record = {"sample_id": "s", "as_of": "2022-06-01", "interactions": []}
        record.update(changes)
        return record

    def test_unknown_id_is_an_error_never_a_silent_non_leak(self):
        self.assertRejected(self.base(interactions=[{"tool": "search", "returned": ["ghost"]}]), "ghost", "sample s")

    def test_answer_and_citations_are_kept(self):
        (t,) = self.parse(self.base(answer="Revenue was $412M.", citations=["https://example.com/a", "x"]))
        self.assertEqual(t.answer, "Revenue was $412M.")
        self.assertEqual(t.citations, ("https://example.com/a", "x"))
        (t,) = self.parse(self.base())
        self.assertIsNone(t.answer)
        self.assertEqual(t.citations, ())

    def test_bad_answer_and_citations(self):
        self.assertRejected(self.base(answer=412), "answer", "expected a string")
        self.assertRejected(self.base(citations="https://example.com"), "citations")
        self.assertRejected(self.base(citations=["ok", ""]), "citations")
        self.assertRejected(self.base(citations=[3]), "citations")

    def test_as_of_comes_from_the_corpus_sample(self):
        (t,) = self.parse({"sample_id": "known", "interactions": []})
        self.assertEqual(t.as_of.isoformat(), "2022-06-01")

    def test_as_of_required_outside_the_corpus(self):
        self.assertRejected({"sample_id": "s", "interactions": []}, "as_of")

    def test_as_of_disagreeing_with_the_corpus(self):
        self.assertRejected({"sample_id": "known", "as_of": "2022-06-02", "interactions": []}, "disagrees")

    def test_bad_dates(self):
        self.assertRejected(self.base(as_of="2021-02-30"), "as_of", "not a real calendar day")
        self.assertRejected(self.base(as_of="2021-2-3"), "as_of")
        # An open-web item's unreadable date makes it undated, never an error (and never a silent non-leak).
        bad_inline = {"id": "y", "publish_date": "someday"}
        [t] = self.parse(self.base(interactions=[{"tool": "s", "returned": [bad_inline]}]))
        r = score_trace(t, self.c)
        self.assertEqual((r.undated, r.evidence), (1, ("#1 undated item y (field 'publish_date': unreadable value 'someday')",)))
        # A corpus item's date is the corpus's: one that disagrees, in any format, is an error.
        for entry in ({"id": "x", "page_age": "January 1, 2019"}, {"id": "x", "date": "junk"}):
            self.assertRejected(self.base(interactions=[{"tool": "s", "returned": [entry]}]), "dated 2020-01-01 in the corpus")

    def test_inline_entries_need_an_id_and_without_a_date_are_undated(self):
        [t] = self.parse(self.base(interactions=[{"tool": "s", "returned": [{"id": "y"}]}]))
        r = score_trace(t, self.c)
        self.assertEqual((r.interactions, r.result_leaks, r.undated, r.tclr, r.to_dict()["tclr_high"]), (1, 0, 1, 0.0, 1.0))
        self.assertEqual(r.evidence, ("#1 undated item y (no date found)",))
        self.assertRejected(self.base(interactions=[{"tool": "s", "returned": [{"publish_date": "2020-01-01"}]}]), "'id'")

    def test_inline_entity_must_be_known(self):
        entry = {"id": "y", "publish_date": "2020-01-01", "entities": ["NOPE"]}
        self.assertRejected(self.base(interactions=[{"tool": "s", "returned": [entry]}]), "NOPE")

    def test_inline_entry_cannot_contradict_the_corpus(self):
        entry = {"id": "x", "publish_date": "2019-01-01"}
        self.assertRejected(self.base(interactions=[{"tool": "s", "returned": [entry]}]), "dated 2020-01-01")

    def test_shapes(self):
        self.assertRejected({"as_of": "2022-06-01", "interactions": []}, "sample_id")
        self.assertRejected(self.base(interactions={}), "interactions")
        self.assertRejected({"sample_id": "s", "as_of": "2022-06-01"}, "interactions")
        self.assertRejected(self.base(interactions=["search"]), "interaction")
        self.assertRejected(self.base(interactions=[{"returned": []}]), "tool")
        self.assertRejected(self.base(interactions=[{"tool": "s", "returned": "x"}]), "returned")
        self.assertRejected(self.base(interactions=[{"tool": "s", "returned": [3]}]), "returned[0]")
        self.assertRejected(self.base(interactions=[{"tool": "s", "query": 3}]), "query")
        self.assertRejected(self.base(mode=""), "mode")

    def test_duplicate_sample_ids(self):
        from anachron.core import parse_traces

        record = self.base()
        with self.assertRaisesRegex(AnachronError, r"^t:2 \(sample s\): duplicate sample_id \(first at t:1\)$"):
            parse_traces([("t:1", record), ("t:2", record)], self.c)

    def test_extra_fields_are_kept(self):
        (t,) = self.parse(self.base(notes="by hand"))
        self.assertEqual(t.extra["notes"], "by hand")

if __name__ == "__main__":
    unittest.main()
