"""The transcript scorer: the lock's call records as a trace, scored by the core.

:func:`trace_record` rebuilds one sample's trace from the call records the
time lock kept in the sample store (every call it answered, whatever
Inspect kept in the message history) and from the conversation, walked turn
by turn.  Each assistant message is a turn; its tool calls are paired with
the tool messages that follow it by call id, within that turn only
(providers reuse ids across turns; a repeated id inside one turn pairs in
order).  For every call to a retrieval tool:

- a result with a receipt (``search #3: ...``, in the output or in the
  error) is the lock's record #3;
- a result without one is a call the lock never saw: Inspect refused it
  (arguments off the schema, such as a smuggled ``as_of``; a denied
  approval) -> ``refused``, or it failed or never got a result (the sample
  stopped first) -> ``error``.  Its record is built with the lock's own
  record builder.

Store records that no message names (the history was trimmed) keep their
place by sequence number.  The records become a trace with
:func:`anachron.timelock.calls_trace`, the conversion the MCP event log
goes through too, so one behaviour scores the same through both adapters.
The call id and the raw arguments ride along for audit; the core ignores
them.

:func:`tclr_scorer` scores that trace with :func:`anachron.core.score_trace`.
The metrics rebuild each :class:`~anachron.core.SampleResult` from the score
metadata and call :func:`anachron.core.summarise`: the adapter does no math.
They read unreduced scores, so with ``--epochs N`` each epoch of a sample is
one run of its own (the per-sample value shown is Inspect's reduction).
"""

from __future__ import annotations

import re
from collections import defaultdict, deque
from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping, Sequence

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState

from anachron.core import Corpus, SampleResult, parse_traces, score_trace, summarise
from anachron.store import load_corpus
from anachron.core.dates import parse_date
from anachron.core.errors import AnachronError
from anachron.core.leakage import read_sample
from anachron.inspect.tools import CALLS, INSPECT_REFUSALS, LOCK, RUN
from anachron.timelock import TOOLS, CallEvent, calls_trace, parse_calls

__all__ = [
    "RETRIEVAL_TOOLS",
    "answer_leaks_parametric",
    "answer_leaks_retrieved",
    "blocked_attempts",
    "content_leaks",
    "date_conflicts",
    "failed_calls",
    "leakage",
    "METRIC_NAMES",
    "mean_tclr_high",
    "revision_risks",
    "mean_tclr",
    "open_period_queries",
    "query_intent_leaks",
    "restatement_leaks",
    "sample_trace_record",
    "survivorship_leaks",
    "tclr_scorer",
    "tool_using_runs",
    "trace_record",
]

RETRIEVAL_TOOLS = TOOLS
_RECEIPT = re.compile(r"^(?P<tool>[A-Za-z_][\w-]*) #(?P<n>[0-9]+):", re.MULTILINE)


def _turns(messages: Iterable[ChatMessage]) -> list[tuple[ChatMessageAssistant, list[ChatMessageTool]]]:
    turns: list[tuple[ChatMessageAssistant, list[ChatMessageTool]]] = []
    for message in messages:
        if isinstance(message, ChatMessageAssistant):
            turns.append((message, []))
        elif isinstance(message, ChatMessageTool) and turns:
            turns[-1][1].append(message)
    return turns


def _receipt(where: str, call_id: str, function: str, result: ChatMessageTool, records: Mapping[int, CallEvent]) -> CallEvent | None:
    text = result.error.message if result.error is not None else result.text
    match = next((m for m in _RECEIPT.finditer(text) if m.group("tool") == function), None)
    if match is None:
        if result.error is not None:
            return None  # refused or failed by Inspect before the lock saw it
        raise AnachronError(
            f"{where}: the result of call {call_id} ({function}) has no receipt line; "
            "was the tool output truncated to almost nothing?"
        )
    record = records.get(int(match.group("n")))
    if record is None or record.tool != function:
        raise AnachronError(
            f"{where}: call {call_id} ({function}) names receipt #{match.group('n')}, "
            f"which is no {function} record in the sample store"
        )
    return record


