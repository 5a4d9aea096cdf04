"""The model gateway: a loopback HTTP proxy between a launched harness and its model's API.

``anachron run`` starts one per run (docs/run-rules.md, "Model gateway") and
points the harness at it (:func:`wiring`).  Every request is checked before
it is forwarded (:func:`check_request`): the tools it offers the model must
be the lock's two, under the harness's naming, or one of the few the
harness runs in its own process (:func:`anachron.launch.harnesses.local_tools`, per version).
A request offering anything else (a hosted web search, a shell, an MCP
server the API runs, a tool shape this module does not know) is never
forwarded: the harness gets a 400 in its vendor's error shape, the run is
stopped (``on_refusal``), and the verdict names the tool.

Every request and answer is written to ``model.jsonl`` (streamed answers as
the bytes assembled), each record carrying the digest of the lines before it
(:mod:`anachron.core.chain`), keys redacted (:func:`redact_headers`,
:func:`redact_path`, and any key value seen scrubbed from the record).  The
log is written in a private directory the harness is never told of, and
copied into the run directory when the gateway closes, over whatever the
harness (working in ``RUNDIR/workspace``) put there: as the lock's log is.

- :func:`check_request`: the refusals of one request body (empty: forward it);
- :class:`Gateway`: the server (:meth:`Gateway.start`, :meth:`Gateway.close`, :meth:`Gateway.record`);
- :func:`upstream_of`: where a harness's requests go; :func:`wiring`: how the harness is pointed here.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from anachron.core.atomic import write_atomic
from anachron.core.chain import ChainWriter, LogChain, log_chain
from anachron.core.errors import AnachronError
from anachron.importers.run_dir import MODEL_LOG
from anachron.launch.harnesses import HARNESSES, local_tools
from anachron.core.seal import lock_tool_names
from anachron.launch.lock import SERVER, TOOLS

# Per harness: the API its requests speak, the variable naming its endpoint, and the vendor's public one.
UPSTREAMS = {
    "claude-code": ("anthropic", "ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
    "codex": ("responses", "OPENAI_BASE_URL", "https://api.openai.com/v1"),
    "gemini-cli": ("gemini", "GOOGLE_GEMINI_BASE_URL", "https://generativelanguage.googleapis.com"),
    "responses": ("responses", "OPENAI_BASE_URL", "https://api.openai.com/v1"),
    "chat": ("chat", "OPENAI_BASE_URL", "https://api.openai.com/v1"),
}
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key",
                            "cookie", "set-cookie"})
SECRET_PARAMS = frozenset({"key", "api-key", "api_key", "apikey", "access_token"})
REDACTED = "[redacted]"
GATEWAY_CODE = "anachron_gateway"  # an OpenAI-shaped error's code when the gateway, not the upstream, answered
# Not forwarded either way: they describe one hop, not the message (and the body is re-framed here).
HOP = frozenset({"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
                 "content-length", "host", "accept-encoding"})


def allowed_tools(harness: str, version: str | None = None) -> frozenset[str]:
    """The tool names a request of *harness* (at *version*, ``--version``'s line) may offer: the lock's
    (by every name the harness gives them) and the harness's own tools that never leave its process."""
    names = set(lock_tool_names(SERVER, TOOLS))
    if harness in HARNESSES:
        names |= set(HARNESSES[harness].lock_names)
    return frozenset(names | local_tools(harness, version))


def shape_of(path: str, default: str) -> str:
    """The API shape of a request to *path* (``anthropic``, ``responses``, ``chat``, ``gemini``);
    *default* (the harness's) when the path does not say."""
    bare = urllib.parse.urlsplit(path).path.rstrip("/")
    if bare.endswith("/messages") or bare.endswith("/messages/count_tokens"):
        return "anthropic"
    if bare.endswith("/chat/completions"):
        return "chat"
    if "/responses" in bare:
        return "responses"
    if ":generateContent" in bare or ":streamGenerateContent" in bare or ":countTokens" in bare:
        return "gemini"
    return default


def _named(name: Any, allowed: frozenset[str], what: str) -> list[str]:
    if isinstance(name, str) and name in allowed:
        return []
    return [f"{name!r} ({what})" if isinstance(name, str) else f"a tool without a name ({what})"]


def _anthropic(body: Mapping[str, Any], allowed: frozenset[str]) -> list[str]:
    refused = []
    for tool in _listed(body, "tools"):
        kind = tool.get("type")
        if kind in (None, "custom"):
            refused += _named(tool.get("name"), allowed, "a client tool")
        else:  # web_search_20250305, bash_..., code_execution_...: the API's own or Anthropic-defined tools
            refused.append(f"{tool.get('name') or kind!r} (type {kind!r}, a tool the API defines)")
    for server in _listed(body, "mcp_servers"):
        refused.append(f"{server.get('name')!r} (an MCP server the API connects to)")
    return refused


def _namespace(tool: Mapping[str, Any], allowed: frozenset[str]) -> list[str]:
    """A namespace of function tools (``{"type": "namespace", "name": "mcp__lock", "tools": [...]}``): each
    tool by its qualified name, ``mcp__lock__search``."""
    prefix = tool.get("name")
    children = tool.get("tools")
    if not isinstance(prefix, str) or not isinstance(children, list):
        return [f"{prefix!r} (a namespace whose tools cannot be read)"]
    refused = []
    for child in children:
        if not isinstance(child, dict) or child.get("type", "function") != "function":
            refused.append(f"{prefix!r} (a namespace holding a tool that is not a function)")
            continue
        name = child.get("name")
        qualified = f"{prefix.rstrip('_')}__{name}" if isinstance(name, str) else None
        refused += _named(qualified, allowed, f"a function of namespace {prefix!r}")
    return refused


def _responses(body: Mapping[str, Any], allowed: frozenset[str]) -> list[str]:
    refused = []
    for tool in _listed(body, "tools"):
        kind = tool.get("type")
        if kind in ("function", "custom"):
            refused += _named(tool.get("name"), allowed, f"a {kind} tool")
        elif kind == "namespace":
            refused += _namespace(tool, allowed)
        elif kind == "mcp":
            refused.append(f"{tool.get('server_label')!r} (type 'mcp', an MCP server the API connects to)")
        elif kind == "tool_search" and tool.get("execution") == "client" and "tool_search" in allowed:
            continue  # the harness searches its own tool list; what it finds comes back as tool_search_output, checked below
        else:  # web_search(_preview), file_search, code_interpreter, image_generation, tool_search, local_shell, ...
            refused.append(f"{kind!r} (a hosted tool)")
    # A client-run tool_search hands the model the tools it found in the conversation (a tool_search_output
    # item's tools), not in the tools list: each is offered as surely as one listed, so each is checked.
    items = body.get("input")
    for item in items if isinstance(items, list) else ():
        if isinstance(item, dict) and item.get("type") == "tool_search_output":
            found = item.get("tools")
            if not isinstance(found, list) or not all(isinstance(tool, dict) for tool in found):
                refused.append("'tool_search_output' (its tools cannot be read)")
                continue
            refused += _responses({"tools": found}, allowed)
    return refused


def _chat(body: Mapping[str, Any], allowed: frozenset[str]) -> list[str]:
    refused = []
    for tool in _listed(body, "tools"):
        kind = tool.get("type")
        inner = tool.get(kind) if isinstance(kind, str) else None
        if kind in ("function", "custom") and isinstance(inner, dict):
            refused += _named(inner.get("name"), allowed, f"a {kind} tool")
        else:
            refused.append(f"{kind!r} (a tool the API defines)")
    for function in _listed(body, "functions"):
        refused += _named(function.get("name"), allowed, "a function")
    if body.get("web_search_options") is not None:
        refused.append("'web_search_options' (the search model's own web search)")
    return refused


_DECLARATIONS = ("functionDeclarations", "function_declarations")


def _gemini(body: Mapping[str, Any], allowed: frozenset[str]) -> list[str]:
    refused = []
    for tool in _listed(body, "tools"):
        for key, value in tool.items():
            if key in _DECLARATIONS:
                if not isinstance(value, list):
                    refused.append(f"{key!r} (not a list: its functions cannot be read)")
                    continue
                for declaration in value:
                    name = declaration.get("name") if isinstance(declaration, dict) else None
                    refused += _named(name, allowed, "a function declaration")
            elif value is not None:  # googleSearch, googleSearchRetrieval, codeExecution, urlContext, ...
                refused.append(f"{key!r} (a tool the API runs)")
    if body.get("cachedContent") is not None:
        refused.append("'cachedContent' (a cache whose tools this request does not show)")
    return refused


_CHECKS: dict[str, Callable[[Mapping[str, Any], frozenset[str]], list[str]]] = {
    "anthropic": _anthropic, "responses": _responses, "chat": _chat, "gemini": _gemini}


class _Unreadable(Exception):
    pass


def _listed(body: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = body.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise _Unreadable(f"its {key!r} is not a list of objects")
    return value


def check_request(shape: str, body: bytes, allowed: Iterable[str]) -> list[str]:
    """The refusals of a request of API *shape* with *body*: one line per tool it offers that is not
    in *allowed*, naming it; empty when the request may be forwarded.  A body that cannot be read
    (not JSON, not an object, a tool list of another shape) is refused: its tools cannot be checked."""
    if shape not in _CHECKS:
        raise AnachronError(f"unknown API shape {shape!r}: choose one of {', '.join(_CHECKS)}")
    if not body.strip():
        return []  # no body offers no tool (a GET of the model list)
    try:
        document = json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError):
        return ["the request body is not JSON: its tools cannot be checked"]
    if not isinstance(document, dict):
        return ["the request body is not a JSON object: its tools cannot be checked"]
    try:
        return _CHECKS[shape](document, frozenset(allowed))
    except _Unreadable as exc:
        return [f"the request's tools cannot be checked: {exc}"]


def _documents(data: bytes) -> list[Any]:
    """An answer's JSON documents: the body itself, or each server-sent event's ``data:`` (``[DONE]`` and
    lines that are not JSON skipped: what cannot be read names no call here, the transcript's guard reads on)."""
    text = data.decode("utf-8", "replace")
    try:
        return [json.loads(text)]
    except (ValueError, RecursionError):
        pass
    found = []
    for line in text.split("\n"):
        if line.startswith("data:"):
            try:
                found.append(json.loads(line[5:].strip()))
            except (ValueError, RecursionError):
                continue
    return found


def _walk_calls(shape: str, document: Any) -> list[str]:
    if not isinstance(document, dict):
        return []
    names: list[str] = []
    if shape == "anthropic":
        blocks = list(document.get("content") or []) if isinstance(document.get("content"), list) else []
        if isinstance(document.get("content_block"), dict):  # content_block_start
            blocks.append(document["content_block"])
        names += [str(b.get("name")) for b in blocks if isinstance(b, dict) and b.get("type") in ("tool_use", "server_tool_use")]
    elif shape == "responses":
        items = []
        if isinstance(document.get("item"), dict):  # response.output_item.added / .done
            items.append(document["item"])
        response = document.get("response") if isinstance(document.get("response"), dict) else document
        if isinstance(response.get("output"), list):
            items += response["output"]
        for item in items:
            kind = item.get("type") if isinstance(item, dict) else None
            if kind in ("function_call", "custom_tool_call"):
                space = item.get("namespace")
                names.append(f"{str(space).rstrip('_')}__{item.get('name')}" if space else str(item.get("name")))
            elif kind == "tool_search_call" and item.get("execution") == "client":
                names.append("tool_search")  # the harness runs it (a search of its tool list), under that name
            elif isinstance(kind, str) and kind.endswith("_call"):  # web_search_call, a hosted tool the API ran
                names.append(kind)
    elif shape == "gemini":
        for candidate in document.get("candidates") or []:
            content = candidate.get("content") if isinstance(candidate, dict) else None
            for part in (content.get("parts") or []) if isinstance(content, dict) else []:
                if isinstance(part, dict) and isinstance(part.get("functionCall"), dict):
                    names.append(str(part["functionCall"].get("name")))
    elif shape == "chat":
        for choice in document.get("choices") or []:
            for key in ("message", "delta"):
                message = choice.get(key) if isinstance(choice, dict) else None
                for call in (message.get("tool_calls") or []) if isinstance(message, dict) else []:
                    function = call.get("function") if isinstance(call, dict) else None
                    if isinstance(function, dict) and function.get("name"):
                        names.append(str(function["name"]))
    return names


def answer_calls(shape: str, data: bytes) -> list[str]:
    """The tools an answer of API *shape* (a JSON body or server-sent events) has the model call, in order,
    each once: what the gateway checks beside the request, for a call of a tool never offered may never show
    in the harness's own log (Codex answers it with an error to the model, and its stream says nothing)."""
    names: list[str] = []
    for document in _documents(data):
        for name in _walk_calls(shape, document):
            if name not in names:
                names.append(name)
    return names


def redact_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The headers as logged: names lower-cased, sorted, every key's value replaced."""
    return {name.lower(): REDACTED if name.lower() in SECRET_HEADERS else value for name, value in sorted(headers)}


def redact_path(path: str) -> str:
    """*path* with the value of every key-bearing query parameter (``?key=``) replaced."""
    parts = urllib.parse.urlsplit(path)
    if not parts.query:
        return path
    pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    query = urllib.parse.urlencode([(k, REDACTED if k.lower() in SECRET_PARAMS else v) for k, v in pairs])
    return urllib.parse.urlunsplit(parts._replace(query=query))


def _secrets(headers: Iterable[tuple[str, str]], path: str) -> list[str]:
    """The key values a request carries (and their bearer-less forms), to scrub from anything logged."""
    found = set()
    for name, value in headers:
        if name.lower() in SECRET_HEADERS and value:
            found.add(value)
            found.add(value.split(" ", 1)[-1])
    for key, value in urllib.parse.parse_qsl(urllib.parse.urlsplit(path).query):
        if key.lower() in SECRET_PARAMS and value:
            found.add(value)
    return sorted((s for s in found if len(s) >= 6), key=len, reverse=True)


def _scrub(value: Any, secrets: list[str]) -> Any:
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, list):
        return [_scrub(item, secrets) for item in value]
    if isinstance(value, dict):
        return {_scrub(k, secrets): _scrub(v, secrets) for k, v in value.items()}
    return value


