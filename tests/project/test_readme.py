"""A newcomer's walk through README.md and docs/: what the commands print where the docs do not
show it byte for byte (the command list of ``anachron --help``, what ``report`` says it wrote),
the comparison table's warnings in the HTML page, and how the docs' shell blocks are split into the
commands slow_readme_blocks.py runs."""

import re
import tempfile
import unittest
from html.parser import HTMLParser
from pathlib import Path

from anachron.cli import build_parser
from anachron.core import compare_modes
from anachron.output.html.tables import comparison_table
from tests.project.doc_commands import ROOT, block_commands, file_commands
from tests.support import run_cli


def command_helps() -> dict[str, str]:
    """Each subcommand's one-line help, as ``anachron --help`` lists it."""
    parser = build_parser()
    [sub] = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    return {choice.dest: choice.help for choice in sub._choices_actions}


class CommandList(unittest.TestCase):
    def test_every_command_has_a_short_help_without_a_url(self):
        helps = command_helps()
        self.assertIn("run", helps)
        for name, text in helps.items():
            with self.subTest(name):
                self.assertTrue(text, name)
                self.assertNotIn("http", text)  # the URL goes in the command's own --help
                self.assertLessEqual(len(text), 100, text)

    def test_the_bank_line_names_every_action(self):
        status, out, _ = run_cli("bank", "--help")
        self.assertEqual(status, 0)
        actions = re.findall(r"^    (\w+)", out, flags=re.M)
        self.assertTrue(actions)
        line = command_helps()["bank"]
        for action in actions:
            self.assertIn(action, line)

    def test_run_help_still_names_its_rules(self):
        status, out, _ = run_cli("run", "--help")
        self.assertEqual(status, 0)
        self.assertIn("docs/run-rules.md", out.replace("\n", ""))


class ReportSays(unittest.TestCase):
    def test_a_bank_card_alone_is_not_zero_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            status, card, err = run_cli("bank", "run", "--system", "respect", "--format", "json")
            self.assertEqual(status, 0, err)
            Path(tmp, "card.json").write_text(card, encoding="utf-8")
            html, figures = str(Path(tmp, "card.html")), str(Path(tmp, "figs"))
            status, out, err = run_cli("report", str(Path(tmp, "card.json")), "--out", html, "--figures", figures)
            self.assertEqual(status, 0, err)
            count = len(list(Path(figures).glob("*.svg")))
            self.assertEqual(count, 1)  # the oracles' separation: no model, no cutoff split
            self.assertEqual(out.splitlines(), [f"wrote {html}: a bank score card",
                                                f"wrote {figures}: 1 figure (standalone SVG) and figures.json"])

    def test_runs_are_counted(self):
        with tempfile.TemporaryDirectory() as tmp:
            demo = Path(tmp, "demo")
            self.assertEqual(run_cli("demo", "--out", str(demo))[0], 0)
            html = str(Path(tmp, "r.html"))
            status, out, err = run_cli("report", str(demo / "enforced.jsonl"), "--out", html, "--figures", str(Path(tmp, "f")))
            self.assertEqual(status, 0, err)
            lines = out.splitlines()
            self.assertEqual(lines[0], f"wrote {html}: 1 run")
            self.assertRegex(lines[1], r": \d+ figures \(standalone SVG\) and figures\.json$")


