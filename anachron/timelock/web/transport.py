"""How a web backend reaches its service: one HTTP exchange, live, recorded or replayed.

Every backend of :mod:`anachron.timelock.web` (and the ``anachron``
upstream, :class:`~anachron.timelock.backends.UpstreamBackend`) sends its
requests through a :class:`Transport`, never through ``urllib`` itself, so
that ``--record DIR`` and ``--replay DIR`` cover every byte a run was shown:

- :class:`Transport`: the network.  A total deadline per exchange (a slow
  drip included), a byte cap, redirects never followed (a ``3xx`` is
  handed back to the backend, which decides: a POST refuses it, an archive
  follows it only to a capture at or before T), every fault of the
  connection an :class:`~anachron.timelock.backends.UpstreamError`;
- :class:`Recorder`: the network, and every exchange stored in a directory;
- :class:`Replayer`: that directory only; a request it does not hold is an
  :class:`UpstreamError` naming it, never a live call.

An exchange is addressed by :meth:`Request.digest`, the SHA-256 of its
method, URL, body and ``Range`` header: the other headers (where the API
keys travel) are neither stored nor part of the address, so a store holds
no secret and replays under anyone's key, or none.

Standard library only.
"""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from anachron.core.atomic import write_atomic
from anachron.core.errors import AnachronError
from anachron.timelock.backends import MAX_TIMEOUT, UPSTREAM_MAX_BYTES, UpstreamError

__all__ = ["MAX_BYTES", "MAX_TIMEOUT", "Recorder", "Replayer", "Reply", "Request", "Transport", "check_timeout", "open_transport"]

MAX_BYTES = UPSTREAM_MAX_BYTES  # of one reply
_CHUNK = 64 * 1024
_KEPT_HEADERS = ("content-type", "location", "content-range", "memento-datetime")
ADDRESSED_HEADERS = ("range",)  # request headers that change the answer, so are part of its address (never a key)  # what of a reply's headers a backend may read
STORE_FORMAT = "anachron-exchange/1"


@dataclass(frozen=True)
class Request:
    """One HTTP request.  *label* names it in errors (``exa /search``); *headers* are sent, never stored;
    *secret_query* (a key an API takes in its query string, ALFRED's ``api_key``) is added to the URL when
    sent, never stored nor part of the address."""

    method: str
    url: str
    label: str
    body: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    secret_query: Mapping[str, str] = field(default_factory=dict)

    def sent_url(self) -> str:
        """The URL as it goes on the wire: :attr:`url` with :attr:`secret_query` added."""
        if not self.secret_query:
            return self.url
        return self.url + ("&" if "?" in self.url else "?") + urllib.parse.urlencode(dict(self.secret_query))

    def digest(self) -> str:
        """The request's address in a store: SHA-256 of method, URL, body and the headers that choose
        what is answered (:data:`ADDRESSED_HEADERS`: a WARC record read by its byte range); never a key."""
        h = hashlib.sha256()
        chosen = sorted(f"{name.lower()}: {value}" for name, value in self.headers.items() if name.lower() in ADDRESSED_HEADERS)
        for part in (self.method.encode("ascii"), self.url.encode("utf-8"), self.body or b"", *(c.encode("utf-8") for c in chosen)):
            h.update(len(part).to_bytes(8, "big"))  # length-prefixed: no two requests share an address
            h.update(part)
        return h.hexdigest()


@dataclass(frozen=True)
class Reply:
    """What the service answered: any HTTP status (a backend judges it), the kept headers, the body."""

    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)

    def json_body(self, label: str) -> Any:
        """The body as JSON, after a ``2xx`` status; an :class:`UpstreamError` naming *label* otherwise."""
        if 300 <= self.status < 400:
            raise UpstreamError(f"{label} answered a redirect (HTTP {self.status}); redirects are not followed")
        if not 200 <= self.status < 300:
            raise UpstreamError(f"{label} answered HTTP {self.status}")
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise UpstreamError(f"{label}: invalid JSON ({' '.join(str(exc).split())[:200]})") from None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is handed back as it is: urllib would turn a POST into a GET, and a GET could land
    on a later capture than the one asked for."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D102 (urllib's signature)
        return None  # urllib then raises HTTPError for the 3xx, which send() returns as a Reply


_OPENER = urllib.request.build_opener(_NoRedirect)


def check_timeout(timeout: Any, option: str = "--upstream-timeout") -> float:
    """*timeout* in seconds, in (0, :data:`MAX_TIMEOUT`]; an :class:`AnachronError` naming *option* otherwise."""
    if not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and 0 < timeout <= MAX_TIMEOUT):  # False for NaN
        raise AnachronError(f"{option}: expected seconds in (0, {MAX_TIMEOUT:g}], got {timeout!r}")
    return float(timeout)


