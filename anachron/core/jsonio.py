"""Strict JSON and JSON Lines reading, and the one JSON writer.

Kept apart from the math: the core's metrics never read a file.  JSON is
parsed strictly: duplicate keys, NaN and Infinity are errors (the standard
library accepts all three silently), and every error names the file and, for
JSON Lines, the line.

A leading UTF-8 byte order mark (written by Windows editors) is dropped by every reader here.

JSON Lines are split on ``\\n`` only (a trailing ``\\r`` is dropped):
``str.splitlines`` would also split on U+2028 and friends, which JSON allows
unescaped inside strings, and would shift every later line number.

Writing JSON text is :func:`dump_json`, :func:`json_line` (compact and sorted)
and :func:`pretty_json`; writing files atomically is :mod:`anachron.core.atomic`.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from json.encoder import encode_basestring
from typing import Any, BinaryIO, Callable, Iterator, Mapping

from anachron.core.errors import AnachronError, describe

__all__ = [
    "MAX_LOG_DEPTH",
    "Record",
    "dump_json",
    "json_line",
    "json_or_none",
    "located_records",
    "parse_json",
    "pretty_json",
    "read_json",
    "read_json_log",
    "read_jsonl",
    "read_log_records",
    "read_records",
    "read_text",
    "record_at",
    "record_location",
    "stream_records",
]

Record = tuple[str, Mapping[str, Any]]  # (where, object); where is "file:line"

# Levels of arrays and objects a log may nest (docs/formats.md): real logs nest a few dozen.
MAX_LOG_DEPTH = 200


def record_location(where: str) -> tuple[str | None, int | None]:
    """The file and line of a record's *where* as this module's readers write it (``"file:line"``).

    A *where* of another form (an importer's ``"log.json message 3"``) gives
    ``(None, None)``; the file is what precedes the last colon, so a file
    name may hold colons itself.

    >>> record_location("runs/a:b.jsonl:12")
    ('runs/a:b.jsonl', 12)
    >>> record_location("log.json message 3")
    (None, None)
    """
    file, colon, line = where.rpartition(":")
    if colon and file and line.isdigit() and line.isascii():
        return file, int(line)
    return None, None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)  # built in C; only an object with a repeated key needs the loop below
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"duplicate key {key!r}")
            seen.add(key)
    return obj


_STRICT = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
_LENIENT = json.JSONDecoder(parse_constant=_reject_constant)


def parse_json(
    text: str,
    where: str,
    *,
    multiline: bool = False,
    file: str | os.PathLike[str] | None = None,
    line: int | None = None,
    max_depth: int | None = None,
    repeated_keys: bool = False,
) -> Any:
    """Parse one JSON document strictly; *where* prefixes the error message.

    A key repeated in an object is an error, unless *repeated_keys*: then
    the last value stands, as :func:`json.loads` reads it.

    With *max_depth*, a document nesting arrays and objects deeper is an
    error (the decoder itself stops near Python's recursion limit, about
    1,000 levels).  An integer too long for Python to convert is an error.

    >>> parse_json("[[1]]", "x", max_depth=2)
    [[1]]
    >>> parse_json("[[[1]]]", "x", max_depth=2)
    Traceback (most recent call last):
    anachron.core.errors.AnachronError: x: invalid JSON: nested deeper than 2 levels

    With *multiline*, *where* is a file name and a syntax error adds its line.
    The error's :attr:`~anachron.core.errors.AnachronError.where` holds
    *file* and *line* (with *multiline*: *where* and the syntax error's line).
    """
    if multiline and file is None:
        file = where
    try:
        if isinstance(text, str) and not text.startswith(_BOM):
            # One decoder per mode, reused: json.loads builds a new one per call when given hooks.
            value = (_LENIENT if repeated_keys else _STRICT).decode(text)
        else:  # bytes, or a BOM json.loads refuses by its own message
            value = json.loads(text, object_pairs_hook=None if repeated_keys else _no_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        at = f"{where}:{exc.lineno}" if multiline else where
        number = exc.lineno if multiline else line
        raise AnachronError(f"{at}: invalid JSON: {exc.msg} (column {exc.colno})", file=file, line=number) from None
    except RecursionError:
        deeper = f"deeper than {max_depth} levels" if max_depth is not None else "too deep for the parser"
        raise AnachronError(f"{where}: invalid JSON: nested {deeper}", file=file, line=line) from None
    except ValueError as exc:
        raise _long_integer(text, where, multiline, file, line) or AnachronError(
            f"{where}: invalid JSON: {' '.join(str(exc).split())[:200]}", file=file, line=line
        ) from None
    if max_depth is not None and _deeper_than(value, max_depth):
        raise AnachronError(f"{where}: invalid JSON: nested deeper than {max_depth} levels", file=file, line=line)
    return value


def json_or_none(text: str) -> Any:
    """JSON that a log carries inside a string (a call's arguments, a tool's output), parsed; ``None`` when it is no JSON.

    As :func:`parse_json` reads it, with *repeated_keys*: the last value of a
    repeated key is what the tool that received the arguments read.  NaN and
    Infinity are no JSON: they could not be written back into a trace.  A
    caller tells the document ``null`` from no JSON by the text.

    >>> json_or_none('{"query": "a", "query": "b"}'), json_or_none('{"query": NaN}'), json_or_none("ipo")
    ({'query': 'b'}, None, None)
    """
    if type(text) is str:
        # The usual case, a document from the first character to the last, scanned in C (parse_json's
        # layers cost more than the scan of a short value); anything else takes the path below.
        try:
            value, end = _LENIENT.scan_once(text, 0)
        except (StopIteration, ValueError, RecursionError):
            end = -1
        if end == len(text):
            return value
    try:
        return parse_json(text, "JSON inside a log", repeated_keys=True)
    except AnachronError:
        return None


def _long_integer(text: str, where: str, multiline: bool, file: Any, line: int | None) -> AnachronError | None:
    """The error for an integer longer than Python converts (``sys.get_int_max_str_digits``), naming where it is."""
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    if not limit:
        return None
    # The first long digit run outside a string (a string of digits is no integer).
    tokens = re.finditer(rf'"(?:[^"\\]|\\.)*"|(?P<digits>[0-9]{{{limit + 1},}})', text)
    found = next((token for token in tokens if token["digits"]), None)
    if found is None:
        return None
    number = text.count("\n", 0, found.start()) + 1
    column = found.start() - text.rfind("\n", 0, found.start())
    at = f"{where}:{number}" if multiline else where
    return AnachronError(
        f"{at}: invalid JSON: an integer of {found.end() - found.start()} digits (column {column}); at most {limit} are read",
        file=file, line=number if multiline else line,
    )


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether *value* nests arrays and objects more than *limit* levels deep (iterative: no recursion)."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def read_json_log(path: str | os.PathLike[str]) -> Any:
    """A ``.json`` log parsed strictly, nested at most :data:`MAX_LOG_DEPTH` levels, before another reader sees it.

    Other systems' readers (Inspect's) parse a hostile log recursively and
    without bounds (20,000 nested ``[`` in 20 KB took 1 GB); this one
    raises a one-line :class:`AnachronError` naming the file instead.
    """
    return parse_json(read_text(path), str(path), multiline=True, max_depth=MAX_LOG_DEPTH)


def _unreadable(path: str | os.PathLike[str], exc: OSError) -> AnachronError:
    """The one-line error for a file that cannot be opened or read."""
    if isinstance(exc, FileNotFoundError):
        return AnachronError(f"{path}: no such file", file=path)
    if isinstance(exc, IsADirectoryError):
        return AnachronError(f"{path}: is a directory, expected a file", file=path)
    return AnachronError(f"{path}: cannot read: {exc.strerror}", file=path)


_BOM = "\ufeff"  # a byte order mark opening a file is no part of its JSON (str.strip keeps it)


def _read_text(path: str | os.PathLike[str]) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read().removeprefix(_BOM)
    except UnicodeDecodeError as exc:
        raise AnachronError(f"{path}: not UTF-8 text (byte {exc.start})", file=path) from None
    except OSError as exc:
        raise _unreadable(path, exc) from None


def read_text(path: str | os.PathLike[str]) -> str:
    """The UTF-8 text of *path*, newlines as written; errors name the file."""
    return _read_text(path)


def read_json(path: str | os.PathLike[str]) -> Any:
    """Read one JSON document from *path*."""
    return parse_json(_read_text(path), str(path), multiline=True)


def _lines(text: str, path: str | os.PathLike[str]) -> Iterator[tuple[int, Any]]:
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        obj = parse_json(line, f"{path}:{number}", file=path, line=number)
        if not isinstance(obj, dict):
            raise AnachronError(f"{path}:{number}: expected a JSON object, got {describe(obj)}", file=path, line=number)
        yield number, obj


def read_jsonl(path: str | os.PathLike[str]) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSON Lines file.

    Each line must hold a JSON object; line numbers start at 1 and count
    ``\\n`` only.
    """
    return _lines(_read_text(path), path)


def read_records(path: str | os.PathLike[str]) -> list[Record]:
    """The objects of a JSON Lines file as ``("path:line", object)`` records."""
    return [(f"{path}:{number}", obj) for number, obj in read_jsonl(path)]


def stream_records(
    path: str | os.PathLike[str], *, start: int = 0, stop: int | None = None, first_line: int = 1
) -> Iterator[Record]:
    """:func:`read_records`, one line at a time: memory holds one record, not the file.

    Lines split on ``\n`` only, as :func:`read_jsonl`.  A byte that is not
    UTF-8 is an error naming its offset in the file, as :func:`read_json`
    reports it; it is found when its line is reached.  *start* and *stop*
    (byte offsets at line starts) read a share of the file whose first line
    is line *first_line* (``anachron score --jobs``).
    """
    return ((where, obj) for where, obj, _, _ in located_records(path, start=start, stop=stop, first_line=first_line))


def located_records(
    path: str | os.PathLike[str], *, start: int = 0, stop: int | None = None, first_line: int = 1
) -> Iterator[tuple[str, dict, int, int]]:
    """:func:`stream_records` with where each record's line is: ``(where, object, offset, line number)``.

    :func:`record_at` reads the record at an offset again (``anachron index``
    reads items in another order than the file's without holding them).
    """
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise _unreadable(path, exc) from None
    with fh:
        offset = start
        try:
            fh.seek(start)
            for number, raw in enumerate(fh, start=first_line):
                if stop is not None and offset >= stop:
                    break
                at = offset
                offset += len(raw)
                where = f"{path}:{number}"
                obj = _record(path, raw, at, where, number)
                if obj is not None:
                    yield where, obj, at, number
        except OSError as exc:
            raise _unreadable(path, exc) from None


def record_at(fh: BinaryIO, path: str | os.PathLike[str], offset: int, where: str) -> dict:
    """The object on the line at byte *offset* of *fh* (*path* opened in binary), as
    :func:`located_records` read it; an error naming *where* if that line is no longer one."""
    try:
        fh.seek(offset)
        raw = fh.readline()
    except OSError as exc:
        raise _unreadable(path, exc) from None
    obj = _record(path, raw, offset, where, None)
    if obj is None:
        raise AnachronError(f"{where}: no longer a record (the file changed while it was read)", file=path)
    return obj


def _record(path: str | os.PathLike[str], raw: bytes, offset: int, where: str, number: int | None) -> dict | None:
    """One line's object (line *number*, when known); ``None`` for a blank line."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AnachronError(f"{path}: not UTF-8 text (byte {offset + exc.start})", file=path, line=number) from None
    line = line.removesuffix("\n").removesuffix("\r")
    if offset == 0:
        line = line.removeprefix(_BOM)
    # The usual line, one object from its first character to its last, scanned in C by the strict
    # decoder (parse_json's layers cost more than the scan of a short line); anything else, an error
    # included, takes the path below, which reads it again and words the error.
    try:
        obj, end = _STRICT.scan_once(line, 0)
    except (StopIteration, ValueError, RecursionError):
        end = -1
    if end == len(line) and type(obj) is dict:
        return obj
    if not line.strip():
        return None
    obj = parse_json(line, where, file=path, line=number)
    if not isinstance(obj, dict):
        raise AnachronError(f"{where}: expected a JSON object, got {describe(obj)}", file=path, line=number)
    return obj


def read_log_records(path: str | os.PathLike[str]) -> tuple[list[Record], str | None]:
    """:func:`read_records` for a log that is appended to: a torn last line is reported, not fatal.

    A writer cut short (a full disk, a killed process) leaves a last line
    with no ``\\n`` that does not parse.  Returns the complete records and,
    for such a line, a note naming it; any other bad line is an error.
    """
    text = _read_text(path)
    body, newline, tail = text.rpartition("\n")
    torn = None
    if tail.strip():
        try:
            parse_json(tail.removesuffix("\r"), str(path))
        except AnachronError:
            number = body.count("\n") + (2 if newline else 1)
            torn = f"{path}:{number}: the last line is torn (a write was cut short): it is left out"
            text = body
    return [(f"{path}:{number}", obj) for number, obj in _lines(text, path)], torn


# Escaped even though JSON allows them raw: line and paragraph separators and NEL (readers
# that split on them would tear a record) and lone surrogates (no UTF-8 encoder writes them).
_ESCAPED = re.compile("[\u0085\u2028\u2029\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _escaped(text: str) -> str:
    return text if text.isascii() else _ESCAPED.sub(_escape, text)  # every escaped character is beyond ASCII


def dump_json(obj: Any, *, indent: int | None = 2) -> str:
    """Serialise deterministically: sorted keys, UTF-8, trailing newline.

    Characters outside ASCII are written as themselves, except U+0085,
    U+2028, U+2029 and lone surrogates, which are written as ``\\uXXXX``
    escapes: the text always encodes as UTF-8, a one-line dump stays one
    line for every reader, and ``json.loads`` gives back the same string.
    With ``indent=None`` the text is one line; the default, 2, is
    :func:`pretty_json`'s form.  NaN and infinities are errors.

    >>> dump_json({"b": [1, None], "a": "\\u2028"})
    '{\\n  "a": "\\\\u2028",\\n  "b": [\\n    1,\\n    null\\n  ]\\n}\\n'
    >>> dump_json({"b": 1, "a": [True]}, indent=None)
    '{"a": [true], "b": 1}\\n'
    """
    if indent == 2:
        return pretty_json(obj) + "\n"
    return _escaped(json.dumps(obj, indent=indent, sort_keys=True, ensure_ascii=False, allow_nan=False)) + "\n"


def json_line(
    value: Any,
    *,
    compact: bool = False,
    sort_keys: bool = True,
    ensure_ascii: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> str:
    """*value* as one line of JSON, keys sorted, no newline: the text a record is stored as, hashed or shown by.

    *compact* leaves out the spaces after ``,`` and ``:`` (the bank's
    canonical text, the filings corpus, the index's stored records).  With
    *sort_keys* false the keys keep the order the caller put them in (the
    bank's RFC 8785 order, the index's known fields first).  *ensure_ascii*
    writes every character beyond ASCII as a ``\\uXXXX`` escape; *default*
    gives a JSON value for one that has none, as in :func:`json.dumps`.
    Unlike :func:`dump_json`, nothing else is escaped and NaN is written as
    :mod:`json` writes it: these bytes are hashed (the bank's version, the
    index's fingerprint) and must not move.

    >>> json_line({"b": [1, 2], "a": "é"}), json_line({"b": 1, "a": 2}, compact=True, sort_keys=False)
    ('{"a": "é", "b": [1, 2]}', '{"b":1,"a":2}')
    """
    return json.dumps(
        value, sort_keys=sort_keys, ensure_ascii=ensure_ascii, default=default,
        separators=(",", ":") if compact else None,
    )


def pretty_json(value: Any, indent: str = "") -> str:
    """``dump_json(value)`` without its final newline, as if nested where a line starts with *indent*.

    The pieces of a document written as it comes (``anachron score
    --format json`` writes sample by sample) are the bytes the whole
    document would have.  The text is ``json.dumps(value, indent=2,
    sort_keys=True, ensure_ascii=False, allow_nan=False)``, with every
    newline followed by *indent* and :func:`dump_json`'s escapes, for every
    value.  Plain dicts with string keys, lists, tuples, strings, numbers,
    booleans and ``None`` (by exact type) take a fast path without
    :mod:`json`'s slow indenting encoder; anything else (a subclass, a
    non-string key) goes through :mod:`json` itself, with its rules and
    errors.

    >>> print(pretty_json({"a": [1, "x"], "b": {}}, "  "))
    {
        "a": [
          1,
          "x"
        ],
        "b": {}
      }
    """
    return _escaped(_pretty(value, indent))


def _dump_fallback(value: Any, indent: str) -> str:
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    return text.replace("\n", "\n" + indent)  # every newline json writes is structural


def _pretty(value: Any, indent: str) -> str:
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float and math.isfinite(value):
        return float.__repr__(value)
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = indent + "  "
        try:  # a list of strings (evidence): encoded in C
            body = (",\n" + inner).join(map(encode_basestring, value))
        except TypeError:
            if set(map(type, value)) == _INTS:  # a list of ints (horizons): in C too
                body = (",\n" + inner).join(map(int.__repr__, value))
            else:
                body = (",\n" + inner).join([_pretty(v, inner) for v in value])
        return "[\n" + inner + body + "\n" + indent + "]"
    if kind is dict and (not value or set(map(type, value)) == _STRS):
        if not value:
            return "{}"
        inner = indent + "  "
        parts = []
        for key in sorted(value):
            item = value[key]
            head = _KEY_HEADS.get(key)
            if head is None:
                head = encode_basestring(key) + ": "
                if len(_KEY_HEADS) < _KEPT_KEYS:
                    _KEY_HEADS[key] = head
            simple = _SIMPLE.get(type(item))  # a string, an int, a bool or null, without a call of _pretty
            parts.append(head + (simple(item) if simple is not None else _pretty(item, inner)))
        return "{\n" + inner + (",\n" + inner).join(parts) + "\n" + indent + "}"
    return _dump_fallback(value, indent)  # anything else: json's own rules (and errors)


# A key's text (quoted, escaped, with its ": "), kept for the first _KEPT_KEYS keys seen: the same few
# dozen field names head every sample of a score document, and were encoded anew in each.
_KEY_HEADS: dict[str, str] = {}
_KEPT_KEYS = 4096
_INTS, _STRS = {int}, {str}  # exact types: a bool is an int to isinstance, not to type()
# The values _pretty writes without looking further, by exact type, as _pretty itself writes them.
_SIMPLE: Mapping[type, Callable[[Any], str]] = {
    str: encode_basestring,
    int: int.__repr__,
    float: lambda value: float.__repr__(value) if math.isfinite(value) else _dump_fallback(value, ""),  # raises
    bool: lambda value: "true" if value else "false",
    type(None): lambda value: "null",
}
