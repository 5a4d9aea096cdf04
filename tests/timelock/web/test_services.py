"""The search services' requests carry T in each vendor's own filter, their replies are read in each
vendor's shape, and whatever a service promised, the lock re-checks every result: a post-T result that
ignored the filter, a page whose date field is before T while its URL or text dates it after, an
OpenReward hit crawled after T and an undated result of a publish-date filter are all withheld; the
honest pre-T page is served; each item is logged with its backend and guarantee.  In process: the
transport is canned (tests.timelock.web.canned); the same world through a real server is
slow_services.py."""

import datetime as dt
import json
import unittest
import urllib.parse

from anachron.timelock import TimeLock
from anachron.timelock.web.services import BraveBackend, ExaBackend, OpenRewardBackend, TavilyBackend

from tests import web_stubs
from tests.timelock.web.canned import Canned

T = dt.date(2022, 6, 1)
BASES = {"exa": "http://exa.test", "tavily": "http://tavily.test", "brave": "http://brave.test", "openreward": "http://openreward.test"}
CLASSES = {"exa": ExaBackend, "tavily": TavilyBackend, "brave": BraveBackend, "openreward": OpenRewardBackend}


class Journal:
    def __init__(self):
        self.records = []

    def write(self, header, record):
        self.records.append(dict(record))


def backend(vendor, transport=None, key="k"):
    return CLASSES[vendor](BASES[vendor], transport=transport or Canned(), key=key)


def search(vendor, **options):
    transport = Canned()
    journal = Journal()
    TimeLock(backend(vendor, transport), T, journal, k=10, **options).call("search", {"query": web_stubs.QUERY})
    return journal.records[0], transport.requests[0]


class RequestsCarryTheCutoffInTheVendorsFilter(unittest.TestCase):
    def test_exa_sends_end_published_and_end_crawl_dates_at_the_end_of_t(self):
        _, request = search("exa")
        body = json.loads(request.body)
        self.assertEqual((request.method, request.url, request.headers["x-api-key"]), ("POST", "http://exa.test/search", "k"))
        self.assertEqual((body["endPublishedDate"], body["endCrawlDate"]), ("2022-06-01T23:59:59.999Z",) * 2)
        self.assertEqual((body["query"], body["numResults"]), (web_stubs.QUERY, 10))

    def test_tavily_sends_end_date_on_the_news_topic_with_a_bearer_key(self):
        _, request = search("tavily")
        body = json.loads(request.body)
        self.assertEqual((request.url, request.headers["Authorization"]), ("http://tavily.test/search", "Bearer k"))
        self.assertEqual((body["end_date"], body["topic"], body["max_results"]), ("2022-06-01", "news", 10))

    def test_brave_sends_a_freshness_range_ending_at_t_by_get(self):
        _, request = search("brave")
        url = urllib.parse.urlsplit(request.url)
        params = urllib.parse.parse_qs(url.query)
        self.assertEqual((request.method, url.path, request.headers["X-Subscription-Token"]), ("GET", "/res/v1/web/search", "k"))
        self.assertEqual((params["freshness"], params["q"], params["count"]), (["1990-01-01to2022-06-01"], [web_stubs.QUERY], ["10"]))

    def test_brave_asks_for_at_most_its_documented_twenty(self):
        transport = Canned()
        backend("brave", transport).search("q", k=50, as_of=T, mode="enforced")
        self.assertEqual(urllib.parse.parse_qs(urllib.parse.urlsplit(transport.requests[0].url).query)["count"], ["20"])

    def test_openreward_sends_as_of_to_search_and_fetch(self):
        _, request = search("openreward")
        self.assertEqual((request.url, request.headers["X-API-Key"]), ("http://openreward.test/search", "k"))
        self.assertEqual(json.loads(request.body)["as_of"], "2022-06-01")
        transport = Canned()
        backend("openreward", transport).fetch(web_stubs.HONEST, as_of=T, mode="enforced")
        self.assertEqual(json.loads(transport.requests[0].body), {"url": web_stubs.HONEST, "as_of": "2022-06-01"})

    def test_the_unrestricted_mode_sends_no_date_filter(self):
        for vendor in CLASSES:
            with self.subTest(vendor=vendor):
                transport = Canned()
                backend(vendor, transport).search("q", k=3, as_of=T, mode="unrestricted")
                sent = transport.requests[0].body.decode() if transport.requests[0].body else transport.requests[0].url
                for word in ("2022-06-01", "as_of", "end_date", "freshness", "endPublishedDate"):
                    self.assertNotIn(word, sent)


