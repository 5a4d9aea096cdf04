"""Reading a system's answer to a question-bank item.

Outcome material: imported only by :mod:`anachron.core.bank` (never by the
serving path).  The rules implemented here are written out for other runners
in docs/run-rules.md ("Reading a response"); keep the two in step.

A response is read in three steps:

1. *Structured refusal*: an object ``{"refused": true}`` (given as an object
   or as a string holding that JSON object).
2. *Candidates*: the figures (or listing statuses) the text states, in the
   order they appear, restricted to the item's unit.  Dates, period labels
   (``Q4``, ``2020-Q4``, ``FY2019``), ordinals and bare years are not figures.
3. *Refusal*: a text with no candidate that is empty or contains a refusal
   phrase (``unknown``, ``I don't know``, ``not yet reported``...).

Numbers are compared exactly (:class:`fractions.Fraction`), never as floats.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any, Mapping

from .errors import AnachronError

__all__ = [
    "UNITS",
    "STATUSES",
    "TOLERANCE",
    "valid_value",
    "read_response",
    "candidates",
    "is_refusal",
    "matches",
    "render",
]

# The units a bank item may have; "status" items take one of STATUSES.
UNITS = ("USD", "percent", "count", "tonnes", "status")
STATUSES = ("listed", "not listed", "delisted")

# Relative tolerance of a numeric match: |x - v| <= TOLERANCE * |v|.
TOLERANCE = Fraction(1, 200)

_DECIMAL = re.compile(r"-?\d+(?:\.\d+)?")

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
# Spans that hold digits but are not figures.  Each is blanked out before
# figures are read, so "Q4 2020 revenue was $412M" yields only $412M.
_NOT_FIGURES = re.compile(
    "|".join(
        (
            r"\b\d{4}-\d{1,2}-\d{1,2}\b",  # 2021-02-04
            r"\b\d{1,2}/\d{1,2}/\d{2,4}\b",  # 02/04/2021
            rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b",  # February 4, 2021
            rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\s+\d{{4}}\b",  # 4 February 2021
            rf"\b{_MONTH}\s+\d{{4}}\b",  # February 2021
            r"\b\d{4}\s*-?\s*(?:Q[1-4]|H[12])\b",  # 2020-Q4, 2020 H1
            r"\b(?:Q[1-4]|H[12])(?:\s*\d{4}(?![.,]?\d)|\s*['\u2019]\d{2})?\b",  # Q4, Q4 2020, Q4'20
            r"\bFY\s*['\u2019]?(?:\d{4}|\d{2})\b",  # FY2019, FY19
            r"\b\d+(?:st|nd|rd|th)\b",  # 4th
        )
    ),
    re.IGNORECASE,
)

_QUANTITY = re.compile(
    r"""
    (?<![\w.,$])
    (?P<neg1>[-\u2212])?
    (?P<cur1>US\$|\$|USD\s*)?
    (?P<neg2>[-\u2212])?
    (?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)
    (?:(?P<suffix>k|m|b|mn|bn|tn|mln)(?![a-z])
      |\s*(?P<word>thousand|million|billion|trillion|mn|bn|tn|mln)(?![a-z]))?
    (?:\s*(?P<pct>%|percent\b|per\s+cent\b))?
    (?:\s*(?P<cur2>USD\b|US\s+dollars?\b|dollars?\b))?
    (?![\w])
    """,
    re.IGNORECASE | re.VERBOSE,
)

_SCALE = {
    "k": 10**3, "thousand": 10**3,
    "m": 10**6, "mn": 10**6, "mln": 10**6, "million": 10**6,
    "b": 10**9, "bn": 10**9, "billion": 10**9,
    "tn": 10**12, "trillion": 10**12,
}

# Listing statuses, the longer phrases first: "not listed" must not read as "listed".
_STATUS_TERMS = re.compile(
    r"\b(?P<delisted>de-?listed|no\s+longer\s+(?:listed|publicly\s+traded))\b"
    r"|\b(?P<not_listed>not\s+(?:yet\s+)?(?:been\s+)?(?:publicly\s+)?(?:listed|traded|public)|unlisted)\b"
    r"|\b(?P<listed>listed|publicly\s+traded)\b",
    re.IGNORECASE,
)

_REFUSAL = re.compile(
    r"\bunknown\b"
    r"|\bnot\s+known\b"
    r"|\b(?:don't|do\s+not|cannot|can't|can\s+not|unable\s+to)\s+(?:know|say|tell|determine|answer|be\s+determined)\b"
    r"|\bno\s+(?:data|information|answer)\b"
    r"|\binsufficient\s+(?:data|information)\b"
    r"|\bnot\s+(?:yet\s+)?(?:been\s+)?(?:reported|published|released|disclosed|announced|available|public)\b"
    r"|\bunavailable\b"
    r"|\brefuse\b"
    r"|\bdecline\s+to\s+answer\b"
    r"|(?<!\w)n/a(?!\w)",
    re.IGNORECASE,
)


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


def read_response(response: Any, where: str) -> tuple[bool, str]:
    """``(structured_refusal, text)`` of a response.

    A response is a string, or an object with ``"refused": true`` and no
    answer, or an object with ``"answer": "<text>"`` (and ``"refused"``
    false or absent).  A string holding such an object is read as the object.
    Anything else raises :class:`AnachronError` naming *where*.
    """
    if isinstance(response, str):
        stripped = response.strip()
        if stripped.startswith("{") and stripped.endswith("}"):
            try:
                obj = json.loads(stripped)
            except ValueError:
                obj = None
            if isinstance(obj, dict) and set(obj) <= {"refused", "answer"} and obj:
                try:
                    return read_response(obj, where)
                except AnachronError:
                    pass  # not a structured response after all: read it as text
        return False, response
    if isinstance(response, Mapping):
        unknown = sorted(set(response) - {"refused", "answer"})
        if unknown:
            raise AnachronError(f"{where}: response object has unknown key '{unknown[0]}' (allowed: refused, answer)")
        refused = response.get("refused", False)
        if not isinstance(refused, bool):
            raise AnachronError(f"{where}: response 'refused' must be true or false")
        if "answer" in response:
            if refused:
                raise AnachronError(f"{where}: response has both 'refused': true and an answer")
            if not isinstance(response["answer"], str):
                raise AnachronError(f"{where}: response 'answer' must be a string")
            return False, response["answer"]
        if not refused:
            raise AnachronError(f"{where}: response object needs 'refused': true or an 'answer'")
        return True, ""
    raise AnachronError(f"{where}: response must be a string or an object, got {type(response).__name__}")


def _quantities(text: str):
    cleaned = _NOT_FIGURES.sub(" ", text)
    for m in _QUANTITY.finditer(cleaned):
        num = m["num"]
        scale = (m["suffix"] or m["word"] or "").lower()
        negative = bool(m["neg1"] or m["neg2"])
        currency = bool(m["cur1"] or m["cur2"])
        percent = bool(m["pct"])
        plain = not (negative or currency or percent or scale or "," in num or "." in num)
        if plain and len(num) == 4 and 1900 <= int(num) <= 2100:
            continue  # a bare year, not a figure
        value = Fraction(Decimal(num.replace(",", ""))) * _SCALE.get(scale, 1)
        yield (-value if negative else value), currency, percent, bool(scale)


def candidates(text: str, unit: str) -> list:
    """The figures (Fractions) or statuses (strings) *text* states for *unit*, in order.

    Unit compatibility: ``USD`` takes any figure without a percent sign;
    ``percent`` takes figures with ``%``/``percent`` and bare figures (no
    currency, no scale word), read as percentage points; ``count`` and
    ``tonnes`` take figures with neither a currency nor a percent sign;
    ``status`` takes the listing-status phrases.
    """
    if unit == "status":
        return [
            "delisted" if m["delisted"] else "not listed" if m["not_listed"] else "listed"
            for m in _STATUS_TERMS.finditer(text)
        ]
    found = []
    for value, currency, percent, scaled in _quantities(text):
        if unit == "USD":
            ok = not percent
        elif unit == "percent":
            ok = percent or not (currency or scaled)
        else:
            ok = not (percent or currency)
        if ok:
            found.append(value)
    return found


def is_refusal(text: str, found: list) -> bool:
    """A text refuses when it states no candidate and is blank or has a refusal phrase."""
    if found:
        return False
    normalised = text.replace("\u2019", "'")
    return not normalised.strip() or _REFUSAL.search(normalised) is not None


def matches(candidate: Fraction | str, value: str, unit: str) -> bool:
    """Whether *candidate* states *value*.

    Numbers: ``|candidate - value| <= value * 1/200`` (relative 0.5%, exact
    arithmetic; a zero value needs an exact zero).  Statuses: equality.
    """
    if unit == "status":
        return candidate == value
    target = Fraction(Decimal(value))
    return abs(candidate - target) <= TOLERANCE * abs(target)


def render(value: str, unit: str) -> str:
    """How the oracles state *value*: ``412,000,000 USD``, ``48.1%``, ``41,000 tonnes``."""
    if unit == "status":
        return value
    negative = value.startswith("-")
    whole, _, fraction = value.lstrip("-").partition(".")
    text = ("-" if negative else "") + f"{int(whole):,}" + (f".{fraction}" if fraction else "")
    return {"USD": f"{text} USD", "percent": f"{text}%", "tonnes": f"{text} tonnes"}.get(unit, text)
