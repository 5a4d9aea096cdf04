"""``codex``: Codex CLI logs, one session per file: rollout files
(``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) and the events of ``codex exec --json``.

No Codex CLI runs offline here: the shapes are those of the openai/codex
repository's published protocol types (``RolloutLine``, ``ResponseItem`` in
``codex-rs/protocol``, ``ThreadEvent`` in ``codex-rs/exec``).

Rollout lines are ``{"timestamp", "type", "payload"}``: ``session_meta``'s
``payload.id`` is the session's own id (the default sample id);
``response_item`` payloads are read as Responses API items (older rollouts
write the bare items, without the envelope, after a first line holding the
session's ``id``):

- ``function_call`` (``name``, ``arguments`` as a JSON string, ``call_id``)
  and its ``function_call_output`` (a string, or content items);
  ``custom_tool_call`` (``input``) and ``custom_tool_call_output`` likewise;
- the shell tools ``shell`` / ``container.exec`` (``command`` an argv list),
  ``shell_command`` and ``exec_command`` (``command`` / ``cmd`` a string), and
  ``local_shell_call`` (``action.command``, tool ``shell``): the command is
  the call's ``command``;
- ``web_search_call``: tool ``web_search`` (``action.query``; ``open_page``
  and ``find_in_page``: ``action.url``).  Codex records a search's query,
  never its results, so a completed search is ``unrecorded``; ``failed`` is
  an ``error`` call;
- an assistant ``message``'s ``output_text`` is the answer (the latest wins).

- ``tool_search_call`` / ``tool_search_output`` (paired by ``call_id``; the
  server's, with none, in order): Codex's route to deferred MCP tools, a
  search of its tool catalogue: a local call ``tool_search``, never
  retrieval.  The tool it loads is then called as a ``function_call`` with
  ``namespace`` ``mcp__SERVER`` and ``name`` ``TOOL``, read as the tool
  ``mcp__SERVER__TOOL``;
- a result of the time lock (it begins with the lock's receipt) is read by
  the lock's own format (:func:`anachron.timelock.render.parse_rendered`).

``event_msg`` lines mirror the items for the terminal and are not read;
``turn_context`` and ``compacted`` hold no call, and the bookkeeping lines
``token_usage_record`` (a response's token counts) and ``world_state`` (a
snapshot of the session's state) are skipped without a warning.  ``codex exec --json``
events: ``thread.started`` names the id; each ``item.completed`` (an
``item.started`` with no completion is ``unrecorded``) of type
``command_execution`` (tool ``shell``, ``command``, ``aggregated_output``,
status ``failed``/``declined`` an ``error``/``refused`` call),
``mcp_tool_call`` (tool ``SERVER__TOOL``, ``arguments``, ``result.content``
or ``structured_content``, ``error``), ``web_search`` (``query``: unrecorded,
as above) and ``agent_message`` (the answer).  Codex's built-in local tools
(:data:`LOCAL_TOOLS`: patches, plans, file reads) are local calls, whatever
their output shows.  Reasoning, plans, file changes and to-do lists are not calls; any other line, item or payload type
is counted in the record's ``warnings``.

>>> shell_command("shell", {"command": ["bash", "-lc", "curl -s https://example.com"]})
'bash -lc curl -s https://example.com'
"""

from __future__ import annotations

import re

from typing import Any, Iterator, Mapping

from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import Record
from anachron.core.jsonio import json_or_none
from anachron.importers._common import Options, Session, awaiting, expect_object, fetched_url, parse_arguments
from anachron.importers._results import fetch_item, text_of
from anachron.importers._shared_sessions import Built, Gaps, per_file

FORMAT = "codex"
CAUSE = ("Codex logs a web search's query but not its results, and a call cut off by the session's end has no output "
         "(their results are unknown: pass a search tool through MCP to have its results logged)")
_ENVELOPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
# Rollout lines of bookkeeping, never a call: a response's token counts, the session's state snapshot.
_BOOKKEEPING = frozenset({"token_usage_record", "world_state"})
_NOT_CALLS = frozenset({"reasoning", "ghost_snapshot", "compaction", "compaction_summary", "other"})
_EXEC_NOT_CALLS = frozenset({"reasoning", "plan", "file_change", "todo_list", "error", "collab_tool_call"})
_EXEC_EVENTS = frozenset({"turn.started", "turn.completed", "turn.failed", "item.updated", "item.plan.delta",
                          "request_user_input", "error"})
SHELLS = frozenset({"shell", "container.exec", "shell_command", "exec_command"})
# Codex's built-in tools that work on the local machine (codex-rs/core's tool specs): files, patches,
# plans, images.  The shells are judged by their command; web_search retrieves.
# The header lines Codex writes before a shell command's output (codex-rs/core's exec output formats).
_HEADER = re.compile(r"(?:Exit code|Process exited|Wall time|Chunk ID|Original token count|Process running|Total output lines)\b")
LOCAL_TOOLS = frozenset({"apply_patch", "update_plan", "read_file", "list_dir", "grep_files", "view_image",
                         "tool_search"})  # tool_search: the route to deferred tools (a catalogue search, no retrieval)


def shell_command(name: str, arguments: Any) -> str | None:
    """The argv list a Codex shell tool ran (``command``), joined by spaces; a string command
    (``shell_command``, ``exec_command``'s ``cmd``) is read by the shared rule of :mod:`._common`."""
    value = arguments.get("command") if name in SHELLS and isinstance(arguments, dict) else None
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return " ".join(value)
    return None


def shell_output(output: str) -> str:
    """What a Codex shell call printed, without the envelope Codex wraps it in: the JSON
    ``{"output", "metadata"}`` of ``shell``, or the header (``Exit code:``, ``Chunk ID:``,
    ``Wall time:`` ...) that ends at ``Output:`` in ``exec_command``'s and newer ``shell`` outputs.

    >>> shell_output('{"output": "<html>", "metadata": {"exit_code": 0}}'), shell_output("Exit code: 0\\nOutput:\\nhi")
    ('<html>', 'hi')
    """
    parsed = json_or_none(output) if output.lstrip().startswith("{") else None
    if isinstance(parsed, dict) and isinstance(parsed.get("output"), str) and isinstance(parsed.get("metadata"), dict):
        return parsed["output"]
    head, marker, body = output.partition("Output:\n")
    if marker and all(_HEADER.match(line) for line in head.split("\n") if line):
        return body
    return output


def _id(item: Mapping[str, Any], at: str, key: str = "call_id") -> str:
    ident = item.get(key)
    if not isinstance(ident, str) or not ident:
        raise AnachronError(f"{at}: {key} is {describe(ident)}, expected the id pairing the call with its output")
    return ident