def _body_fields(data: bytes) -> dict[str, Any]:
    """A body as logged: its JSON when it is JSON, else its text; its SHA-256 either way."""
    fields: dict[str, Any] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    try:
        fields["body"] = json.loads(data.decode("utf-8")) if data.strip() else None
    except (ValueError, RecursionError):
        fields["body_text"] = data.decode("utf-8", "replace")
    return fields


def error_body(shape: str, status: int, message: str) -> bytes:
    """An error in the vendor's own shape, so the harness reports it as its API's error."""
    if shape == "anthropic":
        document: dict[str, Any] = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    elif shape == "gemini":
        document = {"error": {"code": status, "message": message, "status": "INVALID_ARGUMENT" if status < 500 else "UNAVAILABLE"}}
    else:
        document = {"error": {"message": message, "type": "invalid_request_error" if status < 500 else "api_error",
                              "param": "tools" if status < 500 else None, "code": GATEWAY_CODE}}
    return json.dumps(document).encode("utf-8")


def upstream_of(harness: str, environ: Mapping[str, str] | None = None, base_url: str | None = None) -> str:
    """Where *harness*'s requests are forwarded: *base_url* (a loop's ``--base-url``), else the variable
    the harness itself reads (read from *environ* before the launcher points it here), else the vendor's."""
    _, variable, public = UPSTREAMS[harness]
    environ = os.environ if environ is None else environ
    url = base_url or environ.get(variable) or public
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise AnachronError(f"{variable if not base_url else '--base-url'} {url!r}: not an http(s) URL")
    return url.rstrip("/")


