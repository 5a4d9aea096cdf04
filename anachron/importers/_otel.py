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
attribute is an ``error`` call; one without its result attribute (content
capture off) is ``unrecorded``, unless a chat span shows the result.

Chat spans (:mod:`._otel_chat`) give the calls of instrumentations that
write no tool span: every ``tool_call`` of their messages is a call, every
``tool_call_response`` its result, paired by call id; a tool span with the
same call id is the same call.  Traces whose chat spans continue one
conversation (one span's inputs begin with all of another's messages) are
one sample, named by the first trace.  A chat span whose finish reason
says it called tools and whose output shows none is one ``unrecorded``
call of the tool ``unknown``.  Each record's ``warnings`` name the cause of every unrecorded
call and the setting of its instrumentation that makes the log complete.
Attributes of a chat or tool span under ``gen_ai.``, ``llm.``, ``traceloop.``,
``tool.``, ``input.`` or ``output.`` that are neither read nor known to be
irrelevant (:func:`unknown_attribute`) are counted per name, and the record
warns once: ``skipped 3 unknown attributes (gen_ai.foo, llm.bar x2): update
anachron if they hold tool calls or results``.
The answer is the text of the last output message of the last span to end
that has one (GenAI ``gen_ai.output.messages``, OpenInference
``llm.output_messages``, else the response in ``output.value``), or an
OpenInference ``AGENT`` span's ``output.value``.
"""

from __future__ import annotations

import ast
import contextlib
import json
import marshal
import re
import tempfile
from typing import Any, Iterator, Mapping

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import Record, json_or_none
from anachron.importers._common import Options, Session, parse_arguments
from anachron.importers._otel_index import DiskIndex
from anachron.importers._otel_chat import CHAT_ATTRIBUTES, GENAI, OPENINFERENCE, PYDANTIC_AI, TRACELOOP, Turn, answer_text, chat_turn, signature
from anachron.importers._otel_otlp import Streamed, checked_items, document_items, event_span, iso_time, nanos
from anachron.importers._otel_otlp import spans as otlp_spans

FORMAT = "otel"

CONVENTIONS = (
    # (attribute marking a tool span, its value, name, arguments, result)
    ("gen_ai.operation.name", "execute_tool", "gen_ai.tool.name", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"),
    ("openinference.span.kind", "TOOL", "tool.name", "input.value", "output.value"),
    ("traceloop.span.kind", "tool", "traceloop.entity.name", "traceloop.entity.input", "traceloop.entity.output"),
)
CALL_ID = "gen_ai.tool.call.id"
MAX_REPR = 64 * 1024  # characters of a Python repr read as a literal (bounds hostile input)
PYDANTIC_AI_V2 = ("tool_arguments", "tool_response")  # pydantic-ai InstrumentationSettings(version=2..4)
REDACTED = "__REDACTED__"  # what OpenInference writes for a hidden value
# Unknown attributes: on the spans read, a name under these prefixes that is neither read nor known
# to be irrelevant is counted, and the record warns (it may hold calls or results of a newer version).
WATCHED = ("gen_ai.", "llm.", "traceloop.", "tool.", "input.", "output.")
READ = CHAT_ATTRIBUTES | {name for convention in CONVENTIONS for name in convention} | {"gen_ai.tool.call.id"}
# Known and irrelevant to leakage (ids, names, models, token counts, timings, settings, tool schemas),
# as the instrumentations of tests/data/importers/otel write them; indexes written N.
IGNORED = frozenset({
    "gen_ai.agent.call.id", "gen_ai.agent.name", "gen_ai.agent.id", "gen_ai.agent.description", "gen_ai.conversation.id",
    "gen_ai.provider.name", "gen_ai.system", "gen_ai.response.id", "gen_ai.response.model", "gen_ai.output.type",
    "gen_ai.system_instructions", "gen_ai.task.status", "gen_ai.tool.definitions", "gen_ai.tool.description",
    "gen_ai.tool.type", "input.mime_type", "output.mime_type", "llm.invocation_parameters", "llm.model_name",
    "llm.provider", "llm.system", "llm.tools.N.tool.json_schema", "llm.input_messages.N.message.name",
    "llm.output_messages.N.message.name", "tool.description", "tool.parameters", "traceloop.entity.path",
    "traceloop.entity.version",
})
IGNORED_FAMILIES = ("gen_ai.usage.", "gen_ai.aggregated_usage.", "gen_ai.request.", "llm.token_count.",
                    "traceloop.association.properties.")
SHOWN_UNKNOWN = 5  # names a warning lists; the rest are counted
# Traces, chat spans and tool spans the first reading of a streamed log keeps in memory (a few numbers each) before
# it moves them to disk (DiskIndex): memory stays bounded, and a log of 10,000 sessions (80,000 of them) stays in memory.
_JOIN_BUDGET = 1 << 17
_INDEX = re.compile(r"\.\d+(?=\.|\Z)")
# A span as read: (start ns, rank in the file, where, the span, its attributes, its scope's name).
Entry = tuple[int, int, str, Mapping[str, Any], dict[str, Any], str]


def _wanted(attributes: Mapping[str, Any]) -> bool:
    """A log event read as a span: a chat span's or a tool span's attributes (other log records are not read)."""
    return chat_turn(attributes) is not None or _convention(attributes) is not None


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
    return _message_content(parsed)


def _message_content(value: Any) -> Any:
    """A LangChain message object's content, else *value*: a serialised message (``{"lc": 1, "kwargs":
    {"content"}}``, Traceloop), a message dump (``{"type": "tool", "data": {"content"}}``, OpenInference),
    or either under ``output``, as the two LangChain instrumentations write a tool's result."""
    parsed = parse_arguments(value) if isinstance(value, str) and value.lstrip()[:1] == "{" else value
    if isinstance(parsed, dict) and isinstance(parsed.get("output"), dict):  # Traceloop: {"output": message, "kwargs"}
        inner = _message_content(parsed["output"])
        return inner if inner is not parsed["output"] else value
    if isinstance(parsed, dict) and isinstance(parsed.get("kwargs"), dict) and "content" in parsed["kwargs"] and "lc" in parsed:
        return parsed["kwargs"]["content"]
    if isinstance(parsed, dict) and isinstance(parsed.get("data"), dict) and "content" in parsed["data"] and isinstance(
            parsed.get("type"), str):
        return parsed["data"]["content"]
    return value


