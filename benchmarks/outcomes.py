"""Time ``anachron outcomes`` against a numpy implementation of the same Brier and percentile bootstrap.

    python benchmarks/outcomes.py                          # 20,000 questions x 5 models = 100,000 forecasts, B = 2,000
    python benchmarks/outcomes.py --questions 2000 --rounds 2   # a quick run
    python benchmarks/outcomes.py --questions 200000 --rounds 1 --only command   # 10**6 forecasts: time and peak RSS

Every round times, one after the other (rounds interleaved, CPU time of the
process or of the child):

- ``function``: :func:`anachron.forecasts.report.build_report` in this
  process, from the files (reading, every model's scores and their CIs, the
  question bootstrap of the adjusted Brier, the paired comparisons), with
  the CPU time of each of these parts;
- ``command``: ``python -m anachron outcomes ... --format json --out FILE
  --quiet`` in a child (interpreter start included), with its peak RSS;
- ``numpy``: the same files read with ``json.loads`` into arrays, each
  model's Brier, and its percentile bootstrap (B resamples of its forecasts,
  ``Generator.integers`` indices in chunks of about 10**7, the means,
  ``np.percentile`` at 2.5 and 97.5: numpy's default, linear, is Anachron's);
  then the twins of the report's other parts, each timed apart: ``pairs``,
  every pair's paired percentile bootstrap of the mean Brier difference over
  their common questions (B resamples), and ``questions``, the question
  bootstrap with the refit (B resamples of the questions; per resample the
  weighted two-way fixed-effects fit with the question effects eliminated,
  an M x M solve, batched by ``np.linalg.solve``; each model's adjusted
  Brier on the scale where the drawn questions' effects average 0, and its
  percentile interval).

Each part is compared with its twin (``score_model`` with ``models``,
``compare_modes`` with ``pairs``, ``question_bootstrap`` with
``questions``), and the whole with the sum of numpy's parts (reading
included).  The twins compute fewer figures than Anachron's parts
(``score_model`` also gives the log loss and the skill with their CIs,
``compare_modes`` a paired report): the ratios are upper bounds on the
cost of the same figures.

The data: per question an outcome (1 with probability 0.4) and, per model,
a probability rounded to 3 decimals from a noisy signal; each model skips 3%
of the questions (an uneven panel).  Needs numpy (the test extra).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from anachron.forecasts.report import build_report  # noqa: E402


def _resampled_means(np, values, resamples, rng):
    """The means of *resamples* percentile-bootstrap resamples of *values*, drawn in chunks of about 10**7 indices."""
    n = len(values)
    chunk = max(1, 10**7 // n)
    means = np.empty(resamples)
    for at in range(0, resamples, chunk):
        k = min(chunk, resamples - at)
        means[at:at + k] = values[rng.integers(0, n, size=(k, n))].mean(axis=1)
    return means


def write_inputs(directory: Path, questions: int, models: int, seed: int = 2024) -> tuple[list[Path], Path, int]:
    rng = random.Random(seed)
    outcomes = [int(rng.random() < 0.4) for _ in range(questions)]
    files = []
    count = 0
    for m in range(models):
        path = directory / f"model{m}.jsonl"
        skill = 0.5 + 0.1 * m
        with open(path, "w", encoding="utf-8") as out:
            for q, o in enumerate(outcomes):
                if rng.random() < 0.03:
                    continue
                signal = skill * o + (1 - skill) * rng.random()
                p = round(min(max(signal + rng.gauss(0, 0.15), 0.0), 1.0), 3)
                out.write(json.dumps({"sample_id": f"q{q:07d}", "probability": p}) + "\n")
                count += 1
        files.append(path)
    resolutions = directory / "resolutions.jsonl"
    with open(resolutions, "w", encoding="utf-8") as out:
        for q, o in enumerate(outcomes):
            out.write(json.dumps({"sample_id": f"q{q:07d}", "resolved_to": o}) + "\n")
    return files, resolutions, count


PARTS = ("score_model", "question_bootstrap", "compare_modes")  # the report's steps whose CPU time is split out
TWINS = {"score_model": "models", "question_bootstrap": "questions", "compare_modes": "pairs"}  # each part's numpy twin


def time_function(files, resolutions, resamples):
    """CPU time of build_report, and of its parts (each model's scores, the question bootstrap, the pairs)."""
    from anachron.forecasts import report as module

    spent = dict.fromkeys(PARTS, 0.0)
    originals = {name: getattr(module, name) for name in PARTS}

    def timed(name):
        def call(*args, **kwargs):
            start = time.process_time()
            try:
                return originals[name](*args, **kwargs)
            finally:
                spent[name] += time.process_time() - start
        return call

    for name in PARTS:
        setattr(module, name, timed(name))
    try:
        start = time.process_time()
        build_report(files, resolutions, n_resamples=resamples, seed=0)
        total = time.process_time() - start
    finally:
        for name, original in originals.items():
            setattr(module, name, original)
    return total, spent


# The child reports its own peak (VmHWM, Linux): RUSAGE_CHILDREN's ru_maxrss would also count the
# parent's pages a forked child held before its exec, so a round after numpy's would read numpy's peak.
_CHILD = """import runpy, sys
peak = sys.argv.pop(1)
try:
    runpy.run_module("anachron", run_name="__main__", alter_sys=True)
finally:
    with open("/proc/self/status") as status, open(peak, "w") as out:
        out.write(next((line.split()[1] for line in status if line.startswith("VmHWM:")), "0"))
"""


def time_command(files, resolutions, resamples, out):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = Path(out).with_suffix(".peak")
    subprocess.run([sys.executable, "-c", _CHILD, str(peak), "outcomes", *map(str, files), str(resolutions), "--resamples", str(resamples),
                    "--format", "json", "--out", str(out), "--quiet"], check=True, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return cpu, int(peak.read_text() or 0) / 1024  # VmHWM: KiB


def time_numpy(files, resolutions, resamples):
    import numpy as np

    start = time.process_time()
    outcome = {}
    with open(resolutions, encoding="utf-8") as handle:
        for line in handle.read().split("\n"):
            if line:
                record = json.loads(line)
                outcome[record["sample_id"]] = record["resolved_to"]
    cis = {}
    rng = np.random.default_rng(0)
    per_model = {}
    for path in files:
        probs, outs, ids = [], [], []
        with open(path, encoding="utf-8") as handle:
            for line in handle.read().split("\n"):
                if line:
                    record = json.loads(line)
                    probs.append(record["probability"])
                    outs.append(outcome[record["sample_id"]])
                    ids.append(record["sample_id"])
        brier = (np.asarray(probs) - np.asarray(outs)) ** 2
        per_model[Path(path).stem] = (ids, brier)
        means = _resampled_means(np, brier, resamples, rng)
        low, high = np.percentile(means, [2.5, 97.5])
        cis[Path(path).stem] = (float(low), float(high))
    spent = {"models": time.process_time() - start}
    start = time.process_time()
    numpy_pairs(per_model, resamples, rng)
    spent["pairs"] = time.process_time() - start
    start = time.process_time()
    numpy_question_bootstrap(per_model, resamples, rng)
    spent["questions"] = time.process_time() - start
    return sum(spent.values()), spent


def numpy_pairs(per_model, resamples, rng):
    """Every pair's paired percentile bootstrap of the mean Brier difference over their common questions."""
    import numpy as np

    names = sorted(per_model)
    out = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ia, ba = per_model[a]
            ib, bb = per_model[b]
            common, ka, kb = np.intersect1d(np.asarray(ia), np.asarray(ib), assume_unique=True, return_indices=True)
            diff = ba[ka] - bb[kb]
            means = _resampled_means(np, diff, resamples, rng)
            out[(a, b)] = (float(diff.mean()), *np.percentile(means, [2.5, 97.5]))
    return out


def numpy_question_bootstrap(per_model, resamples, rng):
    """The question bootstrap with the refit: per resample the counts of the drawn questions, the normal
    equations of the model effects with the question effects eliminated (as anachron.forecasts.resampling
    builds them), one batched solve; each model's adjusted Brier, its percentile interval."""
    import numpy as np

    names = sorted(per_model)
    questions = sorted({q for ids, _ in per_model.values() for q in ids})
    qi = {q: i for i, q in enumerate(questions)}
    nq, nm = len(questions), len(names)
    answered = np.zeros((nq, nm))
    brier = np.zeros((nq, nm))
    for m, name in enumerate(names):
        ids, values = per_model[name]
        rows = np.fromiter((qi[q] for q in ids), dtype=np.int64, count=len(ids))
        answered[rows, m] = 1.0
        brier[rows, m] = values
    k = answered.sum(axis=1)
    bbar = brier.sum(axis=1) / k
    share = answered / k[:, None]
    # Per question the quantities summed over a resample: n_m, the M x M weights, brier sums, bbar per model, the shares.
    features = np.hstack([answered, (share[:, :, None] * answered[:, None, :]).reshape(nq, nm * nm), brier,
                          answered * bbar[:, None], share, (share * bbar[:, None]).sum(axis=1, keepdims=True)])
    chunk = max(1, 10**7 // nq)
    adjusted = np.empty((resamples, nm))
    for at in range(0, resamples, chunk):
        c = min(chunk, resamples - at)
        draws = rng.integers(0, nq, size=(c, nq)) + (np.arange(c) * nq)[:, None]
        weights = np.bincount(draws.ravel(), minlength=c * nq).reshape(c, nq).astype(float)
        sums = weights @ features
        n = sums[:, :nm]
        p = sums[:, nm:nm + nm * nm].reshape(c, nm, nm)
        r = sums[:, nm + nm * nm:nm + nm * nm + nm] - sums[:, nm + nm * nm + nm:nm + nm * nm + 2 * nm]
        shares = sums[:, nm + nm * nm + 2 * nm:nm + nm * nm + 3 * nm]
        lap = -p
        lap[:, np.arange(nm), np.arange(nm)] += n
        x = np.zeros((c, nm))
        x[:, 1:] = np.linalg.solve(lap[:, 1:, 1:], r[:, 1:, None])[:, :, 0]  # the first model pinned at 0
        shift = (sums[:, -1] - (shares * x).sum(axis=1)) / weights.sum(axis=1)
        adjusted[at:at + c] = x + shift[:, None]
    return np.percentile(adjusted, [2.5, 97.5], axis=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0], allow_abbrev=False)
    parser.add_argument("--questions", type=int, default=20_000)
    parser.add_argument("--models", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=("function", "command", "numpy"), action="append")
    args = parser.parse_args()
    peers = args.only or ["function", "command", "numpy"]
    try:
        import numpy
        numpy_version = numpy.__version__
    except ImportError:
        numpy_version = None
        peers = [p for p in peers if p != "numpy"]
    print(f"machine: {platform.python_implementation()} {platform.python_version()}, nproc {os.cpu_count()}, numpy {numpy_version}, "
          f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        files, resolutions, count = write_inputs(Path(tmp), args.questions, args.models)
        print(f"{count:,} forecasts ({args.models} models x {args.questions:,} questions, 3% skipped), B = {args.resamples:,}")
        times: dict[str, list[float]] = {p: [] for p in peers}
        for round_ in range(1, args.rounds + 1):
            line = [f"round {round_}:"]
            for peer in peers:
                if peer == "function":
                    seconds, spent = time_function(files, resolutions, args.resamples)
                elif peer == "command":
                    seconds, rss = time_command(files, resolutions, args.resamples, Path(tmp) / "out.json")
                    line.append(f"(peak RSS {rss:,.0f} MB)")
                else:
                    seconds, numpy_spent = time_numpy(files, resolutions, args.resamples)
                times[peer].append(seconds)
                line.insert(-1 if peer == "command" else len(line), f"{peer} {seconds:.2f} s")
            if "numpy" in times:
                for peer in ("function", "command"):
                    if peer in times:
                        line.append(f"{peer}/numpy {times[peer][-1] / times['numpy'][-1]:.2f}")
            print("  ".join(line), f"load {os.getloadavg()[0]:.1f}", flush=True)
            if "function" in times:
                print("  function's parts: " + ", ".join(f"{name} {spent[name]:.2f} s" for name in PARTS)
                      + f", the rest {times['function'][-1] - sum(spent.values()):.2f} s", flush=True)
            if "numpy" in times:
                print("  numpy's parts: " + ", ".join(f"{name} {numpy_spent[name]:.2f} s" for name in TWINS.values()), flush=True)
            if "function" in times and "numpy" in times:
                print("  part / its numpy twin: " + ", ".join(f"{name} / {twin} {spent[name] / numpy_spent[twin]:.2f}"
                                                               for name, twin in TWINS.items()), flush=True)
        for peer, values in times.items():
            print(f"{peer}: best {min(values):.2f} s, median {sorted(values)[len(values) // 2]:.2f} s")
        if "numpy" in times:
            for peer in ("function", "command"):
                if peer in times:
                    ratios = sorted(a / b for a, b in zip(times[peer], times["numpy"]))
                    print(f"{peer} / numpy, per round: " + ", ".join(f"{r:.2f}" for r in ratios))


if __name__ == "__main__":
    main()
