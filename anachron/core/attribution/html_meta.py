"""The date metadata of a fetched HTML page: :func:`html_dates`, one linear scan of its first characters.

Read, each first occurrence: ``<meta>`` ``article:published_time``,
``og:published_time``, ``article:modified_time``, ``og:updated_time`` (the
tag named by ``property``, else ``name``, else ``itemprop``), JSON-LD
``datePublished`` and ``dateModified`` (shallowest first), the first
``<time datetime>``.  Only the first :data:`HTML_SCAN_CHARS` characters are
read; comments are skipped; malformed markup costs linear time.  The values
are returned raw: the date attribution reads them (docs/dating.md).
"""

from __future__ import annotations

import html
import json
import re
from typing import Iterator

__all__ = [
    "HTML_MODIFIED", "HTML_PUBLISHED", "HTML_SCAN_CHARS", "JSON_LD_MAX_NODES", "MAX_JSON_LD_BLOCKS", "MAX_TAG_CHARS", "html_dates",
]

_FLAGS = re.ASCII | re.IGNORECASE
# HTML metadata is searched for in the first HTML_SCAN_CHARS characters of a
# fetched text only, so a megabyte page costs no more than a large <head>.
HTML_SCAN_CHARS = 256 * 1024
# JSON-LD trees are walked for at most this many nodes.
JSON_LD_MAX_NODES = 10_000

# HTML is scanned once, left to right, stopping only where a date may be: a
# <meta> tag followed by "_time" before the next '<' (every meta key read
# ends in "_time"), a <time> tag, a <script> tag mentioning "+json"
# (application/ld+json), and comments, skipped whole (a tag inside one is no
# tag).  A tag's attributes end at the first '>' outside quotes, looked for
# within MAX_TAG_CHARS.  Each pattern is unambiguous, each look-ahead ends at
# the next '<', and the scan never re-reads what it has passed: its work is
# linear in the window's length, however malformed the page.
_MARKUP = re.compile(
    r"<(?=[mtsMTS!])(?:(?P<meta>meta)\b(?=[^<]*_time)|(?P<time>time)\b"
    r"|(?P<script>script)\b(?=[^<>]*\+json)|(?P<comment>!--))",
    _FLAGS,
)
_TAG_REST = re.compile(r"([^>\"']*(?:(?:\"[^\"]*\"|'[^']*')[^>\"']*)*)>")
_SCRIPT_END = re.compile(r"</script\s*>", _FLAGS)
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


def _markup(text: str, size: int) -> Iterator[tuple[str, dict[str, str], str]]:
    """``(kind, attributes, content)`` of each candidate tag in the first
    *size* characters of *text*, left to right: kind ``meta``, ``time`` or
    ``script`` (a JSON-LD one, with its content; the others have ``""``).

    A tag whose end is not within :data:`MAX_TAG_CHARS` (an unclosed quote)
    is skipped with every character examined; an unclosed comment or JSON-LD
    script ends the scan, as it ends the page for a browser.  Nothing at or
    after *size* is read.
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
        attributes = _attributes(rest.group(1))
        if kind != "script":
            yield kind, attributes, ""
            continue
        if attributes.get("type", "").strip().lower() != "application/ld+json":
            continue
        close_script = _SCRIPT_END.search(window, position, size)
        if close_script is None:
            return
        content = window[position:close_script.start()]
        position = close_script.end()
        yield kind, attributes, content


def _json_ld_dates(block: str, found: dict[str, object], problems: list[str]) -> None:
    """Record the shallowest ``datePublished`` and ``dateModified`` of one JSON-LD block.

    Breadth-first, document order at equal depth, so the page's own entity
    wins over an article it lists; at most :data:`JSON_LD_MAX_NODES` nodes.
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
                for key in ("datePublished", "dateModified"):
                    label = f"html json-ld {key}"
                    if key in node and label not in found:
                        found[label] = node[key]
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
    for kind, attributes, content in _markup(text, size):
        if kind == "meta":
            key = (attributes.get("property") or attributes.get("name") or attributes.get("itemprop") or "").strip().lower()
            if key in _META_PUBLISHED or key in _META_MODIFIED:
                found.setdefault(f"html {key}", attributes.get("content", ""))
        elif kind == "time":
            if "datetime" in attributes and "html <time datetime>" not in found:
                found["html <time datetime>"] = attributes["datetime"]
        elif blocks < MAX_JSON_LD_BLOCKS:
            blocks += 1
            _json_ld_dates(content, found, problems)
    return found


# The labels html_dates gives, published dates in the order a date is taken from them.
HTML_PUBLISHED = (
    "html article:published_time", "html og:published_time", "html json-ld datePublished", "html <time datetime>",
)
HTML_MODIFIED = ("html article:modified_time", "html og:updated_time", "html json-ld dateModified")

