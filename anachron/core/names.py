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


def name_words(text: str) -> tuple[str, ...]:
    """The words a name is matched by, in order and case-folded."""
    return tuple(_WORD.findall(text.lower()))


class NameIndex(Generic[V]):
    """Names, each standing for one or more values; :meth:`named_in` finds those a text names.

    Cost: a dictionary look-up per word of the text and name length, whatever
    the number of names.
    """

    def __init__(self, names: Iterable[tuple[str, V]]) -> None:
        self._values: dict[tuple[str, ...], set[V]] = {}
        for name, value in names:
            key = name_words(name)
            if key:
                self._values.setdefault(key, set()).add(value)
        self._longest = max((len(key) for key in self._values), default=0)

    def __bool__(self) -> bool:
        return bool(self._values)

    def named_in(self, text: str) -> set[V]:
        """The values of every name *text* names."""
        if not self._values:
            return set()
        words = name_words(text)
        found: set[V] = set()
        for start in range(len(words)):
            for size in range(1, min(self._longest, len(words) - start) + 1):
                values = self._values.get(words[start : start + size])
                if values:
                    found |= values
        return found
