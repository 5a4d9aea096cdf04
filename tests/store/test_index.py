"""The SQLite corpus index: same results as the in-memory engine, freshness, atomic builds, every --corpus.

The reference is :class:`anachron.store.SearchEngine` over the directory the
index was built from; cases are in tests/engine_cases.py (the v0 corpus and a
generated one, both modes, boundary dates, hostile queries).
"""

import datetime as dt
import errno
import json
import os
import shutil
import sqlite3
import stat
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from anachron.core import default_corpus_dir
from anachron.store import load_corpus
from anachron.store.index import IndexEngine, build_index, load_index
from anachron.core.errors import AnachronError
from anachron.timelock import CorpusBackend, EventWriter, TimeLock, open_engine

from tests import engine_cases
from tests.support import run_cli

V0 = default_corpus_dir()


class _Dir(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def copy_v0(self, name="v0"):
        target = self.dir / name
        shutil.copytree(V0, target)
        return target




class CorpusFromIndexTest(_Dir):
    def test_the_corpus_reads_back_exactly(self):
        for source in (V0, engine_cases.generated_corpus(self.dir / "gen", items=500)):
            index = build_index(source, self.dir / f"{source.name}.db").path
            want, got = load_corpus(source), load_corpus(index)
            self.assertEqual(list(got.items), list(want.items))  # file order
            self.assertEqual(list(got.items.values()), list(want.items.values()))
            self.assertEqual([dict(i.extra) for i in got.items.values()], [dict(i.extra) for i in want.items.values()])
            self.assertEqual(list(got.entities.values()), list(want.entities.values()))
            self.assertEqual(list(got.samples.values()), list(want.samples.values()))
            self.assertEqual([dict(s.extra) for s in got.samples.values()], [dict(s.extra) for s in want.samples.values()])
            self.assertEqual(load_index(index, samples=False).samples, {})

    def test_hostile_strings_survive(self):
        root = self.dir / "hostile"
        root.mkdir()
        rows = [
            {"id": "a\ud800", "slice": "s", "publish_date": "2020-01-01", "title": "lone \udfff surrogate", "text": "nul \x00 here \u2028 sep", "entities": [], "restates": None, "x": float("1e308")},
            {"id": "b\x00", "slice": "s", "publish_date": "2020-01-02", "title": "surrogate again", "text": "", "entities": [], "restates": "a\ud800"},
        ]
        (root / "items.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        index = build_index(root, self.dir / "h.db").path
        self.assertEqual(list(load_corpus(index).items.values()), list(load_corpus(root).items.values()))
        engine = IndexEngine(index)
        self.assertEqual(engine.fetch("a\ud800", as_of=dt.date(2020, 1, 1)).text, "nul \x00 here \u2028 sep")
        # BM25: b's title is the shorter one (2 terms against 3), and b is the newer.
        self.assertEqual([i.id for i in engine.search("surrogate", as_of=dt.date(2020, 1, 2))], ["b\x00", "a\ud800"])
        self.assertEqual([i.id for i in engine.search("surrogate", as_of=dt.date(2020, 1, 2), ranking="count")], ["a\ud800", "b\x00"])
        engine.close()


    def test_items_are_read_when_asked_for_and_answer_as_the_directory_does(self):
        from anachron.store.index import IndexItems

        source = V0
        index = build_index(source, self.dir / "v0.db").path
        want, got = load_corpus(source), load_corpus(index)
        self.assertIsInstance(got.items, IndexItems)
        self.assertEqual(len(got.items), len(want.items))
        for ident, item in want.items.items():
            self.assertEqual(got.items[ident], item)
            self.assertIn(ident, got.items)
        self.assertEqual(dict(got.items.items()), dict(want.items))
        for absent in ("no-such-id", "fin-001\n", "\ud800", "", 7, None, ("fin-001",)):
            self.assertNotIn(absent, got.items)
            self.assertIsNone(got.items.get(absent))
            self.assertEqual(got.items.get(absent, "x"), "x")
        with self.assertRaises(KeyError):
            got.items["no-such-id"]
        # Facts: only the items declaring them are read, and the answers are the directory's.
        self.assertTrue(want.fact_sources)
        self.assertEqual(got.fact_sources, want.fact_sources)
        for text in ("Cygnus Robotics", "Delta Freight and CYGN", "nothing named", "Oracle"):
            self.assertEqual(got.facts_about(text), want.facts_about(text), text)

    def test_the_item_cache_is_bounded_and_stays_exact(self):
        from anachron.store.index import IndexItems

        index = build_index(V0, self.dir / "v0.db").path
        want = load_corpus(V0)
        with mock.patch.object(IndexItems, "CACHE", 3):
            got = load_corpus(index)
            for _ in range(2):
                for ident in list(want.items) + ["absent"]:
                    self.assertEqual(got.items.get(ident), want.items.get(ident))
                    self.assertLessEqual(len(got.items._kept), 3)

    def test_a_forked_process_reads_through_its_own_connection(self):
        import multiprocessing

        index = build_index(V0, self.dir / "v0.db").path
        got = load_corpus(index)
        first = next(iter(load_corpus(V0).items.values()))
        self.assertEqual(got.items[first.id], first)  # the parent has a connection now
        global _FORKED
        _FORKED = got  # inherited by the forked worker, as `anachron score --jobs` workers inherit it
        context = multiprocessing.get_context("fork")
        last = list(load_corpus(V0).items.values())[-1]  # not read by the parent: the child must query
        with context.Pool(1) as pool:
            self.assertEqual(pool.apply(_title_of, (last.id,)), (last.title, True))
        _FORKED = None
        self.assertEqual(got.items.get(last.id), last)  # the parent's connection still works

    def test_a_damaged_index_is_one_clear_error_at_the_lookup(self):
        index = build_index(V0, self.dir / "v0.db").path
        got = load_corpus(index)
        con = sqlite3.connect(index)
        con.execute("UPDATE items SET doc = '{broken' WHERE pos = 0")
        con.commit()
        con.close()
        first = next(iter(load_corpus(V0).items))
        with self.assertRaisesRegex(AnachronError, r"v0\.db: a damaged index"):
            got.items.get(first)


_FORKED = None


def _title_of(ident):
    """In a forked child: the title of *ident*, and whether the child read it through its own connection."""
    corpus = _FORKED
    inherited = corpus.items._pid != os.getpid()
    title = corpus.items[ident].title
    return title, inherited and corpus.items._pid == os.getpid()



class FreshnessTest(_Dir):
    def test_a_changed_file_makes_the_index_stale(self):
        root = self.copy_v0()
        index = build_index(root, self.dir / "c.db").path
        lines = (root / "items.jsonl").read_text(encoding="utf-8").split("\n")
        lines[0] = lines[0].replace("two regional hubs", "three regional hubs")
        (root / "items.jsonl").write_text("\n".join(lines), encoding="utf-8")
        for opener in (IndexEngine, load_corpus):
            with self.assertRaisesRegex(AnachronError, r"stale index: .*items\.jsonl changed since it was indexed") as cm:
                opener(index)
            self.assertNotIn("\n", str(cm.exception))

    def test_same_size_same_time_is_trusted_but_a_new_time_is_hashed(self):
        root = self.copy_v0()
        index = build_index(root, self.dir / "c.db").path
        items = root / "items.jsonl"
        before = items.stat()
        os.utime(items, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))  # touched, same bytes
        self.assertEqual(len(load_corpus(index).items), 52)
        text = items.read_text(encoding="utf-8")
        items.write_text(text.replace("fin-001", "fin-00X", 1), encoding="utf-8")  # same size, new bytes
        with self.assertRaisesRegex(AnachronError, "stale index"):
            IndexEngine(index)

    def test_a_same_size_edit_in_the_clock_tick_of_the_build_is_seen(self):
        # Size and time kept (an edit within the build's tick, or a time restored): the recorded time is
        # within RACY_NS of the index file's, so the file is hashed; long before it, size and time are trusted.
        root = self.copy_v0()
        for name in ("items.jsonl", "entities.jsonl", "samples.jsonl"):
            os.utime(root / name)  # written just now (copytree kept the repository's times)
        index = build_index(root, self.dir / "c.db").path
        items = root / "items.jsonl"
        before = items.stat()
        text = items.read_text(encoding="utf-8")
        items.write_text(text.replace("fin-001", "fin-00X", 1), encoding="utf-8")
        os.utime(items, ns=(before.st_atime_ns, before.st_mtime_ns))
        for opener in (IndexEngine, load_corpus):
            with self.assertRaisesRegex(AnachronError, r"stale index: .*items\.jsonl changed since it was indexed"):
                opener(index)
        items.write_text(text, encoding="utf-8")
        old = before.st_mtime_ns - 3600 * 10**9
        for name in ("items.jsonl", "entities.jsonl", "samples.jsonl"):
            os.utime(root / name, ns=(old, old))
        index = build_index(root, self.dir / "old.db").path
        items.write_text(text.replace("fin-001", "fin-00X", 1), encoding="utf-8")
        os.utime(items, ns=(old, old))
        IndexEngine(index).close()  # trusted on size and time (the documented rule: not read again)

    def test_an_added_or_removed_file_makes_it_stale(self):
        root = self.copy_v0()
        index = build_index(root, self.dir / "c.db").path
        (root / "entities.jsonl").rename(self.dir / "entities.jsonl")
        with self.assertRaisesRegex(AnachronError, r"entities\.jsonl changed"):
            IndexEngine(index)
        (self.dir / "entities.jsonl").rename(root / "entities.jsonl")
        IndexEngine(index).close()
        # Samples: only what the index holds is checked, and serving never looks at samples.jsonl.
        (root / "samples.jsonl").write_text("", encoding="utf-8")
        IndexEngine(index).close()
        with self.assertRaisesRegex(AnachronError, r"samples\.jsonl changed"):
            load_corpus(index)
        served = build_index(root, self.dir / "served.db", samples=False).path
        (root / "samples.jsonl").unlink()
        self.assertEqual(load_corpus(served).samples, {})

    def test_a_moved_index_stands_alone(self):
        root = self.copy_v0()
        index = build_index(root, self.dir / "c.db").path
        shutil.rmtree(root)
        self.assertEqual(len(load_corpus(index).items), 52)


class BuildTest(_Dir):
    def test_a_failed_build_leaves_the_old_index_and_no_temporary(self):
        root = self.copy_v0()
        out = self.dir / "c.db"
        build_index(root, out)
        before = out.read_bytes()
        with open(root / "items.jsonl", "a", encoding="utf-8") as fh:
            fh.write('{"id": "fin-001"}\n')
        with self.assertRaisesRegex(AnachronError, r"items\.jsonl:53"):
            build_index(root, out)
        self.assertEqual(out.read_bytes(), before)
        self.assertEqual(sorted(p.name for p in self.dir.iterdir()), ["c.db", "v0"])

    def test_normal_file_mode_and_same_bytes_for_the_same_corpus(self):
        a = build_index(V0, self.dir / "a.db").path
        b = build_index(V0, self.dir / "sub" / "b.db").path
        mask = os.umask(0)
        os.umask(mask)
        self.assertEqual(stat.S_IMODE(a.stat().st_mode), 0o666 & ~mask)
        self.assertEqual(a.read_bytes(), b.read_bytes())

    def test_a_bad_corpus_is_the_error_load_corpus_gives(self):
        # The build streams the items (checked once, read again in ord order) but applies
        # load_corpus's rules: each bad corpus gets the same message, and no index is left.
        v0_items = (V0 / "items.jsonl").read_text(encoding="utf-8")
        first = json.loads(v0_items.split("\n", 1)[0])
        later = dict(first, id="zz-later", publish_date="2031-01-01")
        cases = {
            "duplicate id": v0_items + json.dumps(first) + "\n",
            "unknown entity": v0_items + json.dumps(dict(first, id="zz-1", entities=["NOPE"])) + "\n",
            "bad date": v0_items + json.dumps(dict(first, id="zz-1", publish_date="2023-02-30")) + "\n",
            "restates unknown": v0_items + json.dumps(dict(first, id="zz-1", restates="nope")) + "\n",
            "restates itself": v0_items + json.dumps(dict(first, id="zz-1", restates="zz-1")) + "\n",
            "restates a later item, forward in the file": json.dumps(dict(first, id="zz-1", restates="zz-later")) + "\n" + v0_items + json.dumps(later) + "\n",
            "a cycle": v0_items + json.dumps(dict(first, id="zz-1", restates="zz-2")) + "\n" + json.dumps(dict(first, id="zz-2", restates="zz-1")) + "\n",
            "not an object": v0_items + "[1, 2]\n",
            "not JSON": v0_items + "{nope\n",
            "NaN": v0_items + json.dumps(dict(first, id="zz-1")).replace('"zz-1"', '"zz-1", "x": NaN') + "\n",
        }
        for name, text in cases.items():
            with self.subTest(name):
                root = self.copy_v0()
                (root / "items.jsonl").write_text(text, encoding="utf-8")
                with self.assertRaises(AnachronError) as want:
                    load_corpus(root)
                with self.assertRaises(AnachronError) as got:
                    build_index(root, self.dir / "x.db")
                self.assertEqual(str(got.exception), str(want.exception))
                self.assertFalse((self.dir / "x.db").exists())
                shutil.rmtree(root)
        root = self.copy_v0()
        (root / "items.jsonl").write_bytes(v0_items.encode("utf-8") + b'{"id": "\xff"}\n')
        with self.assertRaises(AnachronError) as want:
            load_corpus(root)
        with self.assertRaises(AnachronError) as got:
            build_index(root, self.dir / "x.db")
        self.assertEqual(str(got.exception), str(want.exception))
        (root / "items.jsonl").unlink()
        with self.assertRaises(AnachronError) as want:
            load_corpus(root)
        with self.assertRaises(AnachronError) as got:
            build_index(root, self.dir / "x.db")
        self.assertEqual(str(got.exception), str(want.exception))

    def test_blank_lines_and_line_separators_read_as_load_corpus_reads_them(self):
        # Blank lines, CRLF and U+2028 inside a string: the index reads back the corpus load_corpus gives.
        root = self.copy_v0()
        lines = (root / "items.jsonl").read_text(encoding="utf-8").split("\n")
        self.assertIn('"title": "', lines[3])
        lines[3] = lines[3].replace('"title": "', '"title": "\u2028 ', 1)
        (root / "items.jsonl").write_text("\n\n".join(lines[:10]) + "\r\n" + "\n".join(lines[10:]), encoding="utf-8")
        out = build_index(root, self.dir / "x.db").path
        self.assertEqual(list(load_index(out).items.values()), list(load_corpus(root).items.values()))

    def test_a_corpus_changed_while_indexed_is_refused(self):
        from anachron.store.index import build as module

        real = module._scan
        text = (V0 / "items.jsonl").read_text(encoding="utf-8")
        title = text.index('"title": "') + len('"title": "')
        same_length = (text[title - 10 : title + 1], text[title - 10 : title] + ("Y" if text[title] == "Z" else "Z"))
        cases = (
            ('"fin-001"', '"fin-00X"', r"items\.jsonl:\d+: changed while it was indexed"),  # seen when read again
            ('"title": "', '"title": "Longer ', r"items\.jsonl:\d+: changed while it was indexed"),  # lines moved
            (*same_length, r"v0: changed while it was indexed"),  # a title, same length: seen by the fingerprint
        )
        for old, new, said in cases:
            root = self.copy_v0()

            def scan_then_edit(path, **kwargs):
                scanned = real(path, **kwargs)
                text = (root / "items.jsonl").read_text(encoding="utf-8")
                self.assertIn(old, text)
                (root / "items.jsonl").write_text(text.replace(old, new, 1), encoding="utf-8")
                return scanned

            with mock.patch.object(module, "_scan", scan_then_edit):
                with self.assertRaisesRegex(AnachronError, said):
                    build_index(root, self.dir / "x.db")
            self.assertFalse((self.dir / "x.db").exists())
            shutil.rmtree(root)

    def test_bad_files_are_one_clear_error(self):
        junk = self.dir / "junk.db"
        junk.write_bytes(b"not a database at all")
        other = self.dir / "other.db"
        sqlite3.connect(other).execute("CREATE TABLE t(x)").connection.close()
        for path, message in (
            (junk, "not a corpus directory or an Anachron index"),
            (other, "not an Anachron index"),
            (self.dir / "none.db", "not a corpus directory or index"),
        ):
            with self.subTest(path=path.name):
                with self.assertRaisesRegex(AnachronError, message):
                    load_corpus(path)
        with self.assertRaisesRegex(AnachronError, "not a corpus directory"):
            build_index(self.dir / "nowhere", self.dir / "x.db")


    def test_a_cleanup_that_fails_too_does_not_hide_the_error(self):
        # A regular file where the index's directory should be: making the temporary fails, and so
        # does removing it (ENOTDIR, not "no such file"), as on a read-only filesystem (slow_index).
        (self.dir / "file").write_text("")
        with self.assertRaisesRegex(AnachronError, rf"^{self.dir / 'file' / 'x.db'}: cannot write: "):
            build_index(V0, self.dir / "file" / "x.db")

    def test_a_directory_that_refuses_the_file_says_why(self):
        real_open = os.open

        def read_only(path, flags, *args, **kwargs):
            if flags & os.O_CREAT:
                raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)
            return real_open(path, flags, *args, **kwargs)

        with mock.patch("os.open", read_only):
            with self.assertRaisesRegex(AnachronError, rf"^{self.dir / 'x.db'}: cannot write: Read-only file system$"):
                build_index(V0, self.dir / "x.db")
        self.assertEqual(sorted(os.listdir(self.dir)), [])


