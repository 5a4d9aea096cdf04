"""Query intent v2: the forms added, numbers that are not periods, anchored phrases, fiscal calendars, open periods."""

import datetime as dt
import unittest

from anachron.core import AnachronError, date_references, future_references, query_findings, score_trace, summarise
from anachron.core.query_intent import parse_fiscal_year_end
from anachron.core.scores import METRICS
from anachron.core.leakage import read_sample
from tests.support import score_table

from tests.corpus_fixtures import corpus, entity, item, trace

T = dt.date(2022, 6, 15)
D = dt.date.fromisoformat
END = dt.date.max


def periods(text, as_of=T, fiscal=None):
    return [(r.begins.isoformat(), r.ends.isoformat()) for r in date_references(text, as_of, fiscal_year_end=fiscal)]


def found(query, as_of=T, fiscal=None):
    intent = query_findings(query, as_of, fiscal_year_end=fiscal)
    return ([(r.begins, r.ends) for r in intent.future], [(r.begins, r.ends) for r in intent.open_periods])


class WrittenFormsTest(unittest.TestCase):
    CASES = {
        # text: [(begins, ends)]
        "fed 2023-07-14T00:00:00Z": [("2023-07-14", "2023-07-14")],
        "2023-07-14T13:30:00.000Z": [("2023-07-14", "2023-07-14")],
        "2023-07-14 08:30": [("2023-07-14", "2023-07-14")],
        "2023-07-14T23:30:00-05:00": [("2023-07-15", "2023-07-15")],  # its UTC day
        "2023-07-14T03:00:00+09:00": [("2023-07-13", "2023-07-13")],
        "premier league 2011/12": [("2011-07-01", "2012-06-30")],
        "2023-24 winter": [("2023-07-01", "2024-06-30")],
        "2020-2021 season": [("2020-07-01", "2021-06-30")],
        "FY2023/24 budget": [("2023-04-01", "2024-06-30")],  # a fiscal split year, no calendar: grammar.fiscal
        "1999/00 season": [("1999-07-01", "2000-06-30")],
        "2011-12": [("2011-12-01", "2011-12-31")],  # a year and month, not a season, without a season word
        "2023/07": [("2023-07-01", "2023-07-31")],
        "2023-2024": [("2023-01-01", "2023-12-31"), ("2024-01-01", "2024-12-31")],
        "Q4 \u201923": [("2023-10-01", "2023-12-31")],
        "FY\u201924": [("2023-01-26", "2024-12-31")],  # no calendar: the uncertain span
        "Q3\u201823 margins": [("2023-07-01", "2023-09-30")],
        "CY2024": [("2024-01-01", "2024-12-31")],
        "cy 24": [("2024-01-01", "2024-12-31")],
        "calendar year 2024": [("2024-01-01", "2024-12-31")],
        "third quarter 2023": [("2023-07-01", "2023-09-30")],
        "fourth-quarter of 2023": [("2023-10-01", "2023-12-31")],
        "2H 2023": [("2023-07-01", "2023-12-31")],
        "H1 2024": [("2024-01-01", "2024-06-30")],
        "first half of 2024": [("2024-01-01", "2024-06-30")],
        "Dec. 2022": [("2022-12-01", "2022-12-31")],
        "Sept 2023": [("2023-09-01", "2023-09-30")],
        "june quarter 2022": [("2022-04-01", "2022-06-30")],
        "Jan-Mar 2024 sales": [("2024-01-01", "2024-03-31")],
        "nov\u2013feb 2024": [("2023-11-01", "2024-02-29")],
        "10/2023 statement": [("2023-10-01", "2023-10-31")],
        "13/2023": [("2023-01-01", "2023-12-31")],  # no month 13: only the year
        "week of Jan 3 2022": [("2022-01-03", "2022-01-09")],
        "week ending june 17 2022": [("2022-06-11", "2022-06-17")],
        "end of 2023": [("2023-12-31", "2023-12-31")],
        "by the end of Q3 2023": [("2023-09-30", "2023-09-30")],
        "year-end 2022": [("2022-12-31", "2022-12-31")],
        "early 2024": [("2024-01-01", "2024-05-01")],  # 2024 has 366 days: thirds of 122
        "mid-2023": [("2023-05-02", "2023-09-01")],
        "late 2023": [("2023-09-02", "2023-12-31")],
        "after:2023-01-01": [("2023-01-02", END.isoformat())],
        "since:2023-01-01": [("2023-01-01", END.isoformat())],
        "after 2022-06-30": [("2022-07-01", END.isoformat())],
        "before:2023-01-01": [],
        "until:2023-01-01": [],
        "07/14/2023": [("2023-07-14", "2023-07-14")],  # only one reading is a real day ...
        "14/07/2023": [("2023-07-14", "2023-07-14")],  # ... whichever order it is in
        "03/04/2023": [("2023-03-04", "2023-03-04"), ("2023-04-03", "2023-04-03")],  # both real: both, month first first
        "03-04-2023": [("2023-03-04", "2023-03-04"), ("2023-04-03", "2023-04-03")],
        "after:03/04/2023": [("2023-03-05", END.isoformat()), ("2023-04-04", END.isoformat())],  # a prefix applies to each
        "before:03/04/2023": [],
        "14.07.2023": [("2023-07-14", "2023-07-14")],  # dots: day first
        "03.04.2023": [("2023-04-03", "2023-04-03")],
        "7/28/23": [("2023-07-28", "2023-07-28")],
    }

    def test_each_form(self):
        for text, expected in self.CASES.items():
            with self.subTest(text=text):
                self.assertEqual(periods(text), expected)

    def test_a_two_digit_year_takes_the_century_nearest_t(self):
        for text, as_of, year in (
            ("Q3'99", T, 1999), ("3Q98", T, 1998), ("FY99", D("2010-05-01"), 1999), ("FY30", T, 2030),
            ("FY42", T, 2042), ("FY43", T, 1943), ("FY01", D("1998-01-01"), 2001), ("H2'05", D("1990-06-01"), 2005),
        ):
            with self.subTest(text=text, as_of=as_of):
                # the year a period ends in: a fiscal year of no known calendar may begin the year before
                self.assertEqual([r.ends.year for r in date_references(text, as_of)], [year])

    def test_without_t_two_digit_years_are_20yy(self):
        self.assertEqual([r.begins.year for r in date_references("Q3'99")], [2099])

    def test_impossible_numeric_dates_name_nothing(self):
        for text in ("02/30/2023", "31.02.2023", "13/13/2023", "2023-02-29T00:00:00Z"):
            with self.subTest(text=text):
                self.assertEqual(periods(text), [])


