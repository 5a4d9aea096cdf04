"""The Anachron core: dated corpus, the search contract, traces, leakage metrics and statistics.

Standard library only, and the bottom layer: nothing here imports the rest
of the package.  Everything is deterministic and free of I/O except the
explicit loaders (:func:`load_corpus_dir`, a corpus directory; :func:`load_traces`).
The engines that search a corpus are :mod:`anachron.store`'s; the keyless
reference agents are :mod:`anachron.core.reference_agent`'s.
"""

from anachron.core.corpus import Corpus, Entity, Item, Sample, build_corpus, default_corpus_dir, load_corpus_dir
from anachron.core.errors import AnachronError
from anachron.core.leakage import RunSummary, SampleResult, score_trace, score_traces, summarise
from anachron.core.stats import ModeComparison, compare_modes
from anachron.core.query_intent import DateReference, QueryIntent, date_references, future_references, query_findings
from anachron.core.search import MODES, Engine
from anachron.core.trace import Interaction, ReturnedItem, Trace, iter_traces, load_traces, parse_traces

__all__ = [
    "AnachronError",
    "Corpus",
    "DateReference",
    "Engine",
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
    "Trace",
    "build_corpus",
    "compare_modes",
    "date_references",
    "default_corpus_dir",
    "future_references",
    "iter_traces",
    "load_corpus_dir",
    "load_traces",
    "parse_traces",
    "query_findings",
    "score_trace",
    "score_traces",
    "summarise",
]
