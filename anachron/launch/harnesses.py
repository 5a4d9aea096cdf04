"""The command-line harnesses ``anachron run`` launches, each with the lock as its only tool surface.

Per harness: the command line and environment (the flags that remove every
built-in tool and name the lock), the importer that reads its transcript,
the names its log gives the lock's tools, and the preflight read from its
first event.  The preflight fails closed: a check that cannot be made is a
refusal.  docs/run-rules.md ("Sealed launchers") gives the flags, what each
init event shows, and what is known to break the seal.

- **claude-code**: ``system/init`` lists ``tools`` and ``mcp_servers`` (with
  a ``status``): the lock must be ``connected``, both its tools listed, and
  no other tool present but the few that never leave the process
  (:data:`CLAUDE_LOCAL`);
- **codex** (``thread.started``) and **gemini-cli** (``init``) list neither
  tools nor servers: what is checked instead is that the lock process
  started (it creates its event log at start-up) and that the flags
  removing the built-in tools are on the command line; the guard
  (:meth:`Harness.calls`) then stops the run at the first call of any tool
  but the lock's.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from anachron.core.jsonio import dump_json
from anachron.core.seal import lock_tool_names
from anachron.launch.lock import SERVER, TOOLS, Lock, child_env, mcp_config
from anachron.launch.relay import __file__ as relay_file

# The MCP configuration Claude Code is given (the relay); mcp.json is the lock's own, which the audit reads.
HARNESS_CONFIG = "harness-mcp.json"
CODEX_HOME = "codex-home"  # Codex's CODEX_HOME in the run directory
CLAUDE_HOME = "claude-home"  # Claude Code's HOME in the run directory (its CLAUDE_CONFIG_DIR: .claude in it)
GEMINI_HOME = "gemini-home"  # Gemini CLI's HOME in the run directory (its settings: .gemini/settings.json)
# Claude Code's built-in tools (as of 2.1), each removed by name: --tools "" does not remove them
# all in every version (anthropics/claude-code#31182), so both are given.
CLAUDE_BUILTINS = (
    "Bash", "BashOutput", "KillShell", "KillBash", "Task", "Agent", "ToolSearch", "WebSearch", "WebFetch",
    "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS", "NotebookEdit", "NotebookRead", "TodoWrite",
    "Skill", "SlashCommand", "TaskOutput", "TaskStop", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate",
    "AskUserQuestion", "EnterPlanMode", "ExitPlanMode", "SendMessage", "ListMcpResourcesTool", "ReadMcpResourceTool",
    # Listed by the system/init of Claude Code 2.1.x (anthropics/claude-code#62608): a deny list must name them.
    "PowerShell", "Monitor", "RemoteTrigger", "CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree",
    "PushNotification", "ScheduleWakeup", "LSP",
    # Listed by 2.1.197 and removed by --tools "" (measured): the deny list must name them too.
    "ReportFindings", "Workflow",
)
# The deny-list names a version no longer knows, from the first version measured: 2.1.197 warns on
# stderr that each "matches no known tool".  An older or unreadable version gets the whole list (an
# unknown name only warns; a name left out may leave its tool on).
CLAUDE_UNKNOWN_SINCE = ((2, 1, 197), frozenset({"ToolSearch", "MultiEdit", "LS", "NotebookRead", "SlashCommand"}))


def claude_deny_list(version: str | None) -> tuple[str, ...]:
    """The built-in tools ``--disallowedTools`` names for Claude Code *version* (``--version``'s line)."""
    found = re.match(r"\s*(\d+)\.(\d+)\.(\d+)", version or "")
    since, unknown = CLAUDE_UNKNOWN_SINCE
    if found is None or tuple(int(part) for part in found.groups()) < since:
        return CLAUDE_BUILTINS
    return tuple(name for name in CLAUDE_BUILTINS if name not in unknown)
# Tools Claude Code may keep that never leave its process (a list that omits EndConversation does not remove it).
CLAUDE_LOCAL = frozenset({"EndConversation", "TodoWrite", "ExitPlanMode", "EnterPlanMode"})
# Per harness, the tools a request to its model may offer beside the lock's, because they never leave
# its process (the model gateway refuses any other, and the seal audit of a run does not count a call of
# one as outside the lock: docs/run-rules.md, "Model gateway", gives each entry's source).  Each entry
# holds from the first version measured to offer it ("since"; () for every version): a version that
# cannot be read gets only the () entries.  Codex's update_plan only records the plan it shows
# (codex-rs core, plan_tool.rs).
LOCAL_TOOLS: dict[str, tuple[tuple[tuple[int, ...], frozenset[str]], ...]] = {
    "claude-code": (((), CLAUDE_LOCAL),),
    # In a CODEX_HOME of the run's own the lock is the only MCP server, so Codex 0.171.0's MCP resource tools
    # reach only the lock; request_user_input asks the user, whom codex exec does not have.  The guard
    # still stops a run at the first call of any of them.
    "codex": (((), frozenset({"update_plan", "list_mcp_resources", "list_mcp_resource_templates",
                              "read_mcp_resource", "request_user_input"})),
              # With a slug it knows (gpt-5.5), 0.171.0 defers MCP tools behind tool_search, run by the client
              # ({"type": "tool_search", "execution": "client"}: a BM25 search of its own tool list, whose
              # output the gateway checks like a tool list), and offers apply_patch, a file edit in the
              # workspace that no flag of 0.171.0 removes (its model metadata's apply_patch_tool_type):
              # under --sandbox read-only it cannot write, and it reaches no network.
              ((0, 171, 0), frozenset({"tool_search", "apply_patch"}))),
    # Gemini CLI 0.61.0 offers update_topic whatever the settings exclude; its execute only stores and
    # echoes the topic it is given (UpdateTopicInvocation in the 0.61.0 bundle).
    "gemini-cli": (((), frozenset({"update_topic"})),),
    "responses": (),
    "chat": (),
}


def version_tuple(version: str | None) -> tuple[int, ...] | None:
    """``(major, minor, patch)`` of ``--version``'s line (``codex-cli 0.171.0``), or ``None``."""
    found = re.search(r"(\d+)\.(\d+)\.(\d+)", version or "")
    return tuple(int(part) for part in found.groups()) if found else None


def local_tools(harness: str, version: str | None) -> frozenset[str]:
    """The tools of *harness* at *version* (``--version``'s line) that never leave its process."""
    have = version_tuple(version)
    return frozenset().union(*(tools for since, tools in LOCAL_TOOLS.get(harness, ())
                               if not since or (have is not None and have >= since)))


WEB_TOOLS = frozenset({"WebSearch", "WebFetch", "web_search", "google_web_search", "web_fetch"})
SHELLS = frozenset({"Bash", "BashOutput", "KillShell", "KillBash", "shell", "exec_command", "run_shell_command"})
# Codex features that add a tool beside the lock's (`codex features list` of 0.171.0), each turned off; an
# older Codex ignores a key it does not know, and the model gateway refuses a request offering any other.
CODEX_FEATURES_OFF = (
    "goals", "view_image", "apps", "browser_use", "browser_use_external", "computer_use", "image_generation",
    "in_app_browser", "skill_search", "tool_suggest", "sleep_tool", "incremental_tools", "incremental_tools_legacy",
    "incremental_tools_legacy_gcp", "deferred_tool_world_state", "multi_agent",
)
# Gemini CLI's built-in tools (packages/core/src/tools/tool-names.ts), all excluded.
GEMINI_BUILTINS = (
    "run_shell_command", "google_web_search", "web_fetch", "glob", "write_todos", "write_file", "replace",
    "grep_search", "search_file_content", "read_many_files", "read_file", "list_directory", "save_memory",
    "activate_skill", "ask_user", "get_internal_docs", "enter_plan_mode", "exit_plan_mode", "invoke_agent",
)


@dataclass(frozen=True)
class Check:
    """One preflight check: its name, whether it passed, and what was seen."""

    name: str
    passed: bool
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.name, "passed": self.passed, "detail": self.detail}


