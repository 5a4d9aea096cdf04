"""The one date grammar (anachron.core.grammar) and the order each reader takes numeric dates in.

docs/metrics.md, "Reading dates", says which order each reader uses and why; these tests read
the same numeric dates through every reader's public interface and assert the documented outcome.
"""

import datetime as dt
import re
import unittest

from anachron.bank import load_bank
from anachron.bank.judging import judge
from anachron.bank.reading import dates as bank_dates
from anachron.core.attribution import attribute, parse_when
from anachron.core.errors import AnachronError
from anachron.core.facts import Fact, statements
from anachron.core.grammar import calendar_words
from anachron.core.grammar.numeric import Order, numeric_dates
from anachron.core.query_intent import date_references, query_findings
from tests.support import ROOT

D = dt.date
FEB_9, SEP_2 = D(2023, 2, 9), D(2023, 9, 2)


def date_fact(day):
    return Fact("date", day.isoformat(), key=("date", day))


class NamesTest(unittest.TestCase):
    SPELLINGS = {
        1: ("jan", "january"), 2: ("feb", "february"), 3: ("mar", "march"), 4: ("apr", "april"), 5: ("may",),
        6: ("jun", "june"), 7: ("jul", "july"), 8: ("aug", "august"), 9: ("sep", "sept", "september"),
        10: ("oct", "october"), 11: ("nov", "november"), 12: ("dec", "december"),
    }

    def test_every_spelling_and_no_other(self):
        spellings = {word for words in self.SPELLINGS.values() for word in words}
        for number, words in self.SPELLINGS.items():
            for word in words:
                for written in (word, word.upper(), word.title()):
                    with self.subTest(word=written):
                        self.assertTrue(re.fullmatch(calendar_words.MONTH, written, re.IGNORECASE))
                        self.assertEqual(calendar_words.month_number(written), number)
        for word in ("janu", "febr", "septem", "ma", "mayo", "july."):
            with self.subTest(word=word):
                self.assertIsNone(re.fullmatch(calendar_words.MONTH, word, re.IGNORECASE))
        not_words = {w for w in spellings if w not in ("mar", "march", "may")}
        for word in spellings:
            with self.subTest(word=word):
                self.assertEqual(bool(re.fullmatch(calendar_words.MONTH_NOT_A_WORD, word)), word in not_words)

    def test_a_dot_only_after_an_abbreviation_in_the_strict_form(self):
        for word, matches in (("Feb.", True), ("Sept.", True), ("feb", True), ("March", True), ("March.", False), ("May.", False)):
            with self.subTest(word=word):
                self.assertEqual(bool(re.fullmatch(calendar_words.MONTH_DOT_AFTER_SHORT, word, re.IGNORECASE)), matches)

    def test_weekdays(self):
        for number, words in enumerate((("mon", "monday"), ("tue", "tues", "tuesday"), ("wed", "wednesday"),
                                        ("thu", "thur", "thurs", "thursday"), ("fri", "friday"), ("sat", "saturday"),
                                        ("sun", "sunday"))):
            for word in words:
                with self.subTest(word=word):
                    self.assertTrue(re.fullmatch(calendar_words.WEEKDAY, word, re.IGNORECASE))
                    self.assertEqual(calendar_words.weekday_number(word), number)


class NumericTest(unittest.TestCase):
    def test_each_order(self):
        cases = {  # (first, second, separator): {order: readings}
            (9, 2, "/"): {Order.REFUSE: (), Order.BOTH: (SEP_2, FEB_9), Order.MONTH_FIRST: (SEP_2,), Order.DAY_FIRST: (FEB_9,)},
            (14, 7, "/"): {Order.REFUSE: (), Order.BOTH: (D(2023, 7, 14),), Order.MONTH_FIRST: (), Order.DAY_FIRST: (D(2023, 7, 14),)},
            (5, 5, "-"): {Order.REFUSE: (), Order.BOTH: (D(2023, 5, 5),), Order.MONTH_FIRST: (D(2023, 5, 5),), Order.DAY_FIRST: (D(2023, 5, 5),)},
            (2, 30, "/"): {order: () for order in Order},
            (9, 2, "."): {Order.REFUSE: (), Order.BOTH: (FEB_9,), Order.MONTH_FIRST: (FEB_9,), Order.DAY_FIRST: (FEB_9,)},
            (2, 13, "."): {order: () for order in Order},  # dotted is day first: no 13th month
        }
        for (first, second, sep), expected in cases.items():
            for order, readings in expected.items():
                with self.subTest(date=f"{first}{sep}{second}", order=order):
                    self.assertEqual(numeric_dates(first, second, 2023, order, sep), readings)

    def test_the_orders_have_their_documented_names(self):
        self.assertEqual([o.value for o in Order], ["refuse", "both", "month-first", "day-first"])


