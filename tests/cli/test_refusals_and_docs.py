"""Issue 24's refusals, warnings and docs: what compare says of swapped or unrelated runs, a
TCLR file under another metric, the bank task's logs, mistyped names, missing output
directories, the seal line of a plain trace, the budget of refused calls, docs by URL, and the
Python recipes of README.md and docs/bank.md.
"""

import argparse
import ast
import contextlib
import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from anachron.cli import build_parser
from tests.support import ROOT, inspect_command, require_extra, run_cli

TMP: tempfile.TemporaryDirectory | None = None
DEMO: Path | None = None


def setUpModule():
    global TMP, DEMO
    TMP = tempfile.TemporaryDirectory()
    DEMO = Path(TMP.name, "demo")
    status, out, err = run_cli("demo", "--out", str(DEMO))
    assert status == 0, err


def tearDownModule():
    TMP.cleanup()


def scratch() -> Path:
    return Path(tempfile.mkdtemp(dir=TMP.name))


def write(path: Path, obj) -> str:
    path.write_text(json.dumps(obj), encoding="utf-8")
    return str(path)


def compare(*argv):
    return run_cli("compare", *argv, "--resamples", "200")


class ComparedRuns(unittest.TestCase):
    """compare checks what each file says of its run (docs/formats.md, "Per-sample TCLR file")."""

    def test_demo_files_carry_their_run(self):
        for mode in ("unrestricted", "enforced"):
            doc = json.loads((DEMO / f"{mode}.json").read_text())
            self.assertEqual(set(doc), {"run", "tclr"})
            self.assertEqual(doc["run"]["mode"], mode)
            self.assertEqual(doc["run"]["model"], "anachron/naive")
            self.assertEqual(doc["run"]["corpus"], "v0 (bundled)")
            self.assertRegex(doc["run"]["corpus_fingerprint"], r"^sha256:[0-9a-f]{64}$")
            self.assertEqual(len(doc["tclr"]), 27)

    def test_in_order_the_table_names_both_runs_and_warns_of_nothing_about_them(self):
        u, e = str(DEMO / "unrestricted.json"), str(DEMO / "enforced.json")
        status, out, err = compare(u, e)
        self.assertEqual((status, err), (0, ""))
        lines = out.split("\n")
        self.assertEqual(lines[1], f"  unrestricted run            {u} (unrestricted, model anachron/naive, corpus v0 (bundled))")
        self.assertEqual(lines[2], f"  enforced run                {e} (enforced, model anachron/naive, corpus v0 (bundled))")
        self.assertNotIn("swapped", out)
        self.assertNotIn("different models", out)

    def test_a_swapped_order_is_warned_about_in_every_format(self):
        u, e = str(DEMO / "enforced.json"), str(DEMO / "unrestricted.json")
        status, out, err = compare(u, e)
        self.assertEqual(status, 0, err)
        self.assertIn("warning: the runs look swapped: ", out)
        self.assertIn("give the unrestricted run first", out)
        status, out, err = compare(u, e, "--format", "json")
        doc = json.loads(out)
        self.assertTrue(doc["warnings"][0].startswith("the runs look swapped"), doc["warnings"])
        self.assertEqual(doc["unrestricted_label"], f"{u} (enforced, model anachron/naive, corpus v0 (bundled))")
        status, out, err = compare(u, e, "--format", "csv")
        [row] = csv.DictReader(io.StringIO(out))
        self.assertTrue(row["warnings"].startswith("the runs look swapped"))

    def test_one_run_in_the_wrong_place_is_warned_about(self):
        e = str(DEMO / "enforced.json")
        status, out, err = compare(e, e)
        self.assertEqual(status, 0, err)
        self.assertIn("warning: a run is not of the mode its place says: ", out)
        self.assertNotIn("swapped", out)

    def tclr_file(self, name, run, values=None):
        doc = json.loads((DEMO / "unrestricted.json").read_text())
        doc["run"].update(run)
        if values is not None:
            doc["tclr"] = values
        return write(scratch() / name, doc)

    def test_different_corpora_are_refused(self):
        u = self.tclr_file("u.json", {"corpus": "a", "corpus_fingerprint": "sha256:" + "1" * 64})
        e = self.tclr_file("e.json", {"mode": "enforced", "corpus": "b", "corpus_fingerprint": "sha256:" + "2" * 64})
        status, out, err = compare(u, e)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err.count("\n"), 1)
        self.assertIn("are runs on different corpora", err)
        self.assertIn("a, sha256:1111", err)

    def test_the_same_corpus_in_another_place_is_the_same_corpus(self):
        # A copy of the bundled corpus has its fingerprint: a comparison across the two runs.
        copy = scratch() / "corpus"
        shutil.copytree(ROOT / "corpus" / "v0", copy, ignore=shutil.ignore_patterns("filings"))
        out_dir = scratch() / "demo"
        status, _, err = run_cli("demo", "--out", str(out_dir), "--corpus", str(copy))
        self.assertEqual(status, 0, err)
        status, out, err = compare(str(out_dir / "unrestricted.json"), str(DEMO / "enforced.json"))
        self.assertEqual((status, err), (0, ""))
        # ...and a changed copy is another corpus.
        items = (copy / "items.jsonl").read_text().split("\n")
        first = json.loads(items[0])
        first["title"] += " (edited)"
        (copy / "items.jsonl").write_text("\n".join([json.dumps(first)] + items[1:]))
        status, _, err = run_cli("demo", "--out", str(out_dir), "--corpus", str(copy))
        self.assertEqual(status, 0, err)
        status, out, err = compare(str(out_dir / "unrestricted.json"), str(DEMO / "enforced.json"))
        self.assertEqual(status, 2)
        self.assertIn("different corpora", err)

    def test_an_index_has_its_directory_fingerprint(self):
        from anachron.store import open_corpus

        index = scratch() / "v0.db"
        status, _, err = run_cli("index", str(ROOT / "corpus" / "v0"), "--out", str(index))
        self.assertEqual(status, 0, err)
        self.assertEqual(open_corpus(str(index)).fingerprint, open_corpus().fingerprint)
        self.assertNotEqual(open_corpus(str(ROOT / "corpus" / "v0" / "filings")).fingerprint, open_corpus().fingerprint)

    def test_different_models_are_warned_about(self):
        u = self.tclr_file("u.json", {"model": "openai/gpt-4o"})
        e = self.tclr_file("e.json", {"mode": "enforced", "model": "ollama/qwen2.5"})
        status, out, err = compare(u, e)
        self.assertEqual(status, 0, err)
        self.assertIn("warning: the runs are of different models (openai/gpt-4o and ollama/qwen2.5)", out)

    def test_old_plain_files_still_compare(self):
        d = scratch()
        tclr = json.loads((DEMO / "unrestricted.json").read_text())["tclr"]
        u = write(d / "u.json", tclr)
        e = write(d / "e.json", dict.fromkeys(tclr, 0.0))
        status, out, err = compare(u, e)
        self.assertEqual((status, err), (0, ""))
        self.assertIn(f"  unrestricted run            {u}\n", out)  # a plain file says nothing of its run
        self.assertNotIn("swapped", out)

    def test_score_json_modes_are_checked(self):
        d = scratch()
        for mode in ("unrestricted", "enforced"):
            status, _, err = run_cli("score", str(DEMO / f"{mode}.jsonl"), "--format", "json", "--out", str(d / f"{mode}.json"))
            self.assertEqual(status, 0, err)
        status, out, err = compare(str(d / "enforced.json"), str(d / "unrestricted.json"))
        self.assertEqual(status, 0, err)
        self.assertIn("the runs look swapped", out)
        status, out, err = compare(str(d / "unrestricted.json"), str(d / "enforced.json"))
        self.assertNotIn("swapped", out)


