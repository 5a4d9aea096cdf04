"""Command-line interface: ``anachron`` and ``anachron-compare``.

Each subcommand lives in its own module under ``anachron.cli`` and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a
callable ``(args) -> int``.  Bad input of any kind surfaces as an
:class:`~anachron.core.errors.AnachronError`: exactly one line on stderr,
nothing on stdout, exit status 2.

Ctrl-C is one line, ``anachron: interrupted``, and exit status 130; SIGTERM
unwinds the same way (``finally`` blocks remove what a command staged), one
line ``anachron: terminated`` and exit status 143.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import keyword
import signal
import sys
from typing import Sequence

from anachron.core.errors import AnachronError

__all__ = ["Terminated", "main", "compare_main"]

# Subcommand modules, in the order `anachron --help` lists them.
COMMANDS = (
    "demo",
    "score",
    "import_",
    "compare",
    "freeze",
    "serve",
    "score_events",
    "verify_citations",
    "export",
    "bank",
    "index",
    "report",
    "search",
    "launch",
    "replay",
    "outcomes",
)

# `serve` seals an agent in: it registers only its own parser, so no other
# command's imports (the bank's outcome code among them) load in the serving
# process (anachron.timelock.quarantine, tests/timelock/test_quarantine.py).
SEALED = ("serve",)

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the process is so that ``finally`` blocks run (the default action
    would end it at once, leaving staged files and scratch folders behind)."""


def _terminate(signum, frame) -> None:
    raise Terminated()


@contextlib.contextmanager
def _sigterm_unwinds(active: bool = True):
    """SIGTERM raises :class:`Terminated` while the block runs; the previous handler after it (a
    process calling :func:`main` in-process gets its own back)."""
    previous = None
    if active:
        # Only from the main thread (signal.signal refuses others).
        with contextlib.suppress(ValueError):
            previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout, but a long word (a docs URL) is never broken across lines, and an
    epilog of examples (:func:`anachron.cli.options.examples`) is shown as written: one command a line."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        return textwrap.wrap(" ".join(text.split()), width, break_long_words=False, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        if text.startswith("examples:\n"):  # a command wrapped mid-argument could not be pasted
            return "".join(indent + line + "\n" for line in text.rstrip("\n").split("\n"))

        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_long_words=False, break_on_hyphens=False)


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2, an option is
    spelled in full (``allow_abbrev=False``: ``--mod`` is not ``--mode``), a URL in the
    help stays whole (:class:`HelpFormatter`), positionals may follow options, and a mistyped
    choice names the closest one."""

    commands: tuple[str, ...] = ()  # build_parser's: the commands it registered

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        # A command's positionals may come after its options (`search CORPUS --as-of T QUERY`,
        # `score a.jsonl --format json b.jsonl`): plain argparse matches every positional at the
        # first one and calls the rest unrecognized.  A parser with subcommands (or a REMAINDER)
        # cannot intermix (argparse refuses it); parse_known_intermixed_args calls back here on
        # Python < 3.12, hence the flag.
        if self._intermixing or any(a.nargs in (argparse.PARSER, argparse.REMAINDER) for a in self._actions):
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False

    _intermixing = False

    def _check_value(self, action: argparse.Action, value) -> None:
        # One rule for a mistyped choice, a subcommand as an option's value (`anachron scor`,
        # `--format jsn`): name the closest choice, as the commands' own refusals do (core.errors).
        if action.choices is None or value in action.choices:
            return super()._check_value(action, value)
        from anachron.core.errors import did_you_mean

        hint = did_you_mean(value, action.choices)
        if not hint:
            return super()._check_value(action, value)
        choices = ", ".join(repr(str(choice)) for choice in action.choices)
        raise argparse.ArgumentError(action, f"invalid choice: {value!r}: {hint}choose from {choices}")


def build_parser(commands: Sequence[str] = COMMANDS) -> ArgumentParser:
    from anachron import __version__

    parser = ArgumentParser(
        prog="anachron",
        description="Measure look-ahead leakage in LLM agents.",
    )
    parser.add_argument("--version", action="version", version=f"anachron {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    parser.set_defaults(func=help_of(parser))  # bare `anachron`: the help, not "required: COMMAND"
    for name in commands:
        importlib.import_module(f".{name}", __name__).register(subparsers)
    parser.commands = tuple(subparsers.choices)  # the command names registered
    return parser


def help_of(parser: argparse.ArgumentParser):
    """A command function printing *parser*'s help: what a command without its subcommand runs.

    The help goes to stdout, and the exit status is 2: a missing subcommand
    is a usage error, so a script that forgot it fails (issue 26).
    """

    def show(args: argparse.Namespace) -> int:
        parser.print_help()
        return EXIT_BAD_INPUT

    return show


def _escape_unprintable() -> None:
    # Valid JSON may carry lone surrogates (in a sample id, a query, a citation): print them
    # as \\udXXXX escapes instead of dying with UnicodeEncodeError halfway through a table.
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def run(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> int:
    _escape_unprintable()
    args = parser.parse_args(argv)
    try:
        from anachron.cli.options import refuse_missing_directory, refuse_output_input

        outputs = getattr(args, "output_options", ("out",))
        # one rule for every command's outputs (cli.options): a file's directory exists, a directory output is made
        refuse_missing_directory(args, outputs, getattr(args, "directory_outputs", ()))
        refuse_output_input(args, outputs)
        return int(args.func(args) or 0)
    except AnachronError as exc:
        sys.stdout.flush()
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _stopped(prog: str, exc: KeyboardInterrupt) -> int:
    """The one line and exit status of a command stopped by Ctrl-C or SIGTERM (no traceback)."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    terminated = isinstance(exc, Terminated)
    with contextlib.suppress(Exception):
        print(f"{prog}: {'terminated' if terminated else 'interrupted'}", file=sys.stderr, flush=True)
    return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED


def _module_of(command: str) -> str:
    """The module under ``anachron.cli`` of *command* (``score-events``: ``score_events``; ``import``: ``import_``)."""
    module = command.replace("-", "_")
    return module + "_" if keyword.iskeyword(module) else module


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``anachron`` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    sealed = bool(argv[:1] and argv[0] in SEALED)
    # A run naming its command first registers that command's parser alone: the other commands' modules (and
    # all they import) are not loaded for it (a third of `outcomes`' start-up).  Anything else gets them all.
    module = _module_of(argv[0]) if argv else None
    try:
        # Never in `serve`: a sealed server keeps the default action, so its parent's kill ends it at once.
        with _sigterm_unwinds(not sealed):
            narrow = not sealed and module in COMMANDS
            parser = build_parser(argv[:1] if sealed else (module,) if narrow else COMMANDS)
            if narrow and argv[0] not in parser.commands:  # a module named otherwise than its command (launch: run)
                parser = build_parser(COMMANDS)
            return run(parser, argv)
    except KeyboardInterrupt as exc:
        return _stopped("anachron", exc)


def compare_main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``anachron-compare`` (the same as ``anachron compare``, under its own name)."""
    from anachron import __version__
    from anachron.cli import compare

    try:
        with _sigterm_unwinds():
            parser = ArgumentParser(prog="anachron-compare", description=compare.DESCRIPTION)
            parser.add_argument("--version", action="version", version=f"anachron-compare (anachron {__version__})")
            compare.configure(parser)
            return run(parser, list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt as exc:
        return _stopped("anachron-compare", exc)
