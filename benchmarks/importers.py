"""Importers: time in the size of the log, against json.loads of the same log.

    python benchmarks/importers.py                         # 1,000 to 10,000 conversations, best of 3
    python benchmarks/importers.py --sizes 500,1000 --repeat 1   # a quick run
    python benchmarks/importers.py --formats otel-sessions,claude-code --sizes 10000 --repeat 5 --memory

For each format read line by line (``openai-chat``, ``anthropic``, ``otel``:
JSON Lines, one conversation or trace per line) a seeded synthetic log of N
conversations is written, each with 3 tool calls whose results are 5 search
results shaped as Tavily returns them (url, title, a 40-word content,
published_date) and a final answer citing two URLs.  Two more repeat the
bundled logs (issue 37's workload): ``otel-sessions``, tests/data/importers/otel.json
(three instrumentations' spans, two traces) on N lines, each with its own
trace ids; ``claude-code``, tests/data/importers/claude-code.jsonl as N
session files of a directory, each with its own ``sessionId``, read together.
Timed in CPU time (this process's: steadier on a shared machine), best of
``--repeat`` rounds that interleave the timings (a load that drifts hits all),
every round printed:

- ``json.loads``: parse every line of the log, one at a time, keeping none
  (the floor: reading it);
- ``import``: every record of ``import_logs(...)``, kept none, as ``anachron
  import`` writes each before it reads the next;
- with ``--end-to-end``, what ``anachron import`` does with them: each
  record written as a JSON line (to an in-memory buffer here) and checked as
  a trace, ``check`` with :func:`anachron.core.trace.check_traces` (what the
  command runs: the dating of a singly seen item skipped) and ``validate``
  with :func:`~anachron.core.trace.iter_traces` (a full validation, what
  ``import`` ran before issue 22); the two must give the same output.
- with ``--memory`` (Linux), the peak resident memory (``VmHWM``) of a process
  that only reads the log (the floor's) and of one that only imports it.

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
import re
import random
import subprocess
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
DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "importers"
READERS = {"otel-sessions": "otel"}  # a format of its own here, the importer it times
FORMATS = (*BUILDERS, "otel-sessions", "claude-code")


def otel_sessions(path: Path, n: int) -> None:
    """tests/data/importers/otel.json on *n* lines, each line's traces under ids of their own."""
    text = json.dumps(json.loads((DATA / "otel.json").read_text(encoding="utf-8")), separators=(",", ":"))
    traces = sorted(set(re.findall(r'"traceId":"([0-9a-f]+)"', text)))
    with open(path, "w", encoding="utf-8") as fh:
        for k in range(n):
            line = text
            for j, trace in enumerate(traces):
                line = line.replace(trace, f"{k:024x}{j:08x}")
            fh.write(line + "\n")


def claude_code_sessions(folder: Path, n: int) -> None:
    """tests/data/importers/claude-code.jsonl as *n* session files, each under a sessionId of its own."""
    text = (DATA / "claude-code.jsonl").read_text(encoding="utf-8")
    session = json.loads(text.split("\n")[1])["sessionId"]
    folder.mkdir()
    for k in range(n):
        (folder / f"session-{k:06d}.jsonl").write_text(text.replace(session, f"{session[:-12]}{k:012d}"), encoding="utf-8")


def write_log(path: Path, fmt: str, n: int, seed: int) -> None:
    if fmt == "otel-sessions":
        return otel_sessions(path, n)
    if fmt == "claude-code":
        return claude_code_sessions(path, n)
    rng = random.Random(f"{seed}:{fmt}")
    with open(path, "w", encoding="utf-8") as fh:
        for k in range(n):
            fh.write(json.dumps(BUILDERS[fmt](rng, k)) + "\n")


def log_files(path: Path) -> list[Path]:
    return sorted(path.glob("*.jsonl")) if path.is_dir() else [path]


def floor(path: Path) -> None:
    """json.loads of every line of the log, one at a time: reading it, and nothing more."""
    for file in log_files(path):
        with open(file, encoding="utf-8") as fh:
            for line in fh.read().split("\n"):
                if line:
                    json.loads(line)


def import_all(fmt: str, path: Path, options: Options) -> None:
    for _ in import_logs(READERS.get(fmt, fmt), [str(path)], options):
        pass


