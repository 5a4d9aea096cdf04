"""Facts on corpus items, what a text states, and answer leaks (retrieved or parametric)."""

import json
import tempfile
import unittest
from pathlib import Path

from anachron.core import AnachronError, build_corpus, load_corpus_dir, parse_traces, score_trace, summarise
from anachron.core.facts import statements
from anachron.output.text_table import summary_lines

from tests.corpus_fixtures import item
from tests.support import run_cli, score_json

T = "2021-06-01"


def facts_corpus(*extra_items):
    items = [
        item("orig", "2021-02-04", text="Delta Pharma reported fourth-quarter 2020 revenue of $412M.",
             entities=["DLTP"]),
        item("restated", "2021-09-17", restates="orig", entities=["DLTP"],
             text="Delta Pharma restated its fourth-quarter 2020 revenue to $377M."),
        item("on-t", T, text="Delta Pharma named a new chief executive, Ada Brandt.", entities=["DLTP"]),
        item("ipo", "2023-02-09", text="Cygnus Robotics priced its IPO at $18 and trades as CYGN.", entities=["CYGN"]),
        # No entities: about the capitalised words of the title (Meridian).
        item("subs-0", "2021-03-01", title="Meridian subscriber count", text="Meridian had 12.4 million subscribers."),
        item("subs-1", "2021-11-15", restates="subs-0", title="Meridian restates subscribers",
             text="Meridian restated subscribers to 11.9 million."),
        *extra_items,
    ]
    facts = {
        "orig": [{"kind": "money", "value": "412000000", "currency": "USD"}],
        "restated": [{"kind": "money", "value": "377000000", "currency": "USD", "about": "restated revenue"}],
        "on-t": [{"kind": "name", "value": "Ada Brandt"}],
        "ipo": [{"kind": "date", "value": "2023-02-09"}, {"kind": "name", "value": "CYGN"},
                {"kind": "money", "value": "18", "currency": "USD"}],
        "subs-0": [{"kind": "number", "value": "12400000", "unit": "subscribers"}],
        "subs-1": [{"kind": "number", "value": "11900000", "unit": "subscribers"}],
    }
    for row in items:
        if row["id"] in facts:
            row["facts"] = facts[row["id"]]
    entities = [{"id": "DLTP", "name": "Delta Pharma", "valid_from": None, "valid_to": None},
                {"id": "CYGN", "name": "Cygnus Robotics", "valid_from": None, "valid_to": None},
                {"id": "ACME", "name": "Acme Tools", "valid_from": None, "valid_to": None}]
    return build_corpus([(f"items.jsonl:{n}", r) for n, r in enumerate(items, 1)],
                        [(f"entities.jsonl:{n}", e) for n, e in enumerate(entities, 1)])


def run(c, answer, interactions=(), as_of=T):
    record = {"sample_id": "s1", "as_of": as_of, "interactions": list(interactions)}
    if answer is not None:
        record["answer"] = answer
    [trace] = parse_traces([("traces.jsonl:1", record)], c)
    return score_trace(trace, c)


def answer_lines(result):
    return [line for line in result.evidence if line.startswith("answer ")]


