"""Phrases anchored at the as-of date T: ``tomorrow``, ``next quarter``, ``3 months later``, ``july 12``.

Each phrase names a period relative to T (docs/metrics.md, "Forms anchored
at T"): ``tomorrow`` is T+1; ``this quarter`` the quarter containing T (by
the fiscal calendar, if one is given); ``next year`` the one after; ``later
this year`` and ``rest of the year`` T+1 to the period's end; ``next 12
months`` T+1 to T+12 months; ``in 6 months`` and ``6 months later`` that
one day; ``next friday`` the first Friday after T, ``this friday`` the one
in T's week (from Monday); ``upcoming quarter`` is ``next quarter``; a month without a year (``july``, ``12 july``, ``early march``) is
in T's year.  ``may``, ``march`` and ``mar`` are words too, so alone they
count only with a day, after ``in``, ``by``, ``on``, ``until``, ``since``,
``through``, ``of``, ``before``, ``after``, or as ``early``/``mid``/``late``
``may``.  ``before``/``until`` such a month names nothing (a bound from
above reaches for nothing after T's year's month).

:data:`ANCHORED_FORMS` is a regular-expression source, one named group per
form; :func:`anchored_period` reads a match of it.  Only a reader of
queries uses these: in a page, "next year" is relative to the page's own date
(:mod:`.page`).

>>> import re
>>> m = re.fullmatch(ANCHORED_FORMS, "next quarter", re.IGNORECASE)
>>> anchored_period(m, _dt.date(2023, 5, 10), None)
(datetime.date(2023, 7, 1), datetime.date(2023, 9, 30))
>>> anchored_period(re.fullmatch(ANCHORED_FORMS, "3 months later", re.IGNORECASE), _dt.date(2023, 1, 31), None)
(datetime.date(2023, 4, 30), datetime.date(2023, 4, 30))
"""

from __future__ import annotations

import datetime as _dt
import re

from anachron.core.grammar.calendar_words import (
    DAY_OF_MONTH, MONTH, MONTH_NOT_A_WORD, MONTH_STEMS, WEEKDAY_IN_FULL, day_of_month, month_number, weekday_number,
)
from anachron.core.grammar.fiscal import fiscal_year, part_of_year
from anachron.core.grammar.periods import ONE_DAY, OPEN_END, add_months, month_end, thirds, units_after

__all__ = ["ANCHORED_FORMS", "ANCHORED_KINDS", "ANCHORED_WORDS", "NUMBER_WORDS", "anchored_period", "containing"]

NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "few": 2, "several": 3,
}
_COUNT = r"(?:[0-9]{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|several)"
_UNIT = r"(?P<unit>day|week|month|quarter|year)s?"
_UNIT2 = r"(?P<unit2>day|week|month|quarter|year)s?"
_SPAN = r"(?P<{}>week|month|quarter|half|year|fiscal\s+year|fy|decade)"
ANCHORED_FORMS = (
    r"(?<!-)(?:"
    r"(?P<after_tomorrow>(?:the\s+)?day\s+after\s+tomorrow)"
    r"|(?P<tomorrow>tomorrow)"
    r"|(?P<today>today|tonight)"
    r"|(?P<yesterday>yesterday)"
    rf"|(?P<this>(?:this|current)\s+{_SPAN.format('this_span')})"
    rf"|(?P<later>later\s+this\s+(?P<later_span>week|month|quarter|year))"
    rf"|(?P<rest>(?:the\s+)?(?:rest|remainder|balance)\s+of\s+(?:the|this)\s+(?P<rest_span>week|month|quarter|year))"
    rf"|(?P<weekday>(?P<weekday_p>next|coming|this)\s+(?P<weekday_d>{WEEKDAY_IN_FULL}))"
    rf"|(?P<next>(?:next|coming|upcoming)\s+{_SPAN.format('next_span')})"
    r"|(?P<after_next>year\s+after\s+next)"
    r"|(?P<ahead>(?:week|month|quarter|year)\s+ahead)"
    rf"|(?P<within>(?:next|coming|upcoming)\s+{_COUNT}?\s*{_UNIT})"
    rf"|(?P<in>in\s+(?:the\s+next\s+)?(?P<in_n>{_COUNT})\s+{_UNIT2}(?:'?\s*time)?)"
    rf"|(?P<later_n>(?P<later_n_n>{_COUNT})\s+(?P<later_n_unit>day|week|month|quarter|year)s?\s+(?:later|from\s+(?:now|today)|ahead|out|hence))"
    rf"|(?P<md>(?P<md_m>{MONTH})\.?\s+(?P<md_d>{DAY_OF_MONTH}))"
    rf"|(?P<dm>(?P<dm_d>{DAY_OF_MONTH})\s+(?:of\s+)?(?P<dm_m>{MONTH})\b)"
    rf"|(?P<amq>(?P<amq_m>{MONTH})\s+quarter)"
    rf"|(?P<spring>(?:(?P<spring_p>in|by|on|until|since|through|early|mid|late|of|before|after)[\s\-]+)(?P<spring_m>may|march|mar))"
    rf"|(?P<month>{MONTH_NOT_A_WORD})"
    r")(?![\w-])"
)
# The groups that name a form (a match's lastgroup is one of them), not a part of one.
ANCHORED_KINDS = frozenset(re.findall(r"\(\?P<(\w+)>", ANCHORED_FORMS)) - {
    "this_span", "later_span", "rest_span", "next_span", "unit", "unit2", "in_n", "later_n_n", "later_n_unit",
    "md_m", "md_d", "dm_d", "dm_m", "amq_m", "spring_p", "spring_m", "weekday_p", "weekday_d",
}
# The first word (or its first letters) of every form: what a match can begin with.
ANCHORED_WORDS = (
    *MONTH_STEMS, "day", "tomorrow", "today", "tonight", "yesterday", "this", "current", "later",
    "rest", "remainder", "balance", "next", "coming", "upcoming", "month", "quarter", "in", "on", "of", "through",
    "by", "since", "until", "early", "mid", "late", "before", "after", "the", "week", "year",
    *(rf"{word}\s" for word in NUMBER_WORDS),  # a count starts a match only as "3 months later": then a space
)


