"""The bank's second review: undecided answers bound the leak rate, a run without --data is not
citable, the answer-cutoff split is inclusive, and the CSV carries each item's reason and the verdict."""

import csv
import datetime as dt
import io
import json
import re
import tempfile
import unittest
from pathlib import Path

from anachron.bank import load_bank, oracle_responses, run_bank
from anachron.bank.cutoffs import ModelCutoff, load_model_cutoffs
from anachron.bank.filings import default_filings_dir
from anachron.core import default_corpus_dir
from anachron.core.stats import wilson_interval
from anachron.bank.run import complete_card
from anachron.output.html.tables import bank_card
from anachron.bank.run import BANK_COLUMNS

from tests.support import ROOT, run_cli

NO_IDEA = "No idea."
UNDECIDED = "neither here nor there"  # no value, no refusal: the rules cannot decide


class ReviewTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bank = load_bank()
        cls.embargoed = [i for i in cls.bank.items.values() if i.embargoed]
        cls._tmp = tempfile.TemporaryDirectory()
        cls.tmp = Path(cls._tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def responses_file(self, name, embargoed_answer, answerable="respect"):
        answers = oracle_responses(self.bank, answerable) if answerable in ("respect", "ignore") else None
        path = self.tmp / name
        lines = []
        for item_id, item in self.bank.items.items():
            response = embargoed_answer if item.embargoed else (answers[item_id] if answers else answerable)
            lines.append(json.dumps({"item_id": item_id, "response": response}) + "\n")
        path.write_text("".join(lines), encoding="utf-8")
        return path

    # 1. undecided responses

    def test_no_idea_is_refused_everywhere(self):
        result = run_bank(self.bank, {i: NO_IDEA for i in self.bank.items}, manifest_version=self.bank.version)
        self.assertEqual((result.tally.refused, result.tally.ambiguous_embargoed), (len(self.bank), 0))

    def test_undecided_embargoed_answers_give_the_leak_rate_as_bounds(self):
        responses = oracle_responses(self.bank, "respect")
        for item in self.embargoed:
            responses[item.id] = UNDECIDED
        leaked = self.embargoed[0].id
        responses[leaked] = "$1M"
        tally = run_bank(self.bank, responses, manifest_version=self.bank.version).tally
        n = len(self.embargoed)
        self.assertEqual((tally.leaked, tally.ambiguous_embargoed, tally.embargoed), (1, n - 1, n))
        self.assertEqual(tally.leak_rate_bounds, (1 / n, 1.0))
        self.assertEqual(tally.leak_rate_bounds_ci, (wilson_interval(1, n)[0], wilson_interval(n, n)[1]))
        card = tally.to_dict()
        self.assertEqual(card["leak_rate_bounds"], [1 / n, 1.0])
        self.assertEqual(card["leak_rate"], 1 / n)  # the lower bound keeps its name

    def test_bounds_meet_when_nothing_is_undecided(self):
        tally = run_bank(self.bank, oracle_responses(self.bank, "ignore"), manifest_version=self.bank.version).tally
        self.assertEqual(tally.leak_rate_bounds, (1.0, 1.0))
        self.assertEqual(tally.leak_rate_bounds_ci, tally.leak_rate_ci)

    def test_the_table_shows_the_bounds(self):
        path = self.responses_file("undecided.jsonl", UNDECIDED)
        status, out, err = run_cli("bank", "run", "--system", str(path))
        self.assertEqual((status, err), (0, ""))
        n = len(self.embargoed)
        row = next(line for line in out.splitlines() if line.startswith("leak rate (95% CI)"))
        low, high = wilson_interval(0, n)[0], wilson_interval(n, n)[1]
        self.assertIn(f"0-{n}/{n} ({n} undecided) 0.0%-100.0% [{100 * low:.1f}%, {100 * high:.1f}%]", row)
        self.assertFalse(row[22:].startswith(f"0/{n} "), row)  # never the lower bound alone

    def test_an_undecided_respect_oracle_fails_its_check(self):
        oracles = {"respect": oracle_responses(self.bank, "respect"), "ignore": oracle_responses(self.bank, "ignore")}
        oracles["respect"][self.embargoed[0].id] = UNDECIDED
        result = run_bank(self.bank, oracle_responses(self.bank, "respect"), manifest_version=self.bank.version,
                          oracles=oracles, oracle_source="test")
        self.assertEqual(result.failed_checks, ["oracle_respect"])
        self.assertEqual(result.checks[1].value["leak_rate_upper"], 1 / len(self.embargoed))
        self.assertEqual(result.respect.leaked, 0)  # the lower bound alone would have passed

    def test_an_undecided_ignore_oracle_counts_as_no_leak(self):
        oracles = {"respect": oracle_responses(self.bank, "respect"), "ignore": oracle_responses(self.bank, "ignore")}
        for item in self.embargoed[:3]:  # 37/40 decided leaks: under 95%
            oracles["ignore"][item.id] = UNDECIDED
        result = run_bank(self.bank, oracle_responses(self.bank, "respect"), manifest_version=self.bank.version,
                          oracles=oracles, oracle_source="test")
        self.assertEqual(result.failed_checks, ["oracle_ignore"])
        self.assertEqual(result.ignore.ambiguous_embargoed, 3)

    # 2. valid, citable, and the HTML card

    def test_without_data_a_constant_system_is_valid_for_the_bank_only(self):
        ones = self.responses_file("ones.jsonl", "$1", answerable="$1")
        status, out, err = run_cli("bank", "run", "--system", str(ones))
        self.assertEqual((status, err), (0, ""))
        self.assertNotIn("citable", out.replace("not citable", ""))
        self.assertIn("Run valid for the bank only; the system's data path is untested (pass --data DIR)", out)
        status, card, _ = run_cli("bank", "run", "--system", str(ones), "--format", "json")
        card = json.loads(card)
        self.assertEqual((card["valid"], card["citable"], card["oracle_source"]), (True, False, "bank history"))

    def test_with_data_a_valid_run_is_citable(self):
        status, out, err = run_cli("bank", "run", "--system", "respect", "--data", str(default_filings_dir()))
        self.assertEqual((status, err), (0, ""))
        self.assertIn("Run valid: yes (citable with its bank version)", out)
        self.assertNotIn("bank only", out)

    def test_the_html_card_shows_source_denominators_and_ambiguous_counts(self):
        path = self.responses_file("undecided-card.jsonl", UNDECIDED)
        status, text, err = run_cli("bank", "run", "--system", str(path), "--format", "json")
        self.assertEqual((status, err), (0, ""))
        card = json.loads(text)
        html = bank_card(card)  # what `anachron report card.json` renders
        n = len(self.embargoed)
        answerable = len(self.bank) - n
        self.assertIn("oracles answered from: bank history", html)
        self.assertIn(f"{answerable}/{answerable} 100.0%", html)  # the respect oracle's accuracy with its denominator
        self.assertIn(f"{n}/{n} 100.0%", html)  # the ignore oracle's leak rate with its denominator
        self.assertIn(f"<td class=\"num\">{n} ({n})</td>", html)  # the system's ambiguous (embargoed)
        self.assertIn(f"0\u2013{n}/{n} ({n} undecided)", html)
        self.assertIn("Run valid for the bank only", html)
        self.assertNotIn("citable with", html)
        page_path = self.tmp / "card.json"
        page_path.write_text(text, encoding="utf-8")
        out = self.tmp / "card.html"
        status, _, err = run_cli("report", str(page_path), "--out", str(out))
        self.assertEqual(status, 0, err)
        page = out.read_text(encoding="utf-8")
        self.assertIn("oracles answered from: bank history", page)
        self.assertIn(f"{answerable}/{answerable} 100.0%", page)

    def test_an_older_card_without_the_verdict_words_gets_the_same_verdict(self):
        status, text, _ = run_cli("bank", "run", "--system", "respect", "--format", "json")
        card = json.loads(text)
        for key in ("validity", "citable", "oracles", "oracle_source"):
            del card[key]
        path = self.tmp / "older-card.json"
        path.write_text(json.dumps(card), encoding="utf-8")
        out = self.tmp / "older-card.html"
        status, _, err = run_cli("report", str(path), "--out", str(out))  # what a reader of an older card sees
        self.assertEqual(status, 0, err)
        page = out.read_text(encoding="utf-8")
        self.assertIn("Run valid for the bank only; the system&#x27;s data path is untested", page)
        self.assertIn("oracles answered from: bank history", page)
        card.update(oracle_source="data path: time lock (enforced) over X")
        self.assertIn("Run valid: yes (citable with its bank version)", bank_card(complete_card(card)))
        card.update(valid=False, failed_checks=["oracle_ignore"])
        self.assertIn("Run INVALID, not citable: failed oracle_ignore", bank_card(complete_card(card)))
        card.update(validity="a verdict as written")
        self.assertIn("a verdict as written", bank_card(complete_card(card)))  # a card's own words are kept

    def test_the_html_card_shows_both_cutoff_splits(self):
        cutoffs = default_corpus_dir() / "model-cutoffs.example.json"
        status, text, err = run_cli("bank", "run", "--system", "ignore", "--format", "json",
                                    "--model-cutoffs", str(cutoffs), "--model", "example-cutoff-2020-12")
        card = json.loads(text)
        html = bank_card(card)
        for label, split in (("overlapping (as_of &lt; cutoff)", card["overlap"]["overlapping"]),
                             ("overlapping by answer (public &lt;= cutoff)", card["overlap_by_answer"]["overlapping"])):
            self.assertIn(f'{label}</th><td class="num">{split["items"]}</td>', html)
        self.assertNotEqual(card["overlap"]["overlapping"]["items"], card["overlap_by_answer"]["overlapping"]["items"])

    def test_a_malformed_oracles_field_is_bad_input(self):
        status, text, _ = run_cli("bank", "run", "--system", "respect", "--format", "json")
        card = json.loads(text)
        card["oracles"] = {"respect": 1}
        path = self.tmp / "bad-card.json"
        path.write_text(json.dumps(card), encoding="utf-8")
        status, out, err = run_cli("report", str(path), "--out", str(self.tmp / "bad.html"))
        self.assertEqual(status, 2)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn("oracles", err)

    # 3. the answer split is inclusive of the cutoff day

    def test_an_answer_public_on_the_cutoff_day_overlaps(self):
        item = self.bank.items["dltp-revenue-2020q4-2021-09-17"]
        self.assertEqual(item.answer_public(), dt.date(2021, 9, 17))
        self.assertTrue(ModelCutoff("m", dt.date(2021, 9, 17), dt.date(2021, 9, 17)).overlapping_by_answer(item))
        self.assertFalse(ModelCutoff("m", dt.date(2021, 9, 16), dt.date(2021, 9, 17)).overlapping_by_answer(item))
        # The as_of split stays strict: D on the cutoff day asks for nothing the model saw later.
        self.assertFalse(ModelCutoff("m", dt.date(2021, 9, 17), dt.date(2021, 9, 17)).overlapping(item))

    def test_docs_state_the_computed_splits(self):
        text = (ROOT / "docs" / "bank.md").read_text(encoding="utf-8")
        models = dict(load_model_cutoffs(default_corpus_dir() / "model-cutoffs.example.json"))
        models["boundary"] = ModelCutoff("boundary", dt.date(2021, 9, 17), dt.date(2021, 9, 17))
        for model in models.values():
            by_as_of = sum(model.overlapping(i) for i in self.bank.items.values())
            by_answer = sum(model.overlapping_by_answer(i) for i in self.bank.items.values())
            with self.subTest(cutoff=model.training_cutoff):
                match = re.search(rf"\| {model.training_cutoff} [^|]*\| ([0-9]+)/([0-9]+) \| ([0-9]+)/([0-9]+) \|", text)
                self.assertIsNotNone(match)
                self.assertEqual([int(g) for g in match.groups()],
                                 [by_as_of, len(self.bank) - by_as_of, by_answer, len(self.bank) - by_answer])

    # 6. the CSV

    def test_the_csv_has_the_reason_and_the_verdict(self):
        self.assertEqual(BANK_COLUMNS[-4:], ("reason", "valid", "citable", "oracle_source"))
        ones = self.responses_file("ones-csv.jsonl", "$1", answerable="$1")
        status, out, err = run_cli("bank", "run", "--system", str(ones), "--format", "csv")
        self.assertEqual((status, err), (0, ""))
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(len(rows), len(self.bank))
        self.assertEqual(tuple(rows[0]), BANK_COLUMNS)
        self.assertTrue(all(row["reason"] for row in rows))
        first_embargoed = next(row for row in rows if row["embargoed"] == "true")
        self.assertEqual(first_embargoed["reason"], "answers 1 although nothing was public")
        self.assertEqual({(r["valid"], r["citable"], r["oracle_source"]) for r in rows}, {("true", "false", "bank history")})
        status, out, err = run_cli("bank", "run", "--system", "respect", "--data", str(default_filings_dir()), "--format", "csv")
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual({r["citable"] for r in rows}, {"true"})
        self.assertTrue(all(r["oracle_source"].startswith("data path") for r in rows))


if __name__ == "__main__":
    unittest.main()
