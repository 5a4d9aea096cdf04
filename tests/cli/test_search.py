"""`anachron search` (what the lock would serve, through its own path) and the ranking in the lock's event log."""

import datetime as dt
import json
import tempfile
import unittest
from pathlib import Path

from anachron.core import load_corpus_dir
from anachron.store import SearchEngine
from anachron.timelock import CorpusBackend, TimeLock

from tests.support import ROOT, run_cli
from tests.timelock.test_lock import FixedBackend, ListJournal

V0 = ROOT / "corpus" / "v0"
T = "2022-06-01"
QUERIES = ["Aster Logistics revenue", "  quarter results  ", "Delta Pharma", "unheard-of-word"]


class SearchCommandTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = Path(self.tmp.name)
        self.engine = SearchEngine(load_corpus_dir(V0))

    def queries_file(self, lines):
        path = self.dir / "q.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return str(path)

    def expected(self, query, mode="enforced", k=10, ranking="bm25"):
        hits = self.engine.scored(query.strip(), as_of=dt.date.fromisoformat(T), mode=mode, k=k, ranking=ranking)
        return {"query": query, "results": [{"id": i.id, "publish_date": i.publish_date.isoformat(), "score": s} for i, s in hits]}

    def test_json_lines_per_query(self):
        path = self.queries_file(json.dumps({"query": q}) for q in QUERIES)
        for mode in ("enforced", "unrestricted"):
            for ranking in ("bm25", "count"):
                status, out, err = run_cli("search", str(V0), "--as-of", T, "--queries", path, "--format", "json",
                                           "--mode", mode, "--ranking", ranking, "-k", "4")
                self.assertEqual((status, err), (0, ""))
                lines = out.split("\n")
                self.assertEqual(lines[-1], "")
                self.assertEqual([json.loads(line) for line in lines[:-1]], [self.expected(q, mode, 4, ranking) for q in QUERIES])
        got = [json.loads(line) for line in out.split("\n")[:-1]]
        self.assertTrue(got[0]["results"] and not got[-1]["results"])

    def test_one_query_table_and_json(self):
        status, out, err = run_cli("search", str(V0), "Aster Logistics revenue", "--as-of", T)
        self.assertEqual((status, err), (0, ""))
        want = self.expected("Aster Logistics revenue")["results"]
        self.assertTrue(out.startswith("query: Aster Logistics revenue  (as of 2022-06-01, enforced, bm25, k=10)\n"))
        rows = out.split("\n")[1:-1]
        self.assertEqual([row.split()[1:4] for row in rows], [[f"{r['score']:.6f}", r["publish_date"], r["id"]] for r in want])
        status, out, _ = run_cli("search", str(V0), "Aster Logistics revenue", "--as-of", T, "--format", "json")
        self.assertEqual(json.loads(out), self.expected("Aster Logistics revenue"))
        self.assertEqual(out.count("\n"), 1)

    def test_the_same_items_as_the_lock(self):
        for mode in ("enforced", "unrestricted"):
            journal = ListJournal()
            lock = TimeLock(CorpusBackend(load_corpus_dir(V0)), dt.date.fromisoformat(T), journal, mode=mode, k=5)
            for query in QUERIES:
                record = lock.call("search", {"query": query}).record
                status, out, _ = run_cli("search", str(V0), query, "--as-of", T, "--mode", mode, "-k", "5", "--format", "json")
                self.assertEqual(status, 0)
                self.assertEqual([r["id"] for r in json.loads(out)["results"]], [r["id"] for r in record["returned"]], (mode, query))

    def test_an_index_serves_the_same(self):
        index = self.dir / "v0.db"
        self.assertEqual(run_cli("index", str(V0), "--out", str(index))[0], 0)
        path = self.queries_file(json.dumps({"query": q}) for q in QUERIES)
        _, from_dir, _ = run_cli("search", str(V0), "--as-of", T, "--queries", path, "--format", "json")
        _, from_index, _ = run_cli("search", str(index), "--as-of", T, "--queries", path, "--format", "json")
        self.assertEqual(from_index, from_dir)

    def test_bad_input_names_the_file_and_line(self):
        good = json.dumps({"query": "Aster"})
        for bad, message in [
            ("not json", "q.jsonl:2: "),
            ('["a list"]', "q.jsonl:2: "),
            ('{"q": "wrong key"}', "q.jsonl:2: unexpected argument(s) 'q'"),
            ('{"query": 7}', "q.jsonl:2: search needs 'query', a non-empty string"),
            ('{"query": "   "}', "q.jsonl:2: search needs 'query', a non-empty string"),
            (json.dumps({"query": "x" * 1001}), "q.jsonl:2: 'query' is longer than 1000 characters"),
        ]:
            path = self.queries_file([good, bad])
            status, out, err = run_cli("search", str(V0), "--as-of", T, "--queries", path)
            self.assertEqual(status, 2, bad)
            self.assertEqual(out, "")
            self.assertIn(message, err)
            self.assertEqual(err.count("\n"), 1, err)

    def test_bad_arguments(self):
        path = self.queries_file([json.dumps({"query": "Aster"})])
        for argv, message in [
            (["search", str(V0), "--as-of", T], "give one QUERY or --queries"),
            (["search", str(V0), "Aster", "--queries", path, "--as-of", T], "give one QUERY or --queries"),
            (["search", str(V0), "", "--as-of", T], "QUERY: search needs 'query'"),
            (["search", str(V0), "Aster", "--as-of", T, "--ranking", "tfidf"], "--ranking"),
            (["search", str(V0), "Aster", "--as-of", "June"], "--as-of"),
            (["search", str(self.dir / "missing"), "Aster", "--as-of", T], "missing"),
            (["search", str(V0), "--as-of", T, "--queries", str(self.dir / "none.jsonl")], "none.jsonl"),
        ]:
            status, out, err = run_cli(*argv)
            self.assertEqual(status, 2, argv)
            self.assertIn(message, err, argv)


