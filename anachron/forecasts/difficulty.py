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
from array import array
from dataclasses import dataclass
from operator import sub, truediv
from typing import Callable, Iterable, Mapping

from anachron.core.errors import AnachronError

__all__ = ["FixedEffects", "difficulty_adjusted"]


class Panel:
    """``(question, model, value)`` observations held in arrays, grouped by question: about 16 bytes an
    observation (a model's index and its value), where a dict keyed by ``(question, model)`` costs about 200.

    ``questions`` and ``models`` map each name to its index (in order of first appearance);
    ``question_rows[question_start[q]:question_start[q + 1]]`` are the models that answered question ``q``
    (in the order of the observations), ``question_values`` their values.  A pair given twice is an
    :class:`AnachronError` naming the first repeat in the order of the observations.  *check*, if given, is
    called as ``check(question, model, value)`` on each observation as it is read (it raises on a bad one;
    a repeat before it is named first).
    """

    __slots__ = ("questions", "models", "question_rows", "question_values", "question_start", "size")

    def __init__(self, observations: Iterable[tuple[str, str, float]],
                 check: Callable[[str, str, float], None] | None = None) -> None:
        questions: dict[str, int] = {}
        models: dict[str, int] = {}
        q_col, m_col, values = array("l"), array("l"), array("d")
        for question, model, value in observations:
            if check is not None:
                try:
                    check(question, model, value)
                except AnachronError:
                    self._repeat(q_col, m_col, questions, models)
                    raise
            q_col.append(questions.setdefault(question, len(questions)))
            m_col.append(models.setdefault(model, len(models)))
            values.append(value)
        # A counting sort by question (stable: each question's rows keep the observations' order).
        start = _starts(q_col, len(questions))
        at = array("l", start[:-1])
        rows, row_values = array("l", bytes(8 * len(q_col))), array("d", bytes(8 * len(q_col)))
        for q, m, value in zip(q_col, m_col, values):
            i = at[q]
            rows[i] = m
            row_values[i] = value
            at[q] = i + 1
        if any(len(set(rows[start[q]:start[q + 1]])) < start[q + 1] - start[q] for q in range(len(questions))):
            self._repeat(q_col, m_col, questions, models)
        self.questions, self.models = questions, models
        self.question_rows, self.question_values, self.question_start = rows, row_values, start
        self.size = len(values)

    @staticmethod
    def _repeat(q_col: array[int], m_col: array[int], questions: Mapping[str, int], models: Mapping[str, int]) -> None:
        """The error for the first pair given twice, if one is (the error path only: a set of every pair)."""
        seen: set[tuple[int, int]] = set()
        for pair in zip(q_col, m_col):
            if pair in seen:
                question = next(name for name, i in questions.items() if i == pair[0])
                model = next(name for name, i in models.items() if i == pair[1])
                raise AnachronError(f"model {model!r} scored question {question!r} twice")
            seen.add(pair)

    def by_model(self) -> tuple[array[int], array[float], array[int]]:
        """``(questions, values, start)``: the same observations grouped by model (each model's in question order)."""
        rows, starts = self.question_rows, self.question_start
        start = _starts(rows, len(self.models))
        at = array("l", start[:-1])
        questions, values = array("l", bytes(8 * len(rows))), array("d", bytes(8 * len(rows)))
        for q in range(len(self.questions)):
            for i in range(starts[q], starts[q + 1]):
                m = rows[i]
                j = at[m]
                questions[j] = q
                values[j] = self.question_values[i]
                at[m] = j + 1
        return questions, values, start


def _starts(keys: Iterable[int], count: int) -> array[int]:
    """A counting sort's offsets: ``start[k]`` rows hold keys below k (*count* keys, 0 to count - 1)."""
    start = array("l", bytes(8 * (count + 1)))
    for k in keys:
        start[k + 1] += 1
    for k in range(count):
        start[k + 1] += start[k]
    return start


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
    panel = Panel(observations)
    if not panel.size:
        raise AnachronError("difficulty-adjusted Brier: no observation")
    q_models, q_values, q_start = panel.question_rows, panel.question_values, panel.question_start
    m_questions, m_values, m_start = panel.by_model()
    q_eff = [0.0] * len(panel.questions)
    m_eff = [0.0] * len(panel.models)
    # Each effect's slice of the observations and its count, made once: a pass is then maps and math.fsum in
    # C.  Within a pass no effect reads another of its kind (the models' read the question effects of the
    # pass before, the questions' the models' just made), so computing a pass's effects all at once changes
    # no bit of the fit.
    m_slices = list(map(slice, m_start[:-1], m_start[1:]))
    m_counts = list(map(sub, m_start[1:], m_start[:-1]))
    q_slices = list(map(slice, q_start[:-1], q_start[1:]))
    q_counts = list(map(sub, q_start[1:], q_start[:-1]))
    converged = False
    iterations = 0
    # Each effect is a mean over a slice: math.fsum is exactly rounded, so the order in which a model's or
    # a question's Briers are held does not change a bit of the fit.
    for iterations in range(1, max_iterations + 1):
        residuals = list(map(sub, m_values, map(q_eff.__getitem__, m_questions)))
        new = list(map(truediv, map(math.fsum, map(residuals.__getitem__, m_slices)), m_counts))
        moved = max(map(abs, map(sub, new, m_eff)))
        m_eff = new
        residuals = list(map(sub, q_values, map(m_eff.__getitem__, q_models)))
        new = list(map(truediv, map(math.fsum, map(residuals.__getitem__, q_slices)), q_counts))
        moved = max(moved, max(map(abs, map(sub, new, q_eff))))
        q_eff = new
        del residuals
        if moved <= tolerance:
            converged = True
            break
    # ForecastBench adds 0.25 - score("Always 0.5"), and Always 0.5 answers every question: its score is
    # 0.25 - mean(question effects over the questions), so the shift is that unweighted mean.
    shift = math.fsum(q_eff) / len(q_eff)
    return FixedEffects(
        models={m: m_eff[i] + shift for m, i in sorted(panel.models.items())},
        questions={q: q_eff[i] - shift for q, i in sorted(panel.questions.items())},
        iterations=iterations,
        converged=converged,
    )