class DirectoryOutputs(unittest.TestCase):
    """docs/formats.md: a directory output is made with its missing parents; a file in its way is refused."""

    def test_report_figures_makes_its_missing_parents(self):
        with tempfile.TemporaryDirectory() as tmp:
            demo = Path(tmp, "demo")
            self.assertEqual(run_cli("demo", "--out", str(demo))[0], 0)
            figures = Path(tmp, "new", "dir", "figs")
            status, out, err = run_cli("report", str(demo / "enforced.jsonl"), "--out", str(Path(tmp, "r.html")),
                                       "--figures", str(figures))
            self.assertEqual(status, 0, err)
            self.assertTrue((figures / "figures.json").is_file())
            blocker = Path(tmp, "file")
            blocker.write_text("x", encoding="utf-8")
            status, out, err = run_cli("report", str(demo / "enforced.jsonl"), "--out", str(Path(tmp, "r2.html")),
                                       "--figures", str(blocker / "figs"))
            self.assertEqual((status, out), (2, ""))
            self.assertEqual(err, f"anachron: --figures {blocker / 'figs'}: {blocker} is not a directory\n")
            self.assertFalse(Path(tmp, "r2.html").exists())

    def test_bank_filings_into_a_file_is_one_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            blocker = Path(tmp, "file")
            blocker.write_text("x", encoding="utf-8")
            status, out, err = run_cli("bank", "filings", "--out", str(blocker))
            self.assertEqual((status, out), (2, ""))
            self.assertEqual(err, f"anachron: --out {blocker}: not a directory (bank filings writes DIR/items.jsonl)\n")
            self.assertEqual(blocker.read_text(encoding="utf-8"), "x")


class ImportersRecipe(unittest.TestCase):
    def test_the_python_block_of_docs_importers_runs(self):
        import contextlib
        import io

        from tests.support import ROOT

        text = (ROOT / "docs" / "importers.md").read_text(encoding="utf-8")
        block = text.split("In Python (tested", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
        fixture = ROOT / "tests" / "data" / "importers" / "claude-code.jsonl"
        self.assertIn('"session.jsonl"', block)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block.replace('"session.jsonl"', repr(str(fixture))), "docs/importers.md", "exec"), {})
        self.assertRegex(out.getvalue(), r"^Results\(n=1, mean_tclr=0\.\d+\)\n$")


class AsOfMap(unittest.TestCase):
    def test_an_empty_map_is_called_empty(self):
        from tests.support import ROOT

        log = str(ROOT / "tests" / "data" / "importers" / "claude-code.jsonl")
        with tempfile.TemporaryDirectory() as tmp:
            rule = "expected a JSON object mapping sample id -> YYYY-MM-DD"
            for text, said in (("{}", f"an empty object: {rule}"), ("[]", rule)):
                cutoffs = Path(tmp, "cutoffs.json")
                cutoffs.write_text(text, encoding="utf-8")
                for argv in (["import", "--from", "claude-code", log, "--as-of-map", str(cutoffs), "--out", str(Path(tmp, "t.jsonl"))],
                             ["score", "--from", "claude-code", log, "--as-of-map", str(cutoffs)]):
                    with self.subTest(text=text, command=argv[0]):
                        status, out, err = run_cli(*argv)
                        self.assertEqual((status, out), (2, ""))
                        self.assertEqual(err, f"anachron: {cutoffs}: {said}\n")


class ReportMetric(unittest.TestCase):
    def test_a_mistyped_metric_is_refused_with_one_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            demo = Path(tmp, "demo")
            self.assertEqual(run_cli("demo", "--out", str(demo))[0], 0)
            html = Path(tmp, "r.html")
            status, out, err = run_cli("report", str(demo / "enforced.jsonl"), "--out", str(html), "--metric", "survivorship_leak")
            self.assertEqual((status, out), (2, ""))
            self.assertEqual(len(err.splitlines()), 1, err)
            self.assertIn("unknown metric 'survivorship_leak': did you mean 'survivorship_leaks'?", err)
            self.assertFalse(html.exists())


