"""The leak-resistant question bank: items, version id, judgement, runs.

OUTCOME MATERIAL.  This package holds or reads ground truth (answers, dated
facts).  Nothing on the serving path (the corpus, retrieval, traces, the MCP
and Inspect tools) may import it; the quarantine is by package prefix
(``anachron.bank``), and :mod:`anachron.core` does not re-export it.

A bank item asks "on date D, what was field F for instrument S"; D is its
``as_of``.  It is *embargoed* when no value of (S, F, period) was public on D.
The rules every runner must follow are in docs/run-rules.md; this package is
one implementation of them, in modules that depend on each other in this
order only:

- :mod:`.values` -- units, valid values, the match tolerance, rendering;
- :mod:`.items` -- :class:`BankItem`, :func:`parse_bank`, the canonical form,
  :func:`bank_version` (SHA-256) and the :func:`manifest`;
- :mod:`.reading` -- what a free-text answer states: figures with units and
  scales, listing statuses, refusal / hedge / context / revision phrases;
- :mod:`.judging` -- :func:`judge`: correct / incorrect / refused / leaked /
  ambiguous (:func:`~.judging.assess` gives the reason too);
- :mod:`.cutoffs` -- :class:`ModelCutoff`: overlap (by as_of and by the day
  the answer became public) and badges;
- :mod:`.run` -- the ``respect`` and ``ignore`` oracles, :func:`run_bank`
  (a score card with the four time-gate checks), :class:`Tally`;
- :mod:`.build` -- :func:`build_bank` from dated facts (``facts.jsonl``);
- :mod:`.filings` -- the filings corpus (one dated document per fact);
- :mod:`.oracle_agents` -- the oracles as agents through a time lock (the data path);
- :mod:`.crosscheck` -- leaks between questions (``anachron bank crosscheck``),
  over the question sets :mod:`.question_sets` reads;
- :mod:`.model_judge` -- an Inspect model for the ambiguous remainder
  (optional: the ``inspect`` extra).

The 95% interval of the leak rate is
:func:`anachron.core.stats.wilson_interval`.

The names below are imported when first used (PEP 562): importing one
module of the bank (``anachron.bank.cutoffs``, say) loads only that module.
"""
import importlib as _importlib

# Each public name -> the module that defines it.
_API = {
    "FORMAT": "anachron.bank.items",
    "UNITS": "anachron.bank.values",
    "STATUSES": "anachron.bank.values",
    "JUDGEMENTS": "anachron.bank.judging",
    "ORACLES": "anachron.bank.run",
    "BankItem": "anachron.bank.items",
    "Bank": "anachron.bank.items",
    "ModelCutoff": "anachron.bank.cutoffs",
    "Check": "anachron.bank.run",
    "Tally": "anachron.bank.run",
    "ItemRecord": "anachron.bank.run",
    "BankRun": "anachron.bank.run",
    "parse_bank": "anachron.bank.items",
    "load_bank": "anachron.bank.items",
    "default_bank_path": "anachron.bank.items",
    "manifest_path_for": "anachron.bank.items",
    "canonical_text": "anachron.bank.items",
    "bank_version": "anachron.bank.items",
    "manifest": "anachron.bank.items",
    "manifest_differences": "anachron.bank.items",
    "manifest_version": "anachron.bank.items",
    "judge": "anachron.bank.judging",
    "oracle_response": "anachron.bank.run",
    "oracle_responses": "anachron.bank.run",
    "parse_responses": "anachron.bank.run",
    "load_responses": "anachron.bank.run",
    "parse_model_cutoffs": "anachron.bank.cutoffs",
    "load_model_cutoffs": "anachron.bank.cutoffs",
    "run_bank": "anachron.bank.run",
    "build_bank": "anachron.bank.build",
    "load_facts": "anachron.bank.build",
}

__all__ = list(_API)


def __getattr__(name: str) -> object:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'anachron.bank' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value  # imported once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