class RankingInTheLogTest(unittest.TestCase):
    def test_the_log_says_which_ranking_served_each_search(self):
        for ranking in ("bm25", "count"):
            journal = ListJournal()
            lock = TimeLock(CorpusBackend(load_corpus_dir(V0), ranking=ranking), dt.date.fromisoformat(T), journal)
            lock.call("search", {"query": "Aster"})
            lock.call("fetch", {"id_or_url": "fin-001"})
            lock.call("search", {"query": ""})  # refused: nothing was ranked
            self.assertEqual(journal.header["ranking"], ranking)
            self.assertEqual([r.get("ranking") for r in journal.records], [ranking, None, None])
            self.assertEqual(journal.records[0]["status"], "ok")

    def test_an_upstream_records_no_ranking(self):
        journal = ListJournal()
        lock = TimeLock(FixedBackend(), dt.date.fromisoformat(T), journal)
        lock.call("search", {"query": "Aster"})
        self.assertNotIn("ranking", journal.header)
        self.assertNotIn("ranking", journal.records[0])

    def test_count_serves_the_earlier_order(self):
        corpus = load_corpus_dir(V0)
        day = dt.date.fromisoformat(T)
        for ranking in ("bm25", "count"):
            hits = CorpusBackend(corpus, ranking=ranking).search("quarter revenue", k=5, as_of=day, mode="enforced")
            want = SearchEngine(corpus).scored("quarter revenue", as_of=day, mode="enforced", k=5, ranking=ranking)
            self.assertEqual([(h.id, h.score) for h in hits], [(i.id, s) for i, s in want])

    def test_serve_refuses_a_ranking_for_an_upstream(self):
        with tempfile.TemporaryDirectory() as tmp:
            status, _, err = run_cli("serve", "--as-of", T, "--upstream", "http://127.0.0.1:9", "--ranking", "count",
                                     "--events", str(Path(tmp) / "e.jsonl"))
            self.assertEqual(status, 2)
            self.assertIn("--ranking", err)
            self.assertFalse((Path(tmp) / "e.jsonl").exists())


if __name__ == "__main__":
    unittest.main()
