"""The time-lock MCP server, driven by the official SDK's client over stdio and streamable HTTP.

Each class runs one real server session in setUpClass (spawning is the slow
part) and its tests check what the client saw, the event log, and the
commands that read the log.
"""

import json
import subprocess
import sys
import tempfile
import unittest
from fractions import Fraction
from pathlib import Path

from anachron.core import date_references, load_corpus_dir
from anachron.store import SearchEngine
from anachron.core.dates import parse_date

from tests.mcp_support import TIMEOUT, StubUpstream, http_server, read_log, stdio_client, text_of
from tests.support import ROOT, require_extra, run_cli

T = "2022-06-01"


def setUpModule():
    require_extra("mcp", "mcp")


def run_async(fn):
    import anyio

    return anyio.run(fn)


def shown(result):
    """(id, published) of each item a tool result showed."""
    return [(r["id"], r["published"]) for r in (result.structured_content or {}).get("results", [])]


def strings(value):
    """Every string inside a JSON-like value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


class TempDir:
    @classmethod
    def make_tmp(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.tmp = Path(cls._tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()


# ---------------------------------------------------------------------------
# stdio, local corpus


class StdioCorpusTest(TempDir, unittest.TestCase):
    """One stdio session over corpus/v0 as of T, fetch budget 1."""

    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.events = cls.tmp / "events.jsonl"
        cls.corpus = load_corpus_dir()
        cls.queries = [s.extra["subject"] for s in cls.corpus.samples.values()]
        args = ["--as-of", T, "--events", str(cls.events), "--max-fetches", "1"]

        async def session():
            async with stdio_client(args, errlog=cls.tmp / "stderr.txt") as client:
                cls.server_info = client.server_info
                cls.instructions = client.instructions
                cls.tools = (await client.list_tools()).tools
                cls.rejected = {
                    "extra as_of": await client.call_tool("search", {"query": "cygnus", "as_of": "2030-01-01"}),
                    "extra on fetch": await client.call_tool("fetch", {"id_or_url": "fin-001", "date": "2030-01-01"}),
                    "missing": await client.call_tool("search", {}),
                    "not a string": await client.call_tool("search", {"query": 42}),
                    "blank": await client.call_tool("search", {"query": "   "}),
                    "unknown tool": await client.call_tool("browse", {"url": "https://example.com"}),
                }
                cls.searches = [await client.call_tool("search", {"query": q}) for q in cls.queries]
                first = next(ident for r in cls.searches for ident, _ in shown(r))
                cls.fetched_id = first
                cls.fetch = await client.call_tool("fetch", {"id_or_url": first})
                cls.fetch_again = await client.call_tool("fetch", {"id_or_url": first})

        run_async(session)
        cls.log = read_log(cls.events)

    # -- what the model is told -------------------------------------------------

    def test_exactly_two_tools_each_taking_one_string_and_nothing_else(self):
        self.assertEqual([tool.name for tool in self.tools], ["search", "fetch"])
        for tool, argument in zip(self.tools, ("query", "id_or_url")):
            schema = tool.input_schema
            self.assertEqual(schema["type"], "object")
            self.assertEqual(list(schema["properties"]), [argument])
            self.assertEqual(schema["properties"][argument]["type"], "string")
            self.assertEqual(schema["required"], [argument])
            self.assertIs(schema["additionalProperties"], False)

    def test_no_schema_or_description_carries_a_date(self):
        # Every text the client receives about the server, schema keys and string values included
        # (numbers such as maxLength are limits, not dates, and are not texts).
        told = [self.instructions or ""] + list(strings(self.server_info.model_dump(mode="json")))
        for tool in self.tools:
            told += [tool.description or ""] + list(strings(tool.input_schema))
            for name in strings(tool.input_schema):
                self.assertNotRegex(name.lower(), r"as_of|asof|date|cutoff|time")
            self.assertNotIn(T, json.dumps(tool.model_dump(mode="json")))
        for text in told:
            self.assertNotIn(T, text)
            self.assertEqual(date_references(text), [], text)

    # -- what the server refuses ------------------------------------------------

    def test_bad_arguments_are_tool_errors_that_name_the_problem(self):
        fragments = {
            "extra as_of": "'as_of'", "extra on fetch": "'date'", "missing": "needs 'query'",
            "not a string": "needs 'query'", "blank": "needs 'query'", "unknown tool": "unknown tool 'browse'",
        }
        for name, result in self.rejected.items():
            with self.subTest(name):
                self.assertTrue(result.is_error)
                self.assertIn(fragments[name], text_of(result))
                self.assertEqual(shown(result), [])

    def test_refused_calls_count_against_the_call_cap_only_and_are_logged_as_refused(self):
        # Six refusals: none touches the search or fetch budget, each counts against --max-calls.
        budget = self.rejected["unknown tool"].structured_content["budget"]
        self.assertEqual({k: v["used"] for k, v in budget.items()}, {"searches": 0, "fetches": 0, "calls": 6})
        calls = self.log[1:]
        self.assertEqual([c["status"] for c in calls[:6]], ["refused"] * 6)
        self.assertEqual(calls[0]["arguments"], {"query": "cygnus", "as_of": "2030-01-01"})

    # -- what the server shows --------------------------------------------------

    def test_every_item_shown_is_dated_on_or_before_the_cutoff(self):
        cutoff = parse_date(T)
        items = [item for result in self.searches for item in shown(result)]
        self.assertTrue(items)
        for ident, published in items:
            self.assertEqual(published, self.corpus.items[ident].publish_date.isoformat())
            self.assertLessEqual(parse_date(published), cutoff, ident)

    def test_the_same_queries_unlocked_would_have_shown_later_items(self):
        # Without this, the check above could pass on a corpus with nothing to hide.
        engine = SearchEngine(self.corpus)
        late = {i.id for q in self.queries for i in engine.search(q, as_of=parse_date(T)) if i.publish_date > parse_date(T)}
        self.assertTrue(late)
        self.assertFalse(late & {ident for r in self.searches for ident, _ in shown(r)})

    def test_fetch_returns_the_whole_document_then_the_fetch_budget_holds(self):
        self.assertFalse(self.fetch.is_error)
        self.assertIn(self.corpus.items[self.fetched_id].text, text_of(self.fetch))
        self.assertTrue(self.fetch_again.is_error)
        self.assertIn("fetches budget exhausted (1 of 1 used)", text_of(self.fetch_again))

    def test_the_remaining_budget_is_echoed_after_every_call(self):
        results = list(self.rejected.values()) + self.searches + [self.fetch, self.fetch_again]
        for result in results:
            self.assertRegex(text_of(result), r"Budget remaining: searches unlimited, fetches \d of 1, calls unlimited\.$")
        used = [r.structured_content["budget"]["searches"]["used"] for r in self.searches]
        self.assertEqual(used, list(range(1, len(self.queries) + 1)))

    # -- what the server logs ---------------------------------------------------

    def test_the_log_is_one_run_recording_exactly_what_the_client_saw(self):
        header, calls = self.log[0], self.log[1:]
        self.assertEqual((header["event"], header["as_of"], header["backend"]), ("start", T, "corpus"))
        self.assertEqual([c["seq"] for c in calls], list(range(1, len(calls) + 1)))
        self.assertEqual({c["run"] for c in calls}, {header["run"]})
        results = list(self.rejected.values()) + self.searches + [self.fetch, self.fetch_again]
        self.assertEqual(len(calls), len(results))
        for record, result in zip(calls, results):
            self.assertEqual(record["status"] != "ok", result.is_error)
            self.assertEqual([(r["id"], r["published"]) for r in record["returned"]], shown(result))
            self.assertEqual(record["budget"], result.structured_content["budget"])
            self.assertEqual(record["withheld"], [])  # the corpus backend is already enforced: the re-check catches 0

    def test_the_log_scores_to_zero_at_the_cutoff_and_to_the_expected_tclr_earlier(self):
        status, out, err = run_cli("score-events", str(self.events), "--as-of", T, "--format", "json")
        self.assertEqual((status, err), (0, ""))
        sample = json.loads(out)["samples"][0]
        self.assertEqual((sample["sample_id"], sample["tclr"]), ("events", 0.0))
        ok = self.searches + [self.fetch]  # the accepted calls, as the client saw them
        self.assertEqual(sample["interactions"], len(ok))
        # Scored as of an earlier day, a call leaks when it showed anything dated after that day.
        earlier = parse_date("2021-06-01")
        expected = Fraction(sum(any(parse_date(p) > earlier for _, p in shown(r)) for r in ok), len(ok))
        self.assertGreater(expected, 0)
        status, out, _ = run_cli("score-events", str(self.events), "--as-of", "2021-06-01", "--format", "json")
        self.assertEqual(status, 0)
        self.assertAlmostEqual(json.loads(out)["samples"][0]["tclr"], float(expected))

    def test_citations_are_checked_against_this_run(self):
        answer = self.tmp / "answer.json"
        answer.write_text(json.dumps({"citations": [self.fetched_id, "fin-005"]}), encoding="utf-8")
        status, out, err = run_cli("verify-citations", str(answer), str(self.events))
        self.assertEqual((status, err), (1, ""))
        self.assertIn(f"ok    {self.fetched_id}: returned by call", out)
        self.assertIn("FAIL  fin-005: never returned by a tool in this run", out)
        answer.write_text(json.dumps({"citations": [self.fetched_id]}), encoding="utf-8")
        self.assertEqual(run_cli("verify-citations", str(answer), str(self.events))[0], 0)


# ---------------------------------------------------------------------------
# streamable HTTP, upstream backend


UPSTREAM_RESULTS = [
    {"url": "https://a.example/on-the-day", "title": "On the day", "published": T, "text": "Filed on the cutoff day."},
    {"url": "https://a.example/before", "title": "Before", "publish_date": "2021-12-01T08:00:00Z", "snippet": "Earlier."},
    {"url": "https://a.example/late", "title": "Too late", "published": "2022-06-02", "text": "The outcome."},
    {"url": "https://a.example/late-in-utc", "title": "Late in UTC", "published": "2022-06-01T23:30:00-02:00"},
    {"url": "https://a.example/early-in-utc", "title": "Early in UTC", "published": "2022-06-02T00:30:00+02:00"},
    {"url": "https://a.example/undated", "title": "No date", "text": "Timeless."},
    {"url": "https://a.example/garbled", "title": "Garbled", "published": "June 1st"},
    {"url": "https://a.example/conflict", "title": "Two dates", "published": "2022-05-01", "publish_date": "2022-07-01"},
    {"title": "Anonymous", "published": "2020-01-01"},
    {"id": "doc-7", "title": "An id, no URL", "published": "2022-05-31"},
    {"url": "https://a.example/last-instant", "title": "Last instant", "published": "2022-06-01T23:59:59.999999Z"},
    {"url": "https://a.example/epoch", "title": "Epoch seconds", "published": 1654041600},
]
SHOWN_BY_DEFAULT = [
    ("https://a.example/on-the-day", T),
    ("https://a.example/before", "2021-12-01"),
    ("https://a.example/early-in-utc", T),
    ("doc-7", "2022-05-31"),
    ("https://a.example/last-instant", T),
    ("https://a.example/epoch", T),  # epoch seconds are a date (1654041600 is 2022-06-01 UTC)
]
WITHHELD_BY_DEFAULT = [
    ("https://a.example/late", "after-cutoff"),
    ("https://a.example/late-in-utc", "after-cutoff"),
    ("https://a.example/undated", "undated"),
    ("https://a.example/garbled", "unparseable-date"),
    ("https://a.example/conflict", "after-cutoff"),
    (None, "no-id"),
]


class HttpUpstreamTest(TempDir, unittest.TestCase):
    """One HTTP server in front of a stub upstream that wrongly returns post-cutoff items; two client sessions."""

    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.events = cls.tmp / "events.jsonl"
        with StubUpstream(UPSTREAM_RESULTS) as upstream:
            args = ["--as-of", T, "--upstream", upstream.url, "--events", str(cls.events), "-k", "12", "--max-calls", "5"]
            with http_server(*args) as (process, url, cls.stderr):
                cls.url = url

                async def sessions():
                    import anyio
                    from mcp import Client

                    with anyio.fail_after(TIMEOUT):
                        await both_eras(Client)

                async def both_eras(Client):
                    async with Client(url, read_timeout_seconds=TIMEOUT) as client:
                        cls.modern_version = client.protocol_version
                        cls.tools = (await client.list_tools()).tools
                        cls.search = await client.call_tool("search", {"query": "cygnus outcome"})
                        cls.fetch_late = await client.call_tool("fetch", {"id_or_url": "https://a.example/late"})
                        cls.fetch_before = await client.call_tool("fetch", {"id_or_url": "https://a.example/before"})
                        cls.boom = await client.call_tool("search", {"query": "boom"})
                    async with Client(url, mode="legacy", read_timeout_seconds=TIMEOUT) as client:
                        cls.legacy_version = client.protocol_version
                        cls.garbage = await client.call_tool("search", {"query": "garbage"})
                        cls.over_budget = await client.call_tool("search", {"query": "cygnus"})

                run_async(sessions)
            cls.requests = list(upstream.requests)
        cls.log = read_log(cls.events)

    def test_both_protocol_eras_connect_and_list_the_two_tools(self):
        self.assertNotEqual(self.modern_version, self.legacy_version)
        self.assertEqual([t.name for t in self.tools], ["search", "fetch"])
        self.assertTrue(self.url.startswith("http://127.0.0.1:"))

    def test_the_as_of_is_injected_into_every_upstream_request(self):
        self.assertEqual([path for path, _ in self.requests], ["/search", "/fetch", "/fetch", "/search", "/search"])
        for path, body in self.requests:
            self.assertEqual(body["as_of"], T)
            expected_keys = {"query", "as_of", "k"} if path == "/search" else {"url", "as_of"}
            self.assertEqual(set(body), expected_keys)
        self.assertEqual(self.requests[0][1], {"query": "cygnus outcome", "as_of": T, "k": 12})

    def test_the_recheck_withholds_what_the_upstream_wrongly_returned(self):
        self.assertEqual(shown(self.search), SHOWN_BY_DEFAULT)
        text = text_of(self.search)
        for ref, _ in WITHHELD_BY_DEFAULT:
            if ref:
                self.assertNotIn(ref, text)
        self.assertNotIn("The outcome.", text)
        self.assertNotIn("withheld", text.lower())  # the agent is not even told that something was held back
        record = self.log[1]
        self.assertEqual([(w["id"], w["reason"]) for w in record["withheld"]], WITHHELD_BY_DEFAULT)
        # after-cutoff: the normalised UTC day (23:30 at UTC-2 is the next day); otherwise what the backend sent
        self.assertEqual([w["published"] for w in record["withheld"]],
                         ["2022-06-02", "2022-06-02", "undated (no date found)", "June 1st", "2022-07-01", "2020-01-01"])
        self.assertEqual([(r["id"], r["published"]) for r in record["returned"]], SHOWN_BY_DEFAULT)

    def test_a_post_cutoff_fetch_looks_like_a_missing_document(self):
        self.assertTrue(self.fetch_late.is_error)  # refused, with the answer an unknown id gets
        self.assertIn("No document 'https://a.example/late' is available.", text_of(self.fetch_late))
        self.assertEqual(self.log[2]["status"], "refused")
        self.assertEqual(self.log[2]["withheld"], [{
            "id": "https://a.example/late", "published": "2022-06-02", "reason": "after-cutoff", "dated_by": "field 'published'",
            "sources": [{"source": "field 'published'", "value": "2022-06-02", "published": "2022-06-02", "granularity": "day"}],
            "backend": "anachron",  # the upstream said no guarantee: none is recorded
        }])
        self.assertEqual(shown(self.fetch_before), [("https://a.example/before", "2021-12-01")])
        self.assertIn("Earlier.", text_of(self.fetch_before))

    def test_upstream_failures_are_tool_errors_and_the_server_carries_on(self):
        self.assertTrue(self.boom.is_error)
        self.assertIn("upstream /search answered HTTP 500", text_of(self.boom))
        self.assertTrue(self.garbage.is_error)
        self.assertIn("invalid JSON", text_of(self.garbage))
        self.assertEqual([c["status"] for c in self.log[1:]], ["ok", "refused", "ok", "error", "error", "exhausted"])

    def test_the_call_budget_is_per_server_across_sessions(self):
        self.assertTrue(self.over_budget.is_error)
        self.assertIn("calls budget exhausted (5 of 5 used)", text_of(self.over_budget))
        self.assertEqual(len(self.requests), 5)  # the refused call never reached the upstream

    def test_scoring_and_citations_of_the_served_run(self):
        status, out, err = run_cli("score-events", str(self.events), "--as-of", T, "--format", "json")
        self.assertEqual((status, err), (0, ""))
        sample = json.loads(out)["samples"][0]
        self.assertEqual((sample["interactions"], sample["tclr"]), (2, 0.0))
        # The refused fetch of a post-cutoff page is a blocked attempt; the two upstream errors and
        # the over-budget call are failed calls.
        self.assertEqual(sample["blocked_attempts"], 1)
        self.assertIn("#2 blocked fetch of https://a.example/late dated 2022-06-02 > 2022-06-01", sample["evidence"])
        self.assertEqual(sample["failed_calls"], {"refused": 1, "exhausted": 1, "error": 2})
        answer = self.tmp / "answer.json"
        answer.write_text(json.dumps({"citations": [
            {"url": "https://a.example/before"}, "doc-7", "https://a.example/late", "https://a.example/invented",
        ]}), encoding="utf-8")
        status, out, _ = run_cli("verify-citations", str(answer), str(self.events))
        self.assertEqual(status, 1)
        self.assertEqual([line.split()[0] for line in out.splitlines()[:4]], ["ok", "ok", "FAIL", "FAIL"])
        self.assertIn("https://a.example/late: withheld by the server (after-cutoff, call 1)", out)
        self.assertIn("https://a.example/invented: never returned", out)


# ---------------------------------------------------------------------------
# --allow-undated and --overwrite-events, over stdio


class AllowUndatedTest(TempDir, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.make_tmp()
        cls.events = cls.tmp / "events.jsonl"
        cls.events.write_text('{"an": "old run"}\n', encoding="utf-8")
        with StubUpstream(UPSTREAM_RESULTS) as upstream:
            # -k 11: the upstream answers 12 items, and the twelfth must not be considered at all.
            args = ["--as-of", T, "--upstream", upstream.url, "--events", str(cls.events), "-k", "11",
                    "--allow-undated", "--overwrite-events"]

            async def session():
                async with stdio_client(args, errlog=cls.tmp / "stderr.txt") as client:
                    cls.search = await client.call_tool("search", {"query": "anything"})

            run_async(session)
        cls.log = read_log(cls.events)

    def test_undated_items_are_shown_as_such_and_counted(self):
        ids = [ident for ident, _ in shown(self.search)]
        self.assertEqual(ids, [
            "https://a.example/on-the-day", "https://a.example/before", "https://a.example/early-in-utc",
            "https://a.example/undated", "https://a.example/garbled", "doc-7", "https://a.example/last-instant",
        ])
        self.assertIn("- id: https://a.example/undated\n  date: unknown\n  title: No date", text_of(self.search))
        returned = {r["id"]: r for r in self.log[1]["returned"]}
        self.assertEqual(returned["https://a.example/undated"]["undated"], "no date")
        self.assertEqual(returned["https://a.example/garbled"]["undated"], "field 'published': unreadable value 'June 1st'")
        # A date after the cutoff is withheld whatever the flag says.
        self.assertEqual([w["reason"] for w in self.log[1]["withheld"]], ["after-cutoff", "after-cutoff", "after-cutoff", "no-id"])
        # Beyond k: neither shown nor withheld, never considered.
        self.assertNotIn("https://a.example/epoch", json.dumps(self.log[1]))
        status, out, err = run_cli("score-events", str(self.events), "--as-of", T, "--format", "json")
        self.assertEqual(status, 0)
        self.assertIn("2 undated item(s) were shown: they make TCLR's band", err)
        sample = json.loads(out)["samples"][0]
        self.assertEqual((sample["tclr"], sample["tclr_high"], sample["undated"]), (0.0, 1.0, 1))  # not a silent 0

    def test_overwrite_discards_the_old_log(self):
        self.assertEqual(self.log[0]["event"], "start")
        self.assertIs(self.log[0]["allow_undated"], True)
        self.assertNotIn({"an": "old run"}, self.log)


# ---------------------------------------------------------------------------
# One log, one run


class HostileStdioTest(TempDir, unittest.TestCase):
    """Over real stdio: an upstream's lone surrogate or slow drip must not kill or stall the server."""

    @classmethod
    def setUpClass(cls):
        from tests.hostile_upstream import HostileUpstream

        cls.make_tmp()
        cls.events = cls.tmp / "events.jsonl"
        with HostileUpstream(drip_seconds=0.2, drip_bytes=30) as upstream:
            args = ["--as-of", T, "--upstream", upstream.url, "--events", str(cls.events), "--upstream-timeout", "1"]

            async def session():
                async with stdio_client(args, errlog=cls.tmp / "stderr.txt") as client:
                    cls.surrogate = await client.call_tool("search", {"query": "surrogate"})
                    cls.drip = await client.call_tool("search", {"query": "slow-drip"})
                    cls.after = await client.call_tool("search", {"query": "fine"})

            run_async(session)
        cls.log = read_log(cls.events)

    def test_the_server_survives_and_logs_every_call(self):
        self.assertFalse(self.surrogate.is_error)
        self.assertIn("T\ufffditle", text_of(self.surrogate))
        self.assertTrue(self.drip.is_error)
        self.assertIn("took longer than 1 s", text_of(self.drip))
        self.assertFalse(self.after.is_error)
        self.assertEqual([(c["seq"], c["status"]) for c in self.log[1:]], [(1, "ok"), (2, "error"), (3, "ok")])


