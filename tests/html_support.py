"""Helpers shared by the tests of the HTML pages and their figures (``anachron report``, ``anachron outcomes``).

:func:`parse` reads a page the way the tests look at it (its cells, paths,
fetches and each figure's marks, texts and caption); :class:`BrowserCase`
renders a page in headless Chromium, measures what it drew (:data:`PROBE`)
and checks every figure's geometry as a reviewer would
(:meth:`BrowserCase.check_geometry`).  Chromium missing: the browser tests
skip, unless extras are required (CI), where they fail.
"""

import html as html_module
import json
import os
import re
import select
import shutil
import struct
import subprocess
import tempfile
import time
import unittest
import zlib
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

from anachron.output.html.page import content_security_policy
from tests.support import extras_required


class Fig:
    """One figure of a page: its elements in order (tag, attributes, text), its caption."""

    def __init__(self, name):
        self.name, self.elements, self.caption = name, [], ""

    def marks(self, klass, tag=None):
        """The marks whose class is *klass* or begins with it (legend keys left out)."""
        return [e for e in self.elements if (tag is None or e[0] == tag) and e[0] != "text"
                and (e[1].get("class", "") == klass or e[1].get("class", "").startswith(klass + " "))
                and not e[1].get("class", "").endswith(" key")]

    def texts(self, klass):
        return [e[2] for e in self.elements if e[0] == "text" and e[1].get("class") == klass]

    def row_labels(self):
        """The labels drawn left of the rows: tick texts anchored at their end, top to bottom."""
        return [e[2] for e in self.elements if e[0] == "text" and e[1].get("class") == "tick" and e[1].get("text-anchor") == "end"]

    def axis_span(self):
        """(left, right) of the first horizontal axis line."""
        for e in self.marks("axis"):
            m = re.fullmatch(r"M([\d.]+) [\d.]+H([\d.]+)", e[1]["d"])
            if m:
                return float(m.group(1)), float(m.group(2))
        raise AssertionError(f"{self.name}: no x axis")


def title_of(element):
    return element[3]


def rect(element):
    """(left, right, top, bottom) of a rectangle path ``M x0 y0 H x1 V y1 H x0 Z``."""
    m = re.fullmatch(r"M([\d.]+) ([\d.]+)H([\d.]+)V([\d.]+)H[\d.]+Z", element[1]["d"])
    x0, y0, x1, y1 = map(float, m.groups())
    return min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)


