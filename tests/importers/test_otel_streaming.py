"""``--from otel`` reads a JSON Lines log line by line, twice, never the whole file at once: the
same samples, in the same order, with the same bytes, and the same one-line errors as a log read
whole, however its traces are spread over the lines."""

import datetime as dt
import json
import random
import tempfile
import unittest
from pathlib import Path

from anachron.core.errors import AnachronError
from anachron.core.jsonio import dump_json
from anachron.importers import Options, import_logs

from tests.support import ROOT, run_cli

DATA = ROOT / "tests" / "data" / "importers"
OPTIONS = Options(as_of=dt.date(2023, 1, 1))
# Logs of chat spans, tool spans and traces joined into one sample, as the instrumentations wrote them.
LOGS = ("otel.json", "otel/openai-v2-content.json", "otel/openinference-langchain.json", "otel/traceloop-langchain.json",
        "otel/openinference-agents-content.json", "otel/pydantic-ai-v2-no-content.json")
SPAN = {"traceId": "a", "name": "execute_tool x", "startTimeUnixNano": "1",
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}]}


def out(path, options=OPTIONS):
    """Every (where, record) of the log, as the bytes ``anachron import`` writes."""
    return [(where, dump_json(record, indent=None)) for where, record in import_logs("otel", [str(path)], options)]


def one_span_documents(document):
    """Each span of an OTLP document as a document of its own (its resource and scope kept)."""
    return [{"resourceSpans": [{"resource": entry.get("resource", {}), "scopeSpans": [{"scope": scope.get("scope", {}), "spans": [span]}]}]}
            for entry in document["resourceSpans"] for scope in entry["scopeSpans"] for span in scope["spans"]]


def span(**changes):
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [dict(SPAN, **changes)]}]}]})


