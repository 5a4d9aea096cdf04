"""The score JSON: one writer, and one strict reader whose every refusal names the file and the sample."""

import io
import json
import unittest

from anachron.core import AnachronError, score_trace, summarise
from anachron.core.jsonio import dump_json
from anachron.core.leakage import ScoreJsonWriter, read_sample, read_samples

from tests.corpus_fixtures import corpus, item, trace

FILE = "run.json"


class ScoreJsonCase(unittest.TestCase):
    def setUp(self):
        c = corpus(items=[item("before", "2022-05-31"), item("after", "2022-06-02")])
        self.results = [
            score_trace(trace(c, [("q", ["after"]), ("r", ["before"])], sample_id="s1"), c),
            score_trace(trace(c, [("q", ["before"])], sample_id="s2"), c),
        ]

    def written(self, results, fields=None):
        out = io.StringIO()
        writer = ScoreJsonWriter(out)
        for result in results:
            writer.sample(result)
        writer.finish(summarise(results), fields)
        return out.getvalue()

    def sample(self, **changes):
        """The first sample as the writer wrote it, with *changes* (a value of ... drops the field)."""
        record = json.loads(self.written(self.results))["samples"][0]
        for name, value in changes.items():
            if value is ...:
                del record[name]
            else:
                record[name] = value
        return record

    def refused(self, record, *fragments):
        with self.assertRaises(AnachronError) as caught:
            read_samples({"samples": [record], "summary": {}}, FILE)
        message = str(caught.exception)
        self.assertTrue(message.startswith(f"{FILE}: samples[0] (sample 's1'): "), message)
        for fragment in fragments:
            self.assertIn(fragment, message)
        return message


class WriterTest(ScoreJsonCase):
    def test_the_streamed_document_is_dump_json_of_the_whole(self):
        document = {"samples": [r.to_dict() for r in self.results], "summary": summarise(self.results).to_dict()}
        self.assertEqual(self.written(self.results), dump_json(document))

    def test_no_sample_is_dump_json_of_the_empty_document(self):
        self.assertEqual(self.written([]), dump_json({"samples": [], "summary": summarise([]).to_dict()}))

    def test_a_commands_fields_follow_the_summary(self):
        summary = json.loads(self.written(self.results, {"run": {"mode": "enforced"}}))["summary"]
        self.assertEqual(summary["run"], {"mode": "enforced"})
        self.assertEqual(summary["n"], 2)


class ReaderTest(ScoreJsonCase):
    def test_what_the_writer_wrote_reads_back_equal(self):
        self.assertEqual(read_samples(json.loads(self.written(self.results)), FILE), self.results)

    def test_one_stored_sample_reads_back_equal(self):
        self.assertEqual(read_sample(self.results[0].to_dict(), FILE), self.results[0])

    def test_a_field_added_later_reads_as_none_when_absent(self):
        self.assertEqual(read_sample(self.sample(date_conflicts=..., slice=...), FILE).date_conflicts, 0)

    def test_a_missing_count_is_refused(self):
        self.refused(self.sample(interactions=...), "missing field 'interactions'")

    def test_a_missing_tclr_is_refused(self):
        self.refused(self.sample(tclr=...), "missing field 'tclr'")

    def test_a_missing_sample_id_names_the_file_and_the_place(self):
        with self.assertRaisesRegex(AnachronError, r"^run\.json: samples\[0\]: missing field 'sample_id'$"):
            read_samples({"samples": [self.sample(sample_id=...)]}, FILE)

    def test_a_count_of_the_wrong_type_is_refused(self):
        for value in ("1", 1.0, True, None, -1):
            with self.subTest(value=value):
                self.refused(self.sample(result_leaks=value), "result_leaks must be a non-negative integer")

    def test_a_nan_count_is_refused(self):
        self.refused(self.sample(undated=float("nan")), "undated must be a non-negative integer, got nan")

    def test_a_field_of_the_wrong_type_is_refused(self):
        for name, value, fragment in (
            ("mode", 3, "field 'mode': expected a string or null"),
            ("slice", ["finance"], "field 'slice': expected a string or null"),
            ("evidence", "x", "field 'evidence': expected a list"),
            ("answered", "yes", "field 'answered': expected true or false"),
            ("horizons", [0], "field 'horizons': expected a list of positive integers"),
            ("failed_calls", {"lost": 1}, "field 'failed_calls': expected an object of"),
            ("warnings", [""], "field 'warnings': expected a list of non-empty strings"),
        ):
            with self.subTest(name=name):
                self.refused(self.sample(**{name: value}), fragment)

    def test_a_bad_date_is_refused(self):
        for value in ("2022-13-01", "2022-06-01T00:00:00", "June 1, 2022", 20220601):
            with self.subTest(value=value):
                self.refused(self.sample(as_of=value), "field 'as_of'")

    def test_a_tclr_its_counts_contradict_is_refused(self):
        # Fail closed: a leaking sample written as clean is an error, never a clean sample.
        self.refused(self.sample(tclr=0.0), "field 'tclr': is 0.0, but its counts give 0.5 (1/2)")
        self.refused(self.sample(tclr=float("nan")), "field 'tclr'")

    def test_every_derived_figure_must_agree_with_its_counts(self):
        for name, value in (("tclr_low", 0.0), ("tclr_high", 0.0), ("survivorship_rate", 0.5), ("horizon_days", 3)):
            with self.subTest(name=name):
                self.refused(self.sample(**{name: value}), f"field '{name}': is")

    def test_more_leaks_than_interactions_is_refused(self):
        self.refused(self.sample(result_leaks=3, tclr=1.5), "more leaking or undated interactions than interactions")

    def test_an_unknown_field_is_refused(self):
        self.refused(self.sample(tclr_lo=0.5), "unknown field 'tclr_lo': did you mean 'tclr_low'?")

    def test_a_sample_twice_names_the_file_and_the_sample(self):
        with self.assertRaisesRegex(AnachronError, r"^run\.json: sample 's1' appears twice$"):
            read_samples({"samples": [self.sample(), self.sample()]}, FILE)

    def test_a_document_without_samples_is_refused(self):
        for document in ({"samples": []}, {"summary": {}}, []):
            with self.subTest(document=document):
                with self.assertRaisesRegex(AnachronError, r"^run\.json: "):
                    read_samples(document, FILE)


if __name__ == "__main__":
    unittest.main()
