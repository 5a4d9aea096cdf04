"""``otel``: OpenTelemetry spans as OTLP JSON (``resourceSpans`` / ``scopeSpans`` / ``spans``).

A file is one ``ExportTraceServiceRequest`` document, or JSON Lines of them
(the collector's file exporter).  Spans are grouped into one sample per
trace (``traceId``), or per the value of ``--sample-id-from ATTRIBUTE``
(read from a span of the trace, else its resource), and ordered by
``startTimeUnixNano``.  A span is a tool call when it follows one of three
conventions (docs/importers.md lists every attribute read):

=============================  ==============================  ===========================  ===========================
convention                     marks a tool span               name; arguments              result
=============================  ==============================  ===========================  ===========================
OTel GenAI semconv             ``gen_ai.operation.name`` =     ``gen_ai.tool.name``;        ``gen_ai.tool.call.result``
                               ``execute_tool``                ``gen_ai.tool.call.arguments``
OpenInference (Arize)          ``openinference.span.kind`` =   ``tool.name``;               ``output.value``
                               ``TOOL``                        ``input.value``
OpenLLMetry (Traceloop)        ``traceloop.span.kind`` =       ``traceloop.entity.name``;   ``traceloop.entity.output``
                               ``tool``                        ``traceloop.entity.input``
=============================  ==============================  ===========================  ===========================

A span with ``status.code`` 2 (``STATUS_CODE_ERROR``) or an ``error.type``
attribute is an ``error`` call.  The answer is the text of
``gen_ai.output.messages`` on the last span to end that has it.
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any, Iterator, Mapping

from ..core.errors import AnachronError, describe
from ..core.jsonio import Record
from ._common import Options, Session, documents, expect_list, expect_object, parse_arguments

FORMAT = "otel"

CONVENTIONS = (
    # (attribute marking a tool span, its value, name, arguments, result)
    ("gen_ai.operation.name", "execute_tool", "gen_ai.tool.name", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"),
    ("openinference.span.kind", "TOOL", "tool.name", "input.value", "output.value"),
    ("traceloop.span.kind", "tool", "traceloop.entity.name", "traceloop.entity.input", "traceloop.entity.output"),
)
CALL_ID = "gen_ai.tool.call.id"
OUTPUT_MESSAGES = "gen_ai.output.messages"
MAX_DEPTH = 32


def _value(any_value: Any, where: str, depth: int = 0) -> Any:
    """An OTLP ``AnyValue`` as a plain JSON value."""
    if not isinstance(any_value, dict) or depth > MAX_DEPTH:
        raise AnachronError(f"{where}: expected an OTLP AnyValue object, got {describe(any_value)}")
    for key in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if key in any_value:
            return any_value[key]
    if "intValue" in any_value:
        raw = any_value["intValue"]  # int64 travels as a decimal string in OTLP JSON
        return int(raw) if isinstance(raw, str) and raw.lstrip("-").isdigit() and raw.isascii() else raw
    if "arrayValue" in any_value:
        values = (any_value["arrayValue"] or {}).get("values") or []
        return [_value(v, where, depth + 1) for v in expect_list(values, where, "arrayValue.values")]
    if "kvlistValue" in any_value:
        values = (any_value["kvlistValue"] or {}).get("values") or []
        return _attributes(values, where, depth + 1)
    return None


def _attributes(pairs: Any, where: str, depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index, pair in enumerate(expect_list(pairs or [], where, "attributes")):
        pair = expect_object(pair, f"{where} attributes[{index}]", "a key/value pair")
        key = pair.get("key")
        if not isinstance(key, str):
            raise AnachronError(f"{where} attributes[{index}]: key is {describe(key)}, expected a string")
        out[key] = _value(pair.get("value", {}), f"{where} attributes[{index}] ({key})", depth)
    return out


def _nanos(value: Any, at: str, key: str) -> int:
    """A span's time in nanoseconds since the epoch (OTLP JSON writes it as a decimal string); 0 when absent."""
    if value is None:
        return 0
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise AnachronError(f"{at}: {key} is {describe(value)}, expected nanoseconds since the epoch (a decimal string)")


def _time(nanos: int) -> str | None:
    if not nanos:
        return None
    try:
        return _dt.datetime.fromtimestamp(nanos / 1e9, _dt.timezone.utc).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def _spans(path: str) -> Iterator[tuple[str, Mapping[str, Any], Mapping[str, Any], dict[str, Any]]]:
    """Every span of the log: (where, span, resource attributes, span attributes)."""
    for where, document in documents(path):
        document = expect_object(document, where, "an OTLP document")
        for r, resource_spans in enumerate(expect_list(document.get("resourceSpans", []), where, "resourceSpans")):
            r_at = f"{where} resourceSpans[{r}]"
            resource_spans = expect_object(resource_spans, r_at, "a resourceSpans entry")
            resource = _attributes((resource_spans.get("resource") or {}).get("attributes"), f"{r_at} resource")
            scopes = resource_spans.get("scopeSpans", resource_spans.get("instrumentationLibrarySpans", []))
            for s, scope in enumerate(expect_list(scopes, r_at, "scopeSpans")):
                s_at = f"{r_at} scopeSpans[{s}]"
                scope = expect_object(scope, s_at, "a scopeSpans entry")
                for n, span in enumerate(expect_list(scope.get("spans", []), s_at, "spans")):
                    at = f"{s_at} spans[{n}]"
                    span = expect_object(span, at, "a span")
                    if not isinstance(span.get("traceId"), str) or not span["traceId"]:
                        raise AnachronError(f"{at}: traceId is {describe(span.get('traceId'))}, expected a hex string")
                    yield at, span, resource, _attributes(span.get("attributes"), at)


