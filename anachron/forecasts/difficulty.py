"""The difficulty-adjusted Brier: ForecastBench's ranking of models that answered different questions.

A two-way fixed-effects model is fitted by least squares to every
``(question, model)`` Brier score::

    brier[q, m] = question[q] + model[m] + error

A model's **difficulty-adjusted Brier** is the mean over the questions it
answered of ``brier - question[q]``: a model that took the hard questions is
not ranked below one that took the easy ones.  The effects are fixed only up
to a constant; ForecastBench fixes it by making "Always 0.5" (0.5 on every
question, Brier 0.25) score 0.25, which is making the question effects
average 0 over the *questions*.  Edge cases:

- when every model answered every question, it is the plain mean Brier;
- models linked by no common question are placed on one scale all the same
  (one normalisation over all);
- a pair scored twice, or no observation at all, is an error.

>>> fit = difficulty_adjusted([("q1", "a", 0.1), ("q1", "b", 0.3), ("q2", "a", 0.5), ("q2", "b", 0.1)])
>>> {m: round(v, 6) for m, v in fit.models.items()}  # balanced: each model's mean Brier
{'a': 0.3, 'b': 0.2}
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping

from anachron.core.errors import AnachronError

__all__ = ["FixedEffects", "difficulty_adjusted"]


@dataclass(frozen=True)
class FixedEffects:
    """The two-way fixed-effects fit: ``model`` is each model's difficulty-adjusted Brier."""

    models: Mapping[str, float]
    questions: Mapping[str, float]  # question effects, mean 0 over the questions
    iterations: int
    converged: bool


def difficulty_adjusted(
    observations: Iterable[tuple[str, str, float]], *, tolerance: float = 1e-12, max_iterations: int = 10_000
) -> FixedEffects:
    """Fit ``brier[q, m] = question[q] + model[m]`` by least squares (ForecastBench's difficulty adjustment).

    *observations* are ``(question, model, brier)``, at most one per pair.
    The fit alternates: each model's effect is the mean over its questions
    of ``brier - question``, then each question's the mean over its models of
    ``brier - model``, until no effect moves by more than *tolerance*
    (alternating demeaning converges to the least-squares fit).  A model's
    **difficulty-adjusted Brier** is the mean over its questions of
    ``brier - question``, on the scale ForecastBench fixes by rescaling so
    that "Always 0.5" (a forecast of 0.5 on every question, Brier 0.25)
    scores 0.25: that is, the question effects average 0 over the
    *questions* (each question once, however many models answered it).
    When every model answered every question it is its plain mean Brier.
    Models linked by no question are identified together all the same (one
    normalisation over all).

    >>> fit = difficulty_adjusted([("q1", "a", 0.25), ("q1", "b", 0.5), ("q2", "b", 0.0)])
    >>> {m: round(v, 6) for m, v in fit.models.items()}  # q1 is hard, q2 easy: b answered both
    {'a': 0.0, 'b': 0.25}
    """
    data: dict[tuple[str, str], float] = {}
    for question, model, value in observations:
        if (question, model) in data:
            raise AnachronError(f"model {model!r} scored question {question!r} twice")
        data[(question, model)] = value
    if not data:
        raise AnachronError("difficulty-adjusted Brier: no observation")
    by_model: dict[str, list[tuple[str, float]]] = {}
    by_question: dict[str, list[tuple[str, float]]] = {}
    for (question, model), value in data.items():
        by_model.setdefault(model, []).append((question, value))
        by_question.setdefault(question, []).append((model, value))
    q_eff = dict.fromkeys(by_question, 0.0)
    m_eff = dict.fromkeys(by_model, 0.0)
    converged = False
    iterations = 0
    for iterations in range(1, max_iterations + 1):
        moved = 0.0
        for model, rows in by_model.items():
            new = math.fsum(v - q_eff[q] for q, v in rows) / len(rows)
            moved = max(moved, abs(new - m_eff[model]))
            m_eff[model] = new
        for question, rows in by_question.items():
            new = math.fsum(v - m_eff[m] for m, v in rows) / len(rows)
            moved = max(moved, abs(new - q_eff[question]))
            q_eff[question] = new
        if moved <= tolerance:
            converged = True
            break
    # ForecastBench adds 0.25 - score("Always 0.5"), and Always 0.5 answers every question: its score is
    # 0.25 - mean(question effects over the questions), so the shift is that unweighted mean.
    shift = math.fsum(q_eff.values()) / len(q_eff)
    return FixedEffects(
        models={m: v + shift for m, v in sorted(m_eff.items())},
        questions={q: v - shift for q, v in sorted(q_eff.items())},
        iterations=iterations,
        converged=converged,
    )
