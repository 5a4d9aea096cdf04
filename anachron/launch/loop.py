"""``responses`` and ``chat``: our own function-calling loop against an OpenAI-compatible endpoint.

The model is offered two functions and nothing else, ``mcp__lock__search``
and ``mcp__lock__fetch``, with the lock's own descriptions and input
schemas.  Each call is made through the MCP client of the ``mcp`` extra to
the lock process started from the run's configuration (the same
``anachron serve`` the other harnesses start), so the lock's own event log
holds every call, and the seal audit can pair each call of the transcript
with it.  No hosted tool is ever requested.  A reply whose output holds any
call but these two (a server that runs tools of its own) stops the run.

HTTP is the standard library's (``urllib``): ``POST BASE/responses`` or
``POST BASE/chat/completions``, JSON in and out, the key (when set) as a
bearer token.  Every failure (refused connection, HTTP status, a body that
is not the expected JSON) is one line naming the URL.

The transcript is what ``--from openai-responses`` / ``--from openai-chat``
read: one JSON line, the items (or messages) of the whole conversation.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anachron.core.errors import AnachronError
from anachron.core.jsonio import json_line
from anachron.launch.lock import SERVER, TOOLS

PREFIX = f"mcp__{SERVER}__"


@dataclass
class Endpoint:
    """An OpenAI-compatible endpoint: base URL (``.../v1``), key (``None``: none sent), timeout."""

    base_url: str
    api_key: str | None = None
    timeout: float = 120.0

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        url = self.base_url.rstrip("/") + path
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            raw = exc.read(2000)
            mine = _gateway_message(raw)
            if mine is not None:  # the model gateway answered (the upstream it forwards to is named in it)
                raise AnachronError(mine) from None
            detail = raw[:300].decode("utf-8", "replace").replace("\n", " ").strip()
            raise AnachronError(f"{url}: HTTP {exc.code}{': ' + detail if detail else ''}") from None
        except urllib.error.URLError as exc:
            raise AnachronError(f"{url}: cannot reach the endpoint: {exc.reason}") from None
        except (OSError, ValueError) as exc:  # a timeout, a reset, a malformed URL
            raise AnachronError(f"{url}: {exc}") from None
        try:
            document = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise AnachronError(f"{url}: the reply is not JSON ({raw[:80]!r})") from None
        if not isinstance(document, dict):
            raise AnachronError(f"{url}: expected a JSON object, got {type(document).__name__}")
        return document


def _gateway_message(raw: bytes) -> str | None:
    """The message of an error the model gateway gave itself (``code: anachron_gateway``), else ``None``."""
    from anachron.launch.gateway import GATEWAY_CODE

    try:
        error = json.loads(raw.decode("utf-8")).get("error")
    except (ValueError, AttributeError):
        return None
    if isinstance(error, dict) and error.get("code") == GATEWAY_CODE and isinstance(error.get("message"), str):
        return error["message"]
    return None


@dataclass
class Conversation:
    """What the loop gathered: the transcript items, the lock's tools as offered, the turns taken."""

    items: list[Any] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0
    stopped: str | None = None  # why the loop stopped before a final answer
    errors: set[str] = field(default_factory=set)  # the call ids the lock answered with an error (MCP isError)


def _text(result: Any) -> str:
    parts = [getattr(block, "text", None) for block in getattr(result, "content", None) or []]
    return "\n".join(part for part in parts if isinstance(part, str))


def _schema(tool: Any) -> Any:
    """A listed tool's input schema (``input_schema`` in SDK 2, ``inputSchema`` before)."""
    schema = getattr(tool, "input_schema", None)
    return schema if schema is not None else getattr(tool, "inputSchema", None)


def _leaf(exc: BaseException) -> BaseException:
    """The first error inside an exception group (the SDK's task groups wrap what the loop raised)."""
    while getattr(exc, "exceptions", None):
        inner = exc.exceptions  # type: ignore[attr-defined]
        exc = next((e for e in inner if isinstance(e, AnachronError)), inner[0])
    return exc


def _arguments(raw: Any, where: str) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        raise AnachronError(f"{where}: the model's arguments are not JSON: {str(raw)[:80]!r}") from None
    if not isinstance(value, dict):
        raise AnachronError(f"{where}: the model's arguments are not a JSON object")
    return value


