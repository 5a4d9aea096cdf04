"""Event logs of the time-lock server: reading, scoring (score-events) and citations (verify-citations).

Standard library only: these commands must work without the mcp extra.  The
logs here are built with the same record builders the server writes with.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from anachron.core.dates import parse_date
from anachron.timelock.events import Seen, Withheld, call_record, start_record

from tests.support import ROOT, run_cli

RUN = "0" * 32
SERVER_AS_OF = "2022-12-31"


def start(as_of=SERVER_AS_OF, run=RUN, **overrides):
    record = start_record(
        run=run, time="2026-01-01T00:00:00.000Z", as_of=parse_date(as_of), mode="enforced", backend="upstream",
        source="http://127.0.0.1:9/", k=5, allow_undated=False, limits={"searches": None, "fetches": None, "calls": None},
        date_presentation="visible", server="test",
    )
    record.update(overrides)
    return record


def call(seq, tool="search", arguments=None, status="ok", returned=(), withheld=(), run=RUN, error=None):
    if arguments is None:
        arguments = {"query": "q"} if tool == "search" else {"id_or_url": "x"}
    return call_record(
        run=run, seq=seq, time="2026-01-01T00:00:01.000Z", tool=tool, arguments=arguments, status=status,
        error=error, returned=list(returned), withheld=list(withheld), budget={},
    )


def seen(ident, published, title="t"):
    return Seen(ident, title, parse_date(published) if published else None, None if published else "no date")


class LogFiles:
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name, records):
        path = self.dir / name
        path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
        return str(path)

    def assertBadInput(self, argv, *fragments):
        status, out, err = run_cli(*argv)
        self.assertEqual(status, 2, err)
        self.assertEqual(out, "")
        self.assertEqual(len(err.splitlines()), 1, err)
        for fragment in fragments:
            self.assertIn(fragment, err)
        return err


# A served run: five calls, of which three are interactions (ok).  At T = 2022-06-01:
#   call 1 showed fin-001 (2021-02-11) and an upstream URL dated 2022-07-01 -> leaks;
#   call 2 showed fin-002 and withheld fin-005 (2023-02-09): withheld was never shown -> no leak;
#   call 3 (fetch) showed nothing;
#   call 4 was refused and call 5 failed: no retrieval, not interactions (failed calls).
# So TCLR = 1/3; counting withheld items would give 2/3, counting every call 1/5.
URL = "https://news.example/2022/07/01/cygnus"
RUN_RECORDS = [
    start(),
    call(1, returned=[seen("fin-001", "2021-02-11"), seen(URL, "2022-07-01")]),
    call(2, arguments={"query": "Cygnus results Q3 2022"}, returned=[seen("fin-002", "2021-04-28")],
         withheld=[Withheld("fin-005", "2023-02-09", "after-cutoff")]),
    call(3, tool="fetch", arguments={"id_or_url": "fin-009"}),
    call(4, arguments={"query": "x", "as_of": "2030-01-01"}, status="refused", error="unexpected argument"),
    call(5, status="error", error="upstream /search answered HTTP 500"),
]
EQUIVALENT_TRACE = {
    "sample_id": "run", "as_of": "2022-06-01", "mode": "enforced",
    "interactions": [
        {"tool": "search", "query": "q", "returned": ["fin-001", {"id": URL, "publish_date": "2022-07-01"}]},
        {"tool": "search", "query": "Cygnus results Q3 2022", "returned": ["fin-002"]},
        {"tool": "fetch", "query": None, "returned": [], "target": "fin-009"},
        {"tool": "search", "query": "x", "status": "refused"},
        {"tool": "search", "query": "q", "status": "error"},
    ],
}


class ScoreEventsTest(LogFiles, unittest.TestCase):
    def test_a_log_scores_exactly_as_its_equivalent_trace(self):
        log = self.write("run.jsonl", RUN_RECORDS)
        trace = self.write("trace.jsonl", [EQUIVALENT_TRACE])
        # The same figures; only the seal verdict differs: the lock's own log gives none.
        status, out, err = run_cli("score-events", log, "--as-of", "2022-06-01")
        self.assertEqual(status, 0, err)
        lines = run_cli("score", trace)[1].splitlines()
        # The trace of plain calls has no seal line (no audit could apply); the lock's log says why it has no verdict.
        # ... and one line of its own: what the items shown were promised (an upstream log of old: unrecorded).
        self.assertEqual(out.splitlines(), ["seal audit: no verdict: this log holds only the lock's calls "
                                            "(audit the harness's own log with --lock-events)", ""] + lines
                         + [f"{'shown, by guarantee':<25}unrecorded 3"])
        served = json.loads(run_cli("score-events", log, "--as-of", "2022-06-01", "--format", "json")[1])
        scored = json.loads(run_cli("score", trace, "--format", "json")[1])
        self.assertEqual((served["summary"]["seal_status"], served["samples"][0]["seal_status"]), ("lock-only", "lock-only"))
        for document in (served, scored):
            document["summary"]["seal_status"] = document["samples"][0]["seal_status"] = None
        # ... and the log's own count: the malformed messages the lock refused (none here).
        self.assertEqual(served["summary"].pop("protocol_errors"), 0)
        self.assertEqual(served["summary"].pop("guarantees"), {"unrecorded": 3})
        self.assertEqual(served, scored)
        sample = json.loads(run_cli("score-events", log, "--as-of", "2022-06-01", "--format", "json")[1])["samples"][0]
        self.assertEqual((sample["sample_id"], sample["interactions"], sample["result_leaks"]), ("run", 3, 1))
        self.assertAlmostEqual(sample["tclr"], 1 / 3)
        # Call 2's query names Q3 2022, which begins after T: the query is kept for the intent check.
        self.assertEqual(sample["query_intent_leaks"], 1)
        self.assertEqual(sample["failed_calls"], {"refused": 1, "exhausted": 0, "error": 1})

    def test_csv_rows_are_those_of_score_csv_of_the_equivalent_trace(self):
        import csv
        import io

        log = self.write("run.jsonl", RUN_RECORDS)
        trace = self.write("trace.jsonl", [EQUIVALENT_TRACE])
        status, out, err = run_cli("score-events", log, "--as-of", "2022-06-01", "--format", "csv")
        self.assertEqual(status, 0, err)
        served = list(csv.DictReader(io.StringIO(out)))
        scored = list(csv.DictReader(io.StringIO(run_cli("score", trace, "--format", "csv")[1])))
        self.assertEqual(len(served), 1)
        self.assertEqual(served[0].pop("seal_status"), "lock-only")  # the lock's own log gives no verdict
        scored[0].pop("seal_status")
        self.assertEqual(served, scored)

    def test_a_version_1_log_reads_its_rejected_calls_as_refused_or_exhausted(self):
        v1 = [dict(start(), format="anachron-events/1"),
              dict(call(1, arguments={"query": "q3 2023", "as_of": "2030-01-01"}, error="unexpected argument(s) 'as_of'"),
                   status="rejected"),
              dict(call(2, error="searches budget exhausted (1 of 1 used): no more search calls in this run"),
                   status="rejected")]
        log = self.write("v1.jsonl", v1)
        sample = json.loads(run_cli("score-events", log, "--as-of", "2022-06-01", "--format", "json")[1])["samples"][0]
        self.assertEqual(sample["failed_calls"], {"refused": 1, "exhausted": 1, "error": 0})
        self.assertEqual((sample["interactions"], sample["query_intent_leaks"]), (0, 1))

    def test_a_withheld_post_cutoff_fetch_is_a_blocked_attempt(self):
        log = self.write("blocked.jsonl", [start(as_of="2022-06-01"), call(
            1, tool="fetch", arguments={"id_or_url": "fin-005"}, status="refused", error="No document 'fin-005' is available.",
            withheld=[Withheld("fin-005", "2023-02-09", "after-cutoff")])])
        sample = json.loads(run_cli("score-events", log, "--as-of", "2022-06-01", "--format", "json")[1])["samples"][0]
        self.assertEqual((sample["interactions"], sample["tclr"], sample["blocked_attempts"]), (0, 0.0, 1))
        self.assertEqual(sample["evidence"], ["#1 blocked fetch of fin-005 dated 2023-02-09 > 2022-06-01"])

    def test_the_server_cutoff_differing_from_the_scoring_date_is_noted_on_stderr(self):
        log = self.write("run.jsonl", RUN_RECORDS)
        status, _, err = run_cli("score-events", log, "--as-of", "2022-06-01")
        self.assertEqual(status, 0)
        self.assertIn(f"the log states as of {SERVER_AS_OF}; scored as of 2022-06-01 (a rescoring", err)
        self.assertEqual(run_cli("score-events", log, "--as-of", SERVER_AS_OF)[2], "")

    def test_scored_at_the_server_cutoff_nothing_leaks(self):
        log = self.write("run.jsonl", RUN_RECORDS)
        sample = json.loads(run_cli("score-events", log, "--as-of", SERVER_AS_OF, "--format", "json")[1])["samples"][0]
        self.assertEqual((sample["tclr"], sample["result_leaks"]), (0.0, 0))

    def test_sample_id_defaults_to_the_file_name_and_each_log_is_a_sample(self):
        a = self.write("claude-opus.jsonl", RUN_RECORDS)
        b = self.write("gpt.jsonl", [start(run="1" * 32), call(1, run="1" * 32, returned=[seen("fin-001", "2021-02-11")])])
        doc = json.loads(run_cli("score-events", a, b, "--as-of", "2022-06-01", "--format", "json")[1])
        self.assertEqual([(s["sample_id"], s["interactions"]) for s in doc["samples"]], [("claude-opus", 3), ("gpt", 1)])
        self.assertEqual(doc["summary"]["n"], 2)

    def test_sample_id_option_and_a_corpus_sample_must_agree_on_the_date(self):
        log = self.write("run.jsonl", RUN_RECORDS)
        status, out, err = run_cli("score-events", log, "--as-of", "2022-06-01", "--sample-id", "finance-001", "--format", "json")
        self.assertEqual(status, 0, err)
        self.assertEqual(json.loads(out)["samples"][0]["sample_id"], "finance-001")
        self.assertBadInput(["score-events", log, "--as-of", "2022-06-02", "--sample-id", "finance-001"],
                            "finance-001", "disagrees")
        self.assertBadInput(["score-events", log, log, "--as-of", "2022-06-01", "--sample-id", "x"], "--sample-id")

    def test_an_empty_log_is_refused_and_a_started_one_is_a_run_without_calls(self):
        log = self.write("idle.jsonl", [])
        self.assertEqual(run_cli("score-events", log, "--as-of", "2022-06-01", "--format", "json"),
                         (2, "", f"anachron: {log}: the log holds no complete event record\n"))
        log = self.write("idle.jsonl", [start()])
        status, out, err = run_cli("score-events", log, "--as-of", "2022-06-01", "--format", "json")
        self.assertEqual(status, 0, err)
        sample = json.loads(out)["samples"][0]
        self.assertEqual((sample["interactions"], sample["tclr"]), (0, 0.0))

    def test_undated_items_shown_make_the_band_and_are_noted(self):
        log = self.write("run.jsonl", [start(allow_undated=True), call(1, returned=[seen("https://a.example/x", None)])])
        status, out, err = run_cli("score-events", log, "--as-of", "2022-06-01", "--format", "json")
        self.assertEqual(status, 0, err)
        sample = json.loads(out)["samples"][0]
        self.assertEqual((sample["interactions"], sample["undated"], sample["tclr"], sample["tclr_high"]), (1, 1, 0.0, 1.0))
        self.assertIn("1 undated item(s) were shown: they make TCLR's band", err)

    def test_a_corpus_served_log_needs_the_corpus_it_was_served_from(self):
        log = self.write("run.jsonl", [start(backend="corpus"), call(1, returned=[seen("zz-1", "2021-02-12")])])
        self.assertBadInput(["score-events", log, "--as-of", "2022-06-01"], "returned id 'zz-1' is not in the corpus")

    def test_a_corpus_item_dated_otherwise_in_the_log_is_refused(self):
        log = self.write("run.jsonl", [start(), call(1, returned=[seen("fin-001", "2021-02-12")])])
        self.assertBadInput(["score-events", log, "--as-of", "2022-06-01"], f"{log}:2", "fin-001", "2021-02-11")

    def test_bad_logs_exit_2_naming_the_line(self):
        other = "f" * 32
        cases = {
            "no start": ([call(1)], ":1", "must begin with a 'start' record"),
            "second run": ([start(), call(1), start(run=other)], ":3", "second run"),
            "mixed runs": ([start(), call(1), call(2, run=other)], ":3", "one log holds one run"),
            "gap": ([start(), call(1), call(3)], ":3", "expected 2"),
            "format": ([start(format="other/9")], ":1", "format"),
            "status": ([start(), dict(call(1), status="maybe")], ":2", "status"),
            "refused with results": ([start(), call(1, status="refused", returned=[seen("fin-001", "2021-02-11")])],
                                      ":2", "cannot have shown results"),
            "bad date": ([start(), dict(call(1), returned=[{"id": "a", "title": "", "published": "2022-02-30"}])],
                         ":2", "returned[0]"),
            "undated without reason": ([start(), dict(call(1), returned=[{"id": "a", "title": "", "published": None}])],
                                       ":2", "undated"),
            "withheld reason": ([start(), dict(call(1), withheld=[{"id": "a", "published": None, "reason": "vibes"}])],
                                ":2", "reason"),
            "unknown event": ([start(), {"event": "stop", "run": RUN}], ":2", "unknown event"),
            "not json": ([start(), "{oops"], ":2", "invalid JSON"),
            "arguments": ([start(), dict(call(1), arguments=[1])], ":2", "arguments"),
            "withheld count": ([start(), dict(call(1), withheld_count=2)], ":2", "withheld_count"),
        }
        for name, (records, line, fragment) in cases.items():
            with self.subTest(name):
                log = self.write(f"{name}.jsonl", records)
                self.assertBadInput(["score-events", log, "--as-of", "2022-06-01"], log + line, fragment)

    def test_a_torn_last_line_is_left_out_with_a_warning(self):
        log = self.write("torn.jsonl", RUN_RECORDS)
        with open(log, "a", encoding="utf-8") as fh:
            fh.write('{"event": "call", "run": "' + RUN + '", "se')  # the disk filled up mid-write
        status, out, err = run_cli("score-events", log, "--as-of", "2022-06-01", "--format", "json")
        self.assertEqual(status, 0, err)
        self.assertEqual(json.loads(out)["samples"][0]["interactions"], 3)
        self.assertIn(f"warning: {log}:7: the last line is torn", err)
        self.assertIn("scored the 5 complete call(s) before it", err)
        # A bad line that is not the last one is still an error.
        middle = self.write("middle.jsonl", [*RUN_RECORDS[:2], "{oops", *RUN_RECORDS[2:]])
        self.assertBadInput(["score-events", middle, "--as-of", "2022-06-01"], f"{middle}:3", "invalid JSON")

    def test_the_lock_writes_only_what_its_reader_takes_back(self):
        import datetime as dt

        from anachron.core import load_corpus_dir
        from anachron.timelock import CorpusBackend, EventWriter, TimeLock

        path = self.dir / "hostile.jsonl"
        writer = EventWriter(path)
        lock = TimeLock(CorpusBackend(load_corpus_dir()), dt.date(2022, 6, 1), writer)
        hostile = [
            ("search", {"query": "x", "as_of": float("inf")}), ("search", {"query": float("nan")}),
            ("search", {(1, 2): "x"}), ("search", {"query": "x", None: 1}), ("search", {"as_of": dt.date(2022, 1, 1)}),
            ("search", "cygnus"), ("search", ["c"]), ("", {}), (" ", {}), ("search", {"query": "q2 2023 " * 62500}),
            ("search", {"query": "a\u2028b\u0085c\ud800 q3 2023"}), ("fetch", {"id_or_url": "fin-005", "query": "FY2024"}),
        ]
        statuses = [lock.call(tool, arguments).status for tool, arguments in hostile]
        writer.close()
        # Each is refused but the separators-and-surrogate query, which is a fine query.
        self.assertEqual(statuses, ["refused"] * 10 + ["ok", "refused"])
        text = path.read_text(encoding="utf-8")
        self.assertEqual(text.count("\n"), len(hostile) + 1)  # one line per record, the start record included
        self.assertLess(len(text), 200_000)  # the 500 KB query is logged by its head, length and hash
        status, out, err = run_cli("score-events", str(path), "--as-of", "2022-06-01", "--format", "json")
        self.assertEqual(status, 0, err)
        sample = json.loads(out)["samples"][0]
        self.assertEqual(sample["failed_calls"], {"refused": 11, "exhausted": 0, "error": 0})
        self.assertEqual(sample["interactions"], 1)
        # Query intent, whatever the status and whatever the tool: one line per period, the query cut short.
        self.assertEqual(sample["query_intent_leaks"], 3)
        self.assertEqual(sample["blocked_attempts"], 1)  # the fetch of fin-005, refused for its extra argument
        self.assertTrue(all(len(line) < 200 for line in sample["evidence"]), sample["evidence"])

    def test_a_write_cut_short_is_undone_and_the_next_call_takes_its_number(self):
        import datetime as dt
        import errno
        from unittest import mock

        from anachron.core import load_corpus_dir
        from anachron.timelock import CorpusBackend, EventWriter, TimeLock, load_events

        path = self.dir / "full.jsonl"
        writer = EventWriter(path)
        lock = TimeLock(CorpusBackend(load_corpus_dir()), dt.date(2022, 6, 1), writer)
        self.assertEqual(lock.call("search", {"query": "aster logistics"}).status, "ok")
        real_write = os.write

        def half_then_full(fd, data):  # the disk fills up halfway through the record
            real_write(fd, bytes(data[: len(data) // 2]))
            raise OSError(errno.ENOSPC, "No space left on device")

        with mock.patch("anachron.timelock.events.os.write", side_effect=half_then_full):
            failed = lock.call("search", {"query": "aster logistics"})
        self.assertTrue(failed.is_error)
        self.assertEqual(failed.structured["results"], [])  # nothing unlogged is shown
        self.assertEqual(lock.call("search", {"query": "borealis"}).status, "ok")
        writer.close()
        log = load_events(path)
        self.assertEqual(([c.seq for c in log.calls], log.torn), ([1, 2], None))
        self.assertEqual(log.calls[1].arguments, {"query": "borealis"})

    def test_argument_names_and_the_whole_arguments_are_capped_in_the_log(self):
        import datetime as dt

        from anachron.core import load_corpus_dir
        from anachron.timelock import CorpusBackend, EventWriter, TimeLock, load_events

        path = self.dir / "big.jsonl"
        writer = EventWriter(path)
        lock = TimeLock(CorpusBackend(load_corpus_dir()), dt.date(2022, 6, 1), writer)
        lock.call("search", {"A" * 2_000_000: 1})
        lock.call("search", {"query": [["x" * 4000] * 64] * 40})
        writer.close()
        self.assertLess(path.stat().st_size, 100_000)
        calls = load_events(path).calls
        self.assertEqual([c.status for c in calls], ["refused", "refused"])
        with open(path, encoding="utf-8") as fh:
            records = [json.loads(line) for line in fh][1:]
        self.assertEqual(records[0]["arguments_changed"][0]["change"], "key truncated")
        self.assertEqual(records[1]["arguments_changed"][-1]["change"], "arguments truncated")

    def test_bad_arguments_exit_2(self):
        log = self.write("run.jsonl", RUN_RECORDS)
        self.assertBadInput(["score-events", log, "--as-of", "2022-13-01"], "--as-of")
        self.assertBadInput(["score-events", str(self.dir / "missing.jsonl"), "--as-of", "2022-06-01"], "no such file")


class VerifyCitationsTest(LogFiles, unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.log = self.write("run.jsonl", RUN_RECORDS)

    def verify(self, citations, *extra):
        answer = self.dir / "answer.json"
        answer.write_text(json.dumps({"prediction": "x", "citations": citations}), encoding="utf-8")
        return run_cli("verify-citations", str(answer), self.log, *extra)

    def test_citations_shown_on_or_before_the_cutoff_pass(self):
        status, out, err = self.verify(["fin-001", {"url": URL, "claim": "c"}, {"id": "fin-002"}])
        self.assertEqual((status, err), (0, ""))
        lines = out.splitlines()
        self.assertEqual([line.split()[0] for line in lines[:3]], ["ok", "ok", "ok"])
        self.assertIn("fin-001: returned by call 1, dated 2021-02-11", lines[0])
        self.assertEqual(lines[-1], f"3 citation(s): 3 verified, 0 failed (cutoff {SERVER_AS_OF})")

    def test_each_failing_citation_is_listed_with_its_reason(self):
        status, out, err = self.verify(
            ["fin-001", "fin-005", "https://made.up/story", URL + "/", "fin-009", "2030-01-01"], "--as-of", "2022-06-01"
        )
        self.assertEqual((status, err), (1, ""))
        lines = out.splitlines()
        self.assertEqual(lines[0], "ok    fin-001: returned by call 1, dated 2021-02-11")
        self.assertEqual(lines[1], "FAIL  fin-005: withheld by the server (after-cutoff, call 2), never shown to the agent")
        self.assertEqual(lines[2], "FAIL  https://made.up/story: never returned by a tool in this run")
        # URLs are compared exactly: a trailing slash is another document.
        self.assertEqual(lines[3], f"FAIL  {URL}/: never returned by a tool in this run")
        # fin-009 was only *asked for* (a fetch that showed nothing); the rejected call's arguments do not count either.
        self.assertEqual(lines[4], "FAIL  fin-009: never returned by a tool in this run")
        self.assertEqual(lines[5], "FAIL  2030-01-01: never returned by a tool in this run")
        self.assertEqual(lines[-1], "6 citation(s): 1 verified, 5 failed (cutoff 2022-06-01)")

    def test_shown_after_a_stricter_cutoff_fails(self):
        status, out, _ = self.verify([URL], "--as-of", "2022-06-01")
        self.assertEqual(status, 1)
        self.assertIn(f"FAIL  {URL}: returned by call 1 but dated 2022-07-01, after the cutoff 2022-06-01", out)

    def test_an_undated_citation_fails(self):
        self.log = self.write("undated.jsonl", [start(allow_undated=True), call(1, returned=[seen("https://a.example/x", None)])])
        status, out, _ = self.verify(["https://a.example/x"])
        self.assertEqual(status, 1)
        self.assertIn("returned undated by call 1 (no date): cannot be placed on or before the cutoff", out)

    def test_no_citations_is_nothing_to_fail(self):
        status, out, _ = self.verify([])
        self.assertEqual(status, 0)
        self.assertEqual(out, f"0 citation(s): 0 verified, 0 failed (cutoff {SERVER_AS_OF})\n")

    def test_bad_answers_exit_2(self):
        cases = {
            "array": ("[]", "expected a JSON object"),
            "no citations": ('{"answer": 1}', "missing field 'citations'"),
            "not a list": ('{"citations": "fin-001"}', "expected a list"),
            "number": ('{"citations": [3]}', "citations[0]"),
            "blank": ('{"citations": ["  "]}', "citations[0]"),
            "object without ref": ('{"citations": [{"title": "t"}]}', "needs 'url' or 'id'"),
            "duplicate key": ('{"citations": [], "citations": []}', "duplicate key"),
            "not json": ("{", "invalid JSON"),
        }
        for name, (text, fragment) in cases.items():
            with self.subTest(name):
                answer = self.dir / f"{name}.json"
                answer.write_text(text, encoding="utf-8")
                self.assertBadInput(["verify-citations", str(answer), self.log], str(answer), fragment)
        answer = self.dir / "ok.json"
        answer.write_text('{"citations": []}', encoding="utf-8")
        self.assertBadInput(["verify-citations", str(answer), str(self.dir / "nope.jsonl")], "no such file")
        bad_log = self.write("bad.jsonl", [call(1)])
        self.assertBadInput(["verify-citations", str(answer), bad_log], bad_log + ":1")
        self.assertBadInput(["verify-citations", str(answer), self.log, "--as-of", "June"], "--as-of")


class LogChainTest(unittest.TestCase):
    """The digest chain run.json pins: every edit, removal, addition or tear of a line changes it."""

    LOG = b'{"event": "start"}\n{"event": "call", "seq": 1}\n{"event": "call", "seq": 2}\n'

    def test_each_change_of_a_line_changes_the_last_link(self):
        from anachron.timelock.events import log_chain

        pinned = log_chain(self.LOG)
        self.assertEqual((pinned.records, pinned.torn), (3, False))
        lines = self.LOG.split(b"\n")[:-1]
        changed = {
            "edited": self.LOG.replace(b"seq\": 1", b"seq\": 9"),
            "removed": b"\n".join(lines[:2]) + b"\n",
            "appended": self.LOG + b'{"event": "call", "seq": 3}\n',
            "reordered": b"\n".join([lines[0], lines[2], lines[1]]) + b"\n",
            "torn": self.LOG[:-1],
            "a line split in two": self.LOG.replace(b", ", b"\n", 1),
        }
        for case, data in changed.items():
            with self.subTest(case):
                self.assertNotEqual(log_chain(data).sha256, pinned.sha256)
        self.assertEqual(log_chain(self.LOG), pinned)  # the same bytes, the same chain

    def test_a_torn_last_line_is_marked_and_chained(self):
        from anachron.timelock.events import CHAIN_START, log_chain

        torn = log_chain(self.LOG + b'{"event"')
        self.assertEqual((torn.records, torn.torn), (3, True))
        self.assertNotEqual(torn.sha256, log_chain(self.LOG + b'{"event"\n').sha256)
        self.assertEqual(log_chain(b"").to_dict(), {"records": 0, "sha256": CHAIN_START, "torn": False})

    def test_the_lock_logs_chain_is_the_model_logs(self):
        # One rule, written once (anachron.core.chain), pins both the lock's log and the model gateway's:
        # the same lines give the same digest, which is the rule written out here by hand.
        import hashlib
        import tempfile
        from pathlib import Path

        from anachron.core import chain
        from anachron.timelock.events import log_chain

        def by_hand(data: bytes) -> str:
            link = bytes(32)
            lines = data.split(b"\n")
            tail = lines.pop()
            for line in lines:
                link = hashlib.sha256(link + line + b"\n").digest()
            return hashlib.sha256(link + tail).hexdigest() if tail else link.hex()

        with tempfile.TemporaryDirectory() as tmp:
            writer = chain.ChainWriter(Path(tmp) / "model.jsonl")
            for n in range(3):
                writer.write({"n": n, "text": "line\u2028separator"})
            written = writer.chain
            writer.close()
            model_log = (Path(tmp) / "model.jsonl").read_bytes()
        for case, data in {"the lock's log": self.LOG, "a model log": model_log, "torn": self.LOG + b'{"event"',
                           "empty": b"", "blank lines": b"\n\n"}.items():
            with self.subTest(case):
                self.assertEqual(log_chain(data), chain.log_chain(data))
                self.assertEqual(log_chain(data).sha256, by_hand(data))
        self.assertEqual(log_chain(model_log), written)


class WithoutTheSdkTest(unittest.TestCase):
    """The mcp extra is optional: nothing but `serve` needs it, and `serve` says how to get it."""

    def python(self, code, *args):
        return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, timeout=60)

    BLOCK = "import sys; sys.modules['mcp'] = None\n"  # `import mcp` now raises ImportError, as if not installed

    def test_core_and_the_stdlib_commands_never_import_the_sdk(self):
        run = self.python(
            "import sys, anachron, anachron.core, anachron.timelock\n"
            "import anachron.cli.serve, anachron.cli.score_events, anachron.cli.verify_citations\n"
            "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'anachron.mcp'))))"
        )
        self.assertEqual((run.returncode, run.stdout.strip()), (0, "[]"), run.stderr)

    def test_importing_the_adapter_names_the_install_command(self):
        run = self.python(self.BLOCK + "import anachron.mcp")
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("ImportError", run.stderr)
        self.assertIn("pip install 'anachron[mcp]'", run.stderr)

    def test_serve_exits_2_with_one_line_and_the_hint(self):
        with tempfile.TemporaryDirectory() as tmp:
            events = os.path.join(tmp, "e.jsonl")
            run = self.python(
                self.BLOCK + "from anachron.cli import main; sys.exit(main(sys.argv[1:]))",
                "serve", "--as-of", "2022-06-01", "--events", events,
            )
            self.assertEqual((run.returncode, run.stdout), (2, ""))
            self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
            self.assertIn("pip install 'anachron[mcp]'", run.stderr)
            self.assertFalse(os.path.exists(events))

    def test_serve_checks_its_options_before_it_needs_the_sdk(self):
        code = self.BLOCK + "from anachron.cli import main; sys.exit(main(sys.argv[1:]))"
        with tempfile.TemporaryDirectory() as tmp:
            blocker = Path(tmp) / "file"
            blocker.write_text("x")
            for args, needle in (
                (["--events", f"{tmp}/e.jsonl", "--upstream", "http://127.0.0.1:9", "--upstream-timeout", "inf"],
                 "--upstream-timeout"),
                (["--events", f"{tmp}/e.jsonl", "--http", "host:port"], "--http: expected [HOST:]PORT"),
                (["--events", f"{tmp}/e.jsonl", "--date-presentation", "shifted"], "shift:+N"),
                (["--events-dir", str(blocker / "sub")], "--events-dir"),
            ):
                with self.subTest(args=args):
                    run = self.python(code, "serve", "--as-of", "2022-06-01", *args)
                    self.assertEqual((run.returncode, run.stdout), (2, ""))
                    self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
                    self.assertIn(needle, run.stderr)
                    self.assertNotIn("anachron[mcp]", run.stderr)
            runs = Path(tmp) / "runs"
            run = self.python(code, "serve", "--as-of", "2022-06-01", "--events-dir", str(runs))
            self.assertEqual(run.returncode, 2)
            self.assertIn("pip install 'anachron[mcp]'", run.stderr)
            self.assertEqual(list(runs.iterdir()), [])  # good options, no SDK: no event log is started

    def test_score_events_and_verify_citations_work_without_the_sdk(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp) / "run.jsonl"
            log.write_text("".join(json.dumps(r) + "\n" for r in RUN_RECORDS), encoding="utf-8")
            answer = Path(tmp) / "answer.json"
            answer.write_text('{"citations": ["fin-001"]}', encoding="utf-8")
            code = self.BLOCK + "from anachron.cli import main; sys.exit(main(sys.argv[1:]))"
            scored = self.python(code, "score-events", str(log), "--as-of", "2022-06-01", "--format", "json")
            self.assertEqual(scored.returncode, 0, scored.stderr)
            self.assertAlmostEqual(json.loads(scored.stdout)["samples"][0]["tclr"], 1 / 3)
            verified = self.python(code, "verify-citations", str(answer), str(log))
            self.assertEqual(verified.returncode, 0, verified.stderr)


if __name__ == "__main__":
    unittest.main()
