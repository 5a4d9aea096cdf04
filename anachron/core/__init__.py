"""The Anachron core: dated corpus, the search contract, traces, leakage metrics and statistics.

Standard library only, and the bottom layer: nothing here imports the rest
of the package.  Everything is deterministic and free of I/O except the
explicit loaders (:func:`load_corpus_dir`, a corpus directory; :func:`load_traces`).
The engines that search a corpus are :mod:`anachron.store`'s; the keyless
reference agents are :mod:`anachron.core.reference_agent`'s.
"""

import importlib as _importlib

# Each public name -> the module that defines it.  Imported when first used (PEP 562), as the package
# ``anachron`` does: a command that needs one module (``anachron.core.errors``) loads that one, not the
# corpus, the leakage scorer and query intent with it.
_API = {
    "AnachronError": "anachron.core.errors",
    "Corpus": "anachron.core.corpus",
    "DateReference": "anachron.core.query_intent",
    "Engine": "anachron.core.search",
    "Entity": "anachron.core.corpus",
    "Interaction": "anachron.core.trace",
    "Item": "anachron.core.corpus",
    "MODES": "anachron.core.search",
    "ModeComparison": "anachron.core.stats",
    "QueryIntent": "anachron.core.query_intent",
    "ReturnedItem": "anachron.core.trace",
    "RunSummary": "anachron.core.leakage",
    "Sample": "anachron.core.corpus",
    "SampleResult": "anachron.core.leakage",
    "Trace": "anachron.core.trace",
    "build_corpus": "anachron.core.corpus",
    "compare_modes": "anachron.core.stats",
    "date_references": "anachron.core.query_intent",
    "default_corpus_dir": "anachron.core.corpus",
    "future_references": "anachron.core.query_intent",
    "iter_traces": "anachron.core.trace",
    "load_corpus_dir": "anachron.core.corpus",
    "load_traces": "anachron.core.trace",
    "parse_traces": "anachron.core.trace",
    "query_findings": "anachron.core.query_intent",
    "score_trace": "anachron.core.leakage",
    "score_traces": "anachron.core.leakage",
    "summarise": "anachron.core.leakage",
}

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


def __getattr__(name: str) -> object:
    module = _API.get(name)
    if module is None:
        # A submodule read as an attribute (``anachron.core.leakage`` after ``import anachron.core``): the
        # eager package imported it; import it now.
        if name.startswith("_"):
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        try:
            return _importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value  # imported once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
