"""The harness's own network namespace: what a shell, a hook or a hidden tool of the harness can reach.

``anachron run`` starts a command-line harness, and everything it starts,
in a network namespace of its own (Linux: ``unshare --net``, with
``--map-root-user`` when not root, else bubblewrap's ``--unshare-net``).
Inside there is only loopback, brought up here.  The harness's two ways
out cross the namespace as Unix sockets, which live in the shared file
system:

- the lock: its relay (:mod:`anachron.launch.relay`) already connects to a Unix socket;
- the model gateway: inside, :func:`inside` listens on ``127.0.0.1:PORT`` (the gateway's
  own port number, so the harness's base URL is unchanged) and forwards each connection to
  a Unix socket; outside, :class:`Bridge` forwards that socket to the gateway.

:func:`probe` finds the method this machine allows (it runs the inside
check once: loopback up, no other interface); :func:`decide` refuses a run
when there is none, unless ``--no-isolation``.  ``run.json`` records the
method (``isolation``), or null.

This file also runs as a script inside the namespace (``python isolation.py
inside|check ...``), before the harness: its top-level imports are the
standard library only.
"""

from __future__ import annotations

import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

__all__ = ["Bridge", "Isolation", "assumption", "candidates", "decide", "inside", "probe", "record"]

HELPER = str(Path(__file__).resolve())
NO_ISOLATION = ("no network isolation (--no-isolation): the verdict assumes the harness's shell, hooks and "
                "tools reached no network but the gateway and the lock; a shell call is a breach")
CHECK_TIMEOUT = 20.0  # seconds the probe's trial namespace may take


@dataclass(frozen=True)
class Isolation:
    """A way to isolate: its name (``run.json``'s ``isolation``) and the command put before the helper."""

    method: str
    prefix: tuple[str, ...]

    def wrap(self, argv: list[str], port: int | None, socket_path: str | None) -> list[str]:
        """*argv* run inside the namespace, with ``127.0.0.1:port`` there forwarded to *socket_path*."""
        forward = [str(port), socket_path] if port is not None and socket_path is not None else ["-", "-"]
        return [*self.prefix, sys.executable, HELPER, "inside", *forward, "--", *argv]


def candidates() -> list[Isolation]:
    """The methods this machine has the programs for, in order of preference."""
    found = []
    unshare = shutil.which("unshare")
    if unshare is not None:
        if os.geteuid() == 0:
            found.append(Isolation("netns(unshare)", (unshare, "--net")))
        found.append(Isolation("netns(unshare --map-root-user)", (unshare, "--net", "--map-root-user")))
    bwrap = shutil.which("bwrap")
    if bwrap is not None:
        found.append(Isolation("netns(bwrap)", (bwrap, "--unshare-net", "--dev-bind", "/", "/")))
    return found


def probe() -> Isolation | str:
    """The first method that works here (its trial namespace has loopback and nothing else), or why none does."""
    if not sys.platform.startswith("linux"):
        return f"{sys.platform} has no network namespaces (only Linux isolates a harness)"
    reasons = []
    for way in candidates():
        try:
            done = subprocess.run([*way.prefix, sys.executable, HELPER, "check"], stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=CHECK_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            reasons.append(f"{way.method}: {getattr(exc, 'strerror', None) or exc}")
            continue
        if done.returncode == 0 and done.stdout.strip() == "ok":
            return way
        said = [line for line in done.stderr.strip().split("\n") if line.strip()]
        reasons.append(f"{way.method}: {said[-1].strip() if said else f'exit status {done.returncode}'}")
    if not reasons:
        return "neither unshare nor bwrap is installed"
    return "; ".join(reasons)


def decide(no_isolation: bool, find: Callable[[], Isolation | str] | None = None) -> Isolation | None:
    """The isolation of a run: None with *no_isolation*, else what *find* gives; a platform that cannot
    isolate refuses the run (an :class:`~anachron.core.errors.AnachronError`, one line)."""
    from anachron.core.errors import AnachronError

    if no_isolation:
        return None
    found = (find or probe)()  # looked up at the call: a test replaces the probe
    if isinstance(found, str):
        raise AnachronError(f"cannot isolate the harness's network ({found}): run it where network namespaces "
                            "are allowed, or give --no-isolation")
    return found


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy *source* to *sink* until EOF, then shut *sink*'s write side (the other direction goes on)."""
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def _join(a: socket.socket, b: socket.socket) -> None:
    """Copy both ways between *a* and *b*, then close both."""
    back = threading.Thread(target=_pump, args=(b, a), daemon=True)
    back.start()
    _pump(a, b)
    back.join()
    a.close()
    b.close()


def _serve(listener: socket.socket, connect: Callable[[], socket.socket], stop: Callable[[], bool]) -> None:
    """Accept on *listener* until *stop*; each connection joined to a fresh *connect()* (dropped when that fails)."""
    listener.settimeout(0.2)  # so *stop* is seen promptly
    while not stop():
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            continue
        except OSError:
            return
        conn.settimeout(None)
        try:
            other = connect()
        except OSError:
            conn.close()
            continue
        threading.Thread(target=_join, args=(conn, other), daemon=True).start()


class Bridge:
    """Outside the namespace: a Unix socket in a private directory, each connection forwarded to
    ``127.0.0.1:port`` (the gateway).  :meth:`close` stops it and removes the directory."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._dir = Path(tempfile.mkdtemp(prefix="anachron-gateway-"))
        self.socket_path = str(self._dir / "gateway.sock")
        self._done = threading.Event()
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._listener.bind(self.socket_path)
            self._listener.listen(16)
        except OSError as exc:
            from anachron.core.errors import AnachronError

            self._listener.close()
            shutil.rmtree(self._dir, ignore_errors=True)
            raise AnachronError(f"cannot open the gateway's socket {self.socket_path}: {exc.strerror or exc}") from None
        self._thread = threading.Thread(target=_serve, args=(self._listener, self._connect, self._done.is_set), daemon=True)
        self._thread.start()

    def _connect(self) -> socket.socket:
        conn = socket.create_connection(("127.0.0.1", self.port))
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # streamed tokens go out as they come
        return conn

    def close(self) -> None:
        self._done.set()
        self._thread.join()
        self._listener.close()
        shutil.rmtree(self._dir, ignore_errors=True)


# --- Inside the namespace (this file run as a script) ---

_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1


def loopback_up() -> None:
    """Bring ``lo`` up (a fresh namespace's is down), unless it already is (bubblewrap brings it up)."""
    import fcntl

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(sock, _SIOCGIFFLAGS, request + bytes(22))[:18])[1]
        if not flags & _IFF_UP:
            fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | _IFF_UP) + bytes(22))


