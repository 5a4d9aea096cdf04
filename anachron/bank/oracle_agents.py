"""The two oracles as agents: they answer the bank through the system's own time-locked tools.

Outcome material (:mod:`anachron.bank`).  An oracle run answered from the
bank's own history proves the bank well formed, never that the data layer a
system uses respects D.  These agents know only the question (instrument,
field, period, D) and what the tools return; they make one ``search`` and
read the results as a system would:

- a result is *about* the item when its text names the instrument as
  ``(TICKER)`` and states the field (its label, or "listing" for a status)
  and the period, and a candidate of the item's unit
  (:func:`anachron.bank.judging.candidates`; the first one is its value);
- ``respect`` answers the value of the latest such result whose *shown*
  date is on or before D, and ``unknown`` when there is none (``not listed``
  for a listing status: no listing on record is not listed);
- ``ignore`` answers the latest such result whatever its date.

:func:`data_path_oracles` runs ``respect`` through a lock like the system's
(same backend, mode, k, date presentation and limits) and ``ignore``
through the same backend with the date filter off (the ``unrestricted``
mode): the latest value a system with these tools could reach if the gate
were open.  So check 2 fails when the data layer shows a value not public
on D under a date on or before it (a backdated or revised-in-place
document), or cannot answer what was public; check 3 fails when the data
holds no later value to leak.
"""

from __future__ import annotations

import datetime as _dt
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable, Mapping

from anachron.core.dates import known_at, parse_date
from anachron.core.errors import AnachronError
from anachron.bank.build import FIELD_LABELS
from anachron.bank.items import Bank, BankItem
from anachron.bank.judging import candidates
from anachron.bank.values import render

__all__ = ["Call", "ORACLE_AGENTS", "MemoryJournal", "data_path_oracles", "oracle_agent", "search_query", "timelock_factory"]

# call(tool, arguments) -> the lock's structured result: {"results": [{"id", "title", "published", "text"}], ...}
Call = Callable[[str, Mapping[str, Any]], Mapping[str, Any]]
ORACLE_AGENTS = ("respect", "ignore")


def _label(item: BankItem) -> str:
    return "listing" if item.unit == "status" else FIELD_LABELS.get(item.field, item.field.replace("_", " "))


def search_query(item: BankItem) -> str:
    """The oracle's one search: the instrument's name as the question gives it, its ticker, the field, the period."""
    match = re.search(rf"\bof (.+?) \({re.escape(item.instrument)}\)", item.question)
    parts = [match.group(1) if match else None, item.instrument, _label(item), item.period]
    return " ".join(part for part in parts if part)


def _about(result: Mapping[str, Any], item: BankItem) -> bool:
    text = f"{result.get('title', '')} {result.get('text', '')}"
    if f"({item.instrument})" not in text or _label(item).lower() not in text.lower():
        return False
    return item.period is None or re.search(rf"(?<![\w-]){re.escape(item.period)}(?![\w-])", text) is not None


def _decimal(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    text = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
    return text.rstrip("0").rstrip(".")


def oracle_agent(item: BankItem, oracle: str, call: Call) -> str:
    """The response of *oracle* (``respect`` or ``ignore``) to *item*, from what *call* returns."""
    if oracle not in ORACLE_AGENTS:
        raise AnachronError(f"unknown oracle {oracle!r}: expected one of {', '.join(ORACLE_AGENTS)}")
    outcome = call("search", {"query": search_query(item)})
    dated: list[tuple[_dt.date, str, str]] = []
    for result in outcome.get("results") or []:
        if not isinstance(result, Mapping) or not _about(result, item):
            continue
        try:
            day = parse_date(result.get("published"))
        except ValueError:
            continue  # an unreadable date is no date
        if day is None or (oracle == "respect" and not known_at(day, item.as_of)):
            continue
        found = candidates(str(result.get("text", "")), item.unit)
        if found:
            value = found[0] if item.unit == "status" else _decimal(found[0])
            dated.append((day, str(result.get("id", "")), value))
    if not dated:
        return "not listed" if item.unit == "status" else "unknown"
    return render(max(dated)[2], item.unit)


class MemoryJournal:
    """A time-lock journal kept in memory: the oracles' calls, apart from the system's log."""

    def __init__(self) -> None:
        self.header: Mapping[str, Any] | None = None
        self.records: list[Mapping[str, Any]] = []

    def write(self, header: Mapping[str, Any], record: Mapping[str, Any]) -> None:
        self.header = self.header or dict(header)
        self.records.append(dict(record))


def data_path_oracles(bank: Bank, lock: Callable[[BankItem, str], Call]) -> dict[str, dict[str, str]]:
    """``{"respect": {item_id: response}, "ignore": {...}}`` through the data path.

    *lock(item, mode)* gives a fresh call function of a time lock at the
    item's as_of in *mode* (``"system"`` for the system's own mode,
    ``"unrestricted"`` for the ignore oracle).
    """
    out: dict[str, dict[str, str]] = {}
    for oracle, mode in (("respect", "system"), ("ignore", "unrestricted")):
        out[oracle] = {
            item_id: oracle_agent(item, oracle, lock(item, mode))
            for item_id, item in bank.items.items()
        }
    return out


def timelock_factory(backend: Any, *, mode: str = "enforced", k: int = 5, presentation: Any = "visible",
                     limits: Any = None, allow_undated: bool = False) -> Callable[[BankItem, str], Call]:
    """A *lock* for :func:`data_path_oracles`: a :class:`~anachron.timelock.TimeLock` per item and oracle."""
    from anachron.timelock import Limits, TimeLock

    def lock(item: BankItem, which: str) -> Call:
        timelock = TimeLock(backend, item.as_of, MemoryJournal(), mode=mode if which == "system" else "unrestricted",
                            limits=limits or Limits(), k=k, presentation=presentation, allow_undated=allow_undated,
                            server="anachron bank oracles")
        return lambda tool, arguments: timelock.call(tool, dict(arguments)).structured

    return lock
