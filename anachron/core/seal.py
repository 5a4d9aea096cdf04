"""The seal audit: did a run that claims to be time-locked reach past its lock?

A run is audited against a :class:`Declaration`: the names of the tools that
go through a time lock (``mcp__timelock__search``, ``search``, ...), the
shells declared network-isolated, and, for a verdict that is proof rather
than a claim, the lock's own records (:class:`LockRun`, read from the event
logs of ``anachron serve``).  Every call of the trace is judged, whatever its
status (a refused or failed call still shows the tool was within reach):

- a call to a tool that is not declared (sealed, or an isolated shell) is a **breach**:
  ``tool 'WebSearch' is outside the time lock``;
- a call to a shell tool (:data:`SHELL_TOOLS`) is a breach unless the run
  declared that shell isolated (``isolated_shells``): no reading of a command
  can tell whether a shell reached the network (``c''url``, base64, a
  ``python -c`` socket...).  ``shell call 'Bash' can reach the network:
  declare --isolated-shell Bash if it could not``.  With the declaration the
  verdict holds *given* it: the sample's ``assumptions`` say
  ``shell 'Bash' had no network``.  Network words in the command
  (:func:`network_evidence`) are an evidence line either way, never a verdict;
- with lock records, every call to a declared tool must be in the lock's log:
  the calls pair in order with the calls of one :class:`LockRun` of the same
  tool (``mcp__SERVER__search`` is the lock's ``search``) and the same query
  (a search) or target (a fetch, when the trace names a known item), each
  record once; a call whose result carried the lock's receipt
  (``search #3: ...``, the trace's ``receipt``) pairs only with that record.
  The log holding the most of the sample's calls is the sample's (the first
  of equals).  A call that pairs with none is a breach (``call to 'mcp__timelock__search' is not in
  the lock's log``); so is a paired call whose lock did not run in the
  ``enforced`` mode or ran as of a date after the sample's T: the lock's own
  start record is the evidence, never a configuration.  Its budget too
  (``limits``, :data:`BUDGETS`): an answered call beyond a cap (every ``ok``
  call cost one of its tool's cap and one of ``calls``), or answered where the
  lock recorded ``exhausted``, is a breach.  The first paired call's evidence
  names the run (:meth:`LockRun.describe`);
- without lock records (a configuration only) a declared tool whose
  configuration names a date after T is a breach (``lock_as_of``), and a run
  without breaches is **unverified**, never sealed: nothing shows its calls
  went through the lock.

The sample's status (:data:`STATUSES`): ``breached`` (a call breached),
``no verdict`` (no call to judge), ``unverified`` (no lock records),
``sealed`` (every call paired with the lock's log, given the assumptions),
``lock-only`` (the trace is the lock's own log, which cannot show what else
the harness could reach: no verdict).  A call breaches at most once.

Edge: one lock log may vouch for the calls of several samples (a pairing is
made per sample, and a receipt names a record, not a run).

>>> from anachron.core.trace import Interaction
>>> bash = Interaction("Bash", None, (), command="curl https://x.test")
>>> audit([bash], Declaration({"search"})).breaches
(("shell call 'Bash' can reach the network: declare --isolated-shell Bash if it could not",),)
>>> found = audit([bash], Declaration({"search"}, isolated_shells={"Bash"}, locks=()))
>>> found.status, found.assumptions
('sealed', ("shell 'Bash' had no network",))

Pure: standard library only, no I/O.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from typing import AbstractSet, Any, Iterable, Mapping, Sequence

from anachron.core.errors import AnachronError
from anachron.core.trace import Interaction

__all__ = [
    "BUDGETS",
    "NETWORK_PATTERN",
    "SHELL_TOOLS",
    "STATUSES",
    "Declaration",
    "LockCall",
    "LockRun",
    "SealAudit",
    "audit",
    "call_breaches",
    "lock_tool",
    "lock_tool_names",
    "network_evidence",
    "run_status",
    "stored_status",
]

# The shell and code-running tools of each harness (docs/importers.md, "Shell tools", gives the source of each).
SHELL_TOOLS = (
    "Bash", "BashOutput",  # Claude Code
    "shell", "local_shell", "exec_command", "shell_command", "write_stdin",  # Codex CLI, OpenAI Responses local_shell
    "run_shell_command",  # Gemini CLI
    "execute_bash", "execute_ipython_cell",  # OpenHands
    "bash", "python", "bash_session",  # SWE-agent (bash); Inspect's bash(), python(), bash_session(); Anthropic's bash tool
    "execute_command",  # Cline / Roo Code
    "run_terminal_cmd",  # Cursor
    "code_interpreter", "code_execution", "bash_code_execution",  # OpenAI and Anthropic hosted code tools
)

STATUSES = ("sealed", "unverified", "breached", "no verdict", "lock-only")

# Network words in a command: evidence for a reader, never a verdict (see the module docstring).
NETWORK_PATTERN = re.compile(r"\b(?:curl|wget|requests|urllib3?)\b|https?://|\bfetch\(", re.ASCII | re.IGNORECASE)

# What a shell does not run: a quoted string's text and a heredoc's body (`git commit -m "mention curl"`).
_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"", re.DOTALL)
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1[^\n]*\n.*?(?:\n\s*\2[ \t]*(?=\n|$)|\Z)", re.DOTALL)
# ... unless it is a payload that runs: `sh -c '...'` (a shell command: read by the same rule),
# `eval "..."` or `python -c '...'` (read whole: eval re-parses its quotes, code quotes are code).
_RUNNER = re.compile(
    r"(?:^|[\s;&|(`])(?:\S*/)?(?:(?P<shell>(?:ba|da|k|z)?sh(?:\s+-[a-z]+)*?\s+-[a-z]*c[a-z]*)|eval"
    r"|(?:python[\d.]*|node|perl|ruby|php)(?:\s+-[-\w]+)+)\s+$"
)
_REACH = 60  # characters before a quote searched for its runner
_INTERPRETER = re.compile(r"(?:^|[\s;&|(`])(?:\S*/)?(?:(?:ba|da|k|z)?sh|python[\d.]*|node|perl|ruby|php)(?=[\s;&|)]|$)")
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_WORD = re.compile(r"""(?:'[^']*'|"(?:[^"\\]|\\.)*"|\\.|[^\s'"\\;&|])+""", re.DOTALL)
_UNQUOTE = re.compile(r"'([^']*)'|\"((?:[^\"\\]|\\.)*)\"", re.DOTALL)
_DEPTH = 4  # nested `sh -c` payloads read by the rule; deeper ones are read whole


