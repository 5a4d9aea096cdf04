"""The leak-resistant question bank: items, version id, judgement, runs.

OUTCOME MATERIAL.  This module, ``_bank_judge`` and ``_bank_facts`` hold or
read ground truth (answers, dated facts).  Nothing on the serving path (the
corpus, retrieval, traces, the MCP and Inspect tools) may import them, and
:mod:`anachron.core` does not re-export them: import ``anachron.core.bank``.

A bank item asks "on date D, what was field F for instrument S"; D is its
``as_of``.  It is *embargoed* when no value of (S, F, period) was public on D.
The rules every runner must follow are in docs/run-rules.md; this module is
one implementation of them:

- :func:`bank_version` -- SHA-256 over the canonical serialisation;
- :func:`judge` -- correct / incorrect / refused / leaked;
- :func:`oracle_response` -- the ``respect`` and ``ignore`` oracles;
- :func:`run_bank` -- a score card with the four time-gate checks;
- :func:`wilson_interval` -- the 95% interval of the leak rate.
"""

from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from . import _bank_judge as _j
from ._files import read_json, read_jsonl
from .corpus import _check_unique, _Fields, _json_type, default_corpus_dir
from .errors import AnachronError

__all__ = [
    "FORMAT",
    "UNITS",
    "STATUSES",
    "JUDGEMENTS",
    "ORACLES",
    "BankItem",
    "Bank",
    "ModelCutoff",
    "Check",
    "Tally",
    "ItemRecord",
    "BankRun",
    "parse_bank",
    "load_bank",
    "default_bank_path",
    "manifest_path_for",
    "canonical_text",
    "bank_version",
    "manifest",
    "manifest_differences",
    "manifest_version",
    "judge",
    "oracle_response",
    "oracle_responses",
    "parse_responses",
    "load_responses",
    "parse_model_cutoffs",
    "load_model_cutoffs",
    "wilson_interval",
    "run_bank",
    "build_bank",
    "load_facts",
]

FORMAT = "anachron-bank/1"
UNITS = _j.UNITS
STATUSES = _j.STATUSES
CORRECT, INCORRECT, REFUSED, LEAKED = "correct", "incorrect", "refused", "leaked"
JUDGEMENTS = (CORRECT, INCORRECT, REFUSED, LEAKED)
ORACLES = ("respect", "ignore")

# The four time-gate checks (docs/run-rules.md, "Validity").
IGNORE_MIN_LEAK_RATE = Fraction(95, 100)
MIN_EMBARGOED = 30

# Phi^-1(0.975), the two-sided 95% normal quantile (statistics.NormalDist().inv_cdf(0.975)).
Z95 = 1.959963984540054

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
        public = [value for value, published in self.values if published <= day]
        return public[-1] if public else self.initial

    def latest(self) -> str | None:
        """The value known today (the last published one), else ``initial``."""
        return self.values[-1][0] if self.values else self.initial

    def later_values(self) -> tuple[tuple[str, _dt.date], ...]:
        """The values published after ``as_of``."""
        return tuple(pair for pair in self.values if pair[1] > self.as_of)

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
        public = [published for _, published in self.values if published <= self.as_of]
        return public[-1] if public else None

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


def _checked_id(f: _Fields) -> str:
    """The record's ``id``: ASCII, so that id order is the same in every language."""
    ident = f.text("id")
    if not _ID.fullmatch(ident):
        raise f.error("id", f"{ident!r} is not an id (letters, digits and . _ : - only)")
    return ident


