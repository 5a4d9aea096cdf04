"""The transcript scorer: rebuild a trace record, let the core score it.

:func:`trace_record` walks the conversation turn by turn.  Each assistant
message is a turn; its tool calls are paired with the tool messages that
follow it by call id, within that turn only (providers reuse ids across
turns; a repeated id inside one turn pairs in order).  Every call to a
retrieval tool is one interaction:

- with a result: the receipt at the head of the output (``search #3: ...``)
  names the store record that holds the ids the tool returned, so nothing
  is lost to tool-output truncation;
- with an error (bad arguments, such as a smuggled ``as_of``; a spent budget;
  an unknown or refused id) or without any result (the sample stopped
  first): it returned nothing.

The query is the ``query`` argument as the model sent it (``None`` for
fetch).  The call id, the raw arguments and any error ride along in the
record for audit; the core ignores them.

:func:`tclr_scorer` scores that record with :func:`anachron.core.score_trace`.
The metrics rebuild each :class:`~anachron.core.SampleResult` from the score
metadata and call :func:`anachron.core.summarise`: the adapter does no math.
They read unreduced scores, so with ``--epochs N`` each epoch of a sample is
one run of its own (the per-sample value shown is Inspect's reduction).
"""

from __future__ import annotations

import datetime as _dt
import re
from collections import defaultdict, deque
from typing import Any, Callable, Iterable, Mapping, Sequence

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState

from anachron.core import Corpus, SampleResult, load_corpus, parse_traces, score_trace, summarise
from anachron.core.errors import AnachronError
from anachron.inspect.tools import CALLS

__all__ = [
    "RETRIEVAL_TOOLS",
    "mean_tclr",
    "query_intent_leaks",
    "restatement_leaks",
    "sample_trace_record",
    "survivorship_leaks",
    "tclr_scorer",
    "tool_using_runs",
    "trace_record",
]

RETRIEVAL_TOOLS = ("search", "fetch")
_RECEIPT = re.compile(r"^(?P<tool>[A-Za-z_][\w-]*) #(?P<n>\d+):", re.MULTILINE)


def _turns(messages: Iterable[ChatMessage]) -> list[tuple[ChatMessageAssistant, list[ChatMessageTool]]]:
    turns: list[tuple[ChatMessageAssistant, list[ChatMessageTool]]] = []
    for message in messages:
        if isinstance(message, ChatMessageAssistant):
            turns.append((message, []))
        elif isinstance(message, ChatMessageTool) and turns:
            turns[-1][1].append(message)
    return turns


def _returned(where: str, call_id: str, function: str, result: ChatMessageTool, records: Mapping[int, Any]) -> list[str]:
    match = _RECEIPT.search(result.text)
    if match is None or match.group("tool") != function:
        raise AnachronError(
            f"{where}: the result of call {call_id} ({function}) has no receipt line; "
            "was the tool output truncated to almost nothing?"
        )
    record = records.get(int(match.group("n")))
    if not isinstance(record, Mapping) or record.get("tool") != function:
        raise AnachronError(
            f"{where}: call {call_id} ({function}) names receipt #{match.group('n')}, "
            f"which is no {function} record in the sample store"
        )
    returned = record.get("returned")
    if not isinstance(returned, list):
        raise AnachronError(f"{where}: store record #{match.group('n')} has no list 'returned'")
    return list(returned)


def trace_record(
    sample_id: str,
    as_of: str,
    mode: str | None,
    messages: Sequence[ChatMessage],
    calls: Sequence[Mapping[str, Any]] = (),
    *,
    tools: Sequence[str] = RETRIEVAL_TOOLS,
) -> dict[str, Any]:
    """One sample's trace record (docs/formats.md) from its messages and store records.

    *calls* is the list the tools keep in the sample store (key ``anachron:calls``);
    *tools* names the retrieval tools whose calls are interactions.
    """
    where = f"sample {sample_id}"
    records = {record.get("n"): record for record in calls if isinstance(record, Mapping)}
    interactions: list[dict[str, Any]] = []
    for assistant, results in _turns(messages):
        pending: dict[str, deque[ChatMessageTool]] = defaultdict(deque)
        for result in results:
            pending[result.tool_call_id or ""].append(result)
        for call in assistant.tool_calls or []:
            queue = pending.get(call.id)
            result = queue.popleft() if queue else None
            if call.function not in tools:
                continue
            query = call.arguments.get("query")
            entry: dict[str, Any] = {
                "tool": call.function,
                "query": query if isinstance(query, str) else None,
                "returned": [],
                "call_id": call.id,
                "arguments": call.arguments,
            }
            if result is None:
                entry["error"] = "no result"
            elif result.error is not None:
                entry["error"] = f"{result.error.type}: {result.error.message}"
            else:
                entry["returned"] = _returned(where, call.id, call.function, result, records)
            interactions.append(entry)
    return {"sample_id": sample_id, "as_of": as_of, "mode": mode, "interactions": interactions}


