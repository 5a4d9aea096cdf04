"""The isolation decision of ``anachron run``: a command-line harness runs in a network namespace of its
own, or the run is refused before anything is written, unless ``--no-isolation``; our own loops run no
shell and are never refused for it.  The probe is replaced here; tests/launch/slow_isolation.py runs the
real namespace.
"""

from __future__ import annotations

import os
import sys
import unittest
from pathlib import Path
from unittest import mock

from anachron.core.errors import AnachronError
from anachron.launch import isolation
from anachron.launch.isolation import Isolation, decide
from tests.launch.test_run import LaunchCase

CANNOT = "unshare: unshare failed: Operation not permitted"
WAY = Isolation("netns(unshare)", ("/usr/bin/unshare", "--net"))


def _never() -> Isolation | str:
    raise AssertionError("the probe ran")


class Decision(unittest.TestCase):
    def test_a_platform_that_isolates_gives_its_method(self):
        self.assertIs(decide(False, lambda: WAY), WAY)

    def test_a_platform_that_cannot_is_refused_in_one_line_naming_the_way_out(self):
        with self.assertRaises(AnachronError) as caught:
            decide(False, lambda: CANNOT)
        message = str(caught.exception)
        self.assertNotIn("\n", message)
        self.assertIn(CANNOT, message)
        self.assertIn("--no-isolation", message)

    def test_no_isolation_is_none_without_probing(self):
        self.assertIsNone(decide(True, _never))

    def test_the_wrapped_command_runs_the_harness_after_the_helper(self):
        argv = WAY.wrap(["claude", "-p"], 4321, "/tmp/x/gateway.sock")
        self.assertEqual(argv[:2], ["/usr/bin/unshare", "--net"])
        self.assertEqual(argv[2:4], [sys.executable, isolation.HELPER])
        self.assertEqual(argv[4:], ["inside", "4321", "/tmp/x/gateway.sock", "--", "claude", "-p"])
        self.assertEqual(WAY.wrap(["codex"], None, None)[4:], ["inside", "-", "-", "--", "codex"])

    def test_the_assumption_names_the_method_or_its_absence(self):
        self.assertIn("netns(unshare)", isolation.assumption(WAY))
        self.assertIn("--no-isolation", isolation.assumption(None))

    @unittest.skipIf(sys.platform.startswith("linux"), "a platform without network namespaces")
    def test_a_platform_without_namespaces_cannot_isolate(self):
        self.assertIsInstance(isolation.probe(), str)


class Refusal(LaunchCase):
    """Through the command line, with the probe replaced."""

    def test_a_platform_that_cannot_isolate_refuses_the_run_before_any_file(self):
        for harness in ("claude-code", "codex", "gemini-cli"):
            with self.subTest(harness), mock.patch.object(isolation, "probe", lambda: CANNOT):
                status, stdout, stderr, out = self.launch(harness, "claude_sealed.jsonl")
                self.assertEqual(status, 2, stderr)
                self.assertEqual(stdout, "")
                self.assertEqual(len(stderr.strip().split("\n")), 1, stderr)
                self.assertIn("cannot isolate the harness's network", stderr)
                self.assertIn(CANNOT, stderr)
                self.assertFalse(out.exists())  # nothing written, not even the run directory
                self.assertEqual(self.stub_calls(), [])  # the harness never started

    def test_our_loops_are_not_refused_for_it(self):
        with mock.patch.object(isolation, "probe", _never), mock.patch.dict(os.environ, {"OPENAI_BASE_URL": ""}):
            status, stdout, stderr, out = self.launch("responses", None, "--model", "m")
        # Refused for its missing endpoint, never for isolation (the probe did not run).
        self.assertEqual(status, 2, stderr)
        self.assertIn("--base-url", stderr)
        self.assertNotIn("isolat", stderr)
        self.assertFalse(Path(out).exists())


if __name__ == "__main__":
    unittest.main()
