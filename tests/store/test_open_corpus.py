"""anachron.store.open_corpus: what --corpus names, decided in one place, and how it is shown.

Each kind of spec (none, a directory, an index file, a postgresql:// URL)
opens as the corpus the scorers read and the engine that serves it; each bad
spec is one line naming it (a URL never with its password), from the function
and from every command that takes --corpus (exit 2).  No server is needed:
tests/store/test_postgres.py checks a real one.
"""

import tempfile
import unittest
from pathlib import Path

import anachron
from anachron.core import AnachronError, default_corpus_dir
from anachron.core import load_corpus_dir
from anachron.core.search import Engine
from anachron.store import IndexEngine, SearchEngine, build_index, is_database_url, load_corpus, open_corpus, shown_corpus
from anachron.store.spec import DIRECTORY, INDEX, POSTGRES

from tests.support import run_cli

V0 = default_corpus_dir()


class _Dir(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls._tmp.name)
        cls.index = build_index(V0, cls.dir / "v0.db").path
        (cls.dir / "junk.db").write_bytes(b"not a database at all")
        (cls.dir / "empty").mkdir()

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()


class KindsTest(_Dir):
    def test_none_is_the_bundled_corpus_directory(self):
        opened = open_corpus()
        self.assertEqual((opened.kind, Path(opened.location)), (DIRECTORY, V0))
        self.assertEqual(list(opened.corpus.items), list(load_corpus_dir(V0).items))

    def test_a_directory_is_loaded_once_and_searched_in_memory(self):
        opened = open_corpus(str(V0))
        self.assertEqual((opened.kind, opened.shown), (DIRECTORY, str(V0)))
        self.assertIsInstance(opened.engine, SearchEngine)
        self.assertIs(opened.engine.corpus, opened.corpus)  # one load for both
        self.assertEqual(len(opened.corpus.samples), 27)
        self.assertEqual(open_corpus(V0, samples=False).corpus.samples, {})

    def test_an_index_is_searched_in_place_and_read_for_the_scorers(self):
        opened = open_corpus(self.index)
        self.assertEqual(opened.kind, INDEX)
        self.assertIsInstance(opened.engine, IndexEngine)
        self.addCleanup(opened.engine.close)
        want = load_corpus_dir(V0)
        self.assertEqual(list(opened.corpus.items.values()), list(want.items.values()))
        self.assertEqual(opened.corpus.samples, want.samples)
        self.assertEqual(open_corpus(str(self.index), samples=False).corpus.samples, {})
        self.assertEqual(opened.engine.search("Cygnus Robotics", as_of=want.sample("finance-001").as_of, mode="enforced"),
                         SearchEngine(want).search("Cygnus Robotics", as_of=want.sample("finance-001").as_of, mode="enforced"))

    def test_a_database_url_is_decided_without_connecting(self):
        for url in ("postgresql://u:secretpw@127.0.0.1:1/x", "postgres://u:secretpw@127.0.0.1:1/x"):
            opened = open_corpus(url)
            self.assertEqual(opened.kind, POSTGRES)
            self.assertNotIn("secretpw", opened.shown + repr(opened))
            for part in ("corpus", "engine"):  # reading it is what fails: nothing listens on port 1, or no extra
                with self.subTest(url=url, part=part), self.assertRaises(AnachronError) as caught:
                    getattr(opened, part)
                message = str(caught.exception)
                self.assertEqual(len(message.splitlines()), 1)
                self.assertNotIn("secretpw", message)
                self.assertTrue("cannot connect" in message or "postgres extra" in message, message)

    def test_every_engine_is_an_engine(self):
        for spec in (V0, self.index):
            engine = open_corpus(spec).engine
            self.assertIsInstance(engine, Engine)

    def test_the_public_load_corpus_is_the_stores(self):
        self.assertIs(anachron.load_corpus, load_corpus)
        self.assertEqual(list(anachron.load_corpus(self.index).items), list(load_corpus(V0).items))


