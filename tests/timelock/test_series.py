"""The series tool serves each value as it was known at T (ALFRED's realtime periods), says its vintage,
logs what it served, and refuses every vintage file that is not ALFRED's shape.

In process, through the public lock (TimeLock) and the vintage file reader (VintageFile); the ALFRED API
stub and the real server are in slow_series.py.
"""

import datetime as dt
import json
import re
import shutil
import tempfile
import unittest
from pathlib import Path

from anachron.core import AnachronError, load_corpus_dir, parse_traces, score_trace
from anachron.timelock import EventWriter, Limits, TimeLock, UpstreamBackend, events_trace, load_events
from anachron.timelock.series import KEY_VARIABLE, AlfredSource, VintageFile, open_series

T = dt.date(2020, 6, 1)


def row(date, value, start, end="9999-12-31"):
    return {"realtime_start": start, "realtime_end": end, "date": date, "value": value}


def answer(*rows, **fields):
    """One fred/series/observations answer (output_type 1), as ALFRED sends it."""
    return {"realtime_start": "1776-07-04", "realtime_end": "9999-12-31", "output_type": 1, "observations": list(rows), **fields}


# GDP as ALFRED keeps it: Q3 2019 is missing, Q4 2019 and Q1 2020 were revised after T, Q2 2020
# was first published after T.
GDP = answer(
    row("2019-07-01", ".", "2019-10-30"),
    row("2019-10-01", "19202.3", "2020-01-30", "2020-07-29"),
    row("2019-10-01", "19221.970", "2020-07-30"),
    row("2020-01-01", "19010.8", "2020-04-29", "2020-05-27"),
    row("2020-01-01", "19011.8", "2020-05-28", "2020-06-24"),
    row("2020-01-01", "18952.0", "2020-06-25"),
    row("2020-04-01", "17282.2", "2020-07-30"),
)


class Journal:
    def __init__(self):
        self.records = []

    def write(self, header, record):
        self.records.append(record)


class Files(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)

    def vintages(self, document, name="vintages.json"):
        path = self.tmp / name
        path.write_text(json.dumps(document), encoding="utf-8")
        return path

    def lock(self, document=None, *, as_of=T, mode="enforced", journal=None, **options):
        source = VintageFile(self.vintages({"GDPC1": GDP} if document is None else document))
        backend = UpstreamBackend("http://127.0.0.1:9")  # never called: only the series tool is
        return TimeLock(backend, as_of, journal if journal is not None else Journal(), mode=mode, series=source, **options)


