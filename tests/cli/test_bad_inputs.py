"""Inputs that break the CLI (issue 26, section 4), through the ``anachron`` command.

An output that names an input is refused by every command that writes one,
before anything is read or written: exit 2, one line naming the input, the
input byte for byte as it was.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import unittest
from pathlib import Path

from tests.support import ROOT, run_cli

CORPUS = ROOT / "corpus" / "v0"


class OutputIsAnInput(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.dir)
        self.corpus = self.dir / "corpus"
        shutil.copytree(CORPUS, self.corpus, ignore=shutil.ignore_patterns("filings"))
        self.items = self.corpus / "items.jsonl"
        self.trace = self.dir / "trace.jsonl"
        self.trace.write_text('{"sample_id": "x"}\n', encoding="utf-8")

    def refused(self, victim: Path, *argv: str, option: str = "--out") -> None:
        before = victim.read_bytes() if victim.is_file() else None
        status, out, err = run_cli(*argv)
        self.assertEqual(status, 2, err)
        self.assertEqual(out, "")
        self.assertEqual(err, f"anachron: {option} names an input ({os.path.realpath(victim)}): choose another path\n")
        if before is not None:
            self.assertEqual(victim.read_bytes(), before)

    def test_index_onto_the_corpus_items(self) -> None:
        self.refused(self.items, "index", str(self.corpus), "--out", str(self.items))

    def test_through_a_symlink_and_dot_dot(self) -> None:
        link = self.dir / "link.jsonl"
        link.symlink_to(self.items)
        self.refused(self.items, "index", str(self.corpus), "--out", str(link))
        self.refused(self.items, "index", str(self.corpus), "--out", str(self.corpus / ".." / "corpus" / "items.jsonl"))

    def test_through_a_hard_link(self) -> None:
        link = self.dir / "hard.jsonl"
        os.link(self.items, link)
        self.refused(self.items, "index", str(self.corpus), "--out", str(link))

    def test_a_new_file_beside_the_corpus_files_is_written(self) -> None:
        status, _, err = run_cli("index", str(self.corpus), "--out", str(self.corpus / "corpus.db"))
        self.assertEqual((status, err), (0, ""))

    def test_score_onto_its_traces_and_its_index(self) -> None:
        self.refused(self.trace, "score", str(self.trace), "--out", str(self.trace))
        self.refused(self.items, "score", str(self.trace), "--corpus", str(self.corpus), "--out", str(self.items))
        index = self.dir / "corpus.db"
        self.assertEqual(run_cli("index", str(self.corpus), "--out", str(index))[0], 0)
        self.refused(index, "score", str(self.trace), "--corpus", str(index), "--out", str(index))

    def test_score_events_onto_its_events(self) -> None:
        self.refused(self.trace, "score-events", str(self.trace), "--as-of", "2024-01-01", "--out", str(self.trace))

    def test_import_onto_its_log(self) -> None:
        self.refused(self.trace, "import", "--from", "openai-chat", str(self.trace), "--as-of", "2024-01-01", "--out", str(self.trace))

    def test_export_onto_its_log(self) -> None:
        self.refused(self.trace, "export", str(self.trace), "--out", str(self.trace))

    def test_report_onto_its_run(self) -> None:
        self.refused(self.trace, "report", str(self.trace), "--out", str(self.trace))

    def test_freeze_analyze_onto_its_outcomes_and_study_files(self) -> None:
        study = self.dir / "study"
        study.mkdir()
        contract = study / "FREEZE_CONTRACT.json"
        contract.write_text("{}", encoding="utf-8")
        self.refused(self.trace, "freeze", "analyze", str(study), str(self.trace), "--out", str(self.trace))
        self.refused(contract, "freeze", "analyze", str(study), str(self.trace), "--out", str(contract))

    def test_bank_build_onto_its_facts(self) -> None:
        facts = self.corpus / "facts.jsonl"
        self.refused(facts, "bank", "build", "--facts", str(facts), "--out", str(facts))

    def test_a_directory_output_that_is_an_input_directory(self) -> None:
        facts = self.corpus / "facts.jsonl"
        self.refused(self.corpus, "bank", "filings", "--facts", str(facts), "--corpus", str(self.corpus), "--out", str(self.corpus))
        self.refused(self.corpus, "demo", "--corpus", str(self.corpus), "--out", str(self.corpus))

    def test_the_bundled_corpus_read_by_default(self) -> None:
        bundled = CORPUS / "facts.jsonl"
        self.refused(bundled, "bank", "build", "--out", str(bundled))
        self.refused(CORPUS / "bank.jsonl", "score", str(self.trace), "--out", str(CORPUS / "bank.jsonl"))

    def test_serve_events_onto_the_corpus(self) -> None:
        self.refused(
            self.items, "serve", "--as-of", "2024-01-01", "--corpus", str(self.corpus),
            "--events", str(self.items), "--overwrite-events", option="--events",
        )


class OneLineErrors(unittest.TestCase):
    """Hostile inputs end in one line on stderr naming the file, exit 2: never a traceback."""

    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.dir)

    def fails(self, expected: str, *argv: str) -> None:
        status, out, err = run_cli(*argv)
        self.assertEqual((status, out, err), (2, "", f"anachron: {expected}\n"))

    def test_a_5000_digit_integer(self) -> None:
        for digits in (4_301, 5_000):
            with self.subTest(digits=digits):
                log = self.dir / "otel.json"
                log.write_text('{"resourceSpans": [\n  {"x": ' + "9" * digits + "}]}", encoding="utf-8")
                self.fails(
                    f"{log}:2: invalid JSON: an integer of {digits} digits (column 9); at most 4300 are read",
                    "import", "--from", "otel", str(log), "--as-of", "2023-01-01", "--out", str(self.dir / "t.jsonl"),
                )
        lines = self.dir / "t.jsonl"
        lines.write_text('{"b": ' + "1" * 5_000 + "}\n", encoding="utf-8")
        self.fails(f"{lines}:1: invalid JSON: an integer of 5000 digits (column 7); at most 4300 are read", "score", str(lines))

    def test_a_string_of_digits_is_no_integer(self) -> None:
        from anachron.core.errors import AnachronError
        from anachron.core.jsonio import parse_json

        digits = "9" * 5_000
        with self.assertRaises(AnachronError) as caught:
            parse_json('{"a": "' + digits + '",\n "b": ' + digits + "}", "f", multiline=True)
        self.assertEqual(str(caught.exception), "f:2: invalid JSON: an integer of 5000 digits (column 7); at most 4300 are read")
        self.assertEqual(parse_json('["' + digits + '"]', "f"), [digits])

    def test_4300_digits_are_read(self) -> None:
        from anachron.core.jsonio import parse_json

        self.assertEqual(parse_json("[" + "7" * 4_300 + "]", "x"), [int("7" * 4_300)])

    def test_nesting_deeper_than_the_limit(self) -> None:
        from anachron.core.jsonio import MAX_LOG_DEPTH

        self.assertEqual(MAX_LOG_DEPTH, 200)
        # The importers: the decoder's own bound, the recursion limit less the frames in use (Inspect's
        # reader raises the limit to 3,000 in a process that read an Inspect log): past it, one line.
        import sys

        for depth in (sys.getrecursionlimit() + 100, 20_000):
            with self.subTest(depth=depth):
                log = self.dir / "deep.json"
                log.write_text("[" * depth + "]" * depth, encoding="utf-8")
                self.fails(f"{log}: invalid JSON: nested too deep for the parser",
                           "import", "--from", "openai-responses", str(log), "--as-of", "2023-01-01",
                           "--out", str(self.dir / "t.jsonl"))

    def test_nesting_at_the_limit_is_parsed(self) -> None:
        from anachron.core.jsonio import parse_json

        self.assertEqual(parse_json("[" * 200 + "]" * 200, "x", max_depth=200), parse_json("[" * 200 + "]" * 200, "x"))

    def test_a_deep_inspect_json_log_never_reaches_inspect(self) -> None:
        from tests.support import require_extra

        require_extra("inspect_ai", "inspect")
        log = self.dir / "log.json"
        for depth in (201, 1_000, 20_000):
            with self.subTest(depth=depth):
                log.write_text("[" * depth + "]" * depth, encoding="utf-8")
                self.fails(f"{log}: invalid JSON: nested deeper than 200 levels",
                           "export", str(log), "--out", str(self.dir / "x.json"))

    def test_an_index_with_a_dropped_table(self) -> None:
        import sqlite3

        index = self.dir / "corpus.db"
        self.assertEqual(run_cli("index", str(CORPUS), "--out", str(index))[0], 0)
        con = sqlite3.connect(index)
        con.execute("DROP TABLE items")
        con.commit()
        con.close()
        expected = f"{index}: a damaged index (no table items); rebuild it: anachron index CORPUS_DIR --out {index}"
        self.fails(expected, "demo", "--corpus", str(index), "--out", str(self.dir / "demo"))
        self.fails(expected, "score", str(self.dir / "none.jsonl"), "--corpus", str(index))
        self.assertFalse((self.dir / "demo").exists())

    def test_a_bank_card_with_string_fields(self) -> None:
        import json

        status, out, err = run_cli("bank", "run", "--system", "respect", "--format", "json")
        self.assertEqual((status, err), (0, ""))
        card = json.loads(out)
        for path in (("accuracy",), ("leak_rate",), ("ambiguous_embargoed",), ("leak_rate_ci",),
                     ("oracles", "respect", "accuracy"), ("oracles", "ignore", "leak_rate_ci")):
            with self.subTest(path=path):
                bad = json.loads(out)
                holder = bad
                for key in path[:-1]:
                    holder = holder[key]
                holder[path[-1]] = "0.5"
                shown = ".".join(path)
                what = "a list of numbers" if path[-1].endswith("_ci") else "a number"
                (self.dir / "card.json").write_text(json.dumps(bad), encoding="utf-8")
                self.fails(f"{self.dir / 'card.json'}: field '{shown}': expected {what}, got the string '0.5'",
                           "report", str(self.dir / "card.json"), "--out", str(self.dir / "r.html"))
        self.assertTrue(card["accuracy"] is not None)


class NothingWrittenOnFailure(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.dir)

    def test_serve_that_cannot_start_creates_no_event_log(self) -> None:
        import socket

        from tests.support import require_extra

        require_extra("mcp", "mcp")
        taken = socket.socket()
        self.addCleanup(taken.close)
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        cases = {
            "port in use": (["--http", f"127.0.0.1:{port}"], f"--http: cannot listen on 127.0.0.1:{port}: "),
            "unresolvable host": (["--http", "no-such-host.invalid:0"], "--http: cannot listen on no-such-host.invalid:0: "),
            "-k 0": (["-k", "0"], "-k: expected a positive integer, got 0"),
        }
        for name, (options, message) in cases.items():
            for log in (["--events", str(self.dir / "events.jsonl")], ["--events-dir", str(self.dir / "logs")]):
                with self.subTest(name, log=log[0]):
                    status, out, err = run_cli("serve", "--as-of", "2022-06-01", *log, *options)
                    self.assertEqual((status, out), (2, ""))
                    self.assertTrue(err.startswith(f"anachron: {message}"), err)
                    self.assertEqual(err.count("\n"), 1, err)
                    self.assertFalse((self.dir / "events.jsonl").exists())
                    self.assertEqual(list((self.dir / "logs").glob("*")) if (self.dir / "logs").exists() else [], [])

    def test_demo_under_a_file_size_limit_leaves_no_directory(self) -> None:
        import resource
        import subprocess
        import sys

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (5_000, 5_000))

        out = self.dir / "demo"  # new; its parent exists (no command makes an output's parent: docs/formats.md)
        done = subprocess.run(
            [sys.executable, "-m", "anachron", "demo", "--out", str(out)], preexec_fn=limit, capture_output=True,
            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=self.dir,
        )
        self.assertEqual((done.returncode, done.stdout), (2, ""))
        self.assertEqual(done.stderr, f"anachron: {out / 'unrestricted.jsonl'}: cannot write: File too large\n")
        self.assertEqual(list(self.dir.iterdir()), [])

    def test_demo_into_an_existing_directory_keeps_it_on_failure(self) -> None:
        import resource
        import subprocess
        import sys

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (5_000, 5_000))

        (self.dir / "demo").mkdir()
        (self.dir / "demo" / "keep.txt").write_text("mine", encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "anachron", "demo", "--out", str(self.dir / "demo")], preexec_fn=limit,
            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=self.dir,
        )
        self.assertEqual(done.returncode, 2)
        self.assertEqual(sorted(p.name for p in (self.dir / "demo").iterdir()), ["keep.txt"])


if __name__ == "__main__":
    unittest.main()
