"""Date attribution of open-web items: every format and source, the order of
sources, the known/leak/uncertain/undated boundaries, revision risk, bad
input, and bounded work on megabyte texts.

The fixtures are hand-labelled: each expected day was read off the fixture by
hand (the URL, the ``page_age`` string, the meta tag), not computed by the
code under test.
"""

import datetime as dt
import json
import random
import unittest
from unittest import mock

from anachron.core import attribution
from anachron.core.attribution import html_meta, record
from anachron.core.attribution import (
    DATE_FIELDS,
    GRANULARITIES,
    HTML_SCAN_CHARS,
    MAX_TAG_CHARS,
    MODIFIED_FIELDS,
    Attribution,
    attribute,
    evidence_of,
    html_dates,
    parse_when,
)
from anachron.core.errors import AnachronError

D = dt.date
UTC = dt.timezone.utc
# The call's own timestamp in the fixtures: Sunday 2023-02-12 15:00 UTC.
NOW = dt.datetime(2023, 2, 12, 15, 0, tzinfo=UTC)


def day(text):
    """A day granule, as parse_when returns it."""
    d = D.fromisoformat(text)
    return (d, d, "day")


def month(year, m, last):
    return (D(year, m, 1), D(year, m, last), "month")


# --- realistic fixtures --------------------------------------------------------

ANTHROPIC_RESULT = {
    "type": "web_search_result",
    "url": "https://www.reuters.com/technology/cygnus-robotics-beats-fourth-quarter-estimates-2023-02-09/",
    "title": "Cygnus Robotics beats fourth-quarter estimates | Reuters",
    "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3YjcSDGQ5ZTFlMjM",
    "page_age": "February 9, 2023",
}
ANTHROPIC_RESULT_NO_AGE = {
    "type": "web_search_result",
    "url": "https://www.nytimes.com/2023/02/09/business/cygnus-robotics-earnings.html",
    "title": "Cygnus Robotics Posts a Surprise Profit - The New York Times",
    "encrypted_content": "Ep0CCioIARgBIiQ0ZjM5YjE2Ny1hMGE4LTQ2YTgtYjE4Zi0xNmNjNGI1YzA1NjQSDL",
    "page_age": None,
}
BRAVE_RESULT = {
    "title": "Cygnus Robotics shares jump after earnings beat",
    "url": "https://www.cnbc.com/2023/02/09/cygnus-robotics-earnings-q4-2022.html",
    "is_source_local": False,
    "description": "Cygnus Robotics reported fourth-quarter revenue of $1.2 billion ...",
    "page_age": "2023-02-09T14:30:00",
    "age": "February 9, 2023",
    "meta_url": {"scheme": "https", "netloc": "cnbc.com", "hostname": "www.cnbc.com"},
    "extra_snippets": ["Shares rose 12% in extended trading."],
}
BRAVE_RELATIVE = {
    "title": "Cygnus Robotics to cut 5% of staff",
    "url": "https://www.cnbc.com/markets/cygnus-robotics-layoffs",
    "description": "The robotics maker said on Tuesday ...",
    "age": "2 weeks ago",
}
TAVILY_RESULT = {
    "title": "Cygnus Robotics (CYGN) Q4 earnings: what to know",
    "url": "https://www.fool.com/earnings/call-transcripts/cygnus-robotics-cygn-q4-call/",
    "content": "Cygnus Robotics (NASDAQ: CYGN) Q4 2022 earnings call transcript ...",
    "score": 0.81234,
    "published_date": "Thu, 09 Feb 2023 23:30:00 GMT",
    "raw_content": None,
}
EXA_RESULT = {
    "id": "https://techcrunch.com/2023/02/09/cygnus-robotics-raises-series-d/",
    "url": "https://techcrunch.com/2023/02/09/cygnus-robotics-raises-series-d/",
    "title": "Cygnus Robotics raises $200M Series D",
    "published_date": "2023-02-10T03:15:00.000Z",
    "author": "Kyle Wiggers",
    "text": "Cygnus Robotics, the maker of warehouse picking arms, has raised ...",
}
# An EDGAR filing: "tsla-20221231.htm" names the period (FY2022), not the
# filing day (2023-01-31), so the URL must not date it.
SEC_FILING = {
    "url": "https://www.sec.gov/Archives/edgar/data/1318605/000095017023001409/tsla-20221231.htm",
    "title": "tsla-20221231",
    "snippet": "Annual report pursuant to section 13 or 15(d) ...",
}
SEC_RSS_ITEM = {
    "url": "https://www.sec.gov/Archives/edgar/data/1318605/000095017023001409/0000950170-23-001409-index.htm",
    "title": "10-K - Tesla, Inc. (0001318605) (Filer)",
    "published": "Tue, 31 Jan 2023 16:05:12 -0500",
}
FETCHED_PAGE = """<!doctype html>
<html lang="en"><head>
<meta charset="utf-8">
<title>Cygnus Robotics posts surprise profit</title>
<!-- <meta property="article:published_time" content="2019-01-01T00:00:00Z"> old template -->
<meta name="description" content="Cygnus Robotics said on Thursday it swung to a profit.">
<meta content='2023-03-01T08:00:00+00:00' property=article:modified_time>
<meta content="2023-02-09T22:15:00-05:00" property="article:published_time" />
<script type="application/ld+json">
{"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Cygnus Robotics posts surprise profit",
 "datePublished": "2023-02-09T22:15:00-05:00", "dateModified": "2023-03-01T08:00:00+00:00"}
</script>
</head><body><article><p class="byline">By Jane Doe <time datetime="2023-02-09">Feb. 9, 2023</time></p>
<p>Cygnus Robotics swung to a profit ...</p></article></body></html>"""


class ApiTest(unittest.TestCase):
    def test_the_constants_of_the_contract(self):
        self.assertEqual(GRANULARITIES, ("day", "month", "year"))
        self.assertEqual(DATE_FIELDS, ("publish_date", "published", "published_at", "published_date", "date",
                                       "datePublished", "publishedDate", "page_age", "age", "crawl_date",
                                       "last_modified"))  # publishedDate: Exa's field
        self.assertEqual(MODIFIED_FIELDS, ("dateModified", "modified", "updated", "last_modified"))

    def test_attribution_is_frozen(self):
        a = attribute({"date": "2023-02-09"})
        with self.assertRaises(AttributeError):
            a.first = D(2020, 1, 1)