class ServedAsKnownAtTheCutoffTest(Files):
    def test_a_series_revised_after_the_cutoff_is_served_at_its_vintage_of_the_cutoff(self):
        journal = Journal()
        outcome = self.lock(journal=journal).call("series", {"id": "GDPC1"})
        self.assertFalse(outcome.is_error)
        self.assertEqual(outcome.structured["series"], {"id": "GDPC1", "vintage": "2020-05-28", "observations": [
            {"date": "2019-07-01", "value": None, "published": "2019-10-30"},
            {"date": "2019-10-01", "value": "19202.3", "published": "2020-01-30"},
            {"date": "2020-01-01", "value": "19011.8", "published": "2020-05-28"}]})
        self.assertEqual(outcome.text.split("\n\n")[0].split("\n"), [
            "series #1: GDPC1, vintage 2020-05-28, 3 observations", "2019-07-01: missing (published 2019-10-30)",
            "2019-10-01: 19202.3 (published 2020-01-30)", "2020-01-01: 19011.8 (published 2020-05-28)"])
        logged = journal.records[0]["series"]
        self.assertEqual((logged["id"], logged["vintage"], logged["not_served"]), ("GDPC1", "2020-05-28", 4))
        self.assertEqual([(o["date"], o["value"], o["realtime_start"], o["realtime_end"]) for o in logged["observations"]], [
            ("2019-07-01", None, "2019-10-30", "9999-12-31"), ("2019-10-01", "19202.3", "2020-01-30", "2020-07-29"),
            ("2020-01-01", "19011.8", "2020-05-28", "2020-06-24")])

    def test_a_value_published_on_the_cutoff_is_known_and_one_revised_on_the_day_after_is_not_yet(self):
        on_start = self.lock(as_of=dt.date(2020, 5, 28)).call("series", {"id": "GDPC1"}).structured["series"]
        self.assertEqual((on_start["vintage"], on_start["observations"][-1]["value"]), ("2020-05-28", "19011.8"))
        on_end = self.lock(as_of=dt.date(2020, 6, 24)).call("series", {"id": "GDPC1"}).structured["series"]
        self.assertEqual(on_end["observations"][-1]["value"], "19011.8")
        day_before = self.lock(as_of=dt.date(2020, 5, 27)).call("series", {"id": "GDPC1"}).structured["series"]
        self.assertEqual((day_before["vintage"], day_before["observations"][-1]["value"]), ("2020-04-29", "19010.8"))

    def test_the_unrestricted_baseline_serves_the_series_as_it_is_today(self):
        served = self.lock(mode="unrestricted").call("series", {"id": "gdpc1"}).structured["series"]
        self.assertEqual([o["value"] for o in served["observations"]], [None, "19221.970", "18952.0", "17282.2"])
        self.assertEqual(served["vintage"], "2020-07-30")

    def test_a_hidden_date_presentation_hides_the_vintage_and_the_publication_days(self):
        outcome = self.lock(presentation="hidden").call("series", {"id": "GDPC1"})
        self.assertIsNone(outcome.structured["series"]["vintage"])
        self.assertEqual({o["published"] for o in outcome.structured["series"]["observations"]}, {None})
        self.assertTrue(outcome.text.startswith("series #1: GDPC1, vintage not shown, 3 observations\n2019-07-01: missing\n"))
        shifted = self.lock(presentation="shift:+10").call("series", {"id": "GDPC1"})
        self.assertTrue(shifted.text.startswith("series #1: GDPC1, vintage 2020-06-07, 3 observations\n"
                                                "2019-07-01: missing (published 2019-11-09)\n"))

    def test_an_unknown_series_and_one_first_published_after_the_cutoff_get_the_same_refusal(self):
        lock = self.lock({"GDPC1": GDP, "NEWONE": answer(row("2020-04-01", "1.5", "2020-07-30"))})
        unknown, later = lock.call("series", {"id": "NOPE"}), lock.call("series", {"id": "NEWONE"})
        self.assertEqual((unknown.status, later.status), ("refused", "refused"))
        self.assertEqual([o.text.split(": ", 1)[1] for o in (unknown, later)], [
            "error: No series 'NOPE' is available.\n\nBudget remaining: searches unlimited, fetches unlimited, calls unlimited.",
            "error: No series 'NEWONE' is available.\n\nBudget remaining: searches unlimited, fetches unlimited, calls unlimited."])

    def test_a_file_downloaded_for_a_realtime_period_without_the_cutoff_is_an_error_not_an_old_vintage(self):
        lock = self.lock({"GDPC1": {**GDP, "realtime_end": "2020-03-01"}})
        outcome = lock.call("series", {"id": "GDPC1"})
        self.assertEqual(outcome.status, "error")
        self.assertIn("holds its vintages of 1776-07-04..2020-03-01 only, not 2020-06-01", outcome.text)


class ArgumentsAndBudgetTest(Files):
    def test_the_tool_takes_one_id_and_nothing_else(self):
        lock = self.lock()
        for arguments, reason in (
            ({"id": "GDPC1", "as_of": "2030-01-01"}, "unexpected argument(s) 'as_of': series takes only 'id'"),
            ({}, "series needs 'id', a non-empty string"),
            ({"id": "GDP C1"}, "'GDP C1' is not a series id (letters, digits, _)"),
        ):
            with self.subTest(arguments=arguments):
                outcome = lock.call("series", arguments)
                self.assertEqual(outcome.status, "refused")
                self.assertIn(reason, outcome.text)

    def test_without_a_series_source_there_is_no_series_tool(self):
        lock = TimeLock(UpstreamBackend("http://127.0.0.1:9"), T, Journal())
        outcome = lock.call("series", {"id": "GDPC1"})
        self.assertEqual(outcome.status, "refused")
        self.assertIn("unknown tool 'series': the tools are search and fetch", outcome.text)
        self.assertNotIn("series", lock.header)

    def test_a_series_call_spends_the_calls_budget(self):
        lock = self.lock(limits=Limits(calls=1))
        self.assertEqual(lock.call("series", {"id": "GDPC1"}).status, "ok")
        self.assertEqual(lock.call("series", {"id": "GDPC1"}).status, "exhausted")
        self.assertEqual(lock.budget()["calls"]["used"], 1)


