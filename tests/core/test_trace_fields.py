"""What a trace's fields may say: a call with no result field is unrecorded, a misspelt field is
refused, a mode is one of two (docs/formats.md, "Trace")."""

import unittest

from anachron.core import MODES, AnachronError, parse_traces, score_trace, summarise

from tests.corpus_fixtures import corpus, item


class TraceFieldsTest(unittest.TestCase):
    def setUp(self):
        self.c = corpus(items=[item("before", "2022-05-31"), item("after", "2022-06-02")])

    def parse(self, interactions=(), **fields):
        record = {"sample_id": "s1", "as_of": "2022-06-01", "interactions": list(interactions), **fields}
        return parse_traces([("t.jsonl:3", record)], self.c)[0]

    def refused(self, message, interactions=(), **fields):
        with self.assertRaises(AnachronError) as ctx:
            self.parse(interactions, **fields)
        self.assertEqual(str(ctx.exception), message)
        self.assertEqual((ctx.exception.where.file, ctx.exception.where.line), ("t.jsonl", 3))

    def test_an_ok_call_without_returned_is_unrecorded_with_a_warning(self):
        t = self.parse([{"tool": "search", "query": "q"}, {"tool": "search", "query": "r", "returned": ["before"]}])
        self.assertEqual([call.status for call in t.interactions], ["unrecorded", "ok"])
        r = score_trace(t, self.c)
        self.assertEqual((r.interactions, r.unrecorded, r.tclr, float(r.tclr_high_exact)), (1, 1, 0.0, 0.5))
        (warning,) = r.warnings
        self.assertIn("1 call(s) with no 'returned' field (interactions[0]) are scored unrecorded", warning)
        self.assertIn(warning, summarise([r]).warnings)

    def test_an_explicit_ok_status_without_returned_is_unrecorded_too(self):
        t = self.parse([{"tool": "search", "status": "ok"}])
        self.assertEqual((t.interactions[0].status, len(t.warnings)), ("unrecorded", 1))

    def test_an_empty_returned_is_the_explicit_nothing(self):
        t = self.parse([{"tool": "search", "query": "q", "returned": []}])
        r = score_trace(t, self.c)
        self.assertEqual((t.interactions[0].status, r.interactions, r.unrecorded, t.warnings), ("ok", 1, 0, ()))

    def test_calls_that_show_nothing_by_status_need_no_returned(self):
        t = self.parse([
            {"tool": "search", "status": "refused"}, {"tool": "search", "status": "unrecorded"},
            {"tool": "Read", "retrieval": False},  # a local call: never an interaction
        ])
        self.assertEqual([call.status for call in t.interactions], ["refused", "unrecorded", "ok"])
        self.assertEqual(t.warnings, ())

    def test_many_calls_without_returned_are_one_warning(self):
        t = self.parse([{"tool": "search", "query": str(n)} for n in range(5)])
        self.assertEqual(len(t.warnings), 1)
        self.assertIn("5 call(s) with no 'returned' field (interactions[0], interactions[1], interactions[2], ...)",
                      t.warnings[0])

    def test_a_misspelt_call_field_is_refused_naming_the_likely_one(self):
        self.refused("t.jsonl:3 (sample s1) interactions[0]: unknown field 'retuned' (did you mean 'returned'?)",
                     [{"tool": "search", "query": "q", "retuned": ["after"]}])
        self.refused("t.jsonl:3 (sample s1) interactions[1]: unknown field 'statsu' (did you mean 'status'?)",
                     [{"tool": "search", "returned": []}, {"tool": "search", "statsu": "refused"}])

    def test_a_misspelt_trace_field_is_refused(self):
        self.refused("t.jsonl:3 (sample s1): unknown field 'citation' (did you mean 'citations'?)", citation=["x"])
        self.refused("t.jsonl:3 (sample s1): unknown field 'anwser' (did you mean 'answer'?)", anwser="x")

    def test_other_extra_fields_are_kept(self):
        # Far from every known field, an extension's name (the adapters' call_id, arguments, error),
        # or near a known field the object also has: kept, never refused.
        t = self.parse(
            [{"tool": "search", "returned": [], "call_id": "c1", "arguments": "{}", "error": "x", "tools": ["a"]}],
            notes="by hand", model="gpt", sample="1",
        )
        self.assertEqual(dict(t.extra), {"notes": "by hand", "model": "gpt", "sample": "1"})

    def test_the_mode_is_one_of_two(self):
        self.assertEqual(MODES, ("unrestricted", "enforced"))
        for mode in MODES:
            self.assertEqual(self.parse(mode=mode).mode, mode)
        self.assertIsNone(self.parse(mode=None).mode)
        self.refused("t.jsonl:3 (sample s1): field 'mode': the string 'unrestrictd' is not one of unrestricted, enforced"
                     " (did you mean 'unrestricted'?)", mode="unrestrictd")
        self.refused("t.jsonl:3 (sample s1): field 'mode': the string 'oracle' is not one of unrestricted, enforced",
                     mode="oracle")
        self.refused("t.jsonl:3 (sample s1): field 'mode': the string '' is not one of unrestricted, enforced", mode="")
        self.refused("t.jsonl:3 (sample s1): field 'mode': 3 is not one of unrestricted, enforced", mode=3)


if __name__ == "__main__":
    unittest.main()
