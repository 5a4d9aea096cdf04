"""Deterministic, date-aware keyword search over a corpus.

The as-of date is an argument of :meth:`SearchEngine.search`, never part of
the query, so an agent cannot move the cutoff by what it types.

Ranking: each distinct query word (lower-cased, stop words dropped) scores
2 when it appears in an item's title or in the name or id of an entity the
item names, 1 when it appears only in the text.  Items that match no word
are not returned.  Ties break on publish date, then id, so the order never
depends on dict or file order.

Modes:

- ``unrestricted``: every matching item may be returned;
- ``enforced``: items published after the as-of date are dropped before
  ranking, and nothing else is.  Survivorship is deliberately *not*
  filtered: an entity that is not point-in-time valid still surfaces, and
  measuring that residual is the point.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Iterable, Mapping

from ..validate import describe, positive_int
from .corpus import Corpus, Entity, Item
from .dates import known_at
from .errors import AnachronError

__all__ = ["MODES", "SearchEngine", "item_terms", "tokenize"]

MODES = ("unrestricted", "enforced")

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an and are as at be by did do does for from had has have how in is it its of on or "
    "the to was were what when which who why will with about after before".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-cased words of *text* without stop words, in order."""
    return [word for word in _WORD.findall(text.lower()) if word not in _STOP]


def item_terms(item: Item, entities: Mapping[str, Entity]) -> tuple[frozenset[str], frozenset[str]]:
    """``(strong, weak)``: the words an item scores 2 for, and those it scores 1 for.

    Strong: the title's words and those of the id and name of every entity
    the item names.  Weak: the text's words that are not strong.  Every
    engine (in memory, SQLite, PostgreSQL) indexes these two sets.
    """
    strong = set(tokenize(item.title))
    for entity_id in item.entities:
        strong.update(tokenize(entity_id))
        strong.update(tokenize(entities[entity_id].name))
    return frozenset(strong), frozenset(tokenize(item.text)) - strong


class SearchEngine:
    """Keyword search over the items of a :class:`Corpus`."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._strong: dict[str, frozenset[str]] = {}
        self._weak: dict[str, frozenset[str]] = {}
        for item in corpus.items.values():
            self._strong[item.id], self._weak[item.id] = item_terms(item, corpus.entities)

    def visible(self, item: Item, as_of: _dt.date, mode: str) -> bool:
        """Whether *mode* lets *item* be seen by an agent working as of *as_of*."""
        _check_mode(mode)
        return mode == "unrestricted" or known_at(item.publish_date, as_of)

    def search(self, query: str, *, as_of: _dt.date, mode: str = "unrestricted", k: int = 5) -> list[Item]:
        """The top *k* items for *query*, best first, as seen on *as_of* in *mode*."""
        _check_mode(mode)
        positive_int(k, "search: k")
        if not isinstance(query, str):
            raise AnachronError(f"search: query must be a string, got {describe(query)}")
        _check_day(as_of)
        words = set(tokenize(query))
        if not words:
            return []
        scored = []
        for item in self._candidates(as_of, mode):
            score = 2 * len(words & self._strong[item.id]) + len(words & self._weak[item.id])
            if score:
                scored.append((-score, item.publish_date, item.id, item))
        scored.sort(key=lambda row: row[:3])
        return [row[3] for row in scored[:k]]

    def fetch(self, item_id: str, *, as_of: _dt.date, mode: str = "unrestricted") -> Item | None:
        """The item *item_id*, or ``None`` when it is unknown or not visible in *mode*."""
        _check_day(as_of)
        if not isinstance(item_id, str):
            raise AnachronError(f"fetch: item_id must be a string, got {describe(item_id)}")
        item = self.corpus.items.get(item_id)
        if item is None or not self.visible(item, as_of, mode):
            return None
        return item

    def _candidates(self, as_of: _dt.date, mode: str) -> Iterable[Item]:
        items = self.corpus.items.values()
        if mode == "enforced":
            return (item for item in items if known_at(item.publish_date, as_of))
        return items


def _check_day(as_of: object) -> None:
    if not isinstance(as_of, _dt.date) or isinstance(as_of, _dt.datetime):
        raise AnachronError(f"as_of must be a datetime.date, got {describe(as_of)}")


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise AnachronError(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
