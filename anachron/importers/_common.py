"""What every importer shares: the options, the reading of JSON or JSON Lines
logs, and the builder of one trace record (one conversation or session).

A log is read whole as text (linear in its size), then parsed one
conversation at a time, so an importer yields each trace record before it
parses the next conversation.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from anachron.core import Corpus
from anachron.core.dates import format_date, iso_moment, parse_date
from anachron.core.seal import SHELL_TOOLS, lock_tool, network_evidence
from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import Record, json_or_none, parse_json, read_text
from anachron.importers._results import MAX_SNIPPET, MAX_TEXT, fetch_item, result_items, text_items, text_of

QUERY_ARGUMENTS = ("query", "q", "search_query")
URL_ARGUMENTS = ("url", "id_or_url", "link")
COMMAND_ARGUMENTS = ("command", "commands", "cmd", "code")
MAX_ERROR = 200  # characters of a failed call's message kept in the trace
RECEIPT = re.compile(r"(search|fetch|series) #([1-9][0-9]{0,17}):")  # the first line of a lock's result

# Claude Code's built-in tools that work on the local machine: they read files, edit, plan, spawn,
# and read a background task's output.  Taken from the tool list of Claude Code 2.1 (its settings
# documentation, "Tools available to Claude") plus the names of earlier 2.0 releases; a built-in
# name not listed here is local too (see is_retrieval): the list documents, it does not decide.
CLAUDE_CODE_LOCAL = frozenset({
    "Read", "Write", "Edit", "MultiEdit", "NotebookRead", "NotebookEdit", "Glob", "Grep", "LS", "LSP",
    "TodoRead", "TodoWrite", "Task", "Agent", "TaskOutput", "TaskStop", "TaskCreate", "TaskGet", "TaskUpdate",
    "TaskList", "ExitPlanMode", "EnterPlanMode", "BashOutput", "KillBash", "KillShell", "SlashCommand", "Skill",
    "AskUserQuestion", "ToolSearch",
})
# Claude Code's tools that reach outside the machine: its web tools (and the server tools of the API
# behind them), and the MCP resource readers; every MCP tool (``mcp__SERVER__TOOL``) retrieves too.
CLAUDE_CODE_RETRIEVAL = frozenset({
    "WebSearch", "WebFetch", "web_search", "web_fetch", "ListMcpResourcesTool", "ReadMcpResourceTool",
})
# A conversation that answered with no tool call: an agent may answer from memory, but a log that
# does not record tool calls looks the same, and must not pass for a clean run.
NO_TOOL_CALL = (
    "the log holds model turns but no tool call: if the agent used tools, this log did not record them"
    " (log the tool calls, or their spans, and import again)"
)
# A tool name that says it searches or reads the web.
RETRIEVAL_NAME = re.compile(r"search|fetch|browse|retriev|scrape|crawl|web|url|http|open_page|news", re.IGNORECASE)


@dataclass(frozen=True)
class Options:
    """How logs become traces: the cutoff of each sample, its id, the corpus whose ids are recognised."""

    as_of: _dt.date | None = None
    as_of_map: Mapping[str, _dt.date] | None = None
    sample_id_from: str | None = None
    as_of_field: str | None = None  # --as-of-field: each conversation's cutoff, read from the log
    retrieval_tools: frozenset[str] | None = None  # --retrieval-tools: exactly these are retrieval calls
    warn: Callable[[str], None] | None = field(default=None, compare=False)  # one line on stderr, from the CLI
    corpus: Corpus | None = None  # ids of this corpus are recognised in results (--corpus given)
    scoring_corpus: Corpus | None = field(default=None, compare=False)  # what mcp-events logs resolve against

    def as_of_for(self, sample_id: str, where: str) -> str:
        if self.as_of_map is not None:
            day = self.as_of_map.get(sample_id)
            if day is None:
                raise AnachronError(f"{where}: sample {sample_id!r} is not in the --as-of-map file")
            return format_date(day)
        if self.as_of is None:
            raise AnachronError(f"{where}: no as-of date: pass --as-of DATE or --as-of-map FILE.json")
        return format_date(self.as_of)


def rescored_note(where: str, stated: _dt.date, chosen: _dt.date) -> str:
    """The one note every reader prints when a log that states its own cutoff is scored at another date."""
    return (f"note: {where}: the log states as of {format_date(stated)}; scored as of {format_date(chosen)} "
            "(a rescoring: what a lock at that date would have let through)")


def stated_cutoff(where: str, sample_id: str, stated: _dt.date | None, options: Options,
                  fixed: _dt.date | None = None) -> _dt.date | None:
    """The cutoff of a log that states its own (an ``mcp-events`` log, an Inspect sample's
    ``metadata.as_of``): ``--as-of`` / ``--as-of-map`` when they give one, else the stated date.

    The same rule for every reader (docs/importers.md, "The cutoff of a log that states its own"):
    a given date equal to the stated one is accepted; another is a rescoring, with
    :func:`rescored_note` through ``options.warn``.  ``None``: neither states nor gives one.
    *fixed*: the as-of of the corpus sample the log names; no other date is read for it (refused
    here, before any note, so the error is the one line on stderr).
    """
    chosen = options.as_of_map.get(sample_id) if options.as_of_map is not None else options.as_of
    if chosen is None:
        return stated
    if fixed is not None and chosen != fixed:
        raise AnachronError(f"{where}: --as-of {format_date(chosen)} disagrees with the corpus sample's as_of "
                            f"{format_date(fixed)} (sample {sample_id})")
    if stated is not None and chosen != stated and options.warn is not None:
        options.warn(rescored_note(where, stated, chosen))
    return chosen


def pick(obj: Any, path: str) -> Any:
    """``obj`` at a dotted *path* (``metadata.sample_id``); ``None`` when absent."""
    node = obj
    for key in path.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def as_of_of(obj: Any, options: Options, where: str) -> _dt.date | None:
    """The cutoff *obj* states at its ``--as-of-field`` (a dotted path), or ``None`` without the option.

    The value must be a ``YYYY-MM-DD`` date, or an ISO date-time whose day is taken (a log's
    timestamps are date-times); anything else, a missing field among them, is an error naming *where*.

    >>> as_of_of({"meta": {"as_of": "2023-01-01T00:00:00Z"}}, Options(as_of_field="meta.as_of"), "log:1")
    datetime.date(2023, 1, 1)
    """
    if options.as_of_field is None:
        return None
    value = pick(obj, options.as_of_field)
    day = value[:10] if isinstance(value, str) and len(value) > 10 and value[10:11] in ("T", " ") else value
    try:
        return parse_date(day)
    except AnachronError as exc:
        raise AnachronError(f"{where}: field {options.as_of_field!r} (--as-of-field): {exc}") from None


def own_id(obj: Any) -> str | None:
    """A conversation's own id: the ``id`` string of its object (a Response, a wrapped message list).

    >>> own_id({"id": "resp_1", "output": []}), own_id([{"role": "user"}])
    ('resp_1', None)
    """
    value = obj.get("id") if isinstance(obj, dict) else None
    return value if isinstance(value, str) and value.strip() else None


def sample_id_of(obj: Any, options: Options, default: str, where: str) -> str:
    """The sample id: the ``--sample-id-from`` field of *obj*, else *default*."""
    if options.sample_id_from is None:
        return default
    value = pick(obj, options.sample_id_from)
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        raise AnachronError(
            f"{where}: field {options.sample_id_from!r} (--sample-id-from) is {describe(value)}, expected a string or an integer"
        )
    return str(value)


def documents(path: str) -> Iterator[tuple[str, Any]]:
    """The JSON documents of a log: the whole file when it is one document, else each line (JSON Lines).

    Yields ``(where, value)``; *where* is the file, or ``file:line``.  A file
    that is neither one document nor JSON Lines is an error naming the line.
    """
    text = read_text(path)
    if not text.strip():
        raise AnachronError(f"{path}: the log is empty")
    try:
        yield str(path), parse_json(text, str(path), multiline=True)
        return
    except AnachronError as whole:
        if not _extra_data(text):
            raise whole from None
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if line.strip():
            yield f"{path}:{number}", parse_json(line, f"{path}:{number}")


def read_conversations(
    path: str,
    options: Options,
    unpack: Callable[[str, Any], tuple[Any, Any]],
    build: Callable[[str, Any, Options], "Session"],
    many: Callable[[Any], bool],
) -> Iterator[Record]:
    """One trace record per conversation of *path*: *unpack* gives (the object naming the sample, its
    body), *build* the session of the body.

    A document is one conversation, or a JSON array of them when *many* holds for each element
    (``where`` then ends in ``[INDEX]``).  Default sample id: the conversation's own id
    (:func:`own_id`), else the file name, ``NAME-LINE`` for a line, ``NAME-N`` for the Nth
    conversation of an array.  Its cutoff: ``--as-of-field`` of the conversation object when given.
    """
    for where, value in documents(path):
        default = stem(path) if where == str(path) else f"{stem(path)}-{where.rsplit(':', 1)[1]}"
        if isinstance(value, list) and value and all(many(element) for element in value):
            parts = [(f"{where} [{i}]", f"{default}-{i + 1}", element) for i, element in enumerate(value)]
        else:
            parts = [(where, default, value)]
        for at, fallback, conversation in parts:
            obj, body = unpack(at, conversation)
            sample_id = sample_id_of(obj, options, own_id(obj) or fallback, at)
            yield at, build(at, body, options).record(sample_id, options, as_of_of(obj, options, at))


def message_list(where: str, value: Any) -> tuple[Any, list[Any]]:
    """A conversation of messages: a non-empty list, or an object with ``messages``."""
    if isinstance(value, dict) and "messages" in value:
        messages = expect_list(value["messages"], where, "field 'messages'")
    elif isinstance(value, list):
        messages = value
    else:
        messages = None
    if messages == []:
        raise AnachronError(f"{where}: the conversation has no message")
    if messages is not None:
        return value, messages
    raise AnachronError(f"{where}: expected a list of messages or an object with 'messages', got {describe(value)}")


def is_conversation(value: Any) -> bool:
    """A conversation of messages, not a message: a list, or an object with ``messages``
    (what :func:`message_list` reads); a JSON array of these is one conversation each."""
    return isinstance(value, list) or (isinstance(value, dict) and "messages" in value)


def _extra_data(text: str) -> bool:
    """True when *text* starts with one complete JSON document followed by more: JSON Lines."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return exc.msg == "Extra data"
    except (ValueError, RecursionError):
        return False
    return False


