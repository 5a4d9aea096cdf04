"""Which source dates an item, in order: fields, the URL path, a leading snippet date, HTML metadata,
a statement of publication or update in the snippet or text, ``last_modified``.

:func:`attribute` reads every source the item carries and keeps them all in
``Attribution.sources``; the first usable one dates the item (docs/dating.md,
"Sources, in order"), a coarse source still winning over a more precise one
further down.  An unusable source adds a problem naming it and its value.  A
source that contradicts itself (a wrong weekday) leaves the item undated:
one of its dates is false, and which cannot be told.  The modification day
comes from :data:`MODIFIED_FIELDS`, then HTML metadata.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping
from typing import Any

from anachron.core.errors import AnachronError, describe
from anachron.core.attribution.html_meta import HTML_MODIFIED, HTML_PUBLISHED, html_dates
from anachron.core.attribution.record import Attribution, SourceDate
from anachron.core.attribution.stamps import modification_stamp, publication_statement
from anachron.core.attribution.values import (
    AGO, Contradiction, FLAGS, MONTH_WRITTEN, PLAUSIBLE_YEARS, WEEKDAY_WRITTEN, check_now, day_granule, month_granule, read_value, shown,
)
from anachron.core.grammar.calendar_words import MONTH_STEMS, month_number

__all__ = ["DATE_FIELDS", "MODIFIED_FIELDS", "attribute", "url_path"]

DATE_FIELDS = (
    "publish_date", "published", "published_at", "published_date", "date",
    "datePublished", "publishedDate", "page_age", "age", "crawl_date", "last_modified",
)
# last_modified is in both lists: the only date, it dates the item; beside a
# published date, it is the modification date.
MODIFIED_FIELDS = ("dateModified", "modified", "updated", "last_modified")



_MISSING = object()


def _try(source: str, raw: object, now: _dt.datetime | None, problems: list[str]):
    """``(first, last, granularity)`` of *raw*, or None after recording why not."""
    if raw is None:  # common (a null page_age): no exception for it
        problems.append(f"{source}: not a date: null")
        return None
    try:
        return read_value(raw, now)
    except AnachronError as exc:
        problems.append(f"{source}: {exc}")
        return None


def _read(source: str, raw: object, now: _dt.datetime | None, problems: list[str]) -> SourceDate | None:
    """*raw* as a :class:`SourceDate`; a contradictory one too (granule None); None, with a problem, if unreadable."""
    if raw is None:
        problems.append(f"{source}: not a date: null")
        return None
    try:
        first, last, granularity = read_value(raw, now)
    except Contradiction as exc:
        problems.append(f"{source}: {exc}")
        return SourceDate(source, _raw_text(raw), None, None, None, str(exc))
    except AnachronError as exc:
        problems.append(f"{source}: {exc}")
        return None
    return SourceDate(source, _raw_text(raw), first, last, granularity)


def _raw_text(raw: object) -> str:
    """The raw value as evidence shows it: a string as is, a number as JSON writes it."""
    return raw if isinstance(raw, str) else describe(raw)


def _text_field(entry: Mapping[str, Any], name: str, problems: list[str]) -> str | None:
    """``entry[name]`` when it is a string; a non-string value is ignored with a problem."""
    value = entry.get(name)
    if value is None or isinstance(value, str):
        return value
    problems.append(f"field '{name}': not text: {describe(value)}")
    return None


# --- source 1 and 5: explicit fields ----------------------------------------------


_FIELD_LABELS = {name: f"field '{name}'" for name in DATE_FIELDS + MODIFIED_FIELDS}


def _from_fields(entry: Mapping[str, Any], names: tuple[str, ...], now, problems: list[str], out: list[SourceDate]) -> None:
    """Add a source for every field of *names* (in order) that the entry carries and that reads."""
    for name in names:
        raw = entry.get(name, _MISSING)
        if raw is _MISSING:
            continue
        found = _read(_FIELD_LABELS.get(name) or f"field '{name}'", raw, now, problems)
        if found is not None:
            out.append(found)


# --- source 2: the URL path --------------------------------------------------------

_URL_HOST = re.compile(r"(?:[a-z][a-z0-9+.-]*:)?//[^/?#]*", FLAGS)
_URL_MONTH_NAME = "|".join(MONTH_STEMS)
_URL_MM = r"0[1-9]|1[0-2]"
_URL_DD = r"0[1-9]|[12][0-9]|3[01]"
# Each form starts a path segment; a date inside a slug is not read
# ("tsla-20221231.htm" names a filing's period, not its publication day).
_URL_DATE = re.compile(
    rf"/(?P<y>[0-9]{{4}})/(?:(?P<m>{_URL_MM})|(?P<mon>{_URL_MONTH_NAME}))"
    rf"(?:/(?P<d>{_URL_DD})(?=[/._-]|\Z)|(?=/|\Z))"
    rf"|/(?P<y2>[0-9]{{4}})-(?P<m2>{_URL_MM})-(?P<d2>{_URL_DD})(?=[/._-]|\Z)"
    rf"|/(?P<y3>[0-9]{{4}})(?P<m3>{_URL_MM})(?P<d3>{_URL_DD})(?=[/._-]|\Z)",
    FLAGS,
)
_LOOKS_LIKE_URL = re.compile(r"https?://", FLAGS)


def url_path(url: str) -> str:
    """The path of *url*: after the scheme and host, before ``?`` or ``#``.

    >>> url_path("https://www.nytimes.com/2023/02/09/business/x.html?smid=url-share")
    '/2023/02/09/business/x.html'
    """
    host = _URL_HOST.match(url)
    path = url[host.end():] if host else url
    for mark in "?#":
        path = path.partition(mark)[0]
    return path


def _url_of(entry: Mapping[str, Any], problems: list[str]) -> str | None:
    """The entry's ``url``, else its ``id`` when that is an http(s) URL."""
    url = _text_field(entry, "url", problems)
    if url is not None:
        return url
    ident = entry.get("id")
    if isinstance(ident, str) and _LOOKS_LIKE_URL.match(ident):
        return ident
    return None


