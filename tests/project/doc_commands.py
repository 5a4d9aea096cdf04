"""The shell commands of the docs: every ```sh, ```console and ```bash block of README.md and
docs/*.md, split into the commands a reader would type (slow_readme_blocks.py runs them).

A block whose lines start with a ``$ `` prompt is a console session: only the prompted lines are
commands, the rest is their output. A line ending in ``\\`` goes on on the next line; a whole-line
``#`` comment is prose. A trailing comment is dropped from the command's text (so the text is
the same whether or not the docs explain it) but is harmless to the shell either way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELL_LANGUAGES = ("sh", "console", "bash")
_FENCE = re.compile(r"^```(\w*)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Command:
    path: str   # relative to the repository, e.g. "docs/bank.md"
    line: int   # where the command starts, 1-based
    text: str

    def where(self) -> str:
        return f"{self.path}:{self.line}"


def doc_files(root: Path = ROOT) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def _strip_comment(line: str) -> str:
    """*line* without its trailing ``# ...`` comment; a ``#`` inside quotes or a word stays."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def block_commands(body: str, path: str, first_line: int) -> list[Command]:
    """The commands of one block's *body*, whose first line is *first_line* of *path*."""
    lines = body.split("\n")
    console = any(line.startswith("$ ") for line in lines)
    commands: list[Command] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(lines, start=first_line):
        if pending:
            line = raw.strip()
        elif console:
            if not raw.startswith("$ "):
                continue  # a console session's output
            line = raw[2:].strip()
        else:
            line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1].rstrip())
            continue
        pending.append(_strip_comment(line))
        commands.append(Command(path, start, " ".join(part for part in pending if part)))
        pending = []
    if pending:  # a continuation at the block's end: the command as far as it goes
        commands.append(Command(path, start, " ".join(part for part in pending if part)))
    return commands


def file_commands(path: Path, root: Path = ROOT) -> list[Command]:
    """Every shell command of the markdown file *path*, in order."""
    text = path.read_text(encoding="utf-8")
    name = path.relative_to(root).as_posix()
    commands: list[Command] = []
    for match in _FENCE.finditer(text):
        if match.group(1) in SHELL_LANGUAGES:
            first = text.count("\n", 0, match.start(2)) + 1
            commands.extend(block_commands(match.group(2), name, first))
    return commands