@dataclass
class Prepared:
    """What a harness is started with: argv, environment, and the files written for it."""

    argv: list[str]
    env: dict[str, str]
    files: dict[str, str] = field(default_factory=dict)  # name in the run directory -> text


def kind_of(tool: str) -> str:
    """``web``, ``shell`` or ``other``: what a tool outside the lock is, for a refusal's reason."""
    return "web" if tool in WEB_TOOLS else "shell" if tool in SHELLS else "not the lock's"


def version_of(executable: str) -> str | None:
    """``EXECUTABLE --version``'s first line, or ``None`` when it cannot tell (recorded, never fatal)."""
    try:
        done = subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line.strip() for line in (done.stdout or "").split("\n") if line.strip()]
    return lines[0] if done.returncode == 0 and lines else None


def version_warning(harness: str, version: str | None) -> str | None:
    """A warning when *version* (``--version``'s line) is not of a major version in :data:`TESTED`
    for *harness*, or cannot be read: the flags and stream shapes are those of the tested ones."""
    tested = TESTED.get(harness)
    if tested is None:
        return None
    found = re.search(r"(\d+)\.\d+", version or "")
    listed = ", ".join(f"{major}.x" for major in tested)
    if found is None:
        return f"{harness}: cannot tell its version from --version ({version!r}); tested: {listed}"
    if int(found.group(1)) not in tested:
        return f"{harness} {found.group(0)} is an untested major version (tested: {listed}): flags or stream shapes may differ"
    return None


