"""``--from otel``: an OTLP integer out of its range (an ``intValue`` beyond int64, a span time beyond
uint64, 5,000 digits that Python refuses to convert) is one line naming the file and the span, exit 2."""

import json
import tempfile
import unittest
from pathlib import Path

from tests.support import run_cli

INT64_MAX = (1 << 63) - 1


def log(directory, value, *, start="1000000000"):
    span = {"traceId": "aa", "spanId": "s1", "name": "chat", "startTimeUnixNano": start, "endTimeUnixNano": "2000000000",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                           {"key": "gen_ai.usage.input_tokens", "value": {"intValue": value}}]}
    path = Path(directory) / "log.json"
    path.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}), encoding="utf-8")
    return str(path)


class LongIntegerTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name

    def score(self, path):
        return run_cli("score", "--from", "otel", path, "--as-of", "2023-01-01", "--format", "json")

    def test_an_int_value_beyond_int64_is_one_line_naming_the_span(self):
        at = "resourceSpans[0] scopeSpans[0] spans[0] attributes[1] (gen_ai.usage.input_tokens)"
        for value, shown in (("9" * 5000, f"5000 characters ({'9' * 16}...{'9' * 16})"),
                             (str(INT64_MAX + 1), f"19 characters ({INT64_MAX + 1})"),
                             (str(-INT64_MAX - 2), f"20 characters ({-INT64_MAX - 2})")):
            with self.subTest(digits=len(value)):
                path = log(self.dir, value)
                self.assertEqual(self.score(path), (2, "", f"anachron: {path} {at}: intValue of {shown} is not an int64\n"))

    def test_int64_bounds_and_padding_are_read(self):
        for value in (str(INT64_MAX), str(-INT64_MAX - 1), "0" * 30 + "7", "-0"):
            with self.subTest(value=value):
                status, _, err = self.score(log(self.dir, value))
                self.assertEqual(status, 0, err)

    def test_a_span_time_beyond_uint64_is_one_line(self):
        path = log(self.dir, "5", start="9" * 5000)
        status, out, err = self.score(path)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, f"anachron: {path} resourceSpans[0] scopeSpans[0] spans[0]: startTimeUnixNano is the string"
                              f" '{'9' * 16}...{'9' * 16}', expected nanoseconds since the epoch (a decimal string)\n")
        status, _, err = self.score(log(self.dir, "5", start=str((1 << 64) - 1)))
        self.assertEqual(status, 0, err)
        status, _, err = self.score(log(self.dir, "5", start=str(1 << 64)))
        self.assertEqual(status, 2)
        self.assertIn("startTimeUnixNano is the string '18446744073709551616'", err)


if __name__ == "__main__":
    unittest.main()
