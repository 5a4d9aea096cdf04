"""Leaks between questions: a question's answer written in another question (``anachron bank crosscheck``).

A question set leaks when one question's resolution appears in another
question's title, body or options (FutureSim found 82 of 330 answers
written out in another question's title).  For each question Q with an
informative resolution R, every other question P whose text states R is
a pair ``(Q, leaked_by=P)``:

- an **answer string or entity** (``Joe Biden``, ``Aster Logistics``) is
  stated when its words appear in P's text in order and contiguous, case
  and punctuation aside (words are runs of letters and digits);
- a **figure** (R is one written figure, ``$377M``, ``41.5%``) is stated
  when P writes a figure that states R's value by the one tolerance rule
  (:func:`anachron.core.figures.same_figure`, stated precision): ``$0.38bn``
  states 377,000,000.

Uninformative resolutions are never matched by themselves: ``yes``,
``no``, ``true``, ``false``, ``unknown``, ``none``, ``n/a`` (case and
punctuation aside: ``Yes.``, ``NO!``), a catch-all option (``Other``,
``None of the above``, ``Neither``, ``Both``), an empty
answer, a bare number under 100 (``3``, ``42``: no currency, scale or
percent; ``forty-two`` in words), an answer of single characters (``A``,
``a b``; ``UK`` is matched), and an answer Q's own text already offers (one of its options: seeing it
elsewhere tells nothing).

The pair's **route** says how P reaches an agent answering Q: ``later``
(P is dated after Q's T: a question from Q's future carries its answer),
``sibling`` (same date or same batch: asked side by side), ``earlier``,
or ``undated``.  Every route is a leak when the set is served together.

The **leak-free subset** drops every Q that is leaked; P stays (with Q
gone, its text leaks nothing).

Cost: one pass builds a word index (word -> questions) and a figure
index (value bucket -> figures); each answer looks up the questions holding
its rarest word (or its value's bucket and the two beside it) and checks
only those, so the work grows with the questions and the matches, not with
all pairs.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from anachron.core.dates import known_at
from anachron.core.figures import DOLLARS, Figure, read_figures, same_figure

__all__ = ["Question", "Pair", "CrossCheck", "crosscheck", "informative", "words"]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_EMPTY_ANSWERS = frozenset({"yes", "no", "true", "false", "unknown", "none", "n/a", "na", "null", "tbd",
                            # the catch-all options of multiple-choice questions: the same words in
                            # another question's options say nothing of this one's answer
                            "other", "neither", "both", "none of the above", "all of the above", "none of these",
                            "not applicable", "no one", "nobody", "nothing"})
# Numbers under 100 written in words are as bare as their digits.
_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_NUMBER_WORDS = frozenset(_UNITS + _TENS + [f"{t} {u}" for t in _TENS for u in _UNITS[1:10]])
# Figure buckets: |log10 v| in steps of 1/20 (a factor of about 1.12).  A figure of two or more
# significant digits states v only within 5% of itself, so a match lies in its bucket or the next one.
_BUCKETS = 20


@dataclass(frozen=True)
class Question:
    """One question: its id, texts, resolution (``None``: unresolved), T (``as_of``) and batch."""

    id: str
    title: str
    body: str = ""
    options: tuple[str, ...] = ()
    resolution: str | None = None
    as_of: _dt.date | None = None
    batch: str | None = None

    @property
    def text(self) -> str:
        return "\n".join((self.title, self.body, *self.options))


@dataclass(frozen=True)
class Pair:
    """Question ``question``'s resolution, written in ``leaked_by`` as ``match``."""

    question: str
    leaked_by: str
    match: str
    route: str

    def to_dict(self) -> dict[str, str]:
        return {"question": self.question, "leaked_by": self.leaked_by, "match": self.match, "route": self.route}


@dataclass(frozen=True)
class CrossCheck:
    """The pairs (by question, then leaker, in input order), the leak-free subset, and how many answers were checked."""

    pairs: tuple[Pair, ...]
    leak_free: tuple[str, ...]
    checked: int  # questions with an informative resolution
    uninformative: int  # questions with a resolution too bare to match by itself
    unresolved: int

    def to_dict(self) -> dict:
        return {
            "pairs": [p.to_dict() for p in self.pairs],
            "leak_free": list(self.leak_free),
            "checked": self.checked,
            "uninformative": self.uninformative,
            "unresolved": self.unresolved,
        }


def words(text: str) -> list[str]:
    """The words of *text*, case-folded: runs of letters and digits.

    >>> words("Will Aster Logistics' Q3 revenue beat $377M?")
    ['will', 'aster', 'logistics', 'q3', 'revenue', 'beat', '377m']
    """
    return [w.casefold() for w in _WORD.findall(text)]


def _sole_figure(answer: str) -> Figure | None:
    """The figure *answer* consists of (a figure and nothing else with a letter or digit), else None."""
    figures = read_figures(answer)
    if len(figures) != 1:
        return None
    f = figures[0]
    rest = answer[: f.start] + answer[f.end :]
    return None if _WORD.search(rest) else f


