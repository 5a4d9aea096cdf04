"""``anachron score RUNDIR``: a run directory read as the logs, format, cutoff and seal declaration it names.

A run directory stands for ``--from FORMAT TRANSCRIPT --as-of T
--sealed-tools-from mcp.json --sealed-tools NAMES --lock-events
lock-events.jsonl``, read from its ``run.json``, and ``--corpus`` for the corpus
the lock served unless another is given.  An option the manifest
gives (``--from``, ``--as-of``, ``--as-of-map``, ``--as-of-field``, or any seal option) is
refused beside it rather than mixed with it; a refused run is an error (even
with a transcript: a run stopped by the guard or a later check proves no seal).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from anachron.core.dates import parse_date
from anachron.core.errors import AnachronError
from anachron.launch.runner import MANIFEST, read_manifest

_GIVEN = (("log_format", "--from"), ("as_of", "--as-of"), ("as_of_map", "--as-of-map"), ("as_of_field", "--as-of-field"),
          ("sealed_tools", "--sealed-tools"), ("sealed_tools_from", "--sealed-tools-from"),
          ("lock_events", "--lock-events"), ("isolated_shell", "--isolated-shell"))


def is_run_dir(path: str) -> bool:
    return Path(path).is_dir() and (Path(path) / MANIFEST).is_file()


def run_inputs(args: argparse.Namespace) -> argparse.Namespace:
    """*args* with a lone run directory among ``logs`` replaced by what its manifest names (in place)."""
    logs = getattr(args, "logs", None)
    if not logs or not any(Path(log).is_dir() and (Path(log) / MANIFEST).is_file() for log in logs):
        return args
    if len(logs) != 1:
        raise AnachronError("a run directory is scored alone: give one RUNDIR")
    rundir = Path(logs[0])
    given = [flag for dest, flag in _GIVEN if getattr(args, dest, None) is not None]
    if given:
        raise AnachronError(f"{rundir}: a run directory names its own {', '.join(given)}: give them for logs, not for a run")
    manifest = read_manifest(rundir)
    files = manifest.get("files") or {}
    if manifest.get("refused") is not None or not files.get("transcript"):
        # A refused run proves nothing sealed, whatever its transcript's calls pair with: never scored as a run
        # (its transcript, when kept, is for the record: `--from FORMAT` reads it as any log).
        kept = f"; its transcript is {rundir / files['transcript']}" if files.get("transcript") else ""
        raise AnachronError(f"{rundir}: the run was refused ({manifest.get('refused')}): not scored as a run{kept}")
    try:
        args.as_of = parse_date(manifest.get("as_of"))
    except (TypeError, ValueError):
        raise AnachronError(f"{rundir / MANIFEST}: as_of is not a date") from None
    if getattr(args, "corpus", None) is None:
        args.corpus = (manifest.get("corpus") or {}).get("spec")  # the corpus the lock served
    args.logs = [str(rundir / files["transcript"])]
    args.log_format = files.get("transcript_format")
    args.sealed_tools_from = str(rundir / files["mcp_config"])
    names = manifest.get("sealed_tools") or []
    args.sealed_tools = ",".join(names) if names else None
    events = files.get("lock_events")
    args.lock_events = [str(rundir / events)] if events else None  # None: a configuration only (unverified at best)
    return args
