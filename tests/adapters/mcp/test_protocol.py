"""Malformed JSON-RPC: every class is answered with its error code, logged, and the lock carries on.

Real server processes, raw bytes: over stdio each message is one line on
the server's stdin and the answer one line of its stdout; over HTTP each is
the body of one POST to /mcp.  After every malformed message a valid
``tools/call`` must still be answered.  Every read has a deadline of a few
seconds, so a server that answers nothing fails the test instead of hanging
it.
"""

import http.client
import json
import os
import select
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from tests.mcp_support import http_server, read_log, serve_command
from tests.support import ROOT, require_extra

T = "2022-06-01"
WAIT = 5  # seconds for any one answer
STARTUP = 30  # seconds for the first answer: the server loads the SDK and the corpus first (2 shared cores)

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
MAX_MESSAGE = 1 << 18  # bytes (docs/mcp.md)


def setUpModule():
    require_extra("mcp", "mcp")


def call(ident, name="search", arguments=None, **extra):
    message = {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
               "params": {"name": name, "arguments": {"query": "cygnus"} if arguments is None else arguments}}
    message.update(extra)
    return json.dumps(message).encode()


def padded(ident, size):
    """A ping of exactly *size* bytes."""
    frame = b'{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"p":"%s"}}'
    return frame % (ident, b"x" * (size - len(frame % (ident, b""))))


def nested(depth):
    return b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":' + b"[" * depth + b"]" * depth + b"}}}"


