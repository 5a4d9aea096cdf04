"""A generated, seeded corpus directory of any size, and queries over it.

    python benchmarks/corpus_gen.py OUT_DIR --items 1000000 [--seed 16]

Same seed and size, same bytes.  The shape follows a news archive:

- a vocabulary of pronounceable words drawn with Zipf-like frequencies
  (weight 1/rank), so some words match a large share of the corpus and most
  match few items, as in text;
- items dated over 2000-01-01 .. 2025-12-31 (many share a day, so the tie
  order "date, then id" is exercised), a title of 3-8 words, a text of
  10-30 words with stop words and the odd accented word mixed in, 0-2
  entities, and about 1 in 50 restating an earlier item of one of its
  entities;
- entities with validity windows, a fifth of them delisted before 2025
  (the survivorship residual);
- ids without zero padding (``g-10`` sorts before ``g-9``), so id order is
  string order, not number order.

:func:`queries` draws search queries the same way: 1-4 words, an entity
name now and then, and a year in some.
"""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import itertools
import json
import random
import sys
from pathlib import Path

_CONSONANTS = "bcdfghklmnprstvz"
_VOWELS = "aeiou"
_STOP = "the of and to in for on with as by at from about after before".split()
_ACCENTED = ["zürich", "café", "søren", "naïve", "ångström"]
_START = dt.date(2000, 1, 1)
_DAYS = (dt.date(2025, 12, 31) - _START).days + 1


def vocabulary(size: int, rng: random.Random) -> list[str]:
    words: dict[str, None] = {}
    while len(words) < size:
        syllables = rng.randint(2, 4)
        words["".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS) for _ in range(syllables))] = None
    return list(words)


class _Zipf:
    """Draws words with weight 1/rank."""

    def __init__(self, words: list[str], rng: random.Random) -> None:
        self.words, self.rng = words, rng
        self.cumulative = list(itertools.accumulate(1.0 / rank for rank in range(1, len(words) + 1)))

    def draw(self, n: int) -> list[str]:
        top = self.cumulative[-1]
        return [self.words[bisect.bisect_left(self.cumulative, self.rng.random() * top)] for _ in range(n)]


def _entities(n: int, rng: random.Random, names: list[str]) -> list[dict]:
    rows = []
    for number in range(n):
        start = _START + dt.timedelta(days=rng.randrange(_DAYS // 2))
        end = None
        if rng.random() < 0.2:
            end = start + dt.timedelta(days=rng.randrange(365, _DAYS - (start - _START).days))
        rows.append(
            {
                "id": f"E{number}",
                "name": f"{names[2 * number].title()} {names[2 * number + 1].title()}",
                "valid_from": start.isoformat(),
                "valid_to": None if end is None else end.isoformat(),
            }
        )
    return rows


def generate(out: str | Path, items: int, *, seed: int = 16, days: int = _DAYS, vocabulary_size: int = 20000) -> Path:
    """Write ``items.jsonl``, ``entities.jsonl`` and ``samples.jsonl`` into *out*; return it.

    *days* narrows the date range (a small corpus with many same-day ties).
    """
    rng = random.Random(seed)
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    words = vocabulary(vocabulary_size, rng)
    zipf = _Zipf(words, rng)
    n_entities = max(10, items // 500)
    entities = _entities(n_entities, rng, vocabulary(2 * n_entities, random.Random(seed + 1)))
    _write(root / "entities.jsonl", entities)
    by_entity: dict[str, list[tuple[str, str]]] = {}
    with open(root / "items.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        for number in range(items):
            day = (_START + dt.timedelta(days=rng.randrange(days))).isoformat()
            named = sorted({f"E{rng.randrange(n_entities)}" for _ in range(rng.choice((0, 0, 1, 1, 1, 2)))})
            title = zipf.draw(rng.randint(3, 8))
            text = zipf.draw(rng.randint(10, 30))
            for _ in range(rng.randint(0, 4)):
                text.insert(rng.randrange(len(text) + 1), rng.choice(_STOP))
            if rng.random() < 0.01:
                text.append(rng.choice(_ACCENTED))
            restates = None
            earlier = [row for e in named for row in by_entity.get(e, ()) if row[1] <= day]
            if earlier and rng.random() < 0.02:
                restates = rng.choice(earlier)[0]
            ident = f"g-{number}"
            for e in named:
                bucket = by_entity.setdefault(e, [])
                if len(bucket) < 20:
                    bucket.append((ident, day))
            record = {
                "id": ident,
                "slice": "news" if number % 3 else "finance",
                "publish_date": day,
                "title": " ".join(title).capitalize(),
                "text": " ".join(text).capitalize() + ".",
                "entities": named,
                "restates": restates,
            }
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    samples = [
        {"id": f"s-{n}", "slice": "news", "as_of": (_START + dt.timedelta(days=rng.randrange(days))).isoformat(), "input": " ".join(zipf.draw(5))}
        for n in range(20)
    ]
    _write(root / "samples.jsonl", samples)
    return root


def _write(path: Path, rows: list[dict]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def queries(n: int, *, seed: int = 7, vocabulary_size: int = 20000, corpus_seed: int = 16, entities: int = 2000) -> list[str]:
    """*n* search queries over the corpus generated with *corpus_seed* (the same vocabulary)."""
    words = vocabulary(vocabulary_size, random.Random(corpus_seed))
    rng = random.Random(seed)
    zipf = _Zipf(words, rng)
    names = vocabulary(2 * entities, random.Random(corpus_seed + 1))
    out = []
    for _ in range(n):
        query = zipf.draw(rng.randint(1, 4))
        if rng.random() < 0.3:
            e = rng.randrange(entities)
            query.append(f"{names[2 * e].title()} {names[2 * e + 1].title()}")
        if rng.random() < 0.3:
            query.append(str(rng.randint(2000, 2025)))
        out.append(" ".join(query))
    return out


def as_of_dates(n: int, *, seed: int = 8, days: int = _DAYS) -> list[dt.date]:
    rng = random.Random(seed)
    return [_START + dt.timedelta(days=rng.randrange(days)) for _ in range(n)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", metavar="OUT_DIR")
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args(argv)
    generate(args.out, args.items, seed=args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
