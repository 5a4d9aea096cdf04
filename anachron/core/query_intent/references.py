"""The dates and periods a text refers to, and the findings on a query at the as-of date T, worked out.

Each reference is mapped to the period it names, from its first day (``begins``)
to its last (``ends``).  Two findings are judged on a query (docs/metrics.md):

- a **future** reference names a period that begins after T;
- an **open period** is a period that contains T and ends after T, named by a
  query that asks for its results, report or final figures ("2023 annual
  report" as of 2023-06-01): those figures cannot exist at T.

Two kinds of reference are read:

- *written-out* references (``Q3 2023``, ``2023-07-14T00:00:00Z``,
  ``14.07.2023``, ``2023.07.14``, ``2023-7-14``, ``FY2023/24``, ``end of
  2023``, ``after:2023-01-01``, ``März 2023``, ``2023年7月``, ``CES '23``),
  searched in queries and in the text of returned items alike; compact
  dates (``20230714``) and search windows (``after:A before:B``, read as
  reaching for B's eve) in queries only;
- references *anchored at T* (``next quarter``, ``tomorrow``, ``3 months
  later``, ``this year``, a month without a year, read in T's year), searched
  in queries only: in a page, "next year" is relative to the page's own date.

Every recognised form, the numeric-date rule and the fiscal calendar are
listed in docs/metrics.md; names, numeric dates, fiscal calendars and the
anchored phrases are read by the date grammar (:mod:`anachron.core.grammar`).  The implementation is two precompiled regular
expressions (:mod:`.patterns`), one pass each (the second over queries only), and a third for
CJK suffixes run only over a text that has one; numbers that are not years
(``2020.HK``, ``Office 2019``, ``2050 km``) are rejected inside the first, by
look-arounds tried only where a year matched, and a few in Python where a
year matched (a house number needs an address around it: ``2020 Main St``,
``2024 Elm Street, Springfield, IL``; ``2023 Supreme Court`` is a year).
A fiscal period written as fiscal whose calendar is not given is the span
:mod:`~anachron.core.grammar.fiscal` gives (from its first day under the
earliest year end in use to its last under the latest): it begins after T
only if it does under every calendar.

Contents (each a section below):

- the records: :class:`DateReference`, :class:`QueryIntent`;
- calendar arithmetic: a year, a quarter or half, a numeric or paired date, read as a period;
- written-out references: :func:`date_references`, :func:`fixed_references` (those that
  do not depend on T), :func:`future_references`;
- references anchored at T, and the findings on a query: :func:`scanned_query` (the part
  read), :func:`findings` (worked out; :func:`anachron.core.query_intent.query_findings`
  answers the same through its cache).
"""

from __future__ import annotations

import bisect
import datetime as _dt
import re
from dataclasses import dataclass

from anachron.core.dates import known_at
from anachron.core.grammar.fiscal import (
    SPLIT_FISCAL_YEAR,
    fiscal_year,
    parse_fiscal_year_end,
    part_of_year,
    quarter_or_half,
    uncertain_fiscal_part,
    uncertain_fiscal_year,
)
from anachron.core.grammar.calendar_words import (
    FOREIGN_MONTH,
    day_of_month,
    foreign_month_number,
    month_number,
)
from anachron.core.grammar.numeric import numeric_dates
from anachron.core.grammar.page import PAGE_KEYS, PAGE_WRITTEN, page_kind, page_period
from anachron.core.grammar.periods import ONE_DAY, OPEN_END, add_months, month_end, thirds
from anachron.core.grammar.relative import ANCHORED_KINDS, anchored_period

