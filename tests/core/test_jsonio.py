"""Strict JSON reading (anachron.core.jsonio), used by every command."""

import tempfile
import unittest
from pathlib import Path

from anachron.core import AnachronError
from anachron.core.jsonio import read_json, read_records


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


class ReadJsonLinesTest(unittest.TestCase):
    def test_lines_split_on_newline_only(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "r.jsonl"
            path.write_text('{"a": "x\u2028y\u0085z"}\r\n\n{"b": 1}\n', encoding="utf-8")
            self.assertEqual(read_records(path), [(f"{path}:1", {"a": "x\u2028y\u0085z"}), (f"{path}:3", {"b": 1})])


if __name__ == "__main__":
    unittest.main()