class _Reader:
    def __init__(self, where: str, options: Options) -> None:
        self.session, self.gaps = Session(where, FORMAT, options.corpus), Gaps(CAUSE, LOCAL_TOOLS)
        self.pending: dict[str, dict[str, Any]] = {}
        self.searches: list[dict[str, Any]] = []  # tool_search calls with no call_id (run by the server), awaiting output
        self.own: str | None = None

    def item(self, item: Mapping[str, Any], at: str, time: Any) -> None:
        """One Responses API item of a rollout."""
        session, kind = self.session, item.get("type")
        if kind in ("function_call", "custom_tool_call"):
            name = item.get("name")
            if not isinstance(name, str) or not name:
                raise AnachronError(f"{at}: name is {describe(name)}, expected the tool's name")
            namespace = item.get("namespace")
            if isinstance(namespace, str) and namespace:
                name = f"{namespace.rstrip('_')}__{name}"  # namespace mcp__lock, tool search: mcp__lock__search
            ident = _id(item, at)
            arguments = parse_arguments(item.get("arguments")) if kind == "function_call" else item.get("input")
            awaiting(self.pending, ident, at)[ident] = session.call(
                name, arguments, call_id=ident, time=time, command=shell_command(name, arguments))
        elif kind == "local_shell_call":
            ident = _id(item, at)
            action = item.get("action")
            awaiting(self.pending, ident, at)[ident] = session.call(
                "shell", action, call_id=ident, time=time, command=shell_command("shell", action))
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            entry = self.pending.pop(_id(item, at), None)
            if entry is None:
                self.gaps.skip(f"{kind} without its call")
                return
            output = item.get("output")
            if output is None:
                return  # no output recorded: the call stays unrecorded (the record's warning says so), never an empty result
            if isinstance(output, dict) and output.get("success") is False:
                session.errored(entry, output.get("content"))  # read for what it still showed
            elif entry["tool"] in SHELLS:
                self.shell_result(entry, shell_output(output if isinstance(output, str) else text_of(output)))
            else:
                session.result(entry, output if isinstance(output, str) else text_of(output))
        elif kind == "tool_search_call":
            ident = item.get("call_id") if isinstance(item.get("call_id"), str) and item["call_id"] else None
            entry = session.call("tool_search", parse_arguments(item.get("arguments")), call_id=ident, time=time)
            if ident is None:
                self.searches.append(entry)
            else:
                awaiting(self.pending, ident, at)[ident] = entry
        elif kind == "tool_search_output":
            ident = item.get("call_id") if isinstance(item.get("call_id"), str) and item["call_id"] else None
            entry = self.pending.pop(ident, None) if ident is not None else self.searches.pop(0) if self.searches else None
            if entry is None:
                self.gaps.skip(f"{kind} without its call")
            else:
                session.ok(entry, [])  # the tools it loaded, not items: nothing retrieved
        elif kind == "web_search_call":
            action = item.get("action") if isinstance(item.get("action"), dict) else {}
            query = action.get("query") if isinstance(action.get("query"), str) else None
            arguments = {k: v for k, v in action.items() if k in ("query", "url", "pattern")}
            entry = session.call("web_search", arguments or None, time=time, query=query)
            if item.get("status") == "failed":
                session.failed(entry, "web_search_call status failed")
        elif kind == "message":
            if item.get("role") == "assistant":
                texts = [p["text"] for p in item.get("content") or []
                         if isinstance(p, dict) and p.get("type") == "output_text" and isinstance(p.get("text"), str)]
                session.final_answer("".join(texts) or None)
        elif not isinstance(kind, str):
            raise AnachronError(f"{at}: type is {describe(kind)}, expected an item type")
        elif kind not in _NOT_CALLS:
            self.gaps.skip(kind)

    def shell_result(self, entry: dict[str, Any], text: str) -> None:
        """A shell call's output; after curl or wget of one URL it is that page, dated by its own
        text (the URLs in it alone would show nothing and score the call clean)."""
        url = fetched_url(entry["command"]) if isinstance(entry.get("command"), str) else None
        if url is None:
            self.session.result(entry, text)
        else:
            self.session.ok(entry, [fetch_item(url, text, self.session.corpus)])

    def event(self, event: Mapping[str, Any], at: str) -> None:
        """One ``codex exec --json`` event."""
        kind = event.get("type")
        if kind == "thread.started":
            self.own = event.get("thread_id") if isinstance(event.get("thread_id"), str) else self.own
        elif kind in ("item.started", "item.completed"):
            item = expect_object(event.get("item"), at, "field 'item'")
            self.exec_item(item, at, done=kind == "item.completed")
        elif kind not in _EXEC_EVENTS:
            self.gaps.skip(kind)

    def exec_item(self, item: Mapping[str, Any], at: str, done: bool) -> None:
        session, kind = self.session, item.get("type")
        if kind in _EXEC_NOT_CALLS:
            return
        if kind == "agent_message":
            session.final_answer(item.get("text") if isinstance(item.get("text"), str) else None)
            return
        ident = _id(item, at, "id")
        entry = self.pending.get(ident)
        if entry is None:
            if kind == "command_execution":
                command = item.get("command") if isinstance(item.get("command"), str) else None
                entry = session.call("shell", {"command": command}, call_id=ident, command=command)
            elif kind == "mcp_tool_call":
                name = f"{item.get('server')}__{item.get('tool')}"
                entry = session.call(name, parse_arguments(item.get("arguments")), call_id=ident)
            elif kind == "web_search":
                query = item.get("query") if isinstance(item.get("query"), str) else None
                entry = session.call("web_search", {"query": query}, call_id=ident, query=query)
            elif not isinstance(kind, str):
                raise AnachronError(f"{at}: item type is {describe(kind)}, expected an item type")
            else:
                self.gaps.skip(kind)
                return
            self.pending[ident] = entry
        if not done or kind == "web_search":  # a search's results are never in the events
            return
        del self.pending[ident]
        status = item.get("status")
        if kind == "command_execution":
            if status in ("failed", "declined"):
                session.failed(entry, f"command {status}: {item.get('aggregated_output') or ''}")
                if status == "declined":
                    entry["status"] = "refused"
            else:
                self.shell_result(entry, item.get("aggregated_output") if isinstance(item.get("aggregated_output"), str) else "")
        elif status == "failed" or item.get("error"):
            error = item.get("error")
            session.failed(entry, error.get("message") if isinstance(error, dict) else f"mcp_tool_call status {status}")
        elif status != "completed":
            self.gaps.skip(f"mcp_tool_call status {status!r}")  # never read as completed: unrecorded, and said
        elif isinstance(item.get("result"), dict) and ("content" in item["result"] or "structured_content" in item["result"]):
            result = item["result"]
            structured = result.get("structured_content")
            text = text_of(result.get("content") or [])
            # The lock's text is read by its own format (ids, dates); its structured twin is not a search API's list.
            if not session.lock_result(entry, text):
                session.result(entry, structured if structured is not None else text)
        # else: completed, but the log holds no result (none, or one without content): the call stays unrecorded
        # (never a clean, empty result)