from anachron.core.query_intent.patterns import (
    ADDRESS_NEAR,
    ADDRESS_WORDS,
    ANCHORED,
    APOS,
    AT,
    CJK,
    CJK_DIGITS,
    CJK_MARKS,
    CLOSING_QUOTE,
    DATE_WORDS,
    EXCHANGE,
    FISCAL_NEAR,
    FISCAL_WORDS,
    FULL_STREET,
    HYPHEN_WORD,
    NOT_RESULTS,
    NUMERIC_ORDER,
    ORDINALS,
    PAGE,
    PATTERN,
    QUERY_SCAN_CHARS,
    QUOTE_NEAR,
    RESULTS,
    SEASON_WORD,
    STATE_CODE,
)


@dataclass(frozen=True)
class DateReference:
    """A reference found in a text: its text and the first and last day of the period it names.

    ``ends`` is ``datetime.date.max`` for an open-ended reference (``after:2023-01-01``).
    """

    text: str
    begins: _dt.date
    ends: _dt.date


@dataclass(frozen=True)
class QueryIntent:
    """The findings on one query at T: future references, and open periods asked for their results."""

    future: tuple[DateReference, ...] = ()
    open_periods: tuple[DateReference, ...] = ()


# -- calendar arithmetic ------------------------------------------------------------------


def _year(text: str, as_of: _dt.date | None) -> int:
    """A four-digit year, or a two-digit one in the century that puts it within T-79..T+20 years."""
    digits = text.lstrip(APOS)
    if len(digits) == 4:
        return int(digits)
    yy = int(digits)
    if as_of is None:
        return 2000 + yy
    year = as_of.year - as_of.year % 100 + yy
    if year > as_of.year + 20:
        year -= 100
    elif year < as_of.year - 79:
        year += 100
    return year


def _period_months(kind_q: str) -> tuple[int, int]:
    """``q3`` -> (3, 3 months); ``h2`` -> (2, 6 months)."""
    return int(kind_q[1]), 3 if kind_q[0] in "qQ" else 6


# -- written-out references ---------------------------------------------------------------


def _iso(g, as_of) -> tuple[_dt.date, _dt.date]:
    """``2023-07-14``, ``2023/7/14``, ``2023.07.14`` (dotted: month and day of two digits, so ``2023.1.2`` stays a version)."""
    day = _dt.date(int(g("iso_y")), int(g("iso_m") or g("iso_dm")), int(g("iso_d") or g("iso_dd")))
    stamp = g("iso_t").strip()
    offset = re.search(r"([+-])([0-9]{2}):?([0-9]{2})$", stamp)
    if offset and len(stamp) > 6:  # a datetime with an offset counts on its UTC day
        hours, minutes = (int(x) for x in re.match(r"[T\s]?([0-9]{2}):([0-9]{2})", stamp).groups())
        sign = 1 if offset.group(1) == "+" else -1
        shift = _dt.timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3)))
        moment = _dt.datetime.combine(day, _dt.time(hours, minutes)) - sign * shift
        day = moment.date()
    return day, day


def _numeric(match, as_of, fiscal) -> list[tuple[str, _dt.date, _dt.date]]:
    """``14.07.2023`` (dotted: day first), ``07/14/2023``, ``7/28/23``: a period for each reading by :data:`NUMERIC_ORDER`."""
    g = match.group
    if g("num_dot"):
        days = numeric_dates(int(g("num_a")), int(g("num_db")), int(g("num_dy")), NUMERIC_ORDER, ".")
    else:
        days = numeric_dates(int(g("num_a")), int(g("num_b")), _year(g("num_y"), as_of), NUMERIC_ORDER, g("num_s"))
    return [(match.group(0), day, day) for day in days]


def _split_year(a: int, b_text: str) -> int | None:
    """The second year of ``a/b`` when it is the year after *a* (``2011/12``, ``2020-2021``), else None."""
    b = int(b_text)
    second = b if len(b_text) == 4 else a - a % 100 + b + (100 if b < a % 100 else 0)
    return second if second == a + 1 else None