class NotPeriodsTest(unittest.TestCase):
    def test_numbers_that_name_no_period(self):
        for text in (
            "RSA-2048 factoring", "AES-256 and SHA-2048", "office 2019 support", "windows server 2022 license",
            "Russell 2000 index", "rtx 2080 benchmark", "vision 2030 plan", "pipeline 2050 km", "2050 miles",
            "gold 2050 usd", "2080 MW farm", "call 555-2025", "+1 (212) 555-2048", "212 555 2025",
            "2020 main st", "2025 market street", "office at 2030 broadway", "2099 lake shore dr",
            "2020.HK", "anta 2020.HK share price", "7203.T", "2330.TW", "HKEX:2015", "hkex: 2015 shares",
            "2015 HK Equity", "$2025 target", "2025% gain", "#2024", "version 1.2.23",
        ):
            with self.subTest(text=text):
                self.assertEqual(date_references(text), [])

    def test_years_next_to_such_words_still_count(self):
        for text, year in (
            ("mid-2023", 2023), ("pre-2020 levels", 2020), ("post-2025 plans", 2025), ("eurovision 2023", 2023),
            ("2023 wall street bonuses", 2023), ("2023 road safety report", 2023), ("report 2023.pdf", 2023),
            ("ends in 2023.", 2023), ("fy-2024", 2024), ("2023 m&a deals", 2023),
        ):
            with self.subTest(text=text):
                self.assertEqual([r.ends.year for r in date_references(text)], [year])


