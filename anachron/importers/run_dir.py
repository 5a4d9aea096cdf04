"""A run directory's ``run.json``: the record ``anachron run`` leaves, written and read here only.

``anachron run`` (:mod:`anachron.launch`) writes it last, so a directory
without it is a run that did not finish; ``anachron score RUNDIR`` reads it
for the run's transcript, log format, cutoff, corpus and seal declaration.
One module owns the format, so the writer and the reader cannot drift.

- :data:`RUN_JSON`: the file's name in a run directory; :data:`FORMAT`: its format;
- :func:`is_run_dir`: whether a path is a finished run directory;
- :func:`write_run`: a run's record, checked as :func:`read_run` reads it, then written atomically;
- :func:`read_run`: a run's record read strictly into a :class:`RunRecord`.

Every error names the file and, for a bad field, the field.  Standard
library only.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import dump_json, read_json
from anachron.core.atomic import write_atomic
from anachron.core.validate import Fields

__all__ = ["FORMAT", "RUN_JSON", "RunRecord", "is_run_dir", "read_run", "write_run"]

FORMAT = "anachron-run/1"
RUN_JSON = "run.json"


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
    )


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
