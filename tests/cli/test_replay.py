"""``anachron replay RUNDIR``: a run's lock calls made again offline, each compared with its record.

Same calls -> exit 0; a call that returns other items, withholds others or ends otherwise -> exit 1,
naming it; a log that is not the one run.json pins, a run.json missing, an upstream backend -> exit 2
and one line.  The run directories are built in-process: a TimeLock over a small corpus directory
writes the event log, and run.json pins it through run_dir.write_run.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import shutil
import tempfile
import unittest
from pathlib import Path

from anachron.core.chain import log_chain
from anachron.importers.run_dir import write_run
from anachron.timelock import CorpusBackend, EventWriter, Limits, TimeLock, open_engine
from tests.support import ROOT, run_cli

T = _dt.date(2021, 6, 30)
LOG = "lock-events.jsonl"


def _items() -> list[dict]:
    """The v0 corpus's finance items: a few before T, a few after."""
    out = []
    for line in (ROOT / "corpus" / "v0" / "items.jsonl").read_text(encoding="utf-8").split("\n"):
        if line.strip():
            item = json.loads(line)
            if item["id"].startswith("fin-"):
                item.pop("facts", None)  # facts name facts.jsonl's entries; the lock serves items alone
                out.append(item)
    return out


class Replay(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.corpus = self.tmp / "corpus"
        self.corpus.mkdir()
        self.items = _items()
        self.write_corpus()
        self.rundir = self.tmp / "run"
        self.rundir.mkdir()
        self.calls = [("search", {"query": "Aster Logistics revenue"}), ("fetch", {"id_or_url": "fin-001"}),
                      ("fetch", {"id_or_url": "fin-009"}), ("search", {"query": "Aster", "as_of": "2030-01-01"}),
                      ("search", {"query": "guidance"})]
        self.record_run(limits=Limits(calls=4))

    def write_corpus(self) -> None:
        text = "".join(json.dumps(item) + "\n" for item in self.items)
        (self.corpus / "items.jsonl").write_text(text, encoding="utf-8")
        shutil.copy(ROOT / "corpus" / "v0" / "entities.jsonl", self.corpus / "entities.jsonl")

    def record_run(self, limits: Limits = Limits(), backend=None) -> None:
        events = EventWriter(self.rundir / LOG, overwrite=True)
        lock = TimeLock(backend or CorpusBackend(open_engine(str(self.corpus))), T, events, limits=limits, k=3)
        for tool, arguments in self.calls:
            lock.call(tool, arguments)
        events.close()
        self.pin()

    def pin(self) -> None:
        for name in ("transcript.jsonl", "mcp.json"):
            (self.rundir / name).write_text("{}\n", encoding="utf-8")
        chain = log_chain((self.rundir / LOG).read_bytes())
        write_run(self.rundir, {
            "harness": "responses", "as_of": T.isoformat(),
            "corpus": {"spec": str(self.corpus), "sha256": "0" * 64}, "refused": None,
            "files": {"transcript": "transcript.jsonl", "transcript_format": "openai-responses", "lock_events": LOG,
                      "mcp_config": "mcp.json", "stderr": None},
            "sealed_tools": ["search", "fetch"], "seal": None,
            "lock_log": {"records": chain.records, "sha256": chain.sha256, "torn": chain.torn},
            "digests": {name: hashlib.sha256((self.rundir / name).read_bytes()).hexdigest()
                        for name in ("transcript.jsonl", "mcp.json")},
        })

    def log_records(self) -> list[dict]:
        return [json.loads(line) for line in (self.rundir / LOG).read_text(encoding="utf-8").split("\n") if line]

    def write_log(self, records: list[dict]) -> None:
        (self.rundir / LOG).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    def replay(self, *extra: str) -> tuple[int, str, str]:
        return run_cli("replay", str(self.rundir), *extra)

    def test_the_same_calls_replayed_are_the_same(self):
        status, out, err = self.replay()
        self.assertEqual((status, err), (0, ""), out)
        lines = out.rstrip("\n").split("\n")
        self.assertEqual(len(lines), len(self.calls) + 1)
        for n, line in enumerate(lines[:-1], 1):
            self.assertTrue(line.startswith(f"#{n} ") and line.endswith(": same"), line)
        self.assertIn("#1 search 'Aster Logistics revenue': same", lines[0])
        self.assertIn("every call the same", lines[-1])

    def test_json_gives_each_calls_comparison_and_the_totals(self):
        status, out, err = self.replay("--format", "json")
        self.assertEqual((status, err), (0, ""), out)
        document = json.loads(out)
        self.assertEqual(document["totals"], {"calls": len(self.calls), "same": len(self.calls), "differ": 0})
        self.assertEqual([(c["tool"], c["arguments"]) for c in document["calls"]], [(t, a) for t, a in self.calls])
        self.assertEqual([c["seq"] for c in document["calls"]], list(range(1, len(self.calls) + 1)))
        logged = [r for r in self.log_records() if r.get("event") == "call"]
        for call, record in zip(document["calls"], logged):
            self.assertEqual((call["same"], call["differs"]), (True, []))
            self.assertEqual(call["recorded"], call["replayed"])
            self.assertEqual(call["recorded"]["returned"], [entry["id"] for entry in record.get("returned", [])])
            self.assertEqual(call["recorded"]["status"], record["status"])
        self.assertEqual(document["calls"][2]["recorded"]["withheld"], [{"id": "fin-009", "reason": "after-cutoff"}])
        self.assertEqual((document["as_of"], document["corpus"]), (T.isoformat(), str(self.corpus)))

    def test_json_names_what_differs_and_exits_1(self):
        records = self.log_records()
        records[1]["returned"] = list(reversed(records[1]["returned"]))
        records[5]["status"], records[5]["error"] = "error", "made up"
        self.write_log(records)
        self.pin()
        status, out, _ = self.replay("--format", "json")
        self.assertEqual(status, 1, out)
        document = json.loads(out)
        self.assertEqual(document["totals"], {"calls": len(self.calls), "same": len(self.calls) - 2, "differ": 2})
        self.assertEqual([(c["seq"], c["differs"]) for c in document["calls"] if not c["same"]],
                         [(1, ["returned"]), (5, ["status"])])
        first = document["calls"][0]
        self.assertEqual(first["recorded"]["returned"], list(reversed(first["replayed"]["returned"])))

    def test_out_writes_the_output_there_and_nothing_on_bad_input(self):
        target = self.tmp / "replay.json"
        status, out, err = self.replay("--format", "json", "--out", str(target))
        self.assertEqual((status, out, err), (0, "", ""))
        self.assertEqual(json.loads(target.read_text(encoding="utf-8"))["totals"]["same"], len(self.calls))
        table = self.tmp / "replay.txt"
        status, out, _ = self.replay("--out", str(table))
        self.assertEqual((status, out), (0, ""))
        self.assertEqual(table.read_text(encoding="utf-8"), self.replay()[1])
        # A log edited and not re-pinned: refused, and the file from before is left as it was.
        before = target.read_bytes()
        records = self.log_records()
        records[1]["returned"] = records[1]["returned"][:1]
        self.write_log(records)
        status, out, err = self.replay("--format", "json", "--out", str(target))
        self.assertEqual((status, out, err.count("\n")), (2, "", 1), err)
        self.assertEqual(target.read_bytes(), before)
        missing = self.tmp / "none" / "replay.json"
        status, _, err = self.replay("--format", "json", "--out", str(missing))
        self.assertEqual((status, err.count("\n"), missing.exists()), (2, 1, False))

    def test_out_never_names_a_file_of_the_run(self):
        before = (self.rundir / LOG).read_bytes()
        status, out, err = self.replay("--format", "json", "--out", str(self.rundir / LOG))
        self.assertEqual((status, out, err.count("\n")), (2, "", 1), err)
        self.assertIn("--out names an input", err)
        self.assertEqual((self.rundir / LOG).read_bytes(), before)

    def test_the_calls_include_a_refusal_a_post_cutoff_withholding_and_an_exhausted_budget(self):
        # What the replay must reproduce beyond shown ids: the fixture would prove little without these.
        statuses = [r.get("status") for r in self.log_records() if r.get("event") == "call"]
        self.assertEqual(statuses, ["ok", "ok", "refused", "refused", "exhausted"])
        self.assertEqual([(w["id"], w["reason"]) for w in self.log_records()[3]["withheld"]], [("fin-009", "after-cutoff")])

    def test_an_edited_call_repinned_differs_and_is_named(self):
        records = self.log_records()
        first = records[1]
        self.assertGreater(len(first["returned"]), 1)
        first["returned"] = list(reversed(first["returned"]))
        self.write_log(records)
        self.pin()  # the chain re-pinned: the log is "the run's", yet the lock answers otherwise
        status, out, err = self.replay()
        self.assertEqual((status, err), (1, ""), out)
        line = out.split("\n")[0]
        self.assertTrue(line.startswith("#1 search 'Aster Logistics revenue': differs: recorded ["), line)
        ids = [r["id"] for r in first["returned"]]
        self.assertIn(f"recorded [{', '.join(ids)}], replayed [{', '.join(reversed(ids))}]", line)
        self.assertTrue(all(l.endswith(": same") for l in out.split("\n")[1:len(self.calls)]))
        self.assertIn("1 of 5 call(s) differ", out)

    def test_an_edited_status_repinned_differs(self):
        records = self.log_records()
        records[5]["status"], records[5]["error"] = "error", "made up"
        self.write_log(records)
        self.pin()
        status, out, _ = self.replay()
        self.assertEqual(status, 1)
        self.assertIn("#5 search 'guidance': differs: status recorded error, replayed exhausted", out)

    def test_an_edited_log_not_repinned_is_refused(self):
        records = self.log_records()
        records[1]["returned"] = records[1]["returned"][:1]
        self.write_log(records)
        status, out, err = self.replay()
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err.count("\n"), 1, err)
        self.assertIn(LOG, err)
        self.assertIn("not replayed", err)

    def test_a_corpus_whose_item_moved_after_the_cutoff_differs(self):
        fetched = next(i for i in self.items if i["id"] == "fin-001")
        fetched["publish_date"] = (T + _dt.timedelta(days=1)).isoformat()
        self.write_corpus()
        status, out, _ = self.replay()
        self.assertEqual(status, 1, out)
        line = out.split("\n")[1]
        self.assertTrue(line.startswith("#2 fetch 'fin-001': differs: recorded [fin-001], replayed []"), line)
        self.assertIn("withheld recorded [], replayed [fin-001 (after-cutoff)]", line)
        self.assertIn("status recorded ok, replayed refused", line)

    def test_a_withheld_item_edited_repinned_differs(self):
        records = self.log_records()
        records[3]["withheld"][0]["reason"] = "undated"
        self.write_log(records)
        self.pin()
        status, out, _ = self.replay()
        self.assertEqual(status, 1)
        self.assertIn("#3 fetch 'fin-009': differs: withheld recorded [fin-009 (undated)], replayed [fin-009 (after-cutoff)]", out)

    def test_another_corpus_can_be_given(self):
        other = self.tmp / "other"
        shutil.copytree(self.corpus, other)
        (self.corpus / "items.jsonl").unlink()  # the recorded corpus is gone: --corpus stands in
        status, out, err = self.replay("--corpus", str(other))
        self.assertEqual((status, err), (0, ""), out)
        self.assertIn(f"over {other}", out)

    def test_a_directory_without_run_json_is_refused(self):
        (self.rundir / "run.json").unlink()
        status, out, err = self.replay()
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err.count("\n"), 1)
        self.assertIn("no run.json", err)

    def test_an_empty_log_is_refused_not_same(self):
        (self.rundir / LOG).write_bytes(b"")
        self.pin()
        status, out, err = self.replay()
        self.assertEqual((status, out), (2, ""))
        self.assertIn("no complete event record", err)

    def test_an_upstream_log_is_refused(self):
        records = self.log_records()
        records[0]["backend"], records[0]["source"] = "upstream", "http://127.0.0.1:9/"
        self.write_log(records)
        self.pin()
        status, out, err = self.replay()
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err.count("\n"), 1)
        self.assertIn("cannot be replayed offline", err)


if __name__ == "__main__":
    unittest.main()
