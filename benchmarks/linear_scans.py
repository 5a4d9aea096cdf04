"""Per-call costs on hostile inputs (issue 26, section 4), each against a linear floor.

    python benchmarks/linear_scans.py

Each case times the operation on a large hostile input and, in the same run,
a floor: one ``re.finditer(".", text, re.S)`` pass over the same text (a
match per character), the least a reader of every character must do.  Each
case runs at two sizes, the second twice the first: the ratio stays flat
when the input doubles (linear); before the fixes it doubled or worse.  A
lock call is timed on a new lock each run (a lock answers a repeated call
from what it logged).  Best of three runs each.
Figures recorded in docs/performance.md ("Hostile inputs").
"""

from __future__ import annotations

import datetime as _dt
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from anachron.bank.reading import event_dates, figures  # noqa: E402
from anachron.core import query_findings  # noqa: E402
from anachron.core.query_intent import QUERY_SCAN_CHARS, scanned_query  # noqa: E402
from anachron.importers import _results  # noqa: E402  (the plain-text URL scan an importer runs)
from anachron.timelock import CorpusBackend, Hit, TimeLock  # noqa: E402
from anachron.core import load_corpus_dir  # noqa: E402
from answer_reader import best  # noqa: E402  (best of three, the same timer)

T = _dt.date(2022, 6, 1)


class _Journal:
    def write(self, header, record) -> None:
        pass


class _Pages:
    kind, source = "upstream", "benchmark"

    def __init__(self, text: str) -> None:
        self.hits = [Hit(f"https://example.com/{i}", "t", text, ("2022-01-01",)) for i in range(5)]

    def search(self, query, *, k, as_of, mode):
        return self.hits

    def fetch(self, ref, *, as_of, mode):
        return self.hits[:1]


def cases(n: int):
    dates = "2021-02-04 " * (10_000 * n)
    yield "event_dates, a run of dates", dates, lambda: event_dates(dates)
    listed = "listed " + dates
    yield "event_dates, a run of dates in one listing clause", listed, lambda: event_dates(listed)
    blanks = "\t\n" * (50_000 * n)
    yield "figures, '\\t\\n' repeated", blanks, lambda: figures(blanks)
    label = "Q4" + " " * (100_000 * n) + "x"
    yield "figures, 'Q4' and a run of spaces", label, lambda: figures(label)
    urls = " ".join(f"https://e.com/{i}" for i in range(16_000 * n))
    yield "URLs of a plain-text result, all on one line", urls, lambda: _results.text_items(urls)
    query = "news of March 2023 " * (55_000 * n)
    yield f"query_findings, a long query (first {QUERY_SCAN_CHARS} read)", query, lambda: query_findings(query, T)
    head = scanned_query(query)
    yield f"query_findings, its first {QUERY_SCAN_CHARS} characters", head, lambda: query_findings(head, T)
    corpus = load_corpus_dir()
    yield "lock search, a long query (refused: over 1,000)", query, lambda: TimeLock(
        CorpusBackend(corpus), T, _Journal()).call("search", {"query": query})
    page = "<html><body>" + query + "</body></html>"
    yield "lock search, 5 upstream pages of that size", page * 5, lambda: TimeLock(
        _Pages(page), T, _Journal()).call("search", {"query": "x"})
    yield "lock fetch, an upstream page of that size", page, lambda: TimeLock(
        _Pages(page), T, _Journal()).call("fetch", {"id_or_url": "https://example.com/0"})


def main() -> None:
    print("| case | chars | time | floor | time / floor |")
    print("|---|---:|---:|---:|---:|")
    for name, text, run in (case for n in (1, 2) for case in cases(n)):
        spent = best(run)
        floor = best(lambda: sum(1 for _ in re.finditer(".", text, re.S)))
        print(f"| {name} | {len(text):,} | {spent * 1000:.1f} ms | {floor * 1000:.1f} ms | {spent / floor:.1f} |")


if __name__ == "__main__":
    main()
