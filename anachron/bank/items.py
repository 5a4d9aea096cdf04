"""Bank items: the record format, parsing, and the version id (SHA-256) and manifest.

Outcome material (:mod:`anachron.bank`): items hold their answers.  Nothing
on the serving path may import this module.

A bank item asks "on date D, what was field F for instrument S"; D is its
``as_of``.  It is *embargoed* when no value of (S, F, period) was public on D.
The bank's version id is :func:`bank_version` of :func:`canonical_text`:
SHA-256 over the RFC 8785 serialisation of the items in id order.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from anachron.core.bundled import default_corpus_dir
from anachron.core.dates import known_at
from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import json_line, read_records
from anachron.core.validate import Fields, check_unique
from anachron.bank.values import UNITS, valid_value

__all__ = [
    "FORMAT",
    "BankItem",
    "Bank",
    "checked_id",
    "required_date",
    "parse_bank",
    "load_bank",
    "default_bank_path",
    "manifest_path_for",
    "canonical_text",
    "bank_version",
    "manifest",
    "manifest_version",
    "manifest_differences",
]

FORMAT = "anachron-bank/1"

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*")
_ITEM_FIELDS = ("id", "as_of", "instrument", "field", "period", "unit", "question", "embargoed", "answer", "values", "initial")
_MAX_SAFE_INT = 2**53 - 1


# --------------------------------------------------------------------------- items


@dataclass(frozen=True)
class BankItem:
    """One question: "on ``as_of``, what was ``field`` of ``instrument`` for ``period``".

    ``values`` is the whole published history of (instrument, field, period):
    ``(value, published)`` pairs in publication order, including values
    published after ``as_of`` (they are what a leak looks like).  ``initial``
    is the value that holds before the first publication (``"not listed"``
    for a listing status), or ``None``.  ``answer`` is the key: the value
    public on ``as_of``, ``None`` when the item is embargoed.
    """

    id: str
    as_of: _dt.date
    instrument: str
    field: str
    period: str | None
    unit: str
    question: str
    embargoed: bool
    answer: str | None
    values: tuple[tuple[str, _dt.date], ...]
    initial: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def value_on(self, day: _dt.date) -> str | None:
        """The latest value published on or before *day*, else ``initial``."""
        public = [value for value, published in self.values if known_at(published, day)]
        return public[-1] if public else self.initial

    def latest(self) -> str | None:
        """The value known today (the last published one), else ``initial``."""
        return self.values[-1][0] if self.values else self.initial

    def later_values(self) -> tuple[tuple[str, _dt.date], ...]:
        """The values published after ``as_of``."""
        return tuple(pair for pair in self.values if not known_at(pair[1], self.as_of))

    def resolution(self) -> _dt.date | None:
        """The item's resolution date (docs/run-rules.md, "Model cutoffs").

        The first publication after ``as_of`` when there is one (from that day
        a model could have learnt what the item must not be answered with);
        otherwise the publication of the answer; ``None`` when neither exists
        (an unresolved item, or an answer that is only the ``initial`` value).
        """
        later = self.later_values()
        if later:
            return later[0][1]
        public = [published for _, published in self.values if known_at(published, self.as_of)]
        return public[-1] if public else None

    def answer_public(self) -> _dt.date | None:
        """The day the answer first became public (docs/run-rules.md, "Model cutoffs").

        Answerable, with a published answer: the first publication of that
        value.  Embargoed, or answered by ``initial`` (``not listed``): the
        first publication after ``as_of``, the fact that settles or reveals
        the answer.  ``None`` when there is none.
        """
        if self.answer is not None and self.answer != self.initial:
            for value, published in self.values:
                if value == self.answer:
                    return published
        later = self.later_values()
        return later[0][1] if later else None

    def superseded(self) -> bool:
        """An answerable item with a later value that differs from its answer."""
        if self.answer is None:
            return False
        return any(value != self.answer for value, _ in self.later_values())


@dataclass(frozen=True)
class Bank:
    """Bank items by id in canonical (id) order, with the version id."""

    items: Mapping[str, BankItem]
    version: str
    canonical: str = field(repr=False)
    source: str | None = None

    def __len__(self) -> int:
        return len(self.items)


def checked_id(f: Fields) -> str:
    """The record's ``id``: ASCII, so that id order is the same in every language.

    Shared by bank items and facts (:mod:`anachron.bank.build`).
    """
    ident = f.text("id")
    if not _ID.fullmatch(ident):
        raise f.error("id", f"{ident!r} is not an id (letters, digits and . _ : - only)")
    return ident


def required_date(f: Fields, name: str) -> _dt.date:
    """The record's date field *name*, which must be present and a real calendar day."""
    day = f.date(name)
    if day is None:  # Fields.date gives None only for a nullable field; keep it an error here
        raise f.missing(name)
    return day


