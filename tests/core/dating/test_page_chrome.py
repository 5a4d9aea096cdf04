"""Page chrome: modification stamps are a revision risk, and neither they nor copyright lines are content leaks.

Generated over stamp labels, day spellings and the day's place against T (before, on, after),
through the public interfaces: attribute() for the modification day, score_trace() for the two
counts.  The labelled real pages are tests/core/dating/test_content_leaks_real_pages.py.
"""

from __future__ import annotations

import datetime as dt
import unittest

from anachron.core import build_corpus, parse_traces
from anachron.core.attribution import attribute, modification_stamp, without_chrome
from anachron.core.leakage import score_trace

T = dt.date(2022, 6, 1)
CORPUS = build_corpus([], [], [])
MONTHS = "January February March April May June July August September October November December".split()
LABELS = ("Last modified:", "Last updated:", "Last updated on", "Updated", "Updated:", "Updated on", "Modified:", "Revised", "Edited:",
          "Last reviewed:", "Post-History:", "This article was revised and updated at 5 p.m.")


def spellings(day: dt.date):
    return (day.isoformat(), f"{day.isoformat()} 05:47:01 UTC", f"{MONTHS[day.month - 1]} {day.day}, {day.year}",
            f"{MONTHS[day.month - 1]} {day.day}th, {day.year}", f"{day.day} {MONTHS[day.month - 1]} {day.year}",
            f"{day.day:02d}-{MONTHS[day.month - 1][:3]}-{day.year}")


def counts(text, *, published="2021-03-02", as_of=T):
    entry = {"url": "https://x.example/story", "published": published, "text": text}
    record = {"sample_id": "s", "as_of": as_of.isoformat(), "mode": "unrestricted",
              "interactions": [{"tool": "fetch", "query": None, "returned": [entry]}]}
    [trace] = parse_traces([("t:1", record)], CORPUS)
    result = score_trace(trace, CORPUS)
    return result.content_leaks, result.revision_risks


class Stamps(unittest.TestCase):
    def test_every_label_and_spelling_against_t(self):
        checked = 0
        for offset in (-30, -1, 0, 1, 400):
            day = T + dt.timedelta(days=offset)
            for label in LABELS:
                for spelled in spellings(day):
                    text = f"Quarterly results were strong.\n{label} {spelled}\n"
                    with self.subTest(text=text):
                        self.assertEqual(modification_stamp(text)[0], day)
                        self.assertEqual(attribute({"url": "https://x.example/a", "published": "2021-03-02", "text": text}).modified, day)
                        # a modification on T is no risk; a stamp is never a content leak
                        self.assertEqual(counts(text), (0, int(offset > 0)))
                        checked += 1
        self.assertGreater(checked, 300)

    def test_the_same_day_in_prose_is_content(self):
        later = T + dt.timedelta(days=40)
        for spelled in spellings(later)[2:5]:
            with self.subTest(spelled=spelled):
                self.assertEqual(counts(f"The deal is expected to close on {spelled}."), (1, 0))
                self.assertEqual(counts(f"Updated {spelled}. The deal is expected to close on {spelled}."), (1, 1))

    def test_a_list_of_postings_takes_the_latest(self):
        self.assertEqual(modification_stamp("Post-History: 21-Mar-2001, 29-Jul-2002, 07-Apr-2013")[0], dt.date(2013, 4, 7))

    def test_what_is_no_stamp(self):
        for text in ("The company updated its 2024 guidance.", "Updated guidance for fiscal 2023", "revised up to $5B in June 2023",
                     "Posted on 2023-01-05", "This story has been published on: 2023-12-20.", "updated 2023"):
            with self.subTest(text=text):
                self.assertIsNone(modification_stamp(text))
        # a publication stamp after T tells the reader something: it stays content
        self.assertEqual(counts("This story has been published on: 2023-12-20."), (1, 0))

    def test_fields_and_metadata_come_first(self):
        a = attribute({"url": "https://x.example/a", "published": "2021-03-02", "dateModified": "2021-04-01", "text": "Updated June 5, 2024"})
        self.assertEqual((a.modified, a.modified_source), (dt.date(2021, 4, 1), "field 'dateModified'"))
        a = attribute({"url": "https://x.example/a", "published": "2021-03-02", "snippet": "Last updated: 2024-06-05"})
        self.assertEqual(a.modified, dt.date(2024, 6, 5))
        self.assertIn("stamp", a.modified_source)

    def test_a_stamp_in_markup(self):
        html = '<footer><p>Last modified: <a href="/c/1">2024-05-28 05:47:01 UTC</a></p></footer>'
        self.assertEqual(modification_stamp(html)[0], dt.date(2024, 5, 28))
        self.assertEqual(counts(html), (0, 1))


class Copyright(unittest.TestCase):
    def test_copyright_years_are_chrome(self):
        for line in ("Copyright © 2025 MarketWatch, Inc.", "© 2025 Daily News Egypt", "Copyright(c) 2025 RTTNews.com. All Rights Reserved",
                     "(c) 2019-2025 Example Ltd", "Copyright 2025"):
            with self.subTest(line=line):
                self.assertEqual(counts(f"Shares rose 3%.\n{line}"), (0, 0))
        self.assertEqual(counts("Shares rose 3%; the plant opens in 2025."), (1, 0))  # the year in prose is content

    def test_blanking_keeps_positions(self):
        text = "Q3 2025 outlook. © 2025 X. Updated June 5, 2024"
        self.assertEqual(len(without_chrome(text)), len(text))
        self.assertIn("Q3 2025", without_chrome(text))
        self.assertNotIn("June", without_chrome(text))

    def test_a_long_hostile_text(self):
        text = ("updated " * 50_000) + ("© " * 50_000) + "Updated June 5, 2024"  # the stamp is past the scanned head
        self.assertIsNone(modification_stamp(text))
        self.assertEqual(without_chrome(text), text)


if __name__ == "__main__":
    unittest.main()
