"""Strict JSON reading and atomic writing (anachron.io), used by every command."""

import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from anachron.core import AnachronError
from anachron.io import dump_json, read_json, write_atomic


class ReadJsonTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.path = Path(self.tmp.name) / "doc.json"

    def test_syntax_error_names_file_and_line(self):
        self.path.write_text('{\n  "a": 1,\n  "b": \n}\n')
        with self.assertRaisesRegex(AnachronError, rf"^{self.path}:4: invalid JSON: Expecting value \(column 1\)$"):
            read_json(self.path)

    def test_duplicate_keys_nan_and_infinity_are_rejected(self):
        for text, fragment in (('{"a": 1, "a": 2}', "duplicate key 'a'"), ('{"a": NaN}', "NaN"), ("[Infinity]", "Infinity")):
            with self.subTest(text=text):
                self.path.write_text(text)
                with self.assertRaisesRegex(AnachronError, fragment):
                    read_json(self.path)


class WriteAtomicTest(unittest.TestCase):
    def test_a_failed_write_leaves_the_old_file_and_no_temporary(self):
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "out.json"
            target.write_text("old")
            with mock.patch("os.replace", side_effect=OSError("disk full")):
                with self.assertRaises(OSError):
                    write_atomic(target, "new")
            self.assertEqual(target.read_text(), "old")
            self.assertEqual(os.listdir(tmp), ["out.json"])

    def test_writes_and_creates_the_directory(self):
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "a" / "b.json"
            write_atomic(target, dump_json({"b": 1, "a": [1.5, None]}))
            self.assertEqual(target.read_text(), '{\n  "a": [\n    1.5,\n    null\n  ],\n  "b": 1\n}\n')

    def test_dump_json_refuses_nan(self):
        with self.assertRaises(ValueError):
            dump_json({"x": float("nan")})


if __name__ == "__main__":
    unittest.main()
