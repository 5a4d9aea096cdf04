"""Answer leaks: did the final answer state the future, and where did it get it?

A trace's ``answer`` **leaks** a fact (:mod:`anachron.core.facts`) when it
states it, it is about a subject the answer (or the corpus sample the trace
answers) names, and it first became public after T: the earliest
``publish_date`` of the items about a named subject declaring it is not
:func:`known_at` T.  A figure of a company the answer never names is not
its figure (:meth:`Corpus.facts_about` says what names a subject).
A fact public on T itself is known on T and does not leak.  A passage that
states a leaking fact *and* a fact public at T (``$0.4bn`` rounds both) is
not counted: the answer may be giving the known figure.

Each leaked fact, counted once however often it is stated, is attributed:

- **retrieved** when an ``ok`` interaction of the run returned an item that
  carries it: a corpus item declaring it, or any item whose shown text states
  it.  The evidence names the first such call;
- **parametric** otherwise: no tool showed it, so the model brought it.

Evidence lines::

    answer states '$377M' (fin-009, public 2021-09-17 > 2021-06-01), surfaced by #2: retrieved
    answer states '$377M' (fin-009, public 2021-09-17 > 2021-06-01), never retrieved: parametric
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass

from anachron.core.corpus import Corpus
from anachron.core.dates import known_at
from anachron.core.facts import Fact, Statements
from anachron.core.trace import Trace

__all__ = ["AnswerLeak", "answer_leaks"]

QUOTED_STATEMENT = 60  # characters of the stated passage an evidence line quotes


@dataclass(frozen=True)
class AnswerLeak:
    """One post-T fact the answer states; ``surfaced_by`` is the call number (from 1) that showed it, or None."""

    fact: Fact
    item_id: str
    public: _dt.date
    stated: str
    surfaced_by: int | None

    @property
    def source(self) -> str:
        return "parametric" if self.surfaced_by is None else "retrieved"

    def evidence(self, as_of: _dt.date) -> str:
        stated = " ".join(self.stated.split())
        if len(stated) > QUOTED_STATEMENT:
            stated = stated[: QUOTED_STATEMENT - 3] + "..."
        where = "never retrieved" if self.surfaced_by is None else f"surfaced by #{self.surfaced_by}"
        return f"answer states '{stated}' ({self.item_id}, public {self.public} > {as_of}), {where}: {self.source}"


def _stated_leaks(answer: Statements, trace: Trace, corpus: Corpus) -> list[tuple[Fact, str, _dt.date, str]]:
    """(fact, item id, public date, passage) for each post-T fact the answer states, in the answer's order.

    Only facts about a subject the answer, or the corpus sample the trace
    answers, names (:meth:`Corpus.facts_about`) are read, as leaks and as
    the figures known at T alike.
    """
    as_of = trace.as_of
    sample = corpus.sample_of(trace.sample_id)
    texts = (answer.text,) if sample is None else (answer.text, sample.input)
    known: dict[str, list[Fact]] = {}
    late: list[tuple[Fact, str, _dt.date]] = []
    for fact, item in corpus.facts_about(*texts).values():
        if known_at(item.publish_date, as_of):
            known.setdefault(fact.kind, []).append(fact)
        else:
            late.append((fact, item.id, item.publish_date))
    found = []
    for fact, item_id, public in late:
        span = answer.span(fact)
        if span is None:
            continue
        if any(answer.states_at(span, other) for other in known.get(fact.kind, ())):
            continue  # the passage may be giving the figure known at T
        found.append((span[0], fact, item_id, public, answer.text[span[0]:span[1]]))
    found.sort(key=lambda entry: entry[0])  # stable: facts stated at one place keep corpus order
    return [entry[1:] for entry in found]


def _surfaced_by(fact: Fact, trace: Trace, corpus: Corpus, shown: dict[str, Statements]) -> int | None:
    """The number of the first ``ok`` call that returned an item carrying *fact*."""
    for number, interaction in enumerate(trace.interactions, start=1):
        if interaction.status != "ok":
            continue
        for item in interaction.returned:
            known = corpus.items.get(item.id)
            if known is not None and any(f.key == fact.key for f in known.facts):
                return number
            text = shown.get(item.text)
            if text is None:
                text = shown[item.text] = Statements(item.text)
            if text.span(fact) is not None:
                return number
    return None


def answer_leaks(trace: Trace, corpus: Corpus) -> tuple[AnswerLeak, ...]:
    """The answer leaks of *trace* (none when it has no answer), in the order the answer states them."""
    if trace.answer is None or not corpus.fact_sources:
        return ()
    stated = _stated_leaks(Statements(trace.answer), trace, corpus)
    shown: dict[str, Statements] = {}
    return tuple(
        AnswerLeak(fact, item_id, public, passage, _surfaced_by(fact, trace, corpus, shown))
        for fact, item_id, public, passage in stated
    )
