"""CPU time of each piece of `anachron score`, per call, on a workload of benchmarks/workload.py.

    python benchmarks/workload.py /tmp/w200k --items 10000 --samples 20000 --interactions 10
    python benchmarks/score_pieces.py /tmp/w200k                       # this tree
    python benchmarks/score_pieces.py /tmp/w200k --baseline /tmp/main  # and an older tree (git archive)

Each tree runs in its own process (``PYTHONPATH`` set to it), trees interleaved round by round;
each piece is the best of ``--best`` runs in that process, over the first ``--traces`` traces:

- item texts: the date references of every corpus item's text, worked out once per run
  (``query_intent.fixed_references``, with the item's date where the tree reads a page at it),
  in seconds per 10,000 items;
- validation: ``trace_record`` of each trace, with the corpus items already resolved, per call;
- ``query_findings`` of each query at its trace's T, per query;
- ``judge`` of each call, and ``score_trace`` of each trace (judging included), per call;
- ``pretty_json`` of each result's dict, as the json writer nests it, per sample.

The pieces use the trees' own module functions, so a tree must have these (main of 2026-12-01
does).  Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def _child(workload: Path, count: int, best_of: int) -> dict:
    import gc
    import inspect
    import itertools
    import time
    import timeit

    from anachron.core import leakage, load_corpus_dir
    from anachron.core import query_intent as qi
    from anachron.core import trace as tr
    from anachron.core.jsonio import stream_records
    from anachron.core.jsonio import pretty_json

    corpus = load_corpus_dir(workload / "corpus")
    gc.freeze()
    records = list(itertools.islice(stream_records(workload / "traces.jsonl"), count))
    calls = sum(len(obj["interactions"]) for _, obj in records)

    def best(run) -> float:
        gc.collect()
        return min(timeit.repeat(run, number=1, repeat=best_of, timer=time.process_time))  # CPU time: steadier under load

    texts = [(f"{item.title}\n{item.text}", item.publish_date) for item in corpus.items.values()]  # as trace._corpus_text
    if "page_date" in inspect.signature(qi.fixed_references).parameters:  # a tree that reads a page at its date
        items = best(lambda: [qi.fixed_references(text, page_date=day) for text, day in texts])
    else:
        items = best(lambda: [qi.fixed_references(text) for text, _ in texts])
    cache: dict = {}
    traces = [tr.trace_record(where, obj, corpus, cache) for where, obj in records]
    validation = best(lambda: [tr.trace_record(where, obj, corpus, cache) for where, obj in records])
    queries = [(i.query, t.as_of) for t in traces for i in t.interactions if i.query is not None]
    # A tree with a cache of query findings (findings_cache_clear; earlier, query_findings.cache_clear)
    # is timed without its hits: each run first empties it, as a run over distinct queries would.
    clear = getattr(qi, "findings_cache_clear", None) or getattr(qi.query_findings, "cache_clear", lambda: None)
    findings = best(lambda: (clear(), [qi.query_findings(query, as_of) for query, as_of in queries]))
    judged = [(i, t.as_of) for t in traces for i in t.interactions]
    judge = best(lambda: (clear(), [leakage.judge(i, as_of, corpus) for i, as_of in judged]))
    score = best(lambda: (clear(), [leakage.score_trace(t, corpus) for t in traces]))
    dicts = [leakage.score_trace(t, corpus).to_dict() for t in traces]
    writer = best(lambda: [pretty_json(d, "    ") for d in dicts])
    return {
        "item texts, s per 10k items": items / len(texts) * 1e4,
        "validation, us per call": validation / calls * 1e6,
        "query_findings, us per query": findings / len(queries) * 1e6,
        "judge, us per call": judge / len(judged) * 1e6,
        "score_trace, us per call": score / calls * 1e6,
        "pretty_json, us per sample": writer / len(dicts) * 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", type=Path, help="a directory written by benchmarks/workload.py")
    parser.add_argument("--baseline", type=Path, action="append", default=[], help="another tree to time (repeatable)")
    parser.add_argument("--traces", type=int, default=3000, help="traces timed (default 3000)")
    parser.add_argument("--best", type=int, default=5, help="runs of each piece, the best kept (default 5)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, trees interleaved (default 2)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.workload, args.traces, args.best)))
        return
    trees = [(f"baseline {tree}", tree) for tree in args.baseline] + [("this tree", HERE)]
    print(f"workload {args.workload}, first {args.traces} traces; load average {os.getloadavg()[0]:.2f}")
    rows: dict[str, list[dict]] = {name: [] for name, _ in trees}
    for _ in range(args.rounds):
        for name, tree in trees:
            env = dict(os.environ, PYTHONPATH=str(tree))
            command = [sys.executable, __file__, str(args.workload), "--child", "--traces", str(args.traces),
                       "--best", str(args.best)]
            out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
            rows[name].append(json.loads(out))
    print(f"load average after: {os.getloadavg()[0]:.2f}\n")
    pieces = list(next(iter(rows.values()))[0])
    print("| piece | " + " | ".join(name for name, _ in trees) + " |")
    print("|---|" + "---:|" * len(trees))
    for piece in pieces:
        cells = [" / ".join(f"{run[piece]:.2f}" for run in rows[name]) for name, _ in trees]
        print(f"| {piece} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
