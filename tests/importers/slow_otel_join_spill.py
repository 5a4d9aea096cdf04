"""A ``--from otel`` import whose join index and records are on disk leaves no temporary file behind,
whether it ends, fails, or is killed (slow: each case is a process of its own, killed mid-import)."""

import os
import signal
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from tests.importers.test_otel_join_spill import sessions
from tests.support import ROOT

# Imports a log with the join index on disk from the first line (and SQLite's page cache at its least, so that
# the index is written to its file), lists the files this process holds open in TMPDIR, then ends as told.
_CHILD = """
import datetime, os, signal, sys
from anachron.importers import Options, import_logs, _otel, _otel_index
_otel._JOIN_BUDGET = 0
_otel_index._CACHE_KIB = 1
records = import_logs("otel", [sys.argv[1]], Options(as_of=datetime.date(2023, 1, 1)))
next(records)
tmp = os.environ["TMPDIR"]
for fd in os.listdir("/proc/self/fd"):
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        continue
    if target.startswith(tmp):
        print(target, flush=True)
how = sys.argv[2]
if how == "end":
    for _ in records:
        pass
elif how == "error":
    raise RuntimeError("a crash")
else:
    os.kill(os.getpid(), getattr(signal, how))
"""


@unittest.skipUnless(sys.platform.startswith("linux"), "reads /proc/self/fd")
class NoTemporaryFileLeft(unittest.TestCase):
    def test_an_import_that_ends_fails_or_is_killed_leaves_its_temporary_directory_empty(self):
        with tempfile.TemporaryDirectory() as folder:
            log = Path(folder) / "log.jsonl"
            log.write_text(sessions(300), encoding="utf-8")
            for how in ("end", "error", "SIGTERM", "SIGKILL"):
                with self.subTest(how=how), tempfile.TemporaryDirectory() as tmp:
                    env = {**os.environ, "TMPDIR": tmp, "PYTHONPATH": str(ROOT)}
                    done = subprocess.run([sys.executable, "-c", _CHILD, str(log), how], env=env, capture_output=True,
                                          text=True, timeout=300)
                    expected = {"end": 0, "error": 1}.get(how, -getattr(signal, how, 0))
                    self.assertEqual(done.returncode, expected, done.stderr[-2000:])
                    held = done.stdout.split("\n")[:-1]
                    # Open while the import ran: the records' file and SQLite's, each unlinked when made.
                    self.assertGreaterEqual(len(held), 2, held)
                    self.assertTrue(all(name.endswith(" (deleted)") for name in held), held)
                    self.assertEqual(os.listdir(tmp), [])


if __name__ == "__main__":
    unittest.main()
