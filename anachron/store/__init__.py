"""Every corpus backend, and the one place that decides what ``--corpus`` names.

- :func:`open_corpus` (:mod:`.spec`): a corpus directory, an index file, a
  ``postgresql://`` URL or ``None`` (the bundled v0 corpus), opened as the
  corpus the scorers read and the engine that serves it;
  :func:`load_corpus` is its corpus alone (:func:`anachron.load_corpus`);
- :mod:`.memory`: :class:`SearchEngine`, a corpus searched in memory;
- :mod:`.index`: the SQLite index (``anachron index``), built, searched and
  read in place;
- :mod:`.postgres`: a corpus on a PostgreSQL server (the ``postgres``
  extra, imported only when a URL is opened);
- :mod:`.terms` (what an item is matched by and the two weights),
  :mod:`.engine` (what the engines share) and :mod:`.bitmaps`.

The engines implement :class:`anachron.core.search.Engine` and rank alike
(docs/index.md).
"""

from anachron.store.index import IndexEngine, build_index
from anachron.store.memory import SearchEngine
from anachron.store.spec import OpenedCorpus, is_database_url, load_corpus, open_corpus, shown_corpus

__all__ = ["IndexEngine", "OpenedCorpus", "SearchEngine", "build_index", "is_database_url", "load_corpus", "open_corpus", "shown_corpus"]