def _from_url(entry: Mapping[str, Any], problems: list[str]):
    """The first date in the URL path with a plausible year; an impossible day is a problem.

    Years outside :data:`PLAUSIBLE_YEARS` are skipped silently: in a path they are ids.
    """
    url = _url_of(entry, problems)
    if not url:
        return None
    for match in _URL_DATE.finditer(url_path(url)):
        year = int(match["y"] or match["y2"] or match["y3"])
        if year not in PLAUSIBLE_YEARS:
            continue
        text = match.group(0)
        if match["y"]:
            month = int(match["m"]) if match["m"] else month_number(match["mon"])
            day = match["d"]
        else:
            month, day = int(match["m2"] or match["m3"]), match["d2"] or match["d3"]
        try:
            found = day_granule(year, month, int(day), text) if day else month_granule(year, month, text)
        except AnachronError as exc:  # an impossible day such as /2023/02/30
            problems.append(f"url: {exc}")
            continue
        return SourceDate("url", text, *found)
    return None


# --- source 3: a leading date in the snippet ----------------------------------------

_SHAPE_MONTH = MONTH_WRITTEN.replace("(?P<mon>", "(?:")
_SHAPE_WEEKDAY = WEEKDAY_WRITTEN.replace("(?P<wd>", "(?:")
_SNIPPET_LEAD = re.compile(
    r"(?P<date>"
    + _SHAPE_WEEKDAY + _SHAPE_MONTH + r" [0-9]{1,2}(?:st|nd|rd|th)?(?:, ?| )[0-9]{4}"
    + r"|" + _SHAPE_WEEKDAY + r"[0-9]{1,2}(?:st|nd|rd|th)? " + _SHAPE_MONTH + r",? [0-9]{4}"
    + r"|[0-9]{4}-[0-9]{2}-[0-9]{2}"
    + r"|" + AGO.pattern.replace("(?P<n>", "(?:").replace("(?P<unit>", "(?:")
    + r"|yesterday|today"
    + r")(?= ?(?:—|–|-|·|\||:|\.\.\.|…)|\Z)",
    FLAGS,
)
# A leading date sits in the first characters; only these are normalised.
_SNIPPET_HEAD_CHARS = 120


