"""The seal audit (anachron.core.seal): calls outside the declared time lock, the shell rule (a shell is a
breach unless declared isolated), the pairing with the lock's own event log, the statuses
(sealed / unverified / breached / no verdict / lock-only), and the verdict at the top of the table."""

import base64
import datetime as dt
import itertools
import json
import os
import shlex
import tempfile
import time
import unittest

from anachron.core import score_trace, summarise
from anachron.core.errors import AnachronError
from anachron.core.scores import parse_scores
from anachron.core.seal import SHELL_TOOLS, Declaration, network_evidence
from anachron.timelock import CorpusBackend, EventWriter, TimeLock, load_events
from anachron.timelock.run_trace import lock_run

from tests.corpus_fixtures import T, corpus, item, trace
from tests.support import run_cli, score_json, score_table

LOCK = frozenset({"mcp__timelock__search", "mcp__timelock__fetch"})
SHELL_LINE = "shell call '{0}' can reach the network: declare --isolated-shell {0} if it could not"


def call(tool, status="ok", command=None, **fields):
    entry = {"tool": tool, "status": status, **fields}
    if status == "ok" and fields.get("retrieval", True):
        entry.setdefault("returned", [])  # an ok call's result, here empty (no 'returned' would be unrecorded)
    if command is not None:
        entry["command"] = command
    return entry


# The evasion family: ways to reach the network, times the ways to spell and wrap them.
NETWORK = [
    "curl https://x.test", "wget -q x.test", "python3 -c 'import socket; socket.create_connection((\"x.test\", 80))'",
    "nc x.test 80", "socat - TCP:x.test:80", "exec 3<>/dev/tcp/x.test/80", "node -e \"require('https').get('https://x.test')\"",
    "ssh x.test", "scp a x.test:b", "git clone https://x.test/r", "git fetch origin", "git pull", "pip install yfinance",
    "npm install left-pad", "apt-get install -y foo", "gh api /repos", "aws s3 cp s3://b/k .", "docker pull alpine",
    "dig x.test", "ping -c1 x.test", "psql -h x.test", "python -c 'import yfinance'",
    "python -c 'import pandas as pd; pd.read_csv(\"s3://b/k.csv\")'",
    "c''url x.test", '"cu"rl x.test', "cu$@rl x.test", "/usr/bin/cu?l x.test",
]
WRAPPERS = [
    lambda c: c,
    lambda c: f"sh -c {shlex.quote(c)}",
    lambda c: f"bash -lc {shlex.quote(c)}",
    lambda c: f"$(echo {base64.b64encode(c.encode()).decode()}|base64 -d)",
    lambda c: f"eval \"$(printf %s {shlex.quote(c)})\"",
    lambda c: f"cat <<'EOF' | sh\n{c}\nEOF",
    lambda c: f"git commit -m 'no network here' && {c}",
]


def lock_log(path, queries, *, as_of=T, mode="enforced", fetches=()):
    """A real lock's event log: the queries (then fetches) answered by a TimeLock over a small corpus."""
    lock = TimeLock(CorpusBackend(corpus([item("fin-1", "2021-01-01")])), as_of, EventWriter(path), mode=mode)
    for query in queries:
        lock.call("search", {"query": query})
    for ref in fetches:
        lock.call("fetch", {"id_or_url": ref})
    lock.journal.close()
    return path


def breach_lines(evidence):
    """The evidence but the line naming the lock run the calls paired with (tested on its own)."""
    return tuple(line for line in evidence if " paired with lock run " not in line)


class SealAuditTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus([item("fin-1", "2021-01-01")])
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def score(self, *calls, sealed=LOCK, as_of=T):
        return score_trace(trace(self.c, calls, as_of=as_of), self.c, sealed_tools=sealed)

    def locks(self, *logs):
        return [lock_run(load_events(path)) for path in logs]

    def log(self, name, queries, **kw):
        return lock_log(os.path.join(self.tmp.name, name), queries, **kw)

    def test_a_call_outside_the_lock_breaches_whatever_its_status(self):
        r = self.score(
            call("mcp__timelock__search", returned=["fin-1"]),
            call("WebSearch", status="error"),  # failed, but the tool was reachable
            call("WebFetch", status="refused"),
            call("mcp__timelock__fetch", status="exhausted"),
        )
        self.assertEqual((r.seal_breaches, r.seal_status), (2, "breached"))
        self.assertEqual(r.evidence, (
            "#2 tool 'WebSearch' is outside the time lock",
            "#3 tool 'WebFetch' is outside the time lock",
        ))

    def test_every_evasion_spelling_of_every_shell_is_a_breach_without_isolated_shell(self):
        cases = 0
        for tool, command, wrap in itertools.product(SHELL_TOOLS, NETWORK, WRAPPERS):
            cases += 1
            r = self.score(call(tool, command=wrap(command)))
            if (r.seal_breaches, r.seal_status, r.evidence[0]) != (1, "breached", "#1 " + SHELL_LINE.format(tool)):
                self.fail(f"{tool} {wrap(command)!r}: {r.seal_breaches} {r.seal_status} {r.evidence}")
        self.assertEqual(cases, len(SHELL_TOOLS) * 27 * 7)
        # A shell call whose command is not recorded, or quiet, or declared sealed: a breach all the same.
        for tool in SHELL_TOOLS:
            for entry, sealed in ((call(tool), LOCK), (call(tool, command="ls -la"), LOCK), (call(tool, command="ls"), LOCK | {tool})):
                with self.subTest(tool=tool, entry=entry):
                    r = self.score(entry, sealed=sealed)
                    self.assertEqual((r.seal_breaches, r.evidence), (1, ("#1 " + SHELL_LINE.format(tool),)))

    def test_an_isolated_shell_holds_given_its_assumption(self):
        for tool in SHELL_TOOLS:
            with self.subTest(tool=tool):
                declared = Declaration(LOCK, isolated_shells={tool}, locks=())
                r = self.score(call(tool, command="ls"), call(tool, command="pwd"), sealed=declared)
                self.assertEqual((r.seal_breaches, r.seal_calls, r.seal_status), (0, 2, "sealed"))
                self.assertEqual(r.seal_assumptions, (f"shell '{tool}' had no network",))
        # Another shell is not covered by the declaration.
        r = self.score(call("Bash", command="ls"), call("bash", command="ls"), sealed=Declaration(LOCK, isolated_shells={"Bash"}, locks=()))
        self.assertEqual((r.seal_breaches, r.evidence), (1, ("#2 " + SHELL_LINE.format("bash"),)))
        line = score_table([self.score(call("Bash", command="ls"), sealed=Declaration(LOCK, isolated_shells={"Bash"}, locks=()))]).splitlines()[0]
        self.assertEqual(line, "sealed: true, given that shell 'Bash' had no network (0 seal breaches in 1 sample; 1 call audited; every call in the lock's log)")

    def test_only_a_shell_can_be_declared_isolated(self):
        with self.assertRaisesRegex(AnachronError, r"^--isolated-shell: 'WebSearch' is not a shell tool \(Bash, "):
            Declaration(LOCK, isolated_shells={"WebSearch", "Bash"})

    def test_network_words_are_evidence_only_and_read_in_the_running_command(self):
        isolated = Declaration(LOCK, isolated_shells={"Bash"}, locks=())
        r = self.score(call("Bash", command="cd /tmp && curl -s https://example.com/x.json | jq ."), sealed=isolated)
        self.assertEqual((r.seal_breaches, r.seal_status), (0, "sealed"))  # evidence, not a verdict
        self.assertEqual(r.evidence, ("#1 shell command names the network (evidence only): cd /tmp && curl -s https://example.com/x.json | jq .",))
        for quiet in ['git commit -m "mention curl and https://x"', "git commit -m 'wget it'", "cat <<EOF > notes\ncurl x\nEOF\nls",
                      "cat <<-'END'\n  requests\n  END", "echo curling", "prefetch(x)", "grep requests_total log", "python -m urllibx"]:
            with self.subTest(quiet=quiet):
                self.assertIsNone(network_evidence(quiet))
        for loud in ["curl example.com", 'git commit -m "x" && curl https://x', "cat <<EOF\nx\nEOF\nwget y", "HTTPS://X.ORG",
                     "import requests", "from urllib import request", "import urllib3", "await fetch('/api')"]:
            with self.subTest(loud=loud):
                self.assertIsNotNone(network_evidence(loud))
        self.assertEqual(network_evidence("x" * 200 + " curl https://example.com/" + "y" * 200),
                         "x" * 19 + " curl https://example.com/" + "y" * 32 + "...")

    def test_a_megabyte_command_is_read_in_linear_time(self):
        command = "echo " + "a" * 4_000_000 + " '" + "b" * 1_000_000 + "\nwget x"  # an unclosed quote too
        started = time.perf_counter()
        r = self.score(call("Bash", command=command), sealed=Declaration(LOCK, isolated_shells={"Bash"}))
        self.assertLess(time.perf_counter() - started, 5.0)
        self.assertEqual(r.evidence, ("#1 shell command names the network (evidence only): wget x",))

    def test_a_configuration_only_audit_is_unverified_never_sealed(self):
        clean = self.score(call("mcp__timelock__search", returned=["fin-1"]))
        self.assertEqual((clean.seal_breaches, clean.seal_calls, clean.seal_status), (0, 1, "unverified"))
        s = summarise([clean])
        self.assertEqual((s.sealed, s.seal_status), (None, "unverified"))
        self.assertEqual((s.to_dict()["sealed"], s.to_dict()["seal_status"], s.to_dict()["seal_assumptions"]), (None, "unverified", []))
        self.assertEqual(score_table([clean]).splitlines()[0], "sealed: unverified (config only: pass --lock-events EVENTS.jsonl to check "
                         "the calls against the lock's log; 0 seal breaches in 1 sample; 1 call audited)")
        dirty = score_trace(trace(self.c, [call("WebSearch"), call("Bash", command="curl x")], sample_id="s2"), self.c, sealed_tools=LOCK)
        s = summarise([clean, dirty])
        self.assertEqual((s.sealed, s.seal_status, s.seal_breaches, s.seal_breached_runs), (False, "breached", 2, 1))
        self.assertEqual(score_table([clean, dirty]).splitlines()[0],
                         "sealed: false (2 seal breaches in 1 / 2 samples; 3 calls audited): NOT a time-locked result")
        self.assertEqual(parse_scores(json.loads(score_json([clean, dirty])), "run.json", "seal_breaches"), {"s1": 0, "s2": 2})

    def test_every_call_of_a_sealed_tool_pairs_with_the_locks_log(self):
        log = self.locks(self.log("run.jsonl", ["alpha", "beta"], fetches=["fin-1"]))
        declared = Declaration(LOCK, locks=log)
        r = self.score(
            call("mcp__timelock__search", query="alpha"), call("mcp__timelock__search", query="beta"),
            call("mcp__timelock__fetch", target="fin-1"), sealed=declared,
        )
        run = load_events(log[0].source).run
        self.assertEqual((r.seal_breaches, r.seal_calls, r.seal_status), (0, 3, "sealed"))
        self.assertEqual(r.evidence, (f"#1 paired with lock run {run} ({log[0].source}): as of 2022-06-01, mode enforced, "
                                      "budget searches unlimited, fetches unlimited, calls unlimited",))
        self.assertEqual(score_table([r]).splitlines()[0], "sealed: true (0 seal breaches in 1 sample; 3 calls audited; every call in the lock's log)")
        # A call the lock never saw, a changed query, a call out of order, a second use of one record.
        for calls, missing in [
            ([call("mcp__timelock__search", query="gamma")], [1]),
            ([call("mcp__timelock__search", query="beta"), call("mcp__timelock__search", query="alpha")], [2]),
            ([call("mcp__timelock__search", query="alpha")] * 2, [2]),
            ([call("mcp__timelock__fetch", target="fin-1")] * 2, [2]),
            ([call("search", query="alpha")], [1]),  # not declared: outside the lock (and never paired)
        ]:
            with self.subTest(calls=calls):
                r = self.score(*calls, sealed=Declaration(LOCK, locks=log))
                self.assertEqual(r.seal_breaches, len(missing))
                self.assertEqual(r.seal_status, "breached")
                for number in missing:
                    tool = calls[number - 1]["tool"]
                    expected = f"#{number} call to {tool!r} is not in the lock's log" if tool in LOCK else f"#{number} tool {tool!r} is outside the time lock"
                    self.assertIn(expected, r.evidence)
        # A fetch pairs by its target when the trace names a known item: the log's fetch of another is not it.
        other = self.locks(self.log("other.jsonl", [], fetches=["fin-9"]))
        r = self.score(call("mcp__timelock__fetch", target="fin-1"), sealed=Declaration(LOCK, locks=other))
        self.assertEqual(r.evidence, ("#1 call to 'mcp__timelock__fetch' is not in the lock's log",))
        # No lock log at all: every sealed call is missing from it.
        r = self.score(call("mcp__timelock__search", query="alpha"), sealed=Declaration(LOCK, locks=()))
        self.assertEqual(r.evidence, ("#1 call to 'mcp__timelock__search' is not in the lock's log",))

    def test_a_receipt_pairs_a_call_with_that_record_only(self):
        log = self.locks(self.log("run.jsonl", ["alpha", "alpha", "beta"]))
        for receipts, breaches in [
            ((1, 2, 3), []), ((None, None, 3), []),
            ((2, None, None), [2]),  # record 2 taken: the second alpha has no alpha left after it
            ((1, 3, None), [2]), ((3, None, None), [1]),  # record 3 is beta's
            ((1, 2, 4), [3]),  # no record 4
            ((2, 1, 3), [2]),  # record 1 comes before record 2: out of order
        ]:
            with self.subTest(receipts=receipts):
                calls = [call("mcp__timelock__search", query=q, **({} if n is None else {"receipt": n}))
                         for q, n in zip(("alpha", "alpha", "beta"), receipts)]
                r = self.score(*calls, sealed=Declaration(LOCK, locks=log))
                self.assertEqual(breach_lines(r.evidence), tuple(f"#{n} call to 'mcp__timelock__search' is not in the lock's log" for n in breaches))

    def test_a_receipt_is_a_positive_integer(self):
        for bad in (0, -1, True, 1.0, "1"):
            with self.subTest(bad=bad), self.assertRaisesRegex(
                AnachronError, r"interactions\[0\]: field 'receipt': expected a positive integer or null"
            ):
                trace(self.c, [call("mcp__timelock__search", receipt=bad)])

    def test_the_locks_start_record_gives_its_mode_and_date(self):
        late = self.log("late.jsonl", ["alpha"], as_of=T + dt.timedelta(days=1))
        same = self.log("same.jsonl", ["alpha"], as_of=T)
        early = self.log("early.jsonl", ["alpha"], as_of=T - dt.timedelta(days=1))
        open_ = self.log("open.jsonl", ["alpha"], mode="unrestricted")
        for path, lines in [
            (same, ()), (early, ()),
            (late, (f"#1 went through a lock as of 2022-06-02 ({late}), after T 2022-06-01",)),
            (open_, (f"#1 went through a lock in mode 'unrestricted' ({open_}), which filters nothing",)),
        ]:
            with self.subTest(path=path):
                # The configuration's date is not consulted once the lock's log is given.
                declared = Declaration(LOCK, {"mcp__timelock__search": dt.date(2030, 1, 1)}, locks=self.locks(path))
                r = self.score(call("mcp__timelock__search", query="alpha"), sealed=declared)
                self.assertEqual((r.seal_breaches, breach_lines(r.evidence)), (len(lines), lines))

    def test_the_log_holding_the_most_calls_is_the_samples(self):
        one, both = self.log("one.jsonl", ["alpha"]), self.log("both.jsonl", ["alpha", "beta"])
        calls = [call("mcp__timelock__search", query="alpha"), call("mcp__timelock__search", query="beta")]
        for logs in ((one, both), (both, one)):
            with self.subTest(logs=logs):
                self.assertEqual(self.score(*calls, sealed=Declaration(LOCK, locks=self.locks(*logs))).seal_status, "sealed")
        r = self.score(*calls, call("mcp__timelock__search", query="gamma"), sealed=Declaration(LOCK, locks=self.locks(one)))
        self.assertEqual(r.seal_breaches, 2)

    def test_the_locks_own_log_gives_no_verdict(self):
        r = self.score(call("search", query="alpha"), sealed=Declaration((), lock_only=True))
        self.assertEqual((r.seal_breaches, r.seal_calls, r.seal_status), (None, None, "lock-only"))
        self.assertEqual(summarise([r]).sealed, None)
        self.assertEqual(score_table([r]).splitlines()[0],
                         "seal audit: no verdict: this log holds only the lock's calls (audit the harness's own log with --lock-events)")

    def test_without_a_declaration_no_verdict_is_claimed(self):
        r = self.score(call("WebSearch"), sealed=None)
        self.assertEqual((r.seal_breaches, r.seal_status), (None, None))
        s = summarise([r])
        self.assertEqual((s.sealed, s.to_dict()["sealed"], s.to_dict()["seal_status"], s.to_dict()["seal_breaches"]), (None, None, None, None))
        table = score_table([r])
        # Retrieval calls only: no audit could apply, so the table claims nothing (issue 24)...
        self.assertTrue(table.startswith("sample "), table[:80])
        self.assertEqual(table.splitlines()[2].split()[-1], "-")
        # ...but a shell command in the run is what an audit judges: the table says it was not run.
        shell = self.score(call("Bash", command="ls"), sealed=None)
        table = score_table([shell])
        self.assertEqual(table.splitlines()[0], "seal audit: not run (no tools declared sealed: pass --sealed-tools or --sealed-tools-from)")
        self.assertEqual(table.splitlines()[4].split()[-1], "-")
        with self.assertRaisesRegex(AnachronError, "sample 's1': seal_breaches is null"):
            parse_scores(json.loads(score_json([r])), "run.json", "seal_breaches")

    def test_a_summary_of_mixed_samples(self):
        audited = self.score(call("mcp__timelock__search"))
        unaudited = score_trace(trace(self.c, [call("x")], sample_id="s2"), self.c)
        self.assertEqual(summarise([audited, unaudited]).seal_status, None)
        self.assertIsNone(summarise([]).sealed)
        sealed = self.score(call("Bash"), sealed=Declaration(LOCK, isolated_shells={"Bash"}, locks=()))
        empty = self.score(sealed=Declaration(LOCK, locks=()))
        self.assertEqual((summarise([sealed, empty]).seal_status, summarise([sealed, empty]).sealed), ("sealed", True))
        self.assertEqual(summarise([sealed, audited]).seal_status, "unverified")
        self.assertEqual(summarise([empty]).seal_status, "no verdict")

    def test_local_calls_are_audited_but_never_interactions(self):
        r = self.score(
            call("mcp__timelock__search", returned=["fin-1"]),
            call("Read", retrieval=False),
            call("Grep", status="error", retrieval=False),
        )
        self.assertEqual((r.interactions, sum(r.failed_calls.values()), r.seal_breaches, r.seal_calls), (1, 0, 2, 3))
        self.assertEqual(r.evidence, ("#2 tool 'Read' is outside the time lock", "#3 tool 'Grep' is outside the time lock"))

    def test_the_harness_own_tools_are_neither_outside_the_lock_nor_paired(self):
        log = self.locks(self.log("run.jsonl", ["alpha"]))
        declared = Declaration(LOCK, locks=log, local_tools={"tool_search"})
        r = self.score(call("tool_search", retrieval=False), call("mcp__timelock__search", query="alpha"), sealed=declared)
        self.assertEqual((r.seal_breaches, r.seal_calls, r.seal_status, r.evidence[1:]), (0, 1, "sealed", ()))
        # Only for the tools named: another local call is outside the lock, as without the declaration.
        r = self.score(call("tool_search", retrieval=False), call("Read", retrieval=False), sealed=declared)
        self.assertEqual((r.seal_status, r.evidence), ("breached", ("#2 tool 'Read' is outside the time lock",)))
        # Without the declaration, tool_search is outside the lock.
        r = self.score(call("tool_search", retrieval=False), sealed=Declaration(LOCK, locks=log))
        self.assertEqual(r.evidence, ("#1 tool 'tool_search' is outside the time lock",))

    def test_only_the_harness_own_tools_called_is_no_verdict(self):
        declared = Declaration(LOCK, locks=self.locks(self.log("run.jsonl", [])), local_tools={"tool_search"})
        r = self.score(call("tool_search", retrieval=False), sealed=declared)
        self.assertEqual((r.seal_breaches, r.seal_calls, r.seal_status), (0, 0, "no verdict"))
        self.assertEqual(summarise([r]).seal_status, "no verdict")

    def test_a_shell_is_never_a_harness_own_tool(self):
        for shell in ("Bash", "exec_command"):
            with self.subTest(shell), self.assertRaisesRegex(AnachronError, rf"^local tools: '{shell}' is a shell tool"):
                Declaration(LOCK, local_tools={"tool_search", shell})

    def test_no_call_audited_is_no_verdict(self):
        r = self.score()
        self.assertEqual((r.seal_breaches, r.seal_calls, r.seal_status), (0, 0, "no verdict"))
        self.assertIsNone(summarise([r]).sealed)
        self.assertEqual(score_table([r]).splitlines()[0],
                         "seal audit: no verdict (0 calls audited in 1 sample): nothing shows the run was sealed")

    def test_a_configuration_only_declaration_carries_each_locks_date(self):
        declared = Declaration(LOCK, {"mcp__timelock__search": dt.date(2023, 3, 1)})
        late = score_trace(trace(self.c, [call("mcp__timelock__search"), call("mcp__timelock__fetch")]), self.c, sealed_tools=declared)
        self.assertEqual(late.seal_breaches, 1)
        self.assertEqual(late.evidence, ("#1 tool 'mcp__timelock__search' is locked as of 2023-03-01, after T 2022-06-01",))

    def test_a_notebook_shows_the_status_beside_the_count(self):
        import anachron.output.html  # noqa: F401  (registers the notebook displays)

        for r, shown in [
            (self.score(call("WebSearch")), "1 (breached)"),
            (self.score(call("mcp__timelock__search")), "0 (unverified)"),
            (self.score(call("search"), sealed=Declaration((), lock_only=True)), "lock-only"),
            (self.score(call("search"), sealed=None), "not audited"),
        ]:
            with self.subTest(shown=shown):
                self.assertIn(f"seal breaches</th><td class=\"num\">{shown}</td>", r._repr_html_())

    def test_the_result_round_trips(self):
        from anachron.core.leakage import read_sample

        r = self.score(call("Bash"), sealed=Declaration(LOCK, isolated_shells={"Bash"}, locks=()))
        back = read_sample(json.loads(json.dumps(r.to_dict())), "run.json")
        self.assertEqual((back.seal_status, back.seal_assumptions), ("sealed", ("shell 'Bash' had no network",)))

    def test_a_command_must_be_a_string(self):
        with self.assertRaisesRegex(AnachronError, r"trace:1 \(sample s1\) interactions\[0\]: field 'command': expected a string or null, got 3"):
            trace(self.c, [call("Bash", command=3)])


class SealCliTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        self.tmp = self._tmp.name
        self.trace = self.write_trace([
            {"tool": "mcp__timelock__search", "query": "cygnus", "returned": []},
            {"tool": "Bash", "status": "error", "command": "curl https://example.com"},
        ])

    def write_trace(self, interactions, name="trace.jsonl"):
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(json.dumps({"sample_id": "s1", "as_of": "2023-01-01", "interactions": interactions}) + "\n")
        return path

    def config(self, servers):
        path = os.path.join(self.tmp, "mcp.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump({"mcpServers": servers}, fh)
        return path

    def test_a_shell_is_a_breach_and_curl_is_only_evidence(self):
        status, out, err = run_cli("score", self.trace, "--sealed-tools", "mcp__timelock__search,mcp__timelock__fetch", "--format", "json")
        self.assertEqual((status, err), (0, ""))
        document = json.loads(out)
        self.assertEqual(document["samples"][0]["seal_breaches"], 1)
        self.assertEqual(document["samples"][0]["evidence"], [
            "#2 " + SHELL_LINE.format("Bash"),
            "#2 shell command names the network (evidence only): curl https://example.com",
        ])
        summary = document["summary"]
        self.assertEqual((summary["sealed"], summary["seal_status"], summary["seal_breaches"]), (False, "breached", 1))

    def test_the_lock_log_and_an_isolated_shell_seal_the_run(self):
        log = lock_log(os.path.join(self.tmp, "lock.jsonl"), ["cygnus"], as_of=dt.date(2023, 1, 1))
        argv = ["score", self.trace, "--sealed-tools", "mcp__timelock__search", "--isolated-shell", "Bash", "--lock-events", log]
        status, out, err = run_cli(*argv)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.splitlines()[0], "sealed: true, given that shell 'Bash' had no network "
                         "(0 seal breaches in 1 sample; 2 calls audited; every call in the lock's log)")
        status, out, err = run_cli(*argv, "--format", "json")
        summary = json.loads(out)["summary"]
        self.assertEqual((summary["sealed"], summary["seal_status"], summary["seal_assumptions"]), (True, "sealed", ["shell 'Bash' had no network"]))
        status, out, err = run_cli(*argv[:-1], lock_log(os.path.join(self.tmp, "other.jsonl"), ["lyra"], as_of=dt.date(2023, 1, 1)))
        self.assertEqual(out.splitlines()[0], "sealed: false (1 seal breach in 1 / 1 sample; 2 calls audited): NOT a time-locked result")
        self.assertIn("! #1 call to 'mcp__timelock__search' is not in the lock's log", out)
        status, out, err = run_cli(*argv[:2], "--sealed-tools", "mcp__timelock__search", "--isolated-shell", "Bash", "--format", "csv")
        self.assertIn(",unverified,", out.splitlines()[1])

    def test_the_lock_log_travels_to_every_job(self):
        log = lock_log(os.path.join(self.tmp, "lock.jsonl"), ["cygnus"], as_of=dt.date(2023, 1, 1), fetches=["https://x.test/a"])
        path = os.path.join(self.tmp, "many.jsonl")
        with open(path, "w", encoding="utf-8") as fh:
            for n in range(6):
                fh.write(json.dumps({"sample_id": f"s{n}", "as_of": "2023-01-01", "interactions": [
                    {"tool": "mcp__timelock__search", "query": "cygnus" if n % 3 else "lyra", "returned": []},
                    {"tool": "mcp__timelock__fetch", "target": "https://x.test/a", "status": "refused"},  # unknown: by order
                ]}) + "\n")
        argv = ["score", path, "--sealed-tools", "mcp__timelock__search,mcp__timelock__fetch", "--lock-events", log, "--format", "json"]
        serial, parallel = run_cli(*argv), run_cli(*argv, "--jobs", "2")
        self.assertEqual(serial, parallel)
        document = json.loads(serial[1])
        self.assertEqual([s["seal_breaches"] for s in document["samples"]], [1, 0, 0, 1, 0, 0])
        self.assertEqual(breach_lines(document["samples"][0]["evidence"]), ("#1 call to 'mcp__timelock__search' is not in the lock's log",))

    def test_the_html_report_keeps_the_verdict_of_a_score_file(self):
        status, out, _ = run_cli("score", self.trace, "--sealed-tools", "mcp__timelock__search", "--format", "json")
        document = json.loads(out)
        cases = [("as scored", document, "sealed: false (1 seal breach in 1 / 1 sample; 2 calls audited): NOT a time-locked result")]
        legacy = json.loads(out)  # written before seal_status: a clean count is unverified, never sealed
        sample = legacy["samples"][0]
        del sample["seal_status"], sample["seal_assumptions"]
        sample["seal_breaches"] = 0
        sample["evidence"] = []
        cases.append(("legacy", legacy, "sealed: unverified (config only: pass --lock-events EVENTS.jsonl to check the calls "
                      "against the lock&#x27;s log; 0 seal breaches in 1 sample; 2 calls audited)"))
        for name, doc, line in cases:
            with self.subTest(name=name):
                scores, page = os.path.join(self.tmp, "scores.json"), os.path.join(self.tmp, "r.html")
                with open(scores, "w", encoding="utf-8") as fh:
                    json.dump(doc, fh)
                status, _, err = run_cli("report", scores, "--out", page)
                self.assertEqual(status, 0, err)
                with open(page, encoding="utf-8") as fh:
                    self.assertIn(line, fh.read())
        for bad, message in [("sealed", "'sealed' does not agree with seal_breaches 1"), ("proven", "expected one of sealed, ")]:
            with self.subTest(bad=bad):
                document["samples"][0]["seal_status"] = bad
                with open(scores, "w", encoding="utf-8") as fh:
                    json.dump(document, fh)
                status, out, err = run_cli("report", scores, "--out", page)
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn(message, err)

    def test_config_text_never_seals(self):
        # The cases: abbreviations, wrappers, echo, a client-expanded variable, --help.
        for args in [
            ["serve", "--as-of", "2023-01-01", "--mod", "unrestricted"],
            ["serve", "--as-of", "2022-01-01", "--as", "2030-01-01"],
            ["-c", "curl x; anachron serve --as-of 2023-01-01"],
            ["anachron", "serve", "--as-of", "2023-01-01"],
            ["serve", "--as-of", "${AS_OF}"],
            ["serve", "--help", "--as-of", "2023-01-01"],
            ["serve", "--as-of", "2023-01-01"],
        ]:
            for command in ("anachron", "sh", "echo", "./evil/anachron", "python"):
                with self.subTest(command=command, args=args):
                    path = self.config({"timelock": {"command": command, "args": args}})
                    status, out, err = run_cli("score", self.trace, "--sealed-tools-from", path, "--isolated-shell", "Bash", "--format", "json")
                    if status == 2:
                        self.assertEqual(len(err.splitlines()), 1, err)
                        continue
                    summary = json.loads(out)["summary"]
                    self.assertIn(summary["seal_status"], ("unverified", "breached"))
                    self.assertIsNot(summary["sealed"], True)

    def test_sealed_tools_from_an_mcp_config(self):
        path = self.config({
            "timelock": {"command": "/usr/local/bin/anachron", "args": ["serve", "--as-of", "2023-01-01"]},
            "lock2": {"command": "python", "args": ["-m", "anachron", "serve", "--as-of=2022-06-01", "--mode", "enforced"]},
            "web": {"command": "npx", "args": ["-y", "some-search-server", "serve"]},
        })
        status, out, err = run_cli("score", self.trace, "--sealed-tools-from", path)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.splitlines()[0], "sealed: false (1 seal breach in 1 / 1 sample; 2 calls audited): NOT a time-locked result")
        from anachron.importers import sealed_tools_from

        declared = sealed_tools_from(path)
        # Every harness's name of each lock's tools: Claude Code's, Codex's, Gemini CLI's.
        self.assertEqual(declared, frozenset({f"{prefix}{server}{sep}{tool}" for server in ("timelock", "lock2") for tool in ("search", "fetch")
                                              for prefix, sep in (("mcp__", "__"), ("", "__"), ("mcp_", "_"))}))
        self.assertEqual(str(declared.lock_as_of["mcp_lock2_fetch"]), "2022-06-01")
        self.assertEqual(str(declared.lock_as_of["mcp__lock2__fetch"]), "2022-06-01")

    def test_an_unrestricted_server_seals_nothing(self):
        unrestricted = self.config({"timelock": {"command": "anachron", "args": ["serve", "--as-of", "2023-01-01", "--mode", "unrestricted"]}})
        status, out, err = run_cli("score", self.trace, "--sealed-tools-from", unrestricted)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, f"anachron: {unrestricted}: the configuration seals no tool (server 'timelock' runs "
                              "`anachron serve --mode unrestricted`, which filters nothing: it seals no tool); "
                              "name sealed tools with --sealed-tools\n")

    def test_a_configured_lock_dated_after_t_is_a_breach(self):
        path = self.config({"timelock": {"command": "anachron", "args": ["serve", "--as-of", "2030-01-01"]}})
        status, out, _ = run_cli("score", self.trace, "--sealed-tools-from", path)
        self.assertEqual(out.splitlines()[0], "sealed: false (2 seal breaches in 1 / 1 sample; 2 calls audited): NOT a time-locked result")
        self.assertIn("! #1 tool 'mcp__timelock__search' is locked as of 2030-01-01, after T 2023-01-01", out)

    def test_score_events_gives_no_verdict(self):
        log = lock_log(os.path.join(self.tmp, "lock.jsonl"), ["cygnus"], as_of=dt.date(2023, 1, 1))
        status, out, err = run_cli("score-events", log, "--as-of", "2023-01-01")
        self.assertEqual(status, 0, err)
        self.assertEqual(out.splitlines()[0], "seal audit: no verdict: this log holds only the lock's calls "
                         "(audit the harness's own log with --lock-events)")
        status, out, err = run_cli("score-events", log, "--as-of", "2023-01-01", "--format", "json")
        summary = json.loads(out)["summary"]
        self.assertEqual((summary["sealed"], summary["seal_status"]), (None, "lock-only"))
        # The same log imported through `score --from mcp-events`, even with a declaration and itself as the lock's log.
        status, out, err = run_cli("score", "--from", "mcp-events", log, "--as-of", "2023-01-01",
                                   "--sealed-tools", "search,fetch", "--lock-events", log)
        self.assertEqual((status, out.splitlines()[0]), (0, "seal audit: no verdict: this log holds only the lock's calls "
                                                            "(audit the harness's own log with --lock-events)"))

    def test_bad_declarations_are_one_line_errors(self):
        no_lock = self.config({"web": {"command": "npx", "args": ["search"]}})
        bad_log = os.path.join(self.tmp, "bad.jsonl")
        with open(bad_log, "w", encoding="utf-8") as fh:
            fh.write('{"event": "call"}\n')
        for argv, message in [
            (["--sealed-tools", "a,,b"], "--sealed-tools: expected tool names separated by commas, got 'a,,b'"),
            (["--sealed-tools", ""], "--sealed-tools: expected tool names separated by commas, got ''"),
            (["--sealed-tools-from", no_lock], f"{no_lock}: the configuration seals no tool (server 'web' does not run `anachron serve`: it seals no tool)"),
            (["--sealed-tools-from", os.path.join(self.tmp, "missing.json")], "missing.json: no such file"),
            (["--sealed-tools", "x", "--isolated-shell", "WebSearch"], "--isolated-shell: 'WebSearch' is not a shell tool"),
            (["--sealed-tools", "x", "--isolated-shell", "Bash,"], "--isolated-shell: expected tool names separated by commas"),
            (["--isolated-shell", "Bash"], "--isolated-shell and --lock-events qualify a seal audit"),
            (["--lock-events", bad_log], "--isolated-shell and --lock-events qualify a seal audit"),
            (["--sealed-tools", "x", "--lock-events", bad_log], f"{bad_log}:1: the log must begin with a 'start' record"),
            (["--sealed-tools", "x", "--lock-events", os.path.join(self.tmp, "none.jsonl")], "none.jsonl"),
            (["--sealed-tool", "x"], "unrecognized arguments: --sealed-tool x"),  # no abbreviation
        ]:
            with self.subTest(argv=argv):
                status, out, err = run_cli("score", self.trace, *argv)
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn(message, err)


