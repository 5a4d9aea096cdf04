"""The golden outputs of the ``anachron`` command: which invocations, on which inputs, and how
each is run and written down.  Used by tests/data/golden/record.py (which writes them into
tests/data/golden/) and tests/project/slow_golden.py (which writes them into a temporary directory and
compares the two byte for byte).

Everything goes through the CLI as a user runs it: ``python -m anachron ...`` in a subprocess,
with the working directory a fresh temporary directory holding copies of every input, named by
relative paths, so that no absolute path of the machine can reach an output.  Standard library
only, and nothing imported from the ``anachron`` package, so that a re-layout of the package
cannot change how the outputs are produced.

The interpreter runs with ``-S`` (no site-packages): the product is exercised through its
standard-library paths only, and the outputs are the same whether or not the optional extras
(inspect, mcp, postgres) are installed.  That is also why ``anachron export`` is recorded only
as its one-line refusal without the inspect extra: a successful export needs Inspect logs, and
reading them needs ``inspect_ai``.

One invocation NAME gives, under the golden directory:

- ``NAME.txt``: the command line, the exit status, what was written, and stderr (verbatim, last);
- ``NAME.out``: stdout, verbatim (absent when stdout was empty);
- ``NAME.files/PATH``: every file the invocation created or changed in the working directory.

``_inputs/`` holds the generated inputs (tests/golden_inputs.py), so that a change to the
generators shows as a change of an input, not only of the outputs.

Nothing machine-specific had to be normalised: no output carries a timestamp, and the one
version string (``anachron 0.1.0``, in ``--version`` and the HTML report) is the package's own,
which changes only on purpose.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests import golden_inputs

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "data" / "golden"
# Files of the golden directory that are not recorded outputs.
NOT_RECORDED = frozenset({"record.py"})

T = "2023-01-01"  # the cutoff of the importer fixtures (tests/data/importers/README.md)
SCALE_LINES = 40  # the first 40 of the 150 samples of tests/data/scale/traces.jsonl: enough, and small


@dataclass(frozen=True)
class Case:
    name: str  # GROUP/NAME: where its files go under the golden directory
    argv: tuple[str, ...]
    stdout_to: str | None = None  # also save stdout to this file of the working directory (a later input)
    entry: str = "anachron"  # or "anachron-compare" (its console script, pyproject.toml)
    # Written files named but whose bytes are not recorded: a SQLite index, whose bytes depend on
    # the SQLite library and which holds the corpus's absolute path; the cases that score
    # against it record what it does.
    unrecorded: tuple[str, ...] = ()


def _cases() -> list[Case]:
    cases: list[Case] = []

    def add(name: str, *argv: str, stdout_to: str | None = None, entry: str = "anachron", unrecorded: tuple[str, ...] = ()) -> None:
        cases.append(Case(name, argv, stdout_to, entry, unrecorded))

    add("misc/version", "--version")
    # The help of the commands whose help argparse prints alike on Python 3.10 to 3.13 (the
    # top-level help, `serve --help` and `bank build --help` wrap differently on 3.13: left out).
    for command in ("demo", "score", "import", "compare", "freeze", "score-events", "verify-citations", "export",
                    "bank", "bank run", "index", "report"):
        add(f"help/{command.replace(' ', '-')}", *command.split(), "--help")

    # The demo: its stdout and the four files it writes (inputs of the cases below).
    add("demo/default", "demo", "--out", "demo")
    add("demo/k2", "demo", "--out", "demo-k2", "-k", "2")
    add("demo/no-subject-corpus", "demo", "--out", "demo-scale", "--corpus", "fixtures/scale/corpus")

    # score, on the demo's traces: every format, and --out.
    for mode in ("unrestricted", "enforced"):
        add(f"score/demo-{mode}-table", "score", f"demo/{mode}.jsonl")
        add(f"score/demo-{mode}-json", "score", f"demo/{mode}.jsonl", "--format", "json", "--out", f"scores/{mode}.json")
        add(f"score/demo-{mode}-csv", "score", f"demo/{mode}.jsonl", "--format", "csv")
    add("score/demo-unrestricted-jsonl", "score", "demo/unrestricted.jsonl", "--format", "jsonl")

    # score, on the generated hostile set (tests/golden_inputs.py) and the scale fixture
    # (benchmarks/workload.py --hostile, trimmed), with its own corpus and its index.
    for fmt in ("table", "json", "jsonl", "csv"):
        add(f"score/hostile-{fmt}", "score", "gen/hostile.jsonl", "--format", fmt)
    add("score/hostile-csv-jobs2", "score", "gen/hostile.jsonl", "--format", "csv", "--jobs", "2")
    add("score/hostile-sealed-json", "score", "gen/hostile-small.jsonl", "--sealed-tools", "search,fetch", "--format", "json")
    for fmt in ("table", "json", "csv"):
        add(f"score/scale-{fmt}", "score", "fixtures/scale/traces.jsonl", "--corpus", "fixtures/scale/corpus", "--format", fmt)
    add("index/scale", "index", "fixtures/scale/corpus", "--out", "index/scale.db", unrecorded=("index/scale.db",))
    add("score/scale-index-jsonl", "score", "fixtures/scale/traces.jsonl", "--corpus", "index/scale.db", "--format", "jsonl")

    # Bad input: exit 2, one line on stderr, nothing on stdout.
    for name in sorted(golden_inputs.invalid_traces()):
        add(f"invalid/{name}", "score", f"gen/bad/{name}.jsonl")
    add("invalid/unknown-item-jobs2", "score", "gen/bad/unknown-item.jsonl", "--jobs", "2", "--format", "json")
    add("invalid/two-datings-out", "score", "gen/bad/two-datings.jsonl", "--format", "json", "--out", "scores/never.json")
    add("invalid/missing-file", "score", "gen/no-such-file.jsonl")
    add("invalid/score-no-trace", "score")
    add("invalid/as-of-without-from", "score", "demo/unrestricted.jsonl", "--as-of", T)

    # import, and score --from, on the importer fixtures (tests/data/importers).
    logs = {
        "openai-chat": "openai-chat.jsonl", "openai-responses": "openai-responses.json", "anthropic": "anthropic.json",
        "claude-code": "claude-code.jsonl", "otel": "otel.json",
    }
    for fmt, log in logs.items():
        add(f"import/{fmt}", "import", "--from", fmt, f"fixtures/importers/{log}", "--as-of", T, "--out", f"imported/{fmt}.jsonl")
    add("import/claude-code-local", "import", "--from", "claude-code", "fixtures/importers/claude-code-local.jsonl", "--as-of", T,
        "--out", "imported/claude-code-local.jsonl")
    add("import/openai-chat-as-of-map", "import", "--from", "openai-chat", "fixtures/importers/openai-chat.jsonl",
        "--as-of-map", "gen/as-of-map.json", "--sample-id-from", "id", "--out", "imported/openai-chat-by-id.jsonl")
    add("import/mcp-events", "import", "--from", "mcp-events", "gen/events/run.jsonl", "--as-of", "2022-06-01",
        "--out", "imported/mcp-events.jsonl")
    add("score/imported-openai-chat-by-id-json", "score", "imported/openai-chat-by-id.jsonl", "--format", "json")
    add("score/imported-claude-code-local-table", "score", "imported/claude-code-local.jsonl")
    add("score/imported-mcp-events-json", "score", "imported/mcp-events.jsonl", "--format", "json")
    add("invalid/score-two-traces", "score", "imported/anthropic.jsonl", "imported/otel.jsonl")
    add("score/from-openai-chat-table", "score", "--from", "openai-chat", "fixtures/importers/openai-chat.jsonl", "--as-of", T)
    add("score/from-openai-responses-jsonl", "score", "--from", "openai-responses", "fixtures/importers/openai-responses.json",
        "--as-of", T, "--format", "jsonl")
    add("score/from-anthropic-csv", "score", "--from", "anthropic", "fixtures/importers/anthropic.json", "--as-of", T, "--format", "csv")
    add("score/from-otel-json", "score", "--from", "otel", "fixtures/importers/otel.json", "--as-of", T,
        "--sample-id-from", "service.name", "--format", "json")
    add("invalid/from-otel-no-such-attribute", "score", "--from", "otel", "fixtures/importers/otel.json", "--as-of", T,
        "--sample-id-from", "session.id")
    add("score/from-claude-code-sealed-table", "score", "--from", "claude-code", "fixtures/importers/claude-code.jsonl", "--as-of", T,
        "--sealed-tools-from", "fixtures/importers/mcp.json")
    add("score/from-claude-code-sealed-json", "score", "--from", "claude-code", "fixtures/importers/claude-code-sealed.jsonl",
        "--as-of", T, "--sealed-tools-from", "fixtures/importers/mcp.json", "--format", "json")
    add("score/from-claude-code-local-retrieval-tools", "score", "--from", "claude-code", "fixtures/importers/claude-code-local.jsonl",
        "--as-of", T, "--retrieval-tools", "WebSearch,WebFetch", "--sealed-tools", "WebSearch", "--format", "csv")
    add("invalid/from-anthropic-no-as-of", "score", "--from", "anthropic", "fixtures/importers/anthropic.json")
    add("invalid/from-inspect-no-extra", "score", "--from", "inspect", "fixtures/importers/anthropic.json")
    add("invalid/from-openai-chat-map-misses", "score", "--from", "openai-chat", "fixtures/importers/openai-chat.jsonl",
        "--as-of-map", "gen/as-of-map-partial.json", "--sample-id-from", "id")

    # verify-citations, of imported traces and of a served run; score-events.
    for fmt in ("anthropic", "openai-chat", "claude-code"):
        add(f"verify-citations/trace-{fmt}", "verify-citations", "--trace", f"imported/{fmt}.jsonl")
    add("verify-citations/events", "verify-citations", "gen/answer.json", "gen/events/run.jsonl")
    add("verify-citations/events-as-of", "verify-citations", "gen/answer.json", "gen/events/run.jsonl", "--as-of", "2022-06-01")
    add("score-events/table", "score-events", "gen/events/run.jsonl", "--as-of", "2022-06-01")
    add("score-events/json", "score-events", "gen/events/run.jsonl", "--as-of", "2022-06-01", "--format", "json")
    add("score-events/jsonl-sample-id", "score-events", "gen/events/run.jsonl", "--as-of", "2022-12-31", "--sample-id", "my run ✓",
        "--format", "jsonl")
    add("score-events/torn-and-two-logs", "score-events", "gen/events/run.jsonl", "gen/events/torn.jsonl", "--as-of", "2022-06-01",
        "--format", "json", "--out", "scores/events.json")
    add("score/from-mcp-events-csv", "score", "--from", "mcp-events", "gen/events/run.jsonl", "--format", "csv")

    # compare, on the two demo modes (the demo's TCLR files and the score JSON).
    add("compare/demo-table", "compare", "demo/unrestricted.json", "demo/enforced.json")
    add("compare/demo-csv", "compare", "demo/unrestricted.json", "demo/enforced.json", "--format", "csv")
    add("compare/demo-json-bca", "compare", "demo/unrestricted.json", "demo/enforced.json", "--format", "json",
        "--ci-method", "bca", "--confidence", "0.9", "--resamples", "2000", "--seed", "7")
    add("compare/scores-survivorship-table", "compare", "scores/unrestricted.json", "scores/enforced.json",
        "--metric", "survivorship_leaks", "--resamples", "999")
    add("compare/entry-point-csv", "demo/unrestricted.json", "demo/enforced.json", "--format", "csv", entry="anachron-compare")
    add("compare/entry-point-version", "--version", entry="anachron-compare")
    add("invalid/compare-not-scores", "compare", "demo/unrestricted.json", "gen/answer.json")
    add("invalid/compare-resamples", "compare", "demo/unrestricted.json", "demo/enforced.json", "--resamples", "1000000000000")

    # bank: the bundled bank, its manifest, a build, the oracles and a generated responses file.
    add("bank/manifest-bundled", "bank", "manifest")
    add("bank/verify", "bank", "verify", "v0/bank.jsonl", "v0/bank.manifest.json")
    add("bank/verify-mismatch", "bank", "verify", "v0/bank.jsonl", "gen/bank.manifest.tampered.json")
    add("bank/build", "bank", "build", "--out", "built/bank.jsonl")
    add("bank/filings", "bank", "filings", "--out", "built/filings")
    add("bank/run-respect-table", "bank", "run", "--system", "respect")
    add("bank/run-respect-json", "bank", "run", "--system", "respect", "--format", "json", stdout_to="cards/respect.json")
    add("bank/run-ignore-csv", "bank", "run", "--system", "ignore", "--format", "csv")
    add("bank/run-responses-table", "bank", "run", "--system", "gen/responses.jsonl", "--model-cutoffs",
        "v0/model-cutoffs.example.json", "--model", "example-cutoff-2022-09")
    add("bank/run-responses-json", "bank", "run", "--system", "gen/responses.jsonl", "--model-cutoffs",
        "v0/model-cutoffs.example.json", "--model", "example-cutoff-2022-09", "--format", "json", stdout_to="cards/responses.json")
    add("bank/run-responses-csv", "bank", "run", "--system", "gen/responses.jsonl", "--format", "csv")
    add("bank/run-respect-data-path", "bank", "run", "--system", "respect", "--data", "v0/filings")
    add("bank/run-ignore-data-unrestricted-csv", "bank", "run", "--system", "ignore", "--data", "v0/filings",
        "--data-mode", "unrestricted", "--format", "csv")
    add("bank/run-invalid-data-path", "bank", "run", "--system", "respect", "--data", "v0")
    add("invalid/bank-response-number", "bank", "run", "--system", "gen/responses-bad.jsonl")

    # report: one run, two runs compared, a bank card, hostile strings.
    add("report/single-score-json", "report", "scores/unrestricted.json", "--out", "reports/single.html")
    add("report/pair-traces", "report", "demo/unrestricted.jsonl", "demo/enforced.jsonl", "--out", "reports/pair.html",
        "--title", "Demo <pair> & \"quotes\" ✓", "--resamples", "2000", "--seed", "3")
    add("report/bank-card", "report", "cards/responses.json", "--out", "reports/bank.html")
    add("report/hostile", "report", "gen/hostile-small.jsonl", "--out", "reports/hostile.html")
    add("report/scale-index", "report", "fixtures/scale/traces.jsonl", "--corpus", "index/scale.db", "--out", "reports/scale.html",
        "--metric", "result_leaks")

    # export: needs the inspect extra (not on the standard-library path): its refusal.
    add("export/no-inspect-extra", "export", "demo", "--out", "exported.json")

    # freeze: the Routes v2 gate, closed today.
    add("freeze/check-routes-v2", "freeze", "check", "study/research/routes-v2")
    add("freeze/analyze-refused", "freeze", "analyze", "study/research/routes-v2", "gen/outcomes.jsonl")
    return cases


CASES = _cases()


def _entry_point(name: str) -> tuple[str, str]:
    """module, function of console script *name*, as pyproject.toml declares it."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    match = re.search(rf'^{re.escape(name)}\s*=\s*"([\w.]+):(\w+)"\s*$', text, re.M)
    if match is None:
        raise AssertionError(f"pyproject.toml declares no console script {name!r}")
    return match.group(1), match.group(2)


