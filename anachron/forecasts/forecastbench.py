"""ForecastBench's own files, several rounds at once: question sets, resolution sets, forecast sets.

OUTCOME MATERIAL (reads resolutions): never imported by a serving path.
The shapes are those ForecastBench publishes (forecastingresearch/forecastbench;
docs/outcomes.md, "ForecastBench leaderboards", names each field and where
ForecastBench writes it):

- a **question set** ``{"forecast_due_date", "question_set", "questions":
  [{"id", "source", "resolution_dates", ...}]}``: the questions asked in a
  round;
- a **resolution set** ``{"forecast_due_date", "question_set", "resolutions":
  [{"id", "source", "direction", "resolution_date", "resolved_to",
  "resolved"}]}``: one entry per question and horizon;
- a **forecast set** ``{"organization", "model", "model_organization",
  "question_set", "forecasts": [{"id", "source", "forecast",
  "resolution_date", "direction", ...}]}``: one model's forecasts of one
  round.  Its round is the date in ``question_set`` (ForecastBench's
  ``read_forecast_file`` reads it so), or ``forecast_due_date`` when given.

A round is its ``forecast_due_date``; a question is qualified by it
(``2025-03-02/<id>@<resolution date>``), so one model may hold a forecast
set per round.  A **combination question** (``id`` a list) is dropped, as
ForecastBench's leaderboard drops it (``get_df_info``: ``is_combo``), and
counted.  A path may be a directory: its ``.json`` files, walked in name
order, each one of the three shapes.  Every rejection names the file and
its entry (``forecasts[3]``).
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import re
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from anachron.core.attribution import day_field
from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import read_json, read_records, read_text
from anachron.forecasts.forecast import check_probability
from anachron.forecasts.reading import forecastbench_key, question_key

__all__ = [
    "DATASET_SOURCES", "MARKET_SOURCES", "DUMMY_MODELS", "BENCHMARK", "Entry", "ForecastSet", "Rounds",
    "load_question_effects", "load_rounds", "question_type",
]

# ForecastBench's sources by type (src/sources/registry.py: SourceType.DATASET / MARKET;
# src/helpers/question_curation.py: DATA_SOURCES, MARKET_SOURCES).
DATASET_SOURCES = ("acled", "dbnomics", "fred", "wikipedia", "yfinance")
MARKET_SOURCES = ("infer", "manifold", "metaculus", "polymarket")
# The dummy forecasters its difficulty fit leaves out (src/leaderboard/main.py: two_way_fixed_effects).
DUMMY_MODELS = ("Always 0", "Always 1", "Always 0.5", "Random Uniform", "Imputed Forecaster")
BENCHMARK = "ForecastBench"  # the organization of its own baselines (constants.BENCHMARK_NAME)
_DATE_IN_NAME = re.compile(r"\d{4}-\d{2}-\d{2}")


def question_type(source: str) -> str | None:
    """``"dataset"``, ``"market"`` or ``None`` (not a ForecastBench source) for a question's ``source``.

    >>> question_type("fred"), question_type("manifold"), question_type("kalshi")
    ('dataset', 'market', None)
    """
    if source in DATASET_SOURCES:
        return "dataset"
    if source in MARKET_SOURCES:
        return "market"
    return None


@dataclass(frozen=True)
class Entry:
    """One question of a round at one horizon, from a resolution set (``outcome`` None: not resolved yet)."""

    round: _dt.date
    key: str  # forecastbench_key: id[/directions][@resolution_date]
    question: str  # the id (and directions) without the horizon
    source: str
    qtype: str
    resolution_date: _dt.date | None
    outcome: int | None
    where: str

    @cached_property  # asked for at every join, fit and row: built once
    def sample_id(self) -> str:
        return f"{self.round.isoformat()}/{self.key}"


@dataclass
class ForecastSet:
    """One model's forecasts of one round: ``{question key: probability}`` (where each was read is found again
    on an error only: a string a forecast would cost more than the forecasts)."""

    model: str  # "organization model", as the single-file reader names it
    bare: str  # the file's ``model`` field (the dummy names are matched on it)
    organization: str
    model_organization: str
    round: _dt.date
    path: str
    forecasts: dict[str, float] = field(default_factory=dict)
    undated: dict[str, float] = field(default_factory=dict)  # question (no horizon) -> p, resolution_date null


@dataclass
class Rounds:
    """Everything read: the entries per round, the questions asked, the forecast sets, and what was dropped."""

    entries: dict[_dt.date, dict[str, Entry]] = field(default_factory=dict)
    asked: dict[_dt.date, set[str]] = field(default_factory=dict)  # question ids per round (question sets)
    sets: list[ForecastSet] = field(default_factory=list)
    combination_entries: int = 0  # resolution entries of combination questions, dropped
    combination_forecasts: int = 0  # forecasts of combination questions, dropped
    unresolved_entries: int = 0

    def resolve(self, fs: ForecastSet) -> Iterator[tuple[Entry | None, str, float]]:
        """``(entry or None, key, p)`` of each forecast of *fs*: a forecast without a horizon (ForecastBench
        writes null for a market question) takes its question's entry when the round holds only one."""
        entries = self.entries.get(fs.round, {})
        for key, p in fs.forecasts.items():
            yield entries.get(key), key, p
        by_question: dict[str, list[Entry]] = {}
        for entry in entries.values():
            by_question.setdefault(entry.question, []).append(entry)
        for question, p in fs.undated.items():
            found = by_question.get(question, [])
            yield (found[0] if len(found) == 1 else None), question, p


