"""The regular expressions of query intent, compiled once: what :mod:`.references` matches.

- :data:`PATTERN`: every written-out reference (one pass over a text); :data:`CJK`: CJK
  suffixes, run only over a text that has one; :data:`ANCHORED`: references anchored at T
  (queries only); :data:`PAGE`: a page's own date words;
- the look-arounds that turn numbers away from being years (:data:`EXCHANGE`,
  :data:`FULL_STREET`, :data:`ADDRESS_WORDS`, :data:`STATE_CODE`, ...), tried only where a year
  matched, and the words that make a query ask for results (:data:`RESULTS`, :data:`NOT_RESULTS`);
- :data:`QUERY_SCAN_CHARS` and :data:`NUMERIC_ORDER`, the limits the readers share.

Names are public for :mod:`anachron.core.query_intent.references` and the tests of the
guards; the package's API is :mod:`anachron.core.query_intent`.
"""


from __future__ import annotations

import re

from anachron.core.grammar.calendar_words import (
    DAY_OF_MONTH,
    FOREIGN_MONTH,
    FOREIGN_MONTH_NO_DAY,
    FOREIGN_MONTH_STEMS,
    MONTH,
    MONTH_STEMS,
)
from anachron.core.grammar.numeric import Order
from anachron.core.grammar.page import PAGE_FORMS, PAGE_WORDS
from anachron.core.grammar.relative import ANCHORED_FORMS, ANCHORED_WORDS


QUERY_SCAN_CHARS = 16 * 1024

# Slashed and hyphenated numeric dates are read both ways: a reference is a finding if either
# reading begins after T, because a future reference read the wrong way round is a silent miss
# (docs/metrics.md, "Reading dates").  Dotted ones are day first (grammar.numeric).
NUMERIC_ORDER = Order.BOTH

APOS = "'\u2019\u2018\u02bc"  # straight and curly apostrophes: Q4 ’23, FY’24
_YEAR4 = r"(?:19|20)[0-9]{2}"
_YY = rf"(?:(?:19|20)[0-9]{{2}}|[{APOS}]?[0-9]{{2}})"  # four digits, or two with an optional apostrophe
_SEP = r"[\s\-/]*"
_FY = r"(?:fy|fiscal(?:\s+year)?)"
_ORDINAL_Q = r"(?:first|second|third|fourth|1st|2nd|3rd|4th)"
_ORDINAL_H = r"(?:first|second|1st|2nd)"
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
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
# The names are tried only after a letter one of them ends with and a space (AFTER_A_WORD: every
# name ends with a letter), so a year elsewhere (after "2015 " or "oaz ") skips them all; the same
# result, without looking behind for each name.
AFTER_A_WORD = "(?<![" + "".join(sorted({name[-1] for name in _PRODUCTS})) + "] )"
_NOT_YEAR_BEFORE = (
    "(?:" + AFTER_A_WORD + "|" + "".join(f"(?<!\\b{name} )" for name in _PRODUCTS) + ")"
    + r"(?<![0-9]{3}[\-.])(?<![0-9]{3} [0-9]{3} )"
)
HYPHEN_WORD = re.compile(r"(?<![\w-])([a-z]+)-$", re.IGNORECASE)
DATE_WORDS = frozenset(
    "mid pre post end early late year fy cy fiscal calendar full since by circa ca vs through to from".split()
)
EXCHANGE = re.compile(r"\b(?:hkex|hkg|sehk|hk|tyo|tse|twse|tpe|krx|sgx|asx|nse|bse|sse|szse)\s*:\s*$", re.IGNORECASE)
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
FULL_STREET = re.compile(
    r"\s+(?:(?!wall\s)[a-z]+\s+){0,2}(?:road|drive|lane|way|place|court|parkway|highway|broadway)\b",
    re.IGNORECASE,
)
ADDRESS_WORDS = re.compile(
    r"\b(?:[0-9]{5}(?:-[0-9]{4})?|apt|apartments?|suite|ste|unit|floor|zip|address|for\s+(?:sale|rent|lease)"
    r"|listings?|zillow|redfin|realtor|condo|house|home|homes|property|directions)\b",
    re.IGNORECASE,
)
STATE_CODE = re.compile(r"(?:,?\s+[A-Z][a-z]+)*,?\s+[A-Z]{2}\b")  # "Miami Beach FL", ", CA": upper case only
AT = re.compile(r"\bat\s+$", re.IGNORECASE)
ADDRESS_NEAR = 60  # characters either side of a year and its street searched for ADDRESS_WORDS

