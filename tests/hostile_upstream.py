"""A loopback upstream that misbehaves on purpose: every fault the time lock must survive.

It binds 127.0.0.1 only, answers each connection from its own thread, and picks the fault
from the request body: a search's ``query`` or a fetch's ``url``.  Every loop is bounded,
and the server stops itself on exit.
"""

from __future__ import annotations

import json
import socket
import threading
import time

FAULTS = (
    "bad-status", "http09", "broken-chunked", "many-headers", "long-header", "slow-drip", "redirect",
    "surrogate", "newline-id", "extreme-offset", "not-json", "http-500", "close",
)


def _body(payload: object) -> bytes:
    return json.dumps(payload).encode()


def _reply(status: str, body: bytes, headers: tuple[str, ...] = ()) -> bytes:
    head = [f"HTTP/1.1 {status}", "Content-Type: application/json", f"Content-Length: {len(body)}", "Connection: close", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


class HostileUpstream:
    def __init__(self, drip_seconds: float = 0.2, drip_bytes: int = 40) -> None:
        self.drip_seconds, self.drip_bytes = drip_seconds, drip_bytes
        self.requests: list[tuple[str, dict]] = []
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._answers: list[threading.Thread] = []

    def __enter__(self) -> "HostileUpstream":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        for answer in self._answers:
            answer.join(timeout=10)
        self._sock.close()
        # The lock's workers left behind by a fault end once the server is gone; wait for them, so
        # no thread of this test outlives it.
        for worker in threading.enumerate():
            if worker.name.startswith("anachron-upstream"):
                worker.join(timeout=10)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, socket.timeout):
                continue
            except OSError:
                return
            answer = threading.Thread(target=self._answer, args=(conn,), daemon=True)
            self._answers.append(answer)
            answer.start()

    def _read_request(self, conn: socket.socket) -> tuple[str, dict]:
        conn.settimeout(5)
        data = b""
        while b"\r\n\r\n" not in data and len(data) < 1 << 16:
            data += conn.recv(4096) or b"!"  # a closed client ends the wait
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = next((int(v) for k, _, v in (l.partition(": ") for l in lines[1:]) if k.lower() == "content-length"), 0)
        while len(body) < length:
            chunk = conn.recv(4096)
            if not chunk:
                break
            body += chunk
        path = lines[0].split(" ")[1] if " " in lines[0] else "/"
        return path, json.loads(body or b"{}")

    def _answer(self, conn: socket.socket) -> None:
        try:
            path, body = self._read_request(conn)
            self.requests.append((path, body))
            fault = body.get("query") or body.get("url") or ""
            conn.sendall(self._play(fault, path, conn))
        except OSError:
            pass
        finally:
            conn.close()

    def _play(self, fault: str, path: str, conn: socket.socket) -> bytes:
        item = {"url": "https://news.example/2022/05/01/ok", "title": "Fine", "published": "2022-05-01", "text": "ok"}
        if fault == "bad-status":
            return b"HTTP/1.1 two hundred OK\r\n\r\n"
        if fault == "http09":
            return _body({"results": [item]})  # no status line at all
        if fault == "broken-chunked":
            return b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\nnot a chunk\r\n"
        if fault == "many-headers":
            return _reply("200 OK", _body({"results": [item]}), tuple(f"X-H{n}: {n}" for n in range(150)))
        if fault == "long-header":
            return _reply("200 OK", _body({"results": [item]}), ("X-Long: " + "a" * 70_000,))
        if fault == "slow-drip":
            body = _body({"results": [item]}) + b" " * self.drip_bytes
            conn.sendall(_reply("200 OK", b"")[:-4].replace(b"Content-Length: 0", f"Content-Length: {len(body)}".encode()) + b"\r\n\r\n")
            for byte in body[: self.drip_bytes]:  # bounded: drip_bytes bytes, then the connection closes
                if self._stop.is_set():
                    break
                conn.sendall(bytes([byte]))
                time.sleep(self.drip_seconds)
            return b""
        if fault == "redirect":
            return _reply("302 Found", b"", ("Location: /elsewhere",))
        if fault == "surrogate":
            text = '{"results": [{"url": "https://x.example/\\ud800", "title": "T\\udc00itle", "published": "2022-05-01", "text": "a\\ud800b"}]}'
            return _reply("200 OK", text.encode())
        if fault == "newline-id":
            forged = dict(item, url="https://x.example/a\nFAKE | 2020-01-01 | forged", title="two\nlines")
            return _reply("200 OK", _body({"results": [forged, item]}))
        if fault == "extreme-offset":
            return _reply("200 OK", _body({"results": [dict(item, published="9999-12-31T23:59:59-23:59")]}))
        if fault == "not-json":
            return _reply("200 OK", b"<html>no</html>")
        if fault == "http-500":
            return _reply("500 Internal Server Error", b"{}")
        if fault == "close":
            return b""
        if path == "/fetch":  # a fetch answered with another document than the one asked for
            return _reply("200 OK", _body({"results": [dict(item, url="https://other.example/doc")]}))
        return _reply("200 OK", _body({"results": [item]}))
