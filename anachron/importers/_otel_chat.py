"""Chat spans of OTel logs: the messages a model call sent and received, in one form for both conventions.

Instrumentations of a model client (``opentelemetry-instrumentation-openai-v2``,
OpenInference's ``openinference-instrumentation-openai``) write no tool span:
every tool call is a ``tool_call`` in a chat span's output messages, and its
result a ``tool_call_response`` in the next chat span's input messages.  A
chat span is read as a :class:`Turn`:

- GenAI semantic conventions: ``gen_ai.input.messages`` and
  ``gen_ai.output.messages`` (JSON strings, or arrays), each message a
  ``role`` and ``parts`` of ``type`` ``text`` (``content``), ``tool_call``
  (``id``, ``name``, ``arguments``) or ``tool_call_response`` (``id``,
  ``response``); finish reasons in ``gen_ai.response.finish_reasons``;
- OpenInference: the flattened ``llm.input_messages.N.message.*`` and
  ``llm.output_messages.N.message.*`` (``role``, ``content``,
  ``tool_call_id``, ``tool_calls.M.tool_call.id`` / ``.function.name`` /
  ``.function.arguments``); without output messages, ``output.value`` when
  it is a Chat Completions response (its first choice); finish reason in
  ``llm.finish_reason``.

A chat span whose instrumentation records no message (content capture off,
hidden inputs) is a turn with ``recorded`` false: what it called is unknown.

>>> turn = chat_turn({"gen_ai.operation.name": "chat", "gen_ai.output.messages":
...     '[{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "web_search", "arguments": {"q": "x"}}]}]'})
>>> turn.outputs
[('assistant', [{'type': 'tool_call', 'id': 'c1', 'name': 'web_search', 'arguments': {'q': 'x'}}])]
>>> chat_turn({"gen_ai.operation.name": "execute_tool"}) is None
True
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping

from anachron.importers._common import parse_arguments

GENAI = "genai"
OPENINFERENCE = "openinference"
TRACELOOP = "traceloop"
PYDANTIC_AI = "pydantic-ai"  # its instrumentation scope's name
# Attributes of Traceloop's own conventions (opentelemetry-semantic-conventions-ai) on its chat spans,
# which otherwise follow the GenAI semconv: they tell whose setting turns content capture on.
TRACELOOP_MARKS = ("gen_ai.is_streaming", "gen_ai.openai.api_base", "llm.request.type", "traceloop.workflow.name")
CALLED_TOOLS = frozenset({"tool_calls", "tool_call", "function_call"})  # finish reasons: openai-v2, Traceloop, legacy
GENAI_CHAT = frozenset({"chat", "text_completion", "generate_content"})
_FLAT = re.compile(r"llm\.(input|output)_messages\.(\d+)\.message\.(.+)\Z")
_FLAT_CALL = re.compile(r"tool_calls\.(\d+)\.tool_call\.(id|function\.name|function\.arguments)\Z")
MAX_MESSAGES = 10_000  # flattened indexes beyond this are not a conversation (bounds hostile input)
# Every chat-span attribute this module reads, indexes written N (what the OTel importer's count of
# unknown attributes leaves out).
CHAT_ATTRIBUTES = frozenset({
    "gen_ai.operation.name", "gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.response.finish_reasons",
    "openinference.span.kind", "llm.finish_reason", "output.value", *TRACELOOP_MARKS,
    *(f"llm.{side}_messages.N.message.{field}" for side in ("input", "output") for field in (
        "role", "content", "tool_call_id", "tool_calls.N.tool_call.id", "tool_calls.N.tool_call.function.name",
        "tool_calls.N.tool_call.function.arguments")),
})

Message = tuple  # (role, [part, ...]); a part is a dict of the GenAI form (module docstring)


@dataclass
class Turn:
    """One chat span: its convention, the messages sent and received, whether content was recorded."""

    convention: str
    inputs: list
    outputs: list
    recorded: bool
    called_tools: bool  # its finish reason says the model called tools


def _parts_message(message: Any) -> Message | None:
    if not isinstance(message, dict) or not isinstance(message.get("role"), str):
        return None
    parts = message.get("parts")
    if not isinstance(parts, list):
        content = message.get("content")
        parts = [{"type": "text", "content": content}] if isinstance(content, str) else []
    return (message["role"], [part for part in parts if isinstance(part, dict)])


def _genai_messages(value: Any) -> list | None:
    value = parse_arguments(value) if isinstance(value, str) else value
    if not isinstance(value, list):
        return None
    return [m for m in (_parts_message(message) for message in value) if m is not None]


def _flat_messages(attributes: Mapping[str, Any], side: str) -> list | None:
    """OpenInference's flattened messages of *side* (``input`` or ``output``), in index order."""
    fields: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        match = _FLAT.match(key) if key.startswith("llm.") else None
        if match is None or match.group(1) != side or int(match.group(2)) > MAX_MESSAGES:
            continue
        fields.setdefault(int(match.group(2)), {})[match.group(3)] = value
    if not fields:
        return None
    messages = []
    for index in sorted(fields):
        field = fields[index]
        role = field.get("role")
        if not isinstance(role, str):
            continue
        parts: list[dict[str, Any]] = []
        calls: dict[int, dict[str, Any]] = {}
        for name, value in field.items():
            call = _FLAT_CALL.match(name)
            if call is not None:
                calls.setdefault(int(call.group(1)), {})[call.group(2)] = value
        content = field.get("content")
        if role == "tool" and isinstance(field.get("tool_call_id"), str):
            parts.append({"type": "tool_call_response", "id": field["tool_call_id"], "response": content})
        elif isinstance(content, str):
            parts.append({"type": "text", "content": content})
        for number in sorted(calls):
            call = calls[number]
            parts.append({"type": "tool_call", "id": call.get("id"), "name": call.get("function.name"),
                          "arguments": parse_arguments(call.get("function.arguments"))})
        messages.append((role, parts))
    return messages


