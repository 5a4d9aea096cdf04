"""File reading and atomic writing, kept apart from the math.

JSON is parsed strictly: duplicate keys, NaN and Infinity are errors (the
standard library accepts all three silently), and every error names the file
and, for JSON Lines, the line.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterator

from .errors import AnachronError

__all__ = ["read_json", "read_jsonl", "parse_json", "dump_json", "write_atomic"]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def parse_json(text: str, where: str, *, multiline: bool = False) -> Any:
    """Parse one JSON document strictly; *where* prefixes the error message.

    With *multiline*, *where* is a file name and a syntax error adds its line.
    """
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        at = f"{where}:{exc.lineno}" if multiline else where
        raise AnachronError(f"{at}: invalid JSON: {exc.msg} (column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:
        raise AnachronError(f"{where}: invalid JSON: {exc}") from None


def _read_text(path: str | os.PathLike[str]) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except FileNotFoundError:
        raise AnachronError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise AnachronError(f"{path}: is a directory, expected a file") from None
    except UnicodeDecodeError as exc:
        raise AnachronError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise AnachronError(f"{path}: cannot read: {exc.strerror}") from None


def read_json(path: str | os.PathLike[str]) -> Any:
    """Read one JSON document from *path*."""
    return parse_json(_read_text(path), str(path), multiline=True)


def read_jsonl(path: str | os.PathLike[str]) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSON Lines file.

    Each line must hold a JSON object; line numbers start at 1.
    """
    text = _read_text(path)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        obj = parse_json(line, f"{path}:{number}")
        if not isinstance(obj, dict):
            raise AnachronError(f"{path}:{number}: expected a JSON object, got {type(obj).__name__}")
        yield number, obj


def dump_json(obj: Any, *, indent: int | None = 2) -> str:
    """Serialise deterministically: sorted keys, UTF-8, trailing newline."""
    text = json.dumps(obj, indent=indent, sort_keys=True, ensure_ascii=False, allow_nan=False)
    return text + "\n"


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write *text* to *path* atomically: the file is complete or untouched."""
    target = Path(path)
    directory = target.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise AnachronError(f"{target}: cannot write: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
