"""Outcome quarantine: while an agent is sealed in, ground truth is out of the server's reach.

Three checks, against what anachron.timelock.quarantine declares (OUTCOME_PACKAGES,
OUTCOME_FILES, SERVED_FILES):

1. the import graph of the serving path (the lock, the MCP server, the Inspect tools,
   `anachron serve`) reaches no module under an outcome package (static: every import
   statement, at any depth, of every anachron module reached, judged by package prefix);
2. a real `anachron serve` process, audited while it serves, loads no outcome module
   and opens no outcome file; of the corpus directory it opens only the served files;
3. no prompt and no tool result contains a target: the answers of embargoed bank
   items when corpus/v0/bank.jsonl exists, and in any case every item published
   after a sample's as-of about that sample's subject (the v0 facts).
"""

import ast
import json
import re
import sys
import tempfile
import unittest
from pathlib import Path

from anachron.core import default_corpus_dir, load_corpus_dir
from anachron.store import SearchEngine

from tests.mcp_support import TIMEOUT, read_log, stdio_client
from tests.support import ROOT, require_extra

CORPUS = default_corpus_dir()

def setUpModule():
    require_extra("mcp", "mcp")


def run_async(fn):
    import anyio

    return anyio.run(fn)


def outcome_module(name):
    from anachron.timelock.quarantine import is_outcome_module

    return is_outcome_module(name)


# The serving path: everything a sealed-in agent's tools run.
SERVING = ("anachron.timelock", "anachron.mcp", "anachron.mcp._server", "anachron.cli.serve", "anachron.inspect.tools")


# ---------------------------------------------------------------------------
# 1. The static import graph


def module_file(name):
    base = ROOT.joinpath(*name.split("."))
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    return None


def imported_names(name):
    """Modules named by any import in *name*'s source, at any depth (function bodies included)."""
    path = module_file(name)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)  # `from pkg import submodule`
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.add(node.args[0].value)
    return found


def reachable(*roots):
    """Every anachron module whose code can run once *roots* are imported and used."""
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen or module_file(name) is None:
            continue
        seen.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]  # importing a.b.c runs a and a.b
        todo += [n for n in imported_names(name) if n.split(".")[0] == "anachron"]
    return seen


class ImportGraphTest(unittest.TestCase):
    def test_the_walk_sees_nested_imports(self):
        # Non-vacuity: `serve` imports the adapter and the lock inside its run(); the walk must see them.
        graph = reachable("anachron.cli.serve")
        self.assertIn("anachron.mcp", graph)
        self.assertIn("anachron.timelock.lock", graph)
        self.assertIn("anachron.store.memory", graph)
        # ...and the bank command's lazy imports, so a path to the bank would be seen.
        self.assertTrue(any(m.startswith("anachron.bank.") for m in reachable("anachron.cli.bank")))

    def test_the_serving_path_reaches_no_outcome_module(self):
        graph = reachable(*SERVING)
        self.assertEqual(sorted(m for m in graph if outcome_module(m)), [])

    def test_every_outcome_package_exists_and_the_prefix_rule_holds(self):
        from anachron.timelock.quarantine import OUTCOME_PACKAGES

        for package in OUTCOME_PACKAGES:
            with self.subTest(package=package):
                self.assertIsNotNone(module_file(package), f"{package} names no module")
                self.assertTrue(outcome_module(package) and outcome_module(package + ".anything"))
        self.assertFalse(outcome_module("anachron.banking"))  # a prefix is a package, not a string start
        self.assertFalse(outcome_module("anachron.timelock"))

    def test_the_lock_imports_without_any_extra(self):
        import subprocess

        code = ("import sys; sys.modules['mcp'] = None; sys.modules['inspect_ai'] = None\n"
                "import anachron.timelock\n"
                "print(sorted(m for m, v in sys.modules.items() if v is not None and m.split('.')[0] in ('mcp', 'inspect_ai', 'anyio')))")
        run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
        self.assertEqual((run.returncode, run.stdout.strip()), (0, "[]"), run.stderr)


# ---------------------------------------------------------------------------
# 2. A real serving process, audited

