"""The phrases that state a page's own publication or update (docs/dating.md, source 5), read by
the one date grammar: each phrase of the list, the granule it names, the latest winning, and
what is not a statement."""

from __future__ import annotations

import datetime as dt
import unittest

from anachron.core.attribution import attribute, publication_statement

D = dt.date


class Phrases(unittest.TestCase):
    def test_each_phrase_of_the_list_is_read(self):
        cases = {
            "published in June 2023": ("June 2023", D(2023, 6, 1), D(2023, 6, 30), "month"),
            "Published: February 9, 2023.": ("February 9, 2023", D(2023, 2, 9), D(2023, 2, 9), "day"),
            "first published on 2023-06-04": ("2023-06-04", D(2023, 6, 4), D(2023, 6, 4), "day"),
            "originally published in 2021": ("2021", D(2021, 1, 1), D(2021, 12, 31), "year"),
            "updated March 3, 2023": ("March 3, 2023", D(2023, 3, 3), D(2023, 3, 3), "day"),
            "Last updated: 4 Jan 2024": ("4 Jan 2024", D(2024, 1, 4), D(2024, 1, 4), "day"),
            "last-updated 2023-06": ("2023-06", D(2023, 6, 1), D(2023, 6, 30), "month"),
            "It was updated on 2023-06-04.": ("2023-06-04", D(2023, 6, 4), D(2023, 6, 4), "day"),
        }
        for text, (value, first, last, granularity) in cases.items():
            with self.subTest(text=text):
                self.assertEqual(publication_statement(text)[0], value)
                [source] = attribute({"text": text}).sources
                self.assertEqual((source.source, source.first, source.last, source.granularity),
                                 ("text statement", first, last, granularity))

    def test_the_latest_stated_day_wins(self):
        text = "Last updated: 2024-03-01. First published on 2023-06-04."
        self.assertEqual(publication_statement(text), ("2024-03-01", "Last updated: 2024-03-01"))

    def test_a_statement_is_a_source_after_html_metadata(self):
        a = attribute({"snippet": "Jan 2, 2020 — published in June 2023",
                       "text": '<meta property="article:published_time" content="2020-01-03">'})
        self.assertEqual([s.source for s in a.sources], ["snippet", "html article:published_time", "snippet statement"])
        self.assertEqual((a.source, a.first), ("snippet", D(2020, 1, 2)))  # the first source still dates the item

    def test_a_statement_alone_dates_the_item(self):
        a = attribute({"snippet": "A retrospective, published in June 2023"})
        self.assertEqual((a.source, a.first, a.granularity), ("snippet statement", D(2023, 6, 1), "month"))


class NotStatements(unittest.TestCase):
    def test_what_is_not_a_statement_of_the_page(self):
        for text in (
            "The 2023 report was published in June 2023.",    # a finite verb about another document
            "Results will be published on 2023-06-04.",       # a future
            "The figures have been updated on 2023-06-04.",
            "The agency updated its 2024 guidance.",          # no date after the phrase
            "updated 2024 guidance",                          # a bare year only after "in"
            "published on 2023-02-30",                        # not a calendar day
            "published in 09/02/2023",                        # a numeric day-month order is refused
            "republished in June 2023",                       # not a phrase of the list
        ):
            with self.subTest(text=text):
                self.assertIsNone(publication_statement(text))
                self.assertEqual(attribute({"text": text}).sources, ())

    def test_this_page_as_the_subject_counts(self):
        self.assertEqual(publication_statement("This article was first published in June 2023")[0], "June 2023")
        self.assertEqual(publication_statement("This page has been updated on 2023-06-04")[0], "2023-06-04")


if __name__ == "__main__":
    unittest.main()
