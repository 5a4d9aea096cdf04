"""The fail-closed freeze gate, the seal, and the gated Routes v2 analysis.

Fixtures are copies of the real Routes v2 files in a temporary tree with the
same layout (research/routes-v2/ and the package files under the same root),
so every rule is exercised on the real matrix and the real analysis code.
"""

import json
import re
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

from anachron.core import AnachronError
from anachron.core.stats import compare_modes
from anachron.research import freeze
from anachron.research.freeze import FreezeNotPassed, code_closure, is_placeholder, parse_matrix
from anachron.research import routes_v2
from anachron.research.routes_v2 import run_outcome_analysis

from tests.support import ROOT, run_cli

REAL = ROOT / "research" / "routes-v2"
STUDY = Path("research") / "routes-v2"
CONTRACT = freeze.CONTRACT_NAME
SOURCE_HEADER = "source_id,stratum,true_date,as_of,content_sha256,origin,revalidated_by,revalidated_on\n"
EVIDENCE = "commit 0123abc; tests/research/test_freeze.py"


def load(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def build_fixture(tmp, *, closure=False):
    """Copy the real contract's files into *tmp* (same layout); return the study dir.

    With *closure*, every module the analysis executes is copied too and listed
    with role analysis, as matrix row F2 requires.
    """
    tmp = Path(tmp)
    contract = load(REAL / CONTRACT)
    # Start unsealed, whatever the real contract records.
    contract["sealed_complete"] = False
    for entry in contract["files"].values():
        entry["sha256"] = None
    if closure:
        for path in code_closure("anachron.research.routes_v2").values():
            rel = path.resolve().relative_to(ROOT.resolve()).as_posix()
            contract["files"].setdefault(rel, {"role": "analysis", "sha256": None})
    for rel in contract["files"]:
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, tmp / rel)
    study = tmp / STUDY
    study.mkdir(parents=True, exist_ok=True)
    (study / CONTRACT).write_text(json.dumps(contract), encoding="utf-8")
    return study


def set_rows(study, status="MET", evidence=EVIDENCE, only=None):
    """Rewrite the status and evidence cells of the matrix rows (all, or the ids in *only*)."""
    path = study / "FREEZE_ACCEPTANCE_MATRIX.md"
    out = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        m = re.fullmatch(r"\| (F\d+) \| (.*) \| (MET|UNMET) \| (.*) \|", line)
        if m and (only is None or m.group(1) in only):
            line = f"| {m.group(1)} | {m.group(2)} | {status} | {evidence} |"
        out.append(line)
    path.write_text("\n".join(out), encoding="utf-8")


def contract_paths(study):
    return sorted(load(study / CONTRACT)["files"])


class RealContractTest(unittest.TestCase):
    """The committed Routes v2 contract fails closed today, and only because of its rows."""

    def test_fails_only_because_every_row_is_unmet(self):
        report = freeze.check(REAL)
        self.assertFalse(report.passed)
        # Hash drift here means a frozen file was edited without a re-seal:
        # run `anachron freeze seal research/routes-v2` on purpose.
        self.assertEqual(report.file_problems, (), report.problems())
        self.assertTrue(report.rows)
        self.assertEqual([r.id for r in report.unmet], [r.id for r in report.rows])
        self.assertEqual({r.status for r in report.rows}, {"UNMET"})

    def test_cli_exits_3_naming_each_unmet_row(self):
        status, out, err = run_cli("freeze", "check", str(REAL))
        self.assertEqual(status, 3)
        self.assertEqual(err, "")
        lines = out.splitlines()
        rows = freeze.check(REAL).rows
        self.assertEqual(len(lines), len(rows) + 1)
        for line, row in zip(lines, rows):
            self.assertTrue(line.startswith(f"unmet: {row.id}: {row.condition} ("), line)
        self.assertTrue(lines[-1].startswith("freeze check FAILED:"), lines[-1])

    def test_contract_covers_protocol_matrix_sources_and_analysis_code(self):
        contract, _, _ = freeze.load_contract(REAL)
        roles = {f.path: f.role for f in contract.files}
        self.assertEqual(roles["research/routes-v2/PROTOCOL.md"], "protocol")
        self.assertEqual(roles["research/routes-v2/FREEZE_ACCEPTANCE_MATRIX.md"], "matrix")
        self.assertEqual(roles["research/routes-v2/sources.csv"], "sources")
        self.assertEqual(roles["anachron/research/routes_v2.py"], "analysis")

    def test_analysis_refuses_before_opening_the_outcome_file(self):
        missing = REAL / "no-such-outcomes.jsonl"
        with self.assertRaises(FreezeNotPassed) as ctx:
            run_outcome_analysis(REAL, missing)
        self.assertIsInstance(ctx.exception, AnachronError)
        self.assertTrue(any(p.startswith("unmet: F1:") for p in ctx.exception.problems))
        status, out, err = run_cli("freeze", "analyze", str(REAL), str(missing))
        self.assertEqual((status, out), (3, ""))
        self.assertIn("unmet: F9:", err)
        self.assertIn("no outcome was read", err.splitlines()[-1])


