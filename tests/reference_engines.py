"""Reference engines the tests and benchmarks compare the production engines with; not for serving.

- :class:`ScanSearch`: the linear scan the in-memory inverted index replaced,
  every item scored for every query (tests/test_search_index.py,
  tests/test_search_bitmaps_edges.py, benchmarks/search_scale.py,
  benchmarks/index.py);
- :func:`full_text_planner`: an index searched with the planner of full-text
  queries (:func:`anachron.store.engine.top_ords` without bitmaps, the one
  PostgreSQL uses), kept to check and measure beside the bitmaps
  (tests/test_index.py, benchmarks/index.py).

Benchmarks import this file by adding the repository's ``tests`` directory
to ``sys.path``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from typing import Iterator
from unittest import mock

from anachron.core import Corpus, Item
from anachron.core.search import visible_in
from anachron.store.engine import check_search
from anachron.store.index import engine as index_engine
from anachron.store.index.postings import IndexPostings
from anachron.store.terms import STRONG_WEIGHT, WEAK_WEIGHT, item_terms, tokenize


class ScanSearch:
    """The linear scan :class:`anachron.store.SearchEngine` replaced: every item scored for every query.

    Same arguments and checks as :meth:`anachron.store.SearchEngine.search`.
    """

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._words = {item.id: item_terms(item, corpus.entities) for item in corpus.items.values()}

    def search(self, query: str, *, as_of: dt.date, mode: str = "unrestricted", k: int = 5) -> list[Item]:
        check_search(query, as_of, mode, k)
        words = set(tokenize(query))
        if not words:
            return []
        scored = []
        for item in self.corpus.items.values():
            if not visible_in(mode, item.publish_date, as_of):
                continue
            strong, weak = self._words[item.id]
            score = STRONG_WEIGHT * len(words & strong) + WEAK_WEIGHT * len(words & weak)
            if score:
                scored.append((-score, item.publish_date, item.id, item))
        scored.sort(key=lambda row: row[:3])
        return [row[3] for row in scored[:k]]


class FullTextPostings(IndexPostings):
    """An index's postings without their bitmaps: :func:`~anachron.store.engine.top_ords` then
    plans over FTS5 queries (candidates, level scans, whole aggregation), as for PostgreSQL."""

    columns = None  # top_ords takes the bitmap paths only when ``columns`` is callable


@contextlib.contextmanager
def full_text_planner() -> Iterator[None]:
    """Within the block, every :class:`~anachron.store.IndexEngine` search uses the full-text planner."""
    with mock.patch.object(index_engine, "IndexPostings", FullTextPostings):
        yield
