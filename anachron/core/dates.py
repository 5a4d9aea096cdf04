"""Strict ISO calendar dates.

Anachron compares dates only as whole days (``datetime.date``).  Parsing is
strict on purpose: ``2021-02-30`` or ``2021-2-3`` is an error, never a
silently shifted day, because a wrong day moves an item across the cutoff.
"""

from __future__ import annotations

import datetime as _dt
import re

__all__ = ["parse_date", "format_date"]

_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_date(value: object) -> _dt.date:
    """Parse ``YYYY-MM-DD`` into a :class:`datetime.date`.

    Raises ``ValueError`` with a short reason (the caller adds the location)
    for a non-string, a different shape, or an impossible day such as
    ``2021-02-30``.
    """
    if not isinstance(value, str):
        raise ValueError(f"expected a date string YYYY-MM-DD, got {_describe(value)}")
    if not _ISO_DAY.fullmatch(value):
        raise ValueError(f"{value!r} is not a date of the form YYYY-MM-DD")
    year, month, day = (int(part) for part in value.split("-"))
    try:
        return _dt.date(year, month, day)
    except ValueError:
        raise ValueError(f"{value!r} is not a real calendar day") from None


def format_date(day: _dt.date) -> str:
    """The ISO form ``YYYY-MM-DD``."""
    return day.isoformat()


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return f"{type(value).__name__} {value!r}"
