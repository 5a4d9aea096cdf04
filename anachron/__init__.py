"""Anachron: measure look-ahead leakage in LLM agents.

The metrics live in :mod:`anachron.core` (standard library only).  The
optional adapters (:mod:`anachron.inspect`, :mod:`anachron.mcp`) are imported
only when used.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