def _only_loopback() -> None:
    """Fail unless loopback is the namespace's only interface and carries a connection."""
    # Asked of the kernel in this namespace (/sys/class/net shows the namespace sysfs was mounted in).
    others = sorted({name for _, name in socket.if_nameindex()} - {"lo"})
    if others:
        raise OSError(f"the namespace has interfaces besides loopback: {', '.join(others)}")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        with socket.create_connection(listener.getsockname(), timeout=5):
            pass


def _listen(port: int) -> socket.socket:
    listener = socket.socket()
    listener.bind(("127.0.0.1", port))
    listener.listen(16)
    return listener


def _connect_unix(path: str) -> Callable[[], socket.socket]:
    def connect() -> socket.socket:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(path)
        except OSError:
            conn.close()
            raise
        return conn
    return connect


def inside(args: list[str]) -> int:
    """``check``: loopback up and alone, print ``ok``.  ``inside PORT SOCKET -- ARGV``: loopback up, a
    forwarder of ``127.0.0.1:PORT`` to SOCKET left in a child (``-`` ``-``: none), then exec ARGV."""
    try:
        loopback_up()
        _only_loopback()
    except (OSError, struct.error) as exc:
        print(f"anachron isolation: loopback inside the namespace: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return 1
    if args[:1] == ["check"]:
        print("ok")
        return 0
    if len(args) < 5 or args[0] != "inside" or args[3] != "--":
        print("usage: isolation.py check | inside PORT SOCKET -- ARGV...", file=sys.stderr)
        return 2
    port, path, argv = args[1], args[2], args[4:]
    if port != "-":
        try:
            listener = _listen(int(port))
        except (OSError, ValueError) as exc:
            print(f"anachron isolation: cannot listen on 127.0.0.1:{port}: {getattr(exc, 'strerror', None) or exc}",
                  file=sys.stderr)
            return 1
        parent = os.getpid()
        if os.fork() == 0:  # the forwarder: in the harness's group, gone when the harness is
            try:
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)  # never holds the harness's stdout open
                _serve(listener, _connect_unix(path), lambda: os.getppid() != parent)
            finally:
                os._exit(0)
        listener.close()
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        print(f"anachron isolation: cannot start {argv[0]}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    return 127  # not reached: exec replaced this process


def record(isolation: Isolation | None) -> str | None:
    """``run.json``'s ``isolation``: the method, or null (none)."""
    return isolation.method if isolation is not None else None


def assumption(isolation: Isolation | None) -> str:
    """What the seal's verdict rests on, about the network the harness's own processes had."""
    if isolation is None:
        return NO_ISOLATION
    return (f"network isolated ({isolation.method}): the harness and all it started reached only loopback, "
            "the model gateway and the lock")


def main(argv: list[str] | None = None) -> int:
    return inside(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())