def session(where: str, lines: list[tuple[str, Any]], options: Options) -> tuple[Any, Built]:
    reader = _Reader(where, options)
    first = None
    for at, raw in lines:
        line = expect_object(raw, at, "a line")
        first = line if first is None else first
        kind = line.get("type")
        if kind in _BOOKKEEPING:
            continue
        if "payload" in line and kind in _ENVELOPES:
            payload = expect_object(line["payload"], at, "field 'payload'")
            if kind == "session_meta":
                if isinstance(payload.get("id"), str):
                    reader.own = reader.own or payload["id"]
                version = payload.get("cli_version")
                if isinstance(version, str) and version.strip() and reader.session.harness_version is None:
                    reader.session.harness_version = version.strip()
            elif kind == "response_item":
                reader.item(payload, at, line.get("timestamp"))
        elif isinstance(kind, str) and "." in kind or kind in ("request_user_input", "error"):
            reader.event(line, at)
        elif kind is None and "record_type" in line:
            continue  # an older rollout's state record
        elif kind is None and isinstance(line.get("id"), str) and "timestamp" in line:
            reader.own = reader.own or line["id"]  # an older rollout's first line: the session's meta
        elif isinstance(kind, str) and "payload" not in line:
            reader.item(line, at, None)  # an older rollout's bare item
        elif isinstance(kind, str):
            reader.gaps.skip(kind)
        else:
            raise AnachronError(f"{at}: type is {describe(kind)}, expected a rollout line or an exec event")
    return first, (reader.session, reader.gaps, reader.own)


def read(path: str, options: Options) -> Iterator[Record]:
    return per_file(path, options, session)
