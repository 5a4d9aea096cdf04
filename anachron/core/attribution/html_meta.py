"""The date metadata of a fetched HTML page: :func:`html_dates`, one linear scan of its first characters.

Read, each first occurrence: ``<meta>`` ``article:published_time``,
``og:published_time``, ``article:modified_time``, ``og:updated_time`` (the
tag named by ``property``, else ``name``, else ``itemprop``), JSON-LD
``datePublished`` and ``dateModified`` of the entity of the page's own type
(an article or posting, then a web page, then any other, a site, publisher
or person last; shallowest first within a rank; ``@graph`` included), the
first ``<time datetime>`` outside ``<aside>``, ``<nav>``, ``<footer>`` and
related-content blocks (a ``div``, ``section``, ``ul``, ``ol``, ``li``,
``span``, ``figure``, ``header`` or ``details`` whose class, id, role or
aria-label names related, recommended, sidebar, complementary, navigation
or contentinfo content): those date other pages, and are skipped whole.  What a ``<script>`` (but a
JSON-LD one) or a ``<style>`` holds is no markup: a meta tag inside an
inline script is not the page's.  Only the first :data:`HTML_SCAN_CHARS`
characters are read; comments are skipped; malformed markup costs linear
time.  The values are returned raw: the date attribution reads them
(docs/dating.md).
"""

from __future__ import annotations

import html
import json
import re
from typing import Iterator

__all__ = [
    "HTML_MODIFIED", "HTML_PUBLISHED", "HTML_SCAN_CHARS", "JSON_LD_MAX_NODES", "MAX_BLOCK_CLOSES", "MAX_JSON_LD_BLOCKS",
    "MAX_TAG_CHARS", "html_dates",
]

_FLAGS = re.ASCII | re.IGNORECASE
# HTML metadata is searched for in the first HTML_SCAN_CHARS characters of a
# fetched text only, so a megabyte page costs no more than a large <head>.
HTML_SCAN_CHARS = 256 * 1024
# JSON-LD trees are walked for at most this many nodes.
JSON_LD_MAX_NODES = 10_000

# HTML is scanned once, left to right, stopping only where a date may be or
# where what follows is no page metadata: a <meta> tag followed by "_time"
# before the next '<' (every meta key read ends in "_time"), a <time> tag, a
# <script> or <style> (skipped to its end unless JSON-LD), comments (skipped
# whole: a tag inside one is no tag), an <aside>, <nav> or <footer>, and a
# container tag whose class, id, role or aria-label names a related-content keyword.  A tag's attributes
# end at the first '>' outside quotes, looked for within MAX_TAG_CHARS.  Each
# pattern is unambiguous, each look-ahead ends at the next '<' or '>', and
# the scan never re-reads what it has passed; the end of an excluded block
# is looked for once, and no block is looked for inside one: the work is
# linear in the window's length, however malformed the page.
_BLOCK_NAMES = ("aside", "nav", "footer", "div", "section", "ul", "ol", "li", "span", "figure", "header", "details")
# Per block name, its opening and its closing tag.  A block's end is found close tag by close
# tag, the opening tags between two of them counted by the regex engine (same-name tags nest);
# after MAX_BLOCK_CLOSES close tags the block is taken to end there, so a page of ten thousand
# nested <div>s costs a few regex calls, not a Python step per tag.
_BLOCK_TAGS = {
    name: (re.compile(rf"<{name}(?![a-z0-9-])", _FLAGS), re.compile(rf"</{name}(?![a-z0-9-])", _FLAGS))
    for name in _BLOCK_NAMES
}
MAX_BLOCK_CLOSES = 256
_RELATED_WORDS = ("related", "recommend", "sidebar", "complementary", "navigation", "contentinfo")
# A related block is a container tag (the names a page lays blocks out with: a look-ahead on
# every <p> and <a> would cost a third of the scan) with a class, id, role or aria-label value naming a keyword; the
# look-ahead's two lazy runs are bounded (a tag's attributes, a value's head), so a tag costs
# at most MAX_TAG_CHARS * 256 steps, however it is written.  The first-letter filter lets the
# commonest tags (<p>, <br>, <img>, <i>, <b>...) pass at the cost of one character test.
_MARKUP = re.compile(
    r"<(?=[mtsnafdulohMTSNAFDULOH!])(?:(?P<meta>meta)\b(?=[^<]*_time)|(?P<time>time)\b"
    r"|(?P<script>script|style)\b|(?P<comment>!--)|(?P<block>" + "|".join(_BLOCK_NAMES[:3]) + r")\b"
    r"|(?P<related>" + "|".join(_BLOCK_NAMES[3:]) + r")(?=\s[^<>]{0,2048}?(?:class|id|role|aria-label)\s*=\s*[\"']?"
    r"[^\"'<>]{0,256}?(?:" + "|".join(_RELATED_WORDS) + r")))",
    _FLAGS,
)
_BLOCK_ATTRIBUTES = ("class", "id", "role", "aria-label")
_TAG_REST = re.compile(r"([^>\"']*(?:(?:\"[^\"]*\"|'[^']*')[^>\"']*)*)>")
_END_OF = {"script": re.compile(r"</script\s*>", _FLAGS), "style": re.compile(r"</style\s*>", _FLAGS)}
_ATTRIBUTE = re.compile(r"([^\s=/>\"']+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>\"']+)))?", re.ASCII)
MAX_TAG_CHARS = 2048
MAX_JSON_LD_BLOCKS = 16
_META_PUBLISHED = ("article:published_time", "og:published_time")
_META_MODIFIED = ("article:modified_time", "og:updated_time")


