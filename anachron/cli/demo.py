"""``anachron demo``: the keyless main job.

Runs the naive reference agent (one entity search per sample) over the v0
corpus in both modes, scores both with the core, prints a per-mode table and
the worked cases, and writes the traces and per-sample TCLR files.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from anachron.core import MODES, parse_traces, score_traces, summarise
from anachron.core.reference_agent import naive_trace
from anachron.store import open_corpus, shown_corpus
from anachron.core.jsonio import dump_json
from anachron.core.atomic import write_files_atomic
from anachron.output.text_table import summary_lines, tclr_file
from anachron.store.engine import RankedEngine
from anachron.cli import options
from anachron.cli.options import add_corpus_option, add_ranking_option, examples

DEFAULT_OUT = "anachron-demo"
MODEL = "anachron/naive"  # the naive reference agent, under its Inspect name (anachron.inspect.models)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="run the keyless reference agent in both modes and score it (no key, no network)",
        description="Run the naive reference agent over the corpus in the unrestricted and the "
        "enforced mode, score both, and write traces and per-sample TCLR files.",
    )
    parser.add_argument("--out", metavar="DIR", default=DEFAULT_OUT, help=f"output directory (default: ./{DEFAULT_OUT})")
    add_corpus_option(parser)
    parser.add_argument("-k", type=int, default=5, metavar="K", help="search results per query (default: 5)")
    add_ranking_option(parser)
    parser.epilog = examples(
        'anachron demo                       # writes ./anachron-demo/ and prints the table',
        'anachron demo --out runs/demo -k 2  # two results per search',
    )
    parser.set_defaults(func=run, directory_outputs=("out",))  # a new directory: made with its parents


def run(args: argparse.Namespace) -> int:
    opened = open_corpus(args.corpus)
    corpus, engine = opened.corpus, RankedEngine(opened.engine, args.ranking or "bm25")
    samples = list(corpus.samples.values())
    traces, results = {}, {}
    for mode in MODES:
        records = [naive_trace(sample, engine, mode, k=args.k) for sample in samples]
        traces[mode] = records
        # The demo scores through the same validation path as `anachron score`.
        results[mode] = score_traces(parse_traces(((f"demo {mode}", r) for r in records), corpus), corpus)

    out = Path(args.out)
    where = shown_corpus(args.corpus) if args.corpus else "v0 (bundled)"  # a URL without its password
    files = {}
    for mode in MODES:
        files[out / f"{mode}.jsonl"] = "".join(dump_json(r, indent=None) for r in traces[mode])
        # The run travels with its scores, so `compare` can tell swapped or unrelated files.
        run = {"mode": mode, "model": MODEL, "corpus": where, "corpus_fingerprint": opened.fingerprint}
        files[out / f"{mode}.json"] = dump_json(tclr_file(results[mode], run))
    write_files_atomic(files)  # the four files as a set: all of them or none

    print(f"Anachron demo: naive reference agent (one entity search per sample), corpus {where}, {len(samples)} samples")
    print()
    print(_side_by_side(results))
    worked = [s for s in samples if s.extra.get("worked_example")]
    if worked:
        print()
        print("Worked cases")
        by_id = {mode: {r.sample_id: r for r in results[mode]} for mode in MODES}
        for sample in worked:
            print()
            print(f"{sample.extra.get('subject', sample.id)} ({sample.id}), as of {sample.as_of}")
            for mode in MODES:
                r = by_id[mode][sample.id]
                print(
                    f"  {mode + ':':<14}TCLR={r.tclr:.2f}  survivorship={r.survivorship_leaks}"
                    f"  restatement={r.restatement_leaks}"
                )
                for line in r.evidence:
                    print(f"    ! {line}")
    print()
    print("Wrote " + ", ".join(str(path) for path in files))
    compare = "anachron-compare" if options.PROGRAM == "anachron" else f"{options.PROGRAM} compare"
    print(f"Compare the modes: {compare} {out / 'unrestricted.json'} {out / 'enforced.json'}")
    return 0


def _side_by_side(results) -> str:
    columns = {mode: summary_lines(summarise(results[mode]), every_line=True) for mode in MODES}
    label_width = 25
    lines = [f"{'':<{label_width}}" + "".join(f"{mode:<15}" for mode in MODES)]
    for row in zip(*(columns[mode] for mode in MODES)):
        label = row[0][:label_width].rstrip()
        values = [cell[label_width:].strip() for cell in row]
        lines.append(f"{label:<{label_width}}" + "".join(f"{value:<15}" for value in values))
    return "\n".join(line.rstrip() for line in lines)