def _item_from(where: str, obj: Mapping[str, Any]) -> BankItem:
    f = _Fields(where, obj)
    ident = _checked_id(f)
    where = f.where = f"{where} (item '{ident}')"
    for name in _ITEM_FIELDS:
        if name not in obj:
            raise AnachronError(f"{where}: missing field '{name}'")
    unit = obj["unit"]
    if unit not in UNITS:
        raise f.error("unit", f"expected one of {', '.join(UNITS)}, got {_json_type(unit)}")
    period = obj["period"]
    if period is not None and (not isinstance(period, str) or not period.strip()):
        raise f.error("period", f"expected a string or null, got {_json_type(period)}")
    embargoed = obj["embargoed"]
    if not isinstance(embargoed, bool):
        raise f.error("embargoed", f"expected true or false, got {_json_type(embargoed)}")
    answer, initial = obj["answer"], obj["initial"]
    for name, value in (("answer", answer), ("initial", initial)):
        if value is not None and not _j.valid_value(value, unit):
            raise f.error(name, f"{_json_type(value)} is not a {unit} value")
    if embargoed != (answer is None):
        raise f.error("answer", "must be null exactly when the item is embargoed")
    values = obj["values"]
    if not isinstance(values, list):
        raise f.error("values", f"expected a list, got {_json_type(values)}")
    history: list[tuple[str, _dt.date]] = []
    for n, entry in enumerate(values):
        label = f"values[{n}]"
        if not isinstance(entry, Mapping) or set(entry) != {"value", "published"}:
            raise f.error(label, "expected an object with exactly 'value' and 'published'")
        if not _j.valid_value(entry["value"], unit):
            raise f.error(label, f"{_json_type(entry['value'])} is not a {unit} value")
        published = _Fields(where, entry).date("published")
        if history and published <= history[-1][1]:
            raise f.error(label, f"published {published} is not after the previous value's {history[-1][1]}")
        history.append((entry["value"], published))  # type: ignore[arg-type]
    return BankItem(
        id=ident,
        as_of=f.date("as_of"),  # type: ignore[arg-type]
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
        _check_unique(where, "item", item.id, seen)
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
    return parse_bank(((f"{path}:{n}", obj) for n, obj in read_jsonl(path)), source=str(path))


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
        lines.append(json.dumps(canonical, ensure_ascii=False, separators=(",", ":")) + "\n")
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
        f"{key}: bank has {json.dumps(expected.get(key), sort_keys=True)}, manifest has {json.dumps(given.get(key), sort_keys=True)}"
        for key in keys
        if expected.get(key) != given.get(key)
    ]


# -------------------------------------------------------------------- judgement


def judge(item: BankItem, response: Any, where: str | None = None) -> str:
    """Judge *response* to *item*: ``correct``, ``incorrect``, ``refused`` or ``leaked``.

    In order (docs/run-rules.md, "Judgement"):

    1. a refusal (structured, blank, or a refusal phrase with no figure) is
       ``refused``;
    2. any other response to an embargoed item is ``leaked``;
    3. a response stating a value published after ``as_of`` (and not
       matching the answer) is ``leaked``, embargoed or not;
    4. ``correct`` when the first figure stated matches the answer,
       otherwise ``incorrect``.
    """
    structured, text = _j.read_response(response, where or f"item '{item.id}'")
    if structured:
        return REFUSED
    found = _j.candidates(text, item.unit)
    if _j.is_refusal(text, found):
        return REFUSED
    if item.embargoed:
        return LEAKED
    answer = item.answer
    assert answer is not None  # parse_bank guarantees it for answerable items
    for value, _ in item.later_values():
        if any(_j.matches(c, value, item.unit) and not _j.matches(c, answer, item.unit) for c in found):
            return LEAKED
    if found and _j.matches(found[0], answer, item.unit):
        return CORRECT
    return INCORRECT


def _states(item: BankItem, response: Any, value: str | None) -> bool:
    """Whether the response's first figure is *value* (hindsight scoring)."""
    if value is None:
        return False
    structured, text = _j.read_response(response, f"item '{item.id}'")
    found = [] if structured else _j.candidates(text, item.unit)
    return bool(found) and _j.matches(found[0], value, item.unit)


def oracle_response(item: BankItem, oracle: str) -> str:
    """The response of an oracle to *item*.

    ``respect`` answers the value public on ``as_of`` (:meth:`BankItem.value_on`)
    and ``"unknown"`` when there is none; ``ignore`` answers the latest value
    regardless of ``as_of`` (:meth:`BankItem.latest`), ``"unknown"`` when the
    item has none.  Both read the item's history, not its key, so a key that
    contradicts the history fails check 2.
    """
    if oracle not in ORACLES:
        raise AnachronError(f"unknown oracle {oracle!r}: expected one of {', '.join(ORACLES)}")
    value = item.value_on(item.as_of) if oracle == "respect" else item.latest()
    return "unknown" if value is None else _j.render(value, item.unit)


def oracle_responses(bank: Bank, oracle: str) -> dict[str, str]:
    """``{item_id: response}`` of *oracle* over the whole bank."""
    return {item_id: oracle_response(item, oracle) for item_id, item in bank.items.items()}


