"""Past its budget, the first reading of a streamed ``--from otel`` log keeps its join index on disk
(docs/importers.md, "Memory"): the same samples, records, order and errors as when it is kept in memory."""

import json
import random
import re
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from anachron.core.errors import AnachronError
from anachron.importers import Options
from anachron.importers import _otel, _otel_index

import tests.importers.test_otel_streaming as streaming

DATA = streaming.DATA
OPTIONS = streaming.OPTIONS
PAIR = Options(as_of=OPTIONS.as_of, sample_id_from="study.pair")  # no span of the log has it: its resource does


class Spilled:
    """A test case whose join index goes to disk after every line (a budget of 0 entries)."""

    def setUp(self):
        super().setUp()
        patch = mock.patch.object(_otel, "_JOIN_BUDGET", 0)
        patch.start()
        self.addCleanup(patch.stop)


class StreamedLogsSpilled(Spilled, streaming.StreamedLogs):
    """Every rule of a streamed log, with the index on disk from the first line on."""


class FastPathsSpilled(Spilled, streaming.FastPaths):
    """Span times at the edges of uint64 and every kind of attribute value, with the index on disk."""


def sessions(n, seed=None):
    """tests/data/importers/otel.json on *n* lines, each under trace ids of its own (the benchmark's log),
    then, with *seed*, every span a line of its own, shuffled: traces and conversations across lines."""
    text = json.dumps(json.loads((DATA / "otel.json").read_text(encoding="utf-8")), separators=(",", ":"))
    traces = sorted(set(re.findall(r'"traceId":"([0-9a-f]+)"', text)))
    lines = []
    for k in range(n):
        line = text
        for j, trace in enumerate(traces):
            line = line.replace(trace, f"{k:024x}{j:08x}")
        lines.append(line)
    if seed is not None:
        lines = [json.dumps(d) for line in lines for d in streaming.one_span_documents(json.loads(line))]
        random.Random(seed).shuffle(lines)
    return "\n".join(lines) + "\n"


class JoinIndexOnDisk(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, text):
        path = Path(self.tmp.name) / "log.jsonl"
        path.write_text(text, encoding="utf-8")
        return path

    def read(self, path, budget, options=OPTIONS):
        """(every (where, record bytes), how many batches went to disk) with the join budget *budget*."""
        batches = []
        add = _otel_index.DiskIndex.add

        def counted(index, *maps):
            batches.append(len(maps[0]))
            return add(index, *maps)

        with mock.patch.object(_otel, "_JOIN_BUDGET", budget), mock.patch.object(_otel_index.DiskIndex, "add", counted):
            return streaming.out(path, options), len(batches)

    def test_a_budget_the_log_outgrows_gives_the_records_of_the_index_in_memory(self):
        for seed in (None, 1, 2):
            path = self.write(sessions(12, seed))
            memory, batches = self.read(path, 10**9)
            self.assertEqual(batches, 0)
            self.assertEqual(len(memory), 24)  # the log's two traces are two samples
            for budget in (0, 5, 40):
                with self.subTest(seed=seed, budget=budget):
                    records, batches = self.read(path, budget)
                    self.assertGreater(batches, 1)
                    self.assertEqual(records, memory)

    def test_traces_and_sample_ids_spread_over_batches_join_as_in_memory(self):
        # Every span of a sample's traces on a line of its own, shuffled, the same study.pair on pairs of samples.
        lines = sessions(6, seed=3).rstrip("\n").split("\n")
        tagged = []
        for line in lines:
            document = json.loads(line)
            trace = document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
            document["resourceSpans"][0].setdefault("resource", {})["attributes"] = [
                {"key": "study.pair", "value": {"stringValue": f"s{int(trace[:24], 16) // 2}"}}]
            tagged.append(json.dumps(document))
        path = self.write("\n".join(tagged) + "\n")
        memory, _ = self.read(path, 10**9, PAIR)
        self.assertEqual(len(memory), 3)
        for budget in (0, 3):
            with self.subTest(budget=budget):
                self.assertEqual(self.read(path, budget, PAIR)[0], memory)

    def test_a_trace_without_the_sample_id_attribute_is_the_same_error_on_disk(self):
        path = self.write(sessions(4))
        errors = []
        for budget in (10**9, 0):
            with self.assertRaises(AnachronError) as caught:
                self.read(path, budget, PAIR)
            errors.append(str(caught.exception))
        self.assertRegex(errors[0], r"log\.jsonl:1 resourceSpans\[0\] scopeSpans\[0\] spans\[0\]: no span or resource of trace "
                                    r"0{31}1 has attribute 'study\.pair' \(--sample-id-from\)\Z")
        self.assertEqual(errors[1], errors[0])

    def test_a_trace_id_that_utf8_cannot_hold_is_kept_on_disk_as_read(self):
        # JSON may escape a lone surrogate: SQLite's text is UTF-8, so the index keeps such ids as bytes.
        path = self.write(streaming.span(traceId="\ud800a") + "\n" + streaming.span(traceId="b") + "\n"
                          + streaming.span(traceId="\ud800a", startTimeUnixNano="0") + "\n")
        memory, _ = self.read(path, 10**9)
        records, batches = self.read(path, 0)
        self.assertEqual(batches, 4)  # a batch a line, then the end's (empty)
        self.assertEqual(records, memory)
        self.assertEqual([json.loads(record)["sample_id"] for _, record in records], ["\ud800a", "b"])

    def test_a_sample_both_readings_build_is_written_in_its_turn(self):
        # Trace a's spans on lines 1 and 3: the second reading builds it, the first one b and c.
        path = self.write("\n".join([streaming.span(traceId="a"), streaming.span(traceId="b"),
                                     streaming.span(traceId="a", startTimeUnixNano="5"), streaming.span(traceId="c")]) + "\n")
        memory, _ = self.read(path, 10**9)
        records, _ = self.read(path, 0)
        self.assertEqual(records, memory)
        self.assertEqual([json.loads(record)["sample_id"] for _, record in records], ["a", "b", "c"])
        self.assertEqual(len(json.loads(records[0][1])["interactions"]), 2)


if __name__ == "__main__":
    unittest.main()
