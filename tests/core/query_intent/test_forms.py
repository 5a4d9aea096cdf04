"""Query-intent detection: every recognised form, the boundary, and numbers that are not years."""

import datetime as dt
import unittest

from anachron.core import date_references, future_references

T = dt.date(2022, 6, 15)


class FormsTest(unittest.TestCase):
    CASES = {
        # query: (matched text, first day of the period)
        "results on 2023-07-14": ("2023-07-14", "2023-07-14"),
        "filings 2023/07/14": ("2023/07/14", "2023-07-14"),
        "sales 2023-07": ("2023-07", "2023-07-01"),
        "July 2023 sales": ("July 2023", "2023-07-01"),
        "jul 2023": ("jul 2023", "2023-07-01"),
        "Sept. 2023": ("Sept. 2023", "2023-09-01"),
        "July 14, 2023 call": ("July 14, 2023", "2023-07-14"),
        "14 July 2023": ("14 July 2023", "2023-07-14"),
        "3rd March 2023": ("3rd March 2023", "2023-03-03"),
        "cygnus q3 2023 results": ("q3 2023", "2023-07-01"),
        "Q3-2023": ("Q3-2023", "2023-07-01"),
        "Q3'23": ("Q3'23", "2023-07-01"),
        "Q3 FY2024": ("Q3 FY2024", "2023-07-26"),  # no calendar: the uncertain span (grammar.fiscal)
        "2023Q3": ("2023Q3", "2023-07-01"),
        "2023-Q4": ("2023-Q4", "2023-10-01"),
        "3Q23": ("3Q23", "2023-07-01"),
        "1Q2024": ("1Q2024", "2024-01-01"),
        "H2 2023": ("H2 2023", "2023-07-01"),
        "2H23": ("2H23", "2023-07-01"),
        "2023H1": ("2023H1", "2023-01-01"),
        "FY2024 guidance": ("FY2024", "2023-01-26"),
        "FY24": ("FY24", "2023-01-26"),
        "fy 2024": ("fy 2024", "2023-01-26"),
        "FY'25": ("FY'25", "2024-01-26"),
        "outlook 2024": ("2024", "2024-01-01"),
        "ends in 2023.": ("2023", "2023-01-01"),
    }

    def test_each_form(self):
        for query, (text, begins) in self.CASES.items():
            with self.subTest(query=query):
                refs = date_references(query)
                self.assertEqual([(r.text, r.begins.isoformat()) for r in refs], [(text, begins)])

    def test_several_references_in_order(self):
        refs = date_references("compare FY2021 with Q1 2024 and 2019")
        self.assertEqual([r.begins.isoformat() for r in refs], ["2020-01-26", "2024-01-01", "2019-01-01"])

    def test_a_year_range_names_both_years(self):
        self.assertEqual([r.text for r in date_references("2023-2024")], ["2023", "2024"])


class NotYearsTest(unittest.TestCase):
    def test_numbers_that_are_not_years(self):
        for query in (
            "top 10 miners",
            "revenue 412",
            "$2024 price target",
            "up 2024% on the day",
            "2024M of debt",
            "2024km pipeline",
            "ratio 20.2024",
            "2023.5 tonnes",
            "1,2024 units",
            "order 120235",
            "route 3000",
            "1899 founding",
            "impossible 2023-02-30",
        ):
            with self.subTest(query=query):
                self.assertEqual(date_references(query), [])

    def test_q5_is_not_a_quarter_though_the_year_counts(self):
        self.assertEqual([(r.text, r.begins.isoformat()) for r in date_references("Q5 2023")], [("2023", "2023-01-01")])

    def test_an_impossible_day_is_not_a_period_but_other_references_still_count(self):
        self.assertEqual([r.text for r in date_references("2023-02-30 or 2025")], ["2025"])


class BoundaryTest(unittest.TestCase):
    def leaks(self, query):
        return [r.begins.isoformat() for r in future_references(query, T)]

    def test_period_containing_t_does_not_leak(self):
        for query in ("2022", "June 2022", "2022-06", "Q2 2022", "H1 2022", "FY2022", "2022-06-15"):
            with self.subTest(query=query):
                self.assertEqual(self.leaks(query), [])

    def test_period_beginning_the_day_after_t_leaks(self):
        self.assertEqual(self.leaks("2022-06-16"), ["2022-06-16"])

    def test_next_periods_leak(self):
        for query, begins in (("2023", "2023-01-01"), ("July 2022", "2022-07-01"), ("Q3 2022", "2022-07-01"), ("H2 2022", "2022-07-01"), ("FY24", "2023-01-26")):
            with self.subTest(query=query):
                self.assertEqual(self.leaks(query), [begins])

    def test_past_periods_do_not_leak(self):
        self.assertEqual(self.leaks("Q4 2021 and 2019-03-01 and May 2022"), [])


class LongTextTest(unittest.TestCase):
    """A long text is searched around its digits only: the same references as a full scan."""

    def test_the_windowed_search_finds_what_the_full_scan_finds(self):
        import random

        from anachron.core.query_intent.patterns import PATTERN
        from anachron.core.query_intent.references import _references

        words = ["revenue", "Q3 2023", "July 14, 2023", "2024M", "$2024", "FY24", "the", "20.24", "2023-07", "3Q23",
                 "H2 2022", "September 2024", "12", "x2023", "2023y", "September   14,   2023", "q3    fy 2024", "1,2024",
                 "end of 2024", "after:2023-01-01", "before:2024-01-01", "week of Jan 3 2022", "FY2023/24", "14.07.2023",
                 "07/14/2023", "RSA-2048", "2020.HK", "third quarter of 2023", "mid-2023", "2050 km", "office 2019",
                 "555-2025", "2011/12 season", "Q4 \u201923", "2023-07-14T09:30:00Z"]
        rng = random.Random(7)
        for trial in range(200):
            text = " ".join(rng.choice(words) for _ in range(rng.randint(120, 400)))
            self.assertGreater(len(text), 512)
            collapsed = " ".join(text.split())
            full = [(r.text, r.begins) for r in _references(collapsed, None, None, PATTERN.finditer(collapsed), anchored=False)]
            with self.subTest(trial=trial):
                self.assertEqual([(r.text, r.begins) for r in date_references(text)], full)


if __name__ == "__main__":
    unittest.main()
