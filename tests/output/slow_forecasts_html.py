"""The slow tests beside test_forecasts_html.py, whose docstring states the rules they hold: OutcomesChromium.

They start processes, browsers or servers, or build large inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

import json
import unittest
from anachron.output.html import svg
from anachron.output.html.forecasts import reliability_figure
from anachron.output.html.page import content_security_policy
from tests.html_support import BrowserCase, png_pixels
from tests.output.test_forecasts_html import Inputs, outcomes, sourced_scores


class OutcomesChromium(BrowserCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.inputs = Inputs(cls.dir)
        cls.page = cls.dir / "outcomes.html"
        cls.figs = cls.dir / "figs"
        status, _, err = outcomes(*cls.inputs.argv("--html", cls.page, "--figures", cls.figs))
        assert status == 0, err

    def test_every_figure_passes_the_geometry_checks(self):
        for window in ("1200,1100", "2400,1100"):
            with self.subTest(window=window):
                out = self.probe(self.page, window=window)
                self.assertEqual([f["name"] for f in out["figures"]], [p[:-4] for p in (
                    e["file"] for e in json.loads((self.figs / "figures.json").read_text())["figures"])])
                self.check_geometry(out["figures"])
                self.assertEqual(out["window"][1], out["window"][0])  # nothing scrolls sideways
                for fig in out["figures"]:
                    if "reliability" in fig["name"]:
                        kinds = {m[0] for m in fig["marks"] if not m[0].endswith(" key")}
                        self.assertEqual(kinds, {"ci", "point s0", "link", "bar hist"})

    def test_the_split_by_source_passes_the_geometry_checks(self):
        scores, _ = sourced_scores(self.dir)
        page = self.dir / "sourced.html"
        status, _, err = outcomes(*self.inputs.forecasts, str(self.inputs.resolutions), "--scores", str(scores),
                                  "--model-cutoffs", str(self.inputs.cutoffs), "--resamples", "200", "--html", str(page))
        self.assertEqual(status, 0, err)
        out = self.probe(page)
        self.check_geometry([f for f in out["figures"] if f["name"].endswith("-inflation")])

    def test_a_standalone_reliability_diagram_renders_alone(self):
        [svg_file] = self.figs.glob("pre-event-reliability-*.svg")
        copy = self.dir / svg_file.name  # rendered beside the set, so the set holds only what the command wrote
        copy.write_bytes(svg_file.read_bytes())
        self.check_standalone(copy)

    def test_edge_cases_pass_the_geometry_checks(self):
        """Huge bin counts (abbreviated to fit), one bin only, every bin full: no text on text, nothing outside."""
        cases = {
            "huge": [1234567, 234567, 34567, 4567, 567, 67, 7, 0, 0, 1],
            "one": [0, 0, 0, 0, 0, 5, 0, 0, 0, 0],
            "full": [999999] * 10,
        }
        figures = []
        for name, counts in cases.items():
            bins = [{"low": k / 10, "high": (k + 1) / 10, "n": n, "mean_forecast": k / 10 + 0.05 if n else None,
                     "observed": (k % 3) / 2 if n else None, "ci_low": max((k % 3) / 2 - 0.2, 0) if n else None,
                     "ci_high": min((k % 3) / 2 + 0.2, 1) if n else None} for k, n in enumerate(counts)]
            figures.append(reliability_figure(name, "m", "pre-event model", bins, samples=sum(counts)).html())
        page = self.dir / "edges.html"
        page.write_text(f'<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" '
                        f'content="{content_security_policy("")}"><style>{svg.SVG_CSS}</style></head>'
                        f'<body>{"".join(figures)}</body></html>', encoding="utf-8")
        out = self.probe(page)
        self.assertEqual([f["name"] for f in out["figures"]], list(cases))
        self.check_geometry(out["figures"])

    def test_screenshot(self):
        shot = self.dir / "outcomes.png"
        self.run_chromium("--window-size=1200,1400", f"--screenshot={shot}", url=self.page.as_uri())
        width, height, raw = png_pixels(shot.read_bytes())
        self.assertEqual((width, height), (1200, 1400))
        self.assertGreater(len(set(raw[::97])), 16)


if __name__ == "__main__":
    unittest.main()
