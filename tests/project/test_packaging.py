"""The installed (non-editable) wheel finds its bundled corpus and runs the demo (slow_packaging.py builds it);
here, what pyproject.toml must say for the build to print no setuptools warning."""

import fnmatch
import re
import unittest

from tests.support import ROOT

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = None


@unittest.skipIf(tomllib is None, "tomllib is Python >= 3.11")
class PyprojectTest(unittest.TestCase):
    def setUp(self):
        self.config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

    def test_the_license_is_an_spdx_expression_not_a_table_or_classifier(self):
        project = self.config["project"]
        self.assertEqual(project["license"], "Apache-2.0")
        self.assertEqual([c for c in project["classifiers"] if c.startswith("License ::")], [])
        for name in project["license-files"]:
            self.assertTrue((ROOT / name).is_file(), name)

    def test_the_build_asks_for_a_setuptools_that_reads_it(self):
        (setuptools,) = [r for r in self.config["build-system"]["requires"] if r.startswith("setuptools")]
        self.assertGreaterEqual(int(re.fullmatch(r"setuptools>=(\d+)", setuptools).group(1)), 77)
        (tested,) = [r for r in self.config["project"]["optional-dependencies"]["test"] if r.startswith("setuptools")]
        self.assertEqual(tested, setuptools)  # the slow test builds without isolation, with the test extra's

    def test_every_package_of_the_source_is_listed(self):
        # a package missing from the list is left out of the wheel, silently (an import error for users)
        listed = set(self.config["tool"]["setuptools"]["packages"])
        found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "anachron").rglob("__init__.py")}
        self.assertEqual(sorted(found - listed), [])

    def test_every_corpus_folder_of_files_is_a_listed_package_shipping_each_file(self):
        tool = self.config["tool"]["setuptools"]
        self.assertEqual(tool["package-dir"], {"anachron.corpus": "corpus"})
        corpus = ROOT / "corpus"
        for folder in [corpus, *sorted(p for p in corpus.rglob("*") if p.is_dir())]:
            files = sorted(p.name for p in folder.iterdir() if p.is_file())
            if not files:
                continue
            package = ".".join(("anachron.corpus", *folder.relative_to(corpus).parts))
            with self.subTest(package=package):
                self.assertIn(package, tool["packages"])
                patterns = tool["package-data"][package]
                self.assertEqual([f for f in files if not any(fnmatch.fnmatch(f, p) for p in patterns)], [])


if __name__ == "__main__":
    unittest.main()
