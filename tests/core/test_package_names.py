"""``anachron.core``'s names, each imported from its module when first used (PEP 562)."""

from __future__ import annotations

import importlib
import unittest

import anachron.core


class PackageNamesTest(unittest.TestCase):
    def test_every_public_name_is_its_modules_object(self):
        self.assertEqual(sorted(anachron.core.__all__), sorted(anachron.core._API))
        for name in anachron.core.__all__:
            with self.subTest(name=name):
                value = getattr(anachron.core, name)
                self.assertIs(value, getattr(importlib.import_module(anachron.core._API[name]), name))
                self.assertIn(name, dir(anachron.core))
        from anachron.core import AnachronError, compare_modes  # noqa: F401  (the spelling callers use)

    def test_a_submodule_reads_as_an_attribute_and_anything_else_is_no_attribute(self):
        self.assertIs(anachron.core.jsonio, importlib.import_module("anachron.core.jsonio"))
        for name in ("no_such_name", "_private", "leakagex"):
            with self.subTest(name=name), self.assertRaisesRegex(AttributeError, f"has no attribute '{name}'"):
                getattr(anachron.core, name)


if __name__ == "__main__":
    unittest.main()