SEASON_WORD = re.compile(r"\s*(?:season|school\s+year|academic\s+year|winter|fiscal|financial\s+year|tax\s+year)", re.IGNORECASE)
# Words near a split year that make it a fiscal or tax year rather than a season (grammar.fiscal.SPLIT_FISCAL_YEAR).
FISCAL_WORDS = re.compile(
    r"\b(?:fy|fiscal|financial|tax|taxes|budget|budgets|hmrc|isa|allowances?|deficit|borrowing|outturn"
    r"|appropriations?|spending)\b",
    re.IGNORECASE,
)
FISCAL_NEAR = 40  # characters either side of a split year searched for FISCAL_WORDS

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
    """A look-ahead for *digits* or one of *words*, grouped by first letter (the engine then tries few).

    The groups stand behind a class of their first letters: under IGNORECASE the engine enters
    each group in turn to test its letter, so at a digit (the year of every query) or a letter
    that begins no word all twenty failed one by one; the class fails at once.
    """
    by_letter: dict[str, list[str]] = {}
    for word in words:
        by_letter.setdefault(word[0], []).append(word[1:])
    branches = []
    for letter, tails in sorted(by_letter.items()):
        branches.append(letter + "(?:" + "|".join(sorted(set(tails), key=lambda t: (-len(t), t))) + ")")
    return "(?=" + digits + "|(?=[" + "".join(sorted(by_letter)) + "])(?:" + "|".join(branches) + "))"


STARTS_WRITTEN = _starts(f"[0-9{APOS}]", _WRITTEN_WORDS)
# An anchored form that starts with a digit is a day (12th of May) or a count (3 months later):
# at most three digits, maybe a day's suffix, then a space.  A year (2023) is not one: no digit
# follows the three (the same positions; without it, the engine tried two and one digits too).
_STARTS_ANCHORED = _starts(r"[0-9]{1,3}(?![0-9])(?:st|nd|rd|th)?\s", _ANCHORED_WORDS)

# Inside the pattern, two more guards of the same kind, for the forms tried at a year (every
# query of a workload carries one; tests/core/query_intent/test_guards.py strips them too): a form that
# cannot begin with a digit is skipped at a digit at once (a form is a named group, which the engine
# enters at a cost even where its first piece fails), and after a day, the month names (a hundred
# foreign spellings) are tried only at a letter one of them begins with.
NO_DIGIT = "(?![0-9])"
A_MONTH_NAME = "(?=[" + "".join(sorted({stem[0] for stem in (*MONTH_STEMS, *FOREIGN_MONTH_STEMS)})) + "])"
# And at a year standing alone (four digits, then no digit, dot, date separator, quarter or half:
# what each other form that begins with a digit needs there), every form but the bare year is
# skipped at once: the commonest reference, in a query of a few words and a year, tried only
# after the twenty other forms had failed took about 2 us of the pattern's 3.
NOT_A_BARE_YEAR = rf"(?!{_YEAR4}(?![0-9.]|[\s\-/\u2013]*[\-/\u2013qh]))"

