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
- :mod:`.judge` -- :func:`judge`: correct / incorrect / refused / leaked /
  ambiguous (:func:`~.judge.assess` gives the reason too);
- :mod:`.cutoffs` -- :class:`ModelCutoff`: overlap (by as_of and by the day
  the answer became public) and badges;
- :mod:`.run` -- the ``respect`` and ``ignore`` oracles, :func:`run_bank`
  (a score card with the four time-gate checks), :class:`Tally`;
- :mod:`.build` -- :func:`build_bank` from dated facts (``facts.jsonl``);
- :mod:`.filings` -- the filings corpus (one dated document per fact);
- :mod:`.agents` -- the oracles as agents through a time lock (the data path);
- :mod:`.model_judge` -- an Inspect model for the ambiguous remainder
  (optional: the ``inspect`` extra).

The 95% interval of the leak rate is
:func:`anachron.core.stats.wilson_interval`.
"""

from anachron.bank.build import build_bank, load_facts
from anachron.bank.cutoffs import ModelCutoff, load_model_cutoffs, parse_model_cutoffs
from anachron.bank.items import (
    FORMAT,
    Bank,
    BankItem,
    bank_version,
    canonical_text,
    default_bank_path,
    load_bank,
    manifest,
    manifest_differences,
    manifest_path_for,
    manifest_version,
    parse_bank,
)
from anachron.bank.judge import JUDGEMENTS, judge
from anachron.bank.run import (
    ORACLES,
    BankRun,
    Check,
    ItemRecord,
    Tally,
    load_responses,
    oracle_response,
    oracle_responses,
    parse_responses,
    run_bank,
)
from anachron.bank.values import STATUSES, UNITS

__all__ = [
    "FORMAT",
    "UNITS",
    "STATUSES",
    "JUDGEMENTS",
    "ORACLES",
    "BankItem",
    "Bank",
    "ModelCutoff",
    "Check",
    "Tally",
    "ItemRecord",
    "BankRun",
    "parse_bank",
    "load_bank",
    "default_bank_path",
    "manifest_path_for",
    "canonical_text",
    "bank_version",
    "manifest",
    "manifest_differences",
    "manifest_version",
    "judge",
    "oracle_response",
    "oracle_responses",
    "parse_responses",
    "load_responses",
    "parse_model_cutoffs",
    "load_model_cutoffs",
    "run_bank",
    "build_bank",
    "load_facts",
]
