"""Checks shared by every reader of user input: field access with the
location threaded once, a JSON value described for an error message, and
the "positive integer, not bool" rule.

Standard library only; the core, the time lock, the bank and the adapters
all validate through these, so one rule reads the same everywhere.
"""

from __future__ import annotations

import datetime as _dt
import numbers
from types import MappingProxyType
from typing import Any, Mapping

from anachron.core.dates import parse_date  # the one strict day parser
from anachron.core.errors import AnachronError, describe

__all__ = ["Fields", "check_unique", "positive_int"]

def positive_int(value: object, name: str, *, minimum: int = 1) -> int:
    """*value* as an ``int`` if it is an integer (any ``numbers.Integral``, never a
    ``bool``) of at least *minimum*.

    Raises :class:`AnachronError` ``"{name} must be a positive integer, got ..."``
    (``a non-negative integer`` when *minimum* is 0).

    >>> positive_int(3, "k")
    3
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        wanted = "a positive integer" if minimum == 1 else "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}"
        raise AnachronError(f"{name} must be {wanted}, got {value!r}")
    return int(value)


def check_unique(where: str, kind: str, ident: str, seen: dict[str, str]) -> None:
    """Record *ident* as seen at *where*; a second sighting is an error naming both places."""
    if ident in seen:
        raise AnachronError(f"{where}: duplicate {kind} id '{ident}' (first at {seen[ident]})")
    seen[ident] = where


class Fields:
    """Typed access to one record's fields, with errors naming the place.

    *where* (``"items.jsonl:3"``, ``"sample finance-001"``) starts every
    message, so the location is threaded once, here.
    """

    def __init__(self, where: str, obj: Mapping[str, Any]) -> None:
        self.where = where
        self.obj = obj

    def error(self, name: str, reason: str) -> AnachronError:
        return AnachronError(f"{self.where}: field '{name}': {reason}")

    def missing(self, name: str) -> AnachronError:
        return AnachronError(f"{self.where}: missing field '{name}'")

    def text(self, name: str, *, nonempty: bool = True) -> str:
        if name not in self.obj:
            raise self.missing(name)
        value = self.obj[name]
        if not isinstance(value, str):
            raise self.error(name, f"expected a string, got {describe(value)}")
        if nonempty and not value.strip():
            raise self.error(name, "must not be empty")
        return value

    def date(self, name: str, *, nullable: bool = False) -> _dt.date | None:
        if name not in self.obj:
            if nullable:
                return None
            raise self.missing(name)
        value = self.obj[name]
        if value is None and nullable:
            return None
        try:
            return parse_date(value)
        except ValueError as exc:
            raise self.error(name, str(exc)) from None

    def optional_id(self, name: str) -> str | None:
        value = self.obj.get(name)
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise self.error(name, f"expected an id string or null, got {describe(value)}")
        return value

    def id_list(self, name: str) -> tuple[str, ...]:
        value = self.obj.get(name, [])
        if value is None:
            value = []
        if not isinstance(value, list):
            raise self.error(name, f"expected a list of ids, got {describe(value)}")
        for element in value:
            if not isinstance(element, str) or not element:
                raise self.error(name, f"expected a list of id strings, found {describe(element)}")
        if len(set(value)) != len(value):
            raise self.error(name, "lists an id twice")
        return tuple(value)

    def list(self, name: str) -> list[Any]:
        """A required list field."""
        if name not in self.obj:
            raise self.missing(name)
        value = self.obj[name]
        if not isinstance(value, list):
            raise self.error(name, f"expected a list, got {describe(value)}")
        return value

    def extra(self, known: tuple[str, ...]) -> Mapping[str, Any]:
        return MappingProxyType({k: v for k, v in self.obj.items() if k not in known})
