"""Real Inspect evaluations, offline: the keyless agents, mockllm with scripted
tool calls (a smuggled date argument, parallel calls, failing calls, a call id
reused across turns, a call left without result, a spent budget), truncated
tool output, the date presentations, and the logs they leave behind read back
by ``anachron export``.

Expected values come from the core (the demo's naive traces, or the oracle's
rule applied to the core's search) or, for scripted calls, are spelled out
from the corpus facts they follow from.
"""

import datetime as dt
import json
import subprocess
import sys
import tempfile
import unittest
import warnings
from unittest import mock
from importlib.metadata import entry_points
from pathlib import Path

from tests.support import ROOT, extras_required, require_extra, run_cli, score_json

TMP = None


def setUpModule():
    require_extra("inspect_ai", "inspect")
    # Inspect's own noise (unclosed anyio streams, a tenacity deprecation), not ours; it would
    # otherwise land in the stderr that the CLI tests read.
    warnings.filterwarnings("ignore", category=ResourceWarning, module=r"anyio\.")
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"inspect_ai\.")
    global TMP, inspect_eval, get_model, ModelOutput, ModelUsage, ToolCall, Task, Sample, ai, core, agents, SearchEngine, report, BUDGET_SPENT
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.tool import ToolCall

    import anachron.core as core
    import anachron.core.reference_agent as agents
    import anachron.inspect as ai
    import anachron.output.text_table as report
    from anachron.inspect.solver import BUDGET_SPENT
    from anachron.store import SearchEngine

    TMP = tempfile.TemporaryDirectory()


def tearDownModule():
    if TMP is not None:
        TMP.cleanup()


def run(tasks, model, **kwargs):
    """Run an evaluation in the temporary log directory; every log must succeed."""
    kwargs.setdefault("log_dir", str(Path(TMP.name, "logs")))
    logs = inspect_eval(tasks, model=model, display="none", **kwargs)
    for log in logs:
        assert log.status == "success", (log.status, log.error)
    return logs


_CACHE = {}


def naive_logs():
    """The naive agent over every sample, both modes, .eval logs (run once, shared)."""
    if "naive" not in _CACHE:
        logs = run([ai.anachron(), ai.anachron_enforced()], "anachron/naive", log_dir=str(Path(TMP.name, "naive")))
        _CACHE["naive"] = dict(zip(("unrestricted", "enforced"), logs))
    return _CACHE["naive"]


# Samples with every case the oracle meets: all results after T, a result dated T itself,
# a restatement, a delisted entity, a single result.
ORACLE_IDS = ["finance-001", "finance-002", "finance-003", "finance-013", "news-004", "news-007"]
ORACLE_RUNS = {  # (mode, shift in days; None = dates hidden): date_presentation
    ("unrestricted", 0): "visible",
    ("enforced", 0): "visible",
    ("unrestricted", None): "hidden",
    ("unrestricted", -3650): "shift:-3650",
    ("enforced", 400): "shift:+400",
}


def oracle_logs():
    """The oracle in every date presentation, on ORACLE_IDS, .json logs (run once, shared)."""
    if "oracle" not in _CACHE:
        tasks = [(ai.anachron if mode == "unrestricted" else ai.anachron_enforced)(date_presentation=spec)
                 for (mode, _), spec in ORACLE_RUNS.items()]
        logs = run(tasks, "anachron/oracle", sample_id=ORACLE_IDS, log_format="json", log_dir=str(Path(TMP.name, "oracle")))
        _CACHE["oracle"] = dict(zip(ORACLE_RUNS, logs))
    return _CACHE["oracle"]


def by_id(log):
    return {sample.id: sample for sample in log.samples}


def score_of(sample):
    return sample.scores["tclr_scorer"]


def core_results(traces, corpus):
    records = [(f"expected {t['sample_id']}", t) for t in traces]
    return {r.sample_id: r for r in core.score_traces(core.parse_traces(records, corpus), corpus)}


def naive_results(mode, ids=None):
    """What `anachron demo` computes for the naive agent in *mode* (k=5)."""
    corpus = core.load_corpus_dir()
    engine = SearchEngine(corpus)
    samples = [s for s in corpus.samples.values() if ids is None or s.id in ids]
    return core_results([agents.naive_trace(s, engine, mode, k=5) for s in samples], corpus)


def completions(log):
    """Each sample's submitted answer, as the scorer keeps it for the answer-leak check."""
    return {sample.id: sample.output.completion for sample in log.samples}


def oracle_results(mode, shift_days, ids=ORACLE_IDS, answers=None):
    """The oracle's rule applied to the core's search; shift_days None = dates hidden.

    *answers* (sample id -> the answer the agent submitted) are scored by the core's
    answer-leak rule; the oracle's wording is the agent's, not re-derived here.
    """
    corpus = core.load_corpus_dir()
    engine = SearchEngine(corpus)
    traces = []
    for sample in (corpus.samples[i] for i in ids):
        query = agents.naive_query(sample.extra["subject"])
        hits = engine.search(query, as_of=sample.as_of, mode=mode, k=5)
        interactions = [{"tool": "search", "query": query, "returned": [h.id for h in hits]}]
        if shift_days is not None:
            shown = {h.id: h.publish_date + dt.timedelta(days=shift_days) for h in hits}
            usable = [h for h in hits if shown[h.id] <= sample.as_of]
            if usable:
                latest = max(usable, key=lambda h: (shown[h.id], h.id))
                interactions.append({"tool": "fetch", "query": None, "returned": [latest.id]})
        trace = {"sample_id": sample.id, "mode": mode, "interactions": interactions}
        if answers is not None:
            trace["answer"] = answers[sample.id]
        traces.append(trace)
    return core_results(traces, corpus)


