"""The slow tests beside test_html_report.py, whose docstring states the rules they hold: ChromiumRender; AtScale (the
figures at n = 2,000 and the samples table at 10,000 rows, inputs drawn with a seed).

They start processes, browsers or servers, or build large inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

import gc
import json
import os
import random
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
                         + [f"run-{k}-{n}" for k in (1, 2) for n in ("by-slice", "by-year", "tclr", "horizon")])
        self.check_geometry(out["figures"])
        self.check_proportions(out["figures"])
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
                         [f"run-1-{n}" for n in ("by-slice", "by-year", "tclr", "horizon")] + ["bank-oracles"])
        self.check_geometry(out["figures"])
        self.check_proportions(out["figures"])

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
        self.check_proportions(out["figures"])
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


# Run in a 10,000-row page at real time, once it has painted: each sort and filter timed from the handler's start to
# the next animation frame (performance.now), then the table as it stands after each.
TIMER = """new Promise(function (done) {
  var view = document.querySelector("div.samples-view");
  var table = view.querySelector("table.sortable"), filter = view.querySelector("input.filter");
  var out = {sort: [], filter: [], after: []};
  function ids() { return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[0].textContent; }); }
  function sortBy(k) { return ["sort", function () { table.tHead.rows[0].cells[k].click(); }]; }
  function query(q) { return ["filter", function () { filter.value = q; filter.dispatchEvent(new Event("input")); }]; }
  function page() { return ["page", function () { view.querySelector("button.next").click(); }]; }
  var steps = [sortBy(2), sortBy(2), sortBy(0), sortBy(4), sortBy(2), query("news"), query("news-00"), query("zzz"),
               query(""), query("finance-01"), page(), sortBy(2)];
  function run(i) {
    if (i === steps.length) { done(out); return; }
    var t0 = performance.now();
    steps[i][1]();
    requestAnimationFrame(function () {
      if (out[steps[i][0]]) { out[steps[i][0]].push(performance.now() - t0); }
      out.after.push({ids: ids(), status: view.querySelector(".status").textContent});
      setTimeout(function () { run(i + 1); }, 0);
    });
  }
  // The clock starts once the loaded page has painted (two frames), so the first click is not charged its paint.
  requestAnimationFrame(function () { requestAnimationFrame(function () { run(0); }); });
})"""


class AtScale(BrowserCase):
    """The report of a real study's size, inputs drawn with a seed from the demo's scored samples: the figures at
    n = 2,000 pairs (every mark in proportion to its count, one scale per page), and the samples table at 10,000
    rows (a sort or a filter answers in at most 200 ms)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        u, e = score(demo_traces("unrestricted")), score(demo_traces("enforced"))
        rng = random.Random(37)
        for n in (2000, 10_000):
            pick = [rng.randrange(len(u)) for _ in range(n)]
            for name, run in (("u", u), ("e", e)):
                rows = [replace(run[i], sample_id=f"{run[i].sample_id}-{k:05d}") for k, i in enumerate(pick)]
                (cls.dir / f"{name}{n}.json").write_text(score_json(rows), encoding="utf-8")
        cls.big = [replace(u[i], sample_id=f"{u[i].sample_id}-{k:05d}") for k, i in enumerate(pick)]

    def report(self, *names):
        page = self.dir / f"{'-'.join(names)}.html"
        # Collected now, an event loop an earlier test of this process left unclosed warns here, not into
        # the stderr captured below (the command must write nothing there).
        gc.collect()
        status, _, err = run_cli("report", *(str(self.dir / f"{name}.json") for name in names), "--out", str(page),
                                 "--resamples", "1000")
        self.assertEqual((status, err), (0, ""), err)
        return page

    def test_figures_at_2000_pairs_draw_every_mark_in_proportion(self):
        out = self.probe(self.report("u2000", "e2000"))
        self.check_geometry(out["figures"])
        self.check_proportions(out["figures"])
        names = [f["name"] for f in out["figures"]]
        self.assertEqual(names, ["comparison-means", "comparison-samples"]
                         + [f"run-{k}-{n}" for k in (1, 2) for n in ("by-slice", "by-year", "tclr", "horizon")])
        paired = out["figures"][1]
        self.assertIn("a mark's area is in proportion to the samples it stands for", paired["caption"])
        written = sorted(int(t["text"]) for t in paired["texts"] if t["cls"] == "count")
        counts = sorted(int(m[5].split()[0]) for m in paired["marks"] if m[0] == "point s0")
        self.assertEqual(sum(counts), 2000)
        self.assertTrue(set(written) <= set(counts) and written, (written, counts))
        # the run's first figure sits beside its summary table (the figures flow around it), not under it
        beside = next(f for f in out["figures"] if f["name"] == "run-1-tclr")
        self.assertGreater(beside["box"][0], 500)

    def test_sort_and_filter_answer_within_200_ms_at_10000_rows(self):
        page = self.report("u10000")
        # Best of up to three loads of the page (as the benchmarks take the best round): on this shared machine
        # other jobs can stall any one run; a page whose handlers were slow would be slow in every round.
        rounds = []
        for _ in range(3):
            out = self.evaluate(page, TIMER)
            rounds.append(max(out["sort"] + out["filter"]))
            print(f"\n10,000 rows: sort {[round(t) for t in out['sort']]} ms, filter {[round(t) for t in out['filter']]} ms")
            if rounds[-1] <= 200:
                break
        self.assertLessEqual(min(rounds), 200, rounds)
        # and they answer right: the first page of each order, the rows that match
        rows = self.big
        tclr = sorted(range(len(rows)), key=lambda i: (rows[i].tclr, i))
        descending = sorted(range(len(rows)), key=lambda i: (-rows[i].tclr, i))
        after = out["after"]
        self.assertEqual(after[0]["ids"], [rows[i].sample_id for i in tclr[:100]])
        self.assertEqual(after[1]["ids"], [rows[i].sample_id for i in descending[:100]])
        self.assertEqual(after[2]["ids"], sorted(r.sample_id for r in rows)[:100])
        self.assertEqual(after[0]["status"], "rows 1\u2013100 of 10000")
        news = [r for r in rows if "news" in r.sample_id]
        self.assertEqual(after[5]["status"], f"rows 1\u2013100 of {len(news)} matching (of 10000)")
        self.assertTrue(all("news" in i for i in after[5]["ids"]))
        self.assertEqual(after[7], {"ids": [], "status": "no row matches (of 10000)"})
        self.assertEqual(after[8]["status"], "rows 1\u2013100 of 10000")
        finance = [rows[i].sample_id for i in tclr if "finance-01" in rows[i].sample_id]  # in the order then shown
        self.assertEqual(after[10]["ids"], finance[100:200])  # the second page of the matching rows, in the current order
        self.assertEqual(after[10]["status"], f"rows 101\u2013200 of {len(finance)} matching (of 10000)")
        self.assertEqual(len(after[11]["ids"]), 100)


if __name__ == "__main__":
    unittest.main()
