"""The slow tests beside test_html_report.py, whose docstring states the rules they hold: ChromiumRender.

They start processes, browsers or servers, or build large inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

import json
import os
import re
import shutil
import unittest
from dataclasses import replace
from anachron.output.html.page import content_security_policy
from anachron.core.jsonio import dump_json
from tests.html_support import BrowserCase, png_pixels
from tests.support import ROOT, run_cli, score_json
from tests.output.test_html_report import HOSTILE_ID, demo_traces, score, write_jsonl


class ChromiumRender(BrowserCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for mode in ("unrestricted", "enforced"):
            write_jsonl(cls.dir / f"{mode}.jsonl", demo_traces(mode))
        cls.page = cls.dir / "report.html"
        here = os.getcwd()
        os.chdir(cls.dir)  # relative paths: the page (and the README's screenshot) names no temporary directory
        try:
            # The README's screenshot is the page of the README's own commands: `anachron demo`, then
            # `anachron report anachron-demo/unrestricted.jsonl anachron-demo/enforced.jsonl --out report.html`.
            status, _, err = run_cli("demo", "--out", "anachron-demo")
            assert status == 0, err
            status, _, err = run_cli("report", "anachron-demo/unrestricted.jsonl", "anachron-demo/enforced.jsonl",
                                     "--out", "report.html")
        finally:
            os.chdir(here)
        assert status == 0, err

    def with_script(self, script, *, allowed):
        """The page with *script* added before ``</body>``; with *allowed*, its hash added to the CSP."""
        text = self.page.read_text(encoding="utf-8")
        if allowed:
            body = script[len("<script>"):-len("</script>")]
            ours = re.search(r"script-src ('sha256-[^']+')", text).group(1)
            theirs = content_security_policy(body).split("script-src ")[1].split(";")[0]
            text = text.replace(f"script-src {ours}", f"script-src {ours} {theirs}")
        page = self.dir / f"probe-{allowed}.html"
        page.write_text(text.replace("</body>", script + "</body>"), encoding="utf-8")
        return page

    def test_a_script_not_named_by_the_csp_does_not_run(self):
        marker = '<script>document.body.setAttribute("data-injected", "ran");</script>'
        dom = self.run_chromium("--dump-dom", "--virtual-time-budget=5000", url=self.with_script(marker, allowed=False).as_uri())
        self.assertIn("<table", dom)
        self.assertNotIn('data-injected="ran"', dom)
        dom = self.run_chromium("--dump-dom", "--virtual-time-budget=5000", url=self.with_script(marker, allowed=True).as_uri())
        self.assertIn('data-injected="ran"', dom)  # the same script, named by its hash, runs: the probe works

    def test_the_plots_draw_and_the_table_sorts(self):
        out = self.probe(self.page)
        u = score(demo_traces("unrestricted"))
        names = [f["name"] for f in out["figures"]]
        self.assertEqual(names, ["comparison-means", "comparison-samples"]
                         + [f"run-{k}-{n}" for k in (1, 2) for n in ("tclr", "horizon", "by-slice", "by-year")])
        self.check_geometry(out["figures"])
        tclr_u = next(f for f in out["figures"] if f["name"] == "run-1-tclr")
        widths = [m[1] for m in tclr_u["marks"] if m[0] == "bar s0"]
        self.assertEqual(len(widths), sum(1 for r in u if r.tclr > 0))
        full = max(widths)
        for r, w in zip([r for r in u if r.tclr > 0], widths):
            self.assertAlmostEqual(w / full, r.tclr / max(x.tclr for x in u), places=2, msg=r.sample_id)
        # clicked twice on "TCLR": descending, the leaking samples first
        leaking = {r.sample_id for r in u if r.tclr == 1.0}
        self.assertEqual(set(out["sorted"][: len(leaking)]), leaking)
        # the table is as wide as the window (no page-wide cap), its evidence (shown) wraps, and nothing scrolls sideways
        for probed, window in ((out, 1200), (self.probe(self.page, window="2400,1100"), 2400)):
            with self.subTest(window=window):
                self.assertEqual(probed["window"][1], probed["window"][0])
                self.assertEqual(probed["scroll"][0], probed["scroll"][1])  # the table fits its box
                self.assertGreater(probed["table"][2] - probed["table"][0], window - 100)
                self.assertLessEqual(probed["table"][2], window)
                self.assertGreater(probed["evidence"][2] - probed["evidence"][0], 200)
        self.check_geometry(probed["figures"])

    def test_bank_figures_and_a_hostile_page(self):
        status, card, _ = run_cli("bank", "run", "--system", "ignore", "--format", "json")
        doc = json.loads(card)
        doc["system"] = HOSTILE_ID
        (self.dir / "card.json").write_text(dump_json(doc), encoding="utf-8")
        hostile = [{"sample_id": sample_id, "as_of": "2022-06-01", "interactions": [
            {"tool": "search", "query": "q3 2023 results", "returned": ["fin-005"]}]}
            for sample_id in (HOSTILE_ID * 3, "\u5831\u544a\u66f8-" * 12, "short")]  # wide characters take a whole em
        write_jsonl(self.dir / "hostile.jsonl", hostile)
        page = self.dir / "bank.html"
        status, _, err = run_cli("report", str(self.dir / "card.json"), str(self.dir / "hostile.jsonl"), "--out", str(page))
        self.assertEqual((status, err), (0, ""), err)
        out = self.probe(page)
        self.assertEqual([f["name"] for f in out["figures"]],
                         [f"run-1-{n}" for n in ("tclr", "horizon", "by-slice", "by-year")] + ["bank-oracles"])
        self.check_geometry(out["figures"])

    def test_many_samples_draw_in_a_fixed_height(self):
        u, e = score(demo_traces("unrestricted")), score(demo_traces("enforced"))
        for name, run in (("u", u), ("e", e)):
            many = [replace(r, sample_id=f"{r.sample_id}-{k}") for k in range(40) for r in run]  # 1,080 samples
            (self.dir / f"many-{name}.json").write_text(score_json(many), encoding="utf-8")
        page = self.dir / "many.html"
        status, _, err = run_cli("report", str(self.dir / "many-u.json"), str(self.dir / "many-e.json"), "--out", str(page),
                                 "--resamples", "1000")
        self.assertEqual((status, err), (0, ""), err)
        out = self.probe(page)
        self.check_geometry(out["figures"])
        heights = {f["name"]: f["box"][3] - f["box"][1] for f in out["figures"]}
        self.assertLess(heights["run-1-tclr"], 800)
        self.assertLess(heights["comparison-samples"], 800)

    def test_a_standalone_svg_renders_alone(self):
        figures = self.dir / "figs"
        here = os.getcwd()
        os.chdir(self.dir)
        try:
            status, _, err = run_cli("report", "unrestricted.jsonl", "enforced.jsonl", "--out", "again.html", "--figures", "figs")
        finally:
            os.chdir(here)
        self.assertEqual((status, err), (0, ""), err)
        self.check_standalone(figures / "comparison-samples.svg")

    def test_screenshot(self):
        shot = self.dir / "report.png"
        self.run_chromium("--window-size=1200,1100", f"--screenshot={shot}", url=self.page.as_uri())
        width, height, raw = png_pixels(shot.read_bytes())
        self.assertEqual((width, height), (1200, 1100))
        self.assertGreater(len(set(raw[:: 97])), 16)  # drawn, not a blank page
        if os.environ.get("ANACHRON_UPDATE_SCREENSHOT"):
            shutil.copyfile(shot, ROOT / "docs" / "report.png")


if __name__ == "__main__":
    unittest.main()
