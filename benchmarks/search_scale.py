"""Search latency: the inverted index of SearchEngine beside the linear scan it replaced, same run.

    python benchmarks/search_scale.py                      # 10k and 100k items (~3 min)
    python benchmarks/search_scale.py --items 10000 --queries 300
    python benchmarks/search_scale.py --baseline /tmp/old   # also an older tree's SearchEngine (git archive)
    python benchmarks/search_scale.py --peers --items 100000   # BM25 against tantivy and FTS5 bm25() (bench extra)
    python benchmarks/search_scale.py --peers --corpus DIR --index FILE --no-memory \
        --postgres URL --peer-dir PEERS --fts5-queries 50         # at 1M items, in minutes (see below)

``--peers`` (pip install '.[bench]') measures on benchmarks/corpus_gen.py's corpus (2000-2025) instead:
the in-memory engine and the SQLite index (``--no-index`` leaves it out) in BM25 and in the count
ranking, tantivy (title + entity names boosted 2, text) and SQLite FTS5 ``bm25(2, 1)`` over the same
fields, every one with the same date filter (published on or before T), on the same queries.  Latency:
corpus_gen's agent-shaped queries, enforced, k = 10.  Quality: known-item queries (3 distinct words of
an item visible at T, T drawn at random), hit@10 and MRR@10 of the target, and the median age (years
before T) of what is returned.  BM25 results are checked against the scan (benchmarks/reference_engines.py)
on the first ``--scan-queries`` queries (0: the scan is not built).

At 1M items, ``--peers`` options reuse what an earlier run or command built, so a run takes minutes:
``--corpus DIR`` (a directory made by ``benchmarks/corpus_gen.py DIR --items N --seed 16``; instead
of ``--items``, which generates one in a temporary directory), ``--index FILE`` (its SQLite index,
``anachron index DIR --out FILE``; refused if stale), ``--no-memory`` (no in-memory engine: about 5
GB and minutes to build at 1M), ``--peer-dir PEERS`` (tantivy's two indexes and the FTS5 table are
built into PEERS once, stamped with the corpus files' sizes and mtimes, and opened there on later
runs; PEERS holding another corpus's is refused), ``--postgres URL`` (PostgreSQL as one more
system, ``PostgresEngine`` in BM25: the corpus is loaded into URL first with ``load_to_postgres``,
as ``anachron index DIR --to URL`` does, unless ``--postgres-loaded``), ``--no-tantivy``, ``--no-fts5`` or
``--fts5-queries N`` (FTS5 costs about a second a query at 1M: timed on the first N latency and
known-item queries only, which its line says).  The SQLite index is timed in both rankings.  Ratios
printed: the anachron engines' CPU p95 over each peer's; PostgreSQL's wall p95 over the SQLite
index's (its work is in the server process, outside this thread's CPU time).  The load average is
printed before and after each run.

The corpus is benchmarks/workload.py's (seeded: Zipf-like words, titles of 4-9 words, texts of
20-60, entities named by 60% of items).  Queries are seeded too, shaped like an agent's: 1-4
words drawn from the same word distribution, a third of them with an entity's name, as-of dates
2017-2023.  Every query runs in both modes through ``SearchEngine.search`` (k = 5) and through
the scan (``benchmarks/reference_engines.py``: ScanSearch, the old code), on the first ``--scan-queries`` queries, and
with ``--baseline TREE`` through that tree's ``SearchEngine`` in a child process (same corpus,
same queries); every result list must be the same, or the script stops.  Reported: p50 / p95 / max latency per mode,
in wall time and in the thread's CPU time (on a shared machine the wall time carries other jobs),
build time and the build's peak traced memory (tracemalloc, of the engine alone).  Standard
library only.
"""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from anachron.core import MODES, load_corpus_dir  # noqa: E402
from anachron.store import SearchEngine  # noqa: E402
from benchmarks.reference_engines import ScanSearch  # noqa: E402
from workload import VOCABULARY, _vocabulary, _zipf_weights, write_workload  # noqa: E402


