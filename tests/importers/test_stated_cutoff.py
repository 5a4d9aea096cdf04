"""The one rule for a log that states its own cutoff (docs/importers.md, "The cutoff of a log that
states its own"): an ``mcp-events`` log and an Inspect sample with ``metadata.as_of`` are scored as of
that date; ``--as-of`` (or ``--as-of-map``) at the same date is accepted silently; at another date
the log is rescored there, with the same note on stderr from every reader; ``--as-of-field`` is refused."""

import datetime as dt
import json
import tempfile
import unittest
from pathlib import Path

from anachron.importers import Options, import_logs, rescored_note

from tests.support import ROOT, require_extra, run_cli
from tests.timelock.test_events import RUN_RECORDS, SERVER_AS_OF

STATED = ROOT / "tests" / "data" / "importers" / "inspect" / "stated.eval"
STATED_T = "2023-01-01"  # stated.eval's metadata as_of
OTHER = "2022-06-01"


def note(where, stated, chosen):
    return rescored_note(where, dt.date.fromisoformat(stated), dt.date.fromisoformat(chosen)) + "\n"


class McpEventsTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.log = str(Path(tmp.name, "run.jsonl"))
        Path(self.log).write_text("".join(json.dumps(r) + "\n" for r in RUN_RECORDS), encoding="utf-8")
        self.out = str(Path(tmp.name, "trace.jsonl"))

    def test_the_stated_date_is_accepted_without_a_note(self):
        for argv in (["score", "--from", "mcp-events", self.log, "--as-of", SERVER_AS_OF],
                     ["score-events", self.log, "--as-of", SERVER_AS_OF],
                     ["import", "--from", "mcp-events", self.log, "--as-of", SERVER_AS_OF, "--out", self.out]):
            with self.subTest(argv[0]):
                status, _, err = run_cli(*argv)
                self.assertEqual(status, 0, err)
                self.assertNotIn("note:", err)

    def test_another_date_rescores_with_the_same_note_from_every_reader(self):
        for argv in (["score", "--from", "mcp-events", self.log, "--as-of", OTHER, "--format", "json"],
                     ["score-events", self.log, "--as-of", OTHER, "--format", "json"],
                     ["import", "--from", "mcp-events", self.log, "--as-of", OTHER, "--out", self.out]):
            with self.subTest(argv[0]):
                status, out, err = run_cli(*argv)
                self.assertEqual(status, 0, err)
                self.assertIn(note(self.log, SERVER_AS_OF, OTHER), err)
                doc = json.loads(out) if argv[0] != "import" else json.loads(Path(self.out).read_text(encoding="utf-8"))
                as_of = doc["samples"][0]["as_of"] if argv[0] != "import" else doc["as_of"]
                self.assertEqual(as_of, OTHER)

    def test_a_log_named_by_a_corpus_sample_keeps_that_sample_s_date(self):
        # finance-001 is a corpus sample as of 2022-06-01: another date is one line, before any note.
        log = str(Path(self.log).with_name("finance-001.jsonl"))
        Path(log).write_text(Path(self.log).read_text(encoding="utf-8"), encoding="utf-8")
        status, out, err = run_cli("score", "--from", "mcp-events", log, "--as-of", "2022-07-01")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, f"anachron: {log}: --as-of 2022-07-01 disagrees with the corpus sample's as_of 2022-06-01"
                              " (sample finance-001)\n")
        status, _, err = run_cli("score", "--from", "mcp-events", log, "--as-of", "2022-06-01")
        self.assertEqual(status, 0, err)
        self.assertIn(note(log, SERVER_AS_OF, "2022-06-01"), err)

    def test_the_api_calls_warn_with_the_note(self):
        lines = []
        ((_, record),) = import_logs("mcp-events", [self.log], Options(as_of=dt.date(2022, 6, 1), warn=lines.append))
        self.assertEqual((record["as_of"], lines), (OTHER, [note(self.log, SERVER_AS_OF, OTHER).rstrip("\n")]))


class InspectTest(unittest.TestCase):
    def setUp(self):
        require_extra("inspect_ai", "inspect")

    def test_the_stated_date_is_accepted_and_another_rescores_with_the_note(self):
        where = f"{STATED}: sample stated-1"
        for as_of, expected in ((STATED_T, ""), (OTHER, note(where, STATED_T, OTHER))):
            with self.subTest(as_of):
                status, out, err = run_cli("score", "--from", "inspect", str(STATED), "--as-of", as_of, "--format", "json")
                self.assertEqual(status, 0, err)
                self.assertEqual(json.loads(out)["samples"][0]["as_of"], as_of)
                self.assertIn(expected, err)
                if not expected:
                    self.assertNotIn("note:", err)

    def test_as_of_field_is_refused(self):
        status, out, err = run_cli("score", "--from", "inspect", str(STATED), "--as-of-field", "metadata.as_of")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err.count("\n"), 1)
        self.assertIn("--as-of-field is not read for it", err)


if __name__ == "__main__":
    unittest.main()