class Harness:
    """A harness: override :meth:`prepare`, :meth:`preflight` and :meth:`calls`."""

    name = ""
    executable = ""
    package = ""  # the npm package that installs the executable
    log_format = ""
    lock_names: tuple[str, ...] = ()  # the names its log gives the lock's tools beyond lock_tool_names(SERVER)
    cli_version: str | None = None  # ``--version``'s first line, set by the launcher before prepare

    def prepare(self, entry: Mapping[str, Any], rundir: Path, model: str | None, max_turns: int | None) -> Prepared:
        """The command line, environment and files that give the harness *entry* (the relay to the
        lock: :func:`anachron.launch.lock.relay_entry`) as its only MCP server."""
        raise NotImplementedError

    def is_init(self, event: Mapping[str, Any]) -> bool:
        raise NotImplementedError

    def preflight(self, event: Mapping[str, Any], prepared: Prepared) -> list[Check]:
        raise NotImplementedError

    def calls(self, event: Mapping[str, Any]) -> list[str]:
        """The tools *event* calls, by the names the log gives them."""
        raise NotImplementedError

    def outside(self, event: Mapping[str, Any]) -> str | None:
        """Why *event* shows the harness acting outside the lock other than by a call (``None``: it does not)."""
        return None

    def is_lock(self, tool: str) -> bool:
        return tool in self.lock_names or tool in lock_tool_names(SERVER, TOOLS)

    def reported_version(self, event: Mapping[str, Any]) -> str | None:
        """The version the init event reports, if any."""
        return None


