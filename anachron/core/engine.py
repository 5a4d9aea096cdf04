"""The engine interface: what serves ``search`` and ``fetch`` over a dated corpus.

Three engines implement it: :class:`~anachron.core.SearchEngine` (in
memory), :class:`~anachron.core.index.IndexEngine` (a SQLite index file)
and :class:`anachron.postgres.PostgresEngine` (a PostgreSQL server).  They
return the same items in the same order for every query, as of date and
mode (tests/test_index.py compares them):

- the as-of date is an argument, never part of the query;
- ranking is :mod:`anachron.core.retrieval`'s: 2 per distinct query word
  among an item's strong terms, 1 per word among its weak terms
  (:func:`~anachron.core.retrieval.item_terms`), items scoring 0 left out;
- ties break on publish date, then id (a total order: ids are unique);
- ``enforced`` drops items published after the as-of date before ranking
  (:func:`~anachron.core.dates.known_at`) and nothing else: survivorship
  is not filtered.

The SQL engines number items by ``(publish_date, id)`` when they are
indexed (the ``ord`` column), so "ties by date, then id" is "ties by
``ord``", and "published on or before T" is "``ord`` at most that of the
last item published on or before T".
"""

from __future__ import annotations

import datetime as _dt
from typing import Iterable, Protocol, runtime_checkable

from .corpus import Corpus, Item

__all__ = ["Engine", "rank_order"]


@runtime_checkable
class Engine(Protocol):
    """Date-aware keyword search and fetch over a corpus."""

    def search(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5) -> list[Item]:
        """The top *k* items for *query*, best first, as seen on *as_of* in *mode*."""

    def fetch(self, item_id: str, *, as_of: _dt.date, mode: str = "unrestricted") -> Item | None:
        """The item *item_id*, or ``None`` when it is unknown or not visible in *mode*."""


def rank_order(items: Iterable[Item]) -> list[Item]:
    """*items* in the engines' tie order: publish date, then id (what ``ord`` numbers)."""
    return sorted(items, key=lambda item: (item.publish_date, item.id))


def extremes(engine: object) -> list[Item]:
    """The items a date shift can push off the calendar: every item of an in-memory corpus,
    the earliest and latest ones of an index (``engine.extremes()``)."""
    own = getattr(engine, "extremes", None)
    if callable(own):
        return list(own())
    corpus = getattr(engine, "corpus", None)
    if isinstance(corpus, Corpus):
        return list(corpus.items.values())
    return []