def informative(question: Question) -> bool:
    """Whether *question*'s resolution may be matched by itself (module docstring).

    >>> [informative(Question("q", "t", resolution=r)) for r in ("Yes", "42", "$42", "Joe Biden", "UK", "a b")]
    [False, False, True, True, True, False]
    >>> [informative(Question("q", "t", resolution=r)) for r in ("Yes.", "NO!", '"None"', "Unknown?")]
    [False, False, False, False]
    >>> informative(Question("q", "Will A or B win?", options=("Ann Lee", "Bo Chen"), resolution="Ann Lee"))
    False
    """
    answer = (question.resolution or "").strip()
    # Punctuation and case aside: "Yes.", "NO!" and '"No"' say no more than yes and no.
    said = " ".join(words(answer))
    if not answer or answer.casefold() in _EMPTY_ANSWERS or said in _EMPTY_ANSWERS or said in _NUMBER_WORDS:
        return False
    figure = _sole_figure(answer)
    if figure is not None:
        if figure.bare and abs(figure.value) < 100:
            return False
    elif not any(len(w) >= 2 for w in words(answer)):
        return False
    own = words(question.text)
    return not _contains(own, words(answer)) if figure is None else not _states(read_figures(question.text), figure)


def _contains(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    n = len(needle)
    if not n:
        return False
    first = needle[0]
    for i in range(len(haystack) - n + 1):
        if haystack[i] == first and list(haystack[i : i + n]) == list(needle):
            return True
    return False


def _same_currency(a: str | None, b: str | None) -> bool:
    """Whether figures in currencies *a* and *b* may be one figure: either unstated, the same, or a "$"
    (any dollar) and a dollar code; USD 5m is not EUR 5m."""
    if a is None or b is None or a == b:
        return True
    return (a == "$" and b in DOLLARS) or (b == "$" and a in DOLLARS)


def _states(figures: Sequence[Figure], answer: Figure) -> Figure | None:
    """The first figure of *figures* with the answer's exact value, else the first that states it
    (:func:`same_figure`, stated precision: ``$0.38bn`` states 377,000,000), else None."""
    target = answer.value
    comparable = [
        f for f in figures
        if f.percent == answer.percent and f.mass == answer.mass
        and _same_currency(f.currency, answer.currency)
    ]
    for f in comparable:
        if f.value == target:
            return f
    for f in comparable:
        if same_figure(f, target):
            return f
    return None


def _bucket(value: Fraction) -> tuple[int, int]:
    if value == 0:
        return (0, 0)
    return (1 if value > 0 else -1, math.floor(math.log10(abs(value)) * _BUCKETS))


def _route(q: Question, p: Question) -> str:
    if q.batch is not None and q.batch == p.batch:
        return "sibling"
    if q.as_of is None or p.as_of is None:
        return "undated"
    if not known_at(p.as_of, q.as_of):  # the one cutoff rule: dated after q's T
        return "later"
    if p.as_of == q.as_of:
        return "sibling"
    return "earlier"


def crosscheck(questions: Sequence[Question]) -> CrossCheck:
    """Find every question whose resolution another question states (module docstring)."""
    texts = [words(q.text) for q in questions]
    figures = [read_figures(q.text) for q in questions]
    word_index: dict[str, list[int]] = {}
    for i, ws in enumerate(texts):
        for w in dict.fromkeys(ws):
            word_index.setdefault(w, []).append(i)
    figure_index: dict[tuple[int, int], list[int]] = {}
    for i, fs in enumerate(figures):
        for key in dict.fromkeys(_bucket(f.value) for f in fs):
            figure_index.setdefault(key, []).append(i)

    pairs: list[Pair] = []
    leaked: set[int] = set()
    checked = uninformative = unresolved = 0
    for qi, q in enumerate(questions):
        if q.resolution is None or not q.resolution.strip():
            unresolved += 1
            continue
        if not informative(q):
            uninformative += 1
            continue
        checked += 1
        answer = q.resolution.strip()
        figure = _sole_figure(answer)
        if figure is not None:
            sign, b = _bucket(figure.value)
            candidates = sorted({i for d in (-1, 0, 1) for i in figure_index.get((sign, b + d), ())})
            for pi in candidates:
                if pi == qi:
                    continue
                hit = _states(figures[pi], figure)
                if hit is not None:
                    text = questions[pi].text
                    pairs.append(Pair(q.id, questions[pi].id, text[hit.start : hit.end], _route(q, questions[pi])))
                    leaked.add(qi)
            continue
        needle = words(answer)
        rarest = min(needle, key=lambda w: (len(word_index.get(w, ())), w))
        for pi in word_index.get(rarest, ()):
            if pi != qi and _contains(texts[pi], needle):
                pairs.append(Pair(q.id, questions[pi].id, answer, _route(q, questions[pi])))
                leaked.add(qi)
    return CrossCheck(
        pairs=tuple(pairs),
        leak_free=tuple(q.id for i, q in enumerate(questions) if i not in leaked),
        checked=checked,
        uninformative=uninformative,
        unresolved=unresolved,
    )
