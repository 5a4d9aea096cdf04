"""The package's layering, checked over its source.

0. Every package of ``anachron`` has its place in :data:`LAYERS`, a declared
   order from the bottom up, and imports (at module level or inside a
   function) only the packages of the layers below its own, and itself.
   Packages of one layer never import each other.  The package face
   (``anachron/__init__.py``, ``__main__``) is the top; any module may take
   ``__version__`` from it.
1. ``anachron/core`` is the bottom layer: no import, at module level or inside
   a function, of another ``anachron`` package, no relative import that
   climbs out of core, and nothing outside the standard library
   (``sys.stdlib_module_names``).  ``importlib.import_module("...")`` and
   ``__import__("...")`` with a literal name count as imports.
2. No module takes a private name (one beginning with ``_``, dunders such as
   ``__version__`` excepted) from another ``anachron`` module: neither
   ``from x import _y`` of a function, class or constant, nor ``x._y`` on a
   module bound by an import.  A private *module* is private to the package
   that holds it: ``from . import _parser`` and ``from ._parser import parse``
   are fine inside that package (the "private modules behind a public face"
   pattern), and ``import a._b`` / ``from a._b import c`` from outside ``a``
   are not.  Imports of third-party packages are not judged here.
3. Without any third-party package installed (the README's test command in a
   bare virtual environment), every module except the adapters imports:
   :data:`ADAPTERS` are the only packages that import an optional extra
   (inspect-ai, mcp, psycopg, ...) at module level; elsewhere an extra is
   imported where it is used.  Checked by importing each module in a fresh
   interpreter whose import system refuses every non-stdlib package.

Each check lists every offending ``file:line: import`` in one failure.  The
``SelfTest`` cases feed the checkers synthetic sources they must refuse, so a
checker that matches nothing cannot pass unnoticed.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

from tests.support import ROOT

PACKAGE = "anachron"
CORE = "anachron.core"
# The subpackages that exist to wrap an optional extra; they import it at module level.
ADAPTERS = ("anachron.inspect", "anachron.mcp")

# The house from the bottom up: a package imports only the layers below its own.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("anachron.core",),  # the leakage domain, standard library only
    ("anachron.store",),  # every corpus backend
    ("anachron.timelock",),  # the one time lock over a store or an upstream
    ("anachron.importers", "anachron.bank", "anachron.research"),  # logs as traces; the question bank; study gates
    ("anachron.forecasts",),  # forecast scoring (the bank's model cutoffs)
    ("anachron.output",),  # streams, records, CSV, the HTML report and the notebook displays
    ("anachron.inspect", "anachron.mcp"),  # the adapters over optional extras
    ("anachron.launch",),  # sealed launchers
    ("anachron.cli",),  # the commands
    ("anachron",),  # the package face: __init__ and __main__
)


def source_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__.py``)."""
    modules = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


