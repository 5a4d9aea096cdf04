"""A run directory's ``run.json``: written and read by one module, read strictly.

Every refusal names the file, and for a bad field the field; what
:func:`write_run` writes, :func:`read_run` reads back.  The model gateway's
log is compared with the chain ``run.json`` pins (``gateway``, optional):
any difference is a line, and a log that ``run.json`` pins no chain of is one too.
``isolation`` (optional) names how the harness's network was isolated, or is null.
"""

from __future__ import annotations

import datetime as _dt
import json
import shutil
import tempfile
import unittest
from pathlib import Path

from anachron.core.errors import AnachronError
from anachron.core.chain import ChainWriter
from anachron.importers.run_dir import FORMAT, RUN_JSON, is_run_dir, model_log_differences, read_run, write_run


def record(**changes) -> dict:
    """A run's record as the launcher writes it (without ``format``), with *changes*."""
    base = {
        "harness": "claude-code",
        "as_of": "2023-01-01",
        "corpus": {"spec": None, "sha256": "0" * 64},
        "refused": None,
        "files": {"transcript": "transcript.jsonl", "transcript_format": "claude-code",
                  "lock_events": "lock-events.jsonl", "mcp_config": "mcp.json", "stderr": None},
        "sealed_tools": ["mcp__lock__fetch", "mcp__lock__search"],
        "seal": None,
        "lock_log": {"records": 0, "sha256": "0" * 64, "torn": False},
        "digests": {"transcript.jsonl": "a" * 64, "mcp.json": "b" * 64},
    }
    base.update(changes)
    return base


class RunDirCase(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.dir, True)

    def write_raw(self, text: str) -> Path:
        path = self.dir / RUN_JSON
        path.write_text(text, encoding="utf-8")
        return path

    def assertRefused(self, text: str, *mentions: str) -> None:
        """Reading *text* as run.json raises an error naming the file and each of *mentions*."""
        path = self.write_raw(text)
        with self.assertRaises(AnachronError) as caught:
            read_run(self.dir)
        message = str(caught.exception)
        self.assertIn(str(path), message)
        for mention in mentions:
            self.assertIn(mention, message)


class WriteThenRead(RunDirCase):
    def test_what_is_written_reads_back(self):
        written = write_run(self.dir, record(corpus={"spec": "corpus/v0", "sha256": "1" * 64}))
        self.assertEqual(written["format"], FORMAT)
        self.assertEqual(next(iter(written)), "format")  # first, as before the record had one writer
        self.assertEqual(json.loads((self.dir / RUN_JSON).read_text(encoding="utf-8")), written)
        run = read_run(self.dir)
        self.assertEqual(run.path, self.dir / RUN_JSON)
        self.assertEqual(run.rundir, self.dir)
        self.assertEqual(run.as_of, _dt.date(2023, 1, 1))
        self.assertIsNone(run.refused)
        self.assertEqual((run.transcript, run.transcript_format, run.mcp_config, run.lock_events),
                         ("transcript.jsonl", "claude-code", "mcp.json", "lock-events.jsonl"))
        self.assertEqual(run.corpus_spec, "corpus/v0")
        self.assertEqual(run.sealed_tools, ("mcp__lock__fetch", "mcp__lock__search"))
        self.assertTrue(is_run_dir(self.dir))

    def test_a_refused_run_without_a_transcript_reads_back(self):
        files = dict(record()["files"], transcript=None, lock_events=None)
        write_run(self.dir, record(refused="preflight: no such executable", files=files, sealed_tools=[]))
        run = read_run(self.dir)
        self.assertEqual(run.refused, "preflight: no such executable")
        self.assertIsNone(run.transcript)
        self.assertIsNone(run.lock_events)
        self.assertEqual(run.sealed_tools, ())

    def test_a_record_the_reader_would_refuse_is_never_written(self):
        with self.assertRaises(AnachronError) as caught:
            write_run(self.dir, record(as_of="someday"))
        self.assertIn("field 'as_of'", str(caught.exception))
        self.assertFalse((self.dir / RUN_JSON).exists())


