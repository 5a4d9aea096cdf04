"""Find the dates and periods a search query refers to, and judge them at the as-of date T.

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
expressions, one pass each (the second over queries only), and a third for
CJK suffixes run only over a text that has one; numbers that are not years
(``2020.HK``, ``Office 2019``, ``2050 km``) are rejected inside the first, by
look-arounds tried only where a year matched, and a few in Python where a
year matched (a house number needs an address around it: ``2020 Main St``,
``2024 Elm Street, Springfield, IL``; ``2023 Supreme Court`` is a year).
A fiscal period written as fiscal whose calendar is not given is the span
:mod:`~anachron.core.grammar.fiscal` gives (from its first day under the
earliest year end in use to its last under the latest): it begins after T
only if it does under every calendar.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import NamedTuple

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
    DAY_OF_MONTH,
    FOREIGN_MONTH,
    FOREIGN_MONTH_NO_DAY,
    FOREIGN_MONTH_STEMS,
    MONTH,
    MONTH_STEMS,
    day_of_month,
    foreign_month_number,
    month_number,
)
from anachron.core.grammar.numeric import Order, numeric_dates
from anachron.core.grammar.page import PAGE_FORMS, PAGE_KEYS, PAGE_WORDS, PAGE_WRITTEN, page_kind, page_period
from anachron.core.grammar.periods import ONE_DAY, OPEN_END, add_months, month_end, thirds
from anachron.core.grammar.relative import ANCHORED_FORMS, ANCHORED_KINDS, ANCHORED_WORDS, anchored_period

__all__ = [
    "ASKED_ONCE",
    "CACHED_QUERY_CHARS",
    "DateReference",
    "FINDINGS_CACHE",
    "FindingsCacheInfo",
    "QUERY_SCAN_CHARS",
    "QueryIntent",
    "REPEATING",
    "date_references",
    "future_references",
    "parse_fiscal_year_end",
    "query_findings",
    "scanned_query",
]

# Of a query, the characters the date detectors read (a real query is well under 1 KiB; the
# lock refuses a search over 1,000 characters): 16 KiB is read in about 20 ms.
QUERY_SCAN_CHARS = 16 * 1024

# Slashed and hyphenated numeric dates are read both ways: a reference is a finding if either
# reading begins after T, because a future reference read the wrong way round is a silent miss
# (docs/metrics.md, "Reading dates").  Dotted ones are day first (grammar.numeric).
NUMERIC_ORDER = Order.BOTH

_APOS = "'\u2019\u2018\u02bc"  # straight and curly apostrophes: Q4 ’23, FY’24
_YEAR4 = r"(?:19|20)[0-9]{2}"
_YY = rf"(?:(?:19|20)[0-9]{{2}}|[{_APOS}]?[0-9]{{2}})"  # four digits, or two with an optional apostrophe
_SEP = r"[\s\-/]*"
_FY = r"(?:fy|fiscal(?:\s+year)?)"
_ORDINAL_Q = r"(?:first|second|third|fourth|1st|2nd|3rd|4th)"
_ORDINAL_H = r"(?:first|second|1st|2nd)"
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_TIME = r"(?:[T\s][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:\s*(?:Z|[+-][0-9]{2}:?[0-9]{2}))?)?"

# What may stand just before a written-out reference and change it.
_PREFIXES = (
    r"(?:(?P<op>(?:after|since|before|until)\s*:\s*)"
    r"|(?P<after>after\s+(?:the\s+)?)"
    r"|(?P<end>(?:(?:by\s+)?(?:the\s+)?(?:end|close)\s+of\s+(?:the\s+)?|(?:year|end)[\s\-]end\s+|end[\s\-]))"
    r"|(?P<part>(?P<part_w>early|mid|late)(?:\s*-\s*|\s+))"
    r"|(?P<week>week\s+(?P<week_w>of|ending|ended|beginning|starting)\s+))"
)
# Before a bare year, what makes it no year: a product or index name (Office 2019, Russell 2000) or
# a phone number (555-2025), as fixed-width look-behinds evaluated only where a year matched (a
# long text is collapsed to single spaces first).  A word joined by a hyphen (RSA-2048) and an
# exchange code (HKEX:2015) are checked in Python, only when a hyphen or colon stands before it.
_PRODUCTS = (
    "office windows server studio excel powerpoint sharepoint visio autocad revit photoshop illustrator "
    "russell rtx gtx rx radeon geforce vision agenda"
).split()
# The names are tried only after a letter and a space (_AFTER_A_WORD: every name ends with a letter),
# so a year elsewhere skips them all; the same result, without looking behind for each name.
_AFTER_A_WORD = "(?<![a-z] )"
_NOT_YEAR_BEFORE = (
    "(?:" + _AFTER_A_WORD + "|" + "".join(f"(?<!\\b{name} )" for name in _PRODUCTS) + ")"
    + r"(?<![0-9]{3}[\-.])(?<![0-9]{3} [0-9]{3} )"
)
_HYPHEN_WORD = re.compile(r"(?<![\w-])([a-z]+)-$", re.IGNORECASE)
_DATE_WORDS = frozenset(
    "mid pre post end early late year fy cy fiscal calendar full since by circa ca vs through to from".split()
)
_EXCHANGE = re.compile(r"\b(?:hkex|hkg|sehk|hk|tyo|tse|twse|tpe|krx|sgx|asx|nse|bse|sse|szse)\s*:\s*$", re.IGNORECASE)
# After a bare year: an exchange suffix (2020.HK, 7203.T), a unit or a currency, a street.
_NOT_YEAR_AFTER = (
    r"\.[a-z]{1,2}\b(?!\.[a-z])"
    r"|\s+(?:km|kms|kilomet(?:er|re)s?|mi|miles?|met(?:er|re)s?|ft|feet|kg|kgs|lbs?|tons?|tonnes?|mg|ml"
    r"|lit(?:er|re)s?|gallons?|mw|gw|kw|kwh|mwh|gwh|hp|rpm|bits?|bytes?|kb|mb|gb|tb|mm|cm|mph|kph|km/h"
    r"|acres?|hectares?|sq|usd|eur|gbp|jpy|cny|chf|dollars?|euros?|yen|calories|kcal|bbl|barrels?)\b"
    r"|\s+(?:hk|jp|tt|ks|ch)\s+equity\b"
    r"|\s+(?!wall\s)(?:[a-z]+\s+){1,2}(?:st|street|ave|avenue|blvd|boulevard|rd|dr|ln|pl|ct|pkwy|hwy)\b"
)
# A street type that is an ordinary word too (Court, Way, Road, Place, Broadway) after a year makes
# the year a house number only with an address around it: a ZIP code, a unit, a state code, words of
# a listing.  "2023 Supreme Court ruling" and "2024 Milky Way" are years.  Checked in Python, where a
# year matched.  Street, Avenue and Boulevard (and the abbreviations) name nothing but streets: after
# one or two names, they make a house number without more (above).
_FULL_STREET = re.compile(
    r"\s+(?:(?!wall\s)[a-z]+\s+){0,2}(?:road|drive|lane|way|place|court|parkway|highway|broadway)\b",
    re.IGNORECASE,
)
_ADDRESS_WORDS = re.compile(
    r"\b(?:[0-9]{5}(?:-[0-9]{4})?|apt|apartments?|suite|ste|unit|floor|zip|address|for\s+(?:sale|rent|lease)"
    r"|listings?|zillow|redfin|realtor|condo|house|home|homes|property|directions)\b",
    re.IGNORECASE,
)
_STATE_CODE = re.compile(r"(?:,?\s+[A-Z][a-z]+)*,?\s+[A-Z]{2}\b")  # "Miami Beach FL", ", CA": upper case only
_AT = re.compile(r"\bat\s+$", re.IGNORECASE)
_ADDRESS_NEAR = 60  # characters either side of a year and its street searched for _ADDRESS_WORDS

_SEASON_WORD = re.compile(r"\s*(?:season|school\s+year|academic\s+year|winter|fiscal|financial\s+year|tax\s+year)", re.IGNORECASE)
# Words near a split year that make it a fiscal or tax year rather than a season (grammar.fiscal.SPLIT_FISCAL_YEAR).
_FISCAL_WORDS = re.compile(
    r"\b(?:fy|fiscal|financial|tax|taxes|budget|budgets|hmrc|isa|allowances?|deficit|borrowing|outturn"
    r"|appropriations?|spending)\b",
    re.IGNORECASE,
)
_FISCAL_NEAR = 40  # characters either side of a split year searched for _FISCAL_WORDS

# References anchored at T (grammar.relative), read in queries only.

# How a match can begin: a look-ahead tried first at each position, so that a word which starts no
# reference fails at once instead of after every form has been tried (a query of a few words
# costs a few microseconds instead of tens).  It only rejects positions where no match can start,
# so the matches are the same: each list is the first word (or its first letters) of every
# prefix and every form below; tests/core/query_intent/test_guards.py checks the lists against the forms.
_PREFIX_WORDS = ("after", "since", "before", "until", "by", "the", "end", "close", "year", "early", "mid", "late", "week")
_WRITTEN_WORDS = (
    *_PREFIX_WORDS, *MONTH_STEMS, *FOREIGN_MONTH_STEMS, "q[1-4]", "h[12]", "first", "second", "third", "fourth", "fy",
    "fiscal", "cy", "calendar",
)
_ANCHORED_WORDS = (*_PREFIX_WORDS, *ANCHORED_WORDS)


def _starts(digits: str, words: tuple[str, ...]) -> str:
    """A look-ahead for *digits* or one of *words*, grouped by first letter (the engine then tries few)."""
    by_letter: dict[str, list[str]] = {}
    for word in words:
        by_letter.setdefault(word[0], []).append(word[1:])
    branches = [digits]
    for letter, tails in sorted(by_letter.items()):
        branches.append(letter + "(?:" + "|".join(sorted(set(tails), key=lambda t: (-len(t), t))) + ")")
    return "(?=" + "|".join(branches) + ")"


_STARTS_WRITTEN = _starts(f"[0-9{_APOS}]", _WRITTEN_WORDS)
# An anchored form that starts with a digit is a day (12th of May) or a count (3 months later):
# at most three digits, maybe a day's suffix, then a space.  A year (2023) is not one.
_STARTS_ANCHORED = _starts(r"[0-9]{1,3}(?:st|nd|rd|th)?\s", _ANCHORED_WORDS)

# Inside the pattern, two more guards of the same kind, for the forms tried at a year (every
# query of a workload carries one; tests/core/query_intent/test_guards.py strips them too): a form that
# cannot begin with a digit is skipped at a digit at once (a form is a named group, which the engine
# enters at a cost even where its first piece fails), and after a day, the month names (a hundred
# foreign spellings) are tried only at a letter one of them begins with.
_NO_DIGIT = "(?![0-9])"
_A_MONTH_NAME = "(?=[" + "".join(sorted({stem[0] for stem in (*MONTH_STEMS, *FOREIGN_MONTH_STEMS)})) + "])"

# Written-out references, in one pass.  Each form is a named group, so ``match.lastgroup`` names it.
# Order matters: at one position the longest, most specific form must win.
_PATTERN = re.compile(
    r"(?<![\w$£€¥.,#])"
    + _STARTS_WRITTEN
    + r"(?:(?=[abcelmstuwy])"  # a prefix starts with one of these letters: fail fast elsewhere
    + _PREFIXES
    + r")?(?:"
    rf"(?P<iso>(?P<iso_y>{_YEAR4})(?:(?P<iso_s>[-/])(?P<iso_m>[0-9]{{1,2}})(?P=iso_s)(?P<iso_d>[0-9]{{1,2}})"
    rf"|\.(?P<iso_dm>[0-9]{{2}})\.(?P<iso_dd>[0-9]{{2}}))(?P<iso_t>{_TIME}))(?![\w%:]|[.,][0-9])"
    rf"|(?P<cmp>(?<![+\-])(?P<cmp_y>{_YEAR4})(?P<cmp_m>0[1-9]|1[0-2])(?P<cmp_d>0[1-9]|[12][0-9]|3[01]))(?![\w%]|[.,][0-9])"
    rf"|(?P<num>(?P<num_a>[0-9]{{1,2}})(?:(?P<num_s>[/\-])(?P<num_b>[0-9]{{1,2}})(?P=num_s)(?P<num_y>{_YEAR4}|[0-9]{{2}})"
    rf"|(?P<num_dot>\.)(?P<num_db>[0-9]{{1,2}})\.(?P<num_dy>{_YEAR4})))(?![\w%]|[.,/\-][0-9])"
    rf"|(?P<my>(?P<my_m>0?[1-9]|1[0-2])/(?P<my_y>{_YEAR4}))(?![\w%]|[.,/\-][0-9])"
    rf"|(?P<pair>(?:(?P<pair_fy>{_FY})\s*[-{_APOS}]?\s*)?(?P<pair_a>{_YEAR4})(?P<pair_s>\s*[/\-\u2013]\s*)(?P<pair_b>{_YEAR4}|[0-9]{{2}})"
    rf"(?:\s*(?P<pair_fq>q[1-4]))?)(?![\w%]|[.,/\-][0-9])"
    rf"|(?P<dmy>(?P<dmy_d>{DAY_OF_MONTH})\s+(?:of\s+)?(?P<dmy_m>{MONTH})\.?,?\s+(?P<dmy_y>{_YEAR4}))(?![\w%])"
    rf"|(?P<fdmy>(?P<fdmy_d>[012]?[0-9]|3[01])(?:\.|er|º|°)?\s*(?:de\s+)?{_A_MONTH_NAME}(?P<fdmy_m>{FOREIGN_MONTH}|{MONTH})\.?,?\s+(?:de[l]?\s+)?(?P<fdmy_y>{_YEAR4}))(?![\w%])"
    rf"|{_NO_DIGIT}(?P<fmy>(?P<fmy_m>{FOREIGN_MONTH_NO_DAY})\.?\s+(?:de[l]?\s+)?(?P<fmy_y>{_YEAR4}))(?![\w%])"
    rf"|{_NO_DIGIT}(?P<mq>(?P<mq_m>{MONTH})\.?\s+quarter(?:\s+of)?\s+(?P<mq_y>{_YEAR4}))(?![\w%])"
    rf"|{_NO_DIGIT}(?P<mr>(?P<mr_a>{MONTH})\.?\s*[\-\u2013/]\s*(?P<mr_b>{MONTH})\.?,?\s+(?P<mr_y>{_YEAR4}))(?![\w%])"
    rf"|{_NO_DIGIT}(?P<mdy>(?P<mdy_m>{MONTH})(?:\.?\s+(?:(?P<mdy_d>{DAY_OF_MONTH}),?\s+)?(?:of\s+)?|-)(?P<mdy_y>{_YEAR4}))(?![\w%])"
    rf"|{_NO_DIGIT}(?P<qy>(?:(?P<qy_pre>{_FY})\s*)?q(?P<qy_q>[1-4]){_SEP}(?:(?P<qy_cy>cy|calendar(?:\s+year)?)\s*|(?P<qy_fy>{_FY})\s*)?[-{_APOS}]?(?P<qy_y>{_YY}))(?![\w%]|[.,/\-][0-9])"
    rf"|(?P<oq>(?P<oq_q>{_ORDINAL_Q})[\s\-]+quarter(?:\s+of)?\s+(?:(?P<oq_cy>cy|calendar(?:\s+year)?)\s*|(?P<oq_fy>{_FY})\s*)?(?P<oq_y>{_YY}))(?![\w%])"
    rf"|(?P<yq>(?P<yq_y>{_YEAR4}){_SEP}q(?P<yq_q>[1-4]))(?![\w%])"
    rf"|(?P<nq>(?P<nq_q>[1-4])q\s?(?P<nq_y>{_YEAR4}|[0-9]{{2}}))(?![\w%])"
    rf"|{_NO_DIGIT}(?P<hy>h(?P<hy_h>[12]){_SEP}(?:(?P<hy_cy>cy)\s*|(?P<hy_fy>{_FY})\s*)?[-{_APOS}]?(?P<hy_y>{_YY}))(?![\w%]|[.,/\-][0-9])"
    rf"|(?P<oh>(?P<oh_h>{_ORDINAL_H})[\s\-]+half(?:\s+of)?\s+(?:(?P<oh_cy>cy)\s*|(?P<oh_fy>{_FY})\s*)?(?P<oh_y>{_YY}))(?![\w%])"
    rf"|(?P<yh>(?P<yh_y>{_YEAR4}){_SEP}h(?P<yh_h>[12]))(?![\w%])"
    rf"|(?P<nh>(?P<nh_h>[12])h\s?(?P<nh_y>{_YEAR4}|[0-9]{{2}}))(?![\w%])"
    rf"|{_NO_DIGIT}(?P<fy>{_FY}{_SEP}[{_APOS}]?(?P<fy_y>{_YY})(?:\s*(?P<fy_q>q[1-4]|h[12]))?)(?![\w%]|[.,/\-][0-9])"
    rf"|{_NO_DIGIT}(?P<cy>(?:cy{_SEP}[{_APOS}]?(?P<cy_y>{_YY})|calendar(?:\s+year)?\s+(?P<cy_y4>{_YEAR4})))(?![\w%]|[.,/\-][0-9])"
    rf"|{_NO_DIGIT}(?P<apos>[{_APOS}](?P<apos_y>[0-9]{{2}}))(?![\w{_APOS}%]|[.,][0-9])"
    rf"|(?P<year>{_NOT_YEAR_BEFORE}{_YEAR4})(?![\w%$]|[.,][0-9]|{_NOT_YEAR_AFTER})"
    r")",
    re.IGNORECASE,
)
# Years, months and days written with CJK suffixes (2023年, 2023年7月14日, 2023년 7월, 2023年第一季度,
# 2023年度): a pass of their own, only over a text that has 年 or 년, because a CJK character is a word
# character to the pattern above (2023年 is no bare year to it, and 売上2023年 has a word before it).
_CJK_Q = r"(?:第?\s*(?P<cjk_q>[1-4一二三四])\s*(?:季度|季|四半期|분기)|\s*[qQ](?P<cjk_qq>[1-4]))"
_CJK = re.compile(
    rf"(?<![0-9.,$£€¥#+\-])(?P<cjk>(?P<cjk_y>{_YEAR4})\s*[年년](?:(?P<cjk_fy>度)"
    r"|\s*(?P<cjk_m>1[0-2]|0?[1-9])\s*[月월](?:\s*(?P<cjk_d>3[01]|[12][0-9]|0?[1-9])\s*[日일])?"
    rf"|\s*{_CJK_Q})?)(?![0-9])"
)
_CJK_MARKS = ("年", "년")
# A quotation mark that closes (after a non-space, before no word character): an apostrophe year
# ('23) followed by one opened a quotation ('24 hours') instead.
_CLOSING_QUOTE = re.compile(rf"(?<=\S)[{_APOS}](?!\w)")
_QUOTE_NEAR = 60  # characters after an apostrophe year searched for the closing quote
_CJK_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4}

# The anchored references: a second pass, over queries only (a prefix may stand before them: after tomorrow).
_ANCHORED = re.compile(r"(?<![\w$£€¥.,#])" + _STARTS_ANCHORED + r"(?:(?=[abcelmstuwy])" + _PREFIXES + r")?(?:" + ANCHORED_FORMS + r")", re.IGNORECASE)

# References anchored at a page's own date (grammar.page), read in the text of returned items only.
_PAGE = re.compile(r"(?<![\w$£€¥.,#])" + _starts(r"[0-9]", PAGE_WORDS) + r"(?:" + PAGE_FORMS + r")", re.IGNORECASE)

# Open periods: words asking for results or figures, and words that frame a query as something else.
_RESULTS = re.compile(
    r"\b(?:results?|reports?|reported|earnings|10-?[kq]|20-?f|full[\s\-]year|final|actuals?|outturn|figures"
    r"|numbers|data(?!\s+(?:cent(?:er|re)|breach))|statistics|stats|tally|totals?|print|recap|transcripts?"
    r"|winners?|champions?|outcome|medal\s+(?:count|table)|revenues?|sales|profits?|income(?!\s+tax)|eps|deliveries"
    r"|shipments|production|output|gdp|cpi|ppi|pce|inflation|unemployment|payrolls|subscribers|turnout"
    r"|box\s+office|deaths|cases|returns?|throughput|funding|letter|filings?|close|closing|housing\s+starts"
    r"|claims|pmi|readings?|deficits?|surplus(?:es)?|receipts"
    # the same words in German, French, Spanish, Italian, Portuguese and Dutch
    r"|ergebnis(?:se)?|zahlen|bilanz|umsatz|absatz|gewinn|inflationsrate|arbeitslosen\w*|jahresbericht|geschäftsbericht"
    r"|résultats?|chiffres?|ventes|bénéfices?|chômage|bilan|resultados?|cifras|ventas|ingresos|beneficios?|paro"
    r"|risultati|ricavi|vendite|utili|disoccupazione|dati|receitas?|vendas|lucros?|desemprego|dados|balanço"
    r"|resultaten|cijfers|omzet|winst|jaarverslag|werkloosheid|inflatie)\b"
    # and in Chinese, Japanese and Korean, written without spaces: no word boundaries
    r"|決算|業績|結果|実績|売上|成績|統計|年报|年報|财报|營收|营收|销量|業績|业绩|结果|统计|실적|결과|매출|통계|성적",
    re.IGNORECASE,
)
_NOT_RESULTS = re.compile(
    r"\b(?:forecasts?|forecasting|guidance|outlook|estimates?|estimated|expected|expectations?|projections?"
    r"|projected|preview|consensus|predictions?|odds|targets?|plans?|calendar|schedule|dates?|when"
    r"|nowcast|so\s+far|ytd|year[\s\-]to[\s\-]date|to\s+date|mock|polls?|tickets"
    r"|prognosen?|prévisions?|previsiones|previsioni|previsão|previsões|verwachting(?:en)?|termine)\b"
    r"|予想|予測|見通し|预测|预期|전망|예상",
    re.IGNORECASE,
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
    digits = text.lstrip(_APOS)
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
    seasonal = fy or quarter is not None or bool(_SEASON_WORD.match(match.string, match.end()))
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
    """Whether a fiscal or tax word stands within :data:`_FISCAL_NEAR` characters of *match* (``2010/11 tax year``)."""
    text = match.string
    return _FISCAL_WORDS.search(text, max(0, match.start() - _FISCAL_NEAR), min(len(text), match.end() + _FISCAL_NEAR)) is not None


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
        return quarter_or_half(_CJK_DIGITS.get(quarter) or int(quarter), 3, year, None, True)
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
        index = _ORDINALS.get(raw.lower()) or int(raw)
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
        word = _HYPHEN_WORD.search(text, max(0, start - _LOOKBACK), start)
        return word is not None and word.group(1).lower() not in _DATE_WORDS
    if before == ":" or before == " " and text[start - 2 : start - 1] == ":":
        return _EXCHANGE.search(text, max(0, start - _LOOKBACK), start) is not None
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
    street = _FULL_STREET.match(text, match.end())
    if street is None:
        return False
    at = _AT.search(text, max(0, match.start() - 4), match.start()) is not None  # "office at 2030 broadway"
    near = _ADDRESS_WORDS.search(text, max(0, match.start() - _ADDRESS_NEAR), min(len(text), street.end() + _ADDRESS_NEAR))
    return at or near is not None or _STATE_CODE.match(text, street.end()) is not None


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
            elif kind == "apos" and _CLOSING_QUOTE.search(text, match.end(), match.end() + _QUOTE_NEAR):
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
    """*text* (collapsed to single spaces when long) and the matches of _PATTERN and _CJK in it, in order."""
    if len(text) <= _LONG:
        found = list(_PATTERN.finditer(text))
    else:
        text = " ".join(text.split())
        found = [m for start, end in _windows(text) for m in _PATTERN.finditer(text, start, end)]
    if _CJK_MARKS[0] in text or _CJK_MARKS[1] in text:  # (two tests in C, no generator)
        cjk = list(_CJK.finditer(text))
        if cjk:  # a match of _PATTERN inside a CJK one is dropped; both lists are sorted and disjoint
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
    for match in _PAGE.finditer(text):
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
    if not candidates or not _RESULTS.search(query) or _NOT_RESULTS.search(query):
        return ()
    chosen = {(ref.begins, ref.ends): ref for ref in reversed(candidates)}  # the first of each period
    low, high = min(begins for begins, _ in chosen), max(ends for _, ends in chosen)
    inside = {(r.begins, r.ends) for r in refs if r.begins >= low and r.ends <= high}  # few: all lie around T
    return tuple(
        ref
        for (begins, ends), ref in reversed(chosen.items())
        if not any(b >= begins and e <= ends and (b, e) != (begins, ends) for b, e in inside)
    )


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


# The findings on a (query, T, fiscal calendar) asked again are kept (query_findings): a sample
# rerun over epochs asks the same queries at the same T.  Kept at once, findings never asked again
# cost the scorer about 4 us a call on a run of distinct queries (docs/performance.md, most likely
# memory no longer reused), so a triple is kept at its second asking within the last ASKED_ONCE
# distinct ones (only the hash of its key is remembered after the first), or at its first while at
# least REPEATING of the recent calls (a moving average over about _RECENT) were hits: a run that
# repeats itself.  At most FINDINGS_CACHE triples are kept, least recently used dropped first, each
# of a query of at most CACHED_QUERY_CHARS characters (a longer one is worked out every time):
# about 390 bytes an entry for a query of a few words, 3 MiB when full of such.
FINDINGS_CACHE = 8 * 1024
ASKED_ONCE = 4 * FINDINGS_CACHE
REPEATING = 0.25
_RECENT = 64
CACHED_QUERY_CHARS = 256


class FindingsCacheInfo(NamedTuple):
    """What :func:`query_findings` answered from its cache (``hits``) and worked out (``misses``)."""

    hits: int
    misses: int
    maxsize: int
    currsize: int


class _FindingsCache:
    """The kept findings and the keys asked once, least recently used first (see FINDINGS_CACHE)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # the two dictionaries change together
        self.clear()

    def clear(self) -> None:
        with self._lock:
            self._kept: OrderedDict[tuple, QueryIntent] = OrderedDict()
            self._once: OrderedDict[int, None] = OrderedDict()  # hashes of keys
            self._hits = self._misses = 0
            self._repeats = 0.0  # the share of recent calls answered from the cache (a moving average)

    def info(self) -> FindingsCacheInfo:
        with self._lock:
            return FindingsCacheInfo(self._hits, self._misses, FINDINGS_CACHE, len(self._kept))

    def findings(self, text: str, as_of: _dt.date, fiscal_year_end: str | None) -> QueryIntent:
        key = (text, as_of, fiscal_year_end)
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                self._hits += 1
                self._repeats += (1.0 - self._repeats) / _RECENT
                return found
            self._misses += 1
            self._repeats -= self._repeats / _RECENT
        found = _findings(text, as_of, fiscal_year_end)  # an error is raised before anything is noted
        # Only the hash of a key asked once is remembered: keeping its query alive costs as much as
        # keeping its findings.  Two keys of one hash only make a key kept at its first asking.
        mark = hash(key)
        with self._lock:
            if self._repeats >= REPEATING or mark in self._once:  # a run that repeats itself, or a second asking
                self._once.pop(mark, None)
                self._kept[key] = found
                while len(self._kept) > max(FINDINGS_CACHE, 0):
                    self._kept.popitem(last=False)
            else:
                self._once[mark] = None
                while len(self._once) > max(ASKED_ONCE, 0):
                    self._once.popitem(last=False)
        return found


