"""Date an item of the open web: which day (or month, or year) was it published?

A search or fetch result from a live service (Brave, Tavily, Exa, the
Anthropic web search tool, a fetched page) carries its date, when it carries
one at all, in many shapes.  :func:`attribute` reads the first usable one and
returns an :class:`Attribution`: the *granule* the item was published in (a
day, a month or a year, as ``first``..``last``), where the date came from,
the raw text read, and why earlier sources were unusable.

Sources, first usable one wins (docs/dating.md):

1. explicit fields, in :data:`DATE_FIELDS` order (``last_modified`` excepted:
   it dates the item only when nothing else does, see 5);
2. the URL path (``url``, else ``id`` when it is a URL): ``/2023/02/09/``,
   ``/2023/feb/09/``, ``/2023-02-09``, ``/20230209`` (day), ``/2023/02/`` (month);
3. a leading date in ``snippet``: ``"Feb 9, 2023 — ..."``;
4. HTML metadata in ``text``, within its first :data:`HTML_SCAN_CHARS`
   characters: ``article:published_time``, ``og:published_time``, JSON-LD
   ``datePublished``, the first ``<time datetime>``;
5. the ``last_modified`` field.

Never a guess: an ambiguous or unreadable value leaves the source unused and
adds a problem naming the source and its value.  A granule is *known* at T
when its last day is known at T, a *leak* when its first day is not, and
*uncertain* in between (T inside the month or year); every comparison is a
call to :func:`~anachron.core.dates.known_at`.

Pure: standard library only, no I/O, deterministic.  :func:`attribute`
never raises for a JSON-like entry; :func:`parse_when` raises
:class:`~anachron.core.errors.AnachronError` on an unreadable value.
"""

from __future__ import annotations

import calendar
import datetime as _dt
import html
import json
import math
import re
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any, Iterator

from .errors import AnachronError
from .validate import describe
from .dates import known_at

__all__ = [
    "Attribution",
    "DATE_FIELDS",
    "GRANULARITIES",
    "HTML_SCAN_CHARS",
    "MAX_TAG_CHARS",
    "MODIFIED_FIELDS",
    "PLAUSIBLE_YEARS",
    "STATUSES",
    "attribute",
    "evidence_of",
    "html_dates",
    "parse_when",
    "url_path",
]

GRANULARITIES = ("day", "month", "year")
STATUSES = ("known", "leak", "uncertain", "undated")
DATE_FIELDS = (
    "publish_date", "published", "published_at", "published_date", "date",
    "datePublished", "publishedDate", "page_age", "age", "crawl_date", "last_modified",
)
# last_modified is in both lists: the only date, it dates the item; beside a
# published date, it is the modification date.
MODIFIED_FIELDS = ("dateModified", "modified", "updated", "last_modified")

# Years a web date may name.  Outside them a value is a placeholder (epoch 0,
# 0001-01-01, 1900-01-01, 9999-12-31) or an id, not a publication date.
PLAUSIBLE_YEARS = range(1990, 2101)
# HTML metadata is searched for in the first HTML_SCAN_CHARS characters of a
# fetched text only, so a megabyte page costs no more than a large <head>.
HTML_SCAN_CHARS = 256 * 1024
# A date is short; a longer value is not read at all (bounds the work).
MAX_VALUE_CHARS = 100
# Epoch numbers at or above this are milliseconds.  Seconds of the plausible
# years lie in [6.3e8, 4.1e9], milliseconds in [6.3e11, 4.1e12]: 1e11 sits
# two orders of magnitude from both.
EPOCH_MS_THRESHOLD = 10**11
# JSON-LD trees are walked for at most this many nodes.
JSON_LD_MAX_NODES = 10_000

_UTC = _dt.timezone.utc
_EPOCH_DAY = _dt.date(1970, 1, 1)
_SHOWN_CHARS = 60

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}
_WEEKDAYS = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}

# --- value formats.  Only ASCII digits ([0-9], re.ASCII): a fullwidth or
# Arabic-Indic digit never reads as a number.  Values arrive with their
# whitespace collapsed to single spaces. ---------------------------------------

