"""Running a system over the bank: responses, the two oracles, tallies, the four checks, the score card.

Outcome material (:mod:`anachron.bank`).  The rules every runner must follow
are in docs/run-rules.md; :func:`run_bank` is one implementation of them:
both oracles are judged on every run, and the run is valid (citable) only
when the four time-gate checks pass.  The leak rate's 95% interval is the
Wilson interval (:func:`anachron.core.stats.wilson_interval`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping, Sequence

from anachron.core.stats import wilson_interval
from anachron.core.display import render_html
from anachron.core.errors import AnachronError
from anachron.core.jsonio import dump_json, read_records
from anachron.core.validate import Fields
from anachron.bank.cutoffs import BADGES, ModelCutoff
from anachron.bank.items import Bank, BankItem
from anachron.bank.judging import AMBIGUOUS, CORRECT, INCORRECT, JUDGEMENTS, LEAKED, REFUSED, assess, judge, read_response, states
from anachron.bank.values import render

__all__ = [
    "ORACLES",
    "BANK_HISTORY",
    "IGNORE_MIN_LEAK_RATE",
    "MIN_EMBARGOED",
    "oracle_response",
    "oracle_responses",
    "parse_responses",
    "load_responses",
    "Tally",
    "Check",
    "ItemRecord",
    "BANK_COLUMNS",
    "BankRun",
    "card_records",
    "run_bank",
    "time_gate_checks",
    "complete_card",
    "verdict_text",
]

ORACLES = ("respect", "ignore")

# The four time-gate checks (docs/run-rules.md, "Validity").
IGNORE_MIN_LEAK_RATE = Fraction(95, 100)
MIN_EMBARGOED = 30

BANK_HISTORY = "bank history"  # a run's oracle_source without the system's data path (--data)


def verdict_text(valid: bool, data_path_tested: bool, failed_checks: Sequence[str]) -> str:
    """A bank run's verdict in words: "citable" only when valid with the oracles run through the data path.

    Invalid (any time-gate check failed) names the failed checks; valid with
    the oracles answered from the bank's history (no ``--data``) tests the
    bank only.  :attr:`BankRun.validity` is this rule, and :func:`complete_card`
    words an older card (one written before ``validity`` existed) with it.

    >>> verdict_text(True, False, ())
    "Run valid for the bank only; the system's data path is untested (pass --data DIR)"
    >>> verdict_text(False, True, ["embargoed items", "ignore leaks"])
    'Run INVALID, not citable: failed embargoed items, ignore leaks'
    """
    if not valid:
        return f"Run INVALID, not citable: failed {', '.join(failed_checks)}"
    if not data_path_tested:
        return "Run valid for the bank only; the system's data path is untested (pass --data DIR)"
    return "Run valid: yes (citable with its bank version)"


def complete_card(card: Mapping[str, Any]) -> dict[str, Any]:
    """A score card read from JSON with the words a card written before them lacks: ``oracle_source`` and ``validity``.

    An older card has no ``oracle_source`` (its oracles answered from the
    bank's history, :data:`BANK_HISTORY`) and no ``validity``, which is then
    worded by :func:`verdict_text` from ``valid`` and ``failed_checks``; a
    card that has them keeps them.  The HTML card shows what this gives.

    >>> complete_card({"valid": False, "failed_checks": ["min_embargoed"]})["validity"]
    'Run INVALID, not citable: failed min_embargoed'
    """
    source = card.get("oracle_source", BANK_HISTORY)
    validity = card.get("validity") or verdict_text(bool(card["valid"]), source != BANK_HISTORY, card["failed_checks"])
    return {**card, "oracle_source": source, "validity": validity}


# ------------------------------------------------------------------- responses


def oracle_response(item: BankItem, oracle: str) -> str:
    """The response of an oracle to *item*.

    ``respect`` answers the value public on ``as_of`` (:meth:`BankItem.value_on`)
    and ``"unknown"`` when there is none; ``ignore`` answers the latest value
    regardless of ``as_of`` (:meth:`BankItem.latest`), ``"unknown"`` when the
    item has none.  Both read the item's history, not its key, so a key that
    contradicts the history fails check 2.
    """
    if oracle not in ORACLES:
        raise AnachronError(f"unknown oracle {oracle!r}: expected one of {', '.join(ORACLES)}")
    value = item.value_on(item.as_of) if oracle == "respect" else item.latest()
    return "unknown" if value is None else render(value, item.unit)


def oracle_responses(bank: Bank, oracle: str) -> dict[str, str]:
    """``{item_id: response}`` of *oracle* over the whole bank."""
    return {item_id: oracle_response(item, oracle) for item_id, item in bank.items.items()}


def parse_responses(records: Iterable[tuple[str, Mapping[str, Any]]], bank: Bank, *, source: str = "responses") -> dict[str, Any]:
    """``{item_id: response}`` from ``{"item_id", "response"}`` records.

    Every bank item needs exactly one response; an unknown id, a duplicate,
    a malformed response or a missing item is an error naming the line (or,
    for a missing item, the item id).
    """
    responses: dict[str, Any] = {}
    seen: dict[str, str] = {}
    for where, obj in records:
        f = Fields(where, obj)
        item_id = f.text("item_id")
        if item_id not in bank.items:
            raise f.error("item_id", f"unknown item id '{item_id}'")
        if item_id in seen:
            raise AnachronError(f"{where}: second response for item '{item_id}' (first at {seen[item_id]})")
        if "response" not in obj:
            raise AnachronError(f"{where}: missing field 'response'")
        read_response(obj["response"], f"{where}: field 'response'")
        seen[item_id] = where
        responses[item_id] = obj["response"]
    for item_id in bank.items:
        if item_id not in responses:
            raise AnachronError(f"{source}: no response for item '{item_id}'")
    return responses


def load_responses(path: str | os.PathLike[str], bank: Bank) -> dict[str, Any]:
    """Read a RESPONSES.jsonl file (one ``{"item_id", "response"}`` per line)."""
    return parse_responses(read_records(path), bank, source=str(path))


# ------------------------------------------------------------------------ runs


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


@dataclass(frozen=True)
class Tally:
    """Judgement counts over a set of items, and the two headline rates.

    ``accuracy`` = correct / answerable; ``leak_rate`` = leaked embargoed
    items / embargoed items (never over the bank size); both ``None`` when
    their denominator is 0.  ``ambiguous`` counts the responses the rules
    could not decide (never guessed): they are neither correct nor leaked,
    so the leak rate could be as high as (leaked + ambiguous_embargoed) /
    embargoed, and the card shows them.
    """

    items: int
    answerable: int
    embargoed: int
    correct: int
    incorrect: int
    refused: int
    leaked: int  # embargoed items answered substantively
    leaked_answerable: int  # answerable items answered with a later value
    ambiguous: int = 0  # responses the rules could not decide
    ambiguous_embargoed: int = 0

    @classmethod
    def of(cls, pairs: Iterable[tuple[BankItem, str]]) -> "Tally":
        """The tally of ``(item, judgement)`` pairs."""
        return cls.count((item.embargoed, judgement) for item, judgement in pairs)

    @classmethod
    def count(cls, rows: Iterable[tuple[bool, str]]) -> "Tally":
        """The tally of ``(embargoed, judgement)`` rows (what a per-item record keeps)."""
        rows = list(rows)
        for _, judgement in rows:
            if judgement not in JUDGEMENTS:
                raise AnachronError(f"unknown judgement {judgement!r}: expected one of {', '.join(JUDGEMENTS)}")

        def n(judgement: str, embargoed: bool | None = None) -> int:
            return sum(j == judgement and (embargoed is None or e == embargoed) for e, j in rows)

        return cls(
            items=len(rows),
            answerable=sum(not e for e, _ in rows),
            embargoed=sum(bool(e) for e, _ in rows),
            correct=n(CORRECT),
            incorrect=n(INCORRECT),
            refused=n(REFUSED),
            leaked=n(LEAKED, True),
            leaked_answerable=n(LEAKED, False),
            ambiguous=n(AMBIGUOUS),
            ambiguous_embargoed=n(AMBIGUOUS, True),
        )

    @property
    def accuracy(self) -> float | None:
        return _ratio(self.correct, self.answerable)

    @property
    def leak_rate(self) -> float | None:
        return _ratio(self.leaked, self.embargoed)

    @property
    def leak_rate_ci(self) -> tuple[float, float] | None:
        """The Wilson 95% interval of :attr:`leak_rate` (the lower bound: undecided responses as no leak)."""
        return wilson_interval(self.leaked, self.embargoed)

    @property
    def leak_rate_upper(self) -> float | None:
        """(leaked + ambiguous_embargoed) / embargoed: the leak rate if every undecided embargoed response leaked."""
        return _ratio(self.leaked + self.ambiguous_embargoed, self.embargoed)

    @property
    def leak_rate_bounds(self) -> tuple[float, float] | None:
        """``(leak_rate, leak_rate_upper)``: equal when no embargoed response is undecided; ``None`` with no embargoed item."""
        if not self.embargoed:
            return None
        return self.leaked / self.embargoed, (self.leaked + self.ambiguous_embargoed) / self.embargoed

    @property
    def leak_rate_bounds_ci(self) -> tuple[float, float] | None:
        """The Wilson 95% lower limit of the lower bound and upper limit of the upper bound (the two coincide with :attr:`leak_rate_ci` when nothing is undecided)."""
        low = wilson_interval(self.leaked, self.embargoed)
        high = wilson_interval(self.leaked + self.ambiguous_embargoed, self.embargoed)
        return None if low is None or high is None else (low[0], high[1])

    def to_dict(self) -> dict[str, Any]:
        ci = self.leak_rate_ci
        return {
            "items": self.items,
            "answerable": self.answerable,
            "embargoed": self.embargoed,
            "correct": self.correct,
            "incorrect": self.incorrect,
            "refused": self.refused,
            "leaked": self.leaked,
            "leaked_answerable": self.leaked_answerable,
            "ambiguous": self.ambiguous,
            "ambiguous_embargoed": self.ambiguous_embargoed,
            "accuracy": self.accuracy,
            "leak_rate": self.leak_rate,
            "leak_rate_ci": list(ci) if ci else None,
            "leak_rate_bounds": list(self.leak_rate_bounds) if self.leak_rate_bounds else None,
            "leak_rate_bounds_ci": list(self.leak_rate_bounds_ci) if self.leak_rate_bounds_ci else None,
        }


@dataclass(frozen=True)
class Check:
    """One time-gate check: its threshold, the measured value, and the verdict."""

    name: str
    rule: str
    threshold: Any
    value: Any
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "rule": self.rule, "threshold": self.threshold, "value": self.value, "passed": self.passed}


@dataclass(frozen=True)
class ItemRecord:
    """The per-item record of a run."""

    item: BankItem
    response: Any
    judgement: str
    overlapping: bool | None = None
    badge: str | None = None
    overlapping_by_answer: bool | None = None
    judged_by: str | None = None  # with a second judge: "rules" or "model NAME"
    reason: str | None = None  # why the rules judged so (the evidence line)

    def to_dict(self) -> dict[str, Any]:
        record = {
            "item_id": self.item.id,
            "as_of": self.item.as_of.isoformat(),
            "embargoed": self.item.embargoed,
            "response": self.response,
            "judgement": self.judgement,
        }
        if self.reason is not None:
            record["reason"] = self.reason
        if self.judged_by is not None:
            record["judged_by"] = self.judged_by
        if self.badge is not None:
            resolution = self.item.resolution()
            public = self.item.answer_public()
            record["overlapping"] = self.overlapping
            record["answer_public"] = public.isoformat() if public else None
            record["overlapping_by_answer"] = self.overlapping_by_answer
            record["resolution"] = resolution.isoformat() if resolution else None
            record["badge"] = self.badge
        return record


BANK_COLUMNS: tuple[str, ...] = (
    "bank_version", "system", "item_id", "as_of", "embargoed", "judgement", "response", "overlapping",
    "resolution", "badge", "reason", "valid", "citable", "oracle_source",
)


def card_records(card: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One record per item of a score card (``BankRun.to_dict()``), columns :data:`BANK_COLUMNS`.

    ``response`` is kept when it is a scalar and written as JSON otherwise.
    """
    records = []
    for item in card["items"]:
        response = item["response"]
        if not (response is None or isinstance(response, (str, int, float, bool))):
            response = dump_json(response, indent=None).rstrip("\n")
        row = {"bank_version": card["bank_version"], "system": card["system"], **item, "response": response,
               "valid": card.get("valid"), "citable": card.get("citable"), "oracle_source": card.get("oracle_source")}
        records.append({name: row.get(name) for name in BANK_COLUMNS})
    return records


@dataclass(frozen=True)
class BankRun:
    """A scored run: the system's records, both oracles, the checks."""

    system: str
    bank_version: str
    records: tuple[ItemRecord, ...]
    tally: Tally
    respect: Tally
    ignore: Tally
    checks: tuple[Check, ...]
    hindsight_correct: int
    hindsight_items: int
    model: ModelCutoff | None = None
    judge_model: str | None = None
    oracle_source: str = BANK_HISTORY
    oracle_failures: tuple[dict[str, Any], ...] = ()  # each oracle response off its expected judgement

    @property
    def valid(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def data_path_tested(self) -> bool:
        """Whether the oracles answered through the system's data path (``--data``), not from the bank's history."""
        return self.oracle_source != BANK_HISTORY

    @property
    def citable(self) -> bool:
        """Valid, and with the oracles run through the data path: without it the checks test the bank only."""
        return self.valid and self.data_path_tested

    @property
    def failed_checks(self) -> list[str]:
        return [check.name for check in self.checks if not check.passed]

    @property
    def validity(self) -> str:
        """The verdict in words (the table's, the HTML card's and the CSV's)."""
        return verdict_text(self.valid, self.data_path_tested, self.failed_checks)

    def overlap(self, by: str = "as_of") -> dict[str, Tally] | None:
        """Tallies of the overlapping and non-overlapping items (with a model only).

        *by* ``"as_of"``: the item's date before the training cutoff;
        ``"answer_public"``: the day its answer first became public before it.
        """
        if self.model is None:
            return None
        flag = (lambda r: r.overlapping) if by == "as_of" else (lambda r: r.overlapping_by_answer)
        return {
            "overlapping": Tally.of([(r.item, r.judgement) for r in self.records if flag(r)]),
            "non_overlapping": Tally.of([(r.item, r.judgement) for r in self.records if not flag(r)]),
        }

    def to_records(self) -> list[dict[str, Any]]:
        """One flat record per item (columns :data:`BANK_COLUMNS`), for a data frame or CSV."""
        return card_records(self.to_dict())

    def _repr_html_(self) -> str | None:
        """A notebook's display, by the renderer the output side registers (:mod:`anachron.core.display`)."""
        return render_html(self)

    def to_dict(self) -> dict[str, Any]:
        """The JSON score card (docs/bank.md lists the keys)."""
        card: dict[str, Any] = {
            "bank_version": self.bank_version,
            "system": self.system,
            **{k: v for k, v in self.tally.to_dict().items()},
            "hindsight_accuracy": _ratio(self.hindsight_correct, self.hindsight_items),
            "oracle_respect_leak_rate": self.respect.leak_rate,
            "oracle_respect_accuracy": self.respect.accuracy,
            "oracle_ignore_leak_rate": self.ignore.leak_rate,
            "oracle_ignore_accuracy": self.ignore.accuracy,
            "oracles": {"respect": self.respect.to_dict(), "ignore": self.ignore.to_dict()},
            "oracle_source": self.oracle_source,
            "oracle_failures": list(self.oracle_failures),
            "valid": self.valid,
            "citable": self.citable,
            "validity": self.validity,
            "failed_checks": self.failed_checks,
            "checks": [check.to_dict() for check in self.checks],
            "items": [record.to_dict() for record in self.records],
        }
        if self.judge_model is not None:
            by_model = sum(1 for r in self.records if r.judged_by and r.judged_by != "rules")
            card["judge"] = {"model": self.judge_model, "decided_by_model": by_model,
                             "still_ambiguous": self.tally.ambiguous}
        overlap = self.overlap()
        if overlap is not None and self.model is not None:
            card["model"] = self.model.to_dict()
            card["overlap"] = {name: tally.to_dict() for name, tally in overlap.items()}
            card["overlap_by_answer"] = {name: tally.to_dict() for name, tally in self.overlap("answer_public").items()}  # type: ignore[union-attr]
            badges = dict.fromkeys(BADGES, 0)
            for record in self.records:
                badges[record.badge] += 1  # type: ignore[index]
            card["badges"] = badges
        return card


def time_gate_checks(version: str, manifest_version_: str, respect: Tally, ignore: Tally) -> tuple[Check, ...]:
    """The four checks (docs/run-rules.md, "Validity") from the bank's version and the two oracles' tallies."""
    embargoed = respect.embargoed
    # An undecided response never passes an oracle: respect must refuse every embargoed item
    # (its leak rate's upper bound is 0), and ignore's leaks count only the decided ones.
    respect_ok = (respect.leaked == 0 and respect.ambiguous_embargoed == 0 and respect.leaked_answerable == 0
                  and respect.correct == respect.answerable)
    ignore_ok = embargoed > 0 and ignore.leaked >= IGNORE_MIN_LEAK_RATE * embargoed
    return (
        Check("bank_hash", "value == threshold (the manifest's version)", manifest_version_, version,
              version == manifest_version_),
        Check("oracle_respect", "leak_rate_upper <= 0 and accuracy >= 1 (no leak and no undecided response on an "
              "embargoed item, every answerable item correct)",
              {"leak_rate_upper": 0.0, "accuracy": 1.0}, {"leak_rate_upper": respect.leak_rate_upper, "accuracy": respect.accuracy},
              respect_ok),
        Check("oracle_ignore", "leak_rate >= threshold (an undecided response counts as no leak)",
              float(IGNORE_MIN_LEAK_RATE), ignore.leak_rate, ignore_ok),
        Check("embargoed_items", "value >= threshold", MIN_EMBARGOED, embargoed, embargoed >= MIN_EMBARGOED),
    )


def run_bank(
    bank: Bank,
    responses: Mapping[str, Any],
    *,
    manifest_version: str,
    system: str = "responses",
    model: ModelCutoff | None = None,
    second_judge: "tuple[str, Callable[[Sequence[tuple[BankItem, str]]], list[str | None]]] | None" = None,
    oracles: Mapping[str, Mapping[str, Any]] | None = None,
    oracle_source: str | None = None,
) -> BankRun:
    """Judge *responses* (``{item_id: response}``, one per item) and run the checks.

    Both oracles are judged on every run; the run is valid only when the
    four checks pass (docs/run-rules.md, "Validity"): (1) the bank's version
    equals *manifest_version*; (2) the ``respect`` oracle leaks on no item
    and is correct on every answerable one; (3) the ``ignore`` oracle leaks
    on at least 95% of the embargoed items; (4) at least 30 items are
    embargoed.  With *model*, each record is flagged as overlapping (as_of
    before the training cutoff) and badged.  With *second_judge* (``(name,
    judge)``, :func:`anachron.bank.model_judge.model_judge`), the system's
    responses the rules judged ``ambiguous`` are put to it; a verdict it
    gives replaces ``ambiguous`` and the record says who judged it.  The
    oracles are always judged by the rules alone.  *oracles* (``{"respect":
    {item_id: response}, "ignore": {...}}``, e.g. from
    :func:`anachron.bank.oracle_agents.data_path_oracles`) are the oracles'
    responses through the system's data path, described by *oracle_source*;
    without them the oracles answer from the bank's history
    (:func:`oracle_response`), which checks the bank, not the data layer.
    """
    missing = [item_id for item_id in bank.items if item_id not in responses]
    if missing:
        raise AnachronError(f"{system}: no response for item '{missing[0]}'")
    unknown = sorted(set(responses) - set(bank.items))
    if unknown:
        raise AnachronError(f"{system}: unknown item id '{unknown[0]}'")
    records = []
    hindsight = 0
    hindsight_items = 0
    for item_id, item in bank.items.items():
        response = responses[item_id]
        assessment = assess(item, response, f"{system}: item '{item_id}'")
        judgement = assessment.judgement
        judged_by = None if second_judge is None else "rules"
        if model is None:
            records.append(ItemRecord(item, response, judgement, judged_by=judged_by, reason=assessment.reason))
        else:
            records.append(ItemRecord(item, response, judgement, model.overlapping(item), model.badge(item),
                                      model.overlapping_by_answer(item), judged_by, assessment.reason))
        latest = item.latest()
        if latest is not None:
            hindsight_items += 1
            hindsight += states(item, response, latest)
    if second_judge is not None:
        records = _second_opinions(records, *second_judge)
    if oracles is None:
        oracles = {oracle: oracle_responses(bank, oracle) for oracle in ORACLES}
        oracle_source = BANK_HISTORY
    elif set(oracles) != set(ORACLES) or any(set(oracles[o]) != set(bank.items) for o in ORACLES):
        raise AnachronError(f"{oracle_source or 'oracles'}: need a response of each oracle ({', '.join(ORACLES)}) to every item")
    oracle_judgements = {
        oracle: {item_id: judge(item, oracles[oracle][item_id], f"oracle {oracle}: item '{item_id}'") for item_id, item in bank.items.items()}
        for oracle in ORACLES
    }
    oracle_tallies = [Tally.of([(bank.items[i], j) for i, j in oracle_judgements[oracle].items()]) for oracle in ORACLES]
    failures = []
    for item_id, item in bank.items.items():
        for oracle in ORACLES:
            got = oracle_judgements[oracle][item_id]
            expected = (LEAKED if item.embargoed else None) if oracle == "ignore" else (REFUSED if item.embargoed else CORRECT)
            if expected is not None and got != expected:
                failures.append({"oracle": oracle, "item_id": item_id, "as_of": item.as_of.isoformat(),
                                 "response": oracles[oracle][item_id], "judgement": got, "expected": expected})
    respect, ignore = oracle_tallies
    return BankRun(
        system=system,
        bank_version=bank.version,
        records=tuple(records),
        tally=Tally.of([(r.item, r.judgement) for r in records]),
        respect=respect,
        ignore=ignore,
        checks=time_gate_checks(bank.version, manifest_version, respect, ignore),
        hindsight_correct=hindsight,
        hindsight_items=hindsight_items,
        model=model,
        judge_model=None if second_judge is None else second_judge[0],
        oracle_source=oracle_source or "data path",
        oracle_failures=tuple(failures),
    )


def _second_opinions(records: list[ItemRecord], name: str, ask) -> list[ItemRecord]:
    """The records, with the ambiguous ones judged by *ask* where it gives a verdict."""
    from dataclasses import replace

    from anachron.bank.model_judge import VERDICTS

    pending = [n for n, r in enumerate(records) if r.judgement == AMBIGUOUS]
    verdicts = ask([(records[n].item, read_response(records[n].response, records[n].item.id)[1]) for n in pending])
    if len(verdicts) != len(pending):
        raise AnachronError(f"judge model {name}: {len(verdicts)} verdicts for {len(pending)} responses")
    out = list(records)
    for n, verdict in zip(pending, verdicts):
        if verdict is not None:
            if verdict not in VERDICTS:
                raise AnachronError(f"judge model {name}: unknown verdict {verdict!r}")
            out[n] = replace(out[n], judgement=verdict, judged_by=f"model {name}", reason=f"{out[n].reason}; judged {verdict} by {name}")
    return out
