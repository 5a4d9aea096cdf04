"""The replay store: an exchange is addressed by its method, URL and body (never its headers, where
keys travel); a request the store lacks is an error naming it, never a live call; a broken record is
an error naming its file; an exchange that failed when recorded fails again.  (Recording through a
real service, then replaying with it stopped: slow_services.py.)"""

import base64
import contextlib
import json
import shutil
import socket
import tempfile
import threading
import unittest
from pathlib import Path
from unittest import mock

from anachron.core.errors import AnachronError
from anachron.timelock import UpstreamError
from anachron.timelock.web.transport import STORE_FORMAT, Replayer, Request, Transport, open_transport

URL = "http://exa.test/search"


def request(body=b'{"query": "q"}', **headers):
    return Request("POST", URL, "exa /search", body, headers)


class TheAddress(unittest.TestCase):
    def test_the_headers_and_so_the_keys_are_no_part_of_it(self):
        self.assertEqual(request(**{"x-api-key": "mine"}).digest(), request(**{"x-api-key": "yours"}).digest())

    def test_a_byte_range_is_part_of_it_as_one_warc_file_holds_many_records(self):
        ranged = Request("GET", URL, "x", None, {"Range": "bytes=0-99"})
        self.assertNotEqual(ranged.digest(), Request("GET", URL, "x", None, {"Range": "bytes=100-199"}).digest())
        self.assertEqual(ranged.digest(), Request("GET", URL, "x", None, {"range": "bytes=0-99", "X-Key": "k"}).digest())

    def test_a_key_sent_in_the_query_string_is_no_part_of_it_and_is_added_only_when_sent(self):
        url = "http://alfred.test/fred/series/observations?series_id=GDPC1"
        mine = Request("GET", url, "ALFRED", None, {}, {"api_key": "mine"})
        self.assertEqual(mine.digest(), Request("GET", url, "ALFRED", None, {}, {"api_key": "yours"}).digest())
        self.assertEqual(mine.digest(), Request("GET", url, "ALFRED").digest())
        self.assertEqual(mine.sent_url(), url + "&api_key=mine")
        self.assertEqual(Request("GET", "http://a.test/x", "x", None, {}, {"k": "a b"}).sent_url(), "http://a.test/x?k=a+b")

    def test_the_method_url_and_body_each_are(self):
        base = request().digest()
        self.assertNotEqual(base, request(b'{"query": "r"}').digest())
        self.assertNotEqual(base, Request("GET", URL, "x", b'{"query": "q"}').digest())
        self.assertNotEqual(base, Request("POST", URL + "x", "x", b'{"query": "q"}').digest())
        # Length-prefixed: moving a byte between the URL and the body moves the address.
        self.assertNotEqual(Request("POST", "http://a/b", "x", b"c").digest(), Request("POST", "http://a/", "x", b"bc").digest())


class TheReplay(unittest.TestCase):
    def setUp(self):
        self.store = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.store)

    def put(self, entry):
        (self.store / f"{request().digest()}.json").write_text(json.dumps(entry), encoding="utf-8")

    def test_a_recorded_exchange_is_answered_byte_for_byte(self):
        body = b'{"results": []}\xe2\x80\xa8'
        self.put({"format": STORE_FORMAT, "status": 200, "headers": {"content-type": "application/json"},
                  "response": base64.b64encode(body).decode()})
        reply = Replayer(self.store).send(request(**{"x-api-key": "another key"}))
        self.assertEqual((reply.status, reply.body, reply.headers["content-type"]), (200, body, "application/json"))

    def test_a_missing_request_is_an_error_naming_it(self):
        with self.assertRaises(UpstreamError) as caught:
            Replayer(self.store).send(request())
        self.assertIn(f"no recorded exchange for POST {URL}", str(caught.exception))
        self.assertIn(request().digest()[:16], str(caught.exception))

    def test_a_failure_recorded_replays_as_the_same_failure(self):
        self.put({"format": STORE_FORMAT, "error": "exa /search took longer than 30 s"})
        with self.assertRaises(UpstreamError) as caught:
            Replayer(self.store).send(request())
        self.assertEqual(str(caught.exception), "exa /search took longer than 30 s")

    def test_a_broken_record_is_an_error_naming_its_file(self):
        for broken in ("{", "[]", json.dumps({"format": "other"}), json.dumps({"format": STORE_FORMAT, "status": "200", "response": ""}),
                       json.dumps({"format": STORE_FORMAT, "status": 200, "response": "not base64!"})):
            with self.subTest(broken=broken):
                (self.store / f"{request().digest()}.json").write_text(broken, encoding="utf-8")
                with self.assertRaises(UpstreamError) as caught:
                    Replayer(self.store).send(request())
                self.assertIn(request().digest(), str(caught.exception))

    def test_a_store_that_is_no_directory_is_refused_at_start_up(self):
        with self.assertRaises(AnachronError):
            open_transport(timeout=1, replay=str(self.store / "absent"))
        with self.assertRaises(AnachronError):
            open_transport(timeout=float("nan"))


class TheDeadline(unittest.TestCase):
    def test_a_silent_service_is_too_slow_whichever_clock_notices_first(self):
        # The socket's own timeout equals the deadline; under load it can end the exchange before the
        # caller's join() returns.  Joining without a limit makes that order certain here.
        with socket.create_server(("127.0.0.1", 0)) as silent:
            url = "http://127.0.0.1:%d/search" % silent.getsockname()[1]
            join = threading.Thread.join
            for caller_first in (True, False):
                with self.subTest(caller_first=caller_first), self.assertRaises(UpstreamError) as caught:
                    patched = mock.patch.object(threading.Thread, "join", lambda worker, timeout=None: join(worker))
                    with (contextlib.nullcontext() if caller_first else patched):
                        Transport(timeout=0.2).send(Request("GET", url, "exa /search"))
                self.assertEqual(str(caught.exception), "exa /search took longer than 0.2 s")


if __name__ == "__main__":
    unittest.main()
