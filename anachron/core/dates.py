"""Strict calendar dates and the one cutoff rule.

Anachron compares dates only as whole days (``datetime.date``).  The
open web's many date shapes (timestamps with offsets, RFC 2822, epochs,
relative ages) are read by :mod:`anachron.core.attribution`; month names,
numeric day-month dates, fiscal calendars and phrases anchored at T by the
one date grammar, :mod:`anachron.core.grammar`.  Parsing is
strict on purpose: ``2021-02-30`` or ``2021-2-3`` is an error, never a
silently shifted day, because a wrong day moves an item across the cutoff.
The parsers raise :class:`~anachron.core.errors.AnachronError` (a ``ValueError``)
with a short reason; the caller adds the location.

:func:`known_at` is the cutoff rule: every comparison of a date with an
as-of date T, anywhere in Anachron, is a call to it.
"""

from __future__ import annotations

import datetime as _dt
import re

from anachron.core.errors import AnachronError, describe

__all__ = ["known_at", "last_known_day", "parse_date", "format_date", "iso_moment"]

_ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_UTC = _dt.timezone.utc


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


def last_known_day(as_of: _dt.date) -> _dt.date:
    """The last day whose items an agent working as of *as_of* can know: for every day,
    ``known_at(day, as_of) == (day <= last_known_day(as_of))``.

    A store that filters by a day column (``WHERE day <= ?``) binds this, so the cutoff rule
    stays :func:`known_at`'s, here.

    >>> last_known_day(_dt.date(2022, 6, 1))
    datetime.date(2022, 6, 1)
    >>> day = _dt.date(2022, 6, 2)
    >>> known_at(day, _dt.date(2022, 6, 1)) == (day <= last_known_day(_dt.date(2022, 6, 1)))
    True
    """
    return as_of  # known_at: published on the as-of date is known


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


def format_date(day: _dt.date) -> str:
    """The ISO form ``YYYY-MM-DD``."""
    return day.isoformat()


def iso_moment(value: object) -> _dt.datetime | None:
    """An ISO 8601 date-time as an aware :class:`datetime.datetime`, or ``None`` when *value* is none.

    What :meth:`datetime.datetime.fromisoformat` reads, ``Z`` for UTC too,
    beginning with a four-digit year; a date-time written without a zone is
    UTC.  A moment that has no day in UTC (``9999-12-31T23:59-23:59``) raises
    :class:`~anachron.core.errors.AnachronError`: relative ages are counted
    in UTC, so it could not date anything.

    >>> iso_moment("2023-02-09T23:30:00Z")
    datetime.datetime(2023, 2, 9, 23, 30, tzinfo=datetime.timezone.utc)
    >>> iso_moment("2023-02-09T23:30"), iso_moment("Feb 9, 2023"), iso_moment(None)
    (datetime.datetime(2023, 2, 9, 23, 30, tzinfo=datetime.timezone.utc), None, None)
    """
    if not isinstance(value, str) or not value[:4].isascii() or not value[:4].isdigit():
        return None
    try:
        moment = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=_UTC)
    try:
        moment.astimezone(_UTC)
    except OverflowError:
        raise AnachronError(f"{describe(value)} has no day in UTC (out of range)") from None
    return moment