def assert_matches(test, log, expected):
    samples = by_id(log)
    test.assertEqual(sorted(samples), sorted(expected))
    for sid, want in expected.items():
        score = score_of(samples[sid])
        test.assertEqual(score.value, want.tclr, sid)
        got = score.metadata["anachron"]
        test.assertEqual(got, want.to_dict(), sid)  # survivorship_base is part of the score output now
        test.assertEqual(score.explanation.splitlines()[1:], [f"! {line}" for line in want.evidence], sid)


def metric(log, name):
    """The value of the metric reporting summary field *name* (its short name: METRIC_NAMES)."""
    from anachron.inspect.scorer import METRIC_NAMES

    return log.results.scores[0].metrics[METRIC_NAMES[name]].value


class KeylessAgentTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.naive = naive_logs()

    def test_naive_equals_the_demo_in_both_modes(self):
        for mode, log in self.naive.items():
            with self.subTest(mode=mode):
                expected = naive_results(mode)
                assert_matches(self, log, expected)
                summary = core.summarise(list(expected.values()))
                self.assertEqual(metric(log, "mean_tclr"), summary.mean_tclr)
                for name in ("tool_using_runs", "survivorship_leaks", "restatement_leaks", "query_intent_leaks"):
                    self.assertEqual(metric(log, name), getattr(summary, name), name)
                    self.assertTrue(float(metric(log, name)).is_integer(), name)
                # short names, shown as they are: no package prefix, none beyond 9 characters
                metrics = log.results.scores[0].metrics
                self.assertEqual([(key, m.name) for key, m in metrics.items()], [(n, n) for n in (
                    "tclr", "tool_runs", "survivor", "restated", "query", "blocked", "failed", "tclr_high", "content",
                    "conflicts", "revised", "open", "ans_tool", "ans_param")])
                self.assertEqual(metric(log, "date_conflicts"), summary.date_conflicts)

    def test_the_demo_figures_the_readme_quotes(self):
        # The same figures `anachron demo` prints, taken from its own output.
        status, out, err = run_cli("demo", "--out", str(Path(TMP.name, "demo")))
        self.assertEqual(status, 0, err)
        row = next(line for line in out.splitlines() if line.startswith("mean TCLR"))
        self.assertEqual(row.split()[2:], [f"{metric(self.naive['unrestricted'], 'mean_tclr'):.3f}",
                                           f"{metric(self.naive['enforced'], 'mean_tclr'):.3f}"])

    def test_naive_conversation(self):
        sample = by_id(self.naive["unrestricted"])["finance-001"]
        system, user, call, result, answer = sample.messages
        self.assertTrue(system.text.startswith("The as-of date is 2022-06-01."))
        self.assertIn("at most 10 search and fetch calls", system.text)
        self.assertEqual(call.tool_calls[0].arguments, {"query": "cygnus robotics"})
        self.assertTrue(result.text.startswith('search #1: 2 results for "cygnus robotics"\n- id: fin-006\n  date: 2024-05-22\n'))
        self.assertEqual(sample.output.completion, "From the archive: Cygnus Robotics opens second plant; Cygnus Robotics prices IPO.")

    def test_oracle_in_every_date_presentation(self):
        logs = oracle_logs()
        for (mode, shift), log in logs.items():
            with self.subTest(mode=mode, shift=shift):
                assert_matches(self, log, oracle_results(mode, shift, answers=completions(log)))
        # Hidden: no date is shown, so the oracle uses nothing and says so; its one search still leaks.
        hidden = by_id(logs[("unrestricted", None)])["finance-001"]
        self.assertNotIn("date:", hidden.messages[3].text)
        self.assertEqual(hidden.output.completion,
                         "No archive item is shown as dated on or before 2022-06-01, so I cannot answer from the archive.")
        # Shifted ten years back, the 2024 item looks old: the oracle fetches it and the fetch leaks.
        # Scoring uses the true date.
        shifted = by_id(logs[("unrestricted", -3650)])["finance-001"]
        shown = (dt.date(2024, 5, 22) - dt.timedelta(days=3650)).isoformat()
        self.assertIn(f"  date: {shown}\n", shifted.messages[3].text)
        self.assertEqual(shifted.messages[5].text.splitlines()[:2], ["fetch #2: fin-006", f"date: {shown}"])
        self.assertEqual(score_of(shifted).explanation.splitlines()[-1], "! #2 result item fin-006 dated 2024-05-22 > 2022-06-01")
        # Misled by the shift, the oracle answers Delta's revenue from the restatement its search showed.
        delta = score_of(by_id(logs[("unrestricted", -3650)])["finance-013"]).metadata["anachron"]
        self.assertEqual((delta["answered"], delta["answer_leaks_retrieved"], delta["answer_leaks_parametric"]), (True, 1, 0))
        self.assertEqual(delta["evidence"][-1],
                         "answer states '$377M' (fin-009, public 2021-09-17 > 2021-06-01), surfaced by #1: retrieved")
        self.assertEqual(metric(logs[("unrestricted", -3650)], "answer_leaks_retrieved"), 1)
        self.assertEqual(metric(logs[("unrestricted", -3650)], "answer_leaks_parametric"), 0)
        visible = by_id(logs[("unrestricted", 0)])["finance-003"]
        self.assertTrue(visible.output.completion.startswith(
            "As of 2021-04-28, the latest item is fin-002 (2021-04-28): Aster Logistics first-quarter results."))

    def test_truncated_tool_output_loses_no_item(self):
        ids = ["finance-001", "finance-013", "news-001"]
        [log] = run(ai.anachron(), "anachron/naive", sample_id=ids, max_tool_output=60)
        for sample in log.samples:
            self.assertIn("too long to be displayed", sample.messages[3].text)
        assert_matches(self, log, naive_results("unrestricted", ids))

    def test_output_truncated_below_the_receipt_fails_loudly(self):
        [log] = inspect_eval(ai.anachron(), model="anachron/naive", display="none", sample_id="finance-001",
                             max_tool_output=4, log_dir=str(Path(TMP.name, "logs")))
        self.assertEqual(log.status, "error")
        self.assertIn("has no receipt line", log.error.message)


