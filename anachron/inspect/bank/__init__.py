"""The Inspect task ``anachron_bank``: any Inspect model against the question bank.

OUTCOME MATERIAL (its scorer reads the bank's answers): :mod:`anachron.inspect`
does not import this package; only the Inspect entry point
(:mod:`anachron.inspect._registry`) does.  See :mod:`.task`.
"""

from anachron.inspect.bank.task import anachron_bank, bank_samples, bank_scorer, verified_bank

__all__ = ["anachron_bank", "bank_samples", "bank_scorer", "verified_bank"]
