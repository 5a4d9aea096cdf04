"""The one date grammar every reader of dates uses: names, numeric dates, fiscal calendars, relative phrases.

- :mod:`.calendar_words`: month and weekday names, every spelling accepted, and the
  day of the month as written (``9th``);
- :mod:`.numeric`: numeric dates (``09/02/2023``), read by an :class:`Order`
  each reader chooses on purpose (docs/metrics.md, "Reading dates");
- :mod:`.fiscal`: fiscal calendars (``fiscal_year_end``: FY, its quarters and halves);
- :mod:`.relative`: phrases anchored at the as-of date (``next quarter``);
- :mod:`.page`: phrases anchored at a page's own date, for the text of
  returned items (``next year``, ``until September 8th``, ``in April``);
- :mod:`.periods`: the calendar arithmetic they share.

The readers (date attribution, query intent, the answer-leak reader, the
bank reader) each keep their own *forms*, the shapes they look for and
what may stand around them; the rules those forms read by live here, once.

>>> numeric_dates(9, 2, 2023, Order.BOTH)
(datetime.date(2023, 9, 2), datetime.date(2023, 2, 9))
"""

from anachron.core.grammar.numeric import Order, numeric_dates

__all__ = ["Order", "numeric_dates"]
