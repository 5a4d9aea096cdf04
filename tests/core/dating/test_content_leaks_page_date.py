"""Content leaks read at the page's own date: year-less days and months, relative periods, render banners.

Each class is a family generated over page dates (every month, both ends of a year), spellings and
T on both sides of the period's first day (a period beginning on T does not leak, one beginning the
day after does), scored through the public interfaces: parse_traces() and score_trace() for an
open-web page and a corpus item, date_references() for the period read.  The expected periods are
worked out here from the rules as docs/metrics.md states them ("Content leaks"), by brute force
over the candidate years, not by the grammar's code.  The labelled real pages are
tests/core/dating/test_content_leaks_real_pages.py.
"""

from __future__ import annotations

import datetime as dt
import re
import unittest

from anachron.core import build_corpus, date_references, parse_traces, query_findings
from anachron.core.grammar.page import PAGE_FORMS, PAGE_KEYS, PAGE_KINDS, page_kind
from anachron.core.leakage import score_trace
from tests.corpus_fixtures import item

CORPUS = build_corpus([], [], [])
ONE = dt.timedelta(days=1)
MONTHS = "January February March April May June July August September October November December".split()
# Page dates across the year: both ends of it, a leap day, mid-year.
PAGE_DATES = [dt.date(2019, 1, 5), dt.date(2019, 3, 31), dt.date(2019, 6, 30), dt.date(2019, 7, 1), dt.date(2019, 10, 1),
              dt.date(2019, 12, 10), dt.date(2020, 2, 29), dt.date(2023, 12, 31)]


def leaks(text: str, as_of: dt.date, *, published: str | None = None, url: str = "https://x.example/story") -> int:
    """content_leaks of one open-web page (title "Story", *text*) returned by a fetch at *as_of*."""
    entry = {"url": url, "title": "Story", "text": text}
    if published is not None:
        entry["published"] = published
    record = {"sample_id": "s", "as_of": as_of.isoformat(), "mode": "unrestricted",
              "interactions": [{"tool": "fetch", "query": None, "returned": [entry]}]}
    [trace] = parse_traces([("t:1", record)], CORPUS)
    return score_trace(trace, CORPUS).content_leaks


def corpus_leaks(text: str, published: dt.date, as_of: dt.date) -> int:
    corpus = build_corpus([("items.jsonl:1", item("p", published.isoformat(), text=text))])
    record = {"sample_id": "s", "as_of": as_of.isoformat(), "mode": "unrestricted",
              "interactions": [{"tool": "search", "query": "x", "returned": ["p"]}]}
    [trace] = parse_traces([("t:1", record)], corpus)
    return score_trace(trace, corpus).content_leaks


def nearest(candidates, page: dt.date):
    """The rule as stated: of the candidates (P's year first), fewest days from P (0 inside); a tie to P's year."""
    def gap(c):
        return max((c[0] - page).days, (page - c[1]).days, 0)
    return min(candidates, key=gap)


def month_span(year: int, month: int):
    first = dt.date(year, month, 1)
    last = (dt.date(year + (month == 12), month % 12 + 1, 1)) - ONE
    return first, last


def day_candidates(month: int, day: int, page: dt.date):
    out = []
    for year in (page.year, page.year - 1, page.year + 1):
        try:
            out.append((dt.date(year, month, day),) * 2)
        except ValueError:
            pass
    return out


class Boundary(unittest.TestCase):
    def assert_begins(self, text: str, page: dt.date, begins: dt.date, *, corpus: bool = True):
        """*text* on a page of *page* leaks at T = begins - 1 and not at T = begins (nor later)."""
        published = page.isoformat()
        for as_of, expected in ((begins - ONE, 1), (begins, 0), (begins + ONE, 0)):
            if as_of < page:
                continue  # a page is read at or after its date
            with self.subTest(text=text, page=page, as_of=as_of):
                self.assertEqual(leaks(text, as_of, published=published), expected)
                if corpus:
                    self.assertEqual(corpus_leaks(text, page, as_of), expected)