# (name, bytes, expected code, expected id in the answer)
MALFORMED = [
    ("lone surrogate in the query", call(11, arguments={"query": "\ud800"}), INVALID_REQUEST, 11),
    ("lone low surrogate in the query", call(12, arguments={"query": "a\udc00b"}), INVALID_REQUEST, 12),
    ("reversed surrogate pair in the query", call(13, arguments={"query": "\udc00\ud800"}), INVALID_REQUEST, 13),
    ("lone surrogate in the tool name", call(14, name="sea\ud800rch"), INVALID_REQUEST, 14),
    ("lone surrogate in a key", call(15, arguments={"qu\ud800ery": "cygnus"}), INVALID_REQUEST, 15),
    ("lone surrogate in a fetch id", call(16, name="fetch", arguments={"id_or_url": "fin-\udbff"}), INVALID_REQUEST, 16),
    ("lone surrogate in the method", json.dumps({"jsonrpc": "2.0", "id": 17, "method": "tools/\ud800"}).encode(), INVALID_REQUEST, 17),
    ("lone surrogate in the id", call("\ud800"), INVALID_REQUEST, None),
    ("nesting 1,001 deep", nested(1001), PARSE_ERROR, None),
    ("nesting 100,000 deep", b"[" * 100_000, PARSE_ERROR, None),
    ("nesting one past the limit", nested(64), PARSE_ERROR, None),  # 64 brackets + 3 objects around them
    ("a 4,301-digit id", b'{"jsonrpc":"2.0","id":' + b"9" * 4301 + b',"method":"ping"}', PARSE_ERROR, None),
    ("a 4,301-digit argument", call(21, arguments={"query": 0}).replace(b"0}", b"7" * 4301 + b"}"), PARSE_ERROR, None),
    ("a 21-digit integer", b'{"jsonrpc":"2.0","id":' + b"1" * 21 + b',"method":"ping"}', PARSE_ERROR, None),
    ("a number beyond float", call(22, arguments={"query": 0}).replace(b"0}", b"1e400}"), PARSE_ERROR, None),
    ("NaN", call(23, arguments={"query": 0}).replace(b"0}", b"NaN}"), PARSE_ERROR, None),
    ("a repeated key", b'{"jsonrpc":"2.0","id":24,"id":25,"method":"ping"}', PARSE_ERROR, None),
    ("params as a list", b'{"jsonrpc":"2.0","id":31,"method":"tools/call","params":["search",{"query":"x"}]}', INVALID_PARAMS, 31),
    ("params as a string", b'{"jsonrpc":"2.0","id":32,"method":"tools/call","params":"search"}', INVALID_PARAMS, 32),
    ("params as a list on a notification", b'{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}', INVALID_REQUEST, None),
    ("a float id", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', INVALID_REQUEST, None),
    ("an integral float id", b'{"jsonrpc":"2.0","id":1.0,"method":"ping"}', INVALID_REQUEST, None),
    ("an id of 2**53", b'{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}', INVALID_REQUEST, None),
    ("an id of -2**63", b'{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}', INVALID_REQUEST, None),
    ("a boolean id", b'{"jsonrpc":"2.0","id":true,"method":"ping"}', INVALID_REQUEST, None),
    ("an object id", b'{"jsonrpc":"2.0","id":{},"method":"ping"}', INVALID_REQUEST, None),
    ("no jsonrpc", b'{"id":41,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}', INVALID_REQUEST, 41),
    ('jsonrpc "1.0"', b'{"jsonrpc":"1.0","id":42,"method":"ping"}', INVALID_REQUEST, 42),
    ("jsonrpc 2.0 as a number", b'{"jsonrpc":2.0,"id":43,"method":"ping"}', INVALID_REQUEST, 43),
    ("a batch", b'[' + call(51) + b',' + call(52) + b']', INVALID_REQUEST, None),
    ("an empty batch", b"[]", INVALID_REQUEST, None),
    ("a JSON scalar", b"42", INVALID_REQUEST, None),
    ("a method that is not a string", b'{"jsonrpc":"2.0","id":53,"method":7}', INVALID_REQUEST, 53),
    ("neither a request nor a response", b'{"jsonrpc":"2.0","id":54}', INVALID_REQUEST, 54),
    ("text that is not JSON", b"hello, server", PARSE_ERROR, None),
    ("truncated", call(61)[:40], PARSE_ERROR, None),
    ("two JSON values", call(62) + b" " + call(63), PARSE_ERROR, None),
    ("bytes that are not UTF-8", b'{"jsonrpc":"2.0","id":64,"method":"ping","x":"\xff\xfe"}', PARSE_ERROR, None),
    ("a UTF-8 encoded surrogate", b'{"jsonrpc":"2.0","id":65,"method":"ping","x":"\xed\xa0\x80"}', PARSE_ERROR, None),
    ("larger than 256 KiB", call(66, arguments={"query": "x" * MAX_MESSAGE}), PARSE_ERROR, None),
]

INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 0, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}).encode()
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


