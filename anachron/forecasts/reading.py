"""Reading the inputs of ``anachron outcomes``: forecasts, resolutions, leakage scores.

The file formats (docs/outcomes.md, "Inputs"):

- **forecasts**: a ForecastBench forecast set (one JSON object with
  ``model`` and ``forecasts: [{id, source, forecast, resolution_date,
  direction, ...}]``); or JSON Lines of ``{"sample_id", "probability"}`` or
  ``{"sample_id", "probabilities": {option: p}}``, with an optional
  ``"model"``; or trace lines (``{"sample_id", "answer", ...}``), whose
  answer's probability is read by :func:`anachron.forecasts.forecast.answer_probability`;
- **resolutions**: a ForecastBench resolution set (``resolutions: [{id,
  resolution_date, resolved_to, resolved, direction}]``; an entry with
  ``resolved: false`` has no resolution yet; the set's ``forecast_due_date``
  is each question's T) or JSON Lines of
  ``{"sample_id", "resolved_to"}`` (0, 1 or the option) with optional
  ``"resolution_date"`` and ``"as_of"``.

A ForecastBench question is keyed ``id`` (a combination question's ids
joined by ``+``, its directions after a ``/``), then ``@resolution_date``
when it has one (a dataset question is asked at several horizons).  A
forecast without a resolution date (ForecastBench's market questions) is
resolved by its question's entry when the resolution set holds only one
(the market's, dated at its close).

Every rejection names the file and line (JSON Lines) or the file and entry
(``forecasts[3]``).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import sys
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from anachron.core.attribution import day_field
from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import parse_json, read_json, read_records, read_text, stream_records
from anachron.forecasts.forecast import Forecast, answer_probability, check_distribution, check_probability

__all__ = ["ForecastTable", "Forecasts", "Resolution", "Resolutions", "forecastbench_key", "load_forecasts", "load_resolutions", "load_scores", "question_key"]


@dataclass(frozen=True, slots=True)  # slots: 10**5 of them in a large report
class Resolution:
    """What a sample resolved to, and when (``None``: not given)."""

    sample_id: str
    outcome: int | str
    resolution_date: _dt.date | None = None
    as_of: _dt.date | None = None
    where: str | None = None  # the file and line (or entry) it was read from


@dataclass(frozen=True)
class Forecasts:
    """The forecasts of one file: ``{model: {sample id: Forecast}}``, and the answers no probability was read from."""

    by_model: Mapping[str, Mapping[str, Forecast]]
    unread: Mapping[str, tuple[str, ...]] | None = None  # model -> trace samples whose answer states no probability
    as_of: Mapping[str, _dt.date] | None = None  # T of each trace sample, when the file gave it


_DOCUMENT_KEYS = ("forecasts", "resolutions", "questions")


def _streamable(path: str | os.PathLike[str]) -> bool:
    """Whether *path* is plainly JSON Lines: its first line alone is an object of none of the one-document
    keys.  Such a file is never one document (an object followed by more text is no JSON document)."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline().decode("utf-8").removeprefix("\ufeff")
        obj = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return False  # whatever it is, the whole-file reading below says it
    return isinstance(obj, dict) and not any(key in obj for key in _DOCUMENT_KEYS)


def _document(path: str | os.PathLike[str]) -> tuple[Any, Iterable[tuple[str, dict]]]:
    """``(json object, [])`` for a one-document file, else ``(None, (where, record), ...)`` for JSON Lines
    (streamed a line at a time when the first line shows it: 10**6 forecasts are never all in memory as dicts)."""
    if _streamable(path):
        return None, stream_records(path)
    text = read_text(path)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            obj = parse_json(text, str(path), multiline=True)
        except AnachronError:
            obj = None  # several objects: JSON Lines
        if isinstance(obj, dict) and any(key in obj for key in _DOCUMENT_KEYS):
            return obj, []
    records = read_records(path)
    return None, records


