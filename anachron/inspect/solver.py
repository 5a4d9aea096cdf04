"""The time lock and the agent: Inspect's own ``react()`` loop with our prompt and budget.

:func:`time_lock` (a setup solver) copies the sample's as-of date from its
metadata into the sample store, where the tools read it.  :func:`anachron_agent`
puts the system prompt first (it states the as-of date and asks for an
answer as of that date), then runs ``react()`` with the retrieval tools.

A reply without any tool call gets one reminder to use ``submit``
(:data:`SUBMIT_REMINDER`); a second such reply is taken as the final answer.

The tool-call budget is enforced twice: the lock answers any call beyond it
as ``exhausted`` (a tool error that retrieves nothing), and the loop stops
when the agent keeps calling tools after it was told the budget is spent.
"""

from __future__ import annotations

from typing import Any, Sequence

from inspect_ai.agent import AgentState, as_solver, react
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolDef
from inspect_ai.util import store

from anachron.core.dates import parse_date
from anachron.core.errors import AnachronError
from anachron.inspect.tools import AS_OF, CALLS, INSPECT_REFUSALS, RUN, tool_lock

__all__ = ["BUDGET_SPENT", "SUBMIT_REMINDER", "SYSTEM_PROMPT", "anachron_agent", "time_lock"]

SYSTEM_PROMPT = """\
The as-of date is {as_of}. Work as if today were {as_of}: answer the question as of that date, \
using only information that was public on or before {as_of}.

You can search a dated news archive with the search tool and read one item in full with the \
fetch tool.{budget_sentence} When you have your answer, call the submit tool with it."""

BUDGET_SPENT = "Your tool-call budget is spent. Call the submit tool with your answer now."

SUBMIT_REMINDER = (
    "Please call the submit tool with your answer. If you reply in plain text again, "
    "that reply is taken as your final answer."
)

# Set once the agent has been reminded to submit after a plain-text reply.
_REMINDED = "anachron:submit_reminded"

# Set once the agent has been told that its budget is spent: the count of exhausted calls at that moment.
_WARNED = "anachron:budget_warned"


@solver
def time_lock() -> Solver:
    """Setup step: store the sample's ``as_of`` metadata for the tools (server side)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        value = (state.metadata or {}).get("as_of")
        try:
            parse_date(value)
        except ValueError as exc:
            raise AnachronError(f"sample {state.sample_id}: metadata 'as_of': {exc}") from None
        state.store.set(AS_OF, value)
        state.store.set(RUN, str(getattr(state, "uuid", None) or state.sample_id))
        return state

    return solve


def _record_refusals(state: AgentState, locks: dict[str, Any]) -> None:
    """Record in the lock the last turn's calls that Inspect refused before any tool ran."""
    turn = next((i for i in range(len(state.messages) - 1, -1, -1) if isinstance(state.messages[i], ChatMessageAssistant)), None)
    if turn is None:
        return
    results = {m.tool_call_id: m for m in state.messages[turn + 1 :] if isinstance(m, ChatMessageTool)}
    for call in state.messages[turn].tool_calls or []:
        result, lock = results.get(call.id), locks.get(call.function)
        if lock is not None and result is not None and result.error is not None and result.error.type in INSPECT_REFUSALS:
            lock.refuse(call.function, call.arguments, f"{result.error.type}: {result.error.message}", call.id)


def _guard(locks: dict[str, Any]):
    async def on_continue(state: AgentState) -> bool | str:
        _record_refusals(state, locks)
        if not state.output.message.tool_calls:
            return _plain_text_answer()
        return await _budget_guard(state)

    return on_continue


def _plain_text_answer() -> bool | str:
    """A reply without a tool call: remind the agent once to submit; the next such reply is its answer.

    Ending the loop leaves that reply as the sample's output, which the
    scorers read (``state.output.completion``), so a model that never
    learns the submit tool costs two requests, not the message limit.
    """
    if store().get(_REMINDED):
        return False
    store().set(_REMINDED, True)
    return SUBMIT_REMINDER


async def _budget_guard(state: AgentState) -> bool | str:
    exhausted = sum(1 for record in store().get(CALLS, []) if record.get("status") == "exhausted")
    if not exhausted:
        return True
    warned = store().get(_WARNED)
    if warned is None:
        store().set(_WARNED, exhausted)
        return BUDGET_SPENT
    return exhausted == warned  # a new over-budget call after the warning ends the loop


@solver
def anachron_agent(tools: Sequence[ToolDef], budget: int | None = None, prompt: str = SYSTEM_PROMPT) -> Solver:
    """A ``react()`` agent over *tools*, told its as-of date (from the store) and its budget.

    *prompt* is formatted with ``as_of`` and ``budget_sentence``.
    """
    budget_sentence = "" if budget is None else f" You may make at most {budget} search and fetch calls in total."
    locks = {tool.name: tool_lock(tool) for tool in tools if tool_lock(tool) is not None}
    run = as_solver(react(prompt=None, tools=list(tools), on_continue=_guard(locks)))

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        as_of = state.store.get(AS_OF)
        if as_of is None:
            raise AnachronError(f"sample {state.sample_id}: no as-of date in the store; add the time_lock() setup solver")
        system = ChatMessageSystem(content=prompt.format(as_of=as_of, budget_sentence=budget_sentence))
        state.messages.insert(0, system)
        return await run(state, generate)

    return solve
