"""``anachron outcomes --html`` and ``--figures``: the reliability diagram, the per-badge figures, the set of
standalone SVGs, determinism, hostile names, and (where Chromium is installed; CI installs it) the page and
one standalone figure rendered by a real browser.

Expected bins come from the inputs, binned here by the documented rule (ten equal bins, an edge in the bin
above it, 1.0 in the last) with the core's Wilson interval; the page must draw them, never compute others.
"""

import json
import os
import re
import tempfile
import unittest
from pathlib import Path
from xml.etree import ElementTree

from anachron.core.stats import wilson_interval
from anachron.output.html import svg
from anachron.output.html.forecasts import reliability_figure
from tests.html_support import parse, rect, title_of
from tests.outcome_fixtures import score_doc
from tests.support import run_cli

IDS = [f"s{k:02d}" for k in range(1, 41)]
HOSTILE = 'm</script><script>alert(1)</script>\u2028"\'&<b>'


def jsonl(rows):
    return "".join(json.dumps(r) + "\n" for r in rows)


def probability(k, model):
    """A spread of forecasts over [0, 1], both bin edges and 1.0 among them."""
    return [0.0, 0.1, 0.25, 0.3, 0.45, 0.5, 0.62, 0.7, 0.88, 1.0][(k * (3 if model == "m-pre" else 7)) % 10]


def outcome(k):
    return 1 if (k * 5) % 7 < 3 else 0


def expected_bins(pairs):
    """``[(n, mean forecast, observed, ci_low, ci_high)]`` per bin of the documented rule."""
    bins = [[] for _ in range(10)]
    for p, hit in pairs:
        bins[min(int(p * 10), 9)].append((p, hit))
    out = []
    for members in bins:
        n = len(members)
        if not n:
            out.append((0, None, None, None, None))
            continue
        hits = sum(h for _, h in members)
        low, high = wilson_interval(hits, n)
        out.append((n, sum(p for p, _ in members) / n, hits / n, low, high))
    return out


class Inputs:
    """Two models, one per badge, over 40 resolved samples, with leakage scores (some leaked, some unverified)."""

    def __init__(self, root: Path, models=("m-pre", "m-web")):
        self.root = root
        self.models = models
        self.forecasts = []
        for model in models:
            path = root / f"{re.sub(r'[^a-z-]', '', model) or 'hostile'}.jsonl"
            path.write_text(jsonl([{"sample_id": s, "probability": probability(k, model), "model": model}
                                   for k, s in enumerate(IDS, start=1)]), encoding="utf-8")
            self.forecasts.append(str(path))
        self.resolutions = root / "res.jsonl"
        self.resolutions.write_text(jsonl([{"sample_id": s, "resolved_to": outcome(k), "resolution_date": "2024-03-01"}
                                           for k, s in enumerate(IDS, start=1)]), encoding="utf-8")
        self.cutoffs = root / "cutoffs.json"
        self.cutoffs.write_text(json.dumps({
            models[0]: {"training_cutoff": "2023-01-01", "release_date": "2023-06-01"},  # before the events: pre-event
            models[1]: {"training_cutoff": "2024-01-01", "release_date": "2024-06-01"},
        }), encoding="utf-8")
        self.scores = root / "scores.json"
        fields = {s: ({"result_leaks": 1} if k % 4 == 0 else {"undated": 1} if k % 9 == 0 else {})
                  for k, s in enumerate(IDS, start=1)}
        self.scores.write_text(score_doc(fields), encoding="utf-8")

    def argv(self, *extra):
        return [*self.forecasts, str(self.resolutions), "--scores", str(self.scores), "--model-cutoffs", str(self.cutoffs),
                "--resamples", "200", *map(str, extra)]

    def pairs(self, model):
        return [(probability(k, model), outcome(k)) for k in range(1, len(IDS) + 1)]


def sourced_scores(root):
    """Leakage scores whose leaks are answer leaks, retrieved for some samples and parametric for others."""
    path = root / "sourced.json"
    fields = {s: ({"answer_leaks_retrieved": 1} if k % 5 == 0 else {"answer_leaks_parametric": 1} if k % 7 == 0 else {})
              for k, s in enumerate(IDS, start=1)}
    path.write_text(score_doc(fields), encoding="utf-8")
    return path, fields