class StrictReading(RunDirCase):
    def test_a_directory_without_run_json_is_not_a_finished_run(self):
        self.assertFalse(is_run_dir(self.dir))
        with self.assertRaises(AnachronError) as caught:
            read_run(self.dir)
        self.assertIn(str(self.dir), str(caught.exception))
        self.assertIn(RUN_JSON, str(caught.exception))

    def test_a_file_that_is_not_json_is_refused(self):
        self.assertRefused("{not json")

    def test_a_json_value_other_than_an_object_is_refused(self):
        self.assertRefused("[]", "expected a JSON object")

    def test_another_format_is_refused_naming_the_field(self):
        self.assertRefused(json.dumps({**record(), "format": "anachron-run/0"}), "field 'format'")
        self.assertRefused(json.dumps(record()), "missing field 'format'")

    def test_each_missing_field_is_named(self):
        for name in ("as_of", "refused", "files", "corpus", "sealed_tools", "lock_log", "digests"):
            with self.subTest(name):
                obj = {"format": FORMAT, **record()}
                del obj[name]
                self.assertRefused(json.dumps(obj), f"missing field '{name}'")

    def test_each_missing_field_of_an_inner_object_is_named_by_its_path(self):
        for outer, name in (("files", "transcript"), ("files", "transcript_format"), ("files", "mcp_config"),
                            ("files", "lock_events"), ("corpus", "spec")):
            with self.subTest(f"{outer}.{name}"):
                obj = {"format": FORMAT, **record()}
                obj[outer] = {k: v for k, v in obj[outer].items() if k != name}
                self.assertRefused(json.dumps(obj), f"missing field '{outer}.{name}'")

    def test_each_wrongly_typed_field_is_named(self):
        files = record()["files"]
        cases = {
            "as_of": {"as_of": 20230101},
            "refused": {"refused": 2},
            "files": {"files": []},
            "corpus": {"corpus": "corpus/v0"},
            "sealed_tools": {"sealed_tools": "mcp__lock__search"},
            "files.transcript": {"files": dict(files, transcript=1)},
            "files.transcript_format": {"files": dict(files, transcript_format=None)},
            "files.mcp_config": {"files": dict(files, mcp_config="")},
            "files.lock_events": {"files": dict(files, lock_events=["lock-events.jsonl"])},
            "corpus.spec": {"corpus": {"spec": 3}},
            "lock_log": {"lock_log": "0" * 64},
            "lock_log.records": {"lock_log": {"records": -1, "sha256": "0" * 64, "torn": False}},
            "lock_log.sha256": {"lock_log": {"records": 0, "sha256": "0" * 63, "torn": False}},
            "lock_log.torn": {"lock_log": {"records": 0, "sha256": "0" * 64, "torn": 0}},
            "digests.mcp.json": {"digests": {"mcp.json": "B" * 64}},
            "seal": {"seal": {"status": None}},
        }
        for field, changes in cases.items():
            with self.subTest(field):
                self.assertRefused(json.dumps({"format": FORMAT, **record(**changes)}), f"field '{field}'")

    def test_a_sealed_tool_that_is_not_a_name_is_refused(self):
        self.assertRefused(json.dumps({"format": FORMAT, **record(sealed_tools=["mcp__lock__search", 7])}),
                           "field 'sealed_tools'")


class ModelLog(RunDirCase):
    def setUp(self) -> None:
        super().setUp()
        writer = ChainWriter(self.dir / "model.jsonl")
        for n in range(3):
            writer.write({"record": "request", "n": n})
        writer.close()
        self.pinned = {"log": "model.jsonl", **{k: v for k, v in writer.chain.to_dict().items() if k != "torn"}}

    def differences(self) -> list[str]:
        write_run(self.dir, record(gateway=self.pinned))
        return model_log_differences(read_run(self.dir))

    def test_the_log_as_pinned_has_no_difference(self):
        self.assertEqual(self.differences(), [])

    def test_an_edit_a_removal_and_an_append_are_each_a_difference(self):
        data = (self.dir / "model.jsonl").read_bytes()
        lines = data.split(b"\n")[:-1]
        edits = {"edit": b"\n".join([lines[0].replace(b'"n": 0', b'"n": 5'), *lines[1:]]) + b"\n",
                 "remove": b"\n".join(lines[:-1]) + b"\n",
                 "append": data + lines[-1] + b"\n"}
        for name, changed in edits.items():
            with self.subTest(name):
                (self.dir / "model.jsonl").write_bytes(changed)
                found = self.differences()
                self.assertTrue(found, name)
                self.assertTrue(all(line.startswith("the model log model.jsonl") for line in found), found)

    def test_a_log_run_json_pins_no_chain_of_is_a_difference(self):
        write_run(self.dir, record())
        self.assertEqual(model_log_differences(read_run(self.dir)), ["run.json pins no chain of the model log model.jsonl"])

    def test_a_missing_log_is_a_difference(self):
        (self.dir / "model.jsonl").unlink()
        self.assertIn("cannot be read", self.differences()[0])

    def test_a_bad_gateway_field_is_named(self):
        for field, value in [("gateway.records", dict(self.pinned, records=-1)), ("gateway.sha256", dict(self.pinned, sha256="x")),
                             ("gateway.log", dict(self.pinned, log="../elsewhere.jsonl")), ("gateway", [1])]:
            with self.subTest(field):
                self.assertRefused(json.dumps({"format": FORMAT, **record(gateway=value)}), f"field '{field}'")



class Isolation(RunDirCase):
    """``isolation`` (optional): the method of the harness's network namespace, or null."""

    def test_the_method_is_read_back_and_an_older_record_has_none(self):
        write_run(self.dir, record(isolation="netns(unshare)"))
        self.assertEqual(read_run(self.dir).isolation, "netns(unshare)")
        write_run(self.dir, record(isolation=None))
        self.assertIsNone(read_run(self.dir).isolation)
        write_run(self.dir, record())  # a run recorded before the field
        self.assertIsNone(read_run(self.dir).isolation)

    def test_a_bad_isolation_field_is_named(self):
        for value in ("", 1, True, ["netns"]):
            with self.subTest(value=value):
                self.assertRefused(json.dumps({"format": FORMAT, **record(isolation=value)}), "field 'isolation'")



class LocalTools(RunDirCase):
    """``local_tools`` (optional): the harness's own tools the gateway let through; () for an older record."""

    def test_the_list_is_read_back_and_an_older_record_has_none(self):
        write_run(self.dir, record(local_tools=["apply_patch", "tool_search"]))
        self.assertEqual(read_run(self.dir).local_tools, ("apply_patch", "tool_search"))
        write_run(self.dir, record())  # a run recorded before the field
        self.assertEqual(read_run(self.dir).local_tools, ())

    def test_a_bad_local_tools_field_is_named(self):
        for value in (None, "tool_search", [""], [7], ["tool_search", "Bash"]):
            with self.subTest(value=value):
                self.assertRefused(json.dumps({"format": FORMAT, **record(local_tools=value)}), "field 'local_tools'")

if __name__ == "__main__":
    unittest.main()
