"""Inline items carry their corpus labels, one date per item per run, and the survivorship split."""

import unittest

from anachron.core import AnachronError, load_corpus_dir, parse_traces, score_trace, summarise
from anachron.output.text_table import summary_lines

from tests.corpus_fixtures import corpus, entity, item, trace


def v0_score(returned, as_of="2021-06-01"):
    c = load_corpus_dir()
    record = {"sample_id": "s1", "as_of": as_of, "interactions": [{"tool": "search", "query": "q", "returned": returned}]}
    [t] = parse_traces([("traces.jsonl:1", record)], c)
    return score_trace(t, c)


class InlineCorpusItemTest(unittest.TestCase):
    def test_an_inline_corpus_item_scores_its_restatement_and_entities(self):
        for entry in (
            {"id": "fin-009", "publish_date": "2021-09-17", "entities": [], "restates": None},
            {"url": "fin-009", "published": "2021-09-17"},
            {"id": "fin-009", "title": "Delta restates", "entities": ["DLTP"], "restates": "fin-008"},
        ):
            with self.subTest(entry=entry):
                r = v0_score([entry])
                self.assertEqual((r.result_leaks, r.restatement_leaks, r.survivorship_base), (1, 1, 1))
                self.assertIn("#1 restatement item fin-009 dated 2021-09-17 > 2021-06-01 silently revises fin-008", r.evidence)
        # The same as the bare id.
        self.assertEqual(v0_score([{"id": "fin-009", "restates": None}]), v0_score(["fin-009"]))

    def test_an_inline_entry_contradicting_the_corpus_labels_is_an_error(self):
        with self.assertRaisesRegex(AnachronError, r"^traces.jsonl:1 \(sample s1\) interactions\[0\] returned\[0\]: "
                                    r"field 'restates': item 'fin-009' restates 'fin-008' in the corpus, not 'fin-007'$"):
            v0_score([{"id": "fin-009", "restates": "fin-007"}])
        with self.assertRaisesRegex(AnachronError, "field 'restates': item 'fin-008' restates nothing in the corpus, not 'fin-007'"):
            v0_score([{"id": "fin-008", "restates": "fin-007"}])
        with self.assertRaisesRegex(AnachronError, "field 'entities': item 'fin-009' does not name entity 'CYGN' in the corpus"):
            v0_score([{"id": "fin-009", "entities": ["CYGN"]}])


class OneDatePerItemTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus(items=[item("known", "2022-01-01")])

    def parse(self, *interactions):
        return trace(self.c, list(interactions), sample_id="s9")

    def test_two_dates_for_one_item_in_a_run_is_an_error_naming_both_places(self):
        with self.assertRaises(AnachronError) as caught:
            self.parse(("a", ["known", {"id": "https://x.example/a", "publish_date": "2023-01-02"}]),
                       ("b", []),
                       ("c", [{"id": "https://x.example/a", "publish_date": "2022-05-01"}]))
        self.assertEqual(str(caught.exception),
                         "trace:1 (sample s9): item 'https://x.example/a' is dated 2023-01-02 at interactions[0] returned[1]"
                         " and 2022-05-01 at interactions[2] returned[0]")

    def test_within_one_result_and_against_a_target(self):
        with self.assertRaisesRegex(AnachronError, r"at interactions\[0\] returned\[0\] and 2022-05-02 at interactions\[0\] returned\[1\]$"):
            self.parse(("a", [{"id": "u", "publish_date": "2022-05-01"}, {"id": "u", "publish_date": "2022-05-02"}]))
        with self.assertRaisesRegex(AnachronError, r"and 2022-07-01 at interactions\[1\] target$"):
            self.parse(("a", [{"id": "u", "publish_date": "2022-05-01"}]),
                       {"tool": "fetch", "status": "refused", "target": {"id": "u", "publish_date": "2022-07-01"}})

    def test_agreeing_datings_are_one_item(self):
        t = self.parse(("a", [{"id": "https://x.example/2022/05/a"}]),  # dated by its URL: the month
                       ("b", [{"id": "https://x.example/2022/05/a", "published": "2022-05-09"}]),
                       ("c", [{"id": "https://x.example/2022/05/a", "snippet": "no date here"}]),
                       ("d", [{"id": "u"}]), ("e", [{"id": "u", "publish_date": "2022-05-01"}]))  # undated, then dated
        self.assertEqual(len(t.interactions), 5)
        self.assertEqual(score_trace(t, self.c).result_leaks, 0)

    def test_a_crawl_time_bounds_the_publication_so_it_agrees_with_any_dating_by_then(self):
        page = "https://x.example/a"
        crawled = {"id": page, "crawl_date": "2022-05-20T12:00:00Z"}  # an archive's capture
        # Published, then captured, in either order; two captures of one page; the earliest capture bounds it.
        for interactions in (([{"id": page, "published": "2022-05-10"}], [crawled]), ([crawled], [{"id": page, "published": "2022-05-20"}]),
                             ([crawled], [{"id": page, "crawl_date": "2022-05-28"}], [{"id": page, "published": "2022-05-01"}])):
            with self.subTest(interactions=interactions):
                t = self.parse(*((chr(97 + n), returned) for n, returned in enumerate(interactions)))
                self.assertEqual(score_trace(t, self.c).result_leaks, 0)
        # Published after the page was captured: not one page, a conflict named.
        for interactions in (([{"id": page, "published": "2022-05-21"}], [crawled]), ([crawled], [{"id": page, "published": "2022-05-21"}]),
                             ([{"id": page, "crawl_date": "2022-05-28"}], [crawled], [{"id": page, "published": "2022-05-21"}])):
            with self.subTest(interactions=interactions), self.assertRaisesRegex(AnachronError, "item 'https://x.example/a' is dated"):
                self.parse(*((chr(97 + n), returned) for n, returned in enumerate(interactions)))

    def test_the_same_item_in_two_runs_may_differ(self):
        # One trace file, two runs: each run dates "u" its own way and is scored by its own date.
        records = [(f"traces.jsonl:{n}", {"sample_id": f"s{n}", "as_of": "2022-06-01", "interactions": [
            {"tool": "search", "query": "a", "returned": [{"id": "u", "publish_date": day}]}]})
            for n, day in enumerate(("2022-05-01", "2023-05-01"), start=1)]
        before, after = (score_trace(t, self.c) for t in parse_traces(records, self.c))
        self.assertEqual((before.result_leaks, before.tclr, before.evidence), (0, 0.0, ()))
        self.assertEqual((after.result_leaks, after.tclr), (1, 1.0))
        self.assertEqual(after.evidence, ("#1 result item u dated 2023-05-01 > 2022-06-01",))


class SurvivorshipSplitTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus(
            entities=[entity("LATER", valid_from="2022-06-02"), entity("GONE", valid_to="2022-05-31"),
                      entity("ON_T", valid_from="2022-06-01"), entity("LAST_DAY_T", valid_to="2022-06-01")],
            items=[item("later", "2020-01-01", entities=["LATER"]), item("gone", "2020-01-01", entities=["GONE"]),
                   item("both", "2020-01-01", entities=["GONE", "LATER"]),
                   item("edges", "2020-01-01", entities=["ON_T", "LAST_DAY_T"])],
        )

    def test_the_split_partitions_the_total(self):
        r = score_trace(trace(self.c, [("a", ["later"]), ("b", ["gone"]), ("c", ["both"]), ("d", ["edges"]),
                                       ("e", ["gone", "gone"])]), self.c)
        self.assertEqual((r.survivorship_leaks, r.not_yet_listed, r.already_delisted), (4, 2, 2))
        summary = summarise([r, r])
        self.assertEqual((summary.survivorship_leaks, summary.not_yet_listed, summary.already_delisted), (8, 4, 4))
        self.assertEqual(r.to_dict()["not_yet_listed"], 2)
        lines = summary_lines(summary)
        self.assertEqual(lines[lines.index("survivorship leaks       8") + 1:][:2],
                         ["  not yet listed         4", "  already delisted       4"])

    def test_listed_or_delisted_on_t_is_neither(self):
        r = score_trace(trace(self.c, [("d", ["edges"])]), self.c)
        self.assertEqual((r.survivorship_leaks, r.not_yet_listed, r.already_delisted), (0, 0, 0))

    def test_v0_worked_cases(self):
        # Cygnus as of 2022-06-01: not yet listed; Borealis as of 2020-06-01: already delisted.
        cygnus = v0_score(["fin-005"], as_of="2022-06-01")
        borealis = v0_score(["fin-003"], as_of="2020-06-01")
        self.assertEqual((cygnus.not_yet_listed, cygnus.already_delisted), (1, 0))
        self.assertEqual((borealis.not_yet_listed, borealis.already_delisted), (0, 1))


if __name__ == "__main__":
    unittest.main()
