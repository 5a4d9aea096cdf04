"""The loopback stubs (tests.web_stubs) and our search backends, checked against the vendors' own SDKs.

Hand-written stubs share the blind spots of the backends they serve, so each is driven here by its
vendor's official Python client pointed at the stub, making the call our backend makes (a search with
the date filter; OpenReward's search and fetch with ``as_of``):

- the SDK must accept the stub's answer and parse it into its own types, with the fields our backend
  reads (Exa's ``publishedDate``, Tavily's ``published_date``, OpenReward's ``crawl_date`` and
  ``publish_date``) carrying the stub's values, which our backend reads too;
- the request the SDK sends must have the shape of our backend's request for the same call (the same
  keys, nested, and the same types), the same date filter and the same key header.

SDKs: exa-py 2.28.0 and tavily-python 0.8.5, from the ``test`` extra (they fail, not skip, under
``ANACHRON_REQUIRE_EXTRAS=1``).  openreward 0.1.167 is not in the extra: it pins ``sse-starlette==2.3.6``
while the ``mcp`` extra needs ``>=3.0.0``, so the two cannot be installed together; its check runs where
it is installed (``.ci/run`` installs it so; ``pip install --no-deps openreward==0.1.167`` is enough: only its web client,
``openreward/web_service.py``, standard library and aiohttp, is loaded) and is skipped elsewhere.

Brave Search, the Wayback Machine's CDX server and Common Crawl's index server publish no official
Python SDK: their stubs follow the services' documentation (docs/mcp.md), and there is nothing to
check them against here.

Slow: each test starts a loopback server.
"""

import asyncio
import datetime as dt
import importlib.util
import os
import sys
import unittest
import warnings

from anachron.timelock.web.services import ExaBackend, OpenRewardBackend, TavilyBackend
from anachron.timelock.web.transport import Transport

from tests import web_stubs
from tests.support import extras_required, require_extra

T = dt.date.fromisoformat(web_stubs.T)
END_OF_T = f"{web_stubs.T}T23:59:59.999Z"  # what ExaBackend sends: the last moment of T


def shape(value):
    """A JSON value's shape: its objects' keys, nested, and its leaves' types, not their values."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return type(value).__name__


class StubbedVendor(unittest.TestCase):
    vendor = ""
    backend = None  # our backend's class
    sdk_module = None  # the SDK's module, from the test extra

    def setUp(self):
        if self.sdk_module:
            require_extra(self.sdk_module, "test")
        self.stubs = web_stubs.WebStubs().__enter__()
        self.addCleanup(self.stubs.__exit__, None, None, None)

    def request_to(self, path):
        """(headers with lower-case names, body) of the last request the stub got on *path*."""
        found = [(headers, body) for sent, headers, body in self.stubs.requests if sent == f"/{self.vendor}{path}"]
        self.assertTrue(found, f"no request reached {self.vendor}{path}")
        headers, body = found[-1]
        return {name.lower(): value for name, value in headers.items()}, body

    def ours(self):
        return self.backend(self.stubs.url(self.vendor), transport=Transport(timeout=10), key=web_stubs.KEY)

    def our_search(self):
        return self.ours().search(web_stubs.QUERY, k=10, as_of=T, mode="enforced")

    def both_requests(self, path, sdk_call, our_call):
        """The requests on *path* of the SDK's call, then of ours: ((headers, body), (headers, body))."""
        sdk_call()
        sdk = self.request_to(path)
        our_call()
        return sdk, self.request_to(path)

    def assert_same_request(self, sdk, ours, header):
        """The SDK's request and ours for one call: the same shape, and the same key in *header*."""
        (sdk_headers, sdk_body), (our_headers, our_body) = sdk, ours
        self.assertEqual(shape(sdk_body), shape(our_body))
        self.assertEqual(sdk_body, our_body)  # the same date filter and the same values too
        self.assertEqual(sdk_headers.get(header), our_headers.get(header))
        self.assertIn(web_stubs.KEY, sdk_headers.get(header, ""))


class SearchesLikeTheSdk:
    """For a search-only vendor: our search request is the SDK's, filter and key header included."""

    key_header = ""

    def test_our_request_has_the_sdks_shape_and_date_filter(self):
        self.assert_same_request(*self.both_requests("/search", self.sdk_search, self.our_search), self.key_header)


