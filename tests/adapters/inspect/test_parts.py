"""The Inspect adapter's parts, without running an evaluation: tool schemas and
parameters, date presentation, transcript reconstruction, task parameters."""

import json
import unittest

from tests.support import require_extra


def setUpModule():
    require_extra("inspect_ai", "inspect")
    global AnachronError, ai, ChatMessageAssistant, ChatMessageTool, ChatMessageUser, ToolCall, ToolCallError, load_corpus_dir
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser
    from inspect_ai.tool import ToolCall, ToolCallError

    import anachron.inspect as ai
    from anachron.core import load_corpus_dir
    from anachron.core.errors import AnachronError


class DatePresentationTest(unittest.TestCase):
    def test_spellings(self):
        import datetime as dt

        day = dt.date(2022, 6, 1)
        cases = {
            "visible": ("visible", "2022-06-01"),
            "hidden": ("hidden", None),
            "shift:+30": ("shift:+30", "2022-07-01"),
            "shift:-1": ("shift:-1", "2022-05-31"),
            "shift:+0": ("shift:+0", "2022-06-01"),
        }
        for spec, (spelled, shown) in cases.items():
            with self.subTest(spec=spec):
                presentation = ai.DatePresentation.parse(spec)
                self.assertEqual(str(presentation), spelled)
                self.assertEqual(presentation.show(day), shown)

    def test_bad_spellings_are_rejected_with_the_expected_forms(self):
        for spec in ("shift:30", "shift:+", "shift:+1.5", "shift: +3", "Visible", "", "later", 30, None, "shift:+12345678"):
            with self.subTest(spec=spec), self.assertRaises(AnachronError) as ctx:
                ai.DatePresentation.parse(spec)
            self.assertIn("'shift:+N'", str(ctx.exception))
            self.assertIn(repr(spec), str(ctx.exception))

    def test_a_shift_off_the_calendar_fails_naming_the_item(self):
        from tests.corpus_fixtures import corpus, item

        c = corpus([item("late", "9999-12-20"), item("early", "0001-01-05")])
        with self.assertRaises(AnachronError) as ctx:
            ai.retrieval_tools(c, mode="unrestricted", date_presentation="shift:+30")
        self.assertIn("late", str(ctx.exception))
        with self.assertRaises(AnachronError) as ctx:
            ai.retrieval_tools(c, mode="unrestricted", date_presentation="shift:-10")
        self.assertIn("early", str(ctx.exception))
        ai.retrieval_tools(c, mode="unrestricted", date_presentation="shift:+5")  # stays in the calendar


class ToolSchemaTest(unittest.TestCase):
    def test_the_as_of_date_is_in_no_schema(self):
        search, fetch = ai.retrieval_tools(load_corpus_dir(), mode="enforced", budget=3)
        for tool, argument in ((search, "query"), (fetch, "id_or_url")):
            with self.subTest(tool=tool.name):
                schema = tool.parameters.model_dump(exclude_none=True)
                self.assertEqual(list(schema["properties"]), [argument])
                self.assertEqual(schema["required"], [argument])
                self.assertIs(schema["additionalProperties"], False)
                text = json.dumps(schema) + tool.description
                for word in ("as_of", "as-of", "cutoff", "2022", "today"):
                    self.assertNotIn(word, text)

    def test_bad_tool_parameters(self):
        c = load_corpus_dir()
        for kwargs in ({"mode": "strict"}, {"mode": "enforced", "k": 0}, {"mode": "enforced", "k": True},
                       {"mode": "enforced", "budget": 0}, {"mode": "enforced", "budget": "3"},
                       {"mode": "enforced", "date_presentation": "shifted"}):
            with self.subTest(kwargs=kwargs), self.assertRaises(AnachronError):
                ai.retrieval_tools(c, **kwargs)


