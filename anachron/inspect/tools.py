"""The time lock as Inspect tools: ``search(query)`` and ``fetch(id_or_url)``.

Both are thin wrappers over :class:`anachron.timelock.TimeLock`, the same
lock the MCP server runs: same argument checks, budgets, re-check,
rendering and call records.  The as-of date is read server side, from the
sample store (written by the :func:`~anachron.inspect.solver.time_lock`
setup step), so it appears in neither tool's schema.

Every call the lock answers is recorded in the sample store (key
:data:`CALLS`) as an event-log ``call`` record; its output starts with a
receipt line, ``search #3: ...``, naming that record.  The scorer pairs each
tool call with its result and follows the receipt to the record, so what a
call returned survives Inspect's truncation of long tool output.  Inspect
refuses calls whose arguments break the schema (a smuggled ``as_of``)
before the tool runs: the agent (:func:`~anachron.inspect.solver.anachron_agent`)
records them in the lock after each turn, so they are logged and count
against the call cap as the MCP lock's refusals do; under another solver the
scorer records them as ``refused`` itself.

The tools are not parallel: Inspect runs one turn's calls one after the
other, in the order the model made them, as the MCP lock does.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any, Callable, Mapping

import anyio.to_thread
from inspect_ai.tool import ToolDef, ToolError
from inspect_ai.util import Store, store

from anachron.core import Corpus
from anachron.core.search import Engine
from anachron.store import SearchEngine
from anachron.store.ranking import DEFAULT_RANKING
from anachron.core.dates import parse_date
from anachron.core.errors import AnachronError
from anachron.timelock import Backend, CorpusBackend, DatePresentation, Limits, TimeLock
from anachron.core.validate import positive_int

__all__ = ["AS_OF", "CALLS", "INSPECT_REFUSALS", "LOCK", "RUN", "StoreJournal", "retrieval_tools", "store_as_of", "tool_lock"]

# Sample-store keys.  CALLS holds the lock's call records, in order (docs/inspect.md).
AS_OF = "anachron:as_of"
CALLS = "anachron:calls"
LOCK = "anachron:lock"  # the lock's start record: its settings (backend, mode, limits, ...)
RUN = "anachron:run"

# Inspect's refusals before a tool runs (arguments off the schema, a denied approval).
INSPECT_REFUSALS = ("parsing", "approval")


class NoAsOfError(AnachronError):
    """A tool ran without the time_lock() setup step: it must stop the sample, never run without a cutoff."""


def store_as_of() -> _dt.date:
    """The current sample's as-of date, as :func:`time_lock` stored it."""
    value = store().get(AS_OF)
    if value is None:
        raise NoAsOfError(f"no as-of date in the sample store ({AS_OF}): add the time_lock() setup solver")
    return parse_date(value)


class StoreJournal:
    """The lock's journal in an Inspect sample store: a list of call records."""

    def __init__(self, sample_store: Store) -> None:
        self.store = sample_store

    def calls(self) -> list[Mapping[str, Any]]:
        return list(self.store.get(CALLS, []))

    def write(self, header: Mapping[str, Any], record: Mapping[str, Any]) -> None:
        if self.store.get(LOCK) is None:
            self.store.set(LOCK, dict(header))
        # A new list, not an in-place append, so the store sees a changed value.
        self.store.set(CALLS, [*self.calls(), dict(record)])


def _backend(source: "Corpus | Engine | Backend", ranking: str | None) -> Backend:
    if isinstance(source, Corpus) or (isinstance(source, Engine) and not hasattr(source, "kind")):
        return CorpusBackend(source, ranking=DEFAULT_RANKING if ranking is None else ranking)
    if not all(hasattr(source, name) for name in ("kind", "source", "search", "fetch")):
        raise AnachronError(f"retrieval tools need a corpus, a SearchEngine or a time-lock backend, got {source!r}")
    if ranking is not None:  # an upstream ranks as it does: a ranking asked for would not be the one served
        raise AnachronError(f"ranking {ranking!r}: only a local corpus is ranked by Anachron, not a {source.kind} backend")
    return source  # type: ignore[return-value]


