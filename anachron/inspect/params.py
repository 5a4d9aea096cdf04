"""Task parameters (``-T name=value``) checked before a task is built, each error one line.

Inspect reads ``-T`` values as YAML: ``-T k=3`` is the integer 3, ``-T
budget=null`` is None (no limit), ``-T budget=None`` is the *string*
``"None"``.  :func:`checked` rejects a wrong type or value with a
:class:`TaskParameterError` naming the parameter; :func:`one_line` turns
any :class:`AnachronError` raised while the task is built (an unknown
slice, a corpus that does not load) into one.

:class:`TaskParameterError` is an :class:`AnachronError` and also Inspect's
``PrerequisiteError``, which Inspect's command line prints as its message
alone, instead of a traceback of some 260 lines.
"""

from __future__ import annotations

import contextlib
import numbers
from typing import Any, Iterator

from anachron.core.errors import AnachronError, describe

try:  # private in inspect-ai 0.3.x; without it the error is still one line from the API
    from inspect_ai._util.error import PrerequisiteError as _Prerequisite
except ImportError:  # pragma: no cover - another Inspect version
    _Prerequisite = Exception  # type: ignore[assignment,misc]

__all__ = ["OneLineError", "TaskParameterError", "checked", "one_line"]


class OneLineError(AnachronError, _Prerequisite):  # type: ignore[misc]
    """Bad input given to Inspect (a task parameter, a model name): one line, shown by Inspect without a traceback."""

    def __init__(self, message: str) -> None:
        AnachronError.__init__(self, message)
        self.message = str(self)  # what Inspect's exception hook prints


class TaskParameterError(OneLineError):
    """A bad task parameter: one line, shown by Inspect without a traceback."""


def _positive(name: str, value: Any, *, nullable: bool) -> None:
    if value is None and nullable:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        hint = " or null (-T budget=null: no limit)" if nullable else ""
        raise TaskParameterError(f"-T {name}: expected a positive integer{hint}, got {describe(value)}")


def checked(task: str, **params: Any) -> None:
    """Check the values of the parameters the anachron tasks share; raise on the first bad one.

    Known names: ``corpus``, ``bank``, ``manifest`` (a path or null), ``slice``
    (a string or a list of strings), ``k`` (a positive integer), ``budget`` (a
    positive integer or null), ``date_presentation``, ``mode`` and ``ranking`` (strings).
    """
    for name, value in params.items():
        where = f"{task}: "
        try:
            if name in ("corpus", "bank", "manifest"):
                if value is not None and not isinstance(value, str):
                    raise TaskParameterError(f"-T {name}: expected a path, got {describe(value)}")
            elif name == "slice":
                if value is not None and not isinstance(value, str) and not (
                    isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
                ):
                    raise TaskParameterError(f"-T slice: expected a slice name or a comma-separated list, got {describe(value)}")
            elif name == "k":
                _positive(name, value, nullable=False)
            elif name == "budget":
                _positive(name, value, nullable=True)
            elif name in ("date_presentation", "mode", "ranking"):
                if not isinstance(value, str):
                    raise TaskParameterError(f"-T {name}: expected a string, got {describe(value)}")
            else:
                raise KeyError(name)
        except TaskParameterError as exc:
            raise TaskParameterError(where + str(exc)) from None


@contextlib.contextmanager
def one_line(task: str) -> Iterator[None]:
    """Inside, an :class:`AnachronError` becomes a :class:`TaskParameterError` naming *task*."""
    try:
        yield
    except TaskParameterError:
        raise
    except AnachronError as exc:
        raise TaskParameterError(f"{task}: {exc}") from None
