"""Search cases that compare an engine with the in-memory SearchEngine (the reference).

Used by tests/store/test_index.py (SQLite) and tests/store/test_postgres.py (a real
server): the same queries, dates, modes and k, item for item and in order.
The generated corpus is the benchmark's own generator (benchmarks/corpus_gen.py),
small and over a narrow date range so that many items tie on score and day.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import sys

from tests.support import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
import corpus_gen  # noqa: E402

MODES = ("unrestricted", "enforced")


def generated_corpus(directory, items=2000):
    """A seeded generated corpus directory: 2,000 items over 200 days (many same-day ties)."""
    root = corpus_gen.generate(directory, items, seed=16, days=200, vocabulary_size=3000)
    # Words beyond PostgreSQL's lexeme limit (2 KB), in a title and a text.
    with open(root / "items.jsonl", "a", encoding="utf-8") as fh:
        for n, (title, text) in enumerate(((f"Long {'y' * 5000}", "short"), ("Short title", f"text {'y' * 5000} {'z' * 300}"))):
            fh.write(json.dumps({"id": f"long-{n}", "slice": "news", "publish_date": "2000-03-01", "title": title, "text": text, "entities": [], "restates": None}) + "\n")
    return root


def queries(corpus, n=120, seed=5):
    """Queries over *corpus*: sampled title words and entity names, sample prompts, and the hard cases."""
    rng = random.Random(seed)
    words = sorted({w for item in corpus.items.values() for w in item.title.split()})
    names = sorted(e.name for e in corpus.entities.values())
    picked = rng.sample(words, min(n, len(words))) + rng.sample(names, min(20, len(names)))
    picked += [" ".join(rng.sample(words, min(3, len(words)))) for _ in range(20)]
    picked += [s.input for s in corpus.samples.values()]
    picked += [
        "",  # no words
        "the of and",  # stop words only
        "ZÜRICH Café",  # case and accents: tokenized alike
        " ".join(words[:400]),  # hundreds of words
        "x" * 100_000,  # a long word matching nothing
        "y" * 5000,  # a long word an item holds (the generated corpus has one)
        "2021 q3 10",
        "not near NEAR AND", "NOT Robotics",  # FTS5 operators are words here
    ]
    return picked


def as_of_days(corpus):
    """Before everything, an item's own day (the boundary: known on T), the middle, after everything."""
    days = sorted({item.publish_date for item in corpus.items.values()})
    return [days[0] - dt.timedelta(days=1), days[0], days[len(days) // 2], days[-1], days[-1] + dt.timedelta(days=1)]


# The three exact ways of anachron.store.ranking.top_bm25, each forced: over bitmaps, by length groups,
# term at a time (MaxScore; a query whose rarest word cannot fill the top k still goes by groups).
BM25_WAYS = {
    "bitmaps": {"BITMAP_POSTINGS": -1},  # BITMAP_K kept: a k above it is never served this way
    "bitmaps, split to the end": {"BITMAP_POSTINGS": -1, "FEW_ITEMS": -1},
    "groups": {"BITMAP_POSTINGS": 10**18, "GROUPED_POSTINGS": 0},
    "term at a time": {"BITMAP_POSTINGS": 10**18, "GROUPED_POSTINGS": 10**18},
}


def bm25_way(name):
    """A context forcing :data:`BM25_WAYS` *name* (``None``: the way top_bm25 chooses)."""
    import contextlib
    from unittest import mock

    from anachron.store import ranking as ranking_module

    return mock.patch.multiple(ranking_module, **BM25_WAYS[name]) if name else contextlib.nullcontext()


# (RARE_POSTINGS, MAX_COMMON) of anachron.store.engine.top_ords: every path of the planner.
# The first is the default (RARE_SHARE kept); the others set RARE_SHARE to 0.
PLANS = ((1000, 4), (0, 4), (5, 3), (60, 1), (10**9, 3), (0, 0))


def assert_same_results(test, reference, engine, corpus, *, ks=(1, 5), plans=PLANS, rankings=("bm25", "count")):
    """*engine* returns what *reference* returns (items, order and scores) for every case, ranking and
    plan (the plans are the count ranking's); returns how many were compared."""
    from unittest import mock

    from anachron.store import engine as planner

    compared = 0
    days = as_of_days(corpus)
    for number, query in enumerate(queries(corpus)):
        day = days[number % len(days)]
        for mode in MODES:
            for k in ks + ((len(corpus.items) + 5,) if number % 10 == 0 else ()):
                for ranking in rankings:
                    want = reference.scored(query, as_of=day, mode=mode, k=k, ranking=ranking)
                    # count: the planner's plans; bm25: as chosen, then each exact way of store.ranking.top_bm25 forced.
                    ways = (None,) * len(plans) if ranking == "count" else (None, *BM25_WAYS)
                    for number_, ((rare, common), way) in enumerate(zip(plans if ranking == "count" else plans[:1] * len(ways), ways)):
                        share = planner.RARE_SHARE if number_ == 0 else 0.0  # the first plan is the default
                        with mock.patch.multiple(planner, RARE_POSTINGS=rare, MAX_COMMON=common, RARE_SHARE=share), bm25_way(way):
                            got = engine.scored(query, as_of=day, mode=mode, k=k, ranking=ranking)
                        where = f"{query[:60]!r} {day} {mode} k={k} {ranking} plan={rare},{common} way={way}"
                        test.assertEqual([(i.id, s) for i, s in got], [(i.id, s) for i, s in want], where)
                        test.assertEqual([i for i, _ in got], [i for i, _ in want])
                        compared += 1
    return compared


def assert_same_fetches(test, reference, engine, corpus):
    days = as_of_days(corpus)
    ids = list(corpus.items)[:200] + ["no-such-id", "fin-001\n", "\ud800", "a\x00b", ""]
    for number, ident in enumerate(ids):
        for mode in MODES:
            day = days[number % len(days)]
            test.assertEqual(engine.fetch(ident, as_of=day, mode=mode), reference.fetch(ident, as_of=day, mode=mode), (ident, day, mode))