class AnchoredTest(unittest.TestCase):
    def future(self, query, as_of=T, fiscal=None):
        return found(query, as_of, fiscal)[0]

    def test_phrases_that_reach_past_t(self):
        cases = {
            "weather tomorrow": (D("2022-06-16"), D("2022-06-16")),
            "the day after tomorrow": (D("2022-06-17"), D("2022-06-17")),
            "next week": (D("2022-06-20"), D("2022-06-26")),  # T is a Wednesday
            "next month": (D("2022-07-01"), D("2022-07-31")),
            "next quarter": (D("2022-07-01"), D("2022-09-30")),
            "next year": (D("2023-01-01"), D("2023-12-31")),
            "coming year": (D("2023-01-01"), D("2023-12-31")),
            "year after next": (D("2024-01-01"), D("2024-12-31")),
            "3 months later": (D("2022-09-15"), D("2022-09-15")),
            "two weeks later": (D("2022-06-29"), D("2022-06-29")),
            "a year from now": (D("2023-06-15"), D("2023-06-15")),
            "in 6 months": (D("2022-12-15"), D("2022-12-15")),
            "next 12 months": (D("2022-06-16"), D("2022-07-15")),
            "later this year": (D("2022-06-16"), D("2022-12-31")),
            "rest of the year": (D("2022-06-16"), D("2022-12-31")),
            "the week ahead": (D("2022-06-16"), D("2022-06-22")),
            "july": (D("2022-07-01"), D("2022-07-31")),
            "july 12": (D("2022-07-12"), D("2022-07-12")),
            "in may": None,  # May of T's year is past
            "in august": (D("2022-08-01"), D("2022-08-31")),
            "after tomorrow": (D("2022-06-17"), END),
        }
        for query, expected in cases.items():
            with self.subTest(query=query):
                self.assertEqual(self.future(query), [expected] if expected else [])

    def test_phrases_that_do_not(self):
        for query in ("latest cpi", "upcoming earnings", "today's close", "yesterday", "this week", "last quarter",
                      "next big thing", "next-gen chips", "may report", "march madness", "june", "the future"):
            with self.subTest(query=query):
                self.assertEqual(self.future(query), [])

    def test_next_quarter_on_the_last_day_of_a_quarter(self):
        self.assertEqual(self.future("next quarter", D("2022-06-30")), [(D("2022-07-01"), D("2022-09-30"))])
        self.assertEqual(self.future("next year", D("2022-12-31")), [(D("2023-01-01"), D("2023-12-31"))])

    def test_next_fiscal_year_follows_the_calendar(self):
        self.assertEqual(self.future("next fiscal year", D("2023-11-01"), "09-30"), [(D("2024-10-01"), D("2025-09-30"))])
        self.assertEqual(self.future("next fiscal year", D("2023-11-01")), [(D("2024-01-01"), D("2024-12-31"))])

    def test_anchored_phrases_are_not_read_in_item_text(self):
        # In a page, "next year" is relative to the page's date, not to T.
        self.assertEqual(future_references("we expect growth next year and in july", T), [])

    def test_a_written_date_wins_over_the_anchored_reading_inside_it(self):
        self.assertEqual(self.future("july 12 2023"), [(D("2023-07-12"), D("2023-07-12"))])

    def test_a_long_query_is_read_in_its_first_16_kib(self):
        # Issue 26: the detectors' time and memory per query are bounded (QUERY_SCAN_CHARS); the scorer's
        # evidence says the query was cut (tests/core/test_linear_scans.py).
        head = "next quarter and Q3 2023"
        self.assertEqual(self.future(head + " x" * 300_000), [(D("2022-07-01"), D("2022-09-30")), (D("2023-07-01"), D("2023-09-30"))])
        self.assertEqual(self.future("x " * 300_000 + head), [])
        self.assertEqual(self.future("x " * 8_180 + head), [(D("2022-07-01"), D("2022-09-30")), (D("2023-07-01"), D("2023-09-30"))])

    def test_hostile_text(self):
        for query in ("\ud800 Q3 2023", "Q3\u20282023", "\x00Q3 2023\x00"):
            with self.subTest(query=query):
                self.assertEqual(self.future(query), [(D("2023-07-01"), D("2023-09-30"))])
        self.assertEqual(found("\ud800" * 100_000), ([], []))


