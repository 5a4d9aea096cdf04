"""The seal audit (anachron.core.seal): calls outside the declared time lock, shell calls that
reach the network, the per-sample count, the run's verdict and its place at the top of the table."""

import json
import os
import tempfile
import time
import unittest

from anachron.core import score_trace, summarise
from anachron.core.scores import parse_scores
from anachron.core.errors import AnachronError
from anachron.output.report import score_document, score_table

from tests.corpus_fixtures import corpus, item, trace
from tests.support import run_cli

LOCK = frozenset({"mcp__timelock__search", "mcp__timelock__fetch"})


def call(tool, status="ok", command=None, **fields):
    entry = {"tool": tool, "status": status, **fields}
    if command is not None:
        entry["command"] = command
    return entry


class SealAuditTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus([item("fin-1", "2021-01-01")])

    def score(self, *calls, sealed=LOCK):
        return score_trace(trace(self.c, calls), self.c, sealed_tools=sealed)

    def test_a_call_outside_the_lock_breaches_whatever_its_status(self):
        r = self.score(
            call("mcp__timelock__search", returned=["fin-1"]),
            call("WebSearch", status="error"),  # failed, but the tool was reachable
            call("WebFetch", status="refused"),
            call("mcp__timelock__fetch", status="exhausted"),
        )
        self.assertEqual(r.seal_breaches, 2)
        self.assertEqual(r.evidence, (
            "#2 tool 'WebSearch' is outside the time lock",
            "#3 tool 'WebFetch' is outside the time lock",
        ))
        self.assertEqual(r.to_dict()["seal_breaches"], 2)

    def test_a_shell_call_reaching_the_network_breaches_even_when_declared(self):
        r = self.score(call("Bash", command="cd /tmp && curl -s https://example.com/x.json | jq ."), sealed=LOCK | {"Bash"})
        self.assertEqual(r.seal_breaches, 1)
        self.assertEqual(r.evidence, ("#1 shell call reaches the network: cd /tmp && curl -s https://example.com/x.json | jq .",))

    def test_an_undeclared_shell_reaching_the_network_is_one_breach_with_both_lines(self):
        r = self.score(call("shell", status="error", command="wget http://example.com/a"))
        self.assertEqual(r.seal_breaches, 1)
        self.assertEqual(r.evidence, (
            "#1 tool 'shell' is outside the time lock",
            "#1 shell call reaches the network: wget http://example.com/a",
        ))

    def test_every_network_marker_and_its_boundaries(self):
        sealed = LOCK | {"Bash", "shell", "execute_command", "code_interpreter"}
        reaching = ["curl example.com", "wget -q x", "open http://x", "HTTPS://X.ORG", "import requests",
                    "from urllib import request", "import urllib3", "await fetch('/api')"]
        quiet = ["ls -la", "echo curling", "prefetch(x)", "grep requests_total log", "python -m urllibx", None]
        for tool in sorted(sealed - LOCK):
            for command in reaching:
                with self.subTest(tool=tool, command=command):
                    self.assertEqual(self.score(call(tool, command=command), sealed=sealed).seal_breaches, 1)
            for command in quiet:
                with self.subTest(tool=tool, command=command):
                    self.assertEqual(self.score(call(tool, command=command), sealed=sealed).seal_breaches, 0)
        # A tool not named as a shell is not judged by its command.
        self.assertEqual(self.score(call("mcp__timelock__search", command="curl x")).seal_breaches, 0)

    def test_a_long_line_is_quoted_around_the_match(self):
        command = "x" * 200 + " curl https://example.com/" + "y" * 200
        (line,) = self.score(call("Bash", command=command), sealed=LOCK | {"Bash"}).evidence
        self.assertEqual(line, "#1 shell call reaches the network: " + "x" * 19 + " curl https://example.com/" + "y" * 32 + "...")

    def test_a_megabyte_command_is_audited_in_linear_time(self):
        command = "echo " + "a" * 4_000_000 + "\nwget x"
        started = time.perf_counter()
        r = self.score(call("Bash", command=command), sealed=LOCK | {"Bash"})
        self.assertLess(time.perf_counter() - started, 5.0)
        self.assertEqual(r.evidence, ("#1 shell call reaches the network: wget x",))

    def test_seal_lines_come_first_within_their_call(self):
        r = self.score(call("WebSearch", query="results in 2023", returned=[{"url": "https://x.example/2023/02/09/a"}]))
        self.assertEqual(r.evidence, (
            "#1 tool 'WebSearch' is outside the time lock",
            "#1 query 'results in 2023' reaches for 2023-01-01 > 2022-06-01",
            "#1 result item https://x.example/2023/02/09/a dated 2023-02-09 > 2022-06-01 (dated by url)",
        ))

    def test_without_a_declaration_no_verdict_is_claimed(self):
        r = self.score(call("WebSearch"), sealed=None)
        self.assertIsNone(r.seal_breaches)
        s = summarise([r])
        self.assertIsNone(s.sealed)
        self.assertEqual((s.to_dict()["sealed"], s.to_dict()["seal_breaches"]), (None, None))
        table = score_table([r])
        self.assertEqual(table.splitlines()[0], "seal audit: not run (no tools declared sealed: pass --sealed-tools or --sealed-tools-from)")
        self.assertEqual(table.splitlines()[4].split()[-1], "-")
        # A count that is not there cannot be compared.
        with self.assertRaisesRegex(AnachronError, "sample 's1': seal_breaches is null"):
            parse_scores(score_document([r]), "run.json", "seal_breaches")

    def test_the_run_verdict_and_the_top_line(self):
        clean = self.score(call("mcp__timelock__search", returned=["fin-1"]))
        dirty = score_trace(trace(self.c, [call("WebSearch"), call("Bash", command="curl x")], sample_id="s2"), self.c, sealed_tools=LOCK)
        self.assertEqual(summarise([clean]).to_dict()["sealed"], True)
        self.assertEqual(score_table([clean]).splitlines()[0], "sealed: true (0 seal breaches in 1 sample; 1 call audited)")
        s = summarise([clean, dirty])
        self.assertEqual((s.sealed, s.seal_breaches, s.seal_breached_runs), (False, 2, 1))
        self.assertEqual(
            score_table([clean, dirty]).splitlines()[0],
            "sealed: false (2 seal breaches in 1 / 2 samples; 3 calls audited): NOT a time-locked result",
        )
        self.assertEqual(parse_scores(score_document([clean, dirty]), "run.json", "seal_breaches"), {"s1": 0, "s2": 2})

    def test_a_summary_of_audited_and_unaudited_samples_has_no_verdict(self):
        audited = self.score(call("mcp__timelock__search"))
        unaudited = score_trace(trace(self.c, [call("x")], sample_id="s2"), self.c)
        self.assertIsNone(summarise([audited, unaudited]).sealed)
        self.assertIsNone(summarise([]).sealed)

    def test_local_calls_are_audited_but_never_interactions(self):
        r = self.score(
            call("mcp__timelock__search", returned=["fin-1"]),
            call("Read", retrieval=False),
            call("Grep", status="error", retrieval=False),
        )
        self.assertEqual((r.interactions, sum(r.failed_calls.values()), r.seal_breaches, r.seal_calls), (1, 0, 2, 3))
        self.assertEqual(r.evidence, ("#2 tool 'Read' is outside the time lock", "#3 tool 'Grep' is outside the time lock"))

    def test_no_call_audited_is_no_verdict(self):
        r = self.score()
        self.assertEqual((r.seal_breaches, r.seal_calls), (0, 0))
        s = summarise([r])
        self.assertIsNone(s.sealed)
        self.assertEqual(score_table([r]).splitlines()[0],
                         "seal audit: no verdict (0 calls audited in 1 sample): nothing shows the run was sealed")

    def test_a_declaration_carries_each_locks_date(self):
        from anachron.core.seal import Declaration
        import datetime as dt

        declared = Declaration(LOCK, {"mcp__timelock__search": dt.date(2023, 3, 1)})
        late = score_trace(trace(self.c, [call("mcp__timelock__search"), call("mcp__timelock__fetch")]), self.c, sealed_tools=declared)
        self.assertEqual(late.seal_breaches, 1)  # fetch has no known date: trusted to be locked at T
        self.assertEqual(late.evidence, ("#1 tool 'mcp__timelock__search' is locked as of 2023-03-01, after T 2022-06-01",))

    def test_retrieval_must_be_a_boolean_and_a_local_call_returns_nothing(self):
        for entry in (call("Read", retrieval="no"), call("Read", retrieval=False, returned=["fin-1"])):
            with self.subTest(entry=entry), self.assertRaisesRegex(
                AnachronError, r"interactions\[0\]: field 'retrieval': expected true, or false for a local call that returned no items"
            ):
                trace(self.c, [entry])

    def test_a_command_must_be_a_string(self):
        with self.assertRaisesRegex(AnachronError, r"trace:1 \(sample s1\) interactions\[0\]: field 'command': expected a string or null, got 3"):
            trace(self.c, [call("Bash", command=3)])


class SealCliTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.trace = os.path.join(self.tmp, "trace.jsonl")
        record = {"sample_id": "s1", "as_of": "2023-01-01", "interactions": [
            {"tool": "mcp__timelock__search", "query": "cygnus", "returned": []},
            {"tool": "Bash", "status": "error", "command": "curl https://example.com"},
        ]}
        with open(self.trace, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")

    def config(self, servers):
        path = os.path.join(self.tmp, "mcp.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"mcpServers": servers}, fh)
        return path

    def test_sealed_tools_on_a_trace(self):
        status, out, err = run_cli("score", self.trace, "--sealed-tools", "mcp__timelock__search,mcp__timelock__fetch", "--format", "json")
        self.assertEqual((status, err), (0, ""))
        document = json.loads(out)
        self.assertEqual(document["samples"][0]["seal_breaches"], 1)
        self.assertEqual(document["samples"][0]["evidence"], [
            "#2 tool 'Bash' is outside the time lock",
            "#2 shell call reaches the network: curl https://example.com",
        ])
        self.assertEqual((document["summary"]["sealed"], document["summary"]["seal_breaches"]), (False, 1))

    def test_sealed_tools_from_an_mcp_config(self):
        path = self.config({
            "timelock": {"command": "/usr/local/bin/anachron", "args": ["serve", "--as-of", "2023-01-01"]},
            "lock2": {"command": "python", "args": ["-m", "anachron", "serve", "--as-of=2022-06-01", "--mode", "enforced"]},
            "web": {"command": "npx", "args": ["-y", "some-search-server", "serve"]},
        })
        status, out, err = run_cli("score", self.trace, "--sealed-tools-from", path)
        self.assertEqual((status, err), (0, ""))  # a server that is plainly no lock needs no note
        self.assertEqual(out.splitlines()[0], "sealed: false (1 seal breach in 1 / 1 sample; 2 calls audited): NOT a time-locked result")
        from anachron.importers import sealed_tools_from

        declared = sealed_tools_from(path)
        self.assertEqual(declared, frozenset({
            "mcp__timelock__search", "mcp__timelock__fetch", "mcp__lock2__search", "mcp__lock2__fetch",
        }))
        self.assertEqual(str(declared.lock_as_of["mcp__lock2__fetch"]), "2022-06-01")
        self.assertEqual(str(declared.lock_as_of["mcp__timelock__search"]), "2023-01-01")

    def test_an_unrestricted_or_undated_server_seals_nothing(self):
        # The review's case: `anachron serve --mode unrestricted` filters nothing, yet was taken for a lock.
        unrestricted = self.config({"timelock": {"command": "anachron", "args": ["serve", "--as-of", "2023-01-01", "--mode", "unrestricted"]}})
        status, out, err = run_cli("score", self.trace, "--sealed-tools-from", unrestricted)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, f"anachron: {unrestricted}: the configuration seals no tool (server 'timelock' runs "
                              "`anachron serve --mode unrestricted`, which filters nothing: it seals no tool); "
                              "name sealed tools with --sealed-tools\n")
        mixed = self.config({
            "timelock": {"command": "anachron", "args": ["serve", "--as-of", "2023-01-01"]},
            "open": {"command": "anachron", "args": ["serve", "--mode=unrestricted", "--as-of", "2023-01-01"]},
            "nodate": {"command": "anachron", "args": ["serve", "--as-of", "2023-13-01"]},
        })
        status, out, err = run_cli("score", self.trace, "--sealed-tools-from", mixed)
        self.assertEqual(status, 0)
        self.assertEqual(err.splitlines(), [
            f"note: {mixed}: server 'open' runs `anachron serve --mode unrestricted`, which filters nothing: it seals no tool",
            f"note: {mixed}: server 'nodate' runs `anachron serve` without a valid --as-of date ('2023-13-01'): it seals no tool",
        ])
        from anachron.importers import sealed_tools_from

        self.assertEqual(sealed_tools_from(mixed), frozenset({"mcp__timelock__search", "mcp__timelock__fetch"}))

    def test_a_lock_dated_after_t_is_a_breach_a_lock_dated_t_is_not(self):
        for lock_day, breaches, evidence in [
            ("2023-01-01", 1, []),  # the lock's date == T: sealed (only the Bash call breaches)
            ("2022-12-31", 1, []),  # before T: stricter than needed, still sealed
            ("2023-01-02", 2, ["#1 tool 'mcp__timelock__search' is locked as of 2023-01-02, after T 2023-01-01"]),
        ]:
            with self.subTest(lock_day=lock_day):
                path = self.config({"timelock": {"command": "anachron", "args": ["serve", "--as-of", lock_day]}})
                status, out, err = run_cli("score", self.trace, "--sealed-tools-from", path, "--format", "json")
                self.assertEqual((status, err), (0, ""))
                sample = json.loads(out)["samples"][0]
                self.assertEqual(sample["seal_breaches"], breaches)
                self.assertEqual([line for line in sample["evidence"] if line.startswith("#1")], evidence)

    def test_a_lock_dated_2030_does_not_seal_a_2023_run(self):
        path = self.config({"timelock": {"command": "anachron", "args": ["serve", "--as-of", "2030-01-01"]}})
        status, out, _ = run_cli("score", self.trace, "--sealed-tools-from", path)
        self.assertEqual(status, 0)
        self.assertEqual(out.splitlines()[0], "sealed: false (2 seal breaches in 1 / 1 sample; 2 calls audited): NOT a time-locked result")
        self.assertIn("! #1 tool 'mcp__timelock__search' is locked as of 2030-01-01, after T 2023-01-01", out)

    def test_bad_declarations_are_one_line_errors(self):
        no_lock = self.config({"web": {"command": "npx", "args": ["search"]}})
        for argv, message in [
            (["--sealed-tools", "a,,b"], "--sealed-tools: expected tool names separated by commas, got 'a,,b'"),
            (["--sealed-tools", ""], "--sealed-tools: expected tool names separated by commas, got ''"),
            (["--sealed-tools-from", no_lock], f"{no_lock}: the configuration seals no tool (server 'web' does not run `anachron serve`: it seals no tool)"),
            (["--sealed-tools-from", os.path.join(self.tmp, "missing.json")], "missing.json: no such file"),
        ]:
            with self.subTest(argv=argv):
                status, out, err = run_cli("score", self.trace, *argv)
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn(message, err)


if __name__ == "__main__":
    unittest.main()
