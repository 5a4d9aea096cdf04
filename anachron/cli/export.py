"""``anachron export LOG [LOG ...] --out FILE``: Inspect logs to the compare input.

Needs the ``inspect`` extra, imported only when the command runs.
"""

from __future__ import annotations

import argparse

from ..io import dump_json, write_atomic
from ..core.errors import AnachronError
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
    parser.add_argument("logs", nargs="+", metavar="LOG", help="Inspect log file (.eval or .json)")
    parser.add_argument("--out", required=True, metavar="FILE", help="output JSON file (written atomically)")
    parser.add_argument(
        "--format", choices=("tclr", "score"), default="tclr", help="tclr: {sample_id: tclr} (default); score: full records"
    )
    add_corpus_option(parser, help="corpus directory (default: the one each log's task used)")
    parser.add_argument("--epoch", type=int, metavar="N", help="export epoch N only (needed when a log has several)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        from ..inspect.export import score_logs
    except ImportError as exc:
        raise AnachronError(f"export: {' '.join(str(exc).split())}") from None
    results = score_logs(args.logs, corpus=args.corpus, epoch=args.epoch)
    document = tclr_object(results) if args.format == "tclr" else score_document(results)
    write_atomic(args.out, dump_json(document))
    print(f"wrote {args.out}: {len(results)} samples from {len(args.logs)} log{'s' if len(args.logs) > 1 else ''}")
    return 0
