"""``claude-code``: Claude Code session transcripts (``~/.claude/projects/PROJECT/SESSION.jsonl``).

A session is JSON Lines of records with ``type``; ``user`` and ``assistant``
records carry a Messages API ``message``.  An assistant record holds content
blocks (Claude Code writes one block per record, several records per API
message); a ``tool_use`` block is paired with the ``tool_result`` of a later
user record by ``tool_use_id`` (results may come out of order); a
``server_tool_use`` block with the ``*_tool_result`` block that follows it.
The user record's ``toolUseResult`` holds the tool's structured output, read
where it is richer than the text:

- ``WebSearch``: ``input.query``; the items are ``toolUseResult.results``
  entries' ``content`` lists (``title``, ``url``), else the URLs of the text;
- ``WebFetch``: ``input.url`` and what the agent read of it
  (``toolUseResult.result``, else the text), one item;
- ``Bash``: ``input.command`` is the call's command (for the seal audit);
- the built-in local tools (``Read``, ``Edit``, ``TodoWrite``, ``TaskOutput``,
  ... and any built-in name not known) are local calls (``retrieval: false``,
  :func:`._common.is_retrieval`), as is a ``Bash`` call that does not reach
  the network;
- MCP tools ``mcp__SERVER__TOOL`` and every other result: the generic rule of
  the result text.

**A session is whole.** Its subagents' calls live in
``SESSION/subagents/agent-*.jsonl`` (same ``sessionId``, ``isSidechain``), and
Claude Code copies them into the main file's ``progress`` records
(``data.message``).  The files of one ``sessionId`` passed together are one
sample; a session directory (``SESSION/``, or a project directory of
sessions) stands for its files; a ``SESSION.jsonl`` brings its
``SESSION/subagents/`` files along; and a ``progress`` record's message is
read as a subagent record.  A record read twice (the same ``uuid``, in a
``progress`` copy and in the subagent file) counts once, and so does a
subagent's call seen in both.  A message carrying tool calls inside a record
of another type is read too.  Records of the types that carry no call
(``summary``, ``system``, ``file-history-snapshot``, ...) are skipped; a
record or block of a type not known is reported in the record's
``warnings`` (a call-like block is read as a call).

``is_error: true`` is an ``error`` call, unless its text still showed
something (a fetch's partial page, links: ``Session.errored``), which is
read as the result of an ``ok`` call; a call no record answers is one
whose result the log does not hold.  The sample id is the records'
``sessionId`` (else the first file's name); the call's time is its record's
``timestamp``.  The answer is the last assistant text of the main chain (not
a subagent's).

**``--output-format stream-json``** (``claude -p --verbose``; what FutureSim
keeps as ``claude_code_stdout.jsonl``) is read by the same rules: its
``user`` and ``assistant`` records carry the same ``message``, with
``session_id`` for ``sessionId``, ``parent_tool_use_id`` (not null: a
subagent's message) for ``isSidechain`` and ``tool_use_result`` for
``toolUseResult``.  Its ``system`` records (``init`` lists the tools and MCP
servers: the launcher's preflight reads it, anachron.launch) and
``stream_event`` records (partial deltas of messages that follow whole) and
``rate_limit_event`` records hold no call; the final ``result`` record's ``result`` text is the answer.
``--output-format json --verbose`` writes the same events as one JSON array:
a file that is a JSON array is read as those records.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import Record, parse_json, read_text
from anachron.importers._common import Options, Session, as_of_of, awaiting, expect_list, expect_object, sample_id_of, stem
from anachron.importers._results import fetch_item, result_items, text_of

FORMAT = "claude-code"


def _lines(path: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    text = read_text(path)
    if text.lstrip().startswith("["):
        # `claude -p --output-format json --verbose`: the stream-json events as one JSON array.
        for index, record in enumerate(expect_list(parse_json(text, path), path, "the document")):
            where = f"{path} [{index}]"
            yield where, expect_object(record, where, "a transcript record")
        return
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if line.strip():
            where = f"{path}:{number}"
            yield where, expect_object(parse_json(line, where), where, "a transcript record")


def _search_items(tool_result: Any, corpus: Any) -> list[Any] | None:
    """The items of a WebSearch ``toolUseResult``: its results' ``content`` link lists."""
    results = tool_result.get("results") if isinstance(tool_result, dict) else None
    if not isinstance(results, list):
        return None
    links = [
        link
        for entry in results
        if isinstance(entry, dict) and isinstance(entry.get("content"), list)
        for link in entry["content"]
        if isinstance(link, dict)
    ]
    return result_items(links, corpus)


