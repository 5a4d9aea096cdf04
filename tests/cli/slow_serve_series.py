"""The slow tests beside test_serve_series.py: the series tool through a real ``anachron serve`` and the mcp client,
from a vintage file and from a loopback stub of the ALFRED API (``--series alfred=URL``).

They start processes and servers, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

import datetime as dt
import json
import shutil
import tempfile
import threading
import time
import unittest
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.mcp_support import TIMEOUT, read_log, stdio_client, text_of
from tests.support import ROOT, require_extra, run_cli
from tests.timelock.test_series import GDP, T

KEY = "test-key-not-logged"


class StubAlfred:
    """A loopback ALFRED: ``/fred/series/observations`` and ``/fred/series/vintagedates`` for GDPC1, in the API's
    JSON shapes.  It is careless on purpose: whatever realtime period is asked, it sends every vintage,
    later ones included (the lock must not serve them).  Any other series: ALFRED's HTTP 400."""

    def __init__(self):
        self.requests = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                stub.requests.append((url.path, query))
                if url.path.startswith("/slow/"):  # a slow drip: headers, then a byte now and then
                    self.send_response(200)
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    for _ in range(50):
                        try:
                            self.wfile.write(b" ")
                            self.wfile.flush()
                        except OSError:
                            return None
                        time.sleep(0.1)
                    return None
                if url.path.startswith("/moved/"):
                    self.send_response(302)
                    self.send_header("Location", stub.url + url.path[len("/moved"):] + "?" + url.query)
                    self.send_header("Content-Length", "0")
                    return self.end_headers()
                if query.get("series_id") != "GDPC1":
                    return self.send(400, {"error_code": 400, "error_message": "Bad Request.  The series does not exist."})
                if url.path == "/fred/series/observations":
                    return self.send(200, {**GDP, "realtime_start": query.get("realtime_start"), "realtime_end": query.get("realtime_end")})
                if url.path == "/fred/series/vintagedates":
                    return self.send(200, {"realtime_start": query.get("realtime_start"), "realtime_end": query.get("realtime_end"),
                                           "count": 5, "vintage_dates": ["2019-10-30", "2020-01-30", "2020-04-29", "2020-05-28", "2020-06-25"]})
                self.send(404, {"error_code": 404, "error_message": "Not Found"})

            def send(self, code, document):
                payload = json.dumps(document).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=TIMEOUT)


