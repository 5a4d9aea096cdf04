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
  no recorded command cannot be judged by this rule.

A call breaches at most once (``seal_breaches`` counts calls), even when
both rules give it a line.  Without a declaration no audit is made:
:func:`audit` returns ``None``, never "sealed".

Pure: standard library only, no I/O.
"""

from __future__ import annotations

import re
from typing import AbstractSet, Iterable

from .trace import Interaction

__all__ = ["NETWORK_PATTERN", "SHELL_TOOLS", "audit", "call_breaches"]

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


def call_breaches(interaction: Interaction, sealed: AbstractSet[str]) -> tuple[str, ...]:
    """The breach lines of one call against the declared *sealed* tools (empty when it is inside the lock)."""
    lines = []
    if interaction.tool not in sealed:
        lines.append(f"tool {interaction.tool!r} is outside the time lock")
    if interaction.tool in SHELL_TOOLS and interaction.command is not None:
        match = NETWORK_PATTERN.search(interaction.command)
        if match is not None:
            lines.append(f"shell call reaches the network: {_quoted(interaction.command, match.start())}")
    return tuple(lines)


def audit(
    interactions: Iterable[Interaction], sealed: AbstractSet[str] | None
) -> tuple[tuple[str, ...], ...] | None:
    """Per call, in order, its breach lines; ``None`` when no tool is declared sealed (no verdict)."""
    if sealed is None:
        return None
    return tuple(call_breaches(interaction, sealed) for interaction in interactions)
