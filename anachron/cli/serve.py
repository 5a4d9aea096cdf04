"""``anachron serve --as-of DATE --events FILE | --events-dir DIR``: the time-lock MCP server.

Speaks stdio by default, streamable HTTP with ``--http [HOST:]PORT``
(loopback unless a host is given).  Needs the ``mcp`` extra, imported only
here, when the command runs.  stdout belongs to the protocol: this command
prints nothing there; its one status line goes to stderr.
"""

from __future__ import annotations

import argparse

from anachron.core.docs import doc_url
import datetime as _dt
import os
import re
import socket
import sys
import time
from pathlib import Path

from anachron import __version__
from anachron.core.errors import AnachronError
from anachron.cli.options import add_corpus_option, add_ranking_option, count, examples, iso_date


class _Once(argparse.Action):
    """Store an option's value, refusing the option a second time: a launcher that appends
    ``--as-of 2030-01-01`` to a configured ``--as-of`` must not win silently."""

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[override]
        given = vars(namespace).setdefault("options given", set())
        if self.dest in given:
            parser.error(f"{option_string} is given twice: give each option once")
        given.add(self.dest)
        setattr(namespace, self.dest, values)


class _OnceTrue(_Once):
    """A flag (``store_true``), refused a second time."""

    def __init__(self, option_strings, dest, default=False, required=False, help=None):  # noqa: A002
        super().__init__(option_strings, dest, nargs=0, default=default, required=required, help=help)

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[override]
        super().__call__(parser, namespace, True, option_string)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        allow_abbrev=False,
        help="MCP server with two time-locked tools, search and fetch (needs the mcp extra)",
        description="Serve `search` and `fetch` over MCP as of a fixed date. The date is injected on the server "
        "side and appears in no tool schema; every returned item is re-checked against it; budgets are enforced "
        f"and every call is logged ({doc_url('mcp.md')}).",
    )
    # Every option of this parser and its groups, by default, refuses a repetition.
    parser.register("action", None, _Once)
    parser.register("action", "store", _Once)
    parser.register("action", "store_true", _OnceTrue)
    parser.add_argument("--as-of", required=True, type=iso_date, metavar="DATE", help="the cutoff T: nothing dated after it is shown")
    source = parser.add_mutually_exclusive_group()
    add_corpus_option(
        source,
        help="corpus directory, index file (`anachron index`) or postgresql:// URL (postgres extra) (default: the bundled v0 corpus)",
        metavar="DIR|INDEX|URL",
    )
    source.add_argument("--upstream", metavar="URL", help="backdated search service taking POST URL/search and URL/fetch")
    web = parser.add_argument_group(
        "the web frozen at the cutoff",
        "one backend per tool, each re-checked by the lock and recorded with its guarantee (capture, index, claimed, "
        "corpus); keys from EXA_API_KEY, TAVILY_API_KEY, BRAVE_API_KEY, OPENREWARD_API_KEY "
        f"({doc_url('mcp.md')})",
    )
    web.add_argument(
        "--search",
        metavar="BACKEND[=URL]",
        help="search backend: openreward, exa, tavily, brave, anachron=URL or corpus[=DIR]; =URL replaces its base URL",
    )
    web.add_argument(
        "--fetch",
        metavar="BACKEND[=URL]",
        help="fetch backend: wayback, commoncrawl, openreward, anachron=URL or corpus[=DIR] (default: the search "
        "backend, if it fetches)",
    )
    store = web.add_mutually_exclusive_group()
    store.add_argument("--record", metavar="DIR", help="store every exchange with a web service in DIR (replayable)")
    store.add_argument("--replay", metavar="DIR", help="answer only from a --record store: no network, no keys")
    parser.add_argument(
        "--mode",
        choices=("enforced", "unrestricted"),
        default="enforced",
        help="enforced: nothing dated after the cutoff is shown (default); unrestricted: nothing is filtered, "
        "every call is still logged (the baseline of a paired comparison)",
    )
    parser.add_argument(
        "--date-presentation",
        default="visible",
        metavar="HOW",
        help="how dates are shown: visible (default), hidden, shift:+N or shift:-N days; scoring always uses the true date",
    )
    log = parser.add_mutually_exclusive_group(required=True)
    log.add_argument("--events", metavar="FILE", help="event log (JSON Lines); must be new or empty")
    log.add_argument(
        "--events-dir",
        metavar="DIR",
        help="write the event log to a new file in DIR, named for the start time (a client that restarts "
        "the server never meets a used log)",
    )
    parser.add_argument("--overwrite-events", action="store_true", help="discard an existing event log instead of refusing")
    parser.add_argument("--max-searches", type=count, metavar="N", help="search budget (default: unlimited)")
    parser.add_argument("--max-fetches", type=count, metavar="N", help="fetch budget (default: unlimited)")
    parser.add_argument("--max-calls", type=count, metavar="N", help="budget of searches and fetches together")
    parser.add_argument("-k", type=count, default=5, metavar="K", help="results per search (default: 5)")
    parser.add_argument(
        "--allow-undated",
        action="store_true",
        help="show items without a usable date (default: withhold them); they are counted in the log",
    )
    add_ranking_option(parser)
    parser.add_argument(
        "--series",
        metavar="FILE|alfred[=URL]",
        help="serve a third tool, series(id), from ALFRED vintages, each value as known at the cutoff: a JSON file of "
        "fred/series/observations answers keyed by series id, or the ALFRED API (key: FRED_API_KEY; =URL overrides its base URL)",
    )
    parser.add_argument("--upstream-timeout", type=float, default=30.0, metavar="SECONDS", help="per request (default: 30)")
    parser.add_argument(
        "--index-above",
        type=size,
        default="32M",  # anachron.store.cache.INDEX_ABOVE, not imported here: registering a command loads no store
        metavar="SIZE",
        help="serve a corpus directory whose items.jsonl is at least SIZE bytes (K, M, G: binary multiples) from an "
        "index cached in $XDG_CACHE_HOME/anachron/indexes (default ~/.cache/anachron/indexes), built once and rebuilt "
        "when the corpus changes; 'never' loads every directory into memory (default: 32M)",
    )
    parser.add_argument("--http", metavar="[HOST:]PORT", help="serve streamable HTTP at /mcp instead of stdio (host default 127.0.0.1; port 0 picks one)")
    # checked against the inputs (cli.options); --events-dir is made with its parents
    parser.epilog = examples(
        'anachron serve --as-of 2022-06-01 --events-dir runs/a   # MCP over stdio (mcp extra); a new log each start',
        'anachron serve --as-of 2022-06-01 --events runs/b/events.jsonl --max-calls 25 --http 127.0.0.1:8765',
        'anachron serve --as-of 2022-06-01 --events-dir runs/c --search exa --fetch wayback --record runs/c/web   # EXA_API_KEY set',
    )
    parser.set_defaults(func=run, output_options=("events", "events_dir"), directory_outputs=("events_dir",))


