"""``anachron outcomes``, the command: same inputs same bytes, the outputs (--out, --html) written as one set and
never over an input, the table and the figures split by badge, and the README example."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import tempfile
import unittest
from pathlib import Path

from tests.outcome_fixtures import OutcomesCase, jsonl, score_doc
from tests.support import ROOT, run_cli


class OutcomesCliTest(OutcomesCase):
    def test_same_input_same_bytes(self):
        for form in ("json", "table"):
            with self.subTest(form):
                one = self.outcomes(self.pred, self.res, "--format", form)
                self.assertEqual(one[0], 0, one[2])
                self.assertEqual(one, self.outcomes(self.pred, self.res, "--format", form))

    def test_html_is_deterministic(self):
        one, two = str(self.files.root / "1.html"), str(self.files.root / "2.html")
        self.assertEqual(self.outcomes(self.pred, self.res, "--html", one)[0], 0)
        self.assertEqual(self.outcomes(self.pred, self.res, "--html", two)[0], 0)
        self.assertEqual(Path(one).read_bytes(), Path(two).read_bytes())

    def test_badges_split_the_table_and_the_figures(self):
        other = self.files.write("b.jsonl", jsonl([{"sample_id": s, "probability": 0.5, "model": "m-b"} for s in ("s1", "s2", "s3")]))
        cut = self.files.write("cut.json", json.dumps({
            "m-a": {"training_cutoff": "2023-01-01", "release_date": "2023-06-01"},
            "m-b": {"training_cutoff": "2024-01-01", "release_date": "2024-06-01"},
        }))
        html = str(self.files.root / "out.html")
        scores = self.files.write("s.json", score_doc({s: {} for s in ("s1", "s2", "s3")}))
        code, out, err = self.outcomes(self.pred, other, self.res, "--model-cutoffs", cut, "--scores", scores, "--html", html)
        self.assertEqual(code, 0, err)
        pre, web = out.index("[pre-event model]"), out.index("[web-locked only]")
        self.assertLess(out.index("m-a", pre), web)
        self.assertGreater(out.index("m-b", web), web)
        page = Path(html).read_text(encoding="utf-8")
        self.assertIn("Content-Security-Policy", page)
        figures = re.findall(r'<svg[^>]*aria-label="([^"]*)"', page)
        for label in figures:
            self.assertFalse("pre-event" in label and "web-locked" in label, label)
        self.assertIn("Brier by model (pre-event model)", figures)
        self.assertIn("Brier by model (web-locked only)", figures)
        self.assertIn("reliability of m-a (pre-event model)", figures)
        self.assertEqual(oct(os.stat(html).st_mode & 0o777), oct(0o666 & ~_umask()))

    def test_small_n_warns_as_compare_does(self):
        report = self.report(self.pred, self.res)
        self.assertEqual(report["models"][0]["warnings"], ["n = 3 is below 30: the interval's coverage is approximate"])
        self.assertIn("  warning: n = 3 is below 30", self.outcomes(self.pred, self.res)[1])

    def test_out_and_bad_options(self):
        target = str(self.files.root / "report.txt")
        code, out, _ = self.outcomes(self.pred, self.res, "--out", target)
        self.assertEqual((code, out), (0, ""))
        self.assertIn("Forecast outcomes", Path(target).read_text(encoding="utf-8"))
        code, _, err = self.outcomes(self.pred, self.res, "--out", self.res)
        self.assertEqual(code, 2)
        self.assertIn("names an input", err)
        code, _, err = run_cli("outcomes", self.pred, self.res, "--resamples", "5")
        self.assertEqual(code, 2)
        self.assertIn("--resamples must be at least", err)
        code, _, err = run_cli("outcomes", self.pred)
        self.assertEqual(code, 2)

    def test_outputs_written_as_a_set_and_never_over_an_input(self):
        # A directory in the way of --out leaves --html unwritten too (nothing written on bad input).
        html, folder = self.files.root / "r.html", self.files.root / "folder"
        folder.mkdir()
        code, out, err = self.outcomes(self.pred, self.res, "--html", str(html), "--out", str(folder))
        self.assertEqual((code, out), (2, ""))
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("is a directory", err)
        self.assertFalse(html.exists())
        self.assertEqual(list(self.files.root.glob(".*.tmp")), [])
        code, out, err = self.outcomes(self.pred, self.res, "--html", str(folder))
        self.assertEqual((code, out), (2, ""))
        # --scores MODEL=FILE names an input all the same: --out over it is refused, the file kept.
        scores = self.files.write("s.json", score_doc({s: {} for s in ("s1", "s2", "s3")}))
        before = Path(scores).read_bytes()
        for option in ("--out", "--html"):
            with self.subTest(option):
                code, out, err = self.outcomes(self.pred, self.res, "--scores", f"m-a={scores}", option, scores)
                self.assertEqual((code, out), (2, ""))
                self.assertIn("names an input", err)
                self.assertEqual(Path(scores).read_bytes(), before)
        same = str(self.files.root / "same.txt")
        code, out, err = self.outcomes(self.pred, self.res, "--out", same, "--html", same)
        self.assertEqual((code, out), (2, ""))
        self.assertIn("name", err)
        self.assertFalse(os.path.exists(same))
        # Both written, with normal modes, when all is well.
        target = self.files.root / "t.txt"
        code, out, err = self.outcomes(self.pred, self.res, "--out", str(target), "--html", str(html))
        self.assertEqual((code, out), (0, ""), err)
        self.assertIn("Forecast outcomes", target.read_text(encoding="utf-8"))
        self.assertIn("<html", html.read_text(encoding="utf-8"))
        self.assertEqual(oct(os.stat(target).st_mode & 0o777), oct(0o666 & ~_umask()))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class ReadmeExampleTest(unittest.TestCase):
    """The README's outcomes example runs as written and prints the table it shows."""

    def test_readme_commands(self):
        text = (ROOT / "README.md").read_text(encoding="utf-8")
        block = text.split("<!-- outcomes-example -->", 1)[1].split("<!-- /outcomes-example -->", 1)[0]
        commands = re.findall(r"^\$ (.+)$", block, re.M)
        shown = re.search(r"```text\n(.*?)```", block, re.S).group(1)
        self.assertTrue(commands)
        with tempfile.TemporaryDirectory() as tmp, _cwd(tmp):
            os.symlink(ROOT / "examples", Path(tmp) / "examples")
            out = ""
            for command in commands:
                argv = shlex.split(command)
                self.assertEqual(argv[0], "anachron", command)
                code, out, err = run_cli(*argv[1:])
                self.assertEqual(code, 0, f"{command}: {err}")
            self.assertTrue((Path(tmp) / "outcomes-demo" / "outcomes.html").exists())
        self.assertEqual(out, shown)


@contextlib.contextmanager
def _cwd(path: str):
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


if __name__ == "__main__":
    unittest.main()