class OneLogOneRunTest(TempDir, unittest.TestCase):
    def setUp(self):
        self.make_tmp()

    def test_a_second_server_on_the_same_log_serves_nothing(self):
        events = self.tmp / "shared.jsonl"
        args = ["--as-of", T, "--events", str(events)]

        async def both():
            async with stdio_client(args, errlog=self.tmp / "a.txt") as a, stdio_client(args, errlog=self.tmp / "b.txt") as b:
                first = await a.call_tool("search", {"query": "aster logistics"})
                second = await b.call_tool("search", {"query": "aster logistics"})
                again = await a.call_tool("search", {"query": "delta pharma"})
                return first, second, again

        first, second, again = run_async(both)
        self.assertFalse(first.is_error)
        self.assertTrue(second.is_error)
        self.assertIn("another server holds this event log", text_of(second))
        self.assertEqual(shown(second), [])
        self.assertFalse(again.is_error)
        log = read_log(events)
        self.assertEqual([r["event"] for r in log], ["start", "call", "call"])
        self.assertEqual({r["run"] for r in log}, {log[0]["run"]})
        # Once the log holds a run, a new server refuses to start on it.
        status, out, err = run_cli("serve", "--as-of", T, "--events", str(events))
        self.assertEqual((status, out), (2, ""))
        self.assertIn("already holds a run", err)
        self.assertEqual(len(err.splitlines()), 1)