QUOTED_COMMAND = 80  # characters of a command an evidence line quotes
_LEAD = 20  # characters kept before the match when it sits far into its line


def _quoted(command: str, start: int) -> str:
    """The command around *start*: from its line's beginning, or from just before the match on a long line."""
    line_start = command.rfind("\n", 0, start) + 1
    if start - line_start > QUOTED_COMMAND // 2:
        line_start = start - _LEAD
    text = " ".join(command[line_start : line_start + 4 * QUOTED_COMMAND].split())
    return text if len(text) <= QUOTED_COMMAND else text[: QUOTED_COMMAND - 3] + "..."


def _blank(match: re.Match[str]) -> str:
    # Same length, so a match in what is left sits where it sits in the command.
    return " " * len(match.group(0))


def _running(command: str, depth: int = 0) -> str:
    """*command* with what does not run blanked (same length): quoted text and heredoc bodies, except payloads."""

    def heredoc(match: re.Match[str]) -> str:
        # A body fed to a shell or an interpreter on the marker's line (`bash <<EOF`, `cat <<EOF | sh`) runs.
        line = command[command.rfind("\n", 0, match.start()) + 1 : match.start()] + match.group(0).split("\n", 1)[0]
        return match.group(0) if _INTERPRETER.search(line) else _blank(match)

    text = _HEREDOC.sub(heredoc, command)
    parts, pos = [], 0
    while (match := _QUOTED.search(text, pos)) is not None:
        parts.append(text[pos : match.start()])
        runner = _RUNNER.search(text, max(0, match.start() - _REACH), match.start())
        if runner is None:
            parts.append(_blank(match))
            pos = match.end()
            continue
        # The payload is the whole shell word: `'a '"'"'b'` is one argument of three quoted pieces.
        word = _WORD.match(text, match.start())
        inner = _UNQUOTE.sub(_unquoted, word.group(0))
        parts.append(_running(inner, depth + 1) if runner.group("shell") and depth < _DEPTH else inner)
        pos = word.end()
    parts.append(text[pos:])
    return "".join(parts)


