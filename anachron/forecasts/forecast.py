"""One forecast and its scores: Brier, log loss, the checks, a probability read from an answer.

Pure arithmetic on forecasts already read: no I/O.  A **forecast** is one
model's prediction for one sample: a binary probability (of the outcome 1,
"yes") or a categorical distribution over named options.  A **resolution**
is what happened: ``0``/``1``, or the option that came true.

Scores of one sample, lower is better:

- **Brier**: binary ``(p - o)**2``; categorical half the sum over the options
  of ``(p_k - o_k)**2``, so it lies in [0, 1] and equals the binary Brier
  for two options;
- **log loss** ("log score", negatively oriented): ``-ln(q)`` for the
  probability ``q`` given to what happened, ``q`` clipped below at
  :data:`LOG_CLIP` (1e-6), so a confident miss costs at most ``ln(1e6)``
  (about 13.8) instead of infinity.

>>> f = Forecast("s", "m", probability=0.75)
>>> brier(f, 1), round(log_loss(f, 1), 6)
(0.0625, 0.287682)

The checks, each an :class:`~anachron.core.errors.AnachronError` naming
*where*: a probability is a finite number in [0, 1], never a boolean
(:func:`check_probability`); a categorical forecast has at least two
options, each a non-empty string, whose probabilities sum to 1 within
:data:`SUM_TOLERANCE` (:func:`check_distribution`); a resolution fits its
forecast, 0 or 1 for a binary one and one of its options for a categorical
one (:func:`check_kind`; :func:`brier` and :func:`log_loss` check it too).

A forecast written in words (a trace's answer) is read by
:func:`answer_probability`: its last percentage in [0, 100] or decimal in
[0, 1], never a whole ``0`` or ``1``.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from itertools import repeat
from operator import add, neg, sub
from typing import Iterable, Iterator, Mapping

from anachron.core.errors import AnachronError, describe
from anachron.core.figures import read_figures

__all__ = [
    "LOG_CLIP",
    "SUM_TOLERANCE",
    "Forecast",
    "answer_probability",
    "binary_briers",
    "binary_log_losses",
    "brier",
    "check_distribution",
    "check_kind",
    "check_probability",
    "log_loss",
]

LOG_CLIP = 1e-6  # the smallest probability the log loss reads: -ln(1e-6) ~ 13.8
SUM_TOLERANCE = 1e-6  # a categorical forecast's probabilities sum to 1 within this


@dataclass(frozen=True, slots=True)  # slots: a report may hold 10**6 of them
class Forecast:
    """One model's forecast of one sample: ``probability`` (binary) or ``probabilities`` (categorical)."""

    sample_id: str
    model: str
    probability: float | None = None
    probabilities: Mapping[str, float] | None = None

    @property
    def binary(self) -> bool:
        return self.probabilities is None


