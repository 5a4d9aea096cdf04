"""Killed commands leave nothing behind: no staged output, no worker, no scratch folder (real processes).

Each command runs in its own process on an input large enough to be
killed while it writes; the kill comes once the process holds its staged
output open (seen in /proc), so the test does not depend on timing.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import uuid
from pathlib import Path

from tests.support import ROOT

LINUX = sys.platform.startswith("linux") and os.path.isdir("/proc/self/fd")
CALLS = [{"tool": "search", "query": f"cygnus robotics {n}", "returned": ["fin-005", "fin-006"]} for n in range(4)]


def _children(marker: str) -> list[int]:
    """Processes whose environment holds *marker*: the command and its workers, wherever they were reparented."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                environ = Path(f"/proc/{entry}/environ").read_bytes()
            except OSError:
                continue
            if marker.encode() in environ.split(b"\0"):
                found.append(int(entry))
    return found


def _alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":  # a zombie is dead, only not yet reaped
            alive.append(pid)
    return alive


@unittest.skipUnless(LINUX, "reads /proc")
class KilledWhileWritingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.data = Path(cls.tmp.name)
        cls.trace = cls.data / "trace.jsonl"
        with open(cls.trace, "w", encoding="utf-8") as fh:
            for n in range(30_000):
                fh.write(json.dumps({"sample_id": f"s{n}", "mode": "unrestricted", "as_of": "2022-06-01", "interactions": CALLS}) + "\n")
        cls.chats = cls.data / "chats.jsonl"
        lines = (ROOT / "tests" / "data" / "importers" / "openai-chat.jsonl").read_text(encoding="utf-8").split("\n")
        chats = [json.loads(line) for line in lines if line.strip()]
        with open(cls.chats, "w", encoding="utf-8") as fh:
            for n in range(20_000):
                fh.write(json.dumps({**chats[n % len(chats)], "id": f"chat-{n}"}) + "\n")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.out = Path(tempfile.mkdtemp(dir=self.data))
        self.scratch = Path(tempfile.mkdtemp(dir=self.data))  # the commands' TMPDIR
        self.marker = f"ANACHRON_KILL_TEST={uuid.uuid4().hex}"
        self.addCleanup(self._reap)

    def _reap(self):
        for pid in _alive(_children(self.marker)):
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.out, ignore_errors=True)
        shutil.rmtree(self.scratch, ignore_errors=True)

    def start(self, *argv):
        name, value = self.marker.split("=")
        env = {**os.environ, "TMPDIR": str(self.scratch), name: value, "PYTHONPATH": str(ROOT)}
        # SIGINT at its default in the child: a suite started in the background (`cmd &`) ignores
        # it, the child would inherit that, and Python would then never raise KeyboardInterrupt.
        return subprocess.Popen([sys.executable, "-m", "anachron", *argv], cwd=self.data, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def wait_for(self, proc, ready, what):
        deadline = time.monotonic() + 60
        while not ready():
            if proc.poll() is not None:
                self.fail(f"the command ended ({proc.returncode}) before {what}: make the input larger")
            if time.monotonic() > deadline:
                self.fail(f"no {what} within 60 s")
            time.sleep(0.02)

    def writing(self, pid):
        """Whether *pid* holds a file open in the output folder (its staged output)."""
        try:
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:
            return False
        return any(link.startswith(str(self.out) + "/") for link in links)

    def kill_while_writing(self, sig, *argv):
        proc = self.start(*argv)
        self.wait_for(proc, lambda: self.writing(proc.pid), "staged output")
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=60)
        return proc.returncode, stderr

    def test_score_and_import_killed_mid_write_leave_no_file(self):
        commands = {
            "score": ("score", str(self.trace), "--format", "json", "--out", str(self.out / "int.json")),
            "import": ("import", "--from", "openai-chat", str(self.chats), "--as-of", "2023-01-01",
                       "--out", str(self.out / "trace.jsonl")),
        }
        for name, argv in commands.items():
            for sig, status, stderr in ((signal.SIGTERM, 143, "anachron: terminated\n"), (signal.SIGKILL, -9, ""),
                                        (signal.SIGINT, 130, "anachron: interrupted\n")):
                with self.subTest(command=name, signal=sig.name):
                    self.assertEqual(self.kill_while_writing(sig, *argv), (status, stderr))
                    left = os.listdir(self.out)
                    for name_left in left:  # so one failure does not fail the cases after it
                        os.remove(self.out / name_left)
                    self.assertEqual(left, [])

    def test_jobs_workers_die_with_a_killed_parent_and_sigterm_leaves_no_scratch_folder(self):
        argv = ("score", str(self.trace), "--format", "json", "--out", str(self.out / "int.json"), "--jobs", "2")
        for sig in (signal.SIGKILL, signal.SIGTERM):
            with self.subTest(signal=sig.name):
                proc = self.start(*argv)
                self.wait_for(proc, lambda: len(_alive(_children(self.marker))) >= 3 and os.listdir(self.scratch),
                              "two workers and a scratch folder")
                proc.send_signal(sig)
                proc.communicate(timeout=60)
                deadline = time.monotonic() + 5
                while _alive(_children(self.marker)) and time.monotonic() < deadline:
                    time.sleep(0.05)
                self.assertEqual(_alive(_children(self.marker)), [])
                self.assertEqual(os.listdir(self.scratch), [])
                self.assertEqual(os.listdir(self.out), [])


@unittest.skipUnless(LINUX and os.geteuid() == 0 and shutil.which("unshare") and shutil.which("mount"),
                     "mounts a read-only filesystem: root with unshare(1)")
class ReadOnlyFilesystemTest(unittest.TestCase):
    def test_index_on_a_read_only_filesystem_is_one_line_and_exit_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            script = (f"mount -t tmpfs -o ro tmpfs {tmp} && cd {ROOT} && "
                      f"exec {sys.executable} -m anachron index corpus/v0 --out {tmp}/x.db")
            done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
            if "mount" in done.stderr and done.returncode not in (0, 2):
                self.skipTest(f"cannot mount here: {done.stderr.strip()}")
            self.assertEqual((done.returncode, done.stdout, done.stderr),
                             (2, "", f"anachron: {tmp}/x.db: cannot write: Read-only file system\n"))


if __name__ == "__main__":
    unittest.main()