def _from_snippet(entry: Mapping[str, Any], now, problems: list[str]):
    """A day the snippet starts with, followed by a separator (``—``, ``-``, ``·``,
    ``|``, ``:``, ``...``) or nothing: ``"Feb 9, 2023 — Cygnus ..."``.

    A date followed by plain prose ("March 2020 was ...") is not read: it may
    be the subject, not the publication day.
    """
    snippet = _text_field(entry, "snippet", problems)
    if not snippet:
        return None
    head = " ".join(snippet[:_SNIPPET_HEAD_CHARS].split())
    match = _SNIPPET_LEAD.match(head)
    if not match:
        return None
    return _read("snippet", match["date"], now, problems)


def _from_html(metadata: Mapping[str, object], now, problems: list[str], out: list[SourceDate]) -> None:
    """Add a source for every published-date metadata, in :data:`HTML_PUBLISHED` order, that reads."""
    for label in HTML_PUBLISHED:
        if label in metadata:
            found = _read(label, metadata[label], now, problems)
            if found is not None:
                out.append(found)


def _from_statement(entry: Mapping[str, Any]) -> SourceDate | None:
    """The latest publication or update the snippet or text states of the page itself
    (:func:`.stamps.publication_statement`: "published in June 2023", "last updated: March 3, 2023").

    A page that says it was published or updated after T is post-T whatever its other sources
    say: as a source, it makes the lock withhold the item and the scorer record a date conflict.
    """
    best: SourceDate | None = None
    for name in ("snippet", "text"):
        value = entry.get(name)
        found = publication_statement(value) if isinstance(value, str) and value else None
        if found is None:
            continue
        first, last, granularity = read_value(found[0], None)  # read once already: it reads
        if best is None or first > best.first:
            best = SourceDate(f"{name} statement", found[1], first, last, granularity)
    return best


# --- modification dates -------------------------------------------------------------


def _modification(candidates, now, problems: list[str]) -> tuple[_dt.date | None, str | None]:
    """The first modification day among *candidates* ``(source, raw)`` that reads.

    Only a day counts: a coarser value cannot say whether the edit came after T.
    """
    for source, raw in candidates:
        found = _try(source, raw, now, problems)
        if found is None:
            continue
        if found[2] != "day":
            problems.append(f"{source}: {shown(_raw_text(raw))} is a {found[2]}, not a modification day")
            continue
        return found[0], source
    return None, None


def _stamped(entry: Mapping[str, Any]) -> tuple[_dt.date | None, str | None]:
    """The day a modification stamp in the shown snippet or text names (:func:`.stamps.modification_stamp`), the latest."""
    best: tuple[_dt.date, str] | None = None
    for name in ("snippet", "text"):
        value = entry.get(name)
        found = modification_stamp(value) if isinstance(value, str) and value else None
        if found is not None and (best is None or found[0] > best[0]):
            best = (found[0], f"{name} stamp '{shown(found[1])}'")
    return (best[0], best[1]) if best is not None else (None, None)


def _html_metadata(entry: Mapping[str, Any], problems: list[str]) -> dict[str, object]:
    text = _text_field(entry, "text", problems)
    return html_dates(text, problems) if text else {}


_PUBLISHED_FIELDS = DATE_FIELDS[:-1]