def _unquoted(piece: re.Match[str]) -> str:
    # Same length: the quotes become spaces; in double quotes `\"` keeps its quote, not the backslash.
    if piece.group(1) is not None:
        return " " + piece.group(1) + " "
    return " " + _ESCAPE.sub(lambda e: " " + e.group(1), piece.group(2)) + " "


def network_evidence(command: str) -> str | None:
    """The command around the first network word in what the command runs, or ``None``.

    Not read: quoted text (a commit message, an ``echo``'d URL) and heredoc bodies
    written to a file.  Read, because they run: the payload of ``sh -c``/``bash -lc``
    (by this same rule, to a depth of 4), of ``eval`` and of ``python -c``/``node -e``/
    ``perl -e``/``ruby -e``/``php -r`` (whole), and a heredoc body fed to a shell or
    an interpreter (``bash <<EOF``, ``cat <<EOF | sh``, ``python3 - <<EOF``).
    Evidence only: ``c''url`` or ``python -c '...socket...'`` reach the network with
    no word found.

    >>> network_evidence('git commit -m "mention curl"') is None
    True
    >>> network_evidence("curl -s https://x.test")
    'curl -s https://x.test'
    >>> network_evidence("bash -c 'curl -s x.test'")
    "bash -c 'curl -s x.test'"
    """
    match = NETWORK_PATTERN.search(_running(command))
    return None if match is None else _quoted(command, match.start())


@dataclass(frozen=True)
class LockCall:
    """One call the lock recorded: its number in the run, the lock's tool name, the arguments it got,
    and its status (``exhausted``: refused for budget; ``None``: not recorded)."""

    seq: int
    tool: str
    arguments: Any
    status: str | None = None


@dataclass(frozen=True)
class LockRun:
    """A lock's log: where it was read, its run id, and from its start record the cutoff, mode and budget."""

    source: str
    run: str | None
    as_of: _dt.date | None
    mode: str | None
    limits: Mapping[str, Any]
    calls: tuple[LockCall, ...]

    def describe(self) -> str:
        """The run as a verdict names it: id, log, T, mode and budget (``unlimited`` for a missing or null cap).

        >>> run = LockRun("e.jsonl", "ab12", _dt.date(2022, 12, 31), "enforced", {"searches": 5}, ())
        >>> run.describe()
        'lock run ab12 (e.jsonl): as of 2022-12-31, mode enforced, budget searches 5, fetches unlimited, calls unlimited'
        """
        when = "no as-of" if self.as_of is None else f"as of {self.as_of.isoformat()}"
        caps = {name: _cap(self.limits, name) for name in BUDGETS}
        budget = ", ".join(f"{name} {'unlimited' if cap is None else cap}" for name, cap in caps.items())
        return f"lock run {self.run or 'without an id'} ({self.source}): {when}, mode {self.mode}, budget {budget}"


# The lock's budgets (its start record's ``limits``) and the tool each caps (None: every call).
BUDGETS = {"searches": "search", "fetches": "fetch", "calls": None}


def _cap(limits: Mapping[str, Any], name: str) -> int | None:
    """A cap of *limits*: a non-negative integer, else unlimited (``None``)."""
    value = limits.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class Declaration(frozenset):
    """The declared sealed tools, and what the verdict rests on.

    ``lock_as_of``: a configuration's as-of date per tool (trusted only without lock records);
    ``isolated_shells``: shell tools declared to have had no network; ``locks``: the lock's logs
    (``None``: a configuration only, so no verdict better than ``unverified``); ``lock_only``: the
    trace is the lock's own log (no verdict); ``tampered``: lines saying the proof itself differs from
    what was pinned (a run directory's edited lock log): each breaches every sample audited with it;
    ``local_tools``: tools of the harness that never leave its process (Codex's ``tool_search``, a search
    of its own tool list): a call of one is neither outside the lock nor paired with its log.  A shell is
    never one (its network is declared by ``isolated_shells``).
    """

    lock_as_of: Mapping[str, _dt.date]
    isolated_shells: frozenset[str]
    locks: tuple[LockRun, ...] | None
    lock_only: bool
    lock_keys: Mapping[tuple[Any, ...], AbstractSet[int]]
    tampered: tuple[str, ...]
    local_tools: frozenset[str]

    def __new__(
        cls,
        tools: Iterable[str],
        lock_as_of: Mapping[str, _dt.date] | None = None,
        *,
        isolated_shells: Iterable[str] = (),
        locks: Sequence[LockRun] | None = None,
        lock_only: bool = False,
        tampered: Iterable[str] = (),
        local_tools: Iterable[str] = (),
    ) -> "Declaration":
        declaration = super().__new__(cls, tools)
        declaration.local_tools = frozenset(local_tools).difference(declaration)
        shells = sorted(declaration.local_tools.intersection(SHELL_TOOLS))
        if shells:  # a shell reaches whatever its network does: never let through unjudged
            raise AnachronError(f"local tools: {', '.join(map(repr, shells))} is a shell tool, judged by its network")
        declaration.tampered = tuple(tampered)
        declaration.lock_as_of = dict(lock_as_of or {})
        declaration.isolated_shells = frozenset(isolated_shells)
        unknown = sorted(declaration.isolated_shells.difference(SHELL_TOOLS))
        if unknown:  # only a shell can be declared isolated: any other tool would be let through unjudged
            raise AnachronError(f"--isolated-shell: {', '.join(map(repr, unknown))} is not a shell tool ({', '.join(SHELL_TOOLS)})")
        declaration.locks = None if locks is None else tuple(locks)
        declaration.lock_only = lock_only
        # Which logs hold a record of each key: a sample is paired with those logs only, not all of a large run's.
        declaration.lock_keys = {}
        for index, run in enumerate(declaration.locks or ()):
            for record in run.calls:
                for key in (_record_key(record), (record.tool,)):  # (tool,): any call of the tool
                    declaration.lock_keys.setdefault(key, set()).add(index)
        return declaration


