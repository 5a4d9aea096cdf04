"""Pre-registered studies: the freeze gate and the frozen outcome analyses.

:mod:`anachron.research.freeze` is the fail-closed freeze gate (docs/freeze.md).
Every other module here is the outcome analysis of one pre-registered study
under research/.  Its entry point runs the study's freeze gate first and
refuses to look at any outcome unless the gate passes.  Standard library only.
"""

__all__: list[str] = []