def _text(where: str, obj: Mapping[str, Any], name: str) -> str:
    value = obj.get(name)
    if not isinstance(value, str) or not value:
        raise AnachronError(f"{where}: {name} is {describe(value)}, expected a non-empty string")
    return value


def forecastbench_key(where: str, entry: Mapping[str, Any]) -> str:
    """The sample id of a ForecastBench question entry (module docstring)."""
    key = question_key(where, entry)
    day = day_field(where, entry, "resolution_date")
    return key if day is None else f"{key}@{day.isoformat()}"


def question_key(where: str, entry: Mapping[str, Any]) -> str:
    """A ForecastBench entry's question: its id and direction, without the resolution date."""
    ident = entry.get("id")
    if isinstance(ident, list) and ident and all(isinstance(i, str) and i for i in ident):
        key = "+".join(ident)
    elif isinstance(ident, str) and ident:
        key = ident
    else:
        raise AnachronError(f"{where}: id is {describe(ident)}, expected a string or a list of strings")
    direction = entry.get("direction")
    if isinstance(direction, list) and direction:
        key += "/" + ",".join(str(d) for d in direction)
    elif direction not in (None, []):
        key += f"/{direction}"
    return key


class ForecastTable(Mapping[str, Forecast]):
    """One model's forecasts of one file, ``{sample id: Forecast}``: a binary forecast held as its probability
    (a float in a dict, where a :class:`Forecast` costs about 70 bytes more), each :class:`Forecast` made again
    when it is asked for.  Iterated binary forecasts first, each kind in the order read."""

    __slots__ = ("model", "binary", "other")

    def __init__(self, model: str) -> None:
        self.model = model
        self.binary: dict[str, float] = {}  # sample id -> probability of a binary forecast
        self.other: dict[str, Forecast] = {}  # sample id -> a categorical forecast, kept whole

    def __getitem__(self, sample_id: str) -> Forecast:
        p = self.binary.get(sample_id)
        if p is None:
            return self.other[sample_id]
        return Forecast(sample_id, self.model, probability=p)

    def __contains__(self, sample_id: object) -> bool:
        return sample_id in self.binary or sample_id in self.other

    def __iter__(self) -> Iterator[str]:
        yield from self.binary
        yield from self.other

    def __len__(self) -> int:
        return len(self.binary) + len(self.other)


def _add(by_model: dict[str, ForecastTable], where: str, forecast: Forecast, first_at: Callable[[Forecast], str]) -> None:
    table = by_model.get(forecast.model)
    if table is None:
        table = by_model[forecast.model] = ForecastTable(forecast.model)
    if forecast.sample_id in table:
        raise AnachronError(f"{where}: model {forecast.model!r} forecast sample {forecast.sample_id!r} twice (first at {first_at(forecast)})")
    if forecast.probabilities is None:
        table.binary[forecast.sample_id] = forecast.probability  # type: ignore[assignment]
    else:
        table.other[forecast.sample_id] = forecast


def _first_line(path: str | os.PathLike[str], default_model: str) -> Callable[[Forecast], str]:
    """Where a JSON Lines file first forecast *forecast*'s sample for its model: read again, on the error only
    (a where kept per forecast would cost more than the forecasts)."""
    def find(forecast: Forecast) -> str:
        for where, record in (stream_records(path) if _streamable(path) else read_records(path)):
            if record.get("sample_id") == forecast.sample_id and record.get("model", default_model) == forecast.model:
                return where
        return "an earlier line"
    return find


