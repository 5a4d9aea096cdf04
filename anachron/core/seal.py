"""The seal audit: did a run that claims to be time-locked reach past its lock?

A run is audited against a **declaration**: the names of the tools that go
through a time lock (``mcp__timelock__search``, ``search``, ...).  Every
call of the trace is judged, whatever its status (a refused or failed call
to a tool still shows the tool was within the agent's reach):

- a call to a tool that is not declared is a **seal breach**, evidence
  ``tool 'WebSearch' is outside the time lock``;
- a call to a shell tool (:data:`SHELL_TOOLS`) whose ``command`` reaches the
  network (:data:`NETWORK_PATTERN`: ``curl``, ``wget``, ``http(s)://``,
  ``requests``, ``urllib``, ``fetch(``) is a breach too, declared or not: a
  shell is never inside a time lock.  Evidence
  ``shell call reaches the network: curl https://...``.  A shell call with
  no recorded command cannot be judged by this rule;
- a call to a declared tool whose lock is known to serve as of a date after
  the sample's T (a :class:`Declaration` carries each lock's as-of date) is a
  breach: that lock shows what T could not know.  Evidence
  ``tool 'mcp__timelock__search' is locked as of 2030-01-01, after T 2023-01-01``.

Local calls (``retrieval: false``: a file read, an edit) are audited like
any other call: a tool outside the lock was reachable, whatever it did.

A call breaches at most once (``seal_breaches`` counts calls), even when
both rules give it a line.  Without a declaration no audit is made:
:func:`audit` returns ``None``, never "sealed".

Pure: standard library only, no I/O.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import AbstractSet, Iterable, Mapping

from .trace import Interaction

__all__ = ["NETWORK_PATTERN", "SHELL_TOOLS", "Declaration", "audit", "call_breaches"]

SHELL_TOOLS = ("Bash", "shell", "execute_command", "code_interpreter")

# A command that names a network client or a URL reaches (or tries to reach) the network.
NETWORK_PATTERN = re.compile(r"\b(?:curl|wget|requests|urllib3?)\b|https?://|\bfetch\(", re.ASCII | re.IGNORECASE)

QUOTED_COMMAND = 80  # characters of a command an evidence line quotes
_LEAD = 20  # characters kept before the match when it sits far into its line


def _quoted(command: str, start: int) -> str:
    """The command around *start*: from its line's beginning, or from just before the match on a long line."""
    line_start = command.rfind("\n", 0, start) + 1
    if start - line_start > QUOTED_COMMAND // 2:
        line_start = start - _LEAD
    text = " ".join(command[line_start : line_start + 4 * QUOTED_COMMAND].split())
    return text if len(text) <= QUOTED_COMMAND else text[: QUOTED_COMMAND - 3] + "..."


class Declaration(frozenset):
    """The declared sealed tools, with the as-of date of the lock behind each tool where it is known
    (``lock_as_of``; a tool named without its lock's date is trusted to be locked at each sample's T)."""

    lock_as_of: Mapping[str, _dt.date]

    def __new__(cls, tools: Iterable[str], lock_as_of: Mapping[str, _dt.date] | None = None) -> "Declaration":
        declaration = super().__new__(cls, tools)
        declaration.lock_as_of = dict(lock_as_of or {})
        return declaration


def call_breaches(
    interaction: Interaction, sealed: AbstractSet[str], as_of: _dt.date | None = None
) -> tuple[str, ...]:
    """The breach lines of one call made as of *as_of* against the declared *sealed* tools (empty when
    it is inside the lock)."""
    lines = []
    if interaction.tool not in sealed:
        lines.append(f"tool {interaction.tool!r} is outside the time lock")
    else:
        locked = getattr(sealed, "lock_as_of", {}).get(interaction.tool)
        if locked is not None and as_of is not None and locked > as_of:
            lines.append(f"tool {interaction.tool!r} is locked as of {locked.isoformat()}, after T {as_of.isoformat()}")
    if interaction.tool in SHELL_TOOLS and interaction.command is not None:
        match = NETWORK_PATTERN.search(interaction.command)
        if match is not None:
            lines.append(f"shell call reaches the network: {_quoted(interaction.command, match.start())}")
    return tuple(lines)


def audit(
    interactions: Iterable[Interaction], sealed: AbstractSet[str] | None, as_of: _dt.date | None = None
) -> tuple[tuple[str, ...], ...] | None:
    """Per call of a sample answered as of *as_of*, in order, its breach lines; ``None`` when no tool is
    declared sealed (no verdict)."""
    if sealed is None:
        return None
    return tuple(call_breaches(interaction, sealed, as_of) for interaction in interactions)
