"""Time-locked retrieval tools for Inspect: ``search(query)`` and ``fetch(item_id)``.

The as-of date is read server side, from the sample store (written by the
:func:`~anachron.inspect.solver.time_lock` setup step), so it appears in
neither tool's schema.  Inspect validates arguments against the schema, which
forbids extra properties: a call that adds ``as_of`` or ``date`` is rejected
as a tool error before the tool runs, and could not move the cutoff anyway.

Every executed call is recorded in the sample store (key :data:`CALLS`) with
the ids it returned, and its output starts with a receipt line,
``search #3: ...``, naming that record.  The scorer pairs each tool call with
its result message and follows the receipt to the record, so the returned
items survive Inspect's truncation of long tool output.

In enforced mode ``fetch`` answers a post-T id exactly as it answers an
unknown id, so a refusal reveals nothing, not even that the item exists.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import Any, Callable

from inspect_ai.tool import ToolDef, ToolError
from inspect_ai.util import store

from anachron.core import MODES, Corpus, Item, SearchEngine
from anachron.core.dates import parse_date
from anachron.core.errors import AnachronError

__all__ = [
    "AS_OF",
    "CALLS",
    "REFUSED",
    "DatePresentation",
    "fetch_tool",
    "retrieval_tools",
    "search_tool",
    "store_as_of",
]

# Sample-store keys.  CALLS holds one record per executed call:
# {"n": receipt number, "tool": name, "query" | "item_id": argument, "returned": [ids]}.
AS_OF = "anachron:as_of"
CALLS = "anachron:calls"
REFUSED = "anachron:refused"

SNIPPET_CHARS = 240
_SHIFT = re.compile(r"shift:([+-])(\d{1,7})")


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

    def show(self, day: _dt.date) -> str | None:
        """The date as the agent sees it, or ``None`` when dates are hidden."""
        if self.kind == "hidden":
            return None
        return (day + _dt.timedelta(days=self.days)).isoformat()

    def check(self, corpus: Corpus) -> None:
        """Fail early, naming the item, when a shift leaves the calendar."""
        for item in corpus.items.values():
            try:
                self.show(item.publish_date)
            except OverflowError:
                raise AnachronError(
                    f"date_presentation {self}: item {item.id} dated {item.publish_date} shifts out of the calendar"
                ) from None

    def __str__(self) -> str:
        return f"shift:{self.days:+d}" if self.kind == "shift" else self.kind


def store_as_of() -> _dt.date:
    """The current sample's as-of date, as :func:`time_lock` stored it."""
    value = store().get(AS_OF)
    if value is None:
        # A missing cutoff must stop the sample, never fall back to "no cutoff".
        raise RuntimeError(f"no as-of date in the sample store ({AS_OF}): add the time_lock() setup solver")
    return parse_date(value)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _snippet(text: str) -> str:
    text = _one_line(text)
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1].rstrip() + "\u2026"


def _begin_call(budget: int | None) -> int:
    """The receipt number of a new call, or a ToolError when the budget is spent."""
    made = len(store().get(CALLS, []))
    if budget is not None and made >= budget:
        store().set(REFUSED, store().get(REFUSED, 0) + 1)
        raise ToolError(f"the tool-call budget of {budget} calls is spent: submit your answer now")
    return made + 1


def _record(entry: dict[str, Any]) -> None:
    # A new list, not an in-place append, so the store sees a changed value.
    store().set(CALLS, [*store().get(CALLS, []), entry])


def _check_budget(budget: int | None) -> None:
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 1):
        raise AnachronError(f"budget must be a positive integer or None, got {budget!r}")


def _check_k(k: int) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise AnachronError(f"k must be a positive integer, got {k!r}")


def _checked(
    engine: SearchEngine, mode: str, budget: int | None, date_presentation: "str | DatePresentation"
) -> DatePresentation:
    """Validate the parameters every tool shares; return the presentation."""
    if mode not in MODES:
        raise AnachronError(f"unknown mode {mode!r}: expected one of {', '.join(MODES)}")
    _check_budget(budget)
    presentation = DatePresentation.parse(date_presentation)
    presentation.check(engine.corpus)
    return presentation


