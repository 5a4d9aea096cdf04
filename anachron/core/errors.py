"""The one exception type of Anachron.

Every rejection of bad input (a corpus file, a trace, a score file, an
argument, an upstream's answer) raises :class:`AnachronError` or a subclass.
It subclasses :class:`ValueError` so callers that already catch
``ValueError`` keep working.  The message is a single line naming where the
problem is (file and line, or sample id); the CLI prints exactly that line on
stderr and exits with status 2.
"""

__all__ = ["AnachronError"]


class AnachronError(ValueError):
    """Bad input: the message names the file and line (or sample id)."""

    def __init__(self, message: str) -> None:
        # One line, always: users grep stderr and CI logs for it.
        super().__init__(" ".join(str(message).replace("\r", "\n").split("\n")))
