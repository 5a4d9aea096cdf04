"""The search contract: the two retrieval modes, what each lets an agent see, and the engine interface.

Every corpus backend (:mod:`anachron.store`: in memory, a SQLite index, a
PostgreSQL server) implements :class:`Engine`; the reference agents
(:mod:`anachron.core.reference_agent`) and the time lock search through it.  The
as-of date is an argument of every call, never part of the query, so an
agent cannot move the cutoff by what it types.

Modes (:data:`MODES`):

- ``unrestricted``: every item may be seen;
- ``enforced``: only the items :func:`~anachron.core.dates.known_at` the
  as-of date, and nothing else is filtered: an entity that is not
  point-in-time valid still surfaces (survivorship is measured, not hidden).
"""

from __future__ import annotations

import datetime as _dt
from typing import Protocol, runtime_checkable

from anachron.core.corpus import Item
from anachron.core.dates import known_at
from anachron.core.errors import AnachronError, describe

__all__ = ["MODES", "Engine", "check_day", "check_mode", "visible_in"]

MODES = ("unrestricted", "enforced")


def check_mode(mode: object) -> None:
    """Refuse anything but one of :data:`MODES`.

    >>> check_mode("enforced")
    >>> check_mode("strict")
    Traceback (most recent call last):
    ...
    anachron.core.errors.AnachronError: unknown mode 'strict': expected one of unrestricted, enforced
    """
    if mode not in MODES:
        raise AnachronError(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")


def check_day(as_of: object) -> None:
    """Refuse an as-of date that is not a ``datetime.date`` (a ``datetime``, which compares by the hour, included).

    >>> check_day(_dt.datetime(2022, 6, 1))
    Traceback (most recent call last):
    ...
    anachron.core.errors.AnachronError: as_of must be a datetime.date, got a datetime
    """
    if not isinstance(as_of, _dt.date) or isinstance(as_of, _dt.datetime):
        raise AnachronError(f"as_of must be a datetime.date, got {describe(as_of)}")


def visible_in(mode: str, published: _dt.date, as_of: _dt.date) -> bool:
    """Whether *mode* lets an agent working as of *as_of* see an item published on *published*.

    >>> day = _dt.date(2022, 6, 1)
    >>> visible_in("enforced", day, day), visible_in("enforced", day, day - _dt.timedelta(days=1))
    (True, False)
    >>> visible_in("unrestricted", day, day - _dt.timedelta(days=1))
    True
    """
    return mode == "unrestricted" or known_at(published, as_of)


@runtime_checkable
class Engine(Protocol):
    """Date-aware keyword search and fetch over a corpus (implemented in :mod:`anachron.store`)."""

    def search(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5) -> list[Item]:
        """The top *k* items for *query*, best first, as seen on *as_of* in *mode*."""

    def fetch(self, item_id: str, *, as_of: _dt.date, mode: str = "unrestricted") -> Item | None:
        """The item *item_id*, or ``None`` when it is unknown or not visible in *mode*."""