class ServeOptionsTest(unittest.TestCase):
    def test_abbreviated_and_repeated_options_are_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            events = os.path.join(tmp, "e.jsonl")
            for argv, message in [
                (["--as-of", "2022-01-01", "--events", events, "--as-of", "2030-01-01"], "--as-of is given twice: give each option once"),
                (["--as-of", "2022-01-01", "--events", events, "--mod", "unrestricted"], "unrecognized arguments: --mod unrestricted"),
                (["--as", "2022-01-01", "--events", events], "the following arguments are required: --as-of"),
                (["--as-of", "2022-01-01", "--events", events, "--allow-undated", "--allow-undated"], "--allow-undated is given twice"),
                (["--as-of", "2022-01-01", "--events", events, "-k", "2", "-k", "3"], "-k is given twice"),
                (["--as-of", "2022-01-01", "--events", events, "--mode", "enforced", "--mode=unrestricted"], "--mode is given twice"),
            ]:
                with self.subTest(argv=argv):
                    status, out, err = run_cli("serve", *argv)
                    self.assertEqual((status, out), (2, ""))
                    self.assertEqual(len(err.splitlines()), 1, err)
                    self.assertIn(message, err)
                    self.assertFalse(os.path.exists(events))

    def test_no_parser_takes_an_abbreviation(self):
        from anachron.cli import build_parser

        parser = build_parser()
        pending = [parser]
        seen = 0
        while pending:
            current = pending.pop()
            seen += 1
            self.assertFalse(current.allow_abbrev, current.prog)
            for action in current._actions:  # argparse keeps its subparsers there
                choices = getattr(action, "choices", None)
                if isinstance(choices, dict):
                    pending.extend(p for p in choices.values() if hasattr(p, "allow_abbrev"))
        self.assertGreater(seen, 12)


if __name__ == "__main__":
    unittest.main()
