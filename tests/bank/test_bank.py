"""The question bank core: judgement, version id, oracles, the four checks, cutoffs, Wilson."""

import copy
import datetime as dt
import hashlib
import json
import unittest

from anachron.bank import (
    ModelCutoff,
    bank_version,
    canonical_text,
    judge,
    load_bank,
    manifest,
    manifest_differences,
    oracle_response,
    oracle_responses,
    parse_bank,
    parse_model_cutoffs,
    parse_responses,
    run_bank,
)
from anachron.core import default_corpus_dir
from anachron.core.stats import wilson_interval
from anachron.core.errors import AnachronError

BANK_PATH = default_corpus_dir() / "bank.jsonl"
D = dt.date.fromisoformat


def bank_records():
    """The bundled bank's records, fresh copies (tests mutate them)."""
    return [json.loads(line) for line in BANK_PATH.read_text(encoding="utf-8").splitlines()]


def parse(records):
    return parse_bank((f"test:{n}", r) for n, r in enumerate(records, start=1))


def item(**overrides):
    """A small USD item: 100 published 2020-02-01, restated to 90 on 2020-06-01, asked on 2020-03-01."""
    record = {
        "id": "x-1", "as_of": "2020-03-01", "instrument": "X", "field": "revenue", "period": "2019-Q4",
        "unit": "USD", "question": "q", "embargoed": False, "answer": "100000000",
        "values": [{"value": "100000000", "published": "2020-02-01"}, {"value": "90000000", "published": "2020-06-01"}],
        "initial": None,
    }
    record.update(overrides)
    return parse([record]).items[record["id"]]


class BundledBankTest(unittest.TestCase):
    def test_composition(self):
        bank = load_bank()
        counts = manifest(bank)
        self.assertGreaterEqual(counts["items"], 148)
        self.assertGreaterEqual(counts["embargoed"], 40)
        self.assertEqual(counts["answerable"] + counts["embargoed"], counts["items"])
        self.assertGreaterEqual(len({i.unit for i in bank.items.values()}), 3)
        self.assertGreaterEqual(len(counts["fields"]), 3)
        self.assertGreater(counts["revision_items"], 0)

    def test_every_embargoed_item_has_no_value_public_on_its_day(self):
        for i in load_bank().items.values():
            public = [v for v, published in i.values if published <= i.as_of]
            self.assertEqual(i.embargoed, not public and i.initial is None, i.id)
            if not i.embargoed:
                self.assertEqual(i.answer, public[-1] if public else i.initial, i.id)


