"""The leak split: each sample's forecast counted as leaked, unverified or clean.

It reads one sample's leakage scores (a record of ``anachron score --format
json``) through :func:`leak_class`:

- ``leaked``: any post-T result, survivorship, restatement, query-intent,
  content or answer leak, or a seal breach;
- ``unverified`` (cannot tell; never clean): no leak, but an undated or
  uncertain interaction, an unrecorded call, a date conflict or a revision
  risk (an item modified after T), an importer's warning on the log
  (``warnings``: items of an unknown type skipped, no tool call recorded), or a seal
  audit that could not show the calls went through the lock (``seal_status``
  ``unverified`` or ``lock-only``; a record without the field reads as
  :func:`anachron.core.seal.stored_status` says);
- ``clean``: neither.

A count that is absent or null reads as 0 (``seal_breaches`` is null when
the run was not audited); any other count must be a non-negative integer,
and ``warnings`` (absent: none) a list of strings, or it is an error naming
*where*.

>>> leak_class({"content_leaks": 2, "undated": 1}), leak_class({"warnings": ["skipped 1 item"]})
('leaked', 'unverified')

**Leak inflation** is the mean Brier over all samples minus the mean over
the clean ones (:func:`anachron.forecasts.model_score.score_model` computes
it with its paired CI).  The split by answer-leak source
(:func:`leak_sources`: :data:`SOURCES`) repeats it over the clean samples
plus those whose answer stated a retrieved (or parametric) post-T fact.
"""

from __future__ import annotations

from typing import Any, Mapping

from anachron.core.errors import AnachronError, describe

__all__ = ["SOURCES", "leak_class", "leak_sources"]

# Per-sample counts of anachron score that make a sample leaked / unverified.
_LEAK_COUNTS = (
    "result_leaks", "survivorship_leaks", "restatement_leaks", "query_intent_leaks", "content_leaks",
    "answer_leaks_retrieved", "answer_leaks_parametric", "seal_breaches",
)
# A revision risk (an item showing a modification after T) is doubt: what the agent read may hold
# edits made after T, and a modification stamp is read only here, not as a content leak.
_DOUBT_COUNTS = ("undated", "unrecorded", "date_conflicts", "revision_risks")
# Seal statuses that leave the run's other channels open (anachron.core.seal): a seal audit that ran
# and could not show every call went through the lock.  Not audited (null) and "no verdict" (no call
# to judge) leave the sample to its trace's judgement.
_DOUBT_STATUSES = ("unverified", "lock-only")
SOURCES = ("retrieved", "parametric")  # where an answer's post-T fact came from (answer_leaks_<source>)


def _count(sample: Mapping[str, Any], name: str, where: str) -> int:
    value = sample.get(name, 0)
    if value is None:
        return 0  # seal_breaches is null when the run was not audited: no breach found (and none claimed)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise AnachronError(f"{where}: {name} is {describe(value)}, expected a non-negative integer")
    return value


def leak_class(sample: Mapping[str, Any], where: str = "scores") -> str:
    """``"leaked"``, ``"unverified"`` or ``"clean"`` for one sample's leakage scores (module docstring).

    >>> leak_class({"result_leaks": 1}), leak_class({"undated": 2}), leak_class({"result_leaks": 0})
    ('leaked', 'unverified', 'clean')
    """
    # Imported here: the seal module (and the trace reader with it) loads only when leakage scores are read.
    from anachron.core.seal import stored_status

    leaked = any(_count(sample, name, where) for name in _LEAK_COUNTS)
    status = stored_status(sample.get("seal_status", ...), sample.get("seal_breaches"), f"{where}: seal_status")
    if leaked or status == "breached":
        return "leaked"
    if status in _DOUBT_STATUSES or any(_count(sample, name, where) for name in _DOUBT_COUNTS) or _warned(sample, where):
        return "unverified"
    return "clean"


def _warned(sample: Mapping[str, Any], where: str) -> bool:
    # The importer's warnings on the sample's log (items of an unknown type skipped, model turns
    # with no tool call): the log may not hold every call, so a clean count proves nothing.
    warnings = sample.get("warnings", [])
    if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
        raise AnachronError(f"{where}: warnings is {describe(warnings)}, expected a list of strings")
    return bool(warnings)


def leak_sources(sample: Mapping[str, Any], where: str = "scores") -> tuple[str, ...]:
    """The answer-leak sources of one sample: ``("retrieved",)``, ``("parametric",)``, both or none.

    >>> leak_sources({"answer_leaks_retrieved": 1, "answer_leaks_parametric": 2})
    ('retrieved', 'parametric')
    """
    return tuple(s for s in SOURCES if _count(sample, f"answer_leaks_{s}", where))