def outcomes(*argv):
    return run_cli("outcomes", *argv)


def outcomes_html_figure(bins, samples=10):
    """The reliability diagram of *bins* as the page writes it inline."""
    return reliability_figure("f", "m", "web-locked only", bins, samples=samples).html()


def axes(fig):
    """(left, right, top, base) of the reliability plot: its floor (the first horizontal axis) and its left axis."""
    left, right = fig.axis_span()
    for e in fig.marks("axis"):
        m = re.fullmatch(r"M([\d.]+) ([\d.]+)V([\d.]+)", e[1]["d"])
        if m and float(m.group(1)) == left:
            return left, right, float(m.group(2)), float(m.group(3))
    raise AssertionError(f"{fig.name}: no y axis")


class OutcomesPage(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = Path(self.tmp.name)
        self.inputs = Inputs(self.dir)

    def page(self, *extra, inputs=None):
        out = self.dir / "out.html"
        status, stdout, err = outcomes(*(inputs or self.inputs).argv("--html", out, *extra))
        self.assertEqual(status, 0, err)
        return out.read_text(encoding="utf-8")

    def report(self):
        status, stdout, err = outcomes(*self.inputs.argv("--format", "json"))
        self.assertEqual(status, 0, err)
        return json.loads(stdout)

    def test_one_figure_set_per_badge_never_mixed(self):
        page = parse(self.page())
        self.assertEqual(list(page.figures), [
            "pre-event-brier", "pre-event-inflation", "pre-event-reliability-1-m-pre",
            "web-locked-brier", "web-locked-inflation", "web-locked-reliability-1-m-web"])
        for name, fig in page.figures.items():
            labels = " ".join(fig.row_labels() + [fig.caption])
            with self.subTest(figure=name):
                mine, other = ("m-pre", "m-web") if name.startswith("pre-event") else ("m-web", "m-pre")
                self.assertIn(mine, labels)
                self.assertNotIn(other, labels)  # the other badge's model is in none of this badge's figures
        text = self.page()
        labels = re.findall(r'<svg[^>]*aria-label="([^"]*)"', text)
        self.assertIn("reliability of m-pre (pre-event model)", labels)
        self.assertIn("Brier by model (web-locked only)", labels)
        for label in labels:
            self.assertFalse("pre-event" in label and "web-locked" in label, label)

    def test_the_reliability_diagram_draws_the_bins(self):
        page = parse(self.page())
        report = self.report()
        for model, name in (("m-pre", "pre-event-reliability-1-m-pre"), ("m-web", "web-locked-reliability-1-m-web")):
            fig = page.figures[name]
            bins = expected_bins(self.inputs.pairs(model))
            shown = [b for b in bins if b[0]]
            with self.subTest(model=model):
                self.assertEqual(fig.texts("label"), ["observed frequency", "count", "mean forecast (probability)"])
                left, right, top, base = axes(fig)
                self.assertAlmostEqual(right - left, base - top, places=1)  # square: the diagonal at 45 degrees
                [diagonal] = fig.marks("ref diagonal")
                self.assertEqual(diagonal[1]["d"], f"M{left:.2f} {base:.2f}L{right:.2f} {top:.2f}")
                points = fig.marks("point", "circle")
                self.assertEqual(len(points), len(shown))
                for (n, mean, observed, low, high), point in zip(shown, points):
                    self.assertAlmostEqual(float(point[1]["cx"]), left + mean * (right - left), places=1)
                    self.assertAlmostEqual(float(point[1]["cy"]), base - observed * (base - top), places=1)
                    self.assertIn(f"n = {n}, mean forecast {mean:.3f}, observed {observed:.3f}, "
                                  f"95% Wilson score interval [{low:.3f}, {high:.3f}]", title_of(point))
                whiskers = fig.marks("ci")
                self.assertEqual(len(whiskers), len(shown))
                for (n, mean, observed, low, high), whisker in zip(shown, whiskers):
                    m = re.match(r"M([\d.]+) ([\d.]+)V([\d.]+)", whisker[1]["d"])
                    self.assertAlmostEqual(float(m.group(2)), base - low * (base - top), places=1)
                    self.assertAlmostEqual(float(m.group(3)), base - high * (base - top), places=1)
                # the counts: one bar per non-empty bin, drawn to its bin's width, its n above it
                bars = fig.marks("bar hist")
                self.assertEqual(len(bars), len(shown))
                self.assertEqual(fig.texts("count"), [str(b[0]) for b in shown])
                edges = [k / 10 for k, b in enumerate(bins) if b[0]]
                for edge, bar in zip(edges, bars):
                    x0, x1, _, _ = rect(bar)
                    self.assertAlmostEqual(x0, left + edge * (right - left) + 1, places=1)
                    self.assertAlmostEqual(x1 - x0, (right - left) / 10 - 2, places=1)
                heights = [rect(bar)[3] - rect(bar)[2] for bar in bars]
                for b, h in zip(shown, heights):
                    self.assertAlmostEqual(h / max(heights), b[0] / max(s[0] for s in shown), places=2)
                self.assertIn(f"n = {len(IDS)} forecasts", fig.caption)
                self.assertIn("10 equal-width bins", fig.caption)
                self.assertIn("95% Wilson score interval", fig.caption)
                empty = sum(1 for b in bins if not b[0])
                if empty:
                    self.assertIn(f"{empty} bin{'s' if empty != 1 else ''} without a forecast", fig.caption)
            # the table beside it: the same bins, from the same report
            entry = next(m for m in report["models"] if m["model"] == model)
            self.assertEqual([b["n"] for b in entry["reliability"]], [b[0] for b in bins])

    def test_the_reliability_table(self):
        page = parse(self.page())
        bins = expected_bins(self.inputs.pairs("m-pre"))
        i = page.cells.index("forecast bin")
        self.assertEqual(page.cells[i : i + 5], ["forecast bin", "n", "mean forecast", "observed frequency", "95% Wilson CI"])
        cells = page.cells[i + 5:]
        for k, (n, mean, observed, low, high) in enumerate(bins):
            row_label = f"[{k / 10:.1f}, {(k + 1) / 10:.1f}{']' if k == 9 else ')'}"
            j = cells.index(row_label)
            if n:
                self.assertEqual(cells[j : j + 5], [row_label, str(n), f"{mean:.3f}", f"{observed:.3f}", f"[{low:.3f}, {high:.3f}]"])
            else:
                self.assertEqual(cells[j : j + 3], [row_label, "0", "no forecast"])

    def test_brier_and_inflation_figures_draw_the_report(self):
        page = parse(self.page())
        report = self.report()
        for model, slug in (("m-pre", "pre-event"), ("m-web", "web-locked")):
            entry = next(m for m in report["models"] if m["model"] == model)
            with self.subTest(model=model):
                brier = page.figures[f"{slug}-brier"]
                self.assertEqual(brier.row_labels(), [f"{model} (n={entry['n']})"])
                b = entry["brier"]
                self.assertEqual([title_of(m) for m in brier.marks("ci")],
                                 [f"{model} (n={entry['n']}): {b['value']:.3f} [{b['ci_low']:.3f}, {b['ci_high']:.3f}]"])
                self.assertIn("percentile-bootstrap CI", brier.caption)
                self.assertIn("200 resamples, seed 0", brier.caption)
                split = page.figures[f"{slug}-inflation"]
                s = entry["leak_split"]
                self.assertEqual(split.row_labels(), [
                    f"{model}: clean n={s['clean']['n']}", f"{model}: leaked n={s['leaked']['n']}",
                    f"{model}: unverified n={s['unverified']['n']}", f"{model} (n={entry['n']})"])
                self.assertTrue(s["clean"]["n"] and s["leaked"]["n"] and s["unverified"]["n"])
                inflation = s["inflation"]
                self.assertIn(f"{model} (n={entry['n']}): {inflation['value']:.3f} [{inflation['ci_low']:.3f}, "
                              f"{inflation['ci_high']:.3f}]", [title_of(m) for m in split.marks("ci")])
                self.assertEqual(len(split.marks("ref zero")), 1 if inflation["ci_low"] < 0 < inflation["ci_high"] else 0)
                self.assertIn("paired 95% percentile-bootstrap CI", split.caption)
                self.assertEqual(split.texts("label"), ["Brier score by leak class (lower is better)",
                                                        "leak inflation (Brier over all minus over clean)"])

    def test_without_scores_no_split_figure(self):
        out = self.dir / "plain.html"
        status, _, err = outcomes(*self.inputs.forecasts, str(self.inputs.resolutions), "--resamples", "200", "--html", str(out))
        self.assertEqual(status, 0, err)
        page = parse(out.read_text(encoding="utf-8"))
        # no cutoff table: nothing shows either model predates the events, so both are web-locked, ranked together
        status, stdout, _ = outcomes(*self.inputs.forecasts, str(self.inputs.resolutions), "--resamples", "200", "--format", "json")
        ranked = sorted(json.loads(stdout)["models"], key=lambda m: m["brier"]["value"])
        self.assertEqual(list(page.figures), ["web-locked-brier"] + [
            f"web-locked-reliability-{k}-{m['model']}" for k, m in enumerate(ranked, start=1)])
        self.assertEqual(len(page.figures["web-locked-brier"].row_labels()), 2)

    def test_the_split_by_answer_leak_source(self):
        sourced, fields = sourced_scores(self.dir)
        argv = [*self.inputs.forecasts, str(self.inputs.resolutions), "--scores", str(sourced), "--model-cutoffs",
                str(self.inputs.cutoffs), "--resamples", "200"]
        status, stdout, err = outcomes(*argv, "--format", "json")
        self.assertEqual(status, 0, err)
        entry = next(m for m in json.loads(stdout)["models"] if m["model"] == "m-pre")
        out = self.dir / "sourced.html"
        self.assertEqual(outcomes(*argv, "--html", str(out))[0], 0)
        fig = parse(out.read_text(encoding="utf-8")).figures["pre-event-inflation"]
        by = entry["leak_split"]["by_source"]
        retrieved = sum(1 for f in fields.values() if "answer_leaks_retrieved" in f)
        parametric = sum(1 for f in fields.values() if "answer_leaks_parametric" in f)
        self.assertEqual((by["retrieved"]["brier"]["n"], by["parametric"]["brier"]["n"]), (retrieved, parametric))
        leaked = retrieved + parametric
        self.assertEqual(fig.row_labels(), [
            f"m-pre: clean n={40 - leaked}", f"m-pre: leaked n={leaked}", f"m-pre: retrieved n={retrieved}",
            f"m-pre: parametric n={parametric}",
            "m-pre (n=40)", f"m-pre: retrieved (n={by['retrieved']['inflation']['n']})",
            f"m-pre: parametric (n={by['parametric']['inflation']['n']})"])
        iv = by["parametric"]["inflation"]
        self.assertIn(f"m-pre: parametric (n={iv['n']}): {iv['value']:.3f} [{iv['ci_low']:.3f}, {iv['ci_high']:.3f}]",
                      [title_of(m) for m in fig.marks("ci")])
        self.assertEqual(len(fig.marks("point open")), 4)  # each source's Brier and its inflation
        self.assertIn("Open circles:", fig.caption)

    def test_no_clean_sample_no_inflation(self):
        leaky = self.dir / "leaky.json"
        leaky.write_text(score_doc({s: {"result_leaks": 1} for s in IDS}), encoding="utf-8")
        out = self.dir / "leaky.html"
        status, _, err = outcomes(*self.inputs.forecasts, str(self.inputs.resolutions), "--scores", str(leaky),
                                  "--model-cutoffs", str(self.inputs.cutoffs), "--resamples", "200", "--html", str(out))
        self.assertEqual(status, 0, err)
        fig = parse(out.read_text(encoding="utf-8")).figures["pre-event-inflation"]
        self.assertEqual(fig.row_labels(), ["m-pre: clean n=0", "m-pre: leaked n=40", "m-pre (n=40)"])
        self.assertEqual(fig.texts("tick").count("n/a"), 2)  # said, not drawn at 0
        self.assertEqual(len(fig.marks("ci")), 1)  # the leaked samples' Brier only
        self.assertIn("No clean sample, no inflation (n/a): m-pre.", fig.caption)

    def test_large_counts_are_abbreviated_to_fit_their_bin(self):
        bins = [{"low": k / 10, "high": (k + 1) / 10, "n": n, "mean_forecast": k / 10 + 0.05, "observed": 0.5,
                 "ci_low": 0.49, "ci_high": 0.51} for k, n in enumerate([1234567, 234567, 34567, 4567, 567, 67, 7, 0, 0, 1])]
        fig = parse(outcomes_html_figure(bins)).figures["f"]
        self.assertEqual(fig.texts("count"), ["1.2M", "235k", "35k", "4567", "567", "67", "7", "1"])
        self.assertEqual(len(fig.marks("bar hist")), 8)
        self.assertIn(f"n = {sum(b['n'] for b in bins)} forecasts over its 10 resolved samples (a categorical forecast "
                      "gives one per option)", fig.caption)
        self.assertIn("2 bins without a forecast draw nothing", fig.caption)
        self.assertEqual([title_of(bar) for bar in fig.marks("bar hist")][0], "forecasts in [0.0, 0.1): n = 1234567")

    def test_categorical_forecasts_count_one_probability_per_option(self):
        pred = self.dir / "cat.jsonl"
        pred.write_text(jsonl([{"sample_id": f"c{k}", "probabilities": {"x": 0.5, "y": 0.3, "z": 0.2}} for k in range(3)]))
        res = self.dir / "cat-res.jsonl"
        res.write_text(jsonl([{"sample_id": f"c{k}", "resolved_to": "xyz"[k]} for k in range(3)]))
        out = self.dir / "cat.html"
        status, _, err = outcomes(str(pred), str(res), "--resamples", "200", "--html", str(out))
        self.assertEqual(status, 0, err)
        [fig] = [f for n, f in parse(out.read_text(encoding="utf-8")).figures.items() if "reliability" in n]
        self.assertIn("n = 9 forecasts over its 3 resolved samples (a categorical forecast gives one per option)", fig.caption)
        self.assertEqual(fig.texts("count"), ["3", "3", "3"])  # 0.2, 0.3 and 0.5: three bins of three

    def test_same_inputs_same_bytes_self_contained(self):
        one, two = self.page(), self.page()
        self.assertEqual(one, two)
        page = parse(one)
        self.assertEqual(page.fetching, [])
        self.assertEqual(page.scripts, 0)
        csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', one).group(1)
        self.assertTrue(csp.startswith("default-src 'none'; "), csp)
        self.assertIn("svg.plot .bar.hist", one)  # the figures' theme is on the page

    def test_hostile_model_name(self):
        (self.dir / "h").mkdir()
        inputs = Inputs(self.dir / "h", models=(HOSTILE, "m-web"))
        text = self.page(inputs=inputs)
        self.assertEqual(text.count("<script"), 0)
        self.assertNotIn("\u2028", text)
        page = parse(text)
        names = list(page.figures)
        self.assertIn("pre-event-reliability-1-m-script-script-alert-1-script-b", names)
        fig = page.figures["pre-event-brier"]
        self.assertEqual(fig.row_labels(), [svg.clip(f"{HOSTILE} (n=40)", 270 - 12)])
        figs = self.dir / "hostile-figs"
        status, _, err = outcomes(*inputs.argv("--figures", figs))
        self.assertEqual(status, 0, err)
        for path in figs.iterdir():
            self.assertRegex(path.name, r"^[a-z0-9-]+\.(svg|json)$")
            if path.suffix == ".svg":
                ElementTree.fromstring(path.read_text(encoding="utf-8"))  # well-formed, whatever the name held


class FiguresDir(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = Path(self.tmp.name)
        self.inputs = Inputs(self.dir)

    def test_the_set_is_the_page_figures_standalone(self):
        figs, html = self.dir / "figs", self.dir / "page.html"
        status, stdout, err = outcomes(*self.inputs.argv("--figures", figs, "--html", html))
        self.assertEqual((status, err), (0, ""), err)
        self.assertTrue(stdout.startswith("Forecast outcomes"))  # the table, as without --figures
        page = parse(html.read_text(encoding="utf-8"))
        manifest = json.loads((figs / "figures.json").read_text(encoding="utf-8"))
        self.assertEqual([e["file"] for e in manifest["figures"]], [f"{name}.svg" for name in page.figures])
        self.assertEqual(sorted(p.name for p in figs.iterdir()), sorted([e["file"] for e in manifest["figures"]] + ["figures.json"]))
        for entry in manifest["figures"]:
            with self.subTest(file=entry["file"]):
                text = (figs / entry["file"]).read_text(encoding="utf-8")
                self.assertTrue(text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg'))
                root = ElementTree.fromstring(text)
                ns = "{http://www.w3.org/2000/svg}"
                self.assertEqual(root.find(f"{ns}style").text, svg.SVG_CSS)  # the light theme travels with the file
                self.assertEqual(root.find(f"{ns}rect").get("fill"), "#fff")
                self.assertEqual(entry["caption"], page.figures[entry["file"][:-4]].caption)
                drawn = " ".join(t.text or "" for t in root.iter(f"{ns}text") if t.get("class") == "caption")
                self.assertEqual(drawn, " ".join(svg.caption_lines(entry["caption"], int(root.get("width")) - 24)))
                self.assertEqual(os.stat(figs / entry["file"]).st_mode & 0o777, 0o666 & ~current_umask())
        # the page is the same with or without the set
        again = self.dir / "again.html"
        self.assertEqual(outcomes(*self.inputs.argv("--html", again))[0], 0)
        self.assertEqual(again.read_bytes(), html.read_bytes())

    def test_same_inputs_same_set_and_a_rewrite_drops_stale_figures(self):
        figs = self.dir / "figs"
        self.assertEqual(outcomes(*self.inputs.argv("--figures", figs))[0], 0)  # --figures alone: no page needed
        first = {p.name: p.read_bytes() for p in figs.iterdir()}
        self.assertEqual(outcomes(*self.inputs.argv("--figures", figs))[0], 0)  # a set it wrote: replaced
        self.assertEqual({p.name: p.read_bytes() for p in figs.iterdir()}, first)
        # without the scores: no inflation figures, and the previous set's are removed
        status, _, err = outcomes(*self.inputs.forecasts, str(self.inputs.resolutions), "--model-cutoffs",
                                  str(self.inputs.cutoffs), "--resamples", "200", "--figures", str(figs))
        self.assertEqual(status, 0, err)
        names = sorted(p.name for p in figs.iterdir())
        self.assertEqual(names, sorted(["figures.json", "pre-event-brier.svg", "pre-event-reliability-1-m-pre.svg",
                                        "web-locked-brier.svg", "web-locked-reliability-1-m-web.svg"]))

    def test_a_directory_it_did_not_write_is_refused(self):
        foreign = self.dir / "paper"
        foreign.mkdir()
        (foreign / "notes.txt").write_text("mine")
        html = self.dir / "page.html"
        status, stdout, err = outcomes(*self.inputs.argv("--figures", foreign, "--html", html))
        self.assertEqual(status, 2)
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn("not empty and not a set of figures this command wrote", err)
        self.assertEqual(sorted(os.listdir(foreign)), ["notes.txt"])
        self.assertFalse(html.exists())  # nothing of the set written
        status, _, err = outcomes(*self.inputs.argv("--figures", self.inputs.resolutions))
        self.assertEqual(status, 2)
        self.assertIn("names an input", err)
        status, _, err = outcomes(*self.inputs.argv("--figures", self.dir))  # the inputs' own directory
        self.assertEqual(status, 2)
        self.assertEqual(err.count("\n"), 1, err)


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask




if __name__ == "__main__":
    unittest.main()