class JudgementTest(unittest.TestCase):
    def setUp(self):
        self.bank = load_bank()

    def judge(self, item_id, response):
        return judge(self.bank.items[item_id], response)

    def assertJudged(self, item_id, expected, *responses):
        for response in responses:
            with self.subTest(item=item_id, response=response):
                self.assertEqual(self.judge(item_id, response), expected)

    # The DLTP 2020-Q4 revenue: $412M published 2021-02-04, restated to $377M on 2021-09-17.
    def test_correct_in_every_documented_spelling(self):
        self.assertJudged(
            "dltp-revenue-2020q4-2021-02-04", "correct",
            "$412M", "412 million", "0.412B", "412,000,000", "USD 412m", "US$ 412 mn", "412 million US dollars",
            "Q4 2020 revenue was $412M, up 12% from Q4 2019.",
            "Revenue for 2020-Q4 (reported 2021-02-04, i.e. February 4, 2021): $412 million",
            {"answer": "$412M"}, {"answer": "$412M", "refused": False}, '{"answer": "412 million"}',
        )

    def test_tolerance_is_half_a_percent_either_side(self):
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "correct", "$414.06M", "$409.94M", "about $0.41 billion")
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "incorrect", "$414.07M", "$409.93M")

    def test_a_figure_must_carry_its_scale(self):
        # Digits without a scale are no answer the rules can accept or reject: counted as ambiguous.
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "ambiguous", "412", "Revenue was 412.")
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "correct", "Revenue (USD millions): 412", "412 (in millions)")

    def test_percent_count_tonnes_and_status_units(self):
        self.assertJudged("orcs-gross_margin-2022q2-2022-08-04", "correct", "48.1%", "48.1 percent", "48.1 per cent", "48.1")
        self.assertJudged("orcs-gross_margin-2022q2-2022-08-04", "correct", "0.481", "a ratio of 0.481")
        self.assertJudged("orcs-gross_margin-2022q2-2022-08-04", "incorrect", "$48.1", "4.81%")
        self.assertJudged("mrdt-subscribers-fy2021-2022-03-01", "correct", "12.4 million", "12,400,000 subscribers", "12.4M")
        self.assertJudged("borx-copper_output-2018q4-2019-03-12", "correct", "41,000 tonnes", "41k tonnes", "41000")
        self.assertJudged("lmnr-comparable_sales_growth-2021q3-2021-11-03", "correct", "4.1%", "+4.1%")
        self.assertJudged("lmnr-comparable_sales_growth-2021q3-2021-11-03", "incorrect", "-4.1%", "4%")
        self.assertJudged("cygn-listing_status-2023-02-02", "correct", "not listed", "Not yet listed.", "unlisted", "It is not public yet")
        self.assertJudged("borx-listing_status-2019-11-06", "correct", "delisted", "no longer listed")

    def test_years_dates_and_periods_are_not_figures(self):
        # "2021" alone states no figure: not a refusal phrase either, so incorrect.
        self.assertJudged("mrdt-subscribers-fy2021-2022-03-01", "incorrect", "2021", "FY2021 (Q4 2021)")
        self.assertJudged("dltp-revenue-2020q4-2021-02-03", "refused", "Not yet reported as of 2021-02-03.", "Unknown until Q4'20 results on Feb 4, 2021")

    def test_refusals(self):
        self.assertJudged(
            "dltp-revenue-2020q4-2021-02-03", "refused",
            "unknown", "Unknown.", "I don't know", "I don\u2019t know", "I cannot determine that", "N/A",
            "not yet published", "", "   ", {"refused": True}, '{"refused": true}', ' {"refused": true} ',
        )
        # A refusal on an answerable item is still a refusal (and is not correct).
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "refused", "unknown", {"refused": True})

    def test_any_substantive_answer_to_an_embargoed_item_leaks(self):
        self.assertJudged(
            "dltp-revenue-2020q4-2021-02-03", "leaked",
            "$412M", "probably $400M", "It rose strongly", "I don't know, maybe $412M", '{"refused": false, "answer": "It fell"}',
        )
        self.assertJudged("cygn-ipo_price-2023-01-12", "leaked", "$18")

    def test_a_figure_published_after_the_day_leaks_even_when_answerable(self):
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "leaked", "$377M", "$412M, later restated to $377M", "$412M or $377M")
        self.assertJudged("dltp-revenue-2020q4-2021-09-16", "leaked", "377 million")
        self.assertJudged("orcs-gross_margin-2022q2-2022-08-04", "leaked", "44.9%")
        self.assertJudged("cygn-listing_status-2023-02-02", "leaked", "listed", "Private now; it was listed later")
        self.assertJudged("borx-listing_status-2019-10-30", "leaked", "delisted", "listed (until 2019-11-05, then delisted)")

    def test_an_older_figure_after_the_restatement_is_incorrect_not_a_leak(self):
        self.assertJudged("dltp-revenue-2020q4-2021-09-17", "incorrect", "$412M")
        self.assertJudged("dltp-revenue-2020q4-2021-09-17", "correct", "$377M")

    def test_the_first_figure_is_the_answer(self):
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "incorrect", "$400M")
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "ambiguous", "$400M or $412M")
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "correct", "Up from $380M a year earlier, revenue was $412M")
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "correct", "$412M, not $400M")

    def test_malformed_responses_are_errors(self):
        target = self.bank.items["dltp-revenue-2020q4-2021-02-04"]
        for bad, message in (
            ({"refused": "yes"}, "true or false"),
            ({"foo": 1}, "unknown key 'foo'"),
            ({"refused": True, "answer": "$412M"}, "both"),
            ({"answer": 412}, "must be a string"),
            ({}, "needs"),
            (412, "string or an object"),
            (None, "string or an object"),
        ):
            with self.subTest(bad=bad):
                with self.assertRaisesRegex(AnachronError, message):
                    judge(target, bad)


