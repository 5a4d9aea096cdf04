"""The PostgreSQL corpus against a real server: search, fetch, enforcement, survivorship, concurrent sessions.

The server is named by ANACHRON_TEST_POSTGRES (a postgresql:// URL whose user
may create databases); .ci/run starts a throwaway one (.ci/postgres).  Without
it these tests skip, except in CI (ANACHRON_REQUIRE_EXTRAS), where they fail.
Each run creates its own databases and drops them at the end.
"""

import datetime as dt
import json
import os
import shutil
import tempfile
import threading
import unittest
import uuid
from pathlib import Path

from anachron.core import default_corpus_dir, load_corpus_dir
from anachron.store import SearchEngine
from anachron.core.errors import AnachronError
from anachron.timelock import CorpusBackend, EventWriter, TimeLock, open_engine

from tests import engine_cases
from tests.support import ROOT, extras_required, require_extra, run_cli

V0 = default_corpus_dir()
# Plans of the shared planner (see tests/engine_cases.py) that reach each of this engine's queries.
PLANS = ((1000, 4), (0, 4), (10**9, 3), (60, 1))
SERVER = None
TMP = None
DATABASES = []


def setUpModule():
    global SERVER, TMP
    require_extra("psycopg", "postgres")
    SERVER = os.environ.get("ANACHRON_TEST_POSTGRES")
    if not SERVER:
        message = "no PostgreSQL server: set ANACHRON_TEST_POSTGRES to a postgresql:// URL (.ci/run starts one)"
        if extras_required():
            raise AssertionError(message)
        raise unittest.SkipTest(message)
    TMP = tempfile.TemporaryDirectory()


def tearDownModule():
    import psycopg

    if SERVER:
        with psycopg.connect(SERVER, autocommit=True) as con:
            for name in DATABASES:
                con.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    if TMP is not None:
        TMP.cleanup()


def new_database():
    """A fresh, empty database on the test server; its URL."""
    import urllib.parse

    import psycopg

    name = f"anachron_t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(SERVER, autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name}")
    DATABASES.append(name)
    return urllib.parse.urlsplit(SERVER)._replace(path=f"/{name}").geturl()


def loaded(source):
    url = new_database()
    status, stdout, stderr = run_cli("index", str(source), "--to", url)
    assert status == 0, stderr
    return url


class FingerprintTest(unittest.TestCase):
    def test_a_server_corpus_has_its_directory_fingerprint(self):
        # What `anachron compare` checks (issue 24): the same corpus, wherever it is stored.
        from anachron.store import open_corpus

        url = loaded(ROOT / "corpus" / "v0")
        self.assertEqual(open_corpus(url).fingerprint, open_corpus().fingerprint)


class SameResultsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from anachron.store.postgres import PostgresEngine

        cls.generated = engine_cases.generated_corpus(Path(TMP.name) / "gen")
        cls.v0_url, cls.gen_url = loaded(V0), loaded(cls.generated)
        cls.v0 = PostgresEngine(cls.v0_url)
        cls.gen = PostgresEngine(cls.gen_url)

    @classmethod
    def tearDownClass(cls):
        cls.v0.close()
        cls.gen.close()

    def test_v0_search(self):
        corpus = load_corpus_dir(V0)
        self.assertGreater(engine_cases.assert_same_results(self, SearchEngine(corpus), self.v0, corpus, plans=PLANS), 300)

    def test_generated_search(self):
        corpus = load_corpus_dir(self.generated)
        self.assertGreater(engine_cases.assert_same_results(self, SearchEngine(corpus), self.gen, corpus, plans=PLANS), 300)

    def test_fetch(self):
        for source, engine in ((V0, self.v0), (self.generated, self.gen)):
            corpus = load_corpus_dir(source)
            engine_cases.assert_same_fetches(self, SearchEngine(corpus), engine, corpus)

    def test_the_corpus_reads_back_exactly(self):
        from anachron.store.postgres import load_postgres_corpus

        for source, url in ((V0, self.v0_url), (self.generated, self.gen_url)):
            want, got = load_corpus_dir(source), load_postgres_corpus(url)
            self.assertEqual(list(got.items.values()), list(want.items.values()))
            self.assertEqual([dict(i.extra) for i in got.items.values()], [dict(i.extra) for i in want.items.values()])
            self.assertEqual(list(got.entities.values()), list(want.entities.values()))
            self.assertEqual(list(got.samples.values()), list(want.samples.values()))

    def test_items_are_read_when_asked_for_and_answer_as_the_directory_does(self):
        from anachron.store.postgres import PostgresItems, load_postgres_corpus

        want, got = load_corpus_dir(V0), load_postgres_corpus(self.v0_url)
        self.assertIsInstance(got.items, PostgresItems)
        self.assertEqual(len(got.items), len(want.items))
        self.assertEqual(list(got.items), list(want.items))
        for ident, item in want.items.items():
            self.assertEqual(got.items[ident], item)
        for absent in ("no-such-id", "\ud800", "", 7, None):
            self.assertNotIn(absent, got.items)
            self.assertIsNone(got.items.get(absent))
        with self.assertRaises(KeyError):
            got.items["no-such-id"]
        # A lookup while a scan is being read (the scan streams on a connection of its own).
        for item in got.items.values():
            self.assertEqual(got.items.get(item.id), item)
        self.assertTrue(want.fact_sources)
        self.assertEqual(got.fact_sources, want.fact_sources)
        for text in ("Cygnus Robotics", "Delta Freight and CYGN", "nothing named"):
            self.assertEqual(got.facts_about(text), want.facts_about(text), text)

    def test_entity_validity_is_a_table(self):
        import psycopg

        corpus = load_corpus_dir(V0)
        with psycopg.connect(self.v0_url) as con:
            rows = con.execute("SELECT id, valid_from, valid_to FROM anachron.entities ORDER BY pos").fetchall()
            named = con.execute(
                "SELECT count(*) FROM anachron.item_entities AS ie JOIN anachron.entities AS e ON e.id = ie.entity"
            ).fetchone()[0]
        self.assertEqual(rows, [(json.dumps(e.id), e.valid_from, e.valid_to) for e in corpus.entities.values()])
        self.assertEqual(named, sum(len(set(i.entities)) for i in corpus.items.values()))

    def test_enforcement_and_survivorship_through_the_lock(self):
        corpus = load_corpus_dir(V0)
        tmp = Path(TMP.name)
        found_delisted = False
        for entity in (e for e in corpus.entities.values() if e.valid_to is not None):
            day = entity.valid_to + dt.timedelta(days=1)  # the entity is gone at T
            answers = []
            for number, backend in enumerate((CorpusBackend(corpus), CorpusBackend(self.v0))):
                lock = TimeLock(backend, day, EventWriter(tmp / f"{entity.id}-{number}.jsonl"), k=10)
                outcome = lock.call("search", {"query": entity.name})
                later = [i.id for i in corpus.items.values() if i.publish_date > day][:3]
                fetched = [lock.call("fetch", {"id_or_url": ident}).status for ident in later]
                lock.journal.close()
                answers.append((outcome.structured["results"], fetched))
            self.assertEqual(answers[1], answers[0])
            results, fetched = answers[1]
            self.assertTrue(all(r["published"] <= day.isoformat() for r in results))
            self.assertEqual(set(fetched), {"refused"} if fetched else set())
            # The residual: items naming the delisted entity are still served (nothing filters validity).
            found_delisted = found_delisted or any(entity.id in corpus.items[r["id"]].entities for r in results)
        self.assertTrue(found_delisted)


