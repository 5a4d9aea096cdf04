"""How every command reads its arguments: positionals after options, and a mistyped choice named."""

import json
import unittest

from tests.support import ROOT, run_cli

V0 = str(ROOT / "corpus" / "v0")


class PositionalsAfterOptions(unittest.TestCase):
    """An optional positional may follow an option, as README and docs/mcp.md write `search`."""

    def search(self, *argv):
        status, out, err = run_cli("search", *argv, "--format", "json")
        self.assertEqual((status, err), (0, ""))
        return json.loads(out)

    def test_search_query_after_the_date_equals_query_before_it(self):
        after = self.search(V0, "--as-of", "2022-06-01", "Aster Logistics revenue")
        before = self.search(V0, "Aster Logistics revenue", "--as-of", "2022-06-01")
        self.assertEqual(after, before)
        self.assertEqual(after["query"], "Aster Logistics revenue")
        self.assertTrue(after["results"])

    def test_a_second_query_is_still_refused(self):
        status, out, err = run_cli("search", V0, "--as-of", "2022-06-01", "one", "two")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, "anachron: error: unrecognized arguments: two\n")

    def test_positionals_split_by_an_option_are_all_read(self):
        # Two traces are refused by score itself (not by the parser) whichever side of an option they sit.
        joined = run_cli("score", "a.jsonl", "b.jsonl", "--format", "json")
        split = run_cli("score", "a.jsonl", "--format", "json", "b.jsonl")
        self.assertEqual(split, joined)
        self.assertEqual(split[:2], (2, ""))
        self.assertIn("a trace is one file", split[2])


class MistypedChoice(unittest.TestCase):
    """A mistyped subcommand or choice names the closest one, as `--system respct` does."""

    def test_subcommand(self):
        status, out, err = run_cli("scor")
        self.assertEqual((status, out), (2, ""))
        self.assertTrue(err.startswith("anachron: error: argument COMMAND: invalid choice: 'scor': did you mean 'score'? "
                                       "choose from 'demo', 'score', "), err)
        self.assertEqual(err.count("\n"), 1)

    def test_nested_subcommand_and_option_choice(self):
        self.assertIn("invalid choice: 'ru': did you mean 'run'? choose from ", run_cli("bank", "ru")[2])
        status, out, err = run_cli("score", "t.jsonl", "--format", "jsn")
        self.assertEqual((status, out), (2, ""))
        self.assertIn("argument --format: invalid choice: 'jsn': did you mean 'json'? choose from 'table', 'json'", err)

    def test_nothing_close_keeps_the_plain_refusal(self):
        status, out, err = run_cli("zzzzzz")
        self.assertEqual((status, out), (2, ""))
        self.assertIn("invalid choice: 'zzzzzz'", err)
        self.assertNotIn("did you mean", err)


if __name__ == "__main__":
    unittest.main()