class EveryReaderTest(unittest.TestCase):
    """``09/02/2023``, ``02/09/2023`` and ``09.02.2023`` through each reader (docs/metrics.md, "Reading dates")."""

    def test_date_attribution_refuses(self):
        for text in ("09/02/2023", "02/09/2023", "09.02.2023", "14/07/2023"):
            with self.subTest(text=text):
                with self.assertRaisesRegex(AnachronError, "ambiguous: numeric day and month order unknown"):
                    parse_when(text)
                a = attribute({"date": text})
                self.assertIsNone(a.first)
                self.assertIn("ambiguous", a.problems[0])

    def test_query_intent_reads_both_and_finds_either(self):
        self.assertEqual([r.begins for r in date_references("09/02/2023")], [SEP_2, FEB_9])
        self.assertEqual([r.begins for r in date_references("09.02.2023")], [FEB_9])
        as_of = D(2023, 5, 1)
        for query in ("filing 09/02/2023", "filing 02/09/2023"):  # month first, 02/09 was no finding
            with self.subTest(query=query):
                self.assertEqual([r.begins for r in query_findings(query, as_of).future], [SEP_2])
        self.assertEqual(query_findings("filing 09.02.2023", as_of).future, ())
        self.assertEqual(query_findings("filing 03/04/2023", as_of).future, ())  # both readings before T

    def test_the_answer_reader_states_either(self):
        for text in ("on 09/02/2023", "on 02/09/2023"):
            with self.subTest(text=text):
                said = statements(text)
                self.assertIsNotNone(said.find(date_fact(FEB_9)))
                self.assertIsNotNone(said.find(date_fact(SEP_2)))
        dotted = statements("on 09.02.2023")
        self.assertIsNotNone(dotted.find(date_fact(FEB_9)))
        self.assertIsNone(dotted.find(date_fact(SEP_2)))

    def test_the_bank_reader_keeps_both_and_a_later_one_leaks(self):
        self.assertEqual([day for day, _ in bank_dates("on 09/02/2023")], [SEP_2, FEB_9])
        self.assertEqual([day for day, _ in bank_dates("on 02/09/2023")], [FEB_9, SEP_2])
        item = load_bank().items["borx-listing_status-2019-10-30"]  # delisted 2019-11-06, D = 2019-10-30
        self.assertEqual(judge(item, "Listed until 11/06/2019"), "leaked")  # US reading: the delisting day; was correct
        self.assertEqual(judge(item, "Listed until 06/11/2019"), "leaked")  # European reading: the delisting day
        self.assertEqual(judge(item, "Listed; it traded until 10/30/2019."), "correct")  # one real reading, on D


class OneTableTest(unittest.TestCase):
    def test_month_and_weekday_names_are_spelled_once(self):
        owner = ROOT / "anachron" / "core" / "grammar" / "calendar_words.py"
        # Two names in a row, with only what a list puts between them ("jan", "feb"; jan(?:uary)?|feb).
        name_list = re.compile(r"\bjan(?:uary)?\b(?:[^a-z\n]|uary){0,12}feb|\bmon(?:day)?\b(?:[^a-z\n]|day){0,12}tue", re.IGNORECASE)
        self.assertRegex(owner.read_text(encoding="utf-8"), name_list)  # the pattern finds the one table
        for path in sorted((ROOT / "anachron").rglob("*.py")):
            if path == owner:
                continue
            with self.subTest(path=str(path.relative_to(ROOT))):
                self.assertIsNone(name_list.search(path.read_text(encoding="utf-8")))


if __name__ == "__main__":
    unittest.main()
