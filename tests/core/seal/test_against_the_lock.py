"""The seal audit against the lock's own log, end to end: a real `anachron serve` over stdio (the
`mcp` client), a Claude Code transcript of that session, and `anachron score --lock-events`.

The transcript follows Claude Code's published JSON Lines records (as tests/data/importers/
claude-code-sealed.jsonl does): an assistant record with a `tool_use` block, then a user record with
its `tool_result`, whose text is exactly what the server answered (its receipt line first).
"""

import json
import tempfile
import unittest
from pathlib import Path

from tests.mcp_support import stdio_client, text_of
from tests.support import require_extra, run_cli

T = "2022-06-01"
SESSION = "7d1e9c2a-0b3f-4c5d-8e6f-1a2b3c4d5e6f"


def setUpModule():
    require_extra("mcp", "mcp")


def served(events: Path, calls, *extra: str) -> list[str]:
    """Run one stdio session of `anachron serve` as of T; the text of each answer, in order."""
    import anyio

    async def session():
        async with stdio_client(["--as-of", T, "--events", str(events), *extra], errlog=events.with_suffix(".err")) as client:
            return [text_of(await client.call_tool(tool, arguments)) for tool, arguments in calls]

    return anyio.run(session)


def transcript(path: Path, exchanges) -> str:
    """A Claude Code session file: the question, then each (tool, input, result text), then an answer."""
    def record(kind, uuid, parent, message):
        return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SESSION, "isSidechain": False,
                "timestamp": "2025-06-02T09:00:00.000Z", "message": message, "version": "2.0.49"}

    lines = [record("user", "u0", None, {"role": "user", "content": f"As of {T}, what happened to Cygnus Robotics?"})]
    parent = "u0"
    for number, (tool, arguments, text) in enumerate(exchanges, start=1):
        lines.append(record("assistant", f"a{number}", parent, {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{number}", "name": f"mcp__timelock__{tool}", "input": arguments}]}))
        lines.append(record("user", f"r{number}", f"a{number}", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{number}", "content": [{"type": "text", "text": text}]}]}))
        parent = f"r{number}"
    lines.append(record("assistant", "end", parent, {"role": "assistant", "content": [{"type": "text", "text": "Unclear."}]}))
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


class LockLogPairingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls._tmp.name)
        cls.calls = [("search", {"query": "cygnus robotics"}), ("search", {"query": "orbital freight"}), ("fetch", {"id_or_url": "fin-001"})]
        cls.log = cls.dir / "events.jsonl"
        cls.texts = served(cls.log, cls.calls)
        cls.open_log = cls.dir / "open.jsonl"
        cls.open_texts = served(cls.open_log, cls.calls, "--mode", "unrestricted")

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def score(self, exchanges, log, *extra):
        session = transcript(self.dir / "session.jsonl", exchanges)
        return run_cli("score", "--from", "claude-code", session, "--as-of", T,
                       "--sealed-tools", "mcp__timelock__search,mcp__timelock__fetch", "--lock-events", str(log), *extra)

    def test_the_served_session_is_sealed(self):
        self.assertEqual([text.split(":")[0] for text in self.texts], ["search #1", "search #2", "fetch #3"])
        exchanges = [(tool, arguments, text) for (tool, arguments), text in zip(self.calls, self.texts)]
        status, out, err = self.score(exchanges, self.log)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.splitlines()[0], "sealed: true (0 seal breaches in 1 sample; 3 calls audited; every call in the lock's log)")
        # The importer kept each result's receipt.
        status, out, err = run_cli("import", "--from", "claude-code", str(self.dir / "session.jsonl"), "--as-of", T,
                                   "--out", str(self.dir / "trace.jsonl"))
        record = json.loads((self.dir / "trace.jsonl").read_text(encoding="utf-8"))
        self.assertEqual([c.get("receipt") for c in record["interactions"]], [1, 2, 3])

    def test_a_forged_or_shuffled_call_is_a_breach(self):
        real = [(tool, arguments, text) for (tool, arguments), text in zip(self.calls, self.texts)]
        forged = ("search", {"query": "cygnus robotics ipo 2023"}, (
            'search #4: 1 result for "cygnus robotics ipo 2023"\n- id: x\n  date: 2022-12-01\n  title: X\n  snippet: x\n\n'
            "Budget remaining: search unlimited, fetch unlimited, calls unlimited."))  # whole, as the lock writes it
        relabelled = ("search", {"query": "orbital freight"}, self.texts[0])  # receipt #1 is another query's record
        for exchanges, line in [
            (real + [forged], "! #4 call to 'mcp__timelock__search' is not in the lock's log"),
            ([real[1], real[0], real[2]], "! #2 call to 'mcp__timelock__search' is not in the lock's log"),
            ([relabelled, real[2]], "! #1 call to 'mcp__timelock__search' is not in the lock's log"),
            ([real[0], real[0]], "! #2 call to 'mcp__timelock__search' is not in the lock's log"),
        ]:
            with self.subTest(exchanges=[e[1] for e in exchanges]):
                status, out, err = self.score(exchanges, self.log, "--format", "table")
                self.assertEqual(status, 0, err)
                self.assertTrue(out.startswith("sealed: false (1 seal breach in 1 / 1 sample"), out.splitlines()[0])
                self.assertIn(line, out)

    def test_an_unrestricted_lock_does_not_seal(self):
        exchanges = [(tool, arguments, text) for (tool, arguments), text in zip(self.calls, self.open_texts)]
        status, out, err = self.score(exchanges, self.open_log, "--format", "json")
        self.assertEqual((status, err), (0, ""))
        document = json.loads(out)
        self.assertEqual((document["summary"]["sealed"], document["summary"]["seal_breaches"]), (False, 3))
        self.assertIn(f"#1 went through a lock in mode 'unrestricted' ({self.open_log}), which filters nothing",
                      document["samples"][0]["evidence"])


if __name__ == "__main__":
    unittest.main()
