"""Facts: the figures, names and dates an item made public, and whether a text states them.

A corpus item may declare ``facts`` (docs/formats.md): what first became
public on its ``publish_date``.  Each fact is an object with a ``kind``:

- ``money``: ``{"kind": "money", "value": "377000000", "currency": "USD"}``;
- ``percent``: ``{"kind": "percent", "value": "48.1"}`` (48.1%);
- ``number``: ``{"kind": "number", "value": "41000", "unit": "tonnes"}``
  (``unit`` is a label for people; it is not matched);
- ``date``: ``{"kind": "date", "value": "2023-02-09"}``;
- ``name``: ``{"kind": "name", "value": "CYGN"}`` (a ticker, a name, a score).

Values are strings, so every figure is exact: a non-negative decimal
without exponent for the numeric kinds, a strict ``YYYY-MM-DD`` day for a
date.  ``about`` (optional) says in words what the fact is.

:func:`statements` reads a text (an agent's answer, an item's text) once;
:meth:`Statements.find` says whether it states a fact, and quotes where.
The rules (docs/metrics.md, "Answer leaks"):

- **Numbers** are read by the one figure reader,
  :func:`anachron.core.figures.read_figures`, with their scale, unit and
  currency: ``$377M``, ``$377 million``, ``USD 377m``, ``377,000,000
  dollars``, ``$0.377bn``, ``412MM``, ``$5 bil``, ``41kt``, ``41,000``,
  ``48.1%``, ``48.1 percent``; a sign is not read (a fact is a magnitude).
  A figure states a fact by stated precision
  (:func:`anachron.core.figures.same_figure` without ``within``):
  ``$0.38bn`` states 377,000,000 and ``$1.1B`` 1,120,000,000, while a
  one-digit figure (``$0.4bn``, ``400 million``) states only itself.
- A **money** fact needs a currency sign, code or word, or a scale word (a
  bare ``377`` is 377, not $377M), and no mass unit; a conflicting currency
  never matches (``$`` is any dollar).  A **percent** fact needs a percent
  marker (``%``, ``percent``, ``per cent``, ``pct``, ``pp``, ``bps``), or a
  ratio written ``0.481`` (:func:`anachron.core.figures.as_percent`).  A
  **number** fact matches any number not marked as money or a percentage.
- **Dates** inside a text are never numbers: ``2021/02/04`` is a day, not a
  2.  A bare year 1900-2100 is a year, not a figure.
- A **date** fact is stated by ``2023-02-09``, ``2023/02/09``,
  ``2023.02.09``, ``February 9, 2023``, ``Feb. 9th 2023``, ``9 February 2023``,
  ``9th of Feb 2023``, ``09.02.2023`` (day first), and ``02/09/2023`` or
  ``09-02-2023`` under either the US or the European reading.  A day and
  month without a year (``May 4``, ``4 May``) state no date fact: the
  year is what makes a day news (``July 1`` recurs every year).
- A **name** is matched case-insensitively on word boundaries (``CYGN`` in
  ``NYSE:CYGN`` and ``cygn``, never in ``CYGNUS``); whitespace inside a name
  matches any whitespace, curly apostrophes match straight ones.

Every pattern is scanned left to right once, without nested repetition, so
a megabyte text costs linear time.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from anachron.core.grammar.calendar_words import MONTH_DOT_AFTER_SHORT, month_number
from anachron.core.grammar.numeric import Order, numeric_dates
from anachron.core.grammar.periods import real_day
from anachron.core.figures import CURRENCIES, DOLLARS, Figure, as_percent, read_figures, same_figure
from anachron.core.validate import Fields
from anachron.core.errors import describe

__all__ = ["FACT_KINDS", "Fact", "Statements", "parse_facts", "statements"]

FACT_KINDS = ("money", "percent", "number", "date", "name")
_FACT_KEYS = {"kind", "value", "currency", "unit", "about"}
_DECIMAL = re.compile(r"(?:0|[1-9][0-9]*)(?:\.[0-9]+)?")
_MAX_NAME = 200


@dataclass(frozen=True)
class Fact:
    """One declared fact.  ``key`` is what makes two facts the same fact."""

    kind: str
    value: str
    currency: str | None = None
    unit: str | None = None
    about: str | None = None
    key: tuple = field(default=(), compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "value": self.value}
        for name in ("currency", "unit", "about"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out


def _name_key(value: str) -> str:
    return " ".join(value.translate(_FOLD).split()).casefold()


def _fact(f: Fields, kind: str, value: str) -> Fact:
    currency = f.obj.get("currency")
    unit = f.obj.get("unit")
    about = f.obj.get("about")
    for name, given in (("unit", unit), ("about", about)):
        if given is not None and (not isinstance(given, str) or not given.strip()):
            raise f.error(name, f"expected a non-empty string, got {describe(given)}")
    if kind == "money":
        if currency not in CURRENCIES:
            raise f.error("currency", f"a money fact needs a currency code ({', '.join(sorted(CURRENCIES))}), got {describe(currency)}")
    elif currency is not None:
        raise f.error("currency", f"only a money fact has a currency (this one is '{kind}')")
    if kind in ("money", "percent", "number"):
        if not _DECIMAL.fullmatch(value):
            raise f.error("value", f"{value!r} is not a non-negative decimal such as '377000000' or '48.1'")
        key: tuple = (kind, Fraction(value), currency)
    elif kind == "date":
        day = f.date("value")
        key = (kind, day)
    else:
        if len(value) > _MAX_NAME or not re.search(r"\w", value) or any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in value):
            raise f.error("value", f"a name must be 1 to {_MAX_NAME} printable characters with a letter or digit, got {describe(value)}")
        key = (kind, _name_key(value))
    return Fact(kind, value, currency, unit, about, key)


def parse_facts(f: Fields, name: str = "facts") -> tuple[Fact, ...]:
    """The validated ``facts`` list of a record (absent or null: none).

    Rejected, naming the field and the fact's index: a non-list, a non-object
    entry, an unknown key, an unknown kind, a value of the wrong shape, a
    money fact without a known currency code, a currency on another kind,
    and the same fact twice.
    """
    raw = f.obj.get(name)
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise f.error(name, f"expected a list of fact objects, got {describe(raw)}")
    facts: list[Fact] = []
    seen: dict[tuple, int] = {}
    for index, entry in enumerate(raw):
        where = Fields(f"{f.where}: field '{name}' [{index}]", entry if isinstance(entry, dict) else {})
        if not isinstance(entry, dict):
            raise f.error(name, f"[{index}]: expected a fact object, got {describe(entry)}")
        unknown = sorted(set(entry) - _FACT_KEYS)
        if unknown:
            raise f.error(name, f"[{index}]: unknown key '{unknown[0]}' (a fact has {', '.join(sorted(_FACT_KEYS))})")
        kind = entry.get("kind")
        if "kind" not in entry:
            raise f.error(name, f"[{index}]: has no kind (one of {', '.join(FACT_KINDS)})")
        if kind not in FACT_KINDS:
            raise f.error(name, f"[{index}]: kind is {describe(kind)}, expected one of {', '.join(FACT_KINDS)}")
        value = entry.get("value")
        if not isinstance(value, str):
            raise f.error(name, f"[{index}]: value is {describe(value)}, expected a string")
        fact = _fact(where, kind, value)
        if fact.key in seen:
            raise f.error(name, f"[{index}]: the same fact as [{seen[fact.key]}]")
        seen[fact.key] = index
        facts.append(fact)
    return tuple(facts)


# --- reading a text ---------------------------------------------------------

# One character for one: spans found in the folded text are spans of the original.
_FOLD = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2010": "-", "\u2011": "-", "\u00a0": " "})

_MONTH = r"(?P<mon>" + MONTH_DOT_AFTER_SHORT + r")"
# Slashed and hyphenated numeric dates state a date fact under either reading (dotted: day first).
NUMERIC_ORDER = Order.BOTH
_ORDINAL = r"(?:st|nd|rd|th)?"
_DATE_PATTERNS = (
    ("ymd", re.compile(r"(?<![\w./-])(?P<y>[0-9]{4})(?P<sep>[-/.])(?P<m>[0-9]{1,2})(?P=sep)(?P<d>[0-9]{1,2})(?![\w/-]|\.[0-9])")),
    ("numeric", re.compile(r"(?<![\w./-])(?P<a>[0-9]{1,2})(?P<sep>[-/.])(?P<b>[0-9]{1,2})(?P=sep)(?P<y>[0-9]{4})(?![\w/-]|\.[0-9])")),
    ("mdy", re.compile(r"\b" + _MONTH + r"\s{1,3}(?P<d>[0-9]{1,2})" + _ORDINAL + r"(?:,?\s{1,3}(?P<y>[0-9]{4}))?(?![\w])", re.IGNORECASE)),
    ("dmy", re.compile(r"(?<![\w.,])(?P<d>[0-9]{1,2})" + _ORDINAL + r"\s{1,3}(?:of\s{1,3})?" + _MONTH + r"(?:,?\s{1,3}(?P<y>[0-9]{4}))?(?![\w])", re.IGNORECASE)),
    ("my", re.compile(r"\b" + _MONTH + r",?\s{1,3}(?P<y>[0-9]{4})(?![\w])", re.IGNORECASE)),
)

@dataclass(frozen=True)
class _Date:
    start: int
    end: int
    days: tuple[_dt.date, ...]  # every reading of a full date; none for a month alone or a day without a year


def _date(kind: str, match: re.Match[str]) -> _Date:
    groups = match.groupdict()
    if kind in ("mdy", "dmy") and groups["y"] is None:
        return _Date(match.start(), match.end(), ())  # masked, so its day is not read as a figure
    if kind == "ymd":
        days = [real_day(int(groups["y"]), int(groups["m"]), int(groups["d"]))]
    elif kind == "numeric":
        days = list(numeric_dates(int(groups["a"]), int(groups["b"]), int(groups["y"]), NUMERIC_ORDER, groups["sep"]))
    elif kind == "my":
        days = []  # a month names no day; masked so its year is not read as a figure
    else:
        month = month_number(groups["mon"])
        days = [real_day(int(groups["y"]), month, int(groups["d"]))]
    return _Date(match.start(), match.end(), tuple(dict.fromkeys(d for d in days if d is not None)))


class Statements:
    """What one text states: its numbers and dates, read once; names looked up on demand."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._folded = text.translate(_FOLD)
        found = sorted(
            ((match.start(), -match.end(), kind, match) for kind, pattern in _DATE_PATTERNS for match in pattern.finditer(self._folded)),
            key=lambda entry: entry[:2],
        )
        # Leftmost-longest: "9 February 2023" is one date, not also "February 2023".
        dates: list[_Date] = []
        taken: list[tuple[int, int]] = []
        reached = 0
        for start, negative_end, kind, match in found:
            if start < reached:
                continue
            reached = -negative_end
            taken.append((start, reached))
            dates.append(_date(kind, match))
        self._dates = dates
        # Numbers inside a date are no figures; a fact is a magnitude ("-$377M", a loss, states $377M).
        numbers = [replace(f, negative=False) if f.negative else f for f in read_figures(self._folded, skip=taken)]
        # A long text repeats its figures: each distinct reading is checked once, at its first place.
        distinct: dict[tuple, Figure] = {}
        for n in numbers:
            distinct.setdefault((n.mantissa, n.exp, n.digits, n.currency, n.percent, n.scaled, n.mass), n)
        self._distinct = list(distinct.values())
        self._at = {(n.start, n.end): n for n in numbers}

    def _quote(self, start: int, end: int) -> str:
        return self.text[start:end]

    def find(self, fact: Fact) -> str | None:
        """The first passage of the text that states *fact*, or ``None``."""
        span = self.span(fact)
        return None if span is None else self._quote(*span)

    def span(self, fact: Fact) -> tuple[int, int] | None:
        """Where the text first states *fact*: ``(start, end)``, or ``None``."""
        kind = fact.kind
        if kind == "name":
            return self._name(fact.value)
        if kind == "date":
            day = fact.key[1]
            for d in self._dates:
                if day in d.days:
                    return d.start, d.end
            return None
        first = None
        for n in self._distinct:
            if _number_states(n, fact) and (first is None or n.start < first.start):
                first = n
        return None if first is None else (first.start, first.end)

    def _name(self, value: str) -> tuple[int, int] | None:
        words = value.translate(_FOLD).split()
        pattern = re.compile(r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)", re.IGNORECASE)
        match = pattern.search(self._folded)
        return None if match is None else (match.start(), match.end())

    def states_at(self, span: tuple[int, int], fact: Fact) -> bool:
        """Whether the passage at *span* (from :meth:`span`) states *fact* too.

        A rounded figure may state two facts (``12 million``: 12.4 and 11.9
        million); a name or a date passage states only what it names.
        """
        start, end = span
        if fact.kind == "name":
            return self._name(fact.value) == span
        if fact.kind == "date":
            day = fact.key[1]
            return any(d.start == start and day in d.days for d in self._dates)
        n = self._at.get(span)
        return n is not None and _number_states(n, fact)


def _number_states(n: Figure, fact: Fact) -> bool:
    """Whether figure *n* states the money, percent or number *fact* (module docstring: the kinds; the tolerance: by precision)."""
    kind, currency = fact.kind, fact.currency
    if kind == "money":
        if n.percent or n.mass:
            return False
        if n.currency is not None and not (n.currency == currency or (n.currency == "$" and currency in DOLLARS)):
            return False
        if n.currency is None and not n.scaled:
            return False  # a bare 377 is 377, not $377M
        return same_figure(n, fact.value)
    if kind == "percent":
        percent = None if n.currency is not None else as_percent(n)  # 0.481 is 48.1%, to the precision written
        return percent is not None and same_figure(percent, fact.value)
    return n.currency is None and not n.percent and same_figure(n, fact.value)


def statements(text: str) -> Statements:
    """Read *text* once, for :meth:`Statements.find`."""
    return Statements(text)
