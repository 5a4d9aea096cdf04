"""Seeded generator of scale workloads: a dated corpus and a trace file over it.

    python benchmarks/workload.py OUT_DIR --items 10000 --samples 20000 --interactions 10
    python benchmarks/workload.py OUT_DIR --items 500 --samples 200 --hostile   # the test fixture

Writes ``OUT_DIR/corpus/{items,entities,samples}.jsonl`` and ``OUT_DIR/traces.jsonl``.
Same arguments and ``--seed``, same bytes.  What it assumes (stated so it can be judged):

- items: a title of 4-9 words and a text of 20-60 words drawn Zipf-like (exponent 1) from a
  vocabulary of 30,000 made-up words, dated 2015-2024; 60% name 1-2 of the entities; 2% restate
  an earlier item; 10% of texts mention a year or a quarter ("in Q3 2023");
- entities: ``--items / 20`` (at least 10), a fifth of them with a validity window;
- samples: as-of dates 2017-2023; each trace has ``--interactions`` tool calls: 80% searches
  whose query is 2-4 words and a year ("aster hubs 2023"), returning 3-5 corpus ids; 8%
  fetches of one id; 5% refused fetches of a random item (``target``); 3% ``error``,
  ``exhausted`` calls; 4% searches returning an inline open-web item (a dated URL, a
  ``page_age``, or nothing that dates it);
- ``--epochs N`` writes each sample N times, as reruns over Inspect epochs would give them once
  exported (the trace format refuses a repeated ``sample_id``, so epoch k's id ends ``-ek``): the
  same as-of date and calls, every trace with its ``as_of``; ``--epoch-order epoch`` (every sample
  of epoch 1, then of epoch 2, ...) or ``sample`` (a sample's epochs one after the other);
- ``--hostile`` adds what hostile input looks like: lone surrogates, U+2028, NEL and NUL in
  queries and ids, non-ASCII, a 20 KB query, HTML text in inline items, ``time`` fields.

Standard library only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from pathlib import Path

VOCABULARY = 30_000


def _vocabulary(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words, seen = [], set()
    while len(words) < VOCABULARY:
        word = "".join(rng.choices(letters, k=rng.randint(3, 10)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


def _zipf_weights(n: int) -> list[float]:
    weights, total = [], 0.0
    for rank in range(1, n + 1):
        total += 1.0 / rank
        weights.append(total)
    return weights  # cumulative, for random.choices(cum_weights=...)


def _day(rng: random.Random, first: int, last: int) -> dt.date:
    start = dt.date(first, 1, 1)
    return start + dt.timedelta(days=rng.randrange((dt.date(last, 12, 31) - start).days + 1))


def _dumps(obj: object, ascii: bool = False) -> str:
    # Lone surrogates cannot be written as UTF-8: hostile records are written with \u escapes.
    return json.dumps(obj, ensure_ascii=ascii, separators=(",", ":")) + "\n"


def write_workload(
    out: Path, *, items: int, samples: int, interactions: int, seed: int, hostile: bool, epochs: int = 1,
    epoch_order: str = "epoch",
) -> None:
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    cum = _zipf_weights(VOCABULARY)

    def words(k: int) -> list[str]:
        return rng.choices(vocab, cum_weights=cum, k=k)

    corpus = out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    entity_ids = [f"E{n:05d}" for n in range(max(10, items // 20))]
    with open(corpus / "entities.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        for ident in entity_ids:
            entity = {"id": ident, "name": " ".join(words(2)).title(), "valid_from": None, "valid_to": None}
            if rng.random() < 0.2:
                begin = _day(rng, 2012, 2022)
                entity["valid_from"] = begin.isoformat()
                if rng.random() < 0.5:
                    entity["valid_to"] = (begin + dt.timedelta(days=rng.randrange(30, 2000))).isoformat()
            fh.write(_dumps(entity))
    dates: list[dt.date] = []
    item_ids = [f"it-{n:07d}" for n in range(items)]
    with open(corpus / "items.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        for n, ident in enumerate(item_ids):
            day = _day(rng, 2015, 2024)
            text = " ".join(words(rng.randint(20, 60)))
            if rng.random() < 0.1:
                text += f" in Q{rng.randint(1, 4)} {rng.randint(2016, 2026)}"
            item = {
                "id": ident,
                "slice": rng.choice(("finance", "news", "science")),
                "publish_date": day.isoformat(),
                "title": " ".join(words(rng.randint(4, 9))).capitalize(),
                "text": text,
                "entities": sorted(rng.sample(entity_ids, rng.randint(1, 2))) if rng.random() < 0.6 else [],
                "restates": None,
            }
            if n and rng.random() < 0.02:
                earlier = rng.randrange(n)
                if dates[earlier] <= day:
                    item["restates"] = item_ids[earlier]
            dates.append(day)
            fh.write(_dumps(item))
    as_of = [_day(rng, 2017, 2023) for _ in range(samples)]
    with open(corpus / "samples.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        for n in range(min(samples, 100)):  # the first 100 traces may leave as_of to the corpus
            fh.write(_dumps({"id": f"s-{n:07d}", "slice": "news", "as_of": as_of[n].isoformat(),
                             "input": "As of then, what is known?"}))

    later: list[list[str]] = [[] for _ in range(epochs - 1)]  # epoch order: epochs 2.. written after the first
    with open(out / "traces.jsonl", "w", encoding="utf-8", newline="\n") as fh:
        for n in range(samples):
            record: dict = {"sample_id": f"s-{n:07d}", "mode": rng.choice(("unrestricted", "enforced"))}
            if n >= 100 or rng.random() < 0.5 or epochs > 1:  # an epoch's id is not in samples.jsonl
                record["as_of"] = as_of[n].isoformat()
            calls = []
            for _ in range(interactions):
                calls.append(_interaction(rng, words, item_ids, hostile))
            record["interactions"] = calls
            if hostile and rng.random() < 0.3:
                record["answer"] = "It rose\u2028in 2024 \ud800."
                record["citations"] = [rng.choice(item_ids)]
                record["note"] = {"kept": [1, 2.5, None, True]}
            if epochs == 1:
                fh.write(_dumps(record, ascii=hostile))
                continue
            for epoch in range(1, epochs + 1):  # the same sample rerun: the same calls, its own id
                line = _dumps({**record, "sample_id": f"s-{n:07d}-e{epoch}"}, ascii=hostile)
                if epoch == 1 or epoch_order == "sample":
                    fh.write(line)
                else:
                    later[epoch - 2].append(line)
        for lines in later:
            fh.writelines(lines)


def _interaction(rng: random.Random, words, item_ids: list[str], hostile: bool) -> dict:
    roll = rng.random()
    if roll < 0.80:
        query = " ".join(words(rng.randint(2, 4))) + f" {rng.randint(2014, 2026)}"
        if hostile and rng.random() < 0.1:
            query += " x" * 10_000 if rng.random() < 0.02 else rng.choice((" \ud83d", "\u2028Q3-24", " H2 2023\x00", " \u0085fy25 ", " 3 août 2024"))
        call = {"tool": "search", "query": query, "returned": rng.sample(item_ids, rng.randint(3, 5))}
        if hostile and rng.random() < 0.2:
            call["time"] = f"{rng.randint(2018, 2024)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T10:00:00Z"
        return call
    if roll < 0.88:
        return {"tool": "fetch", "query": None, "returned": [rng.choice(item_ids)], "call_id": f"c{rng.randrange(99)}"}
    if roll < 0.93:
        return {"tool": "fetch", "status": "refused", "target": rng.choice(item_ids + ["not-in-corpus"])}
    if roll < 0.96:
        return {"tool": "search", "status": rng.choice(("error", "exhausted")), "query": f"late {rng.randint(2020, 2026)}"}
    kind = rng.randrange(3)
    slug = "-".join(words(3))
    if kind == 0:
        inline = {"url": f"https://news.example.com/{rng.randint(2016, 2025)}/0{rng.randint(1, 9)}/1{rng.randint(0, 9)}/{slug}"}
    elif kind == 1:
        inline = {"id": f"web-{slug}", "page_age": f"{rng.randint(2016, 2025)}-0{rng.randint(1, 9)}-0{rng.randint(1, 9)}T08:00:00"}
    else:
        inline = {"url": f"https://blog.example.org/{slug}", "snippet": " ".join(words(8))}
    if hostile and rng.random() < 0.5:
        inline["snippet"] = "<p>Results for <b>Q4 2025</b> &amp; more</p><script>var x='2030';</script>\u2029"
        inline["title"] = "Über \ud800 2027"
    return {"tool": "search", "query": " ".join(words(2)), "returned": [inline, rng.choice(item_ids)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--interactions", type=int, default=10, help="tool calls per sample")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hostile", action="store_true")
    parser.add_argument("--epochs", type=int, default=1, help="each sample written N times, ids ending -e1..-eN")
    parser.add_argument("--epoch-order", choices=("epoch", "sample"), default="epoch",
                        help="epoch: every sample of epoch 1, then of epoch 2, ...; sample: a sample's epochs together")
    args = parser.parse_args()
    if args.epochs < 1:
        parser.error("--epochs must be at least 1")
    write_workload(args.out, items=args.items, samples=args.samples, interactions=args.interactions,
                   seed=args.seed, hostile=args.hostile, epochs=args.epochs, epoch_order=args.epoch_order)


if __name__ == "__main__":
    main()