def scripted(by_subject):
    """A mockllm script: for the sample whose Subject line names a key, turn n plays by_subject[key][n]."""

    def output(calls):
        if calls is None:
            out = ModelOutput.from_content("mockllm/model", "no more")
        else:
            first = calls[0]
            out = ModelOutput.for_tool_call("mockllm/model", first[1], first[2], tool_call_id=first[0], content="")
            out.choices[0].message.tool_calls = [ToolCall(id=i, function=f, arguments=a) for i, f, a in calls]
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no token counting offline
        return out

    def generate(input, tools, tool_choice, config):
        user = next(m.text for m in input if m.role == "user")
        script = next(turns for subject, turns in by_subject.items() if f"Subject: {subject}" in user)
        turn = sum(1 for m in input if m.role == "assistant")
        return output(script[turn] if turn < len(script) else None)

    return get_model("mockllm/model", custom_outputs=generate)


SUBMIT = [("done", "submit", {"answer": "done"})]
CYGNUS = [
    [  # one turn, four parallel calls
        ("c1", "search", {"query": "cygnus robotics 2023", "as_of": "2030-01-01"}),  # smuggled date
        ("c2", "search", {"query": "cygnus robotics"}),
        ("c3", "fetch", {"id_or_url": "fin-006"}),
        ("c4", "fetch", {"id_or_url": "fin-404"}),
        ("c5", "calculator", {"expression": "1+1"}),  # not a retrieval tool
    ],
    [("c1", "search", {"query": "aster logistics"})],  # c1 again, in a new turn
    SUBMIT,
]
DELTA = [[("d1", "search", {"query": "delta pharma", "date": "2021-12-31"})], [("d1", "search", {"query": "delta pharma"})], SUBMIT]


class ModeParameterTest(unittest.TestCase):
    """anachron(mode="enforced") and the alias anachron_enforced run the same evaluation (mockllm, scripted)."""

    def test_the_alias_and_the_mode_parameter_score_alike(self):
        tasks = [ai.anachron(mode="enforced"), ai.anachron_enforced(), ai.anachron()]
        logs = run(tasks, scripted({"Cygnus Robotics": CYGNUS}), sample_id=["finance-001"])
        by_mode, alias, unrestricted = (score_of(log.samples[0]).metadata["anachron"] for log in logs)
        self.assertEqual(by_mode, alias)
        self.assertEqual((by_mode["mode"], by_mode["tclr"]), ("enforced", 0.0))
        self.assertEqual(by_mode["blocked_attempts"], 1)  # the fetch of fin-006, dated after T
        self.assertEqual(unrestricted["mode"], "unrestricted")
        self.assertGreater(unrestricted["tclr"], 0.0)


class SubmittedAnswerTest(unittest.TestCase):
    """The scorer reads answer leaks from the answer the model submitted (mockllm, scripted)."""

    @classmethod
    def setUpClass(cls):
        answer = "Cygnus Robotics lists as CYGN on February 9, 2023, at $18 a share."
        script = [[("s1", "search", {"query": "cygnus robotics"})], [("a1", "submit", {"answer": answer})]]
        model = scripted({"Cygnus Robotics": script})
        cls.logs = dict(zip(("unrestricted", "enforced"),
                            run([ai.anachron(), ai.anachron_enforced()], model, sample_id=["finance-001"])))

    def result(self, mode):
        return score_of(self.logs[mode].samples[0]).metadata["anachron"]

    def test_enforced_the_facts_came_from_the_weights(self):
        got = self.result("enforced")
        self.assertEqual((got["tclr"], got["answer_leaks_retrieved"], got["answer_leaks_parametric"]), (0.0, 0, 3))
        self.assertEqual([line for line in got["evidence"] if line.startswith("answer")], [
            "answer states 'CYGN' (fin-005, public 2023-02-09 > 2022-06-01), never retrieved: parametric",
            "answer states 'February 9, 2023' (fin-005, public 2023-02-09 > 2022-06-01), never retrieved: parametric",
            "answer states '$18' (fin-005, public 2023-02-09 > 2022-06-01), never retrieved: parametric",
        ])
        self.assertEqual(metric(self.logs["enforced"], "answer_leaks_parametric"), 3)

    def test_unrestricted_the_search_showed_them(self):
        got = self.result("unrestricted")
        self.assertEqual((got["answer_leaks_retrieved"], got["answer_leaks_parametric"]), (3, 0))
        self.assertTrue(all(line.endswith("surfaced by #1: retrieved") for line in got["evidence"] if line.startswith("answer")))
        self.assertEqual(metric(self.logs["unrestricted"], "answer_leaks_retrieved"), 3)

    def test_the_trace_keeps_the_submitted_answer(self):
        trace = score_of(self.logs["enforced"].samples[0]).metadata["trace"]
        self.assertEqual(trace["answer"], "Cygnus Robotics lists as CYGN on February 9, 2023, at $18 a share.")


class ScriptedToolCallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        model = scripted({"Cygnus Robotics": CYGNUS, "Delta Pharma": DELTA})
        ids = ["finance-001", "finance-013"]
        cls.logs = dict(zip(("unrestricted", "enforced"), run([ai.anachron(), ai.anachron_enforced()], model, sample_id=ids)))

    def sample(self, mode, sid):
        return by_id(self.logs[mode])[sid]

    def test_a_smuggled_date_is_rejected_as_a_tool_error(self):
        for mode in ("unrestricted", "enforced"):
            for sid, call in (("finance-001", "c1"), ("finance-013", "d1")):
                tool = next(m for m in self.sample(mode, sid).messages if m.role == "tool" and m.tool_call_id == call)
                self.assertEqual(tool.error.type, "parsing")
                self.assertIn("Additional properties are not allowed", tool.error.message)
                self.assertEqual(tool.text, "")
        # No tool ran for it; the agent recorded the refusal in the lock after the turn, under its
        # call id, and the next search is the second record.
        first, second = self.sample("enforced", "finance-013").store["anachron:calls"]
        self.assertEqual((first["seq"], first["tool"], first["arguments"], first["status"], first["call_id"]),
                         (1, "search", {"query": "delta pharma", "date": "2021-12-31"}, "refused", "d1"))
        self.assertEqual((second["seq"], second["tool"], second["arguments"], second["status"], [r["id"] for r in second["returned"]]),
                         (2, "search", {"query": "delta pharma"}, "ok", ["fin-008", "fin-007"]))

    def test_enforced_mode_returns_no_post_t_item(self):
        for sid in ("finance-001", "finance-013"):
            sample = self.sample("enforced", sid)
            as_of = dt.date.fromisoformat(sample.metadata["as_of"])
            corpus = core.load_corpus_dir()
            for record in sample.store["anachron:calls"]:
                for shown in record["returned"]:
                    self.assertLessEqual(corpus.items[shown["id"]].publish_date, as_of, (sid, record))

    def test_a_refused_fetch_looks_like_an_unknown_id(self):
        messages = {m.tool_call_id: m for m in self.sample("enforced", "finance-001").messages if m.role == "tool"}
        refused, unknown = messages["c3"], messages["c4"]
        self.assertEqual(refused.error.message.splitlines()[0], "fetch #2: error: No document 'fin-006' is available.")
        self.assertEqual(unknown.error.message.splitlines()[0], "fetch #3: error: No document 'fin-404' is available.")
        self.assertEqual((refused.error.type, refused.text), (unknown.error.type, unknown.text))
        # The lock knows which was which: the post-T one is a blocked attempt, the unknown one is not.
        statuses = [(r["tool"], r["status"], [w["id"] for w in r["withheld"]])
                    for r in self.sample("enforced", "finance-001").store["anachron:calls"]]
        self.assertEqual(statuses, [("search", "ok", []), ("fetch", "refused", ["fin-006"]),
                                    ("fetch", "refused", []), ("search", "refused", []),  # c1, recorded after the turn
                                    ("search", "ok", [])])
        # In unrestricted mode the same call reads the item.
        read = {m.tool_call_id: m for m in self.sample("unrestricted", "finance-001").messages if m.role == "tool"}["c3"]
        self.assertEqual(read.text.splitlines()[:3], ["fetch #2: fin-006", "date: 2024-05-22", "title: Cygnus Robotics opens second plant"])

    def test_exact_scores_and_evidence(self):
        query = "query 'cygnus robotics 2023' reaches for 2023-01-01 > 2022-06-01"
        cygn = "entity 'CYGN' (item fin-005) not yet valid at 2022-06-01 (valid_from 2023-02-09)"
        expected = {
            # interactions c2, c3, c1 again (c1 and c4 are refused calls); c2 and c3 leak
            # (each line starts with its call's number: c1 #1, c2 #2, c3 #3, c4 #4, c1 again #5)
            ("unrestricted", "finance-001"): (2 / 3, [
                f"#1 {query}",
                "#2 result item fin-006 dated 2024-05-22 > 2022-06-01",
                "#2 result item fin-005 dated 2023-02-09 > 2022-06-01",
                f"#2 {cygn}",
                "#3 result item fin-006 dated 2024-05-22 > 2022-06-01",
            ]),
            # c3 is refused by the lock: the agent reached for a post-T item and was stopped
            ("enforced", "finance-001"): (0.0, [f"#1 {query}", "#3 blocked fetch of fin-006 dated 2024-05-22 > 2022-06-01"]),
            # d1 (refused) and d1 again, whose search returns the restatement
            ("unrestricted", "finance-013"): (1.0, [
                "#2 result item fin-009 dated 2021-09-17 > 2021-06-01",
                "#2 restatement item fin-009 dated 2021-09-17 > 2021-06-01 silently revises fin-008",
            ]),
            ("enforced", "finance-013"): (0.0, []),
        }
        for (mode, sid), (tclr, evidence) in expected.items():
            with self.subTest(mode=mode, sample=sid):
                score = score_of(self.sample(mode, sid))
                self.assertAlmostEqual(score.value, tclr)
                self.assertEqual(score.metadata["anachron"]["evidence"], evidence)
                self.assertEqual(score.explanation.splitlines()[1:], [f"! {line}" for line in evidence])

    def test_the_reconstructed_interactions(self):
        trace = score_of(self.sample("unrestricted", "finance-001")).metadata["trace"]
        got = [(i["call_id"], i["tool"], i["query"], i["returned"], i.get("error", "").split(":")[0]) for i in trace["interactions"]]
        self.assertEqual(got, [
            ("c1", "search", "cygnus robotics 2023", [], "parsing"),
            ("c2", "search", "cygnus robotics", ["fin-006", "fin-005"], ""),
            ("c3", "fetch", None, ["fin-006"], ""),
            ("c4", "fetch", None, [], "No document 'fin-404' is available."),
            ("c1", "search", "aster logistics", ["fin-002", "fin-001"], ""),
        ])
        self.assertEqual(trace["interactions"][0]["arguments"], {"query": "cygnus robotics 2023", "as_of": "2030-01-01"})
        self.assertEqual([i["status"] for i in trace["interactions"]], ["refused", "ok", "ok", "refused", "ok"])

    def test_metrics_total_the_samples(self):
        log = self.logs["unrestricted"]
        self.assertAlmostEqual(metric(log, "mean_tclr"), 5 / 6)  # (2/3 + 1/1) / 2
        self.assertEqual(metric(log, "failed_calls"), 3)  # c1, c4 and d1, all refused
        self.assertEqual(metric(log, "blocked_attempts"), 0)
        self.assertEqual(metric(self.logs["enforced"], "blocked_attempts"), 1)
        self.assertEqual(metric(log, "tool_using_runs"), 2)
        self.assertEqual(metric(log, "restatement_leaks"), 1)
        self.assertEqual(metric(log, "query_intent_leaks"), 1)
        self.assertEqual(metric(log, "survivorship_leaks"), 1)


