"""The date detector's guards: they only skip positions where no reference can start.

Each of the detector's two patterns begins with a look-ahead (``_STARTS_WRITTEN``,
``_STARTS_ANCHORED``) naming how a match can begin, so that most words fail at once.  Taking
the look-ahead out must change no match: here both versions run over seeded random texts
made of every form's pieces, words that share their first letters, case and Unicode case
variants, digits and separators.  The same holds for the guard that lets a year skip the
product names it may follow (Office 2019) unless a word and a space stand before it, for the
guard that skips at a digit the forms that begin with none, for the one before the month names
after a day, and for the one that skips every other form at a year standing alone.
"""

import itertools
import random
import re
import unittest

import datetime as _dt

from anachron.core.query_intent import patterns as qi
from anachron.core.query_intent import date_references, query_findings
from anachron.core.grammar.calendar_words import FOREIGN_MONTH, MONTH_DOT_AFTER_SHORT

PIECES = [
    # words that start references, in several cases, and words that only share their first letters
    "after", "After", "AFTER", "since", "before", "until", "by", "the", "The", "end", "close", "year", "early",
    "mid", "late", "week", "of", "ending", "ended", "beginning", "starting", "january", "Jan", "feb.", "March",
    "mar", "apr", "May", "june", "jul", "July", "aug", "sept", "Sep", "october", "nov", "Dec", "Q3", "q1", "q5",
    "h1", "H2", "h3", "first", "second", "third", "fourth", "1st", "2nd", "3rd", "4th", "fy", "FY", "fiscal",
    "calendar", "cy", "CY", "quarter", "half", "season", "day", "tomorrow", "today", "tonight", "yesterday",
    "this", "current", "later", "rest", "remainder", "balance", "next", "coming", "month", "ahead", "in", "on",
    "through", "time", "from", "now", "hence", "out", "a", "an", "one", "two", "three", "twelve", "few",
    "several", "decade", "thesis", "endless", "mayor", "quarterly", "fyi", "cyan", "major", "nothing", "often",
    "insight", "also", "report", "results", "office", "russell", "Windows", "rtx", "geforce", "ruſſell", "vision",
    "agenda", "radeon", "km", "street", "wall", "broadway", "hkex", "server", "studio", "excel", "powerpoint",
    "sharepoint", "visio", "autocad", "revit", "photoshop", "illustrator", "gtx", "rx", "xrx", "the office",
    "rsa", "\u017fince", "\u212aelvin", "\u0130n", "ınto",  # Unicode case variants: long s, Kelvin sign, dotted and dotless i
    # phrases the forms are made of (a random draw seldom strings their words together)
    "the end of", "by the end of", "end of the", "close of", "year-end", "year end", "end-", "week of",
    "week ending", "early-", "mid ", "after the", "since:", "before:", "the day after tomorrow", "the rest of the",
    "remainder of this", "third quarter of", "first half of", "calendar year", "fiscal year", "in the next",
    "years from now", "months later", "june quarter", "this fiscal year", "next quarter", "year after next",
    "in may", "late march", "of mar", "14th of July", "July 4th,", "balance of the", "rest of this", "coming two",
    "current quarter", "week ahead", "two weeks later", "a year from now", "through may", "on june 3", "within",
    # numbers and numeric shapes
    "1", "7", "12", "14", "23", "31", "2019", "2023", "2024", "1999", "2050", "555", "2023-07-14", "14.07.2023",
    "07/14/2023", "10/2023", "2023/24", "2011-12", "2023Q3", "3Q23", "2H23", "2023H1", "'23", "\u201923", "T09:30:00Z",
    "2020.HK", "7203.T", "$2024",
    # issue 23: month names in other languages (and words sharing their first letters), apostrophe years,
    # unpadded, dotted and compact dates, CJK suffixes, weekdays
    "März", "MÄRZ", "maerz", "juillet", "Juil.", "août", "AOÛT", "décembre", "DÉCEMBRE", "Jänner", "okt", "mei", "mai",
    "mars", "marzo", "março", "maart", "mrt", "de", "del", "er", "14.", "1er", "mayo", "août", "juin", "augustus",
    "dezember", "dez", "févr", "février", "gennaio", "giugno", "luglio", "ottobre", "outubro", "setembro", "ene",
    "abril", "avril", "avr", "enero", "dic", "marchand", "juinx", "aoûts", "jamais", "ottoman", "'", "’", "'24",
    "2023.07.14", "2023-7-14", "2023/7/9", "20230714", "20231399", "Jul-", "fiscal Q1", "fy q2", "upcoming", "friday",
    "next friday", "this monday", "coming sunday", "from today", "2023年", "년", "月", "日", "2023년 7월",
    # forms that may begin with a digit where most of their kind begin with a letter (an ordinal), and
    # a day before each letter a month name may begin with
    "1st quarter", "2nd half of", "3rd quarter of fy", "4th quarter of", "2nd half", "1st half of cy",
    "14 gennaio", "3 giugno", "9. luglio", "1er août", "31 de enero", "2 okt", "5 mei", "7 mars", "12 Dez.",
    "6 Juni", "10 settembre", "8 novembre", "4 abril", "20 Februar", "1 sept.", "13 oct",
]
GLUE = [" ", " ", " ", "  ", "-", "/", ":", ": ", "'", ".", ",", ", ", "\n", "\u2013", "", "#", "$"]