def _result_content(value: Any) -> tuple[Any, Any]:
    """:func:`_message_content` of a tool's result, and the JSON it parsed when that is the result itself
    (a plain JSON result, the usual case: :meth:`Session.result` reads it without parsing it again)."""
    if not (isinstance(value, str) and value.lstrip()[:1] == "{"):
        return _message_content(value), None
    parsed = parse_arguments(value)
    if not isinstance(parsed, dict):
        return value, None
    content = _message_content(parsed)
    return (value, parsed) if content is parsed else (content, None)


def _answer(attributes: Mapping[str, Any]) -> str | None:
    """The answer on a span that is not a chat span: an OpenInference ``AGENT`` span's ``output.value``
    (its text, or the ``output`` / ``final_output`` string of a JSON object)."""
    value = attributes.get("output.value")
    if attributes.get("openinference.span.kind") != "AGENT" or not isinstance(value, str) or value == REDACTED:
        return None
    parsed = json_or_none(value) if value.lstrip()[:1] in ("{", "[") else None
    if parsed is None:
        return value
    for key in ("output", "final_output"):
        if isinstance(parsed, dict) and isinstance(parsed.get(key), str):
            return parsed[key]
    return None


def _failed(span: Mapping[str, Any], attributes: Mapping[str, Any]) -> str | None:
    status = span.get("status") if isinstance(span.get("status"), dict) else {}
    if status.get("code") in (2, "STATUS_CODE_ERROR") or "error.type" in attributes:
        message = status.get("message") or attributes.get("error.type") or "error"
        return message if isinstance(message, str) else json.dumps(message)
    return None


def _unrecorded(entry: dict[str, Any]) -> None:
    """The log shows the call, not its result: neither clean nor leaking (the band widens)."""
    entry["status"] = "unrecorded"
    entry.pop("error", None)
    entry.pop("returned", None)


def _links(turn: Turn) -> tuple[tuple[int, ...], tuple[int, ...], int, bool]:
    """What of a chat span ties traces together (:func:`_join`): the keys of the calls its output made,
    the running hashes of its input messages but the last, the hash of its whole conversation, whether it has one."""
    made: list[int] = []
    for _, parts in turn.outputs:
        for part in parts:
            if part.get("type") == "tool_call" and isinstance(part.get("name"), str):
                arguments = parse_arguments(part.get("arguments"))
                made += _made_keys(part.get("id"), part["name"], arguments) + _made_keys(None, part["name"], arguments)
    running, prefixes = 0, []
    for message in turn.inputs:
        running = hash((running, signature(message)))
        prefixes.append(running)
    for message in turn.outputs:
        running = hash((running, signature(message)))
    # Tuples: kept to the end of the first reading, and a tuple of strings and numbers is no work for the garbage collector.
    return tuple(made), tuple(prefixes[:-1]), running, bool(turn.inputs or turn.outputs)


def _tool_key(span: Mapping[str, Any], attributes: Mapping[str, Any], convention: tuple[str, str, str, str, str],
              arguments: Any) -> int:
    """What ties a tool span (*arguments*: its :func:`_tool_arguments`) to the chat call it ran
    (:func:`_made_keys`): one number, kept to the end of the first reading in place of its name and arguments."""
    ident = attributes.get(CALL_ID)
    if isinstance(ident, str) and ident:
        return _made_keys(ident, None, None)[0]
    return _made_keys(None, attributes.get(convention[2]) or span.get("name"), arguments)[0]


