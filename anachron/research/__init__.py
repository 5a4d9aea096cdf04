"""Frozen study analyses.

Each module here is the outcome analysis of one pre-registered study under
research/.  Its entry point runs the study's freeze gate
(:mod:`anachron.core.freeze`) first and refuses to look at any outcome unless
the gate passes.  Standard library only.
"""

__all__: list[str] = []
