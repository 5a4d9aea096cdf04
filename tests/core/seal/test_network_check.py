"""The network check reads the command that runs, not quoted text (issue 27).

One rule in one place: :func:`anachron.core.seal.network_evidence` decides both the seal audit's
evidence line and whether an imported shell call is a retrieval (``importers._common.is_retrieval``).
Quoted strings and heredoc bodies written to a file do not run; the payloads of ``sh -c``,
``bash -lc``, ``eval``, ``python -c`` and heredocs fed to a shell do, so they are read.
"""

from __future__ import annotations

import itertools
import json
import shlex
import tempfile
import unittest
from pathlib import Path

from anachron.core.seal import SHELL_TOOLS, network_evidence
from anachron.importers._common import is_retrieval

from tests.support import run_cli

NETWORK = ["curl -s https://x.test/a", "wget -q x.test", "https://x.test/page", "python3 -c 'import requests'"]
QUIET = ["ls -la", "git status", "python3 -c 'print(1)'", "echo done"]

# Text that names the network but does not run: (a template with {n} for the network words).
NOT_RUN = [
    'git commit -m "fix {n} example"',
    "git commit -m '{n}'",
    'git commit -m "$(date): {n}"',
    "echo 'see {n}'",
    'printf "%s\\n" "{n}"',
    "cat <<EOF > notes.md\n{n}\nEOF",
    "cat <<-'END' >> README\n\t{n}\n\tEND\nls",
    'grep -c "{n}" log.txt',
    'git log --grep="{n}"',
]
# Payloads that run: (a template taking the already-quoted network command).
RUN = [
    "{n}",
    "sh -c {q}",
    "bash -c {q}",
    "bash -lc {q}",
    "/bin/sh -e -c {q}",
    "cd /tmp && bash -c {q}",
    "eval {q}",
    "bash <<EOF\n{n}\nEOF",
    "cat <<'EOF' | sh\n{n}\nEOF",
    "python3 - <<EOF\n{n}\nEOF",
    'git commit -m "note" && {n}',
    "sh -c {qq}",  # a quoted commit message inside an sh -c payload still runs its other words
]


class RunningCommandTest(unittest.TestCase):
    def test_quoted_text_and_written_heredocs_are_not_network(self):
        for template, words in itertools.product(NOT_RUN, NETWORK):
            command = template.format(n=words.replace("'", "") if "'" in template else words)
            with self.subTest(command=command):
                self.assertIsNone(network_evidence(command))
                self.assertIs(is_retrieval({"tool": "Bash", "command": command}, "claude-code", None), False)

    def test_payloads_that_run_are_network(self):
        for template, words in itertools.product(RUN, NETWORK):
            command = template.format(n=words, q=shlex.quote(words), qq=shlex.quote(f'git commit -m "x" && {words}'))
            with self.subTest(command=command):
                self.assertIsNotNone(network_evidence(command))
                for log_format in ("claude-code", "codex", "openai-chat"):
                    self.assertIs(is_retrieval({"tool": "Bash", "command": command}, log_format, None), True)

    def test_payloads_without_network_stay_local(self):
        for template, words in itertools.product(RUN, QUIET):
            command = template.format(n=words, q=shlex.quote(words), qq=shlex.quote(f'git commit -m "curl" && {words}'))
            with self.subTest(command=command):
                self.assertIsNone(network_evidence(command))

    def test_a_quoted_message_inside_a_payload_is_still_quoted(self):
        for command in ["sh -c 'git commit -m \"curl https://x\"'", 'bash -c "git commit -m \\"wget x\\""']:
            with self.subTest(command=command):
                self.assertIsNone(network_evidence(command))

    def test_every_shell_tool_of_every_harness(self):
        for tool in SHELL_TOOLS:
            with self.subTest(tool=tool):
                self.assertIs(is_retrieval({"tool": tool, "command": 'git commit -m "fix curl example"'}, "codex", None), False)
                self.assertIs(is_retrieval({"tool": tool, "command": "bash -lc 'curl -s x.test'"}, "gemini-cli", None), True)

    def test_evidence_quotes_the_original_command(self):
        self.assertEqual(network_evidence("bash -lc 'curl -s x.test'"), "bash -lc 'curl -s x.test'")
        self.assertEqual(network_evidence("cat <<EOF | sh\nwget x\nEOF"), "wget x EOF")

    def test_a_claude_code_commit_is_a_local_call(self):
        # The case end to end: a Bash `git commit` whose message says curl is no interaction.
        def bash(n, command, stdout):  # a Bash tool_use record and the record of its result
            at = f"2023-01-01T00:00:0{n}Z"
            return [
                {"type": "assistant", "sessionId": "s1", "uuid": f"a{n}", "timestamp": at, "message": {
                    "role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": command}}]}},
                {"type": "user", "sessionId": "s1", "uuid": f"u{n}", "timestamp": at, "message": {
                    "role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": stdout}]},
                 "toolUseResult": {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}},
            ]

        records = bash(1, 'git commit -m "fix curl example"', "[main 1a2b] fix") + bash(2, "bash -c 'curl -s https://x.test/'", "ok")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "s.jsonl")
            path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
            status, out, err = run_cli("score", "--from", "claude-code", str(path), "--as-of", "2023-01-01", "--format", "json")
        self.assertEqual(status, 0, err)
        (sample,) = json.loads(out)["samples"]
        self.assertEqual(sample["interactions"], 1)  # the bash -c curl; the commit is local


if __name__ == "__main__":
    unittest.main()
