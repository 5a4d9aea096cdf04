"""The backend registry and its glue: a choice names a known backend serving that tool, at an http(s)
URL; a missing key is one error naming its variable (none is needed to replay); a backend whose module
is missing from the build is a clear error; the joined backend routes every fetch to the fetch
backend, so a page a publish-date filter found is read from the archive, and tags every item with the
backend that answered and its guarantee."""

import datetime as dt
import sys
import tempfile
import types
import unittest
import unittest.mock

from anachron.core.errors import AnachronError
from anachron.timelock import Hit, TimeLock, UpstreamBackend
from anachron.timelock.web import REGISTRY, BackendSpec, WebBackend, backend_class, open_backends, parse_choice
from anachron.timelock.web.services import ExaBackend

from tests import web_stubs
from tests.timelock.web.canned import Canned
from tests.timelock.web.test_services import Journal

T = dt.date(2022, 6, 1)
KEYS = {variable: "k" for variable in web_stubs.KEYS.values()}


class FakeArchive:
    """A capture backend as the archive modules define one: `name`, `guarantee`, `fetch`, a transport."""

    name = "fakearchive"
    guarantee = "capture"

    def __init__(self, url, *, transport=None, timeout=30.0):
        self.source, self.transport, self.asked = url, transport, []

    def fetch(self, ref, *, as_of, mode):
        self.asked.append(ref)
        return [Hit(ref, "captured", "as captured", (), {"url": ref, "crawl_date": "2022-05-20"})]


class NoTransportArchive(FakeArchive):
    name = "notransport"

    def __init__(self, url):
        super().__init__(url)


FAKES = types.ModuleType("tests_fake_archives")
FAKES.FakeArchive, FAKES.NoTransportArchive = FakeArchive, NoTransportArchive
FakeArchive.__module__ = NoTransportArchive.__module__ = FAKES.__name__


def with_fakes(test):
    specs = {
        "fakearchive": BackendSpec("fakearchive", "fetch", "capture", None, "http://archive.test", FAKES.__name__),
        "notransport": BackendSpec("notransport", "fetch", "capture", None, "http://archive.test", FAKES.__name__),
        "nowhere": BackendSpec("nowhere", "fetch", "capture", None, "http://x.test", "anachron.timelock.web.no_such_module"),
    }
    test = unittest.mock.patch.dict(sys.modules, {FAKES.__name__: FAKES})(test)
    return unittest.mock.patch.dict(REGISTRY, specs)(test)


class AChoiceIsAKnownBackendForThatTool(unittest.TestCase):
    def test_every_backend_of_the_issue_is_registered_with_its_tools_and_guarantee(self):
        table = {name: (spec.tools, spec.guarantee) for name, spec in REGISTRY.items()}
        self.assertEqual(table, {
            "corpus": ("both", "corpus"), "anachron": ("both", None), "openreward": ("both", "index"),
            "wayback": ("fetch", "capture"), "commoncrawl": ("fetch", "capture"),
            "exa": ("search", "claimed"), "tavily": ("search", "claimed"), "brave": ("search", "claimed"),
        })

    def test_bad_choices_are_refused_naming_the_option(self):
        for option, text, fragment in (
            ("--search", "bing", "unknown backend 'bing'"),
            ("--fetch", "exa", "serves search only"),
            ("--search", "wayback", "serves fetch only"),
            ("--search", "exa=", "nothing after '='"),
            ("--search", "exa=ftp://x", "not an http(s) URL"),
            ("--search", "anachron", "give anachron=URL"),
        ):
            with self.subTest(text=text):
                with self.assertRaises(AnachronError) as caught:
                    parse_choice(text, option)
                self.assertIn(fragment, str(caught.exception))
                self.assertIn(f"{option} {text}", str(caught.exception))

    def test_a_url_replaces_the_default_base(self):
        self.assertEqual(open_backends("exa=http://127.0.0.1:9/exa", None, environ=KEYS).source, "search exa http://127.0.0.1:9/exa")
        self.assertEqual(open_backends("exa", None, environ=KEYS).source, "search exa https://api.exa.ai")


