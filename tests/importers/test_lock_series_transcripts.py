"""A harness transcript of the lock's series tool scores as the lock's own log does: every importer reads the
lock's rendering (anachron.timelock.render.parse_rendered), each value dated by the day it was published as
shown, so a value first published after T is a restatement leak; a hidden day leaves it undated (TCLR's band),
and a result cut short is ``unrecorded``, never a clean empty result."""

import json
import shutil
import tempfile
import unittest
from pathlib import Path

from anachron.core import AnachronError
from anachron.timelock import EventWriter, TimeLock, UpstreamBackend
from anachron.timelock.render import parse_rendered
from anachron.timelock.series import VintageFile
from tests.support import run_cli
from tests.timelock.test_series import GDP, T, Journal


def claude_code(text, name="mcp__lock__series"):
    """A Claude Code session with one call of the lock's series tool, answered *text*."""
    rows = [
        {"type": "user", "uuid": "u0", "sessionId": "cc-1", "message": {"role": "user", "content": "Was GDP falling?"}},
        {"type": "assistant", "uuid": "a0", "sessionId": "cc-1", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_0", "name": name, "input": {"id": "GDPC1"}}]}},
        {"type": "user", "uuid": "r0", "sessionId": "cc-1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_0", "content": [{"type": "text", "text": text}]}]}},
        {"type": "assistant", "uuid": "end", "sessionId": "cc-1", "message": {"role": "assistant", "content": [{"type": "text", "text": "Yes."}]}},
    ]
    return "".join(json.dumps(row) + "\n" for row in rows)


class SeriesTranscriptTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp())
        (cls.tmp / "vintages.json").write_text(json.dumps({"GDPC1": GDP}), encoding="utf-8")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def answer(self, **options):
        lock = TimeLock(UpstreamBackend("http://127.0.0.1:9"), T, Journal(), series=VintageFile(self.tmp / "vintages.json"), **options)
        return lock.call("series", {"id": "GDPC1"}).text

    def score(self, text):
        path = self.tmp / "transcript.jsonl"
        path.write_text(claude_code(text), encoding="utf-8")
        status, out, err = run_cli("score", "--from", "claude-code", str(path), "--as-of", T.isoformat(), "--format", "json")
        self.assertEqual(status, 0, err)
        return json.loads(out)["samples"][0]

    def test_the_rendering_reads_back_value_by_value(self):
        rendered = parse_rendered(self.answer())
        self.assertEqual((rendered.tool, rendered.seq), ("series", 1))
        self.assertEqual([(i.id, i.date, i.text) for i in rendered.items], [
            ("GDPC1@2019-07-01", "2019-10-30", "missing"), ("GDPC1@2019-10-01", "2020-01-30", "19202.3"),
            ("GDPC1@2020-01-01", "2020-05-28", "19011.8")])

    def test_an_unrestricted_answer_is_a_restatement_leak_with_its_evidence_and_an_enforced_one_is_clean(self):
        leaky = self.score(self.answer(mode="unrestricted"))
        self.assertEqual((leaky["interactions"], leaky["result_leaks"], leaky["restatement_leaks"]), (1, 1, 1))
        self.assertIn("#1 restatement series GDPC1 observation 2020-04-01 value 17282.2 first published 2020-07-30 > 2020-06-01",
                      leaky["evidence"])
        clean = self.score(self.answer())
        self.assertEqual((clean["interactions"], clean["result_leaks"], clean["restatement_leaks"], clean["undated"]), (1, 0, 0, 0))

    def test_hidden_publication_days_are_undated_never_clean(self):
        sample = self.score(self.answer(presentation="hidden"))
        self.assertEqual((sample["interactions"], sample["result_leaks"], sample["undated"], sample["tclr_high"]), (1, 0, 1, 1.0))

    def test_a_series_answer_cut_short_or_edited_is_unrecorded(self):
        text = self.answer()
        for broken in (text[: text.index("\n2020-01-01")] + text[text.index("\n\nBudget"):],  # a line dropped: the count disagrees
                       text.replace("19202.3 (published", "19202.3 (publ")):
            with self.subTest(broken=broken[:80]):
                with self.assertRaises(AnachronError):
                    parse_rendered(broken)
                sample = self.score(broken)
                self.assertEqual((sample["interactions"], sample["unrecorded"]), (0, 1))


    def test_a_server_started_with_series_seals_its_series_tool_and_one_without_does_not(self):
        from anachron.importers import sealed_tools_from

        path = self.tmp / "mcp.json"
        path.write_text(json.dumps({"mcpServers": {
            "lock": {"command": "anachron", "args": ["serve", "--as-of", "2020-06-01", "--series", "vintages.json"]},
            "plain": {"command": "anachron", "args": ["serve", "--as-of", "2020-06-01"]}}}), encoding="utf-8")
        declared = sealed_tools_from(path)
        self.assertTrue({"mcp__lock__series", "lock__series", "mcp_lock_series", "mcp__lock__search"} <= set(declared))
        self.assertFalse({"mcp__plain__series", "plain__series", "mcp_plain_series"} & set(declared))
        self.assertIn("mcp__plain__fetch", declared)


    def test_a_transcript_of_the_series_tool_pairs_with_the_locks_log_in_the_seal_audit(self):
        events = self.tmp / "events.jsonl"
        writer = EventWriter(events, overwrite=True)
        lock = TimeLock(UpstreamBackend("http://127.0.0.1:9"), T, writer, series=VintageFile(self.tmp / "vintages.json"))
        text = lock.call("series", {"id": "GDPC1"}).text
        writer.close()
        transcript, config = self.tmp / "sealed.jsonl", self.tmp / "sealed-mcp.json"
        transcript.write_text(claude_code(text), encoding="utf-8")
        config.write_text(json.dumps({"mcpServers": {"lock": {"command": "anachron", "args": [
            "serve", "--as-of", "2020-06-01", "--series", "vintages.json"]}}}), encoding="utf-8")
        status, out, err = run_cli("score", "--from", "claude-code", str(transcript), "--as-of", T.isoformat(),
                                   "--sealed-tools-from", str(config), "--lock-events", str(events))
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.split("\n")[0], "sealed: true (0 seal breaches in 1 sample; 1 call audited; every call in the lock's log)")


if __name__ == "__main__":
    unittest.main()
