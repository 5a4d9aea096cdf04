"""Strict JSON reading (anachron.core.jsonio), used by every command."""

import tempfile
import unittest
from pathlib import Path

from anachron.core import AnachronError
from anachron.core.jsonio import read_json, read_log_records, read_records, read_text, stream_records


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

    def test_a_streamed_line_of_any_shape_reads_as_the_whole_file_reads_it(self):
        # The streamed reader takes its usual line (an object then its newline) at once and any other the
        # long way: spaces around it, a CR, a last line without a newline, blank lines, nested values.
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "r.jsonl"
            path.write_text('{"a": 1}\n  {"b": [1, {"c": null}]}  \n{"d": "x\u2028"}\r\n\n\t\n{"e": 1.5e-3}', encoding="utf-8")
            expected = [(f"{path}:1", {"a": 1}), (f"{path}:2", {"b": [1, {"c": None}]}), (f"{path}:3", {"d": "x\u2028"}),
                        (f"{path}:6", {"e": 1.5e-3})]
            self.assertEqual(read_records(path), expected)
            self.assertEqual(list(stream_records(path)), expected)

    def test_a_streamed_line_that_is_no_object_is_an_error_naming_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bad.jsonl"
            for second_line, error in (
                (b'{"a": 1, "a": 2}', r":2: invalid JSON: duplicate key 'a'"),
                (b'{"a": NaN}', r":2: invalid JSON: NaN is not valid JSON"),
                (b'{"a": 1}{"b": 2}', r":2: invalid JSON: Extra data"),
                (b'[{"a": 1}]', r":2: expected a JSON object, got an array"),
                (b'{"a": ', r":2: invalid JSON: Expecting value"),
                (b'{"a": "\xff"}', r": not UTF-8 text \(byte 16\)"),
            ):
                with self.subTest(second_line=second_line):
                    path.write_bytes(b'{"a": 1}\n' + second_line + b"\n")
                    with self.assertRaisesRegex(AnachronError, error):
                        list(stream_records(path))


class ByteOrderMarkTest(unittest.TestCase):
    """A file saved by a Windows editor opens with a UTF-8 byte order mark: every reader drops it."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def test_a_leading_mark_is_dropped_by_every_reader(self):
        lines = self.dir / "r.jsonl"
        lines.write_bytes(b'\xef\xbb\xbf{"a": 1}\r\n{"b": 2}\r\n')
        expected = [(f"{lines}:1", {"a": 1}), (f"{lines}:2", {"b": 2})]
        self.assertEqual(read_records(lines), expected)
        self.assertEqual(list(stream_records(lines)), expected)
        self.assertEqual(read_log_records(lines), (expected, None))
        doc = self.dir / "d.json"
        doc.write_bytes(b'\xef\xbb\xbf{"a": [1]}')
        self.assertEqual(read_json(doc), {"a": [1]})
        self.assertEqual(read_text(doc), '{"a": [1]}')

    def test_a_mark_anywhere_else_is_still_an_error(self):
        lines = self.dir / "r.jsonl"
        lines.write_bytes(b'{"a": 1}\n\xef\xbb\xbf{"b": 2}\n')
        for read in (read_records, lambda path: list(stream_records(path))):
            with self.assertRaisesRegex(AnachronError, rf"^{lines}:2: invalid JSON: Unexpected UTF-8 BOM"):
                read(lines)

    def test_a_file_of_only_a_mark_holds_no_record(self):
        lines = self.dir / "r.jsonl"
        lines.write_bytes(b"\xef\xbb\xbf\n")
        self.assertEqual(read_records(lines), [])
        self.assertEqual(list(stream_records(lines)), [])


if __name__ == "__main__":
    unittest.main()
