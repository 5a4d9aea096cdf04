"""Whole-word names in a text: the one rule for "this text names that entity".

A name is named by a text when its words (runs of letters, digits and
``_``, compared case-insensitively) appear in the text consecutively and in
order: ``Oracle Corp`` is named by ``oracle   corp q1`` and by
``Oracle Corp's``, never by ``oracle q1`` or ``Oracles``.
"""

from __future__ import annotations

import re
from typing import Generic, Hashable, Iterable, TypeVar

__all__ = ["NameIndex", "name_words"]

V = TypeVar("V", bound=Hashable)
_WORD = re.compile(r"\w+")
_END = ""  # a trie key no word can be


def name_words(text: str) -> tuple[str, ...]:
    """The words a name is matched by, in order and case-folded."""
    return tuple(_WORD.findall(text.lower()))


class NameIndex(Generic[V]):
    """Names, each standing for one or more values; :meth:`named_in` finds those a text names.

    Cost: per word of the text, one dictionary step per word of the longest
    name prefix that starts there (one, for most words), whatever the number
    of names.
    """

    def __init__(self, names: Iterable[tuple[str, V]]) -> None:
        # A trie of words: each node maps a word to the next node; _END holds the values of the names ending there.
        self._root: dict = {}
        for name, value in names:
            key = name_words(name)
            if key:
                node = self._root
                for word in key:
                    node = node.setdefault(word, {})
                node.setdefault(_END, set()).add(value)

    def __bool__(self) -> bool:
        return bool(self._root)

    def named_in(self, text: str) -> set[V]:
        """The values of every name *text* names."""
        if not self._root:
            return set()
        words = name_words(text)
        found: set[V] = set()
        for start in range(len(words)):
            node = self._root
            end = start
            while end < len(words):
                node = node.get(words[end])
                if node is None:
                    break
                values = node.get(_END)
                if values:
                    found |= values
                end += 1
        return found
