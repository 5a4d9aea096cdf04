"""Reading a free-text answer: its figures (with units and scales), listing statuses and cue phrases.

Outcome material (:mod:`anachron.bank`): never imported by the serving path.
This module only *reads*; :mod:`anachron.bank.judging` decides.  The rules are
written out for other runners in docs/run-rules.md ("Reading a response");
keep the two in step.

Reading a text for figures, in order:

1. the text is normalised: curly quotes become straight ones, a non-breaking
   or thin space a space, U+2212 and en/em dashes before a digit a minus;
2. spans that hold digits but are not figures are blanked out: dates
   (``2021-02-04``, ``2021/02/04``, ``02/04/2021``, ``February 4, 2021``,
   ``4 Feb 2021``, ``Feb. 4``, ``Feb 2021``, ISO timestamps, ``2020-21``),
   period labels (``Q4``, ``Q4 2020``, ``4Q20``, ``2020-Q4``, ``H1``, ``1H21``,
   ``FY2019``, ``FY'19``, ``fiscal 2019``, ``'21``), ordinals (``4th``),
   clock times, durations (``3 months``, ``52-week``), filing form names
   (``10-K``, ``8-K``), footnote marks (``[1]``) and list numbers at a line
   start (``1.``);
3. figures are read left to right by :func:`anachron.core.figures.read_figures`,
   the one figure reader (its docstring lists the spellings: a sign, a
   currency, the number, a scale such as ``k``, ``MM``, ``bln`` or ``bil``, a
   mass unit, so ``41kt`` is 41 thousand tonnes, a percent marker, ``bps``
   hundredths of a percent; bare four-digit years 1900-2100 are no figures).
   "down", "fell", "declined" right before a figure make it negative.
4. a *scale note* (``in millions``, ``(USD m)``, ``$ in billions``,
   ``millions of dollars``) gives its scale to every figure stated without one.
"""

from __future__ import annotations

import bisect
import datetime
import re
from dataclasses import replace

from anachron.core.dates import known_at
from anachron.core.figures import SCALE_PLURALS, SCALE_WORDS, Figure, read_figures, scale_power

from anachron.core.grammar.calendar_words import MONTH, month_number
from anachron.core.grammar.numeric import Order, numeric_dates
from anachron.core.grammar.periods import month_end, real_day

__all__ = [
    "Figure",
    "normalise",
    "figures",
    "statuses",
    "has_refusal",
    "has_hedge",
    "has_context",
    "has_direction",
    "revision_mentions",
    "dates",
    "event_dates",
]

_MONTH = MONTH + r"\.?"
_QUARTER_WORD = r"(?:first|second|third|fourth|1st|2nd|3rd|4th)[- ](?:quarter|half)"