class DatePresentationArmsTest(unittest.TestCase):
    """The four date presentations of the Routes v2 protocol: each shows the intended date (none
    when hidden) in search and fetch results, the document text is byte-identical, and the
    score does not move (scoring uses the true date)."""

    ARMS = {"visible": 0, "hidden": None, "shift:+60": 60, "shift:-60": -60}

    def test_arms(self):
        import hashlib

        script = [[("s", "search", {"query": "delta pharma"}), ("f", "fetch", {"id_or_url": "fin-009"})], SUBMIT]
        logs = run([ai.anachron(date_presentation=arm) for arm in self.ARMS], scripted({"Delta Pharma": script}),
                   sample_id="finance-013")
        corpus = core.load_corpus_dir()
        sample = corpus.samples["finance-013"]
        hits = SearchEngine(corpus).search("delta pharma", as_of=sample.as_of, mode="unrestricted", k=5)
        digests, scores = set(), []
        for (arm, days), log in zip(self.ARMS.items(), logs):
            with self.subTest(arm=arm):
                self.assertEqual(log.eval.task_args["date_presentation"], arm)
                results = {m.tool_call_id: m.text for m in log.samples[0].messages if m.role == "tool"}

                def shown(item):
                    return [] if days is None else [(item.publish_date + dt.timedelta(days=days)).isoformat()]

                search_dates = [line[len("  date: "):] for line in results["s"].splitlines() if line.startswith("  date: ")]
                self.assertEqual(search_dates, [d for hit in hits for d in shown(hit)])
                header, text = results["f"].split("\n\n", 1)
                text, budget = text.rsplit("\n\n", 1)
                self.assertTrue(budget.startswith("Budget remaining: "), budget)
                fetched = corpus.items["fin-009"]
                self.assertEqual(header.splitlines(), ["fetch #2: fin-009", *(f"date: {d}" for d in shown(fetched)),
                                                       f"title: {fetched.title}"])
                self.assertEqual(text, fetched.text)
                digests.add(hashlib.sha256(text.encode()).hexdigest())
                scores.append(score_of(log.samples[0]).metadata["anachron"])
        self.assertEqual(len(digests), 1)
        self.assertEqual([score["tclr"] for score in scores], [1.0] * 4)
        self.assertTrue(all(score == scores[0] for score in scores))


