"""The trace format: what an agent's tool calls asked for and surfaced, per sample run.

One JSON object per sample run (docs/formats.md)::

    {"sample_id": "finance-001", "as_of": "2022-06-01", "mode": "unrestricted",
     "interactions": [{"tool": "search", "query": "cygnus robotics",
                       "returned": ["fin-005", {"id": "ext-1", "publish_date": "2023-01-02"}]},
                      {"tool": "fetch", "status": "refused", "target": "fin-005"}]}

Each interaction is one tool call with a ``status`` (:data:`STATUSES`,
default ``ok``).  Only an ``ok`` call's result reached the agent, so only an
``ok`` call may have ``returned`` items; an ``unrecorded`` call (the log
shows the call, not its result) has no ``returned`` at all, not even ``[]``:
what it showed is not known.  A call may name a ``target``: the
item it asked for (a fetch's id), scored when a lock refused it, and a
``command``: what a shell or code tool ran, read by the seal audit, and a
``receipt``: the lock's number of the call, from its result's first line.

Every returned entry is resolved here, against the corpus or from its inline
fields, so the metrics never meet an item they cannot date: an id that is
neither in the corpus nor inline is an error, never a silent non-leak.  A
target id that is not in the corpus is simply unknown: an agent may ask for
anything.

A record may carry ``warnings``: the importer's one-line messages on the
log (each a cause and a fix), kept per trace (:func:`warnings_of`) and
gathered into the run summary.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import functools
import html
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping

from anachron.core.jsonio import Record, read_records, record_location
from anachron.core.validate import Fields
from anachron.core.errors import AnachronError, describe, did_you_mean
from anachron.core.attribution import DATE_FIELDS, Attribution, attribute, evidence_of
from anachron.core.query_intent import DateReference, fixed_references
from anachron.core.corpus import Corpus
from anachron.core.dates import iso_moment, known_at
from anachron.core.frozen import maker
from anachron.core.search import MODES

__all__ = [
    "STATUSES", "ReturnedItem", "Interaction", "Trace", "check_traces", "iter_traces", "parse_traces", "load_traces",
    "no_trace_record", "some_records",
]

# ok: the tool ran and its result (even an empty one) reached the agent;
# refused: the lock refused the call (bad or extra arguments, an unknown id,
#   a post-T fetch under enforcement);
# exhausted: the call was over budget;
# error: the tool or its backend failed;
# unrecorded: the log shows the call but not its result (content capture off, no result record,
#   a truncated log): whether it leaked cannot be told.
STATUSES = ("ok", "refused", "exhausted", "error", "unrecorded")

_TRACE_FIELDS = ("sample_id", "as_of", "mode", "interactions", "answer", "citations", "warnings")
_CALL_FIELDS = ("tool", "query", "status", "returned", "target", "time", "command", "retrieval", "receipt")
_CALL_FIELD_SET = frozenset(_CALL_FIELDS)
# Extra fields are allowed (an adapter's audit fields), but one a letter or two from a known field
# that the object lacks is a typo, refused: a misspelt "returned" would otherwise read as an empty result.
NEAR_MISS = 0.8  # difflib's ratio: "retuned" is 0.93 from "returned", "statsu" 0.83 from "status"
# Extra names that are near a known field but are common extensions, never typos ("model" is near "mode").
EXTENSION_NAMES = frozenset({"model"})
WARNING_CHARS = 500  # of one importer warning kept: a warning is one line of a table


@dataclass(frozen=True)
class ReturnedItem:
    """What the metrics need to know of one item.

    ``publish_date`` is the item's exact day, or for an open-web item dated
    by :func:`~anachron.core.attribution.attribute` the first day of its
    granule (``None`` when undated); ``dating`` then says how it was dated.
    ``text`` is what the agent was shown of it (title, snippet, text), for
    the content check.
    """

    id: str
    publish_date: _dt.date | None
    entities: tuple[str, ...] = ()
    restates: str | None = None
    dating: Attribution | None = field(default=None, compare=False)
    text: str = field(default="", compare=False, repr=False)
    # The date references of ``text`` (:func:`date_references`), when worked out once for a
    # corpus item; ``None``: find them in ``text`` when needed.
    references: tuple[DateReference, ...] | None = field(default=None, compare=False, repr=False)
    # A series value (the time lock's ``series`` tool): (series id, observation date, value or None
    # when missing); ``publish_date`` is then its realtime_start, the day the value was first published.
    observation: tuple[str, str, str | None] | None = None

    def status(self, as_of: _dt.date) -> str:
        """``known``, ``leak``, ``uncertain`` or ``undated`` at *as_of* (the cutoff rule, :func:`known_at`)."""
        if self.dating is not None:
            return self.dating.status(as_of)
        return "known" if known_at(self.publish_date, as_of) else "leak"  # type: ignore[arg-type]


@dataclass(frozen=True)
class Interaction:
    """One tool call.  ``returned`` is empty unless ``status`` is ``ok``;
    ``target`` is the known item the call asked for, if any; ``time`` is
    when the call was made, if the trace says (it resolves "3 days ago")."""

    tool: str
    query: str | None
    returned: tuple[ReturnedItem, ...]
    status: str = "ok"
    target: ReturnedItem | None = None
    time: _dt.datetime | None = None
    # What a shell or code tool ran (its command or code), for the seal audit (anachron.core.seal).
    command: str | None = None
    # False for a local call (a file read, an edit, a to-do list): audited for the seal, never judged for leakage.
    retrieval: bool = True
    # The lock's receipt the call's result began with (``search #3: ...``): the number of its record in the lock's log.
    receipt: int | None = None


_interaction_of = maker(Interaction)  # Interaction(**values), in one dictionary update: one is built per call


@dataclass(frozen=True)
class Trace:
    sample_id: str
    as_of: _dt.date
    mode: str | None
    interactions: tuple[Interaction, ...]
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    # The agent's final answer and what it cited (URLs or corpus ids), when known.
    answer: str | None = None
    citations: tuple[str, ...] = ()
    # The importer's one-line warnings on this log (a cause and a fix each), as :func:`warnings_of` keeps them.
    warnings: tuple[str, ...] = ()


CONTENT_CHARS = 256 * 1024  # of an item's shown text kept for the content check


_TAG_END = {"<!--": "-->", "<script": "</script", "<style": "</style"}


def _visible(text: str) -> str:
    """What a reader sees of *text*: HTML without scripts, styles, comments and tags.

    One scan left to right with ``str.find`` (no backtracking): an unclosed
    comment, script or style ends the text, an unclosed tag too.
    """
    if "<" not in text:
        return text
    out, position, lowered = [], 0, text.lower()
    while True:
        start = text.find("<", position)
        if start < 0:
            out.append(text[position:])
            break
        out.append(text[position:start])
        opener = next((o for o in _TAG_END if lowered.startswith(o, start)), None)
        if opener is not None:
            close = lowered.find(_TAG_END[opener], start + len(opener))
            if close < 0:
                break
            start = close
        end = text.find(">", start)
        if end < 0:
            break
        out.append(" ")
        position = end + 1
    return html.unescape("".join(out))


def _shown_text(entry: Mapping[str, Any]) -> str:
    parts = [entry.get(name) for name in ("title", "snippet", "text")]
    return _visible("\n".join(part for part in parts if isinstance(part, str))[:CONTENT_CHARS])


def _inline(
    f: Fields, corpus: Corpus, now: _dt.datetime | None, cache: dict[str, ReturnedItem], singles: frozenset[str] = frozenset()
) -> ReturnedItem:
    entry = f.obj
    ident = entry.get("id") if entry.get("id") is not None else entry.get("url")
    if not isinstance(ident, str) or not ident.strip():
        raise AnachronError(f"{f.where}: an inline item needs an 'id' or a 'url' string")
    if "series" in entry:
        return _observation(f, ident)
    entities = f.id_list("entities")
    for name in entities:
        if name not in corpus.entities:
            raise f.error("entities", f"unknown entity id '{name}' (item '{ident}')")
    restates = f.optional_id("restates")
    known = corpus.items.get(ident)
    if known is not None:
        # A corpus item is that item, whatever the entry says; a date that disagrees is an error.
        if any(name in entry for name in DATE_FIELDS):
            dating = attribute(entry, now=now)
            if dating.first is None or not (dating.first <= known.publish_date <= dating.last):  # type: ignore[operator]
                field_name = next(name for name in DATE_FIELDS if name in entry)
                shown = "no readable date" if dating.first is None else f"{evidence_of(dating)}"
                raise f.error(field_name, f"item '{ident}' is dated {known.publish_date} in the corpus, not {shown}")
        # ... and carries the corpus's labels: an entry naming other ones is an error, like another date.
        if restates is not None and restates != known.restates:
            raise f.error("restates", f"item '{ident}' restates {_label(known.restates)} in the corpus, not '{restates}'")
        stray = [name for name in entities if name not in known.entities]
        if stray:
            raise f.error("entities", f"item '{ident}' does not name entity '{stray[0]}' in the corpus")
        return _from_corpus(corpus, ident, cache)  # type: ignore[return-value]
    if ident in singles:  # checked, not resolved: see check_traces
        return ReturnedItem(ident, None, entities, restates)
    # An open-web item: dated from whatever it carries (fields in any format, URL, snippet, HTML), or undated.
    dating = attribute(entry, now=now)
    return ReturnedItem(ident, dating.first, entities, restates, dating, _shown_text(entry))


def _observation(f: Fields, ident: str) -> ReturnedItem:
    """A series value shown to the agent (docs/formats.md): dated by its ``realtime_start``, the day the
    value was first published, never by its observation date (a 2019 quarter revised in 2021 is 2021 news);
    ``null`` when the day was not shown (undated)."""
    series = f.text("series")
    observed = f.date("observation_date")
    if "value" not in f.obj:
        raise f.missing("value")
    value = f.obj["value"]
    if value is not None and not isinstance(value, str):
        raise f.error("value", f"expected a string or null (missing), got {describe(value)}")
    if "realtime_start" not in f.obj:
        raise f.missing("realtime_start")
    first = f.date("realtime_start", nullable=True)
    observation = (series, observed.isoformat(), value)  # type: ignore[union-attr]
    if first is None:  # the day was not shown (dates hidden): undated, in TCLR's band, never clean
        undated = Attribution(None, None, None, None, None, ("its realtime_start was not shown",))
        return ReturnedItem(ident, None, (), None, undated, "", (), observation)
    return ReturnedItem(ident, first, (), None, None, "", (), observation)


def _label(restates: str | None) -> str:
    return "nothing" if restates is None else f"'{restates}'"


def _corpus_text(item: Any) -> str:
    return f"{item.title}\n{item.text}"[:CONTENT_CHARS]


def _fixed_references(text: str, page_date: _dt.date) -> tuple[DateReference, ...] | None:
    """The date references of *text* (those anchored at its *page_date* too) worked out once, when they do
    not depend on T (else ``None``: found again at each T, see :func:`~anachron.core.query_intent.fixed_references`)."""
    found = fixed_references(text, page_date=page_date)
    return None if found is None else tuple(found)


def _from_corpus(corpus: Corpus, ident: str, cache: dict[str, ReturnedItem]) -> ReturnedItem | None:
    """The entry of corpus item *ident*, built once per item and shared (it is immutable)."""
    entry = cache.get(ident)
    if entry is not None:
        return entry
    item = corpus.items.get(ident)
    if item is None:
        return None
    text = _corpus_text(item)
    entry = ReturnedItem(item.id, item.publish_date, item.entities, item.restates, None, text, _fixed_references(text, item.publish_date))
    cache[ident] = entry
    return entry


def _resolve(
    where: str, entry: Any, corpus: Corpus, now: _dt.datetime | None, cache: dict[str, ReturnedItem], singles: frozenset[str]
) -> ReturnedItem:
    if isinstance(entry, str):
        item = _from_corpus(corpus, entry, cache)
        if item is None:
            raise AnachronError(f"{where}: returned id '{entry}' is not in the corpus and has no inline publish_date")
        return item
    if not isinstance(entry, dict):
        raise AnachronError(f"{where}: a returned entry must be an id or an object, got {describe(entry)}")
    return _inline(Fields(where, entry), corpus, now, cache, singles)


def _target(where: str, entry: Any, corpus: Corpus, cache: dict[str, ReturnedItem], singles: frozenset[str]) -> ReturnedItem | None:
    if entry is None:
        return None
    if isinstance(entry, str):
        return _from_corpus(corpus, entry, cache)  # an id outside the corpus is unknown, not an error
    if not isinstance(entry, dict):
        raise AnachronError(f"{where}: a target must be an id, an object or null, got {describe(entry)}")
    return _inline(Fields(where, entry), corpus, None, cache, singles)


def _time(f: Fields) -> _dt.datetime | None:
    value = f.obj.get("time")
    if value is None:
        return None
    try:
        moment = iso_moment(value)
    except AnachronError as exc:
        raise f.error("time", str(exc)) from None
    if moment is None:
        raise f.error("time", f"expected an ISO date-time or null, got {describe(value)}")
    return moment


def _span(item: ReturnedItem) -> tuple[_dt.date, _dt.date] | None:
    """The days an item's date may be: its day, or its granule; ``None`` when undated."""
    if item.dating is not None:
        return None if item.dating.first is None else (item.dating.first, item.dating.last)  # type: ignore[return-value]
    return None if item.publish_date is None else (item.publish_date, item.publish_date)