def _completion_output(value: Any) -> list | None:
    """OpenInference's ``output.value`` when it is a Chat Completions response: its first choice's message."""
    parsed = parse_arguments(value) if isinstance(value, str) and value.lstrip()[:1] == "{" else None
    choices = parsed.get("choices") if isinstance(parsed, dict) else None
    message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        return None
    parts: list[dict[str, Any]] = []
    if isinstance(message.get("content"), str):
        parts.append({"type": "text", "content": message["content"]})
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            parts.append({"type": "tool_call", "id": call.get("id"), "name": function.get("name"),
                          "arguments": parse_arguments(function.get("arguments"))})
    return [(message.get("role") if isinstance(message.get("role"), str) else "assistant", parts)]


def chat_turn(attributes: Mapping[str, Any], scope: str = "") -> Turn | None:
    """The :class:`Turn` of a chat span (*scope*: its instrumentation scope's name), ``None`` for any other span."""
    has_messages = "gen_ai.input.messages" in attributes or "gen_ai.output.messages" in attributes
    if attributes.get("gen_ai.operation.name") in GENAI_CHAT or (has_messages and "openinference.span.kind" not in attributes):
        inputs = _genai_messages(attributes.get("gen_ai.input.messages"))
        outputs = _genai_messages(attributes.get("gen_ai.output.messages"))
        reasons = attributes.get("gen_ai.response.finish_reasons")
        reasons = reasons if isinstance(reasons, list) else [reasons]
        convention = TRACELOOP if any(mark in attributes for mark in TRACELOOP_MARKS) else GENAI
        convention = PYDANTIC_AI if scope == PYDANTIC_AI else convention
        return Turn(convention, inputs or [], outputs or [], inputs is not None or outputs is not None,
                    any(reason in CALLED_TOOLS for reason in reasons if isinstance(reason, str)))
    if attributes.get("openinference.span.kind") == "LLM":
        inputs = _flat_messages(attributes, "input")
        outputs = _flat_messages(attributes, "output")
        outputs = outputs if outputs is not None else _completion_output(attributes.get("output.value"))
        return Turn(OPENINFERENCE, inputs or [], outputs or [], inputs is not None or outputs is not None,
                    attributes.get("llm.finish_reason") in CALLED_TOOLS)
    return None


def signature(message: Message) -> str:
    """What identifies a message when one span's inputs repeat another's: role, texts, call ids, responses."""
    role, parts = message
    kept = []
    for part in parts:
        kind = part.get("type")
        if kind == "text":
            kept.append(("text", " ".join(str(part.get("content") or "").split())))
        elif kind in ("tool_call", "tool_call_response"):
            kept.append((kind, str(part.get("id"))))
    return json.dumps([role, kept])


def answer_text(turn: Turn) -> str | None:
    """The text of the turn's last output message, when it has one."""
    for _, parts in reversed(turn.outputs):
        texts = [p.get("content") for p in parts if p.get("type") == "text" and isinstance(p.get("content"), str)]
        if texts:
            return "".join(texts)
    return None
