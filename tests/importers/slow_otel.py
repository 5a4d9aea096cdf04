"""The OTel fixtures the OpenAI Agents SDK writes, rebuilt (slow: importing the SDK takes seconds):
the same bytes under the pinned versions, else the same imported traces (tests/importers/test_otel.py)."""

import unittest

from tests.importers.test_otel import DATA, compare_rebuilt, installed_or_skip


class AgentsSdkFixturesTest(unittest.TestCase):
    def test_rebuilt_agents_sdk_fixtures_match(self):
        from tests.fixtures_build import build_otel_fixtures as builder

        installed = installed_or_skip(self, builder.AGENTS_PACKAGES)
        built = builder.build(list(builder.SLOW))
        self.assertEqual(sorted(built), sorted(f"{stem}.json" for stem in builder.SLOW))
        self.assertTrue(all((DATA / name).is_file() for name in built))
        compare_rebuilt(self, installed == builder.AGENTS_PACKAGES, built)


if __name__ == "__main__":
    unittest.main()