AUDITED = """
import json, os, sys
opened = []
def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        opened.append(os.path.realpath(os.fsdecode(args[0])))
sys.addaudithook(hook)
from anachron.cli import main
try:
    status = main(sys.argv[1:])
finally:
    report = os.environ["ANACHRON_AUDIT_REPORT"]
    with open(report, "w", encoding="utf-8") as fh:
        json.dump({"opened": opened, "modules": sorted(sys.modules)}, fh)
sys.exit(status)
"""


class ServingProcessTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls._tmp.name)
        report = tmp / "audit.json"
        corpus = load_corpus_dir()
        # Queries that would surface the outcomes if anything leaked: every sample's subject and prompt.
        queries = [s.extra["subject"] for s in corpus.samples.values()] + [s.input for s in corpus.samples.values()]
        command = [sys.executable, "-c", AUDITED, "serve", "--as-of", "2022-06-01", "--events", str(tmp / "e.jsonl")]

        async def session():
            env = {"ANACHRON_AUDIT_REPORT": str(report)}
            async with stdio_client([], errlog=tmp / "stderr.txt", command=command, env=env) as client:
                cls.capabilities = client.server_capabilities
                results = [await client.call_tool("search", {"query": q}) for q in queries]
                results.append(await client.call_tool("fetch", {"id_or_url": "fin-005"}))
                return results

        cls.results = run_async(session)
        cls.audit = json.loads(report.read_text(encoding="utf-8")) if report.exists() else None
        cls.log = read_log(tmp / "e.jsonl")

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_the_audit_ran_and_saw_the_served_files(self):
        self.assertIsNotNone(self.audit, "the audited server did not exit cleanly")
        self.assertIn(str((CORPUS / "items.jsonl").resolve()), self.audit["opened"])
        self.assertTrue(any(r["returned"] for r in self.log[1:]))

    def test_no_outcome_module_is_loaded(self):
        self.assertEqual([m for m in self.audit["modules"] if outcome_module(m)], [])

    def test_no_outcome_file_is_opened_and_only_served_files_of_the_corpus(self):
        from anachron.timelock import OUTCOME_FILES, SERVED_FILES

        opened = [Path(p) for p in self.audit["opened"]]
        self.assertEqual([str(p) for p in opened if p.name in OUTCOME_FILES], [])
        corpus = CORPUS.resolve()
        in_corpus = {p.name for p in opened if corpus in p.parents}
        self.assertLessEqual(in_corpus, set(SERVED_FILES))

    def test_the_server_offers_no_prompts_or_resources(self):
        self.assertIsNone(self.capabilities.prompts)
        self.assertIsNone(self.capabilities.resources)
        self.assertIsNotNone(self.capabilities.tools)


# ---------------------------------------------------------------------------
# 3. Targets in prompts and tool results


def later_items(corpus, day, *, query=None, entity=None):
    """(id, title, text) of the items published after *day* about a subject (by search) or an entity."""
    if query is not None:
        hits = SearchEngine(corpus).search(query, as_of=day, mode="unrestricted", k=len(corpus.items))
    else:
        hits = [i for i in corpus.items.values() if entity in i.entities]
    return [(i.id, i.title, i.text) for i in hits if i.publish_date > day]


def target_cases(corpus):
    """(as_of, prompt, later items, later values) per v0 sample and per bank question.

    The v0 facts: what was published about a sample's subject after its as-of.
    The bank (when corpus/v0/bank.jsonl exists): the items naming the question's
    instrument published after its as-of, and every value of the asked field
    published after it (for an embargoed question, the answer it must not get).
    """
    from anachron.core.dates import parse_date

    cases = [
        (s.as_of, s.input, later_items(corpus, s.as_of, query=s.extra["subject"]), [])
        for s in corpus.samples.values()
    ]
    bank = CORPUS / "bank.jsonl"
    if bank.exists():
        for line in bank.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                day = parse_date(row["as_of"])
                values = [str(v["value"]) for v in row["values"] if parse_date(v["published"]) > day]
                cases.append((day, row["question"], later_items(corpus, day, entity=row["instrument"]), values))
    return cases