# Spans that hold digits but are not figures; each is blanked (same length) before figures are read.
# No two runs of whitespace are adjacent (each ``\s*`` follows a required token) and none spans a
# line start, so a long run of blanks is read once: linear, not cubic (issue 26).
_NOT_FIGURES = re.compile(
    "|".join(
        (
            r"\b[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[T ][0-9]{1,2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?",
            r"\b[0-9]{4}/[0-9]{1,2}/[0-9]{1,2}\b",  # 2021/02/04
            r"\b[0-9]{1,2}[/.][0-9]{1,2}[/.][0-9]{2,4}\b",  # 02/04/2021, 4.2.2021
            rf"\b{_MONTH}\s+[0-9]{{1,2}}(?:st|nd|rd|th)?,?\s+[0-9]{{4}}\b",  # February 4, 2021
            rf"\b[0-9]{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+[0-9]{{4}})?",  # 4 February 2021, 4th of Feb
            rf"\b{_MONTH}\s+[0-9]{{1,2}}(?:st|nd|rd|th)?\b(?![.,]?[0-9])",  # Feb 4, February 4th
            rf"\b{_MONTH}\s+(?:of\s+)?['\u2019]?[0-9]{{2,4}}\b",  # February 2021, Feb '21
            r"\b(?:19|20)[0-9]{2}\s*[-/]\s*(?:Q[1-4]|H[12]|[0-9]{2})\b(?![-/][0-9])",  # 2020-Q4, 2021-02, 2020-21
            r"\b(?:19|20)[0-9]{2}\s*(?:Q[1-4]|H[12])\b",  # 2020 Q4, 2020Q4
            r"\b[1-4]Q\s*['\u2019]?(?:[0-9]{4}|[0-9]{2})?\b",  # 4Q20, 4Q 2020
            r"\b[12]H\s*['\u2019]?(?:[0-9]{4}|[0-9]{2})?\b",  # 1H21
            r"\b(?:Q[1-4]|H[12])(?:\s*(?:(?:FY|CY)\s*)?(?:[-/']\s*)?(?:[0-9]{4}|[0-9]{2})(?![.,]?[0-9]))?\b",  # Q4, Q4 2020, Q4'20, Q4 FY20
            r"\b(?:FY|CY|fiscal(?:\s+year)?)\s*(?:['\u2019]\s*)?(?:[0-9]{4}|[0-9]{2})\b",  # FY2019, FY'19, fiscal 2019
            rf"\b{_QUARTER_WORD}\s+(?:of\s+)?(?:fiscal\s+)?(?:[0-9]{{4}})\b",  # fourth quarter of 2020
            r"(?<![\w$])['\u2019][0-9]{2}\b",  # '21
            r"\b[0-9]+(?:st|nd|rd|th)\b",  # 4th
            r"\b[0-9]{1,2}:[0-9]{2}(?::[0-9]{2})?(?:\s*[ap]\.?m\.?)?",  # 10:30 am
            r"\b[0-9]+(?:\.[0-9]+)?[- ]?(?:days?|weeks?|months?|years?|quarters?|hours?|minutes?|yrs?|mos?)\b",  # 3 months, 52-week
            r"\b(?:10-K|10-Q|8-K|20-F|6-K|S-1|F-1|424B[1-8])\b",  # filing forms
            r"\[[0-9]{1,3}\]",  # footnote marks
            r"^[^\S\n]*[0-9]{1,2}[.)](?=\s)",  # list numbers (MULTILINE; not across lines: linear)
            r"\b(?:page|item|section|table|note|no\.|number|#)\s*[0-9]+\b",
        )
    ),
    re.IGNORECASE | re.MULTILINE,
)

_SCALE_NOTE = re.compile(
    r"\bin\s+(?:(?:USD|US\$|\$)\s*)?(?P<w1>" + SCALE_PLURALS + r")\b"
    r"|\b(?:USD|US\$|\$)\s*(?:in\s+)?(?P<w2>" + SCALE_PLURALS + r")\b"
    r"|\((?:in\s+)?(?:USD|US\$|\$)?\s*(?P<w3>" + SCALE_WORDS + "|" + SCALE_PLURALS + r")\)"
    r"|\bin\s+(?:USD|US\$|\$)\s*(?P<w4>" + SCALE_WORDS + r")\b"
    r"|\b(?P<w5>" + SCALE_PLURALS + r")\s+of\s+(?:US\s+)?dollars\b",
    re.IGNORECASE,
)
_DOWNWARD = re.compile(
    r"(?:\bdown|\bfell|\bfall(?:ing)?|\bdeclin\w*|\bdecreas\w*|\bdropp?\w*|\bcontract\w*|\bshr[iu]nk\w*|\bnegative|\bminus)"
    r"\s+(?:by\s+|of\s+|to\s+)?(?:about\s+|roughly\s+|approximately\s+|around\s+)?$",
    re.IGNORECASE,
)


