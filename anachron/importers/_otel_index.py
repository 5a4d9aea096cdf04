"""The join index of a streamed ``--from otel`` log on disk, once it outgrows its budget in memory.

The first reading (:func:`._otel._survey`) keeps a few numbers a trace, chat span and tool span
to the end of the log: any later trace may continue an earlier conversation or run an earlier
call.  Past a bounded number of them it hands each batch to a :class:`DiskIndex` (SQLite in a
private temporary file, which SQLite unlinks as soon as it is opened: a crash or a signal leaves
nothing behind) and starts a new one.  At the end the index does on disk what :func:`._otel._join`
and the end of ``_survey`` do in memory: it joins the traces into samples (union-find in a table),
finds each sample's last line, and keeps the samples built early whose line the whole log agrees
with.  Same rules, same results; memory stays within SQLite's page cache.

A trace seen in two batches is new to the second one: a sample built on its line then is not
kept (the trace has two rows), and the second reading builds it, as it does a sample of two lines.
"""

from __future__ import annotations

import sqlite3
from typing import Any, Iterator, Mapping

from anachron.core.errors import AnachronError

_SHIFT = 1 << 63  # span times are uint64 nanoseconds; SQLite's integers are int64 (shifted, they sort the same)
_CACHE_KIB = 8192  # SQLite's page cache: its memory, whatever the log's size

_SCHEMA = """
CREATE TABLE trace(trace TEXT, start INT, ord INT, at TEXT, line INT, seq INT);
CREATE TABLE chat(id INTEGER PRIMARY KEY, trace TEXT, start INT, ord INT, running INT);
CREATE TABLE made(key INT, start INT, ord INT, trace TEXT);
CREATE TABLE prefix(chat INT, pos INT, hash INT);
CREATE TABLE tool(trace TEXT, key INT);
CREATE TABLE idkey(trace TEXT, value TEXT);
CREATE TABLE log(ord INTEGER PRIMARY KEY);
CREATE TABLE early(sample TEXT, line INT, place INT, n INT);
CREATE TABLE member(trace TEXT, sample TEXT);
"""


