"""``anachron run HARNESS --as-of T --prompt FILE --out RUNDIR``: a sealed run (anachron.launch; the module is
not named ``run``, which would shadow :func:`anachron.cli.run`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from anachron.core.docs import doc_url
from anachron.cli.options import add_corpus_option, count, examples, iso_date


def register(subparsers: argparse._SubParsersAction) -> None:
    from anachron.launch import NAMES

    parser = subparsers.add_parser(
        "run",
        help="launch a harness sealed by the time lock, preflight it, audit the seal",
        description="Start `anachron serve` (enforced, with its own event log) and a harness whose only tools are the "
        "lock's; refuse the run (exit 2, one line) unless its init shows the lock connected and no built-in web, fetch "
        "or shell tool; stop it at any call outside the lock; write the transcript, the lock's events and run.json "
        "(with the seal audit's verdict) to RUNDIR. `anachron score RUNDIR` scores it. The flags per harness and what "
        f"breaks each seal: {doc_url('run-rules.md')}.",
    )
    parser.add_argument("harness", choices=NAMES, metavar="HARNESS", help=f"one of {', '.join(NAMES)}")
    parser.add_argument("--as-of", required=True, type=iso_date, metavar="DATE", help="the cutoff T of the run")
    add_corpus_option(parser)
    parser.add_argument("--prompt", required=True, metavar="FILE", help="the task (UTF-8, at most 1 MiB), sent to the harness as its prompt")
    parser.add_argument("--out", required=True, metavar="RUNDIR", help="the run directory: new or empty")
    parser.add_argument("--model", metavar="NAME", help="the model (required for responses and chat)")
    parser.add_argument("--budget", type=count, metavar="N", help="the lock's budget of searches and fetches together")
    parser.add_argument("--lock-as-of", type=iso_date, metavar="DATE", help="the lock's cutoff (default: T; never after T)")
    parser.add_argument("-k", type=count, default=5, metavar="K", help="results per search (default: 5)")
    parser.add_argument("--base-url", metavar="URL", help="responses/chat: the OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    parser.add_argument("--max-turns", type=count, default=20, metavar="N", help="responses/chat (and claude-code's --max-turns): model turns (default: 20)")
    parser.add_argument("--executable", metavar="PATH", help="the harness's executable (default: claude, codex or gemini on PATH)")
    parser.add_argument("--sample-id", metavar="ID", help="responses/chat: the transcript's sample id (default: the run directory's name)")
    parser.add_argument("--startup-timeout", type=float, default=30.0, metavar="SECONDS", help="how long the lock may take to start (default: 30)")
    parser.add_argument("--init-timeout", type=float, default=120.0, metavar="SECONDS",
                        help="how long the harness may take to send its init event (default: 120)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="stop the harness after this long (default: none)")
    parser.add_argument("--no-isolation", action="store_true",
                        help="claude-code, codex, gemini-cli: run the harness with this machine's network, not in a "
                             "network namespace of its own (where the platform cannot isolate it; the verdict says so)")
    parser.epilog = examples(
        'python examples/stub_model.py --port 8765 --query "Aster Logistics revenue" --answer "Probability: 0.7" &',
        'echo "Will Aster Logistics beat its full-year guidance?" > prompt.txt',
        'anachron run responses --as-of 2021-06-30 --prompt prompt.txt --out runs/aster --base-url http://127.0.0.1:8765/v1 --model stub',
        'anachron score runs/aster',
    )
    parser.set_defaults(func=run, directory_outputs=("out",))  # a new directory: made with its parents


def run(args: argparse.Namespace) -> int:
    from anachron.launch import RunSpec, launch
    from anachron.launch.runner import Interrupted

    spec = RunSpec(
        harness=args.harness, as_of=args.as_of, prompt=Path(args.prompt), out=Path(args.out), corpus=args.corpus,
        lock_as_of=args.lock_as_of, model=args.model, budget=args.budget, k=args.k, base_url=args.base_url,
        max_turns=args.max_turns, executable=args.executable, startup_timeout=args.startup_timeout, init_timeout=args.init_timeout,
        timeout=args.timeout, sample_id=args.sample_id, no_isolation=args.no_isolation,
    )
    try:
        manifest = launch(spec, warn=lambda line: print(f"warning: {line}", file=sys.stderr))
    except Interrupted as exc:  # SIGTERM or SIGINT: run.json is written; the shell's status for the signal
        print(f"anachron: {exc}", file=sys.stderr)
        return 128 + exc.signum
    seal = manifest.get("seal") or {}
    breaches = len(seal.get("breaches") or [])
    print(f"wrote {args.out}: {args.harness}, seal {seal.get('status')}, {seal.get('calls', 0)} call(s), {breaches} breach(es)")
    if manifest.get("stopped"):
        print(f"note: {manifest['stopped']}", file=sys.stderr)
    return 0
