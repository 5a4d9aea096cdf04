"""``--from inspect`` on logs of tasks that are not Anachron's (docs/importers.md, "inspect").

The logs in tests/data/importers/inspect/ were written by Inspect itself
(tests/fixtures_build/build_inspect_fixtures.py: a task on ``mockllm``); their
true figures are asserted exactly here, through the CLI.  A rebuild with the
installed Inspect must import to the same traces.
"""

import json
import tempfile
import unittest
from pathlib import Path

from tests.support import ROOT, inspect_module_setup, run_cli

DATA = ROOT / "tests" / "data" / "importers" / "inspect"
FOREIGN = str(DATA / "foreign.eval")
STATED = str(DATA / "stated.eval")
T = "2023-01-01"
REUTERS = "https://www.reuters.example/markets/2023/02/09/cygnus-robotics-prices-ipo"
FILING = "https://www.cygnus-robotics.example/ir/2022/12/15/s1-filing"
TMP = None


def setUpModule():
    global TMP
    TMP = inspect_module_setup()  # skips the module without the extra
    unittest.addModuleCleanup(TMP.cleanup)


def score(*args):
    status, out, err = run_cli("score", "--from", "inspect", *map(str, args), "--format", "json")
    assert status == 0, err
    return json.loads(out)


def imported(*args):
    out = Path(TMP.name, "trace.jsonl")
    status, _, err = run_cli("import", "--from", "inspect", *map(str, args), "--out", str(out))
    assert status == 0, err
    return [json.loads(line) for line in out.read_text().splitlines()]


class ForeignLogTest(unittest.TestCase):
    def test_true_figures(self):
        report = score(FOREIGN, "--as-of", T)
        [sample] = report["samples"]
        # web_search (a leak and an undated item), fetch (the filing, pre-T), the provider's search
        # (one undated page); a fetch failed (404); days_between is local; bash (curl) never ran: unrecorded.
        self.assertEqual(
            {k: sample[k] for k in ("sample_id", "as_of", "interactions", "result_leaks", "undated", "unrecorded",
                                    "content_leaks", "answered", "tclr", "tclr_low", "tclr_high", "horizon_days", "failed_calls")},
            {"sample_id": "cygnus-listing", "as_of": T, "interactions": 3, "result_leaks": 1, "undated": 1,
             "unrecorded": 1, "content_leaks": 0, "answered": True, "tclr": 0.25, "tclr_low": 0.25, "tclr_high": 0.75,
             "horizon_days": 39, "failed_calls": {"error": 1, "exhausted": 0, "refused": 0}},
        )
        self.assertEqual(sample["evidence"], [
            f"#1 result item {REUTERS} dated 2023-02-09 > 2023-01-01 (dated by url)",
            "#1 undated item https://www.cygnus-robotics.example/about (no date found)",
            "#5 undated item https://www.robotics-weekly.example/cygnus-profile (no date found)",
            "#6 unrecorded bash: the log holds no result (clean in tclr_low, leaking in tclr_high)",
        ])
        summary = report["summary"]
        self.assertEqual((summary["calls"], summary["incomplete"], len(summary["warnings"])), (5, True, 1))
        self.assertIn("1 tool call recorded no result", summary["warnings"][0])

    def test_the_calls_as_imported(self):
        [record] = imported(FOREIGN, "--as-of", T)
        calls = record["interactions"]
        self.assertEqual([(c["tool"], c["status"], c.get("retrieval", True)) for c in calls], [
            ("web_search", "ok", True), ("fetch", "ok", True), ("fetch", "error", True), ("days_between", "ok", False),
            ("web_search", "ok", True), ("bash", "unrecorded", True),
        ])
        # Inspect's web_search keeps no publish date: each cited URL is an item with its title and cited text only.
        self.assertEqual(calls[0]["returned"][0], {"url": REUTERS, "title": "Cygnus Robotics prices IPO",
                                                   "snippet": "Cygnus priced its IPO at $18."})
        self.assertEqual(calls[0]["query"], "cygnus robotics ipo")
        self.assertEqual(calls[1]["target"], FILING)
        self.assertEqual(calls[2]["error"], "HTTP 404 for https://www.cygnus-robotics.example/ir/2023/prospectus")
        self.assertEqual(calls[4]["query"], "cygnus robotics listing plans")
        self.assertEqual(calls[4]["call_id"], "srvtoolu_1")
        self.assertEqual(calls[5]["command"], "curl -s https://www.cygnus-robotics.example/ir/news")
        self.assertNotIn("returned", calls[5])
        self.assertEqual(record["citations"], [FILING])
        self.assertEqual(record["log_format"], "inspect")
        self.assertNotIn("warnings", record)

    def test_a_compacted_log_is_read_from_its_events(self):
        from inspect_ai.log import read_eval_log

        compacted = DATA / "compacted.eval"
        [sample] = read_eval_log(str(compacted)).samples
        self.assertEqual([m.role for m in sample.messages], ["user"])  # every turn is in the events only
        self.assertEqual(imported(compacted, "--as-of", T), imported(FOREIGN, "--as-of", T))

    def test_a_json_log_is_read_as_its_eval_twin(self):
        from inspect_ai.log import read_eval_log, write_eval_log

        twin = Path(TMP.name, "foreign.json")
        write_eval_log(read_eval_log(FOREIGN), str(twin), format="json")
        self.assertEqual(imported(twin, "--as-of", T), imported(FOREIGN, "--as-of", T))

    def test_cutoff_options(self):
        by_field = score(FOREIGN, "--as-of-field", "metadata.cutoff")["samples"][0]
        self.assertEqual((by_field["as_of"], by_field["tclr"]), (T, 0.25))
        cutoffs = Path(TMP.name, "map.json")
        cutoffs.write_text(json.dumps({"cygnus-listing": "2023-03-01"}))
        later = score(FOREIGN, "--as-of-map", cutoffs)["samples"][0]
        self.assertEqual((later["as_of"], later["result_leaks"], later["tclr"]), ("2023-03-01", 0, 0.0))

    def test_retrieval_tools(self):
        sample = score(FOREIGN, "--as-of", T, "--retrieval-tools", "web_search")["samples"][0]
        self.assertEqual((sample["interactions"], sample["unrecorded"], sample["tclr"]), (2, 0, 0.5))

    def test_a_sample_that_states_its_cutoff(self):
        [sample] = score(STATED)["samples"]
        self.assertEqual((sample["sample_id"], sample["as_of"], sample["interactions"], sample["answered"]),
                         ("stated-1", T, 0, True))
        [record] = imported(STATED)
        self.assertEqual(len(record["warnings"]), 1)
        self.assertIn("no tool call", record["warnings"][0])

    def test_bad_input(self):
        junk = Path(TMP.name, "junk.eval")
        junk.write_text("not a zip")
        truncated = Path(TMP.name, "truncated.eval")
        truncated.write_bytes(Path(FOREIGN).read_bytes()[:3000])
        cutoffs = Path(TMP.name, "other.json")
        cutoffs.write_text(json.dumps({"other": T}))
        where = f"{FOREIGN}: sample cygnus-listing"
        for argv, line in [
            ([FOREIGN], f"{where}: no as-of date: pass --as-of DATE or --as-of-map FILE.json"),
            ([FOREIGN, "--as-of-field", "metadata.nothing"],
             f"{where}: field 'metadata.nothing' (--as-of-field): expected a date string YYYY-MM-DD, got null"),
            ([FOREIGN, "--as-of-map", cutoffs], f"{where}: sample 'cygnus-listing' is not in the --as-of-map file"),
            ([STATED, "--as-of-field", "metadata.as_of"], f"{STATED}: sample stated-1: the sample states its cutoff"
                                                          " (metadata as_of): --as-of-field is not read for it"),
            ([junk, "--as-of", T], f"{junk}: not a readable Inspect log (EOCD not found)"),
            ([truncated, "--as-of", T], f"{truncated}: not a readable Inspect log (EOCD not found)"),
            ([FOREIGN, "--sample-id-from", "x"], "--sample-id-from is not read for inspect logs: their samples have ids"),
        ]:
            with self.subTest(argv=argv):
                status, out, err = run_cli("score", "--from", "inspect", *map(str, argv))
                self.assertEqual((status, out), (2, ""), err)
                self.assertEqual(err, f"anachron: {line}\n")

    def test_export_still_reads_only_anachron_tasks(self):
        status, out, err = run_cli("export", FOREIGN, "--out", str(Path(TMP.name, "x.json")))
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, f"anachron: {FOREIGN}: sample cygnus-listing: no anachron metadata (as_of, mode): not a sample"
                              " of an anachron task; score it with anachron score --from inspect LOG --as-of DATE\n")

    def test_the_fixtures_are_what_inspect_writes(self):
        from tests.fixtures_build.build_inspect_fixtures import build

        with tempfile.TemporaryDirectory() as tmp:
            for path in build(Path(tmp)):
                with self.subTest(path=path.name):
                    args = [] if path.name == "stated.eval" else ["--as-of", T]
                    self.assertEqual(imported(path, *args), imported(DATA / path.name, *args))