class MetricOfATclrFile(unittest.TestCase):
    def test_a_tclr_file_holds_tclr_only(self):
        status, out, err = compare(str(DEMO / "unrestricted.json"), str(DEMO / "enforced.json"), "--metric", "survivorship_leaks")
        self.assertEqual((status, out), (2, ""))
        self.assertIn("a per-sample TCLR file holds TCLR only, not survivorship_leaks", err)
        self.assertIn("anachron score TRACES.jsonl --format json", err)
        self.assertNotIn("expected a non-negative integer", err)

    def test_an_old_plain_tclr_file_says_so_too(self):
        d = scratch()
        tclr = json.loads((DEMO / "unrestricted.json").read_text())["tclr"]
        u, e = write(d / "u.json", tclr), write(d / "e.json", tclr)
        status, out, err = compare(u, e, "--metric", "survivorship_leaks")
        self.assertEqual(status, 2)
        self.assertIn("per-sample TCLR file holds one number per sample", err)
        self.assertIn("--format json", err)

    def test_a_plain_file_of_counts_is_read_as_the_metric(self):
        d = scratch()
        u, e = write(d / "u.json", {"a": 2, "b": 1}), write(d / "e.json", {"a": 0, "b": 0})
        status, out, err = compare(u, e, "--metric", "survivorship_leaks")
        self.assertEqual(status, 0, err)
        self.assertIn("unrestricted mean survivorship_leaks", out)

    def test_a_score_file_holds_every_metric(self):
        d = scratch()
        for mode in ("unrestricted", "enforced"):
            run_cli("score", str(DEMO / f"{mode}.jsonl"), "--format", "json", "--out", str(d / f"{mode}.json"))
        status, out, err = compare(str(d / "unrestricted.json"), str(d / "enforced.json"), "--metric", "survivorship_leaks")
        self.assertEqual(status, 0, err)


