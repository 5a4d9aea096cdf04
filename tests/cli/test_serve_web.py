"""``anachron serve --search/--fetch``: every bad choice stops the server before it starts, with exit 2,
one line on stderr naming the option (a missing key: its variable), and no event log left behind."""

import os
import tempfile
import unittest
import unittest.mock
from pathlib import Path

from tests.support import run_cli
from tests.web_stubs import KEYS, T


class BadWebOptionsStopTheServerAtStartUp(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.events = Path(self._tmp.name) / "events.jsonl"

    def refused(self, *options, environ=None, fragments=()):
        clean = {k: v for k, v in os.environ.items() if k not in KEYS.values()}
        with unittest.mock.patch.dict(os.environ, environ if environ is not None else clean, clear=True):
            status, out, err = run_cli("serve", "--as-of", T, "--events", str(self.events), *options)
        self.assertEqual(status, 2, err)
        self.assertEqual(out, "")
        self.assertEqual(len(err.strip().split("\n")), 1, err)
        for fragment in fragments:
            self.assertIn(fragment, err)
        self.assertFalse(self.events.exists())
        return err

    def test_a_missing_key_is_one_line_naming_its_variable(self):
        for vendor, variable in KEYS.items():
            with self.subTest(vendor=vendor):
                self.refused("--search", vendor, fragments=(variable, f"--search {vendor}"))

    def test_an_unknown_backend_or_one_that_does_not_serve_the_tool_is_refused(self):
        self.refused("--search", "google", fragments=("unknown backend 'google'",))
        self.refused("--fetch", "brave", fragments=("serves search only",))
        self.refused("--search", "exa=file:///etc/passwd", fragments=("not an http(s) URL",))

    def test_corpus_and_upstream_are_backends_there_not_options_beside_them(self):
        self.refused("--search", "exa", "--corpus", "corpus/v0", environ={"EXA_API_KEY": "k"}, fragments=("corpus=DIR",))
        self.refused("--fetch", "wayback", "--upstream", "http://127.0.0.1:9", fragments=("anachron=URL",))

    def test_record_and_replay_need_a_web_backend_and_exclude_each_other(self):
        store = self._tmp.name
        self.refused("--record", store, fragments=("--search or --fetch",))
        self.refused("--search", "exa", "--record", store, "--replay", store, environ={"EXA_API_KEY": "k"}, fragments=("--replay",))
        self.refused("--search", "exa", "--replay", str(Path(store) / "absent"), fragments=("not a directory",))

    def test_ranking_is_for_a_local_corpus(self):
        self.refused("--search", "exa", "--ranking", "bm25", environ={"EXA_API_KEY": "k"}, fragments=("--ranking",))


if __name__ == "__main__":
    unittest.main()