class KeysComeFromTheEnvironment(unittest.TestCase):
    def test_a_missing_or_blank_key_names_its_variable(self):
        for vendor, variable in web_stubs.KEYS.items():
            for environ in ({}, {variable: "  "}):
                with self.subTest(vendor=vendor, environ=environ), self.assertRaises(AnachronError) as caught:
                    open_backends(vendor, None, environ=environ)
                self.assertIn(variable, str(caught.exception))

    def test_the_key_is_sent_and_a_replay_needs_none(self):
        made = open_backends("exa", None, environ={"EXA_API_KEY": " secret "})
        self.assertEqual(made._search.key, "secret")
        with tempfile.TemporaryDirectory() as store:
            self.assertIsInstance(open_backends("exa", None, environ={}, replay=store)._search, ExaBackend)


class TheBuildSaysWhatItLacks(unittest.TestCase):
    @with_fakes
    def test_a_backend_whose_module_is_missing_is_a_clear_error(self):
        with self.assertRaises(AnachronError) as caught:
            open_backends(None, "nowhere", environ={})
        self.assertIn("the nowhere backend is not in this build", str(caught.exception))

    @with_fakes
    def test_a_class_is_found_by_its_name_attribute(self):
        self.assertIs(backend_class(REGISTRY["fakearchive"]), FakeArchive)

    @with_fakes
    def test_a_backend_taking_no_transport_cannot_be_recorded(self):
        with tempfile.TemporaryDirectory() as store, self.assertRaises(AnachronError) as caught:
            open_backends(None, "notransport", environ={}, record=store)
        self.assertIn("cannot be recorded", str(caught.exception))
        self.assertEqual(open_backends(None, "notransport", environ={})._fetch.source, "http://archive.test")


class TheJoinedBackendRoutesAndTags(unittest.TestCase):
    @with_fakes
    def test_a_page_a_claimed_search_found_is_fetched_from_the_archive(self):
        joined = open_backends("exa=http://exa.test", "fakearchive", environ=KEYS)
        joined._search.transport = Canned()
        journal = Journal()
        lock = TimeLock(joined, T, journal, k=10)
        lock.call("search", {"query": web_stubs.QUERY})
        self.assertEqual(lock.call("fetch", {"id_or_url": web_stubs.HONEST}).status, "ok")
        self.assertEqual(joined._fetch.asked, [web_stubs.HONEST])
        [page] = journal.records[1]["returned"]
        self.assertEqual((page["backend"], page["guarantee"], page["text"]), ("fakearchive", "capture", "as captured"))
        self.assertEqual({i["guarantee"] for i in journal.records[0]["returned"]}, {"claimed"})

    def test_a_tool_without_a_backend_is_an_error_record_saying_which_option_serves_it(self):
        journal = Journal()
        lock = TimeLock(open_backends("exa=http://exa.test", None, environ=KEYS), T, journal)
        self.assertEqual(lock.call("fetch", {"id_or_url": web_stubs.HONEST}).status, "error")
        self.assertIn("--fetch", journal.records[0]["error"])
        lock = TimeLock(WebBackend(None, FakeArchive("http://a.test"), "fetch fakearchive"), T, journal)
        self.assertEqual(lock.call("search", {"query": "q"}).status, "error")
        self.assertIn("--search", journal.records[1]["error"])

    def test_one_backend_serving_both_tools_is_that_backend_as_with_upstream(self):
        made = open_backends("anachron=http://127.0.0.1:9", None, environ={})
        self.assertIsInstance(made, UpstreamBackend)
        self.assertEqual(made.kind, "upstream")
        self.assertEqual(open_backends("openreward", None, environ=KEYS).source,
                         "search openreward https://search.openreward.ai; fetch openreward https://search.openreward.ai")

    def test_record_and_replay_need_a_web_service(self):
        with tempfile.TemporaryDirectory() as store:
            with self.assertRaises(AnachronError):
                open_backends("corpus", None, environ={}, record=store)
            with self.assertRaises(AnachronError):
                open_backends("exa", None, environ=KEYS, record=store, replay=store)


if __name__ == "__main__":
    unittest.main()
