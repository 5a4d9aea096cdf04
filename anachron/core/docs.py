"""Where the documentation is, for messages and ``--help``: the wheel ships no ``docs/``.

A message names a page by its URL (:func:`doc_url`), and a section, where it
helps, by its title in quotes after it; the base is the project's
``Documentation`` URL (pyproject.toml, ``[project.urls]``; tests/cli/test_refusals_and_docs.py
checks the two agree and that every page named exists in ``docs/``).

>>> doc_url("metrics.md")
'https://github.com/anachron/anachron/blob/main/docs/metrics.md'
"""

from __future__ import annotations

__all__ = ["DOCS_URL", "doc_url"]

# The project's repository has no other published home; every docs link is built from this one base.
DOCS_URL = "https://github.com/anachron/anachron/blob/main/docs/"


def doc_url(page: str) -> str:
    """The URL of the docs page *page* (``metrics.md``)."""
    return DOCS_URL + page