class HorizonCaption(unittest.TestCase):
    """The horizon's caption says where its open last bin ends, as the axis draws it."""

    def caption(self, records):
        from anachron.core import load_corpus_dir, parse_traces, score_traces
        from anachron.output.html import Run
        from anachron.output.html.page import report_page

        corpus = load_corpus_dir()
        results = score_traces(parse_traces([(f"t:{i}", r) for i, r in enumerate(records, 1)], corpus), corpus)
        _, figures = report_page([Run("t.jsonl", tuple(results))], n_resamples=200)
        [figure] = [f for f in figures if f.name.endswith("-horizon")]
        return figure

    def record(self, day):
        return {"sample_id": "s", "as_of": "2020-01-01", "mode": "unrestricted",
                "interactions": [{"tool": "search", "query": "q", "returned": [{"id": "x", "publish_date": day}]}]}

    def test_two_years_at_least(self):
        figure = self.caption([self.record("2021-12-22")])  # 721 days past T
        self.assertIn("the open last one through day 730: the largest day seen, 721, or two years if later", figure.caption)
        self.assertIn('>730</text>', figure.body)  # the last tick is the last day drawn, as the caption says
        self.assertNotIn('>731</text>', figure.body)

    def test_beyond_two_years_the_largest_day(self):
        figure = self.caption([self.record("2022-06-19")])  # 900 days past T
        self.assertIn("through day 900: the largest day seen, 900,", figure.caption)
        self.assertIn('>900</text>', figure.body)
        self.assertNotIn('>901</text>', figure.body)
        # the open bin is drawn to the axis's end (half a pixel in), the end of day 900
        axis_end = max(float(x) for x in re.findall(r'<path class="axis" d="M[\d.]+ [\d.]+H([\d.]+)"', figure.body))
        bar_end = float(re.findall(r'<path class="bar horizon" d="M[\d.]+ [\d.]+H([\d.]+)V', figure.body)[-1])
        self.assertAlmostEqual(bar_end, axis_end - 0.5, places=2)


class NoInstall(unittest.TestCase):
    """README, "Try it": `python -m anachron demo` with no install; its next step must run the same way."""

    def test_demo_names_a_compare_command_that_runs_without_an_install(self):
        import os
        import subprocess
        import sys

        from tests.support import ROOT

        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, PYTHONPATH=str(ROOT))
            run = subprocess.run([sys.executable, "-m", "anachron", "demo", "--out", "d"], cwd=tmp, env=env,
                                 capture_output=True, text=True, timeout=120)
            self.assertEqual(run.returncode, 0, run.stderr)
            last = run.stdout.splitlines()[-1]
            self.assertEqual(last, f"Compare the modes: python -m anachron compare {Path('d', 'unrestricted.json')} "
                                   f"{Path('d', 'enforced.json')}")
            argv = last.split(": ", 1)[1].split()
            self.assertEqual(argv[:3], ["python", "-m", "anachron"])
            again = subprocess.run([sys.executable, *argv[1:], "--resamples", "200"], cwd=tmp, env=env,
                                   capture_output=True, text=True, timeout=120)
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assertTrue(again.stdout.startswith("Paired mode comparison (n=27)"), again.stdout)

    def test_installed_the_console_script_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            status, out, err = run_cli("demo", "--out", str(Path(tmp, "d")))
            self.assertEqual(status, 0, err)
            self.assertTrue(out.splitlines()[-1].startswith("Compare the modes: anachron-compare "), out)


class PlainMessage(unittest.TestCase):
    """An SDK's terminal markup never reaches our one line (anachron.bank.model_judge.plain_message)."""

    def test_style_tags_go_and_brackets_stay(self):
        from anachron.bank.model_judge import plain_message

        cases = {
            "ERROR: Unable to initialise\n  No [bold][blue]OPENAI_API_KEY[/blue][/bold] defined": "Unable to initialise No OPENAI_API_KEY defined",
            "leak rate [0.0%, 8.8%] of [bold red]40[/bold red]": "leak rate [0.0%, 8.8%] of 40",
            "a list [a, b] and [link]": "a list [a, b] and [link]",
            "": "",
        }
        for text, plain in cases.items():
            with self.subTest(text=text):
                self.assertEqual(plain_message(ValueError(text)), plain)
        self.assertEqual(len(plain_message(ValueError("x" * 1000))), 300)