def load_forecasts(path: str | os.PathLike[str]) -> Forecasts:
    """The forecasts in *path* (any of the three shapes; module docstring)."""
    obj, records = _document(path)
    by_model: dict[str, ForecastTable] = {}
    default_model = Path(path).stem.split(".")[0] or str(path)
    if obj is not None:
        entries = obj.get("forecasts")
        if not isinstance(entries, list):
            raise AnachronError(f"{path}: forecasts is {describe(entries)}, expected an array (a ForecastBench forecast set)")
        model = obj.get("model")
        model = model if isinstance(model, str) and model else default_model
        organization = obj.get("organization")
        if isinstance(organization, str) and organization and organization not in model:
            model = f"{organization} {model}"
        for i, entry in enumerate(entries):
            where = f"{path}: forecasts[{i}]"
            if not isinstance(entry, dict):
                raise AnachronError(f"{where}: expected an object, got {describe(entry)}")
            sample_id = sys.intern(forecastbench_key(where, entry))
            probability = check_probability(entry.get("forecast"), f"{where} (sample {sample_id})")
            _add(by_model, where, Forecast(sample_id, model, probability=probability),
                 lambda f, entries=entries: next(f"{path}: forecasts[{j}]" for j, e in enumerate(entries)
                                                 if isinstance(e, dict) and forecastbench_key("", e) == f.sample_id))
        return Forecasts(by_model)
    unread: dict[str, list[str]] = {}
    as_of: dict[str, _dt.date] = {}
    first_at = _first_line(path, default_model)
    for where, record in records:
        # The usual line, a binary forecast as a float, checked and held here without making a Forecast (10**6
        # of them in a large report); anything else, a repeat or an error included, takes the checks below.
        sample_id, p, model = record.get("sample_id"), record.get("probability"), record.get("model", default_model)
        if (type(p) is float and 0.0 <= p <= 1.0 and type(sample_id) is str and sample_id and type(model) is str and model
                and "probabilities" not in record and "answer" not in record):
            table = by_model.get(model)
            if table is None:
                table = by_model[model] = ForecastTable(sys.intern(model))
            if sample_id not in table.binary and sample_id not in table.other:
                # Interned: the sample id of five models' files and of the resolutions is one string, not six.
                table.binary[sys.intern(sample_id)] = p
                continue
        sample_id = sys.intern(_text(where, record, "sample_id"))
        model = record.get("model", default_model)
        if not isinstance(model, str) or not model:
            raise AnachronError(f"{where}: model is {describe(model)}, expected a non-empty string")
        model = sys.intern(model)
        label = f"{where} (sample {sample_id})"
        given = [name for name in ("probability", "probabilities", "answer") if name in record]
        if len(given) > 1:
            raise AnachronError(f"{label}: both {given[0]} and {given[1]}: give one forecast a line")
        if "probabilities" in record:
            forecast = Forecast(sample_id, model, probabilities=check_distribution(record["probabilities"], label))
        elif "probability" in record:
            forecast = Forecast(sample_id, model, probability=check_probability(record["probability"], label))
        elif "answer" in record:
            answer = record["answer"]
            if answer is not None and not isinstance(answer, str):
                raise AnachronError(f"{label}: answer is {describe(answer)}, expected a string or null")
            day = day_field(where, record, "as_of")
            if day is not None:
                as_of[sample_id] = day
            p = None if answer is None else answer_probability(answer)
            if p is None:
                unread.setdefault(model, []).append(sample_id)
                continue
            forecast = Forecast(sample_id, model, probability=p)
        else:
            raise AnachronError(f"{label}: no probability, probabilities or answer")
        _add(by_model, where, forecast, first_at)
    for model, ids in unread.items():
        if model not in by_model:
            raise AnachronError(f"{path}: model {model!r}: none of its {len(ids)} answers states a probability")
    if not by_model:
        raise AnachronError(f"{path}: no forecast")
    return Forecasts(by_model, {model: tuple(ids) for model, ids in unread.items()}, as_of)


def _outcome(where: str, value: Any) -> int | str:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)) and value in (0, 1):
        return int(value)
    if isinstance(value, str) and value:
        return value
    raise AnachronError(f"{where}: resolved_to is {describe(value)}, expected 0, 1 or an option name")


_NUMBERED = re.compile(r"(.*?)([1-9][0-9]*|0)(\]?)", re.S)  # a where's number: a line, or an entry's index


