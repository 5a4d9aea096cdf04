"""Notebook displays (``_repr_html_``), flat records (``to_records``) and ``--format csv``.

The records' shape is tested without pandas; with pandas installed, a DataFrame is built
from them as they are.
"""

import csv
import io
import json
import sys
import tempfile
import unittest
from pathlib import Path

from anachron.core import compare_modes, load_corpus_dir, parse_traces, score_traces, summarise
from anachron.store import SearchEngine
from anachron.core.reference_agent import naive_trace
from anachron.core.jsonio import dump_json
from anachron.bank.run import BANK_COLUMNS
from anachron.output.records import COMPARISON_COLUMNS, SAMPLE_COLUMNS, csv_text, sample_records
from anachron.output.html.tables import comparison_card
from anachron.output.results import Results
from tests.support import ROOT, require_extra, run_cli

CORPUS = load_corpus_dir()
ENGINE = SearchEngine(CORPUS)
SCALARS = (str, int, float, bool, type(None))


def results(mode="unrestricted"):
    traces = [naive_trace(s, ENGINE, mode) for s in CORPUS.samples.values()]
    return score_traces(parse_traces([(f"t:{i}", t) for i, t in enumerate(traces)], CORPUS), CORPUS)


class Displays(unittest.TestCase):
    def test_sample_result_shows_figures_denominators_and_evidence(self):
        r = next(r for r in results() if r.result_leaks)
        html = r._repr_html_()
        self.assertIn(f"<caption>Sample {r.sample_id}</caption>", html)
        self.assertIn(f"{r.result_leaks} of {r.interactions} interactions leaked", html)
        for line in r.evidence:
            self.assertIn(f"<code>{line.replace('>', '&gt;').replace(chr(39), '&#x27;')}</code>", html)
        self.assertNotIn("SampleResult(", html)

    def test_sample_result_escapes_hostile_ids(self):
        traces = [{"sample_id": "<img src=x onerror=alert(1)>\udc80", "as_of": "2022-06-01", "interactions": []}]
        [r] = score_traces(parse_traces([("t:1", traces[0])], CORPUS), CORPUS)
        html = r._repr_html_()
        self.assertNotIn("<img", html)
        self.assertIn("&lt;img src=x onerror=alert(1)&gt;\\udc80", html)
        html.encode("utf-8")

    def test_run_summary_and_results(self):
        rs = Results(results())
        s = summarise(list(rs))
        html = s._repr_html_()
        self.assertIn('<th scope="row">date-leak runs</th><td class="num">12</td><td class="den">27 samples</td>', html)
        table = rs._repr_html_()
        self.assertEqual(table.count('<td class="text id"'), 27)
        self.assertIn("27 interactions", table)  # denominators from the samples themselves
        self.assertEqual(repr(rs), "Results(n=27, mean_tclr=0.444)")
        self.assertEqual(rs.summary, s)
        self.assertIsInstance(rs[:3], Results)
        self.assertEqual(len(rs[:3]), 3)
        with self.assertRaises(ValueError):
            Results([1])

    def test_comparison_shows_seed_resamples_metric(self):
        u, e = results("unrestricted"), results("enforced")
        c = compare_modes({r.sample_id: r.tclr for r in u}, {r.sample_id: r.tclr for r in e}, n_resamples=321, seed=5)
        html = c._repr_html_()
        for label, value in (("seed", "5"), ("bootstrap resamples", "321"), ("metric", "tclr")):
            self.assertIn(f'<th style="text-align:left">{label}</th><td style="text-align:right">{value}</td>', html)

    def test_bank_card(self):
        from anachron.bank import default_bank_path, load_bank, manifest_path_for, manifest_version, oracle_responses, run_bank
        from anachron.core.jsonio import read_json

        bank = load_bank(default_bank_path())
        version = manifest_version(read_json(manifest_path_for(default_bank_path())), "m")
        run = run_bank(bank, oracle_responses(bank, "ignore"), manifest_version=version, system="ignore")
        html = run._repr_html_()
        self.assertEqual(html.count("<td>PASS</td>"), 4)
        self.assertIn("<th>oracle respect</th><th>oracle ignore</th>", html)
        self.assertIn(f"{run.tally.leaked}/{run.tally.embargoed}", html)
        records = run.to_records()
        self.assertEqual(len(records), len(bank.items))
        self.assertTrue(all(tuple(r) == BANK_COLUMNS for r in records))
        self.assertTrue(all(isinstance(v, SCALARS) for r in records for v in r.values()))