class FactFormatTest(unittest.TestCase):
    def load_error(self, facts):
        row = item("x", "2021-01-01")
        row["facts"] = facts
        with self.assertRaises(AnachronError) as caught:
            build_corpus([("items.jsonl:7", row)])
        message = str(caught.exception)
        self.assertTrue(message.startswith("items.jsonl:7: field 'facts'"), message)
        self.assertNotIn("\n", message)
        return message

    def test_bad_facts_are_rejected_naming_the_line_and_the_fact(self):
        cases = {
            "not a list": ("377M", "expected a list"),
            "not an object": (["377M"], "[0]: expected a fact object"),
            "unknown key": ([{"kind": "name", "value": "X", "source": "y"}], "unknown key 'source'"),
            "unknown kind": ([{"kind": "figure", "value": "1"}], "kind is the string 'figure', expected one of money, percent, number, date, name"),
            "no kind": ([{"value": "1"}], "[0]: has no kind"),
            "number value": ([{"kind": "number", "value": 377}], "value is 377, expected a string"),
            "exponent": ([{"kind": "number", "value": "3.77e8"}], "not a non-negative decimal"),
            "negative": ([{"kind": "number", "value": "-5"}], "not a non-negative decimal"),
            "padded": ([{"kind": "percent", "value": " 5"}], "not a non-negative decimal"),
            "leading zero": ([{"kind": "number", "value": "007"}], "not a non-negative decimal"),
            "no currency": ([{"kind": "money", "value": "5"}], "needs a currency code"),
            "unknown currency": ([{"kind": "money", "value": "5", "currency": "usd"}], "needs a currency code"),
            "currency elsewhere": ([{"kind": "percent", "value": "5", "currency": "USD"}], "only a money fact has a currency"),
            "bad day": ([{"kind": "date", "value": "2021-02-30"}], "not a real calendar day"),
            "not ISO": ([{"kind": "date", "value": "Feb 9, 2023"}], "YYYY-MM-DD"),
            "empty name": ([{"kind": "name", "value": "  "}], "a name must be"),
            "control character": ([{"kind": "name", "value": "CY\x00GN"}], "a name must be"),
            "huge name": ([{"kind": "name", "value": "x" * 10_000}], "a name must be"),
            "empty unit": ([{"kind": "number", "value": "5", "unit": ""}], "expected a non-empty string"),
            "twice": ([{"kind": "name", "value": "CYGN"}, {"kind": "name", "value": "cygn"}], "[1]: the same fact as [0]"),
            "same figure twice": ([{"kind": "number", "value": "5"}, {"kind": "number", "value": "5.0"}], "the same fact"),
        }
        for label, (facts, expected) in cases.items():
            with self.subTest(label):
                self.assertIn(expected, self.load_error(facts))

    def test_absent_or_null_facts_are_none(self):
        for facts in (None, []):
            row = item("x", "2021-01-01")
            row["facts"] = facts
            self.assertEqual(build_corpus([("items.jsonl:1", row)]).items["x"].facts, ())
        self.assertEqual(build_corpus([("items.jsonl:1", item("x", "2021-01-01"))]).items["x"].facts, ())

    def test_facts_are_not_extra_fields(self):
        c = facts_corpus()
        self.assertNotIn("facts", c.items["restated"].extra)
        self.assertEqual(c.items["restated"].facts[0].to_dict(),
                         {"kind": "money", "value": "377000000", "currency": "USD", "about": "restated revenue"})

    def test_a_fact_is_public_from_the_earliest_item_declaring_it(self):
        late = item("repeat", "2021-10-01", text="CYGN again", entities=["CYGN"])
        late["facts"] = [{"kind": "name", "value": "CYGN"}]
        early = item("early", "2021-01-01", text="cygn", entities=["CYGN"])
        early["facts"] = [{"kind": "name", "value": "cygn"}]
        c = facts_corpus(late, early)
        fact, source = c.fact_sources[("name", "cygn")]
        self.assertEqual((source.id, str(source.publish_date)), ("early", "2021-01-01"))
        self.assertEqual(answer_lines(run(c, "CYGN")), [])


