"""``anachron score TRACE.jsonl``: score a trace file with the core, one trace at a time.

``anachron score RUNDIR`` reads a run directory of ``anachron run`` as the
logs, format, cutoff and seal declaration its ``run.json`` names
(:func:`run_inputs`): it stands for ``--from FORMAT TRANSCRIPT --as-of T
--sealed-tools-from mcp.json --sealed-tools NAMES --lock-events
lock-events.jsonl``, and ``--corpus`` for the corpus the lock served unless
another is given.  An option the run names (``--from``, ``--as-of``,
``--as-of-map``, ``--as-of-field``, or any seal option) is refused beside it
rather than mixed with it; a refused run is an error (even with a
transcript: a run stopped by the guard or a later check proves no seal).
The run's proof is checked first: the lock's log against the digest chain
``run.json`` pins, the transcript and configuration against their SHA-256,
and the verdict the files give now against the one ``run.json`` recorded.
Any difference breaches the seal of every sample, with a ``#0 seal: ...``
evidence line naming it (:func:`anachron.importers.run_dir.proof_differences`).
The model gateway's log is checked the same way against the digest chain
``run.json``'s ``gateway`` pins (:func:`anachron.importers.run_dir.model_log_differences`).

- :func:`register`: the command's options;
- :func:`run_inputs`: the options a lone run directory stands for;
- :func:`run`: score.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from anachron.core.docs import doc_url

from anachron.store import load_corpus
from anachron.core.errors import AnachronError
from anachron.cli.log_options import add_log_options, add_seal_options, sealed_tools, trace_records
from anachron.cli.options import (
    add_corpus_option, add_format_option, add_jobs_option, add_out_option, add_quiet_option, examples, frozen_heap, progress, write_scores,
)
from anachron.importers.run_dir import is_run_dir, model_log_differences, proof_differences, read_run

# The options a run directory names itself: (dest, flag).
_GIVEN = (("log_format", "--from"), ("as_of", "--as-of"), ("as_of_map", "--as-of-map"), ("as_of_field", "--as-of-field"),
          ("sealed_tools", "--sealed-tools"), ("sealed_tools_from", "--sealed-tools-from"),
          ("lock_events", "--lock-events"), ("isolated_shell", "--isolated-shell"))


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score a trace file (JSON Lines) for look-ahead leakage",
        description="Score a trace file: per-sample TCLR, survivorship, restatement and query-intent leaks, "
        "blocked attempts and failed calls.  Traces are read, scored and written one at a time.",
    )
    parser.add_argument(
        "logs", nargs="+", metavar="TRACE.jsonl",
        help=f"one JSON object per sample run ({doc_url('formats.md')}); with --from FORMAT, the log(s) to import; "
        "or a run directory of `anachron run`",
    )
    add_log_options(parser, required=False)
    add_seal_options(parser)
    add_corpus_option(parser)
    add_format_option(parser, extra=("jsonl", "csv"))
    add_out_option(parser)
    add_jobs_option(parser)
    add_quiet_option(parser)
    parser.epilog = examples(
        'anachron score anachron-demo/unrestricted.jsonl            # after `anachron demo`',
        'anachron score anachron-demo/enforced.jsonl --format csv --out enforced.csv',
        'anachron score --from claude-code tests/data/importers/claude-code.jsonl --as-of 2023-01-01 --sealed-tools-from tests/data/importers/mcp.json',
    )
    parser.set_defaults(func=run)


def run_inputs(args: argparse.Namespace) -> argparse.Namespace:
    """*args* with a lone run directory among ``logs`` replaced by what its ``run.json`` names (in place)."""
    logs = getattr(args, "logs", None)
    if not logs or not any(is_run_dir(log) for log in logs):
        return args
    if len(logs) != 1:
        raise AnachronError("a run directory is scored alone: give one RUNDIR")
    rundir = Path(logs[0])
    given = [flag for dest, flag in _GIVEN if getattr(args, dest, None) is not None]
    if given:
        raise AnachronError(f"{rundir}: a run directory names its own {', '.join(given)}: give them for logs, not for a run")
    record = read_run(rundir)
    if record.refused is not None or not record.transcript:
        # A refused run proves nothing sealed, whatever its transcript's calls pair with: never scored as a run
        # (its transcript, when kept, is for the record: `--from FORMAT` reads it as any log).
        kept = f"; its transcript is {rundir / record.transcript}" if record.transcript else ""
        raise AnachronError(f"{rundir}: the run was refused ({record.refused}): not scored as a run{kept}")
    args.as_of = record.as_of
    if getattr(args, "corpus", None) is None:
        args.corpus = record.corpus_spec  # the corpus the lock served
    args.logs = [str(rundir / record.transcript)]
    args.log_format = record.transcript_format
    args.sealed_tools_from = str(rundir / record.mcp_config)
    args.sealed_tools = ",".join(record.sealed_tools) if record.sealed_tools else None
    # None: a configuration only (unverified at best)
    args.lock_events = [str(rundir / record.lock_events)] if record.lock_events else None
    # The lock's log, transcript, configuration and model gateway's log against what run.json pins, and the
    # verdict the files give now: a difference breaches every sample.
    args.seal_tampered = _tampered(record)
    args.local_tools = record.local_tools  # the harness's own tools, let through by the gateway
    if record.isolation is not None:  # the launcher ran the harness in a network namespace: its shells had no network
        from anachron.core.seal import SHELL_TOOLS

        args.isolated_shell = ",".join(SHELL_TOOLS)
    return args


def _tampered(record) -> list[str]:
    """How the run directory differs from what its ``run.json`` pins (the lock's log, the transcript,
    the configuration, the model gateway's log), and whether the files give the verdict it recorded:
    the lines that breach the seal (none: the proof stands)."""
    from anachron.launch.runner import audit_run

    lines = proof_differences(record) + model_log_differences(record)
    now = audit_run(record.rundir, record.as_of, record.corpus_spec, record.sealed_tools, record.transcript,
                    record.transcript_format, record.isolation is not None, record.local_tools)["status"]
    if now != record.seal_status:
        lines.append(f"the files give the seal {now!r}; run.json recorded {record.seal_status!r}")
    return lines


def run(args: argparse.Namespace) -> int:
    run_inputs(args)  # a run directory (`anachron run --out RUNDIR`) names its transcript, format, T and seal
    corpus = load_corpus(args.corpus)
    sealed = sealed_tools(args)
    records = trace_records(args, corpus)  # checks the options; reads nothing yet
    with frozen_heap():
        if args.jobs > 1:
            if args.log_format is not None:
                raise AnachronError("--jobs shards a trace file: with --from FORMAT, score with --jobs 1")
            from anachron.output.jobs import score_file_parallel

            score_file_parallel(args.logs[0], corpus, args.format, args.out, jobs=args.jobs, sealed_tools=sealed, source=args.corpus)
        else:
            # Written to a staged output: bad input found halfway leaves stdout (or --out) untouched.
            with progress(args, "samples") as shown:
                write_scores(shown.iterate(records), corpus, args.format, args.out, sealed_tools=sealed)
    return 0