def _shown_span(span: tuple[_dt.date, _dt.date]) -> str:
    return f"{span[0]}" if span[0] == span[1] else f"{span[0]}..{span[1]}"


# Where an item was seen in a run: (interaction number, position in ``returned``, or None for the target).
_Place = tuple[int, "int | None"]


def _shown_place(place: _Place) -> str:
    number, position = place
    return f"interactions[{number}] target" if position is None else f"interactions[{number}] returned[{position}]"


def _check_one_date(place: _Place, item: ReturnedItem, dates: dict[str, tuple[tuple[_dt.date, _dt.date], _Place]], label: str) -> None:
    """One item, one date per run: two datings that cannot both be true are an error naming both places.

    Datings agree when their spans overlap (a day inside a month it was also
    dated by); an undated sighting agrees with any.  Places are spelled out
    only for the error.

    It is called for open-web items only (those with a ``dating``): an entry
    without one is a corpus item's (:func:`_from_corpus` builds the only
    such entries), every sighting of a corpus id is that same entry with
    the corpus's day (an inline entry that disagrees is refused by
    :func:`_inline`), and an open-web item never has a corpus id, so a
    corpus item can neither disagree with itself nor meet an open-web one.
    """
    span = _span(item)
    if span is None:
        return
    first = dates.get(item.id)
    if first is None:
        dates[item.id] = (span, place)
        return
    (low, high), where = first
    if span[1] < low or high < span[0]:
        raise AnachronError(
            f"{label}: item '{item.id}' is dated {_shown_span(first[0])} at {_shown_place(where)}"
            f" and {_shown_span(span)} at {_shown_place(place)}"
        )


