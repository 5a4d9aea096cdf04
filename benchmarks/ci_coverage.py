"""Coverage of the paired bootstrap CIs (percentile and BCa) on zero-inflated leak data.

    python benchmarks/ci_coverage.py [--replications R] [--resamples B] [--sizes 10,27,100,1000]

Each replication draws n paired samples from a fixed model, runs
``compare_modes`` once per CI method, and checks whether the 95% interval
of the mean reduction (and of the relative reduction) contains the true
value.  Coverage is the share of replications that do, with its Wilson 95%
interval; "width" is the mean interval width.  Seeded: replication r draws its
data from Random(r) and its bootstrap from seed r, so the same arguments
print the same table.

The model mimics TCLR over five tool calls, mostly zero (the demo has 7 of 27
samples improved, the rest tied at 0):

- unrestricted: 0 with probability 3/4, else k/5 with k uniform on 1..5;
- enforced: 0 with probability 19/20, else k/5 with k uniform on 1..5;
- independently.  E[u] = 3/20, E[e] = 3/100: the mean reduction is 3/25 = 0.12
  and the relative reduction 4/5 = 0.8, exactly.

Figures recorded in docs/metrics.md ("Coverage").
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from anachron.core.stats import compare_modes, wilson_interval  # noqa: E402

TRUE_REDUCTION = Fraction(3, 25)
TRUE_RELATIVE = Fraction(4, 5)


def draw(rng: random.Random, zero: float) -> float:
    return 0.0 if rng.random() < zero else rng.randint(1, 5) / 5


def sample(n: int, seed: int) -> tuple[dict[str, float], dict[str, float]]:
    rng = random.Random(seed)
    u, e = {}, {}
    for i in range(n):
        u[f"s{i}"] = draw(rng, 0.75)
        e[f"s{i}"] = draw(rng, 0.95)
    return u, e


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replications", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--sizes", default="10,27,100,1000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"95% CI coverage, {args.replications} replications, B = {args.resamples}; "
          f"true mean reduction {float(TRUE_REDUCTION)}, true relative reduction {float(TRUE_RELATIVE)}")
    print()
    header = f"{'n':>5}  {'method':<10}  {'mean reduction: coverage [Wilson 95%]':<38}  {'width':>6}  " \
             f"{'relative: coverage [Wilson 95%]':<32}  {'width':>6}  {'undefined':>9}"
    print(header)
    print("-" * len(header))
    started = time.perf_counter()
    for n in sizes:
        for method in ("percentile", "bca"):
            hit = hit_rel = defined_rel = 0
            width = width_rel = 0.0
            for r in range(args.replications):
                u, e = sample(n, r)
                report = compare_modes(u, e, n_resamples=args.resamples, seed=r, ci_method=method)
                hit += report.ci_low <= TRUE_REDUCTION <= report.ci_high
                width += report.ci_high - report.ci_low
                if report.relative_ci_low is not None:
                    defined_rel += 1
                    hit_rel += report.relative_ci_low <= TRUE_RELATIVE <= report.relative_ci_high
                    width_rel += report.relative_ci_high - report.relative_ci_low
            low, high = wilson_interval(hit, args.replications)
            cover = f"{hit / args.replications:.3f} [{low:.3f}, {high:.3f}]"
            if defined_rel:
                rl, rh = wilson_interval(hit_rel, defined_rel)
                cover_rel = f"{hit_rel / defined_rel:.3f} [{rl:.3f}, {rh:.3f}]"
                rel_width = f"{width_rel / defined_rel:6.3f}"
            else:
                cover_rel, rel_width = "n/a", "   n/a"
            print(f"{n:>5}  {method:<10}  {cover:<38}  {width / args.replications:6.3f}  {cover_rel:<32}  {rel_width}"
                  f"  {args.replications - defined_rel:>9}", flush=True)
    print()
    print(f"(relative: over the replications whose unrestricted mean is not 0; 'undefined' counts the others; "
          f"{time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
