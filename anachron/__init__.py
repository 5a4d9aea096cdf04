"""Anachron: measure look-ahead leakage in LLM agents.

The public API, what a notebook needs (README.md, "Public API")::

    import anachron
    corpus = anachron.load_corpus()  # the bundled v0; or a directory, an index file, a postgresql:// URL
    u, e = (anachron.score_traces(anachron.load_traces(f"anachron-demo/{mode}.jsonl", corpus), corpus)
            for mode in ("unrestricted", "enforced"))
    anachron.summarise(e)                               # a RunSummary (a table in a notebook)
    anachron.compare_modes({r.sample_id: r.tclr for r in u}, {r.sample_id: r.tclr for r in e})
    anachron.Results(e).to_records()                    # rows for pandas.DataFrame

Each name is imported when first used (PEP 562), so ``import anachron``
loads nothing: no optional extra, not even the core.  The metrics live in
:mod:`anachron.core` (standard library only); the corpus backends in
:mod:`anachron.store`; the adapters (:mod:`anachron.inspect`,
:mod:`anachron.mcp`) are imported only when used.
"""

import importlib as _importlib

__version__ = "0.1.0"

# Each public name -> the module that defines it.
_API = {
    "AnachronError": "anachron.core.errors",
    "Results": "anachron.output.results",
    "compare_modes": "anachron.core.stats",
    "load_corpus": "anachron.store",
    "load_traces": "anachron.core.trace",
    "score_traces": "anachron.core.leakage",
    "summarise": "anachron.core.leakage",
}

__all__ = ["__version__", *sorted(_API)]


def __getattr__(name: str) -> object:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'anachron' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    # What the public names return shows as tables in a notebook once the output side has
    # registered its renderers (anachron.core.display); the core alone shows them by repr.
    _importlib.import_module("anachron.output.html")
    globals()[name] = value  # imported once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