# Written-out references, in one pass.  Each form is a named group, so ``match.lastgroup`` names it.
# Order matters: at one position the longest, most specific form must win.
PATTERN = re.compile(
    r"(?<![\w$£€¥.,#])"
    + STARTS_WRITTEN
    + r"(?:(?=[abcelmstuwy])"  # a prefix starts with one of these letters: fail fast elsewhere
    + _PREFIXES
    + r")?(?:"
    + NOT_A_BARE_YEAR + "(?:"
    rf"(?P<iso>(?P<iso_y>{_YEAR4})(?:(?P<iso_s>[-/])(?P<iso_m>[0-9]{{1,2}})(?P=iso_s)(?P<iso_d>[0-9]{{1,2}})"
    rf"|\.(?P<iso_dm>[0-9]{{2}})\.(?P<iso_dd>[0-9]{{2}}))(?P<iso_t>{_TIME}))(?![\w%:]|[.,][0-9])"
    rf"|(?P<cmp>(?<![+\-])(?P<cmp_y>{_YEAR4})(?P<cmp_m>0[1-9]|1[0-2])(?P<cmp_d>0[1-9]|[12][0-9]|3[01]))(?![\w%]|[.,][0-9])"
    rf"|(?P<num>(?P<num_a>[0-9]{{1,2}})(?:(?P<num_s>[/\-])(?P<num_b>[0-9]{{1,2}})(?P=num_s)(?P<num_y>{_YEAR4}|[0-9]{{2}})"
    rf"|(?P<num_dot>\.)(?P<num_db>[0-9]{{1,2}})\.(?P<num_dy>{_YEAR4})))(?![\w%]|[.,/\-][0-9])"
    rf"|(?P<my>(?P<my_m>0?[1-9]|1[0-2])/(?P<my_y>{_YEAR4}))(?![\w%]|[.,/\-][0-9])"
    rf"|(?P<pair>(?:(?P<pair_fy>{_FY})\s*[-{APOS}]?\s*)?(?P<pair_a>{_YEAR4})(?P<pair_s>\s*[/\-\u2013]\s*)(?P<pair_b>{_YEAR4}|[0-9]{{2}})"
    rf"(?:\s*(?P<pair_fq>q[1-4]))?)(?![\w%]|[.,/\-][0-9])"
    rf"|(?P<dmy>(?P<dmy_d>{DAY_OF_MONTH})\s+(?:of\s+)?(?P<dmy_m>{MONTH})\.?,?\s+(?P<dmy_y>{_YEAR4}))(?![\w%])"
    rf"|(?P<fdmy>(?P<fdmy_d>[012]?[0-9]|3[01])(?:\.|er|º|°)?\s*(?:de\s+)?{A_MONTH_NAME}(?P<fdmy_m>{FOREIGN_MONTH}|{MONTH})\.?,?\s+(?:de[l]?\s+)?(?P<fdmy_y>{_YEAR4}))(?![\w%])"
    rf"|{NO_DIGIT}(?P<fmy>(?P<fmy_m>{FOREIGN_MONTH_NO_DAY})\.?\s+(?:de[l]?\s+)?(?P<fmy_y>{_YEAR4}))(?![\w%])"
    rf"|{NO_DIGIT}(?P<mq>(?P<mq_m>{MONTH})\.?\s+quarter(?:\s+of)?\s+(?P<mq_y>{_YEAR4}))(?![\w%])"
    rf"|{NO_DIGIT}(?P<mr>(?P<mr_a>{MONTH})\.?\s*[\-\u2013/]\s*(?P<mr_b>{MONTH})\.?,?\s+(?P<mr_y>{_YEAR4}))(?![\w%])"
    rf"|{NO_DIGIT}(?P<mdy>(?P<mdy_m>{MONTH})(?:\.?\s+(?:(?P<mdy_d>{DAY_OF_MONTH}),?\s+)?(?:of\s+)?|-)(?P<mdy_y>{_YEAR4}))(?![\w%])"
    rf"|{NO_DIGIT}(?P<qy>(?:(?P<qy_pre>{_FY})\s*)?q(?P<qy_q>[1-4]){_SEP}(?:(?P<qy_cy>cy|calendar(?:\s+year)?)\s*|(?P<qy_fy>{_FY})\s*)?[-{APOS}]?(?P<qy_y>{_YY}))(?![\w%]|[.,/\-][0-9])"
    rf"|(?P<oq>(?P<oq_q>{_ORDINAL_Q})[\s\-]+quarter(?:\s+of)?\s+(?:(?P<oq_cy>cy|calendar(?:\s+year)?)\s*|(?P<oq_fy>{_FY})\s*)?(?P<oq_y>{_YY}))(?![\w%])"
    rf"|(?P<yq>(?P<yq_y>{_YEAR4}){_SEP}q(?P<yq_q>[1-4]))(?![\w%])"
    rf"|(?P<nq>(?P<nq_q>[1-4])q\s?(?P<nq_y>{_YEAR4}|[0-9]{{2}}))(?![\w%])"
    rf"|{NO_DIGIT}(?P<hy>h(?P<hy_h>[12]){_SEP}(?:(?P<hy_cy>cy)\s*|(?P<hy_fy>{_FY})\s*)?[-{APOS}]?(?P<hy_y>{_YY}))(?![\w%]|[.,/\-][0-9])"
    rf"|(?P<oh>(?P<oh_h>{_ORDINAL_H})[\s\-]+half(?:\s+of)?\s+(?:(?P<oh_cy>cy)\s*|(?P<oh_fy>{_FY})\s*)?(?P<oh_y>{_YY}))(?![\w%])"
    rf"|(?P<yh>(?P<yh_y>{_YEAR4}){_SEP}h(?P<yh_h>[12]))(?![\w%])"
    rf"|(?P<nh>(?P<nh_h>[12])h\s?(?P<nh_y>{_YEAR4}|[0-9]{{2}}))(?![\w%])"
    rf"|{NO_DIGIT}(?P<fy>{_FY}{_SEP}[{APOS}]?(?P<fy_y>{_YY})(?:\s*(?P<fy_q>q[1-4]|h[12]))?)(?![\w%]|[.,/\-][0-9])"
    rf"|{NO_DIGIT}(?P<cy>(?:cy{_SEP}[{APOS}]?(?P<cy_y>{_YY})|calendar(?:\s+year)?\s+(?P<cy_y4>{_YEAR4})))(?![\w%]|[.,/\-][0-9])"
    rf"|{NO_DIGIT}(?P<apos>[{APOS}](?P<apos_y>[0-9]{{2}}))(?![\w{APOS}%]|[.,][0-9]))"
    rf"|(?P<year>{_NOT_YEAR_BEFORE}{_YEAR4})(?![\w%$]|[.,][0-9]|{_NOT_YEAR_AFTER})"
    r")",
    re.IGNORECASE,
)
# Years, months and days written with CJK suffixes (2023年, 2023年7月14日, 2023년 7월, 2023年第一季度,
# 2023年度): a pass of their own, only over a text that has 年 or 년, because a CJK character is a word
# character to the pattern above (2023年 is no bare year to it, and 売上2023年 has a word before it).
_CJK_Q = r"(?:第?\s*(?P<cjk_q>[1-4一二三四])\s*(?:季度|季|四半期|분기)|\s*[qQ](?P<cjk_qq>[1-4]))"
CJK = re.compile(
    rf"(?<![0-9.,$£€¥#+\-])(?P<cjk>(?P<cjk_y>{_YEAR4})\s*[年년](?:(?P<cjk_fy>度)"
    r"|\s*(?P<cjk_m>1[0-2]|0?[1-9])\s*[月월](?:\s*(?P<cjk_d>3[01]|[12][0-9]|0?[1-9])\s*[日일])?"
    rf"|\s*{_CJK_Q})?)(?![0-9])"
)
CJK_MARKS = ("年", "년")
# A quotation mark that closes (after a non-space, before no word character): an apostrophe year
# ('23) followed by one opened a quotation ('24 hours') instead.
CLOSING_QUOTE = re.compile(rf"(?<=\S)[{APOS}](?!\w)")
QUOTE_NEAR = 60  # characters after an apostrophe year searched for the closing quote
CJK_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4}