def containing(span: str, as_of: _dt.date, fiscal) -> tuple[_dt.date, _dt.date]:
    """The week (from Monday), month, quarter, half, year, fiscal year or decade that contains *as_of*.

    Quarters and halves are those of the fiscal year containing *as_of* (the calendar year without *fiscal*).

    >>> containing("week", _dt.date(2023, 5, 10), None)
    (datetime.date(2023, 5, 8), datetime.date(2023, 5, 14))
    """
    span = span.lower()
    if span == "week":
        monday = as_of - _dt.timedelta(days=as_of.weekday())
        return monday, monday + _dt.timedelta(days=6)
    if span == "month":
        return _dt.date(as_of.year, as_of.month, 1), month_end(as_of.year, as_of.month)
    if span == "decade":
        first = as_of.year - as_of.year % 10
        return _dt.date(first, 1, 1), _dt.date(first + 9, 12, 31)
    if span in ("year",):
        return _dt.date(as_of.year, 1, 1), _dt.date(as_of.year, 12, 31)
    begins, ends = fiscal_year(as_of.year, fiscal)
    if as_of > ends:
        begins, ends = fiscal_year(as_of.year + 1, fiscal)
    if span in ("quarter", "half"):
        months = 3 if span == "quarter" else 6
        for index in range(1, 12 // months + 1):
            part = part_of_year(begins, index, months)
            if part[0] <= as_of <= part[1]:
                return part
    return begins, ends


def _following(span: str, as_of: _dt.date, fiscal) -> tuple[_dt.date, _dt.date]:
    """The period of kind *span* right after the one containing *as_of*."""
    _, ends = containing(span, as_of, fiscal)
    return containing(span, ends + ONE_DAY, fiscal)


def _weekday(word: str, weekday: int, as_of: _dt.date) -> tuple[_dt.date, _dt.date]:
    """``next friday`` and ``coming friday``: the first such day after T; ``this friday``: the one in T's week (from Monday)."""
    if word == "this":
        day = as_of + _dt.timedelta(days=weekday - as_of.weekday())
    else:
        day = as_of + _dt.timedelta(days=(weekday - as_of.weekday() - 1) % 7 + 1)
    return day, day


def _count(text: str) -> int:
    text = text.lower()
    return NUMBER_WORDS[text] if text in NUMBER_WORDS else int(text)


def anchored_period(match: re.Match[str], as_of: _dt.date, fiscal) -> tuple[_dt.date, _dt.date] | None:
    """The period a match of :data:`ANCHORED_FORMS` names at *as_of*; None for one that names nothing.

    Raises ``ValueError`` for a day that is not in T's year (``feb 30``).
    """
    g = match.group
    if g("after_tomorrow"):
        day = as_of + 2 * ONE_DAY
        return day, day
    if g("tomorrow"):
        return as_of + ONE_DAY, as_of + ONE_DAY
    if g("today"):
        return as_of, as_of
    if g("yesterday"):
        return as_of - ONE_DAY, as_of - ONE_DAY
    if g("this"):
        return containing(g("this_span"), as_of, fiscal)
    if g("later") or g("rest"):
        _, ends = containing(g("later_span") or g("rest_span"), as_of, fiscal)
        return as_of + ONE_DAY, max(ends, as_of + ONE_DAY)
    if g("weekday"):
        return _weekday(g("weekday_p").lower(), weekday_number(g("weekday_d")), as_of)
    if g("next"):
        return _following(g("next_span"), as_of, fiscal)
    if g("after_next"):
        return _dt.date(as_of.year + 2, 1, 1), _dt.date(as_of.year + 2, 12, 31)
    if g("ahead") or g("within"):
        unit = g("unit") or match.group(0).split()[0]
        return as_of + ONE_DAY, units_after(as_of, 1, unit)
    if g("in"):
        day = units_after(as_of, _count(g("in_n")), g("unit2"))
        return day, day
    if g("later_n"):
        day = units_after(as_of, _count(g("later_n_n")), g("later_n_unit"))
        return day, day
    if g("md") or g("dm"):
        day = _dt.date(as_of.year, month_number(g("md_m") or g("dm_m")), day_of_month(g("md_d") or g("dm_d")))
        return day, day
    if g("amq"):
        month = month_number(g("amq_m"))
        return add_months(_dt.date(as_of.year, month, 1), -2), month_end(as_of.year, month)
    month = month_number(g("spring_m") or g("month"))
    begins, ends = _dt.date(as_of.year, month, 1), month_end(as_of.year, month)
    word = (g("spring_p") or "").lower()
    if word in ("early", "mid", "late"):
        return thirds(begins, ends, word)
    if word == "after":
        return ends + ONE_DAY, OPEN_END
    if word in ("before", "until"):
        return None
    return begins, ends
