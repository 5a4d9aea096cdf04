"""Read Inspect logs of the anachron tasks back into scored traces (``anachron export``).

Each log sample is rebuilt with the scorer's own :func:`sample_trace_record`
from its messages and store, then validated and scored by the core, so an
export does not depend on the scorer having run (``--no-score`` logs work).
The corpus is the one the log's task used (its ``corpus`` task argument,
default the bundled corpus) unless *corpus* overrides it; all logs must
resolve to the same corpus.

A directory stands for every log under it (Inspect's usual unit, the
``--log-dir``), in path order.  A log whose status is not ``success``
(``error``, ``cancelled``, ``started``) is refused: ``inspect eval`` exits
0 even when a task failed, so the status is the one sign of it.

Samples of an .eval log are read through Inspect's own readers a batch at a
time (``read_eval_log_sample_summaries`` for the ids and epochs, then
``read_eval_log_samples_by_id``), so ``anachron export`` streams; a .json
log is one document that Inspect reads whole.

Samples of other tasks (no ``as_of`` and ``mode`` in their metadata) are
refused here, unless a *foreign* reader is given: ``--from inspect`` passes
the importers' one, which reads any Inspect sample's tool calls
(docs/importers.md, "inspect").  With *refuse* (an option such samples read
that an anachron task's sample does not: its cutoff is its task's), an
anachron task's sample is an error naming it.

Epochs: in a log with several epochs, each epoch of a sample is a sample of
its own, ``ID#epochN`` (scored against the corpus sample ``ID``:
:meth:`anachron.core.corpus.Corpus.sample_of`), as Inspect's own metrics of
the scorer count each epoch as a run: every figure keeps its denominator
(samples times epochs), never a mean of means; *epoch* selects one epoch,
its samples keeping their own ids.
"""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname
from typing import Any, Callable, Iterator, Sequence

from inspect_ai.log import EvalLog, EvalSample, read_eval_log, read_eval_log_sample_summaries, read_eval_log_samples_by_id

from anachron.core import Corpus, SampleResult, parse_traces, score_traces
from anachron.core.corpus import default_corpus_dir, epoch_sample_id
from anachron.store import open_corpus
from anachron.core.errors import AnachronError
from anachron.inspect.scorer import sample_trace_record
from anachron.core.jsonio import Record, read_json_log
from anachron.core.dates import format_date, parse_date
from anachron.importers import Options, check_inspect_options, inspect_sample_record, stated_cutoff

__all__ = ["anachron_sample", "import_inspect_logs", "log_paths", "log_records", "log_run", "read_log_traces", "score_logs"]

Foreign = Callable[[str, EvalSample], Record]  # (log path, sample) -> (where, trace record)
Cutoff = Callable[[str, str, _dt.date, "_dt.date | None"], _dt.date]  # (where, sample id, stated, corpus sample's) -> date

BATCH = 32  # samples of an .eval log read at a time (one zip directory shared by the batch)

_STATUS = {
    "started": "the eval is still running, or was killed before it finished",
    "cancelled": "the eval was cancelled",
    "error": "the eval ended with an error",
}


def _unreadable(path: str | os.PathLike[str], exc: Exception) -> AnachronError:
    reason = " ".join(str(exc).split())[:200] or type(exc).__name__
    return AnachronError(f"{path}: not a readable Inspect log ({reason})")


def _read(path: str | os.PathLike[str], *, header_only: bool = False) -> EvalLog:
    if not Path(path).is_file():
        raise AnachronError(f"{path}: no such file")
    if str(path).endswith(".json"):
        read_json_log(path)  # strict and depth-bounded first: Inspect's reader has no bound
    try:
        # Attachments resolved: long tool output is stored once, out of line.
        log = read_eval_log(str(path), header_only=header_only, resolve_attachments=True)
    except Exception as exc:  # Inspect raises many kinds; any of them means "not a readable log"
        raise _unreadable(path, exc) from None
    if log.status != "success":
        # `inspect eval` exits 0 even when the task failed: the log's status is what says so.
        why = _STATUS.get(log.status, "the eval did not finish")
        if log.error is not None:
            why += f": {' '.join(log.error.message.split())[:200]}"
        raise AnachronError(f"{path}: log status is {log.status!r}, not 'success' ({why}); rerun the eval")
    return log


