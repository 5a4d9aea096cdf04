"""What a fresh process loads (child processes): `anachron outcomes` loads no other command's modules, nor the
corpus reader, the leakage scorer or the seal; ``anachron.core`` loads a name's module when the name is used."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from tests.support import ROOT

_LOADED = "import sys; print(' '.join(sorted(m for m in sys.modules if m.startswith('anachron'))))"


def _loaded(code: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", code + "\n" + _LOADED], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(done.stdout.split())


class LoadingTest(unittest.TestCase):
    def test_outcomes_loads_its_own_modules_only(self):
        with tempfile.TemporaryDirectory() as tmp:
            pred, res, out = Path(tmp) / "m.jsonl", Path(tmp) / "r.jsonl", Path(tmp) / "o.json"
            pred.write_text("".join(json.dumps({"sample_id": f"s{i}", "probability": i / 10}) + "\n" for i in range(10)))
            res.write_text("".join(json.dumps({"sample_id": f"s{i}", "resolved_to": i % 2}) + "\n" for i in range(10)))
            argv = ["outcomes", str(pred), str(res), "--format", "json", "--out", str(out), "--quiet", "--resamples", "100"]
            loaded = _loaded(f"from anachron.cli import main\nassert main({argv!r}) == 0")
            self.assertTrue(out.is_file())
        self.assertEqual({m for m in loaded if m.startswith("anachron.cli.")}, {"anachron.cli.options", "anachron.cli.outcomes"})
        for module in ("anachron.core.corpus", "anachron.core.leakage", "anachron.core.seal", "anachron.core.query_intent"):
            self.assertNotIn(module, loaded)

    def test_the_core_loads_a_name_when_it_is_used(self):
        self.assertEqual(_loaded("import anachron.core.errors"), {"anachron", "anachron.core", "anachron.core.errors"})
        loaded = _loaded("from anachron.core import score_traces")
        self.assertIn("anachron.core.leakage", loaded)
        self.assertNotIn("anachron.core.stats.paired", loaded)


if __name__ == "__main__":
    unittest.main()