def _unseen(where: str, function: str, arguments: Mapping[str, Any], result: ChatMessageTool | None) -> CallEvent:
    """The record of a call the lock never answered."""
    if result is None:  # the conversation holds the call and no result, the lock no record: unrecorded
        status, error = "unrecorded", None
    else:
        status = "refused" if result.error.type in INSPECT_REFUSALS else "error"  # type: ignore[union-attr]
        error = f"{result.error.type}: {result.error.message}"  # type: ignore[union-attr]
    return CallEvent(where, 0, function, arguments, status, error=error)


def _same_call(record: CallEvent, tool: str, arguments: Any) -> bool:
    return record.tool == tool and record.arguments == dict(arguments)


def _resolve(
    where: str, call: Any, result: ChatMessageTool | None, records: Mapping[int, CallEvent], claimed: set[int]
) -> CallEvent:
    """The record of one retrieval call of the conversation (claiming it), or one made for it."""
    function, arguments = call.function, call.arguments
    if result is not None:
        record = _receipt(where, call.id, function, result, records)
        if record is not None:
            if record.seq in claimed:
                raise AnachronError(f"{where}: receipt #{record.seq} is named by two results (call {call.id} is the second)")
            claimed.add(record.seq)
            return record
    unclaimed = [r for seq, r in sorted(records.items()) if seq not in claimed]
    if result is not None and result.error is not None:
        # A refusal the agent recorded after the turn carries the call's id.
        record = next((r for r in unclaimed if r.call_id == call.id and _same_call(r, function, arguments)), None)
        if record is not None:
            claimed.add(record.seq)
            return record
    # The lock may have answered a call whose result never reached the agent (a limit, a timeout):
    # its record is the next unclaimed one.  The agent saw no result, so it returned nothing.
    record = next((r for r in unclaimed if r.call_id is None), None)
    if record is not None and _same_call(record, function, arguments) and record.seq == min(r.seq for r in unclaimed):
        claimed.add(record.seq)
        if result is None:
            return record
        return replace(record, status="error", returned=(), withheld=(), error=f"{result.error.type}: {result.error.message}")  # type: ignore[union-attr]
    return _unseen(f"{where} call {call.id}", function, arguments, result)


def trace_record(
    sample_id: str,
    as_of: str,
    mode: str | None,
    messages: Sequence[ChatMessage],
    calls: Sequence[Mapping[str, Any]] = (),
    *,
    corpus: Corpus,
    run: str | None = None,
    tools: Sequence[str] = RETRIEVAL_TOOLS,
    corpus_backed: bool = True,
    answer: str | None = None,
) -> dict[str, Any]:
    """One sample's trace record (docs/formats.md) from its messages and the lock's call records.

    *calls* is the list the tools keep in the sample store (key ``anachron:calls``),
    of run *run* (default: the run the records name); *tools* names the
    retrieval tools whose calls count.  *answer* is the model's submitted
    answer, kept as the trace's ``answer`` for the answer-leak check; an
    empty one is no answer.
    """
    where = f"sample {sample_id}"
    if run is None:
        run = next((c.get("run") for c in calls if isinstance(c, Mapping) and isinstance(c.get("run"), str)), "inspect")
    parsed = parse_calls([(f"{where} store record {i + 1}", c) for i, c in enumerate(calls)], run=run)
    records = {call.seq: call for call in parsed}
    claimed: set[int] = set()
    named: list[tuple[CallEvent, str]] = []  # every retrieval call of the conversation, in order
    for assistant, results in _turns(messages):
        pending: dict[str, deque[ChatMessageTool]] = defaultdict(deque)
        for result in results:
            pending[result.tool_call_id or ""].append(result)
        for call in assistant.tool_calls or []:
            queue = pending.get(call.id)
            result = queue.popleft() if queue else None
            if call.function in tools:
                named.append((_resolve(where, call, result, records, claimed), call.id))

    # Records no message names (the history was trimmed) keep their place by sequence number.
    ordered: list[tuple[CallEvent, str | None]] = []
    unnamed = deque(record for seq, record in sorted(records.items()) if seq not in claimed)
    for record, call_id in named:
        while record.seq and unnamed and unnamed[0].seq < record.seq:
            ordered.append((unnamed.popleft(), None))
        ordered.append((record, call_id))
    ordered += [(record, None) for record in unnamed]

    trace = calls_trace(
        [record for record, _ in ordered],
        corpus,
        sample_id=sample_id,
        as_of=parse_date(as_of),
        mode=mode,
        corpus_backed=corpus_backed,
    )
    for entry, (record, call_id) in zip(trace["interactions"], ordered):
        entry["call_id"] = call_id
        entry["arguments"] = record.arguments if not isinstance(record.arguments, Mapping) else dict(record.arguments)
        if record.error is not None:
            entry["error"] = record.error
    if answer:
        trace["answer"] = answer
    return trace


