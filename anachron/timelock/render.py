"""What the agent reads: one rendering of every tool result, for every adapter.

Every result starts with a receipt line naming the call, ``search #3: ...``,
so a transcript can be matched to the lock's own record of the call even
when a harness truncates long tool output.  Items are ``key: value`` lines,
dates appear as the :class:`DatePresentation` says (scoring always uses the
true date), and the last line is the budget that remains.

A refusal never tells the agent why an item was withheld: a post-T id and
an unknown id get the same answer.

:func:`parse_rendered` inverts :func:`render`: an importer reads the lock's
result from a harness's transcript with it, so the items a call showed are
known without the corpus.  It reads a whole rendering or nothing: a cut or
edited text is refused, never read as showing less.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from anachron.core import Corpus, Item
from anachron.core.errors import AnachronError

__all__ = ["SNIPPET", "DatePresentation", "Rendered", "Shown", "budget_line", "parse_rendered", "render", "render_series", "snippet"]

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


def render_series(seq: int, answer: Any, presentation: DatePresentation, budget: Mapping[str, Mapping[str, int | None]]) -> str:
    """The text of a ``series`` call's answer (:class:`anachron.timelock.series.SeriesAnswer`): its vintage,
    then one ``date: value (published day)`` line per observation, oldest first.  A missing value reads
    ``missing``, never 0; the vintage and each publication day are dates as *presentation* shows them
    (hidden: left out).  The publication days let an importer score a transcript without the lock's log."""
    served = len(answer.observations)
    vintage = presentation.show(answer.vintage)
    head = f"series #{seq}: {answer.id}, vintage {vintage or 'not shown'}, {served} observation{'s' if served != 1 else ''}"
    if answer.total > served:
        head += f" (the latest {served} of {answer.total})"
    lines = [head]
    for row in answer.observations:
        published = presentation.show(row.realtime_start)
        line = f"{row.date.isoformat()}: {row.value if row.value is not None else 'missing'}"
        lines.append(line if published is None else f"{line} (published {published})")
    return "\n".join(lines) + "\n\n" + budget_line(budget)


_RECEIPT = re.compile(r"(search|fetch|series) #([1-9][0-9]{0,17}): ")
_SERIES_HEAD = re.compile(r"([A-Z0-9_]{1,64}), vintage (?:[0-9]{4}-[0-9]{2}-[0-9]{2}|not shown), ([0-9]+) observations?(?: \(the latest [0-9]+ of [0-9]+\))?")
_SERIES_ROW = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2}): (missing|[^ ]+)(?: \(published ([0-9]{4}-[0-9]{2}-[0-9]{2})\))?")
_TAIL = "\n\nBudget remaining: "
_BUDGET = re.compile(r"Budget remaining: [a-z_]+ (?:unlimited|[0-9]+ of [0-9]+)(?:, [a-z_]+ (?:unlimited|[0-9]+ of [0-9]+))*\.")
_COUNT = re.compile(r'([1-9][0-9]*) (results?) for "(.*)"')
_NONE = re.compile(r'no results for "(.*)"')
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True)
class Shown:
    """One item as a rendering showed it: *date* is the date shown (``None``: none shown, or
    ``date: unknown`` when *undated*); *text* is a search's snippet or a fetch's document."""

    id: str
    date: str | None
    undated: bool
    title: str
    text: str


def _series(seq: int, rest: str, budget: str) -> "Rendered":
    """A series answer read back: one :class:`Shown` per value, its id ``SERIES@DATE``, *title* the series,
    *text* the value (``missing``), *date* the day it was published as shown (``None``: hidden)."""
    first, *lines = rest.split("\n")
    head = _SERIES_HEAD.fullmatch(first)
    if head is None or int(head.group(2)) != len(lines):
        raise _unreadable(f"a series answer's first line out of shape, or its count disagrees: {first[:60]!r}")
    items = []
    for line in lines:
        row = _SERIES_ROW.fullmatch(line)
        if row is None:
            raise _unreadable(f"a series line out of shape: {line[:60]!r}")
        items.append(Shown(f"{head.group(1)}@{row.group(1)}", row.group(3), row.group(3) is None, head.group(1), row.group(2)))
    return Rendered("series", seq, tuple(items), None, budget)