class StatementsTest(unittest.TestCase):
    """What a text states, kind by kind: the documented forms, and near misses."""

    def fact(self, **fact):
        row = item("x", "2021-01-01")
        row["facts"] = [fact]
        return build_corpus([("items.jsonl:1", row)]).items["x"].facts[0]

    def check(self, fact, stated, not_stated):
        for text, passage in stated.items():
            self.assertEqual(statements(text).find(fact), passage, text)
        for text in not_stated:
            self.assertIsNone(statements(text).find(fact), text)

    def test_money(self):
        fact = self.fact(kind="money", value="377000000", currency="USD")
        self.check(fact, {
            "It was $377M.": "$377M", "$377 million": "$377 million", "USD 377m": "USD 377m",
            "377 million dollars": "377 million dollars", "377,000,000 USD": "377,000,000 USD",
            "$377MM": "$377MM", "$0.377bn": "$0.377bn", "$0.38bn": "$0.38bn", "US$377mn": "US$377mn",
            "revenue: 377 mln": "377 mln", "(restated to $377.0M)": "$377.0M",
        }, [
            "377", "It was 377 (restated)", "€377M", "£377m", "$0.4bn", "$400M", "$3770M", "$377B",
            "377%", "$377k", "$1377M", "fin-377", "Q377",
        ])

    def test_dates_inside_a_text_are_not_figures(self):
        fact = self.fact(kind="number", value="2")
        self.check(fact, {"2 plants": "2"}, ["As of 2021/02/04, revenue was $412M", "on 2021-02-04", "Feb 2, 2021",
                                             "02.04.2021", "2 February 2021", "due on Feb 2", "by 2 February"])
        year = self.fact(kind="number", value="2021")
        self.check(year, {"2,021 films": "2,021"}, ["in 2021", "FY2021"])

    def test_percent(self):
        fact = self.fact(kind="percent", value="48.1")
        self.check(fact, {"48.1%": "48.1%", "48.1 percent": "48.1 percent", "48.1 per cent": "48.1 per cent",
                          "48.1 pct": "48.1 pct", "a ratio of 0.481": "0.481", "about 48%": "48%"},
                   ["48.1", "margin of 48.1 points", "$48.1", "4.81%", "0.4810001", "481%"])

    def test_number(self):
        fact = self.fact(kind="number", value="41000", unit="tonnes")
        self.check(fact, {"41kt": "41kt", "41,000 tonnes": "41,000 tonnes", "41 thousand": "41 thousand", "41000": "41000",
                          "41.0k tonnes": "41.0k tonnes"},
                   ["$41k", "41%", "410,000", "41", "5km"])

    def test_rounding_needs_two_significant_digits(self):
        fact = self.fact(kind="money", value="1120000000", currency="USD")
        self.check(fact, {"$1.1B": "$1.1B", "$1.12bn": "$1.12bn"}, ["$1B", "$1.2B", "$1.13B"])

    def test_dates(self):
        fact = self.fact(kind="date", value="2023-02-09")
        self.check(fact, {
            "2023-02-09": "2023-02-09", "2023/02/09": "2023/02/09", "2023.02.09": "2023.02.09",
            "on February 9, 2023,": "February 9, 2023", "Feb. 9th 2023": "Feb. 9th 2023",
            "9 February 2023": "9 February 2023", "9th of Feb 2023": "9th of Feb 2023",
            "09.02.2023": "09.02.2023", "02/09/2023": "02/09/2023", "09/02/2023": "09/02/2023",
            "9-2-2023": "9-2-2023",
        }, ["lists on Feb 9", "on 9 Feb", "February 9th", "the 9th of February", "February 2023", "2023-02-19", "2023-02", "2022-02-09", "02.09.2023", "Feb 19", "February 10, 2023",
            "2023-02-30"])

    def test_names(self):
        fact = self.fact(kind="name", value="CYGN")
        self.check(fact, {"NYSE:CYGN": "CYGN", "cygn shares": "cygn", "($CYGN).": "CYGN"}, ["CYGNUS", "XCYGN", "CYGN2"])
        person = self.fact(kind="name", value="Ada O\u2019Brien")
        self.check(person, {"named ADA  O'BRIEN chief": "ADA  O'BRIEN", "ada\no\u2019brien": "ada\no\u2019brien"},
                   ["Ada O'Briend"])

    def test_hostile_texts(self):
        fact = self.fact(kind="money", value="377000000", currency="USD")
        self.assertEqual(statements("\ud800 $377M \u2028 x").find(fact), "$377M")
        self.assertIsNone(statements("9" * 1_000_000).find(fact))
        big = "word, 12. " * 100_000 + "$377M"
        self.assertEqual(statements(big).find(fact), "$377M")


