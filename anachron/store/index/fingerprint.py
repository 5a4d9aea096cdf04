"""The freshness fingerprint: what a corpus store records of the files it was built from.

A store (an index file, a PostgreSQL corpus) keeps, in its ``meta`` rows
(:func:`build_meta`), its format, the source directory and the SHA-256,
size and modification time of each corpus file.  Opening it while the
source directory exists compares them (:func:`check_meta`): a file whose
size or time changed is hashed, and one whose content changed (or that
appeared or vanished) makes the store stale, an
:class:`~anachron.core.errors.AnachronError`.  A file whose recorded time is
within :data:`RACY_NS` of the store's own build (an index file's
modification time) is hashed whatever its size and time: an edit of the
same size made in the clock tick of the build keeps both (git's "racily
clean" entries).  A directory that no longer
exists (a store copied to another machine) is not checked.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from anachron.core.errors import AnachronError
from anachron.core.jsonio import json_line

__all__ = ["CORPUS_FILES", "FORMAT", "RACY_NS", "SERVED", "build_meta", "check_meta", "check_unchanged", "content_digest", "fingerprint", "stale_file"]

FORMAT = "anachron-index 6"  # 6: PostgreSQL stores column bitmaps too (BM25 over bitmaps); 5: field lengths and days for BM25 (ranking); 4: per-term posting arrays and bitmaps (postings); 3: items keep their facts, entities their fiscal year end
CORPUS_FILES = ("items.jsonl", "entities.jsonl", "samples.jsonl")
SERVED = ("items.jsonl", "entities.jsonl")  # what serving reads: never the samples
RACY_NS = 3_000_000_000  # a file time this close to the build's is not trusted: coarse clocks (FAT: 2 s) and ticks


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fingerprint(directory: str | os.PathLike[str], names: Sequence[str] = CORPUS_FILES) -> dict[str, dict[str, Any] | None]:
    """``{file name: {"sha256", "size", "mtime_ns"} or None when absent}`` for the corpus files."""
    root = Path(directory)
    out: dict[str, dict[str, Any] | None] = {}
    for name in names:
        path = root / name
        if not path.is_file():
            out[name] = None
            continue
        stat = path.stat()
        out[name] = {"sha256": _sha256(path), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    return out


def content_digest(files: Mapping[str, Any], names: Sequence[str] = SERVED) -> str:
    """``sha256:`` and one digest of the SHA-256 of each of *names* in *files* (:func:`fingerprint`'s
    shape; an absent file counts as ``none``): what a corpus's content is, however it is stored."""
    digest = hashlib.sha256()
    for name in names:
        entry = files.get(name)
        digest.update(f"{name}:{entry['sha256'] if entry else 'none'}\n".encode())
    return "sha256:" + digest.hexdigest()


def stale_file(directory: Path, recorded: Mapping[str, Any], names: Iterable[str], built_ns: int | None = None) -> str | None:
    """The first of *names* whose content differs from *recorded*, or ``None``.

    A file whose size and modification time match the record is taken as
    unchanged (so opening is not a full read), unless its recorded time is
    within :data:`RACY_NS` of *built_ns* (when the build is dated); any other
    is hashed.
    """
    for name in names:
        if name not in recorded:
            continue  # not part of the index (built without samples)
        was, path = recorded[name], directory / name
        if not path.is_file():
            if was is not None:
                return name
            continue
        if was is None:
            return name
        stat = path.stat()
        racy = built_ns is not None and built_ns - was["mtime_ns"] < RACY_NS
        if stat.st_size == was["size"] and stat.st_mtime_ns == was["mtime_ns"] and not racy:
            continue
        if stat.st_size != was["size"] or _sha256(path) != was["sha256"]:
            return name
    return None


def check_unchanged(root: Path, files: Mapping[str, Any]) -> None:
    """Refuse a corpus whose files are not the ones fingerprinted before it was read (*files*)."""
    if fingerprint(root, list(files)) != files:
        raise AnachronError(f"{root}: changed while it was indexed; index again")


def check_meta(
    meta: Mapping[str, str], names: Sequence[str], *, where: str, what: str, again: str, built_ns: int | None = None
) -> None:
    """Refuse a corpus store of another format, or one whose source files changed (see the module doc).

    *what* names the store (``index``, ``corpus``) and *again* how to rebuild it; *built_ns*, when
    known, is when it was built (:func:`stale_file`).

    >>> check_meta({"format": "anachron-index 3"}, SERVED, where="c.db", what="index", again="--out c.db")
    Traceback (most recent call last):
    ...
    anachron.core.errors.AnachronError: c.db: not an Anachron index of format 'anachron-index 6' (found 'anachron-index 3')
    """
    if meta.get("format") != FORMAT:
        raise AnachronError(f"{where}: not an Anachron {what} of format {FORMAT!r} (found {meta.get('format')!r})")
    source = Path(meta["source"])
    if source.is_dir():
        changed = stale_file(source, json.loads(meta["files"]), names, built_ns)
        if changed is not None:
            raise AnachronError(
                f"{where}: stale {what}: {source / changed} changed since it was indexed; "
                f"rebuild it with `anachron index {source} {again}`"
            )


def build_meta(root: Path, files: Mapping[str, Any], items: int, entities: int, samples: int) -> dict[str, str]:
    """The ``meta`` rows of a store built from the corpus in *root*."""
    return {
        "format": FORMAT,
        "source": str(root.resolve()),
        "files": json_line(files, ensure_ascii=True),
        "items": str(items),
        "entities": str(entities),
        "samples": str(samples) if "samples.jsonl" in files else "none",
    }
