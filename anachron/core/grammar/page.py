"""Phrases anchored at a page's own date P: ``next year``, ``the end of the year``, ``until September 8th``, ``in April``.

A page's text speaks from the day it was published, not from the as-of
date T of the agent reading it: a page of 2019-05-15 saying "next year"
names 2020 (docs/metrics.md, "Content leaks").  The content check reads these
forms at P, then asks, as for every reference, whether the period begins
after T.  The rules:

- ``tomorrow`` is P+1; ``the day after tomorrow`` P+2; ``later this year``,
  ``the rest of this month`` P+1 to the period's end (``the rest of the
  year`` is not read: "sales slumped for the rest of the year" tells of a
  past one as often); ``next week``, ``next
  month``, ``next quarter`` (calendar), ``next year``, ``next decade`` and
  ``the year after next`` the period after P's; ``next friday`` the first
  Friday after P, ``this friday`` the one in P's week; ``the coming months``,
  ``in the next 12 months``, ``next 2 years`` P+1 to P plus that much (one of
  the unit without a count); ``two years from now`` that one day;
  ``this month``, ``this quarter``, ``this year`` the period containing P;
  ``the end of`` any of these its last day; ``by the end of the month``
  (``quarter``, ``year``) and ``by year-end`` (or after ``until``,
  ``through``, ``before``) are those of P's.  Without such a word, ``at
  year end``, ``the year-end count`` or ``at the end of the month`` name
  nothing: a page speaks of a past one as often as of the next;
- a **year-less day or month** (``June 26``, ``8 September``, ``in April``,
  ``mid-March``, ``the December quarter``) is the occurrence **nearest P**:
  in P's year, the year before or the year after, whichever is fewest days
  from P (0 for one containing P); a tie goes to P's own year.  A page of
  2019-01-05 saying "on December 20" means 2018-12-20; one of 2019-12-10
  saying "a January 15 deadline" means 2020-01-15.  After ``by``,
  ``until``, ``till``, ``through`` or ``thru`` (a deadline, or a period
  running up to it), the **next** occurrence that ends on or after P:
  "until September 8th" on 2019-10-01 is 2020-09-08.  A year told after
  it is that year: "on June 1 last year", "in April next year", "the end
  of May this year"; "the following year" (or ``previous``, ``prior``,
  ``next``, ``same``) is one the text spoke of, and names nothing here;
- ``since``, ``last`` and ``before`` such a date name nothing after P (a bound from
  above, or a past start); ``after`` it, the open period from the next day;
- a month name alone is read only after one of those words, or ``in``,
  ``on``, ``during``, ``from``, ``of``, ``early``, ``mid``, ``late`` or
  ``the end of``, and written with a capital (``in May``, not ``may``;
  ``Jan Smith`` is no month): alone, a month name is a person, a verb or a
  word too often;
- two written-out forms are read in pages only (query intent's forms are
  left as they are): ``the first calendar quarter of 2014`` (``calendar`` or
  ``fiscal`` between the ordinal and ``quarter``) is that quarter; fiscal,
  as every fiscal period without a calendar, the span of every calendar in
  use; ``2017-December`` (a year, a hyphen, a month in full, as mail
  archives name a month in their links) is that month.  Either takes the
  place of the bare year inside it.

Deliberately not read: a count of units *later* or *after* an event ("18-24
months after 3.1", "three months later"): it is anchored at the event, whose
date the text does not give; ``the next year`` and ``the following year``
(narrative: the year after one the text spoke of); ``in three years`` (most
often a duration: "the first rise in three years").

:data:`PAGE_FORMS` is a regular-expression source, compiled by its reader
with ``re.IGNORECASE``; :func:`page_period` reads a match of it.

>>> import re
>>> m = re.fullmatch(PAGE_FORMS, "next year", re.IGNORECASE)
>>> page_period(m, _dt.date(2019, 5, 15))
(datetime.date(2020, 1, 1), datetime.date(2020, 12, 31))
>>> page_period(re.fullmatch(PAGE_FORMS, "until September 8th", re.IGNORECASE), _dt.date(2019, 10, 1))
(datetime.date(2020, 9, 8), datetime.date(2020, 9, 8))
>>> page_period(re.fullmatch(PAGE_FORMS, "on December 20", re.IGNORECASE), _dt.date(2019, 1, 5))
(datetime.date(2018, 12, 20), datetime.date(2018, 12, 20))
"""

