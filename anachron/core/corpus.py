"""The dated corpus model: items, entities, samples, and their loader.

A corpus is a directory of JSON Lines files (see docs/formats.md):

- ``items.jsonl``    documents with a ``publish_date`` (required file);
- ``entities.jsonl`` ticker-like entities with a validity window;
- ``samples.jsonl``  tasks posed "as of" a date.

:func:`build_corpus` validates records that are already in memory (no I/O);
:func:`load_corpus_dir` reads a directory and hands the records to it, so every
error names the file, the line and the field.  The same rules, one record
kind at a time (:func:`parse_entities`, :func:`parse_item`,
:func:`parse_samples`, :func:`check_links`), let a corpus store stream a
corpus too large to hold (``anachron index``).
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

from anachron.core.jsonio import Record, read_records
from anachron.core.validate import Fields, check_unique
from anachron.core.dates import known_at
from anachron.core.bundled import default_corpus_dir
from anachron.core.errors import AnachronError
from anachron.core.facts import Fact, parse_facts
from anachron.core.names import NameIndex
from anachron.core.query_intent import parse_fiscal_year_end

__all__ = [
    "Item",
    "Entity",
    "Sample",
    "Corpus",
    "build_corpus",
    "load_corpus_dir",
    "default_corpus_dir",
    "ITEM_FIELDS",
    "ENTITY_FIELDS",
    "SAMPLE_FIELDS",
    "check_links",
    "corpus_records",
    "parse_entities",
    "parse_item",
    "parse_samples",
]

# The fields each record kind names; any other field of a record is kept in its ``extra``.
ITEM_FIELDS = ("id", "slice", "publish_date", "title", "text", "entities", "restates", "facts")
ENTITY_FIELDS = ("id", "name", "valid_from", "valid_to", "fiscal_year_end")
SAMPLE_FIELDS = ("id", "slice", "as_of", "input")


@dataclass(frozen=True)
class Item:
    """A dated document.  ``extra`` keeps every field not named here."""

    id: str
    slice: str
    publish_date: _dt.date
    title: str
    text: str
    entities: tuple[str, ...] = ()
    restates: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    # What first became public on publish_date (anachron.core.facts; docs/formats.md).
    facts: tuple[Fact, ...] = ()


@dataclass(frozen=True)
class Entity:
    """An entity that is point-in-time valid from ``valid_from`` to ``valid_to``.

    Both bounds are inclusive; ``None`` is open-ended.  ``fiscal_year_end``
    (``"MM-DD"``, or ``None`` for the calendar year) is the last day of the
    entity's fiscal year: query intent reads its fiscal periods with it.
    """

    id: str
    name: str
    valid_from: _dt.date | None = None
    valid_to: _dt.date | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    fiscal_year_end: str | None = None

    def valid_at(self, day: _dt.date) -> bool:
        """``valid_from <= day <= valid_to``, a missing bound being open."""
        listed = self.valid_from is None or known_at(self.valid_from, day)
        not_yet_gone = self.valid_to is None or known_at(day, self.valid_to)
        return listed and not_yet_gone


@dataclass(frozen=True)
class Sample:
    """A task posed as of ``as_of``.  ``extra`` keeps the other fields."""

    id: str
    slice: str
    as_of: _dt.date
    input: str
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Corpus:
    """Items, entities and samples keyed by id, in file order."""

    items: Mapping[str, Item]
    entities: Mapping[str, Entity]
    samples: Mapping[str, Sample]
    source: str | None = None

    def item(self, item_id: str) -> Item:
        return self.items[item_id]

    def entity(self, entity_id: str) -> Entity:
        return self.entities[entity_id]

    def sample(self, sample_id: str) -> Sample:
        return self.samples[sample_id]

    def sample_of(self, sample_id: str) -> Sample | None:
        """The corpus sample a trace's *sample_id* names: itself, or for ``ID#epochN`` (epoch N of a
        run in several epochs, :func:`epoch_sample_id`) the sample ``ID``; ``None`` when neither is one."""
        sample = self.samples.get(sample_id)
        if sample is None:
            match = _EPOCH_ID.fullmatch(sample_id)
            sample = self.samples.get(match.group(1)) if match is not None else None
        return sample

    @cached_property
    def bounded_entities(self) -> frozenset[str]:
        """The ids of the entities with a ``valid_from`` or a ``valid_to``; any other is valid at every day
        (:meth:`Entity.valid_at`: a missing bound is open).  Computed once per corpus."""
        return frozenset(e.id for e in self.entities.values() if e.valid_from is not None or e.valid_to is not None)

    @cached_property
    def fact_sources(self) -> Mapping[tuple, tuple[Fact, Item]]:
        """Each distinct fact (by :attr:`Fact.key`) with the item that first made it public.

        The earliest ``publish_date`` among the items declaring it; on a tie,
        the first in file order.  Computed once per corpus.
        """
        first: dict[tuple, tuple[Fact, Item]] = {}
        for _, item in self._with_facts():
            for fact in item.facts:
                known = first.get(fact.key)
                if known is None or item.publish_date < known[1].publish_date:
                    first[fact.key] = (fact, item)
        return MappingProxyType(first)

    def _with_facts(self) -> Iterable[tuple[int, Item]]:
        """``(file position, item)`` of each item declaring facts, in file order; an index's
        store's items (:class:`anachron.store.index.StoredItems`) read only those."""
        own = getattr(self.items, "with_facts", None)
        if callable(own):
            return own()
        return ((position, item) for position, item in enumerate(self.items.values()) if item.facts)

    def fiscal_year_end_in(self, text: str) -> str | None:
        """The fiscal year end of the entity *text* names, for query intent; ``None`` for the calendar year.

        An entity is named by its id or its name, as whole words in any case
        (:mod:`anachron.core.names`: the words of ``Oracle Corp`` in order,
        whatever stands between them).  When the entities named have
        different fiscal calendars, or none has one, the calendar year is used.
        """
        found = self._fiscal_names.named_in(text)
        return found.pop() if len(found) == 1 else None

    @cached_property
    def _fiscal_names(self) -> NameIndex[str]:
        """Each id and name of an entity with a fiscal calendar -> its fiscal year end."""
        return NameIndex(
            (label, entity.fiscal_year_end)
            for entity in self.entities.values()
            if entity.fiscal_year_end is not None
            for label in (entity.id, entity.name)
        )

    def facts_about(self, *texts: str) -> Mapping[tuple, tuple[Fact, Item]]:
        """:attr:`fact_sources` over the items whose subject one of *texts* names.

        An item's subject is its entities, named by id or name
        (:mod:`anachron.core.names`).  An item without entities is about the
        entities its title names; if its title names none, about the runs of
        capitalised words of its title (``Riverton``, ``Aurora Cup``; a
        leading The, A or An dropped), named the same way.  An item with none
        of these has no subject, and its facts are about nothing a text can
        name.  The earliest item wins per fact, ties in file order.
        """
        names, items = self._fact_subjects
        chosen: dict[int, Item] = {}
        for text in texts:
            for subject in names.named_in(text):
                for position, item in items[subject]:
                    chosen[position] = item
        first: dict[tuple, tuple[Fact, Item]] = {}
        for position in sorted(chosen):
            item = chosen[position]
            for fact in item.facts:
                known = first.get(fact.key)
                if known is None or item.publish_date < known[1].publish_date:
                    first[fact.key] = (fact, item)
        return first

    @cached_property
    def _fact_subjects(self) -> tuple[NameIndex[tuple[str, str]], dict[tuple[str, str], list[tuple[int, Item]]]]:
        """The names of every subject of an item with facts; each subject's (file position, item) list."""
        entity_names = NameIndex((label, e.id) for e in self.entities.values() for label in (e.id, e.name))
        labels: list[tuple[str, tuple[str, str]]] = []
        items: dict[tuple[str, str], list[tuple[int, Item]]] = {}
        for position, item in self._with_facts():
            named = item.entities or tuple(sorted(entity_names.named_in(item.title)))
            if named:
                subjects = [("entity", ident) for ident in named]
                for ident in named:
                    entity = self.entities[ident]
                    labels += [(entity.id, ("entity", ident)), (entity.name, ("entity", ident))]
            else:
                subjects = [("title", run) for run in _title_names(item.title)]
                labels += [(run, ("title", run)) for run in _title_names(item.title)]
            for subject in subjects:
                items.setdefault(subject, []).append((position, item))
        return NameIndex(labels), items


