"""Importers: time in the size of the log, against json.loads of the same log.

    python benchmarks/importers.py                         # 1,000 to 10,000 conversations, best of 3 (~60 s)
    python benchmarks/importers.py --sizes 500,1000 --repeat 1   # a quick run

For each format read line by line (``openai-chat``, ``anthropic``, ``otel``:
JSON Lines, one conversation or trace per line) a seeded synthetic log of N
conversations is written, each with 3 tool calls whose results are 5 search
results shaped as Tavily returns them (url, title, a 40-word content,
published_date) and a final answer citing two URLs.  Timed, best of
``--repeat`` rounds:

- ``json.loads``: parse every line of the log (the floor: reading it);
- ``import``: ``list(import_logs(...))``, the trace records of every
  conversation, built one conversation at a time;
- with ``--end-to-end``, what ``anachron import`` does with them: each
  record written as a JSON line (to an in-memory buffer here) and checked as
  a trace, ``check`` with :func:`anachron.core.trace.check_traces` (what the
  command runs: the dating of a singly seen item skipped) and ``validate``
  with :func:`~anachron.core.trace.iter_traces` (a full validation, what
  ``import`` ran before issue 22); the two must give the same output.

Printed per format and size: seconds, the ratio import / json.loads, and
microseconds per conversation.  Linear time shows as a flat time per
conversation across sizes (the last column: time per conversation at N over
time per conversation at the smallest N).  Standard library only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from anachron.store import load_corpus  # noqa: E402
from anachron.core.jsonio import dump_json  # noqa: E402
from anachron.core.trace import check_traces, iter_traces  # noqa: E402
from anachron.importers import Options, import_logs  # noqa: E402

WORDS = "cygnus robotics ipo shares priced market filing revenue quarter growth analyst robot warehouse listing".split()
SITES = ("www.reuters.com", "www.cnbc.com", "techcrunch.com", "example.com", "www.ft.com")


def _results(rng: random.Random) -> dict:
    return {"query": "q", "results": [{
        "url": f"https://{rng.choice(SITES)}/news/{rng.randrange(10**9)}",
        "title": " ".join(rng.choices(WORDS, k=6)),
        "content": " ".join(rng.choices(WORDS, k=40)),
        "published_date": f"2022-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}",
        "score": round(rng.random(), 3),
    } for _ in range(5)]}


def openai_chat(rng: random.Random, n: int) -> dict:
    messages = [{"role": "user", "content": f"question {n}"}]
    for k in range(3):
        messages.append({"role": "assistant", "content": None, "tool_calls": [{
            "id": f"call_{k}", "type": "function",
            "function": {"name": "web_search", "arguments": json.dumps({"query": " ".join(rng.choices(WORDS, k=3))})}}]})
        messages.append({"role": "tool", "tool_call_id": f"call_{k}", "content": json.dumps(_results(rng))})
    messages.append({"role": "assistant", "content": "Yes. https://example.com/a https://example.com/b"})
    return {"id": f"c{n}", "messages": messages}


def anthropic(rng: random.Random, n: int) -> dict:
    messages = [{"role": "user", "content": f"question {n}"}]
    for k in range(3):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{k}", "name": "web_search", "input": {"query": " ".join(rng.choices(WORDS, k=3))}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{k}", "content": json.dumps(_results(rng))}]})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "Yes. https://example.com/a"}]})
    return {"id": f"c{n}", "messages": messages}


def otel(rng: random.Random, n: int) -> dict:
    trace = f"{n:032x}"
    spans = [{
        "traceId": trace, "spanId": f"{k:016x}", "name": "execute_tool web_search",
        "startTimeUnixNano": str((1672531200 + k) * 10**9), "endTimeUnixNano": str((1672531201 + k) * 10**9),
        "attributes": [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": "web_search"}},
            {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": json.dumps({"query": "cygnus"})}},
            {"key": "gen_ai.tool.call.result", "value": {"stringValue": json.dumps(_results(rng))}},
        ],
    } for k in range(3)]
    return {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans}]}]}


BUILDERS = {"openai-chat": openai_chat, "anthropic": anthropic, "otel": otel}


def write_log(path: Path, fmt: str, n: int, seed: int) -> None:
    rng = random.Random(f"{seed}:{fmt}")
    with open(path, "w", encoding="utf-8") as fh:
        for k in range(n):
            fh.write(json.dumps(BUILDERS[fmt](rng, k)) + "\n")


CORPUS = load_corpus()  # what `anachron import` checks against without --corpus: the bundled one


def end_to_end(fmt: str, path: Path, options: Options, validate, corpus=CORPUS) -> tuple[int, str]:
    """``anachron import``'s loop: each record written, then checked by *validate*; (calls, output)."""
    out = io.StringIO()

    def written():
        for where, record in import_logs(fmt, [str(path)], options):
            out.write(dump_json(record, indent=None))
            yield where, record

    if validate is check_traces:
        calls = sum(n for _, n in check_traces(written(), corpus))
    else:
        calls = sum(len(t.interactions) for t in validate(written(), corpus))
    return calls, out.getvalue()


def best(fns, repeat: int) -> list[float]:
    """The best time of each of *fns*, in rounds that interleave them (a load that drifts hits all)."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for spent, fn in zip(times, fns):
            started = time.perf_counter()
            fn()
            spent.append(time.perf_counter() - started)
    return [min(spent) for spent in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,2500,5000,10000", help="conversations per log, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--end-to-end", action="store_true", help="also time anachron import's write-and-check loop, both ways")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus; best of {args.repeat}")
    e2e = f" {'check s':>8} {'validate s':>10} {'ratio':>6} {'v/c':>5}" if args.end_to_end else ""
    print(f"{'format':<12} {'conversations':>13} {'MiB':>7} {'json.loads s':>12} {'import s':>9} {'ratio':>6} {'us/conv':>8} {'vs smallest':>11}{e2e}")
    options = Options(as_of=dt.date(2023, 1, 1))
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in BUILDERS:
            first = None
            for n in sizes:
                path = Path(tmp, f"{fmt}-{n}.jsonl")
                write_log(path, fmt, n, args.seed)
                text = path.read_text(encoding="utf-8")
                fns = [
                    lambda: [json.loads(line) for line in text.split("\n") if line],
                    lambda: list(import_logs(fmt, [str(path)], options)),
                ]
                if args.end_to_end:
                    checked, validated = end_to_end(fmt, path, options, check_traces), end_to_end(fmt, path, options, iter_traces)
                    if checked != validated:
                        raise SystemExit(f"{fmt} {n}: check_traces and iter_traces disagree")
                    fns += [lambda: end_to_end(fmt, path, options, check_traces), lambda: end_to_end(fmt, path, options, iter_traces)]
                floor, spent, *both = best(fns, args.repeat)
                per = spent / n * 1e6
                first = first or per
                extra = f" {both[0]:>8.3f} {both[1]:>10.3f} {both[0] / floor:>6.2f} {both[1] / both[0]:>5.2f}" if both else ""
                print(f"{fmt:<12} {n:>13,} {len(text) / 2**20:>7.1f} {floor:>12.3f} {spent:>9.3f} {spent / floor:>6.2f} {per:>8.1f} {per / first:>11.2f}{extra}")


if __name__ == "__main__":
    main()
