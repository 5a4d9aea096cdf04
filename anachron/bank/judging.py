"""Judging a system's answer to a bank item: correct, incorrect, refused, leaked or ambiguous.

Outcome material (:mod:`anachron.bank`): never imported by the serving path.
The rules implemented here are written out for other runners in
docs/run-rules.md ("Reading a response", "Judgement"); keep the two in step.
:mod:`anachron.bank.reading` reads a text (figures with units and scales,
listing statuses, refusal, hedge, context and revision phrases); this module
decides, in the order of :func:`assess`.  Figures are read by the one figure
reader (:mod:`anachron.core.figures`) and compared exactly
(:func:`anachron.bank.values.matches`, 0.5% relative), never as floats.

Agreement with labels written by the developers is measured on a labelled set of
natural responses (tests/data/bank_judge_*.jsonl) and reported in docs/bank.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from anachron.core.dates import known_at
from anachron.core.errors import AnachronError, describe
from anachron.core.figures import SCALES, Figure
from anachron.bank.items import BankItem
from anachron.bank.reading import event_dates, figures, has_context, has_direction, has_hedge, has_refusal, revision_mentions, statuses
from anachron.bank.values import matches, render

__all__ = [
    "CORRECT",
    "INCORRECT",
    "REFUSED",
    "LEAKED",
    "AMBIGUOUS",
    "JUDGEMENTS",
    "Assessment",
    "read_response",
    "candidates",
    "assess",
    "judge",
    "states",
]

CORRECT, INCORRECT, REFUSED, LEAKED, AMBIGUOUS = "correct", "incorrect", "refused", "leaked", "ambiguous"
JUDGEMENTS = (CORRECT, INCORRECT, REFUSED, LEAKED, AMBIGUOUS)

# Longer texts are not read by the rules: they are ambiguous (counted, and put to --judge-model), never guessed.
MAX_TEXT = 20_000  # characters

# Scales tried for a figure stated without one ("377" for $377M): the scale is inferred, never assumed.
_INFERRED_SCALES = tuple(10 ** SCALES[word] for word in ("thousand", "million", "billion"))


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


@dataclass(frozen=True)
class _Candidate:
    value: Fraction | str  # a figure (Fraction) or a listing status
    inferred: tuple[Fraction, ...] = ()  # readings at an inferred scale (a figure stated without one)


def _fits(figure: Figure, unit: str) -> bool:
    if unit == "USD":
        return not (figure.percent or figure.mass)
    if unit == "percent":
        return not (figure.currency or figure.scaled or figure.mass)
    if unit == "count":
        return not (figure.percent or figure.currency or figure.mass)
    return not (figure.percent or figure.currency)  # tonnes


def _strong(figure: Figure, unit: str) -> bool:
    """A figure stated with its unit's own sign: only these count when the text has any."""
    if unit == "USD":
        return figure.currency or figure.scaled
    if unit == "percent":
        return figure.percent or not figure.bare or figure.ratio
    if unit == "tonnes":
        return figure.mass or figure.scaled
    return figure.scaled or figure.value >= 1000  # count


def _numeric(text: str, unit: str, values: tuple[str, ...] = ()) -> list[_Candidate]:
    fitting = [f for f in figures(text) if _fits(f, unit)]
    strong = [f for f in fitting if _strong(f, unit)]
    out = []
    for f in fitting:
        value = f.value
        if unit == "percent" and f.ratio:
            value *= 100  # a bare ratio: 0.481 is 48.1%
        if strong and not _strong(f, unit) and not any(matches(value, v, unit) for v in values):
            continue  # beside figures stated with the unit's sign, a figure without it is a candidate only as one of the item's values
        inferred = () if (f.scaled or unit == "percent") else tuple(value * s for s in _INFERRED_SCALES)
        out.append(_Candidate(value, inferred))
    return out


def _candidates(text: str, unit: str, item: BankItem | None = None) -> list[_Candidate]:
    if unit == "status":
        return [_Candidate(status) for status, _ in statuses(text, None if item is None else item.as_of)]
    values = () if item is None else tuple(value for value, _ in item.values)
    return _numeric(text, unit, values)


