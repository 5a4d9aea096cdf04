"""``anachron export LOG [LOG ...] --out FILE``: Inspect logs to the compare input.

Needs the ``inspect`` extra, imported only when the command runs.
"""

from __future__ import annotations

import argparse

from ..io import dump_json, write_atomic
from ..core.errors import AnachronError
from ..records import SAMPLE_COLUMNS, csv_text, sample_records
from ..report import score_document, tclr_object
from .options import add_corpus_option


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="score Inspect logs of the anachron tasks and write per-sample TCLR (needs anachron[inspect])",
        description="Rebuild each sample's tool interactions from Inspect .eval or .json logs, score them "
        "with the core, and write {sample_id: tclr} (the anachron-compare input) or, with --format score, "
        "the full records of `anachron score --format json`.",
    )
    parser.add_argument("logs", nargs="+", metavar="LOG", help="Inspect log file (.eval or .json), or a log directory")
    parser.add_argument("--out", required=True, metavar="FILE", help="output file (written atomically)")
    parser.add_argument(
        "--format", choices=("tclr", "score", "csv"), default="tclr",
        help="tclr: {sample_id: tclr} (default); score: full records; csv: one row per sample (docs/formats.md)",
    )
    add_corpus_option(parser, help="corpus directory (default: the one each log's task used)")
    parser.add_argument("--epoch", type=int, metavar="N", help="export epoch N only (needed when a log has several)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from ..inspect.export import log_paths, score_logs
    except ImportError as exc:
        raise AnachronError(f"export: {' '.join(str(exc).split())}") from None
    paths = log_paths(args.logs)
    results = score_logs(paths, corpus=args.corpus, epoch=args.epoch)
    if args.format == "csv":
        text = csv_text(sample_records(results), SAMPLE_COLUMNS)
    else:
        text = dump_json(tclr_object(results) if args.format == "tclr" else score_document(results))
    write_atomic(args.out, text)
    print(f"wrote {args.out}: {len(results)} samples from {len(paths)} log{'s' if len(paths) > 1 else ''}")
    return 0
