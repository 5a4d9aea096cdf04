"""What of a call the event log keeps: any value made one every reader can take back.

A client may send anything as a tool's arguments (megabyte strings,
non-finite numbers, deep nesting).  The lock logs every call, so what it
writes is first made loggable here, and each change is listed beside the
record (``arguments_changed``) rather than made silently.

- :func:`loggable`: a value in a form the strict reader takes back, with its changes;
- :data:`MAX_LOGGED_TEXT`, :data:`MAX_LOGGED_ITEMS`, :data:`MAX_LOGGED_DEPTH`,
  :data:`MAX_LOGGED_KEY`, :data:`MAX_LOGGED_ARGUMENTS`: the caps.

Standard library only; no I/O.  The records themselves are built in
:mod:`anachron.timelock.events`.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

__all__ = [
    "MAX_LOGGED_ARGUMENTS",
    "MAX_LOGGED_DEPTH",
    "MAX_LOGGED_ITEMS",
    "MAX_LOGGED_KEY",
    "MAX_LOGGED_TEXT",
    "loggable",
]

MAX_LOGGED_TEXT = 4096  # characters of one argument string kept in the log
MAX_LOGGED_ITEMS = 64  # entries of one argument object or array kept in the log
MAX_LOGGED_DEPTH = 8
MAX_LOGGED_KEY = 256  # characters of an argument name
MAX_LOGGED_ARGUMENTS = 16 * 1024  # characters of a call's arguments, serialised, kept in the log


def loggable(value: Any, changes: list[dict[str, Any]], path: str = "$", depth: int = 0) -> Any:
    """*value* in a form every reader can take back: each change is listed in *changes*.

    Strings longer than :data:`MAX_LOGGED_TEXT` keep their head, and their
    length and SHA-256; non-finite numbers, non-string keys and values that
    are not JSON become their ``repr``; objects and arrays are cut at
    :data:`MAX_LOGGED_ITEMS` entries and :data:`MAX_LOGGED_DEPTH` levels.
    Lone surrogates need no change: :func:`anachron.core.jsonio.dump_json` escapes them.
    """
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        changes.append({"path": path, "change": f"non-finite number {value!r}"})
        return repr(value)
    if isinstance(value, str):
        if len(value) <= MAX_LOGGED_TEXT:
            return value
        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
        changes.append({"path": path, "change": "truncated", "length": len(value), "sha256": digest})
        return value[:MAX_LOGGED_TEXT]
    if isinstance(value, (dict, list, tuple)) and depth >= MAX_LOGGED_DEPTH:
        changes.append({"path": path, "change": f"nested deeper than {MAX_LOGGED_DEPTH} levels"})
        return repr(type(value).__name__)
    if isinstance(value, dict):
        out = {}
        for index, (key, inner) in enumerate(value.items()):
            if index == MAX_LOGGED_ITEMS:
                changes.append({"path": path, "change": f"{len(value) - index} more entries left out"})
                break
            name = key if isinstance(key, str) else repr(key)
            if name is not key:
                changes.append({"path": f"{path}.{name[:MAX_LOGGED_KEY]}", "change": "key is not a string"})
            if len(name) > MAX_LOGGED_KEY:
                digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()
                changes.append({"path": f"{path}.{name[:MAX_LOGGED_KEY]}", "change": "key truncated", "length": len(name), "sha256": digest})
                name = name[:MAX_LOGGED_KEY]
            out[name] = loggable(inner, changes, f"{path}.{name}", depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_LOGGED_ITEMS:
            changes.append({"path": path, "change": f"{len(value) - MAX_LOGGED_ITEMS} more entries left out"})
        return [loggable(v, changes, f"{path}[{i}]", depth + 1) for i, v in enumerate(value[:MAX_LOGGED_ITEMS])]
    changes.append({"path": path, "change": f"not a JSON value ({type(value).__name__})"})
    return repr(value)[:MAX_LOGGED_TEXT]
