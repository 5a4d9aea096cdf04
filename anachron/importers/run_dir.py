"""A run directory's ``run.json``: the record ``anachron run`` leaves, written and read here only.

``anachron run`` (:mod:`anachron.launch`) writes it last, so a directory
without it is a run that did not finish; ``anachron score RUNDIR`` reads it
for the run's transcript, log format, cutoff, corpus and seal declaration.
One module owns the format, so the writer and the reader cannot drift.

- :data:`RUN_JSON`: the file's name in a run directory; :data:`FORMAT`: its format;
- :func:`is_run_dir`: whether a path is a finished run directory;
- :func:`write_run`: a run's record, checked as :func:`read_run` reads it, then written atomically;
- :func:`read_run`: a run's record read strictly into a :class:`RunRecord`;
- :func:`model_log_differences`: how the model gateway's log differs from the chain ``run.json`` pins.

Every error names the file and, for a bad field, the field.  Standard
library only.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import dump_json, read_json
from anachron.core.atomic import write_atomic
from anachron.core.validate import Fields

__all__ = ["FORMAT", "RUN_JSON", "RunRecord", "is_run_dir", "model_log_differences", "read_run", "write_run"]

FORMAT = "anachron-run/1"
RUN_JSON = "run.json"
MODEL_LOG = "model.jsonl"  # the model gateway's log (anachron.launch.gateway)


@dataclass(frozen=True)
class RunRecord:
    """What ``run.json`` tells a reader; file names are relative to the run directory."""

    path: Path  # the run.json read
    as_of: _dt.date
    refused: str | None  # why the run was refused; None for a run that went through
    transcript: str | None  # None: the harness never ran
    transcript_format: str
    mcp_config: str
    lock_events: str | None  # None: no lock log (the run proves a configuration only)
    corpus_spec: str | None  # what --corpus named; None: the bundled corpus
    sealed_tools: tuple[str, ...]
    # The model gateway's log as the launcher closed it ({"log", "records", "sha256"}); None: a run
    # recorded before the gateway (an optional field: such a run.json stays readable).
    gateway: Mapping[str, Any] | None = None

    @property
    def rundir(self) -> Path:
        return self.path.parent


def is_run_dir(path: str | os.PathLike[str]) -> bool:
    """True when *path* is a directory holding a ``run.json`` (a finished run)."""
    return Path(path).is_dir() and (Path(path) / RUN_JSON).is_file()


def write_run(rundir: str | os.PathLike[str], record: Mapping[str, Any]) -> dict[str, Any]:
    """Write *record* (every field but ``format``) as *rundir*'s ``run.json``; the record as written.

    It is checked first as :func:`read_run` reads it, so a record the reader
    would refuse is never written.
    """
    path = Path(rundir) / RUN_JSON
    written = {"format": FORMAT, **record}
    _parse(path, written)
    write_atomic(path, dump_json(written))
    return written


def read_run(rundir: str | os.PathLike[str]) -> RunRecord:
    """The ``run.json`` of *rundir*, read strictly; an :class:`AnachronError` naming the file (and the
    field) when it is missing, not JSON, or not a record of :data:`FORMAT`."""
    path = Path(rundir) / RUN_JSON
    if not path.is_file():
        raise AnachronError(f"{rundir}: no {RUN_JSON}: not a finished `anachron run` directory")
    return _parse(path, read_json(path))


def _parse(path: Path, obj: Any) -> RunRecord:
    where = str(path)
    if not isinstance(obj, dict):
        raise AnachronError(f"{where}: expected a JSON object, got {describe(obj)}")
    f = Fields(where, obj)
    if "format" not in obj:
        raise f.missing("format")
    if obj["format"] != FORMAT:
        raise f.error("format", f"{describe(obj['format'])} is not {FORMAT!r}: not an `anachron run` record")
    as_of = f.date("as_of")
    refused = _optional_text(f, "refused", nonempty=False)  # any reason, even none given, is a refusal
    files = _object(f, "files")
    corpus = _object(f, "corpus")
    sealed = f.list("sealed_tools")
    for name in sealed:
        if not isinstance(name, str) or not name:
            raise f.error("sealed_tools", f"expected a list of tool names, found {describe(name)}")
    return RunRecord(
        path=path,
        as_of=as_of,
        refused=refused,
        transcript=_optional_text(files, "transcript"),
        transcript_format=files.text("transcript_format"),
        mcp_config=files.text("mcp_config"),
        lock_events=_optional_text(files, "lock_events"),
        corpus_spec=_optional_text(corpus, "spec", nonempty=False),  # as --corpus gave it
        sealed_tools=tuple(sealed),
        gateway=_gateway(f),
    )


_HEX = re.compile(r"[0-9a-f]{64}")


def _gateway(f: Fields) -> dict[str, Any] | None:
    """``gateway`` (optional): the model log's name, record count and last chain link."""
    if f.obj.get("gateway") is None:
        return None
    gateway = _object(f, "gateway")
    log = gateway.text("log")
    if "/" in log or "\\" in log or log in (".", ".."):
        raise gateway.error("log", f"expected a file name in the run directory, got {describe(log)}")
    records = gateway.obj.get("records")
    if not isinstance(records, int) or isinstance(records, bool) or records < 0:
        raise gateway.error("records", f"expected a count, got {describe(records)}")
    digest = gateway.obj.get("sha256")
    if not isinstance(digest, str) or not _HEX.fullmatch(digest):
        raise gateway.error("sha256", f"expected a SHA-256 in hex, got {describe(digest)}")
    return {"log": log, "records": records, "sha256": digest}