class Resolutions(Mapping[str, Resolution]):
    """``{sample id: Resolution}`` held in columns, each :class:`Resolution` made again when it is asked for.

    A row is about 40 bytes besides its id's dict entry, where a :class:`Resolution` with its own
    file-and-line string costs about 200: the outcome (a shared 0, 1 or option string), the two dates
    as day ordinals (0: none), and where it was read as a number under a prefix kept once
    (``"resolutions.jsonl:"`` and the line, or ``"set.json: resolutions["``, the index and ``"]"``).
    """

    __slots__ = ("_row", "_ids", "_outcomes", "_dates", "_as_of", "_where", "_places", "_place_keys", "_other")

    def __init__(self) -> None:
        self._row: dict[str, int] = {}  # sample id -> its row (a ForecastBench alias shares its question's row)
        self._ids: list[str] = []
        self._outcomes: list[int | str] = []
        self._dates, self._as_of, self._where = array("l"), array("l"), array("q")
        self._places: dict[tuple[str, str], int] = {}  # (prefix, suffix) of a where -> its index
        self._place_keys: list[tuple[str, str]] = []  # index -> (prefix, suffix): a where is made per row asked for
        self._other: dict[int, str | None] = {}  # a row whose where is not a prefix and a number: as given

    def add(self, resolution: Resolution) -> None:
        """Hold *resolution* under its sample id (which must not be held yet)."""
        row = len(self._ids)
        self._row[resolution.sample_id] = row
        self._ids.append(resolution.sample_id)
        self._outcomes.append(resolution.outcome)
        self._dates.append(0 if resolution.resolution_date is None else resolution.resolution_date.toordinal())
        self._as_of.append(0 if resolution.as_of is None else resolution.as_of.toordinal())
        found = None if resolution.where is None else _NUMBERED.fullmatch(resolution.where)
        if found is None:
            self._other[row] = resolution.where
            self._where.append(0)
        else:
            place = self._places.get((found[1], found[3]))
            if place is None:
                place = self._places[found[1], found[3]] = len(self._place_keys)
                self._place_keys.append((found[1], found[3]))
            self._where.append(int(found[2]) * 65536 + place)  # the number and its place in one signed 64-bit cell

    def add_line(self, sample_id: str, outcome: int | str, where: str) -> None:
        """:meth:`add` of an undated resolution read at *where*, ``"file:line"`` (a JSON Lines reader's), without
        making its :class:`Resolution`."""
        prefix, colon, number = where.rpartition(":")
        key = (prefix + colon, "")
        place = self._places.get(key)
        if place is None:
            place = self._places[key] = len(self._place_keys)
            self._place_keys.append(key)
        self._row[sample_id] = len(self._ids)
        self._ids.append(sample_id)
        self._outcomes.append(outcome)
        self._dates.append(0)
        self._as_of.append(0)
        self._where.append(int(number) * 65536 + place)

    def alias(self, sample_id: str, other: str) -> None:
        """Resolve *sample_id* by *other*'s resolution (a ForecastBench market question's dateless key)."""
        self._row[sample_id] = self._row[other]

    def outcomes_of(self, sample_ids: Iterable[str]) -> list[int | str | None]:
        """What each of *sample_ids* resolved to (``None``: it has no resolution), in their order, without
        making a :class:`Resolution`."""
        rows = list(map(self._row.get, sample_ids))
        if None in rows:
            return [None if row is None else self._outcomes[row] for row in rows]
        return list(map(self._outcomes.__getitem__, rows))

    def where(self, sample_id: str) -> str | None:
        """Where *sample_id*'s resolution was read (a ``KeyError`` if it has none)."""
        row = self._row[sample_id]
        if row in self._other:
            return self._other[row]
        number, place = divmod(self._where[row], 65536)
        prefix, suffix = self._place_keys[place]
        return f"{prefix}{number}{suffix}"

    def __getitem__(self, sample_id: str) -> Resolution:
        row = self._row[sample_id]
        day, as_of = self._dates[row], self._as_of[row]
        return Resolution(
            self._ids[row], self._outcomes[row], _dt.date.fromordinal(day) if day else None,
            _dt.date.fromordinal(as_of) if as_of else None, self.where(sample_id),
        )

    def __contains__(self, sample_id: object) -> bool:
        return sample_id in self._row

    def __iter__(self) -> Iterator[str]:
        return iter(self._row)

    def __len__(self) -> int:
        return len(self._row)


