"""Intervals on the difficulty-adjusted Brier as ForecastBench computes them: questions resampled within groups, the fit redone on each.

:func:`question_bootstrap` takes a panel of ``(question, model, brier)``
observations (at most one per pair, each Brier in [0, 1]) and, optionally, a
group per question (ForecastBench's ``(forecast due date, source)``).  Each of
B resamples draws, within every group of ``n_g`` questions, ``n_g`` of its
questions uniformly with replacement (a question drawn twice counts twice,
as two questions with the same forecasts), and refits the two-way fixed
effects of :mod:`anachron.forecasts.difficulty` on the resample::

    brier[q, m] = question[q] + model[m] + error

Per model, over the resamples in which it answered a drawn question:

- the **difficulty-adjusted Brier** ``A_m`` (the fit's model effect, on
  ForecastBench's scale: the question effects average 0 over the drawn
  questions) with its percentile interval, and the plain mean Brier with its;
- the **Brier Index** ``(1 - sqrt(A_m)) * 100``, its interval the percentiles
  of the index over the resamples (not the transformed ends of ``A_m``'s);
- with a *reference* model, the **p-value** ``P(A_m <= A_ref)``: the share of
  the resamples in which the model scores at least as well as the reference
  (paired: both are refitted on the same resample).  Small: the model is
  reliably worse than the reference.  The reference's own is 1;
- the **rank-first share**: the share of resamples in which the model has the
  lowest ``A_m`` (a tie shares the resample equally).

The percentile is :func:`anachron.core.stats.bootstrap.percentile` (numpy's
default), at ``(1 -+ confidence) / 2``.

**Parts** (ForecastBench's question types): with *parts* mapping every
question to a part, each part is fitted on its own on every resample (the
result's ``parts``: one leaderboard per part), and a model's overall figure
is the mean over the parts of its part figures, ForecastBench's "mean of the
type means", on the same resamples; a model missing from a part has no
overall figure (``None``).  Groups should not straddle parts (ForecastBench's
``(due date, source)`` never does: the source gives the type).

**The pool and outside effects** (ForecastBench's leaderboard): with
*pool*, a part's effects are fitted on the pool's drawn observations only
(each question's pattern is then the pool models that answered it and all
the models that did), and every model's figure is its mean of ``brier -
effect`` over its drawn questions that have an effect (one the pool
answered); for a pool model that is its fitted effect.  With
*fixed_effects* for a part, its effects are the given ones on every
resample.  Such a part keeps its mean-Brier sums per pattern (a column a
pattern): a ragged panel of many models costs a column per answer pattern.

**The refit.**  Eliminating the question effects leaves an M x M system in
the model effects (M models), whose coefficients are sums over the drawn
questions of quantities fixed per question: the count of the questions of
each *pattern* (the set of models that answered it), the sum of their mean
Brier (kept per model instead, as two sums, when a part has more than twice
as many patterns as models), and each model's Brier sum.  So one resample is a weighted sum over
the distinct questions, made in C by the block resampler of
:mod:`anachron.core.stats.bootstrap` on these columns in fixed point
(``round(x * 2**23)``: each drawn figure is within 2**-24 of its float, far
below the bootstrap's own noise; 24 bits are three 8-bit limbs of the
resampler a Brier column, where 2**27 took four), then an M x M solve.  In a group of
BYTES_UNTIL questions or more, a pattern of 256 of them draws its Briers per
(pattern, model), and its mean-Brier sums are made from those (exact
integers over the pattern's size) rather than drawn.  The point estimates
are computed in floating point from the data (``math.fsum``).

Edge cases:

- a question without a group (*groups* ``None``, or a question it maps to
  ``None``) is resampled among all the ungrouped questions, each its own unit
  (``ungrouped`` counts them): with no groups at all this is the plain
  question bootstrap;
- a group of one question is always redrawn as itself: it adds no spread
  (``singleton_groups`` counts them).  When no group has two questions every
  resample is the data: there is no interval (``ci_low``/``ci_high``
  ``None``, ``degenerate`` says why), never a zero-width one;
- a resample in which a model answered no drawn question has no figure for
  it: left out of its intervals, counted in ``undefined_resamples``, and not a
  first place;
- models linked by no common question in a resample are each put on the
  scale within their own linked set (its questions' effects average 0);
- a Brier outside [0, 1], a pair given twice, an unknown reference, no
  observation, or fewer than one resample is an :class:`AnachronError`.

>>> obs = [(q, "a", 0.04) for q in "pqrs"] + [(q, "b", 0.25) for q in "pqrs"]
>>> result = question_bootstrap(obs, n_resamples=200, reference="a")
>>> [(m.model, round(m.adjusted.value, 4), m.rank_first, m.p_value) for m in result.models.values()]
[('a', 0.04, 1.0, 1.0), ('b', 0.25, 0.0, 0.0)]
>>> round(result.models["a"].brier_index.value, 6)  # (1 - sqrt(0.04)) * 100
80.0
"""

from __future__ import annotations

import math
import random
from array import array
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence

from anachron.core.errors import AnachronError
from anachron.core.stats.bootstrap import BYTES_UNTIL, bootstrap_column_totals, percentile
from anachron.forecasts.difficulty import Panel
from anachron.forecasts.model_score import Interval, without_collector