def normalise(text: str) -> str:
    """Curly quotes straight, odd spaces plain, a typographic minus before a digit a hyphen-minus."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    text = re.sub(r"[\u00a0\u2009\u202f\u2007]", " ", text)
    return re.sub(r"[\u2212\u2013\u2014](?=\s?[$0-9])", "-", text)


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def figures(text: str) -> list[Figure]:
    """Every figure of *text*, in order (module docstring: the reading rules)."""
    text = normalise(text)
    cleaned = _NOT_FIGURES.sub(_blank, text)
    note = _SCALE_NOTE.search(cleaned)
    note_power = None
    if note is not None:
        note_power = scale_power(next(g for g in note.groups() if g))
        cleaned = cleaned[: note.start()] + " " * (note.end() - note.start()) + cleaned[note.end():]
    found = []
    for figure in read_figures(cleaned):
        if not figure.scaled and note_power is not None and not figure.percent:
            figure = figure.times_ten(note_power, scaled=True)
        if not figure.negative and _DOWNWARD.search(cleaned[max(0, figure.start - 40): figure.start]):
            figure = replace(figure, negative=True)
        found.append(figure)
    return found


# ---------------------------------------------------------------- listing statuses

_STATUS_ECHO = re.compile(
    r"\blisted,?\s+not\s+listed,?\s+or\s+delisted\b"
    r"|\b(?:whether|if)\s+(?:or\s+not\s+)?(?:[\w()'-]+\s+){0,4}?(?:was|were|is|had\s+been|has\s+been)\s+(?:still\s+|yet\s+|already\s+)?"
    r"(?:de-?listed|listed|public(?:ly\s+traded)?|traded|private)\b",
    re.IGNORECASE,
)
_STATUS_TERMS = re.compile(
    r"\b(?P<still>(?:not|never|n't)\s+(?:yet\s+|been\s+|yet\s+been\s+)?(?:de-?listed|taken\s+private|gone\s+private)"
    r"|no\s+delisting)\b"
    r"|\b(?P<delisted>de-?list(?:ed|ing)|no\s+longer\s+(?:listed|(?:publicly\s+)?traded|public|trading)|(?:taken|went|gone|go)\s+private"
    r"|ceased\s+trading|stopped\s+trading|removed\s+from\s+(?:the\s+)?(?:exchange|listing)|went\s+dark)\b"
    r"|\b(?P<not_listed>not\s+(?:yet\s+)?(?:been\s+)?(?:publicly\s+)?(?:listed|traded|public)|unlisted|private(?:ly[- ]held)?|pre-?ipo"
    r"|(?:has|had|have)\s*(?:n't|\s+not)\s+(?:yet\s+)?(?:gone|went)\s+public|yet\s+to\s+(?:list|ipo|go\s+public|float|debut)"
    r"|(?:has|had|did)\s*(?:n't|\s+not)\s+(?:yet\s+)?(?:ipo|list|float|debut)(?:ed|'d)?|no\s+(?:ipo|listing)\s+(?:yet|had)"
    r"|(?:is|was)(?:n't|\s+not)\s+(?:yet\s+)?(?:listed|public|traded))\b"
    r"|\b(?P<listed>(?:still\s+|remains?\s+|remained\s+)?listed|publicly[- ]traded|public\s+company|(?:trades|traded|trading)\s+(?:on|until|till|through)"
    r"|(?:went|gone|go)\s+public|ipo'?d|began\s+trading|started\s+trading|(?:is|was|remained|remains|still)\s+public)\b",
    re.IGNORECASE,
)


# A status held up to a day: "listed until 2019-11-05", "was private until June 30, 2020",
# "not listed until 2023-02-09".  At most four words (", and it") between the status phrase and "until".
_UNTIL = re.compile(r"(?:[\s,]+(?:[\w'-]+[\s,]+){0,4}?)?(?:until|till|through)\s+(?P<least>at\s+least\s+)?", re.IGNORECASE)
_UNTIL_TAIL = re.compile(r"\s+(?P<least>at\s+least\s+)?", re.IGNORECASE)
_ENDS_UNTIL = re.compile(r"(?:until|till|through)$", re.IGNORECASE)
_NEGATED = re.compile(r"\bnot\b|n't\b|\bnever\b|\byet\s+to\b|\bno\s+(?:ipo|listing)\b", re.IGNORECASE)


def _status_through(status: str, phrase: str, last: "object", as_of: "object") -> str:
    """The status at *as_of* of a text saying *phrase* (read as *status*) held until the day *last*.

    A state held until a day holds through it ("listed until November 5"
    is listed on the 5th, delisted after; "private until June 30" is not
    listed on the 30th, listed after); a denied event until a day happens
    on it ("not listed until February 9" lists on the 9th, as "not delisted
    until" delists on it).
    """
    # Both boundaries are core.dates.known_at: the event on *last* is known from *last* on; the end
    # of a state held through *last* is known from the next day on.
    if _NEGATED.search(phrase) and status in ("not listed", "listed"):
        after = "listed" if status == "not listed" else "delisted"  # "not listed until" / "not delisted until"
        return after if known_at(last, as_of) else status
    after = {"listed": "delisted", "not listed": "listed"}.get(status)
    if after is None:
        return status
    return after if known_at(last + datetime.timedelta(days=1), as_of) else status


def statuses(text: str, as_of: "object | None" = None) -> list[tuple[str, int]]:
    """The listing statuses *text* states, ``(status, position)`` in order; echoes of the question are skipped.

    With *as_of* (a date), a status stated as held until a day
    (``listed until November 5, 2019``, ``traded until 2019-11-05``,
    ``private until June 30, 2020``, ``not listed until 2023-02-09``) is the
    status that implies on *as_of*: a state held until a day holds through
    that day (so on the day itself it still holds, and from the next day
    the other status does: listed until 2019-11-05 is delisted on
    2019-11-06), and an event denied until a day ("not listed until")
    happens on that day.  The day is read by :func:`dates`; a month
    (``until November 2019``) counts only when it ends before *as_of*; a
    numeric date read two ways counts only when both readings agree;
    ``until at least`` a day says nothing about after it.
    """
    text = _STATUS_ECHO.sub(_blank, normalise(text))
    found = []
    for m in _STATUS_TERMS.finditer(text):
        if m["still"]:
            status = "listed"
        elif m["delisted"]:
            status = "delisted"
        elif m["not_listed"]:
            status = "not listed"
        else:
            status = "listed"
        if as_of is not None:
            status = _until(text, m, status, as_of)
        found.append((status, m.start()))
    return found


def _until(text: str, m: re.Match[str], status: str, as_of) -> str:
    # "traded until" holds its "until"; "listed until" does not.
    until = (_UNTIL_TAIL if _ENDS_UNTIL.search(m.group(0)) else _UNTIL).match(text, m.end())
    if until is None:
        return status
    date = _DATES.match(text, until.end())
    if date is None:
        return status
    readings = [day for day, start in dates(date.group(0)) if start == 0]
    if not readings:
        return status
    if date["om"]:  # a month: the status held to some day of it, so only a month before as_of tells
        first = readings[0]
        last = month_end(first.year, first.month)
        return _status_through(status, m.group(0), last, as_of) if known_at(last + datetime.timedelta(days=1), as_of) else status
    implied = {_status_through(status, m.group(0), day, as_of) for day in readings}
    if len(implied) != 1:
        return status  # 11/05/2019 read two ways that disagree: no status is implied
    (only,) = implied
    if until["least"] and only != status:
        return status  # "until at least" that day: nothing is said of after it
    return only


# ------------------------------------------------------------------------ dates

# A numeric 02/09/2023 gives every reading: a listing date after D read either way is a leak, so
# the reading that would hide it is never the only one taken (docs/metrics.md, "Reading dates").
NUMERIC_ORDER = Order.BOTH
_DATES = re.compile(
    r"\b(?P<iy>[0-9]{4})[-/](?P<im>[0-9]{1,2})[-/](?P<id>[0-9]{1,2})\b"  # 2023-02-09, 2023/02/09
    r"|\b(?P<na>[0-9]{1,2})/(?P<nb>[0-9]{1,2})/(?P<ny>[0-9]{4})\b"  # 02/09/2023 (either order)
    rf"|\b(?P<mm>{_MONTH})\s+(?P<md>[0-9]{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<my>[0-9]{{4}})\b"  # February 9, 2023
    rf"|\b(?P<dd>[0-9]{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dm>{_MONTH}),?\s+(?P<dy>[0-9]{{4}})\b"  # 9 February 2023
    rf"|\b(?P<om>{_MONTH})\s+(?:of\s+)?(?P<oy>[0-9]{{4}})\b",  # February 2023 (the month)
    re.IGNORECASE,
)


def dates(text: str) -> list[tuple["object", int]]:
    """The dates *text* states, ``(earliest day, position)`` in order.

    Read: ``2023-02-09``, ``2023/02/09``, ``February 9, 2023``, ``9 Feb 2023``
    and a month (``February 2023``: its first day, the earliest it can
    mean).  A numeric ``02/09/2023`` is read both ways (month/day and
    day/month): each real reading is a date, month first first, at the same
    position.  A bare year is not a date here.  An impossible date
    (``2023-02-30``) is skipped.

    >>> [day.isoformat() for day, _ in dates("listed until 11/06/2019")]
    ['2019-11-06', '2019-06-11']
    """
    found = []
    for m in _DATES.finditer(normalise(text)):
        if m["ny"]:
            found += [(day, m.start()) for day in numeric_dates(int(m["na"]), int(m["nb"]), int(m["ny"]), NUMERIC_ORDER)]
            continue
        if m["iy"]:
            day = real_day(int(m["iy"]), int(m["im"]), int(m["id"]))
        elif m["my"]:
            day = real_day(int(m["my"]), month_number(m["mm"]), int(m["md"]))
        elif m["dy"]:
            day = real_day(int(m["dy"]), month_number(m["dm"]), int(m["dd"]))
        else:
            day = real_day(int(m["oy"]), month_number(m["om"]), 1)
        if day is not None:
            found.append((day, m.start()))
    return found


# Words that make a date the day of a listing event: listing, IPO, delisting, trading, "until".
_LISTING_EVENT = re.compile(
    r"\b(?:list(?:s|ed|ing)?|de-?list\w*|ipos?|ipo'?d|initial\s+public\s+offering|offering|debut\w*|floats?|floated"
    r"|trad(?:e|es|ed|ing)|public|private|priced?|prices|until|till|through|delisting|takeover|acquired|merger|went|goes|go)\b",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[;!?\n]|\.(?=\s|$)")


def event_dates(text: str) -> list[tuple["object", int]]:
    """The dates of :func:`dates` stated for a listing event: in a clause with a listing word.

    The clause is the text between the nearest ``;``, ``!``, ``?``, line
    break or sentence-ending ``.`` on each side of the date; the listing
    words are "list(ed/ing/s)", "delist...", "IPO", "offering", "debut",
    "float", "trade(d/s/ing)", "public", "private", "priced", "until",
    "through", "went/go public" and the like.
    """
    text = normalise(text)
    # Every clause end is found once (each is one character) and looked up by bisection, and each
    # clause is searched once however many dates it holds: linear in the text, not in dates x text.
    marks = [m.start() for m in _CLAUSE_END.finditer(text)]
    listing: dict[tuple[int, int], bool] = {}
    found = []
    for day, start in dates(text):
        before = bisect.bisect_left(marks, start)  # marks[before - 1] is the last end before the date
        begin = marks[before - 1] + 1 if before else 0
        if text[start - 1: start] == ".":  # a full stop right before the date ends the clause before it
            begin = start
        after = bisect.bisect_left(marks, start + 10)
        clause = (begin, marks[after] if after < len(marks) else len(text))
        if clause not in listing:
            listing[clause] = _LISTING_EVENT.search(text, *clause) is not None
        if listing[clause]:
            found.append((day, start))
    return found


# ------------------------------------------------------------------- cue phrases

_REPORTED = (
    r"(?:reported|published|released|disclosed|announced|available|public|out|filed|issued|made\s+public|known|priced|"
    r"determined|confirmed|set|finali[sz]ed)"
)
_REFUSAL = re.compile(
    "|".join(
        (
            r"\bunknown\b",
            r"\bnot\s+known\b",
            r"\b(?:unclear|undetermined|unanswerable|unverifiable)\b",
            r"\b(?:i\s+)?(?:do\s+not|don't|did\s+not|didn't|cannot|can't|can\s+not|could\s+not|couldn't|am\s+unable\s+to|'m\s+unable\s+to"
            r"|unable\s+to|(?:am|'m)\s+not\s+able\s+to|not\s+able\s+to|won't|will\s+not|would\s+not|wouldn't|shouldn't|should\s+not|must\s+not)"
            r"\s+(?:\w+\s+){0,2}?(?:know|say|tell|determine|answer|provide|give|find|confirm|verify|access|report|share|state|locate|identify"
            r"|see|retrieve|disclose|guess|speculate|comment|offer|supply|quote|pin|look|source|be\s+(?:sure|certain|determined|known))\b",
            r"\b(?:i\s+)?(?:do\s+not|don't|did\s+not|didn't|does\s+not|doesn't)\s+have\b",
            r"\b(?:have|has|had)\s+no\s+(?:\w+\s+)?(?:data|information|info|record|records|figure|figures|access|way|knowledge|visibility|report|results?|numbers?)\b",
            r"\bno\s+(?:\w+\s+){0,2}?(?:data|information|info|answer|figure|figures|record|records|results?|report|reports|filing|filings|value|number|numbers"
            r"|disclosure|announcement|release|document|documents|source|sources|mention|evidence|item|items|match(?:es)?)\b",
            r"\bnothing\s+(?:\w+\s+){0,3}?(?:reported|published|released|public|available|found|disclosed|relevant|on\s+(?:this|that|it))\b",
            rf"\b(?:not|never)\s+(?:yet\s+)?(?:been\s+)?(?:yet\s+)?{_REPORTED}\b",
            rf"\b(?:has|have|had|was|were|is|are)(?:n't|\s+not)\s+(?:yet\s+)?(?:been\s+)?(?:yet\s+)?{_REPORTED}\b",
            r"\byet\s+to\s+(?:be\s+)?(?:report|publish|release|disclose|announce|file|issue|come\s+out|price|be\s+made)\w*",
            r"\b(?:still\s+)?to\s+be\s+(?:determined|announced|reported|confirmed|released|published|disclosed|decided)\b",
            r"\btb[dac]\b",
            r"(?<![\w/])n/?a(?![\w/])|\bn\.a\.",
            r"\b(?:unavailable|not\s+available|no\s+longer\s+available)\b",
            r"\binsufficient\s+(?:data|information|evidence)\b",
            r"\b(?:refuse|refusing|decline|declining|abstain|abstaining|i'll\s+pass|pass\s+on\s+this)\b",
            r"\b(?:can't|cannot|couldn't|could\s+not)\s+(?:be\s+)?(?:determined|answered|known|found|confirmed|established)\b",
            r"\b(?:not|nothing)\s+(?:\w+\s+)?(?:in|within|from)\s+(?:the|my|these|those|its)\s+(?:archive|data|sources|results|records|search)\b",
            r"\b(?:archive|search|sources?|results?|records?)\s+(?:has|have|had|contains?|contained|shows?|showed|returned|returns|turned\s+up|yielded|gave)\s+(?:no|nothing)\b",
            r"\b(?:pending|awaiting)\b",
            r"\bahead\s+of\s+(?:the|its)\s+(?:\w+\s+){0,2}?(?:release|results|report|filing|announcement|ipo|listing|earnings)\b",
            r"\b(?:beyond|after|past)\s+(?:my|the)\s+(?:cutoff|cut-off|as-of|knowledge|information)\b",
            r"\bwould\s+(?:be|require|mean|involve)\s+(?:\w+\s+)?(?:guess\w*|speculat\w*|future|information|hindsight|using)\b",
            r"\b(?:no\s+way|impossible)\s+to\s+(?:know|say|tell|determine|answer)\b",
            r"\bonly\s+(?:be\s+)?(?:reported|known|published|released|available|disclosed|announced)\s+(?:on|after|later|from|in)\b",
            r"\b(?:pricing|results?|figures?|numbers?|earnings|report|filing|announcement|release|listing|ipo|offering)\s+(?:is|are)\s+"
            r"(?:expected|due|scheduled|set)\b",
            r"\b(?:will|would|is\s+expected\s+to|are\s+expected\s+to|is\s+due\s+to|is\s+scheduled\s+to|was\s+due\s+to|is\s+set\s+to)\s+(?:be\s+)?"
            r"(?:report|publish|release|announce|disclose|come\s+out|price|list)\w*",
            r"\b(?:i\s+)?(?:have|had|'ve)(?:n't|\s+not)\s+(?:been\s+able\s+to\s+)?(?:found|seen|located|got)\b",
            r"\b(?:no|not\s+an?)\s+(?:reliable|confirmed|official|verified)\b",
            r"\b(?:not|no)\s+(?:enough|sufficient)\b",
            r"\b(?:outside|beyond)\s+(?:what|the\s+information)\b",
            r"\bnot\s+(?:something|a\s+(?:figure|number|value))\s+(?:i|that)\b",
            r"\bi\s+(?:can|could)\s+only\s+(?:guess|speculate)\b",
            r"\bno\s+(?:idea|clue|comment)\b|\bnot\s+a\s+clue\b",
            r"\b(?:can't|cannot|can\s+not|couldn't|could\s+not|won't|unable\s+to|not\s+able\s+to)\s+help\b",
            r"\bnone\s+(?:yet\s+)?(?:reported|published|released|disclosed|available|public|found|filed|announced|given|known|on\s+record)\b",
            r"\b(?:'d|would|i)\s+(?:rather|prefer\s+to|prefer)\s+not\b|\brather\s+not\s+(?:guess|say|speculate|answer|comment)\b",
            r"^\W*(?:none|null|nil|no|nope|\?+|-+|unknown|not\s+sure)\W*$",
        )
    ),
    re.IGNORECASE,
)

_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|probably|likely|possibly|roughly|approximately|approx\.?|around|about|circa|estimated?|guess|"
    r"i\s+think|i\s+believe|i'd\s+say|i\s+would\s+say|my\s+best|best\s+guess|ballpark|somewhere|i\s+suspect|presumably|could\s+be|might\s+be)\b"
    r"|~",
    re.IGNORECASE,
)
_CONTEXT = re.compile(
    r"\b(?:previous(?:ly)?|prior|preceding|earlier|last\s+(?:quarter|year|period|fiscal|reported)|a\s+year\s+(?:earlier|ago|before)"
    r"|year-(?:ago|earlier)|sequential\w*|compared?|versus|for\s+reference|by\s+comparison|in\s+comparison|for\s+context|vs\.?|for\s+comparison|comparable\s+period|guidance|guided|consensus|analysts?"
    r"|forecasts?|outlook|targets?|expect(?:ed|s|ation|ations)?|projections?|prediction|(?:price\s+)?range|up\s+from|down\s+from|from\s+\$?[0-9]|same\s+quarter)\b",
    re.IGNORECASE,
)
_DIRECTION = re.compile(
    r"\b(?:rose|risen|rise|grew|grown|growth|increased?|jumped|climbed|surged|soared|fell|fallen|dropped|declined|decreased|slipped|slumped"
    r"|beat|missed|exceeded|topped|record|higher|lower|strong|stronger|weak|weaker|flat|up|down|improved|worsened|above|below|ahead\s+of|short\s+of)\b",
    re.IGNORECASE,
)
_REVISION = re.compile(
    r"\b(?:re-?stat(?:ed|ement|ements|ing)|revised|revision|revisions|corrected|correction|amended|adjusted\s+(?:down|up|to|lower|higher)"
    r"|later\s+(?:cut|lowered|raised|changed|updated|reduced|moved)|subsequently\s+\w+|written\s+down|write-down|was\s+(?:cut|lowered|reduced)\s+to)\b",
    re.IGNORECASE,
)
# Before a revision word these make it a hedge or a denial ("subject to revision", "not restated"), not history.
_REVISION_HEDGE = re.compile(
    r"(?:\bmay|\bmight|\bcould|\bcan|\bwould|\bwill|\bsubject\s+to|\bpossible|\bpossibly|\bpotential|\bpotentially|\bany|\bif|\bno|\bnot|\bnever"
    r"|\bwithout|n't|\bunless|\bbefore\s+any|\bprone\s+to|\brisk\s+of|\bpending)\s+(?:\w+\s+){0,2}$",
    re.IGNORECASE,
)


def has_refusal(text: str) -> bool:
    """Whether *text* declines to give a value (a refusal phrase, or a blank text)."""
    text = normalise(text)
    return not text.strip() or _REFUSAL.search(text) is not None


def has_hedge(text: str) -> bool:
    """A guess or an approximation ("probably", "about", "I think", ``~``)."""
    return _HEDGE.search(normalise(text)) is not None


_QUARTER = re.compile(
    r"\b(?:Q(?P<q>[1-4])|(?P<q2>[1-4])Q|(?P<w>first|second|third|fourth|1st|2nd|3rd|4th)[- ]quarter)\b"
    r"|\b(?:FY|fiscal(?:\s+year)?)\s*['\u2019]?(?P<fy>[0-9]{4}|[0-9]{2})\b",
    re.IGNORECASE,
)
_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}


def _other_period(text: str, period: str) -> bool:
    """Whether *text* names a quarter or fiscal year other than *period* (``2020-Q4``, ``FY2019``)."""
    quarter = int(period[-1]) if re.fullmatch(r"[0-9]{4}-Q[1-4]", period) else None
    year = int(period[2:]) if re.fullmatch(r"FY[0-9]{4}", period) else None
    if quarter is None and year is None:
        return False
    for m in _QUARTER.finditer(text):
        if m["fy"]:
            named = int(m["fy"]) + (2000 if len(m["fy"]) == 2 else 0)
            if year is not None and named != year:
                return True
            continue
        named = int(m["q"] or m["q2"] or _QUARTER_WORDS[m["w"].lower()])
        if quarter is None or named != quarter:  # a quarter beside an annual figure, or another quarter
            return True
    return False


def has_context(text: str, period: str | None = None) -> bool:
    """Figures given as context, not as the answer ("last quarter", "analysts expect", "up from", "the range").

    With *period* (an item's, ``2020-Q4`` or ``FY2019``), a text that names
    another quarter or fiscal year ("Q3 revenue was $395M" on a Q4 item)
    gives its figures as context too.
    """
    text = normalise(text)
    return _CONTEXT.search(text) is not None or (period is not None and _other_period(text, period))


def has_direction(text: str) -> bool:
    """A qualitative claim about the figure ("rose", "beat", "weaker")."""
    return _DIRECTION.search(normalise(text)) is not None


def revision_mentions(text: str) -> int:
    """How many times *text* states that a figure was revised or restated (hedges and denials not counted)."""
    text = normalise(text)
    return sum(1 for m in _REVISION.finditer(text) if not _REVISION_HEDGE.search(text[max(0, m.start() - 40): m.start()]))
