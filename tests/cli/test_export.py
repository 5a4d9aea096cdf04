"""``anachron export`` and ``anachron report`` over real Inspect logs: a log directory,
CSV output, and logs that did not finish (``inspect eval`` exits 0 even then; the log's
status is the one sign, and the export refuses it).
"""

import csv
import io
import json
import unittest
from pathlib import Path

from tests.support import inspect_module_setup, run_cli

TMP = None


def setUpModule():
    global TMP
    TMP = inspect_module_setup()


def tearDownModule():
    if TMP is not None:
        TMP.cleanup()


class ExportLogs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from inspect_ai import eval as inspect_eval

        import anachron.inspect as ai

        cls.dir = Path(TMP.name)
        cls.logs = cls.dir / "logs"
        [log] = inspect_eval(ai.anachron(slice="news"), model="anachron/naive", display="none", log_dir=str(cls.logs))
        assert log.status == "success", log.error
        cls.log = log

    def export(self, *args):
        return run_cli("export", *map(str, args))

    def test_a_directory_is_its_logs(self):
        [file] = list(self.logs.glob("*.eval"))
        a, b = self.dir / "a.json", self.dir / "b.json"
        status, out, err = self.export(self.logs, "--out", a)
        self.assertEqual((status, err), (0, ""), err)
        self.assertIn("from 1 log", out)
        self.assertEqual(self.export(file, "--out", b)[0], 0)
        self.assertEqual(a.read_bytes(), b.read_bytes())
        self.assertEqual(len(json.loads(a.read_text())["tclr"]), len(self.log.samples))

    def test_an_empty_directory_is_an_error(self):
        empty = self.dir / "empty"
        empty.mkdir(exist_ok=True)
        status, out, err = self.export(empty, "--out", self.dir / "x.json")
        self.assertEqual(status, 2)
        self.assertEqual(err, f"anachron: {empty}: no Inspect log (.eval or .json) in this directory\n")

    def test_csv(self):
        out_path = self.dir / "x.csv"
        status, _, err = self.export(self.logs, "--out", out_path, "--format", "csv")
        self.assertEqual((status, err), (0, ""))
        rows = list(csv.DictReader(io.StringIO(out_path.read_text(encoding="utf-8"))))
        tclr = json.loads(self.export(self.logs, "--out", self.dir / "t.json")[0] == 0 and (self.dir / "t.json").read_text())
        self.assertEqual({row["sample_id"]: float(row["tclr"]) for row in rows}, tclr["tclr"])

    def test_a_log_that_did_not_finish_is_refused(self):
        from inspect_ai.log import EvalError, read_eval_log, write_eval_log

        [file] = list(self.logs.glob("*.eval"))
        for status in ("started", "cancelled", "error"):
            with self.subTest(status=status):
                log = read_eval_log(str(file))
                log.status = status
                if status == "error":
                    log.error = EvalError(message="RuntimeError: boom\nmore", traceback="", traceback_ansi="")
                broken = self.dir / status / "run.eval"
                broken.parent.mkdir(exist_ok=True)
                write_eval_log(log, str(broken))
                out = self.dir / f"{status}.json"
                code, _, err = self.export(broken.parent, "--out", out)
                self.assertEqual(code, 2)
                self.assertEqual(err.count("\n"), 1, err)
                self.assertIn(f"log status is '{status}', not 'success'", err)
                self.assertFalse(out.exists())
                code, _, err = run_cli("report", str(broken), "--out", str(self.dir / "r.html"))
                self.assertEqual(code, 2)
                self.assertIn(f"log status is '{status}'", err)
        self.assertIn("RuntimeError: boom more", err)

    def test_a_task_that_errors_leaves_an_error_log_that_is_refused(self):
        from inspect_ai import Task
        from inspect_ai import eval as inspect_eval
        from inspect_ai.dataset import MemoryDataset
        from inspect_ai.solver import solver

        from anachron.core import load_corpus_dir
        from anachron.inspect.task import corpus_samples

        @solver
        def crash():
            async def solve(state, generate):
                raise RuntimeError("the agent crashed")

            return solve

        task = Task(dataset=MemoryDataset(corpus_samples(load_corpus_dir(), "unrestricted")[:1]), solver=crash())
        logs_dir = self.dir / "crashed"
        [log] = inspect_eval(task, model="mockllm/model", display="none", log_dir=str(logs_dir))
        self.assertEqual(log.status, "error")
        code, _, err = self.export(logs_dir, "--out", self.dir / "c.json")
        self.assertEqual(code, 2)
        self.assertIn("log status is 'error', not 'success' (the eval ended with an error: RuntimeError", err)

    def test_report_reads_a_json_log_as_its_eval_twin(self):
        from inspect_ai.log import read_eval_log, write_eval_log

        [file] = list(self.logs.glob("*.eval"))
        twin = self.dir / "json-log" / "run.json"
        twin.parent.mkdir(exist_ok=True)
        write_eval_log(read_eval_log(str(file)), str(twin), format="json")
        pages = []
        for path in (file, twin):
            page = self.dir / f"{path.suffix[1:]}.html"
            status, _, err = run_cli("report", str(path), "--out", str(page))
            self.assertEqual((status, err), (0, ""), err)
            pages.append(page.read_text(encoding="utf-8").replace(str(path), "LOG").replace("Inspect logs,", "Inspect log,"))
        self.assertEqual(pages[0], pages[1])

    def test_report_reads_a_log_directory(self):
        page = self.dir / "r.html"
        status, _, err = run_cli("report", str(self.logs), "--out", str(page))
        self.assertEqual((status, err), (0, ""), err)
        text = page.read_text(encoding="utf-8")
        self.assertIn(f"{self.logs}: Inspect logs, scored by the core, {len(self.log.samples)} samples", text)


if __name__ == "__main__":
    unittest.main()
