"""The interaction rule: which calls count, failed calls by status, blocked attempts, and
query intent on every call (docs/metrics.md, "Calls and their status")."""

import unittest

from anachron.core import AnachronError, score_trace, summarise

from tests.corpus_fixtures import corpus, entity, item, trace


class InteractionRuleTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus(
            items=[item("before", "2022-05-31"), item("on", "2022-06-01"), item("after", "2022-06-02", entities=["LATE"]),
                   item("restated", "2022-07-01", restates="before")],
            entities=[entity("LATE", valid_from="2022-06-02")],
        )

    def score(self, *interactions):
        return score_trace(trace(self.c, interactions), self.c)

    def test_only_ok_calls_are_interactions(self):
        r = self.score(
            ("leaky", ["after"]),
            {"tool": "search", "query": "x", "status": "refused"},
            {"tool": "search", "query": "y", "status": "exhausted"},
            {"tool": "fetch", "status": "error"},
        )
        self.assertEqual((r.interactions, r.result_leaks, r.tclr), (1, 1, 1.0))  # not 1/4
        self.assertEqual(r.failed_calls, {"refused": 1, "exhausted": 1, "error": 1})
        self.assertEqual(r.calls, 4)

    def test_status_defaults_to_ok_so_old_traces_keep_their_meaning(self):
        explicit = self.score({"tool": "search", "query": "q", "status": "ok", "returned": ["after"]})
        implicit = self.score(("q", ["after"]))
        self.assertEqual(explicit, implicit)

    def test_an_ok_call_with_zero_items_is_an_interaction(self):
        r = self.score({"tool": "search", "query": "q", "status": "ok", "returned": []})
        self.assertEqual((r.interactions, r.tclr, sum(r.failed_calls.values())), (1, 0.0, 0))

    def test_a_run_of_failed_calls_only_is_not_tool_using(self):
        r = self.score({"tool": "search", "query": "q", "status": "refused"})
        summary = summarise([r])
        self.assertEqual((r.interactions, summary.tool_using_runs, summary.tool_using_mean_tclr), (0, 0, None))
        self.assertEqual(summary.failed_calls, {"refused": 1, "exhausted": 0, "error": 0})

    def test_a_refused_fetch_of_a_post_t_item_is_a_blocked_attempt(self):
        r = self.score({"tool": "fetch", "status": "refused", "target": "after"})
        self.assertEqual((r.blocked_attempts, r.interactions, r.tclr, r.survivorship_leaks), (1, 0, 0.0, 0))
        self.assertEqual(r.evidence, ("#1 blocked fetch of after dated 2022-06-02 > 2022-06-01",))

    def test_a_target_dated_on_t_or_unknown_is_no_blocked_attempt(self):
        r = self.score(
            {"tool": "fetch", "status": "refused", "target": "on"},
            {"tool": "fetch", "status": "refused", "target": "not-in-the-corpus"},
            {"tool": "fetch", "status": "refused", "target": None},
        )
        self.assertEqual((r.blocked_attempts, r.evidence), (0, ()))
        self.assertEqual(r.failed_calls["refused"], 3)

    def test_an_undated_target_is_no_blocked_attempt(self):
        r = self.score({"tool": "fetch", "status": "refused", "target": {"id": "https://x.example/no-date"}})
        self.assertEqual((r.blocked_attempts, r.evidence), (0, ()))

    def test_only_refused_calls_can_be_blocked(self):
        r = self.score(
            {"tool": "fetch", "status": "exhausted", "target": "after"},
            {"tool": "fetch", "status": "error", "target": "after"},
        )
        self.assertEqual(r.blocked_attempts, 0)

    def test_an_inline_target_is_dated_from_its_fields(self):
        r = self.score({"tool": "fetch", "status": "refused", "target": {"id": "https://x.example/a", "publish_date": "2022-06-02"}})
        self.assertEqual(r.evidence, ("#1 blocked fetch of https://x.example/a dated 2022-06-02 > 2022-06-01",))

    def test_query_intent_is_judged_whatever_the_status(self):
        r = self.score(
            {"tool": "search", "query": "results Q3 2022", "status": "refused"},
            {"tool": "search", "query": "FY2024 outlook", "status": "exhausted"},
            {"tool": "search", "query": "2022-06-01 filings", "status": "error"},  # the day itself does not leak
        )
        self.assertEqual(r.query_intent_leaks, 2)
        self.assertEqual(r.evidence, ("#1 query 'results Q3 2022' reaches for 2022-07-01 > 2022-06-01",
                                      "#2 query 'FY2024 outlook' reaches for 2023-01-26 > 2022-06-01"))

    def test_bad_statuses_and_targets_are_errors_naming_the_interaction(self):
        cases = [
            ({"tool": "search", "status": "rejected"}, "field 'status': the string 'rejected' is not one of ok, refused"),
            ({"tool": "search", "status": None}, "field 'status'"),
            ({"tool": "search", "status": "refused", "returned": ["before"]}, "a call with status 'refused' returned nothing"),
            ({"tool": "fetch", "status": "refused", "target": 5}, "a target must be an id, an object or null"),
            ({"tool": "fetch", "status": "refused", "target": {"title": "no id"}}, "needs an 'id' or a 'url'"),
        ]
        for interaction, message in cases:
            with self.subTest(interaction=interaction), self.assertRaises(AnachronError) as ctx:
                self.score(interaction)
            self.assertIn("interactions[0]", str(ctx.exception))
            self.assertIn(message, str(ctx.exception))

    def test_the_score_document_carries_the_new_counts(self):
        r = self.score(("q", ["before"]), {"tool": "fetch", "status": "refused", "target": "restated"})
        d = r.to_dict()
        self.assertEqual((d["blocked_attempts"], d["failed_calls"]), (1, {"refused": 1, "exhausted": 0, "error": 0}))
        self.assertEqual(summarise([r]).to_dict()["blocked_attempts"], 1)


if __name__ == "__main__":
    unittest.main()