def _join(first: Mapping[str, int], turns: Mapping[str, list[tuple[int, int, Any]]],
          tools: Mapping[str, list[int]]) -> dict[str, str]:
    """Each trace's sample: its own, or that of the conversation a span of it continues.

    *first*: each trace's earliest start; *turns*: its chat spans' (start, rank, :func:`_links`);
    *tools*: its tool spans' :func:`_tool_key`.  A chat span whose input messages begin with all
    of an earlier chat span's messages (inputs and outputs) continues its conversation; of
    several, the longest one, then the last to start.  A tool span runs the call a chat span's
    output made: same call id, else (a span without one) same name and arguments.  Such traces
    are one sample, named by the first trace to start (whatever the order the ties are met in).
    """
    parent = {trace_id: trace_id for trace_id in first}

    def root(trace_id: str) -> str:
        while parent[trace_id] != trace_id:
            parent[trace_id] = parent[parent[trace_id]]
            trace_id = parent[trace_id]
        return trace_id

    def union(a: str, b: str) -> None:
        a, b = root(a), root(b)
        if a != b:
            earlier, later = sorted((a, b), key=lambda t: (first[t], t))
            parent[later] = earlier

    ordered = sorted((start, order, trace_id, links) for trace_id, entries in turns.items() for start, order, links in entries)
    made: dict[int, str] = {}  # a call of a chat span's output -> its trace
    for _, _, trace_id, links in ordered:
        for key in links[0]:
            made.setdefault(key, trace_id)
    for trace_id, keys in tools.items() if made else ():
        for key in keys:
            if key in made:
                union(made[key], trace_id)
    seen: dict[int, str] = {}  # running hash of a whole conversation -> the trace of the last span that had it
    for _, _, trace_id, (_, prefixes, running, talked) in ordered:
        for prefix in reversed(prefixes):
            if prefix in seen:
                union(seen[prefix], trace_id)
                break
        if talked:
            seen[running] = trace_id
    return {trace_id: root(trace_id) for trace_id in first}


# json_line(value, ensure_ascii=True, default=str), its encoder made once (json.dumps makes one a call when given options).
_KEY_TEXT = json.JSONEncoder(ensure_ascii=True, default=str, sort_keys=True).encode


def _made_keys(ident: Any, name: Any, arguments: Any) -> list[int]:
    """What ties a tool span to the chat call it ran: the call id; without one, the name and arguments.
    Their hash, as for a conversation (:func:`_links`): the first reading keeps it for every span to the end."""
    if isinstance(ident, str) and ident:
        return [hash("id:" + ident)]
    return [hash(_KEY_TEXT([name, arguments]))]


def read(path: str, options: Options) -> Iterator[Record]:
    """The samples of the log, in the order their first trace appears.

    A trace's spans may be spread over the whole file, so a JSON Lines log is
    read line by line, never whole (:func:`_survey`): every span is checked and
    the traces are joined into samples, keeping a few numbers a trace, chat span
    and tool span (on disk past a budget: :class:`DiskIndex`); a sample whose traces all start and end on one line is built
    as soon as that line is read and set aside on disk (:class:`_Spill`).  A
    sample the rest of the log proves otherwise (a later span of its traces, a
    trace joined to it) is built again by a second reading, once the line of its
    last span is read.  A log of one document, and one with a log event that
    names a span (the GenAI event mode adds attributes to spans so), is read whole.
    """
    streamed = Streamed(path)
    with _Spill() as spill, contextlib.ExitStack() as disk:
        try:
            documents = streamed.checked()
            plan = None if documents is None else _survey(path, documents, options, spill, disk)
        except AnachronError as exc:
            raise streamed.finish(exc) from None
        if plan is None:
            yield from _read_held(path, options)
            return
        samples, unready, wanted_log = plan
        rest = None  # the second reading, begun at the first sample it must build
        try:
            for sample_id, line, place in samples:
                if place is not None:
                    yield spill.get(place)
                    continue
                if rest is None:
                    rest = _built_again(streamed, unready, wanted_log, options)
                    next(rest)
                yield rest.send((sample_id, line))
        finally:
            if rest is not None:
                rest.close()


def _built_again(streamed: Streamed, unready: Any, wanted_log: Any, options: Options) -> Any:
    """The second reading: a coroutine sent (sample, its last line) in order, answering its (where, record).

    Only the spans of samples not built by the first reading are held (*unready*: a trace's sample, or
    ``None`` when the first reading built it); *wanted_log*: whether a log event's rank is read as a
    span.  The log is read no further than the last line of the last sample asked."""
    held: dict[str, list[Entry]] = {}  # the spans of the samples not built yet
    order = 0
    lines = streamed.again()
    index = -1
    answer: Any = None
    while True:
        sample_id, line = yield answer
        while index < line:
            index, where, document = next(lines)
            for at, item, attributes, scope, is_log in checked_items(where, document):
                order += 1
                if is_log and not wanted_log(order):
                    continue
                span = event_span(at, item) if is_log else item
                sample = unready(span["traceId"])
                if sample is not None:
                    start = nanos(span.get("startTimeUnixNano"), at, "startTimeUnixNano")
                    held.setdefault(sample, []).append((start, order, at, span, attributes, scope))
        spans = held.pop(sample_id)
        spans.sort(key=lambda entry: (entry[0], entry[1]))
        answer = spans[0][2], _record(spans, sample_id, options)


class _Spill:
    """Records built by the first reading, kept on disk until their turn (memory stays bounded):
    :meth:`put` returns where a record is, :meth:`get` reads it back.  The file is made at the first
    record and removed on leaving the ``with`` block."""

    def __init__(self) -> None:
        self.file: Any = None
        self.end = 0
        self.at = -1  # where the file's position is when reading (records are read back in the order written)

    def __enter__(self) -> "_Spill":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.file is not None:
            self.file.close()

    def put(self, built: tuple[str, Record]) -> int | None:
        """Where *built* (where, record) is kept (its offset and length in one number: the first reading keeps
        one a sample); ``None`` when marshal cannot write it (too deep: built again)."""
        try:
            data = marshal.dumps(built)
        except ValueError:
            return None
        if len(data) >> 32:
            return None  # a record of 4 GiB or more is not kept: built again
        if self.file is None:
            self.file = tempfile.TemporaryFile()
        self.file.write(data)  # every put comes before the first get: the file's position is its end
        self.end += len(data)
        return (self.end - len(data)) << 32 | len(data)

    def get(self, place: int) -> tuple[str, Record]:
        offset, length = place >> 32, place & 0xFFFFFFFF
        if self.at != offset:
            self.file.seek(offset)
        self.at = offset + length
        return marshal.loads(self.file.read(length))


