"""Atomic outputs (anachron.core.atomic): a file or a set replaced whole or not at all, with normal modes, leaving nothing behind."""

import json
import os
import stat
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from anachron.core import AnachronError
from anachron.core.jsonio import dump_json
from anachron.core.atomic import write_atomic, write_files_atomic



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


if __name__ == "__main__":
    unittest.main()
