"""Time compare_modes against scipy's vectorized bootstrap and a plain Python loop.

    python benchmarks/compare_modes.py                   # n = 27, 1,000, 100,000, 1,000,000; B = 10,000
    python benchmarks/compare_modes.py --sizes 27 1000   # a quick run
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

The data look like leak scores: TCLR = leaking interactions / interactions
with 0..5 interactions per sample, so the differences take few distinct
values and compare_modes takes its multinomial path (its cost no longer
grows with n).  With ``--continuous`` they are continuous scores instead
(u uniform in [0, 1), e = u times another uniform draw: every difference
distinct), the direct path (``blocks`` from 1,000 pairs); scipy then
computes both statistics compare_modes reports, the mean difference and the
relative reduction mean(u - e) / mean(u), in two calls (``scipy`` is their
sum, ``scipy d`` the first alone), and the loop is left out
(``--loop-budget 0``) unless asked for.

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
    """Per-sample TCLR of an unrestricted and an enforced run over n samples."""
    rng = random.Random(seed)
    unrestricted, enforced = {}, {}
    for i in range(n):
        calls = rng.randint(0, 5)
        leaks_u = sum(rng.random() < 0.3 for _ in range(calls))
        leaks_e = sum(rng.random() < 0.05 for _ in range(calls))
        sample = f"sample-{i:07d}"
        unrestricted[sample] = leaks_u / calls if calls else 0.0
        enforced[sample] = leaks_e / calls if calls else 0.0
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[27, 1_000, 100_000, 1_000_000])
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--loop-budget", type=int, default=10**7, help="resampled values the loop may draw")
    parser.add_argument("--scipy-budget", type=int, default=10**11, help="resampled values scipy may draw")
    parser.add_argument("--no-scipy", action="store_true")
    parser.add_argument("--continuous", action="store_true", help="continuous scores (every difference distinct); scipy computes both statistics")
    parser.add_argument("--repeat", type=int, default=1, help="rounds, each timing every peer once; the best is kept")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="wall time, or this process's CPU time")
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    if not args.no_scipy:
        try:  # the peer: say so before the first timing, not in a traceback minutes later
            import scipy.stats  # noqa: F401
        except ImportError as exc:
            parser.exit(2, f"compare_modes.py: the scipy peer needs scipy ({exc}): pip install scipy, or pass --no-scipy\n")
    b = args.resamples
    print(f"machine: {machine()}")
    print(f"B = {b:,} resamples, 95% percentile CI, seed 0, {'continuous scores' if args.continuous else 'leak-like scores'}, best of {args.repeat}, {args.clock} time")
    print()
    header = (f"{'n':>9}  {'K':>3}  {'path':<11}  {'compare_modes':>13}  {'scipy':>9}  {'loop':>10}"
              f"  {'scipy/ours':>10}  {'loop/ours':>9}")
    print(header)
    print("-" * len(header))
    notes, cis = [], []
    for n in args.sizes:
        u, e = continuous_scores(n) if args.continuous else leak_scores(n)
        rounds = []
        for _ in range(args.repeat):  # interleaved: a load that drifts hits every peer
            ours, ci_ours, report = time_compare_modes(u, e, b)
            if args.no_scipy:
                scipy_s, ci_scipy, scipy_timed = math.nan, None, b
            else:
                scipy_s, ci_scipy, scipy_timed = time_scipy(u, e, b, args.scipy_budget)
                if args.continuous:
                    import numpy as np

                    ratio_s, _, _ = time_scipy(u, e, b, args.scipy_budget, lambda x, y, axis: np.mean(x - y, axis=axis) / np.mean(x, axis=axis))
                    scipy_d, scipy_s = scipy_s, scipy_s + ratio_s
            rounds.append((ours, scipy_s, scipy_d if args.continuous and not args.no_scipy else math.nan))
        ours = min(r[0] for r in rounds)
        scipy_s = min(r[1] for r in rounds)
        scipy_d = min(r[2] for r in rounds)
        distinct = len({u[s] - e[s] for s in u})
        row = f"{n:>9,}  {min(distinct, 999):>3}  {report.resampling:<11}  {ours:>12.3f}s"
        loop_s, ci_loop, loop_timed = time_loop(u, e, b, args.loop_budget if not args.continuous or args.loop_budget != 10**7 else n)
        mark_s = "~" if scipy_timed < b else " "
        mark_l = "~" if loop_timed < b else " "
        scipy_cells = ("n/a", "n/a") if args.no_scipy else (f"{scipy_s:.3f}s", f"{scipy_s / ours:.1f}")
        row += f"  {mark_s}{scipy_cells[0]:>8}  {mark_l}{loop_s:>8.2f}s  {scipy_cells[1]:>10}  {loop_s / ours:>9.0f}"
        print(row, flush=True)
        if args.continuous and not args.no_scipy:
            print(f"{'':>9}  scipy, the mean difference alone: {scipy_d:.3f}s ({scipy_d / ours:.2f} x compare_modes)", flush=True)
        if scipy_timed and scipy_timed < b:
            notes.append(f"n={n:,}: scipy timed on {scipy_timed:,} resamples, scaled to {b:,}")
        if loop_timed < b:
            notes.append(f"n={n:,}: loop timed on {loop_timed:,} resamples, scaled to {b:,}")
        cis.append((n, ci_ours, ci_scipy, ci_loop))
    print()
    for note in notes:
        print(f"~ {note}")
    print("CIs (compare_modes | scipy | loop; the last two are only as precise as their resamples):")
    for n, *intervals in cis:
        shown = " | ".join("n/a" if ci is None else f"[{ci[0]:+.4f}, {ci[1]:+.4f}]" for ci in intervals)
        print(f"  n={n:,}: {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