class Page(HTMLParser):
    """The parts of a page the tests look at: elements, paths, scripts, any fetch, and each figure."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.paths, self.scripts, self.fetching, self.tables, self.cells = [], 0, [], 0, []
        self.figures = {}
        self._cell = self._figure = self._text = self._title = self._caption = None

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
        if tag == "svg" and "data-figure" in a:
            self._figure = self.figures[a["data-figure"]] = Fig(a["data-figure"])
        elif self._figure is not None and tag == "title":
            self._title = []
        elif self._figure is not None:
            self._figure.elements.append([tag, a, "", ""])
            if tag == "text":
                self._text = []
        if tag == "figcaption":
            self._caption = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append("".join(self._cell).strip())
            self._cell = None
        if tag == "svg":
            self._last, self._figure = self._figure, None
        if tag == "text" and self._text is not None:
            self._figure.elements[-1][2] = "".join(self._text)
            self._text = None
        if tag == "title" and self._title is not None:
            self._figure.elements[-1][3] = "".join(self._title)
            self._title = None
        if tag == "figcaption" and self._caption is not None:
            self._last.caption = "".join(self._caption)
            self._caption = None

    def handle_data(self, data):
        for buffer in (self._cell, self._text, self._title, self._caption):
            if buffer is not None:
                buffer.append(data)


def parse(text):
    page = Page()
    page.feed(text)
    page.close()
    return page


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]

# Appended to a copy of the page: what Chromium drew, measured by Chromium, and a click on a header.
PROBE = """<script>
(function () {
  function box(el) { var b = el.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; }
  var out = {figures: [], sorted: null};
  Array.prototype.forEach.call(document.querySelectorAll("svg.plot"), function (svg) {
    var ticks = Array.prototype.map.call(svg.querySelectorAll("text.tick"), function (t) {
      return [t.textContent, parseFloat(t.getAttribute("x")), parseFloat(t.getAttribute("y")), t.getAttribute("text-anchor")];
    });
    var texts = Array.prototype.map.call(svg.querySelectorAll("text"), function (t) {
      return {cls: t.getAttribute("class"), text: t.textContent, box: box(t), size: parseFloat(getComputedStyle(t).fontSize)};
    });
    var marks = Array.prototype.map.call(
      svg.querySelectorAll("path.bar, path.seg, path.ci, path.point, circle.point, path.rug, path.link"), function (p) {
        var b = p.getBBox(), t = p.querySelector("title");
        return [p.getAttribute("class"), b.width, b.height, b.x, b.y, t ? t.textContent : ""];
      });
    var fig = svg.closest("figure");
    out.figures.push({
      name: svg.getAttribute("data-figure"), box: box(svg), scale: svg.getBoundingClientRect().width / svg.width.baseVal.value,
      texts: texts, marks: marks, ticks: ticks, axes: svg.querySelectorAll("path.axis").length,
      legend: svg.querySelectorAll(".legend-entry").length, notes: svg.querySelectorAll("text.note").length,
      caption: fig ? fig.querySelector("figcaption").textContent : ""
    });
  });
  var table = document.querySelector("table.sortable");
  if (table) {
    Array.prototype.forEach.call(table.querySelectorAll("details"), function (d) { d.open = true; });  // the evidence shown
    var holder = table.parentNode;
    out.scroll = [holder.scrollWidth, holder.clientWidth];
    var th = table.tHead.rows[0].cells[2];
    th.click(); th.click();
    out.sorted = Array.prototype.map.call(table.tBodies[0].rows, function (r) { return r.cells[0].textContent; });
    out.table = box(table);
    var evidence = table.querySelector("td.evidence");
    out.evidence = evidence ? box(evidence) : null;
  }
  out.window = [window.innerWidth, document.documentElement.scrollWidth];
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


def overlap(a, b, slack=0.5):
    """Whether two boxes [left, top, right, bottom] overlap by more than *slack* px each way."""
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


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


class BrowserCase(unittest.TestCase):
    """A test case with a headless Chromium (``cls.browser``) and a scratch directory (``cls.dir``), made once per
    class: a subclass's ``setUpClass`` calls this one's first."""

    browser = None
    dir = None

    @classmethod
    def setUpClass(cls):
        cls.browser = chromium()
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_chromium(self, *args, url):
        profile = tempfile.mkdtemp(dir=self.dir)
        done = subprocess.run([self.browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, url],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])
        return done.stdout

    def evaluate(self, page, expression, window="1200,1100", timeout=120):
        """The value of *expression* (a promise, awaited) in *page* loaded in a headless Chromium at real time.

        ``--dump-dom`` needs a virtual-time budget to let timers and animation frames run, and under it the
        page's clock stops while a script runs, so nothing can be timed: here the DevTools protocol is spoken
        over ``--remote-debugging-pipe`` (the browser reads JSON messages ended by NUL on fd 3 and writes on
        fd 4), the page loads in real time and the expression's promise is awaited.
        """
        to_browser, from_us = os.pipe()
        to_us, from_browser = os.pipe()
        # Moved out of the way of 3 and 4 first, so the child's two dup2 calls cannot overwrite each other.
        high = [os.dup2(fd, 100 + i) for i, fd in enumerate((to_browser, from_browser))]

        def child():
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        profile = tempfile.mkdtemp(dir=self.dir)
        proc = subprocess.Popen([self.browser, *CHROMIUM_FLAGS, "--remote-debugging-pipe", f"--user-data-dir={profile}",
                                 f"--window-size={window}", "about:blank"], preexec_fn=child, close_fds=False,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for fd in (to_browser, from_browser, *high):
            os.close(fd)
        deadline = time.monotonic() + timeout
        pending, sent = b"", [0]

        def call(method, params=None, session=None):
            sent[0] += 1
            message = {"id": sent[0], "method": method, "params": params or {}, **({"sessionId": session} if session else {})}
            os.write(from_us, json.dumps(message).encode("utf-8") + b"\0")
            nonlocal pending
            while True:
                while b"\0" in pending:
                    raw, pending = pending.split(b"\0", 1)
                    reply = json.loads(raw)
                    if reply.get("id") == sent[0]:
                        self.assertNotIn("error", reply, reply)
                        return reply["result"]
                ready, _, _ = select.select([to_us], [], [], max(0.0, deadline - time.monotonic()))
                self.assertTrue(ready, f"Chromium did not answer {method} within {timeout} s")
                chunk = os.read(to_us, 1 << 16)
                self.assertTrue(chunk, "Chromium closed its pipe")
                pending += chunk

        try:
            target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            call("Page.navigate", {"url": page.as_uri()}, session)
            while call("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True},
                       session)["result"]["value"] != "complete":
                time.sleep(0.05)
            result = call("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}, session)
            self.assertNotIn("exceptionDetails", result, result)
            return result["result"]["value"]
        finally:
            try:
                os.write(from_us, json.dumps({"id": 0, "method": "Browser.close"}).encode("utf-8") + b"\0")
                proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
            os.close(from_us)
            os.close(to_us)

    def probe(self, page, window="1200,1100"):
        """What Chromium drew of *page* (the probe allowed by its hash beside the page's own script)."""
        text = page.read_text(encoding="utf-8")
        body = PROBE[len("<script>"):-len("</script>")]
        ours = re.search(r"script-src ('sha256-[^']+')", text).group(1)
        theirs = content_security_policy(body).split("script-src ")[1].split(";")[0]
        probed = page.with_name(f"probed-{page.name}")
        probed.write_text(text.replace(f"script-src {ours}", f"script-src {ours} {theirs}").replace("</body>", PROBE + "</body>"),
                          encoding="utf-8")
        dom = self.run_chromium("--dump-dom", "--virtual-time-budget=5000", f"--window-size={window}", url=probed.as_uri())
        match = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
        self.assertIsNotNone(match, dom[-500:])
        return json.loads(html_module.unescape(match.group(1)))

    def check_geometry(self, figures):
        """What a reviewer checks of every figure: drawn at full size, an axis with its title, a legend (or the
        sentence saying nothing is drawn), marks, ticks of 12 px or more, no text on text, no text outside."""
        self.assertTrue(figures)
        for fig in figures:
            with self.subTest(figure=fig["name"]):
                self.assertAlmostEqual(fig["scale"], 1.0, places=2)  # not shrunk: the fonts are the sizes set
                self.assertGreaterEqual(fig["axes"], 1)
                self.assertTrue([t for t in fig["texts"] if t["cls"] == "label" and t["text"]], "no axis title")
                self.assertTrue(fig["legend"] or fig["notes"], "no legend")
                self.assertTrue(fig["marks"] or fig["notes"], "no marks and no sentence")
                for mark in fig["marks"]:
                    self.assertGreater(mark[1] + mark[2], 0, mark)  # every mark is drawn, not a zero-size path
                if fig["name"] != "standalone":
                    self.assertIn(" n = ", fig["caption"])  # every caption states n
                left, top, right, bottom = fig["box"]
                for t in fig["texts"]:
                    self.assertGreaterEqual(t["size"] * fig["scale"], 12, t)
                    b = t["box"]
                    self.assertTrue(b[0] >= left - 0.5 and b[2] <= right + 0.5 and b[1] >= top - 0.5 and b[3] <= bottom + 0.5,
                                    ("outside the figure", t["text"], b, fig["box"]))
                texts = fig["texts"]
                for i, a in enumerate(texts):
                    for b in texts[i + 1:]:
                        self.assertFalse(overlap(a["box"], b["box"]), ("text on text", a["text"], a["box"], b["text"], b["box"]))

    def check_proportions(self, figures):
        """What a reviewer checks of the report's counts, as Chromium drew them: each mark in proportion to the samples
        or items it stands for, no horizon bar wider than its bin, and one scale for every breakdown of the page."""
        breakdowns = []
        for fig in figures:
            name = fig["name"]
            with self.subTest(figure=name):
                if name == "comparison-samples" or name.endswith("-tclr"):
                    self._check_rows(fig)
                elif name.endswith("-horizon"):
                    self._check_horizon(fig)
                elif "-by-" in name:
                    breakdowns.append(fig)
        if breakdowns:
            self._check_breakdowns(breakdowns)

    def _check_rows(self, fig):
        """A per-sample chart: a mark titled ``k samples: ...`` is k times as tall as one sample's row; unlabelled,
        the count of every mark adds up to the n its scale ends at."""
        kinds = ("point s0",) if fig["name"] == "comparison-samples" else ("bar s", "bar zero", "bar band")
        marks = {}
        for m in fig["marks"]:  # one mark per group: a group with no bar but its band is drawn by the band
            if m[0].startswith(kinds) and not m[0].endswith(" key"):  # a legend's swatch stands for no sample
                marks.setdefault(m[5].removesuffix(" (band)"), m)
        marks = list(marks.values())
        if not marks:
            return  # a run with no leak: the sentence, no rows
        counts = [int(m[5].split()[0]) if re.match(r"\d+ samples?: ", m[5]) else 1 for m in marks]
        rows = [t for t in fig["ticks"] if t[3] == "end" and t[0].isdigit()]
        if rows:  # unlabelled: a scale from 0 to n counts the rows
            n = int(rows[-1][0])
            self.assertEqual(sum(counts), n)
            per = (rows[-1][2] - rows[0][2]) / n
        else:
            per = None
        heights = [m[2] / k for m, k in zip(marks, counts)]
        if fig["name"] == "comparison-samples" and not rows:  # labelled: one circle per sample, all one size
            self.assertLess(max(heights) - min(heights), 0.01, heights)
            return
        for h in heights:
            self.assertAlmostEqual(h / (per or heights[0]), 1.0, delta=0.02, msg=(fig["name"], heights))

    def _check_horizon(self, fig):
        """Bars of area in proportion to their counts, each inside its bin's edges (the ticks at the bins' first days)."""
        bars = [m for m in fig["marks"] if m[0] == "bar horizon"]
        if not bars:
            return
        edges = {t[0]: t[1] for t in fig["ticks"] if t[3] == "middle"}
        firsts = {"1-7": "1", "8-31": "8", "32-92": "32", "93-183": "93", "184-366": "184", ">366": "367"}
        order = list(firsts)
        per_item = []
        for m in bars:
            label, count = m[5].split(" days: ")[0], int(m[5].split(" days: ")[1].split()[0])
            per_item.append((m[1] + 1.0) * m[2] / count)  # each bar is inset by half a pixel each side
            left = edges.get(firsts[label])
            if left is not None:
                self.assertGreaterEqual(m[3], left - 0.01, ("wider than its bin", m))
            following = order[order.index(label) + 1:]
            right = edges.get(firsts[following[0]]) if following else fig["box"][2] - fig["box"][0]
            if right is not None:
                self.assertLessEqual(m[3] + m[1], right + 0.01, ("wider than its bin", m))
        for a in per_item:
            self.assertAlmostEqual(a / per_item[0], 1.0, delta=0.02, msg=per_item)

    def _check_breakdowns(self, figs):
        """One axis for every breakdown of the page (same ticks at the same places); each bar's length its share."""
        axes = {tuple((t[0], t[1]) for t in f["ticks"] if t[3] == "middle") for f in figs}
        self.assertEqual(len(axes), 1, axes)
        [axis] = axes
        (lo_text, lo_x), (hi_text, hi_x) = axis[0], axis[-1]
        self.assertEqual(lo_text, "0%")
        per_share = (hi_x - lo_x) / (float(hi_text.rstrip("%")) / 100)
        for f in figs:
            for m in f["marks"]:
                found = re.search(r": (\d+) of (\d+) samples", m[5])
                if found:
                    share = int(found.group(1)) / int(found.group(2))
                    self.assertAlmostEqual(m[1], share * per_share, delta=0.1, msg=(f["name"], m))

    def check_standalone(self, svg_file):
        """A standalone SVG file: rendered alone at its own size (drawn, not blank), then inline in an empty page,
        measured: its caption drawn below, and every check of :meth:`check_geometry`."""
        root = ElementTree.fromstring(svg_file.read_text(encoding="utf-8"))
        width, height = int(root.get("width")), int(root.get("height"))
        shot = svg_file.with_suffix(".png")
        self.run_chromium(f"--window-size={width},{height}", f"--screenshot={shot}", url=svg_file.as_uri())
        w, h, raw = png_pixels(shot.read_bytes())
        self.assertEqual((w, h), (width, height))
        self.assertGreater(len(set(raw[:: 97])), 16)  # drawn, not blank
        text = svg_file.read_text(encoding="utf-8").split("\n", 1)[1]
        wrapper = svg_file.with_name(f"{svg_file.stem}-standalone.html")
        wrapper.write_text(f'<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" '
                           f'content="{content_security_policy("")}"></head><body style="margin:0">{text}</body></html>',
                           encoding="utf-8")
        [fig] = self.probe(wrapper, window=f"{width},{height}")["figures"]
        self.assertTrue([t for t in fig["texts"] if t["cls"] == "caption"])
        self.check_geometry([{**fig, "name": "standalone"}])