def _attributes(text: str) -> dict[str, str]:
    """A tag's attributes, names lowercased, values unescaped; the first of a name wins."""
    found: dict[str, str] = {}
    for match in _ATTRIBUTE.finditer(text):
        name = match.group(1).lower()
        if name not in found:
            value = next((v for v in match.group(2, 3, 4) if v is not None), "")
            found[name] = html.unescape(value) if "&" in value else value
    return found


def _is_related(attributes: dict[str, str]) -> bool:
    """Whether a tag's class, id, role or aria-label names related (not the page's own) content."""
    for name in _BLOCK_ATTRIBUTES:
        value = attributes.get(name)
        if value and any(word in value.lower() for word in _RELATED_WORDS):
            return True
    return False


def _block_end(window: str, name: str, position: int, size: int) -> int:
    """Where the element *name* opened just before *position* ends: after its matching close
    tag (same-name elements nest), or *size* when it is not closed in the window; after
    :data:`MAX_BLOCK_CLOSES` close tags of its name, at the last of them."""
    opens, closes = _BLOCK_TAGS[name.lower()]
    depth = 1
    for _ in range(MAX_BLOCK_CLOSES):
        close = closes.search(window, position, size)
        depth += len(opens.findall(window, position, close.start() if close else size))
        if close is None:
            return size
        position, depth = close.end(), depth - 1
        if depth == 0:
            break
    return position


def _markup(text: str, size: int) -> Iterator[tuple[str, dict[str, str], str]]:
    """``(kind, attributes, content)`` of each candidate tag in the first
    *size* characters of *text*, left to right: kind ``meta``, ``time`` or
    ``script`` (a JSON-LD one, with its content; the others have ``""``).

    An aside, nav, footer or related-content block is skipped whole: what it
    holds is about other pages.  A tag whose end is not within
    :data:`MAX_TAG_CHARS` (an unclosed quote) is skipped with every character
    examined; an unclosed comment, script, style or excluded block ends the
    scan, as it ends the page for a browser.  Nothing at or after *size* is read.
    """
    window, position = text, 0  # searched up to size, never sliced: no copy of a large text
    while True:
        start = _MARKUP.search(window, position, size)
        if start is None:
            return
        kind = start.lastgroup
        if kind == "comment":
            close = window.find("-->", start.end(), size)
            if close < 0:
                return
            position = close + 3
            continue
        limit = min(start.end() + MAX_TAG_CHARS, size)
        rest = _TAG_REST.match(window, start.end(), limit)
        if rest is None:
            position = limit
            continue
        position = rest.end()
        if kind in ("block", "related"):
            if rest.group(1).endswith("/") or (kind == "related" and not _is_related(_attributes(rest.group(1)))):
                continue  # an empty element holds nothing; a keyword elsewhere in the tag names nothing
            position = _block_end(window, start.group(kind), position, size)
            continue
        attributes = _attributes(rest.group(1))
        if kind != "script":
            yield kind, attributes, ""
            continue
        name = start.group("script").lower()
        close = _END_OF[name].search(window, position, size)
        if close is None:
            return
        content, position = window[position:close.start()], close.end()
        if name == "script" and attributes.get("type", "").strip().lower() == "application/ld+json":
            yield kind, attributes, content


