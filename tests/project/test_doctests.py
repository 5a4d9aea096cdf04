"""Every module's ``>>>`` examples, run as part of the suite.

The modules are found by :func:`pkgutil.walk_packages` over ``anachron``, so a
module that moves or is added is picked up without a change here.  A module
that does not import is a failure of its own, never a silent omission; the one
exception is a module that needs an optional extra (inspect-ai, mcp, psycopg)
that is not installed: that is skipped locally and fails in CI
(``ANACHRON_REQUIRE_EXTRAS``), as tests/support.py does for the extras' tests.
``anachron.__main__`` is left out: importing it runs the command line.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import unittest

import anachron

from tests.support import extras_required

# The import name of each optional extra's package -> the extra that installs it.
EXTRAS = {"inspect_ai": "inspect", "mcp": "mcp", "psycopg": "postgres"}
SKIPPED = {"anachron.__main__"}


def module_names() -> list[str]:
    """``anachron`` and every module below it, as walk_packages finds them (import errors are reported later)."""
    found = [anachron.__name__]
    for info in pkgutil.walk_packages(anachron.__path__, anachron.__name__ + ".", onerror=lambda name: None):
        if info.name not in SKIPPED:
            found.append(info.name)
    return found


def missing_extra(error: BaseException) -> tuple[str, str] | None:
    """``(module, extra)`` when *error*, or an error it was raised from, is a missing extra's package."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ModuleNotFoundError) and error.name:
            top = error.name.partition(".")[0]
            if top in EXTRAS:
                return top, EXTRAS[top]
        error = error.__cause__ or error.__context__
    return None


def import_failure(module: str, error: Exception) -> unittest.TestCase:
    """A test standing in for the doctests of *module*, which raised *error* on import: it fails, or skips for a missing extra."""

    def check() -> None:
        missing = missing_extra(error)
        if missing and not extras_required():
            raise unittest.SkipTest(f"{module} needs the {missing[1]!r} extra ({missing[0]} is not installed)")
        raise AssertionError(f"{module} does not import: {type(error).__name__}: {error}") from error

    check.__name__ = check.__qualname__ = module  # what the failure's heading names
    return unittest.FunctionTestCase(check, description=f"doctests of {module}")


def load_tests(loader: unittest.TestLoader, tests: unittest.TestSuite, pattern: str | None) -> unittest.TestSuite:
    for name in module_names():
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # reported as a failing (or, for a missing extra, skipped) test
            tests.addTest(import_failure(name, exc))
            continue
        tests.addTests(doctest.DocTestSuite(module))
    return tests


class Discovery(unittest.TestCase):
    def test_every_layer_is_found(self):
        names = module_names()
        for expected in ("anachron", "anachron.core.dates", "anachron.core.stats.wilson", "anachron.store.memory"):
            self.assertIn(expected, names)
        self.assertNotIn("anachron.__main__", names)

    def test_a_missing_extra_is_told_from_a_broken_module(self):
        try:
            try:
                import inspect_ai_missing_for_this_test  # noqa: F401
            except ModuleNotFoundError as exc:
                exc.name = "mcp.server"
                raise ImportError("anachron.mcp needs the official MCP SDK") from exc
        except ImportError as wrapped:
            self.assertEqual(missing_extra(wrapped), ("mcp", "mcp"))
        self.assertIsNone(missing_extra(ModuleNotFoundError("No module named 'numpy'", name="numpy")))
        self.assertIsNone(missing_extra(SyntaxError("bad")))

    def test_a_module_that_does_not_import_fails(self):
        result = unittest.TestResult()
        import_failure("anachron.broken", SyntaxError("bad")).run(result)
        self.assertEqual(len(result.failures), 1)
        self.assertIn("anachron.broken does not import", result.failures[0][1])


if __name__ == "__main__":
    unittest.main()