def _pair(match, g, as_of, fiscal) -> list[tuple[str, _dt.date, _dt.date]]:
    """``YYYY/YY`` and ``YYYY-YYYY``: a split year, a year and month, or two years."""
    a, b_text, sep = int(g("pair_a")), g("pair_b"), g("pair_s").strip()
    second = _split_year(a, b_text)
    fy = g("pair_fy") is not None
    quarter = g("pair_fq")
    seasonal = fy or quarter is not None or bool(SEASON_WORD.match(match.string, match.end()))
    if second is not None and (seasonal or len(b_text) == 2 and (sep == "/" or int(b_text) > 12)):
        if fiscal is not None:
            begins, ends = fiscal_year(second, fiscal)
        elif fy or _fiscal_context(match):  # a fiscal or tax year, calendar unknown: grammar.fiscal
            (m1, d1), (m2, d2) = SPLIT_FISCAL_YEAR
            begins, ends = _dt.date(a, m1, d1), _dt.date(second, m2, d2)
        else:  # a season or school year with no calendar given: 1 July to 30 June
            begins, ends = _dt.date(a, 7, 1), _dt.date(second, 6, 30)
        if quarter:
            begins, ends = part_of_year(begins, *_period_months(quarter))
        return [(match.group(0), begins, ends)]
    if seasonal:
        return []
    if len(b_text) == 2:  # 2023-07, 2011-12: a year and month
        month = int(b_text)
        return [(match.group(0), _dt.date(a, month, 1), month_end(a, month))] if 1 <= month <= 12 else []
    b = int(b_text)  # a range of years names both
    return [
        (g("pair_a"), _dt.date(a, 1, 1), _dt.date(a, 12, 31)),
        (g("pair_b"), _dt.date(b, 1, 1), _dt.date(b, 12, 31)),
    ]


def _fiscal_context(match) -> bool:
    """Whether a fiscal or tax word stands within :data:`FISCAL_NEAR` characters of *match* (``2010/11 tax year``)."""
    text = match.string
    return FISCAL_WORDS.search(text, max(0, match.start() - FISCAL_NEAR), min(len(text), match.end() + FISCAL_NEAR)) is not None


def _one(form):
    """A form that names one period, as a list (the shape every form returns)."""

    def read(match, as_of, fiscal):
        return [(match.group(0), *form(match.group, as_of, fiscal))]

    return read


def _day_month_year(g, as_of, fiscal):
    day = _dt.date(int(g("dmy_y")), month_number(g("dmy_m")), day_of_month(g("dmy_d")))
    return day, day


def _month_quarter(g, as_of, fiscal):
    """``june quarter 2022``: the calendar quarter ending in that month."""
    year, month = int(g("mq_y")), month_number(g("mq_m"))
    return add_months(_dt.date(year, month, 1), -2), month_end(year, month)


def _month_range(g, as_of, fiscal):
    """``Jan-Mar 2024``: from the first month's first day to the second's last (across a year end: Nov-Feb)."""
    year, first, last = int(g("mr_y")), month_number(g("mr_a")), month_number(g("mr_b"))
    begins = _dt.date(year if first <= last else year - 1, first, 1)
    return begins, month_end(year, last)


def _foreign_day_month_year(g, as_of, fiscal):
    """``14. Juli 2023``, ``9. August 2008``, ``1er août 2021``, ``31 de enero de 2024`` (a name spelled as in English too)."""
    name = g("fdmy_m")
    month = foreign_month_number(name) if re.fullmatch(FOREIGN_MONTH, name, re.IGNORECASE) else month_number(name)
    day = _dt.date(int(g("fdmy_y")), month, int(g("fdmy_d")))
    return day, day


def _foreign_month_year(g, as_of, fiscal):
    """``März 2023``, ``juillet 2023``, ``julio de 2023``: the month."""
    year, month = int(g("fmy_y")), foreign_month_number(g("fmy_m"))
    return _dt.date(year, month, 1), month_end(year, month)


def _compact(g, as_of, fiscal):
    """``20230714``: that day (an eight-digit number that is no real day names nothing)."""
    day = _dt.date(int(g("cmp_y")), int(g("cmp_m")), int(g("cmp_d")))
    return day, day


