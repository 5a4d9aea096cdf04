"""The time lock: ``search`` and ``fetch`` frozen at an as-of date, for every adapter.

Standard library only: ``import anachron.timelock`` works with no extra
installed.  The Inspect tools (:mod:`anachron.inspect.tools`) and the MCP
server (:mod:`anachron.mcp`) are thin wrappers over :class:`TimeLock`.

- :mod:`~anachron.timelock.lock`: argument checks, budgets, the re-check, outcomes;
- :mod:`~anachron.timelock.backends`: a local corpus or a backdated search service;
- :mod:`~anachron.timelock.web`: the web frozen at T: search and archive backends, each with its guarantee, recorded and replayed;
- :mod:`~anachron.timelock.series`: the ``series`` tool's ALFRED vintages, each value as known at T;
- :mod:`~anachron.timelock.render`: what the agent reads, with the date presentation;
- :mod:`~anachron.timelock.events`: the event log: its records, writer and strict reader;
- :mod:`~anachron.timelock.loggable`: what of a call's arguments the log keeps;
- :mod:`~anachron.timelock.run_trace`: an event log as a trace, and as the lock's record for the seal audit;
- :mod:`~anachron.timelock.citations`: an answer's citations checked against its run;
- :mod:`~anachron.timelock.quarantine`: what the serving path may read and import.
"""

from anachron.timelock.backends import Backend, CorpusBackend, Hit, PendingBackend, UpstreamBackend, UpstreamError, load_served_corpus, open_engine
from anachron.timelock.citations import Citation, CitationCheck, load_answer, parse_answer, verify_citations
from anachron.timelock.events import CallEvent, EventLog, EventWriter, load_events, parse_calls, parse_events
from anachron.timelock.lock import ARGUMENT, MAX_ARGUMENT, TOOLS, Journal, Limits, Outcome, Rechecked, TimeLock, check_arguments, recheck
from anachron.timelock.quarantine import OUTCOME_FILES, OUTCOME_PACKAGES, SERVED_FILES, is_outcome_module
from anachron.timelock.render import SNIPPET, DatePresentation
from anachron.timelock.run_trace import calls_trace, events_trace

__all__ = [
    "ARGUMENT",
    "MAX_ARGUMENT",
    "OUTCOME_FILES",
    "OUTCOME_PACKAGES",
    "SERVED_FILES",
    "SNIPPET",
    "TOOLS",
    "Backend",
    "CallEvent",
    "Citation",
    "CitationCheck",
    "CorpusBackend",
    "DatePresentation",
    "EventLog",
    "EventWriter",
    "Hit",
    "Journal",
    "Limits",
    "Outcome",
    "PendingBackend",
    "Rechecked",
    "TimeLock",
    "UpstreamBackend",
    "UpstreamError",
    "calls_trace",
    "check_arguments",
    "events_trace",
    "is_outcome_module",
    "load_answer",
    "load_events",
    "load_served_corpus",
    "open_engine",
    "parse_answer",
    "parse_calls",
    "parse_events",
    "recheck",
    "verify_citations",
]