__all__ = ["ModelResamples", "QuestionBootstrap", "brier_index", "question_bootstrap"]

SCALE = 1 << 23  # fixed point of the resampled columns: 24 bits, three 8-bit limbs a column (docs/outcomes.md)
_PATTERNS_PER_MODEL = 2  # more answer patterns than this per model: a part's mean-Brier sums are kept per model
_BATCH_CELLS = 1 << 20  # questions x columns resampled at once: bounds the memory of a large group
_PATTERN_ROWS = 256  # a pattern with this many questions in a large group draws its Briers per pattern


def brier_index(adjusted: float | None) -> float | None:
    """ForecastBench's Brier Index ``(1 - sqrt(adjusted)) * 100``; ``None`` for ``None`` or a negative figure.

    >>> brier_index(0.25), brier_index(0.0), brier_index(1.0), brier_index(-0.01)
    (50.0, 100.0, 0.0, None)
    """
    if adjusted is None or adjusted < 0:
        return None
    return (1 - math.sqrt(adjusted)) * 100


@dataclass(frozen=True)
class ModelResamples:
    """One model's figures over the question resamples (module docstring)."""

    model: str
    questions: int  # the questions it answered
    brier: Interval  # its plain mean Brier
    adjusted: Interval  # its difficulty-adjusted Brier
    brier_index: Interval
    p_value: float | None  # P(adjusted <= the reference's); None without a reference or an interval
    rank_first: float | None  # share of the resamples in which it ranks first; None without an interval
    undefined_resamples: int  # resamples in which it answered no drawn question

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "questions": self.questions,
            "brier": self.brier.to_dict(),
            "adjusted_brier": self.adjusted.to_dict(),
            "brier_index": self.brier_index.to_dict(),
            "p_value": self.p_value,
            "rank_first": self.rank_first,
            "undefined_resamples": self.undefined_resamples,
        }


