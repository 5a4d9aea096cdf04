"""``anachron report``: the self-contained HTML page, its inputs, hostile text, determinism,
and (where Chromium is installed; CI installs it) the page rendered by a real browser.

Expected figures come from the core (``score_traces``/``summarise``/``compare_modes``)
on the same inputs; the page must show them, never compute others.
"""

import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest
import zlib
from html.parser import HTMLParser
from pathlib import Path

from anachron.core import compare_modes, load_corpus, parse_traces, score_traces, summarise
from anachron.store import SearchEngine
from anachron.core.agents import naive_trace
from anachron.html import Run, report_html
from anachron.html.report import content_security_policy
from anachron.html.svg import horizon_bins
from anachron.core.jsonio import dump_json
from anachron.output.report import score_document
from tests.support import ROOT, extras_required, run_cli

CORPUS = load_corpus()
ENGINE = SearchEngine(CORPUS)
HOSTILE_ID = 'x</script><script>alert(1)</script>\u2028\udc80\x07"\'&<b>'


def demo_traces(mode):
    return [naive_trace(sample, ENGINE, mode) for sample in CORPUS.samples.values()]


def write_jsonl(path, records):
    Path(path).write_text("".join(dump_json(r, indent=None) for r in records), encoding="utf-8")


def score(records):
    return score_traces(parse_traces([(f"t:{i + 1}", r) for i, r in enumerate(records)], CORPUS), CORPUS)


class Page(HTMLParser):
    """The parts of a page the tests look at: elements, paths, scripts, any fetch."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paths, self.scripts, self.fetching, self.tables, self.cells = [], 0, [], 0, []
        self._cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "path":
            self.paths.append((a.get("class", ""), a.get("d", "")))
        if tag == "script":
            self.scripts += 1
        for name in ("src", "href", "action", "srcset", "poster", "data"):
            if name in a:
                self.fetching.append((tag, name, a[name]))
        if tag == "link":
            self.fetching.append((tag, "link", a))
        if tag == "table":
            self.tables += 1
        if tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def parse(text):
    page = Page()
    page.feed(text)
    page.close()
    return page


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
        # one column per sample in each run's TCLR plot, a CI drawn with its two whiskers
        bars = [c for c, _ in page.paths if c.startswith("bar ") and c != "bar band" and c != "bar horizon"]
        self.assertEqual(len(bars), 54)
        self.assertEqual(sum(1 for c in bars if c == "bar unrestricted"), sum(1 for r in u if r.tclr > 0))
        cis = [d for c, d in page.paths if c.startswith("ci ")]
        self.assertEqual(len(cis), 3)
        self.assertEqual(cis[2].count("M"), 3)  # the interval and its two whiskers
        # the horizon histogram counts every post-T item
        days = [d for r in u for d in r.horizons]
        horizon_bars = [d for c, d in page.paths if c == "bar horizon"]
        self.assertEqual(len(horizon_bars), sum(1 for _, n in horizon_bins(days) if n))
        self.assertEqual(sum(n for _, n in horizon_bins(days)), len(days))
        self.assertIn("No result leak", text)  # the enforced run has none

    def test_same_inputs_same_bytes(self):
        first = self.report(self.u, self.e)
        self.assertEqual(self.report(self.u, self.e), first)

    def test_score_json_gives_the_same_page_as_its_traces_but_the_source(self):
        scores = self.dir / "u.json"
        scores.write_text(dump_json(score_document(score(demo_traces("unrestricted")))), encoding="utf-8")
        from_traces = self.report(self.u).replace(str(self.u), "X").replace("traces, scored against the bundled v0 corpus", "S")
        from_json = self.report(scores).replace(str(scores), "X").replace("score JSON", "S")
        self.assertEqual(from_json, from_traces)

    def test_self_contained_no_fetch_and_one_script(self):
        page = parse(self.report(self.u, self.e))
        self.assertEqual(page.fetching, [])
        self.assertEqual(page.scripts, 1)
        text = self.report(self.u)
        self.assertEqual(re.findall(r"https?://[^\"' ]+", text), ["http://www.w3.org/2000/svg"] * text.count("<svg"))
        self.assertIn("Content-Security-Policy", text)
        # Only the page's own script may run: named by its SHA-256, no 'unsafe-inline' for scripts.
        script = re.search(r"<script>(.*?)</script>", text, re.S).group(1)
        csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text).group(1)
        self.assertEqual(csp, content_security_policy(script))
        self.assertRegex(csp, r"script-src 'sha256-[A-Za-z0-9+/]{43}='; ")
        self.assertNotIn("script-src 'unsafe-inline'", csp)

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
        page = parse(self.report(path, self.u))
        self.assertEqual(sum(1 for c in page.cells if c in ("PASS", "FAIL")), 4)
        for check in doc["checks"]:
            self.assertIn(check["name"], page.cells)
        i = page.cells.index("overlapping (as_of < cutoff)")
        self.assertEqual(page.cells[i + 1], str(doc["overlap"]["overlapping"]["items"]))
        i = page.cells.index("leak rate (over embargoed, 95% Wilson CI)")
        self.assertTrue(page.cells[i + 1].startswith(f"{doc['leaked']}/{doc['embargoed']} "))

    def test_bad_inputs_are_one_line(self):
        plain = self.dir / "plain.json"
        plain.write_text('{"a": 0.5}')
        tampered = self.dir / "tampered.json"
        doc = score_document(score(demo_traces("unrestricted")))
        doc["samples"][0]["tclr"] = 0.25
        tampered.write_text(dump_json(doc))
        negative = self.dir / "negative.json"
        doc = score_document(score(demo_traces("unrestricted")))
        doc["samples"][1]["interactions"] = -1
        negative.write_text(dump_json(doc))
        failed = self.dir / "failed.json"
        doc = score_document(score(demo_traces("unrestricted")))
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


# ---------------------------------------------------------------- a real browser

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]

# Appended to a copy of the page: what Chromium drew, measured by Chromium, and a click on a header.
PROBE = """<script>
(function () {
  var out = {plots: [], sorted: null};
  Array.prototype.forEach.call(document.querySelectorAll("svg.plot"), function (svg) {
    var marks = Array.prototype.map.call(svg.querySelectorAll("path.bar, path.ci, path.point"), function (p) {
      var b = p.getBBox();
      return [p.getAttribute("class"), b.width, b.height, p.getTotalLength()];
    });
    out.plots.push({label: svg.getAttribute("aria-label"), width: svg.getBoundingClientRect().width, marks: marks});
  });
  var table = document.querySelector("table.sortable");
  var th = table.tHead.rows[0].cells[2];
  th.click(); th.click();
  out.sorted = Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[0].textContent; });
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    if extras_required():
        raise AssertionError("chromium is not installed (CI installs it: apt-get install -y chromium)")
    raise unittest.SkipTest("chromium is not installed (apt-get install -y chromium)")