def wiring(harness: str, url: str) -> tuple[dict[str, str], list[str]]:
    """(environment, extra ``codex`` arguments) pointing *harness* at the gateway's *url*."""
    if harness == "claude-code":
        return {"ANTHROPIC_BASE_URL": url}, []
    if harness == "gemini-cli":
        return {"GOOGLE_GEMINI_BASE_URL": url}, []
    if harness == "codex":
        # A provider of our own: Codex's built-in one may go to ChatGPT's backend instead of base_url.
        provider = "model_providers.anachron"
        overrides = ['model_provider="anachron"', f'{provider}.name="anachron gateway"',
                     f"{provider}.base_url={json.dumps(url)}", f'{provider}.env_key="OPENAI_API_KEY"',
                     f'{provider}.wire_api="responses"']
        return {"OPENAI_BASE_URL": url}, [arg for override in overrides for arg in ("-c", override)]
    return {}, []


class Gateway:
    """One run's gateway: ``Gateway(harness, upstream, rundir).start()``; :attr:`url` is what the harness
    is pointed at (the upstream's path on loopback); :attr:`verdict` says why it stopped the run."""

    def __init__(self, harness: str, upstream: str, rundir: Path, *, timeout: float = 600.0,
                 on_refusal: Callable[[str], None] | None = None, version: str | None = None) -> None:
        self.harness, self.upstream, self.timeout = harness, upstream.rstrip("/"), timeout
        self.shape = UPSTREAMS[harness][0]
        self.allowed = allowed_tools(harness, version)
        self.on_refusal = on_refusal
        self.verdict: str | None = None
        self.refused: list[str] = []
        self.requests = 0
        self._count = threading.Lock()
        # Written where the harness cannot reach during the run (a private directory, mode 0700, never
        # named to it), and copied to RUNDIR/model.jsonl at close: as the lock's log is (LockHost).
        self.rundir = rundir
        self._private = Path(tempfile.mkdtemp(prefix="anachron-model-"))
        self.log_path = self._private / MODEL_LOG
        self.log = ChainWriter(self.log_path)
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.gateway = self
        self._thread = threading.Thread(target=self._server.serve_forever, name="anachron-gateway", daemon=True)
        path = urllib.parse.urlsplit(self.upstream).path.rstrip("/")
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}{path}"

    def start(self) -> "Gateway":
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving and copy the log into the run directory (atomically, over anything there); once."""
        if self._private is None:
            return
        self._server.shutdown()
        self._server.server_close()
        self.log.close()
        try:
            data = self.log_path.read_bytes()
            if log_chain(data) != self.chain:  # what was written is what the chain pins, or nothing is copied
                raise AnachronError(f"the model gateway's log {self.log_path} differs from what it wrote")
            write_atomic(self.rundir / MODEL_LOG, data.decode("utf-8"))
        except OSError as exc:
            raise AnachronError(f"cannot read the model gateway's log {self.log_path}: {exc.strerror or exc}") from None
        finally:
            shutil.rmtree(self._private, ignore_errors=True)
            self._private = None

    @property
    def chain(self) -> LogChain:
        return self.log.chain

    def record(self) -> dict[str, Any]:
        """What ``run.json`` keeps of the gateway: where it forwarded, its log's chain, its verdict."""
        chain = self.chain
        return {"upstream": redact_path(self.upstream), "api": self.shape, "log": MODEL_LOG, "records": chain.records,
                "sha256": chain.sha256, "requests": self.requests, "refused": list(self.refused), "verdict": self.verdict}

    def _next(self) -> int:
        with self._count:
            self.requests += 1
            return self.requests

    def refuse(self, refused: list[str], where: str) -> tuple[str, bool]:
        """The run's verdict once *refused* is seen at *where*, and whether this is the first refusal."""
        with self._count:
            first = self.verdict is None
            if first:
                self.refused = refused
                self.verdict = f"gateway: {where} offered the model {', '.join(refused)}, outside the lock: run stopped"
            return self.verdict, first


    def refuse_answer(self, called: list[str], where: str) -> tuple[str, bool]:
        """The run's verdict once the model's answer at *where* calls *called*, tools outside the lock."""
        with self._count:
            first = self.verdict is None
            if first:
                self.refused = called
                self.verdict = (f"gateway: {where} had the model call {', '.join(map(repr, called))}, "
                                "outside the lock: run stopped")
            return self.verdict, first


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    gateway: Gateway

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A harness stopped mid-connection (the guard, a timeout) resets it: socketserver would print a
        # traceback on the launcher's stderr, whose refusal is one line.  The model log is the record.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Streamed tokens go out as they come, not held back by Nagle's algorithm.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *args: Any) -> None:
        pass  # the model log is the record; nothing on the launcher's stderr

    def _body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _handle(self) -> None:
        gateway = self.server.gateway
        number = gateway._next()
        headers = list(self.headers.items())
        secrets = _secrets(headers, self.path)
        try:
            body = self._body()
        except (ValueError, OSError):
            self.close_connection = True
            return
        shape = shape_of(self.path, gateway.shape)
        where = f"request {number} ({self.command} {redact_path(urllib.parse.urlsplit(self.path).path)})"
        gateway.log.write(_scrub({"record": "request", "n": number, "method": self.command, "path": redact_path(self.path),
                                  "api": shape, "headers": redact_headers(headers), **_body_fields(body)}, secrets))
        refused = check_request(shape, body, gateway.allowed) if self.command not in ("GET", "HEAD") or body else []
        if refused or gateway.verdict is not None:
            verdict, first = gateway.refuse(refused, where) if refused else (gateway.verdict, False)
            gateway.log.write({"record": "refused", "n": number, "tools": refused, "verdict": verdict})
            try:
                self._send(400, {"Content-Type": "application/json"}, error_body(shape, 400, f"anachron: {verdict}"))
            finally:
                if first and gateway.on_refusal is not None:
                    gateway.on_refusal(verdict)  # after the answer: the harness's log shows its API's error
            return
        self._forward(gateway, number, shape, headers, body, secrets)

    def _forward(self, gateway: Gateway, number: int, shape: str, headers: list[tuple[str, str]], body: bytes,
                 secrets: list[str]) -> None:
        origin = urllib.parse.urlsplit(gateway.upstream)
        url = f"{origin.scheme}://{origin.netloc}{self.path}"
        sent = {name: value for name, value in headers if name.lower() not in HOP}
        sent["Accept-Encoding"] = "identity"  # the log holds the bytes as text, not compressed
        request = urllib.request.Request(url, data=body if body or self.command not in ("GET", "HEAD") else None,
                                         headers=sent, method=self.command)
        try:
            response = urllib.request.urlopen(request, timeout=gateway.timeout)
        except urllib.error.HTTPError as exc:
            response = exc  # an error answer is still the upstream's answer: relayed and logged
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            message = f"{redact_path(url)}: cannot reach the endpoint: {reason}"
            gateway.log.write(_scrub({"record": "error", "n": number, "error": message}, secrets))
            self._send(502, {"Content-Type": "application/json"}, error_body(shape, 502, message))
            return
        with response:
            status = response.status if hasattr(response, "status") else response.code
            answer_headers = [(k, v) for k, v in response.headers.items() if k.lower() not in HOP]
            self.send_response(status)
            for name, value in answer_headers:
                self.send_header(name, value)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            data = bytearray()
            try:
                while True:
                    piece = response.read1(65536) if hasattr(response, "read1") else response.read(65536)
                    if not piece:
                        break
                    data += piece
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
                cut = None
            except OSError as exc:  # the upstream or the harness hung up mid-answer: logged as cut
                cut = str(exc)
                self.close_connection = True
        record = {"record": "answer", "n": number, "status": status, "headers": redact_headers(answer_headers),
                  **_body_fields(bytes(data))}
        if cut is not None:
            record["cut"] = cut
        gateway.log.write(_scrub(record, secrets))
        # Our own loops (responses, chat) guard each call before running it, naming it themselves.
        called = [name for name in answer_calls(shape, bytes(data)) if name not in gateway.allowed] \
            if gateway.harness in HARNESSES else []
        if called and status < 400:
            verdict, first = gateway.refuse_answer(called, f"answer {number}")
            gateway.log.write({"record": "refused", "n": number, "tools": called, "verdict": verdict})
            if first and gateway.on_refusal is not None:
                gateway.on_refusal(verdict)

    def _send(self, status: int, headers: Mapping[str, str], data: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _handle  # noqa: N815 (http.server's names)
