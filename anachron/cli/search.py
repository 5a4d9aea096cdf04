"""``anachron search CORPUS --as-of T (QUERY | --queries FILE.jsonl)``: what the time lock would serve.

The corpus is opened as ``serve`` opens it (:func:`anachron.timelock.open_engine`:
a directory loaded without its samples, an index file or a ``postgresql://``
URL searched in place), each query is checked as the lock checks a
``search`` call's argument (:func:`anachron.timelock.lock.check_arguments`),
stripped as the lock strips it, and searched through the lock's own
:class:`~anachron.timelock.CorpusBackend` with the same as-of date, mode,
*k* and ranking: the items an agent would be shown, best first, with the
scores that ranked them.

``--queries`` reads JSON Lines, one ``{"query": "..."}`` object per line.
``--format json`` prints one JSON object per query and line:
``{"query": ..., "results": [{"id", "publish_date", "score"}, ...]}``.
A bad line is an error naming ``FILE:LINE`` (exit status 2), before any
result is printed.
"""

from __future__ import annotations

import argparse
import sys

from anachron.cli.options import add_format_option, add_out_option, add_ranking_option, count, examples, iso_date, stdout_to

DESCRIPTION = (
    "Show what the time lock would serve: the top k items for a query (or each query of a JSON Lines file of "
    '{"query": ...} objects) as of a date, through the lock\'s own search path, with their scores.'
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("search", help="show what the time lock would serve for a query as of a date", description=DESCRIPTION)
    parser.add_argument("corpus", metavar="CORPUS", help="corpus directory, index file (`anachron index`) or postgresql:// URL")
    parser.add_argument("query", nargs="?", metavar="QUERY", help="the query (or --queries)")
    parser.add_argument("--queries", metavar="FILE.jsonl", help='JSON Lines of {"query": "..."} objects, one search each')
    parser.add_argument("--as-of", required=True, type=iso_date, metavar="DATE", help="the cutoff T, as `serve --as-of`")
    parser.add_argument(
        "--mode", choices=("enforced", "unrestricted"), default="enforced",
        help="enforced: only items known at the cutoff, ranked by their statistics (default); unrestricted: every item",
    )
    parser.add_argument("-k", type=count, default=10, metavar="K", help="results per query (default: 10)")
    add_ranking_option(parser)
    add_format_option(parser)
    add_out_option(parser)
    parser.epilog = examples(
        'anachron search corpus/v0 --as-of 2022-06-01 "aster logistics revenue"',
        'anachron search corpus/v0 --as-of 2022-06-01 --mode unrestricted -k 3 --format json "cygnus robotics"',
    )
    parser.set_defaults(func=run)


def _queries(args: argparse.Namespace) -> list[tuple[str, str]]:
    """``(where, query)`` of every query asked for, each checked as the lock checks a search."""
    from anachron.core.errors import AnachronError
    from anachron.core.jsonio import located_records
    from anachron.timelock.lock import check_arguments

    if (args.query is None) == (args.queries is None):
        raise AnachronError("search: give one QUERY or --queries FILE.jsonl")
    if args.query is not None:
        asked = [("QUERY", {"query": args.query})]
    else:
        asked = [(where, obj) for where, obj, _, _ in located_records(args.queries)]
    out = []
    for where, arguments in asked:
        problem = check_arguments("search", arguments)
        if problem is not None:
            raise AnachronError(f"{where}: {problem}")
        out.append((where, arguments["query"]))
    return out


def run(args: argparse.Namespace) -> int:
    from anachron.timelock import CorpusBackend, open_engine

    queries = _queries(args)  # every line checked before the corpus is opened
    backend = CorpusBackend(open_engine(args.corpus), ranking=args.ranking or "bm25")
    with stdout_to(args.out):
        _show(backend, queries, args)
    return 0


def _show(backend, queries: list[tuple[str, str]], args: argparse.Namespace) -> None:
    from anachron.core.dates import format_date
    from anachron.core.jsonio import dump_json

    out = sys.stdout
    for number, (_, query) in enumerate(queries):
        value = query.strip()  # as the lock strips a search's argument
        hits = backend.search(value, k=args.k, as_of=args.as_of, mode=args.mode)[: args.k]
        results = [{"id": hit.id, "publish_date": format_date(hit.dates[0]), "score": hit.score} for hit in hits]
        if args.format == "json":
            out.write(dump_json({"query": query, "results": results}, indent=None))
            continue
        if number:
            out.write("\n")
        out.write(f"query: {value}  (as of {format_date(args.as_of)}, {args.mode}, {backend.ranking}, k={args.k})\n")
        if not hits:
            out.write("  no results\n")
        for rank, (hit, result) in enumerate(zip(hits, results), 1):
            shown = f"{result['score']:.6f}" if isinstance(result['score'], float) else str(result['score'])
            out.write(f"  {rank:>3}  {shown:>12}  {result['publish_date']}  {hit.id}  {_one_line(hit.title)}\n")


def _one_line(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "\u2026"