def png_pixels(data):
    """(width, height, raw scanlines) of a PNG, with the standard library (zlib)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width, height = 8, b"", 0, 0
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos : pos + 4]), data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return width, height, zlib.decompress(idat)


class ChromiumRender(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.browser = chromium()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        for mode in ("unrestricted", "enforced"):
            write_jsonl(cls.dir / f"{mode}.jsonl", demo_traces(mode))
        cls.page = cls.dir / "report.html"
        here = os.getcwd()
        os.chdir(cls.dir)  # relative paths: the page (and the README's screenshot) names no temporary directory
        try:
            status, _, err = run_cli("report", "unrestricted.jsonl", "enforced.jsonl", "--out", "report.html",
                                     "--title", "Anachron report: the demo's naive agent, both modes")
        finally:
            os.chdir(here)
        assert status == 0, err

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_chromium(self, *args, url):
        profile = tempfile.mkdtemp(dir=self.dir)
        done = subprocess.run([self.browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, url],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])
        return done.stdout

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
        # The probe is allowed by its hash beside the page's own; the sorting it checks is the page's script.
        probe = self.with_script(PROBE, allowed=True)
        dom = self.run_chromium("--dump-dom", "--virtual-time-budget=5000", url=probe.as_uri())
        match = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
        self.assertIsNotNone(match, dom[-500:])
        import html as html_module
        out = json.loads(html_module.unescape(match.group(1)))
        u = score(demo_traces("unrestricted"))
        labels = [p["label"] for p in out["plots"]]
        self.assertEqual(len(labels), 4, labels)  # comparison, TCLR u, horizon u, TCLR e (no horizon: no leak)
        for plot in out["plots"]:
            self.assertGreater(plot["width"], 100, plot["label"])
            self.assertTrue(plot["marks"], plot["label"])
            for klass, width, height, length in plot["marks"]:
                self.assertGreater(length, 0, (plot["label"], klass))  # every mark is a non-empty path
        tclr_u = next(p for p in out["plots"] if p["label"].startswith("TCLR per sample, Run 1"))
        heights = [h for klass, _, h, _ in tclr_u["marks"] if klass == "bar unrestricted"]
        self.assertEqual(len(heights), sum(1 for r in u if r.tclr > 0))
        full = max(heights)
        for r, h in zip([r for r in u if r.tclr > 0], heights):
            self.assertAlmostEqual(h / full, r.tclr, places=2, msg=r.sample_id)
        # clicked twice on "TCLR": descending, the leaking samples first
        leaking = {r.sample_id for r in u if r.tclr == 1.0}
        self.assertEqual(set(out["sorted"][: len(leaking)]), leaking)

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