class AnswerLeakTest(unittest.TestCase):
    def setUp(self):
        self.c = facts_corpus()

    def test_the_issue_example_parametric(self):
        r = run(self.c, "Delta Pharma's Q4 2020 revenue was $377M.")
        self.assertEqual(answer_lines(r), [
            "answer states '$377M' (restated, public 2021-09-17 > 2021-06-01), never retrieved: parametric"])
        self.assertEqual((r.answered, r.answer_leaks_retrieved, r.answer_leaks_parametric), (True, 0, 1))

    def test_retrieved_names_the_first_ok_call_that_showed_the_fact(self):
        r = run(self.c, "Delta Pharma's revenue was restated to 377 million dollars.", [
            {"tool": "fetch", "status": "refused", "target": "restated"},
            {"tool": "search", "query": "delta", "returned": ["orig"]},
            {"tool": "search", "query": "delta restated", "returned": ["restated"]},
            {"tool": "fetch", "returned": ["restated"]},
        ])
        self.assertEqual(answer_lines(r), [
            "answer states '377 million dollars' (restated, public 2021-09-17 > 2021-06-01), surfaced by #3: retrieved"])
        self.assertEqual((r.answer_leaks_retrieved, r.answer_leaks_parametric), (1, 0))

    def test_a_refused_call_never_surfaces_a_fact(self):
        r = run(self.c, "DLTP: $377M", [{"tool": "fetch", "status": "refused", "target": "restated"}])
        self.assertEqual((r.answer_leaks_retrieved, r.answer_leaks_parametric, r.blocked_attempts), (0, 1, 1))

    def test_an_open_web_page_stating_the_fact_surfaces_it(self):
        page = {"url": "https://news.example/delta", "publish_date": "2021-05-01",
                "snippet": "Delta's revenue, later restated to $377 million"}
        r = run(self.c, "Delta Pharma: $377M", [{"tool": "search", "query": "delta", "returned": [page]}])
        self.assertEqual(answer_lines(r)[0][-len("surfaced by #1: retrieved"):], "surfaced by #1: retrieved")

    def test_a_fact_public_on_t_does_not_leak_one_day_later_does(self):
        self.assertEqual(run(self.c, "Delta Pharma's new chief is Ada Brandt.").answer_leaks_parametric, 0)
        r = run(self.c, "Delta Pharma's new chief is Ada Brandt.", as_of="2021-05-31")
        self.assertEqual(answer_lines(r), [
            "answer states 'Ada Brandt' (on-t, public 2021-06-01 > 2021-05-31), never retrieved: parametric"])

    def test_the_figure_known_at_t_is_no_leak(self):
        self.assertEqual(answer_lines(run(self.c, "Delta Pharma revenue was $412M.")), [])
        self.assertEqual(run(self.c, "Delta Pharma revenue was $412M.", as_of="2021-02-03").answer_leaks_parametric, 1)

    def test_a_passage_that_also_states_a_known_fact_is_not_a_leak(self):
        # 12 million rounds both 12.4 million (public 2021-03-01) and 11.9 million (2021-11-15).
        self.assertEqual(answer_lines(run(self.c, "Meridian: about 12 million subscribers")), [])
        self.assertEqual(run(self.c, "Meridian: 11.9 million subscribers").answer_leaks_parametric, 1)
        # Before either was public, the rounded figure states both.
        self.assertEqual(run(self.c, "Meridian: about 12 million subscribers", as_of="2021-01-01").answer_leaks_parametric, 2)

    def test_each_fact_counts_once_in_the_order_stated(self):
        r = run(self.c, "Cygnus (CYGN) priced at $18 on 2023-02-09; CYGN rose. Delta Pharma restated to $377M.")
        self.assertEqual([line.split("'")[1] for line in answer_lines(r)], ["CYGN", "$18", "2023-02-09", "$377M"])
        self.assertEqual(r.answer_leaks_parametric, 4)

    def test_no_answer_is_not_answered(self):
        r = run(self.c, None, [{"tool": "search", "query": "delta", "returned": ["restated"]}])
        self.assertEqual((r.answered, r.answer_leaks_retrieved, r.answer_leaks_parametric), (False, 0, 0))
        self.assertTrue(run(self.c, "").answered)

    def test_answer_evidence_stays_one_short_line(self):
        r = run(self.c, "DLTP $377M" + "\u2028\n" * 3)
        self.assertEqual(len(answer_lines(r)), 1)
        [line] = answer_lines(run(self.c, "Delta Pharma revenue was $377\nmillion"))
        self.assertIn("answer states '$377 million' (restated", line)

    def test_run_totals_and_score_document(self):
        results = [run(self.c, "DLTP $377M"), run(self.c, "DLTP $377M", [{"tool": "search", "query": "d", "returned": ["restated"]}]),
                   run(self.c, None)]
        summary = summarise(results)
        self.assertEqual((summary.answered_runs, summary.answer_leaks_retrieved, summary.answer_leaks_parametric), (2, 1, 1))
        document = json.loads(score_json(results))
        self.assertEqual([s["answer_leaks_parametric"] for s in document["samples"]], [1, 0, 0])
        self.assertEqual(document["summary"]["answered_runs"], 2)
        lines = summary_lines(summary)
        self.assertIn("answered runs            2 / 3", lines)
        self.assertIn("answer leaks retrieved   1", lines)
        self.assertIn("answer leaks parametric  1", lines)
        self.assertFalse(any(line.startswith("answer") for line in summary_lines(summarise([run(self.c, None)]))))

    def test_runs_with_an_answer_leak_are_counted_apart_from_the_facts(self):
        from anachron.output.html.tables import summary_rows

        results = [run(self.c, "Cygnus (CYGN) priced at $18 on 2023-02-09."), run(self.c, "Nothing to report."),
                   run(self.c, None)]
        summary = summarise(results)
        self.assertEqual((summary.answered_runs, summary.answer_leaks_parametric, summary.answer_leak_runs), (2, 3, 1))
        self.assertEqual(summary.to_dict()["answer_leak_runs"], 1)
        rows = summary_rows(summary)
        self.assertIn(("answer leaks parametric", "3", "post-T facts stated, in total"), rows)
        self.assertIn(("answer leaks retrieved", "0", "post-T facts stated, in total"), rows)
        self.assertIn(("runs with an answer leak", "1", "2 answered runs"), rows)
        self.assertEqual(summarise([run(self.c, "DLTP $377M", [{"tool": "search", "query": "d", "returned": ["restated"]}])])
                         .answer_leak_runs, 1)  # a retrieved leak counts the run too

    def test_a_stored_result_reads_back(self):
        from anachron.core.leakage import read_sample

        r = run(self.c, "DLTP $377M")
        self.assertEqual(read_sample(r.to_dict(), "run.json"), r)
        old = {k: v for k, v in r.to_dict().items() if not k.startswith("answer") and k not in ("not_yet_listed", "already_delisted")}
        self.assertEqual(read_sample(old, "run.json").answer_leaks_parametric, 0)


