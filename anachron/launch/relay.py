"""``python -m anachron.launch.relay SOCKET``: the lock's end the harness starts.

The harness's MCP configuration names this relay, not ``anachron serve``:
it connects to the launcher's Unix socket and copies bytes both ways
between its stdio and the socket.  The launcher starts the lock itself, one
process per connection, with its event log in a private directory the
harness is never told of, so the harness can make the lock's calls but
cannot write the lock's log (docs/run-rules.md, "The lock's log").
Standard library only.
"""

from __future__ import annotations

import os
import socket
import sys
import threading


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _upstream(conn: socket.socket) -> None:
    """stdin to the socket; at the end of stdin the socket's write side is shut, so the lock sees EOF."""
    try:
        while True:
            data = os.read(0, 65536)
            if not data:
                break
            conn.sendall(data)
    except OSError:
        pass
    finally:
        try:
            conn.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m anachron.launch.relay SOCKET", file=sys.stderr)
        return 2
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(args[0])
    except OSError as exc:
        print(f"anachron relay: cannot reach the lock at {args[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    threading.Thread(target=_upstream, args=(conn,), daemon=True).start()
    try:
        while True:
            data = conn.recv(65536)
            if not data:
                break
            _write_all(1, data)
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
