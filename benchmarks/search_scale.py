"""Search latency: the inverted index of SearchEngine beside the linear scan it replaced, same run.

    python benchmarks/search_scale.py                      # 10k and 100k items (~3 min)
    python benchmarks/search_scale.py --items 10000 --queries 300
    python benchmarks/search_scale.py --baseline /tmp/old   # also an older tree's SearchEngine (git archive)

The corpus is benchmarks/workload.py's (seeded: Zipf-like words, titles of 4-9 words, texts of
20-60, entities named by 60% of items).  Queries are seeded too, shaped like an agent's: 1-4
words drawn from the same word distribution, a third of them with an entity's name, as-of dates
2017-2023.  Every query runs in both modes through ``SearchEngine.search`` (k = 5) and through
the scan (``tests/reference_engines.py``: ScanSearch, the old code), on the first ``--scan-queries`` queries, and
with ``--baseline TREE`` through that tree's ``SearchEngine`` in a child process (same corpus,
same queries); every result list must be the same, or the script stops.  Reported: p50 / p95 / max latency per mode,
in wall time and in the thread's CPU time (on a shared machine the wall time carries other jobs),
build time and the build's peak traced memory (tracemalloc, of the engine alone).  Standard
library only.
"""

from __future__ import annotations

import argparse
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

from anachron.core import MODES, load_corpus  # noqa: E402
from anachron.store import SearchEngine  # noqa: E402
from tests.reference_engines import ScanSearch  # noqa: E402
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
from anachron.core import load_corpus  # the tree's: imported before this script adds its own
try:
    from anachron.store import SearchEngine
except ImportError:  # a tree from before the re-layout
    from anachron.core import SearchEngine
from search_scale import _time
from workload import write_workload
with tempfile.TemporaryDirectory() as tmp:
    write_workload(Path(tmp), items={items}, samples=1, interactions=1, seed=0, hostile=False)
    corpus = load_corpus(Path(tmp) / "corpus")
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
        corpus = load_corpus(Path(tmp) / "corpus")
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, action="append", help="corpus size (repeatable; default 10000 and 100000)")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--scan-queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline", metavar="TREE", help="also time an older tree's SearchEngine (e.g. `git archive` of a commit)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    for items in args.items or [10_000, 100_000]:
        run(items, args.queries, min(args.scan_queries, args.queries), args.seed, args.baseline)


if __name__ == "__main__":
    main()
