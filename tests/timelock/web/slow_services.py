"""The slow tests beside test_services.py and test_transport.py: the same traps through a real
``anachron serve`` process and the ``mcp`` client, against loopback stubs of the services in their
vendors' shapes (tests.web_stubs); then record, and replay with the stubs stopped: the same records.

They start servers and processes, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

import shutil
import tempfile
import unittest
from pathlib import Path

from tests import web_stubs
from tests.archive_stubs import ArchiveStub
from tests.mcp_support import read_log, stdio_client, text_of
from tests.support import ROOT, require_extra

VENDORS = ("exa", "tavily", "brave", "openreward")
GUARANTEE = {"exa": "claimed", "tavily": "claimed", "brave": "claimed", "openreward": "index"}


def comparable(record):
    """A call record without what differs between two runs of the same calls: times and the run's id."""
    return {key: value for key, value in record.items() if key not in ("time", "run")}


class ServedThroughTheRealServer(unittest.TestCase):
    def setUp(self):
        require_extra("mcp", "mcp")
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.env = {"PYTHONPATH": str(ROOT), **{variable: web_stubs.KEY for variable in web_stubs.KEYS.values()}}
        self.runs = 0

    def serve(self, options, calls, env=None):
        """Run *calls* ``(tool, arguments)`` through ``anachron serve --as-of T OPTIONS``: (results, log)."""
        import anyio

        self.runs += 1
        events = self.tmp / f"events-{self.runs}.jsonl"
        errlog = self.tmp / f"stderr-{self.runs}.txt"

        async def run():
            args = ["--as-of", web_stubs.T, "--events", str(events), "-k", "10", *options]
            async with stdio_client(args, errlog=errlog, env=env or self.env) as client:
                return [await client.call_tool(tool, arguments) for tool, arguments in calls]

        results = anyio.run(run)
        return results, read_log(events)

    def test_every_vendor_serves_only_the_honest_page_and_logs_each_trap_withheld_with_its_guarantee(self):
        with web_stubs.WebStubs() as stubs:
            for vendor in VENDORS:
                with self.subTest(vendor=vendor):
                    results, log = self.serve(["--search", f"{vendor}={stubs.url(vendor)}"], [("search", {"query": web_stubs.QUERY})])
                    [result] = results
                    self.assertEqual([r["id"] for r in result.structured_content["results"]], web_stubs.SERVED, text_of(result))
                    self.assertNotIn("beat", text_of(result))  # no post-T content reached the agent
                    start, call = log
                    self.assertEqual((start["backend"], start["source"]), ("web", f"search {vendor} {stubs.url(vendor)}")
                                     if vendor != "openreward" else ("web", f"search openreward {stubs.url(vendor)}; fetch openreward {stubs.url(vendor)}"))
                    withheld = {item["id"]: item for item in call["withheld"]}
                    self.assertEqual(withheld[web_stubs.LATE]["reason"], "after-cutoff")
                    self.assertEqual(withheld[web_stubs.URL_LATE]["dated_by"], "url")
                    self.assertEqual(withheld[web_stubs.TEXT_LATE]["published"], "2022-08-20")
                    self.assertIn(withheld[web_stubs.UNDATED]["reason"], ("undated", "unparseable-date"))
                    self.assertEqual("why" in withheld[web_stubs.UNDATED], GUARANTEE[vendor] == "claimed")
                    items = call["returned"] + call["withheld"]
                    self.assertEqual({(i["backend"], i["guarantee"]) for i in items}, {(vendor, GUARANTEE[vendor])})
            # Each request carried the vendor's key and T in the vendor's own filter.
            sent = {path.split("/")[1]: (headers, body, path) for path, headers, body in stubs.requests}
            self.assertEqual(sent["exa"][1]["endPublishedDate"], "2022-06-01T23:59:59.999Z")
            self.assertEqual(sent["tavily"][1]["end_date"], "2022-06-01")
            self.assertIn("freshness=1990-01-01to2022-06-01", sent["brave"][2])
            self.assertEqual(sent["openreward"][1]["as_of"], "2022-06-01")

    def test_an_openreward_page_crawled_after_t_is_refused_and_an_honest_one_read(self):
        with web_stubs.WebStubs() as stubs:
            results, log = self.serve(["--search", f"openreward={stubs.url('openreward')}"],
                                      [("fetch", {"id_or_url": web_stubs.CRAWLED_LATE}), ("fetch", {"id_or_url": web_stubs.HONEST})])
        late, honest = results
        self.assertTrue(late.is_error)
        self.assertNotIn("2022-09-01", text_of(late))
        self.assertEqual(log[1]["withheld"][0]["dated_by"], "field 'crawl_date'")
        self.assertIn(web_stubs.WORLD[0][3], text_of(honest))
        self.assertEqual((log[2]["returned"][0]["backend"], log[2]["returned"][0]["guarantee"]), ("openreward", "index"))

    def test_a_service_answering_out_of_shape_or_without_the_key_is_an_error_record_and_the_server_goes_on(self):
        with web_stubs.WebStubs() as stubs:
            results, log = self.serve(
                ["--search", f"exa={stubs.url('exa')}"],
                [("search", {"query": "garbage"}), ("search", {"query": web_stubs.QUERY})],
            )
            wrong_key = {**self.env, "EXA_API_KEY": "wrong"}
            _, refused = self.serve(["--search", f"exa={stubs.url('exa')}"], [("search", {"query": "q"})], env=wrong_key)
        self.assertEqual((log[1]["status"], log[2]["status"]), ("error", "ok"))
        self.assertIn("exa: expected a list of objects at results", log[1]["error"])
        self.assertEqual(refused[1]["error"], "exa /search answered HTTP 401")

    def test_recorded_then_replayed_with_the_services_stopped_the_records_are_the_same(self):
        store = self.tmp / "store"
        calls = [("search", {"query": web_stubs.QUERY}), ("fetch", {"id_or_url": web_stubs.HONEST}),
                 ("fetch", {"id_or_url": web_stubs.CRAWLED_LATE}), ("search", {"query": "garbage"})]
        with web_stubs.WebStubs() as stubs:
            options = ["--search", f"openreward={stubs.url('openreward')}"]
            recorded_results, recorded = self.serve([*options, "--record", str(store)], calls)
            brave = ["--search", f"brave={stubs.url('brave')}"]
            _, brave_recorded = self.serve([*brave, "--record", str(store)], calls[:1])
            asked = len(stubs.requests)
        self.assertEqual(len(list(store.glob("*.json"))), asked)
        for path in store.glob("*.json"):
            self.assertNotIn(web_stubs.KEY, path.read_text(encoding="utf-8"))  # no key is ever stored
        # The stubs are stopped: the replay has no network, and needs no key.
        replayed_results, replayed = self.serve([*options, "--replay", str(store)], calls, env={"PYTHONPATH": str(ROOT)})
        self.assertEqual([comparable(r) for r in replayed[1:]], [comparable(r) for r in recorded[1:]])
        self.assertEqual([text_of(r) for r in replayed_results], [text_of(r) for r in recorded_results])
        self.assertEqual(comparable(replayed[0]), comparable(recorded[0]))
        _, brave_replayed = self.serve([*brave, "--replay", str(store)], calls[:1], env={"PYTHONPATH": str(ROOT)})
        self.assertEqual(comparable(brave_replayed[1]), comparable(brave_recorded[1]))
        # A call the store does not hold is an error record naming the request, never a live call.
        _, missing = self.serve([*options, "--replay", str(store)], [("search", {"query": "never asked"})], env={"PYTHONPATH": str(ROOT)})
        self.assertEqual(missing[1]["status"], "error")
        self.assertIn(f"no recorded exchange for POST {stubs.url('openreward')}/search", missing[1]["error"])

    def test_a_page_a_claimed_search_found_is_read_from_the_archive_and_replayed_offline(self):
        store = self.tmp / "store"
        calls = [("search", {"query": web_stubs.QUERY}), ("fetch", {"id_or_url": "https://news.example/story"}),
                 ("fetch", {"id_or_url": "https://news.example/closest"}), ("fetch", {"id_or_url": web_stubs.HONEST})]
        with web_stubs.WebStubs() as stubs, ArchiveStub() as archive:
            options = ["--search", f"exa={stubs.url('exa')}", "--fetch", f"wayback={archive.url}"]
            results, recorded = self.serve([*options, "--record", str(store)], calls)
        self.assertEqual(recorded[0]["source"], f"search exa {stubs.url('exa')}; fetch wayback {archive.url}")
        search, story, closest, uncaptured = recorded[1:]
        self.assertEqual({(i["backend"], i["guarantee"]) for i in search["returned"] + search["withheld"]}, {("exa", "claimed")})
        # The page as captured before T (May), not as it is today (the June capture tells the result).
        [page] = story["returned"]
        self.assertEqual((page["backend"], page["guarantee"], page["published"]), ("wayback", "capture", "2022-05-20"))
        self.assertIn("Two candidates remain", text_of(results[1]))
        self.assertNotIn("Anna won", text_of(results[1]) + text_of(results[2]))
        # A redirect to a capture after T is not read: withheld, recorded as the archive's.
        self.assertEqual((closest["status"], closest["withheld"][0]["reason"]), ("refused", "after-cutoff"))
        self.assertEqual(closest["withheld"][0]["guarantee"], "capture")
        self.assertNotEqual(uncaptured["status"], "ok")  # never captured: nothing to read
        # Both services stopped: the replay answers every call from the store, the same records.
        _, replayed = self.serve([*options, "--replay", str(store)], calls, env={"PYTHONPATH": str(ROOT)})
        self.assertEqual([comparable(r) for r in replayed], [comparable(r) for r in recorded])


if __name__ == "__main__":
    unittest.main()