class _Lock:
    """The settings of one tool set; a :class:`TimeLock` per call, resumed from the sample's store."""

    def __init__(self, backend: Backend, *, mode, k, presentation, limits, allow_undated, as_of) -> None:
        self.backend = backend
        self.mode = mode
        self.k = positive_int(k, "k")
        self.presentation = DatePresentation.parse(presentation)
        if isinstance(backend, CorpusBackend):
            backend.check_presentation(self.presentation)
        self.limits = limits
        self.allow_undated = allow_undated
        self.as_of = as_of
        self.lock(_dt.date.min, StoreJournal(Store()))  # the settings fail here, when the task is built

    def lock(self, as_of: _dt.date, journal: StoreJournal) -> TimeLock:
        return TimeLock(
            self.backend,
            as_of,
            journal,
            mode=self.mode,
            limits=self.limits,
            k=self.k,
            presentation=self.presentation,
            allow_undated=self.allow_undated,
            server="anachron inspect",
            run=journal.store.get(RUN) or "inspect",
            resume=journal.calls()[-1:],
        )

    def refuse(self, tool: str, arguments: Any, reason: str, call_id: str) -> None:
        """Record a call Inspect refused before the tool ran (it counts against the call cap)."""
        journal = StoreJournal(store())
        self.lock(self.as_of(), journal).call(tool, arguments, refused=reason, call_id=call_id)

    async def call(self, tool: str, arguments: dict[str, Any]) -> str:
        journal = StoreJournal(store())
        lock = self.lock(self.as_of(), journal)
        # The lock may block (an upstream's HTTP): keep it off the event loop.
        outcome = await anyio.to_thread.run_sync(lock.call, tool, arguments)
        if outcome.is_error:
            raise ToolError(outcome.text)
        return outcome.text


def _limits(budget: int | None, limits: Limits | None) -> Limits:
    if limits is not None:
        if budget is not None:
            raise AnachronError("give budget or limits, not both")
        return limits
    if budget is not None:
        positive_int(budget, "budget")
    return Limits(calls=budget)


def _search_tool(lock: _Lock) -> ToolDef:
    async def execute(query: str) -> str:
        """Search the news archive by keywords.

        Args:
          query: Keywords to search for, e.g. a company name.
        """
        return await lock.call("search", {"query": query})

    return ToolDef(
        execute,
        name="search",
        description="Search a dated news archive by keywords. Returns up to "
        f"{lock.k} items, best match first, each with its id, title and a snippet.",
        parallel=False,
    )


def _fetch_tool(lock: _Lock) -> ToolDef:
    async def execute(id_or_url: str) -> str:
        """Read one archive item in full.

        Args:
          id_or_url: The id (or URL) of an item, as listed by search.
        """
        return await lock.call("fetch", {"id_or_url": id_or_url})

    return ToolDef(execute, name="fetch", description="Read one item of the news archive in full, by its id.", parallel=False)


def retrieval_tools(
    source: "Corpus | SearchEngine | Backend",
    *,
    mode: str,
    k: int = 5,
    date_presentation: "str | DatePresentation" = "visible",
    budget: int | None = None,
    limits: Limits | None = None,
    allow_undated: bool = False,
    as_of: Callable[[], _dt.date] = store_as_of,
    ranking: str | None = None,
) -> list[ToolDef]:
    """``[search, fetch]`` over one time lock, sharing one budget per sample.

    *source* is a corpus, a search engine (in memory, an index, PostgreSQL) or any time-lock backend (say an
    :class:`~anachron.timelock.UpstreamBackend`).  *budget* caps searches and
    fetches together; *limits* sets each cap (give one or the other).  *as_of*
    is called at each tool call and returns the cutoff: by default the date
    that :func:`~anachron.inspect.solver.time_lock` put in the sample store.
    *ranking* (:data:`~anachron.store.ranking.RANKINGS`; default BM25) ranks a
    local corpus's searches, as ``serve --ranking`` does, and is recorded with
    each call; an upstream backend refuses one.
    """
    lock = _Lock(
        _backend(source, ranking),
        mode=mode,
        k=k,
        presentation=date_presentation,
        limits=_limits(budget, limits),
        allow_undated=allow_undated,
        as_of=as_of,
    )
    tools = [_search_tool(lock), _fetch_tool(lock)]
    for tool in tools:
        tool.anachron_lock = lock  # type: ignore[attr-defined]  # lets the agent record Inspect's own refusals
    return tools


def tool_lock(tool: Any) -> _Lock | None:
    """The time lock behind a tool of :func:`retrieval_tools`, or ``None``."""
    return getattr(tool, "anachron_lock", None)
