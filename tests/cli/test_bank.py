"""`anachron bank`: build, manifest, verify, run; exit statuses and bad input."""

import json
import tempfile
import unittest
from pathlib import Path

from anachron.core import default_corpus_dir
from anachron.bank import load_bank, oracle_responses

from tests.support import run_cli

CORPUS_DIR = default_corpus_dir()
BANK = CORPUS_DIR / "bank.jsonl"
MANIFEST = CORPUS_DIR / "bank.manifest.json"
CUTOFFS = CORPUS_DIR / "model-cutoffs.example.json"
CARD_KEYS = {"bank_version", "accuracy", "leak_rate", "leak_rate_ci", "embargoed", "oracle_respect_leak_rate",
             "oracle_ignore_leak_rate", "valid", "checks", "items"}


class BankCliTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = Path(self._tmp.name)
        self.addCleanup(self._tmp.cleanup)

    def assertBadInput(self, *argv, mentions=()):
        status, out, err = run_cli(*argv)
        self.assertEqual(status, 2, err)
        self.assertEqual(out, "")
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        for part in mentions:
            self.assertIn(part, err)
        return err

    def write_lines(self, name, objects):
        path = self.tmp / name
        path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
        return path

    def copy_bank(self, edit=None):
        lines = BANK.read_text(encoding="utf-8").splitlines()
        if edit:
            lines = edit(lines)
        bank = self.tmp / "bank.jsonl"
        bank.write_text("\n".join(lines) + "\n", encoding="utf-8")
        (self.tmp / "bank.manifest.json").write_text(MANIFEST.read_text(encoding="utf-8"), encoding="utf-8")
        return bank

    # manifest / verify / build

    def test_manifest_prints_the_committed_manifest(self):
        status, out, err = run_cli("bank", "manifest")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out, MANIFEST.read_text(encoding="utf-8"))
        self.assertEqual(run_cli("bank", "manifest", str(BANK))[1], out)

    def test_verify_matches_and_mismatches(self):
        status, out, _ = run_cli("bank", "verify", str(BANK), str(MANIFEST))
        self.assertEqual(status, 0)
        self.assertIn(load_bank().version, out)
        tampered = self.copy_bank(lambda lines: [lines[0].replace("On ", "As of ", 1)] + lines[1:])
        status, out, err = run_cli("bank", "verify", str(tampered), str(MANIFEST))
        self.assertEqual(status, 1, err)
        self.assertIn("MISMATCH", out)
        self.assertIn("version: bank has", out)
        # Counts edited in the manifest are a mismatch too, even with the right version.
        edited = json.loads(MANIFEST.read_text(encoding="utf-8"))
        edited["embargoed"] = 41
        (self.tmp / "m.json").write_text(json.dumps(edited), encoding="utf-8")
        status, out, _ = run_cli("bank", "verify", str(BANK), str(self.tmp / "m.json"))
        self.assertEqual(status, 1)
        self.assertIn("embargoed: bank has 40, manifest has 41", out)

    def test_verify_bad_input(self):
        (self.tmp / "m.json").write_text("{", encoding="utf-8")
        self.assertBadInput("bank", "verify", str(BANK), str(self.tmp / "m.json"), mentions=["m.json", "invalid JSON"])
        (self.tmp / "m.json").write_text("{}", encoding="utf-8")
        self.assertBadInput("bank", "verify", str(BANK), str(self.tmp / "m.json"), mentions=["missing field 'version'"])
        bad = self.write_lines("b.jsonl", [{"id": "x"}])
        self.assertBadInput("bank", "verify", str(bad), str(MANIFEST), mentions=["b.jsonl:1", "missing field"])

    def test_build_reproduces_the_committed_files(self):
        (self.tmp / "sub").mkdir()  # an output's directory must exist (docs/formats.md)
        out = self.tmp / "sub" / "bank.jsonl"
        status, printed, err = run_cli("bank", "build", "--out", str(out))
        self.assertEqual(status, 0, err)
        self.assertEqual(out.read_bytes(), BANK.read_bytes())
        self.assertEqual((self.tmp / "sub" / "bank.manifest.json").read_bytes(), MANIFEST.read_bytes())
        self.assertIn("148 items, 40 embargoed", printed)

    def test_build_bad_facts_writes_nothing(self):
        facts = self.write_lines("facts.jsonl", [{"id": "a", "instrument": "NOPE"}])
        out = self.tmp / "bank.jsonl"
        self.assertBadInput("bank", "build", "--facts", str(facts), "--out", str(out), mentions=["facts.jsonl:1"])
        self.assertFalse(out.exists())

    # run

    def test_run_both_oracles_json(self):
        for system, leak in (("respect", 0.0), ("ignore", 1.0)):
            with self.subTest(system=system):
                status, out, err = run_cli("bank", "run", "--system", system, "--format", "json")
                self.assertEqual((status, err), (0, ""))
                card = json.loads(out)
                self.assertLessEqual(CARD_KEYS, set(card))
                self.assertEqual(card["leak_rate"], leak)
                self.assertEqual(card["bank_version"], load_bank().version)
                self.assertEqual(card["embargoed"], 40)
                self.assertEqual((card["oracle_respect_leak_rate"], card["oracle_ignore_leak_rate"]), (0.0, 1.0))
                self.assertEqual([c["name"] for c in card["checks"]], ["bank_hash", "oracle_respect", "oracle_ignore", "embargoed_items"])
                self.assertTrue(all({"name", "threshold", "value", "passed"} <= set(c) for c in card["checks"]))
                self.assertEqual(set(card["items"][0]), {"item_id", "as_of", "embargoed", "response", "judgement", "reason"})
                self.assertEqual(len(card["items"]), 148)

    def test_run_is_deterministic(self):
        first = run_cli("bank", "run", "--system", "ignore", "--format", "json")
        self.assertEqual(first, run_cli("bank", "run", "--system", "ignore", "--format", "json"))

    def test_run_table(self):
        status, out, _ = run_cli("bank", "run", "--system", "ignore")
        self.assertEqual(status, 0)
        self.assertIn("leak rate (95% CI)    40/40 100.0% [91.2%, 100.0%]", out)
        for name in ("bank_hash", "oracle_respect", "oracle_ignore", "embargoed_items"):
            self.assertRegex(out, f"PASS {name} +value")
        self.assertIn("Leaked items (92)", out)

    def test_a_responses_file(self):
        bank = load_bank()
        responses = oracle_responses(bank, "respect")
        responses["dltp-revenue-2020q4-2021-02-03"] = "$412M"  # embargoed: leak
        responses["dltp-revenue-2020q4-2021-09-16"] = "$377M"  # restated figure before its day: leak
        responses["cygn-ipo_price-2023-01-12"] = {"refused": True}
        path = self.write_lines("responses.jsonl", [{"item_id": k, "response": v} for k, v in responses.items()])
        status, out, err = run_cli("bank", "run", "--system", str(path), "--format", "json")
        self.assertEqual((status, err), (0, ""))
        card = json.loads(out)
        self.assertEqual((card["leaked"], card["leaked_answerable"], card["correct"]), (1, 1, 107))
        self.assertEqual(card["leak_rate"], 1 / 40)
        self.assertEqual(card["system"], str(path))
        judged = {r["item_id"]: r for r in card["items"]}
        self.assertEqual(judged["cygn-ipo_price-2023-01-12"]["response"], {"refused": True})
        self.assertEqual(judged["cygn-ipo_price-2023-01-12"]["judgement"], "refused")

    def test_a_tampered_bank_is_an_invalid_run(self):
        bank = self.copy_bank(lambda lines: [lines[0].replace("On ", "As of ", 1)] + lines[1:])
        status, out, err = run_cli("bank", "run", "--system", "respect", "--bank", str(bank), "--format", "json")
        self.assertEqual(status, 3)
        card = json.loads(out)
        self.assertFalse(card["valid"])
        self.assertEqual(card["failed_checks"], ["bank_hash"])
        self.assertIn("bank_hash", err)
        self.assertIn("not citable", err)
        self.assertEqual(len(err.strip().splitlines()), 1)

    def test_too_few_embargoed_items_is_an_invalid_run(self):
        def drop(lines):
            embargoed = [line for line in lines if '"embargoed":true' in line]
            return [line for line in lines if line not in embargoed[20:]]

        bank = self.copy_bank(drop)
        manifest = self.tmp / "own.manifest.json"
        manifest.write_text(run_cli("bank", "manifest", str(bank))[1], encoding="utf-8")
        status, out, err = run_cli("bank", "run", "--system", "ignore", "--bank", str(bank), "--manifest", str(manifest))
        self.assertEqual(status, 3)
        self.assertIn("FAIL embargoed_items  value 20", out)
        self.assertIn("embargoed_items (value 20, threshold 30)", err)

    def test_model_cutoffs(self):
        status, out, err = run_cli("bank", "run", "--system", "ignore", "--model-cutoffs", str(CUTOFFS),
                                   "--model", "example-cutoff-2022-09", "--format", "json")
        self.assertEqual((status, err), (0, ""))
        card = json.loads(out)
        self.assertEqual(card["model"]["training_cutoff"], "2022-09-30")
        self.assertEqual(card["overlap"]["overlapping"]["items"] + card["overlap"]["non_overlapping"]["items"], 148)
        self.assertEqual({"overlapping", "overlapping_by_answer", "answer_public", "resolution", "badge"} - set(card["items"][0]), set())
        self.assertEqual(card["overlap_by_answer"]["overlapping"]["items"] + card["overlap_by_answer"]["non_overlapping"]["items"], 148)
        status, out, _ = run_cli("bank", "run", "--system", "ignore", "--model-cutoffs", str(CUTOFFS), "--model", "example-cutoff-2022-09")
        self.assertIn("split by as_of < cutoff:", out)
        self.assertIn("split by answer first public <= cutoff:", out)
        self.assertIn("badges: pre-event model", out)

    def test_model_cutoffs_csv(self):
        table = self.tmp / "cutoffs.csv"
        table.write_text("model,training_cutoff,release_date\nm,2021-01-31,2021-06-01\n", encoding="utf-8")
        status, out, _ = run_cli("bank", "run", "--system", "respect", "--model-cutoffs", str(table), "--model", "m", "--format", "json")
        self.assertEqual(status, 0)
        self.assertEqual(json.loads(out)["model"]["release_date"], "2021-06-01")
        table.write_text("model,training_cutoff,release_date\nm,2021-01-31,2021-06-01\nm,2021-01-31\n", encoding="utf-8")
        self.assertBadInput("bank", "run", "--system", "respect", "--model-cutoffs", str(table), "--model", "m", mentions=["cutoffs.csv:3"])
        table.write_text("name,cutoff\n", encoding="utf-8")
        self.assertBadInput("bank", "run", "--system", "respect", "--model-cutoffs", str(table), "--model", "m", mentions=["cutoffs.csv:1", "header"])

    def test_run_bad_input(self):
        self.assertBadInput("bank", "run", "--system", "respect", "--model", "x", mentions=["--model-cutoffs"])
        self.assertBadInput("bank", "run", "--system", "respect", "--model-cutoffs", str(CUTOFFS), "--model", "nope",
                            mentions=["no model named 'nope'"])
        self.assertBadInput("bank", "run", "--system", str(self.tmp / "missing.jsonl"), mentions=["missing.jsonl", "no such file"])
        first, second = list(load_bank().items)[:2]
        partial = self.write_lines("r.jsonl", [{"item_id": first, "response": "unknown"}])
        self.assertBadInput("bank", "run", "--system", str(partial), mentions=["r.jsonl", f"no response for item '{second}'"])
        unknown = self.write_lines("u.jsonl", [{"item_id": first, "response": "x"}, {"item_id": "nope", "response": "x"}])
        self.assertBadInput("bank", "run", "--system", str(unknown), mentions=["u.jsonl:2", "unknown item id 'nope'"])
        bad = self.write_lines("b.jsonl", [{"item_id": first, "response": 412}])
        self.assertBadInput("bank", "run", "--system", str(bad), mentions=["b.jsonl:1", "response"])
        bank = self.copy_bank()
        (self.tmp / "bank.manifest.json").unlink()
        self.assertBadInput("bank", "run", "--system", "respect", "--bank", str(bank), mentions=["bank.manifest.json", "no such file"])
        self.assertBadInput("bank", "run", "--system", "respect", "--format", "xml")


if __name__ == "__main__":
    unittest.main()