class TaskParameterTest(unittest.TestCase):
    def test_slice_filter(self):
        task = ai.anachron_enforced(slice="news")
        ids = [sample.id for sample in task.dataset]
        self.assertEqual(len(ids), 11)
        self.assertTrue(all(i.startswith("news-") for i in ids))
        self.assertEqual(len(ai.anachron(slice="news, finance").dataset), 27)
        self.assertEqual(len(ai.anachron(slice=["finance"]).dataset), 16)

    def test_samples_carry_the_metadata_and_state_their_subject(self):
        [sample] = [s for s in ai.anachron().dataset if s.id == "finance-001"]
        self.assertEqual(sample.metadata["as_of"], "2022-06-01")
        self.assertEqual(sample.metadata["mode"], "unrestricted")
        self.assertTrue(sample.input.endswith("\n\nSubject: Cygnus Robotics"), sample.input)

    def test_one_task_with_a_mode_and_the_enforced_alias(self):
        from inspect_ai.util import registry_info

        for task, name in ((ai.anachron(mode="enforced", slice="news"), "anachron/anachron"),
                           (ai.anachron_enforced(slice="news"), "anachron/anachron_enforced")):
            with self.subTest(name=name):
                # Inspect prefixes the package ("anachron/") only when it loaded the module through the
                # entry point; a test that imported anachron.inspect.task first leaves the bare name.
                self.assertIn(registry_info(task).name, (name, name.split("/")[1]))
                self.assertEqual(task.metadata["anachron_mode"], "enforced")
                self.assertEqual({s.metadata["mode"] for s in task.dataset}, {"enforced"})
                self.assertEqual(len(task.dataset), 11)
        self.assertEqual(ai.anachron().metadata["anachron_mode"], "unrestricted")
        self.assertEqual(ai.anachron(mode="unrestricted").metadata["anachron_mode"], "unrestricted")

    def test_a_bad_mode_is_one_line_naming_the_task(self):
        from anachron.inspect.params import TaskParameterError

        for mode, message in (("strict", "anachron: unknown mode 'strict': expected one of unrestricted, enforced"),
                              (3, "anachron: -T mode: expected a string, got 3")):
            with self.subTest(mode=mode), self.assertRaises(TaskParameterError) as ctx:
                ai.anachron(mode=mode)
            self.assertEqual(str(ctx.exception), message)

    def test_bad_task_parameters(self):
        cases = [
            ({"slice": "sports"}, "sports"),
            ({"slice": ""}, "slice"),
            ({"k": -1}, "-T k: expected a positive integer, got -1"),
            ({"budget": 0}, "budget"),
            ({"date_presentation": "shift:7"}, "shift:+N"),
            ({"corpus": "/nonexistent/corpus"}, "/nonexistent/corpus"),
        ]
        for kwargs, needle in cases:
            with self.subTest(kwargs=kwargs), self.assertRaises(AnachronError) as ctx:
                ai.anachron(**kwargs)
            self.assertIn(needle, str(ctx.exception))


class KeylessAgentNameTest(unittest.TestCase):
    def test_an_unknown_keyless_agent_names_the_known_ones(self):
        from inspect_ai.model import get_model

        with self.assertRaises(ValueError) as ctx:
            get_model("anachron/psychic")
        self.assertEqual(str(ctx.exception),
                         "unknown keyless agent 'anachron/psychic': expected one of anachron/naive, anachron/oracle")


def _assistant(*calls):
    return ChatMessageAssistant(content="", tool_calls=[ToolCall(id=i, function=f, arguments=a) for i, f, a in calls])


def _result(call_id, function, text="", error=None):
    return ChatMessageTool(content=text, tool_call_id=call_id, function=function,
                           error=None if error is None else ToolCallError("parsing", error))


def _store_record(seq, tool, arguments, returned=(), status="ok"):
    """A call record as the time lock writes it to the sample store (its own record builder)."""
    from anachron.timelock.events import Seen, call_record

    corpus = load_corpus_dir()
    seen = [Seen(i, corpus.items[i].title, corpus.items[i].publish_date) for i in returned]
    return call_record(run="inspect", seq=seq, time="2026-01-01T00:00:00.000Z", tool=tool, arguments=arguments,
                       status=status, error=None, returned=seen, withheld=[], budget={})


