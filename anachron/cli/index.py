"""``anachron index CORPUS_DIR --out corpus.db | --to postgresql://...``: index a corpus.

``--out`` writes a SQLite index file (standard library; docs/index.md), built
atomically.  ``--to`` loads the corpus into a PostgreSQL database (the
``postgres`` extra), in one transaction.  Either is then accepted wherever
``--corpus`` is; a PostgreSQL URL only where a corpus is served (``serve``,
the Inspect tasks).
"""

from __future__ import annotations

import argparse

from anachron.cli.options import examples
from anachron.core.docs import doc_url


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "index",
        help="index a corpus directory into a SQLite file (--out) or a PostgreSQL database (--to)",
        description="Build a search index of a corpus: full-text search over the same terms the in-memory engine "
        "ranks, the dates and entities in indexed columns, and the SHA-256 of each corpus file (a stale index is "
        "refused). Results are those of the in-memory engine, in the same order "
        f"({doc_url('index.md')}).",
    )
    parser.add_argument("corpus", metavar="CORPUS_DIR", help="corpus directory (items.jsonl, entities.jsonl, samples.jsonl)")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--out", metavar="FILE", help="SQLite index file to write (replaced atomically)")
    target.add_argument("--to", metavar="URL", help="postgresql:// database to load (the corpus's tables are replaced)")
    parser.add_argument(
        "--no-samples",
        action="store_true",
        help="leave samples.jsonl out: an index only for serving (scoring and the Inspect tasks need the samples)",
    )
    from anachron.cli.options import add_quiet_option

    add_quiet_option(parser)
    parser.epilog = examples(
        'anachron index corpus/v0 --out corpus.db',
        'anachron search corpus.db --as-of 2022-06-01 "aster logistics"',
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from anachron.core.errors import AnachronError

    samples = not args.no_samples
    if args.out is not None:
        from anachron.cli.options import progress
        from anachron.store.index import build_index

        with progress(args, "items") as shown:  # the total is known once the corpus is scanned
            summary = build_index(args.corpus, args.out, samples=samples, progress=shown.step)
        where = f"{summary.path} ({summary.bytes} bytes)"
    else:
        from anachron.store import is_database_url

        if not is_database_url(args.to):
            raise AnachronError(f"--to: expected a postgresql:// URL, got {args.to!r}")
        from anachron.store.postgres import load_to_postgres

        summary = load_to_postgres(args.corpus, args.to, samples=samples)
        where = summary.path
    tasks = f", {summary.samples} samples" if samples else ""
    print(f"anachron index: {summary.items} items, {summary.entities} entities{tasks} -> {where}")
    return 0
