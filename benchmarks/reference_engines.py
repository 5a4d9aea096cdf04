"""Reference engines the tests and benchmarks compare the production engines with; not for serving.

- :class:`ScanSearch`: the linear scan the in-memory inverted index replaced,
  every item scored for every query (tests/store/test_memory_index.py,
  tests/store/test_bitmap_edges.py, benchmarks/search_scale.py,
  benchmarks/index.py);
- :func:`full_text_planner`: an index searched with the planner of full-text
  queries (:func:`anachron.store.engine.top_ords` without bitmaps, the one
  PostgreSQL uses), kept to check and measure beside the bitmaps
  (tests/store/test_index.py, benchmarks/index.py).

It lives with the benchmarks, which import nothing of the tests; the tests
import it from here (``benchmarks.reference_engines``, the repository root on
``sys.path``, as for ``tests.support``).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from typing import Iterator
from unittest import mock

from anachron.core import Corpus, Item
from anachron.core.search import visible_in
from anachron.store.engine import check_search
from anachron.store.index import reader as index_engine
from anachron.store.index.postings import IndexPostings
from anachron.store import ranking
from anachron.store.ranking import check_ranking
from anachron.store.terms import STRONG_WEIGHT, WEAK_WEIGHT, item_terms, tokenize


class ScanSearch:
    """The linear scan :class:`anachron.store.SearchEngine` replaced: every item scored for every query.

    Same arguments and checks as :meth:`anachron.store.SearchEngine.search`.
    With ``ranking="bm25"`` every visible item is scored in full, its
    statistics (N, document frequencies, average field lengths) counted by
    scanning the visible items, and all of them sorted: no posting lists, no
    pruning (what :func:`anachron.store.ranking.top_bm25` must equal).
    """

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._words = {item.id: item_terms(item, corpus.entities) for item in corpus.items.values()}

    def search(self, query: str, *, as_of: dt.date, mode: str = "unrestricted", k: int = 5, ranking: str = "bm25") -> list[Item]:
        return [item for item, _ in self.scored(query, as_of=as_of, mode=mode, k=k, ranking=ranking)]

    def scored(self, query: str, *, as_of: dt.date, mode: str = "unrestricted", k: int = 5, ranking: str = "bm25") -> list:
        check_search(query, as_of, mode, k)
        check_ranking(ranking)
        words = set(tokenize(query))
        if not words:
            return []
        visible = [item for item in self.corpus.items.values() if visible_in(mode, item.publish_date, as_of)]
        if ranking == "bm25":
            return self._bm25(sorted(words), visible, k)
        scored = []
        for item in visible:
            strong, weak = self._words[item.id]
            score = STRONG_WEIGHT * len(words & strong) + WEAK_WEIGHT * len(words & weak)
            if score:
                scored.append((-score, item.publish_date, item.id, item))
        scored.sort(key=lambda row: row[:3])
        return [(row[3], -row[0]) for row in scored[:k]]

    def _bm25(self, words: list[str], visible: list[Item], k: int) -> list:
        n = len(visible)
        if not n:
            return []
        fields = [self._words[item.id] for item in visible]
        averages = [sum(len(f[column]) for f in fields) / n for column in (0, 1)]
        df = {w: sum(1 for f in fields if w in f[0] or w in f[1]) for w in words}
        scored = []
        for item, f in zip(visible, fields):
            score, held = 0, False
            for w in words:
                for column in (0, 1):
                    if w in f[column]:
                        held = True
                        score += ranking.contribution(ranking.idf(n, df[w]), ranking.FIELD_WEIGHTS[column], len(f[column]), averages[column])
            if held:
                scored.append((-score, -item.publish_date.toordinal(), item.id, item))
        scored.sort(key=lambda row: row[:3])
        return [(row[3], ranking.shown_score(-row[0])) for row in scored[:k]]


class FullTextPostings(IndexPostings):
    """An index's postings without their bitmaps: :func:`~anachron.store.engine.top_ords` then
    plans over FTS5 queries (candidates, level scans, whole aggregation), as for PostgreSQL."""

    columns = None  # top_ords takes the bitmap paths only when ``columns`` is callable


@contextlib.contextmanager
def full_text_planner() -> Iterator[None]:
    """Within the block, every :class:`~anachron.store.IndexEngine` search uses the full-text planner."""
    with mock.patch.object(index_engine, "IndexPostings", FullTextPostings):
        yield
