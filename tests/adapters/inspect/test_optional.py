"""The inspect extra stays optional: the core and the CLI never import inspect_ai, and
without it the adapter and `anachron export` name the install command.  These run with
or without the extra (inspect_ai is blocked in a subprocess)."""

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from tests.support import ROOT


def _subprocess(code, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code], cwd=cwd or ROOT, env=env, capture_output=True, text=True, timeout=60)


class ImportGuardTest(unittest.TestCase):
    BLOCK = "import sys; sys.modules['inspect_ai'] = None\n"

    def test_core_and_cli_never_import_inspect(self):
        run = _subprocess(
            "import sys, anachron, anachron.core, anachron.output.text_table\n"
            "from anachron.cli import build_parser\nbuild_parser()\n"
            "print('inspect_ai' in sys.modules)"
        )
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.strip(), "False")

    def test_adapter_without_inspect_names_the_install_command(self):
        run = _subprocess(self.BLOCK + "import anachron.core\nimport anachron.inspect")
        self.assertNotEqual(run.returncode, 0)
        last = run.stderr.strip().splitlines()[-1]
        self.assertTrue(last.startswith("ImportError: "), last)
        self.assertIn("pip install 'anachron[inspect]'", last)

    def test_export_without_inspect_exits_2_with_one_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp, "run.eval")
            log.write_text("not read")
            out = Path(tmp, "out.json")
            run = _subprocess(self.BLOCK + f"from anachron.cli import main\nsys.exit(main(['export', {str(log)!r}, '--out', {str(out)!r}]))")
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertEqual(run.stdout, "")
            self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
            self.assertIn("pip install 'anachron[inspect]'", run.stderr)
            self.assertFalse(out.exists())

    def test_score_from_inspect_without_inspect_names_the_install_once(self):
        with tempfile.TemporaryDirectory() as tmp:
            log = Path(tmp, "run.eval")
            log.write_text("not read")
            run = _subprocess(self.BLOCK + f"from anachron.cli import main\nsys.exit(main(['score', '--from', 'inspect', {str(log)!r}]))")
            self.assertEqual(run.returncode, 2, run.stderr)
            self.assertEqual(run.stdout, "")
            self.assertEqual(len(run.stderr.splitlines()), 1, run.stderr)
            self.assertTrue(run.stderr.startswith("anachron: --from inspect: "), run.stderr)
            self.assertEqual(run.stderr.count("pip install 'anachron[inspect]'"), 1, run.stderr)


if __name__ == "__main__":
    unittest.main()