def _survey(path: str, documents: Iterator[tuple[int, str, Any]], options: Options, spill: _Spill,
            disk: contextlib.ExitStack) -> tuple[Iterator[tuple[str, int, int | None]], Any, Any] | None:
    """The first reading of a streamed log: every span checked, as :func:`_read_held` checks it, and
    the samples: (each sample, its last line and where *spill* holds it when built already, in the order
    samples are written; a trace's sample unless built already, else ``None``; whether a log event's
    rank is read as a span).  ``None`` when a log event names a span (it may add attributes to it: the
    log is read whole, with them).

    A line's traces that no earlier line holds are joined among themselves and their samples built
    (:func:`_built_early`); at the end such a sample stands when the whole log joins the same traces
    into it and no later line holds a span of them.  Past :data:`_JOIN_BUDGET` traces and spans kept,
    the maps go to a :class:`DiskIndex` (*disk* closes it), which joins them at the end."""
    # trace -> (earliest start, its rank, its where (kept only for --sample-id-from's error), last line)
    traces: dict[str, tuple[int, int, str | None, int]] = {}
    keyed = options.sample_id_from is not None
    turns: dict[str, list[tuple[int, int, Any]]] = {}
    tools: dict[str, list[int]] = {}
    keys: dict[str, str] = {}
    wanted_logs: set[int] = set()
    late: AnachronError | None = None  # a bad time: reported after every span is read, as before
    early: dict[str, Any] = {}  # sample -> (its line, its traces, where the spill keeps it), or None
    order = 0
    kept = 0  # traces, chat spans and tool spans in the maps above
    on_disk: DiskIndex | None = None
    for index, where, document in documents:
        line: list[tuple[Entry, Any]] = []  # this line's spans, with (turn, convention, end, arguments), for _built_early
        fresh: dict[str, None] = {}  # the traces this line is the first to hold, in order
        for at, item, resource, attributes, scope, is_log in document_items(where, document):
            order += 1
            turn = chat_turn(attributes, scope)
            convention = _convention(attributes)
            if is_log:
                if turn is None and convention is None:
                    continue
                wanted_logs.add(order)
                span = event_span(at, item)
                if isinstance(span.get("spanId"), str) and span["spanId"] != "":
                    # It may add attributes to a span (the GenAI event mode): read whole, where the spans are
                    # held to be found (keeping every span's ids here would grow with the log).
                    return None
            else:
                span = item
            trace_id = span["traceId"]
            start = span.get("startTimeUnixNano")
            end = span.get("endTimeUnixNano")
            # The usual times, 19 digits at most (below 2^64): nanos() in brief, without a call a span.
            if not (type(start) is str and type(end) is str and len(start) < 20 and len(end) < 20 and start.isdigit()
                    and end.isdigit() and start.isascii() and end.isascii()):
                start = end = 0
                try:
                    start = nanos(span.get("startTimeUnixNano"), at, "startTimeUnixNano")
                    end = nanos(span.get("endTimeUnixNano"), at, "endTimeUnixNano")
                except AnachronError as exc:
                    late = late or exc
            else:
                start, end = int(start), int(end)
            trace = traces.get(trace_id)
            if trace is None:
                traces[trace_id] = (start, order, at if keyed else None, index)
                fresh[trace_id] = None
                kept += 1
            elif start < trace[0]:
                traces[trace_id] = (start, order, at if keyed else None, index)
            elif trace[3] != index:
                traces[trace_id] = trace[:3] + (index,)
            arguments = _UNREAD
            if turn is not None:
                turns.setdefault(trace_id, []).append((start, order, _links(turn)))
                kept += 1
            elif convention is not None:
                arguments = _tool_arguments(attributes, convention)  # read once: for the join and the sample
                tools.setdefault(trace_id, []).append(_tool_key(span, attributes, convention, arguments))
                kept += 1
            line.append(((start, order, at, span, attributes, scope), (turn, convention, end, arguments)))
            if options.sample_id_from is not None and trace_id not in keys:
                value = attributes.get(options.sample_id_from, resource.get(options.sample_id_from))
                if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
                    keys[trace_id] = str(value)
        if fresh and late is None:
            _built_early(index, line, fresh, traces, turns, tools, keys, options, spill, early)
        if kept > _JOIN_BUDGET:  # after a bad time too: every line is still checked, in bounded memory
            if on_disk is None:
                on_disk = DiskIndex()
                disk.callback(on_disk.close)
            on_disk.add(traces, turns, tools, keys, wanted_logs, early)
            traces, turns, tools, keys, wanted_logs, early, kept = {}, {}, {}, {}, set(), {}, 0
    if late is not None:
        raise late
    if on_disk is not None:
        on_disk.add(traces, turns, tools, keys, wanted_logs, early)
        return on_disk.plan(options.sample_id_from)
    if not traces:
        raise AnachronError(f"{path}: no span in the log (expected OTLP JSON with resourceSpans / scopeSpans / spans)")
    if options.sample_id_from is None:
        sample_of = _join({trace_id: trace[0] for trace_id, trace in traces.items()}, turns, tools)
    else:
        for trace_id, trace in traces.items():
            if trace_id not in keys:
                raise AnachronError(
                    f"{trace[2]}: no span or resource of trace {trace_id} has attribute {options.sample_id_from!r} (--sample-id-from)")
        sample_of = keys
    last_line: dict[str, int] = {}
    size: dict[str, int] = {}
    for trace_id, trace in traces.items():
        sample_id = sample_of[trace_id]
        last_line[sample_id] = max(last_line.get(sample_id, -1), trace[3])
        size[sample_id] = size.get(sample_id, 0) + 1
    ready = {}  # the samples built early that stand: the whole log agrees with their line
    for sample_id, built in early.items():
        if built is not None and last_line.get(sample_id) == built[0] and size[sample_id] == len(built[1]) and all(
                sample_of[trace_id] == sample_id for trace_id in built[1]):
            ready[sample_id] = built[2]
    samples = ((sample_id, line, ready.get(sample_id)) for sample_id, line in last_line.items())
    return samples, lambda trace_id: None if sample_of[trace_id] in ready else sample_of[trace_id], wanted_logs.__contains__


