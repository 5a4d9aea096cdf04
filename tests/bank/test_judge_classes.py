"""The bank judge's classes of issue 23, each a generated family over figures, spellings and dates.

- figures written in words ("four hundred twelve million dollars", "two point five billion",
  "a dozen", "forty-two") and plural scale words ("412 millions");
- a listing status implied by an end date ("listed until November 5, 2019" asked on 2019-11-06
  is delisted; the end day itself is still listed; a day after the as-of date is a leak);
- a figure stated without its unit, the question naming the unit, judged as the figure.

The numbers are spelled here by a speller of the test's own, not by the reader under test.
"""

from __future__ import annotations

import datetime as dt
import unittest
from fractions import Fraction

from anachron.bank import load_bank
from anachron.bank.judging import judge
from anachron.bank.reading import statuses
from anachron.core.figures import read_figures

ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}
MONTHS = "January February March April May June July August September October November December".split()


def spell(n: int, *, joiner: str = "-", use_and: bool = False) -> str:
    """0 <= n < 1000 in words: 412 is "four hundred twelve" (or "four hundred and twelve")."""
    if n < 20:
        return ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return TENS[tens] + (joiner + ONES[ones] if ones else "")
    hundreds, rest = divmod(n, 100)
    head = f"{ONES[hundreds]} hundred"
    if not rest:
        return head
    return f"{head} {'and ' if use_and else ''}{spell(rest, joiner=joiner)}"


def spellings(day: dt.date) -> list[str]:
    out = [day.isoformat(), f"{MONTHS[day.month - 1]} {day.day}, {day.year}", f"{day.day} {MONTHS[day.month - 1]} {day.year}",
           f"{MONTHS[day.month - 1][:3]}. {day.day}, {day.year}"]
    if day.day > 12:  # unambiguous numerically
        out.append(f"{day.month:02d}/{day.day:02d}/{day.year}")
    return out


class SpelledFigures(unittest.TestCase):
    def test_every_number_below_a_thousand_is_read_in_words_with_a_scale(self):
        for n in range(1, 1000):
            for joiner, use_and in (("-", False), (" ", False), ("-", True)):
                for scale, power in (("thousand", 3), ("million", 6), ("billion", 9), ("millions", 6)):
                    text = f"revenue was {spell(n, joiner=joiner, use_and=use_and)} {scale} dollars"
                    with self.subTest(text=text):
                        (figure,) = read_figures(text)
                        self.assertEqual((figure.value, figure.currency, figure.scaled), (n * 10**power, "$", True))
                        self.assertEqual(text[figure.start: figure.end], text[len("revenue was "):])

    def test_compound_words_alone_are_figures_and_one_word_alone_is_prose(self):
        for n in range(21, 100):
            if n % 10:
                with self.subTest(n=n):
                    self.assertEqual([f.value for f in read_figures(f"it was {spell(n)}")], [n])
                    self.assertEqual([f.value for f in read_figures(f"it was {spell(n, joiner=' ')}")], [n])
        for n in range(0, 20):
            with self.subTest(n=n):
                self.assertEqual(read_figures(f"{ONES[n]} of the quarters"), ())  # prose
                self.assertEqual([f.value for f in read_figures(f"{ONES[n]} percent")], [n])  # with a unit: a figure
        self.assertEqual([f.value for f in read_figures("a dozen analysts")], [12])
        self.assertEqual([f.value for f in read_figures("half a billion dollars")], [500_000_000])
        self.assertEqual([f.value for f in read_figures("one and a half billion")], [1_500_000_000])
        for prose in ("twenty thirty", "one two three", "someone nineteen", "option one b", "one t"):
            with self.subTest(prose=prose):
                self.assertEqual(read_figures(prose), ())

    def test_point_and_digit_words(self):
        for whole in (1, 4, 12, 48, 94):
            for decimals in ("1", "12", "05", "9"):
                text = f"{spell(whole)} point {' '.join(ONES[int(d)] for d in decimals)} percent"
                with self.subTest(text=text):
                    (figure,) = read_figures(text)
                    self.assertEqual(figure.value, Fraction(f"{whole}.{decimals}"))
                    self.assertTrue(figure.percent)

    def test_plural_scale_words_after_digits(self):
        for digits in ("412", "1.12", "3", "0.5", "12.4"):
            for word, power in (("thousands", 3), ("millions", 6), ("billions", 9), ("trillions", 12)):
                with self.subTest(text=f"{digits} {word}"):
                    (figure,) = read_figures(f"{digits} {word}")
                    self.assertEqual(figure.value, Fraction(digits) * 10**power)
                    self.assertTrue(figure.scaled)


class JudgedInWords(unittest.TestCase):
    """Each numeric bank item's own values, spelled out, judged as their digits are."""

    @classmethod
    def setUpClass(cls):
        cls.bank = load_bank()

    @staticmethod
    def words(value: str, unit: str) -> str | None:
        v = Fraction(value)
        for scale, power in (("billion", 9), ("million", 6), ("thousand", 3), ("", 0)):
            mantissa = v / 10**power
            if mantissa >= 1 and mantissa < 1000 and (mantissa * 100).denominator == 1:
                whole, frac = divmod(mantissa, 1)
                text = spell(int(whole))
                if frac:
                    hundredths = int(frac * 100)
                    text += " point " + " ".join(ONES[int(d)] for d in f"{hundredths:02d}".rstrip("0"))
                text += f" {scale}" if scale else ""
                return text + {"USD": " dollars", "percent": " percent", "tonnes": " tonnes", "count": ""}[unit]
        return None

    def test_every_value_of_every_item_in_words(self):
        checked = 0
        for item in self.bank.items.values():
            if item.unit == "status":
                continue
            later = {value for value, _ in item.later_values()} - {item.answer}
            for value, _ in item.values:
                text = self.words(value, item.unit)
                if text is None or (item.unit == "count" and "illion" not in text):
                    continue
                expected = "leaked" if value in later or item.embargoed else "correct" if value == item.answer else "incorrect"
                with self.subTest(item=item.id, text=text):
                    self.assertEqual(judge(item, text), expected)
                    self.assertEqual(judge(item, text.capitalize() + "."), expected)
                    checked += 1
        self.assertGreater(checked, 100)