def parse_responses(records: Iterable[tuple[str, Mapping[str, Any]]], bank: Bank, *, source: str = "responses") -> dict[str, Any]:
    """``{item_id: response}`` from ``{"item_id", "response"}`` records.

    Every bank item needs exactly one response; an unknown id, a duplicate,
    a malformed response or a missing item is an error naming the line (or,
    for a missing item, the item id).
    """
    responses: dict[str, Any] = {}
    seen: dict[str, str] = {}
    for where, obj in records:
        f = _Fields(where, obj)
        item_id = f.text("item_id")
        if item_id not in bank.items:
            raise f.error("item_id", f"unknown item id '{item_id}'")
        if item_id in seen:
            raise AnachronError(f"{where}: second response for item '{item_id}' (first at {seen[item_id]})")
        if "response" not in obj:
            raise AnachronError(f"{where}: missing field 'response'")
        _j.read_response(obj["response"], f"{where}: field 'response'")
        seen[item_id] = where
        responses[item_id] = obj["response"]
    for item_id in bank.items:
        if item_id not in responses:
            raise AnachronError(f"{source}: no response for item '{item_id}'")
    return responses


def load_responses(path: str | os.PathLike[str], bank: Bank) -> dict[str, Any]:
    """Read a RESPONSES.jsonl file (one ``{"item_id", "response"}`` per line)."""
    return parse_responses(((f"{path}:{n}", obj) for n, obj in read_jsonl(path)), bank, source=str(path))


# ----------------------------------------------------------------- model cutoffs


@dataclass(frozen=True)
class ModelCutoff:
    """A model's training cutoff and release date (from a user table)."""

    name: str
    training_cutoff: _dt.date
    release_date: _dt.date

    def overlapping(self, item: BankItem) -> bool:
        """The item's as_of falls before the training cutoff: the model may have seen past it."""
        return item.as_of < self.training_cutoff

    def badge(self, item: BankItem) -> str:
        """``web-locked only`` when released after the item's resolution, else ``pre-event model``.

        Released on the resolution day counts as after (the conservative
        side); an item with no resolution yet gives ``pre-event model``.
        """
        resolution = item.resolution()
        if resolution is not None and self.release_date >= resolution:
            return "web-locked only"
        return "pre-event model"

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
        f = _Fields(f"{where} (model '{name}')", row)
        cutoff, release = f.date("training_cutoff"), f.date("release_date")
        assert cutoff is not None and release is not None
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


