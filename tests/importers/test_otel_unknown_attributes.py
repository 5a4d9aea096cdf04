"""Unknown OTel attributes are counted and warned about, never dropped silently (issue 27).

On the spans the OTel importer reads (chat and tool spans), an attribute under ``gen_ai.``, ``llm.``,
``traceloop.``, ``tool.``, ``input.`` or ``output.`` that it neither reads nor knows to be irrelevant
is counted per name (indexes written N), and the record carries one warning listing them.  The logs
below are the real instrumentations' fixtures (tests/data/importers/otel, written by the packages
themselves) with attributes added, in code, as a newer instrumentation version might write them.
"""

from __future__ import annotations

import json
import tempfile
import unittest
from pathlib import Path

from tests.support import ROOT, run_cli

OTEL = ROOT / "tests" / "data" / "importers" / "otel"
FIXTURES = sorted(p for p in OTEL.iterdir() if p.suffix in (".json", ".jsonl") and p.name != "figures.json")
TAIL = ": update anachron if they hold tool calls or results"


def imported(name, text):
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp, name), Path(tmp, "traces.jsonl")
        path.write_text(text, encoding="utf-8")
        status, _, err = run_cli("import", "--from", "otel", str(path), "--as-of", "2023-01-01", "--out", str(out))
        if status != 0:
            raise AssertionError(err)
        return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def unknown_warnings(records):
    return [w for r in records for w in r.get("warnings", []) if "unknown attribute" in w]


def with_attributes(fixture, added, *, span_filter=lambda span: True):
    """The fixture with *added* (key -> string value) on every span *span_filter* accepts."""
    doc = json.loads((OTEL / fixture).read_text(encoding="utf-8"))
    for resource in doc["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                if span_filter(span):
                    span["attributes"] += [{"key": k, "value": {"stringValue": v}} for k, v in added.items()]
    return json.dumps(doc)


class UnknownAttributesTest(unittest.TestCase):
    def test_no_real_fixture_warns(self):
        # The ignore list covers every attribute the pinned instrumentations write.
        for path in [*FIXTURES, ROOT / "tests" / "data" / "importers" / "otel.json"]:
            with self.subTest(path.name):
                self.assertEqual(unknown_warnings(imported(path.name, path.read_text(encoding="utf-8"))), [])

    def test_unknown_names_are_counted_per_name_with_indexes_as_n(self):
        # openai-v2 with content: one sample of three chat spans; each gets the attributes.
        text = with_attributes("openai-v2-content.json", {
            "gen_ai.prompt.0.content": "x", "gen_ai.prompt.1.content": "y", "gen_ai.foo": "z"})
        (record,) = imported("log.json", text)
        self.assertEqual(unknown_warnings([record]), [
            f"skipped 9 unknown attributes (gen_ai.prompt.N.content x6, gen_ai.foo x3){TAIL}"])
        self.assertEqual(record["warnings"], unknown_warnings([record]))  # the only warning: figures unchanged
        self.assertEqual(len(record["interactions"]), 3)

    def test_one_attribute_and_every_prefix(self):
        first = json.loads((OTEL / "traceloop-langchain.json").read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
        tool_span = next(s for s in first if any(a["key"] == "traceloop.span.kind" and a["value"].get("stringValue") == "tool"
                                                  for a in s["attributes"]))
        (record,) = imported("log.json", with_attributes("traceloop-langchain.json", {"tool.result": "r"},
                                                          span_filter=lambda s: s["spanId"] == tool_span["spanId"]))
        self.assertEqual(unknown_warnings([record]), [f"skipped 1 unknown attribute (tool.result){TAIL}"])
        added = {f"{prefix}zz": "v" for prefix in ("gen_ai.", "llm.", "traceloop.", "tool.", "input.", "output.")}
        (record,) = imported("log.json", with_attributes("pydantic-ai-v2-content.json", added,
                                                          span_filter=lambda s: s["spanId"] == _first_span("pydantic-ai-v2-content.json")))
        self.assertEqual(unknown_warnings([record]), [
            f"skipped 6 unknown attributes (gen_ai.zz, input.zz, llm.zz, output.zz, tool.zz, and 1 more name){TAIL}"])

    def test_the_list_is_capped_and_ranked_by_count(self):
        added = {f"llm.extra_{i}": "v" for i in range(7)}
        (record,) = imported("log.json", with_attributes("openinference-langchain.json", added,
                                                          span_filter=lambda s: s["spanId"] == _first_span("openinference-langchain.json")))
        (warning,) = unknown_warnings([record])
        self.assertEqual(warning, "skipped 7 unknown attributes (llm.extra_0, llm.extra_1, llm.extra_2, llm.extra_3,"
                                  f" llm.extra_4, and 2 more names){TAIL}")

    def test_not_counted(self):
        # Known and irrelevant names, other prefixes, and the --sample-id-from attribute.
        quiet = {"gen_ai.usage.cache_read_tokens": "1", "gen_ai.request.temperature": "0", "llm.token_count.prompt_details.audio": "0",
                 "traceloop.association.properties.user": "u", "http.url": "https://x.test", "session.id": "s1",
                 "llm.tools.7.tool.json_schema": "{}", "llm.input_messages.0.message.name": "bob"}
        (record,) = imported("log.json", with_attributes("openai-v2-content.json", quiet))
        self.assertEqual(unknown_warnings([record]), [])
        with tempfile.TemporaryDirectory() as tmp:
            path, out = Path(tmp, "log.json"), Path(tmp, "t.jsonl")
            path.write_text(with_attributes("openai-v2-content.json", {"gen_ai.run.key": "k"}), encoding="utf-8")
            status, _, err = run_cli("import", "--from", "otel", str(path), "--as-of", "2023-01-01", "--out", str(out),
                                     "--sample-id-from", "gen_ai.run.key")
            self.assertEqual((status, err), (0, ""))
            (record,) = [json.loads(line) for line in out.read_text().splitlines()]
        self.assertEqual((record["sample_id"], unknown_warnings([record])), ("k", []))

    def test_spans_not_read_are_not_counted(self):
        # An HTTP client span beside the chat spans: the importer does not read it, so its attributes are not its concern.
        doc = json.loads((OTEL / "openai-v2-content.json").read_text())
        scope = doc["resourceSpans"][0]["scopeSpans"][0]
        other = dict(scope["spans"][0], spanId="00000000000000ff", name="POST",
                     attributes=[{"key": "gen_ai.weird", "value": {"stringValue": "w"}}])
        scope["spans"].append(other)
        self.assertEqual(unknown_warnings(imported("log.json", json.dumps(doc))), [])

    def test_the_run_summary_carries_the_warning(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "log.json")
            path.write_text(with_attributes("openai-v2-content.json", {"gen_ai.foo": "z"}), encoding="utf-8")
            status, out, err = run_cli("score", "--from", "otel", str(path), "--as-of", "2023-01-01", "--format", "json")
        self.assertEqual((status, err), (0, ""))
        doc = json.loads(out)
        self.assertEqual(doc["summary"]["warnings"], [f"skipped 3 unknown attributes (gen_ai.foo x3){TAIL}"])
        self.assertEqual((doc["samples"][0]["tclr"], doc["samples"][0]["interactions"]), (0.5, 2))


def _first_span(fixture):
    doc = json.loads((OTEL / fixture).read_text())
    return doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["spanId"]


if __name__ == "__main__":
    unittest.main()
