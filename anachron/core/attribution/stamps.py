"""Page chrome in a page's visible text: modification stamps and copyright notices.

A page shows its history in stamps ("Last modified: 2024-05-28 05:47:01 UTC",
"Updated September 24th, 2025", "This article was revised and updated at 5 p.m.
2002-11-18", a PEP's "Post-History: 21-Mar-2001, 29-Jul-2002"), its rendering
year in a copyright line ("Copyright © 2017 MarketWatch, Inc.", "© 2022 Daily
News Egypt") and its rendering day in a banner at its top ("Wednesday, 03 July
2024" above a 2020 story).  Two rules read them:

- the **revision risk** (:func:`modification_stamp`): the latest day a
  modification stamp names is the day the page shows it was modified, when
  no date field and no HTML metadata says (docs/dating.md, "Revision risk");
- the **content check** (:func:`without_chrome`): stamps, copyright
  notices and render banners are chrome, not statements of the page, so
  their dates are no content leak; the text is read with them blanked out.

A stamp is a label (``last modified``, ``last updated``, ``last edited``,
``last revised``, ``last reviewed``, ``updated``, ``modified``, ``revised``,
``edited``, ``post-history``), then perhaps ``on`` or ``at``, a colon or a
dash, a clock time, and a day: ISO (``2024-05-28``, with a time or not),
``September 24th, 2025``, ``24 September 2025`` or ``21-Mar-2001``; a
``post-history`` label takes a comma-separated list of days.  Only a day
counts: "updated its 2024 guidance" is no stamp.  A publication stamp
("Posted on 2001-08-17", "published on: 2023-12-20") is not chrome: a page
that says it was published after T is telling the reader something.  The
days are read by :func:`~anachron.core.attribution.values.read_value`, the
one reader of date values.

A **render banner** is a line that holds a weekday and a day and nothing
else ("Wednesday, 03 July 2024", "Wed, Jul 3, 2024"; no clock time, no
byline, no other word) and starts within the first
:data:`BANNER_CHARS` characters of the text (its title, its first lines):
the day a site prints atop every page it serves.  The same line further
down, or with a time or a byline ("Monday, 03 February 2020 01:45 Written
by"), is a story's dateline, and stays content.

Each pattern is scanned once, left to right, over at most
:data:`STAMP_SCAN_CHARS` characters.
"""

from __future__ import annotations

import datetime as _dt
import re

from anachron.core.errors import AnachronError
from anachron.core.grammar.calendar_words import MONTH, WEEKDAY
from anachron.core.attribution.values import FLAGS, read_value

__all__ = ["BANNER_CHARS", "STAMP_SCAN_CHARS", "chrome_spans", "modification_stamp", "publication_statement", "without_chrome"]

STAMP_SCAN_CHARS = 256 * 1024
BANNER_CHARS = 300  # where a render banner may start: a page's top

_DAY = (
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[t ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?)?"
    rf"|(?:{MONTH})\.? [0-9]{{1,2}}(?:st|nd|rd|th)?,? [0-9]{{4}}"
    rf"|[0-9]{{1,2}}(?:st|nd|rd|th)? (?:{MONTH})\.?,? [0-9]{{4}}"
    rf"|[0-9]{{1,2}}-(?:{MONTH})-[0-9]{{4}}"
)
_STAMP = re.compile(
    r"\b(?P<label>last[ -](?:modified|updated|edited|revised|reviewed)|updated|modified|revised|edited|post-history)"
    r"(?: on| at)?[ \t]*[:\u2013\u2014-]?[ \t]*"
    r"(?:[0-9]{1,2}(?::[0-9]{2}){0,2}[ \t]*(?:[ap]\.?m\.?)?[ \t]+)?"  # a clock time before the day: "at 5 p.m. 2002-11-18"
    rf"(?P<day>{_DAY})"
    rf"(?P<more>(?:[ \t]*,[ \t]*(?:{_DAY}))*)",
    FLAGS,
)
_COPYRIGHT = re.compile(r"(?:\bcopyright[ \t]*(?:\u00a9|\(c\))?|\u00a9|\(c\))[ \t]*(?:[0-9]{4}[ \t]*[-\u2013][ \t]*)?[0-9]{4}\b", FLAGS)
_EACH_DAY = re.compile(_DAY, FLAGS)
_BANNER = re.compile(rf"^[ \t]*(?:{WEEKDAY})\.?,?[ \t]+(?:{_DAY})[ \t]*$", FLAGS | re.MULTILINE)
_TAG = re.compile(r"<[^<>]{0,2048}>")


def _visible(text: str) -> str:
    """*text* with its tags blanked (same length): a stamp's day may sit in a link."""
    head = text[:STAMP_SCAN_CHARS]
    return _TAG.sub(lambda m: " " * len(m.group(0)), head) if "<" in head else head