def unguarded(pattern: re.Pattern, guard: str) -> re.Pattern:
    """*pattern* without its guards: the start guard, the one before the product names, and those of
    the forms that begin with no digit, of the month names after a day and of a year standing alone."""
    assert guard in pattern.pattern
    source = pattern.pattern.replace(guard, "", 1).replace("(?:" + qi.AFTER_A_WORD + "|", "(?:", 1)
    if pattern is qi.PATTERN:
        assert source.count("|" + qi.NO_DIGIT + "(?P<") >= 9 and qi.A_MONTH_NAME + "(?P<fdmy_m>" in source
        source = source.replace("|" + qi.NO_DIGIT + "(?P<", "|(?P<").replace(qi.A_MONTH_NAME + "(?P<", "(?P<")
        assert source.count(qi.NOT_A_BARE_YEAR + "(?:") == 1
        source = source.replace(qi.NOT_A_BARE_YEAR + "(?:", "(?:", 1)
    return re.compile(source, pattern.flags)


def texts(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 14)):
            parts += [rng.choice(PIECES), rng.choice(GLUE)]
        yield "".join(parts)


def matches(pattern: re.Pattern, text: str) -> list:
    return [(m.span(), m.lastgroup) for m in pattern.finditer(text)]


class StartGuardTest(unittest.TestCase):
    def assert_same_matches(self, pattern: re.Pattern, guard: str, seed: int) -> None:
        self.assert_read_alike(pattern, unguarded(pattern, guard), texts(seed, 4000))

    def assert_read_alike(self, pattern: re.Pattern, plain: re.Pattern, texts) -> None:
        for text in texts:
            with self.subTest(text=text):
                self.assertEqual(matches(pattern, text), matches(plain, text))

    def test_written_out_forms_match_as_without_the_guard(self):
        self.assert_same_matches(qi.PATTERN, qi.STARTS_WRITTEN, seed=1)

    def test_every_month_spelling_after_a_day_matches_as_without_the_guards(self):
        # The guard before the month names after a day is built from their first letters: every
        # spelling the grammar has (FOREIGN_MONTH's words, and MONTH's: the words of the dotted form)
        # is read after a day, in three cases, as without the guard.
        words = re.findall(r"[^\W\d_]+", FOREIGN_MONTH + " " + MONTH_DOT_AFTER_SHORT)
        forms = ("{d} {m} {y}", "{d}. {m} {y}", "{d} de {m} de {y}", "{d}er {m} {y}")
        self.assert_read_alike(qi.PATTERN, unguarded(qi.PATTERN, qi.STARTS_WRITTEN), (
            "sales " + form.format(d=14, m=case(word), y=2023)
            for word, case, form in itertools.product(words, (str.lower, str.title, str.upper), forms)))

    def test_forms_that_begin_with_an_ordinal_match_as_without_the_guards(self):
        self.assert_read_alike(qi.PATTERN, unguarded(qi.PATTERN, qi.STARTS_WRITTEN), (
            f"results {ordinal} {part} {year}"
            for ordinal, part, year in itertools.product(("1st", "2nd", "3rd", "4th"), ("quarter", "half", "quarter of fy", "half of cy"), ("2023", "24"))))

    def test_a_year_and_what_follows_it_match_as_without_the_guards(self):
        # The guard at a year standing alone skips every other form: each thing that may follow a
        # year (a separator, a quarter or half, more digits, a month, a unit, a CJK suffix) is read
        # as without it, with what may stand before the year.
        glues = [*GLUE, "  ", "\t", " - ", " / ", " \u2013 ", "--", "//", "-/", "\u00a0", "_"]
        tails = ["", "q3", "Q3", "q5", "h1", "H2", "h3", "7", "07", "12", "24", "0714", "07-14", "7-14", "07/14",
                 "7/9", "07.14", "march", "Mar", "km", "HK", "年", "fy", "x", "2024", "25", "quarter", "half"]
        befores = ("", "end of ", "after ", "sales ", "Office ", "FY", "14 ")
        self.assert_read_alike(qi.PATTERN, unguarded(qi.PATTERN, qi.STARTS_WRITTEN), (
            before + year + glue + tail
            for before, year, glue, tail in itertools.product(befores, ("2023", "1999", "2150"), glues, tails)))

    def test_a_year_after_each_product_name_matches_as_without_the_guards(self):
        # The guard before the product names lets a year skip them unless a letter one of them ends
        # with and a space stand before it: each name, in three cases, still turns the year away.
        plain = unguarded(qi.PATTERN, qi.STARTS_WRITTEN)
        for name, case, year in itertools.product(qi._PRODUCTS, (str.lower, str.title, str.upper), ("2019", "2000")):
            text = f"the {case(name)} {year}"
            with self.subTest(text=text):
                found = matches(qi.PATTERN, text)
                self.assertEqual(found, matches(plain, text))
                self.assertEqual(found, [])

    def test_anchored_forms_match_as_without_the_guard(self):
        self.assert_same_matches(qi.ANCHORED, qi._STARTS_ANCHORED, seed=2)

    def test_the_guards_are_look_aheads_at_the_start(self):
        # they must stay zero-width and come before the prefix, or they would change what matches
        for pattern, guard in ((qi.PATTERN, qi.STARTS_WRITTEN), (qi.ANCHORED, qi._STARTS_ANCHORED)):
            self.assertTrue(guard.startswith("(?=") and guard.endswith(")"))
            self.assertTrue(pattern.pattern.startswith(r"(?<![\w$£€¥.,#])" + guard))

    def test_a_word_the_guard_refuses_starts_no_reference(self):
        self.assertEqual(date_references("gravel zinc 2023"), date_references("2023"))
        self.assertEqual([r.text for r in query_findings("quarry tomorrow", _dt.date(2022, 1, 1)).future], ["tomorrow"])


if __name__ == "__main__":
    unittest.main()