def _files(paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    out: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            found = sorted(str(p) for p in Path(path).rglob("*.json") if p.is_file())
            if not found:
                raise AnachronError(f"{path}: no .json file in this directory")
            out += found
        else:
            out.append(str(path))
    return out


def _string(where: str, obj: Mapping[str, Any], name: str) -> str:
    value = obj.get(name)
    if not isinstance(value, str) or not value:
        raise AnachronError(f"{where}: {name} is {describe(value)}, expected a non-empty string")
    return value


def _round(path: str, obj: Mapping[str, Any]) -> _dt.date:
    due = day_field(path, obj, "forecast_due_date")
    if due is not None:
        return due
    name = obj.get("question_set")
    match = _DATE_IN_NAME.search(name) if isinstance(name, str) else None
    if match is None:
        raise AnachronError(f"{path}: no forecast_due_date, and question_set {describe(name)} names no YYYY-MM-DD date")
    return day_field(path, {"question_set": match.group(0)}, "question_set")  # type: ignore[return-value]


def _combination(entry: Mapping[str, Any]) -> bool:
    return isinstance(entry.get("id"), list)


def _source(where: str, entry: Mapping[str, Any]) -> tuple[str, str]:
    source = _string(where, entry, "source")
    qtype = question_type(source)
    if qtype is None:
        raise AnachronError(
            f"{where}: source {source!r} is not a ForecastBench source (dataset: {', '.join(DATASET_SOURCES)}; "
            f"market: {', '.join(MARKET_SOURCES)})"
        )
    return source, qtype


def _outcome(where: str, value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)) and value in (0, 1):
        return int(value)
    raise AnachronError(f"{where}: resolved_to is {describe(value)}, expected 0 or 1 for a resolved question")


def _entries(obj: Mapping[str, Any], name: str, path: str) -> list[tuple[str, dict]]:
    items = obj.get(name)
    if not isinstance(items, list):
        raise AnachronError(f"{path}: {name} is {describe(items)}, expected an array")
    out = []
    for i, item in enumerate(items):
        where = f"{path}: {name}[{i}]"
        if not isinstance(item, dict):
            raise AnachronError(f"{where}: expected an object, got {describe(item)}")
        out.append((where, item))
    return out


def _read_resolutions(rounds: Rounds, path: str, obj: Mapping[str, Any]) -> None:
    due = day_field(path, obj, "forecast_due_date")
    if due is None:
        raise AnachronError(f"{path}: a resolution set needs its forecast_due_date (the round)")
    table = rounds.entries.setdefault(due, {})
    for where, item in _entries(obj, "resolutions", path):
        if _combination(item):
            rounds.combination_entries += 1
            continue
        source, qtype = _source(where, item)
        key = sys.intern(forecastbench_key(where, item))  # one string for the entry and every model's forecast of it
        resolved = item.get("resolved")
        if resolved not in (True, False, None):
            raise AnachronError(f"{where}: resolved is {describe(resolved)}, expected true or false")
        outcome = None if resolved is False or item.get("resolved_to") is None else _outcome(where, item["resolved_to"])
        entry = Entry(due, key, question_key(where, item), source, qtype, day_field(where, item, "resolution_date"), outcome, where)
        old = table.get(key)
        if old is not None:
            # ForecastBench publishes a round's LLM and human sets: the same entry twice is one entry.
            if (old.outcome, old.source) != (entry.outcome, entry.source):
                raise AnachronError(f"{where}: question {key!r} of round {due} resolved differently at {old.where}")
            continue
        if outcome is None:
            rounds.unresolved_entries += 1
        table[key] = entry


def _read_questions(rounds: Rounds, path: str, obj: Mapping[str, Any]) -> None:
    due = day_field(path, obj, "forecast_due_date")
    if due is None:
        raise AnachronError(f"{path}: a question set needs its forecast_due_date (the round)")
    asked = rounds.asked.setdefault(due, set())
    for where, item in _entries(obj, "questions", path):
        if _combination(item):
            continue
        _source(where, item)
        asked.add(question_key(where, {"id": item.get("id")}))