class SealColumn(unittest.TestCase):
    """The sample table has a seal column only where an audit ran (as the summary has its seal row)."""

    def test_only_where_audited(self):
        from anachron.core import load_corpus_dir, parse_traces, score_traces
        from anachron.output.html.tables import sample_table

        corpus = load_corpus_dir()
        trace = {"sample_id": "s", "as_of": "2023-06-01", "interactions": [
            {"tool": "search", "query": "q", "returned": []}, {"tool": "WebSearch", "query": "q", "returned": []}]}
        parsed = parse_traces([("t:1", trace)], corpus)
        for sealed, shown in ((None, False), ({"search"}, True)):
            with self.subTest(sealed=sealed):
                [result] = score_traces(parsed, corpus, sealed_tools=sealed)
                parser = _Rows()
                parser.feed(sample_table([result]))
                head, row = parser.rows
                names = [cell[2] for cell in head]
                self.assertEqual("seal" in names, shown)
                self.assertEqual(len(head), len(row))  # every row has the header's cells
                if shown:
                    self.assertEqual(row[names.index("seal")][2], "1")  # WebSearch is outside the lock


class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self._row = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._row.append([tag, dict(attrs), ""])

    def handle_data(self, data):
        if self._row:
            self._row[-1][2] += data

    def handle_endtag(self, tag):
        if tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None


class ComparisonTable(unittest.TestCase):
    def test_a_warning_spans_the_value_and_over_columns(self):
        c = compare_modes({"a": 1.0, "b": 0.0}, {"a": 0.0, "b": 0.0}, n_resamples=200)
        self.assertTrue(c.warnings)
        parser = _Rows()
        parser.feed(comparison_table(c))
        warnings = [row for row in parser.rows if row[0][2] == "warning"]
        self.assertEqual([row[1][2] for row in warnings], list(c.warnings))
        for row in warnings:
            self.assertEqual(len(row), 2)
            self.assertEqual(row[1][1].get("colspan"), "2")
        # a figure keeps its "over" cell, short or long
        figures = [row for row in parser.rows if row[0][0] == "th" and row[0][1].get("scope") == "row" and row[0][2] != "warning"]
        self.assertTrue(figures)
        for row in figures:
            self.assertEqual(len(row), 3, row)


class DocCommands(unittest.TestCase):
    """tests/project/doc_commands.py: the commands a reader of a shell block would type."""

    def texts(self, body: str) -> list[str]:
        return [c.text for c in block_commands(body, "x.md", 1)]

    def test_the_readme_s_two_main_commands_are_found(self):
        texts = [c.text for c in file_commands(ROOT / "README.md")]
        self.assertIn("python -m anachron demo", texts)
        self.assertIn("python -m unittest discover -s tests", texts)

    def test_a_console_block_runs_only_its_prompted_lines(self):
        self.assertEqual(self.texts("$ anachron demo\nwrote demo/\n$ anachron score x.jsonl\n"),
                         ["anachron demo", "anachron score x.jsonl"])

    def test_a_continuation_joins_the_next_line(self):
        body = "A=1 \\\n  anachron run \\\n    --out x   # why\nanachron score x\n"
        self.assertEqual(self.texts(body), ["A=1 anachron run --out x", "anachron score x"])
        self.assertEqual([c.line for c in block_commands(body, "x.md", 10)], [10, 13])

    def test_comments_are_prose_but_a_quoted_hash_stays(self):
        body = "# a note\nanachron bank run --system respect   # the oracle\necho 'a # b' x#y\n"
        self.assertEqual(self.texts(body), ["anachron bank run --system respect", "echo 'a # b' x#y"])

    def test_only_shell_blocks_are_read(self):
        with tempfile.TemporaryDirectory() as tmp:
            page = Path(tmp, "docs", "p.md")
            page.parent.mkdir()
            page.write_text("```\nanachron synopsis LOG|DIR\n```\n\n```json\n{}\n```\n\n"
                            "```console\n$ anachron demo\n```\n\n```bash\nanachron report r.jsonl\n```\n", encoding="utf-8")
            found = file_commands(page, root=Path(tmp))
        self.assertEqual([(c.where(), c.text) for c in found],
                         [("docs/p.md:10", "anachron demo"), ("docs/p.md:14", "anachron report r.jsonl")])