def chrome_spans(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of every modification stamp and copyright notice of *text*, in order.

    >>> chrome_spans("Revenue rose. Copyright © 2024 X. Last modified: 2024-05-28 05:47:01 UTC")
    [(14, 30), (34, 68)]
    """
    visible = _visible(text)
    spans = [m.span() for m in _STAMP.finditer(visible)] + [m.span() for m in _COPYRIGHT.finditer(visible)]
    spans += [m.span() for m in _BANNER.finditer(visible, 0, BANNER_CHARS + 256) if m.start() < BANNER_CHARS]
    return sorted(spans)


def without_chrome(text: str) -> str:
    """*text* with its stamps and copyright notices blanked out (the same length, so positions hold).

    >>> without_chrome("Q3 2025 guidance. Updated June 5, 2024")
    'Q3 2025 guidance.                     '
    """
    spans = chrome_spans(text)
    if not spans:
        return text
    out, position = [], 0
    for start, end in spans:
        if start < position:
            continue
        out += [text[position:start], " " * (end - start)]
        position = end
    out.append(text[position:])
    return "".join(out)


def _day(raw: str) -> _dt.date | None:
    if re.fullmatch(r"[0-9]{1,2}-[A-Za-z]+-[0-9]{4}", raw):
        raw = raw.replace("-", " ")  # 21-Mar-2001, as PEPs write it
    try:
        first, _, granularity = read_value(raw, None)
    except AnachronError:
        return None
    return first if granularity == "day" else None


# A statement of the page's own publication or update: the phrase, then ``in``/``on`` and perhaps a
# colon, then a day, a month, or (after ``in`` only) a year. The list is short on purpose.
_STATED = re.compile(
    r"\b(?P<phrase>(?:first |originally )?published|(?:last[ -])?updated)"
    r"(?:[ \t]+(?P<prep>in|on))?[ \t]*:?[ \t]*"
    rf"(?P<date>{_DAY}|(?:{MONTH})\.? [0-9]{{4}}|[0-9]{{4}}-[0-9]{{2}}|[0-9]{{4}})(?![0-9-])",
    FLAGS,
)
# "The 2023 report was published in June 2023": a finite verb whose subject is not "this ..." or
# "it" dates another document. A label ("Published: ...") or a participle ("a retrospective
# published in June 2023") has no such verb before it and counts.
_AUXILIARY_BEFORE = re.compile(r"\b(?:was|were|is|are|been|be|being|has|have|had|will|to)[ \t]+$", FLAGS)
_ITSELF_BEFORE = re.compile(r"\b(?:this|it)\b(?:[ \t]+[\w-]+){0,3}?[ \t]+(?:was|is|has been|had been)[ \t]+$", FLAGS)
_LOOKBEHIND_CHARS = 64


def publication_statement(text: str) -> tuple[str, str] | None:
    """The latest publication or update the page states of itself, as ``(date text, statement as
    written)``; ``None`` without one. The date is read by the caller (the one date grammar).

    >>> publication_statement("Jan 2, 2020 — a retrospective published in June 2023")
    ('June 2023', 'published in June 2023')
    >>> publication_statement("The 2023 report was published in June 2023.") is None
    True
    >>> publication_statement("This article was first published on 2023-06-04; last updated: March 3, 2024")
    ('March 3, 2024', 'last updated: March 3, 2024')
    """
    visible = _visible(text)
    best: tuple[_dt.date, str, str] | None = None
    for m in _STATED.finditer(visible):
        raw = m.group("date")
        if len(raw) == 4 and m.group("prep") != "in":
            continue  # "updated 2024 guidance": a bare year only after "in"
        before = visible[max(0, m.start() - _LOOKBEHIND_CHARS):m.start()]
        if _AUXILIARY_BEFORE.search(before) and not _ITSELF_BEFORE.search(before):
            continue
        try:
            first = read_value(raw, None)[0]
        except AnachronError:
            continue  # an impossible day is no statement; the caller never sees it
        if best is None or first > best[0]:
            best = (first, raw, " ".join(m.group(0).split()))
    return (best[1], best[2]) if best is not None else None


def modification_stamp(text: str) -> tuple[_dt.date, str] | None:
    """The latest day a modification stamp of *text* names, with the stamp as written; ``None`` without one.

    >>> modification_stamp("Post-History: 21-Mar-2001, 07-Apr-2013\\nLast modified: 2025-02-01 09:51:18 UTC")
    (datetime.date(2025, 2, 1), 'Last modified: 2025-02-01 09:51:18')
    >>> modification_stamp("The company updated its 2024 guidance.") is None
    True
    """
    best: tuple[_dt.date, str] | None = None
    for m in _STAMP.finditer(_visible(text)):
        for raw in _EACH_DAY.findall(m.group("day") + m.group("more")):
            day = _day(raw)
            if day is not None and (best is None or day > best[0]):
                best = (day, " ".join(m.group(0).split()))
    return best
