"""The cache of query findings (``anachron.core.query_intent.cache``) on a workload of benchmarks/workload.py.

    python benchmarks/workload.py /tmp/w5s --items 10000 --samples 4000 --interactions 10 --epochs 5 --epoch-order sample
    python benchmarks/findings_cache.py /tmp/w5s --repeat 3

Each run is a fresh process (``PYTHONPATH`` this tree) timing ``anachron score TRACES --corpus
CORPUS --format json`` in-process (stdout to a file), with the cache and without it (the child
sets ``CACHED_QUERY_CHARS`` to -1 first, so every query is worked out), runs interleaved; the
median CPU time (user + system) of each is reported, with the cache's hits and misses (the share
of ``query_findings`` calls it answered) and the SHA-256 of both outputs, which must be the same.
Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, resource, sys
from anachron.core.query_intent import cache
if sys.argv[1] == "off":
    cache.CACHED_QUERY_CHARS = -1
from anachron.cli import main
before = resource.getrusage(resource.RUSAGE_SELF)
with open(sys.argv[2], "w", encoding="utf-8") as out:
    saved, sys.stdout = sys.stdout, out
    try:
        status = main(["score", sys.argv[3], "--corpus", sys.argv[4], "--format", "json"])
    finally:
        sys.stdout = saved
after = resource.getrusage(resource.RUSAGE_SELF)
info = cache.findings_cache_info()
print(json.dumps({"status": status, "cpu": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
                  "hits": info.hits, "misses": info.misses, "rss_kb": after.ru_maxrss}))
"""


def _run(mode: str, workload: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, mode, str(out), str(workload / "traces.jsonl"), str(workload / "corpus")],
        env=env, capture_output=True, text=True, check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["sha256"] = hashlib.sha256(out.read_bytes()).hexdigest()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", type=Path, help="a directory written by benchmarks/workload.py")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    runs: dict[str, list[dict]] = {"on": [], "off": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            for mode in ("on", "off"):
                runs[mode].append(_run(mode, args.workload, Path(tmp) / f"{mode}.json"))
    print(f"workload {args.workload}; load average {os.getloadavg()[0]:.2f} after the runs")
    for mode, label in (("on", "with the cache"), ("off", "without")):
        cpu = statistics.median(r["cpu"] for r in runs[mode])
        last = runs[mode][-1]
        calls = last["hits"] + last["misses"]
        share = f"{last['hits'] / calls:.1%} of {calls:,} calls" if calls else "no call through the cache"
        print(f"{label:>15}: CPU {cpu:.2f} s (median of {args.repeat}), peak RSS {last['rss_kb'] / 1024:.0f} MB, "
              f"hits {share}")
    shas = {r["sha256"] for mode in runs for r in runs[mode]}
    print("outputs:", "the same bytes, sha256 " + shas.pop() if len(shas) == 1 else f"DIFFER: {sorted(shas)}")
    on, off = (statistics.median(r["cpu"] for r in runs[m]) for m in ("on", "off"))
    print(f"time saved: {off - on:.2f} s CPU ({(off - on) / off:.1%})")


if __name__ == "__main__":
    main()