class DisplayHooks(unittest.TestCase):
    """The core's results are shown as HTML by renderers registered from outside it (anachron.core.display)."""

    def run_python(self, code):
        import os
        import subprocess
        import sys

        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr)
        return run.stdout.split()

    SETUP = ("import sys\n"
             "from anachron.core import load_corpus_dir, parse_traces, score_traces, summarise\n"
             "from anachron.core.reference_agent import naive_trace\n"
             "from anachron.store import SearchEngine\n"
             "c = load_corpus_dir(); s = next(iter(c.samples.values()))\n"
             "[r] = score_traces(parse_traces([('t:1', naive_trace(s, SearchEngine(c), 'unrestricted'))], c), c)\n")

    def test_the_core_alone_imports_no_html_and_falls_back_to_repr(self):
        shown = self.run_python(self.SETUP + "print('anachron.output.html' in sys.modules, r._repr_html_(), summarise([r])._repr_html_())")
        self.assertEqual(shown, ["False", "None", "None"])

    def test_importing_the_output_side_registers_the_renderers(self):
        shown = self.run_python(self.SETUP + "import anachron.output.results\n"
                                "print(r._repr_html_().startswith('<'), summarise([r])._repr_html_().startswith('<'))")
        self.assertEqual(shown, ["True", "True"])


class ComparisonDisplayTest(unittest.TestCase):
    """ModeComparison in a notebook: the output side's table of its figures, method and warnings."""

    # The paired tests' example (tests/core/stats/test_paired.py, TableTest): 7 improved, 20 tied.
    U = {**{f"i{j}": v for j, v in enumerate([1, 1, 1, 1, 0.5, 0.5, 0.5])}, "t0": 1.0, **{f"t{j}": 0 for j in range(1, 20)}}
    E = {**{f"i{j}": 0 for j in range(7)}, "t0": 1.0, **{f"t{j}": 0 for j in range(1, 20)}}

    def test_html(self):
        report = compare_modes(self.U, self.E, n_resamples=100, seed=7)
        html = comparison_card(report)
        self.assertEqual(report._repr_html_(), html)  # registered when the output side is imported
        self.assertTrue(html.startswith("<table><caption>Paired mode comparison (n=27)</caption>"))
        self.assertIn('<th style="text-align:left">improved / worsened / tied</th><td style="text-align:right">7 / 0 / 20</td>', html)
        self.assertEqual(html.count("<tr>"), 13)
        self.assertIn('<th style="text-align:left">interval</th><td style="text-align:right">percentile</td>', html)
        self.assertIn("<p>warning: n = 27 is below 30", html)
        self.assertIn('<th style="text-align:left">seed</th><td style="text-align:right">7</td>', html)
        self.assertIn('<th style="text-align:left">bootstrap resamples</th><td style="text-align:right">100</td>', html)
        self.assertIn('<th style="text-align:left">metric</th><td style="text-align:right">tclr</td>', html)
        odd = compare_modes({"a": 1}, {"a": 0}, metric="result_leaks", n_resamples=100)
        self.assertIn("result_leaks", odd._repr_html_())