# The anchored references: a second pass, over queries only (a prefix may stand before them: after tomorrow).
ANCHORED = re.compile(r"(?<![\w$£€¥.,#])" + _STARTS_ANCHORED + r"(?:(?=[abcelmstuwy])" + _PREFIXES + r")?(?:" + ANCHORED_FORMS + r")", re.IGNORECASE)

# References anchored at a page's own date (grammar.page), read in the text of returned items only.
PAGE = re.compile(r"(?<![\w$£€¥.,#])" + _starts(r"[0-9]", PAGE_WORDS) + r"(?:" + PAGE_FORMS + r")", re.IGNORECASE)

# Open periods: words asking for results or figures, and words that frame a query as something else.
RESULTS = re.compile(
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
NOT_RESULTS = re.compile(
    r"\b(?:forecasts?|forecasting|guidance|outlook|estimates?|estimated|expected|expectations?|projections?"
    r"|projected|preview|consensus|predictions?|odds|targets?|plans?|calendar|schedule|dates?|when"
    r"|nowcast|so\s+far|ytd|year[\s\-]to[\s\-]date|to\s+date|mock|polls?|tickets"
    r"|prognosen?|prévisions?|previsiones|previsioni|previsão|previsões|verwachting(?:en)?|termine)\b"
    r"|予想|予測|見通し|预测|预期|전망|예상",
    re.IGNORECASE,
)
