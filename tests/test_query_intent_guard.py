"""The date detector's guards: they only skip positions where no reference can start.

Each of the detector's two patterns begins with a look-ahead (``_STARTS_WRITTEN``,
``_STARTS_ANCHORED``) naming how a match can begin, so that most words fail at once.  Taking
the look-ahead out must change no match: here both versions run over seeded random texts
made of every form's pieces, words that share their first letters, case and Unicode case
variants, digits and separators.  The same holds for the guard that lets a year skip the
product names it may follow (Office 2019) unless a word and a space stand before it.
"""

import random
import re
import unittest

from anachron.core import query_intent as qi

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
    "agenda", "radeon", "km", "street", "wall", "broadway", "hkex",
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
]
GLUE = [" ", " ", " ", "  ", "-", "/", ":", ": ", "'", ".", ",", ", ", "\n", "\u2013", "", "#", "$"]


def unguarded(pattern: re.Pattern, guard: str) -> re.Pattern:
    """*pattern* without its guards: the start guard, and the one before the product names."""
    assert guard in pattern.pattern
    source = pattern.pattern.replace(guard, "", 1).replace("(?:" + qi._AFTER_A_WORD + "|", "(?:", 1)
    return re.compile(source, pattern.flags)


def texts(seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 14)):
            parts += [rng.choice(PIECES), rng.choice(GLUE)]
        yield "".join(parts)


class StartGuardTest(unittest.TestCase):
    def assert_same_matches(self, pattern: re.Pattern, guard: str, seed: int) -> None:
        plain = unguarded(pattern, guard)
        for text in texts(seed, 4000):
            with self.subTest(text=text):
                self.assertEqual(
                    [(m.span(), m.lastgroup) for m in pattern.finditer(text)],
                    [(m.span(), m.lastgroup) for m in plain.finditer(text)],
                )

    def test_written_out_forms_match_as_without_the_guard(self):
        self.assert_same_matches(qi._PATTERN, qi._STARTS_WRITTEN, seed=1)

    def test_anchored_forms_match_as_without_the_guard(self):
        self.assert_same_matches(qi._ANCHORED, qi._STARTS_ANCHORED, seed=2)

    def test_the_guards_are_look_aheads_at_the_start(self):
        # they must stay zero-width and come before the prefix, or they would change what matches
        for pattern, guard in ((qi._PATTERN, qi._STARTS_WRITTEN), (qi._ANCHORED, qi._STARTS_ANCHORED)):
            self.assertTrue(guard.startswith("(?=") and guard.endswith(")"))
            self.assertTrue(pattern.pattern.startswith(r"(?<![\w$£€¥.,#])" + guard))

    def test_a_word_the_guard_refuses_starts_no_reference(self):
        self.assertEqual(qi.date_references("gravel zinc 2023"), qi.date_references("2023"))
        self.assertEqual([r.text for r in qi.query_findings("quarry tomorrow", qi._dt.date(2022, 1, 1)).future], ["tomorrow"])


if __name__ == "__main__":
    unittest.main()