def _built_early(index: int, line: list[tuple[Entry, Any]], fresh: Mapping[str, None], traces: Mapping[str, tuple],
                 turns: Mapping[str, list[tuple[int, int, Any]]], tools: Mapping[str, list[int]],
                 keys: Mapping[str, str], options: Options, spill: _Spill, early: dict[str, Any]) -> None:
    """The samples of the traces that line *index* is the first to hold, joined as if the log ended there, built
    into *spill* and noted in *early*: (the line, the traces, where the record is kept), or ``None`` for a sample
    that cannot be built early (named twice, or its record an error: the second reading builds it, or reports it)."""
    if options.sample_id_from is None:
        joined = _join({trace_id: traces[trace_id][0] for trace_id in fresh},
                       {trace_id: turns[trace_id] for trace_id in fresh if trace_id in turns},
                       {trace_id: tools[trace_id] for trace_id in fresh if trace_id in tools})
    else:
        joined = {trace_id: keys[trace_id] for trace_id in fresh if trace_id in keys}
    members: dict[str, list[str]] = {}
    for trace_id in fresh:
        if trace_id in joined:
            members.setdefault(joined[trace_id], []).append(trace_id)
    spans: dict[str, list[Entry]] = {}
    known: dict[int, Any] = {}  # each span's chat turn, convention and end, by rank, worked out once
    for entry, kind in line:
        sample_id = joined.get(entry[3]["traceId"])
        if sample_id is not None:
            spans.setdefault(sample_id, []).append(entry)
            known[entry[1]] = kind
    for sample_id, kept in members.items():
        if sample_id in early:
            early[sample_id] = None  # a sample of two lines' traces: built by the second reading
            continue
        entries = spans[sample_id]
        entries.sort(key=lambda entry: (entry[0], entry[1]))
        try:
            built = (entries[0][2], _record(entries, sample_id, options, known))
        except AnachronError:
            early[sample_id] = None  # reported where the second reading builds it, after the samples before it
            continue
        place = spill.put(built)
        early[sample_id] = None if place is None else (index, tuple(kept), place)


def _read_held(path: str, options: Options) -> Iterator[Record]:
    """:func:`read` for a log read whole."""
    traces: dict[str, list[Entry]] = {}
    turns: dict[str, list[tuple[int, int, Any]]] = {}
    tools: dict[str, list[int]] = {}
    keys: dict[str, str] = {}
    for order, (at, span, resource, attributes, scope) in enumerate(otlp_spans(path, _wanted)):
        trace_id = span["traceId"]
        start = nanos(span.get("startTimeUnixNano"), at, "startTimeUnixNano")
        nanos(span.get("endTimeUnixNano"), at, "endTimeUnixNano")
        traces.setdefault(trace_id, []).append((start, order, at, span, attributes, scope))
        turn = chat_turn(attributes, scope)
        if turn is not None:
            turns.setdefault(trace_id, []).append((start, order, _links(turn)))
        elif _convention(attributes) is not None:
            convention = _convention(attributes)
            tools.setdefault(trace_id, []).append(_tool_key(span, attributes, convention, _tool_arguments(attributes, convention)))
        if options.sample_id_from is not None and trace_id not in keys:
            value = attributes.get(options.sample_id_from, resource.get(options.sample_id_from))
            if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
                keys[trace_id] = str(value)
    if not traces:
        raise AnachronError(f"{path}: no span in the log (expected OTLP JSON with resourceSpans / scopeSpans / spans)")
    for spans in traces.values():
        spans.sort(key=lambda entry: (entry[0], entry[1]))
    samples: dict[str, list[Entry]] = {}
    if options.sample_id_from is None:
        joined = _join({trace_id: spans[0][0] for trace_id, spans in traces.items()}, turns, tools)
        for trace_id, spans in traces.items():
            samples.setdefault(joined[trace_id], []).extend(spans)
    for trace_id, spans in traces.items() if options.sample_id_from is not None else ():
        if trace_id not in keys:
            raise AnachronError(
                f"{spans[0][2]}: no span or resource of trace {trace_id} has attribute {options.sample_id_from!r} (--sample-id-from)"
            )
        samples.setdefault(keys[trace_id], []).extend(spans)
    for sample_id, spans in samples.items():
        spans.sort(key=lambda entry: (entry[0], entry[1]))
        yield spans[0][2], _record(spans, sample_id, options)


