"""``anachron report RUN [RUN ...] --out report.html``: one self-contained HTML page."""

from __future__ import annotations

import argparse

from anachron.core.errors import AnachronError
from anachron.core.atomic import write_atomic
from anachron.cli.options import add_corpus_option, add_quiet_option, examples, progress


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write an HTML report with plots (score JSON, traces, Inspect logs, a bank score card)",
        description="Write one self-contained HTML file (inline SVG plots, no network) for one or more runs: "
        "the run summary with every denominator; a per-sample TCLR plot with the run's mean and its CI; the "
        "leak horizon on a log day axis; leak findings by slice and by as-of year; and a sortable per-sample "
        "table with the evidence lines. With exactly two runs, the paired comparison of the first "
        "(unrestricted) and the second (enforced): each run's mean, the mean reduction with its CI, and each "
        "sample's pair sorted by the difference. A bank score card (`anachron bank run --format json`) adds "
        "the four checks, the oracles' separation and the cutoff split. Every figure has axis titles, a legend "
        "and a caption stating n and the denominator.",
    )
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="score JSON (anachron score --format json), traces (.jsonl, scored against --corpus), "
        "an Inspect log (.eval/.json) or log directory, or a bank score card (.json)",
    )
    parser.add_argument("--out", required=True, metavar="FILE", help="the HTML file to write (atomically)")
    add_corpus_option(parser, help="corpus (directory, index or postgresql:// URL) the traces are scored against (default: the bundled v0 corpus)")
    parser.add_argument("--figures", metavar="DIR", help="also write each figure as a standalone SVG file (light theme, "
                        "prints in grey, its caption drawn below) into DIR, with figures.json listing them; the set is "
                        "written atomically. DIR must be new, empty, or a set this option wrote")
    parser.add_argument("--title", default="Anachron report", help="the page title")
    parser.add_argument("--metric", default="tclr", metavar="NAME", help="per-sample field the comparison pairs (default: tclr)")
    parser.add_argument("--confidence", type=float, default=0.95, metavar="C",
                        help="CI level of the comparison and of each run's mean (default: 0.95)")
    parser.add_argument("--resamples", type=int, default=10_000, metavar="B",
                        help="bootstrap resamples of the comparison and of each run's mean (default: 10000)")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seed of every bootstrap (default: 0)")
    add_quiet_option(parser)
    parser.epilog = examples(
        'anachron report anachron-demo/unrestricted.jsonl anachron-demo/enforced.jsonl --out report.html   # after `anachron demo`',
        'anachron report anachron-demo/enforced.jsonl --out enforced.html --figures figures',
    )
    parser.set_defaults(func=run, output_options=("out", "figures"), directory_outputs=("figures",))


_FLAGS = {"confidence": "--confidence", "n_resamples": "--resamples", "seed": "--seed"}


def run(args: argparse.Namespace) -> int:
    from anachron.core import compare_modes
    from anachron.core.scores import metric_kind
    from anachron.core.stats.paired import check_options
    from anachron.cli.report_inputs import load_input
    from anachron.output.html import Run, report_html

    check_options(args.confidence, args.resamples, args.seed, names=_FLAGS)  # each run's mean is bootstrapped too
    metric_kind(args.metric)  # a mistyped --metric is refused with one run too, not only when two are paired

    runs: list[Run] = []
    bank = None
    with progress(args, "inputs", total=len(args.runs)) as shown:
        for path in args.runs:
            loaded = load_input(path, corpus=args.corpus)
            if isinstance(loaded, Run):
                if not loaded.results:  # (Inspect logs of no sample) a run's mean needs one: say which input has none
                    raise AnachronError(f"{path}: no sample to report", file=path)
                runs.append(loaded)
            elif bank is not None:
                raise AnachronError(f"{path}: a second bank score card; give one")
            else:
                from anachron.bank.run import complete_card  # an older card's verdict, worded by the bank's rule

                bank = complete_card(loaded)
            shown.advance()
    comparison = None
    if len(runs) == 2:
        values = [{r.sample_id: r.to_dict()[args.metric] if args.metric in r.to_dict() else None for r in run.results}
                  for run in runs]
        comparison = compare_modes(values[0], values[1], confidence=args.confidence, n_resamples=args.resamples,
                                   seed=args.seed, metric=args.metric)
    options = dict(comparison=comparison, bank=bank, metric=args.metric, confidence=args.confidence,
                   n_resamples=args.resamples, seed=args.seed)
    if args.figures is None:
        write_atomic(args.out, report_html(runs, title=args.title, **options))
    else:
        from anachron.output.html.page import report_page
        from anachron.output.figure_files import write_figure_set

        page, figures = report_page(runs, title=args.title, **options)
        written = write_figure_set(args.figures, figures, {args.out: page})
    what = [f"{len(runs)} run{'s' if len(runs) != 1 else ''}"] if runs or bank is None else []  # a card alone: no "0 runs"
    what += ["the paired comparison"] if comparison else []
    what += ["a bank score card"] if bank is not None else []
    print(f"wrote {args.out}: {', '.join(what)}")
    if args.figures is not None:
        print(f"wrote {args.figures}: {written} figure{'s' if written != 1 else ''} (standalone SVG) and figures.json")
    return 0
