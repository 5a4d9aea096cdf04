"""Judging a system's answer to a bank item: correct, incorrect, refused or leaked.

Outcome material (:mod:`anachron.bank`): never imported by the serving path.
The rules implemented here are written out for other runners in
docs/run-rules.md ("Reading a response", "Judgement"); keep the two in step.

A response is read in three steps:

1. *Structured refusal*: an object ``{"refused": true}`` (given as an object
   or as a string holding that JSON object).
2. *Candidates*: the figures (or listing statuses) the text states, in the
   order they appear, restricted to the item's unit.  Dates, period labels
   (``Q4``, ``2020-Q4``, ``FY2019``), ordinals and bare years are not figures.
3. *Refusal*: a text with no candidate that is empty or contains a refusal
   phrase (``unknown``, ``I don't know``, ``not yet reported``...).

Then :func:`judge` decides.  Numbers are compared exactly
(:func:`anachron.bank.values.matches`), never as floats.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any, Mapping

from ..errors import AnachronError
from ..validate import describe
from .items import BankItem
from .values import matches

__all__ = [
    "CORRECT",
    "INCORRECT",
    "REFUSED",
    "LEAKED",
    "JUDGEMENTS",
    "read_response",
    "candidates",
    "is_refusal",
    "judge",
    "states",
]

CORRECT, INCORRECT, REFUSED, LEAKED = "correct", "incorrect", "refused", "leaked"
JUDGEMENTS = (CORRECT, INCORRECT, REFUSED, LEAKED)

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
# Spans that hold digits but are not figures.  Each is blanked out before
# figures are read, so "Q4 2020 revenue was $412M" yields only $412M.
_NOT_FIGURES = re.compile(
    "|".join(
        (
            r"\b[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}\b",  # 2021-02-04
            r"\b[0-9]{1,2}/[0-9]{1,2}/[0-9]{2,4}\b",  # 02/04/2021
            rf"\b{_MONTH}\s+[0-9]{{1,2}}(?:st|nd|rd|th)?,?\s+[0-9]{{4}}\b",  # February 4, 2021
            rf"\b[0-9]{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\s+[0-9]{{4}}\b",  # 4 February 2021
            rf"\b{_MONTH}\s+[0-9]{{4}}\b",  # February 2021
            r"\b[0-9]{4}\s*-?\s*(?:Q[1-4]|H[12])\b",  # 2020-Q4, 2020 H1
            r"\b(?:Q[1-4]|H[12])(?:\s*[0-9]{4}(?![.,]?[0-9])|\s*['\u2019][0-9]{2})?\b",  # Q4, Q4 2020, Q4'20
            r"\bFY\s*['\u2019]?(?:[0-9]{4}|[0-9]{2})\b",  # FY2019, FY19
            r"\b[0-9]+(?:st|nd|rd|th)\b",  # 4th
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
    (?P<num>[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]+(?:\.[0-9]+)?|\.[0-9]+)
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
    raise AnachronError(f"{where}: response must be a string or an object, got {describe(response)}")


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
    where = where or f"item '{item.id}'"
    structured, text = read_response(response, where)
    if structured:
        return REFUSED
    found = candidates(text, item.unit)
    if is_refusal(text, found):
        return REFUSED
    if item.embargoed:
        return LEAKED
    answer = item.answer
    if answer is None:  # parse_bank never builds such an item; a hand-made BankItem can
        raise AnachronError(f"{where}: the item is not embargoed but has no answer")
    for value, _ in item.later_values():
        if any(matches(c, value, item.unit) and not matches(c, answer, item.unit) for c in found):
            return LEAKED
    if found and matches(found[0], answer, item.unit):
        return CORRECT
    return INCORRECT


def states(item: BankItem, response: Any, value: str | None) -> bool:
    """Whether the response's first figure is *value* (hindsight scoring); ``False`` for no value."""
    if value is None:
        return False
    structured, text = read_response(response, f"item '{item.id}'")
    found = [] if structured else candidates(text, item.unit)
    return bool(found) and matches(found[0], value, item.unit)