class FiscalCalendarTest(unittest.TestCase):
    APPLE = "09-30"

    def test_fiscal_periods_follow_the_calendar(self):
        cases = {
            ("FY2024", "09-30"): [("2023-10-01", "2024-09-30")],
            ("fiscal 2024", "06-30"): [("2023-07-01", "2024-06-30")],
            ("Q1 FY2024", "09-30"): [("2023-10-01", "2023-12-31")],
            ("Q4 2023", "09-30"): [("2023-07-01", "2023-09-30")],  # an issuer's bare quarter is its fiscal quarter
            ("3Q24", "09-30"): [("2024-04-01", "2024-06-30")],
            ("H2 FY2024", "01-31"): [("2023-08-01", "2024-01-31")],
            ("fiscal 2024 q1", "05-31"): [("2023-06-01", "2023-08-31")],
            ("FY2023/24", "03-31"): [("2023-04-01", "2024-03-31")],
            ("fy2023-24 q3", "03-31"): [("2023-10-01", "2023-12-31")],
            ("CY2024", "09-30"): [("2024-01-01", "2024-12-31")],  # CY is the calendar year whatever the issuer's
            ("Q3 CY2024", "09-30"): [("2024-07-01", "2024-09-30")],
            ("July 2024", "09-30"): [("2024-07-01", "2024-07-31")],  # months and years are calendar ones
            ("2024", "09-30"): [("2024-01-01", "2024-12-31")],
            ("FY2024", "12-31"): [("2024-01-01", "2024-12-31")],
            ("FY2025", "02-28"): [("2024-02-29", "2025-02-28")],
        }
        for (text, fiscal), expected in cases.items():
            with self.subTest(text=text, fiscal=fiscal):
                self.assertEqual(periods(text, fiscal=fiscal), expected)

    def test_without_a_calendar_a_fiscal_year_begins_after_t_only_under_every_calendar(self):
        # Apple's FY2024 began on 2023-10-01: as of 2023-11-01 its guidance is not future information,
        # and without the calendar FY2024 may have begun as early as 2023-01-26 (grammar.fiscal).
        as_of = D("2023-11-01")
        self.assertEqual(found("apple FY2024 guidance", as_of, self.APPLE), ([], []))
        self.assertEqual(found("apple FY2024 guidance", as_of), ([], []))
        self.assertEqual(found("apple FY2024 revenue", as_of), ([], [(D("2023-01-26"), D("2024-12-31"))]))
        self.assertEqual(found("FY2025 guidance", as_of), ([(D("2024-01-26"), D("2025-12-31"))], []))
        self.assertEqual(found("FY2025 guidance", D("2024-01-25")), ([(D("2024-01-26"), D("2025-12-31"))], []))
        self.assertEqual(found("FY2025 guidance", D("2024-01-26")), ([], []))  # the boundary: begun on T

    def test_bad_fiscal_year_ends(self):
        for value in ("9-30", "13-01", "02-29", "09-31", "00-10", "", "09-30 ", "\ud800", "x" * 1_000_000, 930, None, ["09-30"]):
            with self.subTest(value=value if not isinstance(value, str) or len(value) < 20 else "long"):
                with self.assertRaises(AnachronError) as cm:
                    parse_fiscal_year_end(value)
                self.assertLess(len(str(cm.exception)), 120)
        with self.assertRaises(AnachronError):
            query_findings("FY2024", T, fiscal_year_end="13-01")

    def test_good_fiscal_year_ends(self):
        self.assertEqual([parse_fiscal_year_end(v) for v in ("01-31", "02-28", "12-31")], [(1, 31), (2, 28), (12, 31)])