class CommandLineTest(_Dir):
    def test_index_then_every_command_takes_it(self):
        out = self.dir / "c.db"
        status, stdout, stderr = run_cli("index", str(V0), "--out", str(out))
        self.assertEqual((status, stderr), (0, ""))
        self.assertIn("52 items, 16 entities, 27 samples", stdout)
        # The demo scores through the index as through the directory: the same bytes.
        self.assertEqual(run_cli("demo", "--corpus", str(out))[1].replace(str(out), "X"), run_cli("demo", "--corpus", str(V0))[1].replace(str(V0), "X"))
        trace = self.dir / "t.jsonl"
        trace.write_text(json.dumps({
            "sample_id": "finance-001", "as_of": "2022-06-01", "mode": "unrestricted",
            "interactions": [{"tool": "search", "query": "Cygnus Robotics", "returned": ["fin-004", "fin-005"]}],
        }) + "\n", encoding="utf-8")
        by_dir = run_cli("score", str(trace), "--corpus", str(V0), "--format", "json")
        by_index = run_cli("score", str(trace), "--corpus", str(out), "--format", "json")
        self.assertEqual(by_index, by_dir)
        self.assertEqual(by_dir[0], 0, by_dir[2])
        self.assertEqual(json.loads(by_dir[1])["samples"][0]["sample_id"], "finance-001")

    def test_a_stale_index_is_exit_2_and_one_line(self):
        root = self.copy_v0()
        out = self.dir / "c.db"
        self.assertEqual(run_cli("index", str(root), "--out", str(out))[0], 0)
        (root / "entities.jsonl").write_text("", encoding="utf-8")
        status, stdout, stderr = run_cli("demo", "--corpus", str(out))
        self.assertEqual((status, stdout), (2, ""))
        self.assertEqual(len(stderr.strip().splitlines()), 1)
        self.assertIn("stale index", stderr)

    def test_a_database_url_given_to_a_scorer_is_one_line_without_its_password(self):
        # A postgresql:// URL is loaded through the postgres adapter (here: nothing listens on port 1,
        # or the extra is missing); any other URL is refused by the core.  No password is echoed.
        cases = (("postgresql://u:secretpw@127.0.0.1:1/x", ("cannot connect", "postgres extra")), ("mysql://u:secretpw@h/x", ("cannot be loaded as a corpus here",)))
        for command in (("demo",), ("score", str(V0 / "samples.jsonl")), ("report", str(V0 / "samples.jsonl"), "--out", str(self.dir / "r.html"))):
            for url, said in cases:
                status, stdout, stderr = run_cli(*command, "--corpus", url)
                self.assertEqual((status, stdout), (2, ""), command)
                self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)
                self.assertTrue(any(s in stderr for s in said), stderr)
                self.assertNotIn("secretpw", stderr)
                self.assertFalse((self.dir / "r.html").exists())

    def test_usage_errors(self):
        for argv in (("index", str(V0)), ("index", str(V0), "--out", "a.db", "--to", "postgresql://x/y")):
            status, _, stderr = run_cli(*argv)
            self.assertEqual(status, 2)
            self.assertEqual(len(stderr.strip().splitlines()), 1)
        status, _, stderr = run_cli("index", str(V0), "--to", "mysql://x/y")
        self.assertEqual(status, 2)
        self.assertIn("expected a postgresql:// URL", stderr)


class TimeLockOverIndexTest(_Dir):
    def test_the_lock_serves_the_index_as_it_serves_the_directory(self):
        index = build_index(V0, self.dir / "c.db").path
        engine = open_engine(str(index))
        self.assertIsInstance(engine, IndexEngine)
        corpus = load_corpus(V0)
        for mode in ("enforced", "unrestricted"):
            texts = []
            for number, backend in enumerate((CorpusBackend(corpus), CorpusBackend(engine))):
                lock = TimeLock(backend, dt.date(2022, 6, 1), EventWriter(self.dir / f"{mode}{number}.jsonl"), mode=mode)
                outcomes = [lock.call("search", {"query": s.input}) for s in corpus.samples.values()]
                outcomes.append(lock.call("fetch", {"id_or_url": "fin-005"}))  # published after T
                lock.journal.close()
                texts.append([(o.structured["results"], o.status) for o in outcomes])
            self.assertEqual(texts[0], texts[1])
            if mode == "enforced":
                shown = [r["published"] for results, _ in texts[1] for r in results]
                self.assertTrue(shown and all(day <= "2022-06-01" for day in shown))
                self.assertEqual(texts[1][-1][1], "refused")


if __name__ == "__main__":
    unittest.main()


