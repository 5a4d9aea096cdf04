"""The files of ``anachron report --figures DIR``: one standalone SVG per figure and ``figures.json``.

:func:`figure_files` names the files; the caller writes them as one set
(:func:`anachron.core.atomic.write_files_atomic`), so a reader never finds a
half-written set; :func:`write_figure_set` does both, with the command's
other outputs (its page) in the same set.  ``figures.json`` lists each file with its label and its
caption (n and the denominator), for a paper's figure list.

*DIR* must be new, an empty directory, or a directory holding a
``figures.json`` this command wrote (then its listed files are replaced;
one listed there and not written again is left, and named by
:func:`stale_files`).  Any other directory, or a file, is refused: the
command never writes among files it did not make.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence

from anachron.core.errors import AnachronError
from anachron.core.jsonio import dump_json
from anachron.core.atomic import write_files_atomic

__all__ = ["MANIFEST", "figure_files", "stale_files", "write_figure_set"]

MANIFEST = "figures.json"


class _Figure(Protocol):
    name: str
    label: str
    caption: str

    def standalone(self) -> str: ...


def _previous(directory: Path) -> list[str] | None:
    """The files a previous set listed in *directory*, ``[]`` for a new or empty one; None: not ours."""
    if not directory.exists():
        return []
    if not directory.is_dir():
        raise AnachronError(f"{directory}: --figures needs a directory, and this is a file")
    entries = sorted(os.listdir(directory))
    if not entries:
        return []
    manifest = directory / MANIFEST
    if not manifest.is_file():
        return None
    try:
        listed = json.loads(manifest.read_text(encoding="utf-8"))["figures"]
        return [entry["file"] for entry in listed if isinstance(entry["file"], str) and "/" not in entry["file"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def figure_files(directory: str | os.PathLike[str], figures: Sequence[_Figure]) -> dict[Path, str]:
    """``{path: text}`` of every figure's standalone SVG and of the manifest, inside *directory*."""
    root = Path(directory)
    if _previous(root) is None:
        raise AnachronError(f"{root}: not empty and not a set of figures this command wrote ({MANIFEST} missing); "
                            "give a new or empty directory")
    files: dict[Path, str] = {}
    entries: list[dict[str, Any]] = []
    for figure in figures:
        name = f"{figure.name}.svg"
        if root / name in files:
            raise AnachronError(f"{root / name}: two figures share this name")
        files[root / name] = figure.standalone()
        entries.append({"file": name, "label": figure.label, "caption": figure.caption})
    files[root / MANIFEST] = dump_json({"figures": entries})
    return files


def stale_files(directory: str | os.PathLike[str], written: Sequence[Path]) -> list[Path]:
    """The files a previous set listed in *directory* that *written* does not hold (call before writing)."""
    root = Path(directory)
    keep = {Path(p).name for p in written}
    return [root / name for name in (_previous(root) or []) if name not in keep and (root / name).is_file()]


def write_figure_set(directory: str | os.PathLike[str], figures: Sequence[_Figure],
                     others: Mapping[str | os.PathLike[str], str] | None = None) -> int:
    """Write *figures* into *directory* (:func:`figure_files`) and *others* (``{path: text}``, e.g. the page) as one
    set, then remove the previous set's figures this one does not draw; the number of figures written."""
    files = figure_files(directory, figures)
    stale = stale_files(directory, list(files))
    write_files_atomic({**files, **(others or {})})
    for path in stale:  # a figure of the previous set that this one does not draw
        path.unlink()
    return len(files) - 1
