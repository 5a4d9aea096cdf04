"""``anachron bank``: build, fingerprint, verify and run the question bank.

OUTCOME MATERIAL (reads the bank and the facts): never imported by a
serving path.  Thin over :mod:`anachron.bank`.

Exit statuses: 0 success (a valid run, a matching manifest); 1 ``verify``
found a mismatch; 2 bad input (one line on stderr); 3 an invalid run (a
time-gate check failed; the score card is still printed, and stderr names
the failed checks).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from anachron.core.errors import AnachronError, did_you_mean
from anachron.core.docs import doc_url
from anachron.core.jsonio import dump_json, read_json
from anachron.core.atomic import write_files_atomic
from anachron.bank.run import BANK_COLUMNS
from anachron.cli.options import add_corpus_option, add_format_option, add_out_option, emit_csv, examples, stdout_to

if TYPE_CHECKING:
    from anachron.bank import BankRun, Tally

# The bank (outcome material) is imported inside the run_* functions, so
# building the `anachron` parser does not load it.

EXIT_MISMATCH = 1
EXIT_INVALID_RUN = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "bank",
        help="the leak-resistant question bank: build, filings, manifest, verify, run, crosscheck",
        description=f"The leak-resistant question bank ({doc_url('bank.md')}; rules: {doc_url('run-rules.md')}).",
    )
    actions = parser.add_subparsers(dest="bank_command", metavar="ACTION")
    from anachron.cli import help_of

    parser.epilog = examples(
        'anachron bank run --system respect   # accuracy 108/108, leak rate 0/40',
        'anachron bank verify corpus/v0/bank.jsonl corpus/v0/bank.manifest.json',
    )
    parser.set_defaults(func=help_of(parser))  # bare `anachron bank`: its help

    build = actions.add_parser("build", help="build a bank and its manifest from dated facts",
                               description="Build BANK.jsonl (canonical form) and BANK.manifest.json from a facts file.")
    build.add_argument("--facts", metavar="FILE", help="facts file (default: the bundled corpus/v0/facts.jsonl)")
    add_corpus_option(build, help="corpus (directory, index or postgresql:// URL) for entity names and sources (default: bundled v0)")
    build.add_argument("--out", metavar="BANK.jsonl", required=True, help="where to write the bank; the manifest goes beside it")
    build.epilog = examples(
        'anachron bank build --out bank.jsonl   # from the bundled facts; bank.manifest.json beside it',
    )
    build.set_defaults(func=run_build)

    filings = actions.add_parser("filings", help="write the filings corpus (one dated document per fact) the bank is answered from",
                                 description="Write DIR/items.jsonl: one corpus item per fact, dated on its publication day "
                                 f"({doc_url('bank.md')}).")
    filings.add_argument("--facts", metavar="FILE", help="facts file (default: the bundled corpus/v0/facts.jsonl)")
    add_corpus_option(filings, help="corpus (directory, index or postgresql:// URL) for entity names (default: bundled v0)")
    filings.add_argument("--out", metavar="DIR", required=True, help="the filings corpus directory to write")
    filings.epilog = examples(
        'anachron bank filings --out filings',
    )
    filings.set_defaults(func=run_filings, directory_outputs=("out",))

    show = actions.add_parser("manifest", help="print a bank's manifest (version id and counts)",
                              description="Print the manifest of BANK: its version id (SHA-256 over the canonical serialisation) and counts.")
    show.add_argument("bank", metavar="BANK", nargs="?", help="bank file (default: the bundled v0 bank)")
    show.epilog = examples(
        'anachron bank manifest',
        'anachron bank manifest corpus/v0/bank.jsonl',
    )
    show.set_defaults(func=run_manifest)

    verify = actions.add_parser("verify", help="recompute a bank's version id and compare it with a manifest",
                                description="Exit 0 when MANIFEST matches BANK, 1 on a mismatch, 2 on bad input.")
    verify.add_argument("bank", metavar="BANK")
    verify.add_argument("manifest", metavar="MANIFEST")
    verify.epilog = examples(
        'anachron bank verify corpus/v0/bank.jsonl corpus/v0/bank.manifest.json',
    )
    verify.set_defaults(func=run_verify)

    run = actions.add_parser("run", help="score a system against the bank, with both oracles and the time-gate checks",
                             description="Score a system: 'respect' or 'ignore' (the oracles) or a RESPONSES.jsonl file "
                             "of {\"item_id\", \"response\"} lines. Exit 0 valid run, 2 bad input, 3 invalid run.")
    run.add_argument("--system", required=True, metavar="respect|ignore|RESPONSES.jsonl",
                     help="an oracle name, or a responses file (write ./respect for a file called 'respect')")
    run.add_argument("--bank", metavar="FILE", help="bank file (default: the bundled v0 bank)")
    run.add_argument("--manifest", metavar="FILE", help="manifest (default: beside the bank, X.jsonl -> X.manifest.json)")
    run.add_argument("--model-cutoffs", metavar="FILE", help=f"model cutoff table (JSON or CSV; {doc_url('bank.md')})")
    run.add_argument("--model", metavar="NAME", help="the model under test, a name in --model-cutoffs")
    run.add_argument("--data", metavar="DIR",
                     help="the corpus directory the system's tools served (e.g. corpus/v0/filings): both oracles answer "
                     "as agents through a time lock over it, so checks 2 and 3 test that data path (default: the oracles "
                     "answer from the bank's history, which tests the bank only)")
    run.add_argument("--data-mode", choices=("enforced", "unrestricted"), default="enforced",
                     help="the lock mode the system had over --data (default: enforced); the ignore oracle always runs unrestricted")
    run.add_argument("--judge-model", metavar="MODEL",
                     help="an Inspect model (e.g. openai/gpt-4o-mini) that judges only the responses the rules leave ambiguous; "
                     "needs the inspect extra (default: the rules alone, no key)")
    add_format_option(run, extra=("csv",))
    add_out_option(run)
    run.epilog = examples(
        'anachron bank run --system respect   # accuracy 108/108, leak rate 0/40',
        'anachron bank run --system ignore --format csv --out ignore.csv',
        'anachron bank run --system respect --data corpus/v0/filings   # the oracles through the data path',
    )
    run.set_defaults(func=run_run)

    cross = actions.add_parser(
        "crosscheck", help="find questions whose answer is written in another question (leaks between questions)",
        description="Flag each question whose resolution (answer string, entity or figure) appears in another "
        "question's title, body or options, and print the pairs and a leak-free subset ("
        f"{doc_url('bank.md')}, \"Leaks between questions\").  QUESTIONS: a bank, JSON Lines of "
        "{id, title, body?, options?, resolution, "
        "as_of?, batch?}, or a ForecastBench question set (default: the bundled v0 bank).")
    cross.add_argument("questions", metavar="QUESTIONS.jsonl", nargs="?", help="question set (default: the bundled v0 bank)")
    add_format_option(cross)
    cross.epilog = examples(
        'anachron bank crosscheck',
        'anachron bank crosscheck corpus/v0/bank.jsonl --format json',
    )
    cross.set_defaults(func=run_crosscheck)


def run_crosscheck(args: argparse.Namespace) -> int:
    from anachron.bank import default_bank_path
    from anachron.bank.question_sets import load_questions, render_crosscheck
    from anachron.bank.crosscheck import crosscheck

    questions = load_questions(args.questions if args.questions is not None else default_bank_path())
    result = crosscheck(questions)
    sys.stdout.write(dump_json(result.to_dict()) if args.format == "json" else render_crosscheck(result, len(questions)))
    return 0


def run_build(args: argparse.Namespace) -> int:
    from anachron.bank import build_bank, load_facts, manifest, manifest_path_for
    from anachron.store import load_corpus

    bank = build_bank(load_facts(args.facts), load_corpus(args.corpus))
    out = Path(args.out)
    manifest_path = manifest_path_for(out)
    write_files_atomic({out: bank.canonical, manifest_path: dump_json(manifest(bank))})  # a bank never without its manifest
    counts = manifest(bank)
    print(f"wrote {out} ({counts['items']} items, {counts['embargoed']} embargoed) and {manifest_path}")
    print(f"version {bank.version}")
    return 0


def run_filings(args: argparse.Namespace) -> int:
    from anachron.bank import load_facts
    from anachron.bank.filings import write_filings
    from anachron.store import load_corpus

    if os.path.exists(args.out) and not os.path.isdir(args.out):  # a directory output (docs/formats.md)
        raise AnachronError(f"--out {args.out}: not a directory (bank filings writes DIR/items.jsonl)")
    path = write_filings(load_facts(args.facts), load_corpus(args.corpus), args.out)
    print(f"wrote {path}")
    return 0


def run_manifest(args: argparse.Namespace) -> int:
    from anachron.bank import load_bank, manifest

    sys.stdout.write(dump_json(manifest(load_bank(args.bank))))
    return 0


def run_verify(args: argparse.Namespace) -> int:
    from anachron.bank import load_bank, manifest_differences

    bank = load_bank(args.bank)
    differences = manifest_differences(bank, read_json(args.manifest), args.manifest)
    if differences:
        print(f"MISMATCH {args.bank} against {args.manifest}")
        for line in differences:
            print(f"  {line}")
        return EXIT_MISMATCH
    print(f"OK {bank.version} ({len(bank)} items)")
    return 0


def run_run(args: argparse.Namespace) -> int:
    from anachron.bank import (
        ORACLES,
        default_bank_path,
        load_bank,
        load_model_cutoffs,
        load_responses,
        manifest_path_for,
        manifest_version,
        oracle_responses,
        run_bank,
    )

    if (args.model is None) != (args.model_cutoffs is None):
        raise AnachronError("--model and --model-cutoffs go together")
    bank_path = Path(args.bank) if args.bank else default_bank_path()
    manifest_path = Path(args.manifest) if args.manifest else manifest_path_for(bank_path)
    bank = load_bank(bank_path)
    version = manifest_version(read_json(manifest_path), str(manifest_path))
    model = None
    if args.model is not None:
        table = load_model_cutoffs(args.model_cutoffs)
        if args.model not in table:
            hint = did_you_mean(args.model, sorted(table)).rstrip()
            raise AnachronError(f"{args.model_cutoffs}: no model named '{args.model}'" + (f"; {hint}" if hint else ""))
        model = table[args.model]
    if args.system in ORACLES:
        responses, system = oracle_responses(bank, args.system), args.system
    else:
        if not os.path.exists(args.system) and did_you_mean(args.system, ORACLES):
            # A mistyped oracle name would read as a missing responses file: say which names there are.
            raise AnachronError(
                f"--system {args.system}: no such file, and not an oracle: {did_you_mean(args.system, ORACLES)}"
                f"the oracles are {' and '.join(ORACLES)}; a responses file is a path (RESPONSES.jsonl)"
            )
        responses, system = load_responses(args.system, bank), args.system
    second = None
    if args.judge_model is not None:
        from anachron.bank.model_judge import model_judge

        second = model_judge(args.judge_model)
    oracles = source = None
    if args.data is not None:
        from anachron.bank.oracle_agents import data_path_oracles, timelock_factory
        from anachron.timelock import CorpusBackend, load_served_corpus

        backend = CorpusBackend(load_served_corpus(args.data))
        oracles = data_path_oracles(bank, timelock_factory(backend, mode=args.data_mode))
        source = f"data path: time lock ({args.data_mode}) over {args.data}"
    result = run_bank(bank, responses, manifest_version=version, system=system, model=model, second_judge=second,
                      oracles=oracles, oracle_source=source)
    with stdout_to(args.out):  # an invalid run's card is written too: exit 3 says it is not citable
        if args.format == "csv":
            emit_csv(result.to_records(), BANK_COLUMNS)
        else:
            sys.stdout.write(dump_json(result.to_dict()) if args.format == "json" else render_table(result))
    if not result.valid:
        sys.stdout.flush()
        failed = ", ".join(f"{c.name} (value {c.value}, threshold {c.threshold})" for c in result.checks if not c.passed)
        print(f"anachron: invalid run, not citable: failed check(s): {failed}", file=sys.stderr)
        return EXIT_INVALID_RUN
    return 0


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _rates(tally: Tally) -> tuple[str, str]:
    """Accuracy and leak-rate cells; with undecided embargoed responses the leak rate is its bounds.

    ``0-40/40 (40 undecided) 0.0%-100.0% [0.0%, 100.0%]``: lower = leaked / embargoed, upper =
    (leaked + undecided) / embargoed, the interval from the lower limit of the one to the upper of the other.
    """
    accuracy = f"{tally.correct}/{tally.answerable} {_percent(tally.accuracy)}"
    if tally.ambiguous_embargoed:
        low, high = tally.leak_rate_bounds  # type: ignore[misc]
        ci = tally.leak_rate_bounds_ci
        interval = f" [{_percent(ci[0])}, {_percent(ci[1])}]" if ci else ""
        upper = tally.leaked + tally.ambiguous_embargoed
        return accuracy, (f"{tally.leaked}-{upper}/{tally.embargoed} ({tally.ambiguous_embargoed} undecided) "
                          f"{_percent(low)}-{_percent(high)}{interval}")
    ci = tally.leak_rate_ci
    interval = f" [{_percent(ci[0])}, {_percent(ci[1])}]" if ci else ""
    return accuracy, f"{tally.leaked}/{tally.embargoed} {_percent(tally.leak_rate)}{interval}"


def render_table(result: BankRun) -> str:
    """The human-readable score card."""
    t = result.tally
    columns = [_rates(x) for x in (t, result.respect, result.ignore)]
    widths = [max(30, len(c[0]) + 2, len(c[1]) + 2) for c in columns]
    lines = [
        f"Anachron question bank: system {result.system}",
        f"bank {result.bank_version}: {t.items} items, {t.answerable} answerable, {t.embargoed} embargoed",
        "",
        f"{'':<22}" + "".join(f"{name:<{w}}" for name, w in zip(("system", "oracle respect", "oracle ignore"), widths)).rstrip(),
    ]
    lines.append(f"{'accuracy':<22}" + "".join(f"{c[0]:<{w}}" for c, w in zip(columns, widths)).rstrip())
    lines.append(f"{'leak rate (95% CI)':<22}" + "".join(f"{c[1]:<{w}}" for c, w in zip(columns, widths)).rstrip())
    tallies = (t, result.respect, result.ignore)
    lines.append(f"{'leaked answerable':<22}" + "".join(f"{x.leaked_answerable:<{w}}" for x, w in zip(tallies, widths)).rstrip())
    lines.append(f"{'refused':<22}" + "".join(f"{x.refused:<{w}}" for x, w in zip(tallies, widths)).rstrip())
    lines.append(f"{'ambiguous (embargoed)':<22}" + "".join(f"{f'{x.ambiguous} ({x.ambiguous_embargoed})':<{w}}" for x, w in zip(tallies, widths)).rstrip())
    lines.append(f"hindsight accuracy    {result.hindsight_correct}/{result.hindsight_items} "
                 f"{_percent(result.to_dict()['hindsight_accuracy'])} (scored against today's values: not a leak-aware score)")
    scope = "" if result.data_path_tested else ": these checks test the bank, not the system's data path"
    lines += ["", f"Time-gate checks (oracles answered from: {result.oracle_source}{scope})"]
    for check in result.checks:
        lines.append(f"  {'PASS' if check.passed else 'FAIL'} {check.name:<16} value {_show(check.value)}; "
                     f"threshold {_show(check.threshold)} ({check.rule})")
    lines.append(result.validity)
    if result.oracle_failures:
        lines += ["", f"Oracle responses off their expected judgement ({len(result.oracle_failures)})"]
        lines += [f"  {f['oracle']:<8} {f['item_id']}  as_of {f['as_of']}  response {_show(f['response'])}: "
                  f"{f['judgement']}, expected {f['expected']}" for f in result.oracle_failures[:20]]
        if len(result.oracle_failures) > 20:
            lines.append(f"  ... {len(result.oracle_failures) - 20} more in --format json")
    if result.judge_model is not None:
        card = result.to_dict()["judge"]
        lines += ["", f"Judge model {card['model']}: decided {card['decided_by_model']} of the responses the rules left ambiguous; "
                  f"{card['still_ambiguous']} still ambiguous"]
    overlap = result.overlap()
    if overlap is not None and result.model is not None:
        m = result.model
        lines += ["", f"Model {m.name}: training cutoff {m.training_cutoff}, released {m.release_date}"]
        for by, split in (("as_of", overlap), ("answer first public", result.overlap("answer_public") or {})):
            lines.append(f"  split by {by} {'<' if by == 'as_of' else '<='} cutoff:")
            for name, tally in split.items():
                accuracy, leak = _rates(tally)
                label = "overlapping" if name == "overlapping" else "non-overlapping"
                lines.append(f"    {label:<28} {tally.items:>4} items  accuracy {accuracy}  leak rate {leak}")
        badges = result.to_dict()["badges"]
        lines.append("  badges: " + ", ".join(f"{name} {count}" for name, count in badges.items()))
    for judgement in ("leaked", "ambiguous", "incorrect"):
        flagged = [r for r in result.records if r.judgement == judgement]
        if flagged:
            lines += ["", f"{judgement.capitalize()} items ({len(flagged)})"]
            lines += [f"  {r.item.id}  as_of {r.item.as_of}  response {_show(r.response)}" + (f": {r.reason}" if r.reason else "")
                      for r in flagged]
    return "\n".join(lines) + "\n"


def _show(value) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_show(v)}" for k, v in value.items())
    if isinstance(value, str):
        return value if value.strip() == value and value else repr(value)
    return "n/a" if value is None else str(value)
