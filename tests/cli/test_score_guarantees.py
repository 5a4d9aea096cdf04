"""``anachron score`` of a transcript with the lock's log (``--lock-events``) reports the guarantees of
what the run was shown, from that log: a study can say "every page was an archive capture before T",
or sees that it cannot (an item logged without one counts as ``unrecorded``).  Without a lock log the
summary claims nothing."""

import datetime as dt
import json
import tempfile
import unittest
from pathlib import Path

from anachron.launch.lock import CONFIG, EVENTS
from anachron.timelock import EventWriter, Hit, TimeLock
from tests.importers.test_lock_transcripts import T
from tests.support import run_cli


# A claimed search, a fetch of the page it found (the archive's capture, after its publication), a search
# logged without a guarantee.
CALLS = [("search", {"query": "cygnus"}), ("fetch", {"id_or_url": "https://news.example/1"}), ("search", {"query": "aster"})]


def transcript(texts):
    """A Claude Code session making CALLS through the lock's MCP tools, each answered by the lock's text."""
    rows = []
    for n, ((tool, args), text) in enumerate(zip(CALLS, texts)):
        rows.append({"type": "assistant", "uuid": f"a{n}", "sessionId": "cc-1", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": f"mcp__lock__{tool}", "input": args}]}})
        rows.append({"type": "user", "uuid": f"r{n}", "sessionId": "cc-1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": [{"type": "text", "text": text}]}]}})
    return "".join(json.dumps(row) + "\n" for row in rows)


class TaggedBackend:
    """Answers each call with one pre-T item, tagged as the web backends tag theirs (or not at all)."""

    kind = "web"
    source = "search exa; fetch wayback"

    def __init__(self):
        self.searches = 0

    def search(self, query, *, k, as_of, mode):
        self.searches += 1
        tag = {"backend": "exa", "guarantee": "claimed"} if self.searches == 1 else {}  # the second: untagged
        url = f"https://news.example/{self.searches}"
        return [Hit(url, "A page", "Some text.", (), {"url": url, "publishedDate": "2022-05-10"}, **tag)]

    def fetch(self, ref, *, as_of, mode):
        return [Hit(ref, "A capture", "Captured text.", (), {"url": ref, "crawl_date": "2022-05-20T12:00:00Z"},
                    backend="wayback", guarantee="capture")]


class ShownByGuarantee(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)
        lock = TimeLock(TaggedBackend(), dt.date.fromisoformat(T), EventWriter(self.dir / EVENTS), server="lock")
        self.texts = texts = [lock.call(tool, args).text for tool, args in CALLS]
        config = {"mcpServers": {"lock": {"command": "anachron", "args": ["serve", "--as-of", T, "--events", EVENTS]}}}
        (self.dir / CONFIG).write_text(json.dumps(config), encoding="utf-8")
        (self.dir / "transcript.jsonl").write_text(transcript(texts), encoding="utf-8")

    def score(self, *options):
        return run_cli("score", "--from", "claude-code", str(self.dir / "transcript.jsonl"), "--as-of", T, *options)

    def test_the_lock_log_counts_what_was_shown_by_guarantee_an_untagged_item_as_unrecorded(self):
        sealed = ("--sealed-tools-from", str(self.dir / CONFIG), "--lock-events", str(self.dir / EVENTS))
        status, out, err = self.score(*sealed, "--format", "json")
        self.assertEqual(status, 0, err)
        self.assertEqual(json.loads(out)["summary"]["guarantees"], {"capture": 1, "claimed": 1, "unrecorded": 1})
        status, out, err = self.score(*sealed)
        self.assertEqual(status, 0, err)
        self.assertIn("shown, by guarantee      capture 1, claimed 1, unrecorded 1\n", out)

    def test_a_page_searched_then_read_from_the_archive_is_one_page_shown_with_its_capture_date(self):
        self.assertIn("\ncaptured: 2022-05-20\n", self.texts[1])  # the agent is told it is a capture, and when
        status, out, err = self.score("--format", "json")
        self.assertEqual(status, 0, err)
        [sample] = json.loads(out)["samples"]
        self.assertEqual((sample["interactions"], sample["result_leaks"], sample["date_conflicts"]), (3, 0, 0))

    def test_a_trace_scored_in_several_processes_reports_them_as_one_process_does(self):
        trace = self.dir / "trace.jsonl"
        status, _, err = run_cli("import", str(self.dir / "transcript.jsonl"), "--from", "claude-code", "--as-of", T, "--out", str(trace))
        self.assertEqual(status, 0, err)
        sealed = ("--sealed-tools-from", str(self.dir / CONFIG), "--lock-events", str(self.dir / EVENTS))
        for fmt in ("json", "table"):
            outs = [run_cli("score", str(trace), *sealed, "--jobs", jobs, "--format", fmt) for jobs in ("1", "2")]
            self.assertEqual([status for status, _, _ in outs], [0, 0], outs)
            self.assertEqual(outs[0][1], outs[1][1])
        self.assertIn("shown, by guarantee      capture 1, claimed 1, unrecorded 1\n", outs[1][1])

    def test_without_the_lock_log_the_summary_claims_no_guarantee(self):
        status, out, err = self.score("--format", "json")
        self.assertEqual(status, 0, err)
        self.assertNotIn("guarantees", json.loads(out)["summary"])
        self.assertNotIn("by guarantee", self.score()[1])


if __name__ == "__main__":
    unittest.main()
