"""A run naming its command registers that command alone; any other first word gets every command's parser."""

from __future__ import annotations

import unittest

from anachron.cli import COMMANDS, build_parser

from tests.support import run_cli


class CommandLoadingTest(unittest.TestCase):
    def test_each_command_named_first_runs_as_under_the_whole_parser(self):
        # Every command's help, reached by its name (a module named otherwise, launch's `run`, included), is the
        # help the whole parser gives it.
        whole = build_parser()
        for name in whole.commands:
            with self.subTest(command=name):
                code, out, err = run_cli(name, "--help")
                self.assertEqual((code, err), (0, ""))
                self.assertTrue(out.startswith(f"usage: anachron {name} "), out[:80])
        self.assertEqual(sorted(build_parser(COMMANDS).commands), sorted(whole.commands))

    def test_a_word_that_is_no_command_lists_every_command(self):
        for word in ("launch", "outcome", "import_", "score_events"):  # a module's name is no command
            with self.subTest(word=word):
                code, out, err = run_cli(word)
                self.assertEqual((code, out), (2, ""))
                self.assertEqual(err.count("\n"), 1, err)
                self.assertIn(f"invalid choice: {word!r}", err)
                for name in ("outcomes", "run", "score-events", "import", "serve"):
                    self.assertIn(repr(name), err)


if __name__ == "__main__":
    unittest.main()