def _has_any(entry: Mapping[str, Any], names: tuple[str, ...]) -> bool:
    """Whether *entry* has any of *names* (a loop: cheaper than building the candidates for nothing)."""
    for name in names:
        if name in entry:
            return True
    return False
_MODIFIED_ONLY = tuple(name for name in MODIFIED_FIELDS if name != "last_modified")


def attribute(entry: Mapping[str, Any], *, now: _dt.datetime | None = None) -> Attribution:
    """Date *entry* (a search or fetch result as a JSON object) by its first usable source, keeping every source.

    Order: the fields of :data:`DATE_FIELDS` but ``last_modified``; the URL
    path (its first plausible date); a leading date in ``snippet``; HTML
    metadata in ``text``; the latest publication or update the snippet or
    text states of the page ("published in June 2023"); ``last_modified`` (a source only when no other one
    reads).  Every source that reads is in ``sources``, in that order; the
    first dates the item.  A source that contradicts itself (``Wed, 3 Jan
    2023``, a Tuesday) is in ``sources`` too, and leaves the item undated
    whatever the others say.  *now* (the call's own timestamp) resolves
    relative ages such as ``3 days ago``; without it they stay unread, with
    a problem.  The modification day comes from :data:`MODIFIED_FIELDS`
    (``last_modified`` only when another source dated the item), then HTML
    metadata, then a modification stamp in the shown snippet or text
    ("Last modified: 2024-05-28", "Updated June 5, 2024": the latest day one
    names, :mod:`.stamps`).

    Never raises for a JSON-like entry (any mapping, or even a non-mapping,
    which is undated): anything unreadable is a problem.  Only a *now* that
    is not a ``datetime`` raises, an error of the caller.

    >>> a = attribute({"url": "https://example.com/2024/01/05/x", "page_age": "February 9, 2023"})
    >>> a.first, a.granularity, a.source, [s.source for s in a.sources]
    (datetime.date(2023, 2, 9), 'day', "field 'page_age'", ["field 'page_age'", 'url'])
    """
    now = check_now(now)
    if type(entry) is not dict and not isinstance(entry, Mapping):
        return Attribution(None, None, None, None, None, (f"entry: expected an object, got {describe(entry)}",))
    problems: list[str] = []
    sources: list[SourceDate] = []
    _from_fields(entry, _PUBLISHED_FIELDS, now, problems, sources)
    for found in (_from_url(entry, problems), _from_snippet(entry, now, problems)):
        if found is not None:
            sources.append(found)
    metadata = _html_metadata(entry, problems) if "text" in entry else {}
    _from_html(metadata, now, problems, sources)
    stated = _from_statement(entry)
    if stated is not None:
        sources.append(stated)
    found = contradicted = None
    for source in sources:  # one pass: the first usable source, and any contradiction
        if source.contradiction is not None:
            contradicted = source
        elif found is None:
            found = source
    modified_fields = MODIFIED_FIELDS
    if found is None:
        _from_fields(entry, ("last_modified",), now, problems, sources)
        modified_fields = _MODIFIED_ONLY
        if sources and sources[-1].source == _FIELD_LABELS["last_modified"]:  # it read
            found, contradicted = (None, sources[-1]) if sources[-1].contradiction else (sources[-1], contradicted)
    modified, modified_source = _modification(
        [(_FIELD_LABELS[name], entry[name]) for name in modified_fields if name in entry], now, problems
    ) if _has_any(entry, modified_fields) else (None, None)
    if modified is None and metadata:
        modified, modified_source = _modification(
            [(label, metadata[label]) for label in HTML_MODIFIED if label in metadata], now, problems
        )
    if modified is None:
        modified, modified_source = _stamped(entry)
    if found is None or contradicted is not None:
        return Attribution(None, None, None, None, None, tuple(problems), modified, modified_source, tuple(sources))
    return Attribution(
        found.first, found.last, found.granularity, found.source, found.value, tuple(problems),
        modified, modified_source, tuple(sources),
    )