@dataclass(frozen=True)
class SealAudit:
    """One sample's audit: per call its breach lines and its evidence lines, the status, the assumptions."""

    breaches: tuple[tuple[str, ...], ...]
    evidence: tuple[tuple[str, ...], ...]
    status: str
    assumptions: tuple[str, ...] = ()
    proof: tuple[str, ...] = ()  # breach lines of the proof itself, not of one call (Declaration.tampered)
    own: int = 0  # calls of the harness's own tools (Declaration.local_tools): not judged, so not counted as audited


def lock_tool(name: str) -> str:
    """The lock's name of a harness's tool: the part after the last ``__``; in a name with no ``__``
    that begins ``mcp_`` (Gemini CLI 0.46 on names an MCP tool ``mcp_SERVER_TOOL``), the part after
    the last ``_`` (the lock's tools, ``search`` and ``fetch``, hold none).

    >>> lock_tool("mcp__timelock__search"), lock_tool("fetch"), lock_tool("mcp_lock_fetch"), lock_tool("web_search")
    ('search', 'fetch', 'fetch', 'web_search')
    """
    if "__" not in name and name.startswith("mcp_"):
        return name.rsplit("_", 1)[-1]
    return name.rsplit("__", 1)[-1]


def lock_tool_names(server: str, tools: Iterable[str] = ("search", "fetch")) -> tuple[str, ...]:
    """Every name a harness gives the *tools* of MCP server *server*: the one rule the importers,
    the launcher's guard and the seal audit share.

    ``mcp__SERVER__TOOL`` (Claude Code; Codex's namespace ``mcp__SERVER`` with tool ``TOOL``, the
    route of its ``tool_search`` to deferred tools, read as that name), ``SERVER__TOOL`` (Codex's
    ``codex exec --json`` and rollout function names) and ``mcp_SERVER_TOOL`` (Gemini CLI 0.46 on).

    >>> lock_tool_names("lock", ("search",))
    ('mcp__lock__search', 'lock__search', 'mcp_lock_search')
    """
    return tuple(name for tool in tools for name in (f"mcp__{server}__{tool}", f"{server}__{tool}", f"mcp_{server}_{tool}"))


def _record_key(record: LockCall) -> tuple[Any, ...]:
    arguments = record.arguments if isinstance(record.arguments, Mapping) else {}
    if record.tool == "search":
        return record.tool, arguments.get("query")
    asked = arguments.get("id_or_url")
    return record.tool, asked.strip() if isinstance(asked, str) else None


def _call_key(call: Interaction) -> tuple[Any, ...]:
    """The key of the records *call* may pair with: ``(tool,)`` for a fetch that names no known item."""
    tool = lock_tool(call.tool)
    if tool == "search":
        return tool, call.query
    wanted = _target_text(call.target)
    return (tool,) if wanted is None else (tool, wanted)


def _target_text(target: Any) -> str | None:
    ident = getattr(target, "id", target)
    return ident.strip() if isinstance(ident, str) else None