@dataclass(frozen=True)
class Rendered:
    """What one rendered result says: its receipt (*tool*, *seq*), the items shown, the error, the budget line."""

    tool: str
    seq: int
    items: tuple[Shown, ...]
    error: str | None
    budget: str


def _unreadable(why: str) -> AnachronError:
    return AnachronError(f"not a whole result of the time lock: {why}")


def _dated(lines: list[str], indent: str) -> tuple[str | None, bool, list[str]]:
    """(the date shown, undated, the lines after it) of an item's optional ``date:`` line."""
    if lines and lines[0].startswith(indent + "date: "):
        value = lines[0][len(indent) + 6:]
        if value == "unknown":
            return None, True, lines[1:]
        if _DAY.fullmatch(value) is None:
            raise _unreadable(f"date {value!r} is not a YYYY-MM-DD date")
        return value, False, lines[1:]
    return None, False, lines


def _field(lines: list[str], name: str) -> tuple[str, list[str]]:
    if not lines or not lines[0].startswith(name):
        raise _unreadable(f"expected {name.strip()!r}, got {lines[0][:40] if lines else 'the end'!r}")
    return lines[0][len(name):], lines[1:]


def parse_rendered(text: str) -> Rendered:
    """The result :func:`render` wrote as *text*: its receipt, the items shown (ids, the dates
    as presented, titles, snippets or the fetched document), its error, its budget line.

    Raises :class:`AnachronError` when *text* is not one whole rendering: no receipt, no final
    budget line (a harness cut the output), a line out of place, or a count that disagrees
    with the items listed (an edited result).

    >>> shown = parse_rendered(render("search", 2, "q", [{"id": "a", "title": "A", "published": "2022-01-03",
    ...     "text": "s"}], {"search": {"limit": None, "remaining": None}}))
    >>> shown.tool, shown.seq, [(i.id, i.date) for i in shown.items]
    ('search', 2, [('a', '2022-01-03')])
    """
    if not isinstance(text, str):
        raise _unreadable("not text")
    at = text.rfind(_TAIL)
    if at < 0 or _BUDGET.fullmatch(text[at + 2:]) is None:
        raise _unreadable("no budget line at its end (cut short?)")
    body, budget = text[:at], text[at + 2:]
    receipt = _RECEIPT.match(body)
    if receipt is None:
        raise _unreadable("no receipt ('search #N:' or 'fetch #N:') at its start")
    tool, seq, rest = receipt.group(1), int(receipt.group(2)), body[receipt.end():]
    if rest.startswith("error: "):
        return Rendered(tool, seq, (), rest[7:], budget)
    if tool == "series":
        return _series(seq, rest, budget)
    if tool == "fetch":
        header, blank, document = rest.partition("\n\n")
        if not blank:
            raise _unreadable("a fetch without the blank line that ends its header")
        ident, *lines = header.split("\n")
        date, undated, lines = _dated(lines, "")
        title, lines = _field(lines, "title: ")
        if lines or not ident.strip():
            raise _unreadable("a fetch header out of shape")
        return Rendered(tool, seq, (Shown(ident, date, undated, title, document),), None, budget)
    first, *lines = rest.split("\n")
    if _NONE.fullmatch(first) is not None and not lines:
        return Rendered(tool, seq, (), None, budget)
    count = _COUNT.fullmatch(first)
    if count is None or (count.group(2) == "result") != (count.group(1) == "1"):
        raise _unreadable(f"a search's first line out of shape: {first[:60]!r}")
    items = []
    while lines:
        ident, lines = _field(lines, "- id: ")
        if not ident.strip():
            raise _unreadable("an item without an id")
        date, undated, lines = _dated(lines, "  ")
        title, lines = _field(lines, "  title: ")
        shown, lines = _field(lines, "  snippet: ")
        items.append(Shown(ident, date, undated, title, shown))
    if len(items) != int(count.group(1)):
        raise _unreadable(f"it says {count.group(1)} results and lists {len(items)}")
    return Rendered(tool, seq, tuple(items), None, budget)
