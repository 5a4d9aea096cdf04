"""OTLP/JSON read: spans and log records of ``ExportTraceServiceRequest`` and ``ExportLogsServiceRequest``
documents, their ``AnyValue`` attributes as plain JSON values, their times.

A document holds ``resourceSpans[].scopeSpans[].spans[]`` (``instrumentationLibrarySpans``
too) and ``resourceLogs[].scopeLogs[].logRecords[]``; a file is one document or JSON Lines of
them.  Int64 values travel as decimal strings.  Every malformed part is an error naming it.

>>> _value({"arrayValue": {"values": [{"intValue": "3"}, {"kvlistValue": {"values": [
...     {"key": "a", "value": {"boolValue": True}}]}}]}}, "span")
[3, {'a': True}]
>>> iso_time(1_672_531_200_000_000_000)
'2023-01-01T00:00:00+00:00'
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any, Callable, Iterator, Mapping

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import parse_json, read_text
from anachron.importers._common import documents, expect_list, expect_object

MAX_DEPTH = 32  # nesting of AnyValues read (bounds hostile input)
INT64 = (-(1 << 63), (1 << 63) - 1)  # an OTLP intValue's range
UINT64_MAX = (1 << 64) - 1  # a span time's (fixed64 nanoseconds)
Read = tuple[str, Mapping[str, Any], Mapping[str, Any], dict[str, Any], str]


def _value(any_value: Any, where: str, depth: int = 0) -> Any:
    """An OTLP ``AnyValue`` as a plain JSON value."""
    if not isinstance(any_value, dict) or depth > MAX_DEPTH:
        raise AnachronError(f"{where}: expected an OTLP AnyValue object, got {describe(any_value)}")
    for key in ("stringValue", "boolValue", "doubleValue", "bytesValue"):
        if key in any_value:
            return any_value[key]
    if "intValue" in any_value:
        raw = any_value["intValue"]  # int64 travels as a decimal string in OTLP JSON
        if not (isinstance(raw, str) and raw.removeprefix("-").isdigit() and raw.isascii()):
            return raw
        # Checked before int(): Python refuses to convert more than 4,300 digits, with a traceback.
        if len(raw.lstrip("-0")) > 19 or not INT64[0] <= int(raw) <= INT64[1]:
            raise AnachronError(f"{where}: intValue of {len(raw)} characters ({_cut(raw)}) is not an int64")
        return int(raw)
    if "arrayValue" in any_value:
        values = (any_value["arrayValue"] or {}).get("values") or []
        return [_value(v, where, depth + 1) for v in expect_list(values, where, "arrayValue.values")]
    if "kvlistValue" in any_value:
        values = (any_value["kvlistValue"] or {}).get("values") or []
        return _attributes(values, where, depth + 1)
    return None


def _attributes(pairs: Any, where: str, depth: int = 0) -> dict[str, Any]:
    if type(pairs) is list and depth <= MAX_DEPTH:
        # The usual list, every value a string under a string key, read in one comprehension; anything else
        # (another kind of value, a pair that is no object) takes the loop below, from the start.
        try:
            out = {pair["key"]: pair["value"]["stringValue"] for pair in pairs}
        except (KeyError, TypeError, IndexError):
            pass
        else:
            if all(type(key) is str for key in out):  # a parsed document's pairs and values indexed by name are dicts
                return out
    out = {}
    for index, pair in enumerate(pairs if type(pairs) is list else expect_list(pairs or [], where, "attributes")):
        # Most values are strings: read without building the names an error would need.
        value = pair.get("value") if type(pair) is dict else None
        if type(value) is dict and "stringValue" in value and type(pair.get("key")) is str and depth <= MAX_DEPTH:
            out[pair["key"]] = value["stringValue"]
            continue
        pair = expect_object(pair, f"{where} attributes[{index}]", "a key/value pair")
        key = pair.get("key")
        if not isinstance(key, str):
            raise AnachronError(f"{where} attributes[{index}]: key is {describe(key)}, expected a string")
        out[key] = _value(pair.get("value", {}), f"{where} attributes[{index}] ({key})", depth)
    return out


def nanos(value: Any, at: str, key: str) -> int:
    """A span's time in nanoseconds since the epoch (OTLP JSON writes it as a decimal string); 0 when absent."""
    if value is None:
        return 0
    if type(value) is str and len(value) <= 20 and value.isdigit() and value.isascii():
        number = int(value)  # the usual case, at most 20 digits: the checks below in brief
        if number <= UINT64_MAX:
            return number
    number = value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value.lstrip("0")) <= 20:
        number = int(value)  # at most 20 digits: a uint64, and never too long for int()
    if isinstance(number, int) and not isinstance(number, bool) and 0 <= number <= UINT64_MAX:
        return number
    if isinstance(value, str) and len(value) > 40:
        value = _cut(value)
    raise AnachronError(f"{at}: {key} is {describe(value)}, expected nanoseconds since the epoch (a decimal string)")


def _cut(text: str) -> str:
    """A long value as an error shows it: its first and last digits."""
    return text if len(text) <= 40 else f"{text[:16]}...{text[-16:]}"