_FLAGS = re.ASCII | re.IGNORECASE
_MONTH = (
    r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_WEEKDAY = (
    r"(?:(?P<wd>mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?"
    r"|fri(?:day)?|sat(?:urday)?|sun(?:day)?)\.?,? )?"
)
_DAY = r"(?P<d>[0-9]{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<y>[0-9]{4})"
_ZONE = r"(?P<z>z|utc|gmt|[+-][0-9]{2}(?::?[0-9]{2})?)"

_ISO = re.compile(
    r"(?P<y>[0-9]{4})-(?P<m>[0-9]{2})-(?P<d>[0-9]{2})"
    r"(?:[t ](?P<H>[0-9]{2}):(?P<M>[0-9]{2})(?::(?P<S>[0-9]{2})(?:[.,](?P<f>[0-9]{1,9}))?)? ?"
    + _ZONE + r"?)?",
    _FLAGS,
)
_COMPACT = re.compile(r"(?P<y>[0-9]{4})(?P<m>[0-9]{2})(?P<d>[0-9]{2})")
_SLASHED = re.compile(r"(?P<y>[0-9]{4})/(?P<m>[0-9]{2})/(?P<d>[0-9]{2})")
_YEAR_MONTH = re.compile(r"(?P<y>[0-9]{4})[-/](?P<m>[0-9]{2})")
_YEAR_ONLY = re.compile(r"[0-9]{4}")
_EPOCH_TEXT = re.compile(r"[0-9]{1,16}(?:\.[0-9]{1,6})?")
_MONTH_DAY_YEAR = re.compile(_WEEKDAY + _MONTH + r" " + _DAY + r"(?:, ?| )" + _YEAR, _FLAGS)
_DAY_MONTH_YEAR = re.compile(_WEEKDAY + _DAY + r" (?:of )?" + _MONTH + r",? " + _YEAR, _FLAGS)
_MONTH_YEAR = re.compile(_MONTH + r",? " + _YEAR, _FLAGS)
# RFC 2822 (and the HTTP IMF-fixdate), read by a strict pattern rather than
# email.utils, which also takes two-digit years and odd shapes.
_RFC_2822 = re.compile(
    r"(?:(?P<wd>mon|tue|wed|thu|fri|sat|sun), ?)?(?P<d>[0-9]{1,2}) (?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
    r" (?P<y>[0-9]{4}) (?P<H>[0-9]{2}):(?P<M>[0-9]{2})(?::(?P<S>[0-9]{2}))?"
    r"(?: (?P<z>[+-][0-9]{4}|ut|utc|gmt|z|[ecmp][sd]t))?",
    _FLAGS,
)
# The asctime form of HTTP dates: no zone, so UTC.
_ASCTIME = re.compile(
    r"(?P<wd>mon|tue|wed|thu|fri|sat|sun) (?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
    r" (?P<d>[0-9]{1,2}) (?P<H>[0-9]{2}):(?P<M>[0-9]{2}):(?P<S>[0-9]{2}) (?P<y>[0-9]{4})",
    _FLAGS,
)
# Minutes east of UTC of the zone names a date may carry (RFC 2822 section 4.3).
_ZONE_NAMES = {
    "z": 0, "ut": 0, "utc": 0, "gmt": 0,
    "est": -300, "edt": -240, "cst": -360, "cdt": -300,
    "mst": -420, "mdt": -360, "pst": -480, "pdt": -420,
}
_NUMERIC_DAY_MONTH = re.compile(r"[0-9]{1,2}[./-][0-9]{1,2}[./-](?:[0-9]{4}|[0-9]{2})")
_AGO = re.compile(
    r"(?P<n>[0-9]{1,6}|an?|one) ?(?P<unit>secs?|seconds?|mins?|minutes?|hrs?|hours?|days?|wks?|weeks?"
    r"|mos?|months?|yrs?|years?) ago",
    _FLAGS,
)
_NOW_WORDS = {"just now": 0, "today": 0, "yesterday": 1}


def _shown(text: str) -> str:
    """*text* for a message: whitespace collapsed, cut at 60 characters, quoted."""
    text = " ".join(text[: 4 * _SHOWN_CHARS].split())  # cut first: a huge value costs nothing
    if len(text) > _SHOWN_CHARS:
        text = text[: _SHOWN_CHARS - 3] + "..."
    return repr(text)


def _unreadable(text: str) -> AnachronError:
    return AnachronError(f"unreadable value {_shown(text)}")


# --- granules -----------------------------------------------------------------


def _check_year(year: int, text: str) -> None:
    if year not in PLAUSIBLE_YEARS:
        raise AnachronError(
            f"year {year} in {_shown(text)} is outside the plausible years "
            f"{PLAUSIBLE_YEARS.start}..{PLAUSIBLE_YEARS.stop - 1}"
        )


def _day(year: int, month: int, day: int, text: str) -> tuple[_dt.date, _dt.date, str]:
    """The day granule, or an error for an impossible day such as Feb 30."""
    if year not in PLAUSIBLE_YEARS:
        _check_year(year, text)
    try:
        found = _dt.date(year, month, day)
    except ValueError:
        raise AnachronError(f"{_shown(text)} is not a real calendar day") from None
    return found, found, "day"


def _month(year: int, month: int, text: str) -> tuple[_dt.date, _dt.date, str]:
    """The month granule: its first and last day."""
    _check_year(year, text)
    if not 1 <= month <= 12:
        raise AnachronError(f"{_shown(text)} is not a real month")
    return _dt.date(year, month, 1), _dt.date(year, month, calendar.monthrange(year, month)[1]), "month"


def _year(year: int, text: str) -> tuple[_dt.date, _dt.date, str]:
    _check_year(year, text)
    return _dt.date(year, 1, 1), _dt.date(year, 12, 31), "year"


def _utc_day(moment: _dt.datetime, text: str) -> tuple[_dt.date, _dt.date, str]:
    """The UTC day of *moment*; a moment without a zone is taken as UTC."""
    _check_year(moment.year, text)
    if moment.tzinfo is not None:
        moment = moment.astimezone(_UTC)
    return moment.date(), moment.date(), "day"


def _month_number(name: str) -> int:
    return _MONTHS[name[:3].lower()]


def _check_weekday(match: re.Match[str], found: tuple[_dt.date, _dt.date, str], text: str) -> None:
    """A written weekday must be the date's own: a mismatch is a contradiction, not a date."""
    name = match.group("wd")
    if name and _WEEKDAYS[name[:3].lower()] != found[0].weekday():
        raise AnachronError(f"{_shown(text)}: {found[0].isoformat()} is a {found[0].strftime('%A')}")


# --- one parser per family of formats ---------------------------------------------


def _offset_minutes(zone: str | None, text: str) -> int:
    """Minutes east of UTC of a zone: a name of :data:`_ZONE_NAMES`, ``+HH:MM``,
    ``+HHMM`` or ``+HH``; no zone is UTC."""
    if not zone:
        return 0
    zone = zone.lower()
    if zone in _ZONE_NAMES:
        return _ZONE_NAMES[zone]
    hours, minutes = int(zone[1:3]), int(zone[-2:]) if len(zone) > 3 else 0
    if hours > 23 or minutes > 59:
        raise AnachronError(f"{_shown(text)} has an impossible UTC offset")
    return (hours * 60 + minutes) * (1 if zone[0] == "+" else -1)


def _utc_day_at(day: _dt.date, hour: int, minute: int, second: int, offset: int, text: str) -> tuple[_dt.date, _dt.date, str]:
    """The UTC day of the local time *hour:minute:second* of *day*, *offset* minutes east of UTC.

    >>> _utc_day_at(_dt.date(2023, 2, 9), 23, 30, 0, -300, "")[0]
    datetime.date(2023, 2, 10)
    """
    if hour > 23 or minute > 59 or second > 59:
        raise AnachronError(f"{_shown(text)} is not a real time of day")
    shift = (hour * 60 + minute - offset) // 1440  # -1, 0 or +1 day
    found = day + _dt.timedelta(days=shift) if shift else day
    return found, found, "day"


def _parse_iso(match: re.Match[str], text: str) -> tuple[_dt.date, _dt.date, str]:
    """``YYYY-MM-DD`` (a day) or an ISO datetime (its UTC day).

    The offset may be ``Z``, ``UTC``, ``+HH:MM``, ``+HHMM`` or ``+HH``; a
    datetime without one is UTC.
    """
    year, month, day, hour, minute, second, _, zone = match.groups()
    found = _day(int(year), int(month), int(day), text)
    if hour is None:
        return found
    return _utc_day_at(found[0], int(hour), int(minute), int(second or 0), _offset_minutes(zone, text), text)


def _parse_epoch(number: float | int, text: str) -> tuple[_dt.date, _dt.date, str]:
    """The UTC day of epoch seconds, or milliseconds from :data:`EPOCH_MS_THRESHOLD` up."""
    if isinstance(number, float) and not math.isfinite(number):
        raise AnachronError(f"epoch value {text} is not a finite number")
    if number < 0:
        raise AnachronError(f"epoch value {text} is negative")
    per_day = 86_400_000 if number >= EPOCH_MS_THRESHOLD else 86_400
    days = int(number // per_day)
    if days > 200 * 366:  # far past 2100 whatever the unit: no date arithmetic on it
        raise AnachronError(f"epoch value {text} is far outside the plausible years")
    day = _EPOCH_DAY + _dt.timedelta(days=days)
    if day.year not in PLAUSIBLE_YEARS:
        raise AnachronError(
            f"epoch value {text} is {day.isoformat()}, outside the plausible years "
            f"{PLAUSIBLE_YEARS.start}..{PLAUSIBLE_YEARS.stop - 1}"
        )
    return day, day, "day"


def _parse_http_date(match: re.Match[str], text: str) -> tuple[_dt.date, _dt.date, str]:
    """An RFC 2822 or asctime date: its UTC day; no zone (or ``-0000``) is UTC.

    A weekday, if written, must be the written date's own.
    """
    g = match.group
    written = _day(int(g("y")), _month_number(g("mon")), int(g("d")), text)
    _check_weekday(match, written, text)
    zone = g("z") if "z" in match.re.groupindex else None
    return _utc_day_at(written[0], int(g("H")), int(g("M")), int(g("S") or 0), _offset_minutes(zone, text), text)


def _parse_ago(match: re.Match[str], text: str, now: _dt.datetime | None) -> tuple[_dt.date, _dt.date, str]:
    """A relative age, resolved against *now* (the call's own timestamp, UTC).

    Seconds to weeks: the UTC day of ``now - N units``.  Months: the calendar
    month N months before now's (month granularity); years: the calendar year
    N before now's (year granularity).  A site rounds its ages, so a day is
    only as good as that rounding.
    """
    if now is None:
        raise AnachronError(f"relative age {_shown(text)} needs the call's timestamp (now)")
    count = match.group("n").lower()
    n = 1 if count in ("a", "an", "one") else int(count)
    unit = match.group("unit").lower()
    if unit.startswith("mo"):
        months = now.year * 12 + now.month - 1 - n
        return _month(months // 12, months % 12 + 1, text)
    if unit.startswith("y"):
        return _year(now.year - n, text)
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}[unit[0]]
    try:
        if n * seconds > 200 * 366 * 86_400:
            raise OverflowError
        return _utc_day(now - _dt.timedelta(seconds=n * seconds), text)
    except OverflowError:
        raise AnachronError(f"relative age {_shown(text)} is far outside the plausible years") from None


def _parse_number_text(text: str) -> tuple[_dt.date, _dt.date, str] | None:
    """Forms made of digits only: ``YYYY`` (a year), ``YYYYMMDD`` (a day), else epoch."""
    if len(text) == 4 and _YEAR_ONLY.fullmatch(text):
        return _year(int(text), text)
    match = _COMPACT.fullmatch(text)
    if match:
        return _day(int(match["y"]), int(match["m"]), int(match["d"]), text)
    if _EPOCH_TEXT.fullmatch(text):
        return _parse_epoch(float(text) if "." in text else int(text), text)
    return None


def _parse_numeric(text: str) -> tuple[_dt.date, _dt.date, str] | None:
    """Year-first numeric forms: ISO, ``YYYY/MM/DD``, ``YYYY-MM``, digits only."""
    match = _ISO.fullmatch(text)
    if match:
        return _parse_iso(match, text)
    match = _SLASHED.fullmatch(text)
    if match:
        return _day(int(match["y"]), int(match["m"]), int(match["d"]), text)
    match = _YEAR_MONTH.fullmatch(text)
    if match:
        return _month(int(match["y"]), int(match["m"]), text)
    return _parse_number_text(text)


def _parse_named(text: str) -> tuple[_dt.date, _dt.date, str] | None:
    """Forms with an English month name: ``Feb 9, 2023``, ``9 February 2023``,
    ``February 2023``, RFC 2822 and asctime dates."""
    if ":" in text:  # only the forms with a time of day have a colon
        match = _RFC_2822.fullmatch(text) or _ASCTIME.fullmatch(text)
        return _parse_http_date(match, text) if match else None
    for pattern in (_MONTH_DAY_YEAR, _DAY_MONTH_YEAR):
        match = pattern.fullmatch(text)
        if match:
            found = _day(int(match["y"]), _month_number(match["mon"]), int(match["d"]), text)
            _check_weekday(match, found, text)
            return found
    match = _MONTH_YEAR.fullmatch(text)
    if match:
        return _month(int(match["y"]), _month_number(match["mon"]), text)
    return None


def _parse_text(text: str, now: _dt.datetime | None) -> tuple[_dt.date, _dt.date, str]:
    """A date written as text (whitespace already collapsed)."""
    if not text:
        raise AnachronError("empty value")
    # Year-first numeric forms are the commonest: try them first.
    found = _parse_numeric(text) if text[0] in "0123456789" else None
    if found is None:
        found = _parse_named(text)
    if found is not None:
        return found
    match = _AGO.fullmatch(text)
    if match:
        return _parse_ago(match, text, now)
    words = text.lower()
    if words in _NOW_WORDS:
        if now is None:
            raise AnachronError(f"relative age {_shown(text)} needs the call's timestamp (now)")
        return _utc_day(now - _dt.timedelta(days=_NOW_WORDS[words]), text)
    if _NUMERIC_DAY_MONTH.fullmatch(text):
        raise AnachronError(f"{_shown(text)} is ambiguous: numeric day and month order unknown")
    raise _unreadable(text)


def _check_now(now: object) -> _dt.datetime | None:
    """*now* as a UTC datetime (a naive one is UTC); None stays None."""
    if now is None:
        return None
    if not isinstance(now, _dt.datetime):
        raise AnachronError(f"now must be a datetime.datetime or None, got {describe(now)}")
    return now.replace(tzinfo=_UTC) if now.tzinfo is None else now.astimezone(_UTC)


def parse_when(value: object, *, now: _dt.datetime | None = None) -> tuple[_dt.date, _dt.date, str]:
    """The granule a date value names: ``(first day, last day, granularity)``.

    Accepted (whitespace collapsed, case-insensitive, ASCII digits only):

    - ISO ``2023-02-09``, ``2023/02/09``, ``20230209``; ISO datetimes with
      ``Z``/``UTC``/``+HH:MM``/``+HHMM``/``+HH`` or no offset: their UTC day;
    - ``Feb 9, 2023``, ``February 9, 2023``, ``9 Feb 2023``, optionally after
      a weekday, which must then be right;
    - RFC 2822 and HTTP dates (``Thu, 09 Feb 2023 14:30:00 GMT``): their UTC day;
    - epoch seconds or milliseconds (int, float, digit string);
    - ``February 2023``, ``2023-02`` (month); ``2023`` (year);
    - ``3 days ago``, ``an hour ago``, ``yesterday`` ... against *now*.

    Raises :class:`AnachronError` with a short reason naming the value for
    anything else: a bool or None, a numeric ``09/02/2023`` (day and month
    order unknown), an impossible day, a year outside :data:`PLAUSIBLE_YEARS`,
    a relative age without *now*, NaN, a negative epoch.

    >>> parse_when("February 9, 2023")
    (datetime.date(2023, 2, 9), datetime.date(2023, 2, 9), 'day')
    >>> parse_when("2023-02-09T23:30:00-05:00")[0]
    datetime.date(2023, 2, 10)
    >>> parse_when("2023-02")
    (datetime.date(2023, 2, 1), datetime.date(2023, 2, 28), 'month')
    """
    return _parse_value(value, _check_now(now))


def _parse_value(value: object, now: _dt.datetime | None) -> tuple[_dt.date, _dt.date, str]:
    """:func:`parse_when` with *now* already checked (UTC or None)."""
    if type(value) is str:  # the common case first
        return _parse_string(value, now)
    if isinstance(value, bool) or value is None:
        raise AnachronError(f"not a date: {describe(value)}")
    if isinstance(value, (int, float)):
        return _parse_epoch(value, describe(value))
    if isinstance(value, _dt.datetime):
        return _utc_day(value, value.isoformat())
    if isinstance(value, _dt.date):
        return _day(value.year, value.month, value.day, value.isoformat())
    if not isinstance(value, str):
        raise AnachronError(f"not a date: {describe(value)}")
    return _parse_string(value, now)


def _parse_string(value: str, now: _dt.datetime | None) -> tuple[_dt.date, _dt.date, str]:
    text = value.strip()
    if len(text) > MAX_VALUE_CHARS:
        raise AnachronError(f"unreadable value {_shown(text)} (longer than {MAX_VALUE_CHARS} characters)")
    return _parse_text(" ".join(text.split()), now)


# --- the attribution ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Attribution:
    """Where an item falls in time: the granule ``first..last`` it was published in.

    ``first`` and ``last`` are the first and last day of the granule (equal
    for a day); both None, with ``granularity``, ``source`` and ``value``,
    when the item is undated.  ``problems`` says why earlier sources were
    unusable; ``modified`` is a modification day the item shows, if any.
    """

    first: _dt.date | None
    last: _dt.date | None
    granularity: str | None
    source: str | None
    value: str | None
    problems: tuple[str, ...] = ()
    modified: _dt.date | None = None
    modified_source: str | None = None

    def status(self, as_of: _dt.date) -> str:
        """``known``, ``leak``, ``uncertain`` or ``undated`` at *as_of*.

        Known iff the granule's last day is known at *as_of* (a day dated on
        *as_of* is known; a month is known once its last day is); a leak iff
        its first day is not; uncertain when *as_of* falls inside the granule
        before its last day; undated without a date.

        >>> feb = Attribution(_dt.date(2023, 2, 1), _dt.date(2023, 2, 28), "month", "url", "/2023/02")
        >>> [feb.status(_dt.date(2023, 1, 31)), feb.status(_dt.date(2023, 2, 9)), feb.status(_dt.date(2023, 2, 28))]
        ['leak', 'uncertain', 'known']
        """
        _check_as_of(as_of)
        if self.first is None or self.last is None:
            return "undated"
        if known_at(self.last, as_of):
            return "known"
        if not known_at(self.first, as_of):
            return "leak"
        return "uncertain"

    def revision_risk(self, as_of: _dt.date) -> bool:
        """Whether a copy known at *as_of* may since have been revised.

        True iff the published date is known at *as_of* and the item shows a
        modification day that is not (``modified > as_of``): what the agent
        read may contain post-*as_of* edits.  A modification on *as_of* is no risk.

        >>> a = Attribution(_dt.date(2023, 2, 9), _dt.date(2023, 2, 9), "day", "url", "/2023/02/09", modified=_dt.date(2023, 6, 2))
        >>> a.revision_risk(_dt.date(2023, 6, 1)), a.revision_risk(_dt.date(2023, 6, 2))
        (True, False)
        """
        if self.modified is None or self.status(as_of) != "known":
            return False
        return not known_at(self.modified, as_of)


def _check_as_of(as_of: object) -> None:
    # A datetime is a date subclass that cannot be compared with a date.
    if not isinstance(as_of, _dt.date) or isinstance(as_of, _dt.datetime):
        raise AnachronError(f"as_of must be a datetime.date, got {describe(as_of)}")


_MISSING = object()


def _try(source: str, raw: object, now: _dt.datetime | None, problems: list[str]):
    """``(first, last, granularity)`` of *raw*, or None after recording why not."""
    if raw is None:  # common (a null page_age): no exception for it
        problems.append(f"{source}: not a date: null")
        return None
    try:
        return _parse_value(raw, now)
    except AnachronError as exc:
        problems.append(f"{source}: {exc}")
        return None


def _raw_text(raw: object) -> str:
    """The raw value as evidence shows it: a string as is, a number as JSON writes it."""
    return raw if isinstance(raw, str) else describe(raw)


def _text_field(entry: Mapping[str, Any], name: str, problems: list[str]) -> str | None:
    """``entry[name]`` when it is a string; a non-string value is ignored with a problem."""
    value = entry.get(name)
    if value is None or isinstance(value, str):
        return value
    problems.append(f"field '{name}': not text: {describe(value)}")
    return None


# --- source 1 and 5: explicit fields ----------------------------------------------


_FIELD_LABELS = {name: f"field '{name}'" for name in DATE_FIELDS + MODIFIED_FIELDS}


def _from_fields(entry: Mapping[str, Any], names: tuple[str, ...], now, problems: list[str]):
    """The first field of *names* (in order) whose value reads as a date."""
    for name in names:
        raw = entry.get(name, _MISSING)
        if raw is _MISSING:
            continue
        source = _FIELD_LABELS.get(name) or f"field '{name}'"
        found = _try(source, raw, now, problems)
        if found is not None:
            return found, source, _raw_text(raw)
    return None


# --- source 2: the URL path --------------------------------------------------------

_URL_HOST = re.compile(r"(?:[a-z][a-z0-9+.-]*:)?//[^/?#]*", _FLAGS)
_URL_MONTH_NAME = r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
_URL_MM = r"0[1-9]|1[0-2]"
_URL_DD = r"0[1-9]|[12][0-9]|3[01]"
# Each form starts a path segment; a date inside a slug is not read
# ("tsla-20221231.htm" names a filing's period, not its publication day).
_URL_DATE = re.compile(
    rf"/(?P<y>[0-9]{{4}})/(?:(?P<m>{_URL_MM})|(?P<mon>{_URL_MONTH_NAME}))"
    rf"(?:/(?P<d>{_URL_DD})(?=[/._-]|\Z)|(?=/|\Z))"
    rf"|/(?P<y2>[0-9]{{4}})-(?P<m2>{_URL_MM})-(?P<d2>{_URL_DD})(?=[/._-]|\Z)"
    rf"|/(?P<y3>[0-9]{{4}})(?P<m3>{_URL_MM})(?P<d3>{_URL_DD})(?=[/._-]|\Z)",
    _FLAGS,
)
_LOOKS_LIKE_URL = re.compile(r"https?://", _FLAGS)


def url_path(url: str) -> str:
    """The path of *url*: after the scheme and host, before ``?`` or ``#``.

    >>> url_path("https://www.nytimes.com/2023/02/09/business/x.html?smid=url-share")
    '/2023/02/09/business/x.html'
    """
    host = _URL_HOST.match(url)
    path = url[host.end():] if host else url
    for mark in "?#":
        path = path.partition(mark)[0]
    return path


def _url_of(entry: Mapping[str, Any], problems: list[str]) -> str | None:
    """The entry's ``url``, else its ``id`` when that is an http(s) URL."""
    url = _text_field(entry, "url", problems)
    if url is not None:
        return url
    ident = entry.get("id")
    if isinstance(ident, str) and _LOOKS_LIKE_URL.match(ident):
        return ident
    return None


def _from_url(entry: Mapping[str, Any], problems: list[str]):
    """The first date in the URL path with a plausible year; an impossible day is a problem.

    Years outside :data:`PLAUSIBLE_YEARS` are skipped silently: in a path they are ids.
    """
    url = _url_of(entry, problems)
    if not url:
        return None
    for match in _URL_DATE.finditer(url_path(url)):
        year = int(match["y"] or match["y2"] or match["y3"])
        if year not in PLAUSIBLE_YEARS:
            continue
        text = match.group(0)
        if match["y"]:
            month = int(match["m"]) if match["m"] else _month_number(match["mon"])
            day = match["d"]
        else:
            month, day = int(match["m2"] or match["m3"]), match["d2"] or match["d3"]
        try:
            found = _day(year, month, int(day), text) if day else _month(year, month, text)
        except AnachronError as exc:  # an impossible day such as /2023/02/30
            problems.append(f"url: {exc}")
            continue
        return found, "url", text
    return None


# --- source 3: a leading date in the snippet ----------------------------------------

_SHAPE_MONTH = _MONTH.replace("(?P<mon>", "(?:")
_SHAPE_WEEKDAY = _WEEKDAY.replace("(?P<wd>", "(?:")
_SNIPPET_LEAD = re.compile(
    r"(?P<date>"
    + _SHAPE_WEEKDAY + _SHAPE_MONTH + r" [0-9]{1,2}(?:st|nd|rd|th)?(?:, ?| )[0-9]{4}"
    + r"|" + _SHAPE_WEEKDAY + r"[0-9]{1,2}(?:st|nd|rd|th)? " + _SHAPE_MONTH + r",? [0-9]{4}"
    + r"|[0-9]{4}-[0-9]{2}-[0-9]{2}"
    + r"|" + _AGO.pattern.replace("(?P<n>", "(?:").replace("(?P<unit>", "(?:")
    + r"|yesterday|today"
    + r")(?= ?(?:—|–|-|·|\||:|\.\.\.|…)|\Z)",
    _FLAGS,
)
# A leading date sits in the first characters; only these are normalised.
_SNIPPET_HEAD_CHARS = 120


def _from_snippet(entry: Mapping[str, Any], now, problems: list[str]):
    """A day the snippet starts with, followed by a separator (``—``, ``-``, ``·``,
    ``|``, ``:``, ``...``) or nothing: ``"Feb 9, 2023 — Cygnus ..."``.

    A date followed by plain prose ("March 2020 was ...") is not read: it may
    be the subject, not the publication day.
    """
    snippet = _text_field(entry, "snippet", problems)
    if not snippet:
        return None
    head = " ".join(snippet[:_SNIPPET_HEAD_CHARS].split())
    match = _SNIPPET_LEAD.match(head)
    if not match:
        return None
    found = _try("snippet", match["date"], now, problems)
    return None if found is None else (found, "snippet", match["date"])


# --- source 4: HTML metadata of fetched text ---------------------------------------

# HTML is scanned once, left to right, stopping only where a date may be: a
# <meta> tag followed by "_time" before the next '<' (every meta key read
# ends in "_time"), a <time> tag, a <script> tag mentioning "+json"
# (application/ld+json), and comments, skipped whole (a tag inside one is no
# tag).  A tag's attributes end at the first '>' outside quotes, looked for
# within MAX_TAG_CHARS.  Each pattern is unambiguous, each look-ahead ends at
# the next '<', and the scan never re-reads what it has passed: its work is
# linear in the window's length, however malformed the page.
_MARKUP = re.compile(
    r"<(?=[mtsMTS!])(?:(?P<meta>meta)\b(?=[^<]*_time)|(?P<time>time)\b"
    r"|(?P<script>script)\b(?=[^<>]*\+json)|(?P<comment>!--))",
    _FLAGS,
)
_TAG_REST = re.compile(r"([^>\"']*(?:(?:\"[^\"]*\"|'[^']*')[^>\"']*)*)>")
_SCRIPT_END = re.compile(r"</script\s*>", _FLAGS)
_ATTRIBUTE = re.compile(r"([^\s=/>\"']+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>\"']+)))?", re.ASCII)
MAX_TAG_CHARS = 2048
MAX_JSON_LD_BLOCKS = 16
_META_PUBLISHED = ("article:published_time", "og:published_time")
_META_MODIFIED = ("article:modified_time", "og:updated_time")


def _attributes(text: str) -> dict[str, str]:
    """A tag's attributes, names lowercased, values unescaped; the first of a name wins."""
    found: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(text):
        name = match.group(1).lower()
        if name not in found:
            value = next((v for v in match.group(2, 3, 4) if v is not None), "")
            found[name] = html.unescape(value) if "&" in value else value
    return found


def _markup(text: str, size: int) -> Iterator[tuple[str, dict[str, str], str]]:
    """``(kind, attributes, content)`` of each candidate tag in the first
    *size* characters of *text*, left to right: kind ``meta``, ``time`` or
    ``script`` (a JSON-LD one, with its content; the others have ``""``).

    A tag whose end is not within :data:`MAX_TAG_CHARS` (an unclosed quote)
    is skipped with every character examined; an unclosed comment or JSON-LD
    script ends the scan, as it ends the page for a browser.  Nothing at or
    after *size* is read.
    """
    window, position = text, 0  # searched up to size, never sliced: no copy of a large text
    while True:
        start = _MARKUP.search(window, position, size)
        if start is None:
            return
        kind = start.lastgroup
        if kind == "comment":
            close = window.find("-->", start.end(), size)
            if close < 0:
                return
            position = close + 3
            continue
        limit = min(start.end() + MAX_TAG_CHARS, size)
        rest = _TAG_REST.match(window, start.end(), limit)
        if rest is None:
            position = limit
            continue
        position = rest.end()
        attributes = _attributes(rest.group(1))
        if kind != "script":
            yield kind, attributes, ""
            continue
        if attributes.get("type", "").strip().lower() != "application/ld+json":
            continue
        close_script = _SCRIPT_END.search(window, position, size)
        if close_script is None:
            return
        content = window[position:close_script.start()]
        position = close_script.end()
        yield kind, attributes, content


def _json_ld_dates(block: str, found: dict[str, object], problems: list[str]) -> None:
    """Record the shallowest ``datePublished`` and ``dateModified`` of one JSON-LD block.

    Breadth-first, document order at equal depth, so the page's own entity
    wins over an article it lists; at most :data:`JSON_LD_MAX_NODES` nodes.
    """
    try:
        queue = [json.loads(block)]
    except (ValueError, RecursionError):
        problems.append("html json-ld: not valid JSON")
        return
    visited = 0
    while queue and visited < JSON_LD_MAX_NODES:
        following = []
        for node in queue:
            visited += 1
            if isinstance(node, dict):
                for key in ("datePublished", "dateModified"):
                    label = f"html json-ld {key}"
                    if key in node and label not in found:
                        found[label] = node[key]
                following.extend(v for v in node.values() if isinstance(v, (dict, list)))
            elif isinstance(node, list):
                following.extend(v for v in node if isinstance(v, (dict, list)))
        queue = following


def html_dates(text: str, problems: list[str]) -> dict[str, object]:
    """The date metadata of the first :data:`HTML_SCAN_CHARS` characters of *text*.

    Keys are source labels (``html article:published_time``, ``html
    og:published_time``, ``html article:modified_time``, ``html
    og:updated_time``, ``html json-ld datePublished``, ``html json-ld
    dateModified``, ``html <time datetime>``); values the raw value of the
    first occurrence (a meta tag's ``content``, a ``<time>``'s ``datetime``,
    the shallowest JSON-LD key of the first :data:`MAX_JSON_LD_BLOCKS`
    ``application/ld+json`` scripts).  Attribute order, case and quoting do
    not matter; a meta tag is named by ``property``, else ``name``, else ``itemprop``.

    >>> html_dates('<meta content="2023-02-09" property="article:published_time">', [])
    {'html article:published_time': '2023-02-09'}
    """
    size = min(len(text), HTML_SCAN_CHARS)
    found: dict[str, object] = {}
    if text.find("<", 0, size) < 0:  # not HTML
        return found
    blocks = 0
    for kind, attributes, content in _markup(text, size):
        if kind == "meta":
            key = (attributes.get("property") or attributes.get("name") or attributes.get("itemprop") or "").strip().lower()
            if key in _META_PUBLISHED or key in _META_MODIFIED:
                found.setdefault(f"html {key}", attributes.get("content", ""))
        elif kind == "time":
            if "datetime" in attributes and "html <time datetime>" not in found:
                found["html <time datetime>"] = attributes["datetime"]
        elif blocks < MAX_JSON_LD_BLOCKS:
            blocks += 1
            _json_ld_dates(content, found, problems)
    return found


_HTML_PUBLISHED = (
    "html article:published_time", "html og:published_time", "html json-ld datePublished", "html <time datetime>",
)
_HTML_MODIFIED = ("html article:modified_time", "html og:updated_time", "html json-ld dateModified")


def _from_html(metadata: Mapping[str, object], now, problems: list[str]):
    """The first published-date metadata, in :data:`_HTML_PUBLISHED` order, that reads."""
    for label in _HTML_PUBLISHED:
        if label in metadata:
            raw = metadata[label]
            found = _try(label, raw, now, problems)
            if found is not None:
                return found, label, _raw_text(raw)
    return None


# --- modification dates -------------------------------------------------------------


def _modification(candidates, now, problems: list[str]) -> tuple[_dt.date | None, str | None]:
    """The first modification day among *candidates* ``(source, raw)`` that reads.

    Only a day counts: a coarser value cannot say whether the edit came after T.
    """
    for source, raw in candidates:
        found = _try(source, raw, now, problems)
        if found is None:
            continue
        if found[2] != "day":
            problems.append(f"{source}: {_shown(_raw_text(raw))} is a {found[2]}, not a modification day")
            continue
        return found[0], source
    return None, None


def _html_metadata(entry: Mapping[str, Any], problems: list[str]) -> dict[str, object]:
    text = _text_field(entry, "text", problems)
    return html_dates(text, problems) if text else {}


_PUBLISHED_FIELDS = DATE_FIELDS[:-1]
_MODIFIED_ONLY = tuple(name for name in MODIFIED_FIELDS if name != "last_modified")


def attribute(entry: Mapping[str, Any], *, now: _dt.datetime | None = None) -> Attribution:
    """Date *entry* (a search or fetch result as a JSON object) by its first usable source.

    Order: the fields of :data:`DATE_FIELDS` but ``last_modified``; the URL
    path; a leading date in ``snippet``; HTML metadata in ``text``;
    ``last_modified``.  *now* (the call's own timestamp) resolves relative
    ages such as ``3 days ago``; without it they stay unread, with a problem.
    The modification day comes from :data:`MODIFIED_FIELDS` (``last_modified``
    only when another source dated the item), then HTML metadata.

    Never raises for a JSON-like entry (any mapping, or even a non-mapping,
    which is undated): anything unreadable is a problem.  Only a *now* that
    is not a ``datetime`` raises, an error of the caller.

    >>> a = attribute({"url": "https://example.com/x", "page_age": "February 9, 2023"})
    >>> a.first, a.granularity, a.source
    (datetime.date(2023, 2, 9), 'day', "field 'page_age'")
    """
    now = _check_now(now)
    if type(entry) is not dict and not isinstance(entry, Mapping):
        return Attribution(None, None, None, None, None, (f"entry: expected an object, got {describe(entry)}",))
    problems: list[str] = []
    metadata = None  # the HTML scan, done at most once and only when needed
    found = (
        _from_fields(entry, _PUBLISHED_FIELDS, now, problems)
        or _from_url(entry, problems)
        or _from_snippet(entry, now, problems)
    )
    modified_fields = MODIFIED_FIELDS
    if found is None:
        metadata = _html_metadata(entry, problems)
        found = _from_html(metadata, now, problems) or _from_fields(entry, ("last_modified",), now, problems)
        if found is None or found[1] == _FIELD_LABELS["last_modified"]:
            modified_fields = _MODIFIED_ONLY
    modified, modified_source = _modification(
        [(_FIELD_LABELS[name], entry[name]) for name in modified_fields if name in entry], now, problems
    )
    if modified is None and "text" in entry:
        if metadata is None:
            metadata = _html_metadata(entry, problems)
        modified, modified_source = _modification(
            [(label, metadata[label]) for label in _HTML_MODIFIED if label in metadata], now, problems
        )
    if found is None:
        return Attribution(None, None, None, None, None, tuple(problems), modified, modified_source)
    (first, last, granularity), source, value = found
    return Attribution(first, last, granularity, source, value, tuple(problems), modified, modified_source)


# --- evidence -------------------------------------------------------------------------

_EVIDENCE_PROBLEMS = 3


def _cut(text: str) -> str:
    """*text* for an evidence line: stripped, whitespace collapsed, cut at 60 characters."""
    text = " ".join(text.strip()[: 4 * _SHOWN_CHARS].split())
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def evidence_of(a: Attribution) -> str:
    """One line saying how *a* was dated, or why it is undated.

    >>> evidence_of(attribute({"page_age": "February 9, 2023"}))
    'dated 2023-02-09 by field \\'page_age\\' ("February 9, 2023")'
    >>> evidence_of(attribute({"date": "soon"}))
    "undated (field 'date': unreadable value 'soon')"
    """
    if a.first is None:
        shown = list(a.problems[:_EVIDENCE_PROBLEMS])
        if len(a.problems) > _EVIDENCE_PROBLEMS:
            shown.append(f"{len(a.problems) - _EVIDENCE_PROBLEMS} more")
        line = f"undated ({'; '.join(shown) or 'no date found'})"
    else:
        when = {
            "day": a.first.isoformat(),
            "month": f"{a.first:%Y-%m} (month)",
            "year": f"{a.first.year} (year)",
        }[a.granularity or "day"]
        line = f"dated {when} by {a.source}"
        if a.value is not None:
            line += f' ("{_cut(a.value)}")'
        if a.modified is not None:
            line += f"; modified {a.modified.isoformat()} by {a.modified_source}"
    return " ".join(line.split())