class EveryResultIsRecheckedWhateverTheServicePromised(unittest.TestCase):
    def test_only_the_honest_pre_t_page_is_served(self):
        for vendor in CLASSES:
            with self.subTest(vendor=vendor):
                record, _ = search(vendor)
                self.assertEqual(record["status"], "ok")
                self.assertEqual([item["id"] for item in record["returned"]], web_stubs.SERVED)

    def test_each_trap_is_withheld_by_the_source_that_dates_it_after_t(self):
        for vendor in CLASSES:
            with self.subTest(vendor=vendor):
                record, _ = search(vendor)
                withheld = {item["id"]: item for item in record["withheld"]}
                self.assertEqual(withheld[web_stubs.LATE]["reason"], "after-cutoff")  # the filter was ignored
                self.assertEqual(withheld[web_stubs.URL_LATE]["dated_by"], "url")  # its date field says May
                self.assertIn("statement", withheld[web_stubs.TEXT_LATE]["dated_by"])  # its text says August
                self.assertEqual(withheld[web_stubs.TEXT_LATE]["published"], "2022-08-20")
                self.assertIn(withheld[web_stubs.UNDATED]["reason"], ("undated", "unparseable-date"))

    def test_an_openreward_hit_crawled_after_t_is_withheld_though_published_before(self):
        record, _ = search("openreward")
        [late] = [item for item in record["withheld"] if item["id"] == web_stubs.CRAWLED_LATE]
        self.assertEqual((late["reason"], late["dated_by"], late["published"]), ("after-cutoff", "field 'crawl_date'", "2022-09-01"))
        journal = Journal()
        lock = TimeLock(backend("openreward"), T, journal)
        self.assertEqual(lock.call("fetch", {"id_or_url": web_stubs.CRAWLED_LATE}).status, "refused")
        self.assertEqual(lock.call("fetch", {"id_or_url": web_stubs.HONEST}).status, "ok")
        self.assertEqual(journal.records[1]["returned"][0]["text"], web_stubs.WORLD[0][3])

    def test_an_undated_result_of_a_claimed_backend_says_why_it_was_withheld(self):
        for vendor in ("exa", "tavily", "brave"):
            with self.subTest(vendor=vendor):
                record, _ = search(vendor)
                [undated] = [item for item in record["withheld"] if item["id"] == web_stubs.UNDATED]
                self.assertIn("`claimed` backend", undated["why"])
        record, _ = search("openreward")  # an index is no publish-date filter: no such word
        [undated] = [item for item in record["withheld"] if item["id"] == web_stubs.UNDATED]
        self.assertNotIn("why", undated)

    def test_allow_undated_serves_the_undated_result_marked_undated_and_nothing_after_t(self):
        record, _ = search("exa", allow_undated=True)
        shown = {item["id"]: item for item in record["returned"]}
        self.assertEqual(set(shown), {web_stubs.HONEST, web_stubs.UNDATED})
        self.assertIsNone(shown[web_stubs.UNDATED]["published"])

    def test_every_item_served_or_withheld_records_its_backend_and_guarantee(self):
        expected = {"exa": "claimed", "tavily": "claimed", "brave": "claimed", "openreward": "index"}
        for vendor, guarantee in expected.items():
            with self.subTest(vendor=vendor):
                record, _ = search(vendor)
                items = record["returned"] + record["withheld"]
                self.assertEqual({(i["backend"], i["guarantee"]) for i in items}, {(vendor, guarantee)})


class AFailingServiceIsAnErrorRecordNamingIt(unittest.TestCase):
    def call(self, vendor, transport):
        journal = Journal()
        outcome = TimeLock(backend(vendor, transport), T, journal).call("search", {"query": "q"})
        return outcome, journal.records[0]

    def test_an_unknown_shape_names_the_backend(self):
        for vendor in CLASSES:
            with self.subTest(vendor=vendor):
                outcome, record = self.call(vendor, Canned(body=b'{"unexpected": [1]}'))
                self.assertEqual((outcome.status, record["returned"]), ("error", []))
                self.assertIn(vendor, record["error"])
                self.assertIn("unknown shape", record["error"])

    def test_an_http_error_or_a_body_not_json_names_the_backend_and_the_cause(self):
        for vendor in CLASSES:
            with self.subTest(vendor=vendor):
                _, record = self.call(vendor, Canned(status=503))
                self.assertIn(f"{vendor} ", record["error"])
                self.assertIn("HTTP 503", record["error"])
                _, record = self.call(vendor, Canned(body=b"<html>"))
                self.assertIn("invalid JSON", record["error"])

    def test_a_search_only_service_refuses_to_fetch_pointing_at_an_archive(self):
        journal = Journal()
        outcome = TimeLock(backend("exa"), T, journal).call("fetch", {"id_or_url": web_stubs.HONEST})
        self.assertEqual(outcome.status, "error")
        self.assertIn("--fetch", journal.records[0]["error"])

    def test_a_forged_result_url_with_a_line_break_is_withheld_as_no_id(self):
        forged = {"results": [{"url": "https://x.example/a\nb", "title": "t", "publishedDate": "2022-05-01"}]}
        _, record = self.call("exa", Canned(body=json.dumps(forged).encode()))
        self.assertEqual([w["reason"] for w in record["withheld"]], ["no-id"])


if __name__ == "__main__":
    unittest.main()