def iso_time(nanos: int) -> str | None:
    """An OTLP time (nanoseconds since the epoch; 0 is none) as an ISO date-time in UTC, or ``None``."""
    if not nanos:
        return None
    try:  # epoch_iso's work without its checks: a span time is a uint64 (nanos), never a bool or NaN
        return _dt.datetime.fromtimestamp(nanos / 1e9, _dt.timezone.utc).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def _items(path: str, wanted: Callable[[Mapping[str, Any]], bool]) -> Iterator[tuple[str, Mapping[str, Any], Mapping[str, Any], dict[str, Any], str, bool]]:
    """Every span and GenAI log event of the log: (where, span, resource attributes, attributes, its
    scope's name, whether it is a log record)."""
    for where, document in documents(path):
        for at, item, resource, attributes, scope_name, is_log in document_items(where, document):
            if not is_log:
                yield at, item, resource, attributes, scope_name, False
            elif wanted(attributes):
                yield at, event_span(at, item), resource, attributes, scope_name, True


def document_items(where: str, document: Any) -> Iterator[tuple[str, Mapping[str, Any], Mapping[str, Any], dict[str, Any], str, bool]]:
    """Every span and log record of one document, checked, in order: (where, the span or log record,
    resource attributes, attributes, its scope's name, whether it is a log record)."""
    document = expect_object(document, where, "an OTLP document")
    for kind, scopes_key, legacy, items_key in (("resourceSpans", "scopeSpans", "instrumentationLibrarySpans", "spans"),
                                                 ("resourceLogs", "scopeLogs", "instrumentationLibraryLogs", "logRecords")):
        for r, resource_entry in enumerate(expect_list(document.get(kind, []), where, kind)):
            r_at = f"{where} {kind}[{r}]"
            resource_entry = expect_object(resource_entry, r_at, f"a {kind} entry")
            resource = _attributes((resource_entry.get("resource") or {}).get("attributes"), f"{r_at} resource")
            scopes = resource_entry.get(scopes_key, resource_entry.get(legacy, []))
            for s, scope in enumerate(expect_list(scopes, r_at, scopes_key)):
                s_at = f"{r_at} {scopes_key}[{s}]"
                scope = expect_object(scope, s_at, f"a {scopes_key} entry")
                named = scope.get("scope", scope.get("instrumentationLibrary"))
                scope_name = named.get("name") if isinstance(named, dict) and isinstance(named.get("name"), str) else ""
                for n, item in enumerate(expect_list(scope.get(items_key, []), s_at, items_key)):
                    at = f"{s_at} {items_key}[{n}]"
                    item = expect_object(item, at, "a span" if kind == "resourceSpans" else "a log record")
                    attributes = _attributes(item.get("attributes"), at)
                    if kind == "resourceSpans" and (not isinstance(item.get("traceId"), str) or not item["traceId"]):
                        raise AnachronError(f"{at}: traceId is {describe(item.get('traceId'))}, expected a hex string")
                    if kind == "resourceSpans" and item.get("spanId") is not None and not isinstance(item["spanId"], str):  # it names the span
                        raise AnachronError(f"{at}: spanId is {describe(item['spanId'])}, expected a hex string")
                    yield at, item, resource, attributes, scope_name, kind == "resourceLogs"


def checked_items(where: str, document: Any) -> Iterator[tuple[str, Mapping[str, Any], dict[str, Any], str, bool]]:
    """:func:`document_items` of a document it has read already without an error (a streamed log's second
    reading): the same spans and log records, ``where`` and attributes, without the checks (the resource's
    attributes are not read again: only the first reading asks them)."""
    for kind, scopes_key, legacy, items_key in (("resourceSpans", "scopeSpans", "instrumentationLibrarySpans", "spans"),
                                                 ("resourceLogs", "scopeLogs", "instrumentationLibraryLogs", "logRecords")):
        is_log = kind == "resourceLogs"
        for r, resource_entry in enumerate(document.get(kind) or ()):
            r_at = f"{where} {kind}[{r}]"
            for s, scope in enumerate(resource_entry.get(scopes_key, resource_entry.get(legacy)) or ()):
                s_at = f"{r_at} {scopes_key}[{s}]"
                named = scope.get("scope", scope.get("instrumentationLibrary"))
                scope_name = named.get("name") if isinstance(named, dict) and isinstance(named.get("name"), str) else ""
                for n, item in enumerate(scope.get(items_key) or ()):
                    at = f"{s_at} {items_key}[{n}]"
                    yield at, item, _attributes(item.get("attributes"), at), scope_name, is_log