_CACHE = _FindingsCache()


def query_findings(query: str, as_of: _dt.date, *, fiscal_year_end: str | None = None) -> QueryIntent:
    """The findings on *query* asked as of *as_of*: future references and open periods.

    *fiscal_year_end* (``"MM-DD"``) is the fiscal calendar of the entity the
    query names, if the corpus gives one.  Written-out and anchored
    references are both read (docs/metrics.md lists the forms), in the
    :func:`scanned_query` part of a long query.

    The findings are a function of the part read, *as_of* and
    *fiscal_year_end* alone, and immutable: a triple asked a second time
    within the last :data:`ASKED_ONCE` distinct ones (or at its first
    asking, while at least :data:`REPEATING` of the recent calls were
    hits) is kept, among the :data:`FINDINGS_CACHE` most recently used,
    and returned again
    (``query_findings.cache_info()`` counts the hits,
    ``query_findings.cache_clear()`` empties it).  A query of more than
    :data:`CACHED_QUERY_CHARS` characters is read every time, and so are
    arguments of any type but exactly ``str``, ``date`` and ``str`` or
    ``None`` (a subclass might compare equal and read differently).

    >>> query_findings("revenue Q3 2024", _dt.date(2024, 5, 1)).future[0].begins
    datetime.date(2024, 7, 1)
    """
    text = scanned_query(query)
    if (
        len(text) > CACHED_QUERY_CHARS
        or type(text) is not str
        or type(as_of) is not _dt.date
        or (fiscal_year_end is not None and type(fiscal_year_end) is not str)
    ):
        return _findings(text, as_of, fiscal_year_end)
    return _CACHE.findings(text, as_of, fiscal_year_end)


def _findings(text: str, as_of: _dt.date, fiscal_year_end: str | None) -> QueryIntent:
    """:func:`query_findings` of the :func:`scanned_query` part *text*, worked out."""
    fiscal = parse_fiscal_year_end(fiscal_year_end) if fiscal_year_end is not None else None
    text, matches = _matches(text)
    anchored = list(_ANCHORED.finditer(text))  # the whole text: an anchored phrase has no digit to find it by
    if anchored:
        matches = _merge(matches, anchored)
    refs = _references(text, as_of, fiscal, matches, anchored=True) if matches else ()
    if not refs:
        return _NO_FINDINGS
    future = tuple([ref for ref in refs if not known_at(ref.begins, as_of)])
    return QueryIntent(future, _open_periods(text, refs, as_of))


_NO_FINDINGS = QueryIntent()  # immutable: shared by every query that names no period

query_findings.cache_info = _CACHE.info  # type: ignore[attr-defined]
query_findings.cache_clear = _CACHE.clear  # type: ignore[attr-defined]
