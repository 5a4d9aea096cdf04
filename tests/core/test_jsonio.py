"""Strict JSON reading and atomic writing (anachron.core.jsonio), used by every command."""

import json
import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from anachron.core import AnachronError
from anachron.core.jsonio import (
    dump_json, read_json, read_log_records, read_records, read_text, stream_records, write_atomic, write_files_atomic,
)


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


class WriteAtomicTest(unittest.TestCase):
    def test_a_failed_write_leaves_the_old_file_and_no_temporary(self):
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "out.json"
            target.write_text("old")
            with mock.patch("os.replace", side_effect=OSError(28, "No space left on device")):
                with self.assertRaisesRegex(AnachronError, f"^{target}: cannot write: No space left on device$"):
                    write_atomic(target, "new")
            self.assertEqual(target.read_text(), "old")
            self.assertEqual(os.listdir(tmp), ["out.json"])

    def test_writes_and_creates_the_directory(self):
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "a" / "b.json"
            write_atomic(target, dump_json({"b": 1, "a": [1.5, None]}))
            self.assertEqual(target.read_text(), '{\n  "a": [\n    1.5,\n    null\n  ],\n  "b": 1\n}\n')

    def test_new_files_get_normal_modes_and_existing_files_keep_theirs(self):
        with tempfile.TemporaryDirectory() as tmp:
            old_mask = os.umask(0o022)
            try:
                fresh, kept = Path(tmp) / "fresh.json", Path(tmp) / "kept.json"
                kept.write_text("old")
                os.chmod(kept, 0o640)
                write_files_atomic({fresh: "a", kept: "b"})
                self.assertEqual((fresh.stat().st_mode & 0o777, kept.stat().st_mode & 0o777), (0o644, 0o640))
            finally:
                os.umask(old_mask)

    def test_a_symlink_is_written_through(self):
        with tempfile.TemporaryDirectory() as tmp:
            real, link = Path(tmp) / "real.json", Path(tmp) / "link.json"
            real.write_text("old")
            link.symlink_to(real)
            write_atomic(link, "new")
            self.assertTrue(link.is_symlink())
            self.assertEqual(real.read_text(), "new")

    def test_a_set_is_written_whole_or_not_at_all(self):
        with tempfile.TemporaryDirectory() as tmp:
            first, blocked = Path(tmp) / "a.json", Path(tmp) / "b.json"
            first.write_text("old")
            blocked.mkdir()  # a directory where a file must go
            with self.assertRaisesRegex(AnachronError, f"^{blocked}: is a directory"):
                write_files_atomic({first: "new", blocked: "new"})
            self.assertEqual(first.read_text(), "old")
            self.assertEqual(sorted(os.listdir(tmp)), ["a.json", "b.json"])

    def test_dump_json_escapes_separators_and_lone_surrogates_losslessly(self):
        value = {"q": "a\u2028b\u2029c\u0085d\ud800e"}
        text = dump_json(value, indent=None)
        self.assertEqual(text.count("\n"), 1)
        self.assertNotRegex(text, "[\u2028\u2029\u0085\ud800]")
        text.encode("utf-8")  # always encodable
        self.assertEqual(json.loads(text), value)

    def test_dump_json_refuses_nan(self):
        with self.assertRaises(ValueError):
            dump_json({"x": float("nan")})


if __name__ == "__main__":
    unittest.main()