def _apostrophe_year(g, as_of, fiscal):
    """``'23`` (``CES '23``, ``class of '26``): the year, in the century nearest T."""
    year = _year(g("apos_y"), as_of)
    return _dt.date(year, 1, 1), _dt.date(year, 12, 31)


def _cjk(g, as_of, fiscal):
    """``2023年``, ``2023年7月``, ``2023年7月14日``, ``2023년 7월``, ``2023年第一季度``; ``2023年度``: the Japanese
    fiscal year from April as well as the Chinese calendar year, so 1 January to 31 March of the next year."""
    year = int(g("cjk_y"))
    if g("cjk_d"):
        day = _dt.date(year, int(g("cjk_m")), int(g("cjk_d")))
        return day, day
    if g("cjk_m"):
        month = int(g("cjk_m"))
        return _dt.date(year, month, 1), month_end(year, month)
    quarter = g("cjk_q") or g("cjk_qq")
    if quarter:
        return quarter_or_half(CJK_DIGITS.get(quarter) or int(quarter), 3, year, None, True)
    if g("cjk_fy"):
        return _dt.date(year, 1, 1), _dt.date(year + 1, 3, 31)
    return _dt.date(year, 1, 1), _dt.date(year, 12, 31)


def _month_slash_year(g, as_of, fiscal):
    """``10/2023``: the month."""
    year, month = int(g("my_y")), int(g("my_m"))
    return _dt.date(year, month, 1), month_end(year, month)


def _month_day_year(g, as_of, fiscal):
    year, month = int(g("mdy_y")), month_number(g("mdy_m"))
    if g("mdy_d"):
        day = _dt.date(year, month, day_of_month(g("mdy_d")))
        return day, day
    return _dt.date(year, month, 1), month_end(year, month)


def _part_named(kind: str, months: int):
    """Q3 2023, third quarter 2023, H2 2023 (the quarter or half before the year, which may say CY or FY)."""
    number = f"{kind}_q" if months == 3 else f"{kind}_h"

    def read(g, as_of, fiscal):
        raw = g(number)
        index = ORDINALS.get(raw.lower()) or int(raw)
        year = _year(g(f"{kind}_y"), as_of)
        written_fiscal = g(f"{kind}_fy") or (kind == "qy" and g("qy_pre"))
        if fiscal is None and written_fiscal and not g(f"{kind}_cy"):  # fiscal, calendar unknown: grammar.fiscal
            return uncertain_fiscal_part(index, months, year)
        return quarter_or_half(index, months, year, fiscal, bool(g(f"{kind}_cy")))

    return read


def _part_numbered(kind: str, months: int):
    """2023Q3, 3Q23, 2023H1, 2H23."""
    number = f"{kind}_q" if months == 3 else f"{kind}_h"

    def read(g, as_of, fiscal):
        return quarter_or_half(int(g(number)), months, _year(g(f"{kind}_y"), as_of), fiscal, False)

    return read


def _fiscal_named(g, as_of, fiscal):
    """FY2024, fiscal 2024 q1: by the fiscal calendar, or, with none given, as grammar.fiscal's uncertain span."""
    year = _year(g("fy_y"), as_of)
    if fiscal is None:
        if g("fy_q"):
            return uncertain_fiscal_part(*_period_months(g("fy_q")), year)
        return uncertain_fiscal_year(year)
    begins, ends = fiscal_year(year, fiscal)
    if g("fy_q"):
        begins, ends = part_of_year(begins, *_period_months(g("fy_q")))
    return begins, ends


def _calendar_named(g, as_of, fiscal):
    year = _year(g("cy_y") or g("cy_y4"), as_of)
    return _dt.date(year, 1, 1), _dt.date(year, 12, 31)


def _bare_year(g, as_of, fiscal):
    year = int(g("year"))
    return _dt.date(year, 1, 1), _dt.date(year, 12, 31)


