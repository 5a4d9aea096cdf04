"""Inspect tasks over the corpus samples: ``anachron`` (``-T mode=unrestricted``, the default, or
``enforced``) and ``anachron_enforced``, the same task in the enforced mode.

    inspect eval anachron/inspect/task.py@anachron --model anachron/naive
    inspect eval anachron/anachron -T mode=enforced --model anachron/naive
    inspect eval anachron/anachron_enforced --model openai/gpt-4o-mini -T date_presentation=hidden

Inspect may load this file on its own (``task.py@anachron``), outside the
package: every import here is absolute.

Each sample's user message is its ``input``, followed by a ``Subject:`` line
when the sample names one.  The keyless agents read that line (a model API
sees only messages and tools); it tells a real model nothing the question
does not already ask about.
"""

from __future__ import annotations

from typing import Any, Sequence

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from anachron.core import Corpus
from anachron.core.search import Engine
from anachron.core.errors import AnachronError, did_you_mean
from anachron.inspect.params import checked, one_line
from anachron.inspect.scorer import RETRIEVAL_TOOLS, tclr_scorer
from anachron.inspect.solver import anachron_agent, time_lock
from anachron.inspect.tools import retrieval_tools
from anachron.store import open_corpus
from anachron.store.ranking import DEFAULT_RANKING, check_ranking
from anachron.timelock import DatePresentation

__all__ = ["anachron", "anachron_enforced", "anachron_task", "corpus_samples"]

DEFAULT_BUDGET = 10
# Stops a model that never submits (react() keeps prompting it); --message-limit overrides.
MESSAGE_LIMIT = 60


def _slices(spec: str | Sequence[str] | None, corpus: Corpus) -> set[str] | None:
    if spec is None:
        return None
    names = [part.strip() for part in spec.split(",")] if isinstance(spec, str) else [str(part) for part in spec]
    known = {sample.slice for sample in corpus.samples.values()}
    unknown = sorted(set(names) - known)
    if unknown or not names:
        raise AnachronError(
            f"slice: unknown slice {', '.join(map(repr, unknown)) or repr(spec)}; "
            f"{did_you_mean(unknown[0] if unknown else spec, sorted(known))}the corpus has {', '.join(sorted(known))}"
        )
    return set(names)


def _corpus_and_engine(spec: str | None) -> tuple[Corpus, Engine]:
    """The corpus the scorer reads (samples included) and the engine the tools search.

    A directory is loaded once and searched in memory; an index file or a
    ``postgresql://`` URL is loaded for the scorer and searched in place,
    with the date filter in SQL (:func:`anachron.store.open_corpus`).
    """
    opened = open_corpus(spec)
    return opened.corpus, opened.engine


def corpus_samples(corpus: Corpus, mode: str, slices: set[str] | None = None) -> list[Sample]:
    """The corpus samples as Inspect samples carrying ``as_of``, ``mode`` and ``subject`` metadata."""
    samples = []
    for sample in corpus.samples.values():
        if slices is not None and sample.slice not in slices:
            continue
        subject = sample.extra.get("subject")
        text = sample.input if not isinstance(subject, str) else f"{sample.input}\n\nSubject: {subject.strip()}"
        metadata: dict[str, Any] = {
            "as_of": sample.as_of.isoformat(),
            "mode": mode,
            "slice": sample.slice,
            "subject": subject,
            "retrieval_tools": list(RETRIEVAL_TOOLS),
        }
        samples.append(Sample(id=sample.id, input=text, metadata=metadata))
    return samples


@task
def anachron(
    mode: str = "unrestricted",
    corpus: str | None = None,
    slice: str | Sequence[str] | None = None,
    k: int = 5,
    budget: int | None = DEFAULT_BUDGET,
    date_presentation: str = "visible",
    ranking: str = DEFAULT_RANKING,
) -> Task:
    """The task over the corpus samples for *mode*, with the -T parameters:

    - *mode*: ``unrestricted`` (items published after the as-of date can
      surface) or ``enforced`` (they are filtered out server side);
      ``anachron/anachron_enforced`` is this task with ``-T mode=enforced``;
    - *corpus*: corpus directory, index file (``anachron index``) or ``postgresql://`` URL
      (default: the bundled v0 corpus);
    - *slice*: only samples of this slice (a comma-separated string or a list for several);
    - *k*: search results per query;
    - *budget*: search and fetch calls allowed per sample (``-T budget=null``: no limit);
    - *date_presentation*: ``visible``, ``hidden``, ``shift:+N`` or ``shift:-N`` (days);
    - *ranking*: ``bm25`` (the default) or ``count`` (the earlier ranking, to reproduce runs made
      before BM25), as ``anachron serve --ranking``; recorded with each search.

    Every parameter is checked before anything is built: a bad one is a
    one-line :class:`~anachron.inspect.params.TaskParameterError` naming the
    task (``anachron_enforced`` for the enforced mode, as that task's name).
    """
    task_name = "anachron_enforced" if mode == "enforced" else "anachron"
    checked(task_name, mode=mode, corpus=corpus, slice=slice, k=k, budget=budget, date_presentation=date_presentation,
            ranking=ranking)
    with one_line(task_name):
        check_ranking(ranking)
        data, engine = _corpus_and_engine(corpus)
        presentation = DatePresentation.parse(date_presentation)
        tools = retrieval_tools(engine, mode=mode, k=k, date_presentation=presentation, budget=budget, ranking=ranking)
        samples = corpus_samples(data, mode, _slices(slice, data))
        if not samples:
            raise AnachronError(f"{data.source}: the corpus has no samples to evaluate")
    return Task(
        dataset=MemoryDataset(samples, name=f"anachron-{mode}"),
        setup=time_lock(),
        solver=anachron_agent(tools, budget=budget),
        scorer=tclr_scorer(data),
        message_limit=MESSAGE_LIMIT,
        metadata={"anachron_mode": mode, "date_presentation": str(presentation), "anachron_ranking": ranking},
    )


@task
def anachron_enforced(
    corpus: str | None = None,
    slice: str | Sequence[str] | None = None,
    k: int = 5,
    budget: int | None = DEFAULT_BUDGET,
    date_presentation: str = "visible",
    ranking: str = DEFAULT_RANKING,
) -> Task:
    """:func:`anachron` with ``mode="enforced"``, under its own task name (``inspect eval anachron/anachron_enforced``)."""
    return anachron("enforced", corpus, slice, k, budget, date_presentation, ranking)


anachron_task = anachron  # the builder's name before the task took a mode: anachron_task("enforced", ...)