class StreamedLogs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, name, text):
        path = Path(self.tmp.name) / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
        return path

    def test_a_log_on_one_line_reads_as_the_document_it_holds(self):
        for log in LOGS:
            with self.subTest(log=log):
                document = json.loads((DATA / log).read_text(encoding="utf-8"))
                held = out(self.write("log.jsonl", json.dumps(document, indent=1)))  # over several lines: read whole
                self.assertTrue(held)
                self.assertEqual(out(self.write("log.jsonl", json.dumps(document) + "\n\n")), held)

    def test_spans_spread_over_lines_in_any_order_give_the_samples_of_the_spans_held_together(self):
        for log in LOGS:
            documents = one_span_documents(json.loads((DATA / log).read_text(encoding="utf-8")))
            for seed in (None, 1, 2):
                with self.subTest(log=log, seed=seed):
                    if seed is not None:
                        random.Random(seed).shuffle(documents)
                    lines = [json.dumps(d) for d in documents]
                    streamed = self.write("spread.jsonl", "\n".join(lines) + "\n")
                    # The same documents, one JSON array of resourceSpans: read whole.
                    held = self.write("held.json", json.dumps({"resourceSpans": [e for d in documents for e in d["resourceSpans"]]}))
                    expected = [record for _, record in out(held)]
                    self.assertEqual([record for _, record in out(streamed)], expected)

    def test_a_sample_is_named_where_its_first_span_is(self):
        path = self.write("two.jsonl", "\n".join([span(traceId="b"), span(traceId="a", startTimeUnixNano="5"),
                                                  span(traceId="a", startTimeUnixNano="2")]) + "\n")
        self.assertEqual([where for where, _ in out(path)], [f"{path}:1 resourceSpans[0] scopeSpans[0] spans[0]",
                                                           f"{path}:3 resourceSpans[0] scopeSpans[0] spans[0]"])

    def test_sample_ids_from_an_attribute_join_traces_on_different_lines(self):
        tagged = [{"key": "session.id", "value": {"stringValue": "s1"}}] + SPAN["attributes"]
        path = self.write("ids.jsonl", "\n".join([span(traceId="a", attributes=tagged), span(traceId="b"),
                                                  span(traceId="c", attributes=tagged)]) + "\n")
        with self.assertRaisesRegex(AnachronError, r":2 resourceSpans\[0\] scopeSpans\[0\] spans\[0\]: no span or resource of trace b"):
            out(path, Options(as_of=dt.date(2023, 1, 1), sample_id_from="session.id"))
        path = self.write("ids.jsonl", "\n".join([span(traceId="a", attributes=tagged), span(traceId="c", attributes=tagged)]) + "\n")
        samples = out(path, Options(as_of=dt.date(2023, 1, 1), sample_id_from="session.id"))
        self.assertEqual(len(samples), 1)
        self.assertEqual(len(json.loads(samples[0][1])["interactions"]), 2)

    def test_a_bad_line_is_the_error_named_by_its_line(self):
        path = self.write("bad.jsonl", span() + "\n{bad\n" + span() + "\n")
        with self.assertRaisesRegex(AnachronError, r"bad\.jsonl:2: invalid JSON"):
            out(path)
        path = self.write("dup.jsonl", span() + '\n{"a": 1, "a": 2}\n')
        with self.assertRaisesRegex(AnachronError, r"dup\.jsonl:2: invalid JSON: duplicate key 'a'"):
            out(path)
        path = self.write("nan.jsonl", span() + '\n{"a": NaN}\n')
        with self.assertRaisesRegex(AnachronError, r"nan\.jsonl:2: invalid JSON: NaN is not valid JSON"):
            out(path)

    def test_a_byte_that_is_not_utf8_is_the_error_wherever_it_is(self):
        path = self.write("bytes.jsonl", (span() + "\n{bad\n").encode() + b"\xff\n")
        with self.assertRaisesRegex(AnachronError, rf"bytes\.jsonl: not UTF-8 text \(byte {len(span()) + 6}\)"):
            out(path)

    def test_times_are_checked_after_every_line_is_read(self):
        path = self.write("time.jsonl", span(startTimeUnixNano="x") + "\n{bad\n")
        with self.assertRaisesRegex(AnachronError, r"time\.jsonl:2: invalid JSON"):
            out(path)
        path = self.write("time.jsonl", span(startTimeUnixNano="x") + "\n" + span(endTimeUnixNano=[1]) + "\n")
        with self.assertRaisesRegex(AnachronError, r"time\.jsonl:1 resourceSpans\[0\] scopeSpans\[0\] spans\[0\]: startTimeUnixNano is"):
            out(path)

    def test_a_log_without_a_span_or_without_a_line_is_refused(self):
        for text, message in (('{"resourceSpans": []}\n{"resourceSpans": []}\n', "no span in the log"),
                              ("\n  \n", "the log is empty"), ("\ufeff" + span() + "\n \t\n", None)):
            with self.subTest(text=text[:20]):
                path = self.write("log.jsonl", text)
                if message is None:
                    self.assertEqual(len(out(path)), 1)
                    continue
                with self.assertRaisesRegex(AnachronError, message):
                    out(path)

    def test_the_command_exits_2_with_one_line_naming_the_bad_line(self):
        path = self.write("bad.jsonl", span() + "\n" + span()[:-3] + "\n")
        with tempfile.TemporaryDirectory() as tmp:
            status, _, err = run_cli("import", "--from", "otel", str(path), "--as-of", "2023-01-01", "--out", str(Path(tmp) / "t.jsonl"))
            self.assertEqual(status, 2)
            self.assertEqual(len(err.strip().split("\n")), 1)
            self.assertIn("bad.jsonl:2: invalid JSON", err)
            self.assertFalse((Path(tmp) / "t.jsonl").exists())

    def test_a_sample_built_on_its_line_stands_only_when_the_rest_of_the_log_agrees(self):
        # The first reading builds a line's own traces' samples; a later line that adds a span to a trace,
        # or names the same sample, makes it built again: the records are those of the log read whole.
        tagged = [{"key": "session.id", "value": {"stringValue": "s1"}}] + SPAN["attributes"]
        lines = [span(traceId="a", attributes=tagged), span(traceId="b", startTimeUnixNano="3"),
                 span(traceId="c", attributes=tagged, startTimeUnixNano="2"), span(traceId="b", startTimeUnixNano="1"),
                 span(traceId="d", attributes=tagged)]
        whole = {"resourceSpans": [entry for line in lines for entry in json.loads(line)["resourceSpans"]]}
        for options in (OPTIONS, Options(as_of=dt.date(2023, 1, 1), sample_id_from="session.id")):
            with self.subTest(sample_id_from=options.sample_id_from):
                if options.sample_id_from is not None:  # trace b has no session.id: the error of the log read whole
                    lines = [line for line in lines if '"traceId": "b"' not in line]
                    whole["resourceSpans"] = [entry for line in lines for entry in json.loads(line)["resourceSpans"]]
                streamed = out(self.write("log.jsonl", "\n".join(lines) + "\n"), options)
                held = out(self.write("held.json", json.dumps(whole, indent=1)), options)
                self.assertEqual([record for _, record in streamed], [record for _, record in held])
                self.assertEqual(len(streamed), 4 if options.sample_id_from is None else 1)

    def test_a_sample_whose_record_is_an_error_fails_after_the_samples_before_it(self):
        nameless = [{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}}]
        path = self.write("log.jsonl", "\n".join([span(traceId="a"), span(traceId="b", name="", attributes=nameless),
                                                 span(traceId="c")]) + "\n")
        records = import_logs("otel", [str(path)], OPTIONS)
        self.assertEqual(next(records)[1]["sample_id"], "a")
        with self.assertRaisesRegex(AnachronError, r"log\.jsonl:2 resourceSpans\[0\] scopeSpans\[0\] spans\[0\]: a tool span needs"):
            next(records)

    def test_a_span_id_that_is_not_a_string_is_the_error_named_by_its_span(self):
        for value in ([1], {"a": 1}, 3):
            with self.subTest(value=value):
                path = self.write("log.jsonl", span() + "\n" + span(spanId=value) + "\n")
                with self.assertRaisesRegex(AnachronError, r"log\.jsonl:2 resourceSpans\[0\] scopeSpans\[0\] spans\[0\]: spanId is"):
                    out(path)
                held = self.write("held.json", json.dumps(json.loads(span(spanId=value)), indent=1))
                with self.assertRaisesRegex(AnachronError, r"held\.json resourceSpans\[0\] scopeSpans\[0\] spans\[0\]: spanId is"):
                    out(held)
        self.assertEqual(len(out(self.write("log.jsonl", span(spanId=None) + "\n" + span(spanId="b1") + "\n"))), 1)