# Per convention: what turns content capture off, and the setting that turns it on (docs/importers.md).
CAPTURE = {
    GENAI: ("content capture is off", "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY "
            "with OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental"),
    OPENINFERENCE: ("inputs and outputs are hidden or not captured",
                    "unset OPENINFERENCE_HIDE_INPUTS and OPENINFERENCE_HIDE_OUTPUTS; "
                    "the OpenAI Agents SDK also needs RunConfig(trace_include_sensitive_data=True), its default"),
    TRACELOOP: ("content capture is off", "set TRACELOOP_TRACE_CONTENT=true"),
    PYDANTIC_AI: ("content capture is off", "instrument the agent with InstrumentationSettings(include_content=True), the default"),
}
TOOL_SPAN_CONVENTION = {CONVENTIONS[0]: GENAI, CONVENTIONS[1]: OPENINFERENCE, CONVENTIONS[2]: TRACELOOP}
UNKNOWN_TOOL = "unknown"  # a call the log only counts (a chat span's finish reason), without its name


def _call_key(part: Mapping[str, Any], occurrences: dict[str, int]) -> str:
    """A chat call's identity across spans: its id; without one, its name, arguments and rank among equals."""
    if isinstance(part.get("id"), str) and part["id"]:
        return "id:" + part["id"]
    text = _KEY_TEXT([part.get("name"), part.get("arguments")])
    occurrences[text] = occurrences.get(text, 0) + 1
    return f"{text}#{occurrences[text]}"


def _restated(key: str, part: Mapping[str, Any], chat_calls: Mapping[str, Any], made_out: set[str],
              aliases: dict[str, str]) -> str:
    """An input message's call under an id no output used: the earliest output call of the same name and
    arguments that no other such id restates already, else its own key.

    The Responses API gives a function call two ids, the item's (``fc_...``) and the ``call_id``
    its output pairs with; Traceloop's instrumentation of the OpenAI Agents SDK writes the first in
    the next chat span's input and the second in the output that made the call: one call, not two.
    """
    def same(other: Mapping[str, Any]) -> bool:
        return other.get("name") == part.get("name") and _canonical(other.get("arguments")) == _canonical(part.get("arguments"))

    taken = set(aliases.values())
    for other in chat_calls:
        if other in made_out and other not in taken and same(chat_calls[other][3]):
            aliases[key] = other
            return other
    return key


def _canonical(arguments: Any) -> str:
    parsed = parse_arguments(arguments) if isinstance(arguments, str) else arguments
    return json.dumps(parsed, sort_keys=True, ensure_ascii=True, default=str)


def unknown_attribute(key: str) -> str | None:
    """The name counted for an attribute of a span read (indexes written ``N``), or ``None`` when it is not counted.

    Counted: a name under :data:`WATCHED` that is neither read (:data:`READ`) nor
    known irrelevant (:data:`IGNORED`, :data:`IGNORED_FAMILIES`).

    >>> unknown_attribute("gen_ai.prompt.3.content"), unknown_attribute("gen_ai.usage.input_tokens")
    ('gen_ai.prompt.N.content', None)
    >>> unknown_attribute("llm.output_messages.0.message.tool_calls.1.tool_call.id"), unknown_attribute("http.url")
    (None, None)
    """
    if key in _COUNTED:
        return _COUNTED[key]
    if not key.startswith(WATCHED) or key.startswith(IGNORED_FAMILIES):
        name = None
    else:
        name = _INDEX.sub(".N", key)
        name = None if name in READ or name in IGNORED else name
    if len(_COUNTED) < MAX_COUNTED:  # a log of ever new names keeps to the bound
        _COUNTED[key] = name
    return name


MAX_COUNTED = 4096  # attribute names whose verdict is kept (the instrumentations write a few dozen)
_COUNTED: dict[str, str | None] = {}
_UNSEEN = object()  # no verdict cached for a name yet
_UNREAD = object()  # a tool span's arguments the first reading did not read


def _unknown_warning(counts: Mapping[str, int]) -> str | None:
    """``skipped 3 unknown attributes (gen_ai.foo, llm.bar x2): ...``: the most frequent names first, capped."""
    if not counts:
        return None
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    shown = [name[:80] + (f" x{count}" if count > 1 else "") for name, count in ranked[:SHOWN_UNKNOWN]]
    if len(ranked) > SHOWN_UNKNOWN:
        more = len(ranked) - SHOWN_UNKNOWN
        shown.append(f"and {more} more name{'s' if more > 1 else ''}")
    total = sum(counts.values())
    return (f"skipped {total} unknown attribute{'s' if total > 1 else ''} ({', '.join(shown)}):"
            " update anachron if they hold tool calls or results")


