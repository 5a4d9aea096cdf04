"""What ``anachron outcomes`` holds per resolution and per forecast stays small (issue 36: 10**6 forecasts).

tracemalloc over the public readers and fit, at 50,000 entries: the resolutions as held after
:func:`anachron.forecasts.reading.load_resolutions` (each sample id's string included), and the peak of
:func:`anachron.forecasts.difficulty.difficulty_adjusted` over its observations.  The bounds lie
between what they take (docs/performance.md, "10^6 forecasts") and what an object a resolution with its
own file-and-line string, or a dict entry keyed by ``(question, model)`` an observation, costs.  tracemalloc counts allocations, not the machine's load: the figures are the same on every run.
"""

from __future__ import annotations

import gc
import json
import random
import tempfile
import tracemalloc
import unittest
from pathlib import Path

from anachron.forecasts.difficulty import difficulty_adjusted
from anachron.forecasts.reading import load_resolutions

SIZE = 50_000
BYTES_PER_RESOLUTION = 260  # measured 205, its id's string and dict entry included; a Resolution and its where string: 327
BYTES_PER_OBSERVATION = 150  # measured 74; a dict keyed by (question, model) and two lists of pairs: 288


class MemoryTest(unittest.TestCase):
    def test_resolutions_are_held_in_columns(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "resolutions.jsonl"
            path.write_text("".join(json.dumps({"sample_id": f"q{q:07d}", "resolved_to": q % 2, "resolution_date": "2025-01-02"}) + "\n"
                                    for q in range(SIZE)), encoding="utf-8")
            gc.collect()
            tracemalloc.start()
            try:
                resolutions, _ = load_resolutions(path)
                held, _ = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
        self.assertEqual(len(resolutions), SIZE)
        self.assertEqual(resolutions["q0000007"].where, f"{path}:8")  # still named by file and line
        print(f"\n  resolutions held: {held / SIZE:.0f} bytes each (bound {BYTES_PER_RESOLUTION})")
        self.assertLess(held / SIZE, BYTES_PER_RESOLUTION)

    def test_the_fit_peaks_at_a_few_dozen_bytes_an_observation(self):
        rng = random.Random(5)
        questions = [f"q{q:07d}" for q in range(SIZE // 5)]
        models = [f"model {m}" for m in range(5)]
        values = [rng.random() / 2 for _ in range(SIZE)]
        gc.collect()
        tracemalloc.start()
        try:
            # Made as they are read, as the report's are: only the fit's own tables are counted.
            fit = difficulty_adjusted((q, m, values[i * 5 + j]) for i, q in enumerate(questions) for j, m in enumerate(models))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertEqual(len(fit.questions), SIZE // 5)
        print(f"\n  the fit's peak: {peak / SIZE:.0f} bytes an observation (bound {BYTES_PER_OBSERVATION})")
        self.assertLess(peak / SIZE, BYTES_PER_OBSERVATION)


if __name__ == "__main__":
    unittest.main()
