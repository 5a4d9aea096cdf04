"""Build instances of a frozen dataclass at the cost of one dictionary update.

A frozen dataclass's ``__init__`` sets each field through
``object.__setattr__``, one Python-level call per field: 2 us for the
17 fields of a :class:`~anachron.core.leakage.Judgement`, built once per tool
call.  :func:`maker` returns a function that builds the same instance (the
same fields, in the same order, in the instance's ``__dict__``: equal, same
hash, same repr) by filling that dictionary in one C-level update.

It takes keywords only, and refuses a name that is no field (``TypeError``,
as ``__init__`` does); a field left out takes its default (a fresh one from
its ``default_factory``), and one without a default must be given.  It
applies only to a plain frozen dataclass: no ``__post_init__``, no
``__slots__``, no ``InitVar`` (:func:`maker` refuses any other class, since
the shortcut would skip what they do).

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Span:
...     start: int
...     end: int = 0
>>> make = maker(Span)
>>> make(start=3) == Span(3), make(start=1, end=2)
(True, Span(start=1, end=2))
>>> make(end=2)
Traceback (most recent call last):
    ...
TypeError: Span: missing field(s) start
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, TypeVar

__all__ = ["maker"]

T = TypeVar("T")


def maker(cls: type[T]) -> Callable[..., T]:
    """A keyword-only builder of *cls* instances equal to ``cls(**values)`` (see the module's docstring)."""
    if not (dataclasses.is_dataclass(cls) and isinstance(cls, type)) or not cls.__dataclass_params__.frozen:  # type: ignore[attr-defined]
        raise TypeError(f"{cls!r} is not a frozen dataclass")
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__}: a __post_init__ or __slots__ would be skipped")
    fields = dataclasses.fields(cls)
    if len(fields) != len(cls.__dataclass_fields__):  # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__}: an InitVar or ClassVar field would be skipped")
    names = frozenset(f.name for f in fields)
    # Every field in order (the order __init__ sets them in), the required ones as a marker, and
    # those whose default a factory makes as another (made afresh for each instance left without).
    missing, made = object(), object()
    template = {
        f.name: f.default if f.default is not dataclasses.MISSING else made if f.default_factory is not dataclasses.MISSING else missing
        for f in fields
    }
    required = frozenset(name for name, value in template.items() if value is missing)
    factories = tuple((f.name, f.default_factory) for f in fields if template[f.name] is made)
    new = object.__new__

    def make(**values: Any) -> T:
        if not values.keys() <= names:
            raise TypeError(f"{cls.__name__}: no field(s) {', '.join(sorted(values.keys() - names))}")
        if required and not required <= values.keys():
            raise TypeError(f"{cls.__name__}: missing field(s) {', '.join(sorted(required - values.keys()))}")
        instance = new(cls)
        fill = instance.__dict__
        fill.update(template)
        fill.update(values)
        for name, factory in factories:
            if fill[name] is made:
                fill[name] = factory()
        return instance

    return make