def peak_memory(fmt: str, path: Path, what: str) -> int:
    """The peak resident memory (MiB) of a fresh process that only reads the log (*what* ``floor``) or only imports it."""
    root = str(Path(__file__).resolve().parent.parent)
    if what == "floor":
        work = (f"import pathlib\np = pathlib.Path({str(path)!r})\n"
                "for name in (sorted(p.glob('*.jsonl')) if p.is_dir() else [p]):\n"
                "    for line in open(name, encoding='utf-8').read().split('\\n'):\n"
                "        if line: json.loads(line)\n")
    else:
        work = (f"sys.path.insert(0, {root!r})\nfrom anachron.importers import Options, import_logs\n"
                f"for _ in import_logs({READERS.get(fmt, fmt)!r}, [{str(path)!r}], Options(as_of=datetime.date(2023, 1, 1))): pass\n")
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent through fork and exec.
    code = ("import datetime, json, sys\n" + work
            + "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[-1]) // 1024


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


def best(fns, repeat: int, label: str) -> list[float]:
    """The best CPU time of each of *fns*, in rounds that interleave them (a load that drifts hits all); every round printed."""
    times = [[] for _ in fns]
    for round_ in range(repeat):
        for spent, fn in zip(times, fns):
            started = time.process_time()
            fn()
            spent.append(time.process_time() - started)
        print(f"  {label} round {round_ + 1}: " + " ".join(f"{spent[-1]:.3f}" for spent in times) + f" (ratio {times[1][-1] / times[0][-1]:.2f})",
              file=sys.stderr, flush=True)
    return [min(spent) for spent in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--sizes", default="1000,2500,5000,10000", help="conversations per log, comma-separated")
    parser.add_argument("--formats", default=",".join(FORMATS), help=f"comma-separated, of {', '.join(FORMATS)}")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--end-to-end", action="store_true", help="also time anachron import's write-and-check loop, both ways")
    parser.add_argument("--memory", action="store_true", help="also the peak memory of reading and of importing, each in a process of its own")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    formats = args.formats.split(",")
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown:
        parser.error(f"unknown format(s) {', '.join(unknown)}: choose from {', '.join(FORMATS)}")
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus; CPU time, best of {args.repeat} (rounds on stderr)")
    e2e = f" {'check s':>8} {'validate s':>10} {'ratio':>6} {'v/c':>5}" if args.end_to_end else ""
    memory = f" {'floor MiB':>9} {'import MiB':>10}" if args.memory else ""
    print(f"{'format':<13} {'conversations':>13} {'MiB':>7} {'json.loads s':>12} {'import s':>9} {'ratio':>6} {'us/conv':>8} {'vs smallest':>11}{e2e}{memory}")
    options = Options(as_of=dt.date(2023, 1, 1))
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in formats:
            first = None
            for n in sizes:
                path = Path(tmp, f"{fmt}-{n}.jsonl" if fmt != "claude-code" else f"{fmt}-{n}")
                write_log(path, fmt, n, args.seed)
                size = sum(file.stat().st_size for file in log_files(path))
                fns = [lambda: floor(path), lambda: import_all(fmt, path, options)]
                if args.end_to_end:
                    reader = READERS.get(fmt, fmt)
                    checked, validated = end_to_end(reader, path, options, check_traces), end_to_end(reader, path, options, iter_traces)
                    if checked != validated:
                        raise SystemExit(f"{fmt} {n}: check_traces and iter_traces disagree")
                    fns += [lambda: end_to_end(reader, path, options, check_traces), lambda: end_to_end(reader, path, options, iter_traces)]
                low, spent, *both = best(fns, args.repeat, f"{fmt} {n:,}")
                per = spent / n * 1e6
                first = first or per
                extra = f" {both[0]:>8.3f} {both[1]:>10.3f} {both[0] / low:>6.2f} {both[1] / both[0]:>5.2f}" if both else ""
                if args.memory:
                    extra += f" {peak_memory(fmt, path, 'floor'):>9} {peak_memory(fmt, path, 'import'):>10}"
                print(f"{fmt:<13} {n:>13,} {size / 2**20:>7.1f} {low:>12.3f} {spent:>9.3f} {spent / low:>6.2f} {per:>8.1f} {per / first:>11.2f}{extra}", flush=True)


if __name__ == "__main__":
    main()