from __future__ import annotations

import datetime as _dt
import re

from anachron.core.grammar.calendar_words import (
    DAY_OF_MONTH, MONTH, MONTH_IN_FULL, MONTH_STEMS, WEEKDAY_IN_FULL, day_of_month, month_number, weekday_number,
)
from anachron.core.grammar.fiscal import quarter_or_half, uncertain_fiscal_part
from anachron.core.grammar.periods import ONE_DAY, OPEN_END, add_months, month_end, thirds, units_after
from anachron.core.grammar.relative import NUMBER_WORDS, containing

__all__ = ["PAGE_FORMS", "PAGE_KEYS", "PAGE_KINDS", "PAGE_WORDS", "PAGE_WRITTEN", "nearest_occurrence", "page_kind", "page_period"]

_COUNT = r"(?:[0-9]{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|several)"
_UNITS = r"(?:day|week|month|quarter|year)s?"
_CUES = r"by|until|till|through|thru|since|last|before|after|in|on|during|from|of|early|mid|late"
_ORDINAL = r"(?:first|second|third|fourth|1st|2nd|3rd|4th)"

PAGE_FORMS = (
    rf"(?:(?P<pg_cue>{_CUES})[\s\-]+)?"
    r"(?P<pg_end>(?:the\s+)?(?:end|close)\s+of\s+)?"
    r"(?:"
    r"(?P<pg_after_tomorrow>(?:the\s+)?day\s+after\s+tomorrow)"
    r"|(?P<pg_tomorrow>tomorrow)"
    r"|(?P<pg_this>(?:this|the\s+current)\s+(?P<pg_this_span>week|month|quarter|year))"
    r"|(?P<pg_after_next>(?:the\s+)?year\s+after\s+next)"
    r"|(?P<pg_the>the\s+(?P<pg_the_span>month|quarter|year))"
    r"|(?P<pg_yearend>year[\s\-]end)"
    r"|(?P<pg_later>(?:later\s+this|(?:the\s+)?(?:rest|remainder|balance)\s+of\s+this)\s+(?P<pg_later_span>week|month|quarter|year))"
    rf"|(?P<pg_weekday>(?P<pg_weekday_p>next|coming|this)\s+(?P<pg_weekday_d>{WEEKDAY_IN_FULL}))"
    r"|(?P<pg_next>(?<!the\s)next\s+(?P<pg_next_span>week|month|quarter|year|decade))"
    rf"|(?P<pg_within>(?:(?:in|over|within|during)\s+the\s+(?:next|coming)|(?:the\s+)?(?:coming|upcoming)|(?<!the\s)next)\s+(?P<pg_within_n>{_COUNT}\s+)?(?P<pg_within_unit>day|week|month|quarter|year)s?)"
    rf"|(?P<pg_from_now>(?P<pg_from_now_n>{_COUNT})\s+(?P<pg_from_now_unit>day|week|month|quarter|year)s?\s+(?:from\s+(?:now|today)|hence))"
    rf"|(?P<pg_oq>(?P<pg_oq_q>{_ORDINAL})\s+(?P<pg_oq_kind>calendar|fiscal)\s+quarter(?:\s+of)?\s+(?P<pg_oq_y>(?:19|20)[0-9]{{2}}))"
    rf"|(?P<pg_ym>(?P<pg_ym_y>(?:19|20)[0-9]{{2}})-(?P<pg_ym_m>{MONTH_IN_FULL}))"
    rf"|(?P<pg_md>(?P<pg_md_m>{MONTH})\.?\s+(?P<pg_md_d>{DAY_OF_MONTH}))"
    rf"|(?P<pg_dm>(?P<pg_dm_d>{DAY_OF_MONTH})\s+(?:of\s+)?(?P<pg_dm_m>{MONTH})\b)"
    rf"|(?P<pg_mq>(?:the\s+)?(?P<pg_mq_m>{MONTH})\s+quarter)"
    rf"|(?P<pg_month>{MONTH})"
    r")(?:,?\s+(?:of\s+)?(?:(?P<pg_which>last|this|next)|the\s+(?P<pg_told>previous|prior|following|next|same))\s+year)?"
    r"(?![\w-])"
)
# The groups that name a form (a match's lastgroup is one of them).
PAGE_KINDS = frozenset(
    ("pg_after_tomorrow", "pg_tomorrow", "pg_this", "pg_the", "pg_yearend", "pg_later", "pg_weekday", "pg_after_next",
     "pg_next", "pg_within", "pg_from_now", "pg_oq", "pg_ym", "pg_md", "pg_dm", "pg_mq", "pg_month")
)
_KIND_ORDER = tuple(sorted(PAGE_KINDS, key=lambda kind: PAGE_FORMS.index(f"(?P<{kind}>")))
# The first word (or its first letters) of every form and cue: what a match can begin with.
# Forms written out in full, with their year: a written-out match inside one (its bare year) gives way.
PAGE_WRITTEN = frozenset(("pg_oq", "pg_ym"))
PAGE_WORDS = (
    *_CUES.split("|"), *MONTH_STEMS, "the", "end", "close", "day", "tomorrow", "this", "year", "later", "rest",
    "remainder", "balance", "next", "coming", "upcoming", "over", "within", "first", "second", "third", "fourth",
    *(rf"{word}\s" for word in NUMBER_WORDS),
)
# Every form holds one of these (a month's first letters, a unit, "tomorrow"; a weekday ends in "day"):
# a text holding none, in lower case, has no match, and its pass is skipped.
PAGE_KEYS = (*MONTH_STEMS, "day", "week", "month", "quarter", "year", "decade", "tomorrow")
_FORWARD = frozenset(("by", "until", "till", "through", "thru"))
_NOTHING_AFTER = frozenset(("since", "last", "before"))
_WHICH = {"last": -1, "this": 0, "next": 1}


