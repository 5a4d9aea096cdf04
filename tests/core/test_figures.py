"""The one figure reader (anachron.core.figures), seen through both of its readers.

The answer-leak reader (anachron.core.facts: does an answer state a fact?)
and the bank judge (anachron.bank: which figure does an answer give?) used
to read figures with two different tables; each contradiction resolved is
a line in CHANGELOG.md and a test here, through the public interfaces.
"""

from __future__ import annotations

import unittest
from fractions import Fraction

from anachron.bank.judging import candidates
from anachron.bank.values import matches
from anachron.core import build_corpus
from anachron.core.facts import statements
from anachron.core.figures import read_figures, same_figure
from tests.corpus_fixtures import item


def money_fact(value: str):
    row = item("x", "2021-01-01")
    row["facts"] = [{"kind": "money", "value": value, "currency": "USD"}]
    return build_corpus([("items.jsonl:1", row)]).items["x"].facts[0]


class BothReadersAgree(unittest.TestCase):
    def test_bln_and_bil_are_billions_to_both_readers(self):
        fact = money_fact("5000000000")
        for text in ("$5 bln", "$5 bil", "$5bn", "$5 billion", "USD 5 BLN"):
            with self.subTest(text=text):
                self.assertEqual(statements(text).find(fact), text.strip())
                self.assertEqual(candidates(text, "USD"), [5_000_000_000])
        for text in ("$5 bln", "$5 bil"):
            self.assertIsNone(statements(text).find(money_fact("5")), text)

    def test_the_same_spellings_are_figures_to_both(self):
        # Each reader used to miss some of these: the facts reader "mil", "bps", ".412", "US dollars",
        # "kilotonnes"; the bank reader "bln", "€", "A$", "C$".
        for text, value in (("$412 mil", 412_000_000), ("412 US dollars", 412), ("$.412bn", 412_000_000),
                            ("41 kilotonnes", 41_000), ("410 bps", Fraction(41, 10)), ("€5 bln", 5_000_000_000)):
            with self.subTest(text=text):
                self.assertEqual([f.value for f in read_figures(text)], [value])
        self.assertEqual(statements("It came to 412 US dollars").find(money_fact("412")), "412 US dollars")
        self.assertEqual(statements("$.412bn").find(money_fact("412000000")), "$.412bn")

    def test_2100_is_a_year_to_both(self):
        row = item("x", "2021-01-01")
        row["facts"] = [{"kind": "number", "value": "2100"}]
        fact = build_corpus([("items.jsonl:1", row)]).items["x"].facts[0]
        self.assertIsNone(statements("by 2100").find(fact))
        self.assertEqual(statements("2,100 tonnes").find(fact), "2,100 tonnes")
        self.assertEqual(candidates("by 2100", "count"), [])

    def test_a_letter_and_a_hyphen_hold_no_figure_for_either(self):
        self.assertEqual(candidates("COVID-19 closed 12,000 stores", "count"), [12_000])
        self.assertEqual(candidates("COVID-19", "count"), [])

    def test_an_exponent_is_part_of_the_number_to_both(self):
        # Both readers used to take the exponent's digits for a figure: "4.1e-05 billion" was 5 billion.
        self.assertEqual([f.value for f in read_figures("USD 4.1e-05 billion")], [41_000])
        self.assertEqual([(f.value, f.digits) for f in read_figures("2.5E+3 and 1e6")], [(2500, 2), (1_000_000, 1)])
        self.assertEqual(candidates("$1.8e-05M", "USD"), [18])
        self.assertEqual(statements("raised $1.8e-05M").find(money_fact("18")), "$1.8e-05M")
        self.assertEqual(read_figures("a 3e engine"), ())

    def test_a_mass_is_no_money_to_either(self):
        self.assertIsNone(statements("41kt of copper").find(money_fact("41000")))
        self.assertEqual(candidates("41kt of copper", "USD"), [])


class ToleranceRule(unittest.TestCase):
    """One rule, an explicit parameter: by stated precision (answer leaks) or relative 0.5% (bank judge)."""

    def test_precision_for_answer_leaks(self):
        fact = money_fact("1120000000")
        self.assertEqual(statements("$1.1B").find(fact), "$1.1B")  # 1.12 rounds to 1.1
        self.assertIsNone(statements("$1B").find(fact))  # one digit: exact only
        self.assertIsNone(statements("$1.1203B").find(fact))  # more precise than the fact: not within half a unit

    def test_relative_for_the_judge(self):
        self.assertFalse(matches(candidates("$1.1B", "USD")[0], "1120000000", "USD"))
        self.assertTrue(matches(candidates("$414.06M", "USD")[0], "412000000", "USD"))
        self.assertFalse(matches(candidates("$414.07M", "USD")[0], "412000000", "USD"))

    def test_the_rule_itself(self):
        f = read_figures("$414.06M")[0]
        self.assertFalse(same_figure(f, "412000000"))
        self.assertTrue(same_figure(f, "412000000", within=Fraction(1, 200)))
        self.assertTrue(same_figure(read_figures("48%")[0], Fraction(481, 10)))
        self.assertFalse(same_figure(Fraction(0), "0.001", within=Fraction(1, 200)))
        self.assertTrue(same_figure(Fraction(0), "0", within=Fraction(1, 200)))
        self.assertFalse(same_figure(read_figures("-5")[0], "5"))

    def test_ratio_is_a_percentage_to_both(self):
        row = item("x", "2021-01-01")
        row["facts"] = [{"kind": "percent", "value": "48.1"}]
        fact = build_corpus([("items.jsonl:1", row)]).items["x"].facts[0]
        self.assertEqual(statements("a ratio of 0.481").find(fact), "0.481")
        self.assertEqual(candidates("a ratio of 0.481", "percent"), [Fraction(481, 10)])
        self.assertIsNone(statements("a ratio of 1.481").find(fact))


if __name__ == "__main__":
    unittest.main()