def event_span(at: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """A log event as a span of no duration; a record without trace context is a trace of its own."""
    time = nanos(record.get("timeUnixNano"), at, "timeUnixNano") or nanos(
        record.get("observedTimeUnixNano"), at, "observedTimeUnixNano")
    trace_id = record.get("traceId") if isinstance(record.get("traceId"), str) and record.get("traceId") else at
    return {"traceId": trace_id, "spanId": record.get("spanId"), "name": record.get("eventName") or "event",
            "startTimeUnixNano": str(time), "endTimeUnixNano": str(time)}


def spans(path: str, wanted: Callable[[Mapping[str, Any]], bool]) -> list[Read]:
    """Every span of the log, and every log event whose attributes are *wanted*: (where, span, resource
    attributes, attributes, its scope's name).  An event that names a span of the log (same trace and
    span id) adds its attributes to that span's where the span has none (the GenAI event mode puts a
    chat span's messages in an event); one naming no span stands alone."""
    items = list(_items(path, wanted))
    named_spans = {(span["traceId"], span.get("spanId")): attributes for _, span, _, attributes, _, is_log in items if not is_log}
    out = []
    for at, span, resource, attributes, scope, is_log in items:
        named = isinstance(span.get("spanId"), str) and span["spanId"] != ""
        target = named_spans.get((span["traceId"], span["spanId"])) if is_log and named else None
        if target is None:
            out.append((at, span, resource, attributes, scope))
            continue
        for key, value in attributes.items():
            target.setdefault(key, value)
    return out


_JSON_SPACE = frozenset(" \t\r\n")  # what may surround a JSON document (str.strip takes more)
_FAST = json.JSONDecoder()  # the second reading of a line the first one checked (NaN and repeated keys refused then)


class Streamed:
    """The documents of a JSON Lines log, read line by line, as often as asked, never the whole file at once.

    :meth:`checked` parses as :func:`._common.documents` does (the same documents,
    the same errors); :meth:`again` reads the same lines again, without the checks
    the first reading made.  Only a log that is JSON Lines from its first line
    streams: :meth:`checked` returns ``False`` for any other (one document over
    several lines, a line that is not a document by itself), and the caller reads
    it whole instead.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.lines_mode = False  # several documents, one a line (else one document, on its own line)

    def _raw(self) -> Iterator[tuple[int, int, bytes]]:
        try:
            fh = open(self.path, "rb")
        except OSError:
            read_text(self.path)  # raises the one-line error naming the file
            raise
        with fh:
            offset = 0
            for number, raw in enumerate(fh, start=1):
                yield number, offset, raw
                offset += len(raw)

    def _text(self, number: int, offset: int, raw: bytes) -> str:
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise AnachronError(f"{self.path}: not UTF-8 text (byte {offset + exc.start})", file=self.path) from None
        line = line.removesuffix("\n").removesuffix("\r")
        return line.removeprefix("\ufeff") if number == 1 else line

    def checked(self) -> Iterator[tuple[int, str, Any]] | None:
        """The documents, checked: ``(index, where, document)``; ``None`` when the log does not stream."""
        lines = self._raw()
        first: tuple[int, Any] | None = None
        for number, offset, raw in lines:
            line = self._text(number, offset, raw)
            if not line.strip():
                if not set(line) <= _JSON_SPACE:
                    return None  # a character str.strip takes and JSON refuses: read whole, as documents() does
                continue
            try:
                first = (number, parse_json(line, f"{self.path}:{number}"))
            except AnachronError:
                return None  # a document over several lines, or a line holding two: read whole
            break
        if first is None:
            return None  # empty: reading it whole says so
        rest = []  # the lines after the first document, up to the first that holds more than JSON space
        for number, offset, raw in lines:
            line = self._text(number, offset, raw)
            rest.append((number, offset, line))
            if not set(line) <= _JSON_SPACE:
                break
        else:
            lines.close()
            return self._one(first[1])
        self.lines_mode = True
        return self._lines(first, rest, lines)

    def _one(self, document: Any) -> Iterator[tuple[int, str, Any]]:
        yield 0, self.path, document

    def _lines(self, first: tuple[int, Any], rest: list[tuple[int, int, str]],
               lines: Iterator[tuple[int, int, bytes]]) -> Iterator[tuple[int, str, Any]]:
        yield first[0], f"{self.path}:{first[0]}", first[1]
        for number, _, line in rest:
            if line.strip():
                yield number, f"{self.path}:{number}", parse_json(line, f"{self.path}:{number}")
        for number, offset, raw in lines:
            line = self._text(number, offset, raw)
            if line.strip():
                yield number, f"{self.path}:{number}", parse_json(line, f"{self.path}:{number}")

    def finish(self, error: AnachronError) -> AnachronError:
        """*error*, met while reading the documents of :meth:`checked`, unless a byte of the file is not UTF-8:
        the whole file is decoded before any document is read (read_text), so that is the error then."""
        try:
            for number, offset, raw in self._raw():
                self._text(number, offset, raw)
        except AnachronError as undecodable:
            return undecodable
        return error

    def again(self) -> Iterator[tuple[int, str, Any]]:
        """The documents of :meth:`checked` again, in order, with the same indexes."""
        if not self.lines_mode:
            for number, offset, raw in self._raw():
                line = self._text(number, offset, raw)
                if line.strip():
                    yield 0, self.path, _FAST.decode(line)
                    return
        for number, offset, raw in self._raw():
            line = self._text(number, offset, raw)
            if line.strip():
                yield number, f"{self.path}:{number}", _FAST.decode(line)