def size(text: str) -> int | None:
    """``--index-above``: bytes, with an optional K, M or G (binary multiples), or ``never`` (``None``).

    >>> size("32M"), size("1"), size("never")
    (33554432, 1, None)
    """
    if text == "never":
        return None
    match = re.fullmatch(r"([0-9]{1,15})([KMG]?)", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"expected a size in bytes (say 512K, 32M, 2G) or 'never', got {text!r}")
    return int(match.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[match.group(2)]


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not re.fullmatch(r"[0-9]{1,5}", port) or int(port) > 65535:
        raise AnachronError(f"--http: expected [HOST:]PORT, got {text!r}")
    return host, int(port)


def run(args: argparse.Namespace) -> int:
    # The serving path imports only the lock and the SDK glue (anachron.timelock.quarantine).
    from anachron import timelock
    from anachron.timelock.series import open_series

    # Every option is checked before the SDK is imported, so a bad one is named with or without the
    # mcp extra installed; files (the event log) are created only once the server can start.
    as_of = args.as_of
    pending = None
    address = _address(args.http) if args.http is not None else None
    presentation = timelock.DatePresentation.parse(args.date_presentation)
    if args.search is not None or args.fetch is not None:
        if args.corpus is not None or args.upstream is not None:
            raise AnachronError("--search/--fetch: give the corpus or the upstream as a backend (corpus=DIR, anachron=URL), "
                                "not as --corpus or --upstream")
        if args.ranking is not None:
            raise AnachronError("--ranking: with --search/--fetch the services rank their own results")
        from anachron.timelock.web import open_backends

        backend = open_backends(
            args.search, args.fetch, timeout=args.upstream_timeout, record=args.record, replay=args.replay, environ=os.environ
        )
        if hasattr(backend, "check_presentation"):
            backend.check_presentation(presentation)
    elif args.record is not None or args.replay is not None:
        raise AnachronError("--record and --replay need a web backend: give --search or --fetch")
    elif args.upstream is not None:
        if args.ranking is not None:
            raise AnachronError("--ranking: an upstream service ranks its own results; --ranking is for a local --corpus")
        backend = timelock.UpstreamBackend(args.upstream, timeout=args.upstream_timeout)
    else:
        # A directory is loaded (without samples); an index file or a postgresql:// URL is searched in place.
        ranking = args.ranking or "bm25"
        backend = pending = _large_directory(args.corpus, args.index_above, presentation, ranking)
        if backend is None:
            backend = timelock.CorpusBackend(timelock.open_engine(args.corpus), ranking=ranking)
            backend.check_presentation(presentation)
    # Opened (a file read and checked whole; the API's key looked up) before any file is made: a bad one is one line.
    series = open_series(args.series, timeout=args.upstream_timeout) if args.series is not None else None
    limits = timelock.Limits(args.max_searches, args.max_fetches, args.max_calls)
    if args.k < 1:  # checked here, not by the lock: the lock is made after the event log
        raise AnachronError(f"-k: expected a positive integer, got {args.k}")
    if args.events_dir is not None:
        _events_dir(args.events_dir)

    try:
        from anachron import mcp as adapter
    except ImportError as exc:
        raise AnachronError(str(exc)) from None
    import anyio

    # The port is bound (and the host resolved) before the event log is created: a server that
    # cannot start leaves no file behind.
    sock = listen(*address) if address is not None else None
    try:
        if args.events_dir is not None:
            args.events = new_events_file(args.events_dir)
        events = timelock.EventWriter(args.events, overwrite=args.overwrite_events)
    except BaseException:
        if sock is not None:
            sock.close()
        raise
    lock = timelock.TimeLock(
        backend,
        as_of,
        events,
        mode=args.mode,
        limits=limits,
        k=args.k,
        presentation=presentation,
        allow_undated=args.allow_undated,
        server=f"anachron {__version__}",
        series=series,
    )
    server = adapter.build_server(lock)
    status = f"anachron serve: as of {as_of}, {args.mode}, {backend.kind} {backend.source}, events {args.events}"
    if series is not None:
        status += f", series {series.kind} {series.source}"
    try:
        if address is None:
            print(f"{status}, stdio", file=sys.stderr, flush=True)
            _start(pending)
            anyio.run(lambda: _serving(pending, lambda: adapter.serve_stdio(server, lock)))
        else:
            host, _ = address
            bound = sock.getsockname()[1]
            shown = f"[{host}]" if ":" in host else host
            print(f"{status}, http://{shown}:{bound}/mcp", file=sys.stderr, flush=True)
            if host not in adapter.LOOPBACK:
                print(f"anachron serve: warning: {host} is not loopback and the server has no authentication", file=sys.stderr)
            _start(pending)
            anyio.run(lambda: _serving(pending, lambda: adapter.serve_http(server, sock, host=host, lock=lock)))
    except KeyboardInterrupt:
        pass
    except BaseException as exc:
        if pending is None or pending.wait(0) is not exc:
            raise
        events.close()
        _stop(exc)
    finally:
        events.close()
    return 0


def _stop(exc: BaseException) -> None:
    """End the process on a corpus that failed to open in the background: its error, then exit 2
    (also for memory or an OS error, in one line; 1 for a bug, with its traceback).

    ``os._exit``, not a return: the stdio transport's reader is a worker thread blocked on stdin,
    which the interpreter would wait for at exit while the client keeps stdin open.
    """
    sys.stdout.flush()
    if isinstance(exc, AnachronError):
        print(f"anachron: {exc}", file=sys.stderr, flush=True)
        os._exit(2)
    if isinstance(exc, (MemoryError, OSError)):
        # Not a bug: the machine could not hold or read the corpus.  One line, as for bad input.
        reason = "out of memory; serve an index of it (anachron index)" if isinstance(exc, MemoryError) else (
            f"{exc.filename + ': ' if exc.filename else ''}{exc.strerror or exc}"
        )
        print(f"anachron: the corpus could not be opened: {reason}", file=sys.stderr, flush=True)
        os._exit(2)
    import traceback

    traceback.print_exception(exc, file=sys.stderr)
    sys.stderr.flush()
    os._exit(1)


BACKGROUND_ABOVE = 8 << 20  # bytes of items.jsonl: a directory this large is opened while the server answers


def _notice(line: str) -> None:
    print(f"anachron serve: {line}", file=sys.stderr, flush=True)


def _large_directory(spec: str | None, index_above: int | None, presentation, ranking: str):
    """A backend opening a large corpus directory in the background, or ``None`` for anything else.

    A directory whose ``items.jsonl`` is at least *index_above* bytes is
    served from its cached index (:mod:`anachron.store.cache`: built once,
    reused while fresh); one of at least :data:`BACKGROUND_ABOVE` bytes (or
    *index_above*, if smaller) is opened in the background, so ``initialize``
    is answered at once and calls wait for the corpus.  A smaller directory,
    an index file or a server is opened before serving, as errors are then
    one line before any file is made.
    """
    from anachron.store import open_corpus
    from anachron.store.cache import items_bytes, open_cached_index
    from anachron.store.spec import DIRECTORY
    from anachron.timelock import CorpusBackend, PendingBackend

    opened = open_corpus(spec, samples=False)
    if opened.kind != DIRECTORY:
        return None
    size = items_bytes(opened.location)
    indexed = index_above is not None and size >= index_above
    if size < min(BACKGROUND_ABOVE, index_above if index_above is not None else BACKGROUND_ABOVE):
        return None
    directory = str(Path(opened.location))

    def opener() -> CorpusBackend:
        started = time.monotonic()
        if indexed:
            engine = open_cached_index(directory, say=_notice)
        else:
            _notice(f"loading {directory} ({size} bytes of items) into memory")
            engine = opened.engine
        backend = CorpusBackend(engine, ranking=ranking)
        backend.check_presentation(presentation)
        _notice(f"corpus open after {time.monotonic() - started:.1f} s")
        return backend

    phase = "opening the cached index of the corpus (built first if missing or stale)" if indexed else "loading the corpus into memory"
    return PendingBackend(opener, directory, phase=phase, ranking=ranking)


def _start(pending) -> None:
    if pending is not None:
        _notice(f"{pending.phase} in the background: initialize is answered now; tool calls wait for the corpus")
        pending.start()


async def _serving(pending, serve) -> None:
    """Run *serve*; with a corpus opening in the background, stop with its error if the opening fails."""
    import anyio

    if pending is None:
        return await serve()
    failed: list[BaseException] = []
    async with anyio.create_task_group() as tasks:

        async def watch() -> None:
            failure = await anyio.to_thread.run_sync(pending.wait, abandon_on_cancel=True)
            if failure is not None:
                failed.append(failure)
                tasks.cancel_scope.cancel()

        tasks.start_soon(watch)
        await serve()
        tasks.cancel_scope.cancel()  # the client left first: nothing more to watch
    if failed:
        raise failed[0]


def new_events_file(directory: str) -> str:
    """Create a new, empty event log in *directory*: ``events-YYYYMMDDTHHMMSSZ-N.jsonl`` (UTC).

    N is the first number (from 1) whose file does not exist; the file is
    created exclusively, so two servers started in the same second get two
    files.  Mode 0o666 less the umask, as ``open`` would.
    """
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    _events_dir(directory)
    try:
        for n in range(1, 10_000):
            path = os.path.join(directory, f"events-{stamp}-{n}.jsonl")
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            except FileExistsError:
                continue
            return path
    except OSError as exc:
        raise _no_event_log(directory, exc) from None
    raise AnachronError(f"--events-dir {directory}: 9999 event logs started this second; choose another directory")


def _events_dir(directory: str) -> None:
    """Make *directory* for event logs and its missing parents, if it is not there (a directory output,
    anachron.cli.options.refuse_missing_directory); an error if it cannot be made."""
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise _no_event_log(directory, exc) from None


def _no_event_log(directory: str, exc: OSError) -> AnachronError:
    return AnachronError(f"--events-dir {directory}: cannot create an event log: {exc.strerror or exc}")


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to *host*:*port* and listening; an :class:`AnachronError` if it cannot be.

    Its protocol is ``IPPROTO_TCP`` (never 0), so every connection asyncio accepts on it has
    ``TCP_NODELAY`` set: a response written in pieces goes out at once instead of waiting for the
    client's delayed ACK.
    """
    sock = None
    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)[0]
        # The protocol is given, not left 0: asyncio sets TCP_NODELAY on an accepted connection only
        # when its socket's protocol is IPPROTO_TCP, and without it Nagle's algorithm meets the
        # client's delayed ACK, 40 ms on every HTTP call (docs/performance.md).
        sock = socket.socket(info[0], socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(info[4])
        sock.listen(128)  # listening before the address is announced: early clients queue, never fail
    except OSError as exc:
        if sock is not None:
            sock.close()
        raise AnachronError(f"--http: cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock
