"""HTML for people: the ``anachron report`` page and notebook displays (standard library only).

Outside the core: it reads results, it decides nothing.  Plots are inline
SVG drawn here (:mod:`anachron.output.html.svg`); the page is one self-contained
file that opens offline (:func:`report_html`).  Reading the report's inputs
(score JSON, traces, Inspect logs) is the command's: :mod:`anachron.cli.report_inputs`.

Importing it registers the notebook displays of the core's results
(:mod:`anachron.core.display`): a :class:`~anachron.core.SampleResult` shows
as :func:`~anachron.output.html.tables.sample_card`, a
:class:`~anachron.core.RunSummary` as
:func:`~anachron.output.html.tables.summary_table`.
"""

from anachron.core.display import register_html
from anachron.core.leakage import RunSummary, SampleResult
from anachron.core.stats import ModeComparison
from anachron.output.html.page import Run, report_figures, report_html
from anachron.output.html.tables import bank_run_card, comparison_card, sample_card, summary_table

register_html(SampleResult, sample_card)
register_html(RunSummary, summary_table)
register_html(ModeComparison, comparison_card)
register_html("anachron.bank.run.BankRun", bank_run_card)  # by name: this side never imports the bank

__all__ = ["Run", "report_figures", "report_html"]