def nearest_occurrence(period, page_date: _dt.date, forward: bool = False) -> tuple[_dt.date, _dt.date]:
    """Of ``period(year)`` for P's year and the years either side, the one nearest *page_date* (module docstring).

    *forward*: the first that ends on or after *page_date* instead.  A ``ValueError`` of *period* (29 February
    of a common year) drops that year.

    >>> nearest_occurrence(lambda y: (_dt.date(y, 4, 1), _dt.date(y, 4, 30)), _dt.date(2014, 10, 31))
    (datetime.date(2015, 4, 1), datetime.date(2015, 4, 30))
    """
    candidates = []
    for year in (page_date.year, page_date.year - 1, page_date.year + 1):  # P's own year first: it wins a tie
        try:
            candidates.append(period(year))
        except ValueError:
            continue
    if not candidates:
        raise ValueError("no such day near the page's date")
    if forward:
        return min((c for c in candidates if c[1] >= page_date), key=lambda c: c[0])
    return min(candidates, key=lambda c: max((c[0] - page_date).days, (page_date - c[1]).days, 0))


def _count(text: str | None) -> int:
    text = (text or "one").strip().lower()
    return NUMBER_WORDS[text] if text in NUMBER_WORDS else int(text)


def _relative(g, page_date: _dt.date) -> tuple[_dt.date, _dt.date] | None:
    """The forms that need no month name, read at *page_date*; None for a match of another form."""
    if g("pg_after_tomorrow"):
        return page_date + 2 * ONE_DAY, page_date + 2 * ONE_DAY
    if g("pg_tomorrow"):
        return page_date + ONE_DAY, page_date + ONE_DAY
    if g("pg_this"):
        return containing(g("pg_this_span"), page_date, None)
    if g("pg_later"):
        _, ends = containing(g("pg_later_span"), page_date, None)
        return page_date + ONE_DAY, max(ends, page_date + ONE_DAY)
    if g("pg_weekday"):
        weekday = weekday_number(g("pg_weekday_d"))
        if g("pg_weekday_p").lower() == "this":
            day = page_date + _dt.timedelta(days=weekday - page_date.weekday())
        else:
            day = page_date + _dt.timedelta(days=(weekday - page_date.weekday() - 1) % 7 + 1)
        return day, day
    if g("pg_after_next"):
        return _dt.date(page_date.year + 2, 1, 1), _dt.date(page_date.year + 2, 12, 31)
    if g("pg_next"):
        _, ends = containing(g("pg_next_span"), page_date, None)
        return containing(g("pg_next_span"), ends + ONE_DAY, None)
    if g("pg_within"):
        return page_date + ONE_DAY, units_after(page_date, _count(g("pg_within_n")), g("pg_within_unit"))
    if g("pg_from_now"):
        day = units_after(page_date, _count(g("pg_from_now_n")), g("pg_from_now_unit"))
        return day, day
    if g("pg_ym"):
        year, month = int(g("pg_ym_y")), month_number(g("pg_ym_m"))
        return _dt.date(year, month, 1), month_end(year, month)
    if g("pg_oq"):
        index = {"first": 1, "second": 2, "third": 3, "fourth": 4}.get(g("pg_oq_q").lower()) or int(g("pg_oq_q")[0])
        if g("pg_oq_kind").lower() == "fiscal":
            return uncertain_fiscal_part(index, 3, int(g("pg_oq_y")))
        return quarter_or_half(index, 3, int(g("pg_oq_y")), None, True)
    return None