class MistypedNames(unittest.TestCase):
    def test_bank_system_suggests_the_oracles(self):
        status, out, err = run_cli("bank", "run", "--system", "respct")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err.count("\n"), 1)
        self.assertIn("did you mean 'respect'?", err)
        self.assertIn("the oracles are respect and ignore", err)

    def test_a_missing_responses_file_is_only_missing(self):
        status, out, err = run_cli("bank", "run", "--system", str(Path(TMP.name, "responses.jsonl")))
        self.assertEqual(status, 2)
        self.assertNotIn("did you mean", err)
        self.assertIn("no such file", err)

    def test_metric_suggests(self):
        status, out, err = compare(str(DEMO / "unrestricted.json"), str(DEMO / "enforced.json"), "--metric", "surivorship_leaks")
        self.assertEqual(status, 2)
        self.assertIn("did you mean 'survivorship_leaks'?", err)

    def test_bank_model_suggests(self):
        table = str(ROOT / "corpus" / "v0" / "model-cutoffs.example.json")
        status, out, err = run_cli("bank", "run", "--system", "respect", "--model-cutoffs", table, "--model", "example-cutoff-2022-9")
        self.assertEqual((status, out), (2, ""))
        self.assertIn("no model named 'example-cutoff-2022-9'; did you mean 'example-cutoff-2022-09'", err)

    def test_keyless_agent_typo_is_one_line_with_the_names(self):
        require_extra("inspect_ai", "inspect")
        from inspect_ai.model import get_model

        from anachron.core.errors import AnachronError

        with self.assertRaises(AnachronError) as caught:
            get_model("anachron/naiv")
        self.assertEqual(
            str(caught.exception),
            "unknown keyless agent 'anachron/naiv': did you mean 'anachron/naive'? expected one of anachron/naive, anachron/oracle",
        )
        self.assertEqual(caught.exception.message, str(caught.exception))  # what Inspect's hook prints
        with self.assertRaises(AnachronError) as caught:
            get_model("anachron/zzz")
        self.assertNotIn("did you mean", str(caught.exception))

    def test_inspect_eval_prints_one_line(self):
        require_extra("inspect_ai", "inspect")
        done = subprocess.run(
            [*inspect_command(), "eval", "anachron/anachron", "--model", "anachron/naiv", "--limit", "1"],
            cwd=TMP.name, capture_output=True, text=True, timeout=300,
            env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "INSPECT_LOG_DIR": TMP.name},
        )
        lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
        self.assertNotEqual(done.returncode, 0)
        self.assertEqual(lines, ["unknown keyless agent 'anachron/naiv': did you mean 'anachron/naive'? "
                                 "expected one of anachron/naive, anachron/oracle"])


# Every command's output options, each with the arguments it needs to get past argparse. The
# directory rule is checked before the command runs, so the inputs need not exist.
OUTPUTS = {
    ("demo", "--out"): ["demo", "--out", "{path}"],
    ("score", "--out"): ["score", "t.jsonl", "--out", "{path}"],
    ("score-events", "--out"): ["score-events", "e.jsonl", "--as-of", "2022-06-01", "--out", "{path}"],
    ("import", "--out"): ["import", "l.jsonl", "--from", "openai-chat", "--as-of", "2022-06-01", "--out", "{path}"],
    ("export", "--out"): ["export", "l.eval", "--out", "{path}"],
    ("report", "--out"): ["report", "s.json", "--out", "{path}"],
    ("report", "--figures"): ["report", "s.json", "--out", "r.html", "--figures", "{path}"],
    ("index", "--out"): ["index", "corpus", "--out", "{path}"],
    ("freeze analyze", "--out"): ["freeze", "analyze", "dir", "o.jsonl", "--out", "{path}"],
    ("bank build", "--out"): ["bank", "build", "--out", "{path}"],
    ("bank filings", "--out"): ["bank", "filings", "--out", "{path}"],
    ("serve", "--events"): ["serve", "--as-of", "2022-06-01", "--events", "{path}"],
    ("serve", "--events-dir"): ["serve", "--as-of", "2022-06-01", "--events-dir", "{path}"],
    ("run", "--out"): ["run", "responses", "--as-of", "2022-06-01", "--prompt", "p.txt", "--out", "{path}"],
    ("outcomes", "--out"): ["outcomes", "p.jsonl", "r.jsonl", "--out", "{path}"],
    ("outcomes", "--html"): ["outcomes", "p.jsonl", "r.jsonl", "--html", "{path}"],
    ("outcomes", "--figures"): ["outcomes", "p.jsonl", "r.jsonl", "--figures", "{path}"],
    ("compare", "--out"): ["compare", "u.json", "e.json", "--out", "{path}"],
    ("search", "--out"): ["search", "corpus", "--as-of", "2022-06-01", "q", "--out", "{path}"],
    ("verify-citations", "--out"): ["verify-citations", "--trace", "t.jsonl", "--out", "{path}"],
    ("bank run", "--out"): ["bank", "run", "--system", "respect", "--out", "{path}"],
    ("replay", "--out"): ["replay", "rundir", "--out", "{path}"],
}

