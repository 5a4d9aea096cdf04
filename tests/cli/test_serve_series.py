"""``anachron serve --series``: a bad vintage file or a missing ALFRED key is one line, status 2, before any file
is made.  The served tool itself, through a real server and the mcp client, is in slow_serve_series.py."""

import json
import os
import shutil
import tempfile
import unittest
import unittest.mock
from pathlib import Path

from tests.support import run_cli


class SeriesOptionTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp)
        self.events = self.tmp / "events.jsonl"

    def serve(self, spec, environ=None):
        with unittest.mock.patch.dict(os.environ, environ or {}, clear=False):
            if environ is None:
                os.environ.pop("FRED_API_KEY", None)
            return run_cli("serve", "--as-of", "2020-06-01", "--events", str(self.events), "--series", spec)

    def assert_refused(self, result, line):
        status, out, err = result
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, f"anachron: {line}\n")
        self.assertFalse(self.events.exists())  # nothing is made for a server that cannot start

    def test_a_bad_vintage_file_is_one_line_naming_the_file_and_the_observation(self):
        path = self.tmp / "vintages.json"
        path.write_text(json.dumps({"GDPC1": {"observations": [
            {"date": "2020-01-01", "value": "NaN", "realtime_start": "2020-04-29", "realtime_end": "9999-12-31"}]}}), encoding="utf-8")
        self.assert_refused(self.serve(str(path)), f"{path}: series 'GDPC1' observation 2020-01-01 (observations[0]): "
                            "value 'NaN' is not a number (ALFRED writes a missing value as '.')")
        path.write_text("", encoding="utf-8")
        status, _, err = self.serve(str(path))
        self.assertEqual((status, err.count("\n")), (2, 1))
        self.assertIn(f"{path}", err)
        self.assert_refused(self.serve(str(self.tmp / "nothing.json")), f"{self.tmp / 'nothing.json'}: no such file")

    def test_the_alfred_api_without_its_key_is_one_line_naming_the_variable(self):
        self.assert_refused(self.serve("alfred"), "--series alfred: set FRED_API_KEY in the environment to your FRED API key")
        self.assert_refused(self.serve("alfred=http://127.0.0.1:9"),
                            "--series alfred: set FRED_API_KEY in the environment to your FRED API key")


if __name__ == "__main__":
    unittest.main()