class Transport:
    """The network: :meth:`send` makes one exchange within *timeout* seconds in total."""

    def __init__(self, *, timeout: float = 30.0) -> None:
        self.timeout = check_timeout(timeout)

    def send(self, request: Request) -> Reply:
        deadline = time.monotonic() + self.timeout
        outcome: dict[str, Any] = {}

        def exchange() -> None:
            try:
                outcome["reply"] = self._exchange(request, deadline)
            except BaseException as exc:  # handed to the caller's thread
                outcome["error"] = exc

        # A worker thread, so the deadline is total: a socket timeout alone restarts with every byte a
        # slow-drip service sends.  A worker left behind ends at its next socket timeout or byte cap.
        worker = threading.Thread(target=exchange, name=f"anachron-web-{request.label}", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive():
            raise UpstreamError(f"{request.label} took longer than {self.timeout:g} s")
        if "error" in outcome:
            raise outcome["error"]
        return outcome["reply"]

    def _exchange(self, request: Request, deadline: float) -> Reply:
        headers = {"User-Agent": "anachron-timelock", **request.headers}
        raw = urllib.request.Request(request.sent_url(), data=request.body, headers=headers, method=request.method)
        try:
            try:
                response = _OPENER.open(raw, timeout=self.timeout)
            except urllib.error.HTTPError as exc:  # a 4xx, 5xx or an unfollowed 3xx: a reply all the same
                response = exc
            with response:
                status = response.status if hasattr(response, "status") else response.code
                kept = {name: response.headers[name] for name in _KEPT_HEADERS if response.headers.get(name) is not None}
                return Reply(int(status), self._read(response, request.label, deadline), kept)
        except UpstreamError:
            raise
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError):
                # The socket's timeout equals the deadline, so under load it may fire before join() returns:
                # one cause, one message, whichever clock noticed first.
                raise UpstreamError(f"{request.label} took longer than {self.timeout:g} s") from None
            raise UpstreamError(f"{request.label} unreachable: {reason}") from None
        except (http.client.HTTPException, ValueError) as exc:
            # BadStatusLine, LineTooLong, IncompleteRead, too many headers...: a broken reply.
            raise UpstreamError(f"{request.label} sent a broken reply ({type(exc).__name__})") from None

    def _read(self, response: Any, label: str, deadline: float) -> bytes:
        chunks, size = [], 0
        while time.monotonic() < deadline:
            chunk = response.read(_CHUNK)
            if not chunk:
                return b"".join(chunks)
            size += len(chunk)
            if size > MAX_BYTES:
                raise UpstreamError(f"{label} answered more than {MAX_BYTES} bytes")
            chunks.append(chunk)
        raise UpstreamError(f"{label} took longer than {self.timeout:g} s")


def _store_dir(directory: str | os.PathLike[str], option: str, *, create: bool) -> Path:
    path = Path(directory)
    try:
        if create:
            path.mkdir(parents=True, exist_ok=True)
        if not path.is_dir():
            raise AnachronError(f"{option} {directory}: not a directory")
    except OSError as exc:
        raise AnachronError(f"{option} {directory}: {exc.strerror or exc}") from None
    return path


class Recorder(Transport):
    """The network, every exchange stored in *directory* as ``DIGEST.json`` (written atomically).

    A failed exchange (unreachable, too slow, too large) is stored too, as
    its error, so a replay fails the call the same way.  A request made twice
    keeps its latest exchange.
    """

    def __init__(self, directory: str | os.PathLike[str], *, timeout: float = 30.0) -> None:
        super().__init__(timeout=timeout)
        self.directory = _store_dir(directory, "--record", create=True)

    def send(self, request: Request) -> Reply:
        entry: dict[str, Any] = {
            "format": STORE_FORMAT,
            "request": {"method": request.method, "url": request.url, "label": request.label, "body": _b64(request.body or b"")},
            "time": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }
        try:
            reply = super().send(request)
        except UpstreamError as exc:
            entry["error"] = str(exc)
            self._store(request, entry)
            raise
        entry.update(status=reply.status, headers=dict(reply.headers), response=_b64(reply.body))
        self._store(request, entry)
        return reply

    def _store(self, request: Request, entry: Mapping[str, Any]) -> None:
        try:
            write_atomic(self.directory / f"{request.digest()}.json", json.dumps(entry, indent=1, sort_keys=True) + "\n")
        except (AnachronError, OSError) as exc:
            # Unrecorded is unreplayable: the call fails rather than show what no store holds.
            raise UpstreamError(f"--record {self.directory}: cannot store the exchange of {request.label}: {exc}") from None


class Replayer:
    """Answers from a store :class:`Recorder` wrote, never from the network."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = _store_dir(directory, "--replay", create=False)
        self.timeout = 0.0

    def send(self, request: Request) -> Reply:
        path = self.directory / f"{request.digest()}.json"
        missing = f"--replay {self.directory}: no recorded exchange for {request.method} {request.url} (request {request.digest()[:16]})"
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UpstreamError(missing) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise UpstreamError(f"{path}: cannot read the recorded exchange: {exc}") from None
        try:
            entry = json.loads(text)
            if not isinstance(entry, dict) or entry.get("format") != STORE_FORMAT:
                raise ValueError(f"not an {STORE_FORMAT} record")
            if isinstance(entry.get("error"), str):
                raise UpstreamError(entry["error"])  # the exchange failed when recorded: it fails again
            status, headers = entry["status"], entry.get("headers", {})
            if not isinstance(status, int) or isinstance(status, bool) or not isinstance(headers, dict):
                raise ValueError("status or headers out of shape")
            return Reply(status, base64.b64decode(entry["response"], validate=True), {str(k): str(v) for k, v in headers.items()})
        except UpstreamError:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise UpstreamError(f"{path}: a broken recorded exchange ({' '.join(str(exc).split())[:200]})") from None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def open_transport(*, timeout: float, record: str | None = None, replay: str | None = None) -> "Transport | Replayer":
    """The transport ``--record DIR`` or ``--replay DIR`` asks for (the network without either)."""
    if record is not None and replay is not None:
        raise AnachronError("--record and --replay: give one")
    if replay is not None:
        return Replayer(replay)
    if record is not None:
        return Recorder(record, timeout=timeout)
    return Transport(timeout=timeout)