class Loop:
    """One conversation of *kind* (``responses`` or ``chat``) through an MCP client session *client*."""

    def __init__(self, kind: str, endpoint: Endpoint, model: str, client: Any, max_turns: int) -> None:
        self.kind, self.endpoint, self.model, self.client, self.max_turns = kind, endpoint, model, client, max_turns

    async def offered(self) -> list[dict[str, Any]]:
        """The lock's tools as the model is offered them: the lock's schemas, under ``mcp__lock__`` names."""
        listed = (await self.client.list_tools()).tools
        by_name = {tool.name: tool for tool in listed}
        missing = [name for name in TOOLS if name not in by_name]
        if missing:
            raise AnachronError(f"preflight: the lock lists no {', '.join(missing)} tool")
        return [{"name": PREFIX + name, "description": by_name[name].description or "",
                 "parameters": _schema(by_name[name])} for name in TOOLS]

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        """The lock's result text, and whether it is an error (a refusal: budget, bad arguments)."""
        result = await self.client.call_tool(name.removeprefix(PREFIX), arguments)
        return _text(result), bool(getattr(result, "is_error", getattr(result, "isError", False)))

    async def run(self, prompt: str, conversation: Conversation) -> None:
        import anyio

        conversation.tools = await self.offered()
        if self.kind == "responses":
            conversation.items.append({"type": "message", "role": "user", "content": prompt})
            tools = [{"type": "function", **tool} for tool in conversation.tools]
        else:
            conversation.items.append({"role": "user", "content": prompt})
            tools = [{"type": "function", "function": tool} for tool in conversation.tools]
        names = {tool["name"] for tool in conversation.tools}
        path = "/responses" if self.kind == "responses" else "/chat/completions"
        while conversation.turns < self.max_turns:
            conversation.turns += 1
            key = "input" if self.kind == "responses" else "messages"
            body = {"model": self.model, key: conversation.items, "tools": tools}
            reply = await anyio.to_thread.run_sync(self.endpoint.post, path, body)
            where = f"{self.endpoint.base_url.rstrip('/')}{path} (turn {conversation.turns})"
            calls = self._responses(reply, conversation, where) if self.kind == "responses" else self._chat(reply, conversation, where)
            if not calls:
                return
            for ident, name, raw in calls:
                if name not in names:
                    conversation.stopped = f"the model called {name!r}, which is not the lock's"
                    raise AnachronError(f"{where}: {conversation.stopped}: run stopped")
                output, error = await self.call(name, _arguments(raw, where))
                if error:
                    conversation.errors.add(ident)
                if self.kind == "responses":
                    conversation.items.append({"type": "function_call_output", "call_id": ident, "output": output})
                else:
                    conversation.items.append({"role": "tool", "tool_call_id": ident, "content": output})
        conversation.stopped = f"no final answer within {self.max_turns} turns"

    def _responses(self, reply: dict[str, Any], conversation: Conversation, where: str) -> list[tuple[str, str, Any]]:
        output = reply.get("output")
        if not isinstance(output, list):
            raise AnachronError(f"{where}: the reply has no output list")
        calls = []
        for item in output:
            if not isinstance(item, dict):
                raise AnachronError(f"{where}: an output item is not an object")
            conversation.items.append(item)
            kind = item.get("type")
            if kind == "function_call":
                ident = item.get("call_id")
                if not isinstance(ident, str) or not ident:
                    raise AnachronError(f"{where}: a function_call has no call_id")
                calls.append((ident, str(item.get("name")), item.get("arguments")))
            elif kind not in ("message", "reasoning"):
                # A hosted tool run by the server (web_search_call, ...): outside the lock.
                conversation.stopped = f"the endpoint ran a {kind!r} item, outside the lock"
                raise AnachronError(f"{where}: {conversation.stopped}: run stopped")
        return calls

    def _chat(self, reply: dict[str, Any], conversation: Conversation, where: str) -> list[tuple[str, str, Any]]:
        choices = reply.get("choices")
        message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
        if not isinstance(message, dict):
            raise AnachronError(f"{where}: the reply has no choices[0].message")
        message = {key: value for key, value in message.items() if value is not None}
        message.setdefault("role", "assistant")
        conversation.items.append(message)
        calls = []
        for call in message.get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            ident = call.get("id") if isinstance(call, dict) else None
            if not isinstance(function, dict) or not isinstance(ident, str) or not ident:
                raise AnachronError(f"{where}: a tool call has no id or function")
            calls.append((ident, str(function.get("name")), function.get("arguments")))
        return calls


def _marked(item: Any, errors: set[str]) -> Any:
    """*item*, marked failed when the lock answered it with an error: ``status: incomplete`` on a
    ``function_call_output``, ``is_error: true`` on a ``tool`` message (the importers read both).
    The mark is the transcript's: the endpoint was sent the item without it."""
    if not isinstance(item, dict):
        return item
    if item.get("type") == "function_call_output" and item.get("call_id") in errors:
        return {**item, "status": "incomplete"}
    if item.get("role") == "tool" and item.get("tool_call_id") in errors:
        return {**item, "is_error": True}
    return item


def transcript_text(kind: str, sample_id: str, conversation: Conversation) -> str:
    """The transcript line: a Response-shaped object (``responses``) or ``{"messages"}`` (``chat``)."""
    items = [_marked(item, conversation.errors) for item in conversation.items]
    if kind == "responses":
        document: dict[str, Any] = {"id": sample_id, "input": items, "output": []}
    else:
        document = {"id": sample_id, "messages": items}
    return json_line(document) + "\n"


async def converse(kind: str, command: list[str], env: dict[str, str], cwd: Path, errlog: Path,
                   endpoint: Endpoint, model: str, prompt: str, max_turns: int, conversation: Conversation) -> None:
    """Start the lock from *command* (stdio), and hold the conversation through it."""
    try:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client
    except ImportError as exc:
        raise AnachronError(f"anachron run {kind} needs the mcp extra: pip install 'anachron[mcp]' ({exc})") from None
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(cwd))
    with open(errlog, "a", encoding="utf-8") as log:
        try:
            async with Client(stdio_client(params, errlog=log), read_timeout_seconds=endpoint.timeout) as client:
                await Loop(kind, endpoint, model, client, max_turns).run(prompt, conversation)
        except Exception as exc:
            leaf = _leaf(exc)
            if leaf is exc:
                raise
            raise leaf from None
