"""Record the golden outputs that tests/project/slow_golden.py compares byte for byte.

Run only when an output is meant to change; say so in the CHANGELOG (which output changed, and
why).  A re-layout of the package, a refactor or a speed-up must leave every file here as it
is: that is what the test proves.

    python tests/data/golden/record.py

It runs every invocation of tests/golden_cases.py (``python -m anachron ...`` in a fresh
temporary directory, standard-library paths only), then replaces every file of this directory
but this script with what they wrote.  The inputs it generates (tests/golden_inputs.py, seeded)
are recorded under ``_inputs/``.  The recording is deterministic: running it twice gives the
same bytes (``git status`` shows nothing after a second run).  What each file holds:
tests/golden_cases.py.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.golden_cases import CASES, GOLDEN, NOT_RECORDED, record_all  # noqa: E402


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="anachron-golden-record-") as tmp:
        fresh = Path(tmp) / "golden"
        record_all(fresh)  # everything is recorded before anything here is replaced
        for entry in sorted(GOLDEN.iterdir()):
            if entry.name in NOT_RECORDED or entry.name == "__pycache__":
                continue
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        for entry in sorted(fresh.iterdir()):
            shutil.move(str(entry), str(GOLDEN / entry.name))
    size = sum(p.stat().st_size for p in GOLDEN.rglob("*") if p.is_file())
    print(f"recorded {len(CASES)} invocations in {GOLDEN.relative_to(ROOT)} ({size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
