"""The cache of query findings: speed only, apart from the rule it speeds up (:mod:`.references`).

- :func:`query_findings`: the findings on a query at T, kept when asked again;
- :func:`findings_cache_info` and :func:`findings_cache_clear`: what it answered, and emptying it;
- :data:`FINDINGS_CACHE`, :data:`ASKED_ONCE`, :data:`REPEATING`, :data:`CACHED_QUERY_CHARS`: its bounds.

The findings are a function of the query's part read, T and the fiscal calendar alone, and
immutable, so a kept answer is the answer (tests/core/query_intent/test_cache.py compares every
output with and without it).
"""

from __future__ import annotations

import datetime as _dt
import threading
from collections import OrderedDict
from typing import NamedTuple

from anachron.core.query_intent.references import QueryIntent, findings, scanned_query

# The findings on a (query, T, fiscal calendar) asked again are kept (query_findings): a sample
# rerun over epochs asks the same queries at the same T.  Kept at once, findings never asked again
# cost the scorer about 4 us a call on a run of distinct queries (docs/performance.md, most likely
# memory no longer reused), so a triple is kept at its second asking within the last ASKED_ONCE
# distinct ones (only the hash of its key is remembered after the first), or at its first while at
# least REPEATING of the recent calls (a moving average over about _RECENT) were hits: a run that
# repeats itself.  At most FINDINGS_CACHE triples are kept, least recently used dropped first, each
# of a query of at most CACHED_QUERY_CHARS characters (a longer one is worked out every time):
# about 390 bytes an entry for a query of a few words, 3 MiB when full of such.
FINDINGS_CACHE = 8 * 1024
ASKED_ONCE = 4 * FINDINGS_CACHE
REPEATING = 0.25
_RECENT = 64
CACHED_QUERY_CHARS = 256


class FindingsCacheInfo(NamedTuple):
    """What :func:`query_findings` answered from its cache (``hits``) and worked out (``misses``)."""

    hits: int
    misses: int
    maxsize: int
    currsize: int


class _FindingsCache:
    """The kept findings and the keys asked once, least recently used first (see FINDINGS_CACHE)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # the two dictionaries change together
        self.clear()

    def clear(self) -> None:
        with self._lock:
            self._kept: OrderedDict[tuple, QueryIntent] = OrderedDict()
            self._once: OrderedDict[int, None] = OrderedDict()  # hashes of keys
            self._hits = self._misses = 0
            self._repeats = 0.0  # the share of recent calls answered from the cache (a moving average)

    def info(self) -> FindingsCacheInfo:
        with self._lock:
            return FindingsCacheInfo(self._hits, self._misses, FINDINGS_CACHE, len(self._kept))

    def findings(self, text: str, as_of: _dt.date, fiscal_year_end: str | None) -> QueryIntent:
        key = (text, as_of, fiscal_year_end)
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                self._hits += 1
                self._repeats += (1.0 - self._repeats) / _RECENT
                return found
            self._misses += 1
            self._repeats -= self._repeats / _RECENT
            # Whether to keep it is settled here, in the same section: a second one cost a miss (every
            # call, on a run of distinct queries) about 0.2 us.  A query that then raises is noted as
            # asked once and never kept.  Only the hash of a key asked once is remembered: keeping its
            # query alive costs as much as keeping its findings.  Two keys of one hash only make a key
            # kept at its first asking.
            mark = hash(key)
            once = self._once
            keep = self._repeats >= REPEATING or mark in once  # a run that repeats itself, or a second asking
            if keep:
                once.pop(mark, None)
            else:
                once[mark] = None
                while len(once) > max(ASKED_ONCE, 0):
                    once.popitem(last=False)
        found = findings(text, as_of, fiscal_year_end)  # an error is raised before anything is kept
        if keep:
            with self._lock:
                self._kept[key] = found
                while len(self._kept) > max(FINDINGS_CACHE, 0):
                    self._kept.popitem(last=False)
        return found


_CACHE = _FindingsCache()


def query_findings(query: str, as_of: _dt.date, *, fiscal_year_end: str | None = None) -> QueryIntent:
    """The findings on *query* asked as of *as_of*: future references and open periods.

    *fiscal_year_end* (``"MM-DD"``) is the fiscal calendar of the entity the
    query names, if the corpus gives one.  Written-out and anchored
    references are both read (docs/metrics.md lists the forms), in the
    :func:`scanned_query` part of a long query.

    The findings are a function of the part read, *as_of* and
    *fiscal_year_end* alone, and immutable: a triple asked a second time
    within the last :data:`ASKED_ONCE` distinct ones (or at its first
    asking, while at least :data:`REPEATING` of the recent calls were
    hits) is kept, among the :data:`FINDINGS_CACHE` most recently used,
    and returned again
    (:func:`findings_cache_info` counts the hits, :func:`findings_cache_clear`
    empties it).  A query of more than
    :data:`CACHED_QUERY_CHARS` characters is read every time, and so are
    arguments of any type but exactly ``str``, ``date`` and ``str`` or
    ``None`` (a subclass might compare equal and read differently).

    >>> query_findings("revenue Q3 2024", _dt.date(2024, 5, 1)).future[0].begins
    datetime.date(2024, 7, 1)
    """
    text = scanned_query(query)
    if (
        len(text) > CACHED_QUERY_CHARS
        or type(text) is not str
        or type(as_of) is not _dt.date
        or (fiscal_year_end is not None and type(fiscal_year_end) is not str)
    ):
        return findings(text, as_of, fiscal_year_end)
    return _CACHE.findings(text, as_of, fiscal_year_end)


def findings_cache_info() -> FindingsCacheInfo:
    """What :func:`query_findings` answered from its cache (``hits``) and worked out (``misses``), and its size."""
    return _CACHE.info()


def findings_cache_clear() -> None:
    """Empty the cache of :func:`query_findings` and reset its counts."""
    _CACHE.clear()