def _pairs(call: Interaction, record: LockCall) -> bool:
    """Whether *record* is the lock's record of *call*: same tool, same query (search) or target (fetch)."""
    if lock_tool(call.tool) != record.tool:
        return False
    arguments = record.arguments if isinstance(record.arguments, Mapping) else {}
    if record.tool == "search":
        return call.query == arguments.get("query")
    asked = arguments.get("id_or_url")
    wanted = _target_text(call.target)
    # A fetch whose trace names no target pairs by tool and order alone.
    return wanted is None or (isinstance(asked, str) and asked.strip() == wanted)


def _paired(calls: Sequence[tuple[int, Interaction]], run: LockRun) -> dict[int, LockCall]:
    """Call number -> its record: the calls pair in order with the run's records (each record once)."""
    found: dict[int, LockCall] = {}
    position = 0
    for number, call in calls:
        # A call whose result names its receipt (``search #3: ...``) can only be record 3 (numbered 1, 2, ...).
        if call.receipt is None:
            span = range(position, len(run.calls))
        else:
            span = range(max(position, call.receipt - 1), min(call.receipt, len(run.calls)))
        for index in span:
            if (call.receipt is None or run.calls[index].seq == call.receipt) and _pairs(call, run.calls[index]):
                found[number] = run.calls[index]
                position = index + 1
                break
    return found


def call_breaches(
    interaction: Interaction, sealed: AbstractSet[str], as_of: _dt.date | None = None
) -> tuple[str, ...]:
    """The breach lines of one call made as of *as_of* against *sealed*, judged on its own
    (the lock's log is not consulted: :func:`audit` pairs the calls with it)."""
    lines = []
    isolated = getattr(sealed, "isolated_shells", frozenset())
    if interaction.tool in SHELL_TOOLS:
        if interaction.tool not in isolated:
            lines.append(
                f"shell call {interaction.tool!r} can reach the network: "
                f"declare --isolated-shell {interaction.tool} if it could not"
            )
    elif interaction.tool in getattr(sealed, "local_tools", frozenset()):
        pass  # the harness's own, never leaving its process (Declaration.local_tools)
    elif interaction.tool not in sealed:
        lines.append(f"tool {interaction.tool!r} is outside the time lock")
    elif getattr(sealed, "locks", None) is None:
        locked = getattr(sealed, "lock_as_of", {}).get(interaction.tool)
        if locked is not None and as_of is not None and locked > as_of:
            lines.append(f"tool {interaction.tool!r} is locked as of {locked.isoformat()}, after T {as_of.isoformat()}")
    return tuple(lines)


def _lock_lines(record: LockCall, run: LockRun, as_of: _dt.date | None, call: Interaction) -> list[str]:
    lines = []
    if run.mode != "enforced":
        lines.append(f"went through a lock in mode {run.mode!r} ({run.source}), which filters nothing")
    if run.as_of is not None and as_of is not None and run.as_of > as_of:
        lines.append(f"went through a lock as of {run.as_of.isoformat()} ({run.source}), after T {as_of.isoformat()}")
    if record.status == "exhausted" and call.status == "ok":  # the answer came from elsewhere
        lines.append(f"answered, but the lock refused it for budget (record #{record.seq}, {run.source})")
    return lines


def _over_budget(declared: Sequence[tuple[int, Interaction]], pairs: Mapping[int, LockCall], run: LockRun) -> dict[int, list[str]]:
    """Call number -> the budget lines of the answered calls beyond a cap of *run*'s start record.

    Every answered (``ok``) call reached the backend, so it cost one of its tool's cap and one of
    ``calls``: the sample's own answered calls beyond a cap cannot all have come from this lock.
    """
    lines: dict[int, list[str]] = {}
    for name, tool in BUDGETS.items():
        cap = _cap(run.limits, name)
        if cap is None:
            continue
        answered = [n for n, call in declared if n in pairs and call.status == "ok" and tool in (None, pairs[n].tool)]
        for rank, n in enumerate(answered[cap:], start=cap + 1):
            lines.setdefault(n, []).append(
                f"answered call {rank} of {len(answered)}, beyond the lock's budget of {cap} {name} ({run.source})"
            )
    return lines


