"""Model cutoffs: a model's training cutoff and release date, and what they say about each item.

Outcome material (:mod:`anachron.bank`).  With a model named, a run flags
each item as *overlapping* (its ``as_of`` falls before the training cutoff)
and badges it (docs/run-rules.md, "Model cutoffs").
"""

from __future__ import annotations

import csv
import datetime as _dt
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from anachron.core.errors import AnachronError
from anachron.core.dates import known_at
from anachron.core.jsonio import read_json
from anachron.core.validate import Fields
from anachron.bank.items import BankItem, required_date

__all__ = ["BADGES", "ModelCutoff", "parse_model_cutoffs", "load_model_cutoffs"]

# The two badges, as the Time-Travel Benchmark names its rows: released before the event, or after it
# (only the model's data access was time-locked).
BADGES = ("pre-event model", "web-locked only")


@dataclass(frozen=True)
class ModelCutoff:
    """A model's training cutoff and release date (from a user table)."""

    name: str
    training_cutoff: _dt.date
    release_date: _dt.date

    def overlapping(self, item: BankItem) -> bool:
        """The item's as_of falls before the training cutoff: the model may have seen past it."""
        return not known_at(self.training_cutoff, item.as_of)

    def overlapping_by_answer(self, item: BankItem) -> bool:
        """The item's answer first became public on or before the training cutoff: the model may hold it.

        The cutoff is inclusive (docs/bank.md: data up to and including the
        cutoff day, and a cutoff given as a month is its last day), so an
        answer public on the cutoff day overlaps: ``public <= cutoff``
        (:func:`anachron.core.dates.known_at`).  An item whose answer never
        became public does not overlap.
        """
        public = item.answer_public()
        return public is not None and known_at(public, self.training_cutoff)

    def badge(self, item: BankItem) -> str:
        """``web-locked only`` when released after the item's resolution, else ``pre-event model``.

        Released on the resolution day counts as after (the conservative
        side); an item with no resolution yet gives ``pre-event model``.
        """
        return self.badge_on(item.resolution())

    def badge_on(self, resolution: _dt.date | None) -> str:
        """:meth:`badge` for an event resolved on *resolution* (``None``: not resolved yet): the one badge rule."""
        if resolution is not None and known_at(resolution, self.release_date):
            return BADGES[1]
        return BADGES[0]

    def to_dict(self) -> dict[str, str]:
        return {
            "name": self.name,
            "training_cutoff": self.training_cutoff.isoformat(),
            "release_date": self.release_date.isoformat(),
        }


def parse_model_cutoffs(records: Iterable[tuple[str, str, Mapping[str, Any]]]) -> dict[str, ModelCutoff]:
    """``{name: ModelCutoff}`` from ``(where, name, {"training_cutoff", "release_date"})``.

    Rejected: an empty or duplicate name, a missing or impossible date, and
    a training cutoff after the release date.
    """
    table: dict[str, ModelCutoff] = {}
    for where, name, row in records:
        if not isinstance(name, str) or not name.strip():
            raise AnachronError(f"{where}: empty model name")
        if name in table:
            raise AnachronError(f"{where}: model '{name}' listed twice")
        f = Fields(f"{where} (model '{name}')", row)
        cutoff, release = required_date(f, "training_cutoff"), required_date(f, "release_date")
        if cutoff > release:
            raise f.error("training_cutoff", f"{cutoff} is after release_date {release}")
        table[name] = ModelCutoff(name, cutoff, release)
    return table


def load_model_cutoffs(path: str | os.PathLike[str]) -> dict[str, ModelCutoff]:
    """Read a model-cutoff table: JSON ``{name: {training_cutoff, release_date}}`` or CSV.

    CSV needs the header ``model,training_cutoff,release_date``.  In JSON a
    top-level key starting with ``_`` is a comment and is skipped.
    """
    path = Path(path)
    if path.suffix.lower() == ".csv":
        try:
            with open(path, encoding="utf-8", newline="") as fh:
                rows = list(csv.reader(fh))
        except FileNotFoundError:
            raise AnachronError(f"{path}: no such file") from None
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise AnachronError(f"{path}: cannot read: {exc}") from None
        header = ["model", "training_cutoff", "release_date"]
        if not rows or [c.strip() for c in rows[0]] != header:
            raise AnachronError(f"{path}:1: expected the header {','.join(header)}")
        records = []
        for number, row in enumerate(rows[1:], start=2):
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != 3:
                raise AnachronError(f"{path}:{number}: expected 3 columns, got {len(row)}")
            records.append((f"{path}:{number}", row[0].strip(), {"training_cutoff": row[1].strip(), "release_date": row[2].strip()}))
        return parse_model_cutoffs(records)
    obj = read_json(path)
    if not isinstance(obj, Mapping):
        raise AnachronError(f"{path}: expected a JSON object mapping model names to their dates")
    records = []
    for name, row in obj.items():
        if name.startswith("_"):
            continue
        if not isinstance(row, Mapping):
            raise AnachronError(f"{path}: model '{name}': expected an object with training_cutoff and release_date")
        records.append((str(path), name, row))
    return parse_model_cutoffs(records)