def _interaction(
    label: str, number: int, obj: Any, corpus: Corpus, cache: dict[str, ReturnedItem], dates: dict,
    singles: frozenset[str] = frozenset(),
) -> Interaction:
    """Call *number* of the trace *label*.  The checks are those of :class:`Fields`, done inline
    (this runs once per tool call); the place is spelled out only for an error.  *dates* holds
    the run's dating of each item (:func:`_check_one_date`)."""
    if not isinstance(obj, dict):
        raise AnachronError(f"{label} interactions[{number}]: an interaction must be an object, got {describe(obj)}")
    tool = obj.get("tool")
    if not isinstance(tool, str):
        Fields(f"{label} interactions[{number}]", obj).text("tool", nonempty=False)  # raises: missing or mistyped
    # as called: a lock logs (and refuses) a call to any name
    if not _CALL_FIELD_SET.issuperset(obj):
        _check_near_misses(Fields(f"{label} interactions[{number}]", obj), _CALL_FIELDS)
    query = obj.get("query")
    status = obj.get("status", "ok")
    if status == "ok" and "returned" not in obj and obj.get("retrieval", True) is True:
        status = "unrecorded"  # no result field is no known result: an empty one is "returned": []
    returned = obj.get("returned", [])
    if (
        (query is not None and not isinstance(query, str))
        or status not in STATUSES
        or not isinstance(returned, list)
        or (returned and status != "ok")
        or (status == "unrecorded" and "returned" in obj)
    ):
        _bad_interaction(Fields(f"{label} interactions[{number}]", obj), query, status, returned)
    now = _time(Fields(f"{label} interactions[{number}]", obj)) if obj.get("time") is not None else None
    resolved = _known_ids(returned, cache)
    if resolved is None:
        resolved = _resolved(label, number, returned, corpus, now, cache, dates, singles)
    target = obj.get("target")
    if target is not None:
        target = _target(f"{label} interactions[{number}] target", target, corpus, cache, singles)
        if target is not None and target.dating is not None:
            _check_one_date((number, None), target, dates, label)
    command = obj.get("command")
    if command is not None and not isinstance(command, str):
        raise Fields(f"{label} interactions[{number}]", obj).error("command", f"expected a string or null, got {describe(command)}")
    retrieval = obj.get("retrieval", True)
    if not isinstance(retrieval, bool) or (not retrieval and resolved):
        raise Fields(f"{label} interactions[{number}]", obj).error(
            "retrieval", "expected true, or false for a local call that returned no items"
        )
    receipt = obj.get("receipt")
    if receipt is not None and (type(receipt) is not int or receipt < 1):
        raise Fields(f"{label} interactions[{number}]", obj).error("receipt", f"expected a positive integer or null, got {describe(receipt)}")
    return _interaction_of(
        tool=tool, query=query, returned=resolved, status=status, target=target, time=now, command=command,
        retrieval=retrieval, receipt=receipt,
    )


