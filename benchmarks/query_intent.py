"""Time the query-intent detector on realistic agent queries, and show it is linear on long ones.

    python benchmarks/query_intent.py                 # best of 7 rounds (~10 s)
    python benchmarks/query_intent.py --repeat 3      # a quick run

Queries: the 622 hand-written agent queries of tests/data/query_intent/ (development and
held-out sets), each with its as-of date and fiscal calendar.  Rates, queries per second, best of
``--repeat`` interleaved rounds:

- ``json.loads``: parse each query's JSON line (the floor: what reading it from a trace costs);
- ``future_references``: the written-out forms only (the rule also run on returned items' text);
- ``query_findings``: everything judged on a query (written-out and anchored forms, open periods).

Then long queries, to show the cost grows linearly: the seconds per MiB at 256 KiB and at 1 MiB,
and their ratio (1.0 is linear), for prose without digits, prose with a date every ~60
characters, and a run of years.  Standard library only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from anachron.core import future_references, query_findings  # noqa: E402
from anachron.core.query_intent import findings_cache_clear  # noqa: E402

DATA = ROOT / "tests" / "data" / "query_intent"


def load_lines() -> list[str]:
    lines = []
    for name in ("development.jsonl", "heldout.jsonl"):
        lines += [line for line in (DATA / name).read_text(encoding="utf-8").split("\n") if line]
    return lines


def best_of(repeat: int, *tasks):
    """The fastest of *repeat* interleaved runs of each task, in seconds (process time)."""
    best = [float("inf")] * len(tasks)
    for _ in range(repeat):
        for index, task in enumerate(tasks):
            start = time.process_time()
            task()
            best[index] = min(best[index], time.process_time() - start)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)

    lines = load_lines()
    records = [json.loads(line) for line in lines]
    calls = [(r["query"], dt.date.fromisoformat(r["as_of"]), r.get("fiscal_year_end")) for r in records]

    def parse():
        for line in lines:
            json.loads(line)

    def written():
        for query, as_of, _ in calls:
            future_references(query, as_of)

    def everything():
        findings_cache_clear()  # each query worked out, not found again in the cache of findings
        for query, as_of, fiscal in calls:
            query_findings(query, as_of, fiscal_year_end=fiscal)

    parse_s, written_s, all_s = best_of(args.repeat, parse, written, everything)
    n = len(calls)
    print(f"python {platform.python_version()} on {platform.machine()}; {n} queries, best of {args.repeat}")
    print(f"json.loads (each query's line):   {n / parse_s:>9,.0f} queries/s  ({parse_s * 1e6 / n:.1f} us/query)")
    print(f"future_references:                {n / written_s:>9,.0f} queries/s  ({written_s * 1e6 / n:.1f} us/query)")
    print(f"query_findings:                   {n / all_s:>9,.0f} queries/s  ({all_s * 1e6 / n:.1f} us/query)")
    print(f"ratio query_findings/json.loads:  {parse_s / all_s:.3f}")

    as_of = dt.date(2022, 6, 15)
    units = {
        "prose, no digits": "the agent searched for the quarterly figures of the company and its peers ",
        "prose, a date per ~60 chars": "revenue rose sharply in Q3 2023 while costs fell; see 2021-04-28 ",
        "a run of years": "2022 2023 ",
    }
    print("\nlong queries: seconds per MiB at 256 KiB and at 1 MiB (ratio 1.0 = linear)")
    for label, unit in units.items():
        small = unit * (256 * 1024 // len(unit))
        large = unit * (1024 * 1024 // len(unit))
        small_s, large_s = best_of(max(1, args.repeat // 3), lambda: query_findings(small, as_of), lambda: query_findings(large, as_of))
        per_small, per_large = small_s / (len(small) / 2**20), large_s / (len(large) / 2**20)
        print(f"  {label:<28} {per_small:6.2f} s/MiB  {per_large:6.2f} s/MiB  ratio {per_large / per_small:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