if __name__ == "__main__":
    unittest.main()


class FastPaths(unittest.TestCase):
    """A span time and a string attribute are read on a fast path: the same values and errors as the checked one."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def read(self, **changes):
        path = Path(self.tmp.name) / "log.jsonl"
        path.write_text(span(**changes) + "\n" + span(traceId="b") + "\n", encoding="utf-8")
        return [record for _, record in import_logs("otel", [str(path)], OPTIONS)]

    def test_span_times_at_the_edges_of_uint64(self):
        for value, time in (("0", None), ("00000000000000000001", "1970-01-01T00:00:00+00:00"), ("1672531200000000000", "2023-01-01T00:00:00+00:00")):
            with self.subTest(value=value):
                self.assertEqual(self.read(startTimeUnixNano=value)[0]["interactions"][0].get("time"), time)
        for value in ("18446744073709551616", "١٢٣", "+1", " 1", "1" * 21):
            with self.subTest(value=value), self.assertRaisesRegex(AnachronError, r"log\.jsonl:1 .* startTimeUnixNano is"):
                self.read(startTimeUnixNano=value)

    def test_end_times_at_the_edges_of_uint64(self):
        # The end is read with the start: a bad one is the error, a 20-digit uint64 is a time.
        for value in ("18446744073709551615", "9999999999999999999", "0"):
            with self.subTest(value=value):
                self.assertEqual(len(self.read(endTimeUnixNano=value)), 2)
        for value in ("18446744073709551616", "١٢٣", "-1", "", "1" * 21):
            with self.subTest(value=value), self.assertRaisesRegex(AnachronError, r"log\.jsonl:1 .* endTimeUnixNano is"):
                self.read(endTimeUnixNano=value)

    def test_string_attributes_beside_every_other_kind_of_value(self):
        attributes = SPAN["attributes"] + [
            {"key": "gen_ai.tool.name", "value": {"stringValue": "web_search", "intValue": "3"}},  # the first kind wins
            {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": '{"query": "ipo"}'}},
            {"key": "gen_ai.tool.call.result", "value": {"arrayValue": {"values": [{"stringValue": "https://example.com/a"}]}}},
        ]
        call = self.read(attributes=attributes)[0]["interactions"][0]
        self.assertEqual((call["tool"], call["query"]), ("web_search", "ipo"))
        self.assertEqual([item["url"] for item in call["returned"]], ["https://example.com/a"])
        for bad, message in (([{"key": 3, "value": {"stringValue": "x"}}], r"attributes\[0\]: key is 3, expected a string"),
                             ([{"value": {"stringValue": "x"}}], "key is"), (["pair"], "a key/value pair"),
                             ([{"key": ["k"], "value": {"stringValue": "x"}}], r"key is an array, expected a string"),
                             ([{"key": "k", "value": "x"}], r"\(k\): expected an OTLP AnyValue object")):
            with self.subTest(bad=bad), self.assertRaisesRegex(AnachronError, message):
                self.read(attributes=bad)