def _check_near_misses(f: Fields, known: tuple[str, ...]) -> None:
    """Refuse an unknown field of *f* a letter or two from a known one the object lacks, naming the likely one."""
    absent = tuple(name for name in known if name not in f.obj)
    for name in f.obj:
        if name not in known:
            close = _near_miss(name, absent)
            if close is not None:
                raise AnachronError(f"{f.where}: unknown field {name!r} (did you mean {close!r}?)")


@functools.lru_cache(maxsize=4096)  # an adapter's extra fields recur on every call of a log
def _near_miss(name: str, absent: tuple[str, ...]) -> str | None:
    if name in EXTENSION_NAMES:
        return None
    close = difflib.get_close_matches(name, absent, n=1, cutoff=NEAR_MISS)
    return close[0] if close else None


def _known_ids(returned: list, cache: dict[str, ReturnedItem]) -> tuple[ReturnedItem, ...] | None:
    """The entries of *returned* when it is a list of distinct ids of corpus items already resolved
    this run (the commonest result), else ``None`` (see :func:`_resolved`).

    The same as :func:`_resolved` gives for such a list: each id's entry is the cached one, a
    corpus item has no date to check (:func:`_check_one_date`), and distinct ids are distinct items.
    """
    try:
        items = tuple(map(cache.__getitem__, returned))  # KeyError: not resolved yet; TypeError: an object
    except (KeyError, TypeError):
        return None
    return items if len(set(returned)) == len(returned) else None