class SubjectTest(unittest.TestCase):
    """A fact counts only when the answer, or the corpus sample it answers, names the fact's subject."""

    def v0(self, answer, as_of, sample_id="x"):
        c = load_corpus_dir()
        record = {"sample_id": sample_id, "answer": answer, "interactions": []}
        if as_of is not None:
            record["as_of"] = as_of
        [trace] = parse_traces([("t:1", record)], c)
        return answer_lines(score_trace(trace, c))

    def test_another_company_s_figures_are_not_this_answer_s(self):
        # $18 is Cygnus's IPO price (fin-005), 6% Pioneer Rail's carload growth (fin-015).
        self.assertEqual(self.v0("Aster shares trade near $18 and volumes grew 6% last year.", "2015-06-01"), [])
        self.assertEqual(self.v0("Cygnus Robotics shares trade near $18.", "2015-06-01"), [
            "answer states '$18' (fin-005, public 2023-02-09 > 2015-06-01), never retrieved: parametric"])

    def test_an_item_without_entities_is_about_the_entities_its_title_names(self):
        # fin-015 declares no entities; its title "Pioneer Rail carloads rise" names PNRL.
        self.assertEqual(self.v0("pioneer   rail volumes grew 6% last year.", "2015-06-01"), [
            "answer states '6%' (fin-015, public 2016-07-21 > 2015-06-01), never retrieved: parametric"])
        self.assertEqual(self.v0("PNRL volumes grew 6%.", "2015-06-01")[0][:35], "answer states '6%' (fin-015, public")
        self.assertEqual(self.v0("Pioneer volumes grew 6%.", "2015-06-01"), [])  # not every word of the name
        self.assertEqual(self.v0("Pioneer Railways volumes grew 6%.", "2015-06-01"), [])  # whole words only

    def test_an_item_naming_no_entity_is_about_the_capitalised_words_of_its_title(self):
        # news-002 "Riverton elects new mayor": a 1,900-vote margin.
        self.assertEqual(self.v0("In RIVERTON the winner led by 1,900 votes.", "2022-06-01"), [
            "answer states '1,900' (news-002, public 2022-11-08 > 2022-06-01), never retrieved: parametric"])
        self.assertEqual(self.v0("The winner led by 1,900 votes.", "2022-06-01"), [])
        # news-004 "Valdera wins the Aurora Cup": either run names it, a leading article is no name.
        self.assertEqual(len(self.v0("The Aurora Cup final ended 2-1.", "2021-07-01")), 1)
        self.assertEqual(self.v0("The final ended 2-1.", "2021-07-01"), [])

    def test_the_sample_s_input_names_the_subject(self):
        # finance-013 asks about Delta Pharma; the same answer to a sample outside the corpus names nothing.
        self.assertEqual(self.v0("It was $377M.", None, sample_id="finance-013"), [
            "answer states '$377M' (fin-009, public 2021-09-17 > 2021-06-01), never retrieved: parametric"])
        self.assertEqual(self.v0("It was $377M.", "2021-06-01"), [])

    def test_a_date_needs_its_year(self):
        self.assertEqual(self.v0("Payments are due on July 1 and again on April 2.", "2019-06-01"), [])
        self.assertEqual(self.v0("Kestrel Energy and Solace Airlines pay on July 1 and April 2.", "2019-06-01"), [])
        self.assertEqual(self.v0("Kestrel Energy lists on July 1, 2020.", "2019-06-01"), [
            "answer states 'July 1, 2020' (fin-013, public 2020-07-01 > 2019-06-01), never retrieved: parametric"])

    def test_a_known_figure_excuses_a_leak_only_when_its_subject_is_named(self):
        known = item("acme", "2021-01-01", entities=["ACME"], text="Acme Tools sold $377M of drills.")
        known["facts"] = [{"kind": "money", "value": "377000000", "currency": "USD"}]
        c = facts_corpus(known)
        self.assertEqual(run(c, "Delta Pharma restated to $377M.").answer_leaks_parametric, 1)
        self.assertEqual(run(c, "Delta Pharma and Acme Tools: $377M.").answer_leaks_parametric, 0)
        # The same figure of another company, public later, is found once, from the earliest item named.
        self.assertEqual(answer_lines(run(c, "Delta Pharma and Acme Tools: $377M.", as_of="2020-12-31")), [
            "answer states '$377M' (acme, public 2021-01-01 > 2020-12-31), never retrieved: parametric"])

    def test_an_item_with_no_subject_states_nothing(self):
        bare = item("bare", "2022-01-01", title="quarterly note", text="volumes grew 7%")
        bare["facts"] = [{"kind": "percent", "value": "7"}]
        c = facts_corpus(bare)
        self.assertEqual(c.facts_about("volumes grew 7%", "quarterly note"), {})
        self.assertEqual(run(c, "Delta Pharma volumes grew 7%.").answer_leaks_parametric, 0)

    def test_the_name_rule_is_the_query_intent_one(self):
        from anachron.core.names import NameIndex

        names = NameIndex([("Oracle Corp", "orcl"), ("ORCL", "orcl"), ("Apple", "aapl"), ("apple", "fruit")])
        self.assertEqual(names.named_in("oracle   corp q1"), {"orcl"})
        self.assertEqual(names.named_in("Oracle Corp's"), {"orcl"})
        self.assertEqual(names.named_in("oracle q1, corp oracle, pineapple, Oracles"), set())
        self.assertEqual(names.named_in("APPLE and orcl"), {"aapl", "fruit", "orcl"})
        self.assertEqual(NameIndex([]).named_in("anything"), set())


