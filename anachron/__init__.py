"""Anachron: measure look-ahead leakage in LLM agents.

The public API, what a notebook needs (README.md, "Public API")::

    import anachron
    corpus = anachron.load_corpus()  # the bundled v0; or a directory, an index file, a postgresql:// URL
    u, e = (anachron.score_traces(anachron.load_traces(f"anachron-demo/{mode}.jsonl", corpus), corpus)
            for mode in ("unrestricted", "enforced"))
    anachron.summarise(e)                               # a RunSummary (a table in a notebook)
    anachron.compare_modes({r.sample_id: r.tclr for r in u}, {r.sample_id: r.tclr for r in e})
    anachron.Results(e).to_dataframe()                  # a pandas.DataFrame (pandas imported only here)
    anachron.score_logs("codex", ["rollout.jsonl"], as_of="2023-01-01")   # your harness's logs: a Results
    anachron.import_logs("codex", ["rollout.jsonl"], anachron.ImportOptions(as_of=...))  # their trace records

Each name is imported when first used (PEP 562), so ``import anachron``
loads nothing: no optional extra, not even the core.  The metrics live in
:mod:`anachron.core` (standard library only); the corpus backends in
:mod:`anachron.store`; the adapters (:mod:`anachron.inspect`,
:mod:`anachron.mcp`) are imported only when used.
"""

import importlib as _importlib

__version__ = "0.1.0"

# Each public name -> the module that defines it ("module:name" when it is known there by another name).
_API = {
    "AnachronError": "anachron.core.errors",
    "ImportOptions": "anachron.importers:Options",
    "Results": "anachron.output.results",
    "compare_modes": "anachron.core.stats",
    "import_logs": "anachron.importers",
    "load_corpus": "anachron.store",
    "load_traces": "anachron.core.trace",
    "score_logs": "anachron.output.results",
    "score_traces": "anachron.core.leakage",
    "summarise": "anachron.core.leakage",
}

__all__ = ["__version__", *sorted(_API)]


def __getattr__(name: str) -> object:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'anachron' has no attribute {name!r}")
    module, _, attribute = module.partition(":")
    value = getattr(_importlib.import_module(module), attribute or name)
    # What the public names return shows as tables in a notebook once the output side has
    # registered its renderers (anachron.core.display); the core alone shows them by repr.
    _importlib.import_module("anachron.output.html")
    globals()[name] = value  # imported once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
