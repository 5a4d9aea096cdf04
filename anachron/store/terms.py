"""What every engine matches and ranks by: an item's terms (BM25's two fields, :mod:`.ranking`) and the count ranking's weights.

Each distinct query word (lower-cased, stop words dropped: :func:`tokenize`)
scores :data:`STRONG_WEIGHT` when it is one of an item's strong terms (its
title, the id and name of an entity it names) and :data:`WEAK_WEIGHT` when it
is one of its weak terms (its text, minus the strong ones): :func:`item_terms`.
Under the count ranking (``ranking="count"``; BM25 is the default) an item's
score is the sum over the query's words; one scoring 0 is not returned.  The in-memory engine, the SQLite index and PostgreSQL all index
these two sets and score with these two weights (:mod:`anachron.store.engine`).
"""

from __future__ import annotations

import re
from typing import Mapping

from anachron.core.corpus import Entity, Item

__all__ = ["STRONG_WEIGHT", "WEAK_WEIGHT", "item_terms", "match_words", "tokenize"]

STRONG_WEIGHT = 2  # a query word in an item's title or the name of an entity it names
WEAK_WEIGHT = 1  # a query word only in its text

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an and are as at be by did do does for from had has have how in is it its of on or "
    "the to was were what when which who why will with about after before".split()
)


def tokenize(text: str) -> list[str]:
    """Lower-cased words of *text* without stop words, in order.

    >>> tokenize("What did Cygnus-Robotics report in Q3?")
    ['cygnus', 'robotics', 'report', 'q3']
    """
    return [word for word in _WORD.findall(text.lower()) if word not in _STOP]


def match_words(query: str) -> list[str]:
    """The distinct words of *query*, sorted: what every engine looks up.

    >>> match_words("the robotics robotics Cygnus")
    ['cygnus', 'robotics']
    """
    return sorted(set(tokenize(query)))


def item_terms(item: Item, entities: Mapping[str, Entity]) -> tuple[frozenset[str], frozenset[str]]:
    """``(strong, weak)``: the words an item scores :data:`STRONG_WEIGHT` for, and those it scores :data:`WEAK_WEIGHT` for.

    Strong: the title's words and those of the id and name of every entity
    the item names.  Weak: the text's words that are not strong.  Every
    engine (in memory, SQLite, PostgreSQL) indexes these two sets.
    """
    strong = set(tokenize(item.title))
    for entity_id in item.entities:
        strong.update(tokenize(entity_id))
        strong.update(tokenize(entities[entity_id].name))
    return frozenset(strong), frozenset(tokenize(item.text)) - strong