class BadSpecsTest(_Dir):
    def cases(self):
        return {
            str(self.dir / "none"): f"{self.dir / 'none'}: not a corpus directory or index",
            "mysql://u:secretpw@h/x": "a mysql:// URL cannot be loaded as a corpus here: give a corpus directory or an index file "
            "(`anachron index`); the command line's --corpus also takes a postgresql:// URL",
            str(self.dir / "junk.db"): f"{self.dir / 'junk.db'}: not a corpus directory or an Anachron index (not a SQLite database)",
            str(self.dir / "empty"): f"{self.dir / 'empty' / 'items.jsonl'}: no such file (a corpus directory needs items.jsonl)",
        }

    def test_each_bad_spec_is_one_line_naming_it(self):
        for spec, message in self.cases().items():
            for samples in (True, False):
                with self.subTest(spec=spec, samples=samples):
                    with self.assertRaises(AnachronError) as caught:
                        load_corpus(spec, samples=samples)
                    self.assertEqual(str(caught.exception), message)
                    with self.assertRaises(AnachronError) as served:
                        open_corpus(spec, samples=samples).engine
                    self.assertEqual(str(served.exception), message)

    def test_every_command_exits_2_with_the_same_line(self):
        trace = self.dir / "t.jsonl"
        trace.write_text('{"sample_id": "finance-001", "interactions": []}\n', encoding="utf-8")
        commands = (
            ("demo", "--out", str(self.dir / "demo")),
            ("score", str(trace)),
            ("report", str(trace), "--out", str(self.dir / "r.html")),
            ("verify-citations", "--trace", str(trace)),
            ("bank", "build", "--out", str(self.dir / "bank.jsonl")),
        )
        for command in commands:
            for spec, message in self.cases().items():
                with self.subTest(command=command[0], spec=spec):
                    status, stdout, stderr = run_cli(*command, "--corpus", spec)
                    self.assertEqual((status, stdout), (2, ""), stderr)
                    self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)
                    self.assertIn(message, stderr)
        self.assertFalse((self.dir / "r.html").exists())


class CoreReadsADirectoryOnlyTest(_Dir):
    def test_an_index_or_a_url_is_refused_by_the_core_loader(self):
        with self.assertRaisesRegex(AnachronError, "a file, not a corpus directory"):
            load_corpus_dir(self.index)
        with self.assertRaises(AnachronError) as caught:
            load_corpus_dir("postgresql://u:secretpw@h/x")
        self.assertNotIn("secretpw", str(caught.exception))
        with self.assertRaisesRegex(AnachronError, "not a corpus directory"):
            load_corpus_dir(self.dir / "none")


class ShownCorpusTest(unittest.TestCase):
    def test_a_password_is_hidden_wherever_the_url_carries_it(self):
        cases = {
            "postgresql://u:secretpw@h:5432/db": "postgresql://u:***@h:5432/db",
            "postgres://u:secretpw@h/db?sslmode=require": "postgres://u:***@h/db?sslmode=require",
            "postgresql://u@h/db?password=secretpw": "postgresql://u@h/db?password=***",
            "postgresql://h/db?sslmode=disable&password=secretpw&application_name=x": "postgresql://h/db?sslmode=disable&password=***&application_name=x",
            "postgresql://u:a@h/db?password=secretpw": "postgresql://u:***@h/db?password=***",
        }
        for url, want in cases.items():
            self.assertTrue(is_database_url(url))
            self.assertEqual(shown_corpus(url), want)
            self.assertNotIn("secretpw", shown_corpus(url))

    def test_files_and_urls_without_a_password_are_shown_as_given(self):
        for spec in ("corpus/v0", "/tmp/a:b@c/corpus.db", "postgresql://u@h/db", "postgresql:///db"):
            self.assertEqual(shown_corpus(spec), spec)

    def test_only_postgresql_urls_are_database_urls(self):
        for spec in ("mysql://h/db", "corpus/v0", "postgresql", None, Path("postgresql://h/db")):
            self.assertFalse(is_database_url(spec), spec)


if __name__ == "__main__":
    unittest.main()
