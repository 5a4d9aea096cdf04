"""A run directory's ``run.json``: the record ``anachron run`` leaves, written and read here only.

``anachron run`` (:mod:`anachron.launch`) writes it last, so a directory
without it is a run that did not finish; ``anachron score RUNDIR`` reads it
for the run's transcript, log format, cutoff, corpus and seal declaration.
One module owns the format, so the writer and the reader cannot drift.

- :data:`RUN_JSON`: the file's name in a run directory; :data:`FORMAT`: its format;
- :func:`is_run_dir`: whether a path is a finished run directory;
- :func:`write_run`: a run's record, checked as :func:`read_run` reads it, then written atomically;
- :func:`read_run`: a run's record read strictly into a :class:`RunRecord`;
- :func:`proof_differences`: what of the files differs from what ``run.json`` pins (the lock's
  log's digest chain, the transcript's and the configuration's SHA-256).
- :func:`model_log_differences`: how the model gateway's log differs from the chain ``run.json`` pins.

Every error names the file and, for a bad field, the field.  Standard
library only.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import dump_json, read_json
from anachron.core.atomic import write_atomic
from anachron.core.seal import SHELL_TOOLS
from anachron.core.validate import Fields

__all__ = ["FORMAT", "RUN_JSON", "RunRecord", "is_run_dir", "model_log_differences", "proof_differences", "read_run",
           "write_run"]

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
    seal_status: str | None = None  # the verdict the launcher recorded (None: not audited)
    lock_log: Mapping[str, Any] | None = None  # {"records", "sha256", "torn"}: the lock's log as copied
    digests: Mapping[str, str] | None = None  # file name -> SHA-256 (the transcript, the configuration)
    # The model gateway's log as the launcher closed it ({"log", "records", "sha256"}); None: a run
    # recorded before the gateway (an optional field: such a run.json stays readable).
    gateway: Mapping[str, Any] | None = None
    # How the harness's network was isolated (``"netns(unshare)"``); None: not at all, or a run recorded
    # before the field (an optional field: such a run.json stays readable, and declares no shell isolated).
    isolation: str | None = None
    # The harness's own tools the gateway let through, not counted outside the lock; () for a run recorded
    # before the field (an optional field: such a run.json stays readable, and exempts no tool).
    local_tools: tuple[str, ...] = ()

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
    local = f.list("local_tools") if "local_tools" in obj else []
    for field_name, names in (("sealed_tools", sealed), ("local_tools", local)):
        for name in names:
            if not isinstance(name, str) or not name:
                raise f.error(field_name, f"expected a list of tool names, found {describe(name)}")
    shells = sorted(set(local) & set(SHELL_TOOLS))
    if shells:  # a shell is judged by its network, never let through as the harness's own
        raise f.error("local_tools", f"{', '.join(map(repr, shells))} is a shell tool, never a local one")
    transcript = _optional_text(files, "transcript")
    transcript_format = files.text("transcript_format")
    mcp_config = files.text("mcp_config")
    lock_events = _optional_text(files, "lock_events")
    corpus_spec = _optional_text(corpus, "spec", nonempty=False)  # as --corpus gave it
    lock_log = _lock_log(f)
    digests = _object(f, "digests")
    for name, value in digests.obj.items():
        if not isinstance(value, str) or not _HEX.fullmatch(value):
            raise digests.error(name, f"expected a SHA-256 in hex, got {describe(value)}")
    seal = obj.get("seal")
    if seal is not None and not isinstance(seal, dict):
        raise f.error("seal", f"expected an object or null, got {describe(seal)}")
    status = seal.get("status") if seal is not None else None
    if seal is not None and not isinstance(status, str):
        raise f.error("seal", f"expected a status, got {describe(status)}")
    return RunRecord(
        path=path,
        as_of=as_of,
        refused=refused,
        transcript=transcript,
        transcript_format=transcript_format,
        mcp_config=mcp_config,
        lock_events=lock_events,
        corpus_spec=corpus_spec,
        sealed_tools=tuple(sealed),
        seal_status=status,
        lock_log=lock_log,
        digests=dict(digests.obj),
        gateway=_gateway(f),
        isolation=_optional_text(f, "isolation") if "isolation" in obj else None,
        local_tools=tuple(local),
    )


_HEX = re.compile(r"[0-9a-f]{64}")


def _lock_log(f: Fields) -> dict[str, Any] | None:
    """``lock_log``: the digest chain of the lock's log as the launcher copied it, or null (no log)."""
    if "lock_log" not in f.obj:
        raise f.missing("lock_log")
    if f.obj["lock_log"] is None:
        return None
    chain = _object(f, "lock_log")
    records = chain.obj.get("records")
    if not isinstance(records, int) or isinstance(records, bool) or records < 0:
        raise chain.error("records", f"expected a count, got {describe(records)}")
    digest = chain.obj.get("sha256")
    if not isinstance(digest, str) or not _HEX.fullmatch(digest):
        raise chain.error("sha256", f"expected a SHA-256 in hex, got {describe(digest)}")
    torn = chain.obj.get("torn")
    if not isinstance(torn, bool):
        raise chain.error("torn", f"expected true or false, got {describe(torn)}")
    return {"records": records, "sha256": digest, "torn": torn}


def proof_differences(record: RunRecord) -> list[str]:
    """One line for each way the run directory's files differ from what its ``run.json`` pins: the
    lock's log (its digest chain: an edited, removed or appended record; a torn last line) and the
    SHA-256 of each pinned file.  Empty when they agree.  A log ``run.json`` names but pins no chain
    of is a difference too: nothing proves it is the lock's."""
    from anachron.core.chain import log_chain  # the one chain rule (anachron.timelock.events re-exports it)

    rundir, lines = record.rundir, []
    if record.lock_events is not None:
        try:
            data = (rundir / record.lock_events).read_bytes()
        except OSError as exc:
            data = None
            lines.append(f"the lock's log {record.lock_events} cannot be read: {exc.strerror or exc}")
        if data is not None:
            found, pinned = log_chain(data), record.lock_log
            if found.torn:
                lines.append(f"the lock's log {record.lock_events} ends in a torn line (line {found.records + 1} has no newline)")
            if pinned is None:
                lines.append(f"run.json pins no digest chain of the lock's log {record.lock_events}")
            elif found.records != pinned["records"]:
                lines.append(f"the lock's log {record.lock_events} holds {found.records} complete records; "
                             f"run.json pinned {pinned['records']}")
            elif (found.sha256, found.torn) != (pinned["sha256"], pinned["torn"]):
                lines.append(f"the lock's log {record.lock_events} differs from the one run.json pinned (its digest chain "
                             f"ends {found.sha256[:16]}, run.json's {pinned['sha256'][:16]})")
    for name, pinned_digest in sorted((record.digests or {}).items()):
        try:
            found_digest = hashlib.sha256((rundir / name).read_bytes()).hexdigest()
        except OSError as exc:
            lines.append(f"{name} cannot be read: {exc.strerror or exc}")
            continue
        if found_digest != pinned_digest:
            lines.append(f"{name} differs from the one run.json pinned (SHA-256 {found_digest[:16]}, run.json's {pinned_digest[:16]})")
    for name in (record.transcript, record.mcp_config):
        if name and name not in (record.digests or {}):
            lines.append(f"run.json pins no SHA-256 of {name}")
    return lines


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
