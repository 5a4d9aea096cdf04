"""An item's place in time: the :class:`Attribution` record, its status at T, and its evidence line.

A granule is *known* at T when its last day is known at T, a *leak* when
its first day is not, and *uncertain* in between (T inside the month or
year); every comparison is a call to :func:`~anachron.core.dates.known_at`.
Each source an item carries is a :class:`SourceDate`; the attribution keeps
them all (``sources``), so a reader can judge an item by every source
(:meth:`Attribution.every_source_status`) and see where they disagree
across T (:meth:`Attribution.conflict`, :func:`conflict_evidence`).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field

from anachron.core.dates import known_at
from anachron.core.errors import AnachronError, describe
from anachron.core.attribution.values import SHOWN_CHARS

__all__ = ["GRANULARITIES", "STATUSES", "Attribution", "SourceDate", "conflict_evidence", "evidence_of"]

GRANULARITIES = ("day", "month", "year")
STATUSES = ("known", "leak", "uncertain", "undated")


def _granule_status(first: _dt.date, last: _dt.date, as_of: _dt.date) -> str:
    """``known``, ``leak`` or ``uncertain``: the one rule for a granule ``first..last`` at *as_of*."""
    if known_at(last, as_of):
        return "known"
    if not known_at(first, as_of):
        return "leak"
    return "uncertain"


@dataclass(frozen=True, slots=True)
class SourceDate:
    """What one source of an item says of its publication: a granule, or a contradiction.

    ``source`` is the label evidence uses (``field 'published'``, ``url``,
    ``snippet``, ``html json-ld datePublished``...), ``value`` the raw text
    read.  ``contradiction`` is set, and the granule is None, when the value
    contradicts itself (a weekday that is not the date's own): it says why.

    >>> s = SourceDate("url", "/2023/02", _dt.date(2023, 2, 1), _dt.date(2023, 2, 28), "month")
    >>> [s.status(_dt.date(2023, 1, 31)), s.status(_dt.date(2023, 2, 9)), s.status(_dt.date(2023, 2, 28))]
    ['leak', 'uncertain', 'known']
    """

    source: str
    value: str
    first: _dt.date | None
    last: _dt.date | None
    granularity: str | None
    contradiction: str | None = None

    def status(self, as_of: _dt.date) -> str:
        """``known``, ``leak`` or ``uncertain`` at *as_of*; ``contradictory`` for a self-contradicting value."""
        _check_as_of(as_of)
        if self.first is None or self.last is None:
            return "contradictory"
        return _granule_status(self.first, self.last, as_of)

    def shown(self) -> str:
        """The granule as evidence writes it: ``2023-02-09``, ``2023-02 (month)``, ``2023 (year)``."""
        if self.first is None:
            return "a contradictory date"
        return _when(self.first, self.granularity)


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
    # Every publication source the item carries, in source order (the first usable one dates it).
    sources: tuple[SourceDate, ...] = field(default=(), compare=False)

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
        return _granule_status(self.first, self.last, as_of)

    def every_source_status(self, as_of: _dt.date) -> tuple[str, SourceDate | None]:
        """The item's status at *as_of* judged by every source, and the source that decides it.

        ``leak`` when any source dates it after *as_of* (a month or year
        whose first day is after it); else ``contradictory`` when a source
        contradicts itself; else ``uncertain`` when a source's granule
        contains *as_of*; else :meth:`status` (``known`` or ``undated``),
        decided by the first source (None when undated).  The strictest
        source wins: no source is trusted over another.

        >>> from anachron.core.attribution import attribute
        >>> a = attribute({"published": "2022-05-01", "url": "https://x.com/2023/03/02/y"})
        >>> a.status(_dt.date(2022, 12, 31)), a.every_source_status(_dt.date(2022, 12, 31))[0]
        ('known', 'leak')
        """
        _check_as_of(as_of)
        statuses = [(source.status(as_of), source) for source in self.sources]
        for wanted in ("leak", "contradictory", "uncertain"):
            for status, source in statuses:
                if status == wanted:
                    return status, source
        status = self.status(as_of)
        return status, next((s for s in self.sources if s.source == self.source), None)

    def conflict(self, as_of: _dt.date) -> tuple[SourceDate, SourceDate] | None:
        """``(before, after)``: the first source known at *as_of* and the first one dating the
        item after it, when both exist (the sources disagree across *as_of*); else None.

        A source whose granule contains *as_of* takes no side.

        >>> from anachron.core.attribution import attribute
        >>> a = attribute({"published": "2022-05-01", "url": "https://x.com/2023/03/02/y"})
        >>> [s.source for s in a.conflict(_dt.date(2022, 12, 31))], a.conflict(_dt.date(2023, 3, 2))
        (["field 'published'", 'url'], None)
        """
        _check_as_of(as_of)
        before = after = None
        for source in self.sources:
            status = source.status(as_of)
            if status == "known" and before is None:
                before = source
            elif status == "leak" and after is None:
                after = source
        return (before, after) if before is not None and after is not None else None

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


def _when(first: _dt.date, granularity: str | None) -> str:
    return {
        "day": first.isoformat(),
        "month": f"{first:%Y-%m} (month)",
        "year": f"{first.year} (year)",
    }[granularity or "day"]


def _by(source: SourceDate) -> str:
    return f'{source.shown()} by {source.source} ("{_cut(source.value)}")'


def conflict_evidence(item: str, before: SourceDate, after: SourceDate) -> str:
    """The evidence line of a date conflict on *item* (an id or URL, cut at 200 characters).

    >>> from anachron.core.attribution import attribute
    >>> a = attribute({"published": "2022-05-01", "url": "https://x.com/2023/03/02/y"})
    >>> print(conflict_evidence("https://x.com/2023/03/02/y", *a.conflict(_dt.date(2022, 12, 31))))
    date conflict: item https://x.com/2023/03/02/y dated 2022-05-01 by field 'published' ("2022-05-01") but 2023-03-02 by url ("/2023/03/02")
    """
    line = f"date conflict: item {item[:200]} dated {_by(before)} but {_by(after)}"
    return " ".join(line.split())


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
        line = f"dated {_when(a.first, a.granularity)} by {a.source}"
        if a.value is not None:
            line += f' ("{_cut(a.value)}")'
        if a.modified is not None:
            line += f"; modified {a.modified.isoformat()} by {a.modified_source}"
    return " ".join(line.split())

