"""Input files of ``anachron outcomes`` and the case that runs the command over them (tests/forecasts, tests/cli)."""

from __future__ import annotations

import datetime as dt
import json
import tempfile
import unittest
from pathlib import Path

from tests.support import run_cli


def jsonl(rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


class Files:
    def __init__(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.root = Path(self.dir.name)

    def write(self, name: str, text: str) -> str:
        path = self.root / name
        path.write_text(text, encoding="utf-8")
        return str(path)


def score_record(sample_id: str, as_of: str = "2024-01-01", **counts) -> dict:
    """One sample as ``anachron score --format json`` writes it: the *counts* given, every other count 0, and
    as many interactions as it takes to hold the leaking and undated ones."""
    from anachron.core.leakage import SampleResult

    counts = {"interactions": 0, "result_leaks": 0, "survivorship_leaks": 0, "survivorship_base": 0,
              "restatement_leaks": 0, "query_intent_leaks": 0, **counts}
    counts["interactions"] = max(counts["interactions"], counts["result_leaks"], counts.get("undated", 0))
    return SampleResult(sample_id, dt.date.fromisoformat(as_of), None, evidence=(), **counts).to_dict()


def score_doc(samples: dict[str, dict]) -> str:
    return json.dumps({"samples": [score_record(s, **fields) for s, fields in samples.items()], "summary": {}})


class OutcomesCase(unittest.TestCase):
    """Four forecasts of model m-a and three resolutions, written for each test; ``anachron outcomes`` run in-process."""

    def setUp(self) -> None:
        self.files = Files()
        self.addCleanup(self.files.dir.cleanup)
        w = self.files.write
        self.pred = w("a.jsonl", jsonl([
            {"sample_id": "s1", "probability": 0.9, "model": "m-a"},
            {"sample_id": "s2", "probability": 0.2, "model": "m-a"},
            {"sample_id": "s3", "probability": 0.6, "model": "m-a"},
            {"sample_id": "s4", "probability": 0.5, "model": "m-a"},
        ]))
        self.res = w("res.jsonl", jsonl([
            {"sample_id": "s1", "resolved_to": 1, "resolution_date": "2024-03-01"},
            {"sample_id": "s2", "resolved_to": 0, "resolution_date": "2024-03-01"},
            {"sample_id": "s3", "resolved_to": 0, "resolution_date": "2024-03-02"},
        ]))

    def outcomes(self, *argv: str) -> tuple[int, str, str]:
        return run_cli("outcomes", *argv, "--resamples", "200")

    def report(self, *argv: str) -> dict:
        code, out, err = self.outcomes(*argv, "--format", "json")
        self.assertEqual(code, 0, err)
        return json.loads(out)