@dataclass(frozen=True)
class QuestionBootstrap:
    """The grouped question bootstrap of a panel: per model its :class:`ModelResamples`, and how it was drawn."""

    models: Mapping[str, ModelResamples]
    questions: int
    groups: int  # groups given (the ungrouped questions' pool not counted)
    ungrouped: int  # questions without a group, resampled together
    singleton_groups: int
    resamples: int
    seed: int
    confidence: float
    reference: str | None
    degenerate: str | None = None  # why there is no interval, when there is none
    parts: Mapping[str, Mapping[str, ModelResamples]] | None = None  # with parts: each part's own figures
    subsets: Mapping[str, Mapping[str, ModelResamples]] | None = None  # with subsets: each subset's figures

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": "questions resampled within groups, fixed effects refitted per resample",
            "questions": self.questions,
            "groups": self.groups,
            "ungrouped_questions": self.ungrouped,
            "singleton_groups": self.singleton_groups,
            "resamples": self.resamples,
            "seed": self.seed,
            "confidence": self.confidence,
            "reference": self.reference,
            "degenerate": self.degenerate,
            "models": [m.to_dict() for m in self.models.values()],
            "parts": None if self.parts is None else {
                name: [m.to_dict() for m in rows.values()] for name, rows in self.parts.items()
            },
            # Only when asked: a caller that lists the keys it drops (the single-run report) sees no new one.
            **({} if self.subsets is None else {"subsets": {
                name: [m.to_dict() for m in rows.values()] for name, rows in self.subsets.items()}}),
        }


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a small, nonsingular system)."""
    size = len(rhs)
    a = [row[:] + [r] for row, r in zip(matrix, rhs)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        head = a[col]
        for r in range(col + 1, size):
            factor = a[r][col] / head[col]
            if factor:
                row = a[r]
                for c in range(col, size + 1):
                    row[c] -= factor * head[c]
    out = [0.0] * size
    for r in range(size - 1, -1, -1):
        out[r] = (a[r][size] - math.fsum(a[r][c] * out[c] for c in range(r + 1, size))) / a[r][r]
    return out


def _refit(
    patterns: Sequence[tuple[int, ...]], counts: Sequence[float], bbar_sums: Sequence[float] | None, brier_sums: Sequence[float],
    models: int, by_model: tuple[Sequence[float], Sequence[float]] | None = None,
) -> list[float | None]:
    """Each model's difficulty-adjusted Brier from the resample's sums (None: it answered no drawn question).

    *counts[p]* and *bbar_sums[p]* are the number of drawn questions of pattern
    p (the models that answered them) and the sum of their mean Brier;
    *brier_sums[m]* model m's Brier sum.  With the question effects
    eliminated (q = mean over its models of brier - model), the normal
    equations of the model effects are ``L x = r``: ``L = diag(n) - P``,
    ``P[m][m'] = sum_p counts[p] [m, m' in p] / |p|``, ``r[m] = brier_sums[m] -
    sum_p [m in p] bbar_sums[p]``.  L's rows sum to 0 (the common shift); per
    linked set one effect is pinned at 0, then the set is put on the scale
    where its questions' effects average 0.  *by_model*, instead of
    *bbar_sums*, gives per model the sums those make: of its drawn questions'
    mean Brier, and of the same over ``|p|``.
    """
    n = [0.0] * models
    weight = [[0.0] * models for _ in range(models)]
    u = [0.0] * models  # sum over its drawn questions of their mean Brier
    share = [0.0] * models  # sum of count / |p|: its share of the questions
    share_bbar = [0.0] * models
    if by_model is not None:
        u, share_bbar = list(by_model[0]), list(by_model[1])
    for p, (pattern, count) in enumerate(zip(patterns, counts)):
        if not count:
            continue
        k = len(pattern)
        for m in pattern:
            n[m] += count
            if bbar_sums is not None:
                u[m] += bbar_sums[p]
                share_bbar[m] += bbar_sums[p] / k
            share[m] += count / k
            row = weight[m]
            for m2 in pattern:
                row[m2] += count / k
    present = [m for m in range(models) if n[m]]
    out: list[float | None] = [None] * models
    seen: set[int] = set()
    for start in present:
        if start in seen:
            continue
        linked = [start]
        seen.add(start)
        for m in linked:  # grows as it is walked: the models linked to start through shared questions
            for m2 in present:
                if m2 not in seen and weight[m][m2]:
                    seen.add(m2)
                    linked.append(m2)
        linked.sort()
        effect = dict.fromkeys(linked, 0.0)
        if len(linked) > 1:
            free = linked[1:]  # linked[0] pinned at 0
            matrix = [[(n[m] if m == m2 else 0.0) - weight[m][m2] for m2 in free] for m in free]
            solved = _solve(matrix, [brier_sums[m] - u[m] for m in free])
            effect.update(zip(free, solved))
        total_share = math.fsum(share[m] for m in linked)
        shift = (math.fsum(share_bbar[m] for m in linked) - math.fsum(share[m] * effect[m] for m in linked)) / total_share
        for m in linked:
            out[m] = effect[m] + shift
    return out


def _interval(point: float | None, draws: list[float], confidence: float, n: int, varied: bool) -> Interval:
    if point is None or not draws or not varied:
        return Interval(point, None, None, n)
    draws.sort()
    alpha = (1 - confidence) / 2
    return Interval(point, percentile(draws, alpha), percentile(draws, 1 - alpha), n)


class _Tally:
    """The figures of one leaderboard (a part, or the overall one) over the resamples."""

    def __init__(self, models: int, reference: int | None) -> None:
        self.adjusted: list[list[float]] = [[] for _ in range(models)]
        self.index: list[list[float]] = [[] for _ in range(models)]
        self.brier: list[list[float]] = [[] for _ in range(models)]
        self.undefined = [0] * models
        self.first = [0.0] * models
        self.as_good = [0] * models
        self.paired = [0] * models
        self.reference = reference

    def add(self, adjusted: Sequence[float | None], brier: Sequence[float | None]) -> None:
        best = None
        for m, value in enumerate(adjusted):
            if value is None:
                self.undefined[m] += 1
                continue
            self.adjusted[m].append(value)
            self.brier[m].append(brier[m])  # type: ignore[arg-type]
            index = brier_index(value)
            if index is not None:
                self.index[m].append(index)
            if best is None or value < best:
                best = value
        if best is not None:
            winners = [m for m, value in enumerate(adjusted) if value == best]
            for m in winners:
                self.first[m] += 1 / len(winners)
        ref = self.reference
        if ref is not None and adjusted[ref] is not None:
            for m, value in enumerate(adjusted):
                if value is not None:
                    self.paired[m] += 1
                    self.as_good[m] += value <= adjusted[ref]  # type: ignore[operator]

    def rows(self, names: Sequence[str], adjusted: Sequence[float | None], brier: Sequence[float | None],
             questions: Sequence[int], confidence: float, varied: bool, n_resamples: int) -> dict[str, ModelResamples]:
        out = {}
        for m, name in enumerate(names):
            n = questions[m]
            out[name] = ModelResamples(
                model=name,
                questions=n,
                brier=_interval(brier[m], self.brier[m], confidence, n, varied),
                adjusted=_interval(adjusted[m], self.adjusted[m], confidence, n, varied),
                brier_index=_interval(brier_index(adjusted[m]), self.index[m], confidence, n, varied),
                p_value=self.as_good[m] / self.paired[m] if self.reference is not None and varied and self.paired[m] else None,
                rank_first=self.first[m] / n_resamples if varied else None,
                undefined_resamples=self.undefined[m] if varied else 0,
            )
        return out


def _mean_of_parts(figures: Sequence[Sequence[float | None]], models: int) -> list[float | None]:
    """Per model, the mean of its figure over the parts: None unless it has one in every part."""
    out: list[float | None] = []
    for m in range(models):
        values = [part[m] for part in figures]
        out.append(None if any(v is None for v in values) else math.fsum(values) / len(values))  # type: ignore[arg-type]
    return out


@without_collector  # its rows and the resampler's row tuples: about 5% of its time in the collector, within a report
def question_bootstrap(
    observations: Iterable[tuple[str, str, float]],
    *,
    groups: Mapping[str, Hashable | None] | None = None,
    parts: Mapping[str, str] | None = None,
    reference: str | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
    progress: Callable[[int, int], None] | None = None,
    pool: Callable[[str, str], bool] | None = None,
    fixed_effects: Mapping[str, Mapping[str, float]] | None = None,
    subsets: Mapping[str, Sequence[str]] | None = None,
) -> QuestionBootstrap:
    """The grouped question bootstrap of a panel of ``(question, model, brier)`` (module docstring).

    *groups* maps a question to its group (any hashable: ForecastBench's
    ``(due date, source)``); a question absent from it, or mapped to
    ``None``, is resampled among the ungrouped questions.  *parts*, if
    given, maps every question to a part (ForecastBench's question type,
    ``dataset`` or ``market``): each part is fitted on its own on every
    resample (``parts`` of the result), and the overall figure (``models``)
    is the mean over the parts of a model's part figures, ``None`` for a
    model missing from a part.  *progress*, if given, is told
    ``(questions, all questions)`` as each group's resamples are drawn.
    Same panel, groups and *seed*: the same figures, to the bit.

    *pool* (``pool(question, model)``: is this observation in the difficulty
    pool?) restricts the fit to the pool's observations; on every resample
    the question effects are fitted on the pool's drawn observations alone,
    and every model, in the pool or not, is scored against them: its mean of
    ``brier - effect`` over its drawn questions that have an effect (one the
    pool answered).  *fixed_effects* maps a part (``""`` without *parts*) to
    outside question effects: that part is not fitted, on the data or on any
    resample; a question without an effect there is left out of its adjusted
    Brier.

    *subsets* maps every question to the names of the subsets it is in (the
    leaderboard's ``--by`` rows: ``source=acled``, ``round=2025-03-02``); a
    subset may span parts.  Each subset gets, on the same resamples, its
    models' figures (``subsets`` of the result) without a fit of its own:
    the adjusted Brier is the mean of ``brier - question effect`` over its
    drawn questions that have an effect, the effects those of its part's fit
    on the whole resample; the Brier is its plain mean; the rank-first share
    and the p-value compare the models on the subset.
    """
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise AnachronError(f"question bootstrap: resamples must be a whole number of at least 1, got {n_resamples!r}")
    if not 0 < confidence < 1:
        raise AnachronError(f"question bootstrap: confidence must lie strictly between 0 and 1, got {confidence!r}")
    def check(question: str, model: str, value: float) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise AnachronError(f"question bootstrap: model {model!r}, question {question!r}: Brier {value!r} is not in [0, 1]")
    panel = Panel(observations, check)  # in arrays: 10**6 observations are not 10**6 dict entries
    by_question = panel.questions  # question -> its index in the panel
    if not by_question:
        raise AnachronError("question bootstrap: no observation")
    names = sorted(panel.models)
    panel_names = sorted(panel.models, key=panel.models.__getitem__)  # the panel's model indices' names
    if reference is not None and reference not in names:
        raise AnachronError(f"question bootstrap: reference {reference!r} is not a model of the panel (models: {', '.join(names)})")
    part_names = [""]
    if parts is not None:
        missing = sorted(q for q in by_question if not isinstance(parts.get(q), str))
        if missing:
            raise AnachronError(f"question bootstrap: question {missing[0]!r} has no part (a string) in parts")
        part_names = sorted({parts[q] for q in by_question})
    part_index = {name: j for j, name in enumerate(part_names)}
    if subsets is not None:
        missing = sorted(q for q in by_question if isinstance(subsets.get(q), str)
                         or not all(isinstance(name, str) for name in subsets.get(q) or (None,)))
        if missing:
            raise AnachronError(f"question bootstrap: question {missing[0]!r} has no subsets (a list of strings) in subsets")
    index = {m: i for i, m in enumerate(names)}
    models = len(names)

    fixed_index: dict[int, Mapping[str, float]] = {}
    for name, table in (fixed_effects or {}).items():
        if name not in part_index:
            raise AnachronError(f"question bootstrap: fixed effects given for part {name!r}, which has no question")
        fixed_index[part_index[name]] = table
    # Per question: its pattern (its part, the models whose Briers fit its effect, and all the models that
    # answered it), the mean Brier of the fitted ones, its Briers in the order of the answering models.
    # Without a pool or fixed effects the two sets are the same.
    # A question's cell is its part and the subsets it is in: its Briers are summed per cell (a cell a part
    # without subsets), so a subset's figures are sums over its cells.
    pattern_of: dict[tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, tuple[str, ...]]], int] = {}
    # A row per question, (pattern, mean Brier, its Briers in the pattern's order of models): compact, since a
    # panel of 10**6 forecasts has 10**5 of them (the Briers in an array('d'): half a tuple of floats).
    rows_by_group: dict[Hashable, list[tuple[int, float, Sequence[float]]]] = {}
    ungrouped = 0
    total_questions = len(by_question)
    to_index = [index[name] for name in panel_names]  # a panel's model index -> the model's place in names
    starts, model_rows, model_values = panel.question_start, panel.question_rows, panel.question_values
    for question in sorted(by_question):
        qi = by_question[question]
        at, stop = starts[qi], starts[qi + 1]
        # (model, Brier) in the models' order: a question's models are distinct (the panel refuses a repeat).
        ordered = sorted(zip([to_index[m] for m in model_rows[at:stop]], model_values[at:stop]))
        part = 0 if parts is None else part_index[parts[question]]
        answered = tuple(m for m, _ in ordered)
        if part in fixed_index:
            fitted = answered if question in fixed_index[part] else ()
            bbar = fixed_index[part][question] if fitted else 0.0  # the effect itself: summed per model below
        elif pool is None:
            fitted = answered
            bbar = math.fsum([v for _, v in ordered]) / len(fitted)
        else:
            fitted = tuple(m for m, _ in ordered if pool(question, names[m]))
            value_of = dict(ordered)
            bbar = math.fsum([value_of[m] for m in fitted]) / len(fitted) if fitted else 0.0
        cell = (part, () if subsets is None else tuple(sorted(set(subsets[question]))))
        p = pattern_of.setdefault((part, fitted, answered, cell), len(pattern_of))
        key = None if groups is None else groups.get(question)
        if key is None:
            ungrouped += 1
            key = ("\0ungrouped",)  # one pool; a tuple no caller's group key equals by chance
        rows_by_group.setdefault(key, []).append((p, bbar, array("d", [v for _, v in ordered])))
    del panel, by_question  # the rows replace them
    cell_keys = sorted({key[3] for key in pattern_of})  # by part first: without subsets, a cell is its part
    cell_index = {key: c for c, key in enumerate(cell_keys)}
    cell_of = [cell_index[key[3]] for key in sorted(pattern_of, key=pattern_of.__getitem__)]
    patterns = [key[:3] for key in sorted(pattern_of, key=pattern_of.__getitem__)]
    npat = len(patterns)
    nparts = len(part_names)
    ncells = len(cell_keys)  # nparts without subsets, in the same order: the same layout, the same figures
    cells_of_part = [[c for c, (part, _) in enumerate(cell_keys) if part == j] for j in range(nparts)]
    subset_names = sorted({name for _, names_in in cell_keys for name in names_in})
    by_part = [[p for p, (part, _, _) in enumerate(patterns) if part == j] for j in range(nparts)]
    by_cell: list[list[int]] = [[] for _ in cell_keys]  # a resample's pass over the subsets: linear in the patterns
    for p, c in enumerate(cell_of):
        by_cell[c].append(p)
    position = [{m: i for i, m in enumerate(answered)} for _, _, answered in patterns]  # a model's place in a row
    fitted_set = [set(fitted) for _, fitted, _ in patterns]
    # A part is "plain" (every Brier fits the effects: the fit's model effects are the figures), "pool" (some
    # Briers are scored against the pool's effects only) or "fixed" (outside effects, no fit).
    mode = ["fixed" if j in fixed_index else "pool" if any(patterns[p][1] != patterns[p][2] for p in pats) else "plain"
            for j, pats in enumerate(by_part)]

    def brier_at(p: int, m: int) -> int:
        """Where model m's Brier on a question of pattern p is summed: per part and model, three kinds (the
        Briers that fit the effects, or are scored against them; those scored against the pool's; those of a
        question without an effect)."""
        part, fitted, _ = patterns[p]
        kind = 0 if m in fitted_set[p] else 1 if fitted else 2
        return (kind * ncells + cell_of[p]) * models + m

    # A plain part of many answer patterns takes its mean-Brier sums per model (two columns a model) rather
    # than per pattern (one a pattern): fewer columns to resample, the same fit.
    per_model = [mode[j] == "plain" and len({patterns[p] for p in pats}) > _PATTERNS_PER_MODEL * len({m for p in pats for m in patterns[p][2]})
                 for j, pats in enumerate(by_part)]
    base_u = 2 * npat + ncells * models
    base_s = base_u + nparts * models
    base_x = base_s + nparts * models  # the Briers of the second and third kinds

    def brier_slot(p: int, m: int) -> int:
        at = brier_at(p, m)
        return 2 * npat + at if at < ncells * models else base_x + at - ncells * models

    # The patterns without their cells, in the same order as without subsets.
    base_keys = list(dict.fromkeys(patterns))
    base_id = {key: b for b, key in enumerate(base_keys)}
    base_of = [base_id[key] for key in patterns]
    by_base_part = [[b for b, (part, _, _) in enumerate(base_keys) if part == j] for j in range(nparts)]

    def part_sums(brier_sums: Sequence[float], kind: int, j: int) -> list[float]:
        """Per model, the Brier sum of one kind over part j's cells (the cell's own sum without subsets)."""
        if len(cells_of_part[j]) == 1:
            at = (kind * ncells + cells_of_part[j][0]) * models
            return list(brier_sums[at:at + models])
        return [math.fsum(brier_sums[(kind * ncells + c) * models + m] for c in cells_of_part[j]) for m in range(models)]

    def fit(counts: Sequence[float], bbar_sums: Sequence[float] | None, brier_sums: Sequence[float],
            u_sums: Sequence[float] | None = None, s_sums: Sequence[float] | None = None):
        """Per part, each model's adjusted Brier, mean Brier and questions, from one resample's sums; with
        subsets, per subset the same against its parts' effects (else None)."""
        out = []
        # Per subset and model: the adjusted Brier's numerator and questions, the Brier sum and questions.
        totals_of = {name: [[0.0] * models for _ in range(4)] for name in subset_names}
        bcounts, bbar = counts, bbar_sums
        if subsets is not None:
            # A part is fitted on its patterns merged over its cells: on a resample the merged sums are exact
            # (fixed point), so the part's figures are those without subsets, to the bit.
            bcounts = [0.0] * len(base_keys)
            bbar = [0.0] * len(base_keys) if bbar_sums is not None else None
            for p, b in enumerate(base_of):
                bcounts[b] += counts[p]
                if bbar is not None and bbar_sums is not None:
                    bbar[b] += bbar_sums[p]
        for j, pats in enumerate(by_base_part):
            own = part_sums(brier_sums, 0, j)
            if mode[j] == "fixed":
                adjusted: list[float | None] = [0.0] * models
            elif u_sums is not None and s_sums is not None and per_model[j]:
                adjusted = _refit([base_keys[p][1] for p in pats], [bcounts[p] for p in pats], None, own, models,
                                  (u_sums[j * models:(j + 1) * models], s_sums[j * models:(j + 1) * models]))
            else:
                assert bbar is not None
                fits = [p for p in pats if base_keys[p][1]]
                adjusted = _refit([base_keys[p][1] for p in fits], [bcounts[p] for p in fits], [bbar[p] for p in fits],
                                  own, models)
            answered = [0.0] * models
            for p in pats:
                for m in base_keys[p][2]:
                    answered[m] += bcounts[p]
            kinds = [part_sums(brier_sums, k, j) for k in range(3)]
            brier = [math.fsum(kinds[k][m] for k in range(3)) / answered[m] if answered[m] else None
                     for m in range(models)]
            effects = adjusted  # the fit's model effects, which give the question effects below
            if mode[j] != "plain":
                # Every model against the effects: q = mean Brier of its fitted models - their mean model effect.
                assert bbar is not None
                effect_sums = [0.0] * models
                with_effect = [0.0] * models
                for p in pats:
                    fitted, count = base_keys[p][1], bcounts[p]
                    if not fitted or not count:
                        continue
                    shift = math.fsum(adjusted[m] for m in fitted) / len(fitted)  # type: ignore[misc]
                    total = bbar[p] - count * shift
                    for m in base_keys[p][2]:
                        effect_sums[m] += total
                        with_effect[m] += count
                adjusted = [(kinds[0][m] + kinds[1][m] - effect_sums[m]) / with_effect[m]
                            if with_effect[m] else None for m in range(models)]
            if subsets is not None:
                # A subset's figure: its drawn questions' mean of brier - the part's question effect (as above,
                # from the part's fit on the whole resample), and its mean Brier.
                assert bbar_sums is not None
                for c in cells_of_part[j]:
                    numerator, with_effect, brier_total, asked = cell = [[0.0] * models for _ in range(4)]
                    for p in by_cell[c]:
                        count = counts[p]
                        if not count:
                            continue
                        fitted = patterns[p][1]
                        total = 0.0
                        if fitted:
                            total = bbar_sums[p] - count * math.fsum(effects[m] for m in fitted) / len(fitted)  # type: ignore[misc]
                        for m in patterns[p][2]:
                            asked[m] += count
                            if fitted:
                                numerator[m] -= total
                                with_effect[m] += count
                    for m in range(models):
                        at = c * models + m
                        numerator[m] += brier_sums[at] + brier_sums[ncells * models + at]
                        brier_total[m] = brier_sums[at] + brier_sums[ncells * models + at] + brier_sums[2 * ncells * models + at]
                    for name in cell_keys[c][1]:
                        for mine, theirs in zip(totals_of[name], cell):
                            for m in range(models):
                                mine[m] += theirs[m]
            out.append((adjusted, brier, [int(a) for a in answered]))
        by_subset = None
        if subsets is not None:
            by_subset = [([n / w if w else None for n, w in zip(num, wth)], [b / a if a else None for b, a in zip(bt, ask)],
                          [int(a) for a in ask]) for num, wth, bt, ask in (totals_of[name] for name in subset_names)]
        return out, by_subset

    # The point: the fit on the data, in floating point.
    counts = [0.0] * npat
    bbar_lists: list[list[float]] = [[] for _ in patterns]
    brier_lists: list[list[float]] = [[] for _ in range(3 * ncells * models)]
    for rows in rows_by_group.values():
        for p, bbar, values in rows:
            counts[p] += 1
            bbar_lists[p].append(bbar)
            for m, v in zip(patterns[p][2], values):
                brier_lists[brier_at(p, m)].append(v)
    point, point_subsets = fit(counts, [math.fsum(s) for s in bbar_lists], [math.fsum(b) for b in brier_lists])
    del bbar_lists, brier_lists

    # The resamples: per group, the column totals of its drawn questions (fixed point), summed over the groups.
    group_keys = sorted(rows_by_group, key=repr)  # a fixed order of the groups: the random stream is consumed in it
    varied = any(len(rows) > 1 for rows in rows_by_group.values())
    singletons = sum(1 for key, rows in rows_by_group.items() if len(rows) == 1 and key != ("\0ungrouped",))
    rng = random.Random(seed)
    # From BYTES_UNTIL rows a group is resampled by the groups resampler, which sorts its rows (by answer
    # pattern first) and draws them 256 at a time: a pattern of _PATTERN_ROWS questions or more there has
    # most of those 256-row groups to itself. Such a pattern draws its Briers as a column per (pattern,
    # model) and no mean-Brier column: its mean-Brier sums are its fitted models' Brier sums over its size
    # (exact integers), one drawn column a model less. Not in a part of outside effects (they are not Briers).

    def group_slots(present_p: Sequence[int], own: set[int]) -> tuple[list[int], list[int], list[int], list[int]]:
        """A group's columns but those per (pattern, model): its patterns' counts, the mean-Brier sums per
        pattern, the Brier sums, the mean-Brier sums per model."""
        rest_p = [p for p in present_p if p not in own]
        # Subsets need each pattern's mean-Brier sums (their question effects) even where the fit has them per model.
        bbar_slots = [2 * p + 1 for p in rest_p if patterns[p][1] and (subsets is not None or not per_model[patterns[p][0]])]
        brier_slots = sorted({brier_slot(p, m) for p in rest_p for m in patterns[p][2]})
        model_slots = sorted({base + patterns[p][0] * models + m for p in rest_p if per_model[patterns[p][0]]
                              for m in patterns[p][2] for base in (base_u, base_s)})
        return [2 * p for p in present_p], bbar_slots, brier_slots, model_slots

    by_briers: dict[Hashable, set[int]] = {}
    for key, rows in rows_by_group.items():
        if len(rows) < BYTES_UNTIL:
            continue
        sizes = Counter(p for p, _, _ in rows)
        present_p = sorted(sizes)
        own: set[int] = set()
        # Largest first, while the group's columns stay within one batch (below): more batches would each
        # draw the group's counts and streams again.
        budget = max(1, _BATCH_CELLS // len(rows))
        for p in sorted(sizes, key=lambda p: (-sizes[p], p)):
            if sizes[p] < _PATTERN_ROWS:
                break
            if not patterns[p][1] or mode[patterns[p][0]] == "fixed":
                continue
            before = sum(map(len, group_slots(present_p, own))) + sum(len(patterns[q][2]) for q in own)
            after = sum(map(len, group_slots(present_p, own | {p}))) + sum(len(patterns[q][2]) for q in own | {p})
            if after <= max(budget, before):
                own.add(p)
        by_briers[key] = own
    base_pm = base_x + 2 * ncells * models
    pattern_at: dict[int, int] = {}  # a pattern drawn by its Briers: its first (pattern, model) slot
    for p in sorted(set().union(*by_briers.values())):
        pattern_at[p] = base_pm + sum(len(patterns[q][2]) for q in pattern_at)
    width = base_pm + sum(len(patterns[p][2]) for p in pattern_at)
    totals = [[0] * width for _ in range(n_resamples)] if varied else []
    fixed = [0] * width  # the groups of one question: the same in every resample
    for key in group_keys:
        rows = rows_by_group[key]
        own = by_briers.get(key, set())  # the patterns drawn by their Briers here
        present_p = sorted({p for p, _, _ in rows})
        count_slots, bbar_slots, brier_slots, model_slots = group_slots(present_p, own)
        # Last: rows of one pattern are then ordered by their Briers in the models' order, as without them.
        pattern_slots = [pattern_at[p] + i for p in sorted(own) for i in range(len(patterns[p][2]))]

        rows_of: dict[int, list[int]] = {}  # per pattern its rows: a column is filled at its own pattern's rows only
        for r, (p, _, _) in enumerate(rows):
            rows_of.setdefault(p, []).append(r)

        def column(slot: int, rows=rows, own=own, rows_of=rows_of) -> array[int]:
            out = array("q", bytes(8 * len(rows)))
            if slot >= base_pm:  # one pattern's Briers of one model
                p = max(q for q in own if pattern_at[q] <= slot)
                i = slot - pattern_at[p]
                for r in rows_of[p]:
                    out[r] = round(rows[r][2][i] * SCALE)
            elif slot >= base_x or 2 * npat <= slot < base_u:
                where = slot - 2 * npat if slot < base_u else slot - base_x + ncells * models
                m = where % models
                for p, at in rows_of.items():
                    if p not in own and m in position[p] and brier_at(p, m) == where:
                        i = position[p][m]
                        for r in at:
                            out[r] = round(rows[r][2][i] * SCALE)
            elif slot >= base_u:  # a model's sum of mean Brier (or of mean Brier / |p|) over its questions
                over_k = slot >= base_s
                part, m = divmod(slot - (base_s if over_k else base_u), models)
                for p, at in rows_of.items():
                    if p not in own and patterns[p][0] == part and m in position[p]:
                        k = len(patterns[p][1])
                        for r in at:
                            bbar = rows[r][1]
                            out[r] = round((bbar / k if over_k else bbar) * SCALE)
            else:
                p, bbar_column = divmod(slot, 2)
                for r in rows_of.get(p, ()):
                    out[r] = round(rows[r][1] * SCALE) if bbar_column else 1
            return out

        slots = count_slots + bbar_slots + brier_slots + model_slots + pattern_slots
        if len(rows) == 1 or not varied:
            for slot in slots:
                fixed[slot] += sum(column(slot))
        else:
            # Columns are resampled a batch at a time, each batch from the same generator state: the same
            # draws, so the same totals as one pass, with the memory of a batch (a large group, 10**6 rows).
            state = rng.getstate()
            per_batch = max(1, _BATCH_CELLS // len(rows))
            rank = None
            if len(slots) > per_batch:
                # The groups resampler orders the rows by the columns it is given, so batches of other columns
                # would draw other questions: each batch leads with every row's rank in one order (by pattern,
                # then Briers, then question), which fixes the rows' order, hence the questions drawn.
                per_batch = max(1, per_batch - 1)
                order = sorted(range(len(rows)), key=lambda i: (rows[i][0], tuple(rows[i][2]), i))
                rank = array("q", bytes(8 * len(rows)))
                for place, i in enumerate(order):
                    rank[i] = place
                del order
            for at in range(0, len(slots), per_batch):
                batch = slots[at:at + per_batch]
                rng.setstate(state)
                # Each column an array('q') (column): 8 bytes a cell, not a list of int objects (2**20 cells a batch).
                columns = [column(s) for s in batch]
                drawn_totals = bootstrap_column_totals(columns if rank is None else [rank, *columns], n_resamples, rng)
                del columns
                for resample, drawn in zip(totals, drawn_totals):
                    for slot, value in zip(batch, drawn[0 if rank is None else 1:]):
                        resample[slot] += value
        if progress is not None:
            progress(len(rows), total_questions)

    ref = None if reference is None else index[reference]
    part_tallies = [_Tally(models, ref) for _ in part_names]
    overall = _Tally(models, ref)
    subset_tallies = [_Tally(models, ref) for _ in subset_names]
    # Per pattern drawn by its Briers: its first slot, where its models' Brier sums go, the places of its
    # fitted models among them, its size, and the models whose sums of mean Brier are kept per model.
    derived = [(p, at, [brier_slot(p, m) for m in patterns[p][2]], [position[p][m] for m in patterns[p][1]],
                len(patterns[p][1]) * SCALE, len(patterns[p][1]),
                [patterns[p][0] * models + m for m in patterns[p][2]] if per_model[patterns[p][0]] else [])
               for p, at in pattern_at.items()]
    for resample in totals:
        sums = [a + b for a, b in zip(resample, fixed)]
        bbar_sums = [sums[2 * p + 1] / SCALE for p in range(npat)]
        u_sums = [v / SCALE for v in sums[base_u:base_s]]
        s_sums = [v / SCALE for v in sums[base_s:base_x]]
        for p, at, slots_p, fitted_at, over, k, model_at in derived:
            drawn = sums[at:at + len(slots_p)]
            for slot, value in zip(slots_p, drawn):
                sums[slot] += value  # exact: integers
            mean_sum = sum([drawn[i] for i in fitted_at]) / over  # the sum over its drawn questions of their mean Brier
            bbar_sums[p] += mean_sum
            for j in model_at:
                u_sums[j] += mean_sum
                s_sums[j] += mean_sum / k
        fitted, subset_figures = fit([float(sums[2 * p]) for p in range(npat)], bbar_sums,
                     [v / SCALE for v in sums[2 * npat:base_u] + sums[base_x:base_pm]], u_sums, s_sums)
        for tally, (adjusted, brier, _) in zip(part_tallies, fitted):
            tally.add(adjusted, brier)
        if parts is not None:
            overall.add(_mean_of_parts([f[0] for f in fitted], models), _mean_of_parts([f[1] for f in fitted], models))
        for tally, (adjusted, brier, _) in zip(subset_tallies, subset_figures or ()):
            tally.add(adjusted, brier)

    degenerate = None if varied else "no group holds two questions: every resample is the data"
    part_rows = {name: tally.rows(names, point[j][0], point[j][1], point[j][2], confidence, varied, n_resamples)
                 for j, (name, tally) in enumerate(zip(part_names, part_tallies))}
    if parts is None:
        rows_out = part_rows[""]
    else:
        answered_all = [sum(point[j][2][m] for j in range(len(part_names))) for m in range(models)]
        rows_out = overall.rows(names, _mean_of_parts([f[0] for f in point], models), _mean_of_parts([f[1] for f in point], models),
                                answered_all, confidence, varied, n_resamples)
    return QuestionBootstrap(
        models=rows_out,
        questions=total_questions,
        groups=sum(1 for key in rows_by_group if key != ("\0ungrouped",)),
        ungrouped=ungrouped,
        singleton_groups=singletons,
        resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        reference=reference,
        degenerate=degenerate,
        parts=None if parts is None else part_rows,
        subsets=None if point_subsets is None else {
            name: tally.rows(names, *point_subsets[i], confidence, varied, n_resamples)
            for i, (name, tally) in enumerate(zip(subset_names, subset_tallies))},
    )