def sample_trace_record(
    sample_id: Any,
    metadata: Mapping[str, Any] | None,
    messages: Sequence[ChatMessage],
    store: Mapping[str, Any],
    corpus: Corpus,
    answer: str | None = None,
) -> dict[str, Any]:
    """:func:`trace_record` for a sample of an anachron task (its metadata and store).

    *answer*: the sample's submitted answer (``output.completion``), if any.
    """
    metadata = metadata or {}
    if "as_of" not in metadata or "mode" not in metadata:
        raise AnachronError(f"sample {sample_id}: no anachron metadata (as_of, mode): not a sample of an anachron task")
    tools = metadata.get("retrieval_tools", RETRIEVAL_TOOLS)
    calls = store.get(CALLS, [])
    backend = (store.get(LOCK) or {}).get("backend", "corpus")
    return trace_record(
        str(sample_id),
        metadata["as_of"],
        metadata["mode"],
        messages,
        calls,
        corpus=corpus,
        run=store.get(RUN),
        tools=tools,
        corpus_backed=backend == "corpus",
        answer=answer,
    )


def _result_metadata(result: SampleResult) -> dict[str, Any]:
    return result.to_dict()


def _result_from_metadata(data: Mapping[str, Any]) -> SampleResult:
    # The stored copy is read as a score file is: a copy altered on its way through a log is an error.
    return read_sample(data, "Inspect score metadata 'anachron'")


def _explanation(result: SampleResult) -> str:
    head = (
        f"TCLR {result.tclr:.3f}: {result.result_leaks} of {result.interactions} interactions"
        f" surfaced a post-{result.as_of} item"
    )
    failed = sum(result.failed_calls.values())
    if failed or result.blocked_attempts:
        split = ", ".join(f"{status} {n}" for status, n in result.failed_calls.items() if n) or "none"
        head += f"; {failed} failed call(s) ({split}), {result.blocked_attempts} blocked attempt(s)"
    if result.unrecorded:
        head += (f"; {result.unrecorded} unrecorded call(s): TCLR is a band"
                 f" [{result.tclr:.3f}, {float(result.tclr_high_exact):.3f}]")
    return "\n".join([head, *(f"! {line}" for line in result.evidence)])


def _summary_value(field: str) -> Callable[[list[SampleScore]], float | int]:
    """The value of one field of ``anachron.core.summarise`` over the scored samples.

    Rates are floats (NaN when undefined); counts stay integers.
    """

    def compute(scores: list[SampleScore]) -> float | int:
        results = [
            _result_from_metadata(s.score.metadata["anachron"])
            for s in scores
            if s.score.metadata and "anachron" in s.score.metadata
        ]
        value = getattr(summarise(results), field)
        if isinstance(value, Mapping):  # failed_calls: the total over its statuses
            value = sum(value.values())
        if value is None:
            return float("nan")
        return value if isinstance(value, int) else float(value)

    return compute


def _summary_metric(field: str, name: str, doc: str) -> Callable[[], Metric]:
    """An Inspect metric named *name* reporting one field of ``anachron.core.summarise``."""
    compute = _summary_value(field)

    def factory() -> Metric:
        return compute  # type: ignore[return-value]

    factory.__name__ = name
    factory.__doc__ = doc
    # "unreduced": with --epochs N every epoch is a run of its own, each with its own metadata.
    return metric(name=name, scores="unreduced")(factory)


