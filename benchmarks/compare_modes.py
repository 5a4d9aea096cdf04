"""Time compare_modes against scipy's vectorized bootstrap and a plain Python loop.

    python benchmarks/compare_modes.py                   # n = 100 to 100,000, three kinds of scores; B = 10,000
    python benchmarks/compare_modes.py --sizes 100 1000 --kinds leak --repeat 3   # a quick run
    python benchmarks/compare_modes.py --continuous --sizes 1000 10000 --clock cpu   # CPU time: a shared machine

All three compute the same paired percentile-bootstrap CI of the mean
difference, on the same data, in the same run:

- ``compare_modes``: the whole call (validation, exact means, sign test and
  bootstrap) from two dicts sample id -> TCLR;
- ``scipy``: ``scipy.stats.bootstrap((u, e), mean of x - y, paired=True,
  vectorized=True, method="percentile")`` on numpy arrays.  Its default batch
  (all B resamples at once) needs B * n * 8 bytes per array, 8 GB at
  n = 100,000, so ``batch`` is set to keep each batch near 10**7 values, where
  it runs fastest on this machine;
- ``loop``: the textbook per-draw loop in pure Python (n ``random()`` draws a
  resample).

A peer whose B * n exceeds its work budget (``--loop-budget``, ``--scipy-budget``,
in resampled values) is timed on fewer resamples and its time scaled linearly
to B; such cells are marked ``~`` and the resamples actually timed are listed.

Three kinds of scores (``--kinds``, all by default):

- ``binary``: TCLR 0 or 1 (a sample leaked or not; 40% of the unrestricted
  run's samples, 10% of the enforced run's): three distinct differences;
- ``leak``: TCLR as real runs give it, many ties and a few fractions: each
  sample makes 1 to 12 calls; half the unrestricted samples and 80% of the
  enforced ones leak none, the others leak each call with probability 0.4
  (unrestricted) or 0.1 (enforced): dozens of distinct differences, most
  pairs tied at 0;
- ``continuous``: u uniform in [0, 1), e = u times another uniform draw:
  every difference distinct (``--continuous`` is ``--kinds continuous``).

compare_modes reports two intervals, of the mean difference and of the
relative reduction mean(u - e) / mean(u); scipy computes them in two calls
(``scipy`` is their sum, ``scipy d`` the first alone).  The loop is left out
(``--loop-budget 0``) unless asked for.  Each round times every peer once,
interleaved (a load that drifts hits all); every round is printed, then the best.

Needs numpy and scipy for the peer (``--no-scipy`` runs without).  numpy here does no BLAS work (indexing and means), but if
OPENBLAS_CORETYPE is set it is reported: see docs/performance.md.
"""

from __future__ import annotations

import argparse
import inspect
import math
import os
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from anachron.core import compare_modes  # noqa: E402
from anachron.core.stats import percentile  # noqa: E402


CLOCK = time.perf_counter  # --clock cpu: time.process_time (this process's CPU time: steadier on a shared machine)


def leak_scores(n: int, seed: int = 2024) -> tuple[dict[str, float], dict[str, float]]:
    """Per-sample TCLR of an unrestricted and an enforced run over n samples: many ties, a few fractions."""
    rng = random.Random(seed)
    unrestricted, enforced = {}, {}
    for i in range(n):
        calls = rng.randint(1, 12)
        leaks_u = 0 if rng.random() < 0.5 else sum(rng.random() < 0.4 for _ in range(calls))
        leaks_e = 0 if rng.random() < 0.8 else sum(rng.random() < 0.1 for _ in range(calls))
        sample = f"sample-{i:07d}"
        unrestricted[sample] = leaks_u / calls
        enforced[sample] = leaks_e / calls
    return unrestricted, enforced


def binary_scores(n: int, seed: int = 2024) -> tuple[dict[str, float], dict[str, float]]:
    """Per-sample TCLR 0 or 1: a sample leaked or not."""
    rng = random.Random(seed)
    unrestricted, enforced = {}, {}
    for i in range(n):
        sample = f"sample-{i:07d}"
        unrestricted[sample] = float(rng.random() < 0.4)
        enforced[sample] = float(rng.random() < 0.1)
    return unrestricted, enforced