def _resolved(
    label: str, number: int, returned: list, corpus: Corpus, now: _dt.datetime | None,
    cache: dict[str, ReturnedItem], dates: dict, singles: frozenset[str],
) -> tuple[ReturnedItem, ...]:
    """The items of *returned*, each checked and resolved; an item listed twice counts once."""
    resolved: list[ReturnedItem] = []
    seen: set[str] = set()
    for index, entry in enumerate(returned):
        item = cache.get(entry) if type(entry) is str else None
        if item is None:
            item = _resolve(f"{label} interactions[{number}] returned[{index}]", entry, corpus, now, cache, singles)
        if item.dating is not None:  # a corpus item (no dating) has one date: see _check_one_date
            _check_one_date((number, index), item, dates, label)
        if item.id not in seen:  # the same item twice in one result is one surfacing
            seen.add(item.id)
            resolved.append(item)
    return tuple(resolved)


def _bad_interaction(f: Fields, query: Any, status: Any, returned: Any) -> None:
    """Raise the error of the first field of an interaction that breaks its rule."""
    if query is not None and not isinstance(query, str):
        raise f.error("query", f"expected a string or null, got {describe(query)}")
    if status not in STATUSES:
        raise f.error("status", f"{describe(status)} is not one of {', '.join(STATUSES)}")
    if not isinstance(returned, list):
        raise f.error("returned", f"expected a list, got {describe(returned)}")
    if status == "unrecorded":
        raise f.error("returned", "an 'unrecorded' call has no 'returned': its result is not in the log")
    raise f.error("returned", f"a call with status '{status}' returned nothing to the agent")


def parse_traces(records: Iterable[Record], corpus: Corpus) -> list[Trace]:
    """Validate trace records ``(where, object)`` against *corpus*.

    ``as_of`` may be omitted when ``sample_id`` names a corpus sample; when
    both are present they must agree.  A sample id may appear once.  An item
    is one item through a run: an inline object naming a corpus item takes
    the corpus's date, entities and ``restates`` (an entry contradicting them
    is an error), and an item dated twice in a run must be dated alike
    (overlapping granules), else the error names the sample and both places.
    """
    return list(iter_traces(records, corpus))


