"""What ``--corpus`` names, opened once: a corpus directory, an index file or a PostgreSQL server.

Every command, the time lock and the Inspect tasks open a corpus spec with
:func:`open_corpus`; the spec's kind is decided here and nowhere else:

- ``None``: the bundled v0 corpus (a directory);
- ``postgresql://`` or ``postgres://`` (:func:`is_database_url`): a server
  (the ``postgres`` extra, imported only then; without it, an error with
  the install hint);
- any other ``scheme://``: refused (a URL is never read as a path);
- an existing file: an index built by ``anachron index`` (refused when
  stale or not an index);
- an existing directory: a corpus directory;
- anything else: ``not a corpus directory or index``.

The :class:`OpenedCorpus` gives the :class:`~anachron.core.Corpus` the
scorers read and the :class:`~anachron.core.search.Engine` that serves it,
each made when first asked for: a directory is loaded whole, once, and
searched in memory; an index or a server is searched in place, and its
corpus's items are read as traces name them.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path

from anachron.core.corpus import Corpus, default_corpus_dir
from anachron.core.corpus import load_corpus_dir
from anachron.core.errors import AnachronError
from anachron.core.search import Engine

__all__ = ["DIRECTORY", "INDEX", "POSTGRES", "OpenedCorpus", "is_database_url", "load_corpus", "open_corpus", "shown_corpus"]

DIRECTORY, INDEX, POSTGRES = "directory", "index", "postgres"  # the kinds of spec


def is_database_url(spec: object) -> bool:
    """Whether *spec* names a PostgreSQL server (``postgresql://`` or ``postgres://``).

    >>> is_database_url("postgresql://u@h/db"), is_database_url("corpus/v0")
    (True, False)
    """
    return isinstance(spec, str) and spec.startswith(("postgresql://", "postgres://"))


def shown_corpus(spec: str | os.PathLike[str]) -> str:
    """*spec* as outputs and messages show it: a ``postgresql://`` URL without its password
    (:func:`anachron.store.postgres.redact`, standard library only), anything else as given.

    >>> shown_corpus("postgresql://u:secret@h/db"), shown_corpus("corpus/v0")
    ('postgresql://u:***@h/db', 'corpus/v0')
    """
    if is_database_url(spec):
        from anachron.store.postgres import redact

        return redact(str(spec))
    return str(spec)


class OpenedCorpus:
    """A corpus spec, its kind decided (:func:`open_corpus`): the corpus for scoring, the engine for serving.

    ``kind`` is :data:`DIRECTORY`, :data:`INDEX` or :data:`POSTGRES`;
    ``location`` the spec as given (the bundled corpus's path for ``None``);
    ``shown`` the spec as messages show it (a URL without its password).  *samples* false: ``samples.jsonl`` (or the
    store's samples) is never read, as a time lock serves a corpus.
    """

    def __init__(self, kind: str, location: str | os.PathLike[str], *, samples: bool = True) -> None:
        self.kind, self.location, self.samples = kind, location, samples
        self.shown = shown_corpus(location)

    @cached_property
    def corpus(self) -> Corpus:
        """The corpus, for the scorers: a directory loaded whole; an index's or a server's
        entities and samples read whole, its items read when asked for."""
        if self.kind == POSTGRES:
            from anachron.store.postgres import load_postgres_corpus

            return load_postgres_corpus(str(self.location), samples=self.samples)
        if self.kind == INDEX:
            from anachron.store.index import load_index

            return load_index(Path(self.location), samples=self.samples)
        return load_corpus_dir(self.location, samples=self.samples)

    @cached_property
    def engine(self) -> Engine:
        """The engine serving the corpus: a directory's :attr:`corpus` searched in memory
        (loaded once for both); an index or a server searched in place, reading only what is served."""
        return self._new_engine()

    def _new_engine(self) -> Engine:
        if self.kind == POSTGRES:
            from anachron.store.postgres import PostgresEngine

            return PostgresEngine(str(self.location))
        if self.kind == INDEX:
            from anachron.store.index import IndexEngine

            return IndexEngine(self.location)
        from anachron.store.memory import SearchEngine

        return SearchEngine(self.corpus)

    @cached_property
    def fingerprint(self) -> str:
        """What the served content is, whichever store holds it: ``sha256:`` and the digest of the
        SHA-256 of each served file (``items.jsonl``, ``entities.jsonl``; an absent one as ``none``).

        A directory's files are hashed; an index or a server gives the hashes recorded when it was
        built from its directory (:mod:`.index.fingerprint`), so a directory and the stores built
        from it have one fingerprint.  Runs compared side by side are refused when theirs differ
        (``anachron compare``).
        """
        from anachron.store.index.fingerprint import SERVED, content_digest
        from anachron.store.index.fingerprint import fingerprint as file_fingerprint

        if self.kind == DIRECTORY:
            return content_digest(file_fingerprint(self.location, SERVED), SERVED)
        import json

        if "engine" in self.__dict__:  # already open: its meta is at hand
            return content_digest(json.loads(self.engine.meta["files"]), SERVED)  # type: ignore[attr-defined]
        engine = self._new_engine()  # a connection of its own, closed here (the meta is all it reads)
        try:
            return content_digest(json.loads(engine.meta["files"]), SERVED)  # type: ignore[attr-defined]
        finally:
            engine.close()  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"OpenedCorpus({self.kind!r}, {self.shown!r})"


def open_corpus(spec: str | os.PathLike[str] | None = None, *, samples: bool = True) -> OpenedCorpus:
    """The corpus *spec* names (default: the bundled v0 corpus), its kind decided (see the module doc).

    Only the kind is decided here; the corpus is read, and a bad one
    refused, when :attr:`OpenedCorpus.corpus` or :attr:`OpenedCorpus.engine`
    is first asked for.

    >>> open_corpus("postgresql://u:secret@h/db")
    OpenedCorpus('postgres', 'postgresql://u:***@h/db')
    >>> open_corpus("mysql://h/db")
    Traceback (most recent call last):
    ...
    anachron.core.errors.AnachronError: a mysql:// URL cannot be loaded as a corpus here: give a corpus directory or an index file (`anachron index`); the command line's --corpus also takes a postgresql:// URL
    """
    if is_database_url(spec):
        return OpenedCorpus(POSTGRES, str(spec), samples=samples)
    if spec is not None and "://" in str(spec):
        # Path() would fold the URL's '//' and echo its password.
        scheme = str(spec).split("://", 1)[0][:20]
        raise AnachronError(
            f"a {scheme}:// URL cannot be loaded as a corpus here: give a corpus directory or an index file "
            "(`anachron index`); the command line's --corpus also takes a postgresql:// URL"
        )
    location = spec if spec is not None else default_corpus_dir()
    root = Path(location)
    if root.is_file():  # an index built by `anachron index` (docs/index.md)
        return OpenedCorpus(INDEX, location, samples=samples)
    if not root.is_dir():
        raise AnachronError(f"{root}: not a corpus directory or index")
    return OpenedCorpus(DIRECTORY, location, samples=samples)


def load_corpus(spec: str | os.PathLike[str] | None = None, *, samples: bool = True) -> Corpus:
    """The corpus *spec* names, for scoring: :attr:`open_corpus(spec).corpus <OpenedCorpus.corpus>`.

    *spec* is a corpus directory, an index file, a ``postgresql://`` URL or
    ``None`` (the bundled v0 corpus).  ``samples=False`` never reads the samples.
    """
    return open_corpus(spec, samples=samples).corpus
