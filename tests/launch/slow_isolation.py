"""The network namespace ``anachron run`` puts a command-line harness in, for real (tests/launch/test_isolation.py
holds the decision): a stand-in harness cannot reach a TCP listener on this machine's loopback, while the
relayed lock and the model gateway still answer it and the run is sealed; with ``--no-isolation`` the same
connection goes through, and the verdict says what it assumes.
"""

from __future__ import annotations

import json
import os
import socket
import unittest
from unittest import mock

from anachron.launch.isolation import NO_ISOLATION, probe
from tests.launch.slow_gateway import KEY, Recorder
from tests.launch.test_run import DATA, LaunchCase
from tests.support import require_extra, run_cli

FAITHFUL = {"tools": [{"name": "mcp__lock__search", "input_schema": {}}]}


class Namespace(LaunchCase):
    def setUp(self) -> None:
        require_extra("mcp", "mcp")
        found = probe()
        if isinstance(found, str):
            self.skipTest(f"this machine cannot isolate: {found}")
        self.method = found.method
        super().setUp()
        # A listener outside the namespace, on this machine's loopback: what a shell's curl would reach.
        self.outside = socket.socket()
        self.outside.bind(("127.0.0.1", 0))
        self.outside.listen(4)
        self.addCleanup(self.outside.close)
        self.upstream = Recorder({})
        self.addCleanup(self.upstream.close)

    def run_claude(self, *extra: str):
        lines = (DATA / "claude_sealed.jsonl").read_text(encoding="utf-8").split("\n")
        reach = [json.dumps({"$connect": self.outside.getsockname()[1]}),
                 json.dumps({"$model": {"path": "/v1/messages", "body": {"model": "m", **FAITHFUL}}})]
        script = self.tmp / f"script{self.runs}.jsonl"
        script.write_text("\n".join([lines[0], *reach, *lines[1:]]), encoding="utf-8")
        env = {"STUB_SCRIPT": str(script), "STUB_KEY": KEY, "ANTHROPIC_BASE_URL": self.upstream.url}
        with mock.patch.dict(os.environ, {"ANTHROPIC_API_KEY": KEY}):
            return self.launch("claude-code", None, *extra, env=env)

    def connects(self) -> list[str]:
        return [entry["connect"] for entry in self.stub_calls() if "connect" in entry]

    def outside_was_reached(self) -> bool:
        self.outside.settimeout(0.5)
        try:
            conn, _ = self.outside.accept()
        except socket.timeout:
            return False
        conn.close()
        return True

    def test_the_harness_reaches_the_lock_and_the_gateway_and_nothing_else(self):
        status, stdout, stderr, out = self.run_claude()
        self.assertEqual(status, 0, stderr)
        self.assertIn("seal sealed", stdout)
        self.assertEqual(len(self.connects()), 1)
        self.assertTrue(self.connects()[0].startswith("failed"), self.connects())
        self.assertFalse(self.outside_was_reached())
        manifest = self.manifest(out)
        self.assertEqual(manifest["isolation"], self.method)
        self.assertIn(self.method, manifest["seal"]["assumes"])
        self.assertEqual(manifest["seal"]["calls"], 1)  # the lock, through its relay's Unix socket
        self.assertEqual(manifest["gateway"]["requests"], 1)  # the model, through the gateway's bridge
        self.assertEqual(len(self.upstream.requests), 1)
        self.assertEqual([e.get("model_status") for e in self.stub_calls() if "model_status" in e], [200])
        status, scored, stderr = run_cli("score", str(out), "--format", "json")
        self.assertEqual(status, 0, stderr)
        self.assertEqual(json.loads(scored)["summary"]["seal_status"], "sealed")

    def test_without_isolation_the_connection_goes_through_and_the_verdict_says_so(self):
        status, stdout, stderr, out = self.run_claude("--no-isolation")
        self.assertEqual(status, 0, stderr)
        self.assertEqual(self.connects(), ["connected"])
        self.assertTrue(self.outside_was_reached())
        manifest = self.manifest(out)
        self.assertIsNone(manifest["isolation"])
        self.assertEqual(manifest["seal"]["assumes"], NO_ISOLATION)


if __name__ == "__main__":
    unittest.main()
