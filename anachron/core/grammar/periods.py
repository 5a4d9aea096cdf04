"""Calendar arithmetic on periods: a real day, the last day of a month, months added to a day, thirds of a period.

A period is a pair of days ``(begins, ends)``, both included; an open-ended
one ends on :data:`OPEN_END`.

>>> month_end(2024, 2), add_months(_dt.date(2023, 1, 31), 1)
(datetime.date(2024, 2, 29), datetime.date(2023, 2, 28))
"""

from __future__ import annotations

import datetime as _dt

__all__ = ["ONE_DAY", "OPEN_END", "add_months", "month_end", "real_day", "thirds", "units_after"]

ONE_DAY = _dt.timedelta(days=1)
OPEN_END = _dt.date.max  # the end of an open-ended period ("after:2023-01-01")


def real_day(year: int, month: int, day: int) -> _dt.date | None:
    """The day *year*-*month*-*day*, or ``None`` when the calendar has none (a reader of text skips it).

    >>> real_day(2024, 2, 29), real_day(2023, 2, 29), real_day(2023, 13, 1)
    (datetime.date(2024, 2, 29), None, None)
    """
    try:
        return _dt.date(year, month, day)
    except ValueError:
        return None


def month_end(year: int, month: int) -> _dt.date:
    """The last day of *month* (1-12) of *year*.

    >>> month_end(2023, 12), month_end(2023, 4)
    (datetime.date(2023, 12, 31), datetime.date(2023, 4, 30))
    """
    if month == 12:  # not the day before 1 January next: that of 9999 is past date.max
        return _dt.date(year, 12, 31)
    return _dt.date(year, month + 1, 1) - ONE_DAY


def add_months(day: _dt.date, months: int) -> _dt.date:
    """*day* moved by *months* (negative: back), kept within the month reached (31 Jan + 1 is 28 Feb).

    >>> add_months(_dt.date(2024, 3, 31), -1)
    datetime.date(2024, 2, 29)
    """
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = month_end(year, month + 1).day
    return _dt.date(year, month + 1, min(day.day, last))


def thirds(begins: _dt.date, ends: _dt.date, part: str) -> tuple[_dt.date, _dt.date]:
    """``early``, ``mid`` or ``late`` (any other word is late): the first, middle or last third of a period.

    In whole days: each outer third is ``length // 3`` days, the middle one the rest.

    >>> thirds(_dt.date(2023, 1, 1), _dt.date(2023, 12, 31), "mid")
    (datetime.date(2023, 5, 2), datetime.date(2023, 9, 1))
    """
    length = (ends - begins).days + 1
    third = length // 3
    if part == "early":
        return begins, begins + _dt.timedelta(days=third - 1)
    if part == "mid":
        return begins + _dt.timedelta(days=third), ends - _dt.timedelta(days=third)
    return ends - _dt.timedelta(days=third - 1), ends


def units_after(day: _dt.date, count: int, unit: str) -> _dt.date:
    """*day* moved on by *count* days, weeks, months, quarters or years (*unit*, any case; months by :func:`add_months`).

    >>> units_after(_dt.date(2023, 1, 31), 1, "Quarter")
    datetime.date(2023, 4, 30)
    """
    unit = unit.lower()
    if unit == "day":
        return day + _dt.timedelta(days=count)
    if unit == "week":
        return day + _dt.timedelta(weeks=count)
    return add_months(day, count * {"month": 1, "quarter": 3, "year": 12}[unit])