def iter_traces(records: Iterable[Record], corpus: Corpus) -> Iterator[Trace]:
    """:func:`parse_traces`, one trace at a time: each record is validated when it is reached.

    What it keeps between records is the sample ids seen (for the duplicate
    check, with where each was first) and one resolved entry per corpus item
    surfaced, shared by every trace that returns it.
    """
    seen: dict[str, str] = {}
    resolved: dict[str, ReturnedItem] = {}
    for where, obj in records:
        sample_id = sample_id_of(where, obj)
        check_new_sample(where, sample_id, seen)
        yield trace_record(where, obj, corpus, resolved)


def sample_id_of(where: str, obj: Mapping[str, Any]) -> str:
    """The record's ``sample_id``, checked (a non-empty string); an error's where holds the record's file and line."""
    try:
        return Fields(where, obj).text("sample_id")
    except AnachronError as exc:
        file, line = record_location(where)
        exc.locate(file=file, line=line)
        raise


def check_new_sample(where: str, sample_id: str, seen: dict[str, str]) -> None:
    """Record *sample_id* as seen at *where*; a second sighting is an error naming the first."""
    first = seen.get(sample_id)
    if first is not None:
        file, line = record_location(where)
        raise AnachronError(f"{where} (sample {sample_id}): duplicate sample_id (first at {first})",
                            file=file, line=line, sample_id=sample_id)
    seen[sample_id] = where


def check_traces(records: Iterable[Record], corpus: Corpus) -> Iterator[tuple[str, int]]:
    """Validate trace records as :func:`iter_traces` does, one at a time, yielding each one's
    ``(sample_id, number of interactions)``: for a writer that checks what it wrote (``anachron import``).

    Every check of :func:`iter_traces` is made, in the same order, with the
    same errors; what is skipped is the dating of an open-web item that
    appears once in its run (:func:`_singles`), as nothing could disagree
    with its date and dating never fails
    (:func:`~anachron.core.attribution.attribute` never raises).  The
    traces are not returned: their singly seen items are left undated.
    """
    seen: dict[str, str] = {}
    resolved: dict[str, ReturnedItem] = {}
    for where, obj in records:
        sample_id = sample_id_of(where, obj)
        check_new_sample(where, sample_id, seen)
        trace = trace_record(where, obj, corpus, resolved, singles=_singles(obj))
        yield sample_id, len(trace.interactions)


def _singles(obj: Any) -> frozenset[str]:
    """The ids (``id``, else ``url``) of the inline entries of a record's ``returned`` lists and targets
    that appear once in it.  Read as the record is, whatever its shape: a misshapen part counts nothing
    (the validation says what is wrong with it)."""
    counts: dict[str, int] = {}
    calls = obj.get("interactions") if isinstance(obj, dict) else None
    for call in calls if isinstance(calls, list) else ():
        if not isinstance(call, dict):
            continue
        returned = call.get("returned")
        entries = [*(returned if isinstance(returned, list) else ()), call.get("target")]
        for entry in entries:
            if isinstance(entry, dict):
                ident = entry.get("id") if entry.get("id") is not None else entry.get("url")
                if isinstance(ident, str):
                    counts[ident] = counts.get(ident, 0) + 1
    return frozenset(ident for ident, n in counts.items() if n == 1)


def trace_record(
    where: str, obj: Mapping[str, Any], corpus: Corpus, resolved: dict[str, ReturnedItem] | None = None,
    *, singles: frozenset[str] = frozenset(),
) -> Trace:
    """Validate one trace record (its sample id unchecked for duplicates: see :func:`iter_traces`).

    *resolved* caches the entry of each corpus item by id, across records.
    An error's :attr:`~anachron.core.errors.AnachronError.where` holds the
    record's file and line (a *where* of the readers' ``"file:line"`` form)
    and, once it is read, its sample id.
    """
    sample_id = sample_id_of(where, obj)
    try:
        return _trace(where, obj, sample_id, corpus, resolved, singles)
    except AnachronError as exc:
        file, line = record_location(where)
        exc.locate(file=file, line=line, sample_id=sample_id)
        raise


