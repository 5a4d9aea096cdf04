"""``anachron export LOG [LOG ...] --out FILE``: Inspect logs to the compare input.

Needs the ``inspect`` extra, imported only when the command runs.
"""

from __future__ import annotations

import argparse

from anachron.core.errors import AnachronError
from anachron.core.docs import doc_url
from anachron.core.jsonio import dump_json
from anachron.core.atomic import staged_output, write_atomic
from anachron.core.scores import tclr_document
from anachron.output.stream import Addenda, CsvWriter, JsonWriter, score_stream
from anachron.cli.options import add_corpus_option, add_quiet_option, examples, frozen_heap, progress


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="score Inspect logs of the anachron tasks and write per-sample TCLR (needs the inspect extra)",
        description="Rebuild each sample's tool interactions from Inspect .eval or .json logs, score them "
        "with the core, and write the per-sample TCLR file (the anachron-compare input: the run's model, mode "
        "and corpus, then {sample_id: tclr}) or, with --format score, the full records of `anachron score "
        "--format json` (the run in its summary).",
    )
    parser.add_argument("logs", nargs="+", metavar="LOG", help="Inspect log file (.eval or .json), or a log directory")
    parser.add_argument("--out", required=True, metavar="FILE", help="output file (written atomically)")
    parser.add_argument(
        "--format", choices=("tclr", "score", "csv"), default="tclr",
        help="tclr: {\"run\": ..., \"tclr\": {sample_id: tclr}} (default); score: full records; csv: one row per sample "
        f"({doc_url('formats.md')})",
    )
    add_corpus_option(parser, help="corpus directory, index or postgresql:// URL (default: the one each log's task used)")
    parser.add_argument("--epoch", type=int, metavar="N", help="export epoch N only (needed when a log has several)")
    add_quiet_option(parser)
    parser.epilog = examples(
        'inspect eval anachron/anachron --model anachron/naive --log-dir logs/unrestricted   # inspect extra',
        'anachron export logs/unrestricted --out unrestricted.json',
        'anachron export logs/unrestricted --format csv --out unrestricted.csv',
    )
    parser.set_defaults(func=run)


class _Tclr:
    """A writer keeping ``{sample_id: tclr}`` (the anachron-compare input), a few bytes per sample."""

    def __init__(self) -> None:
        self.tclr: dict[str, float] = {}

    def sample(self, result) -> None:
        self.tclr[result.sample_id] = result.tclr

    def finish(self, summary) -> None:
        pass

    def close(self) -> None:
        pass


def run(args: argparse.Namespace) -> int:
    try:
        from anachron.inspect.export import log_paths, log_records, log_run
    except ImportError as exc:
        raise AnachronError(f"export: {' '.join(str(exc).split())}") from None
    paths = log_paths(args.logs)
    records, corpus = log_records(paths, corpus=args.corpus, epoch=args.epoch)
    run = log_run(paths, corpus=args.corpus)  # what the runs were: compare checks it (docs/formats.md)
    # Samples are read, scored and written one at a time (an .eval log a batch of samples at a time).
    with frozen_heap(), progress(args, "samples") as shown:
        records = shown.iterate(records)
        if args.format == "tclr":
            writer = _Tclr()
            summary = score_stream(records, corpus, writer)
            write_atomic(args.out, dump_json(tclr_document(writer.tclr, run)))
        else:
            with staged_output(args.out) as stream:
                writer = (CsvWriter if args.format == "csv" else JsonWriter)(stream)
                writer.addenda = Addenda(fields={"run": run})  # the JSON summary's "run"; CSV has no summary
                summary = score_stream(records, corpus, writer)
    print(f"wrote {args.out}: {summary.n} samples from {len(paths)} log{'s' if len(paths) > 1 else ''}")
    return 0
