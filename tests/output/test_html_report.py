"""``anachron report``: the self-contained HTML page, its inputs, hostile text, determinism,
and (where Chromium is installed; CI installs it) the page rendered by a real browser.

Expected figures come from the core (``score_traces``/``summarise``/``compare_modes``)
on the same inputs; the page must show them, never compute others.
"""

import json
import math
import os
import re
import tempfile
import unittest
from collections import Counter
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree

from anachron.core import compare_modes, load_corpus_dir, parse_traces, score_traces, summarise
from anachron.store import SearchEngine
from anachron.core.reference_agent import naive_trace
from anachron.output.html.page import content_security_policy
from anachron.output.html import svg
from anachron.output.html.svg import horizon_bins
from anachron.core.stats.mean import mean_interval
from anachron.core.jsonio import dump_json
from tests.html_support import parse, rect, title_of
from tests.support import run_cli, score_json

CORPUS = load_corpus_dir()
ENGINE = SearchEngine(CORPUS)
HOSTILE_ID = 'x</script><script>alert(1)</script>\u2028\udc80\x07"\'&<b>'


def demo_traces(mode):
    return [naive_trace(sample, ENGINE, mode) for sample in CORPUS.samples.values()]


def write_jsonl(path, records):
    Path(path).write_text("".join(dump_json(r, indent=None) for r in records), encoding="utf-8")


def score(records):
    return score_traces(parse_traces([(f"t:{i + 1}", r) for i, r in enumerate(records)], CORPUS), CORPUS)


def num(x):
    """A figure as the page writes it: three decimals."""
    return f"{x + 0.0:.3f}"


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


class ReportFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.u, self.e = self.dir / "unrestricted.jsonl", self.dir / "enforced.jsonl"
        write_jsonl(self.u, demo_traces("unrestricted"))
        write_jsonl(self.e, demo_traces("enforced"))

    def tearDown(self):
        self.tmp.cleanup()

    def report(self, *args):
        out = self.dir / "report.html"
        status, stdout, stderr = run_cli("report", *map(str, args), "--out", str(out))
        self.assertEqual((status, stderr), (0, ""), stderr)
        return out.read_text(encoding="utf-8")

    def test_two_runs_show_the_core_figures_the_comparison_and_its_ci(self):
        text = self.report(self.u, self.e)
        page = parse(text)
        u, e = score(demo_traces("unrestricted")), score(demo_traces("enforced"))
        cmp = compare_modes({r.sample_id: r.tclr for r in u}, {r.sample_id: r.tclr for r in e}, seed=0)
        self.assertEqual(f"{summarise(u).mean_tclr:.3f}", "0.444")
        cells = page.cells
        # the summary rows: figure, value, denominator
        i = cells.index("date-leak runs")
        self.assertEqual(cells[i : i + 3], ["date-leak runs", str(summarise(u).date_leak_runs), "27 samples"])
        i = cells.index("survivorship leaks")
        entity = sum(r.survivorship_base for r in u)
        self.assertEqual(cells[i : i + 3], ["survivorship leaks", str(summarise(u).survivorship_leaks), f"{entity} entity-bearing interactions"])
        # the comparison, with the metric, the seed and the resamples that made it
        i = cells.index("95% paired bootstrap CI")
        self.assertEqual(cells[i + 1], f"[{cmp.ci_low:+.3f}, {cmp.ci_high:+.3f}]")
        self.assertEqual(cells[i + 2], "10000 resamples, seed 0 (multinomial)")
        self.assertEqual(cells[cells.index("metric") + 1], "tclr")
        figs = page.figures
        self.assertEqual(list(figs), ["comparison-means", "comparison-samples"] + [
            f"run-{k}-{name}" for k in (1, 2) for name in ("by-slice", "by-year", "tclr", "horizon")])
        for name, fig in figs.items():
            self.assertIn(" n = ", fig.caption, name)  # every caption states n
            self.assertTrue(fig.texts("label"), name)  # every figure has an axis title

        # each run's mean with its CI, the core's interval on the same values and seed
        means = [mean_interval([r.tclr for r in run], seed=0, n_resamples=10_000) for run in (u, e)]
        means_fig = figs["comparison-means"]
        self.assertEqual(len(means_fig.marks("ci")), 3)
        self.assertEqual(means_fig.marks("ci")[2][1]["d"].count("M"), 3)  # the interval and its two whiskers
        self.assertIn(f"[{num(cmp.ci_low)}, {num(cmp.ci_high)}]", means_fig.caption)
        self.assertIn(f"{cmp.improved} pairs improved, {cmp.worsened} worsened, {cmp.tied} tied", means_fig.caption)
        self.assertEqual([title_of(m) for m in means_fig.marks("ci")[:2]],
                         [f"run {k + 1} ({mode}): {num(m.mean)} [{num(m.low)}, {num(m.high)}]"
                          for k, (mode, m) in enumerate(zip(("unrestricted", "enforced"), means))])
        tclr = figs["run-1-tclr"]
        i = cells.index("mean TCLR 95% CI")  # the table shows the interval the figure draws
        self.assertEqual(cells[i : i + 3], ["mean TCLR 95% CI", f"[{num(means[0].low)}, {num(means[0].high)}]",
                                            "27 samples; bootstrap, 10000 resamples, seed 0"])
        self.assertIn(f"mean TCLR {num(means[0].mean)}", tclr.caption)
        self.assertIn(f"CI [{num(means[0].low)}, {num(means[0].high)}] (10000 resamples, seed 0)", tclr.caption)

        # per-sample TCLR: one row per sample, named, in input order; bar widths are the TCLRs
        self.assertEqual(tclr.row_labels(), [r.sample_id for r in u])
        bars = tclr.marks("bar s0")
        self.assertEqual(len(bars), sum(1 for r in u if r.tclr > 0))
        self.assertEqual(len(tclr.marks("bar zero")), sum(1 for r in u if r.tclr == 0))
        x0, x1 = tclr.axis_span()
        for r, bar in zip([r for r in u if r.tclr > 0], bars):
            left, right, _, _ = rect(bar)
            self.assertAlmostEqual((right - left) / (x1 - x0), r.tclr, places=3, msg=r.sample_id)
        self.assertEqual([t for t in tclr.texts("legend")][:2], ["TCLR", "0 (no leak)"])
        # the enforced run leaked nothing: its axis and a sentence, no empty frame
        empty = figs["run-2-tclr"]
        self.assertEqual(empty.texts("note"), ["no leak in 27 samples (27 interactions)"])
        self.assertEqual(empty.marks("bar"), [])
        self.assertTrue(empty.marks("axis"))
        self.assertEqual(figs["run-2-horizon"].texts("note"), ["no leak in 27 samples"])

        # the paired plot: every sample, sorted by the difference, largest first (ties by run 1's value, then id)
        paired = figs["comparison-samples"]
        tclr_e = {r.sample_id: r.tclr for r in e}
        order = sorted(u, key=lambda r: (-(r.tclr - tclr_e[r.sample_id]), r.tclr, r.sample_id))
        self.assertEqual(paired.row_labels(), [r.sample_id for r in order])
        self.assertEqual(len(paired.marks("point s0", tag="circle")), 27)
        self.assertEqual(len(paired.marks("point s1 open")), 27)
        self.assertEqual(len(paired.marks("link")), cmp.improved + cmp.worsened)

        # the horizon: every post-T item counted, each bin drawn to the width of its days on a log axis, its height
        # a density (items per octave), so its area is its count
        days = [d for r in u for d in r.horizons]
        horizon = figs["run-1-horizon"]
        self.assertIn("items per octave of days", horizon.texts("label"))
        widths, areas = {}, {}
        counts = dict(horizon_bins(days))
        for bar in horizon.marks("bar horizon"):
            left, right, top, bottom = rect(bar)
            label = title_of(bar).split(" days")[0]
            widths[label] = right - left + 1.0  # each bar is inset by half a pixel each side
            areas[label] = widths[label] * (bottom - top) / counts[label]
        self.assertEqual(sorted(widths), sorted(label for label, n in horizon_bins(days) if n))
        self.assertEqual(sum(int(t) for t in horizon.texts("count")), len(days))
        self.assertEqual(len(horizon.marks("rug")), len(set(days)))
        edges = {"1-7": (1, 8), "8-31": (8, 32), "32-92": (32, 93), "93-183": (93, 184), "184-366": (184, 367)}
        spans = {k: math.log(edges[k][1] / edges[k][0]) for k in widths if k in edges}
        first = next(iter(spans))
        for label, span in spans.items():
            self.assertAlmostEqual(widths[label] / widths[first], span / spans[first], places=2, msg=label)
        self.assertGreater(len(areas), 1)
        for label, area in areas.items():  # area per item: the same for every bin
            self.assertAlmostEqual(area / areas[first], 1.0, places=2, msg=label)

        # the breakdowns: per slice (the corpus's) and per as-of year, one bar a kind of finding, its length the share
        # of the group's samples with it; every breakdown of the page on one scale
        by_slice = figs["run-1-by-slice"]
        slices = Counter(CORPUS.samples[r.sample_id].slice for r in u)
        self.assertEqual(by_slice.row_labels(), [f"{k} (n={n})" for k, n in sorted(slices.items())])
        years = Counter(r.as_of.year for r in u)
        self.assertEqual(figs["run-1-by-year"].row_labels(), [f"{k} (n={n})" for k, n in sorted(years.items())])
        kinds = (("seg result", lambda r: r.result_leaks), ("seg survivorship", lambda r: r.survivorship_leaks),
                 ("seg restatement", lambda r: r.restatement_leaks), ("seg query", lambda r: r.query_intent_leaks),
                 ("bar blocked", lambda r: r.blocked_attempts))
        breakdowns = [figs[f"run-{k}-by-{by}"] for k in (1, 2) for by in ("slice", "year")]
        self.assertEqual(len({tuple(f.texts("tick")[: -len(f.row_labels())]) for f in breakdowns}), 1)  # one set of ticks
        self.assertEqual(len({f.axis_span() for f in breakdowns}), 1)  # on one axis
        x0, x1 = by_slice.axis_span()
        hi = float(breakdowns[0].texts("tick")[-len(by_slice.row_labels()) - 1].rstrip("%")) / 100
        for fig in (by_slice, figs["run-1-by-year"]):
            for klass, count in kinds:
                marks = fig.marks(klass)
                self.assertEqual(sum(int(title_of(m).split(": ")[1].split()[0]) for m in marks),
                                 sum(1 for r in u if count(r)), (fig.name, klass))
                for m in marks:
                    k, n = re.search(r": (\d+) of (\d+) samples", title_of(m)).groups()
                    left, right, _, _ = rect(m)
                    self.assertAlmostEqual((right - left) / (x1 - x0) * hi, int(k) / int(n), places=3, msg=title_of(m))
            self.assertEqual(len(fig.texts("legend")), 5)
            self.assertIn("not added up", fig.caption)

    def test_many_samples_omit_the_ids_and_say_so(self):
        results = score(demo_traces("unrestricted"))
        many = [replace(r, sample_id=f"{r.sample_id}-{k}", slice=None) for k in range(3) for r in results]  # 81 samples, in no corpus
        path = self.dir / "many.json"
        path.write_text(score_json(many), encoding="utf-8")
        figs = parse(self.report(path)).figures
        tclr = figs["run-1-tclr"]
        labels = tclr.row_labels()  # no sample id: the rows are counted by a scale from 0 to n
        self.assertEqual((labels[0], labels[-1]), ("0", "81"))
        self.assertTrue(all(label.isdigit() for label in labels), labels)
        # one mark per distinct TCLR, titled with the samples it stands for: 81 in all, each drawn once
        marks = tclr.marks("bar s0") + tclr.marks("bar zero")
        self.assertEqual(len(marks), len({r.tclr for r in many}))
        self.assertEqual(sum(int(title_of(m).split()[0]) for m in marks), 81)
        self.assertIn("Sample ids are omitted (more than 60 samples): see the table.", tclr.caption)
        self.assertIn("sorted by TCLR, largest first", tclr.caption)
        tclrs = [round((rect(m)[1] - rect(m)[0]) / (tclr.axis_span()[1] - tclr.axis_span()[0]), 3) for m in tclr.marks("bar s0")]
        self.assertEqual(tclrs, sorted({round(r.tclr, 3) for r in many if r.tclr > 0}, reverse=True))
        counts = Counter(round(r.tclr, 3) for r in many)
        self.assertEqual([int(title_of(m).split()[0]) for m in tclr.marks("bar s0")], [counts[t] for t in tclrs])
        by_slice = figs["run-1-by-slice"]
        self.assertEqual(by_slice.row_labels(), ["slice unknown (n=81)"])
        self.assertIn("The slices are unknown", by_slice.caption)

    def test_many_pairs_draw_marks_in_proportion_to_the_samples_they_stand_for(self):
        u, e = score(demo_traces("unrestricted")), score(demo_traces("enforced"))
        for name, run in (("u", u), ("e", e)):
            many = [replace(r, sample_id=f"{r.sample_id}-{k}") for k in range(3) for r in run]  # 81 pairs
            (self.dir / f"many-{name}.json").write_text(score_json(many), encoding="utf-8")
        figs = parse(self.report(self.dir / "many-u.json", self.dir / "many-e.json", "--resamples", "200")).figures
        paired = figs["comparison-samples"]
        pairs = Counter((round(a.tclr, 6), round(b.tclr, 6)) for a, b in zip(u, e))
        strips = paired.marks("point s0")
        self.assertEqual(len(strips), len(pairs))  # one mark per distinct pair of values
        counts = [int(title_of(m).split()[0]) for m in strips]
        self.assertEqual(sorted(counts), sorted(3 * k for k in pairs.values()))
        per_sample = {(rect(m)[3] - rect(m)[2]) / k for m, k in zip(strips, counts)}
        self.assertLess(max(per_sample) - min(per_sample), 0.02, per_sample)  # height (and area) by count
        self.assertEqual(len(paired.marks("point s1 open")), len(pairs))
        labels = paired.row_labels()
        self.assertEqual((labels[0], labels[-1]), ("0", "81"))  # a scale counting the samples
        self.assertEqual(sorted(int(t) for t in paired.texts("count")), sorted(counts))  # each group's count, written
        self.assertIn("a mark's area is in proportion to the samples it stands for", paired.caption)
        self.assertNotIn("larger the more", paired.caption)

    def test_figures_dir_writes_each_figure_as_a_standalone_svg(self):
        out, figures = self.dir / "report.html", self.dir / "figs"
        status, stdout, stderr = run_cli("report", str(self.u), str(self.e), "--out", str(out), "--figures", str(figures))
        self.assertEqual((status, stderr), (0, ""), stderr)
        page = out.read_text(encoding="utf-8")
        self.assertEqual(page, self.report(self.u, self.e))  # the page is the same with or without --figures
        manifest = json.loads((figures / "figures.json").read_text(encoding="utf-8"))
        inline = parse(page).figures
        self.assertEqual([f["file"] for f in manifest["figures"]], [f"{name}.svg" for name in inline])
        self.assertEqual(sorted(os.listdir(figures)), sorted([f"{name}.svg" for name in inline] + ["figures.json"]))
        self.assertIn("10 figures", stdout)
        for entry in manifest["figures"]:
            with self.subTest(file=entry["file"]):
                path = figures / entry["file"]
                self.assertEqual(path.stat().st_mode & 0o777, 0o644 & ~current_umask())
                text = path.read_text(encoding="utf-8")
                root = ElementTree.fromstring(text)  # well-formed XML, namespaced SVG
                self.assertEqual(root.tag, "{http://www.w3.org/2000/svg}svg")
                ns = {"s": "http://www.w3.org/2000/svg"}
                self.assertIn("font-size:12px", root.find("s:style", ns).text)  # the theme travels with the file
                captions = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "caption"]
                self.assertEqual(" ".join(captions), " ".join(entry["caption"].split()))
                self.assertEqual(entry["caption"], inline[entry["file"][:-4]].caption)
                self.assertNotIn("<script", text)
        before = {p.name: p.read_bytes() for p in figures.iterdir()}
        run_cli("report", str(self.u), str(self.e), "--out", str(out), "--figures", str(figures))
        self.assertEqual({p.name: p.read_bytes() for p in figures.iterdir()}, before)  # same input, same bytes
        # a new set replaces the old one: the comparison's figures, not drawn for one run, are gone
        status, _, stderr = run_cli("report", str(self.u), "--out", str(out), "--figures", str(figures))
        self.assertEqual((status, stderr), (0, ""))
        self.assertEqual(sorted(os.listdir(figures)), sorted(
            [f"run-1-{name}.svg" for name in ("tclr", "horizon", "by-slice", "by-year")] + ["figures.json"]))

    def test_figures_dir_refuses_a_directory_it_did_not_write(self):
        other = self.dir / "paper"
        other.mkdir()
        (other / "draft.tex").write_text("mine")
        afile = self.dir / "afile"
        afile.write_text("x")
        for target, message in ((other, "not empty and not a set of figures this command wrote"), (afile, "this is a file")):
            with self.subTest(target=target.name):
                out = self.dir / "refused.html"
                status, _, stderr = run_cli("report", str(self.u), "--out", str(out), "--figures", str(target))
                self.assertEqual(status, 2)
                self.assertEqual(stderr.count("\n"), 1, stderr)
                self.assertIn(message, stderr)
                self.assertFalse(out.exists())  # nothing written: the page neither
        self.assertEqual(os.listdir(other), ["draft.tex"])
        empty = self.dir / "empty"
        empty.mkdir()
        status, _, stderr = run_cli("report", str(self.u), "--out", str(self.dir / "ok.html"), "--figures", str(empty))
        self.assertEqual((status, stderr), (0, ""))
        self.assertIn("run-1-tclr.svg", os.listdir(empty))

    def test_same_inputs_same_bytes(self):
        first = self.report(self.u, self.e)
        self.assertEqual(self.report(self.u, self.e), first)

    def test_score_json_gives_the_same_page_as_its_traces_but_the_source(self):
        scores = self.dir / "u.json"
        scores.write_text(score_json(score(demo_traces("unrestricted"))), encoding="utf-8")
        from_traces = self.report(self.u).replace(str(self.u), "X").replace("traces, scored against the bundled v0 corpus", "S")
        from_json = self.report(scores).replace(str(scores), "X").replace("score JSON", "S")
        self.assertEqual(from_json, from_traces)

    def test_self_contained_no_fetch_and_one_script(self):
        page = parse(self.report(self.u, self.e))
        self.assertEqual(page.fetching, [])
        self.assertEqual(page.scripts, 1)
        text = self.report(self.u)
        # The docs are named by their URL in the text (never fetched); any other URL is not allowed.
        from anachron.core.docs import DOCS_URL

        urls = [u for u in re.findall(r"https?://[^\"' ]+", text) if not u.startswith(DOCS_URL)]
        self.assertEqual(urls, ["http://www.w3.org/2000/svg"] * text.count("<svg"))
        self.assertIn("Content-Security-Policy", text)
        # Only the page's own script may run: named by its SHA-256, no 'unsafe-inline' for scripts.
        script = re.search(r"<script>(.*?)</script>", text, re.S).group(1)
        csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text).group(1)
        self.assertEqual(csp, content_security_policy(script))
        self.assertRegex(csp, r"script-src 'sha256-[A-Za-z0-9+/]{43}='; ")
        self.assertNotIn("script-src 'unsafe-inline'", csp)

    def test_every_row_is_in_the_page_and_the_controls_wait_for_the_script(self):
        text = self.report(self.u, self.e)
        page = parse(text)
        u = score(demo_traces("unrestricted"))
        for k in (1, 2):  # each run's table holds every row, so the page reads without its script
            table = re.search(rf'<table class="samples sortable" id="samples-{k}">.*?</table>', text, re.S).group(0)
            self.assertEqual(table.count("<tr>") - 1, len(u))
        # The filter and the pages are hidden until the script shows them (a control that does nothing is not shown);
        # each is labelled and names the table it drives; the count of rows shown is announced.
        controls = re.findall(r'<div class="controls" hidden>(.*?)</div>', text, re.S)
        self.assertEqual(len(controls), 2)
        for k, block in enumerate(controls, 1):
            self.assertRegex(block, r'<label>Filter rows <input type="search" class="filter" aria-controls="samples-%d"' % k)
            self.assertEqual(block.count(f'aria-controls="samples-{k}"'), 3)
            self.assertIn('role="status" aria-live="polite"', block)
        script = re.search(r"<script>(.*?)</script>", text, re.S).group(1)
        self.assertNotIn("finance-001", script)  # the script holds no data
        self.assertEqual(page.scripts, 1)

    def test_hostile_text_cannot_break_the_page(self):
        traces = [{"sample_id": HOSTILE_ID, "as_of": "2022-06-01", "interactions": [
            {"tool": "search", "query": "</script> q3 2023 \u2028 \udc80", "returned": ["fin-005"]}]}]
        path = self.dir / "hostile.jsonl"
        path.write_text("".join(dump_json(r, indent=None) for r in traces), encoding="utf-8")  # dump_json escapes \udc80
        text = self.report(path)
        text.encode("utf-8")  # no lone surrogate left
        self.assertEqual(text.count("<script"), 1)
        self.assertEqual(text.count("</script>"), 1)
        self.assertNotIn("\u2028", text)
        self.assertNotIn("\x07", text)
        self.assertIn("x&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#x2028;\\udc80\\x07&quot;&#x27;&amp;&lt;b&gt;", text)
        page = parse(text)
        self.assertIn('x</script><script>alert(1)</script>\u2028\\udc80\\x07"\'&<b>', page.cells)

    def test_hostile_title_and_bank_card(self):
        status, card, _ = run_cli("bank", "run", "--system", "respect", "--format", "json")
        doc = json.loads(card)
        doc["system"] = HOSTILE_ID
        doc["checks"][0]["rule"] = "</script>\u2029"
        path = self.dir / "card.json"
        path.write_text(dump_json(doc), encoding="utf-8")
        out = self.dir / "hostile.html"
        status, _, err = run_cli("report", str(path), "--out", str(out), "--title", HOSTILE_ID)
        self.assertEqual((status, err), (0, ""), err)
        text = out.read_text(encoding="utf-8")
        self.assertEqual((text.count("<script"), text.count("</script>")), (1, 1))
        self.assertNotIn("\u2029", text)
        self.assertIn("<title>x&lt;/script&gt;", text)

    def test_undated_interactions_draw_the_band(self):
        traces = [{"sample_id": "s", "as_of": "2022-06-01", "interactions": [
            {"tool": "search", "returned": [{"url": "https://x.example/a", "title": "no date here"}]},
            {"tool": "search", "returned": ["fin-005"]}]}]
        path = self.dir / "undated.jsonl"
        write_jsonl(path, traces)
        page = parse(self.report(path))
        [band] = [d for c, d in page.paths if c == "bar band"]
        self.assertTrue(band.startswith("M"))
        i = page.cells.index("mean TCLR band")
        self.assertEqual(page.cells[i + 1 : i + 3], ["[0.500, 1.000]", "1 sample; at the top, 1 undated interaction counted as leaking"])
        i = page.cells.index("result leaks")
        self.assertEqual(page.cells[i + 1 : i + 3], ["1", "2 interactions"])

    def test_bank_card_shows_the_checks_and_the_cutoff_split(self):
        cutoffs = self.dir / "cutoffs.json"
        cutoffs.write_text(json.dumps({"m": {"training_cutoff": "2021-01-01", "release_date": "2021-06-01"}}))
        status, card, err = run_cli("bank", "run", "--system", "ignore", "--format", "json",
                                    "--model-cutoffs", str(cutoffs), "--model", "m")
        self.assertEqual((status, err), (0, ""))
        path = self.dir / "card.json"
        path.write_text(card, encoding="utf-8")
        doc = json.loads(card)
        text = self.report(path, self.u)
        page = parse(text)
        self.assertEqual(sum(1 for c in page.cells if c in ("PASS", "FAIL")), 4)
        for check in doc["checks"]:
            self.assertIn(check["name"], page.cells)
        i = page.cells.index("overlapping (as_of < cutoff)")
        self.assertEqual(page.cells[i + 1], str(doc["overlap"]["overlapping"]["items"]))
        i = page.cells.index("leak rate (over embargoed, 95% Wilson CI)")
        self.assertTrue(page.cells[i + 1].startswith(f"{doc['leaked']}/{doc['embargoed']} "))
        # the CLI's columns and rows: system, oracle respect, oracle ignore
        i = page.cells.index("system")
        self.assertEqual(page.cells[i : i + 3], ["system", "oracle respect", "oracle ignore"])
        status, table, _ = run_cli("bank", "run", "--system", "ignore", "--model-cutoffs", str(cutoffs), "--model", "m")
        head = next(line for line in table.splitlines() if line.strip().startswith("system"))
        self.assertEqual(head.split(), ["system", "oracle", "respect", "oracle", "ignore"])
        respect, ignore = doc["oracles"]["respect"], doc["oracles"]["ignore"]
        i = page.cells.index("refused")
        self.assertEqual(page.cells[i : i + 4], ["refused", str(doc["refused"]), str(respect["refused"]), str(ignore["refused"])])
        i = page.cells.index("leaked answerable")
        self.assertEqual(page.cells[i + 2 : i + 4], [str(respect["leaked_answerable"]), str(ignore["leaked_answerable"])])
        # valid for the bank only: a caveat, never shown as a pass
        self.assertIn(f'<p class="verdict caveat">{doc["validity"]}', text.replace("&#x27;", "'"))
        # the bank's plots: oracle separation (leak rate and accuracy, each with its Wilson CI), the cutoff split
        oracles = page.figures["bank-oracles"]
        self.assertEqual(oracles.row_labels(), ["system", "oracle respect", "oracle ignore"] * 2)
        self.assertEqual(len(oracles.marks("ci")), 6)
        low, high = doc["oracles"]["respect"]["leak_rate_ci"]
        self.assertIn(f"oracle respect: leak 0.0% (0/{doc['embargoed']}), 95% CI [{100 * low:.1f}%, {100 * high:.1f}%]",
                      [title_of(m) for m in oracles.marks("ci")])
        threshold = next(c["threshold"] for c in doc["checks"] if c["name"] == "oracle_ignore")
        self.assertIn(f"ignore must leak >= {100 * threshold:.1f}%", oracles.texts("reflabel"))
        self.assertIn(f"{doc['embargoed']} embargoed", oracles.caption)
        cutoff = page.figures["bank-cutoff"]
        n = doc["overlap"]["overlapping"]["items"], doc["overlap"]["non_overlapping"]["items"]
        self.assertEqual(cutoff.row_labels()[:2], [f"overlapping (n={n[0]})", f"non-overlapping (n={n[1]})"])
        self.assertIn("training cutoff 2021-01-01", cutoff.caption)

    def test_an_older_bank_card_plots_the_rates_it_has(self):
        status, card, _ = run_cli("bank", "run", "--system", "ignore", "--format", "json")
        doc = json.loads(card)
        del doc["oracles"], doc["oracle_source"], doc["validity"]  # a card written before these fields
        doc["oracle_respect_leak_rate"] = None
        path = self.dir / "old.json"
        path.write_text(dump_json(doc), encoding="utf-8")
        page = parse(self.report(path))
        fig = page.figures["bank-oracles"]
        self.assertIn("holds the oracles' rates only", fig.caption)
        self.assertIn("n/a", fig.texts("tick"))  # a missing rate is said, not drawn at 0
        self.assertEqual(len(fig.marks("point s1")), 1)  # respect: its accuracy only
        i = page.cells.index("system")
        self.assertEqual(page.cells[i : i + 3], ["system", "oracle respect", "oracle ignore"])

    def test_bank_verdict_colours(self):
        status, card, _ = run_cli("bank", "run", "--system", "respect", "--format", "json")
        doc = json.loads(card)
        for change, klass in (({}, "caveat"), ({"valid": False, "failed_checks": ["oracle_ignore"], "validity": "Run INVALID"}, "fail"),
                              ({"citable": True, "oracle_source": "data path", "validity": "Run valid: yes"}, "pass")):
            with self.subTest(klass=klass):
                path = self.dir / f"{klass}.json"
                path.write_text(dump_json({**doc, **change}), encoding="utf-8")
                self.assertIn(f'<p class="verdict {klass}">', self.report(path))

    def test_bad_inputs_are_one_line(self):
        plain = self.dir / "plain.json"
        plain.write_text('{"a": 0.5}')
        tampered = self.dir / "tampered.json"
        doc = json.loads(score_json(score(demo_traces("unrestricted"))))
        doc["samples"][0]["tclr"] = 0.25
        tampered.write_text(dump_json(doc))
        negative = self.dir / "negative.json"
        doc = json.loads(score_json(score(demo_traces("unrestricted"))))
        doc["samples"][1]["interactions"] = -1
        negative.write_text(dump_json(doc))
        failed = self.dir / "failed.json"
        doc = json.loads(score_json(score(demo_traces("unrestricted"))))
        doc["samples"][2]["failed_calls"]["refused"] = 1.5
        failed.write_text(dump_json(doc))
        card = self.dir / "card.json"
        card.write_text('{"bank_version": "x", "checks": []}')
        other = self.dir / "other.jsonl"
        write_jsonl(other, demo_traces("unrestricted")[:3])
        cases = {
            (plain,): "carries no per-sample detail",
            (tampered,): "field 'tclr': is 0.25, but its counts give",
            (negative,): "interactions must be a non-negative integer, got -1",
            (card,): "missing field",
            (failed,): "samples[2] (sample 'finance-003'): failed_calls.refused must be a non-negative integer, got 1.5",
            (self.dir / "missing.json",): "no such file",
            (self.u, other): "sample ids differ",
            (self.u, "--resamples", "5"): "--resamples must be at least 100",  # one run: its mean is bootstrapped
            (self.u, "--confidence", "1"): "--confidence must be a number strictly between 0 and 1",
        }
        for paths, message in cases.items():
            with self.subTest(paths=paths):
                out = self.dir / "bad.html"
                status, stdout, stderr = run_cli("report", *map(str, paths), "--out", str(out))
                self.assertEqual(status, 2)
                self.assertEqual(stderr.count("\n"), 1, stderr)
                self.assertIn(message, stderr)
                self.assertFalse(out.exists())

    def test_output_file_has_a_normal_mode(self):
        old = os.umask(0o022)
        try:
            self.report(self.u)
        finally:
            os.umask(old)
        self.assertEqual((self.dir / "report.html").stat().st_mode & 0o777, 0o644)


