"""Each item of the event log carries the backend that answered it and that backend's guarantee; the
reader checks both (a guarantee it does not know is bad input naming the line); score-events counts
the items shown by guarantee, an item without one as `unrecorded` (a local corpus's older logs: `corpus`),
so a study can say "every page was an archive capture before T", or sees it cannot."""

import json
import unittest

from anachron.core.errors import AnachronError
from anachron.timelock.events import Seen, Withheld, parse_events

from tests.timelock.test_events import LogFiles, call, parse_date, start
from tests.support import run_cli


def shown(ident, guarantee=None, backend=None, published="2022-05-01"):
    return Seen(ident, "t", parse_date(published), backend=backend, guarantee=guarantee)


class TheLogKeepsBackendAndGuarantee(unittest.TestCase):
    def test_they_are_written_and_read_back_for_served_and_withheld_items(self):
        record = call(1, returned=[shown("a", "capture", "wayback")],
                      withheld=[Withheld("b", "2022-07-01", "undated", backend="exa", guarantee="claimed", why="no date")])
        self.assertEqual((record["returned"][0]["backend"], record["returned"][0]["guarantee"]), ("wayback", "capture"))
        self.assertEqual((record["withheld"][0]["guarantee"], record["withheld"][0]["why"]), ("claimed", "no date"))
        log = parse_events([("e:1", start()), ("e:2", json.loads(json.dumps(record)))])
        self.assertEqual(log.calls[0].returned[0].guarantee, "capture")
        self.assertEqual((log.calls[0].withheld[0].backend, log.calls[0].withheld[0].why), ("exa", "no date"))

    def test_an_item_without_them_is_read_as_before(self):
        log = parse_events([("e:1", start()), ("e:2", call(1, returned=[shown("a")]))])
        self.assertIsNone(log.calls[0].returned[0].guarantee)

    def test_an_unknown_guarantee_or_a_blank_backend_is_bad_input_naming_the_line(self):
        for field, value in (("guarantee", "promised"), ("guarantee", ""), ("backend", ""), ("backend", 3)):
            with self.subTest(field=field, value=value):
                record = call(1, returned=[shown("a", "index", "openreward")])
                record["returned"][0][field] = value
                with self.assertRaises(AnachronError) as caught:
                    parse_events([("e:1", start()), ("e:2", record)])
                self.assertIn("e:2", str(caught.exception))
                self.assertIn(field, str(caught.exception))


class ScoreEventsCountsWhatWasShownByGuarantee(LogFiles, unittest.TestCase):
    def summary(self, *logs):
        status, out, err = run_cli("score-events", *logs, "--as-of", "2022-06-01", "--format", "json")
        self.assertEqual(status, 0, err)
        return json.loads(out)["summary"]["guarantees"]

    def test_items_are_counted_by_guarantee_over_every_log_and_withheld_ones_not_at_all(self):
        web = self.write("web.jsonl", [
            start(backend="web"),
            call(1, returned=[shown("https://a.example/1", "claimed", "exa"), shown("https://a.example/2", "claimed", "exa")],
                 withheld=[Withheld("https://a.example/3", "2022-07-01", "after-cutoff", backend="exa", guarantee="claimed")]),
            call(2, tool="fetch", arguments={"id_or_url": "https://a.example/1"},
                 returned=[shown("https://a.example/1", "capture", "wayback")]),
        ])
        self.assertEqual(self.summary(web), {"capture": 1, "claimed": 2})
        upstream = self.write("upstream.jsonl", [start(), call(1, returned=[shown("https://b.example/1")])])
        self.assertEqual(self.summary(web, upstream), {"capture": 1, "claimed": 2, "unrecorded": 1})

    def test_a_corpus_log_without_the_field_counts_as_corpus(self):
        corpus = self.write("corpus.jsonl", [start(backend="corpus"), call(1, returned=[shown("fin-001", published="2021-02-11")])])
        self.assertEqual(self.summary(corpus), {"corpus": 1})

    def test_a_run_shown_nothing_says_so_in_the_table(self):
        empty = self.write("empty.jsonl", [start(), call(1)])
        status, out, _ = run_cli("score-events", empty, "--as-of", "2022-06-01")
        self.assertEqual(status, 0)
        self.assertIn(f"{'shown, by guarantee':<25}none shown", out)
        self.assertEqual(self.summary(empty), {})

    def test_a_bad_guarantee_in_a_log_exits_2_with_one_line_naming_the_file_and_line(self):
        record = call(1, returned=[shown("https://a.example/1", "claimed", "exa")])
        record["returned"][0]["guarantee"] = "trust me"
        path = self.write("bad.jsonl", [start(), record])
        self.assertBadInput(["score-events", path, "--as-of", "2022-06-01"], f"{path}:2", "guarantee")


if __name__ == "__main__":
    unittest.main()