class LimitTest(unittest.TestCase):
    def test_a_call_left_without_result_and_an_id_reused_across_turns(self):
        again = [("s", "search", {"query": "cygnus robotics"})]
        # system, user, call, result, call: the limit stops the sample before the second result is
        # kept, but the lock answered the call and recorded it: it is scored from the store
        [log] = run(ai.anachron(), scripted({"Cygnus Robotics": [again, again, SUBMIT]}), sample_id="finance-001", message_limit=5)
        sample = log.samples[0]
        self.assertEqual(sample.limit.type, "message")
        interactions = score_of(sample).metadata["trace"]["interactions"]
        self.assertEqual([(i["call_id"], i["returned"], i.get("error")) for i in interactions],
                         [("s", ["fin-006", "fin-005"], None), ("s", ["fin-006", "fin-005"], None)])
        self.assertEqual(score_of(sample).value, 1.0)

    def test_the_budget_is_enforced(self):
        turns = [[(f"s{n}", "search", {"query": "cygnus robotics"})] for n in range(1, 7)]
        [log] = run(ai.anachron(budget=2), scripted({"Cygnus Robotics": turns}), sample_id="finance-001")
        sample = log.samples[0]
        self.assertIn("at most 2 search and fetch calls", sample.messages[0].text)
        self.assertEqual([r["status"] for r in sample.store["anachron:calls"]], ["ok", "ok", "exhausted", "exhausted"])
        # two calls run, the third is refused and the agent is told; it calls again and the loop ends
        self.assertEqual([m.text for m in sample.messages if m.role == "user"][1:], [BUDGET_SPENT])
        self.assertEqual(sum(1 for m in sample.messages if m.role == "assistant"), 4)
        interactions = score_of(sample).metadata["trace"]["interactions"]
        self.assertEqual([i.get("error") for i in interactions],
                         [None, None] + ["calls budget exhausted (2 of 2 used): no more search calls in this run"] * 2)
        self.assertEqual(score_of(sample).metadata["anachron"]["failed_calls"], {"refused": 0, "exhausted": 2, "error": 0})
        self.assertEqual(score_of(sample).value, 1.0)  # both calls that ran surfaced post-T items


def export(*args):
    return run_cli("export", *map(str, args))


class ExportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Path(TMP.name, "export")
        cls.naive = {mode: Path(log.location) for mode, log in naive_logs().items()}
        cls.oracle = {mode: Path(oracle_logs()[(mode, 0)].location) for mode in ("unrestricted", "enforced")}

    def check_export(self, path, results):
        results = sorted(results, key=lambda r: r.sample_id)
        out = self.dir / f"{path.stem}.json"
        status, stdout, err = export(path, "--out", out)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(stdout, f"wrote {out}: {len(results)} samples from 1 log\n")
        written = json.loads(out.read_text())
        self.assertEqual(written["tclr"], report.tclr_object(results))
        self.assertEqual(written["run"]["mode"], results[0].mode)  # the run travels with its scores (issue 24)
        status, _, err = export(path, "--out", out, "--format", "score")
        self.assertEqual((status, err), (0, ""))
        written = json.loads(out.read_text())
        self.assertEqual(written["summary"].pop("run")["mode"], results[0].mode)  # the summary's "run"
        self.assertEqual(written, json.loads(score_json(results)))

    def test_eval_logs(self):
        for mode, path in self.naive.items():
            with self.subTest(mode=mode):
                self.assertEqual(path.suffix, ".eval")
                self.check_export(path, naive_results(mode).values())

    def test_eval_logs_are_read_a_batch_of_samples_at_a_time(self):
        # Never the whole log: only its header, the sample summaries, then samples by id in batches.
        import anachron.inspect.export as export_module
        from inspect_ai.log import read_eval_log as real_read

        whole, batches = [], []

        def read_eval_log(path, header_only=False, **kwargs):
            if not header_only:
                whole.append(path)
            return real_read(path, header_only=header_only, **kwargs)

        real_by_id = export_module.read_eval_log_samples_by_id

        def by_id(path, keys, **kwargs):
            batches.append(len(keys))
            return real_by_id(path, keys, **kwargs)

        path = self.naive["unrestricted"]
        with mock.patch.object(export_module, "read_eval_log", read_eval_log), \
                mock.patch.object(export_module, "read_eval_log_samples_by_id", by_id), \
                mock.patch.object(export_module, "BATCH", 4):
            self.check_export(path, naive_results("unrestricted").values())
        self.assertEqual(whole, [])
        n = len(naive_results("unrestricted"))
        self.assertEqual(batches, ([4] * (n // 4) + ([n % 4] if n % 4 else [])) * 2)  # tclr, then score

    def test_json_logs(self):
        for mode, path in self.oracle.items():
            with self.subTest(mode=mode):
                self.assertEqual(path.suffix, ".json")
                self.check_export(path, oracle_results(mode, 0, answers=completions(oracle_logs()[(mode, 0)])).values())

    def test_a_log_written_without_scoring(self):
        ids = ["finance-001", "finance-013"]
        [log] = run(ai.anachron(), "anachron/oracle", sample_id=ids, score=False, log_dir=str(self.dir / "unscored"))
        self.assertFalse(any(sample.scores for sample in log.samples))
        self.check_export(Path(log.location), oracle_results("unrestricted", 0, ids, answers=completions(log)).values())

    def test_exported_scores_match_what_anachron_score_prints(self):
        corpus = core.load_corpus_dir()
        engine = SearchEngine(corpus)
        traces = self.dir / "naive.jsonl"
        traces.parent.mkdir(parents=True, exist_ok=True)
        traces.write_text("".join(json.dumps(agents.naive_trace(s, engine, "enforced")) + "\n" for s in corpus.samples.values()))
        status, printed, err = run_cli("score", str(traces), "--format", "json")
        self.assertEqual(status, 0, err)
        out = self.dir / "score.json"
        self.assertEqual(export(self.naive["enforced"], "--out", out, "--format", "score")[0], 0)
        # The same document, but for the summary's "run" (what export knows of the log: model, mode, corpus).
        written = json.loads(out.read_text())
        self.assertEqual(written["summary"].pop("run")["model"], "anachron/naive")
        self.assertEqual(written, json.loads(printed))

    def test_score_from_inspect_scores_as_export_does(self):
        out = self.dir / "from-inspect.json"
        self.assertEqual(export(self.naive["enforced"], "--out", out, "--format", "score")[0], 0)
        status, printed, err = run_cli("score", "--from", "inspect", str(self.naive["enforced"]), "--format", "json")
        self.assertEqual((status, err), (0, ""))
        written = json.loads(out.read_text())
        del written["summary"]["run"]  # export's alone: what it knows of the log's run
        self.assertEqual(json.loads(printed), written)

    def test_same_logs_same_bytes(self):
        paths = [self.dir / "a.json", self.dir / "b.json"]
        for path in paths:
            self.assertEqual(export(self.oracle["unrestricted"], "--out", path, "--format", "score")[0], 0)
        self.assertEqual(paths[0].read_bytes(), paths[1].read_bytes())

    def test_compare_reads_the_exports_as_it_reads_the_demo(self):
        demo = Path(TMP.name, "demo-for-compare")
        self.assertEqual(run_cli("demo", "--out", str(demo))[0], 0)
        out = {mode: self.dir / f"cmp-{mode}.json" for mode in ("unrestricted", "enforced")}
        for mode, path in out.items():
            self.assertEqual(export(self.naive[mode], "--out", path)[0], 0)
            self.assertEqual(path.read_text(), (demo / f"{mode}.json").read_text())
        exported = run_cli("compare", str(out["unrestricted"]), str(out["enforced"]))
        self.assertEqual(exported[0], 0, exported[2])
        status, table, err = run_cli("compare", str(demo / "unrestricted.json"), str(demo / "enforced.json"))
        # The same comparison; only the runs' labels (their files) differ.
        self.assertEqual((exported[0], exported[1].split("\n")[3:], exported[2]), (status, table.split("\n")[3:], err))

    def assert_bad(self, needle, *args):
        out = self.dir / "bad.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("untouched")
        status, stdout, err = export(*args, "--out", out)
        self.assertEqual(status, 2, err)
        self.assertEqual(stdout, "")
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn(needle, err)
        self.assertEqual(out.read_text(), "untouched")

    def test_bad_logs(self):
        junk = self.dir / "junk.eval"
        junk.write_text("not a zip")
        self.assert_bad(f"{junk}: not a readable Inspect log", junk)
        text = self.dir / "notes.json"
        text.write_text('{"hello": 1}')
        self.assert_bad(f"{text}: not a readable Inspect log", text)
        self.assert_bad(f"{self.dir / 'missing.eval'}: no such file", self.dir / "missing.eval")
        # both modes at once: every sample id twice, both files named
        unrestricted, enforced = self.naive["unrestricted"], self.naive["enforced"]
        self.assert_bad("duplicate sample_id", unrestricted, enforced)
        self.assert_bad(str(enforced), unrestricted, enforced)

    def test_a_log_of_another_task(self):
        reply = ModelOutput.from_content("mockllm/model", "hi")
        reply.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        [log] = run(Task(dataset=[Sample(input="hello", id="x1")]), get_model("mockllm/model", custom_outputs=[reply]),
                    log_dir=str(self.dir / "other"))
        self.assert_bad("sample x1: no anachron metadata", log.location)

    def test_epochs(self):
        ids = ["finance-001", "finance-003"]
        [log] = run(ai.anachron(), "anachron/naive", sample_id=ids, epochs=2, log_dir=str(self.dir / "epochs"))
        self.assertEqual(metric(log, "mean_tclr"), core.summarise(list(naive_results("unrestricted", ids).values())).mean_tclr)
        # By default each epoch is a sample of its own, ID#epochN, scored against its corpus sample: the
        # export's mean is Inspect's metric (each epoch one run) and its n the samples times the epochs.
        every = self.dir / "epochs.json"
        self.assertEqual(export(log.location, "--out", every)[0], 0)
        self.assertEqual(json.loads(every.read_text())["tclr"], {"finance-001#epoch1": 1.0, "finance-001#epoch2": 1.0,
                                                                 "finance-003#epoch1": 0.0, "finance-003#epoch2": 0.0})
        scored = self.dir / "epochs-score.json"
        self.assertEqual(export(log.location, "--out", scored, "--format", "score")[0], 0)
        doc = json.loads(scored.read_text())
        self.assertEqual((doc["summary"]["n"], doc["summary"]["mean_tclr"]), (4, metric(log, "mean_tclr")))
        self.assertEqual({s["slice"] for s in doc["samples"]}, {"finance"})  # the corpus sample's slice, kept
        self.assert_bad("no sample of epoch 3", log.location, "--epoch", 3)
        out = self.dir / "epoch2.json"
        self.assertEqual(export(log.location, "--out", out, "--epoch", 2)[0], 0)
        self.assertEqual(json.loads(out.read_text())["tclr"], {"finance-001": 1.0, "finance-003": 0.0})


class OtherCorpusTest(unittest.TestCase):
    """A corpus given with -T corpus=DIR: the export finds it in the log; a failed sample is refused."""

    @classmethod
    def setUpClass(cls):
        cls.corpus = Path(TMP.name, "corpus")
        cls.corpus.mkdir()
        long_text = " ".join(["Zephyr Widgets shipped more widgets."] * 200)
        rows = {
            "items": [
                {"id": "z-1", "slice": "z", "publish_date": "2020-01-10", "title": "Zephyr Widgets annual report", "text": long_text, "entities": [], "restates": None},
                {"id": "z-2", "slice": "z", "publish_date": "2020-09-01", "title": "Zephyr Widgets is sold", "text": "Sold.", "entities": [], "restates": None},
            ],
            "samples": [
                {"id": "z-s1", "slice": "z", "as_of": "2020-06-01", "input": "As of 2020-06-01, how is Zephyr Widgets doing?", "subject": "Zephyr Widgets"},
                {"id": "z-s2", "slice": "y", "as_of": "2020-06-01", "input": "As of 2020-06-01, what happened?"},
            ],
        }
        for name, lines in rows.items():
            (cls.corpus / f"{name}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
        cls.dir = Path(TMP.name, "other-corpus")
        [cls.good] = run(ai.anachron(corpus=str(cls.corpus), slice="z"), "anachron/oracle", log_dir=str(cls.dir / "good"))
        [cls.failed] = run(ai.anachron(corpus=str(cls.corpus)), "anachron/naive", log_dir=str(cls.dir / "failed"), fail_on_error=False)

    def test_the_log_names_its_corpus(self):
        sample = self.good.samples[0]
        self.assertEqual(sample.messages[3].text.splitlines()[:3], ['search #1: 2 results for "zephyr widgets"', "- id: z-2", "  date: 2020-09-01"])
        self.assertEqual(sample.messages[5].text.splitlines()[0], "fetch #2: z-1")
        out = self.dir / "z.json"
        status, _, err = export(self.good.location, "--out", out)
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(json.loads(out.read_text())["tclr"], {"z-s1": 0.5})  # the search surfaced z-2; the fetch read z-1

    def test_logs_of_two_corpora_need_one_corpus_named(self):
        naive_log = naive_logs()["unrestricted"].location
        out = self.dir / "mixed.json"
        status, stdout, err = export(self.good.location, naive_log, "--out", out)
        self.assertEqual((status, stdout), (2, ""))
        self.assertEqual(err.splitlines(), [f"anachron: {naive_log}: its corpus (bundled) differs from "
                                            f"{self.good.location}'s {self.corpus}; pass --corpus"])
        # --corpus names the one corpus to score with: here the naive log's items are not in it.
        status, _, err = export(self.good.location, naive_log, "--out", out, "--corpus", self.corpus)
        self.assertEqual((status, len(err.splitlines())), (2, 1))
        self.assertIn(f"{naive_log} (sample finance-001) interactions[0] returned[0]: returned id 'fin-006' is not in the corpus", err)

    def test_a_sample_that_failed_is_refused(self):
        by = by_id(self.failed)
        self.assertIn("'Subject:' line", by["z-s2"].error.message)
        status, stdout, err = export(self.failed.location, "--out", self.dir / "f.json")
        self.assertEqual((status, stdout), (2, ""))
        self.assertIn("sample z-s2: the sample ended with an error", err)


class EntryPointTest(unittest.TestCase):
    """After `pip install -e .`, the tasks and the keyless models are found by name alone."""

    def test_a_fresh_process_resolves_the_names_through_the_entry_point(self):
        names = {ep.name: ep.value for ep in entry_points(group="inspect_ai")}
        if names.get("anachron") != "anachron.inspect._registry":
            message = "anachron is not installed (pip install -e '.[inspect]'): no inspect_ai entry point"
            if extras_required():
                self.fail(message)
            self.skipTest(message)
        # Nothing of anachron is imported first; these are the lookups `inspect eval` makes.  The
        # process runs outside the clone: there, Inspect would take the path anachron/ first.
        code = (
            "import sys\n"
            "from inspect_ai.model import get_model\n"
            "from inspect_ai.util import registry_create, registry_info\n"
            "assert 'anachron.inspect' not in sys.modules\n"
            "task = registry_create('task', 'anachron/anachron_enforced', date_presentation='shift:+30')\n"
            "model = get_model('anachron/oracle')\n"
            "print(registry_info(task).name, task.metadata['anachron_mode'], task.metadata['date_presentation'], model)\n"
            "task = registry_create('task', 'anachron/anachron', mode='enforced')\n"  # -T mode=enforced
            "print(registry_info(task).name, task.metadata['anachron_mode'], {s.metadata['mode'] for s in task.dataset})\n"
        )
        done = subprocess.run([sys.executable, "-c", code], cwd=TMP.name, capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr[-3000:])
        self.assertEqual(done.stdout.split(), ["anachron/anachron_enforced", "enforced", "shift:+30", "anachron/oracle",
                                               "anachron/anachron", "enforced", "{'enforced'}"])

    def test_the_mode_is_a_task_parameter(self):
        task_file = f"{ROOT / 'anachron' / 'inspect' / 'task.py'}@anachron"
        scores = {}
        for mode in ("unrestricted", "enforced"):
            [log] = run(task_file, "anachron/naive", sample_id="finance-001", task_args={"mode": mode})
            self.assertEqual((log.eval.task_args["mode"], log.eval.task_registry_name), (mode, "anachron"))
            scores[mode] = score_of(log.samples[0]).value
        self.assertEqual(scores["enforced"], 0.0)
        self.assertGreater(scores["unrestricted"], 0.0)

    def test_the_task_file_loads_on_its_own(self):
        [log] = run(f"{ROOT / 'anachron' / 'inspect' / 'task.py'}@anachron_enforced", "anachron/naive",
                    sample_id="finance-001", task_args={"date_presentation": "shift:+30"})
        self.assertEqual(log.eval.task_args["date_presentation"], "shift:+30")
        self.assertEqual(score_of(log.samples[0]).value, 0.0)


if __name__ == "__main__":
    unittest.main()