def _queries(n: int, entity_names: list[str], seed: int) -> list[tuple[str, dt.date]]:
    rng = random.Random(seed)
    vocab = _vocabulary(random.Random(0))  # the workload's words (its vocabulary is drawn first, from the seed)
    cum = _zipf_weights(VOCABULARY)
    out = []
    for _ in range(n):
        words = rng.choices(vocab, cum_weights=cum, k=rng.randint(1, 4))
        if rng.random() < 1 / 3:
            words.append(rng.choice(entity_names).lower())
        day = dt.date(2017, 1, 1) + dt.timedelta(days=rng.randrange(7 * 365))
        out.append((" ".join(words), day))
    return out


def _percentiles(seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    return f"p50 {statistics.median(ms):7.3f} ms  p95 {p95:7.3f} ms  max {ms[-1]:7.3f} ms"


def _time(engine, queries, mode):
    times, cpu, results = [], [], []
    for query, day in queries:
        start, used = time.perf_counter(), time.thread_time()
        hits = engine.search(query, as_of=day, mode=mode, k=5)
        cpu.append(time.thread_time() - used)
        times.append(time.perf_counter() - start)
        results.append([item.id for item in hits])
    return times, cpu, results


_BASELINE = """
import datetime as dt, json, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, {tree!r})
sys.path.insert(1, {here!r})
from anachron.core import load_corpus_dir  # the tree's: imported before this script adds its own
try:
    from anachron.store import SearchEngine
except ImportError:  # a tree from before the re-layout
    from anachron.core import SearchEngine
from search_scale import _time
from workload import write_workload
with tempfile.TemporaryDirectory() as tmp:
    write_workload(Path(tmp), items={items}, samples=1, interactions=1, seed=0, hostile=False)
    corpus = load_corpus_dir(Path(tmp) / "corpus")
engine = SearchEngine(corpus)
queries = [(q, dt.date.fromisoformat(d)) for q, d in json.load(sys.stdin)]
print(json.dumps({{mode: _time(engine, queries, mode) for mode in {modes!r}}}))
"""


def _baseline(tree: str, items: int, queries: list[tuple[str, dt.date]]) -> dict:
    """Per mode, (wall times, CPU times, results) of *tree*'s ``SearchEngine``, in a child process."""
    code = _BASELINE.format(tree=str(Path(tree).resolve()), here=str(Path(__file__).resolve().parent), items=items, modes=MODES)
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps([(q, d.isoformat()) for q, d in queries]),
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def run(items: int, queries: int, scan_queries: int, seed: int, baseline: str | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        write_workload(Path(tmp), items=items, samples=1, interactions=1, seed=0, hostile=False)
        corpus = load_corpus_dir(Path(tmp) / "corpus")
    names = [entity.name for entity in corpus.entities.values()]
    qs = _queries(queries, names, seed)
    start = time.perf_counter()
    engine = SearchEngine(corpus)
    build = time.perf_counter() - start
    del engine
    tracemalloc.start()  # memory on a second build: tracing slows it, so it is not the one timed
    engine = SearchEngine(corpus)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    start = time.perf_counter()
    scan = ScanSearch(corpus)
    scan_build = time.perf_counter() - start
    older = _baseline(baseline, items, qs) if baseline else None
    print(f"\n{items:,} items, {len(qs)} queries ({scan_queries} through the scan too); "
          f"index built in {build:.2f} s, peak {peak / 2**20:.0f} MiB traced; scan's word sets built in {scan_build:.2f} s")
    for mode in MODES:
        fast, fast_cpu, got = _time(engine, qs, mode)
        slow, slow_cpu, want = _time(scan, qs[:scan_queries], mode)
        if got[:scan_queries] != want:
            first = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)
            raise SystemExit(f"{mode}: query {qs[first]!r}: index {got[first]} != scan {want[first]}")
        print(f"  {mode:<12} index wall {_percentiles(fast)}")
        print(f"  {'':<12}       CPU  {_percentiles(fast_cpu)}")
        if scan_queries:
            ratio = statistics.median(slow) / statistics.median(fast[:scan_queries])
            print(f"  {'':<12} scan  wall {_percentiles(slow)}   (median scan / index: {ratio:,.0f}x; same results)")
            print(f"  {'':<12}       CPU  {_percentiles(slow_cpu)}")
        if older is not None:
            old, old_cpu, old_results = older[mode]
            if old_results != got:
                first = next(i for i, (a, b) in enumerate(zip(got, old_results)) if a != b)
                raise SystemExit(f"{mode}: query {qs[first]!r}: index {got[first]} != baseline {old_results[first]}")
            ratio = statistics.median(old) / statistics.median(fast)
            print(f"  {'':<12} base  wall {_percentiles(old)}   (median baseline / index: {ratio:,.1f}x; same results)")
            print(f"  {'':<12}       CPU  {_percentiles(old_cpu)}")


# -- --peers: BM25 against tantivy and SQLite FTS5, quality and latency ---------------------------------


def _known_items(corpus, n: int, seed: int) -> list[tuple[str, dt.date, str]]:
    """*n* known-item queries: ``(query, T, target id)``, the target published on or before T, the
    query 3 distinct words of its title and text (all of them if it has fewer)."""
    from anachron.store.terms import tokenize

    rng = random.Random(seed)
    ordered = sorted(corpus.items.values(), key=lambda i: (i.publish_date, i.id))
    days = [i.publish_date for i in ordered]
    out = []
    while len(out) < n:
        day = days[rng.randrange(len(days) // 10, len(days))]  # not the first tenth: a corpus to search
        target = ordered[rng.randrange(bisect.bisect_right(days, day))]
        words = sorted(set(tokenize(f"{target.title} {target.text}")))
        if not words:
            continue
        out.append((" ".join(rng.sample(words, min(3, len(words)))), day, target.id))
    return out


class _Tantivy:
    """tantivy over two fields (title + entity names boosted 2, text: BM25 per field, as tantivy
    scores a multi-field query), or over one field holding both (*one_field*)."""

    def __init__(self, corpus, one_field: bool = False, path: Path | None = None) -> None:
        """Built in memory, or in the directory *path*; one that :func:`_peer_dir` found built there is opened."""
        import tantivy

        self.tantivy, self.one_field = tantivy, one_field
        self.name = "tantivy (one field)" if one_field else "tantivy"
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("title")
        builder.add_text_field("body")
        builder.add_integer_field("day", fast=True, indexed=True)
        builder.add_text_field("id", stored=True, tokenizer_name="raw")
        self.schema = builder.build()
        if path is not None and (path / _BUILT).exists():
            self.index = tantivy.Index(self.schema, path=str(path), reuse=True)
            self.searcher = self.index.searcher()
            return
        if path is not None:
            path.mkdir(parents=True, exist_ok=True)
        self.index = tantivy.Index(self.schema) if path is None else tantivy.Index(self.schema, path=str(path), reuse=False)
        writer = self.index.writer(heap_size=512 << 20, num_threads=1)
        for item in corpus.items.values():
            names = " ".join(corpus.entities[e].name + " " + e for e in item.entities)
            title = f"{item.title} {names}"
            if one_field:
                writer.add_document(tantivy.Document(title=f"{title} {item.text}", body="", day=item.publish_date.toordinal(), id=item.id))
            else:
                writer.add_document(tantivy.Document(title=title, body=item.text, day=item.publish_date.toordinal(), id=item.id))
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()
        if path is not None:
            (path / _BUILT).touch()

    def search(self, query: str, day: dt.date, k: int) -> list[str]:
        from anachron.store.terms import tokenize

        words = tokenize(query)
        if not words:
            return []
        t = self.tantivy
        if self.one_field:
            text = self.index.parse_query(" ".join(words), ["title"])
        else:
            text = self.index.parse_query(" ".join(words), ["title", "body"], field_boosts={"title": 2.0})
        dated = t.Query.range_query(self.schema, "day", t.FieldType.Integer, None, day.toordinal())
        both = t.Query.boolean_query([(t.Occur.Must, text), (t.Occur.Must, dated)])
        hits = self.searcher.search(both, k).hits
        return [self.searcher.doc(address)["id"][0] for _, address in hits]


class _Fts5:
    name = "FTS5 bm25"

    def __init__(self, corpus, path: Path) -> None:
        import sqlite3

        done = path.with_name(path.name + _BUILT)
        if done.exists():  # built by an earlier run into the same --peer-dir
            self.con = sqlite3.connect(path)
            return
        path.unlink(missing_ok=True)
        self.con = sqlite3.connect(path)
        self.con.execute("CREATE VIRTUAL TABLE docs USING fts5(title, body, day UNINDEXED, id UNINDEXED)")
        self.con.executemany("INSERT INTO docs VALUES (?, ?, ?, ?)", (
            (f"{i.title} {' '.join(corpus.entities[e].name + ' ' + e for e in i.entities)}", i.text, i.publish_date.toordinal(), i.id)
            for i in corpus.items.values()))
        self.con.commit()
        done.touch()

    def search(self, query: str, day: dt.date, k: int) -> list[str]:
        from anachron.store.terms import tokenize

        words = sorted(set(tokenize(query)))
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = self.con.execute("SELECT id FROM docs WHERE docs MATCH ? AND day <= ? ORDER BY bm25(docs, 2.0, 1.0) LIMIT ?",
                                (match, day.toordinal(), k))
        return [r[0] for r in rows]


class _Ours:
    def __init__(self, name: str, engine, ranking: str) -> None:
        self.name, self.engine, self.ranking = name, engine, ranking

    def search(self, query: str, day: dt.date, k: int) -> list[str]:
        return [i.id for i in self.engine.search(query, as_of=day, mode="enforced", k=k, ranking=self.ranking)]


def _quality(system, known, dates) -> str:
    hits, reciprocal, ages = 0, 0.0, []
    for query, day, target in known:
        got = system.search(query, day, 10)
        if target in got:
            hits += 1
            reciprocal += 1 / (got.index(target) + 1)
        ages.extend((day - dates[i]).days / 365.25 for i in got)
    return f"hit@10 {hits / len(known):.3f}  MRR@10 {reciprocal / len(known):.3f}  median age {statistics.median(ages) if ages else 0:.1f} y"


def _latency(system, queries) -> tuple[str, float, float]:
    """Wall and CPU percentiles (the CPU time of this thread: on a shared machine the wall time carries
    other jobs), then the CPU p95 and the wall p95.  The CPU p95 is what the ratios compare, except for
    PostgreSQL, whose work is mostly in the server's process: its wall p95 is compared."""
    times, cpu = [], []
    for query, day in queries:
        start, used = time.perf_counter(), time.thread_time()
        system.search(query, day, 10)
        cpu.append(time.thread_time() - used)
        times.append(time.perf_counter() - start)
    def p95(values):
        return sorted(values)[min(len(values) - 1, int(0.95 * len(values)))]
    return f"wall {_percentiles(times)}\n  {'':<22} CPU  {_percentiles(cpu)}", p95(cpu), p95(times)


_BUILT = ".built"  # marks a peer index complete in --peer-dir (a run stopped while building leaves none)


def _peer_dir(path: Path, root: Path) -> Path:
    """*path*, made, for peers of the corpus in *root*: the size and mtime of its files are kept in
    ``corpus.json``; a directory holding peers of another corpus is refused (remove it)."""
    stamp = {name: [(root / name).stat().st_size, (root / name).stat().st_mtime_ns] for name in ("items.jsonl", "entities.jsonl")}
    stamp["corpus"] = str(root.resolve())
    path.mkdir(parents=True, exist_ok=True)
    kept = path / "corpus.json"
    if kept.exists() and json.loads(kept.read_text()) != stamp:
        raise SystemExit(f"{path}: holds peer indexes of another corpus (or an older one); remove it")
    kept.write_text(json.dumps(stamp))
    return path


def compare(items: int, queries: int, known: int, scan_queries: int, index: bool, *, corpus_dir: str | None = None,
            index_file: str | None = None, memory: bool = True, postgres: str | None = None, postgres_loaded: bool = False,
            fts5: bool = True, fts5_queries: int | None = None, peer_dir: str | None = None, tantivy: bool = True) -> None:
    import corpus_gen

    from anachron.store.index import IndexEngine, build_index

    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        if corpus_dir is None:
            root = corpus_gen.generate(Path(tmp) / "corpus", items)
            corpus = load_corpus_dir(root)
            print(f"\n{items:,} items (benchmarks/corpus_gen.py, seed 16), generated and loaded in {time.perf_counter() - start:.0f} s")
        else:
            root = Path(corpus_dir)
            corpus = load_corpus_dir(root)
            items = len(corpus.items)
            print(f"\n{items:,} items from {root}, loaded in {time.perf_counter() - start:.0f} s")
        peers_at = Path(tmp) if peer_dir is None else _peer_dir(Path(peer_dir), root)
        systems = []
        if memory:
            start = time.perf_counter()
            engine = SearchEngine(corpus)
            print(f"  in-memory engine built in {time.perf_counter() - start:.1f} s")
            systems += [_Ours("anachron memory bm25", engine, "bm25"), _Ours("anachron memory count", engine, "count")]
        if index:
            start = time.perf_counter()
            if index_file is None:
                built = build_index(root, Path(tmp) / "corpus.db", samples=False)
                print(f"  SQLite index built in {time.perf_counter() - start:.0f} s ({built.bytes / 2**20:.0f} MiB)")
                stored = IndexEngine(built.path)
            else:
                stored = IndexEngine(index_file)  # refused if it is not of this corpus's files
                print(f"  SQLite index {index_file} opened ({Path(index_file).stat().st_size / 2**20:.0f} MiB)")
            systems += [_Ours("anachron index bm25", stored, "bm25"), _Ours("anachron index count", stored, "count")]
        if postgres:
            from anachron.store.postgres import PostgresEngine, load_to_postgres, redact

            if not postgres_loaded:
                start = time.perf_counter()
                load_to_postgres(root, postgres, samples=False)
                print(f"  loaded into PostgreSQL ({redact(postgres)}) in {time.perf_counter() - start:.0f} s")
            systems.append(_Ours("anachron postgres bm25", PostgresEngine(postgres), "bm25"))
        start = time.perf_counter()
        peers = []
        if not tantivy:
            print("  tantivy: left out (--no-tantivy)")
        else:
            try:
                peers += [_Tantivy(corpus, path=None if peer_dir is None else peers_at / "tantivy-two"),
                          _Tantivy(corpus, one_field=True, path=None if peer_dir is None else peers_at / "tantivy-one")]
            except ImportError:
                print("  tantivy: not installed (pip install '.[bench]')")
        if fts5:
            peers.append(_Fts5(corpus, peers_at / "fts5.db"))
        print(f"  peers built{'' if peer_dir is None else ' or opened in ' + peer_dir} in {time.perf_counter() - start:.0f} s")
        systems += peers
        dates = {i.id: i.publish_date for i in corpus.items.values()}
        days = corpus_gen.as_of_dates(queries)
        latency = list(zip(corpus_gen.queries(queries, entities=len(corpus.entities)), days))
        if scan_queries:
            scan = ScanSearch(corpus)
            for query, day in latency[:scan_queries]:
                want = [i.id for i in scan.search(query, as_of=day, mode="enforced", k=10)]
                for system in systems:
                    if system.name.endswith("bm25") and system.name.startswith("anachron") and system.search(query, day, 10) != want:
                        raise SystemExit(f"{system.name}: {query!r} {day}: {system.search(query, day, 10)} != scan {want}")
            del scan
            print(f"  BM25 results = the scan's on {min(scan_queries, len(latency))} queries (every anachron engine)")
        cases = _known_items(corpus, known, seed=3)
        print(f"  enforced, k = 10; latency over {len(latency)} agent-shaped queries, quality over {len(cases)} known-item queries")
        floor, wall = {}, {}
        for system in systems:
            some, few = latency, cases
            if system.name == "FTS5 bm25" and fts5_queries is not None:
                some, few = latency[:fts5_queries], cases[:fts5_queries]
            shown, floor[system.name], wall[system.name] = _latency(system, some)
            capped = f"   (FTS5: the first {len(some)} latency and {len(few)} known-item queries only)" if len(some) < len(latency) else ""
            print(f"  {system.name:<22} {_quality(system, few, dates)}{capped}\n  {'':<22} {shown}")
        for name in ("anachron memory bm25", "anachron index bm25"):
            if name not in floor:
                continue
            ratios = [f"/ {label} {floor[name] / floor[peer]:.2f}x" for peer, label in
                      (("tantivy", "tantivy's"), ("tantivy (one field)", "one-field tantivy's"), ("FTS5 bm25", "FTS5's")) if peer in floor]
            if name in floor and ratios:
                print(f"  {name}: CPU p95 {', '.join(ratios)}")
        if "anachron postgres bm25" in wall and "anachron index bm25" in wall:
            print(f"  anachron postgres bm25: wall p95 / the SQLite index's {wall['anachron postgres bm25'] / wall['anachron index bm25']:.2f}x "
                  f"(CPU p95 of this process / the index's {floor['anachron postgres bm25'] / floor['anachron index bm25']:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, action="append", help="corpus size (repeatable; default 10000 and 100000)")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--scan-queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline", metavar="TREE", help="also time an older tree's SearchEngine (e.g. `git archive` of a commit)")
    parser.add_argument("--peers", action="store_true", help="BM25 against tantivy and FTS5 bm25(): latency and known-item quality")
    parser.add_argument("--known", type=int, default=1000, help="known-item queries (--peers)")
    parser.add_argument("--no-index", action="store_true", help="leave the SQLite index out (--peers)")
    parser.add_argument("--corpus", metavar="DIR", help="a corpus directory made before (benchmarks/corpus_gen.py) instead of --items (--peers)")
    parser.add_argument("--index", metavar="FILE", help="a SQLite index of --corpus made before (anachron index DIR --out FILE) (--peers)")
    parser.add_argument("--no-memory", action="store_true", help="leave the in-memory engine out (--peers)")
    parser.add_argument("--postgres", metavar="URL", help="also PostgreSQL (PostgresEngine), the corpus loaded into URL first (--peers)")
    parser.add_argument("--postgres-loaded", action="store_true", help="URL already holds --corpus: do not reload it")
    parser.add_argument("--no-fts5", action="store_true", help="leave SQLite FTS5 out (--peers)")
    parser.add_argument("--no-tantivy", action="store_true", help="leave tantivy out (--peers)")
    parser.add_argument("--fts5-queries", type=int, metavar="N", help="time FTS5 on the first N latency and known-item queries only (--peers)")
    parser.add_argument("--peer-dir", metavar="DIR", help="build tantivy's and FTS5's indexes in DIR and reuse them there on later runs (--peers)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.peers:
        if args.corpus and args.items:
            parser.error("--corpus and --items: one or the other")
        if args.index and (not args.corpus or args.no_index):
            parser.error("--index needs --corpus (the directory it was built from) and the index")
        if args.postgres_loaded and not args.postgres:
            parser.error("--postgres-loaded needs --postgres")
        options = dict(corpus_dir=args.corpus, index_file=args.index, memory=not args.no_memory, postgres=args.postgres,
                       postgres_loaded=args.postgres_loaded, fts5=not args.no_fts5, fts5_queries=args.fts5_queries, peer_dir=args.peer_dir,
                       tantivy=not args.no_tantivy)
        for items in [None] if args.corpus else args.items or [100_000]:
            compare(items, args.queries, args.known, min(args.scan_queries, args.queries), not args.no_index, **options)
            print(f"  load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return
    for items in args.items or [10_000, 100_000]:
        run(items, args.queries, min(args.scan_queries, args.queries), args.seed, args.baseline)


if __name__ == "__main__":
    main()