def check_probability(value: object, where: str) -> float:
    """*value* as a probability: a finite number in [0, 1] (not a boolean); else an error naming *where*.

    >>> check_probability(0.25, "x"), check_probability(1, "x")
    (0.25, 1.0)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= value <= 1:  # False for NaN
        raise AnachronError(f"{where}: probability is {describe(value)}, expected a number in [0, 1]")
    return float(value)


def check_distribution(value: object, where: str) -> dict[str, float]:
    """A categorical forecast: an object of at least two options, each a probability, summing to 1 within 1e-6."""
    if not isinstance(value, Mapping) or len(value) < 2:
        raise AnachronError(f"{where}: probabilities must be an object of at least two options, got {describe(value)}")
    out = {}
    for option, p in value.items():
        if not isinstance(option, str) or not option:
            raise AnachronError(f"{where}: option {option!r} is not a non-empty string")
        out[option] = check_probability(p, f"{where}: option {option!r}")
    total = math.fsum(out.values())
    if abs(total - 1) > SUM_TOLERANCE:
        raise AnachronError(f"{where}: probabilities sum to {total!r}, not 1 (tolerance {SUM_TOLERANCE:g})")
    return out


def _outcome_vector(forecast: Forecast, outcome: int | str) -> dict[str, int]:
    assert forecast.probabilities is not None
    if outcome not in forecast.probabilities:
        raise AnachronError(
            f"sample {forecast.sample_id!r}: resolved to {outcome!r}, not one of the options {sorted(forecast.probabilities)}",
            sample_id=forecast.sample_id,
        )
    return {option: int(option == outcome) for option in forecast.probabilities}


def _check_kind(forecast: Forecast, outcome: int | str) -> None:
    if forecast.binary and outcome not in (0, 1):
        raise AnachronError(
            f"sample {forecast.sample_id!r}: a binary forecast needs a resolution of 0 or 1, got {outcome!r}",
            sample_id=forecast.sample_id,
        )


def check_kind(forecast: Forecast, outcome: int | str) -> None:
    """An error unless *outcome* can resolve *forecast*: 0 or 1 for a binary one, one of its options for a categorical one.

    >>> check_kind(Forecast("s", "m", probability=0.5), 1)
    >>> check_kind(Forecast("s", "m", probabilities={"a": 0.5, "b": 0.5}), "c")
    Traceback (most recent call last):
    anachron.core.errors.AnachronError: sample 's': resolved to 'c', not one of the options ['a', 'b']
    """
    _check_kind(forecast, outcome)
    if not forecast.binary:
        _outcome_vector(forecast, outcome)


def brier(forecast: Forecast, outcome: int | str) -> float:
    """The Brier score of one forecast (module docstring).

    >>> brier(Forecast("s", "m", probability=0.75), 1)
    0.0625
    >>> brier(Forecast("s", "m", probabilities={"a": 0.5, "b": 0.25, "c": 0.25}), "a")  # (0.25 + 0.0625 + 0.0625) / 2
    0.1875
    """
    _check_kind(forecast, outcome)
    if forecast.binary:
        assert forecast.probability is not None
        return (forecast.probability - outcome) ** 2  # type: ignore[operator]
    hit = _outcome_vector(forecast, outcome)
    assert forecast.probabilities is not None
    return math.fsum((p - hit[k]) ** 2 for k, p in forecast.probabilities.items()) / 2


def _realized(forecast: Forecast, outcome: int | str) -> float:
    _check_kind(forecast, outcome)
    if forecast.binary:
        assert forecast.probability is not None
        return forecast.probability if outcome == 1 else 1 - forecast.probability
    _outcome_vector(forecast, outcome)
    assert forecast.probabilities is not None
    return forecast.probabilities[outcome]  # type: ignore[index]


def log_loss(forecast: Forecast, outcome: int | str) -> float:
    """``-ln(max(q, 1e-6))`` for the probability ``q`` the forecast gave to what happened.

    >>> round(log_loss(Forecast("s", "m", probability=0.5), 0), 6)
    0.693147
    >>> round(log_loss(Forecast("s", "m", probability=1.0), 0), 4)  # clipped: -ln(1e-6)
    13.8155
    """
    return -math.log(max(_realized(forecast, outcome), LOG_CLIP)) + 0.0


def binary_briers(probabilities: Iterable[float], outcomes: Iterable[int]) -> Iterator[float]:
    """:func:`brier` of each binary forecast (a probability, its outcome 0 or 1), the same floats made by
    maps in C (a large report scores 10**6 of them).

    >>> list(binary_briers([0.75, 0.75], [1, 0]))
    [0.0625, 0.5625]
    """
    return map(pow, map(sub, probabilities, outcomes), repeat(2))  # (p - o) ** 2


def binary_log_losses(probabilities: Iterable[float], outcomes: Iterable[int]) -> Iterator[float]:
    """:func:`log_loss` of each binary forecast, the same floats made by maps in C: the probability given
    to what happened, p (o = 1) or 1 - p (o = 0), is |(1 - o) - p|, the same float.

    >>> [round(x, 6) for x in binary_log_losses([0.5, 1.0], [0, 0])]
    [0.693147, 13.815511]
    """
    realized = map(abs, map(sub, map(sub, repeat(1), outcomes), probabilities))
    return map(add, map(neg, map(math.log, map(max, realized, repeat(LOG_CLIP)))), repeat(0.0))


def answer_probability(text: str) -> float | None:
    """The probability a free-text answer states: its last figure written as a percentage
    in [0, 100] (``70%``) or as a decimal in [0, 1] (``0.7``, ``.5``, ``1.0``); ``None`` when it states none.

    Figures are read by :mod:`anachron.core.figures` (the one reader), so a
    year, a currency amount or ``120%`` is no probability.  A whole number
    ``0`` or ``1`` is none either: it is a citation (``[1]``), a count or a
    step (``1 in 3``, ``step 1``) far more often than a certainty, and read
    as one it would turn a stated 65% into 1.

    >>> answer_probability("I estimate 30% at first, but my final answer is 0.65.")
    0.65
    >>> answer_probability("Revenue will be $5bn in 2025."), answer_probability("70 percent")
    (None, 0.7)
    >>> answer_probability("Final answer: 65%. Sources: [1], [2]"), answer_probability("1 in 3")
    (0.65, None)
    """
    found = None
    for figure in read_figures(text):
        value = figure.value
        if figure.percent and not (figure.currency or figure.scaled or figure.mass) and 0 <= value <= 100:
            found = float(value / 100)
        elif figure.bare and not figure.negative and 0 <= value <= 1 and figure.exp < 0:
            found = float(value)
    return found

