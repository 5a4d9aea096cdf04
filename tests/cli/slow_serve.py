"""The slow tests beside test_serve.py, whose docstring states the rules they hold: ServeLargeDirectoryTest.

They start processes, browsers or servers, or build large inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock
from pathlib import Path
from anachron.cli.serve import BACKGROUND_ABOVE
from tests.mcp_support import TIMEOUT, read_log, serve_command, stdio_client, text_of
from tests.support import ROOT, require_extra
from tests.cli.test_serve import QUERIES, T, copy_v0, ids


class ServeLargeDirectoryTest(unittest.TestCase):
    """``anachron serve`` over stdio with --index-above 1 (every directory is large): the real client, a real process."""

    def setUp(self):
        require_extra("mcp", "mcp")
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.corpus = copy_v0(self.tmp / "corpus")
        self.env = {"XDG_CACHE_HOME": str(self.tmp / "cache"), "PYTHONPATH": str(ROOT)}
        self.runs = 0

    def serve(self, *options):
        import anyio

        self.runs += 1
        events = self.tmp / f"events-{self.runs}.jsonl"
        errlog = self.tmp / f"stderr-{self.runs}.txt"
        args = ["--as-of", T, "--events", str(events), "--corpus", str(self.corpus), *options]

        async def run():
            async with stdio_client(args, errlog=errlog, env=self.env) as client:
                return [await client.call_tool("search", {"query": q}) for q in QUERIES]

        results = anyio.run(run)
        return results, errlog.read_text(encoding="utf-8"), read_log(events)

    def test_built_once_in_the_user_cache_then_reused_with_the_answers_of_memory(self):
        cached, stderr, log = self.serve("--index-above", "1")
        self.assertIn("in the background: initialize is answered now", stderr)
        self.assertIn(f"building an index of {self.corpus} in {self.tmp / 'cache' / 'anachron' / 'indexes'}", stderr)
        memory, plain, memory_log = self.serve("--index-above", "never")
        self.assertNotIn("background", plain)
        self.assertEqual([ids(r) for r in cached], [ids(r) for r in memory])
        self.assertTrue(any(ids(r) for r in memory))
        self.assertEqual([text_of(r).split("\n")[1:] for r in cached], [text_of(r).split("\n")[1:] for r in memory])
        self.assertEqual(log[0]["source"], memory_log[0]["source"])
        again, stderr, _ = self.serve("--index-above", "1")
        self.assertIn("(fresh)", stderr)
        self.assertNotIn("building an index", stderr)
        self.assertEqual([ids(r) for r in again], [ids(r) for r in memory])
        self.assertEqual(len(list((self.tmp / "cache" / "anachron" / "indexes").glob("*"))), 1)

    def test_a_small_directory_is_loaded_before_serving_as_before(self):
        self.assertGreater(BACKGROUND_ABOVE, (self.corpus / "items.jsonl").stat().st_size)
        results, stderr, _ = self.serve()
        self.assertNotIn("background", stderr)
        self.assertFalse((self.tmp / "cache").exists())
        self.assertTrue(any(ids(r) for r in results))

    def test_a_bad_large_corpus_stops_the_server_with_status_2_naming_the_file(self):
        with open(self.corpus / "items.jsonl", "a", encoding="utf-8") as fh:
            fh.write("{not json\n")
        # stdin stays open (a client that waits): the server must stop on its own, not at end of input.
        process = subprocess.Popen(
            serve_command("--as-of", T, "--events", str(self.tmp / "e.jsonl"), "--corpus", str(self.corpus), "--index-above", "1"),
            cwd=ROOT, env={**os.environ, **self.env}, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            status = process.wait(timeout=TIMEOUT)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            process.stdin.close()
        stdout, stderr = process.stdout.read(), process.stderr.read()
        process.stdout.close()
        process.stderr.close()
        self.assertEqual(status, 2, stderr)
        self.assertEqual(stdout, "")
        last = stderr.strip().splitlines()[-1]
        self.assertTrue(last.startswith("anachron: "), stderr)
        self.assertIn("items.jsonl", last)
        self.assertNotIn("Traceback", stderr)

    def test_a_large_corpus_the_machine_cannot_hold_stops_the_server_with_one_line(self):
        script = (
            "import sys\nfrom unittest import mock\nimport anachron.store.cache as cache\nfrom anachron.cli import main\n"
            "with mock.patch.object(cache, 'open_cached_index', side_effect=MemoryError()):\n"
            "    sys.exit(main(sys.argv[1:]))\n"
        )
        args = ["serve", "--as-of", T, "--events", str(self.tmp / "e.jsonl"), "--corpus", str(self.corpus), "--index-above", "1"]
        # stdin stays open (a client that waits): the server must stop on its own.
        process = subprocess.Popen([sys.executable, "-c", script, *args], cwd=ROOT, env={**os.environ, **self.env},
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            status = process.wait(timeout=TIMEOUT)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            process.stdin.close()
        stderr = process.stderr.read()
        process.stdout.close()
        process.stderr.close()
        self.assertEqual(status, 2, stderr)
        last = stderr.strip().split("\n")[-1]
        self.assertEqual(last, "anachron: the corpus could not be opened: out of memory; serve an index of it (anachron index)")
        self.assertNotIn("Traceback", stderr)


if __name__ == "__main__":
    unittest.main()
