"""The test suite's own layout: it mirrors the package, every test file is found by one of the
README's two test commands (``test_*.py`` fast, ``slow_*.py`` slow), both of which CI runs, and
the benchmarks import nothing of the tests."""

from __future__ import annotations

import ast
import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
# Folders of tests/ that are not a package of anachron/: what spans packages, and data.
NOT_A_PACKAGE = {"adapters": "tests of anachron/inspect and anachron/mcp", "project": "what spans the package",
                 "data": "inputs", "fixtures_build": "scripts that build tests/data"}


def _defines_a_test(path: Path) -> bool:
    """A class with a ``test_*`` method (a shared base class with none is a helper)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.ClassDef) and any(
        isinstance(item, ast.FunctionDef) and item.name.startswith("test") for item in node.body)
        for node in tree.body)


class SuiteLayoutTest(unittest.TestCase):
    def test_every_test_folder_names_a_package(self):
        packages = {p.name for p in (ROOT / "anachron").iterdir() if (p / "__init__.py").is_file()}
        for folder in sorted(p for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))):
            with self.subTest(folder=folder.name):
                self.assertTrue(folder.name in packages or folder.name in NOT_A_PACKAGE,
                                f"tests/{folder.name}/ mirrors no package of anachron/")

    def test_every_file_with_tests_is_found_by_a_test_command(self):
        for path in sorted(TESTS.rglob("*.py")):
            if "data" in path.relative_to(TESTS).parts:
                continue
            with self.subTest(path=str(path.relative_to(ROOT))):
                if _defines_a_test(path):
                    self.assertRegex(path.name, r"^(test|slow)_\w+\.py$", "neither command would run it")

    def test_the_benchmarks_import_no_tests(self):
        for path in sorted((ROOT / "benchmarks").rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                    [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                for name in names:
                    with self.subTest(path=str(path.relative_to(ROOT)), line=node.lineno):
                        self.assertNotEqual(name.split(".")[0], "tests")

    def test_ci_runs_both_commands_of_the_readme(self):
        readme = (ROOT / "README.md").read_text(encoding="utf-8")
        commands = re.findall(r"^python -m unittest discover .*$", readme, flags=re.MULTILINE)
        self.assertEqual(commands, ['python -m unittest discover -s tests',
                                    'python -m unittest discover -s tests -p "slow_*.py"'])
        ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
        for command in commands:
            with self.subTest(command=command):
                self.assertIn(command, ci)


if __name__ == "__main__":
    unittest.main()