class Stdio:
    """``anachron serve`` over stdio, spoken to in raw lines; every read has a deadline."""

    def __init__(self, events: Path) -> None:
        self.process = subprocess.Popen(
            serve_command("--as-of", T, "--events", str(events)),
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        self.buffer = b""

    def send(self, data: bytes) -> None:
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def answer(self, wait: float = WAIT) -> dict:
        deadline = time.monotonic() + wait
        fd = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise AssertionError(f"no answer within {wait} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise AssertionError("the server closed stdout")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def answer_to(self, data: bytes) -> dict:
        self.send(data)
        return self.answer()

    def close(self) -> int:
        self.process.stdin.close()
        try:
            return self.process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=WAIT)
            raise AssertionError("the server did not stop at the end of its input") from None
        finally:
            self.process.stdout.close()


class ServerLog:
    """A fresh event-log path per test class, removed afterwards."""

    @classmethod
    def new_log(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        return Path(cls._tmp.name) / "events.jsonl"

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()


class StdioMalformedTest(ServerLog, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.events = cls.new_log()
        server = Stdio(cls.events)
        try:
            server.send(INITIALIZE)
            cls.initialized = server.answer(STARTUP)
            server.send(INITIALIZED)
            cls.answers = []
            for n, (name, data, _, _) in enumerate(MALFORMED):
                server.send(data)
                refused = server.answer()
                server.send(call(1000 + n))
                cls.answers.append((name, refused, server.answer()))
            # The boundaries, answered by the lock itself (a tool error, never a protocol error).
            server.send(nested(61).replace(b'"id":1', b'"id":2000'))
            cls.deepest = server.answer()
            # The largest message allowed, exactly MAX_MESSAGE bytes before its newline.
            cls.largest = server.answer_to(padded(3000, MAX_MESSAGE))
            cls.too_large = server.answer_to(padded(3001, MAX_MESSAGE + 1))
        finally:
            cls.exit = server.close()
        cls.log = read_log(cls.events)

    def test_every_malformed_message_gets_its_error_and_the_next_call_works(self):
        self.assertEqual(self.initialized["id"], 0)
        self.assertIn("result", self.initialized)
        self.assertEqual(len(self.answers), len(MALFORMED))
        for n, ((name, _, code, ident), (_, refused, after)) in enumerate(zip(MALFORMED, self.answers)):
            with self.subTest(name):
                self.assertEqual(set(refused), {"jsonrpc", "id", "error"})
                self.assertEqual(refused["error"]["code"], code)
                self.assertEqual(refused["id"], ident)
                self.assertIs(after["result"]["isError"], False)
                self.assertEqual(after["id"], 1000 + n)

    def test_the_deepest_message_allowed_reaches_the_lock_which_refuses_its_argument(self):
        self.assertEqual(self.deepest["id"], 2000)
        self.assertIs(self.deepest["result"]["isError"], True)

    def test_a_message_of_the_largest_size_is_served_and_one_byte_more_refused(self):
        self.assertEqual(self.largest, {"jsonrpc": "2.0", "id": 3000, "result": {}})
        self.assertEqual(self.too_large["id"], None)
        self.assertEqual(self.too_large["error"]["code"], PARSE_ERROR)

    def test_every_refusal_is_a_protocol_error_record_between_the_calls(self):
        from anachron.timelock import load_events

        refusals = [r for r in self.log if r["event"] == "protocol_error"][: len(MALFORMED)]
        self.assertEqual([r["code"] for r in refusals], [code for _, _, code, _ in MALFORMED])
        self.assertEqual([r["id"] for r in refusals], [ident for _, _, _, ident in MALFORMED])
        # A message is read up to one byte past the limit: enough to refuse it, never more.
        self.assertEqual([r["bytes"] for r in refusals], [min(len(data), MAX_MESSAGE + 1) for _, data, _, _ in MALFORMED])
        self.assertEqual({r["transport"] for r in refusals}, {"stdio"})
        run = self.log[0]["run"]
        self.assertTrue(all(r["run"] == run for r in refusals))
        # Alternating: a refusal, then the call that followed it.
        self.assertEqual([r["event"] for r in self.log[1:]], ["protocol_error", "call"] * len(MALFORMED) + ["call", "protocol_error"])
        log = load_events(self.events)
        self.assertEqual(len(log.protocol_errors), len(MALFORMED) + 1)
        self.assertEqual(log.protocol_errors[-1]["bytes"], MAX_MESSAGE + 1)
        self.assertEqual([c.seq for c in log.calls], list(range(1, len(MALFORMED) + 2)))

    def test_the_server_stops_cleanly_at_the_end_of_its_input(self):
        self.assertEqual(self.exit, 0)


class StdioLastLineTest(unittest.TestCase):
    def test_a_last_line_cut_short_by_the_end_of_input_is_answered_before_the_server_stops(self):
        with tempfile.TemporaryDirectory() as tmp:
            events = Path(tmp) / "events.jsonl"
            server = Stdio(events)
            try:
                server.send(INITIALIZE)
                self.assertEqual(server.answer(STARTUP)["id"], 0)
                server.send(INITIALIZED)
                server.process.stdin.write(call(7)[:30])  # no newline: the input ends mid-message
                server.process.stdin.close()
                answer = server.answer()
            finally:
                self.assertEqual(server.close(), 0)
            self.assertEqual(answer, {"jsonrpc": "2.0", "id": None, "error": {
                "code": PARSE_ERROR, "message": "Parse error: not JSON (Unterminated string starting at character 28)"}})
            self.assertEqual([r["event"] for r in read_log(events)], ["start", "protocol_error"])


class EventLogProtocolErrorTest(unittest.TestCase):
    """The reader keeps protocol_error records apart from calls, and checks their run and code."""

    def records(self, *extra):
        from anachron.timelock.events import protocol_error_record, start_record

        start = start_record(run="r1", time="t", as_of=__import__("datetime").date(2022, 6, 1), mode="enforced",
                             backend="corpus", source="c", k=5, allow_undated=False,
                             limits={"searches": None, "fetches": None, "calls": None},
                             date_presentation="visible", server="anachron")
        refused = protocol_error_record(run="r1", time="t", transport="stdio", code=-32700, error="Parse error",
                                        request_id=None, raw=b"{")
        return [(f"events:{n + 1}", r) for n, r in enumerate([start, refused, *extra])]

    def test_kept_apart_from_the_calls(self):
        from anachron.timelock import parse_events

        log = parse_events(self.records())
        self.assertEqual(log.calls, ())
        self.assertEqual([(r["code"], r["bytes"], r["id"]) for r in log.protocol_errors], [(-32700, 1, None)])

    def test_another_run_or_a_code_that_is_no_integer_is_an_error(self):
        from anachron.core.errors import AnachronError
        from anachron.timelock import parse_events

        for bad, message in (({"run": "r2"}, "events:3: field 'run'"), ({"code": "-32700"}, "events:3: field 'code'"),
                             ({"code": True}, "events:3: field 'code'"), ({"code": None}, "events:3: field 'code'")):
            with self.subTest(bad):
                record = dict(self.records()[1][1], **bad)
                with self.assertRaises(AnachronError) as caught:
                    parse_events(self.records(record))
                self.assertTrue(str(caught.exception).startswith(message), str(caught.exception))


class HttpMalformedTest(ServerLog, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.events = cls.new_log()
        cls.answers = []
        with http_server("--as-of", T, "--events", str(cls.events)) as (process, url, _):
            cls.port = int(url.split(":")[2].split("/")[0])
            status, headers, _ = cls.post(INITIALIZE, wait=STARTUP)
            cls.session = headers.get("mcp-session-id")
            cls.post(INITIALIZED, session=cls.session)
            for n, (name, data, _, _) in enumerate(MALFORMED):
                refused = cls.post(data, session=cls.session)
                cls.answers.append((name, refused, cls.post(call(1000 + n), session=cls.session)))
            # The SDK's header checks come first: a foreign page is refused as before, and logs nothing.
            cls.foreign = [
                cls.post(b"nope", headers={"Origin": "http://evil.example"}),
                cls.post(b"nope", headers={"Host": "evil.example"}),
                cls.post(b"nope", headers={"Content-Type": "text/plain"}),
            ]
            cls.alive = process.poll() is None
        cls.log = read_log(cls.events)

    @classmethod
    def post(cls, body, *, session=None, headers=(), wait=WAIT):
        connection = http.client.HTTPConnection("127.0.0.1", cls.port, timeout=wait)
        sent = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-06-18", "Host": f"127.0.0.1:{cls.port}"}
        if session:
            sent["Mcp-Session-Id"] = session
        sent.update(headers)
        try:
            connection.request("POST", "/mcp", body=body, headers=sent)
            response = connection.getresponse()
            payload = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, payload
        finally:
            connection.close()

    @staticmethod
    def message(payload: bytes) -> dict:
        """The JSON-RPC message of a JSON body or of an event stream's data line."""
        text = payload.decode()
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                return json.loads(line[5:])
        return json.loads(text)

    def test_every_malformed_body_gets_400_with_its_error_and_the_next_call_works(self):
        self.assertTrue(self.alive)
        for n, ((name, _, code, ident), (_, refused, after)) in enumerate(zip(MALFORMED, self.answers)):
            with self.subTest(name):
                status, headers, payload = refused
                self.assertEqual(status, 400)
                self.assertEqual(headers["content-type"], "application/json")
                answer = json.loads(payload)
                self.assertEqual(answer["error"]["code"], code)
                self.assertEqual(answer["id"], ident)
                self.assertEqual(after[0], 200)
                result = self.message(after[2])
                self.assertEqual(result["id"], 1000 + n)
                self.assertIs(result["result"]["isError"], False)

    def test_the_sdks_header_checks_come_first_and_log_nothing(self):
        self.assertEqual([(status, payload) for status, _, payload in self.foreign], [
            (403, b"Invalid Origin header"), (421, b"Invalid Host header"), (400, b"Invalid Content-Type header")])

    def test_every_refusal_is_logged(self):
        refusals = [r for r in self.log if r["event"] == "protocol_error"]
        self.assertEqual([r["code"] for r in refusals], [code for _, _, code, _ in MALFORMED])
        # A body is read up to one byte past the limit: enough to refuse it, never more.
        self.assertEqual([r["bytes"] for r in refusals], [min(len(data), MAX_MESSAGE + 1) for _, data, _, _ in MALFORMED])
        self.assertEqual({r["transport"] for r in refusals}, {"http"})


class CheckMessageBoundaryTest(unittest.TestCase):
    """The limits exactly: the last value allowed passes, the first past it is refused."""

    def setUp(self):
        require_extra("mcp", "mcp")
        from anachron.mcp import MAX_DEPTH, MAX_DIGITS, MAX_ID, MAX_MESSAGE, check_message

        self.check = check_message
        self.limits = MAX_DEPTH, MAX_DIGITS, MAX_ID, MAX_MESSAGE

    def ping(self, ident: bytes) -> bytes:
        return b'{"jsonrpc":"2.0","id":' + ident + b',"method":"ping"}'

    def test_limits(self):
        depth, digits, max_id, size = self.limits
        self.assertEqual((depth, digits, max_id, size), (64, 20, 2**53 - 1, MAX_MESSAGE))
        self.assertIsNone(self.check(nested(depth - 3)).code)
        self.assertEqual(self.check(nested(depth - 2)).code, PARSE_ERROR)
        self.assertIsNone(self.check(self.ping(str(max_id).encode())).code)
        self.assertIsNone(self.check(self.ping(str(-max_id).encode())).code)
        self.assertEqual(self.check(self.ping(str(max_id + 1).encode())).code, INVALID_REQUEST)
        self.assertEqual(self.check(self.ping(str(-max_id - 1).encode())).code, INVALID_REQUEST)
        count = b'{"jsonrpc":"2.0","method":"notifications/x","params":{"n":%s}}'
        self.assertIsNone(self.check(count % (b"9" * digits)).code)
        self.assertIsNone(self.check(count % (b"-" + b"9" * digits)).code)
        self.assertEqual(self.check(count % (b"9" * (digits + 1))).code, PARSE_ERROR)
        pad = b'{"jsonrpc":"2.0","method":"notifications/x","params":{"p":"%s"}}'
        frame = len(pad) - 2
        self.assertIsNone(self.check(pad % (b"x" * (size - frame))).code)
        self.assertEqual(self.check(pad % (b"x" * (size - frame + 1))).code, PARSE_ERROR)

    def test_brackets_inside_strings_are_no_nesting(self):
        self.assertIsNone(self.check(call(1, arguments={"query": "[" * 5000 + "\\\"{" * 100})).code)

    def test_a_valid_surrogate_pair_is_text(self):
        self.assertIsNone(self.check(call(1, arguments={"query": "\U0001f600"})).code)
        self.assertIsNone(self.check(b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"\\ud83d\\ude00"}').code)


if __name__ == "__main__":
    unittest.main()