class LoggedAndScoredTest(Files):
    def served_log(self, mode):
        path = self.tmp / f"events-{mode}.jsonl"
        writer = EventWriter(path)
        self.lock(mode=mode, journal=writer).call("series", {"id": "GDPC1"})
        writer.close()
        return path

    def score(self, path):
        corpus = load_corpus_dir()
        [trace] = parse_traces([(str(path), events_trace(load_events(path), corpus, sample_id="s", as_of=T))], corpus)
        return score_trace(trace, corpus)

    def test_the_log_reads_back_with_the_vintage_and_the_values_served(self):
        path = self.served_log("enforced")
        log = load_events(path)
        self.assertEqual(log.header["series"], f"file {self.tmp / 'vintages.json'}")
        [call] = log.calls
        self.assertEqual((call.series.id, call.series.vintage, len(call.series.observations)), ("GDPC1", dt.date(2020, 5, 28), 3))
        self.assertIsNone(call.series.observations[0].value)

    def test_the_enforced_run_has_no_restatement_leak_and_the_unrestricted_one_has_it_with_evidence(self):
        clean = self.score(self.served_log("enforced"))
        self.assertEqual((clean.interactions, clean.result_leaks, clean.restatement_leaks), (1, 0, 0))
        leaky = self.score(self.served_log("unrestricted"))
        self.assertEqual((leaky.interactions, leaky.result_leaks, leaky.restatement_leaks), (1, 1, 1))
        self.assertEqual([line for line in leaky.evidence if "restatement" in line], [
            "#1 restatement series GDPC1 observation 2019-10-01 value 19221.970 first published 2020-07-30 > 2020-06-01",
            "#1 restatement series GDPC1 observation 2020-01-01 value 18952.0 first published 2020-06-25 > 2020-06-01",
            "#1 restatement series GDPC1 observation 2020-04-01 value 17282.2 first published 2020-07-30 > 2020-06-01",
        ])

    def test_a_logged_series_value_without_its_realtime_start_or_on_a_failed_call_is_an_error(self):
        path = self.served_log("enforced")
        lines = path.read_text(encoding="utf-8").split("\n")
        call = json.loads(lines[1])
        for broken, message in (
            ({**call, "series": {**call["series"], "observations": [{"date": "2019-07-01", "value": None, "realtime_end": "9999-12-31"}]}},
             r"series observations\[0\]: missing field 'realtime_start'"),
            ({**call, "series": {**call["series"], "observations": [{"date": "2019-07-01", "value": 0,
                                                                    "realtime_start": "2019-10-30", "realtime_end": "9999-12-31"}]}},
             r"field 'value': expected a string or null"),
            ({**call, "status": "error"}, r"a 'series' call with status 'error' cannot have shown a series"),
            ({**call, "tool": "search", "arguments": {"query": "GDP"}}, r"a 'search' call with status 'ok' cannot have shown a series"),
        ):
            with self.subTest(message=message):
                bad = self.tmp / "bad.jsonl"
                bad.write_text("\n".join([lines[0], json.dumps(broken), ""]), encoding="utf-8")
                with self.assertRaisesRegex(AnachronError, message):
                    load_events(bad)