# The outputs that are a directory: made with their parents (docs/formats.md).
DIRECTORY_OUTPUTS = {("demo", "--out"), ("bank filings", "--out"), ("serve", "--events-dir"), ("run", "--out"),
                     ("report", "--figures"), ("outcomes", "--figures")}


def output_options(directories: bool = False) -> set[tuple[str, str]]:
    """(command, option) of every option of the CLI that names an output (its dest in output_options),
    or with *directories* every one that names a directory output (its dest in directory_outputs)."""
    found = set()

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        outputs = parser.get_default("output_options") or ("out",)
        if directories:
            outputs = parser.get_default("directory_outputs") or ()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    walk(child, f"{name} {sub}".strip())
            elif action.dest in outputs and action.option_strings:
                found.add((name, action.option_strings[0]))

    walk(build_parser(), "")
    return found


class MissingOutputDirectory(unittest.TestCase):
    """docs/formats.md: no command makes the directory an output goes into."""

    def test_every_output_option_is_covered(self):
        self.assertEqual(output_options(), set(OUTPUTS))
        self.assertEqual(output_options(directories=True), DIRECTORY_OUTPUTS)

    def test_every_file_output_refuses_a_missing_directory(self):
        missing = Path(scratch(), "nonexistent", "dir")
        for key, argv in OUTPUTS.items():
            if key in DIRECTORY_OUTPUTS:
                continue
            with self.subTest(command=key):
                path = str(missing / "x.out")
                status, out, err = run_cli(*[path if a == "{path}" else a for a in argv])
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(err, f"anachron: {key[1]} {path}: directory {missing} does not exist; create it first\n")
                self.assertFalse(missing.parent.exists())

    def test_a_directory_output_in_a_missing_directory_is_not_refused_for_it(self):
        # The command goes on to its own checks (here a missing input), never to the directory rule.
        missing = Path(scratch(), "nonexistent", "dir")
        for key in DIRECTORY_OUTPUTS:
            with self.subTest(command=key):
                argv = [str(missing / "x") if a == "{path}" else a for a in OUTPUTS[key]]
                if key in {("demo", "--out"), ("serve", "--events-dir")}:  # never start the server or the demo
                    argv += ["--corpus", str(missing / "no-corpus")]
                if key == ("bank filings", "--out"):
                    argv += ["--facts", str(missing / "no-facts.jsonl")]
                status, out, err = run_cli(*argv)
                self.assertEqual(status, 2)
                self.assertNotIn("create it first", err)

    def test_a_directory_output_is_made_with_its_parents(self):
        target = Path(scratch(), "runs", "deeper", "demo")
        status, out, err = run_cli("demo", "--out", str(target))
        self.assertEqual(status, 0, err)
        self.assertTrue((target / "enforced.json").is_file())

    def test_a_file_where_a_directory_output_should_go(self):
        blocker = Path(scratch(), "blocker")
        blocker.write_text("x")
        for key in DIRECTORY_OUTPUTS:
            with self.subTest(command=key):
                path = str(blocker / "sub" / "x")
                status, out, err = run_cli(*[path if a == "{path}" else a for a in OUTPUTS[key]])
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(err, f"anachron: {key[1]} {path}: {blocker} is not a directory\n")

    def test_a_file_where_the_directory_should_be(self):
        blocker = Path(scratch(), "file")
        blocker.write_text("x")
        status, out, err = run_cli("score", "t.jsonl", "--out", str(blocker / "x.txt"))
        self.assertEqual(status, 2)
        self.assertIn(f"directory {blocker} is not a directory", err)

    def test_a_new_output_directory_in_an_existing_one_is_made(self):
        target = Path(scratch(), "new-demo")
        status, out, err = run_cli("demo", "--out", str(target) + os.sep)
        self.assertEqual(status, 0, err)
        self.assertTrue((target / "enforced.json").is_file())
        status, out, err = run_cli("score", str(DEMO / "enforced.jsonl"), "--out", str(target / "s.txt"))
        self.assertEqual(status, 0, err)

    def test_a_bare_file_name_goes_to_the_current_directory(self):
        with contextlib.chdir(scratch()) if hasattr(contextlib, "chdir") else _chdir(scratch()):
            status, out, err = run_cli("score", str(DEMO / "enforced.jsonl"), "--out", "scores.txt")
            self.assertEqual(status, 0, err)
            self.assertTrue(Path("scores.txt").is_file())