def _record(spans: list[Entry], sample_id: str, options: Options, known: Mapping[int, Any] | None = None) -> Record:
    """One sample: tool spans, then the chat spans' calls no tool span made (same call id), in time order.

    *known*: each span's :func:`chat_turn`, :func:`_convention`, end and a tool span's :func:`_tool_arguments`, by rank,
    when the first reading has them."""
    session = Session(spans[0][2].split(" ", 1)[0], FORMAT, options.corpus)
    last_end = -1
    tool_ids: set[str] = set()
    kinds = []  # each span's convention, worked out once (every step below asks it)
    for _, order, _, _, attributes, _ in spans:
        convention = _convention(attributes) if known is None else known[order][1]
        kinds.append(convention)
        if convention is not None and isinstance(attributes.get(CALL_ID), str):
            tool_ids.add(attributes[CALL_ID])
    # Every chat call and response of the sample, by call identity.
    chat_calls: dict[str, tuple[int, int, str, dict[str, Any]]] = {}
    made_out: set[str] = set()  # the calls a chat span's output made
    aliases: dict[str, str] = {}  # an input call's id no output used -> the output call it restates
    responses: dict[str, Any] = {}
    missing: dict[str, int] = {}  # per convention: calls the log shows without their result
    blind: dict[str, int] = {}  # per convention: chat spans that recorded no message
    unseen: dict[str, int] = {}  # per convention: of those, the ones whose model called tools
    events: list[tuple[int, int, str, Any]] = []
    skipped: dict[str, int] = {}
    for (start, order, at, span, attributes, scope), convention in zip(spans, kinds):
        turn, _, end, arguments = (chat_turn(attributes, scope), None, None, _UNREAD) if known is None else known[order]
        convention = convention if turn is None else None
        for key in attributes if turn is not None or convention is not None else ():  # the chat and tool spans: those read
            name = _COUNTED.get(key, _UNSEEN)  # the cached verdict, without a call a key
            if name is _UNSEEN:
                name = unknown_attribute(key)
            if name is not None and key != options.sample_id_from:
                skipped[name] = skipped.get(name, 0) + 1
        if end is None:
            end = nanos(span.get("endTimeUnixNano"), at, "endTimeUnixNano")
        answer = _answer(attributes) if turn is None else answer_text(turn)
        if answer is not None and end >= last_end:
            last_end = end
            session.final_answer(answer)
        if turn is None:
            if convention is not None:
                events.append((start, order, "tool", (at, span, attributes, scope, convention, arguments)))
            continue
        shown = any(part.get("type") == "tool_call" for _, parts in turn.outputs for part in parts)
        if turn.called_tools and not shown:  # its finish reason says it called tools the log does not show
            events.append((end, order, "blind", turn.convention))
        if not turn.recorded:
            blind[turn.convention] = blind.get(turn.convention, 0) + 1
            continue
        occurrences: dict[str, int] = {}
        for side, messages in (("in", turn.inputs), ("out", turn.outputs)):
            for _, parts in messages:
                for part in parts:
                    if part.get("type") == "tool_call" and isinstance(part.get("name"), str) and part["name"]:
                        key = _call_key(part, occurrences)
                        if side == "in" and key.startswith("id:") and key not in chat_calls:
                            key = aliases.get(key) or _restated(key, part, chat_calls, made_out, aliases)
                        elif side == "out":
                            made_out.add(key)
                        if key not in chat_calls:
                            chat_calls[key] = (end if side == "out" else start, order, turn.convention, dict(part))
                    elif part.get("type") == "tool_call_response" and isinstance(part.get("id"), str) and "response" in part:
                        responses.setdefault("id:" + part["id"], part["response"])  # without it: content off
    # A tool span without a call id is the next chat call of its name that no tool span made (LangChain's).
    queues: dict[str, list[str]] = {}
    for key, (_, _, _, part) in chat_calls.items():
        if not (isinstance(part.get("id"), str) and part["id"] in tool_ids):
            queues.setdefault(part["name"], []).append(key)
    paired: dict[int, str] = {}
    for _, order, kind, payload in sorted(events, key=lambda e: (e[0], e[1])) if queues else ():  # no chat call: none to pair
        if kind == "tool" and not isinstance(payload[2].get(CALL_ID), str):
            name = payload[2].get(payload[4][2]) or payload[1].get("name")
            if queues.get(name):
                paired[order] = queues[name].pop(0)
    made = set(paired.values())
    for key, (time, order, convention, part) in chat_calls.items():
        if key not in made and (part.get("id") not in tool_ids or not isinstance(part.get("id"), str)):
            events.append((time, order, "chat", (key, convention, part)))
    synthetic: list[dict[str, Any]] = []
    for time, order, kind, payload in sorted(events, key=lambda e: (e[0], e[1])):
        if kind == "tool":
            at, span, attributes, scope, convention, arguments = payload
            chat = chat_calls[paired[order]][3] if order in paired else None
            entry = _tool_call(session, at, time, span, attributes, convention, responses, chat, arguments)
            if entry["status"] == "unrecorded":
                name = PYDANTIC_AI if scope == PYDANTIC_AI else TOOL_SPAN_CONVENTION[convention]
                missing[name] = missing.get(name, 0) + 1
        elif kind == "chat":
            key, convention, part = payload
            arguments = parse_arguments(part.get("arguments"))
            entry = _call(session, part["name"], arguments, part.get("id") or None, time)
            if key in responses:
                session.result(entry, _message_content(responses[key]))
            else:
                _unrecorded(entry)
                missing["end"] = missing.get("end", 0) + 1
        else:
            entry = _call(session, UNKNOWN_TOOL, None, None, time)
            _unrecorded(entry)
            synthetic.append(entry)
            unseen[payload] = unseen.get(payload, 0) + 1
    record = session.record(sample_id, options)
    for entry in synthetic:
        entry.pop("retrieval", None)  # its name is unknown: it may have retrieved (fail closed)
    for entry in session.calls:
        if entry["status"] == "unrecorded":
            entry.pop("returned", None)  # a local call gets an empty one: an unrecorded call has none
    unknown = _unknown_warning(skipped)
    warnings = record.get("warnings", []) + _warnings(missing, unseen, blind, bool(session.calls)) + ([unknown] if unknown else [])
    if warnings:
        record["warnings"] = warnings
    return record


