"""Strict reading of incoming JSON-RPC messages, in front of the SDK's transports.

The SDK (mcp 2.3.0) drops over stdio every message it cannot parse or
validate: it logs it at debug level and answers nothing, so the client waits
forever (docs/mcp.md, "Malformed messages").  Every message therefore passes
:func:`check_message` first.  A refused message is answered here with a
JSON-RPC error and recorded in the event log; the rest go on to the SDK (over
stdio re-serialised from the value checked here).

The rules, in order (the first that fails decides the answer):

- ``-32700`` parse error: larger than :data:`MAX_MESSAGE` bytes, not UTF-8,
  not one JSON value, ``NaN`` or ``Infinity``, a number beyond a double, an
  integer of more than :data:`MAX_DIGITS` digits, a key repeated in one
  object, nested deeper than :data:`MAX_DEPTH` (the parser itself stops at
  the interpreter's recursion limit, about 1,000 levels);
- ``-32600`` invalid request: a batch (an array: MCP has no batches), not an
  object, an ``id`` that is not a string or an integer within
  +-(2**53 - 1), ``jsonrpc`` other than ``"2.0"``, a string anywhere holding
  a lone surrogate (not Unicode text), a ``method`` that is not a string, or
  anything else the SDK's own message schema refuses;
- ``-32602`` invalid params: a request whose ``params`` is not an object.

The error carries the request's ``id`` when the message has a valid one,
else ``null`` (JSON-RPC 2.0, section 5).  Each check is linear in the
message's size.

>>> check_message(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}').code is None
True
>>> refused = check_message(b'{"jsonrpc": "1.0", "id": 7, "method": "ping"}')
>>> refused.code, refused.request_id
(-32600, 7)
>>> check_message(b'[' * 100).code
-32700
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from mcp import types
from pydantic import ValidationError

__all__ = [
    "MAX_MESSAGE",
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_ID",
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "INVALID_PARAMS",
    "Checked",
    "check_message",
    "error_response",
]

MAX_MESSAGE = 1 << 18  # bytes (256 KiB): a tool argument is at most 2,048 characters
MAX_DEPTH = 64  # nested arrays and objects; MCP messages need well under 10
MAX_DIGITS = 20  # digits of one integer: ids and counts, never a bignum
MAX_ID = 2**53 - 1  # integers every JSON reader holds exactly (RFC 7493)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

_SURROGATE = re.compile("[\ud800-\udfff]")
# A JSON string token, unrolled (no alternation per character) so that the regex engine runs it fast.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_PAIR = re.compile(r"\[\]|\{\}")


@dataclass(frozen=True)
class Checked:
    """The verdict on one message: *message* (the SDK's model) when it passes,
    else the error *code*, a one-line *error* and the *request_id* to answer."""

    message: Any = None
    code: int | None = None
    error: str = ""
    request_id: str | int | None = None


class _Refused(Exception):
    def __init__(self, code: int, error: str) -> None:
        super().__init__(error)
        self.code = code
        self.error = error


def _too_deep(bare: str) -> bool:
    """Whether the brackets of *bare* (the text with its strings emptied) nest deeper than MAX_DEPTH.

    Each pass removes the innermost empty pairs, one level; a remainder that
    still collapses after MAX_DEPTH passes is nested deeper.  One that no
    pass shrinks is mismatched, which the parser reports.  At most
    MAX_DEPTH + 1 linear passes, all in the regex engine.
    """
    brackets = _NOT_BRACKET.sub("", bare)
    for _ in range(MAX_DEPTH):
        brackets, removed = _PAIR.subn("", brackets)
        if not removed:
            return False
    return _PAIR.search(brackets) is not None


def _integer(token: str) -> int:
    if len(token.lstrip("-")) > MAX_DIGITS:
        raise _Refused(PARSE_ERROR, f"Parse error: an integer of more than {MAX_DIGITS} digits")
    return int(token)


def _float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise _Refused(PARSE_ERROR, "Parse error: a number too large to represent")
    return value


def _constant(token: str) -> Any:
    raise _Refused(PARSE_ERROR, f"Parse error: {token} is not JSON")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Refused(PARSE_ERROR, "Parse error: a key repeated in one object")
    return obj


def _parse(data: bytes) -> Any:
    if len(data) > MAX_MESSAGE:
        raise _Refused(PARSE_ERROR, f"Parse error: a message larger than {MAX_MESSAGE} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _Refused(PARSE_ERROR, "Parse error: not UTF-8 text") from None
    try:
        value = json.loads(
            text, parse_int=_integer, parse_float=_float, parse_constant=_constant, object_pairs_hook=_object
        )
    except json.JSONDecodeError as exc:
        raise _Refused(PARSE_ERROR, f"Parse error: not JSON ({exc.msg.removesuffix(' at')} at character {exc.pos})") from None
    except RecursionError:  # the parser's own bound (about 1,000 levels) stops it early
        raise _Refused(PARSE_ERROR, f"Parse error: nested deeper than {MAX_DEPTH}") from None
    # On text that parsed, every string token closes, so emptying them is one linear pass.
    if _too_deep(_STRING.sub('""', text)):
        raise _Refused(PARSE_ERROR, f"Parse error: nested deeper than {MAX_DEPTH}")
    return value


def _has_surrogate(value: Any) -> bool:
    # Lone surrogates cannot be encoded as UTF-8: one C-speed serialisation finds any, keys included.
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _valid_id(value: Any) -> bool:
    if isinstance(value, str):
        return not _SURROGATE.search(value)
    return isinstance(value, int) and not isinstance(value, bool) and -MAX_ID <= value <= MAX_ID


def check_message(data: bytes) -> Checked:
    """Check one incoming message (the bytes of one stdio line or one HTTP body) by the rules above."""
    try:
        value = _parse(data)
    except _Refused as refused:
        return Checked(code=refused.code, error=refused.error)
    if isinstance(value, list):
        return Checked(code=INVALID_REQUEST, error="Invalid Request: a batch (MCP has no batches: one message at a time)")
    if not isinstance(value, dict):
        return Checked(code=INVALID_REQUEST, error="Invalid Request: a message must be a JSON object")
    request_id = value.get("id")
    if "id" in value and not _valid_id(request_id):
        return Checked(code=INVALID_REQUEST, error=f"Invalid Request: id must be a string or an integer within +-{MAX_ID}")
    if value.get("jsonrpc") != "2.0":
        return Checked(code=INVALID_REQUEST, error='Invalid Request: "jsonrpc" must be "2.0"', request_id=request_id)
    if _has_surrogate(value):
        return Checked(code=INVALID_REQUEST, error="Invalid Request: a string holds a lone surrogate (not Unicode text)", request_id=request_id)
    if "method" in value and not isinstance(value["method"], str):
        return Checked(code=INVALID_REQUEST, error="Invalid Request: method must be a string", request_id=request_id)
    if "method" in value and "params" in value and not isinstance(value["params"], dict):
        code = INVALID_PARAMS if "id" in value else INVALID_REQUEST
        return Checked(code=code, error="Invalid params: params must be an object", request_id=request_id)
    try:
        message = types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError as exc:
        return Checked(
            code=INVALID_REQUEST,
            error=f"Invalid Request: not an MCP message ({exc.error_count()} schema error(s))",
            request_id=request_id,
        )
    return Checked(message=message)


def error_response(checked: Checked) -> types.JSONRPCError:
    """The JSON-RPC error answering a refused message."""
    return types.JSONRPCError(
        jsonrpc="2.0", id=checked.request_id, error=types.ErrorData(code=checked.code, message=checked.error)
    )