def _command(case: Case) -> list[str]:
    python = [sys.executable, "-S"]  # no site-packages: the standard-library paths only
    if case.entry == "anachron":
        return [*python, "-m", "anachron", *case.argv]
    module, function = _entry_point(case.entry)
    code = f"import sys; sys.argv[0] = {case.entry!r}; from {module} import {function}; sys.exit({function}())"
    return [*python, "-c", code, *case.argv]


def environment(work: Path) -> dict[str, str]:
    """A fixed environment: nothing of the caller's leaks in but PATH."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "PYTHONPATH": str(ROOT),
        "PYTHONHASHSEED": "0",
        "PYTHONUTF8": "1",  # UTF-8 stdout whatever the locale
        "TZ": "UTC",
        "COLUMNS": "80",  # argparse wraps usage errors to the terminal's width
        "HOME": str(work),
        "TMPDIR": str(work.parent / "tmp"),
    }


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("README.md", "__pycache__", "expected"))
    else:
        shutil.copyfile(source, target)


def generated_inputs() -> dict[str, bytes]:
    """Relative path -> bytes of every generated input (recorded under ``_inputs/``)."""
    bank = (ROOT / "corpus" / "v0" / "bank.jsonl").read_text(encoding="utf-8")
    manifest = (ROOT / "corpus" / "v0" / "bank.manifest.json").read_text(encoding="utf-8")
    tampered = re.sub(r'"sha256:([0-9a-f])', lambda m: '"sha256:' + ("0" if m.group(1) != "0" else "1"), manifest, count=1)
    hostile = golden_inputs.hostile_traces()
    files = {
        "gen/hostile.jsonl": hostile,
        "gen/hostile-small.jsonl": "".join(hostile.splitlines(keepends=True)[:24]),
        "gen/events/run.jsonl": golden_inputs.event_log(),
        "gen/events/torn.jsonl": golden_inputs.event_log(torn=True),
        "gen/answer.json": golden_inputs.answer(),
        "gen/responses.jsonl": golden_inputs.bank_responses(bank),
        "gen/bank.manifest.tampered.json": tampered,
        "gen/as-of-map.json": '{"chat-a": "2023-01-01", "chat-b": "2022-06-01"}\n',
        "gen/as-of-map-partial.json": '{"chat-a": "2023-01-01"}\n',
        "gen/outcomes.jsonl": "",
        "gen/responses-bad.jsonl": '{"item_id": "astl-listing_status-2015-06-11", "response": 42}\n',
    }
    out = {path: text.encode("utf-8") for path, text in files.items()}
    out.update({f"gen/bad/{name}.jsonl": data for name, data in golden_inputs.invalid_traces().items()})
    return out


def prepare(work: Path) -> None:
    """Fill the working directory with every input, under relative paths."""
    _copy(ROOT / "tests" / "data" / "importers", work / "fixtures" / "importers")
    _copy(ROOT / "tests" / "data" / "scale" / "corpus", work / "fixtures" / "scale" / "corpus")
    lines = (ROOT / "tests" / "data" / "scale" / "traces.jsonl").read_bytes().splitlines(keepends=True)
    (work / "fixtures" / "scale" / "traces.jsonl").write_bytes(b"".join(lines[:SCALE_LINES]))
    _copy(ROOT / "corpus" / "v0", work / "v0")
    # The Routes v2 study, with every file its contract lists, at the contract's relative paths
    # (its root is two levels above the study directory).
    contract = ROOT / "research" / "routes-v2" / "FREEZE_CONTRACT.json"
    study = work / "study"
    _copy(ROOT / "research" / "routes-v2", study / "research" / "routes-v2")
    for listed in sorted(json.loads(contract.read_text(encoding="utf-8"))["files"]):
        _copy(ROOT / listed, study / listed)
    for path, data in generated_inputs().items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_bytes(data)
    # No command makes the directory an output goes into (docs/formats.md): make those the cases name.
    for case in CASES:
        for option, value in zip(case.argv, case.argv[1:]):
            if option in ("--out", "--events", "--events-dir") and "/" in value.rstrip("/"):
                (work / value.rstrip("/")).parent.mkdir(parents=True, exist_ok=True)


def _snapshot(work: Path) -> dict[str, str]:
    files = {}
    for dirpath, dirnames, filenames in os.walk(work):
        dirnames.sort()
        for filename in filenames:
            path = Path(dirpath) / filename
            files[path.relative_to(work).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


def run_case(case: Case, work: Path, out: Path) -> None:
    before = _snapshot(work)
    done = subprocess.run(_command(case), cwd=work, env=environment(work), stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=300)
    after = _snapshot(work)
    written = sorted(path for path, digest in after.items() if before.get(path) != digest)
    removed = sorted(path for path in before if path not in after)
    base = out / case.name
    base.parent.mkdir(parents=True, exist_ok=True)
    head = [
        f"$ {shlex.join([case.entry, *case.argv])}" + (f" > {case.stdout_to}" if case.stdout_to else ""),
        f"exit status: {done.returncode}",
        f"stdout: {len(done.stdout)} bytes" + (f" ({base.name}.out)" if done.stdout else ""),
        "written: " + (" ".join(written) if written else "nothing"),
    ]
    if case.unrecorded:
        head.append("not recorded (bytes): " + " ".join(case.unrecorded))
    if removed:
        head.append("removed: " + " ".join(removed))
    head.append("stderr:")
    (base.parent / f"{base.name}.txt").write_bytes(("\n".join(head) + "\n").encode("utf-8") + done.stderr)
    if done.stdout:
        (base.parent / f"{base.name}.out").write_bytes(done.stdout)
    for path in written:
        if path in case.unrecorded:
            continue
        target = base.parent / f"{base.name}.files" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(work / path, target)
    if case.stdout_to:
        (work / case.stdout_to).parent.mkdir(parents=True, exist_ok=True)
        (work / case.stdout_to).write_bytes(done.stdout)


def record_all(out: Path) -> Path:
    """Run every case in a fresh working directory; write the outputs into *out*. Returns the
    working directory's path (gone by then), for the check that no output names it."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="anachron-golden-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        (Path(tmp) / "tmp").mkdir()
        prepare(work)
        for path, data in generated_inputs().items():
            target = out / "_inputs" / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        for case in CASES:
            run_case(case, work, out)
        return work


def recorded_files(directory: Path) -> dict[str, Path]:
    """Relative path -> path of every recorded file under *directory*."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for filename in filenames:
            path = Path(dirpath) / filename
            rel = path.relative_to(directory).as_posix()
            if rel not in NOT_RECORDED:
                files[rel] = path
    return files
