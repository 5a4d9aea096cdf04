"""The one exception type of Anachron.

Every rejection of bad input (a corpus file, a trace, a score file, an
argument, an upstream's answer) raises :class:`AnachronError` or a subclass.
It subclasses :class:`ValueError` so callers that already catch
``ValueError`` keep working.  The message is a single line naming where the
problem is (file and line, or sample id); the CLI prints exactly that line on
stderr and exits with status 2.

Besides the message, :attr:`AnachronError.where` says where as data, for a
program that handles the error: a :class:`Where` of the file, the line
(1-based) and the sample id, each ``None`` when the raise site did not know
it.  The message stays the one source of what is shown: ``str(err)`` is the
message, whatever ``where`` holds.

>>> err = AnachronError("traces.jsonl:3: missing field 'as_of'", file="traces.jsonl", line=3)
>>> str(err), err.where.line, err.where.sample_id
("traces.jsonl:3: missing field 'as_of'", 3, None)
>>> err.locate(sample_id="s1", line=9).where  # a caller fills in what it knows; set fields stay
Where(file='traces.jsonl', line=3, sample_id='s1')
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, replace

__all__ = ["AnachronError", "Where", "closest", "describe", "did_you_mean"]


@dataclass(frozen=True)
class Where:
    """Where bad input was found: its file, line (1-based) and sample id, each ``None`` when unknown."""

    file: str | None = None
    line: int | None = None
    sample_id: str | None = None


class AnachronError(ValueError):
    """Bad input: the message names the file and line (or sample id); :attr:`where` holds them as data."""

    def __init__(
        self,
        message: str,
        *,
        file: str | os.PathLike[str] | None = None,
        line: int | None = None,
        sample_id: str | None = None,
    ) -> None:
        # One line, always: users grep stderr and CI logs for it.
        self.message = " ".join(str(message).replace("\r", "\n").split("\n"))  # what str(err) gives
        super().__init__(self.message)
        self.where = Where(None if file is None else os.fspath(file), line, sample_id)

    def locate(
        self, *, file: str | os.PathLike[str] | None = None, line: int | None = None, sample_id: str | None = None
    ) -> "AnachronError":
        """Fill the fields of :attr:`where` still unknown (those set where the error was raised win); return ``self``.

        For a caller that knows more than the raise site did (the record
        being validated, the sample it belongs to).  The message is unchanged.
        """
        where = self.where
        self.where = replace(
            where,
            file=where.file if where.file is not None or file is None else os.fspath(file),
            line=where.line if where.line is not None else line,
            sample_id=where.sample_id if where.sample_id is not None else sample_id,
        )
        return self


_KINDS = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}


def describe(value: object) -> str:
    """A JSON value as an error message shows it: ``null``, ``true``,
    ``the string 'x'`` (cut at 40 characters), ``NaN``, ``3``, ``an array``.

    >>> describe(None), describe(True), describe("x"), describe([1])
    ('null', 'true', "the string 'x'", 'an array')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return f"the string {text!r}"
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, numbers.Real):
        text = repr(float(value)) if isinstance(value, float) else str(value)
        return text if len(text) <= 40 else f"{text[:20]}...({len(text)} digits)"
    return _KINDS.get(type(value), f"a {type(value).__name__}")


def did_you_mean(value: object, choices) -> str:
    """``"did you mean 'x'? "`` naming the choice closest to a mistyped *value* (difflib's best close
    match among *choices*), or ``""`` when none is close: the start of a refusal's hint.

    >>> did_you_mean("respct", ("respect", "ignore"))
    "did you mean 'respect'? "
    >>> did_you_mean("zzz", ("respect", "ignore"))
    ''
    """
    close = closest(value, choices)
    return f"did you mean {close!r}? " if close is not None else ""


def closest(value: object, choices) -> str | None:
    """The choice closest to a mistyped *value* (difflib's best close match), or ``None``.

    >>> closest("naiv", ("naive", "oracle")), closest("zzz", ("naive", "oracle"))
    ('naive', None)
    """
    import difflib

    if not isinstance(value, str):
        return None
    close = difflib.get_close_matches(value, [str(choice) for choice in choices], n=1)
    return close[0] if close else None
