"""Date an item of the open web: which day (or month, or year) was it published?

A search or fetch result from a live service (Brave, Tavily, Exa, the
Anthropic web search tool, a fetched page) carries its date, when it carries
one at all, in many shapes.  :func:`attribute` reads the first usable one and
returns an :class:`Attribution`: the *granule* the item was published in (a
day, a month or a year, as ``first``..``last``), where the date came from,
the raw text read, and why earlier sources were unusable (docs/dating.md).

By concern:

- :mod:`.sources`: the order of sources (fields, URL path, snippet, HTML
  metadata, ``last_modified``) and :func:`attribute`;
- :mod:`.values`: one value read as a granule, :func:`parse_when`, by the
  date grammar (:mod:`anachron.core.grammar`; numeric day-month dates refused);
- :mod:`.html_meta`: the HTML metadata scanner, :func:`html_dates`;
- :mod:`.stamps`: modification stamps, statements of publication and copyright notices in
  visible text (:func:`modification_stamp`, :func:`publication_statement`, :func:`without_chrome`);
- :mod:`.record`: the :class:`Attribution` record, its status at T, :func:`evidence_of`.

Pure: standard library only, no I/O, deterministic.  :func:`attribute`
never raises for a JSON-like entry; :func:`parse_when` raises
:class:`~anachron.core.errors.AnachronError` on an unreadable value.

>>> a = attribute({"url": "https://www.nytimes.com/2023/02/09/business/x.html"})
>>> a.first, a.source, a.status(a.first)
(datetime.date(2023, 2, 9), 'url', 'known')
"""

from anachron.core.attribution.html_meta import HTML_SCAN_CHARS, MAX_TAG_CHARS, html_dates
from anachron.core.attribution.record import GRANULARITIES, STATUSES, Attribution, SourceDate, conflict_evidence, evidence_of
from anachron.core.attribution.stamps import STAMP_SCAN_CHARS, chrome_spans, modification_stamp, publication_statement, without_chrome
from anachron.core.attribution.sources import DATE_FIELDS, MODIFIED_FIELDS, attribute, url_path
from anachron.core.attribution.values import PLAUSIBLE_YEARS, day_field, parse_when, read_day

__all__ = [
    "Attribution",
    "DATE_FIELDS",
    "GRANULARITIES",
    "HTML_SCAN_CHARS",
    "MAX_TAG_CHARS",
    "MODIFIED_FIELDS",
    "PLAUSIBLE_YEARS",
    "STAMP_SCAN_CHARS",
    "STATUSES",
    "SourceDate",
    "attribute",
    "chrome_spans",
    "day_field",
    "conflict_evidence",
    "evidence_of",
    "html_dates",
    "modification_stamp",
    "parse_when",
    "publication_statement",
    "read_day",
    "url_path",
    "without_chrome",
]
