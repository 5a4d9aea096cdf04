"""What every SQL corpus store shares: a per-thread connection pool, and its items read when asked for.

:class:`StoredItems` is the scorers' view of a store's items (an index file:
:class:`~anachron.store.index.IndexItems`; a PostgreSQL server:
:class:`anachron.store.postgres.PostgresItems`), a read-only mapping that
reads what it is asked for; :class:`Connections` keeps one connection per
thread for it and for the engines.
"""

from __future__ import annotations

import collections
import json
import os
import threading
import weakref
from typing import Any, Callable, Iterable, Iterator, Mapping

from anachron.core.corpus import Item
from anachron.core.errors import AnachronError
from anachron.store.index.codec import key, read_item

__all__ = ["Connections", "StoredItems"]


class Connections:
    """One connection per thread, made by *connect*; :meth:`close` closes every one."""

    def __init__(self, connect: Callable[[], Any], first: Any) -> None:
        self._connect = connect
        self._local = threading.local()
        self._local.con = first
        self._all = [first]
        self._guard = threading.Lock()

    def get(self, *, usable: Callable[[Any], bool] = lambda con: True) -> Any:
        con = getattr(self._local, "con", None)
        if con is None or not usable(con):
            con = self._local.con = self._connect()
            with self._guard:
                self._all.append(con)
        return con

    def close(self) -> None:
        with self._guard:
            connections, self._all = self._all, []
        for con in connections:
            con.close()
        self._local = threading.local()


def _close_in(pid: int, connections: Connections) -> None:
    """Close *connections* in the process that opened them (a forked child's copy is left alone)."""
    if os.getpid() == pid:
        connections.close()


class StoredItems(Mapping[str, Item]):
    """The items of a corpus store as a read-only mapping id -> :class:`Item`, in file order,
    read when asked for (the scorers' view of a large corpus).

    A lookup (``items[id]``, ``get``, ``in``) reads one row by its id and
    keeps the last :attr:`CACHE` answers; iterating reads the ids in file
    order; ``values()`` and ``items()`` read every document once, in file
    order, holding none.  :meth:`with_facts` reads only the items that
    declare facts (what :attr:`Corpus.fact_sources` needs).  Each thread and
    each forked process has its own connection.  A store says how it
    connects and queries (:class:`IndexItems`, SQLite;
    :class:`anachron.store.postgres.PostgresItems`).
    """

    CACHE = 65_536  # items (or absent ids) kept
    # The store's queries: one item's document by its stored id; the stored ids, then the
    # documents, in file order; (pos, doc) of the documents holding the text '"facts":'.
    BY_ID = IDS = DOCS = WITH_FACTS = ""
    DAMAGED = "a damaged store"  # what a document that does not read as an item makes of the store

    def __init__(self, where: str, count: int) -> None:
        self._where, self._count = where, count
        self._kept: collections.OrderedDict[str, Item | None] = collections.OrderedDict()
        self._guard = threading.Lock()
        self._pid, self._connections = -1, None  # opened at the first read (in this process)

    def _connect(self) -> Any:
        raise NotImplementedError

    def _usable(self, con: Any) -> bool:
        return True

    def _execute(self, con: Any, sql: str, args: tuple) -> Iterable[tuple]:
        return con.execute(sql, args)

    def _failed(self, exc: Exception) -> AnachronError | None:
        """The error a failure of the store's driver is, or ``None`` when *exc* is not one."""
        raise NotImplementedError

    def _rows(self, sql: str, *args: object) -> Iterator[tuple]:
        with self._guard:
            if self._pid != os.getpid():  # a forked child must not use its parent's connection
                # No reference back to self (a bound method would make a cycle): the connections are
                # closed when the mapping is dropped, not left open until the collector runs.
                connect = weakref.WeakMethod(self._connect)
                self._pid, self._connections = os.getpid(), Connections(lambda: connect()(), self._connect())
                weakref.finalize(self, _close_in, self._pid, self._connections)
            connections = self._connections
        try:
            yield from self._execute(connections.get(usable=self._usable), sql, args)  # type: ignore[union-attr]
        except Exception as exc:
            failed = self._failed(exc)
            if failed is None:
                raise
            raise failed from None

    def _read(self, doc: str) -> Item:
        try:
            return read_item(doc)
        except (ValueError, KeyError, TypeError) as exc:
            raise AnachronError(f"{self._where}: {self.DAMAGED} ({type(exc).__name__}: {exc})") from None

    def get(self, ident: object, default: Any = None) -> Any:
        if not isinstance(ident, str):
            return default
        with self._guard:
            if ident in self._kept:
                self._kept.move_to_end(ident)
                found = self._kept[ident]
                return default if found is None else found
        found = next(iter([self._read(doc) for (doc,) in self._rows(self.BY_ID, key(ident))]), None)  # every row read
        with self._guard:
            self._kept[ident] = found
            while len(self._kept) > self.CACHE:
                self._kept.popitem(last=False)
        return default if found is None else found

    def __getitem__(self, ident: str) -> Item:
        found = self.get(ident)
        if found is None:
            raise KeyError(ident)
        return found

    def __contains__(self, ident: object) -> bool:
        return self.get(ident) is not None

    def __iter__(self) -> Iterator[str]:
        return (json.loads(stored) for (stored,) in self._rows(self.IDS))

    def __len__(self) -> int:
        return self._count

    def values(self) -> Iterator[Item]:  # type: ignore[override]
        return (self._read(doc) for (doc,) in self._rows(self.DOCS))

    def items(self) -> Iterator[tuple[str, Item]]:  # type: ignore[override]
        return ((item.id, item) for item in self.values())

    def with_facts(self) -> Iterator[tuple[int, Item]]:
        """``(file position, item)`` of every item declaring facts, in file order.

        A stored document holds ``"facts":`` (quotes unescaped) only as a
        key, so the rows holding that text are a superset of those items,
        each then read and kept only when it has facts.
        """
        for pos, doc in self._rows(self.WITH_FACTS):
            item = self._read(doc)
            if item.facts:
                yield pos, item

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._where!r}, {self._count} items)"
