"""Open-web items in a trace: dated by attribution, the undated band, content leaks, revision
risks and the leak horizon (docs/metrics.md, "Open-web items").  Hand-labelled results shaped as
the Anthropic web search tool, Brave, Tavily and Exa return them, and fetched pages."""

import datetime as dt
import unittest

from anachron.core import score_trace, summarise

from tests.corpus_fixtures import corpus, item, trace

T = dt.date(2022, 6, 1)


def call(*returned, query="cygnus", time=None):
    entry = {"tool": "search", "query": query, "returned": list(returned)}
    if time is not None:
        entry["time"] = time
    return entry


class OpenWebTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus([item("fin-1", "2021-01-01", text="Revenue guidance for FY2024 was raised.")])

    def score(self, *interactions):
        return score_trace(trace(self.c, interactions, as_of=T), self.c)

    def test_each_source_dates_an_item_and_the_evidence_names_it(self):
        r = self.score(
            call({"url": "https://www.reuters.com/x", "title": "Cygnus prices IPO", "page_age": "February 9, 2023"}),  # Anthropic
            call({"url": "https://apnews.com/article/2023/02/09/cygnus-ipo", "title": "IPO"}),  # the URL path
            call({"url": "https://x.example/a", "snippet": "Feb 9, 2023 — Cygnus Robotics priced ..."}),
            call({"url": "https://x.example/b", "text": '<meta property="article:published_time" content="2023-02-09T14:00:00Z">'}),
        )
        self.assertEqual((r.interactions, r.result_leaks, r.tclr), (4, 4, 1.0))
        self.assertEqual(r.evidence, (
            "#1 result item https://www.reuters.com/x dated 2023-02-09 > 2022-06-01 (dated by field 'page_age')",
            "#2 result item https://apnews.com/article/2023/02/09/cygnus-ipo dated 2023-02-09 > 2022-06-01 (dated by url)",
            "#3 result item https://x.example/a dated 2023-02-09 > 2022-06-01 (dated by snippet)",
            "#4 result item https://x.example/b dated 2023-02-09 > 2022-06-01 (dated by html article:published_time)",
        ))

    def test_on_t_does_not_leak_and_an_offset_time_counts_on_its_utc_day(self):
        r = self.score(
            call({"url": "https://x.example/on-t", "published_date": "2022-06-01"}),  # Tavily
            call({"url": "https://x.example/late-evening", "publishedDate": "2022-06-01T22:30:00-05:00"}),  # Exa: 03:30 UTC on June 2
        )
        self.assertEqual(r.result_leaks, 1)
        self.assertIn("#2 result item https://x.example/late-evening dated 2022-06-02 > 2022-06-01", r.evidence[0])

    def test_undated_and_uncertain_items_make_a_band_not_a_silent_zero(self):
        r = self.score(
            call({"url": "https://x.example/none", "title": "No date anywhere"}),
            call({"url": "https://x.example/2022/06/", "title": "June, but which day?"}),  # the month containing T
            call({"url": "https://x.example/ok", "age": "2021-03-02"}),
            call({"url": "https://x.example/bad", "date": "soon"}, {"url": "https://x.example/late", "age": "2023-01-01"}),
        )
        self.assertEqual((r.interactions, r.result_leaks, r.undated), (4, 1, 2))  # #4 leaks, so it is not undated
        d = r.to_dict()
        self.assertEqual((d["tclr"], d["tclr_low"], d["tclr_high"]), (0.25, 0.25, 0.75))
        self.assertEqual(r.evidence[:2], (
            "#1 undated item https://x.example/none (no date found)",
            "#2 uncertain item https://x.example/2022/06/ dated 2022-06 (month, dated by url) contains 2022-06-01",
        ))
        self.assertIn("#4 undated item https://x.example/bad (field 'date': unreadable value 'soon')", r.evidence)
        self.assertEqual(summarise([r]).to_dict()["mean_tclr_high"], 0.75)

    def test_a_date_conflict_across_t_leaks_in_tclr_high(self):
        forged = {"url": "https://x.example/2023/07/15/cygnus-ipo", "published": "2022-01-01"}
        r = self.score(call(forged), call({"url": "https://x.example/ok", "published": "2022-01-01"}))
        self.assertEqual((r.interactions, r.result_leaks, r.date_conflicts, r.undated), (2, 0, 1, 1))
        d = r.to_dict()
        self.assertEqual((d["tclr"], d["tclr_low"], d["tclr_high"]), (0.0, 0.0, 0.5))  # never [0, 0]
        self.assertIn("#1 date conflict: item https://x.example/2023/07/15/cygnus-ipo dated 2022-01-01 by field "
                      "'published' (\"2022-01-01\") but 2023-07-15 by url (\"/2023/07/15\")", r.evidence)
        self.assertEqual(summarise([r]).to_dict()["mean_tclr_high"], 0.5)

    def test_sources_that_agree_about_t_make_no_band(self):
        # Both before T (or both after): no conflict across T, no band.
        before = self.score(call({"url": "https://x.example/2022/03/15/a", "published": "2022-01-01"}))
        after = self.score(call({"url": "https://x.example/2023/07/15/a", "published": "2023-01-01"}))
        self.assertEqual((before.date_conflicts, before.to_dict()["tclr_high"]), (0, 0.0))
        self.assertEqual((after.date_conflicts, after.result_leaks, after.undated), (0, 1, 0))

    def test_a_page_dated_before_t_that_talks_about_after_t_is_a_content_leak(self):
        r = self.score(call({"url": "https://x.example/preview", "age": "2022-05-01", "title": "Outlook",
                             "snippet": "What to expect in Q3 2022 and 2023-07"}), call("fin-1"))
        self.assertEqual((r.content_leaks, r.result_leaks, r.tclr), (2, 0, 0.0))  # reported apart from TCLR
        self.assertEqual(r.evidence, (
            "#1 content of item https://x.example/preview mentions Q3 2022 > 2022-06-01",
            "#1 content of item https://x.example/preview mentions 2023-07 > 2022-06-01",
            "#2 content of item fin-1 mentions FY2024 > 2022-06-01",
        ))

    def test_fetched_html_is_read_as_visible_text(self):
        page = ('<html><head><script>var built = "2024-07-01";</script><style>.x{}</style></head>'
                '<body><!-- draft for 2025 --><p title="2026">Results for Q3 2022 are due.</p><!-- never closed 2027')
        r = self.score(call({"url": "https://x.example/p", "age": "2022-05-01", "text": page}))
        self.assertEqual(r.evidence, ("#1 content of item https://x.example/p mentions Q3 2022 > 2022-06-01",))

    def test_a_page_modified_after_t_is_a_revision_risk(self):
        r = self.score(
            call({"url": "https://x.example/r", "datePublished": "2021-03-02", "dateModified": "2023-05-01"}),
            call({"url": "https://x.example/s", "datePublished": "2021-03-02", "dateModified": "2022-06-01"}),  # on T: no risk
        )
        self.assertEqual((r.revision_risks, r.result_leaks), (1, 0))
        self.assertEqual(r.evidence, ("#1 item https://x.example/r published 2021-03-02 but modified 2023-05-01 > 2022-06-01",))

    def test_a_relative_age_is_resolved_against_the_call_time_or_stays_undated(self):
        timed = self.score(call({"url": "https://x.example/a", "page_age": "3 days ago"}, time="2022-06-05T10:00:00Z"))
        self.assertEqual((timed.result_leaks, timed.horizons), (1, (1,)))  # June 2: one day after T
        untimed = self.score(call({"url": "https://x.example/a", "page_age": "3 days ago"}))
        self.assertEqual((untimed.result_leaks, untimed.undated), (0, 1))

    def test_the_leak_horizon(self):
        r = self.score(call({"url": "a", "age": "2022-06-02"}, {"url": "b", "age": "2022-07-01"}),
                       call({"url": "c", "age": "2024-06-01"}))
        self.assertEqual((r.horizons, r.horizon_days), ((1, 30, 731), 731))
        h = summarise([r]).to_dict()["horizon_days"]
        self.assertEqual(h, {"median": 30, "max": 731, "within_7": 1, "within_31": 2, "within_366": 2, "beyond": 1})
        self.assertEqual(summarise([]).to_dict()["horizon_days"]["max"], None)


if __name__ == "__main__":
    unittest.main()
