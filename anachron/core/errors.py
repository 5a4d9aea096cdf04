"""Re-export of :class:`anachron.errors.AnachronError`, the one exception type."""

from ..errors import AnachronError

__all__ = ["AnachronError"]
