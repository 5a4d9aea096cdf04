"""Strict calendar dates and the one cutoff rule.

Anachron compares dates only as whole days (``datetime.date``).  Parsing is
strict on purpose: ``2021-02-30`` or ``2021-2-3`` is an error, never a
silently shifted day, because a wrong day moves an item across the cutoff.
The parsers raise :class:`~anachron.errors.AnachronError` (a ``ValueError``)
with a short reason; the caller adds the location.

:func:`known_at` is the cutoff rule: every comparison of a date with an
as-of date T, anywhere in Anachron, is a call to it.
"""

from __future__ import annotations

import datetime as _dt
import re

from ..errors import AnachronError
from ..validate import describe

__all__ = ["known_at", "parse_date", "parse_timestamp", "format_date"]

_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIMESTAMP = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})"
    r"(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,6}))?)?)?"
    r"(Z|[+-][0-9]{2}:[0-9]{2})?"
)


def known_at(day: _dt.date, as_of: _dt.date) -> bool:
    """Whether something dated *day* can be known to an agent working as of *as_of*.

    ``day <= as_of``: published *on* the as-of date is known (not a leak);
    one day later is not.

    >>> known_at(_dt.date(2022, 6, 1), _dt.date(2022, 6, 1))
    True
    >>> known_at(_dt.date(2022, 6, 2), _dt.date(2022, 6, 1))
    False
    """
    return day <= as_of


def parse_date(value: object) -> _dt.date:
    """Parse ``YYYY-MM-DD`` into a :class:`datetime.date`.

    Rejected, with a short reason: a non-string, a different shape, or an
    impossible day such as ``2021-02-30``.

    >>> parse_date("2022-06-01")
    datetime.date(2022, 6, 1)
    """
    if not isinstance(value, str):
        raise AnachronError(f"expected a date string YYYY-MM-DD, got {describe(value)}")
    if not _ISO_DAY.fullmatch(value):
        raise AnachronError(f"{value!r} is not a date of the form YYYY-MM-DD")
    year, month, day = (int(part) for part in value.split("-"))
    try:
        return _dt.date(year, month, day)
    except ValueError:
        raise AnachronError(f"{value!r} is not a real calendar day") from None


def parse_timestamp(value: object) -> _dt.date:
    """The UTC day of an ISO date or timestamp.

    Accepted: ``YYYY-MM-DD``, optionally followed by ``THH:MM[:SS[.ffffff]]``
    and ``Z`` or ``+HH:MM``; a ``datetime.date`` is returned as is.  A
    timestamp counts on its UTC day; one without an offset is taken as UTC.
    Anything else (epoch numbers, ``2022-6-1``, prose, non-ASCII digits, a
    moment whose UTC day leaves the calendar) is rejected: no guess may move
    an item across the cutoff.

    >>> parse_timestamp("2022-06-01T23:30:00-02:00")
    datetime.date(2022, 6, 2)
    """
    if isinstance(value, _dt.datetime):
        raise AnachronError("expected a date string, got a datetime object")
    if isinstance(value, _dt.date):
        return value
    if not isinstance(value, str):
        raise AnachronError(f"expected a date string, got {describe(value)}")
    match = _TIMESTAMP.fullmatch(value.strip())
    if not match:
        raise AnachronError(f"{value!r} is not an ISO date or timestamp")
    day = parse_date(match.group(1))
    hour, minute, second, fraction, offset = match.groups()[1:]
    if offset and hour is None:
        raise AnachronError(f"{value!r} has an offset but no time")
    if hour is None:
        return day
    try:
        moment = _dt.datetime(
            day.year, day.month, day.day, int(hour), int(minute), int(second or 0), int((fraction or "0").ljust(6, "0"))
        )
    except ValueError:
        raise AnachronError(f"{value!r} is not a real time of day") from None
    if offset and offset != "Z":
        hours, minutes = int(offset[1:3]), int(offset[4:6])
        if hours > 23 or minutes > 59:
            raise AnachronError(f"{value!r} has an impossible UTC offset")
        try:
            moment -= (1 if offset[0] == "+" else -1) * _dt.timedelta(hours=hours, minutes=minutes)
        except OverflowError:
            raise AnachronError(f"{value!r} falls outside the calendar in UTC") from None
    return moment.date()


def format_date(day: _dt.date) -> str:
    """The ISO form ``YYYY-MM-DD``."""
    return day.isoformat()