def _read_forecasts(rounds: Rounds, path: str, obj: Mapping[str, Any]) -> None:
    bare = _string(path, obj, "model")
    organization = obj.get("organization")
    organization = organization if isinstance(organization, str) else ""
    model_org = obj.get("model_organization")
    model_org = model_org if isinstance(model_org, str) else ""
    model = f"{organization} {bare}" if organization and organization not in bare else bare
    fs = ForecastSet(model, bare, organization, model_org, _round(path, obj), path)
    for where, item in _entries(obj, "forecasts", path):
        if _combination(item):
            rounds.combination_forecasts += 1
            continue
        _source(where, item)
        key = sys.intern(forecastbench_key(where, item))
        p = check_probability(item.get("forecast"), f"{where} (question {key})")
        dated = item.get("resolution_date") is not None
        target = fs.forecasts if dated else fs.undated
        name = key if dated else sys.intern(question_key(where, item))
        if name in target:
            raise AnachronError(f"{where}: model {model!r} forecast question {name!r} twice (first at {_first(obj, path, name)})")
        target[name] = p
    for other in rounds.sets:
        if (other.model, other.round) == (fs.model, fs.round):
            raise AnachronError(f"{path}: model {model!r} has a second forecast set for round {fs.round} (first: {other.path})")
    rounds.sets.append(fs)


def _first(obj: Mapping[str, Any], path: str, name: str) -> str:
    """Where a forecast set first forecast *name* (its key, or its question's when undated)."""
    for where, item in _entries(obj, "forecasts", path):
        if not _combination(item):
            dated = item.get("resolution_date") is not None
            if (forecastbench_key(where, item) if dated else question_key(where, item)) == name:
                return where
    return "an earlier entry"


def load_rounds(paths: Sequence[str | os.PathLike[str]]) -> Rounds:
    """Every question, resolution and forecast set in *paths* (files, or directories of ``.json`` files)."""
    rounds = Rounds()
    for path in _files(paths):
        obj = read_json(path)
        if not isinstance(obj, dict):
            raise AnachronError(f"{path}: expected a ForecastBench question, resolution or forecast set (a JSON object)")
        kinds = [k for k in ("questions", "resolutions", "forecasts") if k in obj]
        if len(kinds) != 1:
            raise AnachronError(
                f"{path}: not a ForecastBench question, resolution or forecast set "
                f"(expected one of the keys questions, resolutions, forecasts; found {kinds or 'none'})"
            )
        {"questions": _read_questions, "resolutions": _read_resolutions, "forecasts": _read_forecasts}[kinds[0]](rounds, path, obj)
    if not rounds.sets:
        raise AnachronError("no ForecastBench forecast set in " + ", ".join(map(str, paths)))
    if not rounds.entries:
        raise AnachronError("no ForecastBench resolution set in " + ", ".join(map(str, paths)))
    for fs in rounds.sets:
        if fs.round not in rounds.entries:
            raise AnachronError(f"{fs.path}: round {fs.round} has no resolution set among the inputs")
    return rounds


def load_question_effects(path: str | os.PathLike[str]) -> dict[str, dict[tuple[str, str, str, int | None], float]]:
    """``{question type: {(due date, source, id, horizon): effect}}`` from a question-effects file.

    The file is ForecastBench's (``write_question_fixed_effects``: a JSON array of
    ``{"forecast_due_date", "source", "id", "horizon", "question_fixed_effect", ...}``)
    or JSON Lines of the same objects; ``horizon`` is null for a market question.
    """
    text = read_text(path).lstrip()
    if text.startswith("["):
        items = read_json(path)
        records = [(f"{path}: [{i}]", item) for i, item in enumerate(items)]
    else:
        records = read_records(path)
    if not records:
        raise AnachronError(f"{path}: no question effect")
    out: dict[str, dict[tuple[str, str, str, int | None], float]] = {}
    for where, item in records:
        if not isinstance(item, dict):
            raise AnachronError(f"{where}: expected an object, got {describe(item)}")
        due = day_field(where, item, "forecast_due_date")
        if due is None:
            raise AnachronError(f"{where}: forecast_due_date is missing")
        source, qtype = _source(where, item)
        ident = _string(where, item, "id")
        horizon = item.get("horizon")
        if qtype == "market":
            horizon = None  # ForecastBench writes null there; a market question has no horizon
        elif isinstance(horizon, float) and horizon.is_integer():
            horizon = int(horizon)  # pandas writes an integer column holding nulls as floats
        if qtype == "dataset" and (isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 0):
            raise AnachronError(f"{where}: horizon is {describe(horizon)}, expected the days from due date to resolution")
        effect = item.get("question_fixed_effect")
        if isinstance(effect, bool) or not isinstance(effect, (int, float)) or not math.isfinite(effect):
            raise AnachronError(f"{where}: question_fixed_effect is {describe(effect)}, expected a finite number")
        key = (due.isoformat(), source, ident, horizon)
        table = out.setdefault(qtype, {})
        if key in table:
            raise AnachronError(f"{where}: the effect of question {ident!r} ({source}, round {due}) is given twice")
        table[key] = float(effect)
    return out
