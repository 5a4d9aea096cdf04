"""``anachron score --jobs N``: a trace file scored in N processes, with the bytes of ``--jobs 1``.

The file is cut into N contiguous shares at line starts (by size).  Each
worker validates and scores its share exactly as the serial scorer does
(:func:`anachron.core.trace.trace_record`, :func:`score_trace`) and writes
each result's text part (``Writer.part``) to a file of its own; it returns
the sample ids with where each was read, each result without its evidence
(for the summary), and the first error it met, if any.

The parent then does in file order what the serial scorer does record by
record: it checks every sample id for a duplicate, reports the first
error (a duplicate found before a worker's error wins, as it would have
been found first), adds the parts to the output in order and writes the
summary of all results, so the output is byte for byte that of
``--jobs 1``.  Workers are forked where the platform allows it and share
the loaded corpus; elsewhere each loads it again from its directory.
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import AbstractSet, Iterator

from anachron.core.corpus import Corpus
from anachron.store import load_corpus
from anachron.core.errors import AnachronError, Where
from anachron.core.leakage import SampleResult, score_trace, summarise
from anachron.core.trace import ReturnedItem, check_new_sample, no_trace_record, sample_id_of, trace_record
from anachron.core.jsonio import stream_records
from anachron.core.atomic import staged_output
from anachron.output.stream import WRITERS, Addenda

__all__ = ["score_file_parallel", "shares"]

_CORPUS: Corpus | None = None  # the corpus a forked worker inherits
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


@dataclass
class _Share:
    """What a worker hands back: its parts file, and what the parent needs to check and sum."""

    parts: str
    ids: list[tuple[str, str]]  # (sample id, where)
    results: list[SampleResult]  # without evidence
    width: int
    # (the failing record's sample id if read, where, the error's message and structured where)
    error: tuple[str | None, str, str, Where] | None = None


def shares(path: str | os.PathLike[str], n: int) -> list[tuple[int, int, int]]:
    """``(start, stop, first_line)`` of *n* contiguous shares of the file, cut after a ``\\n``."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return [(0, 0, 1)]  # stream_records reports the missing file, as it would for --jobs 1
    cuts = [0]
    with open(path, "rb") as fh:
        for i in range(1, n):
            fh.seek(max(cuts[-1], size * i // n))
            if fh.tell():
                fh.seek(fh.tell() - 1)  # a cut already at a line start stays there
                fh.readline()
            cuts.append(fh.tell())
        cuts.append(size)
        lines, out = 1, []
        fh.seek(0)
        for start, stop in zip(cuts, cuts[1:]):
            out.append((start, stop, lines))
            lines += _newlines(fh, stop - start)
    return out


def _newlines(fh, length: int) -> int:
    count = 0
    while length > 0:
        chunk = fh.read(min(length, 1 << 22))
        if not chunk:
            break
        count += chunk.count(b"\n")
        length -= len(chunk)
    return count


def _init(source: str | None, parent: int, scratch: str) -> None:
    global _CORPUS
    # Ctrl-C reaches the whole process group: the parent alone answers it, and stops the workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # SIGTERM (from the parent's _stop, or sent as the parent dies, even by SIGKILL): remove the
    # scratch folder, which a killed parent cannot, and end.  (A forked worker inherits the CLI's handler.)
    signal.signal(signal.SIGTERM, lambda signum, frame: _orphaned(scratch))
    _die_with(parent, scratch)
    if _CORPUS is None:  # spawned, not forked: load the corpus again
        _CORPUS = load_corpus(source)


def _orphaned(scratch: str) -> None:
    shutil.rmtree(scratch, ignore_errors=True)
    os._exit(1)


def _die_with(parent: int, scratch: str) -> None:
    """End this worker when the process *parent* ends, even by SIGKILL (which runs no cleanup of its own).

    On Linux the kernel sends SIGTERM (``PR_SET_PDEATHSIG``); elsewhere a
    thread watches for the parent to be gone.  A parent that ended before the
    request took effect is caught by checking its pid after it.
    """
    watched = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            watched = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
        except (OSError, AttributeError):
            watched = False
    if os.getppid() != parent:
        _orphaned(scratch)
    if not watched:
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            _orphaned(scratch)

        threading.Thread(target=watch, name="anachron-parent-watch", daemon=True).start()


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop every worker now, and wait for them to be gone (an interrupted run leaves none behind)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    for worker in workers:
        with contextlib.suppress(Exception):
            worker.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        with contextlib.suppress(Exception):
            worker.join(5)


def _score_share(
    path: str, start: int, stop: int, first_line: int, fmt: str, scratch: str, sealed_tools: AbstractSet[str] | None
) -> _Share:
    corpus = _CORPUS
    assert corpus is not None
    part = WRITERS[fmt].part
    fd, parts = tempfile.mkstemp(dir=scratch, suffix=".part")
    share = _Share(parts, [], [], 0)
    cache: dict[str, ReturnedItem] = {}
    with open(fd, "w", encoding="utf-8", errors="surrogatepass", newline="\n") as out:
        records: Iterator = stream_records(path, start=start, stop=stop, first_line=first_line)
        sample_id, where = None, ""
        try:
            for where, obj in records:
                sample_id = sample_id_of(where, obj)
                result = score_trace(trace_record(where, obj, corpus, cache), corpus, sealed_tools=sealed_tools)
                out.write(part(result))
                share.ids.append((sample_id, where))
                share.results.append(dataclasses.replace(result, evidence=()))
                share.width = max(share.width, len(sample_id))
                sample_id = None  # an error reading the next record has no sample id
        except AnachronError as exc:
            share.error = (sample_id, where, exc.message, exc.where)
    return share


def score_file_parallel(
    path: str,
    corpus: Corpus,
    fmt: str,
    out: str | None,
    *,
    jobs: int,
    sealed_tools: AbstractSet[str] | None = None,
    source: str | None = None,
    addenda: "Addenda | None" = None,
) -> None:
    """Score the trace file *path* in *jobs* processes into *fmt*, to *out* or stdout (staged).

    *sealed_tools*: the tools audited for seal breaches, as for the serial scorer.  *source*:
    what ``--corpus`` said (default: ``corpus.source``), for workers that are spawned, not
    forked, to load the corpus again (a database URL's password is not in ``corpus.source``).
    *addenda*: what the summary and the table add (the lock's guarantees), as for the serial scorer.
    """
    source = source if source is not None else corpus.source
    global _CORPUS
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    if context.get_start_method() != "fork" and source is None:
        raise AnachronError("--jobs: this platform cannot fork, and the corpus has no directory to load it from")
    scratch = tempfile.mkdtemp(prefix="anachron-jobs-")
    _CORPUS = corpus
    try:
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init, initargs=(source, os.getpid(), scratch))
        try:
            futures = [
                pool.submit(_score_share, str(path), start, stop, first, fmt, scratch, sealed_tools)
                for start, stop, first in shares(path, jobs)
            ]
            done = [future.result() for future in futures]
        except BaseException:
            _stop(pool)  # Ctrl-C, SIGTERM or an error: not `with`, which would wait for the workers to finish
            raise
        pool.shutdown()
        _merge(done, fmt, out, path, addenda)
    finally:
        _CORPUS = None
        shutil.rmtree(scratch, ignore_errors=True)


def _merge(done: list[_Share], fmt: str, out: str | None, path: str, addenda: "Addenda | None") -> None:
    seen: dict[str, str] = {}
    for share in done:  # in file order, as the serial scorer meets them
        for sample_id, where in share.ids:
            check_new_sample(where, sample_id, seen)
        if share.error is not None:
            sample_id, where, message, located = share.error
            if sample_id is not None:
                check_new_sample(where, sample_id, seen)  # a duplicate is found before the record's other errors
            raise AnachronError(message, **dataclasses.asdict(located))
    if not seen:
        raise no_trace_record(path)  # as the serial scorer refuses it
    with staged_output(out) as stream:
        writer = WRITERS[fmt](stream)
        if addenda is not None:
            writer.addenda = addenda
        try:
            for share in done:
                with open(share.parts, encoding="utf-8", errors="surrogatepass", newline="\n") as parts:
                    writer.add_parts(parts, len(share.ids), share.width)
            writer.finish(summarise(result for share in done for result in share.results))
        finally:
            writer.close()
