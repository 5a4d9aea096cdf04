"""What the conversation-log importers (pydantic-ai, langchain, codex, gemini-cli) share beyond
:mod:`._common`: the default sample id is the conversation's own id, a call the log shows without
its result is ``unrecorded``, and what an importer skipped is said in the record's ``warnings``.

A call is unrecorded when no result, error or refusal was recorded for it by the
end of the log (a history saved mid-run, a truncated file, a session cut short):
its status is ``unrecorded`` and it has no ``returned``, so the score's band
counts it both ways instead of calling it clean.

>>> from anachron.importers._common import Options, Session
>>> import datetime as dt
>>> session, gaps = Session("log.json", "codex", None), Gaps("the log ends before its output")
>>> _ = session.call("web_search", {"query": "cygnus ipo"})
>>> gaps.skip("ghost_call"); gaps.skip("ghost_call")
>>> record = gaps.record(session, "s1", Options(as_of=dt.date(2023, 1, 1)))
>>> record["interactions"][0]["status"], "returned" in record["interactions"][0]
('unrecorded', False)
>>> record["warnings"]
['1 tool call(s) recorded no result: the log ends before its output', "skipped 2 item(s) of unknown type 'ghost_call'"]
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Iterator

from anachron.core.jsonio import Record
from anachron.importers._common import Options, Session, documents, sample_id_of, stem

UNRECORDED = "unrecorded"


class Gaps:
    """What one conversation's log lacks or holds unread; *cause* says why a result may be missing and how to keep it.

    *local* names the harness's built-in tools that work on the local machine: their calls are
    local (audited, never interactions) whatever their name or output shows, as Claude Code's
    are, unless ``--retrieval-tools`` lists the retrieval tools.
    """

    def __init__(self, cause: str, local: frozenset[str] = frozenset()) -> None:
        self.cause = cause
        self.local = local
        self.skipped: Counter[str] = Counter()

    def skip(self, kind: Any) -> None:
        """Count an item of a type the importer does not read (never dropped silently)."""
        self.skipped[kind if isinstance(kind, str) else repr(kind)] += 1

    def record(self, session: Session, sample_id: str, options: Options) -> dict[str, Any]:
        """The session's trace record: calls without a result ``unrecorded``, and the ``warnings``."""
        missing = [entry for entry in session.calls if "returned" not in entry]
        for entry in missing:
            entry["status"] = UNRECORDED
            entry.pop("error", None)
        if options.retrieval_tools is None:
            for entry in session.calls:
                if entry["tool"] in self.local:
                    entry["retrieval"] = False
                    if "returned" in entry:
                        entry["returned"] = []  # what a local tool showed (a file's URLs) is not retrieved
        record = session.record(sample_id, options)
        for entry in missing:
            entry.pop("returned", None)  # a local call gets returned=[] in record(); unrecorded shows nothing
        warnings = [f"{len(missing)} tool call(s) recorded no result: {self.cause}"] if missing else []
        warnings += [f"skipped {n} item(s) of unknown type {kind!r}" for kind, n in sorted(self.skipped.items())]
        warnings += session.notes  # results of the time lock that could not be read
        if warnings:
            record["warnings"] = warnings
        return record


Built = tuple[Session, Gaps, "str | None"]  # a conversation's session, its gaps and its own id (None: it has none)


def per_document(path: str, options: Options, build: Callable[[str, Any, Options], tuple[Any, Built]]) -> Iterator[Record]:
    """One trace record per conversation of *path*: each JSON document (the file, or each line of
    JSON Lines), and each element of a document that is an array of conversations (of message
    lists, or of objects with ``messages``).

    *build* gives (the object ``--sample-id-from`` reads, the built conversation).
    Default sample id: the conversation's own id, else the file name (``NAME-LINE`` for a line;
    ``-N``, from 1, added for the Nth conversation of an array).
    """
    for where, value in documents(path):
        base = stem(path) if where == str(path) else f"{stem(path)}-{where.rsplit(':', 1)[1]}"
        for at, default, conversation in _conversations(where, base, value):
            obj, (session, gaps, own) = build(at, conversation, options)
            yield at, gaps.record(session, sample_id_of(obj, options, own or default, at), options)


def _conversations(where: str, base: str, value: Any) -> list[tuple[str, str, Any]]:
    """(where, default id, body) of each conversation of one document: an array whose every element is a
    message list, or an object with ``messages``, holds several; anything else is one."""
    if isinstance(value, list) and value and all(
        isinstance(v, list) or (isinstance(v, dict) and isinstance(v.get("messages"), list)) for v in value
    ):
        return [(f"{where} [{n}]", f"{base}-{n + 1}", v) for n, v in enumerate(value)]
    return [(where, base, value)]


def per_file(path: str, options: Options, build: Callable[[str, list[tuple[str, Any]], Options], tuple[Any, Built]]) -> Iterator[Record]:
    """One trace record for the whole of *path*: *build* reads every document (line) of it.

    Default sample id: the conversation's own id, else the file name.
    """
    obj, (session, gaps, own) = build(str(path), list(documents(path)), options)
    yield str(path), gaps.record(session, sample_id_of(obj, options, own or stem(path), str(path)), options)