class _Importer:
    """Resolves the imports of one module, named *name* (*is_package*: it is a package's ``__init__``)."""

    def __init__(self, name: str, is_package: bool) -> None:
        self.name = name
        self.package = name if is_package else name.rpartition(".")[0]

    def absolute(self, level: int, module: str | None) -> str | None:
        """The module a ``from`` import names; None when a relative one climbs above the top package."""
        if not level:
            return module
        parts = self.package.split(".")
        if level - 1 >= len(parts):
            return None
        base = parts[: len(parts) - (level - 1)]
        return ".".join(base + ([module] if module else []))

    def imports(self, tree: ast.AST):
        """``(line, text, module, names)`` for every import at any depth; *names* is None for ``import m``."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield node.lineno, ast.unparse(node), alias.name, None
            elif isinstance(node, ast.ImportFrom):
                target = self.absolute(node.level, node.module)
                yield node.lineno, ast.unparse(node), target, [alias.name for alias in node.names]
            elif isinstance(node, ast.Call) and self._dynamic(node):
                name = node.args[0].value
                level = len(name) - len(name.lstrip("."))
                target = self.absolute(level, name[level:] or None) if level else name
                yield node.lineno, ast.unparse(node), target, None

    @staticmethod
    def _dynamic(node: ast.Call) -> bool:
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        return (
            called in ("import_module", "__import__")
            and bool(node.args)
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        )


def core_violations(name: str, is_package: bool, source: str) -> list[str]:
    """What a module under ``anachron/core`` imports from outside core and the standard library."""
    if not _within(name, CORE):
        return []
    importer = _Importer(name, is_package)
    found = []
    for line, text, module, names in importer.imports(ast.parse(source)):
        if module is None:
            found.append(f"{line}: {text} (climbs above the top package)")
            continue
        top = module.partition(".")[0]
        if top == PACKAGE:
            if module == PACKAGE and names:  # `from anachron import core` is only a way to spell anachron.core
                outside = [n for n in names if f"{PACKAGE}.{n}" != CORE]
                if not outside:
                    continue
            if not _within(module, CORE):
                found.append(f"{line}: {text} (imports {module}, outside {CORE})")
        elif top not in sys.stdlib_module_names:
            found.append(f"{line}: {text} (imports {top}, not in the standard library)")
    return sorted(found, key=lambda entry: int(entry.partition(":")[0]))


def package_of(module: str, layers=LAYERS) -> str | None:
    """The declared package holding *module* (the longest one that contains it), or None."""
    face = (PACKAGE, f"{PACKAGE}.__main__")  # the face holds these two modules, not the packages below it
    declared = [name for layer in layers for name in layer if (module in face if name == PACKAGE else _within(module, name))]
    return max(declared, key=len) if declared else None


def layer_violations(name: str, is_package: bool, source: str, layers=LAYERS) -> list[str]:
    """Where a module imports a package of its own layer or of a layer above it (its own package excepted)."""
    rank = {package: i for i, layer in enumerate(layers) for package in layer}
    own = package_of(name, layers)
    if own is None:
        return [f"1: module {name} is in no package of LAYERS: give its package a layer"]
    importer = _Importer(name, is_package)
    found = []
    for line, text, module, names in importer.imports(ast.parse(source)):
        if module is None or not _within(module, PACKAGE):
            continue
        if module == PACKAGE and names:
            # `from anachron import core` names a package; `from anachron import __version__` the face's one constant.
            targets = [f"{PACKAGE}.{n}" for n in names if n != "__version__"]
        else:
            targets = [module]
        for target in targets:
            other = package_of(target, layers)
            if other is None or other == own:
                continue
            if rank[other] >= rank[own]:
                where = "its own layer" if rank[other] == rank[own] else "a layer above"
                found.append(f"{line}: {text} ({own} imports {other}, {where})")
    return sorted(found, key=lambda entry: int(entry.partition(":")[0]))


def private_violations(name: str, is_package: bool, source: str, modules: set[str]) -> list[str]:
    """Where a module takes a private name or private module of another ``anachron`` module.

    *modules* are the dotted names of the package's modules: they tell a
    private submodule (``from . import _text``) from a private name.
    """
    importer = _Importer(name, is_package)
    tree = ast.parse(source)
    found = []

    def private_path(module: str) -> str | None:
        """The first private module on *module*'s path that *name* may not reach, if any."""
        parts = module.split(".")
        for i, part in enumerate(parts):
            if _private(part) and not _within(name, ".".join(parts[:i])):
                return ".".join(parts[: i + 1])
        return None

    for line, text, module, names in importer.imports(tree):
        if module is None or not _within(module, PACKAGE):
            continue
        blocked = private_path(module)
        if blocked:
            found.append(f"{line}: {text} (private module {blocked})")
            continue
        taken = []
        for imported in names or ():
            full = f"{module}.{imported}"
            if full in modules:
                blocked = private_path(full)
                if blocked:
                    taken.append(f"private module {blocked}")
            elif _private(imported):
                taken.append(f"private name {imported} of {module}")
        if taken:
            found.append(f"{line}: {text} ({'; '.join(taken)})")
    # Names bound to anachron modules by imports, for the attribute check below.
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _within(alias.name, PACKAGE):
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound[alias.name.partition(".")[0]] = alias.name.partition(".")[0]
        elif isinstance(node, ast.ImportFrom):
            module = importer.absolute(node.level, node.module)
            for alias in node.names:
                if module and f"{module}.{alias.name}" in modules:
                    bound[alias.asname or alias.name] = f"{module}.{alias.name}"
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        chain, value = [], node.value
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or value.id not in bound:
            continue
        owner = ".".join([bound[value.id], *reversed(chain)])
        if owner not in modules or owner == name:
            continue
        full = f"{owner}.{node.attr}"
        if full in modules and not private_path(full):
            continue
        found.append(f"{node.lineno}: {ast.unparse(node)} (private name {node.attr} of {owner})")
    return sorted(found, key=lambda entry: int(entry.partition(":")[0]))


def _report(title: str, problems: dict[str, list[str]]) -> str:
    lines = [title]
    for path, entries in problems.items():
        lines += [f"  {path}:{entry}" for entry in entries]
    return "\n".join(lines)


def _each_module(check):
    modules = source_modules()
    names = set(modules)
    problems = {}
    for name, path in modules.items():
        found = check(name, path.name == "__init__.py", path.read_text(encoding="utf-8"), names)
        if found:
            problems[path.relative_to(ROOT).as_posix()] = found
    return modules, problems