class YearLessDays(Boundary):
    def spellings(self, month: int, day: int):
        name = MONTHS[month - 1]
        short = "Sept" if month == 9 else name[:3]
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(day % 10 if day not in (11, 12, 13) else 0, "th")
        return (f"{name} {day}", f"{name} {day}{suffix}", f"{short}. {day}", f"{day} {name}", f"{day}{suffix} of {name}")

    def test_nearest_occurrence_over_pages_days_and_spellings(self):
        checked = 0
        for page in PAGE_DATES:
            for month, day in ((1, 15), (2, 29), (6, 26), (9, 8), (12, 20), (page.month, page.day)):
                candidates = day_candidates(month, day, page)
                begins = nearest(candidates, page)[0]
                for spelled in self.spellings(month, day):
                    text = f"The company set a {spelled} deadline for bids."
                    self.assertEqual([r.begins for r in date_references(text, page_date=page)], [begins], text)
                    if begins >= page:
                        self.assert_begins(text, page, begins, corpus=spelled == self.spellings(month, day)[0])
                    else:
                        self.assertEqual(leaks(text, page, published=page.isoformat()), 0)
                    checked += 1
        self.assertGreater(checked, 200)

    def test_a_deadline_is_the_next_occurrence(self):
        for page in PAGE_DATES:
            for cue in ("until", "by", "through", "till"):
                for month, day in ((1, 15), (6, 26), (9, 8), (12, 20)):
                    later = [c for c in day_candidates(month, day, page) if c[1] >= page]
                    begins = min(later)[0]
                    text = f"The offer runs {cue} {MONTHS[month - 1]} {day}."
                    self.assertEqual([r.begins for r in date_references(text, page_date=page)], [begins], text)
                    self.assert_begins(text, page, begins, corpus=cue == "until")

    def test_a_page_of_december_names_next_january(self):
        self.assertEqual(leaks("bids are due by a January 15 deadline", dt.date(2019, 12, 10), published="2019-12-10"), 1)
        self.assertEqual(leaks("On December 20, the board met.", dt.date(2019, 1, 5), published="2019-01-05"), 0)

    def test_a_year_told_after_it(self):
        page = dt.date(2024, 2, 2)
        for text, begins in (("operation began on June 1 last year", dt.date(2023, 6, 1)),
                             ("the team was set up at the end of May last year", dt.date(2023, 5, 31)),
                             ("it opens in April next year", dt.date(2025, 4, 1)),
                             ("it opens on June 1 this year", dt.date(2024, 6, 1))):
            self.assertEqual([r.begins for r in date_references(text, page_date=page)], [begins], text)
            if begins > page:
                self.assert_begins(text, page, begins)
            else:
                self.assertEqual(leaks(text, page, published=page.isoformat()), 0)
        self.assertEqual(date_references("it closed in April the following year", page_date=page), [])

    def test_the_half_year_boundary(self):
        # 182 days back beats 183 ahead; a day later the coming one is nearer; a tie is P's year
        for page, text, begins in ((dt.date(2019, 3, 9), "on September 8th", dt.date(2018, 9, 8)),
                                   (dt.date(2019, 3, 10), "on September 8th", dt.date(2019, 9, 8)),
                                   (dt.date(2019, 6, 15), "in December", dt.date(2018, 12, 1)),
                                   (dt.date(2014, 10, 15), "close in April", dt.date(2014, 4, 1)),
                                   (dt.date(2014, 10, 31), "close in April", dt.date(2015, 4, 1))):
            with self.subTest(page=page, text=text):
                self.assertEqual([r.begins for r in date_references(text, page_date=page)], [begins])
                self.assertEqual(leaks(text, page, published=page.isoformat()), int(begins > page))

    def test_impossible_days_name_nothing(self):
        for text in ("due February 30", "due 31 April", "due June 0"):
            self.assertEqual(date_references(text, page_date=dt.date(2019, 1, 5)), [], text)


class YearLessMonths(Boundary):
    def test_a_month_after_a_cue(self):
        checked = 0
        for page in PAGE_DATES:
            for month in range(1, 13):
                candidates = [month_span(y, month) for y in (page.year, page.year - 1, page.year + 1)]
                for cue in ("in", "during", "early", "mid-", "late", "by", "the end of", "after"):
                    text = f"The deal is expected to close {cue}{'' if cue.endswith('-') else ' '}{MONTHS[month - 1]}."
                    if cue == "by":
                        begins, ends = min(c for c in candidates if c[1] >= page)
                    else:
                        begins, ends = nearest(candidates, page)
                    if cue == "the end of":
                        begins = ends
                    elif cue == "after":
                        begins = ends + ONE
                    elif cue in ("early", "mid-", "late"):
                        third = ((ends - begins).days + 1) // 3
                        begins = {"early": begins, "mid-": begins + dt.timedelta(days=third),
                                  "late": ends - dt.timedelta(days=third - 1)}[cue]
                    [ref] = date_references(text, page_date=page)
                    self.assertEqual(ref.begins, begins, text)
                    if begins > page:
                        self.assert_begins(text, page, begins, corpus=False)
                    checked += 1
        self.assertGreater(checked, 700)

    def test_a_month_name_alone_is_not_read(self):
        page = dt.date(2019, 5, 15)
        for text in ("Jan Smith said so.", "April showers", "prices may rise", "in may", "the june figures", "since April",
                     "last June", "before August"):
            with self.subTest(text=text):
                self.assertEqual(date_references(text, page_date=page), [])
                self.assertEqual(leaks(text, page, published=page.isoformat()), 0)

    def test_a_month_quarter(self):
        page = dt.date(2019, 7, 30)
        self.assert_begins("revenue in the December quarter is expected to grow", page, dt.date(2019, 10, 1))