class FixtureCase(unittest.TestCase):
    """A fresh, unsealed copy of the Routes v2 files per test: self.study, self.root."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.study = build_fixture(tmp.name)
        self.root = Path(tmp.name)


class GateTest(FixtureCase):

    def sealed_complete(self):
        set_rows(self.study)
        status, out, err = run_cli("freeze", "seal", str(self.study))
        self.assertEqual((status, err), (0, ""))
        return out

    def test_every_row_met_and_sealed_passes(self):
        out = self.sealed_complete()
        self.assertIn("the freeze is complete and final", out)
        self.assertIs(load(self.study / CONTRACT)["sealed_complete"], True)
        status, out, err = run_cli("freeze", "check", str(self.study))
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(out.splitlines(), [f"freeze check passed: {self.study}: all 9 rows met, 4 files match their sealed hashes"])
        self.assertTrue(freeze.require_passed(self.study).passed)

    def test_tampering_with_each_frozen_file_is_caught_and_named(self):
        self.sealed_complete()
        paths = contract_paths(self.study)
        self.assertEqual(len(paths), 4)
        for rel in paths:
            with self.subTest(rel):
                target = self.root / rel
                original = target.read_bytes()
                target.write_bytes(original + b"\n")
                status, out, _ = run_cli("freeze", "check", str(self.study))
                self.assertEqual(status, 3)
                problems = out.splitlines()[:-1]
                self.assertEqual(len(problems), 1, out)
                self.assertTrue(problems[0].startswith(f"changed: {rel}: sha256 "), problems[0])
                self.assertIn(freeze.sha256_hex(original), problems[0])
                with self.assertRaises(FreezeNotPassed):
                    freeze.require_passed(self.study)
                target.write_bytes(original)
                self.assertTrue(freeze.check(self.study).passed)

    def test_a_line_ending_change_alone_is_a_change(self):
        self.sealed_complete()
        protocol = self.study / "PROTOCOL.md"
        protocol.write_bytes(protocol.read_bytes().replace(b"\n", b"\r\n"))
        self.assertEqual(freeze.check(self.study).file_problems, ("research/routes-v2/PROTOCOL.md",))

    def test_crlf_matrix_still_parses_but_is_changed(self):
        self.sealed_complete()
        matrix = self.study / "FREEZE_ACCEPTANCE_MATRIX.md"
        matrix.write_bytes(matrix.read_bytes().replace(b"\n", b"\r\n"))
        report = freeze.check(self.study)
        self.assertEqual(report.unmet, ())
        self.assertEqual(report.files["research/routes-v2/FREEZE_ACCEPTANCE_MATRIX.md"], "changed")

    def test_each_missing_file_is_named(self):
        self.sealed_complete()
        for rel in contract_paths(self.study):
            with self.subTest(rel):
                target = self.root / rel
                original = target.read_bytes()
                target.unlink()
                status, out, _ = run_cli("freeze", "check", str(self.study))
                self.assertEqual(status, 3)
                self.assertEqual(out.splitlines()[:-1], [f"missing: {rel}"])
                target.write_bytes(original)

    def test_unsealed_files_fail(self):
        set_rows(self.study)
        status, out, _ = run_cli("freeze", "check", str(self.study))
        self.assertEqual(status, 3)
        self.assertEqual(out.splitlines()[:-1], [f"unsealed: {rel}" for rel in contract_paths(self.study)])

    def test_one_unmet_row_is_the_only_reason(self):
        set_rows(self.study)
        set_rows(self.study, status="UNMET", evidence="none", only={"F6"})
        run_cli("freeze", "seal", str(self.study))
        status, out, _ = run_cli("freeze", "check", str(self.study))
        self.assertEqual(status, 3)
        problems = out.splitlines()[:-1]
        self.assertEqual(len(problems), 1)
        self.assertRegex(problems[0], r"^unmet: F6: Calibration run done .*FREEZE_ACCEPTANCE_MATRIX\.md:\d+; status UNMET\)$")

    def test_met_with_placeholder_evidence_is_not_met(self):
        set_rows(self.study)
        for placeholder in ("TBD", "none", "-", "", "pending review", "**TODO**: add the commit"):
            with self.subTest(placeholder=placeholder):
                set_rows(self.study, evidence=placeholder, only={"F3"})
                run_cli("freeze", "seal", str(self.study))
                report = freeze.check(self.study)
                self.assertFalse(report.passed)
                self.assertEqual([r.id for r in report.unmet], ["F3"])
                self.assertTrue(report.problems()[0].endswith("status MET but the evidence is a placeholder)"))


class SealTest(FixtureCase):

    def assert_refused(self, status, out, err, *fragments):
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(len(err.splitlines()), 1, err)
        for fragment in fragments:
            self.assertIn(fragment, err)

    def test_records_raw_byte_hashes_deterministically(self):
        status, out, _ = run_cli("freeze", "seal", str(self.study))
        self.assertEqual(status, 0)
        first = (self.study / CONTRACT).read_bytes()
        files = load(self.study / CONTRACT)["files"]
        for rel, entry in files.items():
            self.assertEqual(entry["sha256"], freeze.sha256_hex((self.root / rel).read_bytes()))
            self.assertIn(f"sealed: {rel}: sha256 {entry['sha256']} (new)", out)
        self.assertIn("0 of 9 rows met", out.splitlines()[-1])
        status, out, _ = run_cli("freeze", "seal", str(self.study))
        self.assertEqual(status, 0)
        self.assertEqual((self.study / CONTRACT).read_bytes(), first)
        self.assertEqual(out.count("(unchanged)"), 4)

    def test_reseal_during_design_reports_each_change(self):
        run_cli("freeze", "seal", str(self.study))
        old = load(self.study / CONTRACT)["files"]["research/routes-v2/PROTOCOL.md"]["sha256"]
        (self.study / "PROTOCOL.md").write_text("amended\n", encoding="utf-8")
        status, out, _ = run_cli("freeze", "seal", str(self.study))
        self.assertEqual(status, 0)
        changed = [line for line in out.splitlines() if "CHANGED" in line]
        self.assertEqual(len(changed), 1)
        self.assertTrue(changed[0].startswith("sealed: research/routes-v2/PROTOCOL.md: "))
        self.assertTrue(changed[0].endswith(f"(CHANGED, was {old})"))
        self.assertEqual(freeze.check(self.study).file_problems, ())

    def test_refuses_when_a_listed_file_is_missing(self):
        before = (self.study / CONTRACT).read_bytes()
        (self.study / "sources.csv").unlink()
        self.assert_refused(*run_cli("freeze", "seal", str(self.study)), "sources.csv: no such file")
        self.assertEqual((self.study / CONTRACT).read_bytes(), before)

    def test_refuses_a_malformed_matrix(self):
        before = (self.study / CONTRACT).read_bytes()
        set_rows(self.study, status="Met", only={"F2"})
        self.assert_refused(*run_cli("freeze", "seal", str(self.study)), "FREEZE_ACCEPTANCE_MATRIX.md:", "unknown status 'Met'")
        self.assertEqual((self.study / CONTRACT).read_bytes(), before)

    def test_a_complete_freeze_is_final(self):
        set_rows(self.study)
        self.assertEqual(run_cli("freeze", "seal", str(self.study))[0], 0)
        sealed = (self.study / CONTRACT).read_bytes()
        # Re-sealing what is unchanged is allowed and changes nothing.
        self.assertEqual(run_cli("freeze", "seal", str(self.study))[0], 0)
        self.assertEqual((self.study / CONTRACT).read_bytes(), sealed)
        analysis = self.root / "anachron" / "research" / "routes_v2.py"
        analysis.write_bytes(analysis.read_bytes() + b"# tweak\n")
        self.assert_refused(
            *run_cli("freeze", "seal", str(self.study)), "the freeze is final", "anachron/research/routes_v2.py"
        )
        self.assertEqual((self.study / CONTRACT).read_bytes(), sealed)
        self.assertEqual(freeze.check(self.study).file_problems, ("anachron/research/routes_v2.py",))


class MatrixTest(unittest.TestCase):
    HEAD = "# M\n\nprose | with a pipe inside a sentence\n\n| ID | Condition | Status | Evidence |\n| --- | :--- | ---: | :-: |\n"

    def parse(self, rows, head=None, tail=""):
        return parse_matrix((self.HEAD if head is None else head) + rows + tail, "m.md")

    def assert_error(self, text, *fragments):
        with self.assertRaises(AnachronError) as ctx:
            parse_matrix(text, "m.md")
        message = str(ctx.exception)
        self.assertNotIn("\n", message)
        for fragment in fragments:
            self.assertIn(fragment, message)

    def test_rows_lines_and_met(self):
        rows = self.parse("| A1 | first | MET | see commit abc |\n| A2 | second | UNMET | see commit abc |\n| A3 | third | MET | TBD |\n")
        self.assertEqual([(r.id, r.line) for r in rows], [("A1", 7), ("A2", 8), ("A3", 9)])
        self.assertEqual([r.met for r in rows], [True, False, False])
        self.assertEqual([r.why_unmet for r in rows], [None, "status UNMET", "status MET but the evidence is a placeholder"])

    def test_escaped_pipe_and_text_after_the_table(self):
        (row,) = self.parse("| A1 | cond | MET | log a\\|b |\n", tail="\nafter the table\n")
        self.assertEqual(row.evidence, "log a|b")

    def test_status_must_be_exactly_met_or_unmet(self):
        for status in ("met", "Met", "**MET**", "`MET`", "DONE", ""):
            with self.subTest(status=status):
                self.assert_error(self.HEAD + f"| A1 | cond | {status} | ok |\n", "m.md:7:", "unknown status")

    def test_table_shape_errors_name_the_line(self):
        cases = [
            ("no table here\n", ("m.md:", "no table found")),
            (self.HEAD + "| A1 | c | MET | e |\n\n| x | y |\n", ("m.md:9:", "a second table")),
            ("| ID | Condition | State | Evidence |\n| --- | --- | --- | --- |\n| A1 | c | MET | e |\n", ("m.md:1:", "header")),
            ("| ID | Condition | Status | Evidence |\n", ("m.md:1:", "delimiter")),
            ("| ID | Condition | Status | Evidence |\n| --- | --- | --- |\n| A1 | c | MET | e |\n", ("m.md:2:", "delimiter")),
            ("| ID | Condition | Status | Evidence |\n| --- | --- | --- | --- |\n", ("m.md:2:", "no rows")),
            (self.HEAD + "| A1 | c | MET |\n", ("m.md:7:", "expected 4 cells, found 3")),
            (self.HEAD + "| A1 | c | MET | e | extra |\n", ("m.md:7:", "found 5")),
            (self.HEAD + "| A1 | c | MET | e\n", ("m.md:7:", "start and end with '|'")),
            (self.HEAD + "| A1 | c | MET | e \\|\n", ("m.md:7:", "start and end with '|'")),
            (self.HEAD + "| A1 | c | MET | e |\n| A1 | d | MET | e |\n", ("m.md:8:", "duplicate row id 'A1' (first on line 7)")),
            (self.HEAD + "| 1A | c | MET | e |\n", ("m.md:7:", "row id '1A'")),
            (self.HEAD + "|  | c | MET | e |\n", ("m.md:7:", "row id ''")),
            (self.HEAD + "| A1 |  | MET | e |\n", ("m.md:7:", "empty condition")),
        ]
        for text, fragments in cases:
            with self.subTest(fragments[-1]):
                self.assert_error(text, *fragments)

    def test_tables_in_fenced_code_are_ignored(self):
        fenced = "```\n| ID | Condition | Status | Evidence |\n| --- | --- | --- | --- |\n| Z9 | c | MET | e |\n```\n"
        self.assert_error(fenced, "no table found")
        rows = self.parse("| A1 | c | UNMET | none |\n", head=fenced + "\n" + self.HEAD)
        self.assertEqual([r.id for r in rows], ["A1"])

    def test_placeholder_rule(self):
        for text in ("", "  ", "-", "—", "...", "none", "None yet", "N/A", "na", "nil", "null", "unknown",
                     "evidence", "TBD", "tbd: after calibration", "TODO", "FIXME later", "xxx", "Pending review",
                     "placeholder", "*TBD*", "`none`", "__n/a__", "none.", "N/A.", "(none)", "[TBD]", "'pending'"):
            with self.subTest(text=text):
                self.assertTrue(is_placeholder(text))
        for text in ("commit 0123abc", "research/routes-v2/DECISIONS.md", "None of the study sources ran before the seal",
                     "tests pass at 1f2e3d", "signed by A. Reviewer, 2025-01-02", "7"):
            with self.subTest(text=text):
                self.assertFalse(is_placeholder(text))


class BadContractTest(FixtureCase):
    def setUp(self):
        super().setUp()
        self.contract = load(self.study / CONTRACT)

    def assert_bad(self, *fragments, argv=None):
        for action in ("check", "seal"):
            with self.subTest(action=action):
                status, out, err = run_cli("freeze", action, *(argv or [str(self.study)]))
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(len(err.splitlines()), 1, err)
                for fragment in fragments:
                    self.assertIn(fragment, err)
                with self.assertRaises(AnachronError):
                    getattr(freeze, action)(*(argv or [self.study]))

    def write(self, obj=None, text=None):
        (self.study / CONTRACT).write_text(json.dumps(obj) if text is None else text, encoding="utf-8")

    def test_missing_directory_and_missing_contract(self):
        self.assert_bad("not a directory", argv=[str(self.study / "nope")])
        self.assert_bad("not a directory", argv=[str(self.study / "PROTOCOL.md")])
        (self.study / CONTRACT).unlink()
        self.assert_bad(f"{self.study / CONTRACT}: no such file")

    def test_malformed_json(self):
        where = str(self.study / CONTRACT)
        for text in ('{"format": ', "[1, 2]", '{"a": 1, "a": 2}', '{"format": NaN}', "\xff"):
            with self.subTest(text=text):
                self.write(text=text)
                self.assert_bad(where)

    def test_schema_errors(self):
        good = self.contract
        matrix = "research/routes-v2/FREEZE_ACCEPTANCE_MATRIX.md"

        def files(**changes):
            out = dict(good["files"])
            out.update(changes)
            return {k: v for k, v in out.items() if v is not None}

        cases = [
            ({**good, "extra": 1}, "unknown key 'extra'"),
            ({k: v for k, v in good.items() if k != "root"}, "missing key 'root'"),
            ({**good, "format": "anachron-freeze/0"}, "format must be"),
            ({**good, "study": " "}, "study must be"),
            ({**good, "sealed_complete": "yes"}, "sealed_complete"),
            ({**good, "description": 3}, "description"),
            ({**good, "root": "/etc"}, "path '/etc'"),
            ({**good, "root": "nowhere"}, "is not a directory"),
            ({**good, "files": {}}, "files must be"),
            ({**good, "files": files(**{matrix: {"role": "matrx", "sha256": None}})}, "role 'matrx'"),
            ({**good, "files": files(**{matrix: {"role": "matrix", "sha": None}})}, "unknown key 'sha'"),
            ({**good, "files": files(**{matrix: {"role": ["matrix"], "sha256": None}})}, "role ['matrix']"),
            ({**good, "files": files(**{matrix: {"role": "matrix", "sha256": "ABC"}})}, "sha256 must be"),
            ({**good, "files": files(**{matrix: "matrix"})}, "expected an object"),
            ({**good, "files": files(**{"extra.md": {"role": "matrix", "sha256": None}})}, "2 matrix file(s), expected exactly 1"),
            ({**good, "files": files(**{"research/routes-v2/PROTOCOL.md": {"role": "sources", "sha256": None}})}, "0 protocol file(s), expected at least 1"),
            ({**good, "files": files(**{"research/routes-v2/sources.csv": None})}, "0 sources file(s)"),
            ({**good, "files": files(**{"../x.md": {"role": "protocol", "sha256": None}})}, "without '..'"),
            ({**good, "files": files(**{"/abs.md": {"role": "protocol", "sha256": None}})}, "path '/abs.md'"),
            ({**good, "files": files(**{"a\\b.md": {"role": "protocol", "sha256": None}})}, "must be"),
            ({**good, "files": files(**{"./a.md": {"role": "protocol", "sha256": None}})}, "'.' part"),
            ({**good, "files": files(**{"C:/a.md": {"role": "protocol", "sha256": None}})}, "must be"),
        ]
        for obj, fragment in cases:
            with self.subTest(fragment):
                self.write(obj)
                self.assert_bad(str(self.study / CONTRACT), fragment)

    def test_listed_path_that_is_a_directory(self):
        self.write({**self.contract, "files": {**self.contract["files"], "research": {"role": "protocol", "sha256": None}}})
        self.assert_bad("is a directory")

    def test_malformed_matrix_names_file_and_line(self):
        matrix = self.study / "FREEZE_ACCEPTANCE_MATRIX.md"
        text = matrix.read_text(encoding="utf-8")
        matrix.write_text(text.replace("| F4 | ", "| F4 | extra cell | "), encoding="utf-8")
        line = text.split("\n").index(next(l for l in text.split("\n") if l.startswith("| F4 |"))) + 1
        self.assert_bad(f"FREEZE_ACCEPTANCE_MATRIX.md:{line}: expected 4 cells, found 5")

    def test_matrix_that_is_not_utf8(self):
        (self.study / "FREEZE_ACCEPTANCE_MATRIX.md").write_bytes(b"| ID \xff")
        self.assert_bad("FREEZE_ACCEPTANCE_MATRIX.md: not UTF-8")


# ------------------------------------------------------------ the analysis

PRE, POST = "2023-01-01", "2023-03-02"  # 30 days before / after the as-of date
AS_OF = "2023-01-31"
HASH = "ab" * 32


def source_line(sid, stratum, true_date=None, as_of=AS_OF, digest=HASH):
    true_date = true_date or (PRE if stratum == "pre" else POST)
    return f"{sid},{stratum},{true_date},{as_of},{digest},https://example.org/{sid},A. Reviewer,2024-05-01\n"


def runs(sid, arm, outcomes, start=1):
    """One ok record per (used, cited) pair; exposed is true whenever used or cited."""
    return [
        {"source_id": sid, "arm": arm, "run": start + i, "status": "ok", "exposed": used or cited, "used": used, "cited": cited}
        for i, (used, cited) in enumerate(outcomes)
    ]


ARMS = ("visible", "hidden", "shift:+60", "shift:-60")
Y, N, C = (True, False), (False, False), (False, True)  # used, nothing, cited only


class AnalysisTest(unittest.TestCase):
    """A fully met, sealed fixture with a four-source list; outcome files vary per test."""

    SOURCES = [("p1", "pre"), ("p2", "pre"), ("q1", "post"), ("q2", "post")]

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.study = cls.ready_fixture(Path(cls.tmp.name) / "ready", [source_line(s, k) for s, k in cls.SOURCES])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @staticmethod
    def ready_fixture(root, source_lines, *, closure=True, header=SOURCE_HEADER):
        root.mkdir(parents=True)
        study = build_fixture(root, closure=closure)
        (study / "sources.csv").write_text(header + "".join(source_lines), encoding="utf-8")
        set_rows(study)
        status, _, err = run_cli("freeze", "seal", str(study))
        assert status == 0, err
        return study

    def outcomes(self, records, name="outcomes.jsonl"):
        path = Path(self.tmp.name) / name
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        return path

    def balanced(self, per_arm):
        """Three runs per source and arm; per_arm[arm][sid] is a list of (used, cited)."""
        records = []
        for arm in ARMS:
            for sid, _ in self.SOURCES:
                records += runs(sid, arm, per_arm.get(arm, {}).get(sid, [N, N, N]))
        return records

    def test_rates_pairs_and_the_comparison_used(self):
        per_arm = {
            "shift:-60": {"p1": [Y, Y, C], "p2": [Y, N, N], "q1": [Y, Y, Y], "q2": [C, N, N]},
            "shift:+60": {"p1": [N, N, N], "p2": [Y, N, N], "q1": [Y, N, N], "q2": [N, N, N]},
            "visible": {"p1": [Y, N, N]},
        }
        records = self.balanced(per_arm)
        records.append({"source_id": "p1", "arm": "hidden", "run": 9, "status": "error", "error": "timeout"})
        result = run_outcome_analysis(self.study, self.outcomes(records))

        self.assertEqual(result["sources"], {"listed": 4, "included": ["p1", "p2", "q1", "q2"], "excluded": []})
        self.assertEqual(result["runs"], {"valid": 48, "errored": 1})
        self.assertEqual(result["contract_sha256"], freeze.sha256_hex((self.study / CONTRACT).read_bytes()))
        # Reliance = used or cited; citation = cited; means over sources of per-source rates.
        self.assertAlmostEqual(result["rates"]["shift:-60"]["reliance"], (1 + 1 / 3 + 1 + 1 / 3) / 4)
        self.assertAlmostEqual(result["rates"]["shift:-60"]["citation"], (1 / 3 + 0 + 0 + 1 / 3) / 4)
        self.assertAlmostEqual(result["rates"]["visible"]["exposure"], (1 / 3) / 4)

        a = {"p1": 1.0, "p2": 1 / 3, "q1": 1.0, "q2": 1 / 3}
        b = {"p1": 0.0, "p2": 1 / 3, "q1": 1 / 3, "q2": 0.0}
        expected = compare_modes(a, b, confidence=0.95, n_resamples=10_000, seed=0).to_dict()
        expected["metric"] = "reliance rate"
        primary = result["primary"]
        self.assertEqual((primary["a"], primary["b"], primary["stratum"], primary["n"]), ("shift:-60", "shift:+60", "all", 4))
        self.assertEqual(primary["comparison"], expected)
        self.assertEqual(primary["comparison"]["improved"], 3)

        by_name = {s["name"]: s for s in result["secondary"]}
        post = by_name["shown-before-vs-shown-past:post"]
        self.assertEqual(post["n"], 2)
        self.assertEqual(post["comparison"]["unrestricted_mean"], compare_modes({"q1": 1.0, "q2": 1 / 3}, {"q1": 1 / 3, "q2": 0.0}).unrestricted_mean)
        citation = by_name["citation:shown-before-vs-shown-past"]
        self.assertEqual(citation["comparison"]["metric"], "citation rate")
        self.assertAlmostEqual(citation["comparison"]["unrestricted_mean"], (1 / 3 + 1 / 3) / 4)

    def test_holm_adjustment_of_the_secondary_p_values(self):
        per_arm = {"shift:-60": {s: [Y, Y, Y] for s, _ in self.SOURCES}, "hidden": {"p1": [Y, Y, Y]}}
        result = run_outcome_analysis(self.study, self.outcomes(self.balanced(per_arm)))
        ps = [s["comparison"]["sign_test_p"] for s in result["secondary"]]
        order = sorted(range(len(ps)), key=lambda i: ps[i])
        expected, running = [None] * len(ps), 0.0
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
            expected[i] = running
        self.assertEqual([s["holm_p"] for s in result["secondary"]], expected)
        self.assertTrue(all(h >= p for h, p in zip(expected, ps)))

    def test_decision_rule(self):
        every = {s: [Y, Y, Y] for s, _ in self.SOURCES}
        mixed = {"p1": [Y, Y, Y], "p2": [N, N, N], "q1": [Y, Y, Y], "q2": [N, N, N]}
        mixed_b = {"p1": [N, N, N], "p2": [Y, Y, Y], "q1": [N, N, N], "q2": [Y, Y, Y]}
        cases = [
            ({}, "null"),  # identical arms: CI [0, 0]
            ({"shift:-60": every}, "effect"),  # every source 1 vs 0: CI [1, 1]
            ({"shift:-60": mixed, "shift:+60": mixed_b}, "inconclusive"),  # differences ±1: CI spans 0 widely
        ]
        for per_arm, decision in cases:
            with self.subTest(decision):
                primary = run_outcome_analysis(self.study, self.outcomes(self.balanced(per_arm)))["primary"]
                self.assertEqual(primary["decision"], decision, primary["comparison"])

    def test_sources_short_of_valid_runs_leave_every_contrast(self):
        records = self.balanced({})
        records = [r for r in records if not (r["source_id"] == "q2" and r["arm"] == "hidden" and r["run"] == 3)]
        records.append({"source_id": "q2", "arm": "hidden", "run": 3, "status": "error"})
        result = run_outcome_analysis(self.study, self.outcomes(records))
        self.assertEqual(result["sources"]["included"], ["p1", "p2", "q1"])
        self.assertEqual(result["sources"]["excluded"], [{"source_id": "q2", "reason": "fewer than 3 valid runs (hidden: 2)"}])
        self.assertEqual(result["primary"]["n"], 3)
        self.assertEqual({s["name"]: s["n"] for s in result["secondary"]}["shown-before-vs-shown-past:post"], 1)

    def test_no_source_left_is_an_error(self):
        records = [r for r in self.balanced({}) if r["arm"] != "visible"]
        with self.assertRaises(AnachronError) as ctx:
            run_outcome_analysis(self.study, self.outcomes(records))
        self.assertIn("no source has 3 valid runs in every arm", str(ctx.exception))

    def test_cli_writes_the_same_bytes_as_the_api_atomically(self):
        path = self.outcomes(self.balanced({"shift:-60": {"p1": [Y, N, N]}}))
        out_file = Path(self.tmp.name) / "result" / "r.json"
        out_file.parent.mkdir()  # an output's directory must exist (docs/formats.md)
        status, out, err = run_cli("freeze", "analyze", str(self.study), str(path), "--out", str(out_file))
        self.assertEqual((status, out, err), (0, "", ""))
        from anachron.core.jsonio import dump_json

        self.assertEqual(out_file.read_text(encoding="utf-8"), dump_json(run_outcome_analysis(self.study, path)))
        status, out, _ = run_cli("freeze", "analyze", str(self.study), str(path))
        self.assertEqual((status, out), (0, out_file.read_text(encoding="utf-8")))

    def test_bad_outcome_records_name_file_and_line(self):
        good = runs("p1", "visible", [Y])[0]
        cases = [
            ({**good, "source_id": "zz"}, "source_id 'zz' is not in the frozen source list"),
            ({**good, "source_id": ["p1"]}, "source_id ['p1'] is not in the frozen source list"),
            ({**good, "status": "error", "used": None, "exposed": None, "cited": None, "error": 5}, "error must be a message string"),
            ({**good, "arm": "shift:+30"}, "arm 'shift:+30'"),
            ({**good, "run": 0}, "run must be an integer >= 1"),
            ({**good, "run": True}, "run must be an integer >= 1"),
            ({**good, "status": "done"}, "status must be ok or error"),
            ({**good, "used": 1}, "used must be true or false"),
            ({k: v for k, v in good.items() if k != "cited"}, "cited must be true or false"),
            ({**good, "status": "error"}, "an errored run carries no outcome fields"),
            ({**good, "note": "x"}, "unknown field 'note'"),
        ]
        for record, fragment in cases:
            with self.subTest(fragment):
                path = self.outcomes([good | {"run": 2}, record])
                status, out, err = run_cli("freeze", "analyze", str(self.study), str(path))
                self.assertEqual((status, out), (2, ""))
                self.assertEqual(len(err.splitlines()), 1)
                self.assertIn(f"{path}:2: {fragment}", err)
        path = self.outcomes([good, good])
        with self.assertRaises(AnachronError) as ctx:
            run_outcome_analysis(self.study, path)
        self.assertIn(f"{path}:2: duplicate run 1 of p1 in arm visible (first on line 1)", str(ctx.exception))

    def test_bad_source_lists_are_errors_after_the_gate(self):
        cases = [
            ([source_line("p1", "pre", true_date="2023-01-02")], ":2: a pre source's true_date must lie 30 days before its as_of, found 2023-01-02 for 2023-01-31"),
            ([source_line("q1", "post", true_date=PRE)], ":2: a post source's true_date must lie 30 days after its as_of"),
            ([source_line("p1", "mid")], ":2: stratum must be pre or post"),
            ([source_line("p1", "pre", digest="AB" * 32)], ":2: content_sha256"),
            ([source_line("p1", "pre", as_of="2023-02-30")], "not a real calendar day"),
            ([source_line("p1", "pre"), source_line("p1", "pre")], ":3: duplicate source_id 'p1'"),
            (["p1,pre\n"], ":2: expected 8 fields, found 2"),
            (["p1,pre," + PRE + "," + AS_OF + "," + HASH + ",,A,2024-01-01\n"], ":2: origin is empty"),
        ]
        for i, (lines, fragment) in enumerate(cases):
            with self.subTest(fragment):
                study = self.ready_fixture(Path(self.tmp.name) / f"bad{i}", lines)
                with self.assertRaises(AnachronError) as ctx:
                    run_outcome_analysis(study, self.outcomes([]))
                self.assertNotIsInstance(ctx.exception, FreezeNotPassed)
                self.assertIn("sources.csv" + fragment if fragment.startswith(":") else fragment, str(ctx.exception))

    def test_a_source_list_without_its_header_is_an_error(self):
        study = self.ready_fixture(Path(self.tmp.name) / "noheader", [source_line("p1", "pre")], header="")
        with self.assertRaises(AnachronError) as ctx:
            run_outcome_analysis(study, self.outcomes([]))
        self.assertIn("sources.csv:1: the header must be", str(ctx.exception))

    def test_refuses_unless_every_executed_module_is_frozen(self):
        study = self.ready_fixture(Path(self.tmp.name) / "narrow", [source_line("p1", "pre")], closure=False)
        self.assertTrue(freeze.check(study).passed)
        with self.assertRaises(FreezeNotPassed) as ctx:
            run_outcome_analysis(study, Path(self.tmp.name) / "never-read.jsonl")
        named = {line.split()[2] for line in ctx.exception.problems}
        expected = set(code_closure("anachron.research.routes_v2")) - {"anachron.research.routes_v2"}
        self.assertEqual(named, expected)
        self.assertIn("anachron.core.stats.paired", named)
        status, out, err = run_cli("freeze", "analyze", str(study), str(Path(self.tmp.name) / "never-read.jsonl"))
        self.assertEqual((status, out), (3, ""))
        self.assertIn("not frozen: anachron.core.stats.paired", err)

    def test_refuses_when_the_running_code_differs_from_the_frozen_copy(self):
        root = Path(self.tmp.name) / "drifted"
        root.mkdir()
        study = build_fixture(root, closure=True)
        (study / "sources.csv").write_text(SOURCE_HEADER + source_line("p1", "pre"), encoding="utf-8")
        set_rows(study)
        frozen_copy = root / "anachron" / "core" / "stats" / "paired.py"
        frozen_copy.write_bytes(frozen_copy.read_bytes() + b"# the frozen copy, not what runs\n")
        self.assertEqual(run_cli("freeze", "seal", str(study))[0], 0)
        self.assertTrue(freeze.check(study).passed)
        with self.assertRaises(FreezeNotPassed) as ctx:
            run_outcome_analysis(study, Path(self.tmp.name) / "never-read.jsonl")
        (problem,) = ctx.exception.problems
        self.assertTrue(problem.startswith("not frozen: anachron.core.stats.paired ("), problem)
        self.assertTrue(problem.endswith("differs from the sealed anachron/core/stats/paired.py"), problem)

    def test_refuses_another_study(self):
        study = self.ready_fixture(Path(self.tmp.name) / "other", [source_line("p1", "pre")])
        contract = load(study / CONTRACT)
        (study / CONTRACT).write_text(json.dumps({**contract, "study": "routes-v3"}), encoding="utf-8")
        with self.assertRaises(AnachronError) as ctx:
            run_outcome_analysis(study, self.outcomes([]))
        self.assertIn("not 'routes-v2'", str(ctx.exception))

    def test_closure_of_the_real_analysis(self):
        closure = code_closure("anachron.research.routes_v2")
        self.assertIn("anachron.core.stats.paired", closure)
        self.assertIn("anachron.core.stats.signtest", closure)  # imported by paired, not by routes_v2
        self.assertNotIn("anachron.core", closure)  # package initialisers are not followed
        self.assertEqual(closure["anachron.research.routes_v2"], Path(routes_v2.__file__))


class ClosureTest(unittest.TestCase):
    """code_closure on a throwaway package: lazy imports, re-exports, initialisers."""

    FILES = {
        "__init__.py": "from .lib import helper\nfrom . import unused_by_entry\n",
        "entry.py": "import json\nfrom . import helper\n\ndef run():\n    from .lazy import go\n    return go()\n",
        "lazy.py": "from .deep import VALUE\ndef go():\n    return VALUE\n",
        "deep.py": "VALUE = 1\n",
        "lib.py": "def helper():\n    return 2\n",
        "unused_by_entry.py": "X = 3\n",
    }

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        package = Path(tmp.name) / "closurepkg"
        package.mkdir()
        for name, text in self.FILES.items():
            (package / name).write_text(text, encoding="utf-8")
        sys.path.insert(0, tmp.name)
        self.addCleanup(sys.path.remove, tmp.name)
        self.addCleanup(lambda: [sys.modules.pop(m) for m in list(sys.modules) if m.split(".")[0] == "closurepkg"])

    def test_lazy_imports_count_and_reexports_are_traced(self):
        closure = code_closure("closurepkg.entry", package="closurepkg")
        # entry imports `helper` through the package initialiser: traced to lib,
        # and the initialiser's own other import is not followed.
        self.assertEqual(list(closure), ["closurepkg.deep", "closurepkg.entry", "closurepkg.lazy", "closurepkg.lib"])

    def test_a_module_without_source_is_an_error(self):
        with self.assertRaises(AnachronError):
            code_closure("closurepkg.missing", package="closurepkg")


if __name__ == "__main__":
    unittest.main()