class OutputToAFile(unittest.TestCase):
    """compare, search, verify-citations and bank run take --out as score does: the bytes of stdout,
    written whole, and on bad input no file."""

    def commands(self, where: Path) -> dict[str, list[str]]:
        trace = where / "t.jsonl"
        trace.write_text(json.dumps({"sample_id": "s", "as_of": "2022-06-01", "citations": ["fin-001", "fin-005"],
                                     "interactions": [{"tool": "search", "query": "aster", "returned": ["fin-001"]}]}) + "\n")
        return {
            "compare": ["compare", str(DEMO / "unrestricted.json"), str(DEMO / "enforced.json"), "--resamples", "200"],
            "search": ["search", str(ROOT / "corpus" / "v0"), "--as-of", "2022-06-01", "aster", "--format", "json"],
            "verify-citations": ["verify-citations", "--trace", str(trace)],
            "bank run": ["bank", "run", "--system", "ignore", "--format", "csv"],
        }

    def test_the_file_holds_what_stdout_would(self):
        where = scratch()
        for name, argv in self.commands(where).items():
            with self.subTest(command=name):
                status, shown, err = run_cli(*argv)
                self.assertTrue(shown)
                target = where / f"{name}.out"
                self.assertEqual(run_cli(*argv, "--out", str(target)), (status, "", err))
                self.assertEqual(target.read_text(encoding="utf-8"), shown)

    def test_bad_input_writes_no_file(self):
        where = scratch()
        bad = where / "bad.json"
        bad.write_text("{")
        for name, argv in self.commands(where).items():
            with self.subTest(command=name):
                argv = [str(bad) if a.endswith(("enforced.json", "t.jsonl")) else a for a in argv]
                if name == "search":
                    argv[1] = str(bad)
                if name == "bank run":
                    argv += ["--bank", str(bad)]
                target = where / f"{name}.out"
                status, out, err = run_cli(*argv, "--out", str(target))
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(err.count("\n"), 1, err)
                self.assertFalse(target.exists())
                self.assertEqual(sorted(os.listdir(where)), ["bad.json", "t.jsonl"])  # no staged file left behind


@contextlib.contextmanager
def _chdir(path):
    here = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(here)


