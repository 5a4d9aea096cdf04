"""The Anachron core: dated corpus, retrieval, traces, leakage metrics and statistics.

Standard library only.  Everything here is deterministic and free of I/O
except the explicit loaders (:func:`load_corpus`, :func:`load_traces`).
"""

from .agents import naive_answer, naive_query, naive_trace
from .corpus import Corpus, Entity, Item, Sample, build_corpus, default_corpus_dir, load_corpus
from .errors import AnachronError
from .leakage import RunSummary, SampleResult, score_trace, score_traces, summarise
from .stats import ModeComparison, compare_modes
from .query_intent import DateReference, QueryIntent, date_references, future_references, query_findings
from ..store.memory import MODES, SearchEngine
from .trace import Interaction, ReturnedItem, Trace, iter_traces, load_traces, parse_traces

__all__ = [
    "AnachronError",
    "Corpus",
    "DateReference",
    "Entity",
    "Interaction",
    "Item",
    "MODES",
    "ModeComparison",
    "QueryIntent",
    "ReturnedItem",
    "RunSummary",
    "Sample",
    "SampleResult",
    "SearchEngine",
    "Trace",
    "build_corpus",
    "compare_modes",
    "date_references",
    "default_corpus_dir",
    "future_references",
    "iter_traces",
    "load_corpus",
    "load_traces",
    "naive_answer",
    "naive_query",
    "naive_trace",
    "parse_traces",
    "query_findings",
    "score_trace",
    "score_traces",
    "summarise",
]
