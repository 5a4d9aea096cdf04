"""ForecastBench rounds written in ForecastBench's own file formats (tests/forecasts, tests/cli).

A question set, a resolution set and one forecast set per model, as
forecastingresearch/forecastbench publishes them: the question set's
``resolution_dates`` (``"N/A"`` for a market question), the resolution set's
``{id, source, direction, resolution_date, resolved_to, resolved}`` entries
(one per dataset question and horizon; one per market question, dated at its
close), and the forecast set's ``{id, source, forecast, resolution_date,
direction, reasoning}`` (``resolution_date`` null for a market question).
"""

from __future__ import annotations

import datetime as dt
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

DATASET = ("acled", "fred", "wikipedia", "yfinance", "dbnomics")
MARKET = ("manifold", "metaculus", "polymarket", "infer")


@dataclass
class Round:
    due: dt.date
    # (id, source, resolution date or None for a market question, outcome or None: unresolved)
    entries: list[tuple[str, str, dt.date | None, int | None]] = field(default_factory=list)
    combos: int = 0

    @property
    def name(self) -> str:
        return f"{self.due.isoformat()}-llm.json"


def make_round(due: str, *, dataset: int, market: int, seed: int, horizons=(7, 30), combos: int = 0,
               unresolved_market: int = 0) -> Round:
    """A round of *dataset* dataset questions (each at every horizon) and *market* market questions."""
    rng = random.Random(seed)
    r = Round(dt.date.fromisoformat(due), combos=combos)
    for i in range(dataset):
        source = DATASET[i % len(DATASET)]
        for h in horizons:
            r.entries.append((f"d{i}", source, r.due + dt.timedelta(days=h), rng.randint(0, 1)))
    for i in range(market):
        source = MARKET[i % len(MARKET)]
        outcome = None if i < unresolved_market else rng.randint(0, 1)
        r.entries.append((f"m{i}", source, r.due + dt.timedelta(days=20 + i % 9), outcome))
    return r


def question_set(r: Round) -> dict:
    questions = {}
    for ident, source, day, _ in r.entries:
        q = questions.setdefault(ident, {"id": ident, "source": source, "question": f"Will {ident} happen?",
                                         "resolution_dates": "N/A" if source in MARKET else []})
        if source not in MARKET:
            q["resolution_dates"].append(day.isoformat())
    combos = [{"id": ["d0", "d1"], "source": "acled", "resolution_dates": []} for _ in range(min(r.combos, 1))]
    return {"forecast_due_date": r.due.isoformat(), "question_set": r.name, "questions": [*questions.values(), *combos]}


def resolution_set(r: Round) -> dict:
    rows = [{"id": ident, "source": source, "direction": None, "resolution_date": day.isoformat(),
             "resolved_to": 0.37 if outcome is None else float(outcome), "resolved": outcome is not None}
            for ident, source, day, outcome in r.entries]
    rows += [{"id": ["d0", "d1"], "source": "acled", "direction": [1, -1 if k % 2 else 1],
              "resolution_date": r.entries[0][2].isoformat(), "resolved_to": 1.0, "resolved": True} for k in range(r.combos)]
    return {"forecast_due_date": r.due.isoformat(), "question_set": r.name, "resolutions": rows}


def forecast_set(r: Round, model: str, forecast: Callable[[str, str, dt.date | None, int | None], float | None], *,
                 organization: str = "Lab", model_organization: str = "Lab") -> dict:
    """The forecast set of *model*: *forecast(id, source, day, outcome)* for each entry (None: no forecast)."""
    rows = []
    for ident, source, day, outcome in r.entries:
        p = forecast(ident, source, day, outcome)
        if p is None:
            continue
        rows.append({"id": ident, "source": source, "forecast": p, "direction": None, "reasoning": "",
                     "resolution_date": None if source in MARKET else day.isoformat()})
    rows += [{"id": ["d0", "d1"], "source": "acled", "forecast": 0.5, "direction": [1, 1],
              "resolution_date": r.entries[0][2].isoformat(), "reasoning": ""} for _ in range(min(r.combos, 1))]
    return {"organization": organization, "model_organization": model_organization, "model": model,
            "question_set": r.name, "forecasts": rows}


def write_round(root: Path, r: Round, sets: dict[str, dict]) -> list[str]:
    """The round's files under *root* in ForecastBench's layout; the paths written."""
    paths = []
    for sub, name, doc in (("question_sets", r.name, question_set(r)),
                           ("resolution_sets", f"{r.due.isoformat()}_resolution_set.json", resolution_set(r)),
                           *((f"forecast_sets/{r.due.isoformat()}", f"{r.due.isoformat()}.{key}.json", s)
                             for key, s in sets.items())):
        path = root / sub / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc), encoding="utf-8")
        paths.append(str(path))
    return paths


def constant(p: float | None) -> Callable[..., float | None]:
    return lambda *_: p


def baselines(r: Round) -> dict[str, dict]:
    """ForecastBench's constant baselines (organization and model organization ForecastBench)."""
    return {name.replace(" ", "_"): forecast_set(r, name, constant(p), organization="ForecastBench",
                                                 model_organization="ForecastBench")
            for name, p in (("Always 0", 0.0), ("Always 1", 1.0), ("Always 0.5", 0.5))}