class BankTaskLog(unittest.TestCase):
    """A real log of the bank task (Inspect's mockllm): it records its corpus, so export and report read it."""

    @classmethod
    def setUpClass(cls):
        require_extra("inspect_ai", "inspect")
        import warnings

        from inspect_ai import eval as inspect_eval
        from inspect_ai.model import ModelOutput, ModelUsage, get_model

        from anachron.inspect.bank import anachron_bank

        warnings.filterwarnings("ignore", category=ResourceWarning, module=r"anyio\.")
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"inspect_ai\.")

        def generate(input, tools, tool_choice, config):
            subject = next(m.text for m in input if m.role == "user").split("Subject: ")[-1]
            if not any(m.role == "assistant" for m in input):
                out = ModelOutput.for_tool_call("mockllm/model", "search", {"query": subject}, tool_call_id="s1", content="")
            else:
                out = ModelOutput.for_tool_call("mockllm/model", "submit", {"answer": "unknown"}, tool_call_id="a", content="")
            out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
            return out

        cls.logs = Path(TMP.name, "bank-logs")
        [cls.log] = inspect_eval(anachron_bank(), model=get_model("mockllm/model", custom_outputs=generate), limit=3,
                                 display="none", log_dir=str(cls.logs))
        assert cls.log.status == "success", (cls.log.status, cls.log.error)

    def test_the_log_names_its_corpus(self):
        self.assertEqual(self.log.eval.metadata["anachron_corpus"], "bundled:filings")

    def test_export_scores_against_the_recorded_corpus(self):
        out = Path(scratch(), "bank.json")
        status, stdout, err = run_cli("export", str(self.logs), "--out", str(out))
        self.assertEqual(status, 0, err)
        doc = json.loads(out.read_text())
        self.assertEqual(len(doc["tclr"]), 3)
        self.assertEqual({k: doc["run"][k] for k in ("mode", "model", "corpus")},
                         {"mode": "enforced", "model": "mockllm/model", "corpus": "v0/filings (bundled)"})
        from anachron.store import open_corpus

        self.assertEqual(doc["run"]["corpus_fingerprint"], open_corpus(str(ROOT / "corpus" / "v0" / "filings")).fingerprint)

    def test_export_format_score_carries_the_run_in_its_summary(self):
        out = Path(scratch(), "bank.json")
        status, stdout, err = run_cli("export", str(self.logs), "--out", str(out), "--format", "score")
        self.assertEqual(status, 0, err)
        self.assertEqual(json.loads(out.read_text())["summary"]["run"]["corpus"], "v0/filings (bundled)")

    def test_corpus_overrides_the_recorded_one(self):
        status, stdout, err = run_cli("export", str(self.logs), "--out", str(Path(scratch(), "x.json")),
                                      "--corpus", str(ROOT / "corpus" / "v0"))
        self.assertEqual(status, 2)
        self.assertIn("is not in the corpus", err)

    def test_report_reads_the_log(self):
        out = Path(scratch(), "bank.html")
        status, stdout, err = run_cli("report", str(self.logs), "--out", str(out))
        self.assertEqual(status, 0, err)
        self.assertTrue(out.is_file())

    def test_report_corpus_overrides_the_recorded_one(self):
        status, stdout, err = run_cli("report", str(self.logs), "--out", str(Path(scratch(), "x.html")),
                                      "--corpus", str(ROOT / "corpus" / "v0"))
        self.assertEqual(status, 2)
        self.assertIn("is not in the corpus", err)

    def test_an_older_bank_log_is_known_by_its_task(self):
        from anachron.inspect.export import log_run

        older = Path(scratch(), "older.json")
        from inspect_ai.log import write_eval_log

        log = self.log.model_copy(deep=True)
        del log.eval.metadata["anachron_corpus"]
        write_eval_log(log, str(older))
        self.assertEqual(log_run([str(older)])["corpus"], "v0/filings (bundled)")


class SealLine(unittest.TestCase):
    def test_a_plain_trace_has_no_seal_line_but_json_keeps_the_fields(self):
        status, out, err = run_cli("score", str(DEMO / "enforced.jsonl"))
        self.assertEqual(status, 0, err)
        self.assertTrue(out.startswith("sample "), out[:80])
        self.assertNotIn("seal audit", out)
        status, out, err = run_cli("score", str(DEMO / "enforced.jsonl"), "--format", "json")
        doc = json.loads(out)
        self.assertIsNone(doc["summary"]["seal_status"])
        self.assertIn("seal_status", doc["samples"][0])

    def test_declared_tools_show_the_verdict(self):
        status, out, err = run_cli("score", str(DEMO / "enforced.jsonl"), "--sealed-tools", "search")
        self.assertEqual(status, 0, err)
        self.assertTrue(out.startswith("sealed: unverified"), out[:80])

    def test_a_trace_with_what_an_audit_judges_shows_that_it_was_not_run(self):
        record = json.loads((DEMO / "enforced.jsonl").read_text().split("\n")[0])
        for extra in ({"tool": "Bash", "query": None, "command": "ls", "returned": []},
                      {"tool": "Read", "query": "notes.txt", "retrieval": False, "returned": []}):
            with self.subTest(extra=extra["tool"]):
                path = Path(scratch(), "t.jsonl")
                path.write_text(json.dumps({**record, "interactions": record["interactions"] + [extra]}) + "\n")
                status, out, err = run_cli("score", str(path))
                self.assertEqual(status, 0, err)
                self.assertTrue(out.startswith("seal audit: not run"), out[:80])


class ReportPage(unittest.TestCase):
    """The HTML report follows the CLI: the seal row where an audit could apply, slices from the scores."""

    def page(self, *argv) -> str:
        out = Path(scratch(), "r.html")
        status, stdout, err = run_cli("report", *argv, "--out", str(out))
        self.assertEqual(status, 0, err)
        return out.read_text(encoding="utf-8")

    def test_a_plain_trace_has_no_seal_row(self):
        self.assertNotIn("seal audit", self.page(str(DEMO / "enforced.jsonl")))

    def test_a_score_file_with_a_verdict_has_the_seal_row(self):
        scores = Path(scratch(), "s.json")
        status, _, err = run_cli("score", str(DEMO / "enforced.jsonl"), "--sealed-tools", "search",
                                 "--format", "json", "--out", str(scores))
        self.assertEqual(status, 0, err)
        self.assertIn("sealed: unverified", self.page(str(scores)))

    def test_slices_come_from_the_score_file(self):
        scores = Path(scratch(), "s.json")
        status, _, err = run_cli("score", str(DEMO / "unrestricted.jsonl"), "--format", "json", "--out", str(scores))
        self.assertEqual(status, 0, err)
        doc = json.loads(scores.read_text())
        for i, sample in enumerate(doc["samples"]):
            sample["slice"] = f"s{i % 2}"  # slices the bundled corpus does not have: read from the file
        page = self.page(write(scores, doc))
        self.assertNotIn("slice unknown", page)
        self.assertIn("s1", page)

    def test_a_tclr_file_is_refused_by_name(self):
        out = Path(scratch(), "r.html")
        status, stdout, err = run_cli("report", str(DEMO / "enforced.json"), "--out", str(out))
        self.assertEqual((status, stdout), (2, ""))
        self.assertIn("a per-sample TCLR file", err)
        self.assertFalse(out.exists())