class Layering(unittest.TestCase):
    def test_the_modules_are_found(self):
        modules = source_modules()
        self.assertIn(CORE, modules)
        self.assertIn("anachron.core.stats.wilson", modules)
        self.assertGreater(len([m for m in modules if _within(m, CORE)]), 10)

    def test_every_package_has_a_layer(self):
        packages = {
            ".".join(path.relative_to(ROOT).parent.parts)
            for path in (ROOT / PACKAGE).rglob("__init__.py")
        }
        self.assertEqual({p for p in packages if package_of(p) is None}, set())

    def test_each_package_imports_only_the_layers_below(self):
        _, problems = _each_module(lambda name, is_package, source, _: layer_violations(name, is_package, source))
        if problems:
            self.fail(_report("imports that run back up (tests/project/test_layering.py, LAYERS):", problems))

    def test_core_imports_only_itself_and_the_standard_library(self):
        _, problems = _each_module(lambda name, is_package, source, _: core_violations(name, is_package, source))
        if problems:
            self.fail(_report(f"{CORE} imports from outside itself and the standard library:", problems))

    def test_no_private_name_is_taken_from_another_module(self):
        _, problems = _each_module(private_violations)
        if problems:
            self.fail(_report("private names or modules taken from another module:", problems))


# Run in a fresh interpreter: refuse every top-level package outside the
# standard library but those allowed (argv[2], comma-separated), import each
# module named after it, and print (as JSON) the ones that fail, with the
# innermost line under the root (argv[1]) that was running.
_BARE_IMPORTS = r"""
import importlib, json, sys, traceback

root, allowed = sys.argv[1], set(sys.argv[2].split(","))

class Refuse:
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top not in allowed and top not in sys.stdlib_module_names:
            raise ModuleNotFoundError(f"No module named {name!r} (no third-party package here)", name=name)
        return None

sys.meta_path.insert(0, Refuse())
failures = {}
for module in sys.argv[3:]:
    try:
        importlib.import_module(module)
    except BaseException as exc:
        where = [f"{frame.filename[len(root) + 1:]}:{frame.lineno}: {frame.line}"
                 for frame in traceback.extract_tb(exc.__traceback__) if frame.filename.startswith(root)]
        failures[module] = f"{where[-1] if where else '?'} ({type(exc).__name__}: {exc})"
print(json.dumps(failures))
"""


def bare_import_failures(names: list[str], root: Path = ROOT, allowed: tuple[str, ...] = (PACKAGE,)) -> dict[str, str]:
    """Which of *names* (importable from *root*) fail to import when no package but *allowed* and the stdlib can."""
    done = subprocess.run(
        [sys.executable, "-c", _BARE_IMPORTS, str(root), ",".join(allowed), *names],
        capture_output=True, text=True, cwd=root, env=dict(os.environ, PYTHONPATH=str(root)), timeout=300,
    )
    if done.returncode:
        raise AssertionError(f"the import check itself failed:\n{done.stderr}")
    return json.loads(done.stdout)


class OptionalExtras(unittest.TestCase):
    def test_only_the_adapters_need_a_third_party_package_to_import(self):
        names = [
            name for name in source_modules()
            if not any(_within(name, adapter) for adapter in ADAPTERS)
            and not name.endswith(".__main__")  # runs the command line when imported
        ]
        failures = bare_import_failures(names)
        if failures:
            self.fail(
                "modules that import a third-party package at import time (import it where it is used):\n"
                + "\n".join(f"  {name}: {why}" for name, why in failures.items())
            )

    def test_the_check_refuses_an_eager_import_only(self):
        # A package that is really there (the refusal must not depend on it
        # being missing), imported eagerly by one module and lazily by another.
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder).resolve()
            (root / "probe_extra").mkdir()
            (root / "probe_extra" / "__init__.py").write_text("")
            (root / "probe_eager.py").write_text("import json\nimport probe_extra\n")
            (root / "probe_lazy.py").write_text("def use():\n    import probe_extra\n")
            failures = bare_import_failures(["probe_eager", "probe_lazy"], root, ("probe_eager", "probe_lazy"))
        self.assertEqual(list(failures), ["probe_eager"])
        self.assertIn("probe_eager.py:2: import probe_extra", failures["probe_eager"])