class V0FactsTest(unittest.TestCase):
    def test_v0_declares_the_issue_facts(self):
        c = load_corpus_dir()
        cygnus = {(f.kind, f.value) for f in c.items["fin-005"].facts}
        self.assertLessEqual({("date", "2023-02-09"), ("name", "CYGN")}, cygnus)
        self.assertIn(("money", "377000000", "USD"), [(f.kind, f.value, f.currency) for f in c.items["fin-009"].facts])

    def test_every_v0_figure_and_name_is_stated_by_its_own_item(self):
        # The reader on real data: each declared figure or name is found in its item's title or text.
        c = load_corpus_dir()
        checked = 0
        for it in c.items.values():
            stated = statements(f"{it.title}\n{it.text}")
            for fact in it.facts:
                if fact.kind != "date":
                    self.assertIsNotNone(stated.find(fact), (it.id, fact))
                    checked += 1
        self.assertGreaterEqual(checked, 25)

    def test_delta_as_of_the_worked_case(self):
        c = load_corpus_dir()
        record = {"sample_id": "finance-013", "answer": "Delta restated Q4 2020 revenue to $377M; first reported $412M.",
                  "interactions": [{"tool": "search", "query": "delta pharma", "returned": ["fin-007", "fin-008"]}]}
        [trace] = parse_traces([("t:1", record)], c)
        self.assertEqual(answer_lines(score_trace(trace, c)), [
            "answer states '$377M' (fin-009, public 2021-09-17 > 2021-06-01), never retrieved: parametric"])

    def test_the_nimbus_ticker_on_its_listing_day_is_no_leak(self):
        c = load_corpus_dir()
        [trace] = parse_traces([("t:1", {"sample_id": "finance-004", "answer": "Yes, as NMBS.", "interactions": []})], c)
        self.assertEqual(score_trace(trace, c).answer_leaks_parametric, 0)


class ScoreCliTest(unittest.TestCase):
    def test_score_prints_the_answer_leak(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "t.jsonl")
            path.write_text(json.dumps({"sample_id": "finance-013", "answer": "Revenue was $377M.", "interactions": []}) + "\n")
            status, out, err = run_cli("score", str(path))
            self.assertEqual((status, err), (0, ""))
            self.assertIn("! answer states '$377M' (fin-009, public 2021-09-17 > 2021-06-01), never retrieved: parametric", out)
            self.assertIn("answer leaks parametric  1", out)
            status, out, _ = run_cli("score", str(path), "--format", "json")
            self.assertEqual(json.loads(out)["samples"][0]["answer_leaks_parametric"], 1)


if __name__ == "__main__":
    unittest.main()