def model_log_differences(record: RunRecord) -> list[str]:
    """One line per way the model gateway's log differs from what ``run.json`` pins (a record edited,
    removed or appended; a link that does not hold); empty when they agree or the run had no gateway."""
    from anachron.core.chain import broken_links, log_chain

    if record.gateway is None:
        # A model log beside a record that pins none: nothing proves it is the gateway's as written.
        present = (record.rundir / MODEL_LOG).exists()
        return [f"run.json pins no chain of the model log {MODEL_LOG}"] if present else []
    name = record.gateway["log"]
    try:
        data = (record.rundir / name).read_bytes()
    except OSError as exc:
        return [f"the model log {name} cannot be read: {exc.strerror or exc}"]
    lines = [f"the model log {name}: {problem}" for problem in broken_links(data)]
    found = log_chain(data)
    if found.torn:
        lines.append(f"the model log {name} ends in a torn line (line {found.records + 1} has no newline)")
    if found.records != record.gateway["records"]:
        lines.append(f"the model log {name} holds {found.records} records; run.json pinned {record.gateway['records']}")
    elif found.sha256 != record.gateway["sha256"]:
        lines.append(f"the model log {name} differs from the one run.json pinned (its chain ends {found.sha256[:16]}, "
                     f"run.json's {record.gateway['sha256'][:16]})")
    return lines


def _object(f: Fields, name: str) -> Fields:
    """Field *name* of *f*, an object, as :class:`Fields` whose errors name it ``name.inner``."""
    if name not in f.obj:
        raise f.missing(name)
    value = f.obj[name]
    if not isinstance(value, dict):
        raise f.error(name, f"expected an object, got {describe(value)}")
    return _Nested(f.where, name, value)


class _Nested(Fields):
    """Fields of an object inside a record: each error names the field by its dotted path."""

    def __init__(self, where: str, prefix: str, obj: Mapping[str, Any]) -> None:
        super().__init__(where, obj)
        self.prefix = prefix

    def error(self, name: str, reason: str) -> AnachronError:
        return super().error(f"{self.prefix}.{name}", reason)

    def missing(self, name: str) -> AnachronError:
        return super().missing(f"{self.prefix}.{name}")


def _optional_text(f: Fields, name: str, *, nonempty: bool = True) -> str | None:
    """A required field holding a string (non-empty when *nonempty*) or null: the writer always writes the key."""
    if name not in f.obj:
        raise f.missing(name)
    value = f.obj[name]
    if value is None:
        return None
    if not isinstance(value, str) or (nonempty and not value):
        raise f.error(name, f"expected a {'non-empty ' if nonempty else ''}string or null, got {describe(value)}")
    return value
