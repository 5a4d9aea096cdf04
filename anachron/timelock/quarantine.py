"""Outcome quarantine: what the serving path may read and import.

While an agent is sealed in, ground truth (sample targets, bank answers,
real outcomes) must be unreachable.  The serving path (:mod:`anachron.timelock`,
:mod:`anachron.mcp`, the Inspect tools and ``anachron serve``) reads only
:data:`SERVED_FILES` of a corpus directory, never opens a file named in
:data:`OUTCOME_FILES`, and never imports a module under a package of
:data:`OUTCOME_PACKAGES`.  tests/timelock/test_quarantine.py walks the import graph
by these prefixes.
"""

__all__ = ["OUTCOME_FILES", "OUTCOME_PACKAGES", "SERVED_FILES", "is_outcome_module"]

SERVED_FILES = ("items.jsonl", "entities.jsonl")
OUTCOME_FILES = (
    "samples.jsonl",
    "bank.jsonl",
    "bank.manifest.json",
    "facts.jsonl",
    "targets.jsonl",
    "outcomes.jsonl",
)
# Packages holding ground truth or outcome analysis, with their command-line and Inspect faces.
OUTCOME_PACKAGES = ("anachron.bank", "anachron.research", "anachron.cli.bank", "anachron.cli.freeze", "anachron.inspect.bank")


def is_outcome_module(name: str) -> bool:
    """Whether module *name* is, or lies under, an outcome package."""
    return any(name == package or name.startswith(package + ".") for package in OUTCOME_PACKAGES)