class SelfTest(unittest.TestCase):
    """The checkers refuse what they must and pass what they may."""

    MODULES = {
        "anachron", "anachron.core", "anachron.core.corpus", "anachron.core.errors", "anachron.store",
        "anachron.output.html", "anachron.output.html._text", "anachron.output.html.page", "anachron.cli", "anachron.cli.serve",
    }

    def core(self, source, name="anachron.core.corpus", is_package=False):
        return core_violations(name, is_package, textwrap.dedent(source))

    def private(self, source, name="anachron.cli.serve", is_package=False):
        return private_violations(name, is_package, textwrap.dedent(source), self.MODULES)

    def test_core_refuses_the_rest_of_the_package(self):
        self.assertEqual(len(self.core("from anachron.store import index\nimport anachron.output.html\n")), 2)
        self.assertEqual(len(self.core("from ..store import index\nfrom .. import __version__\n")), 2)
        self.assertEqual(len(self.core("from anachron import store\n")), 1)

    def test_core_refuses_lazy_and_dynamic_imports(self):
        found = self.core(
            """
            def render(x):
                from ..html.report import render
                import importlib
                return importlib.import_module("anachron.output.stream"), __import__("psycopg")
            """
        )
        self.assertEqual([entry.partition(":")[0] for entry in found], ["3", "5", "5"])

    def test_core_refuses_third_party_and_climbing_out(self):
        self.assertEqual(len(self.core("import numpy\nfrom mcp.server import Server\n")), 2)
        self.assertEqual(len(self.core("from .... import x\n")), 1)
        self.assertIn("climbs above", self.core("from .... import x\n")[0])

    def test_core_passes_itself_and_the_standard_library(self):
        source = """
            from __future__ import annotations
            import json, os.path
            from . import errors
            from .errors import AnachronError
            from anachron.core.errors import AnachronError
            from anachron import core
            from .stats.wilson import wilson_interval
            """
        self.assertEqual(self.core(source), [])
        self.assertEqual(self.core("from .. import errors\n", name="anachron.core.stats.wilson"), [])
        self.assertEqual(self.core("from anachron.store import index\n", name="anachron.store.memory"), [])

    LAYERS = (("anachron.core",), ("anachron.store", "anachron.bank"), ("anachron.output",), ("anachron",))

    def layered(self, source, name="anachron.store.memory", is_package=False):
        return layer_violations(name, is_package, textwrap.dedent(source), self.LAYERS)

    def test_layers_refuse_imports_up_and_across(self):
        found = self.layered(
            """
            from anachron.core.dates import parse_date
            from anachron.store.spec import open_corpus
            from anachron.output.html import report_html
            def later():
                from anachron.bank.run import BankRun
                import anachron.output.records
            """
        )
        self.assertEqual([entry.partition(":")[0] for entry in found], ["4", "6", "7"])
        self.assertIn("a layer above", found[0])
        self.assertIn("its own layer", found[1])

    def test_layers_pass_what_lies_below_and_the_version(self):
        source = "from anachron import __version__\nfrom anachron import core\nfrom anachron.core import errors\n"
        self.assertEqual(self.layered(source, name="anachron.output.records"), [])
        self.assertEqual(self.layered("from anachron.store import bank\n", name="anachron.output"), [])
        self.assertEqual(len(self.layered("from anachron import output\n", name="anachron.bank.run")), 1)
        self.assertEqual(self.layered("from anachron.cli import main\n", name="anachron"), [])

    def test_a_module_outside_every_layer_is_reported(self):
        self.assertEqual(len(self.layered("import os\n", name="anachron.newroom.x")), 1)

    def test_private_names_are_refused(self):
        found = self.private("from ..core.corpus import Corpus, _item, _check_links\n")
        self.assertEqual(len(found), 1)
        self.assertIn("_item", found[0])
        self.assertIn("_check_links", found[0])
        # Within one package too: a private name is private to its module.
        self.assertEqual(len(self.private("from .report import _escape\n", name="anachron.output.html", is_package=True)), 1)
        self.assertEqual(len(self.private("from .report import _escape\n", name="anachron.output.html._text")), 1)

    def test_private_attributes_of_an_imported_module_are_refused(self):
        found = self.private(
            """
            from ..core import corpus
            import anachron.core.errors as errors
            import anachron.core.corpus
            def f(x):
                return corpus._item(x), errors._where, anachron.core.corpus._item, x._fine, corpus.public
            """
        )
        self.assertEqual([entry.partition(":")[0] for entry in found], ["6", "6", "6"])

    def test_private_modules_are_private_to_their_package(self):
        self.assertEqual(len(self.private("import anachron.output.html._text\n")), 1)
        self.assertEqual(len(self.private("from ..html._text import plain\n")), 1)
        self.assertEqual(len(self.private("from ..html import _text\n")), 1)
        inside = "from . import _text\nfrom ._text import plain\nfrom anachron.output.html._text import plain\n_text.plain\n"
        self.assertEqual(self.private(inside, name="anachron.output.html", is_package=True), [])
        self.assertEqual(self.private(inside, name="anachron.output.html.page"), [])

    def test_dunders_and_third_party_are_not_judged(self):
        source = "from __future__ import annotations\nfrom .. import __version__\nfrom inspect_ai._util import x\n"
        self.assertEqual(self.private(source), [])


if __name__ == "__main__":
    unittest.main()