class RestatementInATraceTest(unittest.TestCase):
    """Any importer's trace may carry series values (docs/formats.md): the scorer judges them alike."""

    def score(self, *items, as_of="2020-06-01"):
        corpus = load_corpus_dir()
        record = {"sample_id": "s1", "as_of": as_of, "interactions": [{"tool": "series", "returned": list(items)}]}
        [trace] = parse_traces([("traces.jsonl:1", record)], corpus)
        return score_trace(trace, corpus)

    @staticmethod
    def value(start, value="19221.970", date="2019-10-01"):
        return {"id": f"GDPC1@{date}", "series": "GDPC1", "observation_date": date, "value": value, "realtime_start": start}

    def test_a_value_first_published_after_the_cutoff_is_a_restatement_leak_and_one_published_on_it_is_not(self):
        leak = self.score(self.value("2020-06-02"))
        self.assertEqual((leak.result_leaks, leak.restatement_leaks), (1, 1))
        self.assertIn("#1 restatement series GDPC1 observation 2019-10-01 value 19221.970 first published 2020-06-02 > 2020-06-01",
                      leak.evidence)
        known = self.score(self.value("2020-06-01"))
        self.assertEqual((known.interactions, known.result_leaks, known.restatement_leaks), (1, 0, 0))
        undated = self.score(self.value(None))  # the day was not shown: undated, in the band, never clean
        self.assertEqual((undated.interactions, undated.result_leaks, undated.undated, float(undated.tclr_high_exact)), (1, 0, 1, 1.0))
        missing = self.score(self.value("2020-07-30", value=None))
        self.assertIn("#1 restatement series GDPC1 observation 2019-10-01 value missing first published 2020-07-30 > 2020-06-01",
                      missing.evidence)

    def test_a_series_value_without_its_publication_day_field_or_value_is_an_error_never_clean(self):
        entry = self.value("2020-06-02")
        for broken, message in (
            ({k: v for k, v in entry.items() if k != "realtime_start"}, "missing field 'realtime_start'"),
            ({**entry, "realtime_start": "June 2020"}, "field 'realtime_start'"),
            ({**entry, "realtime_start": 20200602}, "field 'realtime_start'"),
            ({k: v for k, v in entry.items() if k != "value"}, "missing field 'value'"),
            ({**entry, "value": 19221.97}, "field 'value': expected a string or null"),
            ({**entry, "observation_date": None}, "field 'observation_date'"),
        ):
            with self.subTest(message=message), self.assertRaisesRegex(AnachronError, r"^traces.jsonl:1 .*returned\[0\]: " + message):
                self.score(broken)