def load_resolutions(path: str | os.PathLike[str]) -> tuple[Resolutions, int]:
    """``({sample id: Resolution}, unresolved)``: the resolutions in *path*, and how many entries have none yet.

    The mapping is a :class:`Resolutions`: compact, for the 10**5 questions of a large report.
    """
    obj, records = _document(path)
    out = Resolutions()
    rows: dict[str, list[str | None]] = {}  # ForecastBench question -> its entries' keys (None: not resolved)
    unresolved = 0
    if obj is not None:
        entries = obj.get("resolutions")
        if not isinstance(entries, list):
            raise AnachronError(f"{path}: resolutions is {describe(entries)}, expected an array (a ForecastBench resolution set)")
        records = [(f"{path}: resolutions[{i}]", e) for i, e in enumerate(entries)]
        forecastbench = True
        due = day_field(str(path), obj, "forecast_due_date")  # the set's T: a market question has no resolution date
    else:
        forecastbench = False
        due = None
    if not records:
        raise AnachronError(f"{path}: no resolution entry")
    for where, entry in records:
        if not forecastbench and type(entry) is dict and len(entry) == 2:
            # The usual line, {"sample_id", "resolved_to": 0 or 1}, held at once (no Resolution made, no date
            # to read); anything else, a repeat or an error included, takes the checks below.
            sample_id, outcome = entry.get("sample_id"), entry.get("resolved_to")
            if type(sample_id) is str and sample_id and type(outcome) is int and (outcome == 0 or outcome == 1) \
                    and sample_id not in out:
                out.add_line(sys.intern(sample_id), outcome, where)
                continue
        if not isinstance(entry, dict):
            raise AnachronError(f"{where}: expected an object, got {describe(entry)}")
        if forecastbench:
            sample_id = sys.intern(forecastbench_key(where, entry))
            question_rows = rows.setdefault(question_key(where, entry), [])
            if entry.get("resolved") is False or entry.get("resolved_to") is None:
                question_rows.append(None)
                unresolved += 1
                continue
            question_rows.append(sample_id)
        else:
            sample_id = sys.intern(_text(where, entry, "sample_id"))
        if "resolved_to" not in entry or entry["resolved_to"] is None:
            unresolved += 1
            continue
        if sample_id in out:
            raise AnachronError(f"{where}: sample {sample_id!r} resolved twice (first at {out.where(sample_id)})")
        out.add(Resolution(
            sample_id, _outcome(f"{where} (sample {sample_id})", entry["resolved_to"]),
            day_field(where, entry, "resolution_date"), day_field(where, entry, "as_of") or due, where,
        ))
    # A market question's forecast names no resolution date (ForecastBench writes null there) while
    # its one entry in the resolution set carries the market's close date: a forecast without a date
    # is resolved by the question's only entry.  A question with several entries (a dataset
    # question's horizons) has no such alias: a forecast of it without a date stays unresolved.
    for question, keys in rows.items():
        if len(keys) == 1 and keys[0] is not None and question not in out:
            out.alias(question, keys[0])
    return out, unresolved


def load_scores(path: str | os.PathLike[str]) -> dict[str, dict]:
    """``{sample id: per-sample record}`` of an ``anachron score --format json`` output.

    Each sample is read by the core's one reader (:func:`anachron.core.leakage.read_samples`),
    so a malformed one is an error, never a clean sample; its record is what that reader read
    (``SampleResult.to_dict()``: a field absent from an older file holds its default).
    """
    from anachron.core.leakage import read_samples  # here: the leakage scorer loads only with --scores

    return {result.sample_id: result.to_dict() for result in read_samples(read_json(path), str(path))}
