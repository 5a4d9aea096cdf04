"""Time `anachron score` against its floor, in the same run, on a workload of benchmarks/workload.py.

    python benchmarks/workload.py /tmp/w200k --items 10000 --samples 20000 --interactions 10
    python benchmarks/score_scale.py /tmp/w200k --repeat 3
    python benchmarks/score_scale.py /tmp/w200k --baseline /tmp/old   # also an older tree (git archive)
    python benchmarks/score_scale.py /tmp/w1m --jobs 2                 # and `--jobs 2`

Each round runs, each in a fresh process (the machine may be shared, so rounds are
interleaved and the median of each is reported):

- ``floor``: ``json.loads`` of every line of the input files (the corpus's and the trace's)
  plus a compact ``json.dumps`` of the output document: what no scorer can skip;
- ``corpus``: ``load_corpus_dir`` alone, for its peak RSS;
- ``score``: ``anachron score TRACE --corpus DIR --format json`` with stdout to a file, in-process
  through ``anachron.cli.main`` (interpreter start-up and imports are not counted), for this
  tree and for ``--baseline`` trees; with ``--jobs N`` also ``--jobs N``.  Each tree's bytecode is
  compiled before the first round (``compileall``), so no run pays for compiling modules.

Wall time and CPU time (user + system, of the workers too for ``--jobs``) are both reported:
on a machine shared with other jobs the wall ratio carries their noise, the CPU ratio much less.
Ratios are medians of the per-round ratios.  Peak RSS is ``ru_maxrss`` of the process (the
largest worker's for ``--jobs``, which counts what it shares with the parent it was forked from).  Every output is
checked to be the same bytes as the first one's.  Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def _rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    """Peak RSS in MB.  Of this process: VmHWM, which starts afresh at exec (``ru_maxrss``
    would carry the high-water mark of the benchmark process that forked it)."""
    if who == resource.RUSAGE_SELF:
        try:
            with open("/proc/self/status", encoding="ascii") as fh:
                for line in fh:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
    return resource.getrusage(who).ru_maxrss / 1024


def _child(kind: str, workload: Path, out: Path, extra: list[str]) -> dict:
    corpus, traces = workload / "corpus", workload / "traces.jsonl"
    if kind == "floor":
        start, cpu = time.perf_counter(), time.process_time()
        for path in [*sorted(corpus.glob("*.jsonl")), traces]:
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    if line.strip():
                        json.loads(line)
        parse, parse_cpu = time.perf_counter() - start, time.process_time() - cpu
        document = json.loads(out.read_text(encoding="utf-8"))  # the scorer's output, not timed
        start, cpu = time.perf_counter(), time.process_time()
        json.dumps(document, separators=(",", ":"), ensure_ascii=False)
        dump, dump_cpu = time.perf_counter() - start, time.process_time() - cpu
        return {"seconds": parse + dump, "cpu": parse_cpu + dump_cpu, "parse": parse, "dump": dump, "rss_mb": _rss_mb()}
    from anachron.cli import main

    if kind == "corpus":
        from anachron.core import load_corpus_dir

        start, cpu = time.perf_counter(), time.process_time()
        load_corpus_dir(corpus)
        return {"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu, "rss_mb": _rss_mb()}
    start, cpu = time.perf_counter(), _cpu()
    with open(out, "w", encoding="utf-8") as fh:
        saved, sys.stdout = sys.stdout, fh
        try:
            status = main(["score", str(traces), "--corpus", str(corpus), "--format", "json", *extra])
        finally:
            sys.stdout = saved
    seconds, cpu = time.perf_counter() - start, _cpu() - cpu
    rss = max(_rss_mb(), _rss_mb(resource.RUSAGE_CHILDREN))
    return {"seconds": seconds, "cpu": cpu, "rss_mb": rss, "status": status}


def _cpu() -> float:
    """CPU seconds of this process and its finished children (--jobs workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _run(kind: str, tree: Path, workload: Path, out: Path, extra: list[str] = ()) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    command = [sys.executable, __file__, "--child", kind, str(workload), "--out-file", str(out), "--extra", json.dumps(list(extra))]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{kind} ({tree}) failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:  # in chunks: this process forks every run, and should stay small
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", type=Path, action="append", default=[], help="another tree to time (repeatable)")
    parser.add_argument("--jobs", type=int, default=1, help="also time --jobs N (N > 1)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out-file", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--extra", type=json.loads, default=[], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.workload, args.out_file, args.extra)))
        return

    scratch = Path(tempfile.mkdtemp(prefix="anachron-bench-"))
    runs = [(f"baseline {tree}", tree, []) for tree in args.baseline] + [("this tree", HERE, [])]
    if args.jobs > 1:
        runs.append((f"this tree --jobs {args.jobs}", HERE, ["--jobs", str(args.jobs)]))
    size = sum(p.stat().st_size for p in [*args.workload.glob("corpus/*.jsonl"), args.workload / "traces.jsonl"])
    lines = sum(1 for _ in open(args.workload / "traces.jsonl", "rb"))
    print(f"workload {args.workload}: {size / 2**20:.1f} MiB of input, {lines} traces")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.2f}")
    # Every tree's bytecode is compiled first: with PYTHONDONTWRITEBYTECODE set (as on some machines),
    # a tree without it compiles each module the scorer imports inside the timed call, about 0.2 s.
    for tree in {tree for _, tree, _ in runs}:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "anachron")], check=True)
    table: dict[str, list[dict]] = {name: [] for name, _, _ in runs}
    table["floor"], table["corpus"] = [], []
    digest = None
    for round_ in range(args.repeat):
        for name, tree, extra in runs:
            out = scratch / "out.json"
            table[name].append(_run("score", tree, args.workload, out, extra))
            this = _digest(out)
            if digest is None:
                digest = this
            elif this != digest:
                raise SystemExit(f"{name}: output differs from the first run's")
        table["floor"].append(_run("floor", HERE, args.workload, scratch / "out.json"))
        table["corpus"].append(_run("corpus", HERE, args.workload, scratch / "out.json"))
        print(f"round {round_ + 1}: " + ", ".join(f"{k} {v[-1]['seconds']:.2f} s" for k, v in table.items()), flush=True)
    floors = [r["seconds"] for r in table["floor"]]
    floor = statistics.median(floors)
    corpus_rss = statistics.median(r["rss_mb"] for r in table["corpus"])
    print(f"\nfloor (median of {args.repeat}): {floor:.2f} s (json.loads {statistics.median(r['parse'] for r in table['floor']):.2f} s"
          f" + compact json.dumps {statistics.median(r['dump'] for r in table['floor']):.2f} s)")
    print(f"load_corpus_dir alone: {statistics.median(r['seconds'] for r in table['corpus']):.2f} s, peak RSS {corpus_rss:.0f} MB")
    cpu_floors = [r["cpu"] for r in table["floor"]]
    print(f"floor CPU time (median): {statistics.median(cpu_floors):.2f} s")
    print("\n| run | wall s | wall / floor | CPU s | CPU / floor CPU | peak RSS MB | RSS / (1.2 x corpus + 100 MB) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, _, _ in runs:
        rows = table[name]
        seconds = statistics.median(r["seconds"] for r in rows)
        ratio = statistics.median(r["seconds"] / f for r, f in zip(rows, floors))
        cpu = statistics.median(r["cpu"] for r in rows)
        cpu_ratio = statistics.median(r["cpu"] / f for r, f in zip(rows, cpu_floors))
        rss = statistics.median(r["rss_mb"] for r in rows)
        print(f"| {name} | {seconds:.2f} | {ratio:.2f} | {cpu:.2f} | {cpu_ratio:.2f} | {rss:.0f} | {rss / (1.2 * corpus_rss + 100):.2f} |")
    print(f"\noutput sha256 {digest}")


if __name__ == "__main__":
    main()
