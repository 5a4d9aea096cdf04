"""English month and weekday names, and the day of the month as written: every spelling a date reader accepts.

A month is written in full (``february``), by its first three letters
(``feb``) or, for September, ``sept``; a weekday in full, by three letters,
or ``tues``, ``thur``, ``thurs``.  Any case.  A name is known by its first
three letters, so every spelling of a month maps to the same number.

The patterns are regular-expression sources for a reader to embed, each
one non-capturing group of spellings only: what may stand around a name (a
dot after an abbreviation, a comma) is the reader's own form.  A reader
compiles them with ``re.IGNORECASE``.

>>> import re
>>> [bool(re.fullmatch(MONTH, word, re.IGNORECASE)) for word in ("Sept", "JUNE", "jun", "juli", "febr")]
[True, True, True, False, False]
>>> month_number("September"), month_number("sept"), weekday_number("Thurs")
(9, 9, 3)
"""

from __future__ import annotations

__all__ = [
    "DAY_OF_MONTH",
    "FOREIGN_MONTH",
    "FOREIGN_MONTH_NO_DAY",
    "FOREIGN_MONTH_STEMS",
    "MONTH",
    "MONTH_DOT_AFTER_SHORT",
    "MONTH_IN_FULL",
    "MONTH_NAMES",
    "MONTH_NOT_A_WORD",
    "MONTH_STEMS",
    "WEEKDAY",
    "WEEKDAY_IN_FULL",
    "WEEKDAY_NAMES",
    "WEEKDAY_STEMS",
    "day_of_month",
    "foreign_month_number",
    "month_number",
    "weekday_number",
]

MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
               "november", "december")
WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")  # Monday 0
MONTH_STEMS = tuple(name[:3] for name in MONTH_NAMES)
WEEKDAY_STEMS = tuple(name[:3] for name in WEEKDAY_NAMES)
# The names in full only, no abbreviation: for forms where a short one is seldom a date
# (``next sat``, ``this sun``; a mail archive's ``2017-December``).
MONTH_IN_FULL = "(?:" + "|".join(MONTH_NAMES) + ")"
WEEKDAY_IN_FULL = "(?:" + "|".join(WEEKDAY_NAMES) + ")"

# Written with shared prefixes (jan(?:uary)?) rather than as a list of words: the regex engine
# then tests each stem once, which the query-intent reader's speed depends on.
MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
# The same spellings, a dot allowed only after an abbreviation (``Feb.``, never ``March.``):
# the answer-leak reader's form.
MONTH_DOT_AFTER_SHORT = "(?:" + MONTH_IN_FULL + r"|(?:jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?)"
# The months whose names are never an ordinary English word: ``mar``, ``march`` and ``may``
# are verbs too, so a reader that takes a month name alone (no day, no year) leaves them out.
MONTH_NOT_A_WORD = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|apr(?:il)?|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
WEEKDAY = (
    r"(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?"
    r"|fri(?:day)?|sat(?:urday)?|sun(?:day)?)"
)
# A day of the month as written, optionally with its ordinal suffix: 9, 09, 9th, 31st.
DAY_OF_MONTH = r"(?:[012]?[0-9]|3[01])(?:st|nd|rd|th)?"

_MONTH_NUMBERS = {stem: number for number, stem in enumerate(MONTH_STEMS, start=1)}
_WEEKDAY_NUMBERS = {stem: number for number, stem in enumerate(WEEKDAY_STEMS)}


def month_number(name: str) -> int:
    """The month (1-12) of any spelling :data:`MONTH` matches, by its first three letters.

    Raises ``KeyError`` for a word that is no month.

    >>> month_number("Feb"), month_number("december")
    (2, 12)
    """
    return _MONTH_NUMBERS[name[:3].lower()]


def weekday_number(name: str) -> int:
    """The weekday of any spelling :data:`WEEKDAY` matches, Monday 0 (as ``date.weekday()``).

    >>> weekday_number("Mon"), weekday_number("sunday")
    (0, 6)
    """
    return _WEEKDAY_NUMBERS[name[:3].lower()]


def day_of_month(text: str) -> int:
    """The number of a :data:`DAY_OF_MONTH` as written, its suffix dropped (not checked against a month).

    >>> day_of_month("31st"), day_of_month("09")
    (31, 9)
    """
    return int(text.rstrip("stndrhSTNDRH"))


# Month names in German, French, Spanish, Italian, Portuguese and Dutch, in full, without and with
# their accents (``märz``, ``marz``, ``maerz``), and the abbreviations that are no word of their own
# language or of English: ``mar``, ``set``, ``out``, ``ago``, ``gen``, ``mag``, ``dic``, ``ene`` and the
# like are left out.  ``mars`` is also a planet and a singer's name (Bruno Mars 2024): it is in
# FOREIGN_MONTH, for a date with a day (``7 mars 2024``), and not in FOREIGN_MONTH_NO_DAY, the
# spellings a reader takes before a bare year.  English spellings (``april``, ``september``) are in MONTH.
_FOREIGN = {
    1: "januar jänner janvier janv enero gennaio janeiro januari",
    2: "februar feber février fevrier févr fevr febrero febbraio fevereiro februari",
    3: "märz marz maerz mrz mars marzo março marco maart mrt",
    4: "avril avr abril aprile",
    5: "mai mayo maggio maio mei",
    6: "juni juin junio giugno junho",
    7: "juli juillet juil julio luglio julho",
    8: "août aout agosto augustus",
    9: "septembre septiembre setiembre settembre setembro",
    10: "oktober octobre octubre ottobre outubro okt",
    11: "novembre noviembre novembro",
    12: "dezember décembre decembre déc diciembre dicembre dezembro dez",
}
_FOREIGN_NUMBERS = {word: number for number, words in _FOREIGN.items() for word in words.split()}
# Longest first, so that the regex engine takes ``juillet`` before ``juil``.
FOREIGN_MONTH = "(?:" + "|".join(sorted(_FOREIGN_NUMBERS, key=lambda w: (-len(w), w))) + ")"
FOREIGN_MONTH_NO_DAY = "(?:" + "|".join(sorted(set(_FOREIGN_NUMBERS) - {"mars"}, key=lambda w: (-len(w), w))) + ")"
# The first three letters of each foreign month name (a reader's fast-fail look-ahead: each is a prefix
# of a spelling).  The first two let common words through (out..., nol...) into a hundred spellings.
FOREIGN_MONTH_STEMS = tuple(sorted({word[:3] for word in _FOREIGN_NUMBERS}))


def foreign_month_number(name: str) -> int:
    """The month (1-12) of a :data:`FOREIGN_MONTH` spelling, any case, a trailing dot allowed.

    Raises ``KeyError`` for a word that is none.

    >>> foreign_month_number("März"), foreign_month_number("juillet"), foreign_month_number("déc.")
    (3, 7, 12)
    """
    return _FOREIGN_NUMBERS[name.lower().rstrip(".")]
