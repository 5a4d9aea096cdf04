"""The corpus index (SQLite) and a PostgreSQL corpus against today's in-memory scan.

    python benchmarks/index.py --dir /tmp/anachron-bench                      # 1M items, SQLite vs scan
    python benchmarks/index.py --dir /tmp/anachron-bench --postgres URL       # ... and 8 agents on PostgreSQL
    python benchmarks/index.py --dir /tmp/b --items 100000 --scan-queries 1000  # a smaller run

In one run, on one generated, seeded corpus (benchmarks/corpus_gen.py; it is
generated into DIR once and reused):

- build: ``anachron index DIR --out FILE`` in a child process (wall time,
  peak RSS, file size), beside the child's ``load_corpus_dir`` of the same
  directory, which every command does today before its first search;
- open: ``IndexEngine(FILE)`` plus its first search, in a fresh process,
  beside ``SearchEngine(load_corpus_dir(DIR))`` (what ``serve`` does with a corpus directory);
- search: p50/p95 over --queries seeded queries (benchmarks/corpus_gen.queries)
  with seeded as-of dates, both modes, for the index, and beside it for the
  previous planner on the same file (benchmarks/reference_engines.full_text_planner: every
  candidate scored inside FTS5, what PostgreSQL does) and, with --baseline, for
  an older tree's ``IndexEngine`` on the same file in a child process, whose
  results must be the same; the scan (benchmarks/reference_engines.ScanSearch, every item scored) is timed on the
  first --scan-queries of the same queries only (at 1M items one scan costs
  about a second), and its results are compared with the index's, item for
  item: a difference stops the run;
- agents: --agents processes at once, each its own connection, each running
  --agent-queries searches (enforced, seeded dates) against one PostgreSQL
  server and, beside it, against the one SQLite file; p50/p95 of every call.

Latency is of the engine call (``engine.search``), not of the MCP transport.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import corpus_gen  # noqa: E402

from anachron.core import load_corpus_dir  # noqa: E402
from anachron.store.index import IndexEngine  # noqa: E402
from benchmarks.reference_engines import ScanSearch, full_text_planner  # noqa: E402

MODES = ("enforced", "unrestricted")


def machine() -> str:
    from compare_modes import machine as base  # one description of the machine for every benchmark

    return f"{base().split('; numpy')[0].split('; scipy')[0]}; SQLite {sqlite3.sqlite_version}"


def quantiles(samples: list[float]) -> tuple[float, float]:
    """(p50, p95) in milliseconds (statistics.quantiles, inclusive method)."""
    if len(samples) == 1:
        return samples[0] * 1e3, samples[0] * 1e3
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return cuts[49] * 1e3, cuts[94] * 1e3


_PEAK = "\nimport resource as _r; print(json.dumps({**_out, 'rss_mb': _r.getrusage(_r.RUSAGE_SELF).ru_maxrss / 1024}))\n"


def child(code: str) -> tuple[dict, float]:
    """Run *code* (which sets ``_out``) in a fresh Python; return ``_out`` and the child's peak RSS (MB)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code + _PEAK], capture_output=True, text=True, env=env, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result, result.pop("rss_mb")


_BUILD = """
import json, sys, time
from anachron.store.index import build_index
t = time.perf_counter(); s = build_index({src!r}, {out!r}); t = time.perf_counter() - t
_out = {{"seconds": t, "bytes": s.bytes}}
"""
_LOAD = """
import json, time
from anachron.core import load_corpus_dir
from anachron.store import SearchEngine
t = time.perf_counter(); c = load_corpus_dir({src!r}, samples=False); load = time.perf_counter() - t
e = SearchEngine(c); ready = time.perf_counter() - t
import datetime as dt
e.search({query!r}, as_of=dt.date(2020, 1, 1), mode="enforced"); first = time.perf_counter() - t
_out = {{"load": load, "ready": ready, "first": first}}
"""
_OPEN = """
import json, time, datetime as dt
t = time.perf_counter()
from anachron.store.index import IndexEngine
imported = time.perf_counter() - t
e = IndexEngine({out!r}); opened = time.perf_counter() - t
e.search({query!r}, as_of=dt.date(2020, 1, 1), mode="enforced"); first = time.perf_counter() - t
_out = {{"import": imported, "open": opened - imported, "first": first}}
"""


_BASELINE = """
import datetime as dt, json, sys, time
sys.path.insert(0, {tree!r})
from anachron.store.index import IndexEngine
work = json.load(open({work!r}))
engine = IndexEngine({db!r})
_out = {{}}
for mode in work["modes"]:
    times, results = [], []
    for query, day in zip(work["queries"], work["days"]):
        day = dt.date.fromisoformat(day)
        t = time.perf_counter(); hits = engine.search(query, as_of=day, mode=mode, k=5); times.append(time.perf_counter() - t)
        results.append([item.id for item in hits])
    _out[mode] = {{"times": times, "results": results}}
"""