def stem(path: str) -> str:
    name = Path(path).name
    for suffix in (".jsonl", ".json", ".ndjson"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def parse_arguments(raw: Any) -> Any:
    """A call's arguments: a JSON string parsed (kept as the string when it is not JSON), an object as is."""
    if isinstance(raw, str):
        parsed = json_or_none(raw)
        return raw if parsed is None and raw.strip() != "null" else parsed
    return raw


def _iso_time(value: Any) -> str | None:
    """*value* when it is an ISO date-time the trace format reads (a log's odd timestamp is left out,
    one with no day in UTC too: the scorer would refuse the trace)."""
    try:
        return value if iso_moment(value) is not None else None
    except AnachronError:
        return None


def _first_string(arguments: Any, names: tuple[str, ...]) -> str | None:
    if not isinstance(arguments, dict):
        return None
    for name in names:
        value = arguments.get(name)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return "\n".join(value)
    return None


class Session:
    """The trace record of one conversation, built call by call."""

    def __init__(self, where: str, log_format: str, corpus: Corpus | None) -> None:
        self.where = where
        self.log_format = log_format
        self.corpus = corpus
        self.calls: list[dict[str, Any]] = []
        self.answer: str | None = None
        self.citations: list[str] = []
        self.unknown: dict[tuple[str, bool], list[str]] = {}  # (type, read as a call) -> where each was
        self.notes: list[str] = []  # warnings of the record beyond unknown types
        self.harness_version: str | None = None  # the version of the harness the log states (session_meta's cli_version)

    def call(
        self,
        tool: str,
        arguments: Any = None,
        *,
        call_id: str | None = None,
        time: str | None = None,
        query: str | None = None,
        command: str | None = None,
    ) -> dict[str, Any]:
        """Record a call (status ``unrecorded`` until a result arrives); returns its interaction to complete."""
        entry: dict[str, Any] = {"tool": tool, "status": "unrecorded"}
        query = query if query is not None else _first_string(arguments, QUERY_ARGUMENTS)
        if query is not None:
            entry["query"] = query
        command = command if command is not None else _first_string(arguments, COMMAND_ARGUMENTS)
        if command is None and tool in SHELL_TOOLS and isinstance(arguments, str) and arguments.strip():
            command = arguments  # a shell's arguments that are not strict JSON: the command text, never dropped
        if command is not None:
            entry["command"] = command
        target = _first_string(arguments, URL_ARGUMENTS)
        if target is not None and target.strip():
            entry["target"] = target.strip()
        if call_id is not None:
            entry["call_id"] = call_id
        if arguments is not None:
            entry["arguments"] = arguments
        if _iso_time(time) is not None:
            entry["time"] = time
        self.calls.append(entry)
        return entry

    def receipt(self, entry: dict[str, Any], value: Any) -> None:
        """Keep the lock's receipt a result begins with (``search #3: ...``, anachron.timelock.render)
        when it names the call's own tool: the seal audit pairs the call with record 3."""
        text = value if isinstance(value, str) else text_of(value) if isinstance(value, list) else ""
        match = RECEIPT.match(text)
        if match is not None and match.group(1) == lock_tool(entry["tool"]):
            entry["receipt"] = int(match.group(2))

    def lock_result(self, entry: dict[str, Any], value: Any) -> bool:
        """Read a result that begins with the lock's receipt for the call's own tool by the lock's
        own format (:func:`anachron.timelock.render.parse_rendered`): the items it showed, with
        their ids and the dates shown, so no corpus is needed to score them.  A result that cannot
        be read whole (cut short, edited) leaves the call ``unrecorded``, with a warning: never an
        empty result.  Returns whether *value* was the lock's (else the generic rule reads it)."""
        text = value if isinstance(value, str) else text_of(value) if isinstance(value, list) else ""
        match = RECEIPT.match(text)
        if match is None or match.group(1) != lock_tool(entry["tool"]):
            return False
        # Imported here: the time lock's package is loaded only for a log that holds its results.
        from anachron.timelock.render import parse_rendered

        try:
            rendered = parse_rendered(text)
        except AnachronError as exc:
            for key in ("returned", "error"):
                entry.pop(key, None)
            entry["status"] = "unrecorded"
            entry["receipt"] = int(match.group(2))  # still the record it claims: the audit pairs it with that one only
            self.notes.append(f"call #{self.calls.index(entry) + 1} ({entry['tool']}): its result begins with the time "
                              f"lock's receipt but {exc} (unrecorded: the items it showed are unknown)")
            return True
        entry["receipt"] = rendered.seq
        if rendered.error is not None:
            self.failed(entry, rendered.error)
        else:
            self.ok(entry, self.shown_items(rendered))
        return True

    def shown_items(self, rendered: Any) -> list[Any]:
        """The items of a lock's rendered result (:class:`anachron.timelock.render.Rendered`): a corpus item by its id when ``--corpus`` holds it
        (its true date and labels), else inline, dated as shown (a hidden date: undated)."""
        if rendered.tool == "series":
            # Each value as a series entry (docs/formats.md), dated by the day it was published as shown:
            # a value published after T is a restatement leak; a hidden day leaves it undated, never clean.
            return [{"id": shown.id, "series": shown.title, "observation_date": shown.id.rsplit("@", 1)[1],
                     "value": None if shown.text == "missing" else shown.text, "realtime_start": shown.date} for shown in rendered.items]
        items: list[Any] = []
        for shown in rendered.items:
            if self.corpus is not None and shown.id in self.corpus.items:
                items.append(shown.id)
                continue
            item: dict[str, Any] = {"id": shown.id, "title": shown.title[:MAX_SNIPPET]}
            if rendered.tool == "fetch":
                item["text"] = shown.text[:MAX_TEXT]
            else:
                item["snippet"] = shown.text[:MAX_SNIPPET]
            if shown.date is not None:
                # A capture time bounds the publication (the core's conflict rule reads crawl_date so).
                item["crawl_date" if shown.captured else "published"] = shown.date
            items.append(item)
        return items

    def ok(self, entry: dict[str, Any], returned: list[Any]) -> None:
        entry["status"] = "ok"
        entry.pop("error", None)
        entry["returned"] = returned

    def failed(self, entry: dict[str, Any], message: Any) -> None:
        entry["status"] = "error"
        entry["returned"] = []
        text = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False, default=str)
        entry["error"] = " ".join(text.split())[:MAX_ERROR] or "error"

    def errored(self, entry: dict[str, Any], message: Any) -> None:
        """An error result, read for what it still showed the agent, whatever its status says.

        A fetch's text is its page (a timeout's partial content) when it is more than an error
        message (:func:`_more_than_a_message`); any other tool's text shows the items it lists
        (links, dated entries).  With something shown the call is ``ok`` with those items, its
        message kept in ``error``; else it is a failed ``error`` call, as it showed nothing.
        A message that is not text (a structured error) is a failed call's.
        """
        if not isinstance(message, str):
            self.failed(entry, message)
            return
        if self.lock_result(entry, message):
            return
        url = entry.get("target")
        if _is_fetch(entry["tool"]) and isinstance(url, str):
            shown = [fetch_item(url, message, self.corpus)] if _more_than_a_message(message) else []
        else:
            shown = result_items(message, self.corpus)
        self.failed(entry, message)
        if shown:
            error = entry["error"]
            self.ok(entry, shown)
            entry["error"] = error

    def result(self, entry: dict[str, Any], value: Any, parsed: Any = None) -> None:
        """An ok call's result, by the one rule of :mod:`._results`; a fetch gives its one item.
        *parsed*: the JSON *value* holds, when the caller parsed it already (read once, not twice)."""
        if self.lock_result(entry, value):
            return
        self.receipt(entry, value)
        url = entry.get("target")
        if _is_fetch(entry["tool"]) and isinstance(url, str):
            text = value if isinstance(value, str) else None
            self.ok(entry, [fetch_item(url, text, self.corpus)] if text is not None else result_items(value, self.corpus))
        else:
            self.ok(entry, result_items(value if parsed is None else parsed, self.corpus))

    def unknown_item(self, kind: Any, item: Mapping[str, Any], place: str, time: str | None = None) -> dict[str, Any] | None:
        """An item (block, record) of a type the importer does not know: reported, never skipped.

        It is counted in the record's ``warnings`` with its place.  When it looks like a call (a
        ``name``, ``arguments``, ``input`` or ``call_id``, and a type that does not end in
        ``_output`` or ``_result``) it becomes an interaction, named by its ``name`` (else its type),
        so the seal audit sees it; its result is not read.  Returns that interaction, or ``None``.
        """
        label = kind if isinstance(kind, str) else describe(kind)
        name = item.get("name")
        answer = label.endswith(("_output", "_result"))
        call_like = not answer and (isinstance(name, str) and bool(name) or any(k in item for k in ("arguments", "input", "call_id")))
        self.unknown.setdefault((label, call_like), []).append(place)
        if not call_like:
            return None
        raw = item.get("arguments", item.get("input"))
        ident = next((item[key] for key in ("call_id", "id") if isinstance(item.get(key), str) and item[key]), None)
        return self.call(name if isinstance(name, str) and name else label, parse_arguments(raw), call_id=ident, time=time)

    def warnings(self) -> list[str]:
        """One line per unknown item type: how many, where, and what was done with them."""
        lines = []
        for (kind, call_like), places in self.unknown.items():
            count = f"{len(places)} item{'s' if len(places) != 1 else ''} of unknown type {kind!r}"
            shown = ", ".join(places[:5]) + (f", ... ({len(places) - 5} more)" if len(places) > 5 else "")
            if call_like:
                read = "a tool call, its result not read" if len(places) == 1 else "tool calls, their results not read"
                lines.append(f"read {count} as {read} ({shown}): update anachron to score them")
            else:
                lines.append(f"skipped {count} ({shown}): update anachron if they hold a tool call")
        return lines

    def final_answer(self, text: str | None, citations: list[str] | None = None) -> None:
        """The latest answer wins; without structured citations, the URLs in its text are its citations."""
        if text is None or not text.strip():
            return
        self.answer = text
        if citations:
            self.citations = list(dict.fromkeys(c.strip() for c in citations if isinstance(c, str) and c.strip()))
        else:
            self.citations = [item["url"] for item in text_items(text) if isinstance(item, dict)]

    def record(self, sample_id: str, options: Options, as_of: _dt.date | None = None) -> dict[str, Any]:
        """The trace record; *as_of* is the cutoff the log stated (``--as-of-field``, :func:`as_of_of`)."""
        for number, entry in enumerate(self.calls, start=1):
            raw = entry.get("arguments")
            if isinstance(raw, str) and raw.lstrip()[:1] == "{" and options.warn is not None:
                options.warn(
                    f"warning: {self.where}: call #{number} ({entry['tool']}): its arguments are not strict JSON "
                    "(NaN, Infinity or a syntax error): no query or URL was read from them"
                )
            if not is_retrieval(entry, self.log_format, options.retrieval_tools):
                entry["retrieval"] = False
                if "returned" in entry:  # an unrecorded call has none
                    entry["returned"] = []  # what a local tool showed (a file's URLs) is not retrieved
        if options.as_of_field is not None and as_of is None:
            raise AnachronError(f"{self.where}: --as-of-field is not read for {self.log_format} logs")
        record: dict[str, Any] = {
            "sample_id": sample_id,
            "as_of": format_date(as_of) if as_of is not None else options.as_of_for(sample_id, self.where),
            "interactions": self.calls,
            "log_format": self.log_format,
        }
        if self.harness_version is not None:  # which of the harness's tools are its own (anachron.core.seal.local_tools)
            record["harness_version"] = self.harness_version
        if self.answer is not None:
            record["answer"] = self.answer
            record["citations"] = self.citations
        warnings = self.warnings() + self.notes
        if not self.calls and self.answer is not None:
            warnings.append(NO_TOOL_CALL)
        if warnings:
            record["warnings"] = warnings
        return record


