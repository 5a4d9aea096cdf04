"""The slow tests beside test_index.py, whose docstring states the rules they hold: SameResultsTest, AdaptersOverIndexTest.

They start processes, browsers or servers, or build large inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

import contextlib
import datetime as dt
import sqlite3
import tempfile
import threading
import unittest
from pathlib import Path
from unittest import mock
from anachron.store import SearchEngine, load_corpus
from anachron.store.index import IndexEngine, build_index
from anachron.core.errors import AnachronError
from tests import engine_cases
from benchmarks.reference_engines import FullTextPostings, full_text_planner
from tests.support import run_cli
from tests.store.test_index import V0, _Dir


class SameResultsTest(unittest.TestCase):
    """Item for item, in order, the index answers what the in-memory engine answers."""

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls._tmp.name)
        cls.generated = engine_cases.generated_corpus(tmp / "gen")
        build_index(V0, tmp / "v0.db")
        build_index(cls.generated, tmp / "gen.db")
        cls.v0_index = IndexEngine(tmp / "v0.db")
        cls.gen_index = IndexEngine(tmp / "gen.db")

    @classmethod
    def tearDownClass(cls):
        cls.v0_index.close()
        cls.gen_index.close()
        cls._tmp.cleanup()

    def test_v0_search(self):
        corpus = load_corpus(V0)
        n = engine_cases.assert_same_results(self, SearchEngine(corpus), self.v0_index, corpus)
        self.assertGreater(n, 300)

    def test_generated_search(self):
        corpus = load_corpus(self.generated)
        reference = SearchEngine(corpus)
        # Non-vacuity: the generated corpus has ties on score and day that only the id breaks.
        from collections import Counter

        from anachron.store.terms import item_terms, tokenize

        common = Counter(w for i in corpus.items.values() for w in tokenize(i.title)).most_common(1)[0][0]
        hits = reference.search(common, as_of=dt.date(2100, 1, 1), mode="unrestricted", k=len(corpus.items))
        keys = [(2 if common in item_terms(i, corpus.entities)[0] else 1, i.publish_date) for i in hits]
        self.assertGreater(len(keys), len(set(keys)) + 10, "too few ties on (score, day)")
        n = engine_cases.assert_same_results(self, reference, self.gen_index, corpus)
        self.assertGreater(n, 300)

    def test_generated_search_previous_planner(self):
        # The planner of full-text queries (PostgreSQL's, kept to measure beside the bitmaps) stays exact.

        corpus = load_corpus(self.generated)
        with full_text_planner():
            n = engine_cases.assert_same_results(self, SearchEngine(corpus), self.gen_index, corpus, ks=(5,))
        self.assertGreater(n, 300)

    def test_a_small_array_cache_evicts_and_stays_exact(self):

        corpus = load_corpus(self.generated)
        with mock.patch.object(IndexEngine, "CACHE_BYTES", 4096):
            engine = IndexEngine(self.gen_index.path)
        self.addCleanup(engine.close)
        days = engine_cases.as_of_days(corpus)
        for number, query in enumerate(engine_cases.queries(corpus)):
            for mode in ("enforced", "unrestricted"):
                day = days[number % len(days)]
                self.assertEqual(engine.search(query, as_of=day, mode=mode), self.gen_index.search(query, as_of=day, mode=mode), query[:60])
            self.assertLessEqual(engine._cache.used, 4096)
        self.assertGreater(engine._cache.used, 0)

    def test_every_path_of_the_planner_is_taken(self):
        # Non-vacuity of the comparisons above: across the plans, candidates, level scans and
        # whole aggregation each answer some query (previous planner); with bitmaps: counted
        # postings, and bitmaps both stored and made from arrays.
        from collections import Counter

        from anachron.store import engine as planner
        from anachron.store.index import postings as module

        corpus = load_corpus(self.generated)
        names = {False: ("candidates", "scan", "aggregate"), True: ("partials", "columns")}
        for use_bitmaps, wanted in names.items():
            used = Counter()
            postings = module.IndexPostings if use_bitmaps else FullTextPostings
            real = {name: getattr(postings, name) for name in wanted}

            def spy(name):
                def call(self, *args):
                    used[name] += 1
                    return real[name](self, *args)
                return call

            engine = IndexEngine(self.gen_index.path)  # its own cache: every bitmap is made here
            self.addCleanup(engine.close)
            made = mock.Mock(wraps=module.bitmaps.from_ords)
            planned = contextlib.nullcontext() if use_bitmaps else full_text_planner()
            with mock.patch.multiple(postings, **{name: spy(name) for name in real}), planned, \
                    mock.patch.object(module.bitmaps, "from_ords", made):
                for rare, common in engine_cases.PLANS:
                    with mock.patch.multiple(planner, RARE_POSTINGS=rare, MAX_COMMON=common, RARE_SHARE=0.0):
                        queries = engine_cases.queries(corpus)
                        for query in queries:
                            engine.search(query, as_of=dt.date(2100, 1, 1), k=5, ranking="count")  # the count ranking's planner
            self.assertEqual(set(used), set(real), (use_bitmaps, used))
            self.assertTrue(all(used.values()), (use_bitmaps, used))
            self.assertEqual(made.called, use_bitmaps)
        # Both kinds of column bitmap: stored (dense terms) and made from the array (the others).
        con = sqlite3.connect(self.gen_index.path)
        self.addCleanup(con.close)
        with_bits, terms = con.execute("SELECT count(strong_bits) + count(weak_bits), 2 * count(*) FROM postings").fetchone()
        self.assertTrue(0 < with_bits < terms, (with_bits, terms))

    def test_fetch(self):
        for source, index in ((V0, self.v0_index), (self.generated, self.gen_index)):
            corpus = load_corpus(source)
            engine_cases.assert_same_fetches(self, SearchEngine(corpus), index, corpus)

    def test_enforced_boundary_and_survivorship(self):
        corpus = load_corpus(V0)
        # An item published exactly on T is known at T; the day before, it is not.
        item = corpus.items["fin-005"]
        query = item.title
        on_day = self.v0_index.search(query, as_of=item.publish_date, mode="enforced", k=50)
        before = self.v0_index.search(query, as_of=item.publish_date - dt.timedelta(days=1), mode="enforced", k=50)
        self.assertIn(item.id, [i.id for i in on_day])
        self.assertNotIn(item.id, [i.id for i in before])
        self.assertTrue(all(i.publish_date < item.publish_date for i in before))
        # Survivorship is not filtered: an item naming an entity no longer valid at T still surfaces.
        found = False
        for entity in corpus.entities.values():
            if entity.valid_to is None:
                continue
            day = entity.valid_to + dt.timedelta(days=1)
            hits = self.v0_index.search(entity.name, as_of=day, mode="enforced", k=50)
            self.assertEqual(hits, SearchEngine(corpus).search(entity.name, as_of=day, mode="enforced", k=50))
            found = found or any(entity.id in i.entities and not entity.valid_at(day) for i in hits)
        self.assertTrue(found, "no delisted entity's item surfaced: the survivorship case is untested")

    def test_bad_arguments_are_refused_like_the_memory_engine(self):
        reference = SearchEngine(load_corpus(V0))
        cases = [
            dict(query=3, as_of=dt.date(2022, 1, 1)),
            dict(query="x", as_of="2022-01-01"),
            dict(query="x", as_of=dt.datetime(2022, 1, 1)),
            dict(query="x", as_of=dt.date(2022, 1, 1), mode="future"),
            dict(query="x", as_of=dt.date(2022, 1, 1), k=0),
            dict(query="x", as_of=dt.date(2022, 1, 1), k=True),
        ]
        for case in cases:
            with self.subTest(case=case):
                with self.assertRaises(AnachronError) as want:
                    reference.search(**case)
                with self.assertRaises(AnachronError) as got:
                    self.v0_index.search(**case)
                self.assertEqual(str(got.exception), str(want.exception))
        with self.assertRaises(AnachronError):
            self.v0_index.fetch(7, as_of=dt.date(2022, 1, 1))

    def test_threads_share_one_engine(self):
        corpus = load_corpus(self.generated)
        reference = SearchEngine(corpus)
        queries = engine_cases.queries(corpus)[:40]
        day = engine_cases.as_of_days(corpus)[2]
        want = [[i.id for i in reference.search(q, as_of=day, mode="enforced")] for q in queries]
        results, errors = {}, []

        def worker(n):
            try:
                results[n] = [[i.id for i in self.gen_index.search(q, as_of=day, mode="enforced")] for q in queries]
            except Exception as exc:  # reported below, not swallowed
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(errors, [])
        self.assertEqual(results, {n: want for n in range(8)})

    def test_serving_reads_no_samples(self):
        # The engine's own connection, audited by SQLite: which tables do searches and fetches read?
        tables = set()

        def audit(action, table, column, database, trigger):
            if action == sqlite3.SQLITE_READ:
                tables.add(table)
            return sqlite3.SQLITE_OK

        engine = IndexEngine(self.dir_of(self.v0_index))
        engine._con().set_authorizer(audit)
        corpus = load_corpus(V0)
        for s in corpus.samples.values():
            engine.search(s.input, as_of=s.as_of, mode="enforced")
            engine.search(s.input, as_of=s.as_of, mode="unrestricted")
        engine.fetch("fin-005", as_of=dt.date(2022, 1, 1))
        engine.extremes()
        engine.close()
        self.assertIn("items", tables)
        self.assertNotIn("samples", tables)
        self.assertLessEqual(tables, {"items", "terms", "vocab", "postings", "ranking", "json_each", "sqlite_master"} | {t for t in tables if t.startswith("terms_")})

    @staticmethod
    def dir_of(engine):
        return engine.path


class AdaptersOverIndexTest(_Dir):
    """`anachron serve --corpus INDEX` and the Inspect tasks search the index, with the same answers."""

    def test_serve_over_mcp(self):
        from tests.support import require_extra

        require_extra("mcp", "mcp")
        import anyio

        from tests.mcp_support import read_log, stdio_client

        index = build_index(V0, self.dir / "c.db").path
        answers = {}

        async def session(name, corpus):
            args = ["--as-of", "2022-06-01", "--events", str(self.dir / f"{name}.jsonl"), "--corpus", corpus, "--date-presentation", "shift:-3"]
            async with stdio_client(args, errlog=self.dir / f"{name}.err") as client:
                out = [await client.call_tool("search", {"query": s.input}) for s in load_corpus(V0).samples.values()]
                out.append(await client.call_tool("fetch", {"id_or_url": "fin-005"}))  # dated after T
                answers[name] = [(r.structured_content, r.is_error) for r in out]

        anyio.run(session, "dir", str(V0))
        anyio.run(session, "index", str(index))
        self.assertEqual(answers["index"], answers["dir"])
        self.assertTrue(any(content["results"] for content, _ in answers["index"]))
        self.assertTrue(answers["index"][-1][1])
        self.assertEqual(read_log(self.dir / "index.jsonl")[0]["source"], str(index))

    def test_a_date_shift_off_the_calendar_is_refused_for_an_index_too(self):
        index = build_index(V0, self.dir / "c.db").path
        # Only the latest items (2024) leave the calendar: the index checks its earliest and latest item.
        shift = (dt.date(9999, 12, 31) - dt.date(2024, 5, 25)).days + 1
        for corpus in (V0, index):
            status, _, stderr = run_cli("serve", "--as-of", "2022-06-01", "--events", str(self.dir / "e.jsonl"),
                                        "--corpus", str(corpus), "--date-presentation", f"shift:+{shift}")
            self.assertEqual(status, 2, stderr)
            self.assertRegex(stderr, r"date_presentation shift:\+\d+: item \S+ dated 2024-\d\d-\d\d shifts out of the calendar")
            self.assertEqual(len(stderr.strip().splitlines()), 1)
        self.assertEqual(IndexEngine(index).extremes()[-1].publish_date, dt.date(2024, 5, 25))

    def test_inspect_task(self):
        from tests.support import require_extra

        require_extra("inspect_ai", "inspect")
        from inspect_ai import eval as inspect_eval

        from anachron.inspect.task import anachron_task

        index = build_index(V0, self.dir / "c.db").path
        ids = ["finance-001", "finance-002", "news-001"]
        scores = {}
        for name, corpus in (("dir", None), ("index", str(index))):
            task = anachron_task("enforced", corpus=corpus)
            [log] = inspect_eval(task, model="anachron/naive", display="none", sample_id=ids, log_dir=str(self.dir / name))
            self.assertEqual(log.status, "success", log.error)
            scores[name] = [(s.id, s.scores["tclr_scorer"].value, s.store.get("anachron:calls")[0]["returned"]) for s in log.samples]
        self.assertEqual(scores["index"], scores["dir"])
        self.assertTrue(any(returned for _, _, returned in scores["index"]))


if __name__ == "__main__":
    unittest.main()