class ShadowingTest(unittest.TestCase):
    def test_the_adapter_named_mcp_builds_on_the_sdk_not_on_itself(self):
        import mcp

        import anachron.mcp._server as glue

        self.assertNotIn(ROOT / "anachron", Path(mcp.__file__).resolve().parents)
        self.assertEqual(glue.Server.__module__, "mcp.server.lowlevel.server")


class StartupRefusalTest(unittest.TestCase):
    """Bad arguments stop `serve` before it serves: exit 2, one line on stderr, nothing on stdout.

    All cases run in one child process with stdin at EOF, so a case that
    wrongly started serving would end at once instead of hanging the suite.
    """

    def test_bad_arguments(self):
        with tempfile.TemporaryDirectory() as tmp:
            full = Path(tmp) / "full.jsonl"
            full.write_text("{}\n", encoding="utf-8")
            ev = str(Path(tmp) / "e.jsonl")
            cases = {
                "log holds a run": (["--as-of", T, "--events", str(full)], "already holds a run"),
                "log is a directory": (["--as-of", T, "--events", tmp], "is a directory"),
                "bad date": (["--as-of", "2022-02-30", "--events", ev], "--as-of"),
                "no date": (["--events", ev], "--as-of"),
                "k zero": (["--as-of", T, "--events", ev, "-k", "0"], "-k"),
                "negative budget": (["--as-of", T, "--events", ev, "--max-calls", "-1"], "--max-calls"),
                "bad http": (["--as-of", T, "--events", ev, "--http", "localhost:http"], "--http"),
                "not http upstream": (["--as-of", T, "--events", ev, "--upstream", "ftp://x"], "--upstream"),
                "zero timeout": (["--as-of", T, "--events", ev, "--upstream", "http://x", "--upstream-timeout", "0"],
                                 "--upstream-timeout"),
                "two backends": (["--as-of", T, "--events", ev, "--corpus", tmp, "--upstream", "http://x"], "not allowed"),
                "missing corpus": (["--as-of", T, "--events", ev, "--corpus", str(Path(tmp) / "none")], "not a corpus directory"),
                "corpus without items": (["--as-of", T, "--events", ev, "--corpus", tmp], "items.jsonl"),
            }
            code = (
                "import contextlib, io, json, sys\n"
                "from anachron.cli import main\n"
                "out = {}\n"
                "for name, argv in json.loads(sys.argv[1]).items():\n"
                "    o, e = io.StringIO(), io.StringIO()\n"
                "    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):\n"
                "        try:\n"
                "            status = main(['serve', *argv])\n"
                "        except SystemExit as exc:\n"
                "            status = exc.code\n"
                "    out[name] = [status, o.getvalue(), e.getvalue()]\n"
                "print(json.dumps(out))\n"
            )
            run = subprocess.run(
                [sys.executable, "-c", code, json.dumps({k: v[0] for k, v in cases.items()})],
                cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT,
            )
            self.assertEqual(run.returncode, 0, run.stderr)
            results = json.loads(run.stdout)
            for name, (_, fragment) in cases.items():
                with self.subTest(name):
                    status, out, err = results[name]
                    self.assertEqual((status, out), (2, ""), err)
                    self.assertEqual(len(err.splitlines()), 1, err)
                    self.assertIn(fragment, err)
            self.assertEqual(full.read_text(encoding="utf-8"), "{}\n")  # a refused start leaves the old log alone


if __name__ == "__main__":
    unittest.main()