class Records(unittest.TestCase):
    def test_every_record_is_flat_with_the_documented_columns(self):
        records = Results(results()).to_records()
        self.assertEqual(len(records), 27)
        for record in records:
            self.assertEqual(tuple(record), SAMPLE_COLUMNS)
            for name, value in record.items():
                self.assertIsInstance(value, SCALARS, name)
        r = next(r for r in results() if r.result_leaks)
        [record] = sample_records([r])
        self.assertEqual(record["tclr"], r.tclr)
        self.assertEqual(record["evidence"].split("\n"), list(r.evidence))
        self.assertEqual(record["evidence_lines"], len(r.evidence))
        self.assertEqual(record["calls"], r.calls)
        self.assertEqual(record["failed_refused"], r.failed_calls["refused"])

    def test_seal_audit_and_open_periods_reach_records_and_displays(self):
        trace = {"sample_id": "s", "as_of": "2023-06-01", "interactions": [
            {"tool": "search", "query": "2023 annual report"},
            {"tool": "WebSearch", "status": "error"},
        ]}
        parsed = parse_traces([("t:1", trace)], CORPUS)
        [audited] = score_traces(parsed, CORPUS, sealed_tools={"search"})
        [record] = sample_records([audited])
        self.assertEqual((record["seal_breaches"], record["open_period_queries"]), (1, 1))
        self.assertIs(record["answered"], False)
        html = Results([audited])._repr_html_()
        self.assertIn("sealed: false (1 seal breach in 1 / 1 sample; 2 calls audited): NOT a time-locked result", html)
        self.assertIn("<th scope=\"row\">open-period queries</th>", html)
        [unaudited] = score_traces(parsed, CORPUS)
        self.assertIsNone(sample_records([unaudited])[0]["seal_breaches"])
        # No shell, local call or lock receipt: no audit could apply, so no seal row (as in the CLI's table).
        self.assertNotIn("seal audit", summarise([unaudited])._repr_html_())
        self.assertIn("not audited", unaudited._repr_html_())

    def test_pandas_takes_them_as_they_are(self):
        require_extra("pandas", "test")
        import pandas

        frame = pandas.DataFrame(Results(results()).to_records())
        self.assertEqual(tuple(frame.columns), SAMPLE_COLUMNS)
        self.assertEqual(len(frame), 27)
        self.assertAlmostEqual(frame["tclr"].mean(), 12 / 27)

    def test_to_dataframe_keeps_every_sample_and_the_documented_columns(self):
        require_extra("pandas", "test")
        frame = Results(results()).to_dataframe()
        self.assertEqual(tuple(frame.columns), SAMPLE_COLUMNS)
        self.assertEqual(len(frame), 27)
        self.assertAlmostEqual(frame["tclr"].mean(), 12 / 27)
        self.assertEqual(tuple(Results([]).to_dataframe().columns), SAMPLE_COLUMNS)  # no sample: still the columns

    def test_to_dataframe_without_pandas_names_the_install(self):
        saved = sys.modules.get("pandas", _ABSENT)
        sys.modules["pandas"] = None  # what an environment without pandas gives: import pandas raises ImportError
        try:
            with self.assertRaises(ImportError) as caught:
                Results(results()).to_dataframe()
        finally:
            if saved is _ABSENT:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved
        self.assertIn("pip install pandas", str(caught.exception))


class PublicApiTest(unittest.TestCase):
    """``import anachron``: the entry points a notebook needs, each imported when first used."""

    def test_the_log_entry_points_are_top_level_names(self):
        import anachron
        from anachron.importers import Options, import_logs
        from anachron.output.results import score_logs

        self.assertEqual((anachron.ImportOptions, anachron.import_logs, anachron.score_logs), (Options, import_logs, score_logs))
        self.assertLessEqual({"ImportOptions", "import_logs", "score_logs"}, set(anachron.__all__) & set(dir(anachron)))

    def test_score_logs_scores_a_harness_log_as_the_cli_does(self):
        import anachron

        log = str(ROOT / "tests" / "data" / "importers" / "codex-rollout-shells.jsonl")
        got = anachron.score_logs("codex", [log], as_of="2023-01-01")
        status, out, err = run_cli("score", "--from", "codex", log, "--as-of", "2023-01-01", "--format", "json")
        self.assertEqual(status, 0, err)
        self.assertEqual([r.to_dict() for r in got], json.loads(out)["samples"])

    def test_score_logs_refuses_what_it_cannot_read(self):
        import anachron

        log = str(ROOT / "tests" / "data" / "importers" / "codex-rollout-shells.jsonl")
        for call, message in (
            (lambda: anachron.score_logs("inspect", [log]), "anachron.inspect.score_logs"),
            (lambda: anachron.score_logs("codex", [log], as_of="2023-1-1"), "2023-1-1"),
            (lambda: anachron.score_logs("codex", [log], as_of="2023-01-01", options=anachron.ImportOptions()), "not both"),
            (lambda: anachron.score_logs("codex", [log]), "no as-of date"),
        ):
            with self.subTest(message):
                with self.assertRaises(anachron.AnachronError) as caught:
                    call()
                self.assertIn(message, str(caught.exception))


