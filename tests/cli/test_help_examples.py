"""Every command's --help ends in examples that run from a fresh clone (anachron.cli.options.examples)."""

import argparse
import shlex
import unittest

from anachron.cli import build_parser, compare_main
from tests.support import ROOT, run_cli

# Folders of the clone an example may read from: what it names there must exist.
CLONE = ("corpus/", "examples/", "research/", "tests/")


def parsers() -> dict[str, argparse.ArgumentParser]:
    """Every parser of `anachron`, by its command path (`bank run`), subcommand groups included."""
    found = {}

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        if name:
            found[name] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    walk(child, f"{name} {sub}".strip())

    walk(build_parser(), "")
    return found


def commands(epilog: str) -> list[list[str]]:
    """The `anachron ...` commands of an examples epilog, as argument lists (comments dropped)."""
    out = []
    for line in epilog.split("\n")[1:]:
        for part in line.split("&&"):
            words = shlex.split(part, comments=True)
            if words[:1] == ["anachron"]:
                out.append(words[1:])
    return out


class HelpExamples(unittest.TestCase):
    def test_every_command_has_examples_of_itself(self):
        for name, parser in parsers().items():
            with self.subTest(command=name):
                self.assertTrue((parser.epilog or "").startswith("examples:\n"), f"anachron {name} --help has no examples")
                mine = [argv for argv in commands(parser.epilog) if argv[: len(name.split())] == name.split()]
                self.assertTrue(mine, f"no example of anachron {name} itself")

    def test_every_example_parses(self):
        parser = build_parser()
        for name, each in parsers().items():
            for argv in commands(each.epilog or ""):
                with self.subTest(command=name, example=" ".join(argv)):
                    try:
                        parser.parse_args(argv)
                    except SystemExit as exc:  # argparse's usage error (printed on stderr)
                        self.fail(f"exit {exc.code}")

    def test_the_files_an_example_reads_are_in_the_clone(self):
        for name, parser in parsers().items():
            for argv in commands(parser.epilog or ""):
                for word in argv:
                    if word.startswith(CLONE):
                        with self.subTest(command=name, path=word):
                            self.assertTrue((ROOT / word).exists())

    def test_help_shows_the_examples_as_written(self):
        status, out, err = run_cli("search", "--help")
        self.assertEqual((status, err), (0, ""))
        self.assertIn('\nexamples:\n  anachron search corpus/v0 --as-of 2022-06-01 "aster logistics revenue"\n', out)
        status, out, _ = run_cli("--help", entry=compare_main)
        self.assertIn("\nexamples:\n  anachron compare anachron-demo/unrestricted.json anachron-demo/enforced.json", out)

    def test_the_examples_that_need_nothing_first_run(self):
        # Read-only examples over the clone's own files: each exits 0 as printed.
        for name in ("search", "bank verify", "bank manifest"):
            for argv in commands(parsers()[name].epilog):
                with self.subTest(example=" ".join(argv)):
                    status, out, err = run_cli(*[str(ROOT / w) if w.startswith(CLONE) else w for w in argv])
                    self.assertEqual((status, err), (0, ""))
                    self.assertTrue(out)

if __name__ == "__main__":
    unittest.main()
