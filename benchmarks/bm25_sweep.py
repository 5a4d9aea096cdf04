"""Known-item quality of our BM25 over a grid of its parameters (K1, B, strong-field weight), beside tantivy.

    python benchmarks/bm25_sweep.py --corpus /work/data/c100k --memory --peer-dir /work/data/c100k.peers
    python benchmarks/bm25_sweep.py --corpus /work/data/c1m --index /work/data/c1m.idx --peer-dir /work/data/c1m.peers
    python benchmarks/bm25_sweep.py ... --seeds 3 11 5 --known 500 --json out.json
    python benchmarks/bm25_sweep.py --select 100k.json 1m.json --on 3   # choose on seed 3, check on the others

The queries are benchmarks/search_scale.py's known-item queries (``_known_items``: 3 distinct words
of an item visible at T, T drawn at random; one list per ``--seeds`` seed, ``--known`` queries
each), enforced, k = 10.  For every (K1, B, weight) of the grid (``--k1``, ``--b``, ``--weight``)
the constants ``K1``, ``B`` and ``FIELD_WEIGHTS = (weight, 1)`` of :mod:`anachron.store.ranking`
are set in this process (the engines read them at query time: no rebuild), every query is run,
and hit@10 and MRR@10 of the target are printed per seed, as search_scale.py's ``_quality``
counts them.  The constants are restored at the end.  Tantivy, one field (search_scale.py's
``_Tantivy``, opened from ``--peer-dir`` where ``search_scale.py --peers --peer-dir`` built it),
runs the same queries once, for reference.  The engine is the in-memory one (``--memory``) or a
SQLite index of the corpus (``--index FILE``, refused if stale): at 1M items the index, one
process.  Deterministic: same corpus, seeds and grid -> same figures.

``--select FILE...`` reads the ``--json`` files of several runs (one per corpus size, the same grid,
seeds and tantivy reference) and chooses on seed ``--on`` alone: of the settings at least tantivy's
on hit@10 and on MRR@10 at every size, the one whose smallest margin over tantivy (of those four
or more differences) is the largest, ties broken by the larger sum of margins.  It prints the
qualifying settings, best first, with their figures on every seed (the others held out).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from anachron.core import load_corpus_dir  # noqa: E402
from anachron.store import ranking  # noqa: E402
from search_scale import _known_items, _Tantivy  # noqa: E402


def measure(search, cases) -> tuple[float, float]:
    """hit@10 and MRR@10 of *search* (query, T -> ids) over *cases* (query, T, target)."""
    hits, reciprocal = 0, 0.0
    for query, day, target in cases:
        got = search(query, day)
        if target in got:
            hits += 1
            reciprocal += 1 / (got.index(target) + 1)
    return hits / len(cases), reciprocal / len(cases)


def sweep(engine, cases_by_seed: dict, grid) -> list[dict]:
    """One row per (K1, B, weight) of *grid*: its hit@10 and MRR@10 per seed."""
    kept = ranking.K1, ranking.B, ranking.FIELD_WEIGHTS
    rows = []

    def ours(query, day):
        return [i.id for i in engine.search(query, as_of=day, mode="enforced", k=10)]

    try:
        for k1, b, weight in grid:
            ranking.K1, ranking.B, ranking.FIELD_WEIGHTS = k1, b, (weight, 1.0)
            start = time.process_time()
            row = {"k1": k1, "b": b, "weight": weight}
            for seed, cases in cases_by_seed.items():
                row[seed] = measure(ours, cases)
            print(f"  k1 {k1:<4} b {b:<4} w {weight:<4} " + "  ".join(
                f"seed {s}: {row[s][0]:.3f} / {row[s][1]:.3f}" for s in cases_by_seed)
                + f"   ({time.process_time() - start:.0f} s CPU)", flush=True)
            rows.append(row)
    finally:
        ranking.K1, ranking.B, ranking.FIELD_WEIGHTS = kept
    return rows


def select(files: list[str], on: str, top: int) -> None:
    """Print the settings chosen on seed *on* from the ``--json`` runs *files* (see the module doc)."""
    runs = [json.loads(Path(f).read_text()) for f in files]
    for run in runs:
        if "tantivy" not in run:
            raise SystemExit(f"{run['corpus']}: run without --peer-dir: no tantivy figures to compare with")
    keys = [(r["k1"], r["b"], r["weight"]) for r in runs[0]["rows"]]
    tables = [{(r["k1"], r["b"], r["weight"]): r for r in run["rows"]} for run in runs]
    seeds = [str(s) for s in runs[0]["seeds"]]

    def margins(key, seed):
        return [t[key][seed][m] - run["tantivy"][seed][m] for t, run in zip(tables, runs) for m in (0, 1)]

    ranked = sorted((key for key in keys if all(key in t for t in tables) and min(margins(key, on)) >= 0),
                    key=lambda key: (-min(margins(key, on)), -sum(margins(key, on)), key))
    print(f"chosen on seed {on}: at least tantivy (one field) on hit@10 and MRR@10 at every size, "
          f"largest smallest margin first ({len(ranked)} of {len(keys)} settings)")
    print("  tantivy one field      " + "   ".join(
        f"{Path(run['corpus']).name} " + " ".join(f"s{s} {run['tantivy'][s][0]:.3f}/{run['tantivy'][s][1]:.3f}" for s in seeds)
        for run in runs))
    for key in ranked[:top]:
        held = all(min(margins(key, s)) >= 0 for s in seeds)
        print(f"  k1 {key[0]:<4} b {key[1]:<4} w {key[2]:<4}  " + "   ".join(
            f"{Path(run['corpus']).name} " + " ".join(f"s{s} {t[key][s][0]:.3f}/{t[key][s][1]:.3f}" for s in seeds)
            for t, run in zip(tables, runs)) + f"   min margin s{on} {min(margins(key, on)):+.3f}"
            + ("   held out: >= tantivy on every seed" if held else "   held out: below tantivy somewhere"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--select", nargs="+", metavar="FILE", help="choose from the --json files of earlier runs (see above)")
    parser.add_argument("--on", default="3", help="the seed --select chooses on (the others are held out)")
    parser.add_argument("--top", type=int, default=10, help="settings --select prints")
    parser.add_argument("--corpus", metavar="DIR", help="a corpus directory (benchmarks/corpus_gen.py)")
    way = parser.add_mutually_exclusive_group()
    way.add_argument("--memory", action="store_true", help="the in-memory engine, built here")
    way.add_argument("--index", metavar="FILE", help="a SQLite index of --corpus (anachron index DIR --out FILE)")
    parser.add_argument("--peer-dir", metavar="DIR", help="tantivy's indexes, built by search_scale.py --peers --peer-dir")
    parser.add_argument("--seeds", type=int, nargs="+", default=[3, 11, 5], help="known-item query seeds (3: the benchmark's)")
    parser.add_argument("--known", type=int, default=500, help="known-item queries per seed")
    parser.add_argument("--k1", type=float, nargs="+", default=[0.3, 0.5, 0.8, 1.2])
    parser.add_argument("--b", type=float, nargs="+", default=[0.5, 0.6, 0.75, 0.9])
    parser.add_argument("--weight", type=float, nargs="+", default=[1.5, 2.0, 3.0], help="the strong field's weight (the weak one's is 1)")
    parser.add_argument("--json", metavar="FILE", help="also write the rows (and tantivy's) to FILE")
    args = parser.parse_args()
    if args.select:
        select(args.select, args.on, args.top)
        return
    if not args.corpus or not (args.memory or args.index):
        parser.error("--corpus and one of --memory, --index (or --select)")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    start = time.perf_counter()
    corpus = load_corpus_dir(Path(args.corpus))
    print(f"{len(corpus.items):,} items from {args.corpus}, loaded in {time.perf_counter() - start:.0f} s", flush=True)
    cases_by_seed = {seed: _known_items(corpus, args.known, seed=seed) for seed in args.seeds}
    out: dict = {"corpus": args.corpus, "known": args.known, "seeds": args.seeds}
    if args.peer_dir:
        peer = Path(args.peer_dir) / "tantivy-one"
        if not (peer / ".built").exists():
            raise SystemExit(f"{peer}: no built tantivy index (run search_scale.py --peers --peer-dir first)")
        tantivy = _Tantivy(corpus, one_field=True, path=peer)
        out["tantivy"] = {seed: measure(lambda q, d: tantivy.search(q, d, 10), cases) for seed, cases in cases_by_seed.items()}
        print("  tantivy one field       " + "  ".join(
            f"seed {s}: {out['tantivy'][s][0]:.3f} / {out['tantivy'][s][1]:.3f}" for s in args.seeds), flush=True)
        del tantivy
    if args.memory:
        from anachron.store import SearchEngine

        engine = SearchEngine(corpus)
    else:
        from anachron.store.index import IndexEngine

        engine = IndexEngine(args.index)
    del corpus
    print("  (hit@10 / MRR@10, enforced, k = 10)", flush=True)
    out["rows"] = sweep(engine, cases_by_seed, itertools.product(args.k1, args.b, args.weight))
    print(f"load average after {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