class VersionTest(unittest.TestCase):
    def test_the_committed_bank_is_canonical_and_its_file_hash_is_the_version(self):
        data = BANK_PATH.read_bytes()
        bank = load_bank()
        self.assertEqual(bank.canonical.encode("utf-8"), data)
        self.assertEqual(bank.version, "sha256:" + hashlib.sha256(data).hexdigest())
        manifest_obj = json.loads((BANK_PATH.parent / "bank.manifest.json").read_text(encoding="utf-8"))
        self.assertEqual(manifest_obj["version"], bank.version)
        self.assertEqual(manifest_differences(bank, manifest_obj, "m"), [])

    def test_order_and_formatting_do_not_change_the_version(self):
        records = bank_records()
        shuffled = list(reversed(records))
        shuffled[0] = dict(reversed(list(shuffled[0].items())))
        self.assertEqual(parse(shuffled).version, load_bank().version)

    def test_any_change_changes_the_version(self):
        records = bank_records()
        records[5]["question"] += " "
        tampered = parse(records)
        self.assertNotEqual(tampered.version, load_bank().version)
        differences = manifest_differences(tampered, manifest(load_bank()), "m")
        self.assertTrue(differences[0].startswith("version: "), differences)

    def test_keys_sort_by_utf16_code_units_as_rfc_8785_requires(self):
        # U+1F600 is D83D DE00 in UTF-16, below U+FF61; code-point order would put it last.
        text = canonical_text([{"\uff61": 1, "\U0001F600": 2, "a": "\u00e9\n\x01"}])
        self.assertEqual(text, '{"a":"\u00e9\\n\\u0001","\U0001F600":2,"\uff61":1}\n')
        self.assertEqual(bank_version(text), "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest())

    def test_unrepresentable_values_are_rejected(self):
        for key, value, message in (
            ("score", 0.5, "non-integer number"),
            ("big", 2**53, "beyond 2\\*\\*53"),
            ("s", "\ud800", "lone surrogate"),
        ):
            records = bank_records()[:1]
            records[0][key] = value
            with self.subTest(key=key), self.assertRaisesRegex(AnachronError, f"test:1 .*{message}"):
                parse(records)

    def test_structural_errors_name_the_line_and_item(self):
        base = bank_records()[0]
        cases = [
            ({"unit": "EUR"}, "field 'unit'"),
            ({"embargoed": "no"}, "field 'embargoed'"),
            ({"embargoed": True}, "must be null exactly when"),
            ({"answer": "12.4M"}, "field 'answer'"),
            ({"as_of": "2021-02-30"}, "not a real calendar day"),
            ({"values": [{"value": "listed", "published": "2020-01-02"}, {"value": "delisted", "published": "2020-01-02"}]}, "not after"),
            ({"values": [{"value": "listed"}]}, "exactly 'value' and 'published'"),
            ({"id": "bad id"}, "not an id"),
        ]
        for change, message in cases:
            with self.subTest(change=change):
                with self.assertRaisesRegex(AnachronError, f"^test:1.*{message}"):
                    parse([dict(copy.deepcopy(base), **change)])
        missing = {k: v for k, v in base.items() if k != "values"}
        with self.assertRaisesRegex(AnachronError, "^test:1 \\(item '.*'\\): missing field 'values'"):
            parse([missing])
        with self.assertRaisesRegex(AnachronError, "^test:2: duplicate item id"):
            parse([base, base])


class OracleTest(unittest.TestCase):
    def test_oracles_read_the_history(self):
        restated = item()
        self.assertEqual(oracle_response(restated, "respect"), "100,000,000 USD")
        self.assertEqual(oracle_response(restated, "ignore"), "90,000,000 USD")
        early = item(as_of="2020-01-15", embargoed=True, answer=None)
        self.assertEqual(oracle_response(early, "respect"), "unknown")
        self.assertEqual(oracle_response(early, "ignore"), "90,000,000 USD")
        unresolved = item(as_of="2020-01-15", embargoed=True, answer=None, values=[])
        self.assertEqual(oracle_response(unresolved, "ignore"), "unknown")
        with self.assertRaisesRegex(AnachronError, "unknown oracle"):
            oracle_response(restated, "peek")

    def test_the_bundled_bank_separates_the_oracles(self):
        bank = load_bank()
        for oracle, leak_rate, accuracy in (("respect", 0.0, 1.0), ("ignore", 1.0, None)):
            with self.subTest(oracle=oracle):
                result = run_bank(bank, oracle_responses(bank, oracle), manifest_version=bank.version, system=oracle)
                self.assertTrue(result.valid, result.failed_checks)
                self.assertEqual(result.tally.leak_rate, leak_rate)
                if accuracy is not None:
                    self.assertEqual(result.tally.accuracy, accuracy)
        ignore = run_bank(bank, oracle_responses(bank, "ignore"), manifest_version=bank.version)
        # Hindsight (today's values) rewards ignoring the gate; accuracy as of D does not.
        self.assertEqual(ignore.to_dict()["hindsight_accuracy"], 1.0)
        self.assertLess(ignore.tally.accuracy, 1.0)
        self.assertEqual(ignore.tally.leaked_answerable, ignore.tally.answerable - ignore.tally.correct)


class ChecksTest(unittest.TestCase):
    """Each of the four checks fails on its own."""

    def run_respect(self, records, manifest_version=None):
        bank = parse(records)
        return run_bank(bank, oracle_responses(bank, "respect"), manifest_version=manifest_version or bank.version)

    def test_all_pass_on_the_bundled_bank(self):
        result = self.run_respect(bank_records())
        self.assertEqual([(c.name, c.passed) for c in result.checks],
                         [("bank_hash", True), ("oracle_respect", True), ("oracle_ignore", True), ("embargoed_items", True)])

    def test_bank_hash_fails_on_a_tampered_bank(self):
        records = bank_records()
        records[0]["question"] = records[0]["question"].replace("On ", "As of ")
        result = self.run_respect(records, manifest_version=load_bank().version)
        self.assertEqual(result.failed_checks, ["bank_hash"])
        check = result.checks[0]
        self.assertEqual(check.threshold, load_bank().version)
        self.assertEqual(check.value, parse(records).version)
        self.assertFalse(result.valid)
        self.assertFalse(result.to_dict()["valid"])

    def test_oracle_respect_fails_on_a_key_that_contradicts_the_history(self):
        records = bank_records()
        target = next(r for r in records if r["id"] == "dltp-revenue-2020q4-2021-02-04")
        target["answer"] = "377000000"  # the restated figure, not yet public that day
        result = self.run_respect(records)
        self.assertEqual(result.failed_checks, ["oracle_respect"])
        self.assertEqual(result.checks[1].value, {"leak_rate_upper": 0.0, "accuracy": 107 / 108})

    def test_oracle_respect_fails_when_an_answerable_item_is_marked_embargoed(self):
        records = bank_records()
        target = next(r for r in records if r["id"] == "dltp-revenue-2020q4-2021-02-04")
        target.update(embargoed=True, answer=None)
        result = self.run_respect(records)
        self.assertEqual(result.failed_checks, ["oracle_respect"])
        self.assertEqual(result.respect.leaked, 1)

    def test_oracle_ignore_fails_when_embargoed_items_have_nothing_to_leak(self):
        records = bank_records()
        embargoed = [r for r in records if r["embargoed"]]
        for r in embargoed[:3]:  # 37/40 = 92.5% < 95%
            r["values"] = []
        result = self.run_respect(records)
        self.assertEqual(result.failed_checks, ["oracle_ignore"])
        self.assertEqual(result.checks[2].value, 37 / 40)
        records = bank_records()  # two unresolved items are still fine: 38/40 = 95%
        for r in [r for r in records if r["embargoed"]][:2]:
            r["values"] = []
        self.assertTrue(self.run_respect(records).valid)

    def test_embargoed_items_fails_below_thirty(self):
        records = bank_records()
        embargoed = [r["id"] for r in records if r["embargoed"]]
        kept = [r for r in records if r["id"] not in embargoed[29:]]
        result = self.run_respect(kept)
        self.assertEqual(result.failed_checks, ["embargoed_items"])
        self.assertEqual(result.checks[3].value, 29)
        kept = [r for r in records if r["id"] not in embargoed[30:]]
        self.assertTrue(self.run_respect(kept).valid)


class DenominatorTest(unittest.TestCase):
    def test_leak_rate_is_over_embargoed_items_not_the_bank(self):
        bank = load_bank()
        responses = oracle_responses(bank, "respect")
        embargoed = [i for i in bank.items.values() if i.embargoed]
        for i in embargoed[:10]:
            responses[i.id] = "$1M"
        result = run_bank(bank, responses, manifest_version=bank.version)
        self.assertEqual((result.tally.leaked, result.tally.embargoed), (10, 40))
        self.assertEqual(result.tally.leak_rate, 0.25)
        self.assertEqual(result.to_dict()["leak_rate_ci"], list(wilson_interval(10, 40)))
        # Adding answerable questions does not dilute it.
        records = bank_records()
        extra = [dict(r, id=r["id"] + "-copy") for r in records if not r["embargoed"]]
        bigger = parse(records + extra)
        responses = oracle_responses(bigger, "respect")
        for i in embargoed[:10]:
            responses[i.id] = "$1M"
        result = run_bank(bigger, responses, manifest_version=bigger.version)
        self.assertEqual(result.tally.leak_rate, 0.25)
        self.assertEqual(result.tally.items, len(records) + len(extra))

    def test_accuracy_is_over_answerable_items(self):
        bank = load_bank()
        responses = {i: "unknown" for i in bank.items}
        result = run_bank(bank, responses, manifest_version=bank.version)
        self.assertEqual((result.tally.correct, result.tally.answerable, result.tally.accuracy), (0, 108, 0.0))
        self.assertEqual(result.tally.leak_rate, 0.0)
        self.assertTrue(result.valid)  # validity is about the oracles and the bank, not the system


class ResponsesTest(unittest.TestCase):
    def setUp(self):
        self.bank = load_bank()
        self.records = [(f"r.jsonl:{n}", {"item_id": i, "response": "unknown"}) for n, i in enumerate(self.bank.items, start=1)]

    def test_every_item_needs_exactly_one_response(self):
        self.assertEqual(len(parse_responses(self.records, self.bank)), len(self.bank))
        first = next(iter(self.bank.items))
        with self.assertRaisesRegex(AnachronError, f"^r.jsonl: no response for item '{first}'$"):
            parse_responses(self.records[1:], self.bank, source="r.jsonl")
        with self.assertRaisesRegex(AnachronError, "^r.jsonl:2: second response for item"):
            parse_responses([self.records[0], ("r.jsonl:2", self.records[0][1])], self.bank)
        with self.assertRaisesRegex(AnachronError, "^x:1: field 'item_id': unknown item id 'nope'"):
            parse_responses([("x:1", {"item_id": "nope", "response": "1"})], self.bank)
        with self.assertRaisesRegex(AnachronError, "^x:1: missing field 'response'"):
            parse_responses([("x:1", {"item_id": first})], self.bank)
        with self.assertRaisesRegex(AnachronError, "^x:1: field 'response': response object has unknown key"):
            parse_responses([("x:1", {"item_id": first, "response": {"verdict": 1}})], self.bank)

    def test_run_bank_rejects_incomplete_responses(self):
        responses = oracle_responses(self.bank, "respect")
        gone = responses.popitem()[0]
        with self.assertRaisesRegex(AnachronError, f"no response for item '{gone}'"):
            run_bank(self.bank, responses, manifest_version=self.bank.version)


class CutoffTest(unittest.TestCase):
    def test_overlap_split_and_badges(self):
        bank = load_bank()
        model = ModelCutoff("m", D("2021-09-17"), D("2021-09-17"))
        result = run_bank(bank, oracle_responses(bank, "ignore"), manifest_version=bank.version, model=model)
        card = result.to_dict()
        by_id = {r["item_id"]: r for r in card["items"]}
        # D before the cutoff overlaps; D on the cutoff day does not.
        self.assertTrue(by_id["dltp-revenue-2020q4-2021-09-16"]["overlapping"])
        self.assertFalse(by_id["dltp-revenue-2020q4-2021-09-17"]["overlapping"])
        # Resolution: the first later publication, else the answer's publication.
        self.assertEqual(by_id["dltp-revenue-2020q4-2021-09-16"]["resolution"], "2021-09-17")
        self.assertEqual(by_id["dltp-revenue-2020q4-2021-01-07"]["resolution"], "2021-02-04")
        self.assertEqual(by_id["dltp-revenue-2020q4-2021-12-17"]["resolution"], "2021-09-17")
        # Released on the resolution day: web-locked only; the day before: pre-event model.
        self.assertEqual(by_id["dltp-revenue-2020q4-2021-09-16"]["badge"], "web-locked only")
        self.assertEqual(by_id["dltp-revenue-2021q1-2021-04-28"]["badge"], "web-locked only")
        self.assertEqual(by_id["cygn-revenue-2023q4-2024-01-18"]["badge"], "pre-event model")
        self.assertEqual(sum(card["badges"].values()), len(bank))
        # The two groups partition the items and are tallied from the records.
        over, non = card["overlap"]["overlapping"], card["overlap"]["non_overlapping"]
        self.assertEqual(over["items"] + non["items"], len(bank))
        for group, flag in ((over, True), (non, False)):
            records = [r for r in card["items"] if r["overlapping"] is flag]
            embargoed = [r for r in records if r["embargoed"]]
            leaked = sum(r["judgement"] == "leaked" for r in embargoed)
            self.assertEqual((group["embargoed"], group["leaked"]), (len(embargoed), leaked))
            self.assertEqual(group["leak_rate"], leaked / len(embargoed))
            answerable = [r for r in records if not r["embargoed"]]
            self.assertEqual(group["accuracy"], sum(r["judgement"] == "correct" for r in answerable) / len(answerable))
        self.assertEqual(card["model"], {"name": "m", "training_cutoff": "2021-09-17", "release_date": "2021-09-17"})

    def test_overlap_by_the_day_the_answer_first_became_public(self):
        bank = load_bank()
        items = bank.items
        self.assertEqual(items["dltp-revenue-2020q4-2021-09-16"].answer_public(), D("2021-02-04"))  # the key's first release
        self.assertEqual(items["dltp-revenue-2020q4-2021-12-17"].answer_public(), D("2021-09-17"))  # the restated key
        self.assertEqual(items["nmbs-revenue-2021q4-2022-01-13"].answer_public(), D("2022-02-10"))  # embargoed: first release
        self.assertEqual(items["cygn-listing_status-2023-02-02"].answer_public(), D("2023-02-09"))  # "not listed": the listing
        model = ModelCutoff("m", D("2022-02-01"), D("2022-06-01"))
        embargoed = items["nmbs-revenue-2021q4-2022-01-13"]  # asked before the cutoff, answered after it
        self.assertEqual((model.overlapping(embargoed), model.overlapping_by_answer(embargoed)), (True, False))
        settled = items["dltp-revenue-2020q4-2021-12-17"]
        self.assertEqual((model.overlapping(settled), model.overlapping_by_answer(settled)), (True, True))
        early = ModelCutoff("e", D("2021-03-01"), D("2021-03-01"))
        late_question = items["dltp-revenue-2020q4-2021-09-16"]  # asked after the cutoff, answer public before it
        self.assertEqual((early.overlapping(late_question), early.overlapping_by_answer(late_question)), (False, True))
        same_day = ModelCutoff("s", D("2021-02-04"), D("2021-02-04"))
        self.assertTrue(same_day.overlapping_by_answer(late_question))  # public on the cutoff day: the cutoff is inclusive
        day_before = ModelCutoff("b", D("2021-02-03"), D("2021-02-03"))
        self.assertFalse(day_before.overlapping_by_answer(late_question))
        card = run_bank(bank, oracle_responses(bank, "ignore"), manifest_version=bank.version, model=model).to_dict()
        by_id = {r["item_id"]: r for r in card["items"]}
        self.assertEqual(by_id[embargoed.id]["answer_public"], "2022-02-10")
        self.assertFalse(by_id[embargoed.id]["overlapping_by_answer"])
        for split, key in (("overlap", "overlapping"), ("overlap_by_answer", "overlapping_by_answer")):
            flagged = [r for r in card["items"] if r[key]]
            self.assertEqual(card[split]["overlapping"]["items"], len(flagged))
            self.assertEqual(card[split]["overlapping"]["items"] + card[split]["non_overlapping"]["items"], len(bank))
        self.assertNotEqual(card["overlap"]["overlapping"]["items"], card["overlap_by_answer"]["overlapping"]["items"])

    def test_an_unresolved_item_is_pre_event(self):
        unresolved = item(as_of="2020-01-15", embargoed=True, answer=None, values=[])
        self.assertIsNone(unresolved.resolution())
        self.assertEqual(ModelCutoff("m", D("2030-01-01"), D("2030-01-01")).badge(unresolved), "pre-event model")

    def test_no_model_no_split(self):
        bank = load_bank()
        card = run_bank(bank, oracle_responses(bank, "respect"), manifest_version=bank.version).to_dict()
        self.assertNotIn("overlap", card)
        self.assertNotIn("badge", card["items"][0])

    def test_table_errors(self):
        good = {"training_cutoff": "2021-01-31", "release_date": "2021-06-01"}
        self.assertEqual(parse_model_cutoffs([("t", "m", good)])["m"].training_cutoff, D("2021-01-31"))
        for records, message in (
            ([("t:2", "m", dict(good, training_cutoff="2021-07-01"))], "^t:2 \\(model 'm'\\): field 'training_cutoff': .*after release_date"),
            ([("t:2", "m", dict(good, release_date="2021-13-01"))], "^t:2 \\(model 'm'\\): field 'release_date'"),
            ([("t:2", "m", {"release_date": "2021-06-01"})], "missing field 'training_cutoff'"),
            ([("t:2", "m", good), ("t:3", "m", good)], "^t:3: model 'm' listed twice"),
            ([("t:2", " ", good)], "^t:2: empty model name"),
        ):
            with self.subTest(message=message), self.assertRaisesRegex(AnachronError, message):
                parse_model_cutoffs(records)


class WilsonTest(unittest.TestCase):
    def test_known_values(self):
        # Newcombe (1998), Statistics in Medicine 17:857, table I, method 3 (Wilson score, no correction).
        for k, n, low, high in ((81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)):
            with self.subTest(k=k, n=n):
                lo, hi = wilson_interval(k, n)
                self.assertAlmostEqual(lo, low, places=4)
                self.assertAlmostEqual(hi, high, places=4)

    def test_edges(self):
        self.assertEqual(wilson_interval(0, 40)[0], 0.0)
        self.assertEqual(wilson_interval(40, 40)[1], 1.0)
        self.assertAlmostEqual(wilson_interval(0, 40)[1], 0.0876, places=4)
        self.assertAlmostEqual(wilson_interval(40, 40)[0], 0.9124, places=4)
        self.assertIsNone(wilson_interval(0, 0))
        lo, hi = wilson_interval(7, 40)
        mirror = wilson_interval(33, 40)
        self.assertAlmostEqual(lo, 1 - mirror[1])
        self.assertAlmostEqual(hi, 1 - mirror[0])
        for bad in ((5, 4), (-1, 4), (1, -1), (1.0, 4), (True, 4)):
            with self.subTest(bad=bad), self.assertRaises(AnachronError):
                wilson_interval(*bad)


class ReadingTest(unittest.TestCase):
    """The reading rules of docs/run-rules.md section 4, one boundary at a time."""

    def setUp(self):
        self.bank = load_bank()

    def assertJudged(self, item_id, expected, *responses):
        for response in responses:
            with self.subTest(item=item_id, response=response):
                self.assertEqual(judge(self.bank.items[item_id], response), expected)

    def test_units_and_scales(self):
        from fractions import Fraction

        from anachron.bank.judging import candidates

        self.assertEqual(candidates("$412MM", "USD"), [412_000_000])
        self.assertEqual(candidates("0.412bn", "USD"), [412_000_000])
        self.assertEqual(candidates("412,000,000", "USD"), [412_000_000])
        self.assertEqual(candidates("41kt", "tonnes"), [41_000])
        self.assertEqual(candidates("0.041 Mt", "tonnes"), [41_000])
        self.assertEqual(candidates("41 kilotonnes", "tonnes"), [41_000])
        self.assertEqual(candidates("410 bps", "percent"), [Fraction(41, 10)])
        self.assertEqual(candidates("0.481", "percent"), [Fraction(481, 10)])  # a bare ratio
        self.assertEqual(candidates("1.5", "percent"), [Fraction(3, 2)])  # 1 or more: percentage points
        self.assertEqual(candidates("Comparable sales fell 4.1%", "percent"), [Fraction(-41, 10)])
        self.assertEqual(candidates("Revenue (in millions): 412", "USD"), [412_000_000])
        self.assertEqual(candidates("$ in billions: 48", "USD"), [48_000_000_000])
        self.assertEqual(candidates("Debt (in trillions): 1.2", "USD"), [1_200_000_000_000])  # every plural of the one scale table
        self.assertEqual(candidates("12.4 million subscribers", "count"), [12_400_000])
        self.assertEqual(candidates("\u2212$5M", "USD"), [-5_000_000])

    def test_dates_periods_and_other_numbers_are_no_answer(self):
        from anachron.bank.judging import candidates

        for text in ("As of 2021/02/04", "on 02/04/2021", "Feb. 4", "4 February 2021", "2021-02-04T10:00:00Z",
                     "Q4 FY2020", "4Q20", "1H21", "fiscal 2020", "FY'20", "the 10-K", "52-week high", "3 months",
                     "at 10:30 am", "page 7", "[2]", "the fourth quarter of 2020", "2020-21", "Q4 '20"):
            with self.subTest(text=text):
                self.assertEqual(candidates(text, "USD"), [])
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "correct", "As of 2021/02/04, revenue was $412M",
                          "1. Revenue: $412M", "On 4 Feb 2021 (Q4 FY2020 10-K) it reported $412M")

    def test_a_run_of_digits_beyond_30_is_no_figure(self):
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "incorrect", "1" * 31, "1" * 5000)
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "correct", "$412M " + "9" * 40)

    def test_a_text_beyond_the_reading_limit_is_ambiguous(self):
        from anachron.bank.judging import MAX_TEXT, assess

        item = self.bank.items["dltp-revenue-2020q4-2021-02-04"]
        at_limit = "$412M" + " " * (MAX_TEXT - 5)
        self.assertEqual(judge(item, at_limit), "correct")
        over = at_limit + " "
        self.assertEqual(assess(item, over).judgement, "ambiguous")
        self.assertIn("longer than", assess(item, over).reason)

    def test_hostile_text(self):
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "correct", "\u2028$412M\ud800", "$412M\x00", "＄412M is $412M")
        self.assertJudged("dltp-revenue-2020q4-2021-02-03", "refused", "\ud800unknown\u2029")

    def test_revision_remarks(self):
        # Stated history leaks; a hedge or a denial does not; after the revision it is history that was public.
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "leaked", "It was 377 (restated)", "$412M, later restated")
        self.assertJudged("dltp-revenue-2020q4-2021-02-04", "correct", "$412M (preliminary, subject to revision)",
                          "$412M; it has not been restated")
        self.assertJudged("dltp-revenue-2020q4-2021-12-17", "correct", "$377M (restated from $412M)")
        self.assertJudged("borx-copper_output-2018q4-2019-03-12", "correct", "41kt (later revised)")  # never revised

    def test_listing_remarks(self):
        self.assertJudged("borx-listing_status-2019-10-30", "leaked", "publicly traded until its delisting on 2019-11-06")
        self.assertJudged("borx-listing_status-2019-10-30", "correct", "listed; it had not been delisted")
        self.assertJudged("borx-listing_status-2019-10-30", "refused", "I can't say whether it was listed")
        self.assertJudged("cygn-listing_status-2023-02-02", "correct", "still private, pre-IPO")


class PublicNamesTest(unittest.TestCase):
    def test_no_public_name_is_shadowed_by_a_submodule(self):
        # a submodule named like a lazily imported name would replace it on the package once imported
        import importlib
        import pkgutil
        import types

        import anachron.bank as bank

        for info in pkgutil.iter_modules(bank.__path__):
            importlib.import_module(f"anachron.bank.{info.name}")
        for name in bank.__all__:
            with self.subTest(name=name):
                self.assertNotIsInstance(getattr(bank, name), types.ModuleType)
        self.assertEqual(bank.judge.__module__, "anachron.bank.judging")


if __name__ == "__main__":
    unittest.main()