# A sample id for one epoch of a run in several (anachron export): ``ID#epochN``, N from 1.
_EPOCH_ID = re.compile(r"(.+)#epoch[1-9][0-9]*", re.ASCII)


def epoch_sample_id(sample_id: str, epoch: int) -> str:
    """The sample id of epoch *epoch* of *sample_id* (:meth:`Corpus.sample_of` reads it back).

    >>> epoch_sample_id("news-001", 2)
    'news-001#epoch2'
    """
    return f"{sample_id}#epoch{epoch}"


_ARTICLES = frozenset({"The", "A", "An"})


def _title_names(title: str) -> list[str]:
    """The runs of capitalised words of *title* (``Valdera wins the Aurora Cup``: Valdera, Aurora Cup), a leading article dropped."""
    runs: list[list[str]] = [[]]
    for raw in title.split():
        word = raw.strip(".,;:!?()[]\"'\u2018\u2019\u201c\u201d")
        if word[:1].isupper():
            if not runs[-1] and word in _ARTICLES:
                continue
            runs[-1].append(word)
        elif runs[-1]:
            runs.append([])
    return list(dict.fromkeys(" ".join(run) for run in runs if run))


def parse_entities(records: Iterable[Record]) -> dict[str, Entity]:
    """The entities of ``(where, object)`` records, by id in file order (the rules of :func:`build_corpus`)."""
    entities: dict[str, Entity] = {}
    seen: dict[str, str] = {}
    for where, obj in records:
        f = Fields(where, obj)
        ident = f.text("id")
        check_unique(where, "entity", ident, seen)
        valid_from = f.date("valid_from", nullable=True)
        valid_to = f.date("valid_to", nullable=True)
        if valid_from is not None and valid_to is not None and valid_from > valid_to:
            raise f.error("valid_from", f"{valid_from} is after valid_to {valid_to}")
        fiscal_year_end = obj.get("fiscal_year_end")
        if fiscal_year_end is not None:
            try:
                parse_fiscal_year_end(fiscal_year_end)
            except AnachronError as exc:
                raise f.error("fiscal_year_end", str(exc)) from None
        entities[ident] = Entity(
            ident, f.text("name"), valid_from, valid_to, f.extra(ENTITY_FIELDS), fiscal_year_end=fiscal_year_end
        )
    return entities