def _year_less(g, kind: str):
    """``period(year)`` for a year-less form (a day, a month, a month's quarter, 31 December)."""
    if kind in ("pg_md", "pg_dm"):
        month, day = month_number(g("pg_md_m") or g("pg_dm_m")), day_of_month(g("pg_md_d") or g("pg_dm_d"))
        return lambda year: (_dt.date(year, month, day),) * 2
    if kind == "pg_mq":
        month = month_number(g("pg_mq_m"))
        return lambda year: (add_months(_dt.date(year, month, 1), -2), month_end(year, month))
    month = month_number(g("pg_month"))
    return lambda year: (_dt.date(year, month, 1), month_end(year, month))


def page_kind(match: re.Match[str]) -> str:
    """The form (one of :data:`PAGE_KINDS`) a match of :data:`PAGE_FORMS` is."""
    return next(kind for kind in _KIND_ORDER if match.group(kind) is not None)


def page_period(match: re.Match[str], page_date: _dt.date) -> tuple[_dt.date, _dt.date] | None:
    """The period a match of :data:`PAGE_FORMS` names on a page dated *page_date*; None for one that names
    nothing (a bare month in lower case, ``the year`` without ``the end of``, ``since April``).

    Raises ``ValueError`` for a day that is no day near P (``February 30``).
    """
    g = match.group
    kind = page_kind(match)
    cue = (g("pg_cue") or "").lower()
    end = g("pg_end") is not None
    if kind == "pg_the" and not end:
        return None  # "the year" alone names no period
    if end and cue == "before":
        cue = "by"  # "before the end of May": by then
    if kind in ("pg_the", "pg_yearend") and cue not in _FORWARD:
        return None  # "at year end", "the year-end count", "at the end of the month": a past one as often
    if kind == "pg_month" and not ((cue or end) and g("pg_month")[0].isupper()):
        return None  # a month name alone is a word too often (module docstring)
    if kind == "pg_the":
        period = containing(g("pg_the_span"), page_date, None)
    elif kind == "pg_yearend":
        period = (_dt.date(page_date.year, 12, 31),) * 2
    elif kind in ("pg_md", "pg_dm", "pg_mq", "pg_month"):
        if g("pg_told"):
            return None  # "the following year": a year the text spoke of, not told here
        if g("pg_which"):  # "on June 1 last year": the year is told
            period = _year_less(g, kind)(page_date.year + _WHICH[g("pg_which").lower()])
        else:
            period = nearest_occurrence(_year_less(g, kind), page_date, cue in _FORWARD)
    else:
        period = _relative(g, page_date)
        if period is None:
            return None
    begins, ends = period
    if end:
        begins = ends
    if cue in _NOTHING_AFTER:
        return None
    if cue == "after":
        return ends + ONE_DAY, OPEN_END
    if cue in ("early", "mid", "late"):
        return thirds(begins, ends, cue)
    return begins, ends
