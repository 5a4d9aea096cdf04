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

Epochs: a sample evaluated in several epochs would repeat its id, which
``anachron-compare`` cannot pair, so a log with more than one epoch of a
sample is an error naming the sample unless *epoch* selects one.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname
from typing import Any, Sequence

from inspect_ai.log import EvalLog, read_eval_log

from anachron.core import Corpus, SampleResult, load_corpus, parse_traces, score_traces
from anachron.core.errors import AnachronError
from anachron.inspect.scorer import sample_trace_record

__all__ = ["log_paths", "read_log_traces", "score_logs"]


_STATUS = {
    "started": "the eval is still running, or was killed before it finished",
    "cancelled": "the eval was cancelled",
    "error": "the eval ended with an error",
}


def _read(path: str | os.PathLike[str]) -> EvalLog:
    if not Path(path).is_file():
        raise AnachronError(f"{path}: no such file")
    try:
        # Attachments resolved: long tool output is stored once, out of line.
        log = read_eval_log(str(path), resolve_attachments=True)
    except Exception as exc:  # Inspect raises many kinds; any of them means "not a readable log"
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise AnachronError(f"{path}: not a readable Inspect log ({reason})") from None
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


def _corpus_dir(path: str | os.PathLike[str], log: EvalLog) -> str | None:
    value = (log.eval.task_args or {}).get("corpus")
    if value is not None and not isinstance(value, str):
        raise AnachronError(f"{path}: task argument 'corpus' is not a path: {value!r}")
    return value


def read_log_traces(
    paths: Sequence[str | os.PathLike[str]],
    *,
    corpus: str | os.PathLike[str] | None = None,
    epoch: int | None = None,
) -> tuple[list[tuple[str, dict[str, Any]]], Corpus]:
    """The trace records ``(where, record)`` of every sample in *paths*, and the corpus to score them."""
    if not paths:
        raise AnachronError("no log given")
    logs = [(path, _read(path)) for path in log_paths(paths)]
    first: tuple[str | None, str] | None = None  # (corpus directory, the log that named it)
    for path, log in logs if corpus is None else ():
        this = _corpus_dir(path, log)
        if first is None:
            first = (this, str(path))
        elif this != first[0]:
            raise AnachronError(
                f"{path}: its corpus {this or '(bundled)'} differs from "
                f"{first[1]}'s {first[0] or '(bundled)'}; pass --corpus"
            )
    data = load_corpus(corpus if corpus is not None else first[0] if first else None)
    records: list[tuple[str, dict[str, Any]]] = []
    for path, log in logs:
        samples = log.samples or []
        if not samples:
            raise AnachronError(f"{path}: the log has no samples (written with --no-log-samples, or still running?)")
        epochs: dict[str, list[int]] = {}
        for sample in samples:
            epochs.setdefault(str(sample.id), []).append(sample.epoch)
        if epoch is None:
            repeated = next((sid for sid, runs in epochs.items() if len(runs) > 1), None)
            if repeated is not None:
                raise AnachronError(
                    f"{path}: sample {repeated} has {len(epochs[repeated])} epochs; pass --epoch N to export one of them"
                )
        else:
            samples = [sample for sample in samples if sample.epoch == epoch]
            if not samples:
                raise AnachronError(f"{path}: no sample of epoch {epoch}")
        # Samples are logged as they finish; sorted by id, the same logs give the same bytes.
        for sample in sorted(samples, key=lambda sample: (str(sample.id), sample.epoch)):
            where = f"{path}: sample {sample.id}"
            if sample.error is not None:
                message = " ".join(sample.error.message.split())[:200]
                raise AnachronError(f"{where}: the sample ended with an error ({message}); rerun it")
            try:
                completion = sample.output.completion if sample.output else None
                record = sample_trace_record(sample.id, sample.metadata, sample.messages, sample.store, data, completion)
            except AnachronError as exc:
                raise AnachronError(f"{path}: {exc}") from None
            records.append((str(path), record))
    return records, data


def score_logs(
    paths: Sequence[str | os.PathLike[str]],
    *,
    corpus: str | os.PathLike[str] | None = None,
    epoch: int | None = None,
) -> list[SampleResult]:
    """Score every sample of *paths* with the core: the logs in order, each log's samples by id."""
    records, data = read_log_traces(paths, corpus=corpus, epoch=epoch)
    return score_traces(parse_traces(records, data), data)