def _items(records: Iterable[Record], entities: Mapping[str, Entity]) -> dict[str, Item]:
    items: dict[str, Item] = {}
    where_of: dict[str, str] = {}
    for where, obj in records:
        f = Fields(where, obj)
        ident = f.text("id")
        check_unique(where, "item", ident, where_of)
        items[ident] = parse_item(f, entities)
    check_links(items, where_of.__getitem__)
    return items


def parse_item(f: Fields, entities: Mapping[str, Entity]) -> Item:
    """The item of one record (*f*, its fields, the id already checked unique by the caller),
    naming only ids of *entities*.  Its restatement link is checked once every item is known
    (:func:`check_links`): a link may point forward in the file."""
    names = f.id_list("entities")
    for name in names:
        if name not in entities:
            raise f.error("entities", f"unknown entity id '{name}'")
    return Item(
        id=f.text("id"),
        slice=f.text("slice"),
        publish_date=f.date("publish_date"),  # type: ignore[arg-type]
        title=f.text("title"),
        text=f.text("text", nonempty=False),
        entities=names,
        restates=f.optional_id("restates"),
        extra=f.extra(ITEM_FIELDS),
        facts=parse_facts(f),
    )


def check_links(items: Mapping[str, Any], where: Callable[[str], str]) -> None:
    """The restatement links of *items* (each with ``id``, ``publish_date`` and ``restates``),
    in file order: each known, not the item itself, not later, and no cycle.  A link may point
    forward in the file, so this runs once every item is known; *where* locates an id's record."""
    for ident, item in items.items():
        if item.restates is not None:
            _check_restatement(Fields(where(ident), {}), item, items)
    for ident in items:
        _check_no_cycle(Fields(where(ident), {}), ident, items)