def _resolve(session: Session, entry: dict[str, Any], block: Mapping[str, Any], structured: Any, corpus: Any) -> None:
    text = text_of(block.get("content"))
    if session.lock_result(entry, text):
        return  # the time lock's own rendering, read by its own format
    session.receipt(entry, text)  # an MCP time lock's result begins with its receipt
    if block.get("is_error") is True:
        session.errored(entry, text)  # a partial page or a list of links is read whatever the status says
        return
    tool = entry["tool"]
    if tool == "WebSearch":
        items = _search_items(structured, corpus)
        session.ok(entry, items if items is not None else result_items(text, corpus))
    elif tool == "WebFetch" and isinstance(entry.get("target"), str):
        read = structured.get("result") if isinstance(structured, dict) and isinstance(structured.get("result"), str) else text
        session.ok(entry, [fetch_item(entry["target"], read, corpus)])
    else:
        session.ok(entry, result_items(text, corpus))


# Record types that carry no call (Claude Code 2.0 and 2.1 transcripts).
_SKIPPED_RECORDS = frozenset({
    "summary", "system", "file-history-snapshot", "queue-operation", "custom-title", "agent-name", "tag", "attachment",
    "stream_event",  # stream-json's partial deltas (--include-partial-messages): the whole message follows
    "rate_limit_event",  # stream-json's account rate-limit status (Claude Code 2.1)
})


def _session_of(record: Mapping[str, Any]) -> str | None:
    """A record's session id: ``sessionId`` in a transcript, ``session_id`` in stream-json output."""
    for key in ("sessionId", "session_id"):
        value = record.get(key)
        if isinstance(value, str) and value:
            return value
    return None
_NOT_CALL_BLOCKS = frozenset({"text", "thinking", "redacted_thinking", "image", "document"})


def _files(path: str) -> list[Path]:
    """The transcript files *path* stands for: a file and its ``STEM/subagents/agent-*.jsonl``; a
    session directory (holding ``subagents/``): ``DIR.jsonl`` beside it and its subagent files; any
    other directory: its ``*.jsonl`` sessions, each with its subagents."""
    given = Path(path)
    if given.is_dir():
        if (given / "subagents").is_dir():
            main = given.with_name(given.name + ".jsonl")
            return ([main] if main.is_file() else []) + sorted((given / "subagents").glob("agent-*.jsonl"))
        found = [file for session in sorted(given.glob("*.jsonl")) for file in _files(str(session))]
        if not found:
            raise AnachronError(f"{path}: a directory with no session transcript (*.jsonl, or subagents/agent-*.jsonl)")
        return found
    subagents = given.with_name(given.name.removesuffix(".jsonl")) / "subagents"
    return [given] + (sorted(subagents.glob("agent-*.jsonl")) if given.name.endswith(".jsonl") and subagents.is_dir() else [])


def _session_key(path: Path) -> str:
    """The ``sessionId`` of a transcript's first record that has one (else the file itself)."""
    for _, record in _lines(str(path)):
        if _session_of(record) is not None:
            return _session_of(record)  # type: ignore[return-value]
    return f"file:{path}"


