"""Every output of the product is byte-identical to its recording in tests/data/golden/.

The demo, the fixtures and the generated hostile sets, through the CLI as a user runs it: score
JSON, table, CSV and JSON Lines, import, compare, the HTML report, export, the bank,
score-events, verify-citations, freeze; stdout, stderr, exit status and every file written
(tests/golden_cases.py lists them).  Each run regenerates them all in a temporary directory
and compares.  An output that is meant to change is re-recorded with
tests/data/golden/record.py (and the change said in the CHANGELOG).

Recorded with Python 3.11; the same bytes come out on 3.12 and 3.13.  On 3.10 one case differs,
score/scale-csv: the scale fixture has a query with a NUL character, and Python 3.10's csv
module refuses to write it (``_csv.Error: need to escape``), so ``anachron score --format csv``
crashes there: a bug of the product on 3.10, not of this test.
"""

from __future__ import annotations

import difflib
import tempfile
import unittest
from pathlib import Path

from tests.golden_cases import CASES, GOLDEN, ROOT, record_all, recorded_files

DIFF_LINES = 40


def short_diff(name: str, recorded: bytes, now: bytes) -> str:
    """The first DIFF_LINES lines of a unified diff of two versions of file *name*."""
    def lines(data: bytes) -> list[str]:
        return data.decode("utf-8", "backslashreplace").splitlines(keepends=True)

    diff = list(difflib.unified_diff(lines(recorded), lines(now), f"recorded/{name}", f"now/{name}", n=2))
    if not diff:  # the same text, other bytes (line ends, invalid UTF-8): say where they part
        at = next((i for i, (a, b) in enumerate(zip(recorded, now)) if a != b), min(len(recorded), len(now)))
        return f"{name}: bytes differ from offset {at} ({len(recorded)} recorded, {len(now)} now)"
    shown = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in diff[:DIFF_LINES])
    more = f"... ({len(diff) - DIFF_LINES} more diff lines)\n" if len(diff) > DIFF_LINES else ""
    return f"{name} differs from its recording:\n{shown}{more}"


class GoldenOutputsTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="anachron-golden-test-")
        cls.fresh_dir = Path(cls._tmp.name) / "golden"
        cls.work = record_all(cls.fresh_dir)
        cls.recorded = recorded_files(GOLDEN)
        cls.fresh = recorded_files(cls.fresh_dir)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_the_recording_covers_every_invocation(self):
        self.assertGreater(len(CASES), 50)
        for case in CASES:
            self.assertIn(f"{case.name}.txt", self.recorded, f"{case.name}: not recorded; run tests/data/golden/record.py")

    def test_the_same_files_are_written(self):
        missing = sorted(set(self.recorded) - set(self.fresh))
        extra = sorted(set(self.fresh) - set(self.recorded))
        if missing or extra:
            self.fail(f"recorded but no longer written: {missing}; written but not recorded: {extra}")

    def test_every_output_is_byte_identical(self):
        for name in sorted(set(self.recorded) & set(self.fresh)):
            with self.subTest(file=name):
                recorded, now = self.recorded[name].read_bytes(), self.fresh[name].read_bytes()
                if recorded != now:
                    self.fail(short_diff(name, recorded, now))

    def test_no_output_names_a_path_of_this_machine(self):
        roots = {str(ROOT), str(self.work), str(self.work.parent), tempfile.gettempdir(), str(Path.home())}
        roots = sorted(root for root in roots if len(root) > 1)
        for name, path in sorted(self.fresh.items()):
            data = path.read_bytes()
            for root in roots:
                with self.subTest(file=name, root=root):
                    self.assertNotIn(root.encode(), data, f"{name} names {root}")


if __name__ == "__main__":
    unittest.main()
