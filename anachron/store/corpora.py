"""What ``--corpus`` names, loaded for the scorers: a corpus directory, an index file or a PostgreSQL server.

:func:`anachron.core.load_corpus` reads files (a directory, or an index
built by ``anachron index``); a ``postgresql://`` URL needs the
``postgres`` extra, an adapter the core never imports, so every command
that scores against ``--corpus`` loads it through :func:`load_scored_corpus`.
Searching is another matter: :func:`anachron.timelock.backends.open_engine`
searches an index or a server in place.
"""

from __future__ import annotations

import os

from ..core.corpus import Corpus, load_corpus

__all__ = ["is_database_url", "load_scored_corpus", "shown_corpus"]


def is_database_url(spec: object) -> bool:
    """Whether ``--corpus`` names a PostgreSQL server (``postgresql://`` or ``postgres://``)."""
    return isinstance(spec, str) and spec.startswith(("postgresql://", "postgres://"))


def shown_corpus(spec: str | os.PathLike[str]) -> str:
    """*spec* as outputs and messages show it: a ``postgresql://`` URL without its password
    (:func:`anachron.store.postgres.redact`, standard library only), anything else as given."""
    if is_database_url(spec):
        from .postgres import redact

        return redact(str(spec))
    return str(spec)


def load_scored_corpus(spec: str | os.PathLike[str] | None = None, *, samples: bool = True) -> Corpus:
    """The corpus *spec* names (default: the bundled v0 corpus), for scoring.

    A directory or an index file: :func:`~anachron.core.load_corpus` (a
    directory loaded whole; an index's items read as traces name them).  A
    ``postgresql://`` URL: :func:`anachron.store.postgres.load_postgres_corpus`,
    its items read as an index's are (the ``postgres`` extra; without it,
    an error with the install hint).
    """
    if is_database_url(spec):
        from .postgres import load_postgres_corpus

        return load_postgres_corpus(str(spec), samples=samples)
    return load_corpus(spec, samples=samples)