# The form a match is (its ``lastgroup``) -> the period(s) it names, before any prefix.
_FORMS = {
    "iso": _one(lambda g, as_of, fiscal: _iso(g, as_of)),
    "num": _numeric,
    "pair": lambda match, as_of, fiscal: _pair(match, match.group, as_of, fiscal),
    "dmy": _one(_day_month_year),
    "fdmy": _one(_foreign_day_month_year),
    "fmy": _one(_foreign_month_year),
    "cmp": _one(_compact),
    "cjk": _one(_cjk),
    "apos": _one(_apostrophe_year),
    "mq": _one(_month_quarter),
    "mdy": _one(_month_day_year),
    "mr": _one(_month_range),
    "my": _one(_month_slash_year),
    "qy": _one(_part_named("qy", 3)),
    "oq": _one(_part_named("oq", 3)),
    "hy": _one(_part_named("hy", 6)),
    "oh": _one(_part_named("oh", 6)),
    "yq": _one(_part_numbered("yq", 3)),
    "nq": _one(_part_numbered("nq", 3)),
    "yh": _one(_part_numbered("yh", 6)),
    "nh": _one(_part_numbered("nh", 6)),
    "fy": _one(_fiscal_named),
    "cy": _one(_calendar_named),
    "year": _one(_bare_year),
}


def _joined_to_a_word(text: str, start: int) -> bool:
    """A year glued to a word by a hyphen (RSA-2048, not mid-2023) or after an exchange code (HKEX:2015)."""
    before = text[start - 1 : start] if start else ""
    if before == "-":
        word = HYPHEN_WORD.search(text, max(0, start - _LOOKBACK), start)
        return word is not None and word.group(1).lower() not in DATE_WORDS
    if before == ":" or before == " " and text[start - 2 : start - 1] == ":":
        return EXCHANGE.search(text, max(0, start - _LOOKBACK), start) is not None
    return False


_LOOKBACK = 16


def _operator(match) -> str | None:
    """The search operator (``after``, ``since``, ``before``, ``until``) before a match, if any (a CJK match has none)."""
    op = match.group("op") if "op" in match.re.groupindex else None
    return op.split(":")[0].strip().lower() if op else None


def _upper_bound(match, begins: _dt.date, ends: _dt.date) -> _dt.date | None:
    """The last day a ``before:`` (the day before) or ``until:`` (the period's last day) search filter admits; None for another prefix."""
    operator = _operator(match)
    if operator == "before":
        return begins - ONE_DAY
    if operator == "until":
        return ends
    return None


def _with_prefix(match, begins: _dt.date, ends: _dt.date) -> tuple[_dt.date, _dt.date] | None:
    """Apply what stands before a reference: ``after``, ``end of``, ``early``, ``week of``; None drops it."""
    g = match.group
    if g("op"):
        operator = g("op").split(":")[0].strip().lower()
        if operator in ("before", "until"):
            return None  # a bound from above, alone, reaches for nothing after the date (see _references)
        if operator == "after":
            return ends + ONE_DAY, OPEN_END
        return begins, OPEN_END  # since:
    if g("after"):
        return ends + ONE_DAY, OPEN_END
    if g("end"):
        return ends, ends
    if g("part"):
        return thirds(begins, ends, g("part_w").lower())
    if g("week_w").lower() in ("ending", "ended"):
        return ends - _dt.timedelta(days=6), ends
    return begins, begins + _dt.timedelta(days=6)


_PREFIX_GROUPS = ("op", "after", "end", "part", "week")


def _street_address(text: str, match) -> bool:
    """A year followed by a street named in full (``2024 Elm Street``) in a text that reads as an address."""
    street = FULL_STREET.match(text, match.end())
    if street is None:
        return False
    at = AT.search(text, max(0, match.start() - 4), match.start()) is not None  # "office at 2030 broadway"
    near = ADDRESS_WORDS.search(text, max(0, match.start() - ADDRESS_NEAR), min(len(text), street.end() + ADDRESS_NEAR))
    return at or near is not None or STATE_CODE.match(text, street.end()) is not None