class ClaudeCode(Harness):
    name = "claude-code"
    executable = "claude"
    package = "@anthropic-ai/claude-code"
    log_format = "claude-code"

    def __init__(self, supports_tools_flag: bool = True, supports_settings_flag: bool = False) -> None:
        self.supports_tools_flag = supports_tools_flag
        self.supports_settings_flag = supports_settings_flag

    @staticmethod
    def probe(executable: str) -> tuple[bool, bool]:
        """Whether ``claude --help`` lists ``--tools`` (older versions have only ``--disallowedTools``)
        and ``--settings`` (a flag an older version does not know would stop it at start-up)."""
        try:
            done = subprocess.run([executable, "--help"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            return False, False
        listed = lambda flag: re.search(rf"(?:^|[\s,]){flag}\b", done.stdout or "") is not None  # noqa: E731
        return listed("--tools"), listed("--settings")

    def prepare(self, entry, rundir, model, max_turns):
        config = rundir / HARNESS_CONFIG
        argv = [self.executable, "-p", "--output-format", "stream-json", "--verbose",
                "--strict-mcp-config", "--mcp-config", str(config)]
        if self.supports_tools_flag:
            argv += ["--tools", ""]
        argv += ["--disallowedTools", ",".join(claude_deny_list(self.cli_version)),
                 "--allowedTools", ",".join(f"mcp__{SERVER}__{tool}" for tool in TOOLS)]
        if model is not None:
            argv += ["--model", model]
        if max_turns is not None:
            argv += ["--max-turns", str(max_turns)]
        files = {config.name: dump_json({"mcpServers": {SERVER: dict(entry)}})}
        if self.supports_settings_flag:
            # A hook is a command outside the lock whose output can reach the model (SessionStart's does).
            settings = rundir / "claude-settings.json"
            files[settings.name] = dump_json({"disableAllHooks": True})
            argv += ["--settings", str(settings)]
        # Claude Code 2.x defers MCP tools behind ToolSearch, which --tools "" removes: without this the
        # lock's tools are never reachable (ozongzi/agentix v0.26.1 hit the same).
        # MCP_CONNECTION_NONBLOCKING=false: 2.1 otherwise starts before its MCP servers connect, and
        # its init lists the lock as "pending", which the preflight (rightly) refuses.
        # A HOME (and CLAUDE_CONFIG_DIR) of the run's own: the user's ~/.claude.json and ~/.claude/settings.json are
        # never read.  --strict-mcp-config and disableAllHooks keep their servers and hooks out, but not the rest:
        # 2.1.197 applies a user's settings "env" over its own environment, so an ANTHROPIC_BASE_URL there
        # sent the model's requests around the gateway (tests/launch/slow_real_clis.py); plugins, helpers too.
        home = rundir / CLAUDE_HOME
        (home / ".claude").mkdir(parents=True, exist_ok=True)
        env = child_env({"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "ENABLE_TOOL_SEARCH": "false",
                         "MCP_CONNECTION_NONBLOCKING": "false", "HOME": str(home),
                         "CLAUDE_CONFIG_DIR": str(home / ".claude")})
        return Prepared(argv, env, files)

    def outside(self, event):
        if event.get("type") == "system" and str(event.get("subtype", "")).startswith("hook_"):
            return f"a hook ran ({event.get('hook_name') or event.get('subtype')}): a command outside the lock"
        return None

    def is_init(self, event):
        return event.get("type") == "system" and event.get("subtype") == "init"

    def reported_version(self, event):
        value = event.get("claude_code_version")
        return value if isinstance(value, str) else None

    def preflight(self, event, prepared):
        servers = event.get("mcp_servers")
        tools = event.get("tools")
        checks = []
        if not isinstance(servers, list):
            checks.append(Check("lock connected", False, "the init event has no mcp_servers list"))
        else:
            status = next((s.get("status") for s in servers if isinstance(s, dict) and s.get("name") == SERVER), None)
            shown = json.dumps([{"name": s.get("name"), "status": s.get("status")} for s in servers if isinstance(s, dict)])
            if status == "connected":
                checks.append(Check("lock connected", True, f"mcp_servers: {shown}"))
            elif status is None:
                checks.append(Check("lock connected", False, f"the lock is not among the MCP servers (mcp_servers: {shown})"))
            else:
                checks.append(Check("lock connected", False, f"the lock's status is {status!r}, not 'connected'"))
        if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
            checks.append(Check("no built-in tools", False, "the init event has no tools list"))
            return checks
        outside = [t for t in tools if not self.is_lock(t) and t not in CLAUDE_LOCAL]
        if outside:
            named = ", ".join(f"{t} ({kind_of(t)})" for t in outside)
            checks.append(Check("no built-in tools", False, f"tools outside the lock are present: {named}"))
        else:
            checks.append(Check("no built-in tools", True, f"tools: {json.dumps(tools)}"))
        missing = [f"mcp__{SERVER}__{tool}" for tool in TOOLS if f"mcp__{SERVER}__{tool}" not in tools]
        checks.append(Check("lock tools offered", not missing,
                            f"missing from tools: {', '.join(missing)}" if missing else "search and fetch listed"))
        return checks

    def calls(self, event):
        message = event.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if event.get("type") != "assistant" or not isinstance(content, list):
            return []
        names = []
        for block in content:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind in ("tool_use", "server_tool_use"):
                names.append(str(block.get("name")))
            elif kind == "mcp_tool_use":
                # The API's MCP connector runs a remote server's tool: named as the audit names it
                # (mcp__SERVER__TOOL), so only a block naming the lock's server and tool passes.
                names.append(f"mcp__{block.get('server_name')}__{block.get('name')}")
        return names


def _toml(value: Any) -> str:
    """A TOML value of a string or a list of strings (a JSON string is a TOML basic string)."""
    return json.dumps(value)


class Codex(Harness):
    name = "codex"
    executable = "codex"
    package = "@openai/codex"
    log_format = "codex"

    def prepare(self, entry, rundir, model, max_turns):
        key = f"mcp_servers.{SERVER}"
        overrides = [
            'web_search="disabled"',
            "features.shell_tool=false",
            *(f"features.{feature}=false" for feature in CODEX_FEATURES_OFF),
            f"{key}.command={_toml(entry['command'])}",
            f"{key}.args={_toml(entry['args'])}",
            *(f"{key}.env.{name}={_toml(value)}" for name, value in entry["env"].items()),
            f"{key}.enabled_tools={_toml(list(TOOLS))}",
            # codex exec cancels an MCP call it would have to ask about (openai/codex#16685).
            f'{key}.default_tools_approval_mode="approve"',
            # 0.171.0 starts the first turn without a server it is not told to wait for: no lock tools.
            f"{key}.required=true",
        ]
        argv = [self.executable, "exec", "--json", "--skip-git-repo-check", "--sandbox", "read-only"]
        for override in overrides:
            argv += ["-c", override]
        if model is not None:
            argv += ["--model", model]
        argv.append("-")  # the prompt is read from stdin
        # A CODEX_HOME of the run's own: the user's config.toml (its MCP servers, its profiles) is never read.
        home = rundir / CODEX_HOME
        home.mkdir(exist_ok=True)
        return Prepared(argv, child_env({"CODEX_HOME": str(home)}))

    def is_init(self, event):
        return event.get("type") == "thread.started"

    def preflight(self, event, prepared):
        flags = " ".join(prepared.argv)
        present = 'web_search="disabled"' in flags and "features.shell_tool=false" in flags
        return [Check("no built-in tools", present,
                      "codex exec --json lists no tools: checked the flags web_search=\"disabled\" and "
                      "features.shell_tool=false, and every call is guarded")]

    def calls(self, event):
        item = event.get("item")
        if event.get("type") not in ("item.started", "item.completed") or not isinstance(item, dict):
            return []
        kind = item.get("type")
        if kind == "mcp_tool_call":
            return [f"{item.get('server')}__{item.get('tool')}"]
        if kind == "command_execution":
            return ["shell"]
        if kind == "web_search":
            return ["web_search"]
        return []


class GeminiCli(Harness):
    name = "gemini-cli"
    executable = "gemini"
    package = "@google/gemini-cli"
    log_format = "gemini-cli"
    # Gemini CLI named an MCP tool by its own name (or SERVER__TOOL when two servers clash); since 0.46 it is
    # mcp_SERVER_TOOL (auth0/auth0-evals#46 reads it from the bundle's generateValidName).
    lock_names = TOOLS  # its names before 0.46 (SERVER__TOOL and mcp_SERVER_TOOL are lock_tool_names')

    def prepare(self, entry, rundir, model, max_turns):
        # 0.61.0 drops PYTHONPATH from an MCP server's env ("Blocked dangerous environment variable"): the
        # relay (standard library only) is run by its file, isolated (-I), so no other anachron is imported.
        relay = [entry["args"][-1]]
        if entry["args"][:2] == ["-m", "anachron.launch.relay"]:
            relay = ["-I", str(Path(relay_file).resolve()), *entry["args"][2:]]
        env = {name: value for name, value in entry["env"].items() if name != "PYTHONPATH"}
        settings = {
            "mcpServers": {SERVER: {"command": entry["command"], "args": relay, "env": env,
                                    "trust": True, "includeTools": list(TOOLS)}},
            "mcp": {"allowed": [SERVER]},
            # No tools.core: an empty list removes the MCP tools too (0.61.0); every built-in is excluded
            # instead, and the model gateway refuses a request offering any tool but the lock's.
            "tools": {"exclude": list(GEMINI_BUILTINS)},
            # The key comes from GEMINI_API_KEY; without a selected auth type headless mode exits (41).
            "security": {"auth": {"selectedType": "gemini-api-key"}},
        }
        argv = [self.executable, "--output-format", "stream-json", "--allowed-mcp-server-names", SERVER]
        if model is not None:
            argv += ["--model", model]
        # User settings in a HOME of the run's own: the system settings file (GEMINI_CLI_SYSTEM_SETTINGS_PATH)
        # is skipped under a parent others may write (/tmp), and the user's own settings, servers and
        # extensions are never read.  Headless mode refuses an untrusted folder (exit 55): the
        # workspace is the run's own, empty.
        home = rundir / GEMINI_HOME
        env = child_env({"HOME": str(home), "GEMINI_CLI_TRUST_WORKSPACE": "true"})
        return Prepared(argv, env, {f"{GEMINI_HOME}/.gemini/settings.json": dump_json(settings)})

    def is_init(self, event):
        return event.get("type") == "init"

    def preflight(self, event, prepared):
        return [Check("no built-in tools", "--allowed-mcp-server-names" in prepared.argv,
                      "stream-json's init lists no tools: checked the settings (every built-in "
                      "excluded) and --allowed-mcp-server-names lock, and every call is guarded")]

    def calls(self, event):
        return [str(event.get("tool_name"))] if event.get("type") == "tool_use" else []


HARNESSES: dict[str, type[Harness]] = {"claude-code": ClaudeCode, "codex": Codex, "gemini-cli": GeminiCli}
# The major versions whose flags and stream shapes docs/run-rules.md describes (the published ones:
# Claude Code 2.1, Codex CLI 0.x, Gemini CLI 0.x); another major runs, with a warning in run.json.
TESTED: dict[str, tuple[int, ...]] = {"claude-code": (2,), "codex": (0,), "gemini-cli": (0,)}
LOOPS = ("responses", "chat")
NAMES = (*HARNESSES, *LOOPS)


def lock_config_text(lock: Lock, events: Path) -> str:
    return dump_json(mcp_config(lock, events))


class DuplicateKey(ValueError):
    """A JSON object of the stream names a key twice: a reader taking either value could miss a call."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise DuplicateKey(key)
        seen[key] = value
    return seen


def read_event(text: str) -> Any:
    """One line of a harness's stream as JSON, refusing an object with a duplicate key
    (:class:`DuplicateKey`): ``{"name": "mcp__lock__search", "name": "WebSearch"}`` reads as
    WebSearch to Python and may read as either elsewhere, so the guard never picks one."""
    return json.loads(text, object_pairs_hook=_unique)


def guard_breach(harness: Harness, names: Sequence[str]) -> str | None:
    """The first of *names* that is not the lock's, or ``None``."""
    return next((name for name in names if not harness.is_lock(name)), None)