class RealisticFixturesTest(unittest.TestCase):
    def check(self, entry, first, source, value, *, last=None, granularity="day", now=NOW):
        a = attribute(entry, now=now)
        self.assertEqual(a.first, D.fromisoformat(first))
        self.assertEqual(a.last, D.fromisoformat(last or first))
        self.assertEqual(a.granularity, granularity)
        self.assertEqual(a.source, source)
        self.assertEqual(a.value, value)
        return a

    def test_anthropic_page_age(self):
        self.check(ANTHROPIC_RESULT, "2023-02-09", "field 'page_age'", "February 9, 2023")

    def test_anthropic_null_page_age_falls_to_the_url(self):
        a = self.check(ANTHROPIC_RESULT_NO_AGE, "2023-02-09", "url", "/2023/02/09")
        self.assertEqual(a.problems, ("field 'page_age': not a date: null",))

    def test_anthropic_relative_page_age(self):
        entry = dict(ANTHROPIC_RESULT, page_age="3 days ago")
        self.check(entry, "2023-02-09", "field 'page_age'", "3 days ago")

    def test_reuters_slug_date_is_not_read(self):
        # "...-estimates-2023-02-09/": the date does not start a path segment.
        a = attribute(dict(ANTHROPIC_RESULT, page_age=None), now=NOW)
        self.assertIsNone(a.first)
        self.assertEqual(a.status(D(2023, 2, 9)), "undated")

    def test_brave_page_age_comes_before_age(self):
        self.check(BRAVE_RESULT, "2023-02-09", "field 'page_age'", "2023-02-09T14:30:00")

    def test_brave_age_alone(self):
        entry = {k: v for k, v in BRAVE_RESULT.items() if k != "page_age"}
        self.check(entry, "2023-02-09", "field 'age'", "February 9, 2023")

    def test_brave_relative_age(self):
        self.check(BRAVE_RELATIVE, "2023-01-29", "field 'age'", "2 weeks ago")

    def test_brave_relative_age_without_now_is_undated(self):
        a = attribute(BRAVE_RELATIVE)
        self.assertIsNone(a.first)
        self.assertEqual(a.problems, ("field 'age': relative age '2 weeks ago' needs the call's timestamp (now)",))

    def test_tavily_rfc_2822(self):
        self.check(TAVILY_RESULT, "2023-02-09", "field 'published_date'", "Thu, 09 Feb 2023 23:30:00 GMT")

    def test_exa_iso_with_z(self):
        self.check(EXA_RESULT, "2023-02-10", "field 'published_date'", "2023-02-10T03:15:00.000Z")

    def test_exa_without_date_uses_its_url(self):
        entry = {k: v for k, v in EXA_RESULT.items() if k != "published_date"}
        self.check(entry, "2023-02-09", "url", "/2023/02/09")

    def test_exa_id_when_there_is_no_url(self):
        entry = {k: v for k, v in EXA_RESULT.items() if k not in ("published_date", "url")}
        self.check(entry, "2023-02-09", "url", "/2023/02/09")

    def test_sec_filing_period_in_the_file_name_is_not_a_date(self):
        a = attribute(SEC_FILING)
        self.assertIsNone(a.first)
        self.assertEqual(evidence_of(a), "undated (no date found)")

    def test_sec_filing_with_a_filing_date_field(self):
        self.check(dict(SEC_FILING, date="2023-01-31"), "2023-01-31", "field 'date'", "2023-01-31")

    def test_sec_rss_item_counts_on_its_utc_day(self):
        # 16:05 at -05:00 is 21:05 UTC, the same day.
        self.check(SEC_RSS_ITEM, "2023-01-31", "field 'published'", "Tue, 31 Jan 2023 16:05:12 -0500")

    def test_fetched_page(self):
        a = self.check({"url": "https://www.example-news.com/markets/cygnus-profit", "text": FETCHED_PAGE},
                       "2023-02-10", "html article:published_time", "2023-02-09T22:15:00-05:00")
        self.assertEqual(a.modified, D(2023, 3, 1))
        self.assertEqual(a.modified_source, "html article:modified_time")
        self.assertEqual(a.problems, ())

    def test_guardian_month_name_url(self):
        self.check({"url": "https://www.theguardian.com/business/2023/feb/09/cygnus-robotics-profit"},
                   "2023-02-09", "url", "/2023/feb/09")

    def test_blog_month_url(self):
        self.check({"url": "https://blog.cygnusrobotics.com/2023/02/q4-letter-to-shareholders/"},
                   "2023-02-01", "url", "/2023/02", last="2023-02-28", granularity="month")