def _references(
    text: str, as_of: _dt.date | None, fiscal: tuple[int, int] | None, matches, anchored: bool
) -> list[DateReference]:
    """The references of *matches*; those anchored at T only when *anchored* (a query, with its T).

    In a query (*anchored*) that bounds a search window from below (``after:``, ``since:``), a
    ``before:`` or ``until:`` filter is read as the window's last day: a window that runs past T
    reaches for the future.  Alone, such a filter only bounds from above and names nothing.
    """
    found = []
    # (a search operator is written with a colon: a text without one has none, and no window)
    windowed = anchored and ":" in text and any(_operator(m) in ("after", "since") for m in matches)
    for match in matches:
        kind = match.lastgroup
        try:
            if kind in ANCHORED_KINDS:
                if not anchored:
                    continue
                period = anchored_period(match, as_of, fiscal)
                if period is None:
                    continue
                periods = [(match.group(0), *period)]
            elif kind == "year" and (_joined_to_a_word(text, match.start(kind)) or _street_address(text, match)):
                continue
            elif kind == "apos" and CLOSING_QUOTE.search(text, match.end(), match.end() + QUOTE_NEAR):
                continue  # 'the 24 hours' opens a quotation: a closing quote follows
            elif kind == "cmp" and not anchored:
                continue  # in a page, an eight-digit number is an id as often as a date: queries only
            else:
                periods = _FORMS[kind](match, as_of, fiscal)
        except ValueError:  # an impossible day such as 2023-02-30 names no period
            continue
        # A prefix (after, end of, early) standing before a form that names one period, or before
        # each reading of a numeric date, applies to it; a range of years (2023-2024) keeps its years.
        if match.start(kind) > match.start() and (len(periods) == 1 or kind == "num"):
            if windowed:
                bounds = [(ref_text, last) for ref_text, begins, ends in periods
                          if (last := _upper_bound(match, begins, ends)) is not None]
                if bounds:
                    found += [DateReference(match.group(0), last, last) for _, last in bounds]
                    continue
            periods = [(ref_text, *shifted) for ref_text, begins, ends in periods
                       if (shifted := _with_prefix(match, begins, ends)) is not None]
        found += [DateReference(ref_text, begins, ends) for ref_text, begins, ends in periods]
    return found


_LONG = 512  # characters: past this, only the neighbourhoods of digits are searched
_BEFORE = 40  # how far before its first digit a reference may start ("third quarter of fiscal year 2024")
_AFTER = 3  # the look-ahead a reference's end needs ("2024M", "20.24")
# Digits no more than _BEFORE + _AFTER apart, as one cluster (found by the regex engine, not a loop).
_CLUSTER = re.compile(rf"[0-9](?:[^0-9]{{0,{_BEFORE + _AFTER}}}[0-9])*")


def _windows(text: str) -> list[tuple[int, int]]:
    """Spans of *text* around its digit clusters: every reference has a digit, so lies in one."""
    return [(max(0, m.start() - _BEFORE), min(len(text), m.end() + _AFTER)) for m in _CLUSTER.finditer(text)]


def _matches(text: str):
    """*text* (collapsed to single spaces when long) and the matches of PATTERN and CJK in it, in order."""
    if len(text) <= _LONG:
        found = list(PATTERN.finditer(text))
    else:
        text = " ".join(text.split())
        found = [m for start, end in _windows(text) for m in PATTERN.finditer(text, start, end)]
    if CJK_MARKS[0] in text or CJK_MARKS[1] in text:  # (two tests in C, no generator)
        cjk = list(CJK.finditer(text))
        if cjk:  # a match of PATTERN inside a CJK one is dropped; both lists are sorted and disjoint
            starts = [m.start() for m in cjk]
            found = [m for m in found if (i := bisect.bisect_left(starts, m.end()) - 1) < 0 or cjk[i].end() <= m.start()]
            found = sorted(found + cjk, key=lambda m: m.start())
    return text, found


