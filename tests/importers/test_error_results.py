"""An error result that showed something is read whatever its status says (docs/importers.md, "Error
results"): a Claude Code ``WebFetch`` answered ``is_error: true`` with a timeout's partial page, a
``WebSearch`` error that lists links.  A bare error message stays a failed call."""

import json
import tempfile
import unittest
from pathlib import Path

from tests.support import ROOT, run_cli

SESSION = ROOT / "tests" / "data" / "importers" / "claude-code.jsonl"
T = "2023-01-01"
PAGE = ('Partial content (timeout): <html><head><meta property="article:published_time" content="2023-02-09T09:00:00Z">'
        "</head><body><h1>Cygnus Robotics prices IPO</h1><p>Cygnus Robotics priced its shares on Nasdaq.</p>")


def session_with(tool_use_id, content):
    """The real-shaped fixture session with the result of call *tool_use_id* replaced by an error holding *content*."""
    lines = []
    for line in SESSION.read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        record = json.loads(line)
        blocks = record.get("message", {}).get("content")
        for block in blocks if isinstance(blocks, list) else ():
            if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
                block.update(content=content, is_error=True)
                record["toolUseResult"] = f"Error: {content}"
        lines.append(json.dumps(record))
    return "\n".join(lines) + "\n"


class ErrorResultsTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def sample(self, tool_use_id, content):
        path = self.dir / "session.jsonl"
        path.write_text(session_with(tool_use_id, content), encoding="utf-8")
        status, out, err = run_cli("score", "--from", "claude-code", str(path), "--as-of", T, "--format", "json")
        self.assertEqual(status, 0, err)
        (sample,) = json.loads(out)["samples"]
        return sample

    def calls(self, tool_use_id, content):
        path = self.dir / "trace.jsonl"
        source = self.dir / "session.jsonl"
        source.write_text(session_with(tool_use_id, content), encoding="utf-8")
        status, _, err = run_cli("import", "--from", "claude-code", str(source), "--as-of", T, "--out", str(path))
        self.assertEqual(status, 0, err)
        return json.loads(path.read_text(encoding="utf-8"))["interactions"]

    def test_a_fetch_error_holding_a_post_t_page_is_a_leaking_interaction(self):
        s = self.sample("toolu_01WF", PAGE)
        self.assertEqual((s["interactions"], s["result_leaks"], s["failed_calls"]["error"]), (4, 2, 0))
        self.assertIn("#3 result item https://example.net/cygnus-profile dated 2023-02-09 > 2023-01-01"
                      " (dated by html article:published_time)", s["evidence"])
        (fetch,) = [c for c in self.calls("toolu_01WF", PAGE) if c["tool"] == "WebFetch"]
        self.assertEqual(fetch["status"], "ok")
        self.assertTrue(fetch["error"].startswith("Partial content (timeout):"))  # kept for audit

    def test_an_undated_partial_page_widens_the_band(self):
        page = "Partial content (timeout): Cygnus Robotics builds warehouse robots.\nIts plans are private."
        s = self.sample("toolu_01WF", page)
        self.assertEqual((s["interactions"], s["failed_calls"]["error"], s["undated"]), (4, 0, 1))
        self.assertEqual((s["tclr_low"], s["tclr_high"]), (0.25, 0.5))
        self.assertIn("#3 undated item https://example.net/cygnus-profile (no date found)", s["evidence"])

    def test_a_bare_error_message_stays_a_failed_call(self):
        for message in ("Request failed with status code 404", "x" * 200):  # one line, within an error's length
            with self.subTest(message=message[:20]):
                s = self.sample("toolu_01WF", message)
                self.assertEqual((s["interactions"], s["failed_calls"]["error"], s["undated"]), (3, 1, 0))

    def test_one_character_past_an_error_message_is_read_as_the_page(self):
        s = self.sample("toolu_01WF", "x" * 201)
        self.assertEqual((s["interactions"], s["failed_calls"]["error"]), (4, 0))

    def test_a_search_error_that_lists_links_shows_them(self):
        content = ("Error: partial results\nLinks: [{\"title\": \"Cygnus IPO\", "
                   "\"url\": \"https://www.bloomberg.com/news/articles/2023-02-09/cygnus-robotics-prices-ipo\"}]")
        s = self.sample("toolu_01WS", content)
        self.assertEqual((s["interactions"], s["result_leaks"], s["failed_calls"]["error"]), (4, 1, 0))
        s = self.sample("toolu_01WS", "Error: rate limited")
        self.assertEqual((s["interactions"], s["result_leaks"], s["failed_calls"]["error"]), (3, 0, 1))


if __name__ == "__main__":
    unittest.main()
