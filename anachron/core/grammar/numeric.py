"""Numeric dates (``09/02/2023``): which day they name, by an order each reader chooses on purpose.

``09/02/2023`` is 2 September to a US reader and 9 February to a European
one; the text alone cannot say which.  Each reader of dates passes an
:class:`Order`, chosen for what a wrong reading costs it (docs/metrics.md,
"Reading dates"):

- ``REFUSE``: no numeric date is read, not even one only one order makes
  real (``13/07/2023``): the order is unknown, and a 13 may be a typo;
- ``BOTH``: every real reading, month first then day first, once if they
  are the same day;
- ``MONTH_FIRST`` (US) and ``DAY_FIRST`` (European): that reading only.

A **dotted** date (``09.02.2023``) is day first under any order but
``REFUSE``: dots are the European form, and a US date is not written so.
A reading that is no real calendar day (``02/30/2023``, a month above 12)
is dropped; none left is ``()``.  The year is the caller's: a two-digit
year needs a century, which only the caller can choose.

>>> numeric_dates(9, 2, 2023, Order.BOTH)
(datetime.date(2023, 9, 2), datetime.date(2023, 2, 9))
>>> numeric_dates(9, 2, 2023, Order.MONTH_FIRST), numeric_dates(9, 2, 2023, Order.DAY_FIRST)
((datetime.date(2023, 9, 2),), (datetime.date(2023, 2, 9),))
>>> numeric_dates(14, 7, 2023, Order.BOTH), numeric_dates(14, 7, 2023, Order.REFUSE)
((datetime.date(2023, 7, 14),), ())
>>> numeric_dates(9, 2, 2023, Order.BOTH, separator=".")
(datetime.date(2023, 2, 9),)
"""

from __future__ import annotations

import datetime as _dt
import enum
import re

from anachron.core.grammar.periods import real_day

__all__ = ["NUMERIC_DATE", "Order", "numeric_dates"]


class Order(enum.Enum):
    """How a reader takes the day and month of a numeric date (module docstring)."""

    REFUSE = "refuse"
    BOTH = "both"
    MONTH_FIRST = "month-first"
    DAY_FIRST = "day-first"


# A whole value that is a numeric day and month in some order, with a year: what a reader
# that refuses them recognises, to say why it read nothing.
NUMERIC_DATE = re.compile(r"[0-9]{1,2}[./-][0-9]{1,2}[./-](?:[0-9]{4}|[0-9]{2})")


def _real(year: int, month: int, day: int) -> tuple[_dt.date, ...]:
    found = real_day(year, month, day)
    return () if found is None else (found,)


def numeric_dates(first: int, second: int, year: int, order: Order, separator: str = "/") -> tuple[_dt.date, ...]:
    """The days ``first SEP second SEP year`` names under *order*, in the order of the module docstring.

    *separator* is the one written (``/``, ``-`` or ``.``); only ``.`` changes the reading.

    >>> numeric_dates(5, 5, 2023, Order.BOTH)
    (datetime.date(2023, 5, 5),)
    >>> numeric_dates(2, 30, 2023, Order.BOTH)
    ()
    """
    if order is Order.REFUSE:
        return ()
    if separator == ".":
        order = Order.DAY_FIRST
    if order is Order.MONTH_FIRST:
        return _real(year, first, second)
    if order is Order.DAY_FIRST:
        return _real(year, second, first)
    readings = _real(year, first, second) + _real(year, second, first)
    return readings[:1] if len(readings) == 2 and readings[0] == readings[1] else readings