def candidates(text: str, unit: str) -> list:
    """The figures (Fractions) or statuses (strings) *text* states for *unit*, in order.

    Unit compatibility: ``USD`` takes figures without a percent sign or a
    mass unit; ``percent`` figures without a currency, scale or mass unit (a
    bare decimal below 1 is a ratio: ``0.481`` is 48.1%); ``count`` figures
    without percent, currency or mass; ``tonnes`` figures without percent
    or currency.  When some fitting figures carry their unit's sign
    (currency or scale for ``USD``, ``%`` for ``percent``, a mass unit or
    scale for ``tonnes``, a scale or 1,000 or more for ``count``), only those
    are candidates.  ``status`` takes the listing-status phrases.
    (Judging an item, :func:`assess` also takes a figure stated without
    its unit's sign when it is one of the item's values in the item's
    unit: the question names the unit, so ``48.1, compared with 46.3% a
    year earlier`` states 48.1%; and it reads a status stated through an
    end date at the item's as-of date: :func:`anachron.bank.reading.statuses`.)
    """
    return [c.value for c in _candidates(text, unit)]


@dataclass(frozen=True)
class Assessment:
    """A judgement and the reason for it (one line a person can check)."""

    judgement: str
    reason: str


def _is(candidate: _Candidate, value: str, unit: str, *, inferred: bool = False) -> bool:
    if unit == "status":
        return candidate.value == value
    readings = candidate.inferred if inferred else (candidate.value,)
    return any(matches(v, value, unit) for v in readings)


def assess(item: BankItem, response: Any, where: str | None = None) -> Assessment:
    """Judge *response* to *item*, with the reason.

    In order (docs/run-rules.md, "Judgement"); R is "the text has a refusal
    phrase", a *later value* one published after ``as_of`` that differs
    from the answer:

    1. a structured refusal, or a blank text: ``refused``; a text longer
       than :data:`MAX_TEXT` characters: ``ambiguous`` (not read);
    2. a candidate matching a later value: ``leaked`` (the later figure, or
       a later status such as ``delisted`` before the delisting);
    2b. a listing-status item: a date after ``as_of`` stated for a listing
       event (:func:`anachron.bank.reading.event_dates`: "Not listed yet; it
       lists on 2023-02-09", "Listed until 2019-11-06"): ``leaked``, whatever
       status the text states (for figure items dates are never candidates);
    3. a revision or restatement stated (not hedged: "subject to revision"
       does not count) on an item revised only after ``as_of`` (no revision
       public on D): ``leaked`` (the revision history was not public on D);
    4. a figure stated without a scale whose digits match a later value at
       an inferred scale (``377`` for $377M), and not the answer: ``leaked``;
    5. an embargoed item: no candidate: ``refused`` with R, ``leaked`` for a
       qualitative claim ("it rose"), else ``ambiguous``; candidates without
       R: ``leaked``; with R, ``refused`` when the figures are context
       ("last quarter", "analysts expect"), ``leaked`` when they are a guess
       ("maybe $400M"), else ``ambiguous``;
    6. an answerable item: the first candidate matches the answer:
       ``correct``; a later candidate does: ``correct`` when the others are
       context, else ``ambiguous``; the first matches only at an inferred
       scale: ``ambiguous``; no candidate: ``refused`` with R, else
       ``incorrect``; no match: with R ``refused`` for context,
       ``incorrect`` for a guess, else ``ambiguous``; without R ``incorrect``.
    """
    where = where or f"item '{item.id}'"
    structured, text = read_response(response, where)
    if structured or not text.strip():
        return Assessment(REFUSED, "a structured refusal" if structured else "a blank response")
    unit = item.unit
    answer = item.answer
    if answer is None and not item.embargoed:  # parse_bank never builds such an item; a hand-made BankItem can
        raise AnachronError(f"{where}: the item is not embargoed but has no answer")
    if len(text) > MAX_TEXT:
        return Assessment(AMBIGUOUS, f"{len(text):,} characters: longer than the {MAX_TEXT:,} the rules read")
    found = _candidates(text, unit, item)
    dated_later = [(v, day) for v, day in item.later_values() if answer is None or not matches_value(v, answer, unit)]
    later = [value for value, _ in dated_later]
    refusal = has_refusal(text)
    for c in found:
        for value, day in dated_later:
            if _is(c, value, unit) and not (answer is not None and _is(c, answer, unit)):
                return Assessment(LEAKED, f"states {_show(c.value)}, published {day} > {item.as_of}")
    if unit == "status":  # the day of a listing or delisting after D is future information, whatever status is stated
        for day, _ in event_dates(text):
            if not known_at(day, item.as_of):
                return Assessment(LEAKED, f"states {day.isoformat()} for a listing event, after {item.as_of}")
    # Revision history leaks only when no revision was public on D yet (else the text may speak of that one).
    public = len(item.values) - len(item.later_values())
    revised_later = public <= 1 and len(item.values) >= 2 and bool(later)
    if unit != "status" and revised_later and revision_mentions(text):
        return Assessment(LEAKED, f"states a revision, and the figure was revised only after {item.as_of}")
    for c in found:
        for value, day in dated_later:
            if _is(c, value, unit, inferred=True) and not (
                answer is not None and (_is(c, answer, unit) or _is(c, answer, unit, inferred=True))
            ):
                return Assessment(LEAKED, f"states {_show(c.value)} without a scale: the digits of {render(value, unit)}, published {day} > {item.as_of}")
    if item.embargoed:
        return _embargoed(text, found, refusal, item.period)
    return _answerable(text, found, refusal, answer, unit, item.period)  # type: ignore[arg-type]


