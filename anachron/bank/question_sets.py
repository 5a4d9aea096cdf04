"""Reading a question set for ``anachron bank crosscheck`` (the check itself: :mod:`anachron.bank.crosscheck`).

Outcome material: question sets hold their answers.  Three shapes (docs/bank.md, "Leaks between questions"):

- **a bank** (``anachron-bank/1`` lines, ``{"id", "question", "answer",
  "values", ...}``): the title is the question, the resolution the value
  that settles it (an embargoed item's first later value, else its answer),
  T its ``as_of``;
- **plain JSON Lines**: ``{"id", "title", "body"?, "options"?, "resolution",
  "as_of"?, "batch"?}`` (``resolution`` null or absent: unresolved);
- **a ForecastBench question set** (one JSON object with ``questions:
  [{id, question, background, resolution_criteria, ...}]``): the title is
  ``question``, the body ``background`` and ``resolution_criteria``, T the
  set's ``forecast_due_date``, the batch the set's name; a question's
  ``resolution`` is read when present (ForecastBench's binary questions
  carry none, and yes/no is never matched by itself).
"""

from __future__ import annotations

import math
import os
from typing import Any, Mapping

from anachron.bank.crosscheck import CrossCheck, Question
from anachron.bank.items import parse_bank
from anachron.core.attribution import day_field
from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import parse_json, read_records, read_text, record_location

__all__ = ["load_questions", "render_crosscheck"]


def _string(where: str, obj: Mapping[str, Any], name: str, *, required: bool = False) -> str:
    value = obj.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise AnachronError(f"{where}: {name} is {describe(value)}, expected {'a non-empty' if required else 'a'} string")
    return value


def _id(where: str, obj: Mapping[str, Any]) -> str:
    value = obj.get("id")
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return "+".join(value)
    if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value):
        return str(value)
    raise AnachronError(f"{where}: id is {describe(value)}, expected a non-empty string")


def _resolution(where: str, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):  # 1e400 parses as infinity
            raise AnachronError(f"{where}: resolution is {describe(value)}, expected a finite number")
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return value
    raise AnachronError(f"{where}: resolution is {describe(value)}, expected a string, a number or null")


def _options(where: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise AnachronError(f"{where}: options is {describe(value)}, expected an array of strings")
    return tuple(value)


def _bank_question(where: str, obj: Mapping[str, Any]) -> Question:
    """A bank line as a question, read by the bank's own parser (so its rules, ``BankItem.later_values``
    among them, are not written again here)."""
    (item,) = parse_bank([(where, obj)]).items.values()
    later = item.later_values()
    resolution = later[0][0] if item.embargoed and later else item.answer
    return Question(item.id, item.question, resolution=resolution, as_of=item.as_of)


def load_questions(path: str | os.PathLike[str]) -> list[Question]:
    """The questions of *path* (any of the three shapes); ids must be unique."""
    text = read_text(path)
    questions: list[Question] = []
    wheres: list[str] = []
    obj = None
    if text.lstrip().startswith("{"):
        try:
            obj = parse_json(text, str(path), multiline=True)
        except AnachronError:
            obj = None
    if isinstance(obj, dict) and "questions" in obj and not isinstance(obj["questions"], list):
        raise AnachronError(f"{path}: questions is {describe(obj['questions'])}, expected an array (a ForecastBench question set)")
    if isinstance(obj, dict) and isinstance(obj.get("questions"), list):
        batch = obj.get("question_set") if isinstance(obj.get("question_set"), str) else os.path.basename(str(path))
        as_of = day_field(str(path), obj, "forecast_due_date")
        for i, entry in enumerate(obj["questions"]):
            where = f"{path}: questions[{i}]"
            if not isinstance(entry, dict):
                raise AnachronError(f"{where}: expected an object, got {describe(entry)}")
            wheres.append(where)
            body = "\n".join(t for t in (_string(where, entry, "background"), _string(where, entry, "resolution_criteria")) if t)
            questions.append(Question(_id(where, entry), _string(where, entry, "question", required=True), body,
                                      resolution=_resolution(where, entry.get("resolution")), as_of=as_of, batch=batch))
    else:
        for where, entry in read_records(path):
            wheres.append(where)
            try:
                if "values" in entry and "question" in entry:
                    questions.append(_bank_question(where, entry))
                    continue
                if "title" not in entry:
                    raise AnachronError(f"{where}: no title (a question is {{\"id\", \"title\", \"resolution\", ...}})")
                batch = entry.get("batch")
                if batch is not None and not isinstance(batch, str):
                    raise AnachronError(f"{where}: batch is {describe(batch)}, expected a string")
                questions.append(Question(
                    _id(where, entry), _string(where, entry, "title", required=True), _string(where, entry, "body"),
                    _options(where, entry.get("options")), _resolution(where, entry.get("resolution")),
                    day_field(where, entry, "as_of"), batch,
                ))
            except AnachronError as exc:
                file, line = record_location(where)
                exc.locate(file=file, line=line)
                raise
    seen: dict[str, str] = {}
    for q, where in zip(questions, wheres):
        if q.id in seen:
            exc = AnachronError(f"{where}: question id {q.id!r} appears twice (first at {seen[q.id]})")
            file, line = record_location(where)
            if line is not None:
                exc.locate(file=file, line=line)
            raise exc
        seen[q.id] = where
    if not questions:
        raise AnachronError(f"{path}: no question")
    return questions


def render_crosscheck(result: CrossCheck, total: int) -> str:
    """The table: each pair, then the counts and the leak-free subset's size."""
    leaked = total - len(result.leak_free)
    lines = [
        f"Leaks between questions: {leaked} of {total} questions have their resolution written in another question "
        f"({len(result.pairs)} pairs; {result.checked} answers checked, {result.uninformative} too bare to match by "
        f"themselves, {result.unresolved} unresolved)",
    ]
    if result.pairs:
        header = ("question", "leaked_by", "route", "match")
        rows = [(p.question, p.leaked_by, p.route, p.match) for p in result.pairs]
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
        lines.append("  " + "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
        lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    lines.append(f"Leak-free subset: {len(result.leak_free)} questions (--format json lists them)")
    return "\n".join(lines) + "\n"
