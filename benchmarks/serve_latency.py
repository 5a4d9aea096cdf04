"""Per-call latency of ``anachron serve`` over stdio and streamable HTTP, beside the SDK's echo floor.

    python benchmarks/serve_latency.py                          # 300 calls per server and transport
    python benchmarks/serve_latency.py --calls 1000
    python benchmarks/serve_latency.py --baseline /work/main    # ... and an older tree's serve, same run

Needs the ``mcp`` extra.  In one run, each server is a child process driven
by the SDK's own client (``mcp.Client``) over loopback, one session, the
calls made one after another (each waits for its answer):

- floor: the SDK's ``MCPServer`` with one tool, ``echo`` (returns its
  argument), over stdio and over streamable HTTP (``run("streamable-http")``);
- ``anachron serve --as-of 2022-06-01`` on the bundled corpus, a ``search``
  per call (the same query each time), over stdio and ``--http 127.0.0.1:0``;
- with --baseline DIR, the same ``anachron serve`` from another checkout
  (say, one from before a change), with ``PYTHONPATH=DIR``;
- the mechanism, without MCP: an asyncio server that answers each request
  in two writes (a header, then a body), on a listening socket made with
  protocol 0 (what ``serve`` made before issue 22: asyncio then leaves
  ``TCP_NODELAY`` off, and Nagle's algorithm holds the second write until
  the client's delayed ACK) and on ``anachron.cli.serve.listen``'s socket.

After --warmup calls (not timed), --calls calls are timed on the client
side (``time.perf_counter`` around ``call_tool``); printed are the median,
p95 and mean per call, and each server's median over the floor's on the
same transport.  Latency is the whole round trip: the client's encoding,
the transport, the server's handling (for anachron, the lock, the search
and the event log write) and the client's decoding.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

T = "2022-06-01"
QUERY = {"query": "cygnus"}

ECHO = textwrap.dedent(
    """
    import sys
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("echo")

    @server.tool()
    def echo(text: str) -> str:
        return text

    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    """
)


def machine() -> str:
    from compare_modes import machine as base  # one description of the machine for every benchmark


    from importlib.metadata import version

    return f"{base().split('; numpy')[0].split('; scipy')[0]}; mcp {version('mcp')}"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited ({process.returncode}) before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listened on port {port} within {timeout} s")


def env_for(tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    return env


async def timed_calls(client, tool: str, arguments: dict, *, warmup: int, calls: int) -> list[float]:
    for _ in range(warmup):
        await client.call_tool(tool, arguments)
    out = []
    for _ in range(calls):
        start = time.perf_counter()
        result = await client.call_tool(tool, arguments)
        out.append(time.perf_counter() - start)
        if result.is_error:
            raise SystemExit(f"{tool} answered an error: {result.content}")
    return out


async def over_stdio(command: list[str], env: dict[str, str], tool: str, arguments: dict, **counts) -> list[float]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT), env=env)
    with open(os.devnull, "w") as quiet:
        async with Client(stdio_client(params, errlog=quiet), read_timeout_seconds=60) as client:
            return await timed_calls(client, tool, arguments, **counts)


async def over_http(url: str, tool: str, arguments: dict, *, mode: str, **counts) -> list[float]:
    from mcp import Client

    async with Client(url, mode=mode, read_timeout_seconds=60) as client:
        return await timed_calls(client, tool, arguments, **counts)


def http_server(command: list[str], env: dict[str, str], port: int | None):
    """Start *command*; its URL (from the port, or from anachron's stderr status line)."""
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if port is not None:
        wait_for_port(port, process)
        return process, f"http://127.0.0.1:{port}/mcp"
    line = process.stderr.readline()
    if "http://" not in line:
        process.kill()
        raise SystemExit(f"anachron serve announced no URL: {line!r}")
    return process, line.rsplit(", ", 1)[-1].strip()


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def two_writes(proto_zero: bool, calls: int) -> tuple[list[float], int]:
    """Round trips to an asyncio server answering in two writes; and whether it had TCP_NODELAY."""
    import asyncio

    from anachron.cli.serve import listen

    nodelay = []
    done = None

    async def handle(reader, writer) -> None:
        sock = writer.get_extra_info("socket")
        nodelay.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        while await reader.read(64):
            writer.write(b"HTTP/1.1 200 OK\r\n")
            await writer.drain()
            await asyncio.sleep(0)
            writer.write(b"x" * 40)
            await writer.drain()
        writer.close()
        done.set()

    async def run() -> list[float]:
        nonlocal done
        done = asyncio.Event()
        if proto_zero:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind(("127.0.0.1", 0))
            sock.listen(8)
        else:
            sock = listen("127.0.0.1", 0)
        server = await asyncio.start_server(handle, sock=sock)
        reader, writer = await asyncio.open_connection("127.0.0.1", sock.getsockname()[1])
        out = []
        for _ in range(calls):
            start = time.perf_counter()
            writer.write(b"GET")
            await writer.drain()
            got = 0
            while got < 57:
                got += len(await reader.read(1024))
            out.append(time.perf_counter() - start)
        writer.close()
        await done.wait()  # the handler has seen the end of input: nothing left to cancel
        server.close()
        return out

    times = asyncio.run(run())
    return times, nodelay[0]


def summary(name: str, times: list[float], floor: float | None) -> str:
    ordered = sorted(times)
    p50 = statistics.median(ordered) * 1000
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000
    mean = statistics.fmean(ordered) * 1000
    ratio = f"{p50 / floor:6.2f}x" if floor else "  floor"
    return f"  {name:<34} p50 {p50:7.2f} ms   p95 {p95:7.2f} ms   mean {mean:7.2f} ms   {ratio}"


def main() -> int:
    import anyio

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--mode", default="auto", choices=("auto", "legacy"), help="the HTTP client's protocol era (default: auto)")
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="an older checkout whose serve is timed too")
    args = parser.parse_args()
    counts = {"warmup": args.warmup, "calls": args.calls}

    print(f"serve latency: {args.calls} calls after {args.warmup} warm-up calls, one session, loopback, HTTP client mode {args.mode}")
    print(f"machine: {machine()}")
    trees = [("anachron serve", ROOT)] + ([(f"anachron serve ({args.baseline})", args.baseline.resolve())] if args.baseline else [])
    with tempfile.TemporaryDirectory() as tmp:
        echo = [sys.executable, "-c", ECHO]
        for transport in ("stdio", "http"):
            print(f"{transport}:")
            if transport == "stdio":
                floor = anyio.run(lambda: over_stdio(echo + ["stdio"], dict(os.environ), "echo", {"text": "cygnus"}, **counts))
            else:
                port = free_port()
                process, url = http_server(echo + ["http", str(port)], dict(os.environ), port)
                try:
                    floor = anyio.run(lambda: over_http(url, "echo", {"text": "cygnus"}, mode=args.mode, **counts))
                finally:
                    stop(process)
            base = statistics.median(floor) * 1000
            print(summary("SDK echo (MCPServer)", floor, None))
            for n, (name, tree) in enumerate(trees):
                events = Path(tmp) / f"events-{transport}-{n}.jsonl"
                command = [sys.executable, "-m", "anachron", "serve", "--as-of", T, "--events", str(events)]
                if transport == "stdio":
                    times = anyio.run(lambda: over_stdio(command, env_for(tree), "search", QUERY, **counts))
                else:
                    process, url = http_server(command + ["--http", "127.0.0.1:0"], env_for(tree), None)
                    try:
                        times = anyio.run(lambda: over_http(url, "search", QUERY, mode=args.mode, **counts))
                    finally:
                        stop(process)
                print(summary(name, times, base))
    calls = min(args.calls, 100)
    print(f"mechanism (asyncio, a two-write answer, {calls} round trips):")
    after, _ = two_writes(False, calls)
    base = statistics.median(after) * 1000
    for proto_zero, name in ((False, "serve.listen (IPPROTO_TCP)"), (True, "protocol 0 (before issue 22)")):
        times, nodelay = two_writes(proto_zero, calls) if proto_zero else (after, 1)
        print(summary(f"{name}, TCP_NODELAY={nodelay}", times, None if not proto_zero else base))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
