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

from ..core import Corpus
from ..core.dates import format_date
from ..core.seal import NETWORK_PATTERN, SHELL_TOOLS
from ..core.errors import AnachronError, describe
from ..core.jsonio import Record, parse_json, read_text
from ._results import fetch_item, loads, result_items, text_items

QUERY_ARGUMENTS = ("query", "q", "search_query")
URL_ARGUMENTS = ("url", "id_or_url", "link")
COMMAND_ARGUMENTS = ("command", "commands", "cmd", "code")
MAX_ERROR = 200  # characters of a failed call's message kept in the trace

# Claude Code's built-in tools that work on the local machine: they read files, edit, plan, spawn.
CLAUDE_CODE_LOCAL = frozenset({
    "Read", "Write", "Edit", "MultiEdit", "NotebookRead", "NotebookEdit", "Glob", "Grep", "LS",
    "TodoRead", "TodoWrite", "Task", "Agent", "ExitPlanMode", "BashOutput", "KillBash", "KillShell",
    "SlashCommand", "Skill", "AskUserQuestion",
})
# A tool name that says it searches or reads the web.
RETRIEVAL_NAME = re.compile(r"search|fetch|browse|retriev|scrape|crawl|web|url|http|open_page|news", re.IGNORECASE)


@dataclass(frozen=True)
class Options:
    """How logs become traces: the cutoff of each sample, its id, the corpus whose ids are recognised."""

    as_of: _dt.date | None = None
    as_of_map: Mapping[str, _dt.date] | None = None
    sample_id_from: str | None = None
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


def pick(obj: Any, path: str) -> Any:
    """``obj`` at a dotted *path* (``metadata.sample_id``); ``None`` when absent."""
    node = obj
    for key in path.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


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
) -> Iterator[Record]:
    """One trace record per document of *path*: *unpack* gives (the object naming the sample, its
    body), *build* the session of the body.  Default sample id: the file name, ``NAME-LINE`` for a line."""
    for where, value in documents(path):
        obj, body = unpack(where, value)
        default = stem(path) if where == str(path) else f"{stem(path)}-{where.rsplit(':', 1)[1]}"
        yield where, build(where, body, options).record(sample_id_of(obj, options, default, where), options)


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
        parsed = loads(raw)
        return raw if parsed is None and raw.strip() != "null" else parsed
    return raw


def _iso_time(value: Any) -> str | None:
    """*value* when it is an ISO date-time the trace format reads (a log's odd timestamp is left out)."""
    if not isinstance(value, str) or not value[:4].isascii() or not value[:4].isdigit():
        return None
    try:
        _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value


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
        """Record a call (status ``error`` until a result arrives); returns its interaction to complete."""
        entry: dict[str, Any] = {"tool": tool, "status": "error", "error": "no result in the log"}
        query = query if query is not None else _first_string(arguments, QUERY_ARGUMENTS)
        if query is not None:
            entry["query"] = query
        command = command if command is not None else _first_string(arguments, COMMAND_ARGUMENTS)
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

    def ok(self, entry: dict[str, Any], returned: list[Any]) -> None:
        entry["status"] = "ok"
        entry.pop("error", None)
        entry["returned"] = returned

    def failed(self, entry: dict[str, Any], message: Any) -> None:
        entry["status"] = "error"
        entry["returned"] = []
        text = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False, default=str)
        entry["error"] = " ".join(text.split())[:MAX_ERROR] or "error"

    def result(self, entry: dict[str, Any], value: Any) -> None:
        """An ok call's result, by the one rule of :mod:`._results`; a fetch gives its one item."""
        url = entry.get("target")
        if _is_fetch(entry["tool"]) and isinstance(url, str):
            text = value if isinstance(value, str) else None
            self.ok(entry, [fetch_item(url, text, self.corpus)] if text is not None else result_items(value, self.corpus))
        else:
            self.ok(entry, result_items(value, self.corpus))

    def final_answer(self, text: str | None, citations: list[str] | None = None) -> None:
        """The latest answer wins; without structured citations, the URLs in its text are its citations."""
        if text is None or not text.strip():
            return
        self.answer = text
        if citations:
            self.citations = list(dict.fromkeys(c.strip() for c in citations if isinstance(c, str) and c.strip()))
        else:
            self.citations = [item["url"] for item in text_items(text) if isinstance(item, dict)]

    def record(self, sample_id: str, options: Options) -> dict[str, Any]:
        for number, entry in enumerate(self.calls, start=1):
            raw = entry.get("arguments")
            if isinstance(raw, str) and raw.lstrip()[:1] == "{" and options.warn is not None:
                options.warn(
                    f"warning: {self.where}: call #{number} ({entry['tool']}): its arguments are not strict JSON "
                    "(NaN, Infinity or a syntax error): no query or URL was read from them"
                )
            if not is_retrieval(entry, self.log_format, options.retrieval_tools):
                entry["retrieval"] = False
                entry["returned"] = []  # what a local tool showed (a file's URLs) is not retrieved
        record: dict[str, Any] = {
            "sample_id": sample_id,
            "as_of": options.as_of_for(sample_id, self.where),
            "interactions": self.calls,
            "log_format": self.log_format,
        }
        if self.answer is not None:
            record["answer"] = self.answer
            record["citations"] = self.citations
        return record


def is_retrieval(entry: Mapping[str, Any], log_format: str, listed: frozenset[str] | None) -> bool:
    """Whether an imported call retrieves (a leakage interaction) or works locally (seal audit only).

    With *listed* (``--retrieval-tools``), exactly the listed tools retrieve.
    Else: a shell call (:data:`~anachron.core.seal.SHELL_TOOLS`) retrieves when
    its command reaches the network; a Claude Code built-in local tool
    (:data:`CLAUDE_CODE_LOCAL`) never does; any other call retrieves when its
    name is search- or fetch-like (:data:`RETRIEVAL_NAME`), it carries a
    query or a URL, or its result showed items; Claude Code's other tools
    (WebSearch, WebFetch, MCP tools) always retrieve.
    """
    tool = entry["tool"]
    if listed is not None:
        return tool in listed
    if tool in SHELL_TOOLS:
        command = entry.get("command")
        return isinstance(command, str) and NETWORK_PATTERN.search(command) is not None
    if log_format == "claude-code":
        return tool not in CLAUDE_CODE_LOCAL
    return bool(RETRIEVAL_NAME.search(tool) or "query" in entry or "target" in entry or entry.get("returned"))


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
