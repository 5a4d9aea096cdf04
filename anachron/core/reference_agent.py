"""Keyless reference agents, deterministic and offline.

They exist so the whole pipeline (retrieval, trace, metrics) can be run and
checked with no model: ``anachron demo`` runs :func:`naive_trace`, and the
Inspect adapter mirrors the same behaviour as model providers.
"""

from __future__ import annotations

from typing import Any

from anachron.core.corpus import Sample
from anachron.core.errors import AnachronError
from anachron.core.search import Engine

__all__ = ["naive_answer", "naive_query", "naive_trace"]


def naive_query(subject: str) -> str:
    """The one search the naive agent makes: the *subject*, trimmed and lower-cased.

    >>> naive_query("  Cygnus Robotics ")
    'cygnus robotics'
    """
    if not isinstance(subject, str) or not subject.strip():
        raise AnachronError(f"the naive agent needs a non-empty subject, got {subject!r}")
    return subject.strip().lower()


def naive_answer(titles: list[str]) -> str:
    """The naive agent's final answer: the titles of what its search returned, in order.

    >>> naive_answer(["A rises", "B falls"])
    'From the archive: A rises; B falls.'
    >>> naive_answer([])
    'The archive has nothing on this subject.'
    """
    if not titles:
        return "The archive has nothing on this subject."
    return "From the archive: " + "; ".join(titles) + "."


def naive_trace(sample: Sample, engine: Engine, mode: str, *, k: int = 5) -> dict[str, Any]:
    """Run the naive agent on *sample*: one entity search through *engine* (any
    :class:`~anachron.core.search.Engine`, e.g. :class:`anachron.store.SearchEngine`),
    no follow-up, then :func:`naive_answer` (what the Inspect ``anachron/naive`` agent submits).

    Returns a trace record (docs/formats.md) for *mode*.
    """
    subject = sample.extra.get("subject")
    if not isinstance(subject, str) or not subject.strip():
        raise AnachronError(f"sample {sample.id}: the naive agent needs a non-empty string field 'subject'")
    query = naive_query(subject)
    hits = engine.search(query, as_of=sample.as_of, mode=mode, k=k)
    return {
        "sample_id": sample.id,
        "as_of": sample.as_of.isoformat(),
        "mode": mode,
        "interactions": [{"tool": "search", "query": query, "returned": [item.id for item in hits]}],
        "answer": naive_answer([item.title for item in hits]),
    }