class TimeLockPropertyTest(unittest.TestCase):
    def test_enforced_results_ignore_later_items(self):
        # BM25's statistics are those of the items visible at T: post-T items change no enforced result.
        from anachron.store.postgres import PostgresEngine
        from tests.store.test_ranking import split_at

        full_dir = engine_cases.generated_corpus(Path(TMP.name) / "lock-full", items=1000)
        full = load_corpus_dir(full_dir)
        days = sorted({i.publish_date for i in full.items.values()})
        day = days[len(days) // 2]
        past_dir = split_at(full_dir, Path(TMP.name) / "lock-past", day)
        past, everything = PostgresEngine(loaded(past_dir)), PostgresEngine(loaded(full_dir))
        self.addCleanup(past.close)
        self.addCleanup(everything.close)
        compared = 0
        for query in engine_cases.queries(full, n=40)[:-4]:
            want = [(i.id, s) for i, s in past.scored(query, as_of=day, mode="enforced", k=10)]
            self.assertEqual([(i.id, s) for i, s in everything.scored(query, as_of=day, mode="enforced", k=10)], want, query[:40])
            compared += bool(want)
        self.assertGreater(compared, 30)

    def test_the_same_top_k_as_the_scan_over_the_visible_items(self):
        # Seeded, many queries and days T, both exact ways of the ranking (tests/store/test_ranking.py).
        from anachron.store.postgres import PostgresEngine
        from tests.store.test_ranking import assert_like_the_scan

        directory = engine_cases.generated_corpus(Path(TMP.name) / "scan", items=1200)
        engine = PostgresEngine(loaded(directory))
        self.addCleanup(engine.close)
        self.assertGreater(assert_like_the_scan(self, load_corpus_dir(directory), [engine]), 150)

class SessionsTest(unittest.TestCase):
    """Eight agents at once against one server: their own locks, one engine or one each."""

    def test_concurrent_sessions(self):
        from anachron.store.postgres import PostgresEngine

        generated = engine_cases.generated_corpus(Path(TMP.name) / "gen-s", items=800)
        url = loaded(generated)
        corpus = load_corpus_dir(generated)
        reference = SearchEngine(corpus)
        queries = engine_cases.queries(corpus)[:30]
        days = engine_cases.as_of_days(corpus)
        shared = PostgresEngine(url)
        expected = {
            n: [[i.id for i in reference.search(q, as_of=days[n % len(days)], mode="enforced")] for q in queries] for n in range(8)
        }
        got, errors, logs = {}, [], {}

        def session(n):
            try:
                engine = shared if n % 2 else PostgresEngine(url)
                log = Path(TMP.name) / f"session-{n}.jsonl"
                lock = TimeLock(CorpusBackend(engine), days[n % len(days)], EventWriter(log))
                outcomes = [lock.call("search", {"query": q}) for q in queries]
                lock.journal.close()
                if engine is not shared:
                    engine.close()
                got[n] = [[r["id"] for r in o.structured["results"]] if o.status == "ok" else o.status for o in outcomes]
                logs[n] = log
            except Exception as exc:
                errors.append(repr(exc))

        threads = [threading.Thread(target=session, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        shared.close()
        self.assertEqual(errors, [])
        self.assertEqual(got, expected)
        self.assertTrue(any(ids for rows in got.values() for ids in rows))
        for n, log in logs.items():
            seqs = [json.loads(line)["seq"] for line in log.read_text(encoding="utf-8").splitlines()[1:]]
            self.assertEqual(seqs, list(range(1, len(queries) + 1)), n)


class ServingTest(unittest.TestCase):
    def test_serve_over_mcp_with_a_postgres_corpus(self):
        require_extra("mcp", "mcp")
        import anyio

        from tests.mcp_support import read_log, stdio_client

        url = loaded(V0)
        tmp = Path(TMP.name)
        answers = {}

        async def session(name, corpus):
            args = ["--as-of", "2022-06-01", "--events", str(tmp / f"{name}.jsonl"), "--corpus", corpus]
            async with stdio_client(args, errlog=tmp / f"{name}.err") as client:
                out = [await client.call_tool("search", {"query": "Cygnus Robotics IPO"})]
                out.append(await client.call_tool("fetch", {"id_or_url": "fin-005"}))  # dated after T
                answers[name] = [(r.structured_content, r.is_error) for r in out]

        anyio.run(session, "dir", str(V0))
        anyio.run(session, "pg", url)
        self.assertEqual(answers["pg"], answers["dir"])
        self.assertTrue(answers["pg"][0][0]["results"])
        self.assertTrue(answers["pg"][1][1])  # the post-T fetch is refused
        header = read_log(tmp / "pg.jsonl")[0]
        self.assertEqual(header["source"], url)

    def test_inspect_task_with_a_postgres_corpus(self):
        require_extra("inspect_ai", "inspect")
        from inspect_ai import eval as inspect_eval

        from anachron.inspect.task import anachron_task

        url = loaded(V0)
        ids = ["finance-001", "finance-002", "news-001"]
        scores = {}
        for name, corpus in (("dir", None), ("pg", url)):
            [log] = inspect_eval(
                anachron_task("enforced", corpus=corpus), model="anachron/naive", display="none",
                sample_id=ids, log_dir=str(Path(TMP.name) / f"inspect-{name}"),
            )
            self.assertEqual(log.status, "success", log.error)
            scores[name] = [(s.id, s.scores["tclr_scorer"].value) for s in log.samples]
        self.assertEqual(scores["pg"], scores["dir"])
        self.assertEqual(len(scores["pg"]), 3)


class ScorersTest(unittest.TestCase):
    """The scoring commands take --corpus URL and write what they write from the directory."""

    SCALE = ROOT / "tests" / "data" / "scale"

    @classmethod
    def setUpClass(cls):
        cls.url = loaded(cls.SCALE / "corpus")

    def test_score_gives_the_directory_s_bytes(self):
        traces = str(self.SCALE / "traces.jsonl")
        for extra in ((), ("--jobs", "2")):
            for fmt in ("json", "csv"):
                want = run_cli("score", traces, "--corpus", str(self.SCALE / "corpus"), "--format", fmt, *extra)
                got = run_cli("score", traces, "--corpus", self.url, "--format", fmt, *extra)
                self.assertEqual(want[0], 0, want[2])
                self.assertGreater(len(want[1]), 10_000)
                self.assertEqual(got, want, (fmt, extra))

    def test_report_and_verify_citations_read_it(self):
        out = Path(TMP.name) / "report.html"
        traces = str(self.SCALE / "traces.jsonl")
        status, _, stderr = run_cli("report", traces, "--corpus", self.url, "--out", str(out))
        self.assertEqual(status, 0, stderr)
        got = out.read_text(encoding="utf-8")
        directory = str(self.SCALE / "corpus")
        self.assertEqual(run_cli("report", traces, "--corpus", directory, "--out", str(out))[0], 0)
        want = out.read_text(encoding="utf-8")
        self.assertIn(f"scored against corpus {directory}", want)
        self.assertEqual(got, want.replace(directory, self.url))  # the same report, but for the corpus named
        want = run_cli("verify-citations", "--trace", traces, "--corpus", str(self.SCALE / "corpus"))
        self.assertIn("never returned by a tool", want[1])
        self.assertEqual(run_cli("verify-citations", "--trace", traces, "--corpus", self.url), want)

    def test_a_password_in_the_url_is_never_shown(self):
        # The test server trusts loopback, so a password in the URL is accepted and ignored.
        import urllib.parse

        parts = urllib.parse.urlsplit(loaded(V0))
        secret = parts._replace(netloc=f"{parts.username}:secretpw@{parts.hostname}:{parts.port}").geturl()
        shown = secret.replace(":secretpw@", ":***@")
        out = Path(TMP.name) / "secret"
        out.mkdir(exist_ok=True)  # an output's directory must exist (docs/formats.md)
        status, stdout, stderr = run_cli("demo", "--corpus", secret, "--out", str(out / "demo"))
        self.assertEqual(status, 0, stderr)
        run = json.loads((out / "demo" / "unrestricted.json").read_text(encoding="utf-8"))["run"]
        self.assertEqual(run["corpus"], shown)  # the TCLR file's run names the server without its password
        want = run_cli("demo", "--out", str(out / "demo"))[1]
        self.assertEqual(stdout, want.replace("corpus v0 (bundled)", f"corpus {shown}"))
        status, _, stderr = run_cli("report", str(out / "demo" / "unrestricted.jsonl"), "--corpus", secret, "--out", str(out / "r.html"))
        self.assertEqual(status, 0, stderr)
        html = (out / "r.html").read_text(encoding="utf-8")
        self.assertNotIn("secretpw", html)
        self.assertIn(f"scored against corpus {shown}", html)


class ErrorsTest(unittest.TestCase):
    def test_unreachable_server_empty_database_and_stale_corpus(self):
        from anachron.store.postgres import PostgresEngine

        with self.assertRaisesRegex(AnachronError, r"postgresql://user:\*\*\*@127\.0\.0\.1:1/x: cannot connect") as cm:
            PostgresEngine("postgresql://user:secret@127.0.0.1:1/x")
        self.assertNotIn("secret", str(cm.exception))
        with self.assertRaisesRegex(AnachronError, "no Anachron corpus there"):
            PostgresEngine(new_database())
        root = Path(TMP.name) / "stale-v0"
        shutil.copytree(V0, root)
        url = loaded(root)
        PostgresEngine(url).close()
        (root / "items.jsonl").write_text((root / "items.jsonl").read_text(encoding="utf-8").replace("hubs", "hub5", 1), encoding="utf-8")
        with self.assertRaisesRegex(AnachronError, r"stale corpus: .*items\.jsonl changed"):
            open_engine(url)
        status, stdout, stderr = run_cli("score-events", "x.jsonl", "--as-of", "2022-01-01", "--corpus", url)
        self.assertEqual((status, stdout), (2, ""))
        self.assertEqual(len(stderr.strip().splitlines()), 1)


    def test_a_corpus_changed_while_loaded_is_rolled_back(self):
        from unittest import mock

        from anachron.store.index import build as module
        from anachron.store.postgres import load_postgres_corpus, load_to_postgres

        root = Path(TMP.name) / "changing-v0"
        shutil.copytree(V0, root)
        url = loaded(root)
        before = load_postgres_corpus(url)
        real = module._scan

        def scan_then_edit(path, **kwargs):
            scanned = real(path, **kwargs)
            text = (root / "items.jsonl").read_text(encoding="utf-8")
            self.assertIn("hubs", text)
            (root / "items.jsonl").write_text(text.replace("hubs", "hub5", 1), encoding="utf-8")  # same length
            return scanned

        with mock.patch.object(module, "_scan", scan_then_edit):
            with self.assertRaisesRegex(AnachronError, "changed while it was indexed"):
                load_to_postgres(root, url)
        (root / "items.jsonl").write_text((root / "items.jsonl").read_text(encoding="utf-8").replace("hub5", "hubs", 1), encoding="utf-8")
        self.assertEqual(list(load_postgres_corpus(url).items.values()), list(before.items.values()))

if __name__ == "__main__":
    unittest.main()
