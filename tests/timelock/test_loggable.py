"""What of a call the event log keeps: every value made one the reader takes back, each change listed."""

from __future__ import annotations

import hashlib
import json
import unittest

from anachron.timelock.loggable import MAX_LOGGED_DEPTH, MAX_LOGGED_ITEMS, MAX_LOGGED_KEY, MAX_LOGGED_TEXT, loggable


def logged(value):
    changes: list = []
    return loggable(value, changes), changes


class Loggable(unittest.TestCase):
    def test_json_values_within_the_caps_are_kept_unchanged(self):
        value = {"query": "q", "k": 3, "x": 1.5, "flags": [True, None]}
        self.assertEqual(logged(value), (value, []))

    def test_a_long_string_keeps_its_head_its_length_and_its_sha256(self):
        text = "a" * (MAX_LOGGED_TEXT + 10)
        kept, changes = logged({"query": text})
        self.assertEqual(kept["query"], text[:MAX_LOGGED_TEXT])
        self.assertEqual(changes, [{"path": "$.query", "change": "truncated", "length": len(text),
                                    "sha256": hashlib.sha256(text.encode()).hexdigest()}])

    def test_non_finite_numbers_and_non_json_values_become_their_repr(self):
        kept, changes = logged([float("nan"), "ok", {1}])
        self.assertEqual(kept, ["nan", "ok", "{1}"])
        self.assertEqual([c["path"] for c in changes], ["$[0]", "$[2]"])
        json.dumps(kept, allow_nan=False)  # every reader takes it back

    def test_keys_that_are_not_strings_or_too_long_are_listed(self):
        kept, changes = logged({1: "a", "k" * (MAX_LOGGED_KEY + 1): "b"})
        self.assertEqual(list(kept), ["1", "k" * MAX_LOGGED_KEY])
        self.assertEqual([c["change"] for c in changes], ["key is not a string", "key truncated"])

    def test_objects_and_arrays_are_cut_in_breadth_and_depth(self):
        kept, changes = logged(list(range(MAX_LOGGED_ITEMS + 2)))
        self.assertEqual(len(kept), MAX_LOGGED_ITEMS)
        self.assertEqual(changes, [{"path": "$", "change": "2 more entries left out"}])
        deep: list = []
        for _ in range(MAX_LOGGED_DEPTH + 1):
            deep = [deep]
        _, changes = logged(deep)
        self.assertEqual(changes[0]["change"], f"nested deeper than {MAX_LOGGED_DEPTH} levels")


if __name__ == "__main__":
    unittest.main()
