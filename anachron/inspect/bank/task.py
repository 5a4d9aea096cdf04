"""Inspect task ``anachron_bank``: any Inspect model against the question bank.

    inspect eval anachron/anachron_bank --model openai/gpt-4o-mini
    inspect eval anachron/inspect/bank/task.py@anachron_bank --model anachron/naive -T mode=unrestricted

OUTCOME MATERIAL: the scorer reads the bank's answers.  The model sees only
each item's question, the adapter's system prompt with the item's as-of
date, and the adapter's time-locked ``search``/``fetch`` over the filings
corpus (``corpus/v0/filings``: one dated document per fact; ``enforced`` by
default).  The tools serve only dated documents, each withheld until its
day; ``anachron.inspect`` does not import this package (only the Inspect
entry point does), so the serving path never loads it.

The scorer judges the submitted answer with :func:`anachron.bank.judge`
and the metrics tally the judgements with :class:`anachron.bank.Tally`:
accuracy over answerable items, leak rate over embargoed items.  On every
sample it also runs the two oracles as agents through the same tools
(:mod:`anachron.bank.oracle_agents`: ``respect`` through the system's lock,
``ignore`` through the same backend with the date filter off), each with its
own journal so the system's call log is untouched, and the metrics report
the four time-gate checks over the samples run (``valid`` is 1 only when all
pass).  The task refuses a bank whose version does not match its manifest.
For the full score card, write the answers as RESPONSES.jsonl
(``{"item_id", "response"}`` per sample) and run ``anachron bank run
--system RESPONSES.jsonl --data corpus/v0/filings``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState
import anyio.to_thread

from anachron.bank import Bank, Tally, default_bank_path, judge, load_bank, manifest_path_for, manifest_version
from anachron.bank.judging import assess
from anachron.bank.oracle_agents import ORACLE_AGENTS, oracle_agent, search_query, timelock_factory
from anachron.bank.filings import default_filings_dir
from anachron.bank.run import time_gate_checks
from anachron.core import MODES
from anachron.core.errors import AnachronError, did_you_mean
from anachron.core.jsonio import read_json
from anachron.inspect.params import checked, one_line
from anachron.store.ranking import DEFAULT_RANKING, check_ranking
from anachron.inspect.scorer import RETRIEVAL_TOOLS
from anachron.inspect.solver import anachron_agent, time_lock
from anachron.inspect.task import DEFAULT_BUDGET, MESSAGE_LIMIT
from anachron.inspect.tools import retrieval_tools, tool_lock
from anachron.store import open_corpus

__all__ = ["anachron_bank", "bank_samples", "bank_scorer", "verified_bank"]

_KEY = "anachron_bank"
BUNDLED_FILINGS = "bundled:filings"  # the log's name of corpus/v0/filings (anachron.inspect.export)


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

    The user message is the question followed by a ``Subject:`` line, as in
    the corpus tasks: the instrument, field and period the question names
    (:func:`anachron.bank.oracle_agents.search_query`, the oracles' search too),
    which the keyless agents search for; it tells a model nothing the
    question does not.  The metadata carries what the time lock and the
    trace export need (``as_of``, ``mode``, ``retrieval_tools``) and nothing
    of the answer.
    """
    return [
        Sample(
            id=item.id,
            input=f"{item.question}\n\nSubject: {search_query(item)}",
            metadata={"as_of": item.as_of.isoformat(), "mode": mode, "retrieval_tools": list(RETRIEVAL_TOOLS)},
        )
        for item in bank.items.values()
    ]


def _tally(scores: list[SampleScore], oracle: str | None = None) -> Tally:
    rows = []
    for s in scores:
        record = (s.score.metadata or {}).get(_KEY)
        if record is not None:
            judgement = record["judgement"] if oracle is None else record["oracles"][oracle]["judgement"]
            rows.append((record["embargoed"], judgement))
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
def bank_leak_rate_upper() -> Metric:
    """The leak rate if every undecided embargoed response leaked: (leaked + ambiguous embargoed) / embargoed.

    With :func:`bank_leak_rate` (the lower bound) it brackets the leak rate; the two are equal when
    the rules decided every embargoed response.
    """

    def compute(scores: list[SampleScore]) -> Value:
        return _rate(_tally(scores).leak_rate_upper)

    return compute


@metric(scores="unreduced")
def bank_leaked_answerable() -> Metric:
    """Answerable items answered with a value published only after their as_of."""

    def compute(scores: list[SampleScore]) -> Value:
        return _tally(scores).leaked_answerable

    return compute


@metric(scores="unreduced")
def bank_ambiguous() -> Metric:
    """Responses the rules could not decide (counted, never guessed)."""

    def compute(scores: list[SampleScore]) -> Value:
        return _tally(scores).ambiguous

    return compute


def _checks(scores: list[SampleScore]):
    versions = {s.score.metadata[_KEY]["bank_version"] for s in scores if s.score.metadata and _KEY in s.score.metadata}
    version = versions.pop() if len(versions) == 1 else "mixed"
    # Check 1 passed when the task was built (verified_bank); the oracles' checks are over the samples run.
    return time_gate_checks(version, version, _tally(scores, "respect"), _tally(scores, "ignore"))