class BadVintageFilesTest(Files):
    def refused(self, document, message, *, raw=None):
        path = self.tmp / "bad.json"
        path.write_text(raw if raw is not None else json.dumps(document), encoding="utf-8")
        with self.assertRaises(AnachronError) as caught:
            VintageFile(path)
        self.assertEqual(str(caught.exception), f"{path}: {message}")
        self.assertEqual(caught.exception.where.file, str(path))

    def test_a_document_that_is_not_alfreds_shape(self):
        self.refused([GDP], "expected an object keyed by series id (ALFRED answers), got an array")
        self.refused({}, "expected an object keyed by series id (ALFRED answers), got an object")
        self.refused(GDP, 'one ALFRED answer does not name its series: key it by series id, {"GDPC1": {"observations": [...]}}')
        self.refused({"GDPC1": {"seriess": []}}, "series 'GDPC1': expected ALFRED's fred/series/observations answer, "
                     "an object with an 'observations' list, got an object")
        self.refused({"GDPC1": {**GDP, "output_type": 2}}, "series 'GDPC1': output_type 2: only output_type 1 "
                     "(observations by realtime period) carries realtime_start and realtime_end")
        self.refused({"GDPC1": answer(["2020-01-01", "1"])}, "series 'GDPC1' observations[0]: expected an object, got an array")
        self.refused({"GDP C1": GDP}, "series 'GDP C1': 'GDP C1' is not a series id (letters, digits, _)")
        self.refused({"gdpc1": GDP, "GDPC1": GDP}, "series 'GDPC1': series GDPC1 is given twice (ids are read in upper case)")

    def test_an_empty_or_broken_file_is_refused(self):
        path = self.tmp / "bad.json"
        for raw in ("", "{", '{"GDPC1": NaN}'):
            with self.subTest(raw=raw):
                path.write_text(raw, encoding="utf-8")
                with self.assertRaisesRegex(AnachronError, rf"^{re.escape(str(path))}(:1)?: invalid JSON"):
                    VintageFile(path)
        with self.assertRaisesRegex(AnachronError, "no such file"):
            VintageFile(self.tmp / "missing.json")

    def test_a_missing_field_or_a_bad_date_names_the_observation(self):
        at = "series 'GDPC1' observation 2020-01-01 (observations[0])"
        self.refused({"GDPC1": answer({"date": "2020-01-01", "value": "1", "realtime_end": "9999-12-31"})},
                     f"{at}: missing field 'realtime_start'")
        self.refused({"GDPC1": answer({"date": "2020-01-01", "realtime_start": "2020-02-01", "realtime_end": "9999-12-31"})},
                     f"{at}: missing field 'value'")
        self.refused({"GDPC1": answer(row("2020-01-01", "1", "2020-02-30"))},
                     f"{at}: realtime_start: '2020-02-30' is not a real calendar day")
        self.refused({"GDPC1": answer(row("Q1 2020", "1", "2020-02-01"))},
                     "series 'GDPC1' observations[0]: date: 'Q1 2020' is not a date of the form YYYY-MM-DD")
        self.refused({"GDPC1": answer(row("2020-01-01", "1", "2020-03-01", "2020-02-01"))},
                     f"{at}: realtime_end 2020-02-01 is before realtime_start 2020-03-01")

    def test_a_value_that_is_not_a_number_nor_alfreds_missing_mark(self):
        at = "series 'GDPC1' observation 2020-01-01 (observations[0])"
        for value in ("NaN", "nan", "inf", "", "1,234.5", "n/a"):
            with self.subTest(value=value):
                self.refused({"GDPC1": answer(row("2020-01-01", value, "2020-02-01"))},
                             f"{at}: value {value!r} is not a number (ALFRED writes a missing value as '.')")
        self.refused({"GDPC1": answer(row("2020-01-01", 1.5, "2020-02-01"))},
                     f"{at}: value: expected a string (ALFRED writes values as strings), got 1.5")
        self.refused({"GDPC1": answer(row("2020-01-01", None, "2020-02-01"))},
                     f"{at}: value: expected a string (ALFRED writes values as strings), got null")

    def test_rows_out_of_order_or_with_overlapping_realtime_periods(self):
        self.refused({"GDPC1": answer(row("2020-04-01", "2", "2020-07-30"), row("2020-01-01", "1", "2020-04-29"))},
                     "series 'GDPC1' observation 2020-01-01 (observations[1]): out of order: it comes after observation "
                     "2020-04-01 realtime_start 2020-07-30")
        self.refused({"GDPC1": answer(row("2020-01-01", "2", "2020-05-28"), row("2020-01-01", "1", "2020-04-29", "2020-05-27"))},
                     "series 'GDPC1' observation 2020-01-01 (observations[1]): out of order: it comes after observation "
                     "2020-01-01 realtime_start 2020-05-28")
        self.refused({"GDPC1": answer(row("2020-01-01", "1", "2020-04-29", "2020-05-28"), row("2020-01-01", "2", "2020-05-28"))},
                     "series 'GDPC1' observation 2020-01-01 (observations[1]): realtime period 2020-05-28..9999-12-31 overlaps "
                     "the previous one 2020-04-29..2020-05-28")

    def test_alfreds_missing_mark_is_served_as_missing_not_as_zero(self):
        served = self.lock({"UNRATE": answer(row("2020-04-01", " . ", "2020-05-08"))}).call("series", {"id": "UNRATE"})
        self.assertEqual(served.structured["series"]["observations"], [{"date": "2020-04-01", "value": None, "published": "2020-05-08"}])
        self.assertIn("\n2020-04-01: missing (published 2020-05-08)\n", served.text)


class AlfredKeyTest(unittest.TestCase):
    def test_the_api_needs_its_key_named_in_one_line(self):
        for environ in ({}, {KEY_VARIABLE: ""}):
            with self.subTest(environ=environ), self.assertRaisesRegex(
                AnachronError, r"^--series alfred: set FRED_API_KEY in the environment to your FRED API key$"
            ):
                open_series("alfred=http://127.0.0.1:9", environ)
        with self.assertRaisesRegex(AnachronError, r"^--series alfred=ftp://x: not an http\(s\) URL$"):
            open_series("alfred=ftp://x", {KEY_VARIABLE: "k"})
        source = open_series("alfred", {KEY_VARIABLE: "secret"})
        self.assertIsInstance(source, AlfredSource)
        self.assertEqual(source.source, "https://api.stlouisfed.org")  # the key is never in what the log names


if __name__ == "__main__":
    unittest.main()