def _item_from(where: str, obj: Mapping[str, Any]) -> BankItem:
    f = Fields(where, obj)
    ident = checked_id(f)
    where = f.where = f"{where} (item '{ident}')"
    for name in _ITEM_FIELDS:
        if name not in obj:
            raise AnachronError(f"{where}: missing field '{name}'")
    unit = obj["unit"]
    if unit not in UNITS:
        raise f.error("unit", f"expected one of {', '.join(UNITS)}, got {describe(unit)}")
    period = obj["period"]
    if period is not None and (not isinstance(period, str) or not period.strip()):
        raise f.error("period", f"expected a string or null, got {describe(period)}")
    embargoed = obj["embargoed"]
    if not isinstance(embargoed, bool):
        raise f.error("embargoed", f"expected true or false, got {describe(embargoed)}")
    answer, initial = obj["answer"], obj["initial"]
    for name, value in (("answer", answer), ("initial", initial)):
        if value is not None and not valid_value(value, unit):
            raise f.error(name, f"{describe(value)} is not a {unit} value")
    if embargoed != (answer is None):
        raise f.error("answer", "must be null exactly when the item is embargoed")
    values = obj["values"]
    if not isinstance(values, list):
        raise f.error("values", f"expected a list, got {describe(values)}")
    history: list[tuple[str, _dt.date]] = []
    for n, entry in enumerate(values):
        label = f"values[{n}]"
        if not isinstance(entry, Mapping) or set(entry) != {"value", "published"}:
            raise f.error(label, "expected an object with exactly 'value' and 'published'")
        if not valid_value(entry["value"], unit):
            raise f.error(label, f"{describe(entry['value'])} is not a {unit} value")
        published = required_date(Fields(where, entry), "published")
        if history and published <= history[-1][1]:
            raise f.error(label, f"published {published} is not after the previous value's {history[-1][1]}")
        history.append((entry["value"], published))  # type: ignore[arg-type]
    return BankItem(
        id=ident,
        as_of=required_date(f, "as_of"),
        instrument=f.text("instrument"),
        field=f.text("field"),
        period=period,
        unit=unit,
        question=f.text("question"),
        embargoed=embargoed,
        answer=answer,
        values=tuple(history),
        initial=initial,
        extra=f.extra(_ITEM_FIELDS),
    )


def parse_bank(records: Iterable[tuple[str, Mapping[str, Any]]], *, source: str | None = None) -> Bank:
    """Validate bank records ``(where, object)`` into a :class:`Bank`.

    Rejected (structure only): missing or mistyped fields, a bad id, a
    duplicate id, ``answer`` not null exactly when ``embargoed``, values not
    of the item's unit, ``values`` not in strictly increasing publication
    order, and anything the canonical serialisation cannot represent
    (non-integer numbers, integers beyond 2**53 - 1, lone surrogates).
    Whether the key agrees with the history is *not* checked here: that is
    time-gate check 2, which a broken key must fail visibly.
    """
    items: dict[str, BankItem] = {}
    raw: dict[str, Mapping[str, Any]] = {}
    seen: dict[str, str] = {}
    for where, obj in records:
        item = _item_from(where, obj)
        check_unique(where, "item", item.id, seen)
        _canonical_value(obj, f"{where} (item '{item.id}')")  # fail here, with the place, not later
        items[item.id] = item
        raw[item.id] = obj
    order = sorted(items)
    text = canonical_text(raw[i] for i in order)
    return Bank(
        items=MappingProxyType({i: items[i] for i in order}),
        version=bank_version(text),
        canonical=text,
        source=source,
    )