def _check_no_cycle(f: Fields, start: str, items: Mapping[str, Item]) -> None:
    """A restatement chain must end: same-day items could otherwise restate each other."""
    chain = [start]
    current = items[start].restates
    while current is not None:
        if current in chain:
            loop = " -> ".join([*chain[chain.index(current):], current])
            raise f.error("restates", f"restatements form a cycle: {loop}")
        chain.append(current)
        current = items[current].restates


def _check_restatement(f: Fields, item: Item, items: Mapping[str, Item]) -> None:
    if item.restates == item.id:
        raise f.error("restates", "an item cannot restate itself")
    original = items.get(item.restates)  # type: ignore[arg-type]
    if original is None:
        raise f.error("restates", f"unknown item id '{item.restates}'")
    if original.publish_date > item.publish_date:
        raise f.error(
            "restates",
            f"restates '{original.id}' dated {original.publish_date}, later than this item's {item.publish_date}",
        )


def parse_samples(records: Iterable[Record]) -> dict[str, Sample]:
    """The samples of ``(where, object)`` records, by id in file order (the rules of :func:`build_corpus`)."""
    samples: dict[str, Sample] = {}
    seen: dict[str, str] = {}
    for where, obj in records:
        f = Fields(where, obj)
        ident = f.text("id")
        check_unique(where, "sample", ident, seen)
        samples[ident] = Sample(
            id=ident,
            slice=f.text("slice"),
            as_of=f.date("as_of"),  # type: ignore[arg-type]
            input=f.text("input"),
            extra=f.extra(SAMPLE_FIELDS),
        )
    return samples


def build_corpus(
    items: Iterable[Record],
    entities: Iterable[Record] = (),
    samples: Iterable[Record] = (),
    *,
    source: str | None = None,
) -> Corpus:
    """Validate in-memory records into a :class:`Corpus`.

    Each record is ``(where, object)``; *where* (e.g. ``"items.jsonl:3"``)
    starts every error message.  Rejected: missing or mistyped fields,
    impossible dates, duplicate ids, ``valid_from`` after ``valid_to``, an
    item naming an unknown entity, a ``restates`` id that is unknown, the
    item itself, or an item published later than the restating one.
    """
    entity_map = parse_entities(entities)
    return Corpus(
        items=MappingProxyType(_items(items, entity_map)),
        entities=MappingProxyType(entity_map),
        samples=MappingProxyType(parse_samples(samples)),
        source=source,
    )


def corpus_records(path: Path, *, required: bool) -> list[Record]:
    """The records of the corpus file *path*; an absent file is an error when *required*
    (``items.jsonl``), else no records."""
    if not path.exists():
        if required:
            raise AnachronError(f"{path}: no such file (a corpus directory needs items.jsonl)")
        return []
    return read_records(path)


def load_corpus_dir(directory: str | os.PathLike[str] | None = None, *, samples: bool = True) -> Corpus:
    """Load and validate the corpus in *directory* (default: the bundled v0 corpus).

    ``items.jsonl`` is required; ``entities.jsonl`` and ``samples.jsonl``
    may be absent (no entities, no samples).  With ``samples=False``
    ``samples.jsonl`` is not even opened: a time lock serves a corpus
    without ever reading the tasks posed over it.

    A directory only: an index file or a ``postgresql://`` URL is a corpus
    store's (:func:`anachron.store.load_corpus_dir`, what ``--corpus`` and
    :func:`anachron.load_corpus_dir` go through), refused here.
    """
    if directory is not None and "://" in str(directory):
        # Path() would fold the URL's '//' and echo its password.
        scheme = str(directory).split("://", 1)[0][:20]
        raise AnachronError(f"a {scheme}:// URL is not a corpus directory (anachron.load_corpus_dir opens a postgresql:// URL)")
    root = Path(directory) if directory is not None else default_corpus_dir()
    if root.is_file():
        raise AnachronError(f"{root}: a file, not a corpus directory (anachron.load_corpus_dir opens an index file)")
    if not root.is_dir():
        raise AnachronError(f"{root}: not a corpus directory")
    return build_corpus(
        corpus_records(root / "items.jsonl", required=True),
        corpus_records(root / "entities.jsonl", required=False),
        corpus_records(root / "samples.jsonl", required=False) if samples else (),
        source=str(root),
    )