def is_retrieval(entry: Mapping[str, Any], log_format: str, listed: frozenset[str] | None) -> bool:
    """Whether an imported call retrieves (a leakage interaction) or works locally (seal audit only).

    With *listed* (``--retrieval-tools``), exactly the listed tools retrieve.
    Else: a shell call (:data:`~anachron.core.seal.SHELL_TOOLS`) retrieves when
    the command it runs names the network
    (:func:`~anachron.core.seal.network_evidence`: not a commit message or an
    ``echo``'d string, but an ``sh -c``/``eval``/``python -c`` payload, which
    runs); in a Claude Code session, its web tools
    and MCP resource readers (:data:`CLAUDE_CODE_RETRIEVAL`) and every MCP tool
    (``mcp__SERVER__TOOL``) retrieve, and every other name is a built-in local
    tool (:data:`CLAUDE_CODE_LOCAL` lists the known ones; an unknown one is
    local too: Claude Code's web access is its named web tools); in other
    formats a call retrieves when its name is search- or fetch-like
    (:data:`RETRIEVAL_NAME`), it carries a query or a URL, or its result
    showed items, or when the log holds no result (``unrecorded``: nothing
    shows it was local).

    >>> is_retrieval({"tool": "TaskOutput"}, "claude-code", None), is_retrieval({"tool": "mcp__x__y"}, "claude-code", None)
    (False, True)
    >>> is_retrieval({"tool": "lookup", "status": "unrecorded"}, "openai-chat", None)
    True
    >>> [is_retrieval({"tool": "Bash", "command": c}, "claude-code", None) for c in ('git commit -m "fix curl"', "bash -c 'curl x'")]
    [False, True]
    """
    tool = entry["tool"]
    if listed is not None:
        return tool in listed
    if tool in SHELL_TOOLS:
        command = entry.get("command")
        return isinstance(command, str) and network_evidence(command) is not None
    if log_format == "claude-code":
        return tool in CLAUDE_CODE_RETRIEVAL or tool.startswith("mcp__")
    if entry.get("status") == "unrecorded":
        return True
    return bool(RETRIEVAL_NAME.search(tool) or "query" in entry or "target" in entry or entry.get("returned"))


