"""A cached index of a large corpus directory: built once, reused while it is fresh.

Serving a directory loads it whole (at 1M items, about a minute and 2 GB);
serving its index (``anachron index``) opens in about a second.  So a
directory whose ``items.jsonl`` is at least a size (``anachron serve
--index-above``, default :data:`INDEX_ABOVE`) is served from an index kept
in the user's cache directory, :func:`cache_root`:

- ``$XDG_CACHE_HOME/anachron/indexes`` when ``XDG_CACHE_HOME`` is set (an
  absolute path, as the XDG rules ask), else ``~/.cache/anachron/indexes``;
- one file per directory, named for the directory's resolved path
  (:func:`cached_index_path`), written atomically by
  :func:`~anachron.store.index.build_index` without the samples (a served
  index never holds them).

The index's own freshness check decides reuse (:mod:`.index.fingerprint`):
opening a cached index whose source files changed, of another format, built
from another directory or damaged is refused, and the index is built again.
(A file recorded in the clock tick of the build is hashed at every open:
:data:`~anachron.store.index.fingerprint.RACY_NS`.)  A cached index owned by another user is not
trusted (rebuilt).  A cache that cannot be read or written is an
:class:`~anachron.core.errors.AnachronError` naming it (one line), never a
traceback.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Callable

from anachron.core.errors import AnachronError
from anachron.store.index import IndexEngine, build_index

__all__ = ["INDEX_ABOVE", "cache_root", "cached_index_path", "items_bytes", "open_cached_index"]

INDEX_ABOVE = 32 << 20  # bytes of items.jsonl: about 100k items, some 6 s to load whole


def cache_root() -> Path:
    """Where cached indexes go: ``$XDG_CACHE_HOME/anachron/indexes`` or ``~/.cache/anachron/indexes``.

    A relative ``XDG_CACHE_HOME`` is ignored, as the XDG base directory rules ask.
    """
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "anachron" / "indexes"


def cached_index_path(directory: str | os.PathLike[str], root: Path | None = None) -> Path:
    """The cached index of *directory*: named for its resolved path (two directories never share one)."""
    resolved = Path(directory).resolve()
    digest = hashlib.sha256(os.fsencode(resolved)).hexdigest()[:20]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in resolved.name)[:40] or "corpus"
    return (root or cache_root()) / f"{name}-{digest}.db"


def items_bytes(directory: str | os.PathLike[str]) -> int:
    """The size of *directory*'s ``items.jsonl`` (0 when it is absent: the load then says what is wrong)."""
    try:
        return os.stat(Path(directory) / "items.jsonl").st_size
    except OSError:
        return 0


def open_cached_index(
    directory: str | os.PathLike[str], *, root: Path | None = None, say: Callable[[str], None] = lambda line: None
) -> IndexEngine:
    """An engine over the cached index of *directory*, built (or rebuilt) first when missing or not fresh.

    *say* is told, in one line each, what happened: reused, built, or
    rebuilt and why.  A directory that is not a valid corpus is an
    :class:`~anachron.core.errors.AnachronError`, as ``anachron index`` would say it.
    """
    path = cached_index_path(directory, root)
    try:
        return _open_cached_index(directory, path, say)
    except OSError as exc:  # an unreadable or unwritable cache (build_index names its own failures)
        raise AnachronError(
            f"{path}: cannot use the index cache: {exc.strerror or exc}; set XDG_CACHE_HOME or pass --index-above never"
        ) from None


def _open_cached_index(directory: str | os.PathLike[str], path: Path, say: Callable[[str], None]) -> IndexEngine:
    source = str(Path(directory).resolve())
    why = "none yet"
    try:
        owner = path.stat().st_uid if path.is_file() else None
    except FileNotFoundError:  # removed meanwhile (another server replacing it): built here
        owner = None
    if owner is not None and hasattr(os, "getuid") and owner != os.getuid():
        # A cache directory others can write to (a shared XDG_CACHE_HOME) could hold a forged index
        # whose recorded fingerprint matches the corpus: only an index of our own is trusted.
        why = f"{path}: owned by another user (uid {owner})"
    elif owner is not None:
        try:
            engine = IndexEngine(path)
        except AnachronError as exc:
            why = str(exc)
        else:
            if engine.meta.get("source") != source:
                why = f"{path}: built from {engine.meta.get('source')}, not from {source}"
            else:
                say(f"serving the cached index {path} of {directory} (fresh)")
                return engine
            engine.close()
    say(f"building an index of {directory} in {path}, once ({why})")
    build_index(directory, path, samples=False)  # atomic: a build cut short leaves the old file or none
    engine = IndexEngine(path)
    say(f"index built: {path} ({path.stat().st_size} bytes); later starts reuse it while {directory} is unchanged")
    return engine
