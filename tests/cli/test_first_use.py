"""What a new user meets first: bare commands print their help, ``anachron-compare`` under its
own name, output file modes, ``serve --events-dir``, one-line task parameter errors, and the
documented sample order of an Inspect run.
"""

import asyncio
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from anachron import __version__
from anachron.cli import compare_main
from tests.support import ROOT, inspect_command, require_extra, run_cli


class BareCommands(unittest.TestCase):
    def test_bare_anachron_prints_the_help(self):
        status, out, err = run_cli()
        self.assertEqual((status, err), (2, ""))  # a missing subcommand is a usage error (issue 26)
        self.assertTrue(out.startswith("usage: anachron [-h] [--version] COMMAND ..."), out[:80])
        for command in ("demo", "score", "compare", "export", "bank", "report", "serve"):
            self.assertRegex(out, rf"\n    {command}\s")

    def test_bare_groups_print_their_help(self):
        for group, action in (("bank", "run"), ("freeze", "check")):
            with self.subTest(group=group):
                status, out, err = run_cli(group)
                self.assertEqual((status, err), (2, ""))
                self.assertTrue(out.startswith(f"usage: anachron {group} [-h] ACTION ..."), out[:80])
                self.assertIn(f"\n    {action}", out)

    def test_the_console_script_prints_the_help(self):
        done = subprocess.run([sys.executable, "-m", "anachron"], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
        self.assertEqual((done.returncode, done.stderr), (2, ""))
        self.assertIn("COMMAND", done.stdout)


class CompareUnderItsOwnName(unittest.TestCase):
    def test_help_and_version(self):
        status, out, err = run_cli("--help", entry=compare_main)
        self.assertEqual((status, err), (0, ""))
        self.assertTrue(out.startswith("usage: anachron-compare [-h] [--version]"), out[:80])
        self.assertIn("UNRESTRICTED.json ENFORCED.json", out)
        status, out, err = run_cli("--version", entry=compare_main)
        self.assertEqual((status, out.strip(), err), (0, f"anachron-compare (anachron {__version__})", ""))

    def test_errors_name_anachron_compare(self):
        status, out, err = run_cli("only-one.json", entry=compare_main)
        self.assertEqual(status, 2)
        self.assertTrue(err.startswith("anachron-compare: error: the following arguments are required"), err)
        status, out, err = run_cli("missing-a.json", "missing-b.json", entry=compare_main)
        self.assertEqual((status, err), (2, "anachron-compare: missing-a.json: no such file\n"))


class OutputModes(unittest.TestCase):
    """Every file a command writes gets 0o666 less the umask, as ``open`` would (not mkstemp's 0o600)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.umask = os.umask(0o027)

    def tearDown(self):
        os.umask(self.umask)
        self.tmp.cleanup()

    def modes(self, *paths):
        return {p.name: oct(p.stat().st_mode & 0o777) for p in paths}

    def test_every_output_path(self):
        demo = self.dir / "demo"
        self.assertEqual(run_cli("demo", "--out", str(demo))[0], 0)
        bank = self.dir / "b.jsonl"
        self.assertEqual(run_cli("bank", "build", "--out", str(bank))[0], 0)
        report = self.dir / "r.html"
        self.assertEqual(run_cli("report", str(demo / "unrestricted.jsonl"), "--out", str(report))[0], 0)
        from anachron.cli.serve import new_events_file

        events = Path(new_events_file(str(self.dir / "events")))
        written = [*demo.iterdir(), bank, self.dir / "b.manifest.json", report, events]
        self.assertEqual(len(written), 8)
        self.assertEqual(set(self.modes(*written).values()), {"0o640"})


class EventsDir(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_each_start_gets_a_new_empty_file(self):
        from anachron.cli.serve import new_events_file

        made = [Path(new_events_file(str(self.dir / "runs"))) for _ in range(3)]
        self.assertEqual(len(set(made)), 3)
        for path in made:
            self.assertRegex(path.name, r"^events-[0-9]{8}T[0-9]{6}Z-[0-9]+\.jsonl$")
            self.assertEqual(path.stat().st_size, 0)

    def test_events_and_events_dir_exclude_each_other_and_one_is_required(self):
        for args, message in (
            (("--events", "a.jsonl", "--events-dir", "d"), "not allowed with argument"),
            ((), "one of the arguments --events --events-dir is required"),
        ):
            status, out, err = run_cli("serve", "--as-of", "2022-06-01", *args)
            self.assertEqual(status, 2)
            self.assertIn(message, err)

    def test_a_directory_that_cannot_be_made_is_one_line(self):
        blocker = self.dir / "file"
        blocker.write_text("x")
        status, out, err = run_cli("serve", "--as-of", "2022-06-01", "--events-dir", str(blocker / "sub"))
        self.assertEqual(status, 2)
        self.assertEqual(err.count("\n"), 1)
        self.assertIn("--events-dir", err)

    def test_two_served_runs_in_one_directory_leave_two_logs(self):
        require_extra("mcp", "mcp")
        from tests.mcp_support import stdio_client

        runs = self.dir / "runs"

        async def one_run():
            args = ["--as-of", "2022-06-01", "--events-dir", str(runs)]
            async with stdio_client(args, errlog=self.dir / "stderr.txt") as client:
                await client.call_tool("search", {"query": "cygnus robotics"})

        asyncio.run(one_run())
        asyncio.run(one_run())  # a client restarting the server with the same arguments
        logs = sorted(runs.iterdir())
        self.assertEqual(len(logs), 2)
        for log in logs:
            status, out, err = run_cli("score-events", str(log), "--as-of", "2022-06-01", "--format", "json")
            self.assertEqual((status, err), (0, ""), err)
        self.assertIn(f"events {logs[0]}", (self.dir / "stderr.txt").read_text())


class TaskParameters(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_extra("inspect_ai", "inspect")

    def test_bad_values_are_one_line_before_anything_is_built(self):
        from anachron.inspect import anachron_task
        from anachron.inspect.params import TaskParameterError

        cases = {
            ("k", "abc"): "anachron: -T k: expected a positive integer, got the string 'abc'",
            ("k", True): "anachron: -T k: expected a positive integer, got true",
            ("budget", "None"): "anachron: -T budget: expected a positive integer or null (-T budget=null: no limit), "
                                "got the string 'None'",
            ("budget", 0): "anachron: -T budget: expected a positive integer or null (-T budget=null: no limit), got 0",
            ("slice", 3): "anachron: -T slice: expected a slice name or a comma-separated list, got 3",
            ("slice", "bogus"): "anachron: slice: unknown slice 'bogus'; the corpus has finance, news",
            ("corpus", 7): "anachron: -T corpus: expected a path, got 7",
            ("date_presentation", "shift:5"): "anachron: date_presentation: expected",
        }
        for (name, value), message in cases.items():
            with self.subTest(name=name, value=value):
                with self.assertRaises(TaskParameterError) as caught:
                    anachron_task("unrestricted", **{name: value})
                self.assertTrue(str(caught.exception).startswith(message), str(caught.exception))
                self.assertEqual(caught.exception.message, str(caught.exception))
                self.assertIsInstance(caught.exception, ValueError)

    def test_budget_null_is_no_limit(self):
        from anachron.inspect import anachron_task

        task = anachron_task("unrestricted", budget=None)
        self.assertEqual(len(task.dataset), 27)

    def test_inspect_prints_one_line(self):
        done = subprocess.run(
            [*inspect_command(), "eval", "anachron/inspect/task.py@anachron", "-T", "k=abc", "--model", "anachron/naive"],
            cwd=ROOT, capture_output=True, text=True, timeout=300,
            env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "INSPECT_LOG_DIR": tempfile.gettempdir()},
        )
        lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
        self.assertNotEqual(done.returncode, 0)
        self.assertEqual(lines, ["anachron: -T k: expected a positive integer, got the string 'abc'"])


class SampleOrder(unittest.TestCase):
    """docs/inspect.md: without a shuffle, --limit N takes the first N samples, the same every time."""

    def test_limit_without_shuffle_takes_the_first_samples(self):
        require_extra("inspect_ai", "inspect")
        import warnings

        from inspect_ai import eval as inspect_eval

        import anachron.inspect as ai

        warnings.filterwarnings("ignore", category=ResourceWarning, module=r"anyio\.")
        with tempfile.TemporaryDirectory() as logs:
            runs = [inspect_eval(ai.anachron(), model="anachron/naive", display="none", limit=3, sample_shuffle=None,
                                 log_dir=logs)[0] for _ in range(2)]
            ids = [[s.id for s in log.samples] for log in runs]
        self.assertEqual(ids, [["finance-001", "finance-002", "finance-003"]] * 2)
        self.assertEqual([log.eval.dataset.shuffled for log in runs], [False, False])


if __name__ == "__main__":
    unittest.main()