# ------------------------------------------------------------------------ runs


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval for a binomial proportion; ``None`` when *trials* is 0.

    With ``p = k/n``::

        centre    = (p + z**2 / (2n)) / (1 + z**2 / n)
        halfwidth = z / (1 + z**2 / n) * sqrt(p (1 - p) / n + z**2 / (4 n**2))
        interval  = [centre - halfwidth, centre + halfwidth]

    ``z`` defaults to 1.959963984540054 (95%, two-sided).  Unlike the Wald
    interval it stays inside [0, 1] and is not degenerate at ``k = 0`` or
    ``k = n``: 0 of 40 gives [0, 0.0876], 40 of 40 gives [0.9124, 1].  At
    ``k = 0`` the lower bound is exactly 0 and at ``k = n`` the upper bound
    exactly 1 (the formula's value, without float residue); other bounds are
    clamped to [0, 1].
    """
    if isinstance(successes, bool) or isinstance(trials, bool) or not isinstance(successes, int) or not isinstance(trials, int):
        raise AnachronError("wilson_interval: counts must be integers")
    if trials < 0 or not 0 <= successes <= max(trials, 0):
        raise AnachronError(f"wilson_interval: need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return None
    n, p, z2 = trials, successes / trials, z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At k = 0 (k = n) the lower (upper) bound is exactly 0 (1); floats would leave 1e-17.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


@dataclass(frozen=True)
class Tally:
    """Judgement counts over a set of items, and the two headline rates.

    ``accuracy`` = correct / answerable; ``leak_rate`` = leaked embargoed
    items / embargoed items (never over the bank size); both ``None`` when
    their denominator is 0.
    """

    items: int
    answerable: int
    embargoed: int
    correct: int
    incorrect: int
    refused: int
    leaked: int  # embargoed items answered substantively
    leaked_answerable: int  # answerable items answered with a later value

    @classmethod
    def of(cls, pairs: Iterable[tuple[BankItem, str]]) -> "Tally":
        """The tally of ``(item, judgement)`` pairs."""
        return cls.count((item.embargoed, judgement) for item, judgement in pairs)

    @classmethod
    def count(cls, rows: Iterable[tuple[bool, str]]) -> "Tally":
        """The tally of ``(embargoed, judgement)`` rows (what a per-item record keeps)."""
        rows = list(rows)
        for _, judgement in rows:
            if judgement not in JUDGEMENTS:
                raise AnachronError(f"unknown judgement {judgement!r}: expected one of {', '.join(JUDGEMENTS)}")

        def n(judgement: str, embargoed: bool | None = None) -> int:
            return sum(j == judgement and (embargoed is None or e == embargoed) for e, j in rows)

        return cls(
            items=len(rows),
            answerable=sum(not e for e, _ in rows),
            embargoed=sum(bool(e) for e, _ in rows),
            correct=n(CORRECT),
            incorrect=n(INCORRECT),
            refused=n(REFUSED),
            leaked=n(LEAKED, True),
            leaked_answerable=n(LEAKED, False),
        )

    @property
    def accuracy(self) -> float | None:
        return _ratio(self.correct, self.answerable)

    @property
    def leak_rate(self) -> float | None:
        return _ratio(self.leaked, self.embargoed)

    @property
    def leak_rate_ci(self) -> tuple[float, float] | None:
        return wilson_interval(self.leaked, self.embargoed)

    def to_dict(self) -> dict[str, Any]:
        ci = self.leak_rate_ci
        return {
            "items": self.items,
            "answerable": self.answerable,
            "embargoed": self.embargoed,
            "correct": self.correct,
            "incorrect": self.incorrect,
            "refused": self.refused,
            "leaked": self.leaked,
            "leaked_answerable": self.leaked_answerable,
            "accuracy": self.accuracy,
            "leak_rate": self.leak_rate,
            "leak_rate_ci": list(ci) if ci else None,
        }


@dataclass(frozen=True)
class Check:
    """One time-gate check: its threshold, the measured value, and the verdict."""

    name: str
    rule: str
    threshold: Any
    value: Any
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rule": self.rule, "threshold": self.threshold, "value": self.value, "passed": self.passed}


@dataclass(frozen=True)
class ItemRecord:
    """The per-item record of a run."""

    item: BankItem
    response: Any
    judgement: str
    overlapping: bool | None = None
    badge: str | None = None

    def to_dict(self) -> dict[str, Any]:
        record = {
            "item_id": self.item.id,
            "as_of": self.item.as_of.isoformat(),
            "embargoed": self.item.embargoed,
            "response": self.response,
            "judgement": self.judgement,
        }
        if self.badge is not None:
            resolution = self.item.resolution()
            record["overlapping"] = self.overlapping
            record["resolution"] = resolution.isoformat() if resolution else None
            record["badge"] = self.badge
        return record


@dataclass(frozen=True)
class BankRun:
    """A scored run: the system's records, both oracles, the checks."""

    system: str
    bank_version: str
    records: tuple[ItemRecord, ...]
    tally: Tally
    respect: Tally
    ignore: Tally
    checks: tuple[Check, ...]
    hindsight_correct: int
    hindsight_items: int
    model: ModelCutoff | None = None

    @property
    def valid(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def failed_checks(self) -> list[str]:
        return [check.name for check in self.checks if not check.passed]

    def overlap(self) -> dict[str, Tally] | None:
        """Tallies of the overlapping and non-overlapping items (with a model only)."""
        if self.model is None:
            return None
        return {
            "overlapping": Tally.of([(r.item, r.judgement) for r in self.records if r.overlapping]),
            "non_overlapping": Tally.of([(r.item, r.judgement) for r in self.records if not r.overlapping]),
        }

    def to_dict(self) -> dict[str, Any]:
        """The JSON score card (docs/bank.md lists the keys)."""
        card: dict[str, Any] = {
            "bank_version": self.bank_version,
            "system": self.system,
            **{k: v for k, v in self.tally.to_dict().items()},
            "hindsight_accuracy": _ratio(self.hindsight_correct, self.hindsight_items),
            "oracle_respect_leak_rate": self.respect.leak_rate,
            "oracle_respect_accuracy": self.respect.accuracy,
            "oracle_ignore_leak_rate": self.ignore.leak_rate,
            "oracle_ignore_accuracy": self.ignore.accuracy,
            "valid": self.valid,
            "failed_checks": self.failed_checks,
            "checks": [check.to_dict() for check in self.checks],
            "items": [record.to_dict() for record in self.records],
        }
        overlap = self.overlap()
        if overlap is not None and self.model is not None:
            card["model"] = self.model.to_dict()
            card["overlap"] = {name: tally.to_dict() for name, tally in overlap.items()}
            badges = {"pre-event model": 0, "web-locked only": 0}
            for record in self.records:
                badges[record.badge] += 1  # type: ignore[index]
            card["badges"] = badges
        return card


def _checks(bank: Bank, manifest_version_: str, respect: Tally, ignore: Tally) -> tuple[Check, ...]:
    embargoed = respect.embargoed
    respect_ok = respect.leaked == 0 and respect.leaked_answerable == 0 and respect.correct == respect.answerable
    ignore_ok = embargoed > 0 and ignore.leaked >= IGNORE_MIN_LEAK_RATE * embargoed
    return (
        Check("bank_hash", "value == threshold (the manifest's version)", manifest_version_, bank.version,
              bank.version == manifest_version_),
        Check("oracle_respect", "leak_rate <= 0 and accuracy >= 1 (no leak, every answerable item correct)",
              {"leak_rate": 0.0, "accuracy": 1.0}, {"leak_rate": respect.leak_rate, "accuracy": respect.accuracy},
              respect_ok),
        Check("oracle_ignore", "leak_rate >= threshold", float(IGNORE_MIN_LEAK_RATE), ignore.leak_rate, ignore_ok),
        Check("embargoed_items", "value >= threshold", MIN_EMBARGOED, embargoed, embargoed >= MIN_EMBARGOED),
    )


def run_bank(
    bank: Bank,
    responses: Mapping[str, Any],
    *,
    manifest_version: str,
    system: str = "responses",
    model: ModelCutoff | None = None,
) -> BankRun:
    """Judge *responses* (``{item_id: response}``, one per item) and run the checks.

    Both oracles are judged on every run; the run is valid only when the
    four checks pass (docs/run-rules.md, "Validity"): (1) the bank's version
    equals *manifest_version*; (2) the ``respect`` oracle leaks on no item
    and is correct on every answerable one; (3) the ``ignore`` oracle leaks
    on at least 95% of the embargoed items; (4) at least 30 items are
    embargoed.  With *model*, each record is flagged as overlapping (as_of
    before the training cutoff) and badged.
    """
    missing = [item_id for item_id in bank.items if item_id not in responses]
    if missing:
        raise AnachronError(f"{system}: no response for item '{missing[0]}'")
    unknown = sorted(set(responses) - set(bank.items))
    if unknown:
        raise AnachronError(f"{system}: unknown item id '{unknown[0]}'")
    records = []
    hindsight = 0
    hindsight_items = 0
    for item_id, item in bank.items.items():
        response = responses[item_id]
        judgement = judge(item, response, f"{system}: item '{item_id}'")
        if model is None:
            records.append(ItemRecord(item, response, judgement))
        else:
            records.append(ItemRecord(item, response, judgement, model.overlapping(item), model.badge(item)))
        latest = item.latest()
        if latest is not None:
            hindsight_items += 1
            hindsight += _states(item, response, latest)
    oracle_tallies = [
        Tally.of([(item, judge(item, oracle_response(item, oracle))) for item in bank.items.values()])
        for oracle in ORACLES
    ]
    respect, ignore = oracle_tallies
    return BankRun(
        system=system,
        bank_version=bank.version,
        records=tuple(records),
        tally=Tally.of([(r.item, r.judgement) for r in records]),
        respect=respect,
        ignore=ignore,
        checks=_checks(bank, manifest_version, respect, ignore),
        hindsight_correct=hindsight,
        hindsight_items=hindsight_items,
        model=model,
    )


# ------------------------------------------------------------------- the builder


def build_bank(fact_records: Iterable[tuple[str, Mapping[str, Any]]], corpus) -> Bank:
    """Build the bank from dated facts (docs/bank.md, "How the bank is built")."""
    from ._bank_facts import bank_records

    records = bank_records(fact_records, corpus)
    return parse_bank((f"built item {r['id']}", r) for r in records)


def load_facts(path: str | os.PathLike[str] | None = None) -> list[tuple[str, Mapping[str, Any]]]:
    """The records of a facts file (default: the bundled ``facts.jsonl``)."""
    path = Path(path) if path is not None else default_corpus_dir() / "facts.jsonl"
    return [(f"{path}:{n}", obj) for n, obj in read_jsonl(path)]