class DiskIndex:
    """The first reading's join index, batch by batch, on disk; :meth:`plan` reads the samples off it."""

    def __init__(self) -> None:
        self.db = sqlite3.connect("", isolation_level=None)  # "": private, on disk, deleted when closed
        self.db.execute(f"PRAGMA cache_size=-{_CACHE_KIB}")
        self.db.execute("PRAGMA journal_mode=OFF")
        self.db.execute("PRAGMA synchronous=OFF")
        self.db.executescript(_SCHEMA)
        self.seq = 0  # traces handed over so far: the order traces (and so samples) first appear in

    def close(self) -> None:
        self.db.close()

    def add(self, traces: Mapping[str, tuple], turns: Mapping[str, list], tools: Mapping[str, list[int]],
            keys: Mapping[str, str], wanted_logs: set[int], early: Mapping[str, Any]) -> None:
        """One batch of :func:`._otel._survey`'s maps (the caller empties them after)."""
        db, seq = self.db, self.seq
        db.execute("BEGIN")  # a batch a transaction: no commit a row
        db.executemany("INSERT INTO trace VALUES (?, ?, ?, ?, ?, ?)", ((_b(trace_id), t[0] - _SHIFT, t[1], None if t[2] is None else _b(t[2]),
                                                                       t[3], seq + i) for i, (trace_id, t) in enumerate(traces.items())))
        self.seq = seq + len(traces)
        for trace_id, entries in turns.items():
            trace_id = _b(trace_id)
            for start, order, (made, prefixes, running, talked) in entries:
                chat = db.execute("INSERT INTO chat(trace, start, ord, running) VALUES (?, ?, ?, ?)",
                                  (trace_id, start - _SHIFT, order, running if talked else None)).lastrowid
                db.executemany("INSERT INTO made VALUES (?, ?, ?, ?)", ((key, start - _SHIFT, order, trace_id) for key in made))
                db.executemany("INSERT INTO prefix VALUES (?, ?, ?)", ((chat, pos, h) for pos, h in enumerate(prefixes)))
        db.executemany("INSERT INTO tool VALUES (?, ?)", ((_b(trace_id), key) for trace_id, keys_ in tools.items() for key in keys_))
        db.executemany("INSERT INTO idkey VALUES (?, ?)", ((_b(trace_id), _b(value)) for trace_id, value in keys.items()))
        db.executemany("INSERT INTO log VALUES (?)", ((order,) for order in wanted_logs))
        for sample_id, built in early.items():
            sample_id = _b(sample_id)
            if built is None:
                db.execute("INSERT INTO early VALUES (?, -1, NULL, 0)", (sample_id,))
            else:
                db.execute("INSERT INTO early VALUES (?, ?, ?, ?)", (sample_id, built[0], built[2], len(built[1])))
                db.executemany("INSERT INTO member VALUES (?, ?)", ((_b(trace_id), sample_id) for trace_id in built[1]))
        db.execute("COMMIT")

    def plan(self, keyed: str | None) -> tuple[Iterator[tuple[str, int, int | None]], Any, Any]:
        """The samples: (their order: (sample, its last line, where the spill keeps it or ``None``), a trace's
        sample unless it is kept already (``None``), whether a log event's rank is read as a span).

        *keyed*: ``--sample-id-from``'s attribute (its error names the first trace without it)."""
        db = self.db
        # Each trace: its earliest start (the first span of it at that time), rows (batches), last line, first seq.
        db.executescript("""
            CREATE TABLE tr AS SELECT trace, start, at, n, line, seq FROM (
                SELECT trace, start, at, COUNT(*) OVER w AS n, MAX(line) OVER w AS line, MIN(seq) OVER w AS seq,
                       ROW_NUMBER() OVER (PARTITION BY trace ORDER BY start, ord) AS r
                FROM trace WINDOW w AS (PARTITION BY trace)) WHERE r = 1;
            CREATE UNIQUE INDEX tr_trace ON tr(trace);
            CREATE TABLE sample_of(trace TEXT PRIMARY KEY, sample TEXT) WITHOUT ROWID;
        """)
        if keyed is None:
            self._join()
        else:
            db.execute("CREATE INDEX idkey_trace ON idkey(trace)")
            missing = db.execute("SELECT tr.at, tr.trace FROM tr WHERE NOT EXISTS (SELECT 1 FROM idkey k WHERE k.trace = tr.trace) "
                                 "ORDER BY tr.seq LIMIT 1").fetchone()
            if missing is not None:
                raise AnachronError(f"{_s(missing[0])}: no span or resource of trace {_s(missing[1])} has attribute {keyed!r} (--sample-id-from)")
            # The first value a trace gave (the batch it was first in): SQLite takes the bare column from the MIN row.
            db.execute("INSERT INTO sample_of SELECT trace, value FROM (SELECT trace, value, MIN(rowid) FROM idkey GROUP BY trace)")
        db.executescript("""
            CREATE TABLE joined AS SELECT tr.trace, COALESCE(s.sample, tr.trace) AS sample, tr.n, tr.line, tr.seq
                FROM tr LEFT JOIN sample_of s ON s.trace = tr.trace;
            CREATE UNIQUE INDEX joined_trace ON joined(trace);
            CREATE TABLE samples AS SELECT sample, MAX(line) AS line, COUNT(*) AS size, MIN(seq) AS seq FROM joined GROUP BY sample;
            CREATE UNIQUE INDEX samples_sample ON samples(sample);
            CREATE TABLE once AS SELECT sample, line, place, n FROM early GROUP BY sample HAVING COUNT(*) = 1 AND place IS NOT NULL;
            CREATE UNIQUE INDEX once_sample ON once(sample);
            CREATE TABLE agree AS SELECT m.sample, COUNT(*) AS n FROM member m JOIN once o ON o.sample = m.sample
                JOIN joined j ON j.trace = m.trace WHERE j.sample = m.sample AND j.n = 1 AND j.line = o.line GROUP BY m.sample;
            CREATE UNIQUE INDEX agree_sample ON agree(sample);
            CREATE TABLE ready AS SELECT o.sample, o.place FROM once o JOIN samples s ON s.sample = o.sample
                JOIN agree a ON a.sample = o.sample WHERE s.line = o.line AND s.size = o.n AND a.n = o.n;
            CREATE UNIQUE INDEX ready_sample ON ready(sample);
            CREATE TABLE lookup(trace TEXT PRIMARY KEY, sample TEXT) WITHOUT ROWID;
            INSERT INTO lookup SELECT j.trace, j.sample FROM joined j WHERE NOT EXISTS (SELECT 1 FROM ready r WHERE r.sample = j.sample);
        """)
        order = ((_s(sample), line, place) for sample, line, place in db.execute(
            "SELECT s.sample, s.line, r.place FROM samples s LEFT JOIN ready r ON r.sample = s.sample ORDER BY s.seq"))

        def unready(trace_id: str) -> str | None:
            row = db.execute("SELECT sample FROM lookup WHERE trace = ?", (_b(trace_id),)).fetchone()
            return None if row is None else _s(row[0])

        def wanted_log(rank: int) -> bool:
            return db.execute("SELECT 1 FROM log WHERE ord = ?", (rank,)).fetchone() is not None

        return order, unready, wanted_log

    def _join(self) -> None:
        """:func:`._otel._join` on disk: the ties (a tool span and the chat call it ran; a chat span and the
        earlier conversation it continues) as edges, then union-find in a table, each root the first trace."""
        db = self.db
        db.executescript("""
            CREATE TABLE edge(a TEXT, b TEXT);
            CREATE TABLE first_made AS SELECT key, trace FROM (
                SELECT key, trace, ROW_NUMBER() OVER (PARTITION BY key ORDER BY start, ord) AS r FROM made) WHERE r = 1;
            CREATE UNIQUE INDEX first_made_key ON first_made(key);
            INSERT INTO edge SELECT f.trace, t.trace FROM tool t JOIN first_made f ON f.key = t.key;
            CREATE INDEX chat_running ON chat(running, start, ord);
        """)
        # A chat span continues the last earlier span (by start, then rank) whose whole conversation is its
        # longest input prefix that any earlier span had.
        rows = db.execute("""
            SELECT p.chat, c.trace, (SELECT s.trace FROM chat s WHERE s.running = p.hash AND (s.start, s.ord) < (c.start, c.ord)
                                     ORDER BY s.start DESC, s.ord DESC LIMIT 1) AS hit
            FROM prefix p JOIN chat c ON c.id = p.chat
            WHERE EXISTS (SELECT 1 FROM chat s WHERE s.running = p.hash)
            ORDER BY p.chat, p.pos DESC""")
        last = None
        batch = []
        for chat, trace_id, hit in rows:
            if hit is not None and chat != last:
                last = chat
                batch.append((hit, trace_id))
        db.executemany("INSERT INTO edge VALUES (?, ?)", batch)
        del batch
        db.execute("CREATE TABLE parent(trace TEXT PRIMARY KEY, parent TEXT) WITHOUT ROWID")

        def root(trace_id: bytes) -> bytes:
            path = []
            while True:
                row = db.execute("SELECT parent FROM parent WHERE trace = ?", (trace_id,)).fetchone()
                if row is None:
                    break
                path.append(trace_id)
                trace_id = row[0]
            if len(path) > 1:  # path compression: the next find is one step
                db.executemany("UPDATE parent SET parent = ? WHERE trace = ?", ((trace_id, t) for t in path[:-1]))
            return trace_id

        def first(trace_id: bytes) -> tuple[int, bytes]:
            return db.execute("SELECT start FROM tr WHERE trace = ?", (trace_id,)).fetchone()[0], trace_id

        after = 0
        while True:  # the edges a bounded batch at a time (the loop writes another table meanwhile)
            batch = db.execute("SELECT rowid, a, b FROM edge WHERE rowid > ? ORDER BY rowid LIMIT 4096", (after,)).fetchall()
            if not batch:
                break
            after = batch[-1][0]
            for _, a, b in batch:
                a, b = root(a), root(b)
                if a != b:
                    earlier, later = sorted((a, b), key=first)
                    db.execute("INSERT INTO parent VALUES (?, ?)", (later, earlier))
        batch = db.execute("SELECT trace FROM parent ORDER BY trace LIMIT 4096").fetchall()
        while batch:  # by key: path compression rewrites parents, never keys
            roots = [(trace_id, root(trace_id)) for trace_id, in batch]
            db.executemany("INSERT INTO sample_of VALUES (?, ?)", roots)
            batch = db.execute("SELECT trace FROM parent WHERE trace > ? ORDER BY trace LIMIT 4096", (batch[-1][0],)).fetchall()


def _b(text: str) -> bytes:
    """Text as SQLite keeps it here: UTF-8 bytes, a lone surrogate of the JSON (``"\\ud800"``) kept too."""
    return text.encode("utf-8", "surrogatepass")


def _s(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")