class RefusedCallsBudget(unittest.TestCase):
    """docs/mcp.md's status table, its threat model and docs/inspect.md: a call refused for its
    arguments costs one of the call cap (none of a tool's); an exhausted call costs nothing."""

    def test_the_lock_counts_refusals_against_the_call_cap(self):
        import datetime as dt

        from anachron.store import load_corpus
        from anachron.timelock import CorpusBackend, Limits, TimeLock
        class Journal:
            def write(self, header, record):
                pass

        lock = TimeLock(CorpusBackend(load_corpus()), dt.date(2022, 6, 1), Journal(), limits=Limits(calls=2, searches=1))
        statuses = [lock.call("search", {"query": "cygnus", "as_of": "2030-01-01"}).record["status"],
                    lock.call("search", {"query": ""}).record["status"]]
        self.assertEqual(statuses, ["refused", "refused"])
        self.assertEqual(lock.budget()["searches"]["used"], 0)  # no tool's cap
        self.assertEqual(lock.budget()["calls"]["used"], 2)  # the call cap: refusals are not free
        exhausted = lock.call("search", {"query": "cygnus"})
        self.assertEqual(exhausted.record["status"], "exhausted")
        self.assertEqual(lock.budget()["calls"]["used"], 2)  # an exhausted call costs nothing

    def test_the_docs_say_so(self):
        mcp = (ROOT / "docs" / "mcp.md").read_text()
        row = next(line for line in mcp.split("\n") if line.startswith("| `refused` | an unknown tool"))
        self.assertIn("one of `--max-calls`", row)
        self.assertIn("each refused one counts against `--max-calls`", " ".join(mcp.split()))
        inspect_doc = " ".join((ROOT / "docs" / "inspect.md").read_text().split())
        self.assertNotIn("Calls refused for their arguments and calls over budget cost nothing", inspect_doc)
        self.assertIn("the calls refused for their arguments", inspect_doc)
        self.assertIn("Only a call over budget costs nothing", inspect_doc)


class DocsByUrl(unittest.TestCase):
    def test_pyproject_names_the_docs_url(self):
        from anachron.core.docs import DOCS_URL

        text = (ROOT / "pyproject.toml").read_text()
        self.assertIn("[project.urls]", text)
        self.assertIn(f'Documentation = "{DOCS_URL}"', text)

    def test_messages_name_docs_by_url_and_the_pages_exist(self):
        from anachron.core.docs import DOCS_URL

        bare, pages = [], set()
        for path in sorted((ROOT / "anachron").rglob("*.py")):
            if path.parts[-2] == "html":
                continue  # the report's page (anachron/output/html, issue 24's figures) links docs itself
            tree = ast.parse(path.read_text())
            docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                          if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                          and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "doc_url":
                    pages.add(node.args[0].value)
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                    if re.search(r"(?<![/\w])docs/[\w-]+\.md", node.value) and DOCS_URL not in node.value:
                        bare.append(f"{path.relative_to(ROOT)}:{node.lineno}")
        self.assertEqual(bare, [])
        self.assertTrue(pages)
        for page in pages:
            self.assertTrue((ROOT / "docs" / page).is_file(), page)

    def test_help_shows_the_url(self):
        status, out, err = run_cli("compare", "--help")
        self.assertIn("https://github.com/anachron/anachron/blob/main/docs/metrics.md,", out.replace("\n", " ").split())