class FormatsTest(unittest.TestCase):
    CASES = {
        # ISO days and the other year-first day forms
        "2023-02-09": day("2023-02-09"),
        "2023/02/09": day("2023-02-09"),
        "20230209": day("2023-02-09"),
        "  2023-02-09\n": day("2023-02-09"),
        # ISO datetimes: the UTC day
        "2023-02-09T14:30:00": day("2023-02-09"),
        "2023-02-09 14:30": day("2023-02-09"),
        "2023-02-09t14:30:00z": day("2023-02-09"),
        "2023-02-09T23:59:59Z": day("2023-02-09"),
        "2023-02-09T23:30:00-05:00": day("2023-02-10"),
        "2023-02-09T23:30:00-0500": day("2023-02-10"),
        "2023-02-09T23:30:00-05": day("2023-02-10"),
        "2023-02-10T01:00:00+02:00": day("2023-02-09"),
        "2023-02-10T01:00:00+0200": day("2023-02-09"),
        "2023-02-09T14:30:00.123456789+00:00": day("2023-02-09"),
        "2023-02-09 14:30:00 UTC": day("2023-02-09"),
        "2023-02-09T14:30:00 +0000": day("2023-02-09"),
        "2023-02-28T22:00:00-03:00": day("2023-03-01"),
        "2023-12-31T23:00:00-01:00": day("2024-01-01"),
        # month names
        "Feb 9, 2023": day("2023-02-09"),
        "February 9, 2023": day("2023-02-09"),
        "february 9 2023": day("2023-02-09"),
        "Feb. 9, 2023": day("2023-02-09"),
        "Sept 9, 2023": day("2023-09-09"),
        "9 February 2023": day("2023-02-09"),
        "9 Feb 2023": day("2023-02-09"),
        "9th February 2023": day("2023-02-09"),
        "Thursday, February 9, 2023": day("2023-02-09"),
        "Thu, 9 Feb 2023": day("2023-02-09"),
        "Feb\u00a09,\u00a02023": day("2023-02-09"),
        # RFC 2822 / HTTP dates: the UTC day
        "Thu, 09 Feb 2023 14:30:00 GMT": day("2023-02-09"),
        "Thu, 09 Feb 2023 23:30:00 -0500": day("2023-02-10"),
        "Thu, 09 Feb 2023 23:30:00 EST": day("2023-02-10"),
        "Fri, 10 Feb 2023 01:00:00 +0200": day("2023-02-09"),
        "09 Feb 2023 14:30 +0000": day("2023-02-09"),
        "Thu, 09 Feb 2023 14:30:00": day("2023-02-09"),
        "Thu, 09 Feb 2023 14:30:00 -0000": day("2023-02-09"),
        "Thu Feb  9 14:30:00 2023": day("2023-02-09"),
        # epoch digit strings
        "1675900800": day("2023-02-09"),
        "1675900800000": day("2023-02-09"),
        "1675987199.999": day("2023-02-09"),
        # months and years
        "February 2023": month(2023, 2, 28),
        "Feb 2023": month(2023, 2, 28),
        "2023-02": month(2023, 2, 28),
        "2024/02": month(2024, 2, 29),
        "2023": (D(2023, 1, 1), D(2023, 12, 31), "year"),
    }

    def test_every_format(self):
        for text, expected in self.CASES.items():
            with self.subTest(text=text):
                self.assertEqual(parse_when(text), expected)

    def test_epoch_numbers(self):
        cases = {
            1675900800: "2023-02-09",
            1675987199: "2023-02-09",      # the last second of the day
            1675987200: "2023-02-10",      # the first second of the next
            1675900800.5: "2023-02-09",
            1675900800000: "2023-02-09",   # milliseconds, by magnitude
            1675987199999: "2023-02-09",
            1675987200000.0: "2023-02-10",
            631152000: "1990-01-01",       # the first plausible day
        }
        for number, expected in cases.items():
            with self.subTest(number=number):
                self.assertEqual(parse_when(number), day(expected))

    def test_milliseconds_threshold(self):
        # 10**11 and up are milliseconds: 10**11 ms is 1973-03-03, an implausible year.
        with self.assertRaisesRegex(AnachronError, "1973-03-03"):
            parse_when(10**11)
        # Just below, seconds: year 5138, far outside.
        with self.assertRaisesRegex(AnachronError, "far outside"):
            parse_when(10**11 - 1)

    def test_date_objects(self):
        self.assertEqual(parse_when(D(2023, 2, 9)), day("2023-02-09"))
        moment = dt.datetime(2023, 2, 9, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
        self.assertEqual(parse_when(moment), day("2023-02-10"))
        self.assertEqual(parse_when(dt.datetime(2023, 2, 9, 23, 30)), day("2023-02-09"))  # naive: UTC


class RelativeAgesTest(unittest.TestCase):
    CASES = {
        "3 days ago": day("2023-02-09"),
        "1 day ago": day("2023-02-11"),
        "a day ago": day("2023-02-11"),
        "yesterday": day("2023-02-11"),
        "Yesterday": day("2023-02-11"),
        "today": day("2023-02-12"),
        "just now": day("2023-02-12"),
        "5 minutes ago": day("2023-02-12"),
        "an hour ago": day("2023-02-12"),
        "16 hours ago": day("2023-02-11"),   # 15:00 - 16 h crosses midnight UTC
        "1 hr ago": day("2023-02-12"),
        "30 secs ago": day("2023-02-12"),
        "2 weeks ago": day("2023-01-29"),
        "one week ago": day("2023-02-05"),
        "3 DAYS AGO": day("2023-02-09"),
        "1 month ago": month(2023, 1, 31),
        "a month ago": month(2023, 1, 31),
        "2 months ago": (D(2022, 12, 1), D(2022, 12, 31), "month"),
        "1 year ago": (D(2022, 1, 1), D(2022, 12, 31), "year"),
        "2 years ago": (D(2021, 1, 1), D(2021, 12, 31), "year"),
    }

    def test_resolved_against_now(self):
        for text, expected in self.CASES.items():
            with self.subTest(text=text):
                self.assertEqual(parse_when(text, now=NOW), expected)

    def test_now_counts_in_utc(self):
        # 21:00 at -05:00 is 02:00 UTC on the 13th; a naive now is UTC.
        eastern = dt.datetime(2023, 2, 12, 21, 0, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
        self.assertEqual(parse_when("today", now=eastern), day("2023-02-13"))
        self.assertEqual(parse_when("today", now=dt.datetime(2023, 2, 12, 21, 0)), day("2023-02-12"))

    def test_without_now_they_are_unreadable(self):
        for text in ("3 days ago", "yesterday", "an hour ago", "1 month ago"):
            with self.subTest(text=text):
                with self.assertRaisesRegex(AnachronError, "needs the call's timestamp"):
                    parse_when(text)

    def test_now_must_be_a_datetime(self):
        for bad in (D(2023, 2, 12), "2023-02-12T15:00:00Z", 1676214000):
            with self.subTest(now=bad):
                with self.assertRaises(AnachronError):
                    parse_when("3 days ago", now=bad)
                with self.assertRaises(AnachronError):
                    attribute({}, now=bad)

    def test_absurd_ages(self):
        for text in ("999999 years ago", "999999 months ago", "999999 weeks ago"):
            with self.subTest(text=text):
                with self.assertRaisesRegex(AnachronError, "plausible years"):
                    parse_when(text, now=NOW)


class UnreadableTest(unittest.TestCase):
    CASES = {
        # value: a fragment the reason must contain
        None: "not a date: null",
        True: "not a date: true",
        False: "not a date: false",
        "": "empty value",
        "   ": "empty value",
        "soon": "unreadable value 'soon'",
        "yesterday-ish": "unreadable value 'yesterday-ish'",
        "in 3 days": "unreadable value 'in 3 days'",
        "February 9, 2023 at 2:30 PM EST": "unreadable value",   # the zone would decide the day
        "Published: Feb 9, 2023": "unreadable value",
        "09/02/2023": "ambiguous",
        "2/9/2023": "ambiguous",
        "9.2.23": "ambiguous",
        "2023-02-30": "'2023-02-30' is not a real calendar day",
        "Feb 30, 2023": "is not a real calendar day",
        "2023-13": "is not a real month",
        "2023-13-01": "is not a real calendar day",
        "2023-2-9": "unreadable value",
        "Monday, February 9, 2023": "2023-02-09 is a Thursday",
        "Mon, 09 Feb 2023 14:30:00 GMT": "2023-02-09 is a Thursday",
        "Thu, 09 Feb 23 14:30:00 GMT": "unreadable value",         # two-digit year
        "Thu, 09 Feb 2023 14:30:60 GMT": "not a real time of day",  # leap second: not read
        "2023-02-09T25:00:00Z": "not a real time of day",
        "2023-02-09T24:00:00Z": "not a real time of day",
        "2023-02-09T14:30:00+24:00": "impossible UTC offset",
        "2023-02-09Z": "unreadable value",                           # an offset without a time
        "2023-W06": "unreadable value",
        "2023-040": "unreadable value",
        "\uff12\uff10\uff12\uff13-02-09": "unreadable value",         # fullwidth digits
        "\u0662\u0660\u0662\u0663-\u0660\u0662-\u0660\u0669": "unreadable value",  # Arabic-Indic digits
        "2023-02-\u0660\u0669": "unreadable value",
        "1989-12-31": "year 1989",
        "2101-01-01": "year 2101",
        "0001-01-01": "year 1",
        "9999-12-31": "year 9999",
        "1900": "year 1900",
        "0": "1970-01-01",
        "1e9": "unreadable value",
        631151999: "1989-12-31",   # the last second before the plausible years
        -1: "negative",
        -1675900800: "negative",
        float("nan"): "not a finite number",
        float("inf"): "not a finite number",
        10**30: "far outside",
    }

    def test_each_raises_with_its_reason(self):
        for value, reason in self.CASES.items():
            with self.subTest(value=value):
                with self.assertRaises(AnachronError) as caught:
                    parse_when(value, now=NOW)
                self.assertIn(reason, str(caught.exception))
                self.assertIsInstance(caught.exception, ValueError)

    def test_a_long_value_is_not_read(self):
        huge = "2023-02-09 " + "x" * 1_000_000
        with self.assertRaisesRegex(AnachronError, "longer than 100 characters"):
            parse_when(huge)
        a = attribute({"page_age": huge})
        self.assertIsNone(a.first)
        self.assertLess(len(evidence_of(a)), 200)

    def test_zero_is_not_false(self):
        # 0 and False are one dict key above.
        with self.assertRaisesRegex(AnachronError, "epoch value 0 is 1970-01-01"):
            parse_when(0)

    def test_containers_are_not_dates(self):
        self.assertRaisesRegex(AnachronError, "not a date: an array", parse_when, ["2023-02-09"])
        self.assertRaisesRegex(AnachronError, "not a date: an object", parse_when, {"date": "2023-02-09"})


class StatusTest(unittest.TestCase):
    def test_a_day(self):
        a = attribute({"date": "2023-02-09"})
        self.assertEqual(a.status(D(2023, 2, 8)), "leak")
        self.assertEqual(a.status(D(2023, 2, 9)), "known")  # dated on T is known
        self.assertEqual(a.status(D(2023, 2, 10)), "known")

    def test_the_month_containing_t(self):
        a = attribute({"date": "February 2023"})
        self.assertEqual((a.first, a.last), (D(2023, 2, 1), D(2023, 2, 28)))
        self.assertEqual(a.status(D(2023, 1, 31)), "leak")
        self.assertEqual(a.status(D(2023, 2, 1)), "uncertain")
        self.assertEqual(a.status(D(2023, 2, 15)), "uncertain")
        self.assertEqual(a.status(D(2023, 2, 27)), "uncertain")
        self.assertEqual(a.status(D(2023, 2, 28)), "known")
        self.assertEqual(a.status(D(2023, 3, 1)), "known")

    def test_a_leap_february(self):
        a = attribute({"date": "2024-02"})
        self.assertEqual(a.status(D(2024, 2, 28)), "uncertain")
        self.assertEqual(a.status(D(2024, 2, 29)), "known")

    def test_a_year(self):
        a = attribute({"date": "2023"})
        self.assertEqual(a.status(D(2022, 12, 31)), "leak")
        self.assertEqual(a.status(D(2023, 1, 1)), "uncertain")
        self.assertEqual(a.status(D(2023, 12, 30)), "uncertain")
        self.assertEqual(a.status(D(2023, 12, 31)), "known")

    def test_the_utc_day_of_an_offset_time(self):
        # 22:15 in New York on the 9th is 03:15 UTC on the 10th.
        a = attribute({"published": "2023-02-09T22:15:00-05:00"})
        self.assertEqual(a.status(D(2023, 2, 9)), "leak")
        self.assertEqual(a.status(D(2023, 2, 10)), "known")
        # 01:00 in Athens on the 10th is 23:00 UTC on the 9th.
        b = attribute({"published": "2023-02-10T01:00:00+02:00"})
        self.assertEqual(b.status(D(2023, 2, 9)), "known")

    def test_undated(self):
        a = attribute({"date": "soon"})
        self.assertEqual(a.status(D(2023, 2, 9)), "undated")
        self.assertFalse(a.revision_risk(D(2023, 2, 9)))

    def test_every_comparison_goes_through_known_at(self):
        # A different cutoff rule in known_at changes every answer.
        a = attribute({"date": "2023-02-09"})
        with mock.patch.object(record, "known_at", lambda d, as_of: d < as_of):
            self.assertEqual(a.status(D(2023, 2, 9)), "leak")
        b = Attribution(D(2023, 2, 1), D(2023, 2, 1), "day", "url", "/2023/02/01", modified=D(2023, 2, 9))
        self.assertFalse(b.revision_risk(D(2023, 2, 9)))
        with mock.patch.object(record, "known_at", lambda d, as_of: d < as_of):
            self.assertTrue(b.revision_risk(D(2023, 2, 9)))

    def test_as_of_must_be_a_date(self):
        a = attribute({"date": "2023-02-09"})
        for bad in (dt.datetime(2023, 2, 9), "2023-02-09", None):
            with self.subTest(as_of=bad):
                with self.assertRaisesRegex(AnachronError, "as_of must be a datetime.date"):
                    a.status(bad)


class RevisionRiskTest(unittest.TestCase):
    T = D(2023, 6, 1)

    def test_modified_after_t(self):
        a = attribute({"published": "2023-02-09", "dateModified": "2023-06-02T09:00:00Z"})
        self.assertEqual((a.modified, a.modified_source), (D(2023, 6, 2), "field 'dateModified'"))
        self.assertTrue(a.revision_risk(self.T))

    def test_modified_on_t_is_no_risk(self):
        a = attribute({"published": "2023-02-09", "updated": "2023-06-01"})
        self.assertFalse(a.revision_risk(self.T))

    def test_no_risk_unless_the_published_date_is_known(self):
        leak = attribute({"published": "2023-06-02", "modified": "2023-07-01"})
        self.assertEqual(leak.status(self.T), "leak")
        self.assertFalse(leak.revision_risk(self.T))
        uncertain = attribute({"published": "June 2023", "modified": "2023-07-01"})
        self.assertEqual(uncertain.status(self.T), "uncertain")
        self.assertFalse(uncertain.revision_risk(self.T))

    def test_modified_fields_in_order(self):
        a = attribute({"published": "2023-02-09", "updated": "2023-05-01", "dateModified": "2023-07-01"})
        self.assertEqual(a.modified_source, "field 'dateModified'")

    def test_last_modified_beside_a_published_date_is_the_modification(self):
        a = attribute({"published_date": "2023-02-09", "last_modified": "Fri, 02 Jun 2023 10:00:00 GMT"})
        self.assertEqual((a.first, a.source), (D(2023, 2, 9), "field 'published_date'"))
        self.assertEqual((a.modified, a.modified_source), (D(2023, 6, 2), "field 'last_modified'"))
        self.assertTrue(a.revision_risk(self.T))

    def test_last_modified_beside_a_url_date_is_the_modification(self):
        a = attribute({"url": "https://www.nytimes.com/2023/02/09/business/x.html", "last_modified": "2023-06-02"})
        self.assertEqual((a.first, a.source), (D(2023, 2, 9), "url"))
        self.assertEqual(a.modified, D(2023, 6, 2))

    def test_last_modified_alone_dates_the_item(self):
        a = attribute({"url": "https://example.com/about", "last_modified": "Fri, 02 Jun 2023 10:00:00 GMT"})
        self.assertEqual((a.first, a.source), (D(2023, 6, 2), "field 'last_modified'"))
        self.assertIsNone(a.modified)
        self.assertEqual(a.status(self.T), "leak")
        self.assertFalse(a.revision_risk(self.T))

    def test_last_modified_alone_and_unreadable(self):
        a = attribute({"last_modified": "recently", "dateModified": "2023-06-02"})
        self.assertIsNone(a.first)
        self.assertEqual(a.problems, ("field 'last_modified': unreadable value 'recently'",))
        self.assertEqual(a.modified, D(2023, 6, 2))

    def test_html_modification_dates(self):
        page = '<meta property="og:updated_time" content="2023-06-02T00:00:00Z">'
        a = attribute({"date": "2023-02-09", "text": page})
        self.assertEqual((a.modified, a.modified_source), (D(2023, 6, 2), "html og:updated_time"))
        jsonld = '<script type="application/ld+json">{"@type": "Article", "dateModified": "2023-06-02"}</script>'
        b = attribute({"date": "2023-02-09", "text": jsonld})
        self.assertEqual((b.modified, b.modified_source), (D(2023, 6, 2), "html json-ld dateModified"))
        self.assertTrue(b.revision_risk(self.T))

    def test_a_field_modification_comes_before_html(self):
        page = '<meta property="article:modified_time" content="2023-08-01">'
        a = attribute({"date": "2023-02-09", "modified": "2023-06-02", "text": page})
        self.assertEqual(a.modified_source, "field 'modified'")

    def test_a_modification_must_be_a_day(self):
        a = attribute({"date": "2023-02-09", "dateModified": "June 2023", "updated": "2023-06-02"})
        self.assertEqual(a.modified_source, "field 'updated'")
        self.assertEqual(a.problems, ("field 'dateModified': 'June 2023' is a month, not a modification day",))

    def test_unreadable_modification(self):
        a = attribute({"date": "2023-02-09", "dateModified": "later"})
        self.assertIsNone(a.modified)
        self.assertEqual(a.problems, ("field 'dateModified': unreadable value 'later'",))


class SourceOrderTest(unittest.TestCase):
    def test_fields_in_order(self):
        entry = {name: f"2023-02-{i + 1:02d}" for i, name in enumerate(DATE_FIELDS)}
        for i, name in enumerate(DATE_FIELDS[:-1]):
            with self.subTest(first_field=name):
                a = attribute({k: v for k, v in entry.items() if DATE_FIELDS.index(k) >= i})
                self.assertEqual((a.source, a.first), (f"field '{name}'", D(2023, 2, i + 1)))

    def test_an_unreadable_field_falls_through_with_a_problem(self):
        a = attribute({"date": "yesterday-ish", "page_age": "Feb 9, 2023"})
        self.assertEqual(a.source, "field 'page_age'")
        self.assertEqual(a.problems, ("field 'date': unreadable value 'yesterday-ish'",))

    def test_a_field_beats_the_url(self):
        a = attribute({"url": "https://www.nytimes.com/2023/02/08/x.html", "date": "2023-02-09"})
        self.assertEqual(a.source, "field 'date'")

    def test_a_coarse_field_still_wins(self):
        a = attribute({"url": "https://www.nytimes.com/2023/02/09/x.html", "date": "2023"})
        self.assertEqual((a.source, a.granularity), ("field 'date'", "year"))

    def test_the_url_beats_the_snippet(self):
        a = attribute({"url": "https://www.nytimes.com/2023/02/08/x.html", "snippet": "Feb 9, 2023 — x"})
        self.assertEqual((a.source, a.first), ("url", D(2023, 2, 8)))

    def test_the_snippet_beats_html(self):
        a = attribute({"snippet": "Feb 9, 2023 — x", "text": FETCHED_PAGE})
        self.assertEqual((a.source, a.first), ("snippet", D(2023, 2, 9)))
        self.assertEqual(a.modified, D(2023, 3, 1))  # the page's modification is still read

    def test_html_beats_last_modified(self):
        a = attribute({"text": FETCHED_PAGE, "last_modified": "2023-05-01"})
        self.assertEqual(a.source, "html article:published_time")
        self.assertEqual((a.modified, a.modified_source), (D(2023, 5, 1), "field 'last_modified'"))

    def test_problems_are_in_source_order(self):
        a = attribute({"date": "soon", "url": "https://x.com/2023/02/30/y", "snippet": "Feb 30, 2023 — y",
                       "text": '<meta property="article:published_time" content="never">'})
        self.assertEqual(a.problems, (
            "field 'date': unreadable value 'soon'",
            "url: '/2023/02/30' is not a real calendar day",
            "snippet: 'Feb 30, 2023' is not a real calendar day",
            "html article:published_time: unreadable value 'never'",
        ))
        self.assertEqual(a.status(D(2023, 2, 9)), "undated")


class UrlTest(unittest.TestCase):
    CASES = {
        "https://www.nytimes.com/2023/02/09/business/cygnus.html": ("2023-02-09", "day", "/2023/02/09"),
        "https://www.nytimes.com/2023/02/09": ("2023-02-09", "day", "/2023/02/09"),
        "https://example.com/news/2023/02/09.html": ("2023-02-09", "day", "/2023/02/09"),
        "https://www.theguardian.com/business/2023/feb/09/x": ("2023-02-09", "day", "/2023/feb/09"),
        "https://www.example.com/2023-02-09/cygnus-results": ("2023-02-09", "day", "/2023-02-09"),
        "https://www.example.com/2023-02-09-cygnus-results": ("2023-02-09", "day", "/2023-02-09"),
        "https://www.example.com/news/20230209/cygnus": ("2023-02-09", "day", "/20230209"),
        "https://www.example.com/news/20230209.html": ("2023-02-09", "day", "/20230209"),
        "https://blog.example.com/2023/02/cygnus/": ("2023-02-01", "month", "/2023/02"),
        "https://blog.example.com/archive/2023/02": ("2023-02-01", "month", "/2023/02"),
        "https://blog.example.com/2023/02/0912/": ("2023-02-01", "month", "/2023/02"),
        "https://example.com/1234/05/06/2023/02/09/x": ("2023-02-09", "day", "/2023/02/09"),  # implausible year skipped
        "www.nytimes.com/2023/02/09/business/x.html": ("2023-02-09", "day", "/2023/02/09"),
        "//www.nytimes.com/2023/02/09/business/x.html": ("2023-02-09", "day", "/2023/02/09"),
    }
    UNDATED = (
        "https://www.reuters.com/business/cygnus-beats-estimates-2023-02-09/",  # inside a slug
        "https://www.sec.gov/Archives/edgar/data/1318605/000095017023001409/tsla-20221231.htm",
        "https://www.sec.gov/Archives/edgar/data/320193/000032019323000006/0000320193-23-000006-index.htm",
        "https://example.com/search?date=2023-02-09",   # the query is not the path
        "https://example.com/page#2023/02/09",          # nor the fragment
        "https://20230209.example.com/cygnus",          # nor the host
        "https://example.com/3000/01/01/x",             # implausible year
        "https://example.com/1989/12/31/x",
        "https://example.com/2023/13/01/x",             # no month 13
        "https://example.com/2023/",                    # a year alone is not read from a URL
        "https://example.com/202302091/x",              # nine digits
        "https://example.com/2023-02-09x/",
    )

    def test_dated_urls(self):
        for url, (first, granularity, value) in self.CASES.items():
            with self.subTest(url=url):
                a = attribute({"url": url})
                self.assertEqual((a.first.isoformat(), a.granularity, a.source, a.value), (first, granularity, "url", value))

    def test_undated_urls(self):
        for url in self.UNDATED:
            with self.subTest(url=url):
                a = attribute({"url": url})
                self.assertIsNone(a.first)
                self.assertEqual(a.problems, ())

    def test_an_impossible_day_is_a_problem(self):
        a = attribute({"url": "https://example.com/2023/02/30/x"})
        self.assertIsNone(a.first)
        self.assertEqual(a.problems, ("url: '/2023/02/30' is not a real calendar day",))

    def test_the_id_only_when_it_is_a_url(self):
        self.assertEqual(attribute({"id": "https://techcrunch.com/2023/02/09/x/"}).first, D(2023, 2, 9))
        self.assertIsNone(attribute({"id": "fin-20230209"}).first)
        self.assertIsNone(attribute({"id": "/2023/02/09/x"}).first)

    def test_a_url_that_is_not_text(self):
        a = attribute({"url": 20230209, "id": "https://techcrunch.com/2023/02/09/x/"})
        self.assertEqual((a.first, a.source), (D(2023, 2, 9), "url"))
        self.assertEqual(a.problems, ("field 'url': not text: 20230209",))


class SnippetTest(unittest.TestCase):
    CASES = {
        "Feb 9, 2023 — Cygnus Robotics reported a surprise profit ...": "Feb 9, 2023",
        "Feb 9, 2023 ... Cygnus Robotics reported": "Feb 9, 2023",
        "Feb 9, 2023 … Cygnus Robotics reported": "Feb 9, 2023",
        "9 Feb 2023 - Cygnus Robotics reported": "9 Feb 2023",
        "February 9, 2023 · 3 min read": "February 9, 2023",
        "Thursday, February 9, 2023 | Markets": "Thursday, February 9, 2023",
        "2023-02-09 — Form 8-K": "2023-02-09",
        "  Feb  9,  2023 —  spaced out": "Feb 9, 2023",
        "Feb 9, 2023": "Feb 9, 2023",
    }

    def test_leading_dates(self):
        for snippet, value in self.CASES.items():
            with self.subTest(snippet=snippet):
                a = attribute({"snippet": snippet})
                self.assertEqual((a.first, a.source, a.value), (D(2023, 2, 9), "snippet", value))

    def test_relative_leading_date(self):
        a = attribute({"snippet": "3 days ago — Cygnus Robotics reported ..."}, now=NOW)
        self.assertEqual((a.first, a.value), (D(2023, 2, 9), "3 days ago"))
        b = attribute({"snippet": "3 days ago — Cygnus Robotics reported ..."})
        self.assertIsNone(b.first)
        self.assertIn("needs the call's timestamp", b.problems[0])

    def test_not_a_leading_date(self):
        for snippet in (
            "March 2020 was the worst month for Cygnus Robotics",  # prose, and no day
            "Feb 9, 2023 Cygnus Robotics reported",                 # no separator
            "Cygnus Robotics reported on Feb 9, 2023 — a profit",  # not leading
            "On February 9, 2023 — the company said",
            "2023 — a year in review",
        ):
            with self.subTest(snippet=snippet):
                a = attribute({"snippet": snippet})
                self.assertIsNone(a.first)
                self.assertEqual(a.problems, ())

    def test_an_impossible_leading_day(self):
        a = attribute({"snippet": "Feb 30, 2023 — Cygnus"})
        self.assertEqual(a.problems, ("snippet: 'Feb 30, 2023' is not a real calendar day",))

    def test_a_snippet_that_is_not_text(self):
        a = attribute({"snippet": ["Feb 9, 2023 — x"]})
        self.assertIsNone(a.first)
        self.assertEqual(a.problems, ("field 'snippet': not text: an array",))


class HtmlTest(unittest.TestCase):
    def dated(self, page):
        return attribute({"text": page})

    def test_meta_attribute_order_quoting_and_case(self):
        pages = (
            '<meta property="article:published_time" content="2023-02-09T10:00:00Z">',
            '<meta content="2023-02-09T10:00:00Z" property="article:published_time">',
            "<meta content='2023-02-09T10:00:00Z' property='article:published_time'>",
            "<meta property=article:published_time content=2023-02-09T10:00:00Z>",
            '<META PROPERTY="article:published_time" CONTENT="2023-02-09T10:00:00Z"/>',
            '<meta property="ARTICLE:PUBLISHED_TIME" content="2023-02-09T10:00:00Z">',
            '<meta\n  property = "article:published_time"\n  content = "2023-02-09T10:00:00Z" />',
            '<meta name="article:published_time" content="2023-02-09T10:00:00Z">',
            '<meta data-note="a>b" property="article:published_time" content="2023-02-09T10:00:00Z">',
            '<meta property="article:published_time" content="2023-02-09T10:00:00&#43;00:00">',
        )
        for page in pages:
            with self.subTest(page=page):
                a = self.dated("<html><head>" + page + "</head></html>")
                self.assertEqual((a.first, a.source), (D(2023, 2, 9), "html article:published_time"))

    def test_og_published_time(self):
        a = self.dated('<meta property="og:published_time" content="2023-02-09">')
        self.assertEqual(a.source, "html og:published_time")

    def test_article_published_time_before_og(self):
        a = self.dated('<meta property="og:published_time" content="2023-02-08">'
                       '<meta property="article:published_time" content="2023-02-09">')
        self.assertEqual((a.first, a.source), (D(2023, 2, 9), "html article:published_time"))

    def test_json_ld_graph(self):
        page = ('<script type="application/ld+json">{"@context": "https://schema.org", "@graph": ['
                '{"@type": "WebSite", "name": "Example"},'
                '{"@type": "NewsArticle", "datePublished": "2023-02-09T14:00:00Z",'
                ' "hasPart": [{"@type": "NewsArticle", "datePublished": "2021-01-01"}]}]}</script>')
        a = self.dated(page)
        self.assertEqual((a.first, a.source, a.value), (D(2023, 2, 9), "html json-ld datePublished", "2023-02-09T14:00:00Z"))

    def test_json_ld_shallowest_wins(self):
        page = ('<script type="application/ld+json">[{"@type": "ItemList", "itemListElement": '
                '[{"item": {"datePublished": "2021-01-01"}}]}, {"@type": "Article", "datePublished": "2023-02-09"}]'
                '</script>')
        self.assertEqual(self.dated(page).first, D(2023, 2, 9))

    def test_invalid_json_ld_falls_to_time(self):
        page = ('<script type="application/ld+json">{"datePublished": "2023-02-08",}</script>'
                '<p>By Jane <time datetime="2023-02-09T08:00:00-05:00">Feb 9</time></p>')
        a = self.dated(page)
        self.assertEqual((a.first, a.source), (D(2023, 2, 9), "html <time datetime>"))
        self.assertEqual(a.problems, ("html json-ld: not valid JSON",))

    def test_json_ld_value_not_text(self):
        a = self.dated('<script type="application/ld+json">{"datePublished": ["2023-02-09"]}</script>')
        self.assertIsNone(a.first)
        self.assertEqual(a.problems, ("html json-ld datePublished: not a date: an array",))

    def test_only_the_first_time_with_datetime(self):
        page = '<time>Feb 9</time><time datetime="2023-02-09">x</time><time datetime="2023-02-01">y</time>'
        a = self.dated(page)
        self.assertEqual((a.first, a.value), (D(2023, 2, 9), "2023-02-09"))

    def test_comments_are_skipped(self):
        page = ('<!-- <meta property="article:published_time" content="2019-01-01"> -->'
                '<meta property="article:published_time" content="2023-02-09">')
        self.assertEqual(self.dated(page).first, D(2023, 2, 9))
        self.assertIsNone(self.dated('<!-- <time datetime="2019-01-01"></time>').first)  # unclosed

    def test_other_scripts_are_not_json_ld(self):
        page = '<script type="text/javascript">var x = {"datePublished": "2019-01-01", "t": "+json"};</script>'
        self.assertIsNone(self.dated(page).first)

    def test_unreadable_meta_content(self):
        a = self.dated('<meta property="article:published_time" content="">'
                       '<time datetime="2023-02-09"></time>')
        self.assertEqual((a.first, a.source), (D(2023, 2, 9), "html <time datetime>"))
        self.assertEqual(a.problems, ("html article:published_time: empty value",))

    def test_plain_text_is_not_html(self):
        self.assertIsNone(self.dated("February 9, 2023. Cygnus Robotics said ...").first)
        # a stated publication in plain text is a source, but a statement, not HTML metadata
        a = self.dated("Published: February 9, 2023. Cygnus Robotics said ...")
        self.assertEqual([s.source for s in a.sources], ["text statement"])

    def test_text_that_is_not_text(self):
        a = attribute({"text": {"html": FETCHED_PAGE}})
        self.assertIsNone(a.first)
        self.assertEqual(a.problems, ("field 'text': not text: an object",))


class WorkBoundTest(unittest.TestCase):
    """A megabyte text costs a bounded amount of work: only the first
    HTML_SCAN_CHARS characters are read, and no character twice."""

    META = '<meta property="article:published_time" content="2023-02-09">'

    def test_metadata_past_the_window_is_not_read(self):
        padding = "<p>" + "x" * (HTML_SCAN_CHARS - 3)
        late = padding + self.META + "y" * 1_000_000
        self.assertGreater(len(late), 1_000_000)
        self.assertIsNone(attribute({"text": late}).first)
        early = padding[: HTML_SCAN_CHARS - len(self.META)] + self.META + "y" * 1_000_000
        self.assertEqual(attribute({"text": early}).first, D(2023, 2, 9))

    def scan(self, text):
        """html_dates on *text*, recording every region its scanners examined."""
        regions = []

        class Recorder:
            def __init__(self, name, pattern=None):
                self.name, self.pattern = name, pattern or getattr(html_meta, name)

            def search(self, string, pos=0, endpos=None):
                found = self.pattern.search(string, pos, endpos)
                regions.append((self.name, pos, found.end() if found else endpos, endpos))
                return found

            def findall(self, string, pos=0, endpos=None):
                regions.append((self.name, pos, endpos, endpos))
                return self.pattern.findall(string, pos, endpos)

            def match(self, string, pos=0, endpos=None):
                found = self.pattern.match(string, pos, endpos)
                regions.append((self.name, pos, found.end() if found else endpos, endpos))
                return found

        with mock.patch.object(html_meta, "_MARKUP", Recorder("_MARKUP")), \
                mock.patch.object(html_meta, "_TAG_REST", Recorder("_TAG_REST")), \
                mock.patch.object(html_meta, "_BLOCK_TAGS", {
                    name: (Recorder(f"<{name}", opens), Recorder(f"</{name}", closes))
                    for name, (opens, closes) in getattr(html_meta, "_BLOCK_TAGS").items()
                }), \
                mock.patch.object(html_meta, "_END_OF", {
                    name: Recorder(f"end of {name}", pattern) for name, pattern in getattr(html_meta, "_END_OF").items()
                }):
            found = html_dates(text, [])
        return found, regions

    def assert_linear(self, regions):
        """The scan never goes back over examined text; only a block's opening tags are counted
        over the stretch its close tag was looked for in (so a character is examined at most twice)."""
        examined, last_end, counted_from = 0, 0, 0
        for name, start, end, limit in regions:
            self.assertLessEqual(limit, HTML_SCAN_CHARS)  # nothing past the window
            if name == "_TAG_REST":
                self.assertLessEqual(limit - start, MAX_TAG_CHARS)  # a tag's end is looked for nearby
            if name.startswith("<") and not name.startswith("</"):  # counting a block's opening tags
                self.assertGreaterEqual(start, counted_from)
                examined += end - start
                continue
            self.assertGreaterEqual(start, last_end)      # never back over examined text
            examined += end - start
            counted_from, last_end = start, end
        self.assertLessEqual(examined, 2 * HTML_SCAN_CHARS)

    def test_pathological_pages(self):
        pages = {
            "unclosed quotes": '<meta property="article:published_time" content="' * 50_000,
            "tags without end": "<meta _time " * 100_000,
            "time tags without end": "<time datetime='x " * 60_000,
            "many json-ld starts": '<script type="application/ld+json">' * 30_000,
            "unclosed comment": "<!--" + "<meta _time>" * 100_000,
            "nested asides": "<aside>" * 100_000,
            "a related block of nested divs": '<div class="related">' + "<div>" * 100_000 + "</div>" * 100_000,
            "related blocks one after another": '<div class="related"></div>' * 30_000,
            "unclosed scripts and styles": "<script><style>" * 50_000,
            "a real page": FETCHED_PAGE * 2_000,
        }
        for name, page in pages.items():
            with self.subTest(page=name):
                self.assertGreater(len(page), 1_000_000 // 2)
                found, regions = self.scan(page)
                self.assert_linear(regions)
                if name == "a real page":
                    self.assertEqual(found["html article:published_time"], "2023-02-09T22:15:00-05:00")

    def test_deep_json_ld(self):
        page = '<script type="application/ld+json">' + "[" * 100_000 + "]" * 100_000 + "</script>"
        a = attribute({"text": page})
        self.assertIsNone(a.first)
        self.assertEqual(a.problems, ("html json-ld: not valid JSON",))

    def test_a_megabyte_snippet_or_field(self):
        a = attribute({"snippet": "Feb 9, 2023 — " + "x" * 1_000_000})
        self.assertEqual(a.first, D(2023, 2, 9))
        b = attribute({"date": "x" * 1_000_000})
        self.assertIn("longer than 100 characters", b.problems[0])


class NeverRaisesTest(unittest.TestCase):
    VALUES = (None, True, False, 0, -1, 1.5, float("nan"), float("inf"), -float("inf"), 10**40, "", " ", "x",
              "2023-02-30", "Feb 9, 2023", "3 days ago", "\u0000", "\n\n", "<meta", [], [1, 2], {}, {"a": None},
              "9" * 200, "٢٠٢٣", "2023-02-09T23:30:00-05:00")
    FIELDS = DATE_FIELDS + MODIFIED_FIELDS + ("url", "id", "snippet", "text")

    def test_every_value_in_every_field(self):
        for name in self.FIELDS:
            for value in self.VALUES:
                for now in (None, NOW):
                    with self.subTest(field=name, value=value, now=now):
                        a = attribute({name: value}, now=now)
                        self.assertIsInstance(a, Attribution)
                        self.assertIn(a.status(D(2023, 2, 9)), ("known", "leak", "uncertain", "undated"))
                        self.assertNotIn("\n", evidence_of(a))

    def test_random_entries(self):
        rng = random.Random(7)

        def value(depth=0):
            kind = rng.randrange(8 if depth < 2 else 6)
            if kind == 0:
                return rng.choice(self.VALUES)
            if kind == 1:
                return rng.randint(-10**15, 10**15)
            if kind == 2:
                return rng.uniform(-1e13, 1e13)
            if kind in (3, 4, 5):
                return "".join(rng.choice("0123456789-/:TZ +,.abcdefghijklmnopqrstuvwxyz<>\"'=_") for _ in range(rng.randint(0, 40)))
            if kind == 6:
                return [value(depth + 1) for _ in range(rng.randint(0, 3))]
            return {rng.choice(self.FIELDS): value(depth + 1) for _ in range(rng.randint(0, 3))}

        for _ in range(3_000):
            entry = {rng.choice(self.FIELDS): value() for _ in range(rng.randint(0, 6))}
            a = attribute(json.loads(json.dumps(entry)) if rng.random() < 0.5 else entry, now=rng.choice((None, NOW)))
            self.assertIsInstance(a, Attribution)
            if a.first is not None:
                self.assertLessEqual(a.first, a.last)
                self.assertIn(a.granularity, GRANULARITIES)
                self.assertIn(a.first.year, attribution.PLAUSIBLE_YEARS)
            self.assertNotIn("\n", evidence_of(a))

    def test_entries_that_are_not_objects(self):
        for entry in (None, [], "https://x.com/2023/02/09/", 5, ["date", "2023-02-09"]):
            with self.subTest(entry=entry):
                a = attribute(entry)
                self.assertIsNone(a.first)
                self.assertTrue(a.problems[0].startswith("entry: expected an object, got "))

    def test_deterministic(self):
        entry = {"page_age": "3 days ago", "url": "https://x.com/2023/02/09/", "text": FETCHED_PAGE}
        self.assertEqual(attribute(entry, now=NOW), attribute(dict(entry), now=NOW))


class EvidenceTest(unittest.TestCase):
    def test_lines(self):
        cases = [
            ({"page_age": "February 9, 2023"}, "dated 2023-02-09 by field 'page_age' (\"February 9, 2023\")"),
            ({"url": "https://blog.example.com/2023/02/x/"}, 'dated 2023-02 (month) by url ("/2023/02")'),
            ({"date": "2023"}, 'dated 2023 (year) by field \'date\' ("2023")'),
            ({"date": 1675900800}, "dated 2023-02-09 by field 'date' (\"1675900800\")"),
            ({"date": "soon"}, "undated (field 'date': unreadable value 'soon')"),
            ({}, "undated (no date found)"),
            ({"published": "2023-02-09", "updated": "2023-06-02"},
             "dated 2023-02-09 by field 'published' (\"2023-02-09\"); modified 2023-06-02 by field 'updated'"),
        ]
        for entry, line in cases:
            with self.subTest(entry=entry):
                self.assertEqual(evidence_of(attribute(entry)), line)

    def test_one_line_and_cut(self):
        a = Attribution(D(2023, 2, 9), D(2023, 2, 9), "day", "html <time datetime>", "2023-02-09\n\n" + "x " * 100)
        line = evidence_of(a)
        self.assertNotIn("\n", line)
        self.assertTrue(line.startswith('dated 2023-02-09 by html <time datetime> ("2023-02-09 x x'))
        self.assertTrue(line.endswith('...")'))
        self.assertLess(len(line), 120)

    def test_unreadable_values_are_cut_and_quoted(self):
        a = attribute({"date": "not\na\tdate " * 20})
        line = evidence_of(a)
        self.assertNotIn("\n", line)
        self.assertIn("unreadable value 'not a date not a date", line)
        self.assertLess(len(line), 140)

    def test_many_problems(self):
        entry = {name: "soon" for name in DATE_FIELDS}
        line = evidence_of(attribute(entry))
        self.assertTrue(line.startswith("undated (field 'publish_date': unreadable value 'soon'; "))
        self.assertTrue(line.endswith(f"; {len(DATE_FIELDS) - 3} more)"))


if __name__ == "__main__":
    unittest.main()
