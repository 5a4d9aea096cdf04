"""A corpus index: one SQLite file (standard library ``sqlite3`` with FTS5).

:func:`build_index` writes it from a corpus directory (``anachron index``);
:class:`IndexEngine` searches it without loading it (opening reads a few
rows); :func:`load_index` reads it back as a :class:`~anachron.core.Corpus`
for the scorers.  The format is in docs/index.md.  One concern per module:

- :mod:`.codec`: an item, entity or sample as a stored document, and back;
- :mod:`.fingerprint`: what a store records of its source files, and the
  staleness check on opening;
- :mod:`.build`: a corpus directory checked, streamed and written;
- :mod:`.postings`: each term's stored postings, and the engine's reads of them;
- :mod:`.stored`: the connection pool and the items read when asked for,
  shared with the PostgreSQL store;
- :mod:`.engine`: opening an index, as an engine or as a corpus.
"""

from anachron.store.index.build import IndexSummary, build_index
from anachron.store.index.reader import IndexEngine, IndexItems, is_index, load_index
from anachron.store.index.fingerprint import CORPUS_FILES, FORMAT, SERVED
from anachron.store.index.stored import StoredItems

__all__ = ["CORPUS_FILES", "FORMAT", "SERVED", "IndexEngine", "IndexItems", "IndexSummary", "StoredItems", "build_index", "is_index", "load_index"]
