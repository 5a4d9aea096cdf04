"""HTML for people: the ``anachron report`` page and notebook displays (standard library only).

Outside the core: it reads results, it decides nothing.  Plots are inline
SVG drawn here (:mod:`anachron.html.svg`); the page is one self-contained
file that opens offline (:func:`report_html`).
"""

from .report import Run, report_html
from .runs import load_input

__all__ = ["Run", "load_input", "report_html"]
