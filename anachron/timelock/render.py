"""What the agent reads: one rendering of every tool result, for every adapter.

Every result starts with a receipt line naming the call, ``search #3: ...``,
so a transcript can be matched to the lock's own record of the call even
when a harness truncates long tool output.  Items are ``key: value`` lines,
dates appear as the :class:`DatePresentation` says (scoring always uses the
true date), and the last line is the budget that remains.

A refusal never tells the agent why an item was withheld: a post-T id and
an unknown id get the same answer.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from anachron.core import Corpus, Item
from anachron.core.errors import AnachronError

__all__ = ["SNIPPET", "DatePresentation", "budget_line", "render", "snippet"]

SNIPPET = 280  # characters of a search result's text
_SHIFT = re.compile(r"shift:([+-])([0-9]{1,7})")


@dataclass(frozen=True)
class DatePresentation:
    """How item dates appear in tool results; scoring always uses the true date.

    Spellings: ``visible`` (the publish date), ``hidden`` (no date at all),
    ``shift:+N`` / ``shift:-N`` (the publish date moved by N days).
    """

    kind: str = "visible"
    days: int = 0

    @classmethod
    def parse(cls, spec: "str | DatePresentation") -> "DatePresentation":
        if isinstance(spec, DatePresentation):
            return spec
        if spec in ("visible", "hidden"):
            return cls(spec)
        match = _SHIFT.fullmatch(spec) if isinstance(spec, str) else None
        if match is None:
            raise AnachronError(
                f"date_presentation: expected 'visible', 'hidden', 'shift:+N' or 'shift:-N' (N days), got {spec!r}"
            )
        days = int(match.group(2))
        return cls("shift", -days if match.group(1) == "-" else days)

    def show(self, day: _dt.date | None) -> str | None:
        """The date as the agent sees it, or ``None`` (hidden, undated, or shifted off the calendar)."""
        if self.kind == "hidden" or day is None:
            return None
        try:
            return (day + _dt.timedelta(days=self.days)).isoformat()
        except OverflowError:
            return None

    def check(self, corpus: "Corpus | Iterable[Item]") -> None:
        """Fail early, naming the item, when a shift leaves the calendar.

        *corpus* is a corpus or the items to check (for an index, its
        earliest and latest: only they can leave the calendar).
        """
        for item in corpus.items.values() if isinstance(corpus, Corpus) else corpus:
            if self.kind == "shift" and self.show(item.publish_date) is None:
                raise AnachronError(
                    f"date_presentation {self}: item {item.id} dated {item.publish_date} shifts out of the calendar"
                )

    def __str__(self) -> str:
        return f"shift:{self.days:+d}" if self.kind == "shift" else self.kind


def one_line(text: str) -> str:
    return " ".join(text.split())


def snippet(text: str) -> str:
    """The first :data:`SNIPPET` characters of *text* on one line, cut at a word, ``...`` when cut.

    Only a head of the text is put on one line, doubled until it gives more
    than :data:`SNIPPET` characters (a megabyte page was split whole, twice a
    call); the result is that of the whole text.

    >>> snippet(" a   b  c ")
    'a b c'
    >>> len(snippet(" " * 10_000 + "word " * 100_000)) <= SNIPPET + 4
    True
    """
    size = 2 * SNIPPET
    while True:
        head = one_line(text[:size])
        if len(head) > SNIPPET or size >= len(text):
            break
        size *= 2
    text = head
    if len(text) <= SNIPPET:
        return text
    return text[:SNIPPET].rsplit(" ", 1)[0] + " ..."


def budget_line(budget: Mapping[str, Mapping[str, int | None]]) -> str:
    parts = []
    for name, state in budget.items():
        parts.append(f"{name} unlimited" if state["limit"] is None else f"{name} {state['remaining']} of {state['limit']}")
    return "Budget remaining: " + ", ".join(parts) + "."


def _date(result: Mapping[str, Any], indent: str) -> list[str]:
    if result["published"] is not None:
        return [f"{indent}date: {result['published']}"]
    return [f"{indent}date: unknown"] if result.get("undated") else []


def render(
    tool: str,
    seq: int,
    argument: str,
    results: Sequence[Mapping[str, Any]],
    budget: Mapping[str, Mapping[str, int | None]],
    *,
    error: str | None = None,
) -> str:
    """The text of one call's result.  *results* are the shown items
    (``id``, ``title``, ``published`` as presented, ``text``)."""
    tail = "\n\n" + budget_line(budget)
    if error is not None:
        return f"{tool} #{seq}: error: {error}{tail}"
    if tool == "fetch":
        r = results[0]
        header = [f"{tool} #{seq}: {r['id']}", *_date(r, "")]
        header.append(f"title: {one_line(r['title'])}")
        # The first blank line ends the header; the document follows byte for byte.
        return "\n".join(header) + "\n\n" + r["text"] + tail
    query = one_line(argument)
    if not results:
        return f'{tool} #{seq}: no results for "{query}"{tail}'
    lines = [f'{tool} #{seq}: {len(results)} result{"s" if len(results) > 1 else ""} for "{query}"']
    for r in results:
        lines.append(f"- id: {r['id']}")
        lines += _date(r, "  ")
        lines.append(f"  title: {one_line(r['title'])}")
        lines.append(f"  snippet: {r['text']}")
    return "\n".join(lines) + tail