class OpenPeriodTest(unittest.TestCase):
    def test_the_issue_examples(self):
        self.assertEqual(found("2023 annual report", D("2023-06-01")), ([], [(D("2023-01-01"), D("2023-12-31"))]))
        self.assertEqual(found("Sept 2023 jobs report", D("2023-09-05")), ([], [(D("2023-09-01"), D("2023-09-30"))]))

    def test_boundaries(self):
        # Open: the period contains T and ends after it.  Ending on T, it is closed; beginning on T, it is open.
        self.assertEqual(found("2023 annual report", D("2023-12-31")), ([], []))
        self.assertEqual(found("2023 annual report", D("2023-01-01"))[1], [(D("2023-01-01"), D("2023-12-31"))])
        self.assertEqual(found("2023 annual report", D("2022-12-31")), ([(D("2023-01-01"), D("2023-12-31"))], []))
        self.assertEqual(found("results 2022-06-15", T), ([], []))  # a day ends on itself
        self.assertEqual(found("today's results", T), ([], []))

    def test_only_a_query_for_results(self):
        for query in ("2022 revenue guidance", "q2 2022 earnings estimates", "q2 2022 earnings date", "2022 outlook",
                      "ev sales 2022 so far", "2022 sales ytd", "2022 budget"):
            with self.subTest(query=query):
                self.assertEqual(found(query)[1], [])
        for query in ("q2 2022 results", "this quarter's earnings", "june 2022 retail sales", "2022 final standings",
                      "full-year 2022 gdp", "this year's annual report", "h1 2022 production"):
            with self.subTest(query=query):
                self.assertEqual(len(found(query)[1]), 1)

    def test_a_narrower_period_inside_is_what_is_asked_about(self):
        self.assertEqual(found("prime day 2022 sales july 12"), ([(D("2022-07-12"), D("2022-07-12"))], []))
        self.assertEqual(found("2022 results for 2022-06-01"), ([], []))

    def test_open_ended_references_are_not_open_periods(self):
        self.assertEqual(found("results after:2022-01-01"), ([], []))

    def test_with_the_fiscal_calendar(self):
        self.assertEqual(found("apple Q1 FY2024 results", D("2023-11-01"), "09-30"), ([], [(D("2023-10-01"), D("2023-12-31"))]))


