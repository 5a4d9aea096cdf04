"""Inspect task ``anachron_bank``: any Inspect model against the question bank.

    inspect eval anachron/anachron_bank --model openai/gpt-4o-mini
    inspect eval anachron/inspect/bank/task.py@anachron_bank --model anachron/naive -T mode=unrestricted

OUTCOME MATERIAL: the scorer reads the bank's answers.  The model sees only
each item's question, the adapter's system prompt with the item's as-of
date, and the adapter's time-locked ``search``/``fetch`` over the corpus
(``enforced`` by default).  Nothing the tools serve comes from the bank or
the facts; ``anachron.inspect`` does not import this package (only the
Inspect entry point does), so the serving path never loads it.

The scorer judges the submitted answer with :func:`anachron.bank.judge`
and the metrics tally the judgements with :class:`anachron.bank.Tally`:
accuracy over answerable items, leak rate over embargoed items.  The task
refuses a bank whose version does not match its manifest (an uncitable run).
For the full score card with both oracles and the four checks, write the
answers as RESPONSES.jsonl (``{"item_id", "response"}`` per sample) and run
``anachron bank run --system RESPONSES.jsonl``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState

from anachron.bank import Bank, Tally, default_bank_path, judge, load_bank, manifest_path_for, manifest_version
from anachron.core import MODES, SearchEngine, load_corpus
from anachron.errors import AnachronError
from anachron.io import read_json
from anachron.inspect.params import checked, one_line
from anachron.inspect.scorer import RETRIEVAL_TOOLS
from anachron.inspect.solver import anachron_agent, time_lock
from anachron.inspect.task import DEFAULT_BUDGET, MESSAGE_LIMIT
from anachron.inspect.tools import retrieval_tools

__all__ = ["anachron_bank", "bank_samples", "bank_scorer", "verified_bank"]

_KEY = "anachron_bank"


def verified_bank(bank: str | None = None, manifest: str | None = None) -> Bank:
    """The bank at *bank* (default: bundled), refused unless its version matches *manifest*."""
    path = Path(bank) if bank is not None else default_bank_path()
    manifest_path = Path(manifest) if manifest is not None else manifest_path_for(path)
    loaded = load_bank(path)
    expected = manifest_version(read_json(manifest_path), str(manifest_path))
    if loaded.version != expected:
        raise AnachronError(
            f"{path}: version {loaded.version} does not match {manifest_path} ({expected}): a run on it would not be citable"
        )
    return loaded


def bank_samples(bank: Bank, mode: str) -> list[Sample]:
    """One Inspect sample per bank item: its question, locked to its as_of.

    The metadata carries what the time lock and the trace export need
    (``as_of``, ``mode``, ``retrieval_tools``) and nothing of the answer.
    """
    return [
        Sample(
            id=item.id,
            input=item.question,
            metadata={"as_of": item.as_of.isoformat(), "mode": mode, "retrieval_tools": list(RETRIEVAL_TOOLS)},
        )
        for item in bank.items.values()
    ]


def _tally(scores: list[SampleScore]) -> Tally:
    rows = [
        (s.score.metadata[_KEY]["embargoed"], s.score.metadata[_KEY]["judgement"])
        for s in scores
        if s.score.metadata and _KEY in s.score.metadata
    ]
    return Tally.count(rows)


def _rate(value: float | None) -> float:
    return float("nan") if value is None else value


@metric(scores="unreduced")
def bank_accuracy() -> Metric:
    """Correct answers over answerable items."""

    def compute(scores: list[SampleScore]) -> Value:
        return _rate(_tally(scores).accuracy)

    return compute


@metric(scores="unreduced")
def bank_leak_rate() -> Metric:
    """Embargoed items answered substantively, over embargoed items."""

    def compute(scores: list[SampleScore]) -> Value:
        return _rate(_tally(scores).leak_rate)

    return compute


@metric(scores="unreduced")
def bank_leaked_answerable() -> Metric:
    """Answerable items answered with a value published only after their as_of."""

    def compute(scores: list[SampleScore]) -> Value:
        return _tally(scores).leaked_answerable

    return compute


@scorer(metrics=[bank_accuracy(), bank_leak_rate(), bank_leaked_answerable()])
def bank_scorer(bank: Bank) -> Scorer:
    """Judge the submitted answer: value 1 when correct, else 0; the judgement in metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        item = bank.items.get(str(state.sample_id))
        if item is None:
            raise AnachronError(f"sample {state.sample_id}: not an item of bank {bank.version}")
        response: Any = state.output.completion if state.output else ""
        judgement = judge(item, response, f"sample {state.sample_id}")
        return Score(
            value=1.0 if judgement == "correct" else 0.0,
            answer=response,
            explanation=f"{judgement} (as of {item.as_of}, {'embargoed' if item.embargoed else 'answerable'})",
            metadata={_KEY: {"item_id": item.id, "as_of": item.as_of.isoformat(), "embargoed": item.embargoed,
                             "response": response, "judgement": judgement, "bank_version": bank.version}},
        )

    return score


@task
def anachron_bank(
    bank: str | None = None,
    manifest: str | None = None,
    corpus: str | None = None,
    mode: str = "enforced",
    k: int = 5,
    budget: int | None = DEFAULT_BUDGET,
) -> Task:
    """The question bank, each item asked as of its date with time-locked retrieval.

    Args:
      bank: Bank file (default: the bundled v0 bank).
      manifest: Its manifest (default: beside the bank); a mismatch refuses the run.
      corpus: Corpus directory the tools search (default: the bundled v0 corpus).
      mode: Retrieval mode: enforced (date filter on) or unrestricted.
      k: Search results per query.
      budget: Search and fetch calls allowed per sample (``-T budget=null``: no limit).
    """
    checked("anachron_bank", bank=bank, manifest=manifest, corpus=corpus, mode=mode, k=k, budget=budget)
    with one_line("anachron_bank"):
        if mode not in MODES:
            raise AnachronError(f"-T mode: expected one of {', '.join(MODES)}, got {mode!r}")
        questions = verified_bank(bank, manifest)
        tools = retrieval_tools(SearchEngine(load_corpus(corpus)), mode=mode, k=k, budget=budget)
    return Task(
        dataset=MemoryDataset(bank_samples(questions, mode), name="anachron-bank"),
        setup=time_lock(),
        solver=anachron_agent(tools, budget=budget),
        scorer=bank_scorer(questions),
        message_limit=MESSAGE_LIMIT,
        metadata={"anachron_mode": mode, "bank_version": questions.version},
    )
