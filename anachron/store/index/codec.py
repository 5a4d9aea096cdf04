"""The document codec: an item, entity or sample as a corpus store keeps it, and back.

A store (an index file, a PostgreSQL corpus) keeps each record as one JSON
document, ASCII only, its known fields first and then its extra fields, and
each id as its JSON string literal (:func:`key`), so lone surrogates and NUL
survive every database.  Reading a document back does not validate it again:
it was validated when the store was built; only the facts are read by the
corpus's own rule (:func:`anachron.core.facts.parse_facts`), keys included.

>>> from anachron.core.corpus import Sample
>>> import datetime as dt
>>> doc = sample_doc(Sample("s1", "finance", dt.date(2022, 6, 1), "What rose?", {"subject": "Cygnus"}))
>>> doc
'{"id":"s1","slice":"finance","as_of":"2022-06-01","input":"What rose?","subject":"Cygnus"}'
>>> read_sample(doc).extra["subject"]
'Cygnus'
"""

from __future__ import annotations

import datetime as _dt
import json
from types import MappingProxyType
from typing import Any, Mapping

from anachron.core.corpus import ENTITY_FIELDS, ITEM_FIELDS, SAMPLE_FIELDS, Entity, Item, Sample
from anachron.core.facts import parse_facts
from anachron.core.jsonio import json_line
from anachron.core.search import visible_in
from anachron.core.validate import Fields

__all__ = ["entity_doc", "item_doc", "key", "read_entity", "read_item", "read_sample", "read_visible", "sample_doc", "stored_day"]


def key(ident: str) -> str:
    """How an id is stored: its JSON string literal, ASCII only (lone surrogates and NUL survive).

    >>> key("fin-001"), key("caf\\u00e9")
    ('"fin-001"', '"caf\\\\u00e9"')
    """
    return json.dumps(ident, ensure_ascii=True)


def _doc(fields: Mapping[str, Any]) -> str:
    return json_line(fields, compact=True, sort_keys=False, ensure_ascii=True)


def stored_day(day: _dt.date | None) -> str | None:
    """How a date is stored: its ISO form, or ``None``."""
    return None if day is None else day.isoformat()


def item_doc(item: Item) -> str:
    """An item as a store keeps it: its record, known fields first, then its extra fields."""
    return _doc(
        {
            "id": item.id,
            "slice": item.slice,
            "publish_date": item.publish_date.isoformat(),
            "title": item.title,
            "text": item.text,
            "entities": list(item.entities),
            "restates": item.restates,
            **({"facts": [fact.to_dict() for fact in item.facts]} if item.facts else {}),
            **item.extra,
        }
    )


def entity_doc(entity: Entity) -> str:
    """An entity as a store keeps it (``fiscal_year_end`` only when it has one)."""
    fiscal = {"fiscal_year_end": entity.fiscal_year_end} if entity.fiscal_year_end is not None else {}
    return _doc(
        {"id": entity.id, "name": entity.name, "valid_from": stored_day(entity.valid_from), "valid_to": stored_day(entity.valid_to), **fiscal, **entity.extra}
    )


def sample_doc(sample: Sample) -> str:
    """A sample as a store keeps it."""
    return _doc({"id": sample.id, "slice": sample.slice, "as_of": sample.as_of.isoformat(), "input": sample.input, **sample.extra})


def _extra(record: Mapping[str, Any], known: tuple[str, ...]) -> Mapping[str, Any]:
    return MappingProxyType({k: v for k, v in record.items() if k not in known})


def _day(value: str | None) -> _dt.date | None:
    return None if value is None else _dt.date.fromisoformat(value)


def read_item(doc: str) -> Item:
    """The item stored as *doc* (:func:`item_doc`)."""
    r = json.loads(doc)
    facts = parse_facts(Fields(f"index item {r['id']}", r)) if "facts" in r else ()  # the corpus's own rule, keys included
    return Item(r["id"], r["slice"], _day(r["publish_date"]), r["title"], r["text"], tuple(r["entities"]), r["restates"], _extra(r, ITEM_FIELDS), facts)


def read_entity(doc: str) -> Entity:
    """The entity stored as *doc* (:func:`entity_doc`)."""
    r = json.loads(doc)
    return Entity(r["id"], r["name"], _day(r["valid_from"]), _day(r["valid_to"]), _extra(r, ENTITY_FIELDS), r.get("fiscal_year_end"))


def read_sample(doc: str) -> Sample:
    """The sample stored as *doc* (:func:`sample_doc`)."""
    r = json.loads(doc)
    return Sample(r["id"], r["slice"], _day(r["as_of"]), r["input"], _extra(r, SAMPLE_FIELDS))


def read_visible(doc: str | None, as_of: _dt.date, mode: str) -> Item | None:
    """The item stored as *doc*, or ``None`` when there is none or *mode* hides it on *as_of*
    (:func:`~anachron.core.search.visible_in`)."""
    if doc is None:
        return None
    item = read_item(doc)
    return item if visible_in(mode, item.publish_date, as_of) else None