def _warnings(missing: Mapping[str, int], unseen: Mapping[str, int], blind: Mapping[str, int], any_call: bool) -> list[str]:
    """One line per cause, naming the setting that makes the log complete."""
    lines = []
    for convention, count in unseen.items():
        cause, fix = CAPTURE[convention]
        lines.append(f"{count} chat span(s) ended in tool calls the log does not show (each counted as one "
                     f"unrecorded call of an unknown tool): {cause} ({fix})")
    for convention, count in missing.items():
        if convention == "end":
            lines.append(f"{count} tool call(s) recorded no result: the log ends before the chat span that would show it "
                         "(a truncated log, or a run that stopped)")
        else:
            cause, fix = CAPTURE[convention]
            lines.append(f"{count} tool call(s) recorded no result: {cause} ({fix})")
    if not any_call:
        for convention, count in blind.items():
            cause, fix = CAPTURE[convention]
            lines.append(f"{count} chat span(s) recorded no message and the trace no tool call: {cause} ({fix})")
    return lines


def _tool_arguments(attributes: Mapping[str, Any], convention: tuple[str, str, str, str, str]) -> Any:
    """A tool span's arguments, parsed: JSON; LangChain's callback input (``{"input_str", "inputs"}``, or
    OpenLLMetry's ``{"inputs"}``) unwrapped; a Python dict repr (OpenInference's LangChain tool input) read
    as a literal."""
    key = convention[3]
    if convention is CONVENTIONS[0] and key not in attributes:  # pydantic-ai's format versions 2 to 4
        key = PYDANTIC_AI_V2[0]
    raw = attributes.get(key)
    if raw == REDACTED:  # hidden (OPENINFERENCE_HIDE_INPUTS): no arguments, never the placeholder read as them
        return None
    arguments = parse_arguments(raw)
    if isinstance(arguments, dict) and isinstance(arguments.get("inputs"), dict) and (
            convention is CONVENTIONS[2] or "input_str" in arguments):
        return arguments["inputs"]
    if isinstance(arguments, str) and arguments.lstrip()[:1] == "{" and len(arguments) <= MAX_REPR:
        try:
            literal = ast.literal_eval(arguments)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return arguments
        if not isinstance(literal, dict) or not all(isinstance(k, str) for k in literal):
            return arguments
        try:
            text = json.dumps(literal)  # JSON values only: a set, bytes or NaN keeps the text
        except (TypeError, ValueError, RecursionError):
            return arguments
        parsed = json_or_none(text)
        return arguments if parsed is None else parsed
    return arguments


def _call(session: Session, name: str, arguments: Any, call_id: str | None, start: int) -> dict[str, Any]:
    """:meth:`Session.call` at the OTLP time *start*: ``iso_time`` writes an ISO time that call() would
    only parse again to check it, so it is set here, where call() would put it (its last key)."""
    entry = session.call(name, arguments, call_id=call_id)
    time = iso_time(start)
    if time is not None:
        entry["time"] = time
    return entry


def _tool_call(session: Session, at: str, start: int, span: Mapping[str, Any], attributes: Mapping[str, Any],
               convention: tuple[str, str, str, str, str], responses: Mapping[str, Any],
               chat: Mapping[str, Any] | None, arguments: Any = _UNREAD) -> dict[str, Any]:
    """A tool span's call (*start*: its start time); *chat* is the chat call it made, when the span names no call id;
    *arguments*: its :func:`_tool_arguments`, when the first reading read them."""
    _, _, name_key, _, result_key = convention
    if convention is CONVENTIONS[0] and result_key not in attributes:  # pydantic-ai's format versions 2 to 4
        result_key = PYDANTIC_AI_V2[1]
    wrapped = convention is CONVENTIONS[2]  # only OpenLLMetry wraps results in "outputs"
    name = attributes.get(name_key) or span.get("name")
    if not isinstance(name, str) or not name:
        raise AnachronError(f"{at}: a tool span needs {name_key!r} or a name, got {describe(name)}")
    call_id = attributes.get(CALL_ID)
    call_id = call_id if isinstance(call_id, str) else None
    arguments = _tool_arguments(attributes, convention) if arguments is _UNREAD else arguments
    if chat is not None:
        call_id = chat.get("id") if isinstance(chat.get("id"), str) and chat["id"] else None
        if not isinstance(arguments, dict):  # LangChain writes a Python repr, or nothing: the model's JSON
            arguments = parse_arguments(chat.get("arguments"))
    entry = _call(session, name, arguments, call_id, start)
    failure = _failed(span, attributes)
    if failure is not None:
        session.failed(entry, failure)
    elif result_key in attributes and attributes[result_key] != REDACTED:  # a hidden result is no empty result
        result = attributes[result_key]
        if wrapped:
            session.result(entry, _unwrap(result, "outputs"))
        else:
            session.result(entry, *_result_content(result))
    elif call_id is not None and "id:" + call_id in responses:
        session.result(entry, _message_content(responses["id:" + call_id]))  # the next chat span's input shows it
    else:
        _unrecorded(entry)
    return entry
