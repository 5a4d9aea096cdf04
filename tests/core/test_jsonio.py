"""Strict JSON reading (anachron.core.jsonio), used by every command."""

import os
import stat
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from anachron.core import AnachronError
from anachron.core.jsonio import read_json, read_records
from anachron.core.atomic import write_atomic


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


class StagedFilesLeaveNothingTest(unittest.TestCase):
    """A file being written is unnamed where the system allows (a killed process leaves nothing), named
    and removed on an error elsewhere; either way the final file gets the umask's mode."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)
        self.target = self.dir / "out.json"

    def _entries_while_writing(self):
        from anachron.core.atomic import staged_output

        with staged_output(self.target) as fh:
            fh.write("x" * 100_000)
            seen = sorted(os.listdir(self.dir))
        return seen

    @unittest.skipUnless(getattr(os, "O_TMPFILE", 0) and os.path.isdir("/proc/self/fd"), "no unnamed files here")
    def test_a_file_being_written_has_no_name_until_it_replaces_the_target(self):
        self.assertEqual(self._entries_while_writing(), [])
        self.assertEqual(self.target.read_text(), "x" * 100_000)
        self.assertEqual(sorted(os.listdir(self.dir)), ["out.json"])

    def _without_unnamed_files(self, code):
        real_open = os.open

        def refusing(path, flags, *args, **kwargs):
            if getattr(os, "O_TMPFILE", 0) and flags & os.O_TMPFILE == os.O_TMPFILE:
                raise OSError(code, os.strerror(code))
            return real_open(path, flags, *args, **kwargs)

        return mock.patch("os.open", refusing)

    def test_a_filesystem_without_unnamed_files_gets_a_named_one_removed_on_an_error(self):
        import errno

        from anachron.core.atomic import staged_output

        for code in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            with self.subTest(errno=errno.errorcode[code]), self._without_unnamed_files(code):
                with self.assertRaises(KeyboardInterrupt):
                    with staged_output(self.target) as fh:
                        fh.write("partial")
                        named = [name for name in os.listdir(self.dir) if name.startswith(".out.json.")]
                        raise KeyboardInterrupt
                self.assertEqual(len(named), 1)  # it was named: the fallback really ran
                self.assertEqual(os.listdir(self.dir), [])
                write_atomic(self.target, "done")
                self.assertEqual((self.target.read_text(), os.listdir(self.dir)), ("done", ["out.json"]))
                self.target.unlink()

    def test_another_error_opening_the_file_is_one_line_naming_it(self):
        import errno

        if not getattr(os, "O_TMPFILE", 0):
            self.skipTest("no unnamed files here")
        with self._without_unnamed_files(errno.ENOSPC):
            with self.assertRaisesRegex(AnachronError, rf"^{self.target}: cannot write: No space left on device$"):
                write_atomic(self.target, "x")
        self.assertEqual(os.listdir(self.dir), [])

    def test_an_interrupted_write_leaves_nothing_and_the_old_file_whole(self):
        from anachron.core.atomic import staged_output

        write_atomic(self.target, "old")
        os.chmod(self.target, 0o640)
        with self.assertRaises(KeyboardInterrupt):
            with staged_output(self.target) as fh:
                fh.write("new")
                raise KeyboardInterrupt
        self.assertEqual((self.target.read_text(), os.listdir(self.dir)), ("old", ["out.json"]))
        with staged_output(self.target) as fh:
            fh.write("new")
        self.assertEqual(stat.S_IMODE(self.target.stat().st_mode), 0o640)  # an existing file keeps its mode
        mask = os.umask(0o027)
        try:
            write_atomic(self.dir / "fresh.json", "x")
        finally:
            os.umask(mask)
        self.assertEqual(stat.S_IMODE((self.dir / "fresh.json").stat().st_mode), 0o640)  # 0o666 less the umask
