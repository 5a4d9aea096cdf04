"""Bank values and their units: which values are valid, when a figure matches one, how one is stated.

Outcome material (:mod:`anachron.bank`): never imported by the serving path.
The rules are written out for other runners in docs/run-rules.md; keep the
two in step.  Numbers are compared exactly (:class:`fractions.Fraction`),
never as floats, by the one tolerance rule
(:func:`anachron.core.figures.same_figure`, relative, at :data:`TOLERANCE`).
"""

from __future__ import annotations

import re
from fractions import Fraction

from anachron.core.figures import Figure, same_figure

__all__ = ["UNITS", "STATUSES", "TOLERANCE", "valid_value", "matches", "render"]

# The units a bank item may have; "status" items take one of STATUSES.
UNITS = ("USD", "percent", "count", "tonnes", "status")
STATUSES = ("listed", "not listed", "delisted")

# Relative tolerance of a numeric match: |x - v| <= TOLERANCE * |v| (why relative: docs/metrics.md, "Reading figures").
TOLERANCE = Fraction(1, 200)

_DECIMAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def valid_value(value: object, unit: str) -> bool:
    """Whether *value* is a well-formed value string for *unit*.

    Numeric units take a plain decimal string (``"412000000"``, ``"-2.5"``);
    ``status`` takes one of :data:`STATUSES`.
    """
    if not isinstance(value, str):
        return False
    if unit == "status":
        return value in STATUSES
    return _DECIMAL.fullmatch(value) is not None


def matches(candidate: Fraction | Figure | str, value: str, unit: str) -> bool:
    """Whether *candidate* (a number, a figure or a status) states *value*.

    Numbers: ``|candidate - value| <= |value| * 1/200`` (relative 0.5%, exact
    arithmetic, whatever digits the candidate was written with; a zero value
    needs an exact zero).  Statuses: equality.

    >>> matches(Fraction(414_060_000), "412000000", "USD"), matches(Fraction(414_070_000), "412000000", "USD")
    (True, False)
    """
    if unit == "status":
        return candidate == value
    return same_figure(candidate, value, within=TOLERANCE)  # type: ignore[arg-type]


def render(value: str, unit: str) -> str:
    """How the oracles state *value*: ``412,000,000 USD``, ``48.1%``, ``41,000 tonnes``."""
    if unit == "status":
        return value
    negative = value.startswith("-")
    whole, _, fraction = value.lstrip("-").partition(".")
    text = ("-" if negative else "") + f"{int(whole):,}" + (f".{fraction}" if fraction else "")
    return {"USD": f"{text} USD", "percent": f"{text}%", "tonnes": f"{text} tonnes"}.get(unit, text)