class TraceRecordTest(unittest.TestCase):
    @property
    def CALLS(self):
        return [
            _store_record(1, "search", {"query": "a"}, ["fin-001"]),
            _store_record(2, "fetch", {"id_or_url": "fin-002"}, ["fin-002"]),
            _store_record(3, "search", {"query": "b"}),
        ]

    def record(self, messages, calls=None):
        calls = self.CALLS if calls is None else calls
        return ai.trace_record("s1", "2021-01-01", "unrestricted", messages, calls, corpus=load_corpus_dir())["interactions"]

    def test_pairs_by_call_id_within_each_turn(self):
        messages = [
            ChatMessageUser(content="q"),
            # a turn of parallel calls; results arrive out of order; one call is not a retrieval tool
            _assistant(("x", "search", {"query": "a"}), ("y", "fetch", {"id_or_url": "fin-002"}), ("z", "calculator", {})),
            _result("z", "calculator", "42"),
            _result("y", "fetch", "fetch #2: fin-002\ntitle: t\n\ntext"),
            _result("x", "search", "search #1: 1 result for \"a\""),
            # the same id again in the next turn: paired with this turn's result only
            _assistant(("x", "search", {"query": "b", "as_of": "2030-01-01"})),
            _result("x", "search", error="Additional properties are not allowed ('as_of' was unexpected)"),
            _assistant(("x", "search", {"query": "b"})),
            _result("x", "search", "search #3: no results for \"b\""),
            # a last call that never got a result
            _assistant(("x", "search", {"query": "c"})),
        ]
        got = [(i["tool"], i["query"], i.get("returned"), i["call_id"], i.get("error"), i["status"]) for i in self.record(messages)]
        self.assertEqual(got, [
            ("search", "a", ["fin-001"], "x", None, "ok"),
            ("fetch", None, ["fin-002"], "y", None, "ok"),
            ("search", "b", [], "x", "parsing: Additional properties are not allowed ('as_of' was unexpected)", "refused"),
            ("search", "b", [], "x", None, "ok"),
            ("search", "c", None, "x", None, "unrecorded"),  # no result and no lock record: nothing shows what it returned
        ])
        self.assertEqual(self.record(messages)[2]["arguments"], {"query": "b", "as_of": "2030-01-01"})

    def test_a_repeated_id_inside_one_turn_pairs_in_order(self):
        messages = [
            _assistant(("d", "search", {"query": "a"}), ("d", "search", {"query": "b"})),
            _result("d", "search", "search #1: 1 result for \"a\""),
            _result("d", "search", "search #2: no results for \"b\""),
        ]
        calls = [_store_record(1, "search", {"query": "a"}, ["fin-001"]), _store_record(2, "search", {"query": "b"})]
        self.assertEqual([i["returned"] for i in self.record(messages, calls)], [["fin-001"], []])

    def test_truncated_output_keeps_its_items(self):
        truncated = ("The output of your call to search was too long to be displayed.\nHere is a truncated version:\n"
                     "<START_TOOL_OUTPUT>\nsearch #1: 5 results for \"a\"\n- id: fin-0<END_TOOL_OUTPUT>")
        messages = [_assistant(("x", "search", {"query": "a"})), _result("x", "search", truncated)]
        self.assertEqual(self.record(messages)[0]["returned"], ["fin-001"])

    def test_unreadable_results_fail_loudly(self):
        cases = [
            ("sear", "no receipt line"),                          # truncated to almost nothing
            ("fetch #2: fin-002", "no receipt line"),             # a receipt of another tool
            ("search #9: no results", "receipt #9"),              # a receipt with no store record
            ("search #2: no results", "receipt #2"),              # a record of another tool
        ]
        for text, needle in cases:
            messages = [_assistant(("x", "search", {"query": "a"})), _result("x", "search", text)]
            with self.subTest(text=text), self.assertRaises(AnachronError) as ctx:
                self.record(messages)
            self.assertIn("sample s1", str(ctx.exception))
            self.assertIn(needle, str(ctx.exception))

    def test_store_records_no_message_names_keep_their_place(self):
        # The history was trimmed: only call 2's result is left, yet calls 1 and 3 are scored, in order.
        messages = [_assistant(("y", "fetch", {"id_or_url": "fin-002"})), _result("y", "fetch", "fetch #2: fin-002")]
        self.assertEqual([(i["tool"], i["call_id"]) for i in self.record(messages)],
                         [("search", None), ("fetch", "y"), ("search", None)])

    def test_tool_messages_before_any_turn_are_ignored(self):
        messages = [_result("x", "search", "search #1: stray"), ChatMessageUser(content="q")]
        self.assertEqual(self.record(messages, calls=[]), [])

    def test_the_record_scores_through_the_core(self):
        from anachron.core import parse_traces, score_trace

        corpus = load_corpus_dir()
        messages = [_assistant(("x", "search", {"query": "aster logistics 2023"})), _result("x", "search", "search #1: 1 result")]
        record = ai.trace_record("finance-003", "2021-04-28", "unrestricted", messages,
                                 [_store_record(1, "search", {"query": "aster logistics 2023"}, ["fin-001", "fin-002"])],
                                 corpus=corpus)
        [trace] = parse_traces([("t", record)], corpus)
        result = score_trace(trace, corpus)
        # fin-002 is dated on T itself: no leak; the query reaches past T
        self.assertEqual((result.interactions, result.result_leaks, result.query_intent_leaks), (1, 0, 1))
        self.assertEqual(result.evidence, ("#1 query 'aster logistics 2023' reaches for 2023-01-01 > 2021-04-28",))


if __name__ == "__main__":
    unittest.main()