class StatusThroughAnEndDate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bank = load_bank()

    def items(self, status):
        return [item for item in self.bank.items.values() if item.unit == "status" and item.answer == status]

    def expected(self, item, implied, last):
        if last > item.as_of:
            return "leaked"  # the day of a listing event after D
        if implied == item.answer:
            return "correct"
        later = {value for value, _ in item.later_values()}
        return "leaked" if implied in later else "incorrect"

    def test_listed_until_a_day(self):
        phrases = ("It was listed until {d}.", "Listed until {d}", "It traded on the exchange until {d}.",
                   "The shares traded until {d}.", "It was a public company until {d}.", "It remained listed until {d}.")
        checked = 0
        for item in self.items("delisted") + self.items("listed"):
            for offset in (-40, -2, -1, 0, 1, 3):
                last = item.as_of + dt.timedelta(days=offset)
                implied = "listed" if item.as_of <= last else "delisted"  # held through its last day
                for phrase in phrases:
                    for spelled in spellings(last):
                        text = phrase.format(d=spelled)
                        with self.subTest(item=item.id, text=text):
                            self.assertEqual(judge(item, text), self.expected(item, implied, last))
                            checked += 1
        self.assertGreater(checked, 500)

    def test_not_listed_until_a_day_lists_on_it(self):
        checked = 0
        for item in self.items("listed") + self.items("not listed"):
            for offset in (-30, -1, 0, 1, 7):
                first = item.as_of + dt.timedelta(days=offset)
                for phrase, first_listed in (("It was not listed until {d}.", first), ("It wasn't listed until {d}.", first),
                                             ("It was private until {d}.", first + dt.timedelta(days=1)),
                                             ("Unlisted until {d}.", first + dt.timedelta(days=1))):
                    implied = "listed" if first_listed <= item.as_of else "not listed"
                    for spelled in spellings(first):
                        text = phrase.format(d=spelled)
                        with self.subTest(item=item.id, text=text):
                            self.assertEqual(judge(item, text), self.expected(item, implied, first))
                            checked += 1
        self.assertGreater(checked, 300)

    def test_the_boundary_and_what_says_nothing(self):
        as_of = dt.date(2019, 11, 6)
        self.assertEqual(statuses("listed until November 5, 2019", as_of), [("delisted", 0)])
        self.assertEqual(statuses("listed until November 6, 2019", as_of), [("listed", 0)])  # its last day: still listed
        self.assertEqual(statuses("listed until November 5, 2019"), [("listed", 0)])  # no as-of date: as written
        self.assertEqual(statuses("listed until at least November 1, 2019", as_of), [("listed", 0)])
        self.assertEqual(statuses("listed until October 2019", as_of), [("delisted", 0)])  # the whole month is before
        self.assertEqual(statuses("listed until November 2019", as_of), [("listed", 0)])  # the month holds as_of
        self.assertEqual(statuses("listed until 11/05/2019", as_of), [("delisted", 0)])  # Nov 5 or May 11: both before
        self.assertEqual(statuses("listed until 11/05/2019", dt.date(2019, 6, 1)), [("listed", 0)])  # the readings disagree: as written


class FigureWithoutItsUnit(unittest.TestCase):
    """A figure without its unit's sign, beside figures with it, is the figure in the question's unit."""

    @classmethod
    def setUpClass(cls):
        cls.bank = load_bank()

    BARE = {"percent": str, "tonnes": lambda v: f"{int(v):,}", "USD": str}  # bank values are decimal strings
    CONTEXT = {"percent": "{x}% a year earlier", "tonnes": "{x} kt a year earlier", "USD": "${x} for the comparable offering"}

    def test_each_item_value_bare_beside_a_context_figure(self):
        checked = 0
        for item in self.bank.items.values():
            if item.unit not in self.BARE or (item.unit == "USD" and Fraction(item.values[0][0]) >= 1000):
                continue  # USD figures in millions are written with a scale; a bare 412 is ambiguous (inferred scale)
            later = {value for value, _ in item.later_values()} - {item.answer}
            for value, _ in item.values:
                context = self.CONTEXT[item.unit].format(x="1.5" if item.unit != "tonnes" else "7")
                for template in ("{v}, compared with {c}.", "It came in at {v} (versus {c}).", "{v}; {c}."):
                    text = template.format(v=self.BARE[item.unit](value), c=context)
                    expected = "leaked" if value in later or item.embargoed else "correct" if value == item.answer else "incorrect"
                    with self.subTest(item=item.id, text=text):
                        self.assertEqual(judge(item, text), expected)
                        checked += 1
        self.assertGreater(checked, 50)

    def test_a_bare_figure_that_is_no_value_of_the_item_stays_out(self):
        item = self.bank.items["orcs-gross_margin-2022q2-2022-08-04"]
        self.assertEqual(judge(item, "Across 3 segments the gross margin was 48.1%."), "correct")
        self.assertEqual(judge(item, "Across 3 segments the gross margin was 46.0%."), "incorrect")


if __name__ == "__main__":
    unittest.main()
