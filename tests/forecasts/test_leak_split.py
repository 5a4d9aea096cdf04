"""The leak split (anachron.forecasts.leak_split): leaked, unverified or clean, and the answer-leak sources."""

from __future__ import annotations

import unittest

from anachron.core.errors import AnachronError
from anachron.forecasts.forecast import Forecast
from anachron.forecasts.leak_split import leak_class, leak_sources
from anachron.forecasts.model_score import scored_sample, uniform


def binary(p: float, sample: str = "s") -> Forecast:
    return Forecast(sample, "m", probability=p)


class LeakClassTest(unittest.TestCase):
    def test_classes(self):
        self.assertEqual(leak_class({}), "clean")
        for name in ("result_leaks", "survivorship_leaks", "restatement_leaks", "query_intent_leaks", "content_leaks",
                     "answer_leaks_retrieved", "answer_leaks_parametric", "seal_breaches"):
            with self.subTest(name=name):
                self.assertEqual(leak_class({name: 1, "undated": 3, "seal_status": "breached" if name == "seal_breaches" else None}), "leaked")
        for name in ("undated", "unrecorded", "date_conflicts", "revision_risks"):  # a page modified after T: cannot tell
            with self.subTest(name=name):
                self.assertEqual(leak_class({name: 1}), "unverified")
        # An importer's warning on the log (an item of an unknown type skipped): cannot tell, never clean.
        self.assertEqual(leak_class({"warnings": ["skipped 1 item of unknown type 'foo_note' (items[3])"]}), "unverified")
        self.assertEqual(leak_class({"warnings": [], "result_leaks": 0}), "clean")
        with self.assertRaisesRegex(AnachronError, "warnings is"):
            leak_class({"warnings": "skipped"})
        self.assertEqual(leak_class({"seal_breaches": None}), "clean")  # not audited: the trace's judgement
        self.assertEqual(leak_class({"seal_breaches": 0, "seal_status": "sealed"}), "clean")
        self.assertEqual(leak_class({"seal_breaches": 0, "seal_status": "no verdict"}), "clean")  # no call to judge
        self.assertEqual(leak_class({"seal_breaches": 0, "seal_status": "unverified"}), "unverified")
        self.assertEqual(leak_class({"seal_breaches": 0, "seal_status": "lock-only"}), "unverified")
        self.assertEqual(leak_class({"seal_breaches": 0}), "unverified")  # written before seal_status: not proven sealed
        self.assertEqual(leak_class({"seal_breaches": 2, "seal_status": "breached"}), "leaked")
        with self.assertRaisesRegex(AnachronError, "seal_status"):
            leak_class({"seal_breaches": 0, "seal_status": "maybe"})
        with self.assertRaisesRegex(AnachronError, "does not agree"):
            leak_class({"seal_breaches": 0, "seal_status": "breached"})

    def test_bad_counts(self):
        for bad in (-1, 1.5, "1", True):
            with self.subTest(bad=bad), self.assertRaisesRegex(AnachronError, "result_leaks is"):
                leak_class({"result_leaks": bad}, "s.json (sample x)")

    def test_sources(self):
        self.assertEqual(leak_sources({"answer_leaks_retrieved": 2}), ("retrieved",))
        self.assertEqual(leak_sources({"answer_leaks_parametric": 1}), ("parametric",))
        self.assertEqual(leak_sources({}), ())

    def test_no_record_is_unverified_under_a_split(self):
        f = binary(0.5)
        self.assertEqual(scored_sample(f, 1, uniform(f), None, split=True).leak, "unverified")
        self.assertIsNone(scored_sample(f, 1, uniform(f), None).leak)


if __name__ == "__main__":
    unittest.main()