class SvgPrimitives(unittest.TestCase):
    """The reusable parts of anachron.output.html.svg, through their public names."""

    def test_interval_panels_draw_each_row_on_an_axis_through_zero(self):
        rows = (svg.IntervalRow("a", 0.2, 0.1, 0.3, series="s0"), svg.IntervalRow("b", -0.1, -0.25, 0.05, series="s0"))
        key = [("point s0", "diamond", "point"), ("ci", "whisker", "interval")]
        text = svg.interval_panels("interval", "two", [svg.Panel("difference (TCLR)", rows)], key, "").svg()
        [fig] = parse(text).figures.values()
        self.assertEqual(fig.row_labels(), ["a", "b"])
        self.assertEqual(len(fig.marks("ci")), 2)
        self.assertEqual(fig.texts("label"), ["difference (TCLR)"])
        left, right = fig.axis_span()
        zero = [m for m in fig.marks("ref zero")]
        self.assertEqual(len(zero), 1)
        x = float(re.match(r"M([\d.]+)", zero[0][1]["d"]).group(1))
        pad = (0.3 - -0.25) * 0.06  # the axis spans the intervals, padded 6% each side
        self.assertAlmostEqual((x - left) / (right - left), (0.25 + pad) / (0.55 + 2 * pad), places=2)

    def test_scales_ticks_and_captions(self):
        log = svg.Log(1, 1000, 0, 300)
        self.assertEqual([round(log(v)) for v in (1, 10, 100, 1000)], [0, 100, 200, 300])
        linear = svg.Linear(0, 1, 100, 0)  # an upward y axis
        self.assertEqual((linear(0), linear(1), linear(0.25)), (100, 0, 75))
        self.assertEqual(svg.nice_ticks(0, 0.6), [0.0, 0.2, 0.4, 0.6])
        self.assertEqual(svg.nice_ticks(-0.3, 0.3), [-0.2, 0.0, 0.2])  # multiples of the step only
        self.assertEqual(svg.integer_ticks(13), [0, 5, 10, 15])
        lines = svg.caption_lines("word " * 100, 300)
        self.assertTrue(all(svg.text_width(line) <= 300 for line in lines))
        self.assertEqual(" ".join(lines), " ".join(["word"] * 100))
        self.assertEqual(svg.caption_lines("x" * 100, 100), ["x" * 13] * 7 + ["x" * 9])  # a long word is cut

    def test_a_figure_inline_and_standalone(self):
        key, height = svg.legend([("bar s0", "rect", "one"), ("point s1", "circle", "two")], 10, 0, 500)
        self.assertEqual(height, svg.LEGEND_ROW)
        fig = svg.Figure("f", "a <label>", 600, 100, key, "n = 3 samples & more")
        self.assertIn('aria-label="a &lt;label&gt;"', fig.svg())
        self.assertIn("<figcaption>n = 3 samples &amp; more</figcaption>", fig.html())
        alone = fig.standalone()
        self.assertTrue(alone.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<svg'))
        root = ElementTree.fromstring(alone)
        self.assertGreater(int(root.get("height")), 100)  # the caption drawn below the figure
        self.assertEqual(fig.standalone(), alone)


# ---------------------------------------------------------------- a real browser



if __name__ == "__main__":
    unittest.main()