_ABSENT = object()


class CsvFormat(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def trace_file(self, mode, records=None):
        path = self.dir / f"{mode}.jsonl"
        records = records or [naive_trace(s, ENGINE, mode) for s in CORPUS.samples.values()]
        path.write_text("".join(dump_json(t, indent=None) for t in records), encoding="utf-8")
        return path

    def test_score_csv_round_trips_and_is_deterministic(self):
        path = self.trace_file("unrestricted")
        status, out, err = run_cli("score", str(path), "--format", "csv")
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(run_cli("score", str(path), "--format", "csv")[1], out)
        rows = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(tuple(rows[0]), SAMPLE_COLUMNS)
        expected = results()
        self.assertEqual([row["sample_id"] for row in rows], [r.sample_id for r in expected])
        self.assertEqual([float(row["tclr"]) for row in rows], [r.tclr for r in expected])
        self.assertEqual([row["evidence"].split("\n") if row["evidence"] else [] for row in rows],
                         [list(r.evidence) for r in expected])
        self.assertTrue(all(row["horizon_days"] == "" for row, r in zip(rows, expected) if r.horizon_days is None))
        self.assertTrue(out.endswith("\n") and "\r" not in out)

    def test_hostile_cells_stay_one_record(self):
        sid = 'a,"b"\n=c\u2028\udc80'
        path = self.trace_file("x", [{"sample_id": sid, "as_of": "2022-06-01", "interactions": []}])
        status, out, err = run_cli("score", str(path), "--format", "csv")
        self.assertEqual(status, 0, err)
        [row] = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(row["sample_id"], 'a,"b"\n=c\u2028\\udc80')
        out.encode("utf-8")

    def test_compare_csv(self):
        u, e = (self.dir / "u.json"), (self.dir / "e.json")
        u.write_text(json.dumps({r.sample_id: r.tclr for r in results("unrestricted")}))
        e.write_text(json.dumps({r.sample_id: r.tclr for r in results("enforced")}))
        status, out, err = run_cli("compare", str(u), str(e), "--format", "csv", "--seed", "3", "--resamples", "500")
        self.assertEqual((status, err), (0, ""))
        [row] = list(csv.DictReader(io.StringIO(out)))
        self.assertEqual(tuple(row), COMPARISON_COLUMNS)
        status, js, _ = run_cli("compare", str(u), str(e), "--format", "json", "--seed", "3", "--resamples", "500")
        doc = json.loads(js)
        for name in COMPARISON_COLUMNS[:-1]:
            want = doc[name]
            self.assertEqual(row[name], "" if want is None else repr(want) if isinstance(want, float) else str(want), name)
        # n = 27, 500 resamples, every enforced value 0: each caveat travels with the row
        self.assertEqual(row["warnings"].split("\n"), doc["warnings"])
        self.assertEqual([w.split(" ")[0] for w in doc["warnings"]], ["n", "500", "every"], doc["warnings"])

    def test_bank_run_csv(self):
        status, out, err = run_cli("bank", "run", "--system", "respect", "--format", "csv")
        self.assertEqual((status, err), (0, ""))
        rows = list(csv.DictReader(io.StringIO(out)))
        status, js, _ = run_cli("bank", "run", "--system", "respect", "--format", "json")
        card = json.loads(js)
        self.assertEqual(tuple(rows[0]), BANK_COLUMNS)
        self.assertEqual([r["item_id"] for r in rows], [i["item_id"] for i in card["items"]])
        self.assertEqual([r["judgement"] for r in rows], [i["judgement"] for i in card["items"]])
        self.assertEqual({r["embargoed"] for r in rows}, {"true", "false"})
        self.assertEqual({r["bank_version"] for r in rows}, {card["bank_version"]})

    def test_csv_text_shape(self):
        text = csv_text([{"a": None, "b": True, "c": 0.1, "d": 3}], ("a", "b", "c", "d"))
        self.assertEqual(text, "a,b,c,d\n,true,0.1,3\n")


if __name__ == "__main__":
    unittest.main()
