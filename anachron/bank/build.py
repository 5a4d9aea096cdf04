"""Building the question bank from dated facts (docs/bank.md, "How the bank is built").

Outcome material (:mod:`anachron.bank`): facts are the ground truth.

A fact is one published value: ``{"id", "instrument", "field", "period",
"value", "unit", "published", "revises", "source"}`` (docs/bank.md).  The
facts of one (instrument, field, period) form a *lineage*: a chain from the
first release through each revision, in publication order.

The builder asks every lineage a question on fixed days around each release
(the offsets below), so every release has an item on each side of it, and
figures additionally get one early embargoed day and one settled late day.
The build is deterministic: the same facts and corpus give the same bytes.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Iterable, Mapping

from anachron.core.corpus import Corpus, default_corpus_dir
from anachron.core.dates import known_at
from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import Record, read_records
from anachron.core.validate import Fields, check_unique
from anachron.bank.items import Bank, checked_id, parse_bank, required_date
from anachron.bank.values import TOLERANCE, UNITS, valid_value

__all__ = ["FIELD_LABELS", "Fact", "bank_records", "build_bank", "fact_chains", "load_facts"]

# Days before a figure's first release asked as an early embargoed question.
EARLY_DAYS = 28
# The "before" side of a release: the day before for figures; a week before
# for listing changes, which are often announced on the last trading day.
BEFORE_FIGURE_DAYS = 1
BEFORE_STATUS_DAYS = 7
# Days after a lineage's last release asked as a settled question.
LATE_DAYS = 91

FIELD_LABELS = {
    "revenue": "revenue",
    "gross_margin": "gross margin",
    "subscribers": "subscriber count at period end",
    "combined_ratio": "combined ratio",
    "catastrophe_losses": "catastrophe losses",
    "comparable_sales_growth": "comparable sales growth",
    "deposits": "deposits at period end",
    "copper_output": "copper output",
    "carload_growth": "carload growth",
    "ipo_price": "IPO price per share",
    "ipo_proceeds": "IPO proceeds",
    "listing_status": "listing status",
}
STATUS_FIELD = "listing_status"
STATUS_INITIAL = "not listed"

_FACT_FIELDS = ("id", "instrument", "field", "period", "value", "unit", "published", "revises", "source")
_FIELD_NAME = re.compile(r"[a-z][a-z0-9_]*")
_PERIOD = re.compile(r"[0-9]{4}-Q[1-4]|FY[0-9]{4}")


class Fact:
    """One validated record of ``facts.jsonl``: a dated value of one field of one instrument."""

    __slots__ = ("id", "where", "instrument", "field", "period", "value", "unit", "published", "revises")

    def __init__(self, where: str, obj: Mapping[str, Any], corpus: Corpus) -> None:
        f = Fields(where, obj)
        self.id = checked_id(f)
        self.where = f.where = f"{where} (fact '{self.id}')"
        for name in _FACT_FIELDS:
            if name not in obj and name != "source":
                raise AnachronError(f"{self.where}: missing field '{name}'")
        self.instrument = f.text("instrument")
        if self.instrument not in corpus.entities:
            raise f.error("instrument", f"unknown entity id '{self.instrument}'")
        self.field = f.text("field")
        if not _FIELD_NAME.fullmatch(self.field):
            raise f.error("field", f"{self.field!r} is not a field name (lower case, digits, _)")
        self.unit = obj["unit"]
        if self.unit not in UNITS:
            raise f.error("unit", f"expected one of {', '.join(UNITS)}, got {describe(self.unit)}")
        if (self.unit == "status") != (self.field == STATUS_FIELD):
            raise f.error("unit", f"the unit 'status' goes with the field '{STATUS_FIELD}' and only with it")
        self.period = obj["period"]
        if self.period is not None and (not isinstance(self.period, str) or not _PERIOD.fullmatch(self.period)):
            raise f.error("period", f"expected null, YYYY-Qn or FYYYYY, got {describe(self.period)}")
        self.value = obj["value"]
        if not valid_value(self.value, self.unit):
            raise f.error("value", f"{describe(self.value)} is not a {self.unit} value")
        self.published = required_date(f, "published")
        self.revises = f.optional_id("revises")
        source = f.optional_id("source")
        if source is not None:
            item = corpus.items.get(source)
            if item is None:
                raise f.error("source", f"unknown item id '{source}'")
            if item.publish_date != self.published:
                raise f.error("source", f"item '{source}' is dated {item.publish_date}, not {self.published}")

    @property
    def lineage(self) -> tuple[str, str, str]:
        return (self.instrument, self.field, self.period or "")


def _too_close(a: str, b: str) -> bool:
    """Two different figures one answer could match both of (docs/run-rules.md tolerance)."""
    x, y = Fraction(Decimal(a)), Fraction(Decimal(b))
    return abs(x - y) <= TOLERANCE * (abs(x) + abs(y))


def fact_chains(facts: list[Fact]) -> dict[tuple[str, str, str], list[Fact]]:
    """The facts grouped by lineage (instrument, field, period), each chain checked: one unit per
    field, every ``revises`` naming an earlier fact of the same lineage with another value."""
    by_id = {fact.id: fact for fact in facts}
    lineages: dict[tuple[str, str, str], list[Fact]] = {}
    units: dict[str, tuple[str, str]] = {}
    for fact in facts:
        lineages.setdefault(fact.lineage, []).append(fact)
        unit, first = units.setdefault(fact.field, (fact.unit, fact.where))
        if unit != fact.unit:
            raise AnachronError(f"{fact.where}: field 'unit': '{fact.unit}' but '{fact.field}' is '{unit}' at {first}")
    revised_by: dict[str, Fact] = {}
    for fact in facts:
        if fact.revises is None:
            continue
        original = by_id.get(fact.revises)
        if original is None:
            raise AnachronError(f"{fact.where}: field 'revises': unknown fact id '{fact.revises}'")
        if original.lineage != fact.lineage:
            raise AnachronError(f"{fact.where}: field 'revises': '{original.id}' is another instrument, field or period")
        if original.published >= fact.published:
            raise AnachronError(f"{fact.where}: field 'revises': '{original.id}' is dated {original.published}, not before {fact.published}")
        if original.value == fact.value:
            raise AnachronError(f"{fact.where}: field 'revises': '{original.id}' already has the value {fact.value}")
        if original.id in revised_by:
            raise AnachronError(f"{fact.where}: field 'revises': '{original.id}' is already revised by '{revised_by[original.id].id}'")
        revised_by[original.id] = fact
    chains = {}
    for key, members in sorted(lineages.items()):
        roots = [fact for fact in members if fact.revises is None]
        if len(roots) != 1:
            where = (roots[1] if roots else members[0]).where
            raise AnachronError(f"{where}: lineage {'/'.join(k for k in key if k)} needs exactly one first release (revises: null), has {len(roots)}")
        chain = [roots[0]]
        while chain[-1].id in revised_by:
            chain.append(revised_by[chain[-1].id])
        # Revisions point strictly back in time, so a chain cannot loop and covers every member.
        for a in chain:
            for b in chain:
                if a.unit != "status" and a.value != b.value and _too_close(a.value, b.value):
                    raise AnachronError(f"{b.where}: field 'value': {b.value} is within tolerance of {a.value} ('{a.id}')")
        chains[key] = chain
    return chains


def _question(day: _dt.date, name: str, fact: Fact) -> str:
    subject = f"{name} ({fact.instrument})"
    if fact.unit == "status":
        return (f"On {day}, what was the listing status of {subject}: listed, not listed or delisted? "
                f'Answer "unknown" if it was not public on {day}.')
    label = FIELD_LABELS.get(fact.field, fact.field.replace("_", " "))
    period = f" for {fact.period}" if fact.period else ""
    return (f"On {day}, what was the {label} of {subject}{period}? "
            f'Answer with the figure and its unit, or "unknown" if it was not public on {day}.')


def _days(chain: list[Fact]) -> list[_dt.date]:
    status = chain[0].unit == "status"
    before = _dt.timedelta(days=BEFORE_STATUS_DAYS if status else BEFORE_FIGURE_DAYS)
    days = set()
    for fact in chain:
        days.update((fact.published - before, fact.published))
    if not status:
        days.add(chain[0].published - _dt.timedelta(days=EARLY_DAYS))
        days.add(chain[-1].published + _dt.timedelta(days=LATE_DAYS))
    return sorted(days)


def bank_records(fact_records: Iterable[tuple[str, Mapping[str, Any]]], corpus: Corpus) -> list[dict[str, Any]]:
    """The bank items for *fact_records* ``(where, object)``, sorted by id.

    Facts are validated first (every error names the file, line and fact):
    a known instrument, a field name, a unit (one per field), a value of
    that unit, ``YYYY-Qn``/``FYYYYY``/null period, a real publication day,
    ``revises`` pointing to an earlier fact of the same lineage with another
    value (each fact revised at most once, one first release per lineage),
    no two values of a lineage within tolerance of each other, and a
    ``source`` item published on the same day.
    """
    facts: list[Fact] = []
    seen: dict[str, str] = {}
    for where, obj in fact_records:
        fact = Fact(where, obj, corpus)
        check_unique(where, "fact", fact.id, seen)
        facts.append(fact)

    records: dict[str, dict[str, Any]] = {}
    for (instrument, field, period), chain in fact_chains(facts).items():
        head = chain[0]
        initial = STATUS_INITIAL if head.unit == "status" else None
        history = [{"value": fact.value, "published": fact.published.isoformat()} for fact in chain]
        slug = "-".join(part.lower().replace("-", "") for part in (instrument, field, period) if part)
        for day in _days(chain):
            public = [fact.value for fact in chain if known_at(fact.published, day)]
            answer = public[-1] if public else initial
            item_id = f"{slug}-{day.isoformat()}"
            if item_id in records:  # two lineages whose slugs collide
                raise AnachronError(f"{head.where}: bank item id '{item_id}' would be built twice")
            records[item_id] = {
                "id": item_id,
                "as_of": day.isoformat(),
                "instrument": instrument,
                "field": field,
                "period": period or None,
                "unit": head.unit,
                "question": _question(day, corpus.entities[instrument].name, head),
                "embargoed": answer is None,
                "answer": answer,
                "values": history,
                "initial": initial,
            }
    return [records[key] for key in sorted(records)]


def build_bank(fact_records: Iterable[tuple[str, Mapping[str, Any]]], corpus: Corpus) -> Bank:
    """Build the bank from dated facts ``(where, object)``: :func:`bank_records`, then :func:`~anachron.bank.items.parse_bank`."""
    records = bank_records(fact_records, corpus)
    return parse_bank((f"built item {r['id']}", r) for r in records)


def load_facts(path: str | os.PathLike[str] | None = None) -> list[Record]:
    """The ``("path:line", object)`` records of a facts file (default: the bundled ``facts.jsonl``)."""
    return read_records(Path(path) if path is not None else default_corpus_dir() / "facts.jsonl")
