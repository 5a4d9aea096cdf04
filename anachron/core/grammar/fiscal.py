"""Fiscal calendars: an issuer's fiscal year end (``MM-DD``), its fiscal years, quarters and halves.

FY *N* is the twelve months ending on the fiscal year end in year *N*
(``09-30``: FY2024 is 2023-10-01..2024-09-30); its quarters and halves run
from its first day.  Without a calendar (``None``) FY *N* is calendar year
*N*.  A year end must be a day of every year: ``02-29`` is refused (write
``02-28``).

>>> fiscal_year(2024, (9, 30))
(datetime.date(2023, 10, 1), datetime.date(2024, 9, 30))
>>> quarter_or_half(4, 3, 2023, (9, 30), cy=False)
(datetime.date(2023, 7, 1), datetime.date(2023, 9, 30))

A period written as fiscal (``FY24``, ``fiscal Q1 2024``) whose issuer's
calendar is not known is none of the calendars in particular: it is read as
the span from its first day under the earliest fiscal year end in use
(:data:`EARLIEST_FISCAL_YEAR_END`, late January) to its last day under the
latest (31 December).  It then begins after T only if it does so under every
calendar, and it is an open period when T falls anywhere in that span.

>>> uncertain_fiscal_year(2024)
(datetime.date(2023, 1, 26), datetime.date(2024, 12, 31))
>>> uncertain_fiscal_part(1, 3, 2024)
(datetime.date(2023, 1, 26), datetime.date(2024, 3, 31))
"""

from __future__ import annotations

import datetime as _dt
import functools
import re

from anachron.core.errors import AnachronError, describe
from anachron.core.grammar.periods import ONE_DAY, add_months

__all__ = [
    "EARLIEST_FISCAL_YEAR_END",
    "SPLIT_FISCAL_YEAR",
    "calendar_part",
    "fiscal_year",
    "parse_fiscal_year_end",
    "part_of_year",
    "quarter_or_half",
    "uncertain_fiscal_part",
    "uncertain_fiscal_year",
]

_MONTH_DAY = re.compile(r"[0-9]{2}-[0-9]{2}")


def parse_fiscal_year_end(value: object) -> tuple[int, int]:
    """``"MM-DD"`` (the last day of an issuer's fiscal year) as ``(month, day)``.

    Rejected, with a short reason: another type or shape, or a day that is
    not in every year (``02-29``: write ``02-28``).

    >>> parse_fiscal_year_end("09-30")
    (9, 30)
    """
    if not isinstance(value, str):
        raise AnachronError(f"expected a month and day MM-DD, got {describe(value)}")
    return _parse_fiscal(value)


@functools.lru_cache(maxsize=256)
def _parse_fiscal(value: str) -> tuple[int, int]:
    if not _MONTH_DAY.fullmatch(value):
        raise AnachronError(f"expected a month and day MM-DD, got {describe(value)}")
    month, day = int(value[:2]), int(value[3:])
    try:
        _dt.date(2001, month, day)  # a common year: 02-29 is not in every year
    except ValueError:
        raise AnachronError(f"{value!r} is not a day of every year (use 02-28 for the end of February)") from None
    return month, day


def fiscal_year(year: int, fiscal: tuple[int, int] | None) -> tuple[_dt.date, _dt.date]:
    """FY *year*: the twelve months ending on the fiscal year end in *year* (calendar year without one).

    >>> fiscal_year(2024, None)
    (datetime.date(2024, 1, 1), datetime.date(2024, 12, 31))
    """
    if fiscal is None:
        return _dt.date(year, 1, 1), _dt.date(year, 12, 31)
    month, day = fiscal
    return _dt.date(year - 1, month, day) + ONE_DAY, _dt.date(year, month, day)


def part_of_year(begins: _dt.date, index: int, months: int) -> tuple[_dt.date, _dt.date]:
    """The *index*-th (from 1) run of *months* months from *begins*: a quarter or half of a fiscal year.

    >>> part_of_year(_dt.date(2023, 10, 1), 2, 6)
    (datetime.date(2024, 4, 1), datetime.date(2024, 9, 30))
    """
    start = add_months(begins, months * (index - 1))
    return start, add_months(begins, months * index) - ONE_DAY


def calendar_part(year: int, index: int, months: int) -> tuple[_dt.date, _dt.date]:
    """The *index*-th calendar quarter (*months* 3) or half (6) of *year*."""
    return part_of_year(_dt.date(year, 1, 1), index, months)


def quarter_or_half(index: int, months: int, year: int, fiscal, cy: bool) -> tuple[_dt.date, _dt.date]:
    """A quarter or half of FY *year* by the fiscal calendar, or of calendar *year* (no calendar, or *cy*: CY written)."""
    if fiscal is not None and not cy:
        return part_of_year(fiscal_year(year, fiscal)[0], index, months)
    return calendar_part(year, index, months)


# The earliest fiscal year end in use: 52-53-week retail and chip-maker years (NVIDIA, Walmart)
# end on the last Saturday or Sunday of January, as early as the 25th.
EARLIEST_FISCAL_YEAR_END = (1, 25)
# A split fiscal or tax year (``FY2023/24``, ``2010/11 tax year``) with no calendar given: from
# 1 April of its first year (India, Japan, Canada, UK government; the UK tax year from 6 April)
# to 30 June of its second (Australia, Pakistan, Egypt), as (month, day) pairs.
SPLIT_FISCAL_YEAR = ((4, 1), (6, 30))


def uncertain_fiscal_year(year: int) -> tuple[_dt.date, _dt.date]:
    """FY *year* of an unknown calendar: its first day under the earliest year end to its last under the latest."""
    return fiscal_year(year, EARLIEST_FISCAL_YEAR_END)[0], _dt.date(year, 12, 31)


def uncertain_fiscal_part(index: int, months: int, year: int) -> tuple[_dt.date, _dt.date]:
    """The *index*-th quarter (*months* 3) or half (6) of FY *year* of an unknown calendar, as :func:`uncertain_fiscal_year`."""
    first = part_of_year(fiscal_year(year, EARLIEST_FISCAL_YEAR_END)[0], index, months)[0]
    return first, calendar_part(year, index, months)[1]
