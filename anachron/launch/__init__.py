"""Sealed launchers: ``anachron run HARNESS`` (docs/run-rules.md, "Sealed launchers").

    from anachron.launch import RunSpec, launch
    manifest = launch(RunSpec("responses", as_of, Path("prompt.txt"), Path("runs/1"),
                              model="m", base_url="http://127.0.0.1:8000/v1"))

:func:`launch` starts the harness with the time lock (``anachron serve``,
enforced, with its own event log) as its only tool surface, refuses the run
when the preflight fails (:class:`Refused`, a one-line reason), stops it at
the first call outside the lock, audits the transcript against the lock's
log and writes the run directory, ``run.json`` last
(:mod:`anachron.importers.run_dir`, which ``anachron score RUNDIR`` reads
it through).  The ``responses`` and ``chat`` loops need the ``mcp``
extra (imported when they run); the command-line harnesses need only their
executable.
"""

from __future__ import annotations

from anachron.launch.harnesses import HARNESSES, LOOPS, NAMES
from anachron.launch.runner import Refused, RunSpec, launch

__all__ = ["HARNESSES", "LOOPS", "NAMES", "Refused", "RunSpec", "launch"]