_SITE_TYPES = frozenset({
    "website", "organization", "newsmediaorganization", "corporation", "person", "brand", "imageobject",
    "sitenavigationelement", "breadcrumblist", "wpheader", "wpfooter", "wpsidebar", "listitem", "itemlist",
})


def _rank(node: dict) -> int:
    """How surely an entity is the page itself: 0 an article or posting, 1 a web page, 2 any other
    (untyped too), 3 a site, publisher, person or list, which date something else."""
    kinds = node.get("@type")
    names = [kinds] if isinstance(kinds, str) else [k for k in kinds if isinstance(k, str)] if isinstance(kinds, list) else []
    best = 2 if not names else 3
    for name in names:
        name = name.rsplit("/", 1)[-1].rsplit(":", 1)[-1].lower()  # schema:NewsArticle, https://schema.org/Article
        if name.endswith(("article", "posting", "report", "pressrelease")):
            return 0
        best = min(best, 1 if name.endswith("page") else 3 if name in _SITE_TYPES else 2)
    return best


def _json_ld_dates(block: str, found: dict[str, object], ranks: dict[str, int], problems: list[str]) -> None:
    """Record the ``datePublished`` and ``dateModified`` of the page's own entity in one JSON-LD block.

    The best :func:`_rank` wins (over earlier blocks too); within a rank the
    shallowest, in document order at equal depth (breadth-first), so the
    page's own entity wins over an article it lists; at most
    :data:`JSON_LD_MAX_NODES` nodes.
    """
    try:
        queue = [json.loads(block)]
    except (ValueError, RecursionError):
        problems.append("html json-ld: not valid JSON")
        return
    visited = 0
    while queue and visited < JSON_LD_MAX_NODES:
        following = []
        for node in queue:
            visited += 1
            if isinstance(node, dict):
                rank = None
                for key in ("datePublished", "dateModified"):
                    if key in node:
                        label = f"html json-ld {key}"
                        rank = _rank(node) if rank is None else rank
                        if rank < ranks.get(label, 4):
                            found[label], ranks[label] = node[key], rank
                following.extend(v for v in node.values() if isinstance(v, (dict, list)))
            elif isinstance(node, list):
                following.extend(v for v in node if isinstance(v, (dict, list)))
        queue = following


def html_dates(text: str, problems: list[str]) -> dict[str, object]:
    """The date metadata of the first :data:`HTML_SCAN_CHARS` characters of *text*.

    Keys are source labels (``html article:published_time``, ``html
    og:published_time``, ``html article:modified_time``, ``html
    og:updated_time``, ``html json-ld datePublished``, ``html json-ld
    dateModified``, ``html <time datetime>``); values the raw value of the
    first occurrence (a meta tag's ``content``, a ``<time>``'s ``datetime``,
    the shallowest JSON-LD key of the first :data:`MAX_JSON_LD_BLOCKS`
    ``application/ld+json`` scripts).  Attribute order, case and quoting do
    not matter; a meta tag is named by ``property``, else ``name``, else ``itemprop``.

    >>> html_dates('<meta content="2023-02-09" property="article:published_time">', [])
    {'html article:published_time': '2023-02-09'}
    """
    size = min(len(text), HTML_SCAN_CHARS)
    found: dict[str, object] = {}
    if text.find("<", 0, size) < 0:  # not HTML
        return found
    blocks = 0
    ranks: dict[str, int] = {}
    for kind, attributes, content in _markup(text, size):
        if kind == "meta":
            key = (attributes.get("property") or attributes.get("name") or attributes.get("itemprop") or "").strip().lower()
            if key in _META_PUBLISHED or key in _META_MODIFIED:
                found.setdefault(f"html {key}", attributes.get("content", ""))
        elif kind == "time":
            if "datetime" in attributes and "html <time datetime>" not in found:
                found["html <time datetime>"] = attributes["datetime"]
        elif kind == "script" and blocks < MAX_JSON_LD_BLOCKS:
            blocks += 1
            _json_ld_dates(content, found, ranks, problems)
    return found


# The labels html_dates gives, published dates in the order a date is taken from them.
HTML_PUBLISHED = (
    "html article:published_time", "html og:published_time", "html json-ld datePublished", "html <time datetime>",
)
HTML_MODIFIED = ("html article:modified_time", "html og:updated_time", "html json-ld dateModified")

