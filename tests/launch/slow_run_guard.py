"""The slow tests beside test_run.py, whose docstring states the rules they hold: GuardShapes.

The guard's stream shapes, each through a stand-in harness run as a process (in its network
namespace), so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

from __future__ import annotations
import json
import unittest
from tests.launch.test_run import INIT, LaunchCase, _assistant


class GuardShapes(LaunchCase):
    """Shapes of a stream line that once passed the guard: an MCP connector block, a key given twice."""

    RESULT = {"type": "result", "subtype": "success", "is_error": False, "result": "Probability: 0.6", "session_id": "stub-session"}

    def run_lines(self, *lines: str):
        path = self.tmp / f"shapes{self.runs + 1}.jsonl"
        path.write_text("".join(json.dumps({"$raw": line}) + "\n" for line in lines), encoding="utf-8")
        return self.launch("claude-code", None, env={"STUB_SCRIPT": str(path), "STUB_START_LOCK": "0"})

    def test_an_mcp_tool_use_block_of_another_server_stops_the_run(self):
        block = {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "search", "server_name": "web", "input": {"q": "x"}}
        self.assertRefused(self.run_lines(json.dumps(INIT) + "\n", json.dumps(_assistant(block)) + "\n"),
                           "guard: the harness called 'mcp__web__search', outside the lock")

    def test_the_calls_of_an_mcp_tool_use_block_are_named_by_server_and_tool(self):
        from anachron.launch.harnesses import ClaudeCode, guard_breach

        harness = ClaudeCode()
        lock = {"type": "mcp_tool_use", "id": "m1", "name": "fetch", "server_name": "lock", "input": {}}
        other = {**lock, "server_name": "lockx"}
        self.assertEqual(harness.calls(_assistant(lock)), ["mcp__lock__fetch"])
        self.assertIsNone(guard_breach(harness, harness.calls(_assistant(lock))))
        self.assertEqual(guard_breach(harness, harness.calls(_assistant(lock, other))), "mcp__lockx__fetch")

    def test_a_key_given_twice_stops_the_run_wherever_it_is(self):
        hidden = ('{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1",'
                  '"name":"WebSearch","name":"mcp__lock__search","input":{"query":"q"}}]}}\n')
        manifest = self.assertRefused(self.run_lines(json.dumps(INIT) + "\n", hidden),
                                      "guard: line 2 of the harness's stream names the key 'name' twice in one object")
        self.assertTrue(manifest["preflight"]["passed"])
        outer = '{"type":"result","type":"assistant","message":{"content":[]}}\n'
        manifest = self.assertRefused(self.run_lines(outer, json.dumps(INIT) + "\n"),
                                      "preflight: line 1 of the harness's stream names the key 'type' twice")
        self.assertFalse(manifest["preflight"]["passed"])

    def test_a_line_without_a_repeated_key_is_read_as_before(self):
        from anachron.launch.harnesses import DuplicateKey, read_event

        self.assertEqual(read_event('{"a": {"b": 1}, "c": [{"b": 2}, {"b": 3}]}'), {"a": {"b": 1}, "c": [{"b": 2}, {"b": 3}]})
        with self.assertRaises(DuplicateKey):
            read_event('{"a": [{"b": 1, "b": 2}]}')
        status, _, stderr, out = self.run_lines(json.dumps(INIT) + "\n", json.dumps(self.RESULT) + "\n")
        self.assertEqual(status, 0, stderr)


if __name__ == "__main__":
    unittest.main()
