"""Progress on a terminal only: throttled, one carriage-return line, cleared at the end (anachron.output.progress)."""

import contextlib
import io
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from anachron.cli import main
from anachron.output.progress import INTERVAL, Progress
from tests.support import ROOT, run_cli


class Terminal(io.StringIO):
    def isatty(self):
        return True


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class ProgressTest(unittest.TestCase):
    def test_a_terminal_sees_count_rate_and_time_left_then_a_cleared_line(self):
        stream, clock = Terminal(), Clock()
        with Progress("anachron index", "items", total=1000, stream=stream, clock=clock) as shown:
            clock.now += 2.0
            shown.advance(400)
            line = stream.getvalue()
        self.assertEqual(line, "\ranachron index: 400 / 1,000 items, 200/s, 3 s left\r")
        blank = "\r" + " " * len("anachron index: 400 / 1,000 items, 200/s, 3 s left") + "\r"
        self.assertEqual(stream.getvalue(), line + blank)

    def test_an_unknown_total_shows_no_time_left(self):
        stream, clock = Terminal(), Clock()
        shown = Progress("anachron score", "samples", stream=stream, clock=clock)
        clock.now += 4.0
        list(shown.iterate(range(12_000)))
        self.assertEqual(stream.getvalue(), "\ranachron score: 1 samples, 0/s\r")  # the first update, when the first was done
        clock.now += 1.0
        shown.advance()
        self.assertEqual(stream.getvalue().split("\r")[-2], "anachron score: 12,001 samples, 2,400/s")

    def test_updates_are_throttled_to_four_a_second(self):
        stream, clock = Terminal(), Clock()
        shown = Progress("anachron import", "samples", stream=stream, clock=clock)
        for _ in range(100):  # 100 items over 2.5 s: 10 updates, not 100
            clock.now += 0.025
            shown.advance()
        self.assertEqual(stream.getvalue().count("\r") // 2, round(2.5 / INTERVAL))

    def test_a_shorter_line_blanks_what_the_longer_one_left(self):
        stream, clock = Terminal(), Clock()
        shown = Progress("x", "items", total=10, stream=stream, clock=clock)
        clock.now += 1.0
        shown.advance(1)  # "..., 9 s left"
        clock.now += 1000.0
        shown.advance(8)  # a slower rate: "..., 2 min 05 s left", longer; then the end, shorter
        clock.now += 1.0
        shown.advance(1)
        first, second, third = (part for part in stream.getvalue().split("\r") if part)
        self.assertEqual(len(third), len(second))
        self.assertTrue(third.rstrip().endswith("0 s left"), third)

    def test_a_stream_that_is_not_a_terminal_gets_nothing(self):
        for stream in (io.StringIO(), Terminal()):
            enabled = isinstance(stream, Terminal) is False  # a pipe, enabled: nothing; a terminal, --quiet: nothing
            clock = Clock()
            with Progress("anachron score", "samples", stream=stream, clock=clock, enabled=enabled) as shown:
                clock.now += 10
                shown.advance(5)
            self.assertEqual(stream.getvalue(), "", type(stream).__name__)

    def test_a_terminal_gone_stops_the_progress_not_the_work(self):
        class Gone(Terminal):
            def write(self, text):
                raise OSError(5, "Input/output error")

        clock = Clock()
        with Progress("anachron score", "samples", stream=Gone(), clock=clock) as shown:
            clock.now += 1
            shown.advance()
            shown.advance()
        self.assertEqual(shown.done, 2)


class CommandProgressTest(unittest.TestCase):
    """Commands show progress on a terminal stderr, never with --quiet, and stdout keeps its bytes."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)
        self.trace = self.dir / "trace.jsonl"
        self.trace.write_text("".join(
            f'{{"sample_id": "s{n}", "mode": "unrestricted", "as_of": "2022-06-01", "interactions": '
            f'[{{"tool": "search", "query": "q", "returned": ["fin-005"]}}]}}\n' for n in range(20)
        ))

    def run_on_terminal(self, *argv):
        ticks = iter(range(0, 10_000))
        out, err = io.StringIO(), Terminal()
        with mock.patch("anachron.output.progress.time.monotonic", lambda: float(next(ticks))), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(list(argv))
        return status, out.getvalue(), err.getvalue()

    def test_score_import_and_index_show_progress_and_quiet_hides_it(self):
        chats = str(ROOT / "tests" / "data" / "importers" / "openai-chat.jsonl")
        commands = {
            "score": (("score", str(self.trace), "--format", "json"), "anachron score: ", " samples, "),
            "import": (("import", "--from", "openai-chat", chats, "--as-of", "2023-01-01", "--out", str(self.dir / "t.jsonl")),
                       "anachron import: ", " samples, "),
            "index": (("index", str(ROOT / "corpus" / "v0"), "--out", str(self.dir / "x.db")), "anachron index: ", " items, "),
        }
        for name, (argv, label, unit) in commands.items():
            with self.subTest(command=name):
                status, out, err = self.run_on_terminal(*argv)
                quiet_status, quiet_out, quiet_err = self.run_on_terminal(*argv, "--quiet")
                plain_status, plain_out, plain_err = run_cli(*argv)
                self.assertEqual((status, quiet_status, plain_status), (0, 0, 0))
                self.assertIn("\r" + label, err)
                self.assertIn(unit, err)
                self.assertTrue(err.endswith("\r") and err.rsplit("\r", 2)[-2].strip() == "", "the line is cleared")
                self.assertEqual((quiet_err, plain_err), ("", ""))
                self.assertEqual(out, plain_out)  # stdout is the same bytes with or without progress
                self.assertEqual(out, quiet_out)
        os.remove(self.dir / "x.db")
