"""Shared test helpers.

``require_extra`` guards tests of an optional extra.  Locally a missing extra
skips those tests; in CI (``CI`` or ``ANACHRON_REQUIRE_EXTRAS`` set) it is a
failure, because a skipped suite there would hide a missing install step.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def extras_required() -> bool:
    return bool(os.environ.get("ANACHRON_REQUIRE_EXTRAS") or os.environ.get("CI"))


def require_extra(module: str, extra: str) -> None:
    """Skip (locally) or fail (in CI) when *module* of *extra* is missing."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        message = f"optional extra {extra!r} is not installed ({module}: {exc}); pip install -e '.[{extra}]'"
        if extras_required():
            raise AssertionError(message) from exc
        raise unittest.SkipTest(message) from exc


def inspect_command() -> list[str]:
    """Inspect's `inspect` command, run by this interpreter (``python -m inspect_ai``): the console
    script is on PATH only in an activated environment, and a venv's python run by its path has
    its bin directory off PATH.  Skips (locally) or fails (in CI) without the extra."""
    require_extra("inspect_ai", "inspect")
    return [sys.executable, "-m", "inspect_ai"]


def run_cli(*argv: str, entry=None) -> tuple[int, str, str]:
    """Run the ``anachron`` CLI in-process; return (status, stdout, stderr)."""
    from anachron.cli import main

    entry = entry or main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = entry(list(argv))
        except SystemExit as exc:  # argparse exits on usage errors and --help
            status = exc.code if isinstance(exc.code, int) else 1
    return status, out.getvalue(), err.getvalue()


def inspect_module_setup():
    """What a module of Inspect tests needs first: the extra (or a skip), quiet warnings, a scratch folder."""
    import tempfile
    import warnings

    require_extra("inspect_ai", "inspect")
    warnings.filterwarnings("ignore", category=ResourceWarning, module=r"anyio\.")
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"inspect_ai\.")
    return tempfile.TemporaryDirectory()


def _written(writer_class, results) -> str:
    from anachron.core.leakage import summarise

    out = io.StringIO()
    writer = writer_class(out)
    try:
        for result in results:
            writer.sample(result)
        writer.finish(summarise(results))
    finally:
        writer.close()
    return out.getvalue()


def score_json(results) -> str:
    """The score JSON of *results*, as ``anachron score --format json`` writes it (its writer, in process)."""
    from anachron.output.stream import JsonWriter

    return _written(JsonWriter, results)


def score_table(results) -> str:
    """The table of *results*, as ``anachron score`` writes it (its writer, in process)."""
    from anachron.output.stream import TableWriter

    return _written(TableWriter, results)
