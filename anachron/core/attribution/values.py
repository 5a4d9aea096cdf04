"""One date value of the open web (a field, a URL's date, metadata) read as a granule: :func:`parse_when`.

Accepted (whitespace collapsed, case-insensitive, ASCII digits only): ISO
days and datetimes (their UTC day), month-name dates, RFC 2822 and HTTP
dates, epoch seconds or milliseconds, a month, a year, and relative ages
against the call's own timestamp (docs/dating.md, "Accepted values").
Never a guess: a numeric ``09/02/2023`` is refused (the grammar's
``Order.REFUSE``: a wrong day moves an item across the cutoff, an undated
one is counted as such), as are an impossible day and a year outside
:data:`PLAUSIBLE_YEARS`.

>>> parse_when("Thu, 09 Feb 2023 23:30:00 -0500")
(datetime.date(2023, 2, 10), datetime.date(2023, 2, 10), 'day')
>>> parse_when("09/02/2023")
Traceback (most recent call last):
    ...
anachron.core.errors.AnachronError: '09/02/2023' is ambiguous: numeric day and month order unknown
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any, Mapping

from anachron.core.dates import parse_date
from anachron.core.errors import AnachronError, describe
from anachron.core.grammar.calendar_words import MONTH, MONTH_STEMS, WEEKDAY, WEEKDAY_STEMS, month_number, weekday_number
from anachron.core.grammar.numeric import NUMERIC_DATE
from anachron.core.grammar.periods import month_end

__all__ = [
    "AGO", "Contradiction", "EPOCH_MS_THRESHOLD", "FLAGS", "MAX_VALUE_CHARS", "MONTH_WRITTEN", "PLAUSIBLE_YEARS", "SHOWN_CHARS",
    "WEEKDAY_WRITTEN", "check_now", "day_field", "day_granule", "month_granule", "parse_when", "read_day", "read_value", "shown",
    "year_granule",
]


# Years a web date may name.  Outside them a value is a placeholder (epoch 0,
# 0001-01-01, 1900-01-01, 9999-12-31) or an id, not a publication date.
PLAUSIBLE_YEARS = range(1990, 2101)
# A date is short; a longer value is not read at all (bounds the work).
MAX_VALUE_CHARS = 100
# Epoch numbers at or above this are milliseconds.  Seconds of the plausible
# years lie in [6.3e8, 4.1e9], milliseconds in [6.3e11, 4.1e12]: 1e11 sits
# two orders of magnitude from both.
EPOCH_MS_THRESHOLD = 10**11

_UTC = _dt.timezone.utc
_EPOCH_DAY = _dt.date(1970, 1, 1)
SHOWN_CHARS = 60  # a value quoted in a message or evidence is cut to this many characters

# --- value formats.  Only ASCII digits ([0-9], re.ASCII): a fullwidth or
# Arabic-Indic digit never reads as a number.  Values arrive with their
# whitespace collapsed to single spaces. ---------------------------------------

FLAGS = re.ASCII | re.IGNORECASE
# A month name, maybe with a dot; an optional leading weekday with its dot and comma.
MONTH_WRITTEN = r"(?P<mon>" + MONTH + r")\.?"
WEEKDAY_WRITTEN = r"(?:(?P<wd>" + WEEKDAY + r")\.?,? )?"
_STEMS = "|".join(MONTH_STEMS)
_DAY_STEMS = "|".join(WEEKDAY_STEMS)
_DAY = r"(?P<d>[0-9]{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<y>[0-9]{4})"
_ZONE = r"(?P<z>z|utc|gmt|[+-][0-9]{2}(?::?[0-9]{2})?)"

_ISO = re.compile(
    r"(?P<y>[0-9]{4})-(?P<m>[0-9]{2})-(?P<d>[0-9]{2})"
    r"(?:[t ](?P<H>[0-9]{2}):(?P<M>[0-9]{2})(?::(?P<S>[0-9]{2})(?:[.,](?P<f>[0-9]{1,9}))?)? ?"
    + _ZONE + r"?)?",
    FLAGS,
)
_COMPACT = re.compile(r"(?P<y>[0-9]{4})(?P<m>[0-9]{2})(?P<d>[0-9]{2})")
_SLASHED = re.compile(r"(?P<y>[0-9]{4})/(?P<m>[0-9]{2})/(?P<d>[0-9]{2})")
_YEAR_MONTH = re.compile(r"(?P<y>[0-9]{4})[-/](?P<m>[0-9]{2})")
_YEAR_ONLY = re.compile(r"[0-9]{4}")
_EPOCH_TEXT = re.compile(r"[0-9]{1,16}(?:\.[0-9]{1,6})?")
_MONTH_DAY_YEAR = re.compile(WEEKDAY_WRITTEN + MONTH_WRITTEN + r" " + _DAY + r"(?:, ?| )" + _YEAR, FLAGS)
_DAY_MONTH_YEAR = re.compile(WEEKDAY_WRITTEN + _DAY + r" (?:of )?" + MONTH_WRITTEN + r",? " + _YEAR, FLAGS)
_MONTH_YEAR = re.compile(MONTH_WRITTEN + r",? " + _YEAR, FLAGS)
# RFC 2822 (and the HTTP IMF-fixdate), read by a strict pattern rather than
# email.utils, which also takes two-digit years and odd shapes.
_RFC_2822 = re.compile(
    rf"(?:(?P<wd>{_DAY_STEMS}), ?)?(?P<d>[0-9]{{1,2}}) (?P<mon>{_STEMS})"
    r" (?P<y>[0-9]{4}) (?P<H>[0-9]{2}):(?P<M>[0-9]{2})(?::(?P<S>[0-9]{2}))?"
    r"(?: (?P<z>[+-][0-9]{4}|ut|utc|gmt|z|[ecmp][sd]t))?",
    FLAGS,
)
# The asctime form of HTTP dates: no zone, so UTC.
_ASCTIME = re.compile(
    rf"(?P<wd>{_DAY_STEMS}) (?P<mon>{_STEMS})"
    r" (?P<d>[0-9]{1,2}) (?P<H>[0-9]{2}):(?P<M>[0-9]{2}):(?P<S>[0-9]{2}) (?P<y>[0-9]{4})",
    FLAGS,
)
# Minutes east of UTC of the zone names a date may carry (RFC 2822 section 4.3).
_ZONE_NAMES = {
    "z": 0, "ut": 0, "utc": 0, "gmt": 0,
    "est": -300, "edt": -240, "cst": -360, "cdt": -300,
    "mst": -420, "mdt": -360, "pst": -480, "pdt": -420,
}
AGO = re.compile(
    r"(?P<n>[0-9]{1,6}|an?|one) ?(?P<unit>secs?|seconds?|mins?|minutes?|hrs?|hours?|days?|wks?|weeks?"
    r"|mos?|months?|yrs?|years?) ago",
    FLAGS,
)
_NOW_WORDS = {"just now": 0, "today": 0, "yesterday": 1}


def shown(text: str) -> str:
    """*text* for a message: whitespace collapsed, cut at :data:`SHOWN_CHARS` characters, quoted.

    >>> shown("  Feb   9 ")
    "'Feb 9'"
    """
    text = " ".join(text[: 4 * SHOWN_CHARS].split())  # cut first: a huge value costs nothing
    if len(text) > SHOWN_CHARS:
        text = text[: SHOWN_CHARS - 3] + "..."
    return repr(text)


class Contradiction(AnachronError):
    """A value that contradicts itself (a written weekday that is not the date's own): no date, and a warning sign."""


def _unreadable(text: str) -> AnachronError:
    return AnachronError(f"unreadable value {shown(text)}")


# --- granules -----------------------------------------------------------------


def _check_year(year: int, text: str) -> None:
    if year not in PLAUSIBLE_YEARS:
        raise AnachronError(
            f"year {year} in {shown(text)} is outside the plausible years "
            f"{PLAUSIBLE_YEARS.start}..{PLAUSIBLE_YEARS.stop - 1}"
        )


def day_granule(year: int, month: int, day: int, text: str) -> tuple[_dt.date, _dt.date, str]:
    """The day granule, or an error for an impossible day such as Feb 30."""
    if year not in PLAUSIBLE_YEARS:
        _check_year(year, text)
    try:
        found = _dt.date(year, month, day)
    except ValueError:
        raise AnachronError(f"{shown(text)} is not a real calendar day") from None
    return found, found, "day"


def month_granule(year: int, month: int, text: str) -> tuple[_dt.date, _dt.date, str]:
    """The month granule: its first and last day."""
    _check_year(year, text)
    if not 1 <= month <= 12:
        raise AnachronError(f"{shown(text)} is not a real month")
    return _dt.date(year, month, 1), month_end(year, month), "month"


def year_granule(year: int, text: str) -> tuple[_dt.date, _dt.date, str]:
    """The year granule: its first and last day."""
    _check_year(year, text)
    return _dt.date(year, 1, 1), _dt.date(year, 12, 31), "year"


def _utc_day(moment: _dt.datetime, text: str) -> tuple[_dt.date, _dt.date, str]:
    """The UTC day of *moment*; a moment without a zone is taken as UTC."""
    _check_year(moment.year, text)
    if moment.tzinfo is not None:
        moment = moment.astimezone(_UTC)
    return moment.date(), moment.date(), "day"


def _check_weekday(match: re.Match[str], found: tuple[_dt.date, _dt.date, str], text: str) -> None:
    """A written weekday must be the date's own: a mismatch is a contradiction, not a date."""
    name = match.group("wd")
    if name and weekday_number(name) != found[0].weekday():
        raise Contradiction(f"{shown(text)}: {found[0].isoformat()} is a {found[0].strftime('%A')}")


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
        raise AnachronError(f"{shown(text)} has an impossible UTC offset")
    return (hours * 60 + minutes) * (1 if zone[0] == "+" else -1)


def _utc_day_at(day: _dt.date, hour: int, minute: int, second: int, offset: int, text: str) -> tuple[_dt.date, _dt.date, str]:
    """The UTC day of the local time *hour:minute:second* of *day*, *offset* minutes east of UTC.

    >>> _utc_day_at(_dt.date(2023, 2, 9), 23, 30, 0, -300, "")[0]
    datetime.date(2023, 2, 10)
    """
    if hour > 23 or minute > 59 or second > 59:
        raise AnachronError(f"{shown(text)} is not a real time of day")
    shift = (hour * 60 + minute - offset) // 1440  # -1, 0 or +1 day
    found = day + _dt.timedelta(days=shift) if shift else day
    return found, found, "day"


def _parse_iso(match: re.Match[str], text: str) -> tuple[_dt.date, _dt.date, str]:
    """``YYYY-MM-DD`` (a day) or an ISO datetime (its UTC day).

    The offset may be ``Z``, ``UTC``, ``+HH:MM``, ``+HHMM`` or ``+HH``; a
    datetime without one is UTC.
    """
    year, month, day, hour, minute, second, _, zone = match.groups()
    found = day_granule(int(year), int(month), int(day), text)
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
    written = day_granule(int(g("y")), month_number(g("mon")), int(g("d")), text)
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
        raise AnachronError(f"relative age {shown(text)} needs the call's timestamp (now)")
    count = match.group("n").lower()
    n = 1 if count in ("a", "an", "one") else int(count)
    unit = match.group("unit").lower()
    if unit.startswith("mo"):
        months = now.year * 12 + now.month - 1 - n
        return month_granule(months // 12, months % 12 + 1, text)
    if unit.startswith("y"):
        return year_granule(now.year - n, text)
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}[unit[0]]
    try:
        if n * seconds > 200 * 366 * 86_400:
            raise OverflowError
        return _utc_day(now - _dt.timedelta(seconds=n * seconds), text)
    except OverflowError:
        raise AnachronError(f"relative age {shown(text)} is far outside the plausible years") from None


def _parse_number_text(text: str) -> tuple[_dt.date, _dt.date, str] | None:
    """Forms made of digits only: ``YYYY`` (a year), ``YYYYMMDD`` (a day), else epoch."""
    if len(text) == 4 and _YEAR_ONLY.fullmatch(text):
        return year_granule(int(text), text)
    match = _COMPACT.fullmatch(text)
    if match:
        return day_granule(int(match["y"]), int(match["m"]), int(match["d"]), text)
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
        return day_granule(int(match["y"]), int(match["m"]), int(match["d"]), text)
    match = _YEAR_MONTH.fullmatch(text)
    if match:
        return month_granule(int(match["y"]), int(match["m"]), text)
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
            found = day_granule(int(match["y"]), month_number(match["mon"]), int(match["d"]), text)
            _check_weekday(match, found, text)
            return found
    match = _MONTH_YEAR.fullmatch(text)
    if match:
        return month_granule(int(match["y"]), month_number(match["mon"]), text)
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
    match = AGO.fullmatch(text)
    if match:
        return _parse_ago(match, text, now)
    words = text.lower()
    if words in _NOW_WORDS:
        if now is None:
            raise AnachronError(f"relative age {shown(text)} needs the call's timestamp (now)")
        return _utc_day(now - _dt.timedelta(days=_NOW_WORDS[words]), text)
    if NUMERIC_DATE.fullmatch(text):  # Order.REFUSE: the day and month order is unknown, so neither is read
        raise AnachronError(f"{shown(text)} is ambiguous: numeric day and month order unknown")
    raise _unreadable(text)


def check_now(now: object) -> _dt.datetime | None:
    """*now* as a UTC datetime (a naive one is UTC); None stays None."""
    if now is None:
        return None
    if not isinstance(now, _dt.datetime):
        raise AnachronError(f"now must be a datetime.datetime or None, got {describe(now)}")
    try:
        return now.replace(tzinfo=_UTC) if now.tzinfo is None else now.astimezone(_UTC)
    except OverflowError:  # 9999-12-31T23:59-23:59 is a valid moment with no UTC day
        raise AnachronError(f"now {now.isoformat()} has no day in UTC (out of range)") from None


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
    return read_value(value, check_now(now))


def read_value(value: object, now: _dt.datetime | None) -> tuple[_dt.date, _dt.date, str]:
    """:func:`parse_when` with *now* already checked by :func:`check_now` (UTC or None)."""
    if type(value) is str:  # the common case first
        return _parse_string(value, now)
    if isinstance(value, bool) or value is None:
        raise AnachronError(f"not a date: {describe(value)}")
    if isinstance(value, (int, float)):
        return _parse_epoch(value, describe(value))
    if isinstance(value, _dt.datetime):
        return _utc_day(value, value.isoformat())
    if isinstance(value, _dt.date):
        return day_granule(value.year, value.month, value.day, value.isoformat())
    if not isinstance(value, str):
        raise AnachronError(f"not a date: {describe(value)}")
    return _parse_string(value, now)


def _parse_string(value: str, now: _dt.datetime | None) -> tuple[_dt.date, _dt.date, str]:
    text = value.strip()
    if len(text) > MAX_VALUE_CHARS:
        raise AnachronError(f"unreadable value {shown(text)} (longer than {MAX_VALUE_CHARS} characters)")
    return _parse_text(" ".join(text.split()), now)


def read_day(value: Any) -> _dt.date:
    """A day as these files write it: ``YYYY-MM-DD`` (:func:`anachron.core.dates.parse_date`), or an ISO
    datetime such as ForecastBench's ``2026-04-30T00:00:00+00:00``, read as its UTC day by the one date
    grammar (:func:`parse_when`)."""
    if isinstance(value, str) and "T" in value:
        first, _, granularity = parse_when(value)
        if granularity != "day":
            raise AnachronError(f"{value!r} is not a day")
        return first
    return parse_date(value)


def day_field(where: str, obj: Mapping[str, Any], name: str) -> _dt.date | None:
    """Field *name* of *obj* read by :func:`read_day` (absent or null: ``None``); an error names *where* and the field."""
    value = obj.get(name)
    if value is None:
        return None
    try:
        return read_day(value)
    except AnachronError as exc:
        raise AnachronError(f"{where}: {name}: {exc}") from None