@metric(scores="unreduced")
def oracle_respect_leak_rate() -> Metric:
    """The respect oracle through the system's tools: embargoed items leaked (0 on a sound data path)."""

    def compute(scores: list[SampleScore]) -> Value:
        return _rate(_tally(scores, "respect").leak_rate)

    return compute


@metric(scores="unreduced")
def oracle_ignore_leak_rate() -> Metric:
    """The ignore oracle through the same backend, date filter off: embargoed items leaked (>= 0.95 needed)."""

    def compute(scores: list[SampleScore]) -> Value:
        return _rate(_tally(scores, "ignore").leak_rate)

    return compute


@metric(scores="unreduced")
def valid() -> Metric:
    """1 when the four time-gate checks pass over the samples run, else 0 (docs/run-rules.md)."""

    def compute(scores: list[SampleScore]) -> Value:
        return int(all(check.passed for check in _checks(scores)))

    return compute


def _oracle_locks(tools: list[Any]):
    lock = tool_lock(tools[0])
    if lock is None:
        raise AnachronError("the bank scorer needs the tools of anachron.inspect.tools.retrieval_tools")
    return timelock_factory(lock.backend, mode=lock.mode, k=lock.k, presentation=lock.presentation,
                            limits=lock.limits, allow_undated=lock.allow_undated)


@scorer(metrics=[bank_accuracy(), bank_leak_rate(), bank_leak_rate_upper(), bank_leaked_answerable(), bank_ambiguous(),
                 oracle_respect_leak_rate(), oracle_ignore_leak_rate(), valid()])
def bank_scorer(bank: Bank, tools: list[Any]) -> Scorer:
    """Judge the submitted answer (value 1 when correct, else 0) and run both oracles through *tools*."""
    locks = _oracle_locks(tools)

    async def score(state: TaskState, target: Target) -> Score:
        item = bank.items.get(str(state.sample_id))
        if item is None:
            raise AnachronError(f"sample {state.sample_id}: not an item of bank {bank.version}")
        response: Any = state.output.completion if state.output else ""
        assessment = assess(item, response, f"sample {state.sample_id}")
        judgement = assessment.judgement
        oracles = {}
        for oracle, mode in zip(ORACLE_AGENTS, ("system", "unrestricted")):
            # The lock may block (an upstream's HTTP): off the event loop, as the tools do.
            answer = await anyio.to_thread.run_sync(oracle_agent, item, oracle, locks(item, mode))
            oracles[oracle] = {"response": answer, "judgement": judge(item, answer, f"sample {state.sample_id}: oracle {oracle}")}
        return Score(
            value=1.0 if judgement == "correct" else 0.0,
            answer=response,
            explanation=f"{judgement}: {assessment.reason} (as of {item.as_of}, {'embargoed' if item.embargoed else 'answerable'})",
            metadata={_KEY: {"item_id": item.id, "as_of": item.as_of.isoformat(), "embargoed": item.embargoed,
                             "response": response, "judgement": judgement, "reason": assessment.reason,
                             "bank_version": bank.version,
                             "oracles": oracles}},
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
    ranking: str = DEFAULT_RANKING,
) -> Task:
    """The question bank, each item asked as of its date with time-locked retrieval.

    Args:
      bank: Bank file (default: the bundled v0 bank).
      manifest: Its manifest (default: beside the bank); a mismatch refuses the run.
      corpus: Corpus directory, index file or postgresql:// URL the tools search (default: the bundled filings corpus, corpus/v0/filings).
      mode: Retrieval mode: enforced (date filter on) or unrestricted.
      k: Search results per query.
      budget: Search and fetch calls allowed per sample (``-T budget=null``: no limit).
      ranking: bm25 (the default) or count (the earlier ranking), as ``anachron serve --ranking``.
    """
    checked("anachron_bank", bank=bank, manifest=manifest, corpus=corpus, mode=mode, k=k, budget=budget, ranking=ranking)
    with one_line("anachron_bank"):
        if mode not in MODES:
            raise AnachronError(f"-T mode: {did_you_mean(mode, MODES)}expected one of {', '.join(MODES)}, got {mode!r}")
        check_ranking(ranking)
        questions = verified_bank(bank, manifest)
        engine = open_corpus(corpus if corpus is not None else default_filings_dir(), samples=False).engine
        tools = retrieval_tools(engine, mode=mode, k=k, budget=budget, ranking=ranking)
    return Task(
        dataset=MemoryDataset(bank_samples(questions, mode), name="anachron-bank"),
        setup=time_lock(),
        solver=anachron_agent(tools, budget=budget),
        scorer=bank_scorer(questions, tools),
        message_limit=MESSAGE_LIMIT,
        # The corpus the tools served, so `anachron export` and `report` score the log against it:
        # the -T corpus as given, or the bundled filings corpus by name (a path would not travel).
        metadata={"anachron_mode": mode, "bank_version": questions.version, "anachron_ranking": ranking,
                  "anachron_corpus": corpus if corpus is not None else BUNDLED_FILINGS},
    )
