"""Reading the inputs of ``anachron report``: score JSON, traces, Inspect logs, bank score cards.

:func:`load_input` reads one path and says what it was:

- a directory or a ``.eval`` file: Inspect logs, scored as ``anachron
  export`` scores them (needs the ``inspect`` extra);
- a ``.jsonl`` file: traces (docs/formats.md), scored against the corpus;
- a ``.json`` file: the output of ``anachron score --format json`` (or of
  ``anachron export --format score``), a bank score card (``anachron bank
  run --format json``), or an Inspect log written as JSON.

A score document is read by the core's one reader
(:func:`anachron.core.leakage.read_samples`: every count a non-negative
integer, every TCLR equal to its counts), so a report never shows figures
its own counts contradict.  Bad input is an :class:`AnachronError` naming
the file and the sample.
"""

from __future__ import annotations

import os
from pathlib import Path
from dataclasses import replace
from typing import Any, Mapping, Sequence

from anachron.core import load_traces, score_traces
from anachron.store import load_corpus, shown_corpus
from anachron.core.leakage import SampleResult, read_samples, sample_slice
from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import read_json
from anachron.output.html.page import Run

__all__ = ["load_input", "check_bank_card", "slices_of"]

_CARD_FIELDS = {
    "bank_version": str, "system": str, "items": list, "checks": list, "valid": bool, "failed_checks": list,
    "correct": int, "answerable": int, "leaked": int, "embargoed": int, "leaked_answerable": int, "refused": int,
}


_ORACLE_TALLY_KEYS = frozenset({"correct", "answerable", "accuracy", "leaked", "embargoed", "leak_rate"})


# The figures the report formats, where a card or an oracle tally has them: a number or null each
# (intervals and bounds: a list of them), so a card with string fields is one line, not a traceback.
_CARD_NUMBERS = frozenset({
    "accuracy", "hindsight_accuracy", "leak_rate", "ambiguous", "ambiguous_embargoed", "incorrect",
    "correct", "answerable", "leaked", "embargoed", "leaked_answerable", "refused", "oracle_ignore_accuracy",
    "oracle_ignore_leak_rate", "oracle_respect_accuracy", "oracle_respect_leak_rate",
})
_CARD_INTERVALS = frozenset({"leak_rate_ci", "leak_rate_bounds", "leak_rate_bounds_ci"})