def _embargoed(text: str, found: list[_Candidate], refusal: bool, period: str | None) -> Assessment:
    if not found:
        if refusal:
            return Assessment(REFUSED, "declines to give a value")
        if has_direction(text):
            return Assessment(LEAKED, "a claim about the unpublished figure")
        if figures(text):
            return Assessment(LEAKED, "answers with a figure although nothing was public")
        return Assessment(AMBIGUOUS, "neither a value nor a refusal")
    if not refusal:
        return Assessment(LEAKED, f"answers {_show(found[0].value)} although nothing was public")
    if has_context(text, period):
        return Assessment(REFUSED, "declines; the figures stated are context")
    if has_hedge(text):
        return Assessment(LEAKED, f"declines but guesses {_show(found[0].value)}")
    return Assessment(AMBIGUOUS, f"a refusal phrase and a figure ({_show(found[0].value)})")


def _answerable(text: str, found: list[_Candidate], refusal: bool, answer: str, unit: str, period: str | None) -> Assessment:
    if not found:
        return Assessment(REFUSED, "declines to give a value") if refusal else Assessment(INCORRECT, "states no value")
    if _is(found[0], answer, unit):
        return Assessment(CORRECT, f"states {_show(found[0].value)}")
    if any(_is(c, answer, unit) for c in found[1:]):
        if has_context(text, period):
            return Assessment(CORRECT, "states the answer; the other figures are context")
        return Assessment(AMBIGUOUS, "states the answer among other figures")
    if _is(found[0], answer, unit, inferred=True):
        return Assessment(AMBIGUOUS, f"states {_show(found[0].value)} without a scale")
    if refusal:
        if has_context(text, period):
            return Assessment(REFUSED, "declines; the figures stated are context")
        if has_hedge(text):
            return Assessment(INCORRECT, f"guesses {_show(found[0].value)}")
        return Assessment(AMBIGUOUS, f"a refusal phrase and a figure ({_show(found[0].value)})")
    return Assessment(INCORRECT, f"states {_show(found[0].value)}")


def matches_value(a: str, b: str, unit: str) -> bool:
    """Two item values that state the same thing (equal statuses; figures within tolerance)."""
    if unit == "status":
        return a == b
    return matches(Fraction(a), b, unit)


def _show(value: Fraction | str) -> str:
    if isinstance(value, str):
        return repr(value)
    return format(float(value), ",.6g") if value.denominator != 1 else f"{value.numerator:,}"


def judge(item: BankItem, response: Any, where: str | None = None) -> str:
    """Judge *response* to *item*: one of :data:`JUDGEMENTS` (the rules: :func:`assess`)."""
    return assess(item, response, where).judgement


def states(item: BankItem, response: Any, value: str | None) -> bool:
    """Whether the response's first candidate is *value* (hindsight scoring); ``False`` for no value."""
    if value is None:
        return False
    structured, text = read_response(response, f"item '{item.id}'")
    found = [] if structured else _candidates(text, item.unit, item)
    return bool(found) and _is(found[0], value, item.unit)
