"""The slow tests beside test_packaging.py, whose docstring states the rules they hold: WheelTest.

They start processes, browsers or servers, or build large inputs, so the README's second test command runs them
(``python -m unittest discover -s tests -p "slow_*.py"``), as CI does.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from pathlib import Path
from tests.support import ROOT, extras_required, require_extra


class WheelTest(unittest.TestCase):
    def test_wheel_ships_the_corpus_and_the_demo_runs_from_it(self):
        require_extra("setuptools", "test")
        require_extra("wheel", "test")  # setuptools < 70 builds wheels through it
        import setuptools

        if int(setuptools.__version__.split(".")[0]) < 77:  # built without isolation: the installed one must read pyproject
            message = f"setuptools {setuptools.__version__} is older than the test extra's >= 77; pip install -e '.[test]'"
            if extras_required():
                self.fail(message)
            self.skipTest(message)
        # pip leaves both in the tree; the egg-info would hide the installed package's record
        # (docs/inspect.md) from every later process run with the tree on PYTHONPATH.
        for leftover in (ROOT / "anachron.egg-info", ROOT / "build"):
            if not leftover.exists():
                self.addCleanup(shutil.rmtree, leftover, ignore_errors=True)
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            build = subprocess.run(
                [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v", "-w", str(tmp / "dist"), str(ROOT)],
                capture_output=True, text=True, timeout=300,
            )
            self.assertEqual(build.returncode, 0, build.stderr)
            # -v shows the backend's output: setuptools warns of nothing in pyproject.toml.
            for warning in ("SetuptoolsDeprecationWarning", "is absent from the `packages` configuration"):
                self.assertNotIn(warning, build.stdout + build.stderr)
            (wheel,) = (tmp / "dist").glob("anachron-*.whl")
            names = zipfile.ZipFile(wheel).namelist()
            for name in ("items.jsonl", "entities.jsonl", "samples.jsonl"):
                self.assertIn(f"anachron/corpus/v0/{name}", names)
            self.assertFalse([n for n in names if n.startswith("tests/")])
            # pyproject lists packages by hand: a package left off the list would be missing here.
            modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "anachron").rglob("*.py")}
            self.assertEqual(sorted(modules - set(names)), [])

            target = tmp / "site"
            install = subprocess.run(
                [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", str(target), str(wheel)],
                capture_output=True, text=True, timeout=300,
            )
            self.assertEqual(install.returncode, 0, install.stderr)
            run = subprocess.run(
                [sys.executable, "-c", "import anachron.core as c, anachron; print(c.default_corpus_dir()); "
                 "import sys; from anachron.cli import main; sys.exit(main(['demo', '--out', 'o']))"],
                cwd=tmp, env=dict(os.environ, PYTHONPATH=str(target)), capture_output=True, text=True, timeout=120,
            )
            self.assertEqual(run.returncode, 0, run.stderr)
            first = run.stdout.splitlines()[0]
            self.assertTrue(first.startswith(str(target)), first)
            self.assertIn("Worked cases", run.stdout)


if __name__ == "__main__":
    unittest.main()