def date_references(
    text: str, as_of: _dt.date | None = None, *, fiscal_year_end: str | None = None, page_date: _dt.date | None = None
) -> list[DateReference]:
    """Every written-out date or period *text* refers to, in order of appearance; with *page_date*, then
    those anchored at the page's own date (:mod:`anachron.core.grammar.page`: ``next year``, ``until
    September 8th``), which a page's text is read by and a query's never.

    *as_of* chooses the century of a two-digit year (within T-79..T+20
    years; without it, 20YY); *fiscal_year_end* (``"MM-DD"``) is the
    calendar of fiscal years and of bare quarters and halves.  A long text
    (a fetched page) is first collapsed to single spaces and searched only
    around its digit runs, which finds the same references at a fraction of
    the cost (a page of prose has few digits).
    """
    fiscal = parse_fiscal_year_end(fiscal_year_end) if fiscal_year_end is not None else None
    text, matches = _matches(text)
    if page_date is None:
        return _references(text, as_of, fiscal, matches, anchored=False)
    matches, page = _page_matches(text, matches)
    return _references(text, as_of, fiscal, matches, anchored=False) + _page_references(page, page_date)


def _page_matches(text: str, written: list) -> tuple[list, list]:
    """The written-out matches and the matches of the forms anchored at a page's date (grammar.page), apart.

    A page match inside a written-out one is dropped (``in April 2014`` is April 2014); a written-out
    match inside ``the third calendar quarter of 2014`` or ``2017-December`` (the bare year) gives way to it.
    """
    page: list = []
    lowered = text.lower()
    if not any(key in lowered for key in PAGE_KEYS):  # no form can match: skip the pass
        return written, page
    inside: list[tuple[int, int]] = []
    starts = [m.start() for m in written]  # sorted and disjoint: only the last one starting before an end can overlap
    for match in PAGE.finditer(text):
        if page_kind(match) in PAGE_WRITTEN:
            inside.append(match.span())
            page.append(match)
            continue
        index = bisect.bisect_left(starts, match.end()) - 1
        if index < 0 or written[index].end() <= match.start():
            page.append(match)
    if inside:
        written = [m for m in written if not any(start <= m.start() and m.end() <= end for start, end in inside)]
    return written, page


def _page_references(matches: list, page_date: _dt.date) -> list[DateReference]:
    found = []
    for match in matches:
        try:
            period = page_period(match, page_date)
        except ValueError:  # a day that is no day (February 30)
            continue
        if period is not None:
            found.append(DateReference(match.group(0), *period))
    return found


# Two cutoffs whose windows for a two-digit year (T-79..T+20) share no year: a text whose
# references come out the same at both has none whose period depends on T.
_CUTOFFS = (_dt.date(1950, 1, 1), _dt.date(2050, 1, 1))


def fixed_references(text: str, *, page_date: _dt.date | None = None) -> list[DateReference] | None:
    """:func:`date_references` of *text* (no fiscal calendar) when they are the same at every T, else ``None``.

    Only a two-digit year (Q3 '23) is read by T, in the century nearest it:
    a text with one has no references fixed in advance.  The text is
    searched once; its matches are read at two cutoffs.  The references
    anchored at *page_date* depend on the page's date only.
    """
    text, matches = _matches(text)
    page: list = []
    if page_date is not None:
        matches, page = _page_matches(text, matches)
    early, late = (_references(text, cutoff, None, matches, anchored=False) for cutoff in _CUTOFFS)
    return early + _page_references(page, page_date) if early == late else None  # type: ignore[arg-type]