def mentions(text, value):
    """*value* as a whole token of *text* ("6" is in "up 6%", not in "2016")."""
    return re.search(rf"(?<![\w.]){re.escape(value)}(?!\w|\.\d)", text) is not None


def served_results(result):
    """What a tool result served, as texts "id\ntitle\ntext\npublished" (the echo of the agent's own query left out)."""
    results = (result.structured_content or {}).get("results", [])
    return [f"{r['id']}\n{r['title']}\n{r['text']}\n{r['published']}" for r in results]


class TargetsTest(unittest.TestCase):
    """The real SDK client against the real server object, in process, one server per as-of."""

    @classmethod
    def setUpClass(cls):
        from anachron.mcp import build_server
        from anachron.timelock import CorpusBackend, EventWriter, TimeLock, load_served_corpus

        cls._tmp = tempfile.TemporaryDirectory()
        cls.corpus = load_corpus_dir()
        served = load_served_corpus()
        cls.cases = target_cases(cls.corpus)
        cls.seen = {}  # as_of -> every text the server sent

        async def serve_all():
            import anyio

            with anyio.fail_after(TIMEOUT):
                await serve_days()

        async def serve_days():
            from mcp import Client

            # Only a day with something published after it has anything to leak.
            for number, day in enumerate(sorted({case[0] for case in cls.cases if case[2] or case[3]})):
                lock = TimeLock(CorpusBackend(served), day, EventWriter(Path(cls._tmp.name) / f"{number}.jsonl"), k=10)
                texts, fetch = [], set()
                async with Client(build_server(lock)) as client:
                    texts += [client.instructions or ""] + [t.description or "" for t in (await client.list_tools()).tools]
                    for _, prompt, later, _ in [case for case in cls.cases if case[0] == day]:
                        for query in (prompt, re.sub(r"\d{4}-\d{2}-\d{2}", " ", prompt)):
                            results = served_results(await client.call_tool("search", {"query": query}))
                            texts += results
                            fetch.update(r.split("\n", 1)[0] for r in results)
                        fetch.update(ident for ident, _, _ in later)  # an agent guessing later ids gets nothing
                    for ident in sorted(fetch):
                        texts += served_results(await client.call_tool("fetch", {"id_or_url": ident}))
                lock.journal.close()
                cls.seen[day] = "\n".join(texts)

        run_async(serve_all)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def public_by(self, day):
        return "\n".join(f"{i.title}\n{i.text}" for i in self.corpus.items.values() if i.publish_date <= day)

    def assert_never_served(self, targets_of, found):
        """No target of a case, unless public by its day or offered by its prompt, was served that day.

        Returns how many targets were checked, so a test can refuse to pass vacuously.
        """
        checked = 0
        for case in self.cases:
            day, prompt = case[0], case[1]
            public = self.public_by(day) if targets_of(case) else ""
            for label, target in targets_of(case):
                if target and not found(public, target) and not found(prompt, target):
                    checked += 1
                    self.assertFalse(found(self.seen[day], target), f"{label} (published after {day}) reached a tool result")
        return checked

    def test_no_tool_result_contains_a_later_fact(self):
        def facts(case):
            return [(ident, words) for ident, title, text in case[2] for words in (title, text)]

        self.assertGreater(self.assert_never_served(facts, lambda text, target: target in text), 0)

    def test_no_tool_result_contains_a_later_value(self):
        if not any(case[3] for case in self.cases):
            self.skipTest("no question bank at corpus/v0/bank.jsonl: no later values to look for")
        checked = self.assert_never_served(lambda case: [(value, value) for value in case[3]], mentions)
        self.assertGreater(checked, 0)

    def test_no_prompt_contains_a_later_fact_or_value(self):
        for day, prompt, later, values in self.cases:
            for ident, title, text in later:
                self.assertNotIn(title, prompt, ident)
                if text:
                    self.assertNotIn(text, prompt, ident)
            for value in values:
                if not re.search(r"[a-z]", value):  # figures; a status is an option every question lists
                    self.assertFalse(mentions(prompt, value), f"{value} in {prompt!r}")


if __name__ == "__main__":
    unittest.main()
