"""Every command block of README.md and docs/*.md runs as written from a fresh clone.

Each file's ```sh / ```console / ```bash commands (tests/project/doc_commands.py splits them) run in
order, in a fresh copy of the repository's tracked files, with ``anachron``, ``anachron-compare``,
``inspect`` and ``python`` resolved to this interpreter and the copy, no network (a dead proxy)
and no keys. A command runs unless SKIPPED names it, so a new block is run by default; each one
exits with the status the docs give it (EXIT_STATUS, else 0).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from tests.project.doc_commands import doc_files, file_commands
from tests.support import ROOT, require_extra

# Commands not run, each with why. Keyed by the command's text as doc_commands splits it.
_OLLAMA = "needs a local model server (Ollama, llama.cpp) that this machine does not run"
SKIPPED = {
    "python -m unittest discover -s tests": "the fast suite: whoever runs this test runs it too (and on 2 cores it is most of 120 s)",
    'python -m unittest discover -s tests -p "slow_*.py"': "the slow suite, which holds this test: it would run itself",
    "pip install 'anachron[inspect]'": "needs the network (the package index)",
    "inspect eval anachron/anachron_bank --model openai/gpt-4o-mini": "needs an OpenAI key and the network",
    "inspect eval anachron/anachron          --model ollama/qwen2.5:7b --log-dir logs/unrestricted": _OLLAMA,
    "inspect eval anachron/anachron_enforced --model ollama/qwen2.5:7b --log-dir logs/enforced": _OLLAMA,
    "anachron export logs/unrestricted/*.eval --out unrestricted.json": "reads the log of the Ollama run above, which is skipped",
    "anachron export logs/enforced/*.eval     --out enforced.json": "reads the log of the Ollama run above, which is skipped",
    "anachron-compare unrestricted.json enforced.json": "compares the exports above, which are skipped",
    "inspect eval anachron/anachron --model ollama/qwen2.5:7b": _OLLAMA,
    "OLLAMA_BASE_URL=http://gpu-box:11434/v1 inspect eval anachron/anachron --model ollama/qwen2.5:7b": _OLLAMA,
    "inspect eval anachron/anachron --model llama-cpp-python/local": _OLLAMA,
    "LOCAL_BASE_URL=http://localhost:8080/v1 LOCAL_API_KEY=none inspect eval anachron/anachron "
    "--model openai-api/local/qwen2.5-7b-instruct": _OLLAMA,
    "OPENAI_BASE_URL=http://localhost:8080/v1 OPENAI_API_KEY=none inspect eval anachron/anachron "
    "--model openai/qwen2.5-7b-instruct -M responses_api=false": _OLLAMA,
}
# A status other than 0 that the prose around the command gives it.
EXIT_STATUS: dict[str, int] = {}
# Commands that need an optional extra: run where it is installed (require_extra skips or fails).
EXTRA = {"inspect": ("inspect_ai", "inspect")}
_KEYS = ("KEY", "TOKEN", "SECRET", "PASSWORD")


def fresh_clone(target: Path) -> None:
    """The repository's tracked files, as a clone would have them (this tree's, uncommitted edits too)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, timeout=60)
    if listed.returncode != 0:
        raise unittest.SkipTest("not a git checkout: no clone to make")
    for name in listed.stdout.decode("utf-8").split("\0"):
        source = ROOT / name
        if name and source.is_file():  # a tracked file deleted in the tree is not in a clone of it
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target / name)


def shims(folder: Path) -> None:
    """``anachron`` and friends as this interpreter runs them: the console scripts may be off PATH."""
    python = sys.executable
    for name, module in (("python", None), ("anachron", "anachron"), ("inspect", "inspect_ai")):
        run = f'"{python}"' + (f" -m {module}" if module else "")
        (folder / name).write_text(f'#!/bin/sh\nexec {run} "$@"\n', encoding="utf-8")
    (folder / "anachron-compare").write_text(
        f'#!/bin/sh\nexec "{python}" -c "import sys; from anachron.cli import compare_main; sys.exit(compare_main())" "$@"\n',
        encoding="utf-8")
    for path in folder.iterdir():
        path.chmod(0o755)


def environment(clone: Path, bin_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not any(part in k.upper() for part in _KEYS)}
    dead = "http://127.0.0.1:9"  # nothing listens on the discard port: any request fails at once
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(clone),
               HTTP_PROXY=dead, HTTPS_PROXY=dead, http_proxy=dead, https_proxy=dead, NO_PROXY="", no_proxy="",
               PYTHONDONTWRITEBYTECODE="1")
    return env


class DocBlocksRun(unittest.TestCase):
    def test_every_listed_skip_is_still_a_command_of_the_docs(self):
        commands = {c.text for path in doc_files() for c in file_commands(path)}
        for text in [*SKIPPED, *EXIT_STATUS]:
            with self.subTest(command=text):
                self.assertIn(text, commands, "a stale entry: the docs no longer have this command")

    def test_each_file_runs_as_written(self):
        ran = 0
        for path in doc_files():
            commands = file_commands(path)
            if not commands:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                clone, bin_dir = Path(tmp, "clone"), Path(tmp, "bin")
                clone.mkdir()
                bin_dir.mkdir()
                fresh_clone(clone)
                shims(bin_dir)
                env = environment(clone, bin_dir)
                for command in commands:
                    with self.subTest(where=command.where(), command=command.text):
                        if command.text in SKIPPED:
                            continue
                        program = command.text.split()[0]
                        if program in EXTRA:
                            require_extra(*EXTRA[program])
                        done = subprocess.run(["sh", "-c", command.text], cwd=clone, env=env,
                                              capture_output=True, text=True, timeout=600)
                        ran += 1
                        self.assertEqual(done.returncode, EXIT_STATUS.get(command.text, 0),
                                         f"{command.where()}: {command.text}\n{done.stderr[-2000:]}")
        self.assertGreater(ran, 0)


if __name__ == "__main__":
    unittest.main()