class ServedSeriesTest(unittest.TestCase):
    def setUp(self):
        require_extra("mcp", "mcp")
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)

    def serve(self, series, calls, env=None):
        import anyio

        events = self.tmp / "events.jsonl"
        args = ["--as-of", T.isoformat(), "--events", str(events), "--series", series]

        async def run():
            async with stdio_client(args, errlog=self.tmp / "stderr.txt", env={"PYTHONPATH": str(ROOT), **(env or {})}) as client:
                tools = await client.list_tools()
                return tools, [await client.call_tool("series", arguments) for arguments in calls]

        tools, results = anyio.run(run)
        return tools, results, events

    def test_a_vintage_file_serves_the_series_as_known_at_the_cutoff_and_logs_it(self):
        path = self.tmp / "vintages.json"
        path.write_text(json.dumps({"GDPC1": GDP}), encoding="utf-8")
        tools, [served, smuggled], events = self.serve(str(path), [{"id": "GDPC1"}, {"id": "GDPC1", "as_of": "2030-01-01"}])
        [tool] = [t for t in tools.tools if t.name == "series"]
        self.assertEqual(tool.input_schema["required"], ["id"])
        self.assertFalse(tool.input_schema["additionalProperties"])
        self.assertFalse(served.is_error)
        self.assertEqual(text_of(served).split("\n\n")[0].split("\n"), [
            "series #1: GDPC1, vintage 2020-05-28, 3 observations", "2019-07-01: missing (published 2019-10-30)",
            "2019-10-01: 19202.3 (published 2020-01-30)", "2020-01-01: 19011.8 (published 2020-05-28)"])
        self.assertTrue(smuggled.is_error)
        log = read_log(events)
        self.assertEqual(log[0]["series"], f"file {path}")
        self.assertEqual([(r["status"], (r.get("series") or {}).get("vintage")) for r in log[1:]], [("ok", "2020-05-28"), ("refused", None)])
        status, out, _ = run_cli("score-events", str(events), "--as-of", T.isoformat(), "--format", "json")
        [sample] = json.loads(out)["samples"]
        self.assertEqual((status, sample["interactions"], sample["restatement_leaks"], sample["result_leaks"]), (0, 1, 0, 0))

    def test_the_alfred_api_is_asked_for_the_vintage_of_the_cutoff_and_its_answer_rechecked(self):
        with StubAlfred() as stub:
            _, [served, unknown], events = self.serve(f"alfred={stub.url}", [{"id": "gdpc1"}, {"id": "NOPE"}], env={"FRED_API_KEY": KEY})
        observations = [(path, query) for path, query in stub.requests if path == "/fred/series/observations"]
        self.assertEqual(observations[0][1], {"series_id": "GDPC1", "realtime_start": "2020-06-01", "realtime_end": "2020-06-01",
                                              "output_type": "1", "api_key": KEY, "file_type": "json"})
        vintages = [query for path, query in stub.requests if path == "/fred/series/vintagedates"]
        self.assertEqual((vintages[0]["realtime_end"], vintages[0]["api_key"]), ("2020-06-01", KEY))
        # The stub sent every vintage: only the values known at T are served, and the vintage is the last listed on or before T.
        self.assertEqual(served.structured_content["series"], {"id": "GDPC1", "vintage": "2020-05-28", "observations": [
            {"date": "2019-07-01", "value": None, "published": "2019-10-30"},
            {"date": "2019-10-01", "value": "19202.3", "published": "2020-01-30"},
            {"date": "2020-01-01", "value": "19011.8", "published": "2020-05-28"}]})
        self.assertTrue(unknown.is_error)
        self.assertIn("No series 'NOPE' is available.", text_of(unknown))
        text = events.read_text(encoding="utf-8")
        self.assertNotIn(KEY, text)  # the key is never logged
        log = read_log(events)
        self.assertEqual(log[0]["series"], f"alfred {stub.url}")
        self.assertEqual(log[1]["series"]["not_served"], 4)

    def test_the_unrestricted_baseline_asks_for_every_vintage_and_serves_todays_values(self):
        from anachron.timelock.series import AlfredSource, select_at

        with StubAlfred() as stub:
            source = AlfredSource(KEY, url=stub.url)
            served = select_at(source.rows("GDPC1", as_of=T, mode="unrestricted"), T, "unrestricted")
            broken = AlfredSource(KEY, url=stub.url + "/nowhere")
            from anachron.timelock.backends import UpstreamError

            with self.assertRaisesRegex(UpstreamError, r"^ALFRED /fred/series/observations answered HTTP 404$"):
                broken.rows("GDPC1", as_of=T, mode="enforced")
            with self.assertRaisesRegex(UpstreamError, r"^ALFRED /fred/series/observations took longer than 1 s$"):
                AlfredSource(KEY, url=stub.url + "/slow", timeout=1).rows("GDPC1", as_of=T, mode="enforced")  # cut at the deadline
            with self.assertRaisesRegex(UpstreamError, r"^ALFRED /fred/series/observations answered HTTP 302$"):
                AlfredSource(KEY, url=stub.url + "/moved").rows("GDPC1", as_of=T, mode="enforced")  # a redirect is not followed
        self.assertEqual(stub.requests[0][1]["realtime_start"], "1776-07-04")
        self.assertEqual(stub.requests[0][1]["realtime_end"], "9999-12-31")
        self.assertEqual([o.value for o in served.observations], [None, "19221.970", "18952.0", "17282.2"])
        self.assertEqual(served.vintage, dt.date(2020, 7, 30))


if __name__ == "__main__":
    unittest.main()
