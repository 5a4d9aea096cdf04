"""The OTel fixtures the OpenAI Agents SDK writes, rebuilt (slow: importing the SDK takes seconds):
the same bytes under the pinned versions, else the same imported traces (tests/importers/test_otel.py)."""

import os
import subprocess
import sys
import unittest

from tests.importers.test_otel import DATA, compare_rebuilt, installed_or_skip
from tests.support import ROOT

# The records of a log whose results carry several date fields (page_age and age), as the API yields
# them: not sorted, so an order that followed string hashing would show between processes.
_DUMP = """
import datetime, json, sys
from anachron.importers import Options, import_logs
for record in import_logs("otel", [sys.argv[1]], Options(as_of=datetime.date(2025, 1, 1))):
    print(json.dumps(record, default=str))
"""


class AgentsSdkFixturesTest(unittest.TestCase):
    def test_rebuilt_agents_sdk_fixtures_match(self):
        from tests.fixtures_build import build_otel_fixtures as builder

        installed = installed_or_skip(self, builder.AGENTS_PACKAGES)
        built = builder.build(list(builder.SLOW))
        self.assertEqual(sorted(built), sorted(f"{stem}.json" for stem in builder.SLOW))
        self.assertTrue(all((DATA / name).is_file() for name in built))
        compare_rebuilt(self, installed == builder.AGENTS_PACKAGES, built)


class OneKeyOrderTest(unittest.TestCase):
    def test_records_keep_one_key_order_whatever_the_hash_seed(self):
        outs = []
        for seed in ("1", "2", "3"):
            env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
            done = subprocess.run([sys.executable, "-c", _DUMP, str(ROOT / "tests" / "data" / "importers" / "otel.json")], env=env,
                                  capture_output=True, text=True, timeout=120)
            self.assertEqual(done.returncode, 0, done.stderr[-2000:])
            outs.append(done.stdout)
        self.assertIn('"page_age"', outs[0])
        self.assertEqual(outs[1:], outs[:1] * 2)


if __name__ == "__main__":
    unittest.main()
