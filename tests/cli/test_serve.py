"""What keeps ``anachron serve`` quick to answer: its listening socket, and (below) how a big corpus is opened.

No test here is timed (latency is measured in benchmarks/serve_latency.py);
each checks the property the speed rests on.
"""

import asyncio
import json
import os
import shutil
import socket
import tempfile
import threading
import unittest
import unittest.mock
from pathlib import Path

from anachron.cli.serve import listen, size
from anachron.core.dates import parse_date
from anachron.core.errors import AnachronError
from anachron.store.cache import INDEX_ABOVE, cache_root, cached_index_path, open_cached_index
from anachron.timelock import CorpusBackend, EventWriter, PendingBackend, TimeLock, open_engine

from tests.mcp_support import TIMEOUT, read_log, text_of
from tests.support import ROOT, require_extra, run_cli

T = "2022-06-01"
V0 = ROOT / "corpus" / "v0"
QUERIES = ("aster logistics", "delta pharma", "cygnus", "regional hubs")


class ListeningSocketTest(unittest.TestCase):
    def test_the_socket_is_tcp_so_every_accepted_connection_gets_nodelay(self):
        # asyncio sets TCP_NODELAY on an accepted connection only when the listening socket's
        # protocol is IPPROTO_TCP; without it a response written in two pieces waits ~40 ms.
        sock = listen("127.0.0.1", 0)
        self.assertEqual(sock.proto, socket.IPPROTO_TCP)
        seen = []

        async def handle(reader, writer):
            seen.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        async def run():
            server = await asyncio.start_server(handle, sock=sock)
            reader, writer = await asyncio.open_connection("127.0.0.1", sock.getsockname()[1])
            await reader.read()  # the server closes once it has looked
            writer.close()
            server.close()

        asyncio.run(run())
        self.assertEqual(len(seen), 1)
        self.assertNotEqual(seen[0], 0)

    def test_ipv6_loopback_is_tcp_too(self):
        if not socket.has_ipv6:
            self.skipTest("no IPv6 here")
        try:
            sock = listen("::1", 0)
        except AnachronError as exc:  # a host without an IPv6 loopback
            self.skipTest(str(exc))
        with sock:
            self.assertEqual((sock.family, sock.proto), (socket.AF_INET6, socket.IPPROTO_TCP))

    def test_a_port_in_use_is_an_error_naming_the_address(self):
        first = listen("127.0.0.1", 0)
        with first:
            port = first.getsockname()[1]
            # SO_REUSEADDR does not let a second socket listen on a port another is listening on.
            with self.assertRaisesRegex(AnachronError, rf"--http: cannot listen on 127\.0\.0\.1:{port}"):
                listen("127.0.0.1", port).close()


def copy_v0(where: Path) -> Path:
    where.mkdir(parents=True)
    for name in ("items.jsonl", "entities.jsonl", "samples.jsonl"):
        shutil.copy(V0 / name, where / name)
    return where


def ids(result):
    return [r["id"] for r in (result.structured_content or {}).get("results", [])]


class SizeOptionTest(unittest.TestCase):
    def test_sizes_and_never(self):
        self.assertEqual([size(t) for t in ("0", "1", "512K", "32M", "2G", "never")], [0, 1, 512 << 10, 32 << 20, 2 << 30, None])
        self.assertEqual(size("32M"), INDEX_ABOVE)  # the command's default is the documented one

    def test_a_bad_size_is_a_usage_error(self):
        for bad in ("", "32MB", "-1", "1.5M", "32m", "Never", "1" * 16):
            with self.subTest(bad=bad), tempfile.TemporaryDirectory() as tmp:
                status, out, err = run_cli("serve", "--as-of", T, "--events", f"{tmp}/e.jsonl", "--index-above", bad)
                self.assertEqual((status, out), (2, ""))
                self.assertIn("--index-above", err)
                self.assertFalse(Path(tmp, "e.jsonl").exists())


class CacheLocationTest(unittest.TestCase):
    def setUp(self):
        self.saved = os.environ.get("XDG_CACHE_HOME")
        self.addCleanup(self.restore)

    def restore(self):
        if self.saved is None:
            os.environ.pop("XDG_CACHE_HOME", None)
        else:
            os.environ["XDG_CACHE_HOME"] = self.saved

    def test_xdg_cache_home_when_absolute_else_home_cache(self):
        os.environ["XDG_CACHE_HOME"] = "/somewhere/cache"
        self.assertEqual(cache_root(), Path("/somewhere/cache/anachron/indexes"))
        for ignored in ("relative/cache", ""):
            os.environ["XDG_CACHE_HOME"] = ignored
            self.assertEqual(cache_root(), Path.home() / ".cache" / "anachron" / "indexes")
        os.environ.pop("XDG_CACHE_HOME")
        self.assertEqual(cache_root(), Path.home() / ".cache" / "anachron" / "indexes")

    def test_two_directories_of_one_name_have_two_cached_indexes(self):
        with tempfile.TemporaryDirectory() as tmp:
            a, b = Path(tmp, "a", "corpus"), Path(tmp, "b", "corpus")
            root = Path(tmp, "cache")
            self.assertNotEqual(cached_index_path(a, root), cached_index_path(b, root))
            self.assertEqual(cached_index_path(a, root), cached_index_path(Path(tmp, "a", ".", "corpus"), root))
            self.assertEqual(cached_index_path(a, root).parent, root)