def audit(
    interactions: Iterable[Interaction], sealed: AbstractSet[str] | None, as_of: _dt.date | None = None
) -> SealAudit | None:
    """The audit of a sample answered as of *as_of* (see the module docstring); ``None`` when no tool is
    declared sealed (no verdict)."""
    if sealed is None:
        return None
    calls = tuple(interactions)
    if getattr(sealed, "lock_only", False):
        return SealAudit(((),) * len(calls), ((),) * len(calls), "lock-only")
    breaches = [list(call_breaches(call, sealed, as_of)) for call in calls]
    evidence: list[tuple[str, ...]] = []
    for call in calls:
        found = network_evidence(call.command) if call.tool in SHELL_TOOLS and call.command is not None else None
        evidence.append(() if found is None else (f"shell command names the network (evidence only): {found}",))
    locks = getattr(sealed, "locks", None)
    if locks is not None:
        declared = [(number, call) for number, call in enumerate(calls) if call.tool in sealed and call.tool not in SHELL_TOOLS]
        best: tuple[LockRun | None, dict[int, LockCall]] = (None, {})
        keys = getattr(sealed, "lock_keys", None)
        if keys is not None:  # a log with no record of any of the calls pairs none: it cannot be the best
            holding = set().union(*(keys.get(_call_key(call), ()) for _, call in declared))
            locks = [run for index, run in enumerate(locks) if index in holding]
        for run in locks:  # the log that holds the most of the calls; the first of equals
            found_pairs = _paired(declared, run)
            if best[0] is None or len(found_pairs) > len(best[1]):
                best = (run, found_pairs)
        run, pairs = best
        budget = {} if run is None else _over_budget(declared, pairs, run)
        for number, call in declared:
            record = pairs.get(number)
            if record is None or run is None:
                breaches[number].append(f"call to {call.tool!r} is not in the lock's log")
            else:
                breaches[number] += _lock_lines(record, run, as_of, call) + budget.get(number, [])
        if run is not None and pairs:  # the lock's record the verdict rests on, under its first paired call
            first = min(pairs)
            evidence[first] = (f"paired with {run.describe()}", *evidence[first])
    isolated = getattr(sealed, "isolated_shells", frozenset())
    assumptions = tuple(
        dict.fromkeys(f"shell {call.tool!r} had no network" for call in calls if call.tool in SHELL_TOOLS and call.tool in isolated)
    )
    proof = tuple(getattr(sealed, "tampered", ()))
    if any(breaches) or proof:
        status = "breached"
    elif all(call.tool in getattr(sealed, "local_tools", ()) for call in calls):
        status = "no verdict"  # no call at all, or only the harness's own: nothing to judge the lock by
    elif locks is None:
        status = "unverified"
    else:
        status = "sealed"
    own = sum(call.tool in getattr(sealed, "local_tools", ()) for call in calls)
    return SealAudit(tuple(map(tuple, breaches)), tuple(evidence), status, assumptions, proof, own)


def run_status(statuses: AbstractSet[str | None], calls: int) -> str | None:
    """The run's seal status from its samples' (*calls*: the calls audited over all of them).

    ``None`` (not audited) when any sample was not; else ``lock-only`` when any was; ``breached``
    when any breached; ``no verdict`` when no call was audited; ``unverified`` when any sample
    was; ``sealed`` otherwise.

    >>> run_status({"sealed", "unverified"}, 3), run_status({"sealed", "no verdict"}, 2)
    ('unverified', 'sealed')
    """
    for status in (None, "lock-only", "breached"):
        if status in statuses:
            return status
    if not calls:
        return "no verdict"
    return "unverified" if "unverified" in statuses else "sealed"


def stored_status(status: Any, breaches: Any, where: str = "seal_status") -> str | None:
    """The seal status of a stored result: *status* checked, or for a copy written before the field
    existed (*status* absent, passed as ``...``) the one its *breaches* count supports: a breach is a
    breach, no breach is ``unverified`` (nothing recorded proves the calls were in the lock's log).

    >>> stored_status(..., 2), stored_status(..., 0), stored_status(..., None), stored_status("sealed", 0)
    ('breached', 'unverified', None, 'sealed')
    """
    if status is ...:
        return None if breaches is None else "breached" if breaches else "unverified"
    if status is not None and status not in STATUSES:
        raise AnachronError(f"{where}: expected one of {', '.join(STATUSES)} or null, got {status!r}")
    if status == "breached" and not breaches or status not in (None, "lock-only", "breached") and breaches:
        raise AnachronError(f"{where}: {status!r} does not agree with seal_breaches {breaches!r}")
    return status
