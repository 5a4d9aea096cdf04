"""Time the HTML report against the score JSON of the same results, in the same run.

    python benchmarks/report.py                 # 27, 2,700 and 27,000 samples
    python benchmarks/report.py --sizes 27 270  # a quick run

Both render scored results the core already made (the naive agent's 27
unrestricted traces of the bundled corpus, repeated under new sample ids):

- ``score JSON``: the document :class:`~anachron.core.leakage.ScoreJsonWriter` writes, what
  ``anachron score --format json`` writes (the floor: every figure, no layout);
- ``report``: ``report_html([Run(...)])``, the page ``anachron report``
  writes (summary, plots, per-sample table with the evidence).

Best of three rounds each; the ratio is report time over JSON time.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a clone, as the other benchmarks

from anachron.core import load_corpus_dir, parse_traces, score_traces, summarise  # noqa: E402
from anachron.core.leakage import ScoreJsonWriter  # noqa: E402
from anachron.store import SearchEngine  # noqa: E402
from anachron.core.reference_agent import naive_trace  # noqa: E402
from anachron.output.html import Run, report_html  # noqa: E402


def results(n: int):
    corpus = load_corpus_dir()
    engine = SearchEngine(corpus)
    base = [naive_trace(s, engine, "unrestricted") for s in corpus.samples.values()]
    traces = [dict(t, sample_id=f"{t['sample_id']}-{i}") for i in range(-(-n // len(base))) for t in base][:n]
    return score_traces(parse_traces([(f"t:{i}", t) for i, t in enumerate(traces)], corpus), corpus)


def score_json(rs) -> str:
    out = io.StringIO()
    writer = ScoreJsonWriter(out)
    for r in rs:
        writer.sample(r)
    writer.finish(summarise(rs))
    return out.getvalue()


def best(fn, rounds: int = 3) -> tuple[float, int]:
    times, size = [], 0
    for _ in range(rounds):
        start = time.perf_counter()
        size = len(fn())
        times.append(time.perf_counter() - start)
    return min(times), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[27, 2_700, 27_000])
    args = parser.parse_args()
    print(f"{'samples':>8}  {'score JSON s':>12}  {'report s':>9}  {'report KiB':>10}  ratio")
    for n in args.sizes:
        rs = results(n)
        json_s, _ = best(lambda: score_json(rs))
        page_s, size = best(lambda: report_html([Run("bench", tuple(rs))]))
        print(f"{n:>8}  {json_s:>12.4f}  {page_s:>9.4f}  {size // 1024:>10}  {page_s / json_s:.2f}")


if __name__ == "__main__":
    main()
