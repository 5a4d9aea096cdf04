"""The Inspect (inspect-ai) adapter: time-locked retrieval tools, an agent,
a transcript scorer, two tasks and two keyless reference agents.

Optional: it needs the ``inspect`` extra (``pip install 'anachron[inspect]'``).
The adapter is thin.  The tools wrap :class:`anachron.timelock.TimeLock`
(the lock the MCP server runs), and scoring turns the lock's call records
into a trace with :func:`anachron.timelock.calls_trace` and hands it to
:func:`anachron.core.parse_traces` and :func:`anachron.core.score_trace`.
No metric rule lives here.

Public surface:

- the task :func:`anachron` (``mode`` ``unrestricted``, the default, or
  ``enforced``: date filter on), and :func:`anachron_enforced`, the same
  task in the enforced mode under its own name (:func:`anachron_task` is
  another name of :func:`anachron`);
- tools :func:`retrieval_tools` (and :class:`DatePresentation`, re-exported
  from :mod:`anachron.timelock`);
- solvers :func:`time_lock` (setup) and :func:`anachron_agent`;
- the scorer :func:`tclr_scorer` and :func:`trace_record`, which rebuilds
  one sample's trace record from its messages and store (the export uses it too);
- :func:`read_log_traces` and :func:`score_logs`, behind ``anachron export``, and
  :func:`import_inspect_logs`, behind ``--from inspect`` of ``anachron score`` and ``import``.
"""

try:
    import inspect_ai  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        f"anachron.inspect needs inspect-ai ({exc}); install it with: pip install 'anachron[inspect]'"
    ) from exc

from anachron.inspect.export import import_inspect_logs, read_log_traces, score_logs
from anachron.inspect.scorer import tclr_scorer, trace_record
from anachron.inspect.solver import anachron_agent, time_lock
from anachron.inspect.task import anachron, anachron_enforced, anachron_task
from anachron.inspect.tools import retrieval_tools
from anachron.timelock import DatePresentation

__all__ = [
    "DatePresentation",
    "anachron",
    "anachron_agent",
    "anachron_enforced",
    "anachron_task",
    "import_inspect_logs",
    "read_log_traces",
    "retrieval_tools",
    "score_logs",
    "tclr_scorer",
    "time_lock",
    "trace_record",
]