def log_paths(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """*paths* with each directory replaced by the Inspect logs under it, sorted by path.

    A directory without any log is an error (a mistyped ``--log-dir``).
    """
    from inspect_ai.log import list_eval_logs

    out: list[str] = []
    for path in paths:
        if not Path(path).is_dir():
            out.append(str(path))
            continue
        found = []
        for info in list_eval_logs(str(path), recursive=True):
            name = info.name
            if name.startswith("file:"):
                name = url2pathname(urlparse(name).path)
            found.append(str(Path(path) / Path(name).resolve().relative_to(Path(path).resolve())))
        if not found:
            raise AnachronError(f"{path}: no Inspect log (.eval or .json) in this directory")
        out += sorted(found)
    return out


# What a task's metadata names a bundled corpus by (anachron.inspect.bank.task), below the v0 directory;
# a bank task's log from before the metadata is known by its task's name.
_BUNDLED = {"bundled:v0": "", "bundled:filings": "filings"}
_BANK_TASKS = ("anachron_bank", "anachron/anachron_bank")


def _corpus_dir(path: str | os.PathLike[str], log: EvalLog) -> str | None:
    """The corpus spec *log*'s task served: its ``corpus`` task argument, else the ``anachron_corpus``
    of its task metadata (a bundled one by name), else the bundled filings corpus for a bank task's
    older log, else None (the bundled v0 corpus)."""
    value = (log.eval.task_args or {}).get("corpus")
    if value is not None and not isinstance(value, str):
        raise AnachronError(f"{path}: task argument 'corpus' is not a path: {value!r}")
    if value is not None:
        return value
    recorded = (log.eval.metadata or {}).get("anachron_corpus")
    if recorded is None and log.eval.task in _BANK_TASKS:
        recorded = "bundled:filings"
    if recorded is None:
        return None
    if not isinstance(recorded, str):
        raise AnachronError(f"{path}: task metadata 'anachron_corpus' is not a corpus: {recorded!r}")
    if recorded in _BUNDLED:
        return str(default_corpus_dir() / _BUNDLED[recorded]) if _BUNDLED[recorded] else None
    if recorded.startswith("bundled:"):
        raise AnachronError(f"{path}: task metadata names an unknown bundled corpus {recorded!r}; pass --corpus")
    return recorded


def _streamable(path: str | os.PathLike[str]) -> bool:
    # An .eval log is a zip of one file per sample, read one at a time; a .json log is one
    # document, which Inspect's readers parse whole whatever is asked of them.
    return str(path).endswith(".eval")


def _selected(path: str | os.PathLike[str], keys: list[tuple[Any, int]], epoch: int | None) -> tuple[list[tuple[Any, int]], bool]:
    """The (id, epoch) of the samples to export, no sample read, and whether each epoch is its own
    sample (``ID#epochN``): a log with several epochs of a sample, without *epoch*."""
    if not keys:
        raise AnachronError(f"{path}: the log has no samples (written with --no-log-samples, or still running?)")
    several = len({run for _, run in keys}) > 1
    if epoch is not None:
        keys = [key for key in keys if key[1] == epoch]
        if not keys:
            raise AnachronError(f"{path}: no sample of epoch {epoch}")
    # Samples are logged as they finish; sorted by id, the same logs give the same bytes.
    return sorted(keys, key=lambda key: (str(key[0]), key[1])), several and epoch is None


def _samples(path: str | os.PathLike[str], epoch: int | None) -> Iterator[tuple[EvalSample, bool]]:
    """The log's samples to export, in order, each with whether it is named by its epoch too; from
    an .eval log one batch at a time."""
    if not _streamable(path):
        log = _read(path)
        by_key = {(str(sample.id), sample.epoch): sample for sample in log.samples or []}
        keys, several = _selected(path, [(sample.id, sample.epoch) for sample in log.samples or []], epoch)
        yield from ((by_key[(str(ident), run)], several) for ident, run in keys)
        return
    try:
        keys, several = _selected(path, [(s.id, s.epoch) for s in read_eval_log_sample_summaries(str(path))], epoch)
    except AnachronError:
        raise
    except Exception as exc:
        raise _unreadable(path, exc) from None
    for start in range(0, len(keys), BATCH):
        try:
            batch = read_eval_log_samples_by_id(str(path), keys[start : start + BATCH], resolve_attachments=True)
        except Exception as exc:
            raise _unreadable(path, exc) from None
        yield from ((sample, several) for sample in batch)


def anachron_sample(metadata: Any) -> bool:
    """Whether a sample's *metadata* is an anachron task's: it names ``as_of`` and ``mode``.

    >>> anachron_sample({"as_of": "2023-01-01", "mode": "enforced"}), anachron_sample({"as_of": "2023-01-01"})
    (True, False)
    """
    return isinstance(metadata, dict) and "as_of" in metadata and "mode" in metadata


def _records(
    paths: Sequence[str | os.PathLike[str]], data: Corpus, epoch: int | None, foreign: Foreign | None, refuse: str | None,
    cutoff: Cutoff | None = None,
) -> Iterator[Record]:
    for path in paths:
        for sample, several in _samples(path, epoch):
            where, record = _sample_record(path, sample, data, foreign, refuse, cutoff)
            if several:  # each epoch its own sample, scored against its corpus sample (Corpus.sample_of)
                record["sample_id"] = epoch_sample_id(record["sample_id"], sample.epoch)
            yield where, record


def _sample_record(path, sample: EvalSample, data: Corpus, foreign: Foreign | None, refuse: str | None,
                   cutoff: Cutoff | None) -> Record:
    """The trace record ``(where, record)`` of one sample: the foreign reader's, or its scorer's."""
    where = f"{path}: sample {sample.id}"
    if sample.error is not None:
        message = " ".join(sample.error.message.split())[:200]
        raise AnachronError(f"{where}: the sample ended with an error ({message}); rerun it")
    if foreign is not None and not anachron_sample(sample.metadata):
        return foreign(str(path), sample)
    if foreign is None and not anachron_sample(sample.metadata):
        raise AnachronError(
            f"{where}: no anachron metadata (as_of, mode): not a sample of an anachron task;"
            " score it with anachron score --from inspect LOG --as-of DATE"
        )
    if refuse is not None:
        raise AnachronError(
            f"{where}: {refuse} is not read for a sample of an anachron task (its cutoff and its tools are its task's)"
        )
    metadata = sample.metadata
    if cutoff is not None:  # --as-of / --as-of-map: the one rule of a log that states its cutoff
        try:
            stated = parse_date(metadata["as_of"])
        except AnachronError as exc:
            raise AnachronError(f"{where}: metadata as_of: {exc}") from None
        fixed = data.samples.get(str(sample.id))
        chosen = cutoff(where, str(sample.id), stated, fixed.as_of if fixed is not None else None)
        if chosen != stated:
            metadata = {**metadata, "as_of": format_date(chosen)}
    try:
        completion = sample.output.completion if sample.output else None
        record = sample_trace_record(sample.id, metadata, sample.messages, sample.store, data, completion)
    except AnachronError as exc:
        raise AnachronError(f"{path}: {exc}") from None
    return str(path), record


def _log_corpus(headers: Sequence[tuple[str, EvalLog]], corpus: str | os.PathLike[str] | None) -> str | os.PathLike[str] | None:
    """The corpus spec the logs are scored against: *corpus*, or the one every log's task used."""
    if corpus is not None:
        return corpus
    first: tuple[str | None, str] | None = None  # (corpus spec, the log that named it)
    for path, log in headers:
        this = _corpus_dir(path, log)
        if first is None:
            first = (this, str(path))
        elif this != first[0]:
            raise AnachronError(
                f"{path}: its corpus {this or '(bundled)'} differs from "
                f"{first[1]}'s {first[0] or '(bundled)'}; pass --corpus"
            )
    return first[0] if first else None


def log_records(
    paths: Sequence[str | os.PathLike[str]],
    *,
    corpus: str | os.PathLike[str] | None = None,
    epoch: int | None = None,
    foreign: Foreign | None = None,
    refuse: str | None = None,
    cutoff: Cutoff | None = None,
) -> tuple[Iterator[Record], Corpus]:
    """The trace records ``(where, record)`` of every sample in *paths*, as a stream, and the corpus.

    *foreign* reads the samples of other tasks; *refuse* names the option an
    anachron task's sample does not read (the module's rules); *cutoff*
    ``(where, sample id, stated as_of, the corpus sample's as_of) -> date``
    gives the date an anachron task's sample is scored at (its own by default).

    Only the logs' headers are read here (to find the corpus); samples are
    read as the stream reaches them, so an export holds one batch of samples
    of an .eval log in memory, not the log.
    """
    records, opened = _log_stream(paths, corpus, epoch, foreign, refuse, cutoff)
    return records, opened.corpus


def _log_stream(paths, corpus, epoch, foreign, refuse, cutoff=None):
    if not paths:
        raise AnachronError("no log given")
    headers = [(path, _read(path, header_only=True)) for path in log_paths(paths)]
    opened = open_corpus(_log_corpus(headers, corpus))
    return _records([path for path, _ in headers], opened.corpus, epoch, foreign, refuse, cutoff), opened


def _shown(opened) -> str:
    """A bundled corpus by its name (a path would differ from machine to machine), another as given."""
    if opened.kind == "directory":
        here = Path(opened.location).resolve()
        for name, below in (("v0 (bundled)", ""), ("v0/filings (bundled)", "filings")):
            if here == (default_corpus_dir() / below).resolve():
                return name
    return opened.shown


def log_run(paths: Sequence[str | os.PathLike[str]], *, corpus: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """What the runs in *paths* were (:data:`anachron.core.scores.RUN_FIELDS`), for the files ``export``
    writes: the model and the mode when every log has the same one (else None), the corpus the logs are
    scored against (shown without a password) and its fingerprint.  Only the headers are read."""
    headers = [(path, _read(path, header_only=True)) for path in log_paths(paths)]
    opened = open_corpus(_log_corpus(headers, corpus))
    models = {log.eval.model for _, log in headers}
    modes = {(log.eval.metadata or {}).get("anachron_mode") or (log.eval.task_args or {}).get("mode") for _, log in headers}
    return {
        "mode": modes.pop() if len(modes) == 1 and None not in modes else None,
        "model": models.pop() if len(models) == 1 else None,
        "corpus": _shown(opened),
        "corpus_fingerprint": opened.fingerprint,
    }


def read_log_traces(
    paths: Sequence[str | os.PathLike[str]],
    *,
    corpus: str | os.PathLike[str] | None = None,
    epoch: int | None = None,
) -> tuple[list[tuple[str, dict[str, Any]]], Corpus]:
    """The trace records ``(where, record)`` of every sample in *paths*, and the corpus to score them."""
    records, data = log_records(paths, corpus=corpus, epoch=epoch)
    return list(records), data  # type: ignore[arg-type]


def score_logs(
    paths: Sequence[str | os.PathLike[str]],
    *,
    corpus: str | os.PathLike[str] | None = None,
    epoch: int | None = None,
) -> list[SampleResult]:
    """Score every sample of *paths* with the core: the logs in order, each log's samples by id."""
    records, data = log_records(paths, corpus=corpus, epoch=epoch)
    return score_traces(parse_traces(records, data), data)


def import_inspect_logs(
    paths: Sequence[str | os.PathLike[str]],
    options: Options,
    *,
    corpus_dir: str | os.PathLike[str] | None = None,
) -> Iterator[tuple[str, Record]]:
    """The trace records of Inspect logs, ``(where, record)`` as :func:`anachron.importers.import_logs` yields.

    A sample of an anachron task is rebuilt by its scorer (tools: its task's;
    *corpus_dir* defaults to its task's corpus), so ``--as-of-field`` and
    ``--retrieval-tools`` are refused for it, never ignored; its cutoff is its
    own, or ``--as-of`` / ``--as-of-map`` by the rule of every log that states
    its cutoff (at another date: a rescoring, with the note through
    ``options.warn``); any other sample is read by
    :func:`anachron.importers.inspect_sample_record` with *options*.
    """
    if not paths:
        raise AnachronError("no log given")
    check_inspect_options(options)
    given = [name for name, value in (("--as-of-field", options.as_of_field), ("--retrieval-tools", options.retrieval_tools))
             if value is not None]
    records, _ = log_records(
        [str(path) for path in paths],
        corpus=corpus_dir,
        foreign=lambda path, sample: inspect_sample_record(path, sample, options),
        refuse=" / ".join(given) or None,
        cutoff=lambda where, sample_id, stated, fixed: stated_cutoff(where, sample_id, stated, options, fixed) or stated,
    )
    return records  # one batch of samples at a time
