"""Where the bundled corpus lives.

Apart from :mod:`anachron.core.corpus` (which re-exports it): a command that only checks its paths
against the bundled corpus (``anachron.cli.options.refuse_output_input``) or names the bundled bank
does not load the corpus reader, its facts and query intent with it.
"""

from __future__ import annotations

from pathlib import Path

from anachron.core.errors import AnachronError

__all__ = ["default_corpus_dir"]


def default_corpus_dir(version: str = "v0") -> Path:
    """Where the bundled corpus lives: ``corpus/`` of a clone, or inside the wheel."""
    package = Path(__file__).resolve().parent.parent  # .../anachron (this module is anachron/core/bundled.py)
    for candidate in (package / "corpus" / version, package.parent / "corpus" / version):
        if (candidate / "items.jsonl").is_file():
            return candidate
    raise AnachronError(f"the bundled corpus {version} is missing (looked in {package / 'corpus'} and {package.parent / 'corpus'})")