class PythonApi(unittest.TestCase):
    def test_results_is_a_top_level_name(self):
        import anachron
        from anachron.output.results import Results

        self.assertIs(anachron.Results, Results)

    def test_mode_comparison_to_records(self):
        from anachron.core import compare_modes
        from anachron.output.records import COMPARISON_COLUMNS, comparison_records

        c = compare_modes({"a": 1.0, "b": 0.5, "c": 0.0}, {"a": 0.0, "b": 0.5, "c": 0.0}, n_resamples=200)
        [row] = c.to_records()
        self.assertEqual(tuple(row), COMPARISON_COLUMNS)
        self.assertEqual(row["mean_reduction"], c.mean_reduction)
        self.assertEqual(row["warnings"], "\n".join(c.warnings))
        self.assertIsNone(row["unrestricted_label"])
        self.assertEqual(comparison_records(c), [row])

    def test_records_have_the_slice(self):
        import anachron

        corpus = anachron.load_corpus()
        run = anachron.Results(anachron.score_traces(anachron.load_traces(DEMO / "enforced.jsonl", corpus), corpus))
        slices = {row["sample_id"]: row["slice"] for row in run.to_records()}
        self.assertEqual(slices, {s.id: s.slice for s in corpus.samples.values()})
        self.assertEqual(list(run.to_records()[0])[:4], ["sample_id", "as_of", "mode", "slice"])

    def test_a_sample_the_corpus_does_not_hold_has_no_slice(self):
        from anachron.core import parse_traces, score_traces
        from anachron.core.leakage import read_sample
        from anachron.store import load_corpus

        corpus = load_corpus()
        record = {"sample_id": "mine-1", "as_of": "2022-06-01", "mode": None, "interactions": []}
        [result] = score_traces(parse_traces([("x", record)], corpus), corpus)
        self.assertIsNone(result.slice)
        old = result.to_dict()
        del old["slice"]  # a score file written before the field
        self.assertIsNone(read_sample(old, "run.json").slice)

    def blocks(self, path: Path) -> list[str]:
        return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)

    def test_the_readme_notebook_example_runs(self):
        [block] = [b for b in self.blocks(ROOT / "README.md") if "anachron.Results" in b]
        here = scratch()
        shutil.copytree(DEMO, here / "anachron-demo")
        out = io.StringIO()
        with _chdir(here), contextlib.redirect_stdout(out):
            exec(compile(block, "README.md", "exec"), {})
        self.assertEqual(out.getvalue().split("\n")[:2], ["Results(n=27, mean_tclr=0.000)", "0.4444444444444444"])

    def test_the_readme_logs_in_python_example_runs(self):
        require_extra("pandas", "test")
        [block] = [b for b in self.blocks(ROOT / "README.md") if "anachron.score_logs" in b]
        out = io.StringIO()
        with _chdir(ROOT), contextlib.redirect_stdout(out):
            exec(compile(block, "README.md", "exec"), {})
        self.assertEqual(out.getvalue().split("\n")[:2], ["Results(n=1, mean_tclr=0.333)", f"{1 / 3} {2 / 3}"])

    def test_the_bank_recipe_runs(self):
        from anachron.bank import load_bank, oracle_responses

        [block] = [b for b in self.blocks(ROOT / "docs" / "bank.md") if "run_bank" in b]
        here = scratch()
        bank = load_bank()
        lines = [json.dumps({"item_id": i, "response": r}) for i, r in oracle_responses(bank, "respect").items()]
        (here / "responses.jsonl").write_text("\n".join(lines) + "\n")
        out, scope = io.StringIO(), {}
        with _chdir(here), contextlib.redirect_stdout(out):
            exec(compile(block, "docs/bank.md", "exec"), scope)
        self.assertTrue(out.getvalue().startswith("True 1.0 0.0"), out.getvalue())
        self.assertEqual(len(scope["rows"]), len(bank.items))
        self.assertEqual(scope["card"]["system"], "my-agent")


class DocsFacts(unittest.TestCase):
    def test_csv_booleans_are_written_as_the_docs_say(self):
        status, out, err = run_cli("score", str(DEMO / "enforced.jsonl"), "--format", "csv")
        values = {row["answered"] for row in csv.DictReader(io.StringIO(out))}
        self.assertLessEqual(values, {"true", "false"})
        self.assertIn("| `answered` | `true` when", (ROOT / "docs" / "formats.md").read_text())

    def test_readme_says_undated_pages_are_read_for_content_leaks(self):
        self.assertIn("a page\n  dated before T, or undated, whose text names a later period", (ROOT / "README.md").read_text())

    def test_performance_doc_says_the_benchmark_needs_scipy(self):
        text = " ".join((ROOT / "docs" / "performance.md").read_text().split())
        self.assertIn("`benchmarks/compare_modes.py` needs scipy", text)

    def test_inspect_doc_shows_responses_api_false(self):
        text = (ROOT / "docs" / "inspect.md").read_text()
        self.assertIn("--model openai/qwen2.5-7b-instruct -M responses_api=false", text)
        self.assertIn("-M responses_api=false", (ROOT / "README.md").read_text())


if __name__ == "__main__":
    unittest.main()