def _date_line(presentation: DatePresentation, item: Item, indent: str = "") -> list[str]:
    shown = presentation.show(item.publish_date)
    return [] if shown is None else [f"{indent}date: {shown}"]


def search_tool(
    engine: SearchEngine,
    *,
    mode: str,
    k: int = 5,
    date_presentation: "str | DatePresentation" = "visible",
    budget: int | None = None,
    as_of: Callable[[], _dt.date] = store_as_of,
    name: str = "search",
) -> ToolDef:
    """The ``search(query)`` tool over *engine*, time-locked by *as_of* in *mode*."""
    _check_k(k)
    presentation = _checked(engine, mode, budget, date_presentation)

    async def execute(query: str) -> str:
        """Search the news archive by keywords.

        Args:
          query: Keywords to search for, e.g. a company name.
        """
        number = _begin_call(budget)
        hits = engine.search(query, as_of=as_of(), mode=mode, k=k)
        _record({"n": number, "tool": name, "query": query, "returned": [item.id for item in hits]})
        shown_query = _one_line(query)
        if not hits:
            return f'{name} #{number}: no results for "{shown_query}"'
        lines = [f'{name} #{number}: {len(hits)} result{"s" if len(hits) > 1 else ""} for "{shown_query}"']
        for item in hits:
            lines.append(f"- id: {item.id}")
            lines += _date_line(presentation, item, "  ")
            lines.append(f"  title: {_one_line(item.title)}")
            lines.append(f"  snippet: {_snippet(item.text)}")
        return "\n".join(lines)

    return ToolDef(
        execute,
        name=name,
        description="Search a dated news archive by keywords. Returns up to "
        f"{k} items, best match first, each with its id, title and a snippet.",
    )


def fetch_tool(
    engine: SearchEngine,
    *,
    mode: str,
    date_presentation: "str | DatePresentation" = "visible",
    budget: int | None = None,
    as_of: Callable[[], _dt.date] = store_as_of,
    name: str = "fetch",
) -> ToolDef:
    """The ``fetch(item_id)`` tool over *engine*, time-locked by *as_of* in *mode*.

    An id that is unknown and, in enforced mode, an id published after the
    as-of date get the same answer.
    """
    presentation = _checked(engine, mode, budget, date_presentation)

    async def execute(item_id: str) -> str:
        """Read one archive item in full.

        Args:
          item_id: The id of an item, as listed by search.
        """
        number = _begin_call(budget)
        item = engine.fetch(item_id, as_of=as_of(), mode=mode)
        _record({"n": number, "tool": name, "item_id": item_id, "returned": [] if item is None else [item.id]})
        if item is None:
            raise ToolError(f"no item with id {_one_line(item_id)!r} is available")
        header = [f"{name} #{number}: {item.id}", *_date_line(presentation, item), f"title: {_one_line(item.title)}"]
        # The first blank line ends the header; the text follows byte for byte in every presentation.
        return "\n".join(header) + "\n\n" + item.text

    return ToolDef(execute, name=name, description="Read one item of the news archive in full, by its id.")


def retrieval_tools(
    corpus: "Corpus | SearchEngine",
    *,
    mode: str,
    k: int = 5,
    date_presentation: "str | DatePresentation" = "visible",
    budget: int | None = None,
    as_of: Callable[[], _dt.date] = store_as_of,
) -> list[ToolDef]:
    """``[search, fetch]`` over one engine, sharing one tool-call budget per sample.

    *as_of* is called at each tool call and returns the cutoff: by default the
    date that :func:`~anachron.inspect.solver.time_lock` put in the sample store.
    """
    engine = corpus if isinstance(corpus, SearchEngine) else SearchEngine(corpus)
    options = dict(mode=mode, date_presentation=date_presentation, budget=budget, as_of=as_of)
    return [search_tool(engine, k=k, **options), fetch_tool(engine, **options)]  # type: ignore[arg-type]