class ScoringTest(unittest.TestCase):
    """Through score_trace: the count, its evidence, the entity's calendar, the outputs."""

    def setUp(self):
        self.c = corpus(
            items=[item("x", "2020-01-01")],
            entities=[entity("AAPL", name="Apple", **{}), entity("MSFT", name="Microsoft"), entity("ACME")],
        )
        fiscal = corpus(
            entities=[
                dict(entity("AAPL", name="Apple"), fiscal_year_end="09-30"),
                dict(entity("MSFT", name="Microsoft"), fiscal_year_end="06-30"),
                dict(entity("ORCL", name="Oracle Corp"), fiscal_year_end="06-30"),
                entity("ACME"),
            ],
        )
        self.fiscal = fiscal

    def score(self, c, queries, as_of=D("2023-11-01")):
        return score_trace(trace(c, [(q, []) for q in queries], as_of=as_of), c)

    def test_open_period_queries_are_counted_apart_with_their_own_evidence(self):
        r = self.score(self.c, ["acme 2023 annual report", "acme 2024 outlook", "acme 2022 annual report"])
        self.assertEqual((r.open_period_queries, r.query_intent_leaks, r.tclr), (1, 1, 0.0))
        self.assertEqual(r.evidence, (
            "#1 query 'acme 2023 annual report' asks for results of 2023-01-01..2023-12-31, still open at 2023-11-01",
            "#2 query 'acme 2024 outlook' reaches for 2024-01-01 > 2023-11-01",
        ))
        self.assertEqual(summarise([r, r]).open_period_queries, 2)
        self.assertEqual(r.to_dict()["open_period_queries"], 1)
        self.assertEqual(read_sample(r.to_dict(), "run.json"), r)

    def test_a_stored_copy_from_before_the_count_reads_as_zero(self):
        data = self.score(self.c, ["acme 2023 annual report"]).to_dict()
        del data["open_period_queries"]
        self.assertEqual(read_sample(data, "run.json").open_period_queries, 0)

    def test_the_entity_named_gives_the_fiscal_calendar(self):
        r = self.score(self.fiscal, ["apple FY2024 guidance", "AAPL Q1 FY2024 results", "acme FY2025 guidance"])
        self.assertEqual((r.query_intent_leaks, r.open_period_queries), (1, 1))
        self.assertEqual(r.evidence, (
            "#2 query 'AAPL Q1 FY2024 results' asks for results of 2023-10-01..2023-12-31, still open at 2023-11-01",
            "#3 query 'acme FY2025 guidance' reaches for 2024-01-26 > 2023-11-01",
        ))
        without = self.score(self.c, ["apple FY2025 guidance", "AAPL Q1 FY2024 results"])
        self.assertEqual((without.query_intent_leaks, without.open_period_queries), (1, 1))
        self.assertEqual(without.evidence[1], "#2 query 'AAPL Q1 FY2024 results' asks for results of "
                         "2023-01-26..2024-03-31, still open at 2023-11-01")

    def test_which_entity_a_query_names(self):
        c = self.fiscal
        self.assertEqual(c.fiscal_year_end_in("APPLE fy2024"), "09-30")
        self.assertEqual(c.fiscal_year_end_in("aapl"), "09-30")
        self.assertEqual(c.fiscal_year_end_in("oracle   corp q1"), "06-30")  # the words of the name, in order
        self.assertEqual(c.fiscal_year_end_in("oracle q1"), None)  # not all of them
        self.assertEqual(c.fiscal_year_end_in("corp oracle"), None)
        self.assertEqual(c.fiscal_year_end_in("microsoft and oracle corp"), "06-30")  # the same calendar
        self.assertEqual(c.fiscal_year_end_in("apple vs microsoft"), None)  # two calendars: the calendar year
        self.assertEqual(c.fiscal_year_end_in("pineapple"), None)  # whole words only
        self.assertEqual(c.fiscal_year_end_in("acme"), None)  # an entity without a fiscal calendar
        self.assertEqual(self.c.fiscal_year_end_in("apple"), None)

    def test_the_count_is_a_metric_and_a_report_column(self):
        self.assertEqual(METRICS["open_period_queries"], "count")
        table = score_table([self.score(self.c, ["acme 2023 annual report"])])
        self.assertIn("  query  open  content", table)
        self.assertRegex(table, r"open-period queries\s+1\n")


class EntityCalendarTest(unittest.TestCase):
    def test_an_entity_may_give_its_fiscal_year_end(self):
        c = corpus(entities=[dict(entity("AAPL"), fiscal_year_end="09-30"), entity("ACME")])
        self.assertEqual((c.entity("AAPL").fiscal_year_end, c.entity("ACME").fiscal_year_end), ("09-30", None))
        self.assertNotIn("fiscal_year_end", c.entity("AAPL").extra)

    def test_a_bad_fiscal_year_end_names_the_record_and_field(self):
        for value in ("9/30", "02-29", 930, "x" * 100_000):
            with self.subTest(value=value if not isinstance(value, str) or len(value) < 20 else "long"):
                with self.assertRaises(AnachronError) as cm:
                    corpus(entities=[entity("ACME"), dict(entity("AAPL"), fiscal_year_end=value)])
                message = str(cm.exception)
                self.assertTrue(message.startswith("entities:2: field 'fiscal_year_end': "), message)
                self.assertLess(len(message), 160)
                self.assertNotIn("\n", message)


if __name__ == "__main__":
    unittest.main()