def future_references(
    text: str, as_of: _dt.date, *, fiscal_year_end: str | None = None, page_date: _dt.date | None = None
) -> list[DateReference]:
    """The written-out references of *text* whose period begins strictly after *as_of*; with *page_date*
    (the day the page was published), those anchored at it too (:func:`date_references`).

    A period that begins on or before *as_of* (the month or year containing
    it, the day itself) is not a leak.  References anchored at T are not
    read here: this is the rule for the text of returned items too.
    """
    refs = date_references(text, as_of, fiscal_year_end=fiscal_year_end, page_date=page_date)
    return [ref for ref in refs if not known_at(ref.begins, as_of)]


# -- references anchored at T -------------------------------------------------------------


def _merge(written: list, anchored: list) -> list:
    """Both kinds of match in order of position; an anchored one inside a written one is dropped (july 12 2023)."""
    starts = [m.start() for m in written]  # sorted and disjoint: only the last one starting before an end can overlap
    kept = list(written)
    for match in anchored:
        index = bisect.bisect_left(starts, match.end()) - 1
        if index < 0 or written[index].end() <= match.start():
            kept.append(match)
    kept.sort(key=lambda m: m.start())
    return kept


def _open_periods(query: str, refs: list[DateReference], as_of: _dt.date) -> tuple[DateReference, ...]:
    """The closed periods of *refs* containing T and ending after it, when *query* asks for results.

    A period with a narrower reference inside it is only the narrower one's context.
    """
    candidates = [r for r in refs if r.ends != OPEN_END and known_at(r.begins, as_of) and not known_at(r.ends, as_of)]
    if not candidates or not RESULTS.search(query) or NOT_RESULTS.search(query):
        return ()
    chosen = {(ref.begins, ref.ends): ref for ref in reversed(candidates)}  # the first of each period
    low, high = min(begins for begins, _ in chosen), max(ends for _, ends in chosen)
    inside = {(r.begins, r.ends) for r in refs if r.begins >= low and r.ends <= high}  # few: all lie around T
    return tuple(
        ref
        for (begins, ends), ref in reversed(chosen.items())
        if not any(b >= begins and e <= ends and (b, e) != (begins, ends) for b, e in inside)
    )


# -- the findings on a query -------------------------------------------------------------


def scanned_query(query: str) -> str:
    """The part of *query* the date detectors read: all of it, or its first :data:`QUERY_SCAN_CHARS` characters.

    A longer query is cut at its last whitespace within the limit (a date
    cut in half could read as another date), or at the limit when it has
    none.  Time and memory per query are so bounded (a 20 MB query made
    millions of references); the scorer says so in the evidence.

    >>> scanned_query("2023 " * 4000).endswith("2023")
    True
    >>> len(scanned_query("x" * 20000)) == QUERY_SCAN_CHARS
    True
    """
    if len(query) <= QUERY_SCAN_CHARS:
        return query
    head = query[:QUERY_SCAN_CHARS + 1]
    cut = max(head.rfind(space) for space in (" ", "\n", "\t"))
    return head[:cut] if cut > 0 else head[:QUERY_SCAN_CHARS]


def findings(text: str, as_of: _dt.date, fiscal_year_end: str | None) -> QueryIntent:
    """The findings on *text* (the :func:`scanned_query` part of a query) at *as_of*, worked out every time.

    :func:`anachron.core.query_intent.query_findings` answers the same, through its cache."""
    fiscal = parse_fiscal_year_end(fiscal_year_end) if fiscal_year_end is not None else None
    text, matches = _matches(text)
    anchored = list(ANCHORED.finditer(text))  # the whole text: an anchored phrase has no digit to find it by
    if anchored:
        matches = _merge(matches, anchored)
    refs = _references(text, as_of, fiscal, matches, anchored=True) if matches else ()
    if not refs:
        return _NO_FINDINGS
    future = tuple([ref for ref in refs if not known_at(ref.begins, as_of)])
    return QueryIntent(future, _open_periods(text, refs, as_of))


_NO_FINDINGS = QueryIntent()  # immutable: shared by every query that names no period
