"""Speed of the answer reader (anachron.core.facts) against a floor, on long hostile answers.

    python benchmarks/answer_reader.py

For each text of about one megabyte it times reading the text
(``statements``) and then looking up every v0 fact in it (``find``), and
prints the ratio to a floor measured in the same run: one ``re.finditer``
pass for digit runs over the same text, the least any number reader must do.
Best of three runs each.  Figures recorded in docs/performance.md.
"""

from __future__ import annotations

import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from anachron.core import load_corpus_dir  # noqa: E402
from anachron.core.facts import statements  # noqa: E402


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def texts() -> dict[str, str]:
    rng = random.Random(7)
    return {
        "prose with a figure every 10 chars": "word, 12. " * 100_000,
        "one digit run": "9" * 1_000_000,
        "letters only": "a" * 1_000_000,
        "a date every 6 chars": "May 4 " * 166_000,
        "money every 11 chars": "$1,000,000 " * 90_000,
        "distinct money figures": " ".join(f"${rng.randrange(10**6)}.{rng.randrange(100)}M" for _ in range(90_000)),
    }


def main() -> int:
    facts = [fact for fact, _ in load_corpus_dir().fact_sources.values()]
    digits = re.compile(r"[0-9]+")
    print(f"{len(facts)} v0 facts; best of 3")
    print(f"{'text':<36} {'chars':>9} {'read':>8} {'find all':>9} {'floor':>8} {'total / floor':>14}")
    for label, text in texts().items():
        read = best(lambda: statements(text))
        stated = statements(text)
        find = best(lambda: [stated.find(f) for f in facts])
        floor = best(lambda: sum(1 for _ in digits.finditer(text)))
        print(f"{label:<36} {len(text):>9,} {read:>7.3f}s {find:>8.3f}s {floor:>7.3f}s {(read + find) / floor:>14.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
