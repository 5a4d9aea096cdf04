"""AnachronError's structured where (file, line, sample id) beside its unchanged one-line message."""

import json
import pickle
import tempfile
import unittest
from pathlib import Path

from anachron.core import load_corpus_dir
from anachron.core.errors import AnachronError, Where
from anachron.core.jsonio import read_json, read_jsonl, stream_records
from anachron.core.trace import load_traces, parse_traces

CORPUS = load_corpus_dir()
SAMPLE = next(iter(CORPUS.samples))


class ErrorTest(unittest.TestCase):
    def test_the_message_is_one_line_and_where_is_unknown_by_default(self):
        err = AnachronError("a\nb\rc")
        self.assertEqual((str(err), err.message, err.where), ("a b c", "a b c", Where(None, None, None)))
        self.assertIsInstance(err, ValueError)

    def test_locate_fills_only_what_is_unknown(self):
        err = AnachronError("x", line=3)
        self.assertIs(err.locate(file=Path("f.jsonl"), line=9, sample_id="s"), err)
        self.assertEqual(err.where, Where("f.jsonl", 3, "s"))
        self.assertEqual(str(err), "x")

    def test_where_survives_pickling(self):
        err = pickle.loads(pickle.dumps(AnachronError("f:2: bad", file="f", line=2, sample_id="s")))
        self.assertEqual((str(err), err.where), ("f:2: bad", Where("f", 2, "s")))


class ReaderWhereTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.dir = Path(self.tmp.name)

    def write(self, name, data):
        path = self.dir / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        return path

    def error(self, fn):
        with self.assertRaises(AnachronError) as cm:
            fn()
        return cm.exception

    def test_json_lines_errors_name_file_and_line(self):
        path = self.write("t.jsonl", '{"a": 1}\n\n{"a": \n')
        err = self.error(lambda: list(read_jsonl(path)))
        self.assertTrue(str(err).startswith(f"{path}:3: invalid JSON"))
        self.assertEqual(err.where, Where(str(path), 3, None))
        path = self.write("u.jsonl", '{"a": 1}\n[2]\n')
        for read in (read_jsonl, stream_records):
            err = self.error(lambda: list(read(path)))
            self.assertEqual((str(err), err.where), (f"{path}:2: expected a JSON object, got an array", Where(str(path), 2)))

    def test_a_byte_that_is_not_utf8_names_its_line_in_where(self):
        path = self.write("v.jsonl", b'{"a": 1}\n{"a": "\xff"}\n')
        err = self.error(lambda: list(stream_records(path)))
        self.assertEqual(err.where, Where(str(path), 2))
        self.assertIn("not UTF-8 text (byte", str(err))

    def test_a_json_document_names_the_line_of_a_syntax_error(self):
        path = self.write("d.json", '{\n  "a": 1,\n}\n')
        self.assertEqual(self.error(lambda: read_json(path)).where, Where(str(path), 3))
        missing = self.dir / "none.json"
        self.assertEqual(self.error(lambda: read_json(missing)).where, Where(str(missing)))


class TraceWhereTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def traces(self, *records):
        path = Path(self.tmp.name) / "traces.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        return path

    def error(self, path):
        with self.assertRaises(AnachronError) as cm:
            load_traces(path, CORPUS)
        return cm.exception

    def test_a_bad_field_names_file_line_and_sample(self):
        path = self.traces({"sample_id": SAMPLE, "interactions": []}, {"sample_id": "new", "interactions": []})
        err = self.error(path)
        self.assertEqual(str(err), f"{path}:2 (sample new): missing field 'as_of' and the sample is not in the corpus")
        self.assertEqual(err.where, Where(str(path), 2, "new"))
        err = self.error(self.traces({"sample_id": SAMPLE, "interactions": 3}))
        self.assertEqual(err.where, Where(str(path), 1, SAMPLE))

    def test_a_call_time_with_no_day_in_utc_is_refused_with_its_place(self):
        # It crashed with an OverflowError when the call returned a relatively dated item.
        for moment in ("9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59"):
            call = {"tool": "search", "query": "q", "time": moment,
                    "returned": [{"id": "https://x.example/a", "publish_date": "2 days ago"}]}
            with self.subTest(moment=moment), self.assertRaises(AnachronError) as caught:
                parse_traces([("t.jsonl:3", {"sample_id": "s", "as_of": "2022-06-01", "interactions": [call]})], CORPUS)
            self.assertEqual(str(caught.exception),
                             f"t.jsonl:3 (sample s) interactions[0]: field 'time': the string '{moment}' has no day in UTC (out of range)")
            self.assertEqual((caught.exception.where.file, caught.exception.where.line, caught.exception.where.sample_id), ("t.jsonl", 3, "s"))

    def test_a_now_with_no_day_in_utc_is_an_anachron_error(self):
        import datetime as dt

        from anachron.core.attribution import parse_when

        late = dt.datetime(9999, 12, 31, 23, 59, tzinfo=dt.timezone(-dt.timedelta(hours=23, minutes=59)))
        with self.assertRaisesRegex(AnachronError, r"^now 9999-12-31T23:59:00-23:59 has no day in UTC \(out of range\)$"):
            parse_when("2 days ago", now=late)

    def test_a_record_without_a_sample_id_has_file_and_line_only(self):
        path = self.traces({"interactions": []})
        self.assertEqual(self.error(path).where, Where(str(path), 1, None))

    def test_a_duplicate_names_the_second_sighting(self):
        path = self.traces({"sample_id": SAMPLE, "interactions": []}, {"sample_id": SAMPLE, "interactions": []})
        err = self.error(path)
        self.assertIn("duplicate sample_id (first at", str(err))
        self.assertEqual(err.where, Where(str(path), 2, SAMPLE))

    def test_records_of_another_where_form_give_the_sample_only(self):
        with self.assertRaises(AnachronError) as cm:
            parse_traces([("log.json message 2", {"sample_id": "new", "interactions": []})], CORPUS)
        self.assertEqual(cm.exception.where, Where(None, None, "new"))

    def test_scoring_in_several_processes_keeps_where(self):
        from anachron.output.jobs import score_file_parallel

        good = [{"sample_id": f"{SAMPLE}", "interactions": []}]
        path = self.traces(*good, *({"sample_id": f"x{i}", "as_of": "2022-01-01", "interactions": []} for i in range(5)),
                           {"sample_id": "bad", "as_of": "2022-13-01", "interactions": []})
        with self.assertRaises(AnachronError) as cm:
            score_file_parallel(str(path), CORPUS, "json", str(Path(self.tmp.name) / "out.json"), jobs=2)
        self.assertEqual(cm.exception.where, Where(str(path), 7, "bad"))
        self.assertTrue(str(cm.exception).startswith(f"{path}:7 (sample bad): "), str(cm.exception))


if __name__ == "__main__":
    unittest.main()