def default_bank_path() -> Path:
    """The bundled bank: ``bank.jsonl`` of the v0 corpus directory."""
    return default_corpus_dir() / "bank.jsonl"


def manifest_path_for(bank_path: str | os.PathLike[str]) -> Path:
    """The manifest beside a bank: ``X.jsonl`` -> ``X.manifest.json``."""
    path = Path(bank_path)
    stem = path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else path.name
    return path.with_name(stem + ".manifest.json")


def load_bank(path: str | os.PathLike[str] | None = None) -> Bank:
    """Read and validate a bank file (default: the bundled v0 bank)."""
    path = Path(path) if path is not None else default_bank_path()
    return parse_bank(read_records(path), source=str(path))


# ---------------------------------------------------------- canonical form, version


def _utf16_key(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def _canonical_value(value: Any, where: str) -> Any:
    """*value* with object keys in RFC 8785 order; rejects what JCS would render ambiguously."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        if abs(value) > _MAX_SAFE_INT:
            raise AnachronError(f"{where}: integer {value} is beyond 2**53 - 1 (write it as a string)")
        return value
    if isinstance(value, float):
        raise AnachronError(f"{where}: non-integer number {value!r} (write figures as decimal strings)")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise AnachronError(f"{where}: string with a lone surrogate") from None
        return value
    if isinstance(value, list):
        return [_canonical_value(v, where) for v in value]
    if isinstance(value, Mapping):
        return {k: _canonical_value(value[k], where) for k in sorted(value, key=_utf16_key)}
    raise AnachronError(f"{where}: {type(value).__name__} is not JSON")


def canonical_text(objects: Iterable[Mapping[str, Any]]) -> str:
    """The canonical serialisation of bank items, already in id order.

    Each item is serialised per RFC 8785 (JSON Canonicalization Scheme):
    keys sorted by UTF-16 code units, no insignificant whitespace, strings
    with only ``"``, ``\\`` and U+0000..U+001F escaped (``\\b \\t \\n \\f
    \\r``, else ``\\u00xx``), integers in plain decimal; followed by one
    ``\\n``.  The bank's text is the concatenation, in id order.
    """
    lines = []
    for obj in objects:
        canonical = _canonical_value(obj, "bank")
        lines.append(json_line(canonical, compact=True, sort_keys=False) + "\n")
    return "".join(lines)


def bank_version(text: str) -> str:
    """``"sha256:" + hex(SHA-256(UTF-8(canonical text)))``."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------- manifest


def manifest(bank: Bank) -> dict[str, Any]:
    """The manifest of *bank*: format, version id and counts."""
    items = list(bank.items.values())
    fields: dict[str, int] = {}
    for item in items:
        fields[item.field] = fields.get(item.field, 0) + 1
    return {
        "format": FORMAT,
        "version": bank.version,
        "items": len(items),
        "answerable": sum(not i.embargoed for i in items),
        "embargoed": sum(i.embargoed for i in items),
        "fields": dict(sorted(fields.items())),
        "revision_items": sum(i.superseded() and i.unit != "status" for i in items),
        "status_change_items": sum(i.superseded() and i.unit == "status" for i in items),
    }


def manifest_version(obj: Any, where: str) -> str:
    """The ``version`` of a manifest object; bad shapes raise naming *where*."""
    if not isinstance(obj, Mapping):
        raise AnachronError(f"{where}: a manifest is a JSON object")
    version = obj.get("version")
    if not isinstance(version, str) or not version:
        raise AnachronError(f"{where}: missing field 'version'")
    return version


def manifest_differences(bank: Bank, given: Any, where: str) -> list[str]:
    """What differs between *given* (a manifest object) and the manifest of *bank*.

    Empty when they agree.  The version comes first: it is what makes a
    score citable.
    """
    manifest_version(given, where)
    expected = manifest(bank)
    keys = ["version"] + sorted((set(expected) | set(given)) - {"version"})
    return [
        f"{key}: bank has {json_line(expected.get(key), ensure_ascii=True)}, manifest has {json_line(given.get(key), ensure_ascii=True)}"
        for key in keys
        if expected.get(key) != given.get(key)
    ]
