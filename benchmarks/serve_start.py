"""How soon ``anachron serve`` answers from a large corpus directory: initialize, then the first search.

    python benchmarks/serve_start.py DIR                        # two starts: the cache built, then reused
    python benchmarks/serve_start.py DIR --starts 3 --cache /tmp/c --query "zilo pamedefo"

Needs the ``mcp`` extra.  Each start spawns ``anachron serve --corpus DIR --as-of T`` over stdio
(this tree, ``XDG_CACHE_HOME`` set to ``--cache``, a fresh event log directory) and drives it with
the SDK's client (``mcp.Client``): the time from the spawn to the answered ``initialize`` (the
client's connect: the interpreter's start and imports, then the handshake), then the time from
the spawn to the answer of one ``search`` made at once (it waits while the corpus opens; the
progress notices it received are counted), and the server's stderr.  The first start finds
``--cache`` empty (it is emptied unless ``--keep-cache``), so it builds the cached index; later
starts reuse it.  Wall time, one start after another: the load average is printed before each.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


async def start(corpus: Path, cache: Path, as_of: str, query: str, timeout: float) -> tuple[float, float, int, int, str]:
    """(initialize answered, search answered, progress notices, items returned, stderr), times from the spawn."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    notices = 0

    async def progress(*_args) -> None:
        nonlocal notices
        notices += 1

    with tempfile.TemporaryDirectory() as events, tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        env = {"PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache), "PATH": os.environ.get("PATH", "")}
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "anachron", "serve", "--corpus", str(corpus), "--as-of", as_of, "--events-dir", events],
            cwd=str(ROOT), env=env)
        began = time.perf_counter()
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=timeout) as client:
            ready = time.perf_counter() - began
            result = await client.call_tool("search", {"query": query}, progress_callback=progress)
            answered = time.perf_counter() - began
            if result.is_error:
                raise SystemExit(f"search answered an error: {result.content}")
            returned = len(result.structured_content.get("results", [])) if result.structured_content else -1
        errlog.seek(0)
        return ready, answered, notices, returned, errlog.read()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", metavar="DIR", help="a corpus directory (benchmarks/corpus_gen.py)")
    parser.add_argument("--cache", metavar="DIR", help="XDG_CACHE_HOME of the server (default: a temporary directory)")
    parser.add_argument("--keep-cache", action="store_true", help="do not empty --cache before the first start")
    parser.add_argument("--starts", type=int, default=2)
    parser.add_argument("--as-of", default="2022-06-01")
    parser.add_argument("--query", default="dorozi dagehe zonolo")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds any one answer may take")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(args.cache) if args.cache else Path(tmp)
        if args.cache and not args.keep_cache:
            shutil.rmtree(cache / "anachron", ignore_errors=True)
        cache.mkdir(parents=True, exist_ok=True)
        size = (Path(args.corpus) / "items.jsonl").stat().st_size
        print(f"{args.corpus}: {size / 2**20:.0f} MiB of items.jsonl; serve --as-of {args.as_of}, search {args.query!r}")
        for number in range(1, args.starts + 1):
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            ready, answered, notices, returned, stderr = asyncio.run(start(Path(args.corpus), cache, args.as_of, args.query, args.timeout))
            print(f"start {number} (load average {load}): initialize answered {ready:.2f} s, first search answered "
                  f"{answered:.2f} s ({returned} items, {notices} progress notices)")
            for line in stderr.splitlines():
                print(f"    stderr: {line}")


if __name__ == "__main__":
    main()
