"""Find the dates and periods a search query refers to.

A query leaks intent when it names a period that *begins* after the as-of
date T.  Each reference is mapped to the first day of the period it names:

================================  ======================  ===============
form                              example                 begins
================================  ======================  ===============
ISO date                          ``2023-07-14``          2023-07-14
year and month                    ``2023-07``             2023-07-01
month name, optional day, year    ``July 2023``,          2023-07-01,
                                  ``14 July 2023``        2023-07-14
quarter                           ``Q3 2023``, ``Q3-23``, 2023-07-01
                                  ``2023Q3``, ``3Q23``
half year                         ``H2 2023``, ``2H23``   2023-07-01
fiscal year                       ``FY2024``, ``FY24``    2024-01-01
bare year (1900-2099)             ``2024``                2024-01-01
================================  ======================  ===============

Conventions (documented in docs/metrics.md): two-digit years are 20YY;
quarters, halves and fiscal years are calendar periods (a fiscal year FYN is
taken to be calendar year N, since the issuer's fiscal calendar is unknown);
a number glued to a currency sign, a percent sign, a unit suffix or a
decimal point is not a year (``$2024``, ``2024%``, ``2024M``, ``20.2024``);
an impossible date such as ``2023-02-30`` names no period.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

from .dates import known_at

__all__ = ["DateReference", "date_references", "future_references"]

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_YEAR4 = r"(?:19|20)[0-9]{2}"
_YY = r"(?:(?:19|20)[0-9]{2}|'?[0-9]{2})"  # four-digit year, or two digits with an optional apostrophe
_DAY = r"(?:[012]?[0-9]|3[01])(?:st|nd|rd|th)?"
_SEP = r"[\s\-/]*"

# Order matters: at one position the longest, most specific form must win.
_PATTERN = re.compile(
    # Every form starts with a digit, q, h, f or a month's initial: other positions fail at once.
    r"(?=[0-9qhfjmasond])(?<![\w$£€¥.,])(?:"
    rf"(?P<iso>(?P<iso_y>{_YEAR4})[-/](?P<iso_m>[0-9]{{2}})[-/](?P<iso_d>[0-9]{{2}}))(?![\w%])"
    rf"|(?P<ym>(?P<ym_y>{_YEAR4})[-/](?P<ym_m>0[1-9]|1[0-2]))(?![\w%/-])"
    rf"|(?P<dmy>(?P<dmy_d>{_DAY})\s+(?P<dmy_m>{_MONTH})\.?,?\s+(?P<dmy_y>{_YEAR4}))(?![\w%])"
    rf"|(?P<mdy>(?P<mdy_m>{_MONTH})\.?\s+(?:(?P<mdy_d>{_DAY}),?\s+)?(?P<mdy_y>{_YEAR4}))(?![\w%])"
    rf"|(?P<qy>q(?P<qy_q>[1-4]){_SEP}(?:fy\s*)?(?P<qy_y>{_YY}))(?![\w%])"
    rf"|(?P<yq>(?P<yq_y>{_YEAR4}){_SEP}q(?P<yq_q>[1-4]))(?![\w%])"
    rf"|(?P<nq>(?P<nq_q>[1-4])q(?P<nq_y>{_YEAR4}|[0-9]{{2}}))(?![\w%])"
    rf"|(?P<hy>h(?P<hy_h>[12]){_SEP}(?:fy\s*)?(?P<hy_y>{_YY}))(?![\w%])"
    rf"|(?P<yh>(?P<yh_y>{_YEAR4}){_SEP}h(?P<yh_h>[12]))(?![\w%])"
    rf"|(?P<nh>(?P<nh_h>[12])h(?P<nh_y>{_YEAR4}|[0-9]{{2}}))(?![\w%])"
    rf"|(?P<fy>fy{_SEP}(?P<fy_y>{_YY}))(?![\w%])"
    rf"|(?P<year>{_YEAR4})(?![\w%$]|[.,][0-9])"
    r")",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DateReference:
    """A reference found in a query: its text and the day its period begins."""

    text: str
    begins: _dt.date


def _year(text: str) -> int:
    digits = text.lstrip("'")
    return int(digits) if len(digits) == 4 else 2000 + int(digits)


def _month(name: str) -> int:
    return _MONTHS[name[:3].lower()]


def _begins(match: re.Match[str]) -> _dt.date | None:
    g = match.group
    kind = match.lastgroup  # the form's outer group closes last
    try:
        if kind == "year":
            return _dt.date(int(g("year")), 1, 1)
        if kind == "iso":
            return _dt.date(int(g("iso_y")), int(g("iso_m")), int(g("iso_d")))
        if kind == "ym":
            return _dt.date(int(g("ym_y")), int(g("ym_m")), 1)
        if kind == "dmy":
            return _dt.date(int(g("dmy_y")), _month(g("dmy_m")), int(re.match(r"[0-9]+", g("dmy_d")).group()))
        if kind == "mdy":
            day = g("mdy_d")
            return _dt.date(int(g("mdy_y")), _month(g("mdy_m")), int(re.match(r"[0-9]+", day).group()) if day else 1)
        if kind in ("qy", "yq", "nq"):
            return _dt.date(_year(g(f"{kind}_y")), 3 * int(g(f"{kind}_q")) - 2, 1)
        if kind in ("hy", "yh", "nh"):
            return _dt.date(_year(g(f"{kind}_y")), 6 * int(g(f"{kind}_h")) - 5, 1)
        return _dt.date(_year(g("fy_y")), 1, 1)  # fy
    except ValueError:  # an impossible day such as 2023-02-30 names no period
        return None


_LONG = 512  # characters: past this, only the neighbourhoods of digits are searched
_BEFORE = 24  # how far before its first digit a reference may start ("September 14, 2023", "Q3 FY")
_AFTER = 3  # the look-ahead a reference's end needs ("2024M", "20.24")
# Digits no more than _BEFORE + _AFTER apart, as one cluster (found by the regex engine, not a loop).
_CLUSTER = re.compile(rf"[0-9](?:[^0-9]{{0,{_BEFORE + _AFTER}}}[0-9])*")


def _windows(text: str) -> list[tuple[int, int]]:
    """Spans of *text* around its digit clusters: every reference has a digit, so lies in one."""
    return [(max(0, m.start() - _BEFORE), min(len(text), m.end() + _AFTER)) for m in _CLUSTER.finditer(text)]


def date_references(query: str) -> list[DateReference]:
    """Every date or period *query* refers to, in order of appearance.

    A long text (a fetched page) is first collapsed to single spaces and
    searched only around its digit runs, which finds the same references
    at a fraction of the cost (a page of prose has few digits).
    """
    if len(query) <= _LONG:
        matches = list(_PATTERN.finditer(query))
    else:
        query = " ".join(query.split())
        matches = [m for start, end in _windows(query) for m in _PATTERN.finditer(query, start, end)]
    found = []
    for match in matches:
        begins = _begins(match)
        if begins is not None:
            found.append(DateReference(match.group(0), begins))
    return found


def future_references(query: str, as_of: _dt.date) -> list[DateReference]:
    """The references of *query* whose period begins strictly after *as_of*.

    A period that begins on or before *as_of* (the month or year containing
    it, the day itself) is not a leak.
    """
    return [ref for ref in date_references(query) if not known_at(ref.begins, as_of)]