class AnachronTaskTest(unittest.TestCase):
    """A log of Anachron's own task states its cutoff: --as-of at that date is accepted; another date
    is refused for a corpus sample (its as-of is the corpus's); --retrieval-tools is refused for its samples."""

    def test_as_of_follows_the_rule_of_a_log_that_states_its_cutoff(self):
        from inspect_ai import eval as inspect_eval

        import anachron.inspect as ai

        [log] = inspect_eval(ai.anachron(slice="news"), model="anachron/naive", display="none",
                             log_dir=str(Path(TMP.name, "own")), sample_id=["news-001"])
        self.assertEqual(log.status, "success")
        (plain,) = score(log.location)["samples"]
        self.assertEqual(plain["sample_id"], "news-001")
        own = plain["as_of"]
        status, out, err = run_cli("score", "--from", "inspect", log.location, "--as-of", own, "--format", "json")
        self.assertEqual((status, err), (0, ""))  # its own date: accepted, no note
        self.assertEqual(json.loads(out)["samples"][0]["as_of"], own)
        # Another date: a corpus sample's as-of is fixed (as score-events holds it): one line, before any note.
        status, out, err = run_cli("score", "--from", "inspect", log.location, "--as-of", "2000-01-01")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, f"anachron: {log.location}: sample news-001: --as-of 2000-01-01 disagrees with the corpus"
                              f" sample's as_of {own} (sample news-001)\n")
        status, out, err = run_cli("score", "--from", "inspect", log.location, "--retrieval-tools", "search")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, f"anachron: {log.location}: sample news-001: --retrieval-tools is not read for a sample"
                              " of an anachron task (its cutoff and its tools are its task's)\n")


if __name__ == "__main__":
    unittest.main()