def _more_than_a_message(text: str) -> bool:
    """Whether an error's text holds more than its message: several lines, or more than the
    :data:`MAX_ERROR` characters a message is kept to (a partial page, a body the tool passed on)."""
    return "\n" in text.strip() or len(" ".join(text.split())) > MAX_ERROR


_FETCHER = re.compile(r"(?:^|[\s;&|(`'\"/])(?:curl|wget)(?=[\s'\"]|$)")
_COMMAND_URL = re.compile(r"https?://[^\s<>\"'`\\]+", re.ASCII | re.IGNORECASE)


def fetched_url(command: str) -> str | None:
    """The one URL a shell command fetches with ``curl`` or ``wget``, or ``None``.

    Its output is then that page (read as a fetch: dated by its own text);
    with several URLs, or no fetcher that runs, the output's own URLs are read.

    >>> fetched_url("bash -lc curl -s https://x.test/a"), fetched_url("curl https://x.test/a https://x.test/b")
    ('https://x.test/a', None)
    >>> fetched_url('git commit -m "curl https://x.test/a"') is None
    True
    """
    evidence = network_evidence(command)
    if evidence is None or _FETCHER.search(evidence) is None:
        return None
    urls = {url.rstrip(".,;:)") for url in _COMMAND_URL.findall(command)}
    return urls.pop() if len(urls) == 1 else None


def _is_fetch(tool: str) -> bool:
    lowered = tool.lower()
    return "fetch" in lowered or lowered in ("open_page", "browse", "scrape")


def epoch_iso(seconds: Any) -> str | None:
    """An epoch in seconds (a number) as an ISO date-time in UTC; ``None`` for anything else."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds != seconds:
        return None
    try:
        return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def awaiting(pending: dict[str, dict[str, Any]], ident: str, at: str) -> dict[str, dict[str, Any]]:
    """*pending* (the calls awaiting their results, by id), checked to hold no call *ident* yet: a result
    names its call by id, so two calls awaiting one id could not be told apart.  Every importer pairs so."""
    if ident in pending:
        raise AnachronError(f"{at}: tool call id {ident!r} is already awaiting its result (two calls with one id)")
    return pending


def expect_list(value: Any, where: str, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise AnachronError(f"{where}: {what}: expected a list, got {describe(value)}")
    return value


def expect_object(value: Any, where: str, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise AnachronError(f"{where}: {what}: expected an object, got {describe(value)}")
    return value
