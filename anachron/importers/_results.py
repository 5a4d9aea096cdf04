"""Tool results as returned items: one rule for every importer (docs/importers.md).

- a JSON result holding a list of objects with a ``url`` or ``link`` string
  gives one open-web item per object.  The list is the result itself, or sits
  under :data:`LIST_PATHS` (``results``: Tavily, Exa; ``web.results``: Brave;
  ``organic``: Serper; ``organic_results``: SerpAPI; ``data``: Firecrawl and
  others).  Each item keeps the url, a title, a snippet (the first of
  :data:`SNIPPET_FIELDS`), the page text (:data:`TEXT_FIELDS`) and every date
  field attribution reads, as given: the core dates them;
- any other result, JSON or plain text, gives the URLs in its text, each
  with its line as the snippet (the line may carry the date);
- a fetch gives one item: the URL fetched and the text read, HTML or plain;
- with a corpus, an object whose ``id`` or ``url`` is a corpus item, and a
  word of a text result that is one, become that item's id.

Only what reached the agent is used; nothing here dates or judges an item.
"""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any, Iterator, Mapping

from anachron.core import Corpus
from anachron.core.attribution import DATE_FIELDS, MODIFIED_FIELDS
from anachron.core.jsonio import json_line, json_or_none

__all__ = ["LIST_PATHS", "fetch_item", "result_items", "text_items", "text_of"]

LIST_PATHS = (("results",), ("web", "results"), ("organic",), ("organic_results",), ("data",))
SNIPPET_FIELDS = ("snippet", "description", "content", "summary")
TEXT_FIELDS = ("text", "raw_content", "markdown")
_DATES = tuple(dict.fromkeys(DATE_FIELDS + MODIFIED_FIELDS))  # one order: a set's would follow string hashing

# Of a result kept in the trace: the core reads at most 256 KiB of an item's text.
MAX_TEXT = 256 * 1024
MAX_SNIPPET = 2048
MAX_WALK = 10_000  # JSON nodes visited when a result's strings are collected

_URL = re.compile(r"https?://[^\s<>\"'`\\\]\[(){}|^]+", re.ASCII | re.IGNORECASE)
_URL_TAIL = ".,;:!?*_~'\""
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]*")


def text_of(value: Any) -> str:
    """The text of a result value: a string as is; content parts' ``text`` joined; else compact JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, dict) for part in value):
        texts = [part.get("text") for part in value]
        if any(isinstance(t, str) for t in texts):
            return "\n".join(t for t in texts if isinstance(t, str))
    if value is None:
        return ""
    return json_line(value, default=str)


def _as_json(value: Any) -> Any:
    """A string that is a JSON object or array, parsed; anything else unchanged."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        parsed = json_or_none(value)
        return value if parsed is None else parsed
    return value


def _listed(value: Any) -> list[Any] | None:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        for path in LIST_PATHS:
            node: Any = value
            for key in path:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, list):
                return node
    return None


def _first_text(entry: Mapping[str, Any], names: tuple[str, ...], limit: int) -> str | None:
    for name in names:
        value = entry.get(name)
        if isinstance(value, str) and value:
            return value[:limit]
    return None


def _url_of(entry: Mapping[str, Any]) -> str | None:
    for name in ("url", "link"):
        value = entry.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _unlinked_id(entry: Mapping[str, Any]) -> str:
    """An id for a result entry with no URL: it was shown all the same, so it is an item (dated by its
    fields, else undated: never dropped, which would score it clean).  The id is the entry's digest,
    so the same entry shown twice is one item.

    >>> _unlinked_id({"title": "Cygnus IPO", "published_date": "2024-02-09"})
    'urn:anachron:unlinked:373d20b7698d206b'
    """
    digest = hashlib.sha256(json_line(entry, ensure_ascii=True, default=str).encode()).hexdigest()
    return f"urn:anachron:unlinked:{digest[:16]}"


def _object_item(entry: Mapping[str, Any], url: str, corpus: Corpus | None) -> Any:
    ident = entry.get("id")
    if corpus is not None:
        for key in (ident, url):
            if isinstance(key, str) and key in corpus.items:
                return key
    item: dict[str, Any] = {"url": url}
    title = entry.get("title")
    if isinstance(title, str):
        item["title"] = title[:MAX_SNIPPET]
    snippet = _first_text(entry, SNIPPET_FIELDS, MAX_SNIPPET)
    if snippet is not None:
        item["snippet"] = snippet
    text = _first_text(entry, TEXT_FIELDS, MAX_TEXT)
    if text is not None:
        item["text"] = text
    for name in _DATES:
        if name not in entry:
            continue
        value = entry[name]
        kind = type(value)
        if kind is str or kind is int or (kind is float and math.isfinite(value)):
            item[name] = value  # as given (an epoch number too): the core dates it
    return item


def _strings(value: Any) -> Iterator[str]:
    """The strings of a JSON value, depth first, at most :data:`MAX_WALK` nodes (bounds hostile input)."""
    stack, seen = [value], 0
    while stack and seen < MAX_WALK:
        node = stack.pop()
        seen += 1
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, list):
            stack.extend(reversed(node))


def text_items(text: str, corpus: Corpus | None = None) -> list[Any]:
    """The URLs in *text*, one item each with its line as the snippet; with *corpus*, its item ids too."""
    items: list[Any] = []
    seen: set[str] = set()
    for line in text.split("\n"):
        if "://" in line:
            snippet = None  # the line's snippet, normalised once for all its URLs (linear in the line)
            for match in _URL.finditer(line):
                url = match.group().rstrip(_URL_TAIL)  # a sentence's full stop is not part of its URL
                if url in seen or len(url) <= len("https://"):
                    continue
                seen.add(url)
                if corpus is not None and url in corpus.items:
                    items.append(url)
                else:
                    if snippet is None:
                        snippet = " ".join(line.split())[:MAX_SNIPPET]
                    items.append({"url": url, "snippet": snippet})
        if corpus is not None:
            for match in _WORD.finditer(line):
                word = match.group().rstrip(_URL_TAIL)
                if word in corpus.items and word not in seen:
                    seen.add(word)
                    items.append(word)
    return items


def result_items(value: Any, corpus: Corpus | None = None) -> list[Any]:
    """The items a tool result showed the agent (the module's rules); *value* is a string or parsed JSON."""
    parsed = _as_json(value)
    listed = _listed(parsed)
    if listed is not None:
        objects = [(entry, _url_of(entry) or _unlinked_id(entry)) for entry in listed if isinstance(entry, dict)]
        items = [_object_item(entry, url, corpus) for entry, url in objects]
        if items or not listed:
            return _unique(items)
    if isinstance(parsed, str):
        return text_items(parsed, corpus)
    return _unique([item for text in _strings(parsed) for item in text_items(text, corpus)])


def fetch_item(url: str, text: str | None, corpus: Corpus | None = None, title: str | None = None) -> Any:
    """The one item of a fetch: its URL and the text read (HTML or plain), or the corpus id fetched."""
    url = url.strip()
    if corpus is not None and url in corpus.items:
        return url
    item: dict[str, Any] = {"url": url}
    if title:
        item["title"] = title[:MAX_SNIPPET]
    if text:
        item["text"] = text[:MAX_TEXT]
    return item


def _unique(items: list[Any]) -> list[Any]:
    """First appearance of each item (by id or url): one result shows an item once."""
    seen: set[str] = set()
    out = []
    for item in items:
        key = item if isinstance(item, str) else item["url"]
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out