def baseline(tree: str, db: Path, queries, days) -> dict:
    """Each mode's search times and results of *tree*'s ``IndexEngine`` on *db*, in a child process."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump({"modes": MODES, "queries": queries, "days": [d.isoformat() for d in days]}, fh)
    try:
        out, _ = child(_BASELINE.format(tree=str(Path(tree).resolve()), work=fh.name, db=str(db)))
    finally:
        os.unlink(fh.name)
    return out


def time_searches(engine, queries, days, mode) -> tuple[list[float], list[list[str]]]:
    times, results = [], []
    for query, day in zip(queries, days):
        t = time.perf_counter()
        hits = engine.search(query, as_of=day, mode=mode, k=5)
        times.append(time.perf_counter() - t)
        results.append([item.id for item in hits])
    return times, results


def _agent(args) -> list[float]:
    kind, where, queries, days, barrier = args
    if kind == "postgres":
        from anachron.store.postgres import PostgresEngine

        engine = PostgresEngine(where)
    else:
        engine = IndexEngine(where)
    engine.search(queries[0], as_of=days[0], mode="enforced")  # connect and warm up before the clock
    barrier.wait()
    times = []
    for query, day in zip(queries, days):
        t = time.perf_counter()
        engine.search(query, as_of=day, mode="enforced")
        times.append(time.perf_counter() - t)
    engine.close()
    return times


def agents(kind: str, where: str, n: int, per_agent: int, seed: int) -> tuple[float, float, float]:
    """p50, p95 (ms) and calls per second of *n* concurrent agent processes."""
    ctx = multiprocessing.get_context("fork")
    manager = ctx.Manager()
    barrier = manager.Barrier(n + 1)
    jobs = [
        (kind, where, corpus_gen.queries(per_agent, seed=seed + a), corpus_gen.as_of_dates(per_agent, seed=seed + 100 + a), barrier)
        for a in range(n)
    ]
    with ctx.Pool(n) as pool:
        pending = pool.map_async(_agent, jobs)
        barrier.wait()
        t = time.perf_counter()
        results = pending.get()
        wall = time.perf_counter() - t
    manager.shutdown()
    every = [x for r in results for x in r]
    p50, p95 = quantiles(every)
    return p50, p95, len(every) / wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, help="working directory (the corpus is generated here once)")
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=1000, help="queries timed on the index, per mode")
    parser.add_argument("--scan-queries", type=int, default=50, help="of those, timed on the scan too (default 50; 0: no scan)")
    parser.add_argument("--postgres", metavar="URL", help="a PostgreSQL database to load and time (replaced)")
    parser.add_argument("--postgres-loaded", action="store_true", help="the database already holds this corpus: do not reload it")
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--agent-queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--no-build", action="store_true", help="reuse DIR's index if there is one (build not timed)")
    parser.add_argument("--rare-postings", type=int, help="the planner's RARE_POSTINGS (default: anachron's)")
    parser.add_argument("--baseline", metavar="TREE", help="also time an older tree's IndexEngine (e.g. `git archive` of a commit) on the same file")
    parser.add_argument("--no-previous", action="store_true", help="do not time the previous planner (every candidate scored, FTS5 only) beside")
    args = parser.parse_args(argv)
    from anachron.store import engine as planner

    if args.rare_postings is not None:
        planner.RARE_POSTINGS = args.rare_postings

    work = Path(args.dir)
    corpus_dir = work / f"corpus-{args.items}-{args.seed}"
    if not (corpus_dir / "items.jsonl").is_file():
        corpus_gen.generate(corpus_dir, args.items, seed=args.seed)
    db = work / f"corpus-{args.items}-{args.seed}.db"
    queries = corpus_gen.queries(args.queries, seed=7, entities=max(10, args.items // 500))
    days = corpus_gen.as_of_dates(args.queries, seed=8)
    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.1f}")
    from anachron.store.index.postings import DENSE

    print(f"planner: RARE_POSTINGS {planner.RARE_POSTINGS}, RARE_SHARE {planner.RARE_SHARE}, MAX_COMMON {planner.MAX_COMMON}, "
          f"MAX_SCORED {planner.MAX_SCORED}; bitmaps stored for columns held by more than 1 item in {DENSE}; "
          f"cache {IndexEngine.CACHE_BYTES >> 20} MB")
    print(f"corpus: {args.items} generated items (seed {args.seed}), {(corpus_dir / 'items.jsonl').stat().st_size / 1e6:.0f} MB items.jsonl")

    loaded, load_rss = child(_LOAD.format(src=str(corpus_dir), query=queries[0]))
    if args.no_build and db.is_file():
        print(f"build: not timed in this run (--no-build; the index in {db} is reused, {db.stat().st_size / 1e6:.0f} MB on disk); "
              f"load_corpus_dir alone {loaded['load']:.1f} s")
    else:
        built, build_rss = child(_BUILD.format(src=str(corpus_dir), out=str(db)))
        print(f"build: anachron index {built['seconds']:.1f} s, peak RSS {build_rss:.0f} MB, {built['bytes'] / 1e6:.0f} MB on disk; "
              f"load_corpus_dir alone {loaded['load']:.1f} s, peak RSS {load_rss:.0f} MB (build / load = {built['seconds'] / loaded['load']:.2f})")
    opened, open_rss = child(_OPEN.format(out=str(db), query=queries[0]))
    print(f"open: IndexEngine {opened['open'] * 1e3:.0f} ms (after {opened['import'] * 1e3:.0f} ms of imports), "
          f"first answer {opened['first'] * 1e3:.0f} ms after start, RSS {open_rss:.0f} MB; "
          f"from the directory (load_corpus_dir + SearchEngine) {loaded['ready']:.1f} s, RSS {load_rss:.0f} MB "
          f"(ratio {loaded['first'] / opened['first']:.0f}x to the first answer)")

    older = baseline(args.baseline, db, queries, days) if args.baseline else None
    index = IndexEngine(db)
    n_scan = min(args.scan_queries, args.queries)
    scan = ScanSearch(load_corpus_dir(corpus_dir, samples=False)) if n_scan else None  # every item scored per query
    for mode in MODES:
        if not args.no_previous:
            with full_text_planner():  # the previous planner, same file, same run
                before_times, before_results = time_searches(index, queries, days, mode)
        index_times, index_results = time_searches(index, queries, days, mode)
        ip50, ip95 = quantiles(index_times)
        if not args.no_previous:
            if before_results != index_results:
                raise SystemExit(f"{mode}: the bitmaps and the previous planner disagree")
            bp50, bp95 = quantiles(before_times)
            print(f"search {mode}: previous planner p50 {bp50:.2f} ms, p95 {bp95:.2f} ms; bitmaps p50 {ip50:.2f} ms, p95 {ip95:.2f} ms "
                  f"over {len(queries)} queries (p95 ratio previous / bitmaps {bp95 / ip95:.1f}x; same results on all)")
        if older is not None:
            if older[mode]["results"] != index_results:
                raise SystemExit(f"{mode}: the baseline tree's index and this one disagree")
            op50, op95 = quantiles(older[mode]["times"])
            print(f"search {mode}: baseline {args.baseline} p50 {op50:.2f} ms, p95 {op95:.2f} ms; this tree p50 {ip50:.2f} ms, "
                  f"p95 {ip95:.2f} ms (p95 ratio baseline / this {op95 / ip95:.1f}x; same results on all)")
        if scan is None:
            if not args.no_previous:
                continue  # printed above
            print(f"search {mode}: index p50 {ip50:.2f} ms, p95 {ip95:.2f} ms over {len(queries)} queries (scan not run: --scan-queries 0)")
            continue
        scan_times, scan_results = time_searches(scan, queries[:n_scan], days[:n_scan], mode)
        if scan_results != index_results[:n_scan]:
            raise SystemExit(f"{mode}: the index and the scan disagree")
        sp50, sp95 = quantiles(scan_times)
        sub50, sub95 = quantiles(index_times[:n_scan])
        print(f"search {mode}: index p50 {ip50:.2f} ms, p95 {ip95:.2f} ms over {len(queries)} queries "
              f"(on the scan's {n_scan}: p50 {sub50:.2f}, p95 {sub95:.2f}); scan p50 {sp50:.0f} ms, p95 {sp95:.0f} ms "
              f"over {n_scan}; p95 ratio scan / index {sp95 / sub95:.0f}x; same results on all {n_scan}")
    del scan
    index.close()

    sqlite_agents = agents("sqlite", str(db), args.agents, args.agent_queries, args.seed)
    print(f"agents: {args.agents} processes x {args.agent_queries} enforced searches on one SQLite file: "
          f"p50 {sqlite_agents[0]:.2f} ms, p95 {sqlite_agents[1]:.2f} ms, {sqlite_agents[2]:.0f} calls/s")
    if args.postgres:
        from anachron.store.postgres import load_to_postgres

        if not args.postgres_loaded:
            t = time.perf_counter()
            load_to_postgres(corpus_dir, args.postgres)
            print(f"postgres: anachron index --to {time.perf_counter() - t:.1f} s")
        one = agents("postgres", args.postgres, 1, args.agent_queries, args.seed)
        many = agents("postgres", args.postgres, args.agents, args.agent_queries, args.seed)
        print(f"agents: 1 process on PostgreSQL: p50 {one[0]:.2f} ms, p95 {one[1]:.2f} ms, {one[2]:.0f} calls/s")
        print(f"agents: {args.agents} processes x {args.agent_queries} enforced searches on one PostgreSQL server: "
              f"p50 {many[0]:.2f} ms, p95 {many[1]:.2f} ms, {many[2]:.0f} calls/s; "
              f"p95 PostgreSQL / SQLite {many[1] / sqlite_agents[1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