# Short names: `inspect view` shows them in one row beside the model name (the field each reports
# is in docs/inspect.md).
METRIC_NAMES = {
    "mean_tclr": "tclr",
    "tool_using_runs": "tool_runs",
    "survivorship_leaks": "survivor",
    "restatement_leaks": "restated",
    "query_intent_leaks": "query",
    "blocked_attempts": "blocked",
    "failed_calls": "failed",
    "mean_tclr_high": "tclr_high",
    "content_leaks": "content",
    "date_conflicts": "conflicts",
    "revision_risks": "revised",
    "open_period_queries": "open",
    "answer_leaks_retrieved": "ans_tool",
    "answer_leaks_parametric": "ans_param",
}

mean_tclr = _summary_metric("mean_tclr", "tclr", "Mean TCLR over all sample runs.")
tool_using_runs = _summary_metric("tool_using_runs", "tool_runs", "Sample runs with at least one retrieval interaction.")
survivorship_leaks = _summary_metric("survivorship_leaks", "survivor", "Interactions that surfaced an entity not valid at T.")
restatement_leaks = _summary_metric("restatement_leaks", "restated", "Interactions that surfaced a post-T restatement.")
query_intent_leaks = _summary_metric("query_intent_leaks", "query", "Calls whose query reaches past T.")
blocked_attempts = _summary_metric("blocked_attempts", "blocked", "Refused calls that reached for a known post-T item.")
failed_calls = _summary_metric("failed_calls", "failed", "Calls that returned nothing to the agent (refused, exhausted, error).")
mean_tclr_high = _summary_metric("mean_tclr_high", "tclr_high", "Mean TCLR with undated and uncertain interactions counted as leaking.")
content_leaks = _summary_metric("content_leaks", "content", "Interactions whose shown text names a period after T.")
date_conflicts = _summary_metric(
    "date_conflicts", "conflicts", "Interactions that returned an item whose date sources disagree across T."
)
revision_risks = _summary_metric("revision_risks", "revised", "Interactions that showed an item modified after T.")
open_period_queries = _summary_metric("open_period_queries", "open", "Calls asking for results of a period still open at T.")
answer_leaks_retrieved = _summary_metric(
    "answer_leaks_retrieved", "ans_tool", "Post-T facts the submitted answer states that a tool of the run showed."
)
answer_leaks_parametric = _summary_metric(
    "answer_leaks_parametric", "ans_param", "Post-T facts the submitted answer states that no tool of the run showed."
)


@metric(name="leakage", scores="unreduced")
def leakage() -> Metric:
    """Every summary figure at once, keyed by its short name (:data:`METRIC_NAMES`).

    One metric returning a mapping: Inspect then names each value by its
    key alone, where a metric of its own would be shown as
    ``anachron/<name>`` once the package is installed.  Inspect stores
    every metric value as a float (so its viewer writes a count as
    ``27.0``); the exact integers are in each sample's metadata and in
    ``anachron export``.
    """
    computes = {name: _summary_value(field) for field, name in METRIC_NAMES.items()}

    def compute(scores: list[SampleScore]) -> Value:
        return {name: fn(scores) for name, fn in computes.items()}

    return compute


@scorer(metrics=[leakage()])
def tclr_scorer(corpus: "Corpus | str | None" = None) -> Scorer:
    """Score a sample's retrieval interactions for look-ahead leakage.

    Value: the sample's TCLR.  Explanation: the TCLR and the evidence lines.
    Metadata: ``anachron`` (the per-sample result) and ``trace`` (the record scored).
    """
    data = corpus if isinstance(corpus, Corpus) else load_corpus(corpus)

    async def score(state: TaskState, target: Target) -> Score:
        completion = state.output.completion if state.output else None
        record = sample_trace_record(state.sample_id, state.metadata, state.messages, state.store, data, completion)
        [trace] = parse_traces([(f"sample {state.sample_id}", record)], data)
        result = score_trace(trace, data)
        return Score(
            value=result.tclr,
            answer=completion,
            explanation=_explanation(result),
            metadata={"anachron": _result_metadata(result), "trace": record},
        )

    return score
