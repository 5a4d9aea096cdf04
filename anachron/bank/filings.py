"""The filings corpus: one dated document per fact, the data a system answers the bank from.

Outcome material to build (it reads ``facts.jsonl``), ordinary data once
written: ``corpus/v0/filings/items.jsonl`` is a corpus like any other, served
through the time lock, which withholds each filing until its day.  It is what
the Inspect bank task's tools search by default, and what the oracle agents
(:mod:`anachron.bank.oracle_agents`) read through those same tools.

A filing states one published value of one (instrument, field, period):

- title ``TICKER FIELD PERIOD: first release`` (or ``: revision``; no period for a
  field without one), or
  ``TICKER listing status: listed`` / ``: delisted``;
- text ``Delta Pharma (DLTP) reported revenue for 2020-Q4 of 412,000,000 USD.``;
  a revision ``... revised its revenue for 2020-Q4 to 377,000,000 USD, from
  412,000,000 USD.`` (the earlier figure was public before it); a listing
  ``Delta Pharma (DLTP) shares were listed on the exchange.``;
- ``publish_date`` the fact's ``published`` day; ``restates`` the filing it
  revises (figures only: a delisting restates nothing); no ``entities``.

The same facts give the same bytes (canonical JSON, one item per line, in id order).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from anachron.core.corpus import Corpus, default_corpus_dir
from anachron.core.jsonio import json_line
from anachron.core.atomic import write_files_atomic
from anachron.bank.build import FIELD_LABELS, fact_chains, Fact
from anachron.bank.values import render

__all__ = ["FILINGS_SLICE", "default_filings_dir", "filing_records", "filings_text"]

FILINGS_SLICE = "filings"


def default_filings_dir() -> Path:
    """The bundled filings corpus: ``filings/`` in the v0 corpus directory."""
    return default_corpus_dir() / "filings"


def _filing_id(fact_id: str) -> str:
    return f"filing-{fact_id}"


def filing_records(fact_records: Iterable[tuple[str, Mapping[str, Any]]], corpus: Corpus) -> list[dict[str, Any]]:
    """One corpus item per fact (module docstring), sorted by id; facts are validated as for the bank."""
    facts = [Fact(where, obj, corpus) for where, obj in fact_records]
    records = []
    for (instrument, field, period), chain in fact_chains(facts).items():
        name = corpus.entities[instrument].name
        subject = f"{name} ({instrument})"
        for n, fact in enumerate(chain):
            if fact.unit == "status":
                title = f"{instrument} listing status: {fact.value}"
                text = f"{subject} shares were {fact.value} on the exchange." if fact.value == "listed" else f"{subject} shares were {fact.value}."
                restates = None
            else:
                label = FIELD_LABELS.get(field, field.replace("_", " "))
                value = render(fact.value, fact.unit)
                named = f"{field} {period}" if period else field
                of = f"{label} for {period}" if period else label
                if n == 0:
                    title = f"{instrument} {named}: first release"
                    text = f"{subject} reported {of} of {value}."
                else:
                    title = f"{instrument} {named}: revision"
                    text = f"{subject} revised its {of} to {value}, from {render(chain[n - 1].value, fact.unit)}."
                restates = _filing_id(chain[n - 1].id) if n else None
            records.append({
                "id": _filing_id(fact.id),
                "slice": FILINGS_SLICE,
                "publish_date": fact.published.isoformat(),
                "title": title,
                "text": text,
                "entities": [],
                "restates": restates,
            })
    return sorted(records, key=lambda r: r["id"])


def filings_text(records: Iterable[Mapping[str, Any]]) -> str:
    """``items.jsonl`` of the filings corpus: sorted keys, no spaces, one item per line."""
    return "".join(json_line(r, compact=True) + "\n" for r in records)


def write_filings(fact_records: Iterable[tuple[str, Mapping[str, Any]]], corpus: Corpus, directory: str | os.PathLike[str]) -> Path:
    """Write ``DIRECTORY/items.jsonl`` atomically; returns its path."""
    path = Path(directory) / "items.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_files_atomic({path: filings_text(filing_records(fact_records, corpus))})
    return path
