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

**The refit.**  Eliminating the question effects leaves an M x M system in
the model effects (M models), whose coefficients are sums over the drawn
questions of quantities fixed per question: the count of the questions of
each *pattern* (the set of models that answered it), the sum of their mean
Brier, and each model's Brier sum.  So one resample is a weighted sum over
the distinct questions, made in C by the block resampler of
:mod:`anachron.core.stats.bootstrap` on these columns in fixed point
(``round(x * 2**27)``: each drawn figure is within 2**-28 of its float, far
below the bootstrap's own noise), then an M x M solve.  The point estimates
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
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence

from anachron.core.errors import AnachronError
from anachron.core.stats.bootstrap import bootstrap_column_totals, percentile
from anachron.forecasts.model_score import Interval

__all__ = ["ModelResamples", "QuestionBootstrap", "brier_index", "question_bootstrap"]

SCALE = 1 << 27  # fixed point of the resampled columns: 28 bits, four 7-bit limbs a column
_BATCH_CELLS = 1 << 21  # questions x columns resampled at once: bounds the memory of a large group


def brier_index(adjusted: float | None) -> float | None:
    """ForecastBench's Brier Index ``(1 - sqrt(adjusted)) * 100``; ``None`` for ``None`` or a negative figure.

    >>> brier_index(0.25), brier_index(0.0), brier_index(-0.01)
    (50.0, 100.0, None)
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
    extra: Mapping[str, Any] = field(default_factory=dict)

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
    patterns: Sequence[tuple[int, ...]], counts: Sequence[float], bbar_sums: Sequence[float], brier_sums: Sequence[float], models: int,
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
    where its questions' effects average 0.
    """
    n = [0.0] * models
    weight = [[0.0] * models for _ in range(models)]
    u = [0.0] * models  # sum over its drawn questions of their mean Brier
    share = [0.0] * models  # sum of count / |p|: its share of the questions
    share_bbar = [0.0] * models
    for pattern, count, total in zip(patterns, counts, bbar_sums):
        if not count:
            continue
        k = len(pattern)
        for m in pattern:
            n[m] += count
            u[m] += total
            share[m] += count / k
            share_bbar[m] += total / k
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


def question_bootstrap(
    observations: Iterable[tuple[str, str, float]],
    *,
    groups: Mapping[str, Hashable | None] | None = None,
    reference: str | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
    progress: Callable[[int, int], None] | None = None,
) -> QuestionBootstrap:
    """The grouped question bootstrap of a panel of ``(question, model, brier)`` (module docstring).

    *groups* maps a question to its group (any hashable: ForecastBench's
    ``(due date, source)``); a question absent from it, or mapped to
    ``None``, is resampled among the ungrouped questions.  *progress*, if
    given, is told ``(questions, all questions)`` as each group's resamples
    are drawn.  Same panel, groups and *seed*: the same figures, to the bit.
    """
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise AnachronError(f"question bootstrap: resamples must be a whole number of at least 1, got {n_resamples!r}")
    if not 0 < confidence < 1:
        raise AnachronError(f"question bootstrap: confidence must lie strictly between 0 and 1, got {confidence!r}")
    by_question: dict[str, dict[str, float]] = {}
    for question, model, value in observations:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise AnachronError(f"question bootstrap: model {model!r}, question {question!r}: Brier {value!r} is not in [0, 1]")
        row = by_question.setdefault(question, {})
        if model in row:
            raise AnachronError(f"model {model!r} scored question {question!r} twice")
        row[model] = float(value)
    if not by_question:
        raise AnachronError("question bootstrap: no observation")
    names = sorted({m for row in by_question.values() for m in row})
    if reference is not None and reference not in names:
        raise AnachronError(f"question bootstrap: reference {reference!r} is not a model of the panel (models: {', '.join(names)})")
    index = {m: i for i, m in enumerate(names)}
    models = len(names)

    # Per question: its pattern (the models that answered it), its mean Brier, its Briers.
    pattern_of: dict[tuple[int, ...], int] = {}
    rows_by_group: dict[Hashable, list[tuple[int, float, tuple[tuple[int, float], ...]]]] = {}
    ungrouped = 0
    total_questions = len(by_question)
    for question in sorted(by_question):
        row = by_question.pop(question)  # freed as it is read: the rows below replace it
        pattern = tuple(sorted(index[m] for m in row))
        p = pattern_of.setdefault(pattern, len(pattern_of))
        bbar = math.fsum(row.values()) / len(row)
        key = None if groups is None else groups.get(question)
        if key is None:
            ungrouped += 1
            key = ("\0ungrouped",)  # one pool; a tuple no caller's group key equals by chance
        rows_by_group.setdefault(key, []).append((p, bbar, tuple((index[m], v) for m, v in sorted(row.items()))))
    patterns = sorted(pattern_of, key=pattern_of.__getitem__)

    # The point: the fit on the data, in floating point.
    counts = [0.0] * len(patterns)
    bbar_sums: list[list[float]] = [[] for _ in patterns]
    brier_lists: list[list[float]] = [[] for _ in names]
    for rows in rows_by_group.values():
        for p, bbar, values in rows:
            counts[p] += 1
            bbar_sums[p].append(bbar)
            for m, v in values:
                brier_lists[m].append(v)
    point_adjusted = _refit(patterns, counts, [math.fsum(s) for s in bbar_sums], [math.fsum(b) for b in brier_lists], models)
    point_brier = [math.fsum(b) / len(b) for b in brier_lists]

    # The resamples: per group, the column totals of its drawn questions (fixed point), summed over the groups.
    group_keys = sorted(rows_by_group, key=repr)  # a fixed order of the groups: the random stream is consumed in it
    varied = any(len(rows) > 1 for rows in rows_by_group.values())
    singletons = sum(1 for key, rows in rows_by_group.items() if len(rows) == 1 and key != ("\0ungrouped",))
    rng = random.Random(seed)
    npat = len(patterns)
    width = npat * 2 + models
    totals = [[0] * width for _ in range(n_resamples)] if varied else []
    fixed = [0] * width  # the groups of one question: the same in every resample
    for key in group_keys:
        rows = rows_by_group[key]
        present_p = sorted({p for p, _, _ in rows})
        present_m = sorted({m for _, _, values in rows for m, _ in values})
        brier_of = [dict(values) for _, _, values in rows]

        def column(slot: int, rows=rows, brier_of=brier_of) -> list[int]:
            if slot >= 2 * npat:
                m = slot - 2 * npat
                return [round(b.get(m, 0.0) * SCALE) for b in brier_of]
            p, bbar_column = divmod(slot, 2)
            if bbar_column:
                return [round(bbar * SCALE) if q == p else 0 for q, bbar, _ in rows]
            return [int(q == p) for q, _, _ in rows]

        slots = [2 * p for p in present_p] + [2 * p + 1 for p in present_p] + [2 * npat + m for m in present_m]
        if len(rows) == 1 or not varied:
            for slot in slots:
                fixed[slot] += sum(column(slot))
        else:
            # Columns are resampled a batch at a time, each batch from the same generator state: the same
            # draws, so the same totals as one pass, with the memory of a batch (a large group, 10**6 rows).
            state = rng.getstate()
            per_batch = max(1, _BATCH_CELLS // len(rows))
            for at in range(0, len(slots), per_batch):
                batch = slots[at:at + per_batch]
                rng.setstate(state)
                for resample, drawn in zip(totals, bootstrap_column_totals([column(s) for s in batch], n_resamples, rng)):
                    for slot, value in zip(batch, drawn):
                        resample[slot] += value
        if progress is not None:
            progress(len(rows), total_questions)

    adjusted_draws: list[list[float]] = [[] for _ in names]
    index_draws: list[list[float]] = [[] for _ in names]
    brier_draws: list[list[float]] = [[] for _ in names]
    undefined = [0] * models
    first = [0.0] * models
    at_least_as_good = [0] * models
    both_defined = [0] * models
    ref = None if reference is None else index[reference]
    for resample in totals:
        sums = [a + b for a, b in zip(resample, fixed)]
        pattern_counts = [float(sums[2 * p]) for p in range(npat)]
        fitted = _refit(patterns, pattern_counts, [sums[2 * p + 1] / SCALE for p in range(npat)],
                        [sums[2 * npat + m] / SCALE for m in range(models)], models)
        answered = [0] * models
        for pattern, count in zip(patterns, pattern_counts):
            for m in pattern:
                answered[m] += int(count)
        best = None
        for m, value in enumerate(fitted):
            if value is None:
                undefined[m] += 1
                continue
            adjusted_draws[m].append(value)
            brier_draws[m].append(sums[2 * npat + m] / SCALE / answered[m])
            bi = brier_index(value)
            if bi is not None:
                index_draws[m].append(bi)
            if best is None or value < best:
                best = value
        if best is not None:
            winners = [m for m, value in enumerate(fitted) if value == best]
            for m in winners:
                first[m] += 1 / len(winners)
        if ref is not None and fitted[ref] is not None:
            for m, value in enumerate(fitted):
                if value is not None:
                    both_defined[m] += 1
                    at_least_as_good[m] += value <= fitted[ref]

    degenerate = None if varied else "no group holds two questions: every resample is the data"
    out: dict[str, ModelResamples] = {}
    for m, name in enumerate(names):
        answered_n = len(brier_lists[m])
        out[name] = ModelResamples(
            model=name,
            questions=answered_n,
            brier=_interval(point_brier[m], brier_draws[m], confidence, answered_n, varied),
            adjusted=_interval(point_adjusted[m], adjusted_draws[m], confidence, answered_n, varied),
            brier_index=_interval(brier_index(point_adjusted[m]), index_draws[m], confidence, answered_n, varied),
            p_value=(at_least_as_good[m] / both_defined[m] if ref is not None and varied and both_defined[m] else None),
            rank_first=first[m] / n_resamples if varied else None,
            undefined_resamples=undefined[m],
        )
    return QuestionBootstrap(
        models=out,
        questions=total_questions,
        groups=sum(1 for key in rows_by_group if key != ("\0ungrouped",)),
        ungrouped=ungrouped,
        singleton_groups=singletons,
        resamples=n_resamples,
        seed=seed,
        confidence=confidence,
        reference=reference,
        degenerate=degenerate,
    )