def sample_trace_record(
    sample_id: Any, metadata: Mapping[str, Any] | None, messages: Sequence[ChatMessage], store: Mapping[str, Any]
) -> dict[str, Any]:
    """:func:`trace_record` for a sample of an anachron task (its metadata and store)."""
    metadata = metadata or {}
    if "as_of" not in metadata or "mode" not in metadata:
        raise AnachronError(f"sample {sample_id}: no anachron metadata (as_of, mode): not a sample of an anachron task")
    tools = metadata.get("retrieval_tools", RETRIEVAL_TOOLS)
    calls = store.get(CALLS, [])
    return trace_record(str(sample_id), metadata["as_of"], metadata["mode"], messages, calls, tools=tools)


def _result_metadata(result: SampleResult) -> dict[str, Any]:
    return {**result.to_dict(), "survivorship_base": result.survivorship_base}


def _result_from_metadata(data: Mapping[str, Any]) -> SampleResult:
    return SampleResult(
        sample_id=data["sample_id"],
        as_of=_dt.date.fromisoformat(data["as_of"]),
        mode=data["mode"],
        interactions=data["interactions"],
        result_leaks=data["result_leaks"],
        survivorship_leaks=data["survivorship_leaks"],
        survivorship_base=data["survivorship_base"],
        restatement_leaks=data["restatement_leaks"],
        query_intent_leaks=data["query_intent_leaks"],
        evidence=tuple(data["evidence"]),
    )


def _explanation(result: SampleResult) -> str:
    head = (
        f"TCLR {result.tclr:.3f}: {result.result_leaks} of {result.interactions} interactions"
        f" surfaced a post-{result.as_of} item"
    )
    return "\n".join([head, *(f"! {line}" for line in result.evidence)])


def _summary_metric(field: str, doc: str) -> Callable[[], Metric]:
    """An Inspect metric reporting one field of ``anachron.core.summarise``."""

    def compute(scores: list[SampleScore]) -> Value:
        results = [
            _result_from_metadata(s.score.metadata["anachron"])
            for s in scores
            if s.score.metadata and "anachron" in s.score.metadata
        ]
        value = getattr(summarise(results), field)
        return float("nan") if value is None else float(value)

    def factory() -> Metric:
        return compute

    factory.__name__ = field
    factory.__doc__ = doc
    # "unreduced": with --epochs N every epoch is a run of its own, each with its own metadata.
    return metric(name=field, scores="unreduced")(factory)


mean_tclr = _summary_metric("mean_tclr", "Mean TCLR over all sample runs.")
tool_using_runs = _summary_metric("tool_using_runs", "Sample runs with at least one retrieval interaction.")
survivorship_leaks = _summary_metric("survivorship_leaks", "Interactions that surfaced an entity not valid at T.")
restatement_leaks = _summary_metric("restatement_leaks", "Interactions that surfaced a post-T restatement.")
query_intent_leaks = _summary_metric("query_intent_leaks", "Interactions whose query reaches past T.")


@scorer(metrics=[mean_tclr(), tool_using_runs(), survivorship_leaks(), restatement_leaks(), query_intent_leaks()])
def tclr_scorer(corpus: "Corpus | str | None" = None) -> Scorer:
    """Score a sample's retrieval interactions for look-ahead leakage.

    Value: the sample's TCLR.  Explanation: the TCLR and the evidence lines.
    Metadata: ``anachron`` (the per-sample result) and ``trace`` (the record scored).
    """
    data = corpus if isinstance(corpus, Corpus) else load_corpus(corpus)

    async def score(state: TaskState, target: Target) -> Score:
        record = sample_trace_record(state.sample_id, state.metadata, state.messages, state.store)
        [trace] = parse_traces([(f"sample {state.sample_id}", record)], data)
        result = score_trace(trace, data)
        return Score(
            value=result.tclr,
            answer=state.output.completion if state.output else None,
            explanation=_explanation(result),
            metadata={"anachron": _result_metadata(result), "trace": record},
        )

    return score
