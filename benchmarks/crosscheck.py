"""``anachron bank crosscheck``: precision and recall on the hand-labelled set, and its cost at 10k questions.

    python benchmarks/crosscheck.py

1. Precision and recall of the pairs found on tests/data/crosscheck (eighteen
   ForecastBench questions, CC BY-SA, and forty-six written for the set;
   labels by hand, tests/data/crosscheck/ATTRIBUTION.md).
2. The check on synthetic sets of 5,000 and 10,000 questions (titles of a
   dozen words from a 3,000-word vocabulary, an entity or figure answer each,
   one question in twenty naming another's answer), each against a floor
   measured in the same run: reading every question's words and figures once
   (the least any check does).  Near-linear: the ratio to the floor stays flat
   when the set doubles.  The all-pairs check it replaces is timed at the
   smaller size on a 500-question sample and scaled by n**2.  Best of three.
Figures recorded in docs/performance.md ("Leaks between questions").
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from anachron.bank.question_sets import load_questions  # noqa: E402
from anachron.bank.crosscheck import Question, crosscheck, words  # noqa: E402
from anachron.core.figures import read_figures  # noqa: E402
from answer_reader import best  # noqa: E402  (best of three, the same timer)

DATA = ROOT / "tests" / "data" / "crosscheck"


def precision_recall() -> tuple[int, int, int, float, float]:
    questions = load_questions(DATA / "questions.jsonl")
    found = {(p.question, p.leaked_by) for p in crosscheck(questions).pairs}
    labelled = set()
    for line in (DATA / "labels.jsonl").read_text(encoding="utf-8").split("\n"):
        if line.strip():
            record = json.loads(line)
            labelled.add((record["question"], record["leaked_by"]))
    hits = len(found & labelled)
    return hits, len(found), len(labelled), hits / len(found), hits / len(labelled)


def synthetic(n: int, seed: int = 0) -> list[Question]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(3000)]
    names = [f"Entity{i} Group" for i in range(n)]
    out = []
    for i in range(n):
        title = " ".join(rng.choices(vocab, k=12))
        if rng.random() < 0.05:
            title += " and " + names[rng.randrange(n)]  # a question naming another's answer
        answer = names[i] if i % 3 else f"${rng.randrange(100, 999)}M"
        out.append(Question(f"q{i}", title, resolution=answer))
    return out


def floor(questions: list[Question]) -> None:
    for q in questions:
        words(q.text)
        read_figures(q.text)


def all_pairs(questions: list[Question]) -> None:
    texts = [words(q.text) for q in questions]
    for q in questions:
        needle = words(q.resolution or "")
        for t in texts:
            " ".join(needle) in " ".join(t)


def main() -> None:
    hits, found, labelled, precision, recall = precision_recall()
    print(f"labelled set: {found} pairs found, {labelled} labelled leaks, {hits} both: "
          f"precision {precision:.3f}, recall {recall:.3f}")
    ratios = []
    for n in (5_000, 10_000):
        questions = synthetic(n)
        t = best(lambda: crosscheck(questions))
        f = best(lambda: floor(questions))
        ratios.append(t / f)
        print(f"n={n:>6}: crosscheck {t:.3f}s, floor {f:.3f}s, ratio {t / f:.2f}")
        if n == 5_000:
            sample = questions[:500]
            pairs = best(lambda: all_pairs(sample), repeat=1) * (n / 500) ** 2
            print(f"         all pairs (from 500, scaled by n**2): {pairs:.1f}s, {pairs / t:.0f}x the check")
    print(f"ratio at 10k / ratio at 5k: {ratios[1] / ratios[0]:.2f} (1.0: linear)")


if __name__ == "__main__":
    main()