class _Reader:
    """One session, its files read in turn: pairs calls and results, keeps the main chain's answer."""

    def __init__(self, where: str, options: Options) -> None:
        self.session = Session(where, FORMAT, options.corpus)
        self.options = options
        self.pending: dict[str, dict[str, Any]] = {}
        self.made: set[str] = set()  # tool use ids read (a subagent's call may be seen twice)
        self.answered: set[str] = set()
        self.uuids: set[str] = set()
        self.first: tuple[str, Mapping[str, Any]] | None = None  # the first user or assistant record

    def record(self, where: str, record: Mapping[str, Any], copy: bool = False) -> None:
        """Read one record; *copy*: a subagent record copied into a ``progress`` record."""
        uuid = record.get("uuid")
        if isinstance(uuid, str) and uuid:
            if uuid in self.uuids:
                return  # the same record read twice: a progress copy and the subagent file
            self.uuids.add(uuid)
        kind = record.get("type")
        if kind == "result":
            # stream-json's last record: its text is the main chain's final answer.
            if isinstance(record.get("result"), str) and record["result"].strip():
                self.session.final_answer(record["result"])
            return
        if kind == "progress":
            data = record.get("data")
            nested = data.get("message") if isinstance(data, dict) else None
            if isinstance(nested, dict) and nested.get("type") in ("user", "assistant"):
                self.record(f"{where} data.message", nested, copy=True)
            return
        message = record.get("message")
        if kind not in ("user", "assistant"):
            role = message.get("role") if isinstance(message, dict) else None
            if role in ("user", "assistant") and isinstance(message.get("content"), list):  # type: ignore[union-attr]
                self.message(where, record, role, message, copy)  # a message inside a record of another type
            elif kind not in _SKIPPED_RECORDS:
                self.session.unknown_item(f"record {kind}" if isinstance(kind, str) else kind, {}, where)
            return
        if self.first is None:
            self.first = (where, record)
        self.message(where, record, kind, expect_object(message, where, "field 'message'"), copy)

    def message(self, where: str, record: Mapping[str, Any], kind: str, message: Mapping[str, Any], copy: bool) -> None:
        side = copy or bool(record.get("isSidechain")) or record.get("parent_tool_use_id") is not None
        content = message.get("content")
        if isinstance(content, str):
            if kind == "assistant" and not side:
                self.session.final_answer(content)
            return
        blocks = expect_list(content, where, "message.content")
        time = record.get("timestamp") if isinstance(record.get("timestamp"), str) else None
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        for number, raw in enumerate(blocks):
            at = f"{where} content[{number}]"
            block = expect_object(raw, at, "a content block")
            btype = block.get("type")
            if kind == "assistant" and btype in ("tool_use", "server_tool_use"):
                self.call(block, at, time, side)
            elif kind == "assistant" and btype == "text" and isinstance(block.get("text"), str):
                if not side:
                    self.session.final_answer(block["text"])
            elif isinstance(btype, str) and btype.endswith("_tool_result") and btype != "tool_result" or (kind == "user" and btype == "tool_result"):
                entry = self.answer(block, at, side)
                if entry is None:
                    continue
                if btype == "tool_result":
                    # toolUseResult belongs to the record, so it describes its result only when there is one.
                    structured = record.get("toolUseResult", record.get("tool_use_result")) if len(results) == 1 else None
                    _resolve(self.session, entry, block, structured, self.options.corpus)
                else:
                    _server_result(self.session, entry, block, self.options.corpus)
            elif btype not in _NOT_CALL_BLOCKS:
                entry = self.session.unknown_item(btype, block, at, time)
                ident = block.get("id")
                if entry is not None and isinstance(ident, str) and ident and ident not in self.made:
                    self.made.add(ident)
                    self.pending[ident] = entry

    def call(self, block: Mapping[str, Any], at: str, time: str | None, side: bool) -> None:
        name, ident = block.get("name"), block.get("id")
        if not isinstance(name, str) or not name or not isinstance(ident, str) or not ident:
            raise AnachronError(f"{at}: a tool_use needs a name and an id, got name {describe(name)}, id {describe(ident)}")
        if side and ident in self.made:
            return  # a subagent's call seen again (its progress copy and its own file)
        self.made.add(ident)
        awaiting(self.pending, ident, at)[ident] = self.session.call(name, block.get("input"), call_id=ident, time=time)

    def answer(self, block: Mapping[str, Any], at: str, side: bool) -> dict[str, Any] | None:
        ident = block.get("tool_use_id")
        entry = self.pending.pop(ident, None) if isinstance(ident, str) else None
        if entry is None:
            if side and ident in self.answered:
                return None  # a subagent's result seen again
            raise AnachronError(f"{at}: {block.get('type')} for {describe(ident)}, which no earlier tool_use made")
        self.answered.add(ident)  # type: ignore[arg-type]
        return entry


def _server_result(session: Session, entry: dict[str, Any], block: Mapping[str, Any], corpus: Any) -> None:
    """A server tool's result block: its error content fails the call; else its entries are the items."""
    content = block.get("content")
    kind = content.get("type") if isinstance(content, dict) else None
    if isinstance(kind, str) and kind.endswith("_error"):
        session.failed(entry, f"{kind}: {content.get('error_code')}")  # type: ignore[union-attr]
    else:
        session.ok(entry, result_items(content, corpus))


def read_sessions(paths: Sequence[str], options: Options) -> Iterator[Record]:
    """One trace record per session of the transcripts *paths* stand for (:func:`_files`), in the
    order each session is first met; a session's main files are read before its subagents'."""
    groups: dict[str, list[Path]] = {}
    seen: set[str] = set()
    for path in paths:
        for file in _files(path):
            real = os.path.realpath(file)  # what Path.resolve gives, without building a Path
            if real in seen:
                continue  # passed and brought along: read once
            seen.add(real)
            groups.setdefault(_session_key(file), []).append(file)
    # Only the files of one session are held at a time: a file's key is its first sessionId.
    for files in groups.values():
        files.sort(key=lambda file: file.parent.name == "subagents")  # stable: main files first
        first = str(files[0])
        reader = _Reader(first, options)
        for file in files:
            for where, record in _lines(str(file)):
                reader.record(where, record)
        if reader.first is None:
            raise AnachronError(f"{first}: no 'user' or 'assistant' record: not a Claude Code session transcript")
        where, record = reader.first
        default = _session_of(record) or stem(first)
        sample_id = sample_id_of(record, options, default, where) if options.sample_id_from is not None else default
        yield first, reader.session.record(sample_id, options, as_of_of(record, options, where))


def read(path: str, options: Options) -> Iterator[Record]:
    return read_sessions([path], options)