def _number(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _check_numbers(fields: Mapping[str, Any], where: str, prefix: str) -> None:
    for name in sorted(_CARD_NUMBERS.intersection(fields)):
        if not _number(fields[name]):
            raise AnachronError(f"{where}: field '{prefix}{name}': expected a number, got {describe(fields[name])}")
    for name in sorted(_CARD_INTERVALS.intersection(fields)):
        value = fields[name]
        if value is not None and not (isinstance(value, list) and all(map(_number, value))):
            raise AnachronError(f"{where}: field '{prefix}{name}': expected a list of numbers, got {describe(value)}")


def check_bank_card(card: Any, where: str) -> Mapping[str, Any]:
    """A bank score card (``BankRun.to_dict()``), checked for the fields the report shows."""
    if not isinstance(card, dict):
        raise AnachronError(f"{where}: expected a bank score card object, got {describe(card)}")
    for name, kind in _CARD_FIELDS.items():
        if name not in card:
            raise AnachronError(f"{where}: missing field '{name}' of a bank score card")
        if not isinstance(card[name], kind) or (kind is int and isinstance(card[name], bool)):
            raise AnachronError(f"{where}: field '{name}': got {describe(card[name])}")
    oracles = card.get("oracles")
    if oracles is not None and not (isinstance(oracles, dict) and all(
            isinstance(oracles.get(k), dict) and _ORACLE_TALLY_KEYS <= set(oracles[k]) for k in ("respect", "ignore"))):
        raise AnachronError(f"{where}: field 'oracles': expected {{respect, ignore}}, each a tally with "
                            f"{', '.join(sorted(_ORACLE_TALLY_KEYS))}")
    _check_numbers(card, where, "")
    for side in ("respect", "ignore") if oracles is not None else ():
        _check_numbers(oracles[side], where, f"oracles.{side}.")
    for i, check in enumerate(card["checks"]):
        if not isinstance(check, dict) or not {"name", "rule", "threshold", "value", "passed"} <= set(check):
            raise AnachronError(f"{where}: checks[{i}]: expected {{name, rule, threshold, value, passed}}")
    for i, item in enumerate(card["items"]):
        if not isinstance(item, dict) or not {"item_id", "as_of", "embargoed", "response", "judgement"} <= set(item):
            raise AnachronError(f"{where}: items[{i}]: expected {{item_id, as_of, embargoed, response, judgement}}")
    return card


def _inspect_logs(path: str, corpus: str | os.PathLike[str] | None) -> list[SampleResult]:
    try:
        from anachron.inspect.export import score_logs
    except ImportError as exc:
        raise AnachronError(f"{path}: reading Inspect logs: {' '.join(str(exc).split())}") from None
    return score_logs([path], corpus=corpus)


def slices_of(results: Sequence[SampleResult], data: Any) -> dict[str, str] | None:
    """``{sample_id: slice}``, or None unless every sample has one.

    A result carries its slice when it was scored (``SampleResult.slice``); a
    score file written before that field is looked up in the corpus *data* by
    the core's rule (:func:`anachron.core.leakage.sample_slice`: the sample
    with its own as-of date, never another corpus's sample of the same id).
    """
    found = {}
    for r in results:
        name = r.slice if r.slice is not None else sample_slice(data, r.sample_id, r.as_of)
        if name is None:
            return None
        found[r.sample_id] = name
    return found


def _with_slices(run: Run, corpus: str | os.PathLike[str] | None) -> Run:
    return replace(run, slices=slices_of(run.results, load_corpus(corpus)))


def load_input(path: str | os.PathLike[str], *, corpus: str | os.PathLike[str] | None = None) -> Run | Mapping[str, Any]:
    """A :class:`Run` for scores, traces or Inspect logs at *path*; a checked card for a bank score card.

    A run's slices come from the corpus (*corpus*, or the bundled one) when
    every sample is in it with its as-of date; otherwise they are unknown.
    """
    p = Path(path)
    label = str(path)
    if p.is_dir() or p.suffix == ".eval":
        return _with_slices(Run(label, tuple(_inspect_logs(label, corpus)), "Inspect logs, scored by the core"), corpus)
    if p.suffix == ".jsonl":
        data = load_corpus(corpus)
        against = "the bundled v0 corpus" if corpus is None else f"corpus {shown_corpus(corpus)}"  # a URL without its password
        results = tuple(score_traces(load_traces(p, data), data))
        return Run(label, results, f"traces, scored against {against}", slices_of(results, data))
    document = read_json(p)
    if isinstance(document, dict) and "bank_version" in document and "checks" in document:
        return check_bank_card(document, label)
    if isinstance(document, dict) and "eval" in document and "status" in document and "version" in document:
        return _with_slices(Run(label, tuple(_inspect_logs(label, corpus)), "Inspect log, scored by the core"), corpus)
    if isinstance(document, dict) and set(document) == {"run", "tclr"} and isinstance(document["tclr"], dict):
        raise AnachronError(
            f"{label}: a per-sample TCLR file (what `anachron demo` and `anachron export` write) carries no per-sample "
            "detail; give the traces (.jsonl), the output of `anachron score --format json`, or the Inspect logs"
        )
    if isinstance(document, dict) and not isinstance(document.get("samples"), list) and document and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in document.values()
    ):
        raise AnachronError(
            f"{label}: a plain {{sample_id: number}} object carries no per-sample detail; "
            "give the traces (.jsonl), the output of `anachron score --format json`, or the Inspect logs"
        )
    return _with_slices(Run(label, tuple(read_samples(document, label)), "score JSON"), corpus)