class CachedIndexTest(unittest.TestCase):
    """open_cached_index: built once, reused while fresh, rebuilt when the corpus changes; same answers."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.corpus = copy_v0(self.tmp / "corpus")
        self.root = self.tmp / "cache"

    def open(self):
        said = []
        engine = open_cached_index(self.corpus, root=self.root, say=said.append)
        return engine, said

    def test_built_once_then_reused_then_rebuilt_when_stale(self):
        engine, said = self.open()
        self.assertEqual(len(said), 2, said)
        self.assertIn("building an index", said[0])
        self.assertEqual(engine.path, cached_index_path(self.corpus, self.root))
        self.assertEqual(engine.meta["samples"], "none")  # a served index never holds the samples
        built = engine.path.stat().st_mtime_ns
        again, said = self.open()
        self.assertEqual(len(said), 1)
        self.assertIn("(fresh)", said[0])
        self.assertEqual(again.path.stat().st_mtime_ns, built)
        # A changed item (same size, another time) makes the cached index stale: rebuilt, and it shows.
        items = (self.corpus / "items.jsonl").read_text(encoding="utf-8")
        (self.corpus / "items.jsonl").write_text(items.replace("Aster Logistics adds two", "Aster Logistics adds six"), encoding="utf-8")
        rebuilt, said = self.open()
        self.assertIn("stale", said[0])
        self.assertIn("building an index", said[0])
        hits = rebuilt.search("aster logistics adds", as_of=parse_date(T), mode="enforced", k=5)
        self.assertIn("Aster Logistics adds six regional hubs", [h.title for h in hits])

    def test_a_damaged_or_foreign_cached_file_is_rebuilt(self):
        path = cached_index_path(self.corpus, self.root)
        path.parent.mkdir(parents=True)
        path.write_bytes(b"not a database")
        engine, said = self.open()
        self.assertIn("not a SQLite database", said[0])
        memory = open_engine(str(self.corpus))
        self.assertEqual(
            [i.id for i in engine.search("aster logistics", as_of=parse_date(T), mode="enforced", k=5)],
            [i.id for i in memory.search("aster logistics", as_of=parse_date(T), mode="enforced", k=5)],
        )
        # An index of another directory at this name (a copied cache) is not this corpus's.
        other = copy_v0(self.tmp / "other")
        open_cached_index(other, root=self.root)
        shutil.copy(cached_index_path(other, self.root), path)
        _, said = self.open()
        self.assertIn(f"built from {other.resolve()}", said[0])

    def test_the_same_answers_as_the_directory_in_memory(self):
        engine, _ = self.open()
        memory = open_engine(str(self.corpus))
        for query in QUERIES:
            for mode in ("enforced", "unrestricted"):
                for day in ("2021-01-01", T, "2030-01-01"):
                    with self.subTest(query=query, mode=mode, day=day):
                        got = [i.id for i in engine.search(query, as_of=parse_date(day), mode=mode, k=10)]
                        want = [i.id for i in memory.search(query, as_of=parse_date(day), mode=mode, k=10)]
                        self.assertEqual(got, want)

    def test_a_same_size_edit_keeping_the_time_of_a_file_written_just_before_the_build_is_seen(self):
        # Racy freshness: an edit of the same size within the build's clock tick keeps size and time.
        engine, _ = self.open()
        engine.close()
        items = self.corpus / "items.jsonl"
        before = items.stat()
        text = items.read_text(encoding="utf-8")
        items.write_text(text.replace("Aster Logistics adds two", "Aster Logistics adds six"), encoding="utf-8")
        os.utime(items, ns=(before.st_atime_ns, before.st_mtime_ns))
        self.assertEqual((items.stat().st_size, items.stat().st_mtime_ns), (before.st_size, before.st_mtime_ns))
        rebuilt, said = self.open()
        self.assertIn("stale", said[0])
        self.assertIn("building an index", said[0])
        hits = rebuilt.search("aster logistics adds", as_of=parse_date(T), mode="enforced", k=5)
        self.assertIn("Aster Logistics adds six regional hubs", [h.title for h in hits])
        rebuilt.close()

    @unittest.skipUnless(hasattr(os, "getuid"), "POSIX owners")
    def test_a_cached_index_of_another_user_is_not_trusted(self):
        self.open()[0].close()
        path = cached_index_path(self.corpus, self.root)
        with unittest.mock.patch("os.getuid", return_value=path.stat().st_uid + 1):
            engine, said = self.open()
        self.assertIn("owned by another user", said[0])
        self.assertIn("building an index", said[0])
        engine.close()
        _, said = self.open()
        self.assertIn("(fresh)", said[0])

    def test_a_cache_that_cannot_be_used_is_one_error_naming_it(self):
        with unittest.mock.patch("pathlib.Path.is_file", side_effect=PermissionError(13, "Permission denied")):
            with self.assertRaisesRegex(AnachronError, r"cannot use the index cache: Permission denied; .*--index-above never") as caught:
                self.open()
        self.assertNotIn("\n", str(caught.exception))
        self.assertIn(str(cached_index_path(self.corpus, self.root)), str(caught.exception))

    def test_a_bad_corpus_is_an_error_and_leaves_no_cached_file(self):
        (self.corpus / "items.jsonl").write_text('{"id": "x"}\n', encoding="utf-8")
        with self.assertRaisesRegex(AnachronError, "items.jsonl"):
            self.open()
        self.assertEqual(list(self.root.glob("*")) if self.root.exists() else [], [])


class PendingCorpusOverMcpTest(unittest.TestCase):
    """The real SDK client, in process: initialize and list tools while the corpus is still opening."""

    def setUp(self):
        require_extra("mcp", "mcp")
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.release = threading.Event()

    def lock_on(self, opener):
        backend = PendingBackend(opener, str(V0), phase="loading the test corpus", ranking="bm25")
        events = EventWriter(self.tmp / "events.jsonl")
        self.addCleanup(events.close)
        return backend, TimeLock(backend, parse_date(T), events)

    def session(self, lock, backend):
        import anyio
        from mcp import Client

        from anachron.mcp import build_server

        seen = {}

        async def run():
            notices = []
            noticed = anyio.Event()

            async def progress(done, total, message):
                notices.append(message)
                noticed.set()

            with anyio.fail_after(TIMEOUT):
                backend.start()
                async with Client(build_server(lock)) as client:
                    seen["tools"] = [t.name for t in (await client.list_tools()).tools]
                    seen["ready at list"] = backend.ready
                    async with anyio.create_task_group() as tasks:

                        async def search():
                            seen["search"] = await client.call_tool("search", {"query": "aster logistics"}, progress_callback=progress)

                        tasks.start_soon(search)
                        await noticed.wait()  # the call is waiting, and says so
                        seen["ready at notice"] = backend.ready
                        self.release.set()
                    seen["notices"] = notices
                    seen["after"] = await client.call_tool("search", {"query": "delta pharma"})

        anyio.run(run)
        return seen

    def test_initialize_and_tools_are_answered_while_the_corpus_opens_and_calls_wait_for_it(self):
        def opener():
            self.release.wait(TIMEOUT)
            return CorpusBackend(open_engine(str(V0)))

        backend, lock = self.lock_on(opener)
        seen = self.session(lock, backend)
        self.assertEqual(seen["tools"], ["search", "fetch"])
        self.assertFalse(seen["ready at list"])
        self.assertFalse(seen["ready at notice"])
        self.assertIn("loading the test corpus", seen["notices"][0])
        self.assertFalse(seen["search"].is_error, text_of(seen["search"]))
        expected = [i.id for i in open_engine(str(V0)).search("aster logistics", as_of=parse_date(T), mode="enforced", k=5)]
        self.assertEqual(ids(seen["search"]), expected)
        self.assertTrue(expected)
        log = read_log(self.tmp / "events.jsonl")
        self.assertEqual(log[0]["source"], str(V0))  # the start record names the corpus, as an opened one would
        self.assertEqual(log[0]["ranking"], "bm25")  # ... and the ranking, known before the corpus is open
        self.assertEqual([r["status"] for r in log[1:]], ["ok", "ok"])

    def test_a_call_cancelled_while_the_corpus_opens_is_still_logged(self):
        import anyio
        from mcp import Client

        from anachron.mcp import build_server

        def opener():
            self.release.wait(TIMEOUT)
            return CorpusBackend(open_engine(str(V0)))

        backend, lock = self.lock_on(opener)

        async def run():
            noticed = anyio.Event()

            async def progress(done, total, message):
                noticed.set()

            with anyio.fail_after(TIMEOUT):
                backend.start()
                async with Client(build_server(lock)) as client:
                    async with anyio.create_task_group() as tasks:

                        async def search():
                            await client.call_tool("search", {"query": "aster logistics"}, progress_callback=progress)

                        tasks.start_soon(search)
                        await noticed.wait()
                        tasks.cancel_scope.cancel()  # the client gives up on the waiting call

        anyio.run(run)
        self.release.set()
        log = read_log(self.tmp / "events.jsonl")
        self.assertEqual([r["status"] for r in log[1:]], ["refused"], log)
        self.assertIn("cancelled while the corpus was still opening", json.dumps(log[1]))

    def test_a_corpus_that_fails_to_open_makes_every_call_an_error_naming_why(self):
        def opener():
            self.release.wait(TIMEOUT)
            raise AnachronError("items.jsonl line 3: not JSON")

        backend, lock = self.lock_on(opener)
        seen = self.session(lock, backend)
        for name in ("search", "after"):
            self.assertTrue(seen[name].is_error)
            self.assertIn("the corpus could not be opened: items.jsonl line 3: not JSON", text_of(seen[name]))
        self.assertIsInstance(backend.wait(), AnachronError)
        self.assertEqual([r["status"] for r in read_log(self.tmp / "events.jsonl")[1:]], ["error", "error"])




if __name__ == "__main__":
    unittest.main()