def _trace(
    where: str, obj: Mapping[str, Any], sample_id: str, corpus: Corpus, resolved: dict[str, ReturnedItem] | None,
    singles: frozenset[str] = frozenset(),
) -> Trace:
    label = f"{where} (sample {sample_id})"
    f = Fields(label, obj)
    _check_near_misses(f, _TRACE_FIELDS)
    cache = resolved if resolved is not None else {}
    sample = corpus.sample_of(sample_id)
    as_of = f.date("as_of", nullable=True)
    if as_of is None:
        if sample is None:
            raise AnachronError(f"{label}: missing field 'as_of' and the sample is not in the corpus")
        as_of = sample.as_of
    elif sample is not None and sample.as_of != as_of:
        raise f.error("as_of", f"{as_of} disagrees with the corpus sample's as_of {sample.as_of}")
    mode = obj.get("mode")
    if mode is not None and mode not in MODES:
        raise f.error("mode", f"{describe(mode)} is not one of {', '.join(MODES)}{_hint(did_you_mean(mode, MODES))}")
    interactions = f.list("interactions")
    dates: dict[str, tuple[tuple[_dt.date, _dt.date], _Place]] = {}
    parsed = tuple(_interaction(label, i, entry, corpus, cache, dates, singles) for i, entry in enumerate(interactions))
    unreturned = [i for i, call in enumerate(parsed) if call.status == "unrecorded" and interactions[i].get("status", "ok") == "ok"]
    answer = obj.get("answer")
    if answer is not None and not isinstance(answer, str):
        raise f.error("answer", f"expected a string or null, got {describe(answer)}")
    citations = obj.get("citations", [])
    if not isinstance(citations, list) or not all(isinstance(c, str) and c for c in citations):
        raise f.error("citations", f"expected a list of non-empty strings, got {describe(citations)}")
    warnings = warnings_of(f)
    if unreturned:
        warnings += (_unreturned_warning(unreturned),)
    return Trace(sample_id, as_of, mode, parsed, f.extra(_TRACE_FIELDS), answer, tuple(citations), warnings)


def _hint(text: str) -> str:
    """did_you_mean's ``"did you mean 'x'? "`` as a parenthesis closing a message; ``""`` stays ``""``."""
    return f" ({text.strip()})" if text else ""


def _unreturned_warning(numbers: list[int]) -> str:
    shown = ", ".join(f"interactions[{n}]" for n in numbers[:3]) + (", ..." if len(numbers) > 3 else "")
    return (
        f"{len(numbers)} call(s) with no 'returned' field ({shown}) are scored unrecorded (clean in tclr_low, leaking in"
        " tclr_high); write \"returned\": [] for a call that showed nothing, or check the field's spelling"
    )


def warnings_of(f: Fields) -> tuple[str, ...]:
    """A record's ``warnings``: a list of non-empty strings (absent: none), each made one line.

    Whitespace runs (a line break, U+2028 too) become one space, so a warning
    is one line wherever it is printed, and a warning longer than
    :data:`WARNING_CHARS` is cut, with ``...``.  Lone surrogates are kept, as
    in every other string (the JSON writer escapes them).

    >>> warnings_of(Fields("t", {"warnings": ["3 calls\u2028 had no result", "x" * 600]}))[0]
    '3 calls had no result'
    >>> len(warnings_of(Fields("t", {"warnings": ["x" * 600]}))[0])
    500
    """
    value = f.obj.get("warnings", [])
    if not isinstance(value, list) or not all(isinstance(w, str) and w.strip() for w in value):
        raise f.error("warnings", f"expected a list of non-empty strings, got {describe(value)}")
    lines = (" ".join(w.split()) for w in value)
    return tuple(w if len(w) <= WARNING_CHARS else w[: WARNING_CHARS - 3] + "..." for w in lines)


def load_traces(path: str | os.PathLike[str], corpus: Corpus) -> list[Trace]:
    """Read and validate a trace file (JSON Lines); a file with no record is an error (:func:`no_trace_record`)."""
    return parse_traces(some_records(read_records(path), path), corpus)


def no_trace_record(path: str | os.PathLike[str]) -> AnachronError:
    """The error for a trace file with no record (empty, or blank lines only): scored, it would be a
    clean run of no sample, "mean TCLR n/a"; it is more likely the wrong file or a writer that never wrote."""
    return AnachronError(f"{path}: no trace record", file=path)


def some_records(records: Iterable[Record], path: str | os.PathLike[str]) -> Iterator[Record]:
    """*records*, one at a time, then :func:`no_trace_record` for *path* when there was none."""
    empty = True
    for record in records:
        empty = False
        yield record
    if empty:
        raise no_trace_record(path)
