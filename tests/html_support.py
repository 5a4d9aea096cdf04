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
import re
import shutil
import struct
import subprocess
import tempfile
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
