"""Ctrl-C and SIGTERM end every command in one line, after its staged output was let go (anachron.cli)."""

import contextlib
import os
import signal
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from anachron.cli import compare_main
from tests.support import run_cli



def _sigterm_self(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)  # the handler raises at the next instruction, inside the command


class InterruptTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)
        self.trace = self.dir / "trace.jsonl"
        self.trace.write_text('{"sample_id": "s1", "mode": "unrestricted", "as_of": "2023-01-01", "interactions": []}\n')

    def _score_stopped_by(self, effect):
        out = self.dir / "scores.json"
        with mock.patch("anachron.output.stream.score_trace", side_effect=effect):
            status, stdout, stderr = run_cli("score", str(self.trace), "--format", "json", "--out", str(out))
        return status, stdout, stderr, sorted(os.listdir(self.dir))

    def test_ctrl_c_is_one_line_and_exit_130_leaving_no_output(self):
        self.assertEqual(
            self._score_stopped_by(KeyboardInterrupt), (130, "", "anachron: interrupted\n", ["trace.jsonl"])
        )

    def test_sigterm_is_one_line_and_exit_143_leaving_no_output(self):
        self.assertEqual(
            self._score_stopped_by(_sigterm_self), (143, "", "anachron: terminated\n", ["trace.jsonl"])
        )

    def test_every_command_answers_ctrl_c_in_one_line(self):
        # Stopped while its parser is built, before any command runs: the guard is the entry's own.
        for name in ("score", "import", "index", "report", "outcomes", "export", "demo", "bank"):
            with self.subTest(command=name), mock.patch("anachron.cli.build_parser", side_effect=KeyboardInterrupt):
                self.assertEqual(run_cli(name, "--help"), (130, "", "anachron: interrupted\n"))
        with mock.patch("anachron.cli.compare.configure", side_effect=KeyboardInterrupt):
            self.assertEqual(run_cli("a.json", "b.json", entry=compare_main), (130, "", "anachron-compare: interrupted\n"))

    def test_the_callers_sigterm_handler_is_back_after_a_command(self):
        mine = signal.getsignal(signal.SIGTERM)
        for effect in (None, KeyboardInterrupt):
            with self.subTest(effect=effect):
                with mock.patch("anachron.output.stream.score_trace", side_effect=effect) if effect else contextlib.nullcontext():
                    run_cli("score", str(self.trace), "--format", "json")
                self.assertIs(signal.getsignal(signal.SIGTERM), mine)


if __name__ == "__main__":
    unittest.main()
