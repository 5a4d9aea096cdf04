"""Figures written in a text, and the one rule for when a written figure states a value.

Both readers of figures use this module: the answer-leak reader
(:mod:`anachron.core.facts`, does an answer state a fact?) and the bank
judge (:mod:`anachron.bank.reading`, which figure does an answer give?).
Each decides for itself which spans of its text are no figures (dates,
periods) and what a figure's kind means to it; the spellings, the scales,
the currencies, the exact value, the precision and the tolerance are
decided here, once.

A written figure (:func:`read_figures`) is, in order, each part optional
but the number:

- a sign, ``-`` or ``+`` (only where the figure starts: not after a
  letter, digit, ``_``, ``.``, ``,`` or ``$``, nor after a letter and a
  hyphen, so ``COVID-19`` and ``S-1`` hold no figure);
- a currency before the number: ``$`` (any dollar), ``US$``, ``A$``,
  ``C$``, ``€``, ``£``, ``¥``, a code of :data:`CURRENCIES` (``USD 377m``)
  or ``US dollars``; a sign may also follow it (``$-5``);
- the number: comma-grouped (``412,000,000``) or plain (``412000000``),
  at most 30 digits before the point and 12 after, or ``.412``; a longer
  run of digits is no figure;
- a scale (:data:`SCALES`, any case): ``k``, ``thousand``; ``m``, ``mm``,
  ``mn``, ``mln``, ``mil``, ``million``; ``b``, ``bn``, ``bln``, ``bil``,
  ``billion``; ``tn``, ``trillion``; a scale is not followed by a letter,
  except a mass ``t`` (``41kt``);
- a mass unit: ``t``, ``tonne(s)``, ``ton(s)``, ``metric ton(s)``, or
  ``kilotonne(s)``/``kiloton(s)`` (1,000 t, which counts as a scale);
- a percent marker: ``%``, ``percent``, ``per cent``, ``pct``, ``percentage
  point(s)``, ``pp``, ``ppt(s)``; ``bps``/``basis point(s)`` are hundredths
  of a percent;
- a currency after the number: a code, ``US dollar(s)``, ``dollar(s)``
  (any dollar), ``euro(s)``, ``pound(s)``, ``yen``;

and is not followed by a letter, digit or ``_``.  Parts are separated by
at most one whitespace character.  A **bare year** (four digits 1900-2100
and nothing else: no sign, currency, scale, unit, percent, comma or point)
is no figure.

A figure may also be **written in words**: a run of number words as a
number is spoken (``forty-two``, ``four hundred and twelve``, ``a dozen``),
or ``a``/``an``/``half a`` before ``dozen``, ``hundred`` or a scale word
(``half a billion``), then perhaps ``point`` and digit words (``two point
five``) and ``and a half``, then the units above (only the scale words
spelled out: ``thousand``, ``million``, ``billion``, ``trillion``, plural
too).  One number word alone and without a unit (``one of``, ``two
quarters``) is prose, not a figure; ``one two`` or ``twenty thirty`` names
no number.  European decimal commas (``48,1``) and spaced thousands
(``41 000``) are not read.  A scale may be plural (``412 millions``).

A figure's value is exact: ``mantissa * 10**exp`` (integers), negative
when written with ``-``.  Its **precision** is the worth of its last written
digit, ``10**exp``: ``$0.38bn`` is 38 * 10**7, ``48.1%`` is 481 * 10**-1.
*Significant digits* are those written, without leading zeros and, for an
integer, without trailing zeros (``400`` has one, ``400.0`` four).

The tolerance rule (docs/metrics.md, "Reading figures") is :func:`same_figure`.

>>> [(f.value, f.currency, f.scaled) for f in read_figures("Revenue was $377M, up from USD 0.35 bln.")]
[(Fraction(377000000, 1), '$', True), (Fraction(350000000, 1), 'USD', True)]

Every pattern is scanned left to right once, without nested repetition, so
a megabyte text costs linear time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Sequence

__all__ = [
    "CURRENCIES",
    "DOLLARS",
    "SCALES",
    "SCALE_PLURALS",
    "SCALE_WORDS",
    "Figure",
    "as_percent",
    "read_figures",
    "scale_power",
    "same_figure",
]

# Currency codes a figure may carry; the dollar codes are what a bare "$" may mean.
CURRENCIES = frozenset({"USD", "EUR", "GBP", "JPY", "CAD", "AUD", "CHF", "CNY", "NZD", "HKD", "SGD", "SEK", "NOK", "INR"})
DOLLARS = frozenset({"USD", "CAD", "AUD", "NZD", "HKD", "SGD"})

# Every scale, once: its power of ten, its name, and its abbreviations.  Only a name is read after
# a number written in words ("two million", not "two m"), and only a name has a plural ("in millions").
_SCALE_TABLE = (
    (3, "thousand", ("k",)),
    (6, "million", ("m", "mm", "mn", "mln", "mil")),
    (9, "billion", ("b", "bn", "bln", "bil")),
    (12, "trillion", ("tn",)),
)
# Every spelling of a scale (names and abbreviations, no plural), as a power of ten.
SCALES = {spelling: power for power, name, short in _SCALE_TABLE for spelling in (*short, name)}
# The scale spellings as a regular-expression alternation, longest first (so "mm" is not read as "m").
SCALE_WORDS = "|".join(sorted(SCALES, key=lambda word: (-len(word), word)))
_NAMES = tuple(name for _, name, _ in _SCALE_TABLE)
_PLURALS = {name + "s": SCALES[name] for name in _NAMES}  # "in millions"
# The plural names as a regular-expression alternation: "thousands|millions|billions|trillions".
SCALE_PLURALS = "|".join(_PLURALS)
_KILO = {"kilotonne", "kilotonnes", "kiloton", "kilotons"}
_SYMBOLS = {"$": "$", "us$": "USD", "a$": "AUD", "c$": "CAD", "€": "EUR", "£": "GBP", "¥": "JPY"}
_WORDS = {"dollar": "$", "dollars": "$", "euro": "EUR", "euros": "EUR", "pound": "GBP", "pounds": "GBP", "yen": "JPY"}
_CODES = "|".join(sorted(CURRENCIES))

# What may follow a number, written in digits or in words: a scale (a plural one too: "412 millions"),
# a mass unit, a percent marker, a currency; then no letter, digit or "_".
_UNITS = (
    r"(?:\s?(?P<scale>" + SCALE_PLURALS + "|" + SCALE_WORDS + r")(?![a-su-z]|t[a-z]))?"
    r"(?:\s?(?P<mass>metric\s+tons?|tonnes?|tons?|kilotonnes?|kilotons?|t)(?![a-z]))?"
    r"(?:\s?(?P<pct>%|percent(?:age\s+points?)?|per\s*cent|pct|pp|ppts?|bps|basis\s+points?)(?![a-z]))?"
    r"(?:\s?(?P<post>US\s+dollars?|" + _CODES + r"|dollars?|euros?|pounds?|yen)(?![a-z]))?"
    r"(?![\w])"
)

_FIGURE = re.compile(
    r"(?<![\w.,$])(?<![A-Za-z]-)"
    r"(?P<sign1>[-+])?"
    r"(?:(?P<sym>US\$|A\$|C\$|\$|€|£|¥)\s?|(?P<pre>US\s+dollars?|" + _CODES + r")\s?)?"
    r"(?P<sign2>[-+])?"
    r"(?P<num>[0-9]{1,3}(?:,[0-9]{3}){1,9}(?:\.[0-9]{1,12})?|[0-9]{1,30}(?:\.[0-9]{1,12})?|\.[0-9]{1,12})"
    r"(?P<e>[eE][-+]?[0-9]{1,3})?"  # 4.1e-05: an exponent is part of the number, not a word after it
    + _UNITS,
    re.IGNORECASE,
)


# Numbers written in words.  A run of number words ("four hundred twelve", "forty-two", "one
# hundred and five"), or "a"/"an"/"half a" before "dozen", "hundred" or a scale word, then perhaps
# "point" and digit words, "and a half", and the units a written number may carry.
_ONES = {w: n for n, w in enumerate("zero one two three four five six seven eight nine".split())}
_TEENS = {w: n for n, w in enumerate("ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(), 10)}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_NUMBER_WORD = "|".join(sorted([*_ONES, *_TEENS, *_TENS, "hundred", "dozen"], key=lambda w: (-len(w), w)))
_DIGIT_WORD = "|".join(sorted([*_ONES, "oh"], key=lambda w: (-len(w), w)))
_WORD_SCALES = {*_NAMES, *_PLURALS}
_SPELLED = re.compile(
    r"(?<![\w.,$-])"
    r"(?:(?P<lead>(?:half\s+)?an?)\s+(?=(?:dozen|hundred|" + "|".join(_NAMES) + r")s?\b))?"
    r"(?P<words>(?:" + _NUMBER_WORD + r")\b(?:(?:\s+and\s+|[ \t-])(?:" + _NUMBER_WORD + r")\b)*)?"
    r"(?(words)|(?(lead)|(?!)))"  # a lead word or a number word: never an empty match
    r"(?:\s+point(?P<point>(?:\s+(?:" + _DIGIT_WORD + r")\b)+))?"
    r"(?P<and_half>\s+and\s+a\s+half\b)?"
    + _UNITS,
    re.IGNORECASE,
)


def _spelled_number(words: str) -> int | None:
    """The integer a run of number words names ("four hundred and twelve" is 412), else ``None``.

    Each word must fit the ones before it, as a number is spoken: a unit
    after a ten ("forty-two"), a ten or a teen or a unit after "hundred";
    "one two" or "twenty thirty" names no number.
    """
    value, last = 0, ""
    for token in re.split(r"[\s-]+", words.lower()):
        if token == "and":
            continue
        if token in _ONES or token in _TEENS or token in _TENS:
            kind = "one" if token in _ONES else "teen" if token in _TEENS else "ten"
            if last in ("one", "teen") or (last == "ten" and kind != "one"):
                return None
            value += _ONES.get(token, 0) + _TEENS.get(token, 0) + _TENS.get(token, 0)
            last = kind
        elif token == "hundred":
            if value >= 100 or last in ("hundred", "dozen"):
                return None
            value, last = (value or 1) * 100, "hundred"
        else:  # dozen
            if last == "dozen":
                return None
            value, last = (value or 1) * 12, "dozen"
    return value


def _spelled_figure(match: re.Match[str]) -> Figure | None:
    lead, words, point, and_half = match["lead"], match["words"], match["point"], match["and_half"]
    scale_word, mass_word, pct, post = match["scale"], match["mass"], match["pct"], match["post"]
    if scale_word and scale_word.lower() not in _WORD_SCALES:
        return None  # "one b", "two m": a letter after a word is no scale
    if mass_word and mass_word.lower() == "t":
        return None
    number = _spelled_number(words) if words else 1
    if number is None or (lead and words and words.lower().split()[0] not in ("hundred", "dozen")):
        return None
    if not (lead or point or and_half or scale_word or mass_word or pct or post) and len(re.split(r"[\s-]+(?:and\s+)?", words.strip())) < 2:
        return None  # one number word alone ("one of", "two quarters") is prose, not a figure
    digits = "".join(str(_ONES.get(d.lower(), 0)) for d in point.split()) if point else ""
    mantissa, exp = int(f"{number}{digits}"), -len(digits)
    if and_half:
        mantissa, exp = mantissa * 10 + 5, exp - 1
    if lead and lead.lower().startswith("half"):
        mantissa, exp = mantissa * 5, exp - 1
    written = str(mantissa).lstrip("0")
    power = (scale_power(scale_word) or 0) if scale_word else 0
    if pct and pct[0] in "bB":
        power -= 2
    return Figure(
        match.start(),
        match.end(),
        mantissa,
        exp + power,
        len(written if exp < 0 else written.rstrip("0")) or 1,
        False,
        _currency(None, post),
        bool(pct),
        bool(scale_word),
        bool(mass_word),
    )


@dataclass(frozen=True, slots=True)
class Figure:
    """One written figure: its exact value, its precision and what was stated with it.

    The value is ``(-1 if negative else 1) * mantissa * 10**exp`` and the
    last written digit is worth ``10**exp``; ``digits`` is the number of
    significant digits written.  ``currency`` is ``"$"`` (any dollar), a
    code of :data:`CURRENCIES`, or ``None``; ``scaled`` is true when a
    scale was stated (or a kilotonne); ``percent`` when a percent marker
    was; ``mass`` when a mass unit was.  ``start`` and ``end`` delimit the
    written figure, sign and units included.

    >>> f = read_figures("margin 0.481")[0]
    >>> (f.value, f.exp, f.digits, f.bare, f.ratio)
    (Fraction(481, 1000), -3, 3, True, True)
    """

    start: int
    end: int
    mantissa: int
    exp: int
    digits: int
    negative: bool = False
    currency: str | None = None
    percent: bool = False
    scaled: bool = False
    mass: bool = False

    @property
    def value(self) -> Fraction:
        """The exact value, a :class:`~fractions.Fraction`."""
        magnitude = Fraction(self.mantissa * 10**self.exp) if self.exp >= 0 else Fraction(self.mantissa, 10**-self.exp)
        return -magnitude if self.negative else magnitude

    @property
    def bare(self) -> bool:
        """Stated with nothing but the number (and perhaps a sign): no currency, scale, mass unit or percent."""
        return not (self.currency or self.percent or self.scaled or self.mass)

    @property
    def ratio(self) -> bool:
        """A bare figure strictly between -1 and 1 and not 0 (``0.481``): a percentage written as a ratio.

        >>> [read_figures(t)[0].ratio for t in ("0.481", "-.5", "0.0", "1.5", "0.481%")]
        [True, True, False, False, False]
        """
        return self.bare and self.exp < 0 and 0 < self.mantissa < 10**-self.exp

    def times_ten(self, power: int, *, scaled: bool = False) -> Figure:
        """This figure times ``10**power``, its precision with it; *scaled* also marks it as stated with a scale.

        A ratio as a percentage is ``times_ten(2)``; a figure under a scale
        note "in millions" is ``times_ten(6, scaled=True)``.

        >>> read_figures("0.481")[0].times_ten(2).value
        Fraction(481, 10)
        """
        return replace(self, exp=self.exp + power, scaled=self.scaled or scaled)


def as_percent(figure: Figure) -> Figure | None:
    """*figure* as a percentage: itself with a percent marker, a :attr:`~Figure.ratio` times 100, else ``None``.

    >>> [p and p.value for p in map(as_percent, read_figures("48.1%, 0.481, 48.1"))]
    [Fraction(481, 10), Fraction(481, 10), None]
    """
    if figure.percent:
        return figure
    return figure.times_ten(2) if figure.ratio else None


def scale_power(word: str) -> int | None:
    """The power of ten a scale word names (any spelling of :data:`SCALES`, or a plural such as ``millions``), else ``None``.

    >>> [scale_power(w) for w in ("bln", "Bil", "MM", "millions", "t")]
    [9, 9, 6, 6, None]
    """
    word = word.lower()
    power = SCALES.get(word)
    return _PLURALS.get(word) if power is None else power


def _currency(sym: str | None, word: str | None) -> str | None:
    if sym:
        return _SYMBOLS[sym.lower()]
    if not word:
        return None
    upper = word.upper()
    if upper in CURRENCIES:
        return upper
    if upper.startswith("US"):
        return "USD"  # "US dollars"
    return _WORDS[word.lower()]


def _figure(match: re.Match[str]) -> Figure | None:
    sign1, sym, pre, sign2, num, e, scale_word, mass_word, pct, post = match.groups()
    currency = _currency(sym, pre or post)
    if not (sign1 or sign2 or currency or e or scale_word or mass_word or pct) and len(num) == 4 and num.isdigit() and 1900 <= int(num) <= 2100:
        return None  # a bare year is a date, not a figure
    whole, _, decimals = (num.replace(",", "") if "," in num else num).partition(".")
    written = (whole + decimals).lstrip("0")
    kilo = mass_word is not None and mass_word.lower() in _KILO
    power = (scale_power(scale_word) or 0 if scale_word else 0) + (3 if kilo else 0) + (int(e[1:]) if e else 0)
    if pct and pct[0] in "bB":  # basis points
        power -= 2
    return Figure(
        match.start(),
        match.end(),
        int(whole + decimals),
        power - len(decimals),
        len(written if decimals else written.rstrip("0")),
        "-" in ((sign1 or "") + (sign2 or "")),
        currency,
        bool(pct),
        bool(scale_word) or kilo,
        bool(mass_word),
    )


def read_figures(text: str, skip: Sequence[tuple[int, int]] = ()) -> tuple[Figure, ...]:
    """Every figure written in *text*, in digits or in words, left to right (module docstring: what a figure is).

    A written figure that overlaps one of the *skip* spans (``(start, end)``,
    in order, not overlapping each other: a date, say) is not read.  The
    caller also applies its own reading of a sign or a scale note.

    >>> [(f.value, f.mass, f.percent) for f in read_figures("41kt in 2021, 410 bps, 5 bil, COVID-19")]
    [(Fraction(41000, 1), True, False), (Fraction(41, 10), False, True), (Fraction(5000000000, 1), False, False)]
    >>> [f.value for f in read_figures("$5 on 2 May, 7%", skip=[(6, 11)])]
    [Fraction(5, 1), Fraction(7, 1)]
    >>> [f.value for f in read_figures("four hundred twelve million dollars, one of two point five billion")]
    [Fraction(412000000, 1), Fraction(2500000000, 1)]
    """
    written = [f for f in map(_figure, _FIGURE.finditer(text)) if f is not None]
    spelled = [f for f in map(_spelled_figure, _SPELLED.finditer(text)) if f is not None]
    if spelled:  # the two kinds never overlap (a digit is no number word): merged by position
        written = sorted(written + spelled, key=lambda f: f.start)
    if not skip:
        return tuple(written)
    found = []
    i = 0
    for figure in written:
        while i < len(skip) and skip[i][1] <= figure.start:
            i += 1
        if i < len(skip) and skip[i][0] < figure.end:
            continue
        found.append(figure)
    return tuple(found)


@lru_cache(maxsize=4096)
def _exact(value: str) -> Fraction:
    return Fraction(value)


@lru_cache(maxsize=4096)
def _decimal(value: str) -> tuple[int, int]:
    """A decimal string as ``(signed mantissa, exp)``: ``"-48.1"`` is ``(-481, -1)``."""
    whole, _, decimals = value.partition(".")
    return int(whole + decimals), -len(decimals)


def same_figure(stated: Figure | Fraction, value: Fraction | str, *, within: Fraction | None = None) -> bool:
    """Whether the figure *stated* states *value* (a number, or a decimal string such as ``"377000000"``): THE tolerance rule.

    A written figure x states v when v lies in x's interval:

    - by **stated precision** (``within`` is ``None``; the answer-leak
      reader): ``|x - v| <= 10**exp / 2``, half the worth of x's last
      written digit, so ``$0.38bn`` states 377,000,000 and ``$1.1B``
      states 1,120,000,000.  A figure with one significant digit
      (``$0.4bn``, ``400 million``) states only its exact value, and an
      exact number (a :class:`~fractions.Fraction`) only itself;
    - **relative** (``within`` a tolerance t; the bank judge, t = 1/200):
      ``|x - v| <= t * |v|``, whatever the digits written, so ``$414.06M``
      states 412,000,000 and ``$1.1B`` does not state 1,120,000,000.  A
      zero value needs an exact zero.

    Exact arithmetic throughout, never floats.  Why the two uses differ:
    docs/metrics.md, "Reading figures".

    >>> f = read_figures("$1.1B")[0]
    >>> same_figure(f, "1120000000"), same_figure(f, "1120000000", within=Fraction(1, 200))
    (True, False)
    >>> same_figure(read_figures("$0.4bn")[0], "377000000")
    False
    >>> same_figure(Fraction(414060000), "412000000", within=Fraction(1, 200))
    True
    """
    if within is None and isinstance(value, str) and isinstance(stated, Figure):
        # Integers on a common exponent: the answer reader compares every figure of a long text.
        mantissa, exp = _decimal(value)
        common = min(stated.exp, exp)
        written = (-stated.mantissa if stated.negative else stated.mantissa) * 10 ** (stated.exp - common)
        figure = mantissa * 10 ** (exp - common)
        return written == figure or (stated.digits >= 2 and 2 * abs(written - figure) <= 10 ** (stated.exp - common))
    target = _exact(value) if isinstance(value, str) else value
    if isinstance(stated, Figure):
        x = stated.value
        if within is None:
            return x == target or (stated.digits >= 2 and 2 * abs(x - target) <= Fraction(10) ** stated.exp)
    else:
        x = stated
        if within is None:
            return x == target
    return abs(x - target) <= within * abs(target)
