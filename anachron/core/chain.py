"""A log's SHA-256 digest chain: what ``run.json`` pins of an append-only JSON Lines log.

Link *i* is ``SHA-256(link i-1 || line i)`` from :data:`CHAIN_START`, each
line with its newline (split on ``\\n`` only: a JSON string may hold U+2028);
a torn last line (no newline) is chained without one, so a torn line and
the same line completed differ.  An edited, removed or appended line
changes the last link; a removed or appended one the count too.

A log may also carry the chain in itself (:class:`ChainWriter`): each record
names the link before it in a field (``prev``), so a record edited or
removed in the middle is found where it was, not only at the end
(:func:`broken_links`).  The model gateway's ``model.jsonl`` does; the
lock's log is pinned from outside.  Standard library only.

- :func:`log_chain`: the chain of a log's bytes (:class:`LogChain`);
- :class:`ChainWriter`: appends JSON records, each linked to the one before;
- :func:`broken_links`: the records whose link does not match the lines before them.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from typing import Any, Mapping

__all__ = ["CHAIN_START", "ChainWriter", "LogChain", "broken_links", "log_chain", "next_link"]

CHAIN_START = "0" * 64


@dataclass(frozen=True)
class LogChain:
    """A log's digest chain: its complete lines, the last link, and whether a torn last line
    (no newline at its end) was chained after them."""

    records: int
    sha256: str
    torn: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"records": self.records, "sha256": self.sha256, "torn": self.torn}


def next_link(link: str, line: bytes) -> str:
    """The link after *link* (hex) over *line* (its bytes, with its newline when it has one)."""
    return hashlib.sha256(bytes.fromhex(link) + line).hexdigest()


def log_chain(data: bytes) -> LogChain:
    """The digest chain of a log's bytes.

    >>> log_chain(b"").sha256 == CHAIN_START, log_chain(b"a\\n").records, log_chain(b"a\\nb").torn
    (True, 1, True)
    """
    pieces = data.split(b"\n")
    tail = pieces.pop()  # b"" when the log ends with a newline (or is empty)
    link = CHAIN_START
    for piece in pieces:
        link = next_link(link, piece + b"\n")
    if tail:
        link = next_link(link, tail)
    return LogChain(len(pieces), link, bool(tail))


def broken_links(data: bytes, field: str = "prev") -> list[str]:
    """One line per record of *data* whose *field* is not the link of the lines before it (or that is
    not a JSON object naming one), by line number; empty when every link holds."""
    problems = []
    link = CHAIN_START
    pieces = data.split(b"\n")
    if pieces[-1] == b"":
        pieces.pop()
    for number, piece in enumerate(pieces, 1):
        try:
            record = json.loads(piece.decode("utf-8"))
        except (ValueError, RecursionError):
            record = None
        if not isinstance(record, dict):
            problems.append(f"line {number} is not a JSON object")
        elif record.get(field) != link:
            problems.append(f"line {number}'s {field} is not the digest of the lines before it")
            if isinstance(record.get(field), str) and len(record[field]) == 64:
                link = record[field]  # go on from its own link: each break is named once, where it is
        try:
            link = next_link(link, piece + b"\n")
        except ValueError:  # a link that is not hex: the chain restarts from the bytes
            link = next_link(CHAIN_START, piece + b"\n")
    return problems


class ChainWriter:
    """Appends JSON records to a new file, each with *field* set to the link before it; thread-safe.
    :attr:`chain` is the chain of what was written (what ``run.json`` pins)."""

    def __init__(self, path: str | os.PathLike[str], field: str = "prev") -> None:
        self.field = field
        self._lock = threading.Lock()
        self._file = open(path, "xb")  # new: a log is never appended to one already there
        self._link, self._records = CHAIN_START, 0

    def write(self, record: Mapping[str, Any]) -> None:
        with self._lock:
            line = (json.dumps({self.field: self._link, **record}, ensure_ascii=True) + "\n").encode("utf-8")
            self._file.write(line)
            self._file.flush()
            self._link, self._records = next_link(self._link, line), self._records + 1

    @property
    def chain(self) -> LogChain:
        with self._lock:
            return LogChain(self._records, self._link)

    def close(self) -> None:
        with self._lock:
            self._file.close()