def _convention(attributes: Mapping[str, Any]) -> tuple[str, str, str, str, str] | None:
    for convention in CONVENTIONS:
        if attributes.get(convention[0]) == convention[1]:
            return convention
    return None


def _unwrap(value: Any, key: str) -> Any:
    """OpenLLMetry wraps LangChain payloads: ``{"inputs": ...}``, ``{"outputs": ...}``, a message's ``kwargs.content``."""
    parsed = parse_arguments(value) if isinstance(value, str) else value
    if isinstance(parsed, dict) and key in parsed:
        parsed = parsed[key]
    if isinstance(parsed, dict) and isinstance(parsed.get("kwargs"), dict) and "content" in parsed["kwargs"]:
        parsed = parsed["kwargs"]["content"]
    return parsed


def _answer(attributes: Mapping[str, Any]) -> str | None:
    messages = attributes.get(OUTPUT_MESSAGES)
    messages = parse_arguments(messages) if isinstance(messages, str) else messages
    if not isinstance(messages, list):
        return None
    texts = [
        part.get("content")
        for message in messages
        if isinstance(message, dict) and isinstance(message.get("parts"), list)
        for part in message["parts"]
        if isinstance(part, dict) and part.get("type") == "text"
    ]
    return "".join(t for t in texts if isinstance(t, str)) or None


def _failed(span: Mapping[str, Any], attributes: Mapping[str, Any]) -> str | None:
    status = span.get("status") if isinstance(span.get("status"), dict) else {}
    if status.get("code") in (2, "STATUS_CODE_ERROR") or "error.type" in attributes:
        message = status.get("message") or attributes.get("error.type") or "error"
        return message if isinstance(message, str) else json.dumps(message)
    return None


def read(path: str, options: Options) -> Iterator[Record]:
    # A trace's spans may be spread over the whole file: group first, then build each sample.
    traces: dict[str, list[tuple[int, int, str, Mapping[str, Any], dict[str, Any]]]] = {}
    keys: dict[str, str] = {}
    for order, (at, span, resource, attributes) in enumerate(_spans(path)):
        trace_id = span["traceId"]
        start = _nanos(span.get("startTimeUnixNano"), at, "startTimeUnixNano")
        _nanos(span.get("endTimeUnixNano"), at, "endTimeUnixNano")
        traces.setdefault(trace_id, []).append((start, order, at, span, attributes))
        if options.sample_id_from is not None and trace_id not in keys:
            value = attributes.get(options.sample_id_from, resource.get(options.sample_id_from))
            if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
                keys[trace_id] = str(value)
    if not traces:
        raise AnachronError(f"{path}: no span in the log (expected OTLP JSON with resourceSpans / scopeSpans / spans)")
    samples: dict[str, list[tuple[int, int, str, Mapping[str, Any], dict[str, Any]]]] = {}
    for trace_id, spans in traces.items():
        if options.sample_id_from is not None and trace_id not in keys:
            raise AnachronError(
                f"{spans[0][2]}: no span or resource of trace {trace_id} has attribute {options.sample_id_from!r} (--sample-id-from)"
            )
        samples.setdefault(keys.get(trace_id, trace_id), []).extend(spans)
    for sample_id, spans in samples.items():
        spans.sort(key=lambda entry: (entry[0], entry[1]))
        session = Session(spans[0][2].split(" ", 1)[0], FORMAT, options.corpus)
        last_end = -1
        for start, _, at, span, attributes in spans:
            end = _nanos(span.get("endTimeUnixNano"), at, "endTimeUnixNano")
            answer = _answer(attributes)
            if answer is not None and end >= last_end:
                last_end = end
                session.final_answer(answer)
            convention = _convention(attributes)
            if convention is None:
                continue
            _, _, name_key, arguments_key, result_key = convention
            name = attributes.get(name_key) or span.get("name")
            if not isinstance(name, str) or not name:
                raise AnachronError(f"{at}: a tool span needs {name_key!r} or a name, got {describe(name)}")
            call_id = attributes.get(CALL_ID) if isinstance(attributes.get(CALL_ID), str) else None
            wrapped = convention is CONVENTIONS[2]  # only OpenLLMetry wraps payloads
            arguments = _unwrap(attributes.get(arguments_key), "inputs") if wrapped else parse_arguments(attributes.get(arguments_key))
            entry = session.call(name, arguments, call_id=call_id, time=_time(start))
            failure = _failed(span, attributes)
            if failure is not None:
                session.failed(entry, failure)
            elif result_key in attributes:
                session.result(entry, _unwrap(attributes[result_key], "outputs") if wrapped else attributes[result_key])
            # else the span ran and recorded no result (content capture off): the call stays unrecorded
        yield spans[0][2], session.record(sample_id, options)
