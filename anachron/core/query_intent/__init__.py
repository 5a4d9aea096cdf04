"""Query intent: the dates and periods a search query refers to, judged at the as-of date T.

Two findings are judged on a query (docs/metrics.md): a *future* reference names a period
that begins after T; an *open period* contains T and ends after it, named by a query that
asks for its results ("2023 annual report" as of 2023-06-01).  The package keeps the rule,
its patterns and its cache apart:

- :mod:`.references` -- the rule: :func:`date_references`, :func:`fixed_references`, :func:`future_references`,
  :func:`scanned_query`, :class:`DateReference`, :class:`QueryIntent`;
- :mod:`.patterns` -- the regular expressions it matches, compiled once;
- :mod:`.cache` -- :func:`query_findings` (the findings, kept when asked again),
  :func:`findings_cache_info`, :func:`findings_cache_clear`: speed only.

>>> import datetime
>>> [ref.text for ref in query_findings("revenue Q3 2024", datetime.date(2024, 5, 1)).future]
['Q3 2024']
"""

from anachron.core.grammar.fiscal import parse_fiscal_year_end
from anachron.core.query_intent.cache import (
    ASKED_ONCE,
    CACHED_QUERY_CHARS,
    FINDINGS_CACHE,
    REPEATING,
    FindingsCacheInfo,
    findings_cache_clear,
    findings_cache_info,
    query_findings,
)
from anachron.core.query_intent.patterns import QUERY_SCAN_CHARS
from anachron.core.query_intent.references import (
    DateReference,
    QueryIntent,
    date_references,
    fixed_references,
    future_references,
    scanned_query,
)

__all__ = [
    "ASKED_ONCE",
    "CACHED_QUERY_CHARS",
    "DateReference",
    "FINDINGS_CACHE",
    "FindingsCacheInfo",
    "QUERY_SCAN_CHARS",
    "QueryIntent",
    "REPEATING",
    "date_references",
    "findings_cache_clear",
    "findings_cache_info",
    "fixed_references",
    "future_references",
    "parse_fiscal_year_end",
    "query_findings",
    "scanned_query",
]
