"""An item's place in time: the :class:`Attribution` record, its status at T, and its evidence line.

A granule is *known* at T when its last day is known at T, a *leak* when
its first day is not, and *uncertain* in between (T inside the month or
year); every comparison is a call to :func:`~anachron.core.dates.known_at`.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from ..dates import known_at
from ..errors import AnachronError, describe
from .values import SHOWN_CHARS

__all__ = ["GRANULARITIES", "STATUSES", "Attribution", "evidence_of"]

GRANULARITIES = ("day", "month", "year")
STATUSES = ("known", "leak", "uncertain", "undated")


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



# --- evidence -------------------------------------------------------------------------

_EVIDENCE_PROBLEMS = 3


def _cut(text: str) -> str:
    """*text* for an evidence line: stripped, whitespace collapsed, cut at 60 characters."""
    text = " ".join(text.strip()[: 4 * SHOWN_CHARS].split())
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."


def evidence_of(a: Attribution) -> str:
    """One line saying how *a* was dated, or why it is undated.

    >>> from anachron.core.attribution import attribute
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