def time_compare_modes(u, e, resamples):
    start = CLOCK()
    report = compare_modes(u, e, n_resamples=resamples, seed=0)
    return CLOCK() - start, (report.ci_low, report.ci_high), report


def continuous_scores(n: int, seed: int = 2024) -> tuple[dict[str, float], dict[str, float]]:
    """Per-sample continuous scores: every paired difference distinct."""
    rng = random.Random(seed)
    unrestricted = {f"sample-{i:07d}": rng.random() for i in range(n)}
    return unrestricted, {s: v * rng.random() for s, v in unrestricted.items()}


def time_scipy(u, e, resamples, budget, statistic=None):
    import numpy as np
    import scipy.stats

    ua = np.array(list(u.values()))
    ea = np.array([e[s] for s in u])
    n = len(ua)
    timed = max(1, min(resamples, budget // n))
    batch = max(1, min(timed, 10**7 // n))
    start = CLOCK()
    result = scipy.stats.bootstrap(
        (ua, ea),
        statistic or (lambda x, y, axis: np.mean(x - y, axis=axis)),
        paired=True,
        vectorized=True,
        method="percentile",
        n_resamples=timed,
        batch=batch,
        # scipy >= 1.15 takes rng=; older versions random_state=.
        **{"rng" if "rng" in inspect.signature(scipy.stats.bootstrap).parameters else "random_state": np.random.default_rng(0)},
    )
    elapsed = CLOCK() - start
    ci = (float(result.confidence_interval.low), float(result.confidence_interval.high))
    return elapsed * resamples / timed, ci, timed


def time_loop(u, e, resamples, budget, confidence=0.95):
    diffs = [u[s] - e[s] for s in u]
    n = len(diffs)
    timed = max(1, min(resamples, budget // n))
    rng = random.Random(0)
    draw = rng.random
    start = CLOCK()
    means = []
    for _ in range(timed):
        total = 0.0
        for _ in range(n):
            total += diffs[int(draw() * n)]
        means.append(total / n)
    means.sort()
    elapsed = CLOCK() - start
    alpha = (1 - confidence) / 2
    ci = (percentile(means, alpha), percentile(means, 1 - alpha))  # the same quantile rule
    return elapsed * resamples / timed, ci, timed


def machine() -> str:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    parts = [f"{os.cpu_count()} CPUs ({model})", f"Python {platform.python_version()}"]
    try:
        import numpy
        import scipy

        parts.append(f"numpy {numpy.__version__}, scipy {scipy.__version__}")
    except ImportError:
        parts.append("scipy not installed")
    blas = {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS_")}
    parts.append(f"OpenBLAS env: {blas or 'none'}")
    return "; ".join(parts)


KINDS = {"binary": binary_scores, "leak": leak_scores, "continuous": continuous_scores}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1_000, 3_000, 10_000, 100_000])
    parser.add_argument("--kinds", default="binary,leak,continuous", help=f"comma-separated, of {', '.join(KINDS)}")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--loop-budget", type=int, default=0, help="resampled values the loop may draw (0: no loop)")
    parser.add_argument("--scipy-budget", type=int, default=10**11, help="resampled values scipy may draw")
    parser.add_argument("--no-scipy", action="store_true")
    parser.add_argument("--continuous", action="store_true", help="--kinds continuous")
    parser.add_argument("--repeat", type=int, default=3, help="rounds, each timing every peer once; every round printed, then the best")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="cpu", help="wall time, or this process's CPU time")
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    kinds = ["continuous"] if args.continuous else args.kinds.split(",")
    if set(kinds) - set(KINDS):
        parser.error(f"--kinds: choose from {', '.join(KINDS)}")
    if not args.no_scipy:
        try:  # the peer: say so before the first timing, not in a traceback minutes later
            import numpy as np
            import scipy.stats  # noqa: F401
        except ImportError as exc:
            parser.exit(2, f"compare_modes.py: the scipy peer needs scipy ({exc}): pip install scipy, or pass --no-scipy\n")
    b = args.resamples
    print(f"machine: {machine()}")
    print(f"B = {b:,} resamples, 95% percentile CI, seed 0, best of {args.repeat} interleaved rounds, {args.clock} time")
    print()
    header = (f"{'kind':<10}  {'n':>9}  {'K':>4}  {'path':<11}  {'compare_modes':>13}  {'scipy':>9}  {'scipy d':>8}  {'loop':>10}"
              f"  {'scipy/ours':>10}  {'scipy d/ours':>12}  {'loop/ours':>9}")
    print(header)
    print("-" * len(header))
    notes, cis = [], []

    def relative(x, y, axis):
        return np.mean(x - y, axis=axis) / np.mean(x, axis=axis)

    for kind in kinds:
        for n in args.sizes:
            u, e = KINDS[kind](n)
            rounds = []
            for number in range(args.repeat):  # interleaved: a load that drifts hits every peer
                ours, ci_ours, report = time_compare_modes(u, e, b)
                if args.no_scipy:
                    scipy_d, ci_scipy, scipy_timed, ratio_s = math.nan, None, b, math.nan
                else:
                    scipy_d, ci_scipy, scipy_timed = time_scipy(u, e, b, args.scipy_budget)
                    ratio_s, _, _ = time_scipy(u, e, b, args.scipy_budget, relative)
                rounds.append((ours, scipy_d + ratio_s, scipy_d))
                print(f"  {kind} n={n:,} round {number + 1}: compare_modes {ours:.3f}s, scipy {scipy_d + ratio_s:.3f}s "
                      f"(d {scipy_d:.3f}s): scipy / ours {(scipy_d + ratio_s) / ours:.2f}", flush=True)
            ours, scipy_s, scipy_d = (min(r[i] for r in rounds) for i in range(3))
            distinct = len({u[s] - e[s] for s in u})
            row = f"{kind:<10}  {n:>9,}  {min(distinct, 9999):>4}  {report.resampling:<11}  {ours:>12.3f}s"
            loop_s, ci_loop, loop_timed = time_loop(u, e, b, args.loop_budget) if args.loop_budget else (math.nan, None, b)
            mark_s = "~" if scipy_timed < b else " "
            mark_l = "~" if loop_timed < b else " "
            scipy_cells = ("n/a", "n/a", "n/a", "n/a") if args.no_scipy else (
                f"{scipy_s:.3f}s", f"{scipy_d:.3f}s", f"{scipy_s / ours:.2f}", f"{scipy_d / ours:.2f}")
            loop_cells = (f"{loop_s:.2f}s", f"{loop_s / ours:.0f}") if args.loop_budget else ("n/a", "n/a")
            row += (f"  {mark_s}{scipy_cells[0]:>8}  {scipy_cells[1]:>8}  {mark_l}{loop_cells[0]:>9}  {scipy_cells[2]:>10}"
                    f"  {scipy_cells[3]:>12}  {loop_cells[1]:>9}")
            print(row, flush=True)
            if scipy_timed and scipy_timed < b:
                notes.append(f"{kind} n={n:,}: scipy timed on {scipy_timed:,} resamples, scaled to {b:,}")
            if args.loop_budget and loop_timed < b:
                notes.append(f"{kind} n={n:,}: loop timed on {loop_timed:,} resamples, scaled to {b:,}")
            cis.append((kind, n, ci_ours, ci_scipy, ci_loop))
    print()
    for note in notes:
        print(f"~ {note}")
    print("CIs (compare_modes | scipy | loop; the last two are only as precise as their resamples):")
    for kind, n, *intervals in cis:
        shown = " | ".join("n/a" if ci is None else f"[{ci[0]:+.4f}, {ci[1]:+.4f}]" for ci in intervals)
        print(f"  {kind} n={n:,}: {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