class ExaSdkReadsTheStubAndSendsOurRequest(SearchesLikeTheSdk, StubbedVendor):
    vendor = "exa"
    backend = ExaBackend
    key_header = "x-api-key"
    sdk_module = "exa_py"

    def sdk_search(self):
        from exa_py import Exa

        client = Exa(api_key=web_stubs.KEY, base_url=self.stubs.url("exa"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # end_crawl_date is deprecated in the SDK; our backend still sends it
            return client.search(web_stubs.QUERY, num_results=10, end_published_date=END_OF_T, end_crawl_date=END_OF_T,
                                 contents={"text": {"max_characters": 2000}})

    def test_the_sdk_parses_the_stubs_results_with_the_published_dates_our_backend_reads(self):
        response = self.sdk_search()
        expected = web_stubs.exa_results()["results"]
        parsed = [(r.url, r.title, r.published_date, r.text) for r in response.results]
        self.assertEqual(parsed, [(r["url"], r["title"], r["publishedDate"], r["text"]) for r in expected])
        self.assertIn(None, [r.published_date for r in response.results])  # the undated trap stays undated
        hits = self.our_search()
        self.assertEqual({h.id: h.entry.get("publishedDate") for h in hits}, {r.url: r.published_date for r in response.results})


class TavilySdkReadsTheStubAndSendsOurRequest(SearchesLikeTheSdk, StubbedVendor):
    """tavily-python hands back the reply's JSON as a dict: its parsing is that it accepts the reply."""

    vendor = "tavily"
    backend = TavilyBackend
    key_header = "authorization"
    sdk_module = "tavily"

    def sdk_search(self):
        from tavily import TavilyClient

        client = TavilyClient(api_key=web_stubs.KEY, api_base_url=self.stubs.url("tavily"))
        return client.search(web_stubs.QUERY, topic="news", end_date=web_stubs.T, max_results=10)

    def test_the_sdk_accepts_the_stubs_results_with_the_published_dates_our_backend_reads(self):
        response = self.sdk_search()
        self.assertEqual(response["results"], web_stubs.tavily_results()["results"])
        dates = {r["url"]: r.get("published_date") for r in response["results"]}
        self.assertIn(None, dates.values())
        hits = self.our_search()
        self.assertEqual({h.id: h.entry.get("published_date") for h in hits}, dates)


def openreward_web_service():
    """openreward's backdated-web client, ``openreward/web_service.py``, loaded on its own.

    The package's ``__init__`` imports the whole SDK (google-genai, fastapi, grpc...); this module
    needs only the standard library and aiohttp.  Skipped where openreward is not installed (it is
    not in the ``test`` extra: see the module docstring); in CI, which installs it, a failure.
    """
    name = "_anachron_checked_openreward_web_service"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec("openreward")
    if spec is None or not spec.submodule_search_locations:
        if extras_required():  # .ci/run installs it
            raise AssertionError("openreward is not installed: pip install --no-deps openreward==0.1.167")
        raise unittest.SkipTest("openreward is not installed (not in the test extra: its sse-starlette==2.3.6 pin "
                                "conflicts with the mcp extra); pip install --no-deps openreward==0.1.167 to run this check")
    path = os.path.join(list(spec.submodule_search_locations)[0], "web_service.py")
    module_spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # its dataclasses look their module up while being defined
    module_spec.loader.exec_module(module)
    return module


class OpenRewardSdkReadsTheStubAndSendsOurRequest(StubbedVendor):
    vendor = "openreward"
    backend = OpenRewardBackend

    def setUp(self):
        self.web_service = openreward_web_service()
        super().setUp()

    def sdk(self, call, **arguments):
        ws = self.web_service
        base = self.stubs.url("openreward")
        config = ws.WebServiceConfig(api_key=web_stubs.KEY, fetch_url=f"{base}/fetch", search_url=f"{base}/search",
                                     skip_preflight=True)

        async def run():
            async with ws.WebServiceClient(config) as client:
                return await getattr(client, call)(**arguments)

        return asyncio.run(run())

    def test_the_sdk_accepts_the_stubs_hits_with_the_crawl_and_publish_dates_our_backend_reads(self):
        response = self.sdk("search", query=web_stubs.QUERY, as_of=web_stubs.T, k=10)
        self.assertEqual(response["hits"], web_stubs.openreward_hits())
        dates = {h["url"]: (h.get("crawl_date"), h.get("publish_date")) for h in response["hits"]}
        self.assertIn(("2022-09-01", "2022-05-03"), dates.values())  # the crawled-late trap reaches the SDK as sent
        hits = self.our_search()
        self.assertEqual({h.id: (h.entry.get("crawl_date"), h.entry.get("publish_date")) for h in hits}, dates)

    def test_the_sdk_parses_the_stubs_page_into_its_fetch_response_with_our_fields(self):
        page = self.sdk("fetch", url=web_stubs.HONEST, as_of=web_stubs.T)
        self.assertIsInstance(page, self.web_service.FetchResponse)
        [hit] = self.ours().fetch(web_stubs.HONEST, as_of=T, mode="enforced")
        self.assertEqual((page.url, page.text, page.title, page.redirect), (hit.id, hit.text, hit.title, None))
        self.assertEqual((page.crawl_date, page.publish_date), (hit.entry.get("crawl_date"), hit.entry.get("publish_date")))
        self.assertIsNotNone(page.crawl_date)

    def test_our_search_and_fetch_requests_have_the_sdks_shape_and_as_of(self):
        sdk_search = lambda: self.sdk("search", query=web_stubs.QUERY, as_of=web_stubs.T, k=10)  # noqa: E731
        sdk_fetch = lambda: self.sdk("fetch", url=web_stubs.HONEST, as_of=web_stubs.T)  # noqa: E731
        our_fetch = lambda: self.ours().fetch(web_stubs.HONEST, as_of=T, mode="enforced")  # noqa: E731
        for path, sdk_call, our_call in (("/search", sdk_search, self.our_search), ("/fetch", sdk_fetch, our_fetch)):
            with self.subTest(path=path):
                self.assert_same_request(*self.both_requests(path, sdk_call, our_call), "x-api-key")


if __name__ == "__main__":
    unittest.main()