def following(span: str, day: dt.date):
    """The first day of the calendar week (from Monday), month, quarter or year after the one containing *day*."""
    if span == "week":
        return day + dt.timedelta(days=7 - day.weekday())
    if span == "month":
        return month_span(day.year, day.month)[1] + ONE
    if span == "quarter":
        last = (day.month - 1) // 3 * 3 + 3
        return month_span(day.year, last)[1] + ONE
    return dt.date(day.year + 1, 1, 1)


def _clamped(year: int, month: int, day: int) -> dt.date:
    return min(dt.date(year, month, 1) + dt.timedelta(days=day - 1), month_span(year, month)[1])


class RelativePeriods(Boundary):
    def test_the_period_after_the_pages(self):
        for page in PAGE_DATES:
            for span in ("week", "month", "quarter", "year"):
                for spelled in (f"next {span}", f"Next {span}", f"early next {span}" if span == "year" else f"next {span}"):
                    text = f"The company expects to hire more staff {spelled}."
                    self.assert_begins(text, page, following(span, page), corpus=spelled == f"next {span}")

    def test_a_page_before_t_names_its_own_next_year(self):
        # "next year" on a page of 2019 names 2020, whatever T is: it leaks only while T is before 2020.
        page = dt.date(2019, 5, 15)
        for as_of, expected in ((dt.date(2019, 12, 31), 1), (dt.date(2020, 1, 1), 0), (dt.date(2021, 6, 1), 0)):
            self.assertEqual(leaks("Sales will grow next year.", as_of, published=page.isoformat()), expected)
            self.assertEqual(corpus_leaks("Sales will grow next year.", page, as_of), expected)
        # read at T, as a query is, it would have named 2021
        self.assertTrue(query_findings("next year", dt.date(2020, 1, 1)).future)

    def test_days_and_spans_from_the_page(self):
        for page in PAGE_DATES:
            for text, begins in (("Results are due tomorrow.", page + ONE),
                                 ("Results are due the day after tomorrow.", page + 2 * ONE),
                                 ("Sales will rise later this year.", page + ONE),
                                 ("We expect more in the coming months.", page + ONE),
                                 ("We will hire over the next two years.", page + ONE),
                                 ("It ships two years from now.", _clamped(page.year + 2, page.month, page.day)),
                                 ("It ships 6 months from now.", _clamped(page.year + (page.month + 5) // 12, (page.month + 5) % 12 + 1, page.day)),
                                 ("The deal closes by the end of the year.", dt.date(page.year, 12, 31)),
                                 ("The deal closes by year-end.", dt.date(page.year, 12, 31)),
                                 ("The deal closes before the end of the year.", dt.date(page.year, 12, 31)),
                                 ("The offer runs until the end of the quarter.", month_span(page.year, (page.month - 1) // 3 * 3 + 3)[1]),
                                 ("Demand stays weak for the rest of this year.", page + ONE),
                                 ("The deal closes by the end of this month.", month_span(page.year, page.month)[1]),
                                 ("Revenue next Friday.", page + dt.timedelta(days=(4 - page.weekday() - 1) % 7 + 1)),
                                 ("It starts the year after next.", dt.date(page.year + 2, 1, 1))):
                if begins > page:
                    self.assert_begins(text, page, begins, corpus=page == PAGE_DATES[0])
                else:
                    self.assertEqual(leaks(text, page, published=page.isoformat()), 0, (text, page))

    def test_what_is_not_read_at_the_page_date(self):
        page = dt.date(2019, 5, 15)
        for text in ("He joined in 2005; the next year he left.", "Three months later, he quit.",
                     "Python 3.2 is to be released 18-24 months after 3.1.", "the first rise in three years",
                     "this year", "yesterday", "today", "12.4 million subscribers at year end",
                     "it restated its year-end subscriber count", "At the end of the year, debt stood at $4M.",
                     "sales slumped for the rest of the year", "at the end of the month"):
            with self.subTest(text=text):
                self.assertEqual(leaks(text, page, published=page.isoformat()), 0)

    def test_no_anchor_without_a_day(self):
        # A page dated only to a month, or not at all: what it names relative to itself cannot be told.
        as_of = dt.date(2019, 6, 15)
        self.assertEqual(leaks("Sales will grow tomorrow and next year.", as_of, url="https://x.example/2019/05/story"), 0)
        self.assertEqual(leaks("Sales will grow tomorrow and next year.", as_of), 0)
        self.assertEqual(leaks("Sales will grow tomorrow and next year.", as_of, published="2019-06-15"), 1)

    def test_queries_stay_anchored_at_t(self):
        # the page forms are read in pages only: a query's "the end of the year" and "third calendar quarter" are as before
        self.assertEqual(query_findings("the end of the year", dt.date(2019, 5, 15)).future, ())
        self.assertEqual(query_findings("revenue in the third calendar quarter of 2019", dt.date(2019, 5, 15)).future, ())


class WrittenInPagesOnly(Boundary):
    def test_an_ordinal_calendar_quarter(self):
        page = dt.date(2014, 4, 2)
        for ordinal, month in (("first", 1), ("second", 4), ("third", 7), ("fourth", 10), ("3rd", 7)):
            for kind in ("calendar", "Calendar"):
                text = f"The deal is expected to close in the {ordinal} {kind} quarter of 2014."
                begins = dt.date(2014, month, 1)
                if begins > page:
                    self.assert_begins(text, page, begins, corpus=kind == "calendar")
                else:
                    self.assertEqual(leaks(text, page, published="2014-04-02"), 0)

    def test_a_fiscal_quarter_without_its_calendar_is_open_until_every_calendar_has_begun(self):
        [ref] = date_references("in the third fiscal quarter of 2014", page_date=dt.date(2014, 4, 2))
        self.assertEqual([r.begins for r in date_references("in fiscal Q3 2014")], [ref.begins])

    def test_a_mail_archive_month(self):
        page = dt.date(2017, 9, 3)
        for month in (10, 11, 12):
            text = f"Resolution: https://mail.python.org/pipermail/python-dev/2017-{MONTHS[month - 1]}/151038.html"
            self.assert_begins(text, page, dt.date(2017, month, 1))


class EveryForm(unittest.TestCase):
    EXAMPLES = {
        "pg_after_tomorrow": "the day after tomorrow", "pg_tomorrow": "tomorrow", "pg_this": "this quarter",
        "pg_the": "by the end of the month", "pg_yearend": "by year-end", "pg_later": "later this year",
        "pg_weekday": "next Friday", "pg_after_next": "the year after next", "pg_next": "next decade",
        "pg_within": "in the coming weeks", "pg_from_now": "two years from now",
        "pg_oq": "second calendar quarter of 2014", "pg_ym": "2017-December", "pg_md": "Sept. 8th",
        "pg_dm": "8 September", "pg_mq": "the June quarter", "pg_month": "in April",
    }

    def test_each_form_is_read_and_holds_a_key(self):
        # the pass is skipped for a text holding no key: every form must hold one
        self.assertEqual(set(self.EXAMPLES), PAGE_KINDS)
        pattern = re.compile(PAGE_FORMS, re.IGNORECASE)
        for kind, text in self.EXAMPLES.items():
            with self.subTest(kind=kind):
                match = pattern.fullmatch(text)
                self.assertIsNotNone(match)
                self.assertEqual(page_kind(match), kind)
                self.assertTrue(any(key in text.lower() for key in PAGE_KEYS))
                self.assertTrue(date_references(f"It said so: {text}.", page_date=dt.date(2014, 4, 2)))


class RenderBanner(unittest.TestCase):
    WEEKDAYS = ("Wednesday", "Wed", "WEDNESDAY")

    def spellings(self, day: dt.date):
        name = MONTHS[day.month - 1]
        return (f"{day.day:02d} {name} {day.year}", f"{name} {day.day}, {day.year}", f"{name[:3]} {day.day}, {day.year}",
                day.isoformat())

    def test_a_banner_atop_an_older_story_is_chrome(self):
        as_of = dt.date(2020, 2, 10)
        for offset in (1, 40, 1600):
            day = as_of + dt.timedelta(days=offset)
            for weekday in self.WEEKDAYS:
                for spelled in self.spellings(day):
                    banner = f"{weekday}, {spelled}"
                    story = "London attacker released from jail days ago.\n\nMonday, 03 February 2020 01:45 Written by"
                    with self.subTest(banner=banner):
                        self.assertEqual(leaks(f"{banner}\nUnited Kingdom\n\n{story}", as_of, published="2020-02-03"), 0)
                        # the same line in the story, or with a time or byline, is a dateline: content
                        self.assertEqual(leaks(f"{story}\n{'x ' * 160}\n{banner}\n", as_of, published="2020-02-03"), 1)
                        self.assertEqual(leaks(f"{banner} 01:45 Written by\n{story}", as_of, published="2020-02-03"), 1)
                        self.assertEqual(leaks(f"Site News: {banner}\n{story}", as_of, published="2020-02-03"), 1)


if __name__ == "__main__":
    unittest.main()
