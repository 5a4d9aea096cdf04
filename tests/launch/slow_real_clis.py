"""``anachron run`` against the real, released harness CLIs, offline: each is installed from npm at the
version pinned in .ci/real-clis.txt (into ``$ANACHRON_CLI_DIR``, default ``~/.cache/anachron/clis``) and
talks, through the launcher's model gateway, to a scripted loopback model (tests/real_cli_models.py).

Locally a CLI that is not installed skips its tests; in CI (``ANACHRON_REQUIRE_EXTRAS``) it fails them.
Install them as CI does: ``npm install --prefix ~/.cache/anachron/clis $(grep -v '^#' .ci/real-clis.txt)``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

from tests.real_cli_models import ANSWER, QUERY, AnthropicScript, GeminiScript, ResponsesScript, lock_search, offered, serve
from tests.support import ROOT, extras_required, require_extra, run_cli

T = "2023-01-01"
PINS = ROOT / ".ci" / "real-clis.txt"


def pinned(package: str) -> str:
    """The version .ci/real-clis.txt pins for *package*."""
    for line in PINS.read_text(encoding="utf-8").split("\n"):
        name, _, version = line.strip().rpartition("@")
        if name == package:
            return version
    raise AssertionError(f"{PINS}: {package} is not pinned")


def real_cli(package: str, command: str) -> Path:
    """The installed executable of *package*; skips (locally) or fails (in CI) when it is absent."""
    base = Path(os.environ.get("ANACHRON_CLI_DIR") or Path.home() / ".cache" / "anachron" / "clis")
    executable = base / "node_modules" / ".bin" / command
    if not executable.exists():
        message = (f"{package}@{pinned(package)} is not installed in {base}: "
                   f"npm install --prefix {base} {package}@{pinned(package)}")
        if extras_required():
            raise AssertionError(message)
        raise unittest.SkipTest(message)
    return executable


class RealCli:
    """A released CLI, its model scripted: a faithful run is sealed and scored, a tool it was never offered
    stops the run.  Subclasses name the package, the executable and how the CLI is pointed at the model."""

    PACKAGE = COMMAND = HARNESS = SEARCH = ROGUE = ""
    SCRIPT: type = AnthropicScript
    OFFERED: frozenset[str] = frozenset()  # what each agent request must offer the model, exactly
    NO_WARNING = ""  # a line of the CLI's stderr the launcher's flags must not provoke
    EXTRA: tuple[str, ...] = ()  # more arguments of `anachron run`
    DATE_MARK = "Today's date is"  # how the CLI tells its model today's date (run.json's date_in_context)
    ROUTE: tuple[str, ...] = ()  # the model's turns before the lock's tools are offered (Codex's tool_search)

    def setUp(self) -> None:
        require_extra("mcp", "mcp")
        self.executable = real_cli(self.PACKAGE, self.COMMAND)
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.prompt = self.tmp / "prompt.txt"
        self.prompt.write_text("Will Aster Logistics beat its guidance? Answer with a probability.\n", encoding="utf-8")

    def environment(self, base: str, home: Path) -> dict[str, str]:
        raise NotImplementedError

    def user_config(self, home: Path, server: list[str], hook: str) -> None:
        """Write, in the invoking user's *home*, an MCP server started by the argv *server* and a hook
        running the shell command *hook*, where this CLI reads a user's own."""
        raise NotImplementedError

    def direct(self, base: str) -> tuple[list[str], dict[str, str]]:
        """The argv and environment (beside ``environment``'s) of this CLI run as a user would, headless,
        without the launcher: the control showing that ``user_config`` is a configuration it loads."""
        raise NotImplementedError

    HOOKS_RUN_DIRECTLY = True  # whether the control shows the user's hooks running

    def evasion_files(self) -> tuple[Path, Path]:
        server, hook = self.tmp / "server-started", self.tmp / "hook-ran"
        self.user_config(self.tmp / "home", ["sh", "-c", f"touch '{server}'; exec sleep 30"], f"touch '{hook}'")
        return server, hook

    @staticmethod
    def write(path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def run_cli_against(self, script) -> tuple[int, str, str, Path]:
        server, base = serve(script)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        home = self.tmp / "home"  # a fresh HOME: no login, settings or memory of the machine's user
        home.mkdir(exist_ok=True)
        out = self.tmp / "run"
        # The gateway forwards to the endpoint the launcher finds in the environment: the scripted model.
        with mock.patch.dict(os.environ, self.environment(base, home)):
            status, stdout, stderr = run_cli("run", self.HARNESS, "--as-of", T, "--prompt", str(self.prompt),
                                             "--out", str(out), "--executable", str(self.executable), "--timeout", "180",
                                             *self.EXTRA)
        return status, stdout, stderr, out

    def test_a_faithful_run_is_sealed_and_scored(self):
        script = self.SCRIPT()
        status, stdout, stderr, out = self.run_cli_against(script)
        self.assertEqual(status, 0, stderr)
        self.assertIn("seal sealed", stdout)
        manifest = json.loads((out / "run.json").read_text(encoding="utf-8"))
        self.assertIn(pinned(self.PACKAGE), manifest["cli_version"])
        self.assertEqual(manifest["warnings"], [])
        self.assertTrue(manifest["preflight"]["passed"])
        self.assertTrue(all(check["passed"] for check in manifest["preflight"]["checks"]))
        self.assertEqual((manifest["seal"]["status"], manifest["seal"]["calls"]), ("sealed", 1))
        self.assertIsNone(manifest["gateway"]["verdict"])
        # Every agent request offered the lock's tools (and the CLI's local ones) and nothing else; both turns ran.
        agent = [request for request in script.requests if lock_search(request)]
        self.assertEqual([set(offered(request)) for request in agent], [self.OFFERED] * 2)
        self.assertEqual(script.turns, [*self.ROUTE, f"call {self.SEARCH}", "answer"])
        # What the gateway let through beside the lock's tools is run.json's local_tools (not counted outside the lock).
        self.assertLessEqual({name for name in self.OFFERED if "lock" not in name}, set(manifest["local_tools"]))
        self.assertFalse(set(manifest["local_tools"]) & set(manifest["sealed_tools"]))
        events = [json.loads(line) for line in (out / "lock-events.jsonl").read_text(encoding="utf-8").split("\n") if line]
        self.assertEqual([(e["tool"], e["arguments"]) for e in events[1:]], [("search", {"query": QUERY})])
        self.assertEqual(events[0]["as_of"], T)
        self.assertIn(ANSWER, (out / "transcript.jsonl").read_text(encoding="utf-8"))
        self.assertNotIn(self.NO_WARNING, (out / "harness-stderr.txt").read_text(encoding="utf-8"))
        # What run.json says of the date holds: today's date reached the model, whatever T is.
        self.assertIn(self.DATE_MARK, json.dumps(agent[0]))
        status, stdout, stderr = run_cli("score", str(out), "--format", "json")
        self.assertEqual(status, 0, stderr)
        summary = json.loads(stdout)["summary"]
        self.assertEqual((summary["seal_status"], summary["seal_calls"]), ("sealed", 1))

    def test_a_server_and_hooks_in_the_users_home_never_run(self):
        # The invoking user's HOME holds an MCP server and hooks this CLI would load; each touches a marker
        # file when it runs.  The run's harness must start neither, and the run is sealed as a faithful one is.
        server, hook = self.evasion_files()
        script = self.SCRIPT()
        status, stdout, stderr, out = self.run_cli_against(script)
        self.assertEqual(status, 0, stderr)
        self.assertIn("seal sealed", stdout)
        self.assertFalse(server.exists(), "the user's MCP server was started")
        self.assertFalse(hook.exists(), "a hook of the user's settings ran")
        manifest = json.loads((out / "run.json").read_text(encoding="utf-8"))
        self.assertEqual((manifest["seal"]["status"], manifest["seal"]["calls"]), ("sealed", 1))
        # The user's server was never offered to the model either.
        self.assertFalse(any("news" in name for request in script.requests for name in offered(request)))

    def test_the_users_home_config_is_one_the_cli_loads_when_run_directly(self):
        # The control of the test above: the same HOME, the CLI run directly, starts the server (and the hooks).
        server, hook = self.evasion_files()
        model, base = serve(self.SCRIPT())
        self.addCleanup(model.server_close)
        self.addCleanup(model.shutdown)
        argv, env = self.direct(base)
        work = self.tmp / "direct"
        work.mkdir()
        environment = {**os.environ, **self.environment(base, self.tmp / "home"), **env}
        environment.pop("CODEX_HOME", None)
        process = subprocess.Popen(argv, env=environment, cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
        wanted = [server, hook] if self.HOOKS_RUN_DIRECTLY else [server]
        deadline = time.monotonic() + 120
        # What it started is what is checked, not how it ended: stopped once it shows (a model it cannot reach retries).
        while process.poll() is None and not all(path.exists() for path in wanted) and time.monotonic() < deadline:
            time.sleep(0.2)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        self.assertTrue(server.exists(), "the CLI run directly did not start the user's MCP server")
        if self.HOOKS_RUN_DIRECTLY:
            self.assertTrue(hook.exists(), "the CLI run directly ran no hook of the user's settings")

    def test_a_tool_never_offered_stops_the_run(self):
        script = self.SCRIPT(rogue=self.ROGUE)
        status, stdout, stderr, out = self.run_cli_against(script)
        self.assertEqual(status, 2, stderr)
        self.assertEqual(stdout, "")
        self.assertEqual(len(stderr.strip().split("\n")), 1, stderr)
        # The guard (the call in the harness's log) or the gateway (the call in the model's answer) stops it,
        # whichever sees it first: both name the tool.
        self.assertRegex(stderr, rf"(guard: the harness called|gateway: answer \d+ had the model call) "
                                 rf"'{self.ROGUE}', outside the lock: run stopped")
        manifest = json.loads((out / "run.json").read_text(encoding="utf-8"))
        self.assertEqual(manifest["refused"], stderr.strip().removeprefix("anachron: "))
        self.assertIsNone(manifest["seal"])
        self.assertEqual(script.turns[len(self.ROUTE)], f"call {self.ROGUE}")


class RealClaudeCode(RealCli, unittest.TestCase):
    PACKAGE, COMMAND, HARNESS = "@anthropic-ai/claude-code", "claude", "claude-code"
    SEARCH, ROGUE = "mcp__lock__search", "WebSearch"
    OFFERED = frozenset({"mcp__lock__search", "mcp__lock__fetch"})
    NO_WARNING = "matches no known tool"  # every name of the deny list is one this version knows

    def environment(self, base, home):
        return {"ANTHROPIC_BASE_URL": base, "ANTHROPIC_API_KEY": "sk-ant-offline-test", "HOME": str(home)}

    def user_config(self, home, server, hook):
        entry = {"type": "stdio", "command": server[0], "args": server[1:]}
        self.write(home / ".claude.json", json.dumps({"mcpServers": {"news": entry}}))  # user-scope servers
        hooks = {event: [{"matcher": "", "hooks": [{"type": "command", "command": hook}]}]
                 for event in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")}
        # A user's settings may also name another endpoint (env ANTHROPIC_BASE_URL): read, it would send the
        # model's requests around the gateway (2.1.197 applies settings env over the process's own).
        self.write(home / ".claude" / "settings.json", json.dumps({"hooks": hooks, "enableAllProjectMcpServers": True,
                                                                    "env": {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}}))

    def direct(self, base):
        env = {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "MCP_CONNECTION_NONBLOCKING": "false"}
        return [str(self.executable), "-p", "hi", "--output-format", "stream-json", "--verbose"], env


class RealGeminiCli(RealCli, unittest.TestCase):
    PACKAGE, COMMAND, HARNESS = "@google/gemini-cli", "gemini", "gemini-cli"
    SEARCH, ROGUE = "mcp_lock_search", "google_web_search"
    SCRIPT = GeminiScript
    OFFERED = frozenset({"mcp_lock_search", "mcp_lock_fetch", "update_topic"})
    NO_WARNING = "Blocked dangerous environment variable"  # the relay needs no PYTHONPATH

    def environment(self, base, home):
        return {"GOOGLE_GEMINI_BASE_URL": base, "GEMINI_API_KEY": "offline-test-key", "HOME": str(home)}

    def user_config(self, home, server, hook):
        hooks = {event: [{"matcher": "*", "hooks": [{"type": "command", "command": hook}]}]
                 for event in ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent")}
        settings = {"mcpServers": {"news": {"command": server[0], "args": server[1:], "trust": True}},
                    "hooksConfig": {"enabled": True}, "hooks": hooks}
        self.write(home / ".gemini" / "settings.json", json.dumps(settings))

    def direct(self, base):
        # The user's settings hold no auth type (as the control's own, below, adds): an API key user's would.
        path = self.tmp / "home" / ".gemini" / "settings.json"
        settings = json.loads(path.read_text(encoding="utf-8"))
        settings["security"] = {"auth": {"selectedType": "gemini-api-key"}}
        path.write_text(json.dumps(settings), encoding="utf-8")
        return [str(self.executable), "--output-format", "stream-json", "-p", "hi"], {"GEMINI_CLI_TRUST_WORKSPACE": "true"}


class RealCodex(RealCli, unittest.TestCase):
    """Codex with a slug it knows (gpt-5.5): the lock's tools are deferred behind its client-run tool_search,
    which the model calls first; the lock then comes back as namespace mcp__lock, tool search."""

    PACKAGE, COMMAND, HARNESS = "@openai/codex", "codex", "codex"
    SEARCH, ROGUE = "mcp__lock__search", "web_search"
    SCRIPT = ResponsesScript
    # The lock's two (found by tool_search: namespace mcp__lock) and what the gateway lets through as Codex
    # 0.171.0's own (anachron.launch.harnesses.local_tools): tool_search itself and apply_patch among them.
    OFFERED = frozenset({"mcp__lock__search", "mcp__lock__fetch", "list_mcp_resources", "list_mcp_resource_templates",
                         "read_mcp_resource", "request_user_input", "apply_patch", "tool_search"})
    NO_WARNING = "not found in any configured"  # no provider or server of the user's config is asked for
    EXTRA = ("--model", "gpt-5.5")
    ROUTE = ("call tool_search",)
    DATE_MARK = "<current_date>"

    def environment(self, base, home):
        return {"OPENAI_BASE_URL": base + "/v1", "OPENAI_API_KEY": "sk-offline-test", "HOME": str(home)}

    def user_config(self, home, server, hook):
        self.write(home / ".codex" / "config.toml",
                   f"[mcp_servers.news]\ncommand = {json.dumps(server[0])}\nargs = {json.dumps(server[1:])}\n")
        hooks = {event: [{"hooks": [{"type": "command", "command": hook}]}] for event in ("SessionStart", "UserPromptSubmit", "Stop")}
        self.write(home / ".codex" / "hooks.json", json.dumps({"hooks": hooks}))

    # 0.171.0 runs a hook only once its trust is recorded in CODEX_HOME (hooks/src/engine/plugin_trust.rs): the
    # control shows the server alone; the run's own CODEX_HOME holds neither the hooks nor their trust.
    HOOKS_RUN_DIRECTLY = False

    def direct(self, base):
        provider = (f'model_provider="direct"\n[model_providers.direct]\nname="direct"\nbase_url="{base}/v1"\n'
                    'env_key="OPENAI_API_KEY"\nwire_api="responses"\n')
        config = self.tmp / "home" / ".codex" / "config.toml"
        config.write_text(provider + config.read_text(encoding="utf-8"), encoding="utf-8")
        return [str(self.executable), "exec", "--json", "--skip-git-repo-check", "--model", "scripted-model", "hi"], {}


class RealCodexUnlistedModel(RealCodex):
    """Codex with a slug it has no metadata for: no tool_search, no apply_patch; the lock's tools offered
    up front, as namespace mcp__lock."""

    OFFERED = RealCodex.OFFERED - {"apply_patch", "tool_search"}
    EXTRA = ("--model", "scripted-model")
    ROUTE = ()


if __name__ == "__main__":
    unittest.main()
