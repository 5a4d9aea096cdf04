"""A run's results for notebooks and data frames: :class:`Results`.

``Results(score_traces(traces, corpus))`` is a read-only sequence of
:class:`~anachron.core.SampleResult` that displays as the run summary and a
per-sample table in a notebook (``_repr_html_``), and gives flat records
(``to_records()``) that ``pandas.DataFrame`` takes as they are.

Importing this module imports :mod:`anachron.output.html`, which registers the
notebook displays of each :class:`~anachron.core.SampleResult` and
:class:`~anachron.core.RunSummary` (:mod:`anachron.core.display`): the core
alone shows them by ``repr``.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import os
import warnings
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence, overload

from anachron.core.leakage import RunSummary, SampleResult, summarise
from anachron.core.errors import AnachronError, describe
from anachron.output.html.tables import sample_table, summary_table  # importing anachron.output.html registers the core's displays

if TYPE_CHECKING:
    from anachron.importers import Options

__all__ = ["Results", "score_logs"]


class Results(Sequence[SampleResult]):
    """The scored samples of one run, in order."""

    def __init__(self, results: Iterable[SampleResult]) -> None:
        items = tuple(results)
        for i, r in enumerate(items):
            if not isinstance(r, SampleResult):
                raise AnachronError(f"results[{i}]: expected a SampleResult, got {describe(r)}")
        self._items = items

    @overload
    def __getitem__(self, index: int) -> SampleResult: ...
    @overload
    def __getitem__(self, index: slice) -> "Results": ...
    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return Results(self._items[index])
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[SampleResult]:
        return iter(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Results) and other._items == self._items

    def __repr__(self) -> str:
        mean = self.summary.mean_tclr
        return f"Results(n={len(self)}, mean_tclr={'n/a' if mean is None else f'{mean:.3f}'})"

    @property
    def summary(self) -> RunSummary:
        """:func:`anachron.core.summarise` of the run."""
        return summarise(self._items)

    def to_records(self) -> list[dict[str, Any]]:
        """One flat record per sample (:data:`anachron.output.records.SAMPLE_COLUMNS`)."""
        from anachron.output.records import sample_records

        return sample_records(self._items)

    def to_dataframe(self) -> Any:
        """The records as a ``pandas.DataFrame``, one row per sample, the columns in their documented
        order; pandas is imported here only (Anachron does not depend on it)."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Results.to_dataframe() needs pandas: pip install pandas "
                              "(or build your own table from Results.to_records())") from None
        from anachron.output.records import SAMPLE_COLUMNS

        return pandas.DataFrame(self.to_records(), columns=list(SAMPLE_COLUMNS))

    def to_csv(self) -> str:
        """The records as CSV (docs/formats.md, "CSV")."""
        from anachron.output.records import SAMPLE_COLUMNS, csv_text

        return csv_text(self.to_records(), SAMPLE_COLUMNS)

    def _repr_html_(self) -> str:
        return (
            f'<div class="anachron-results">{summary_table(self.summary, self._items, caption=f"Run summary ({len(self)} samples)")}'
            f"{sample_table(self._items, sortable=False)}</div>"
        )



def score_logs(
    log_format: str,
    paths: Sequence[str | os.PathLike[str]],
    *,
    as_of: str | _dt.date | None = None,
    corpus: Any = None,
    options: Options | None = None,
) -> Results:
    """Score the logs your harness kept, as ``anachron score --from FORMAT`` does: a :class:`Results`.

    *log_format* is one of :data:`anachron.importers.FORMATS` (Inspect logs:
    :func:`anachron.inspect.score_logs`); *as_of* the cutoff of every sample (a
    ``YYYY-MM-DD`` string or a date; or pass *options*, an
    :class:`anachron.importers.Options`, for ``as_of_map`` and the rest); *corpus* a
    loaded corpus (:func:`anachron.load_corpus`), default the bundled one.  A
    rescoring note or a torn line goes to :mod:`warnings`' ``UserWarning``.
    """
    from anachron.core import parse_traces, score_traces
    from anachron.core.dates import parse_date
    from anachron.importers import Options, import_logs
    from anachron.store import load_corpus

    if log_format == "inspect":
        raise AnachronError("inspect logs: use anachron.inspect.score_logs(paths) (the inspect extra)")
    if options is not None and as_of is not None:
        raise AnachronError("score_logs: pass as_of or options, not both")
    data = corpus if corpus is not None else load_corpus(None)
    day = parse_date(as_of) if isinstance(as_of, str) else as_of
    if options is None:
        options = Options(as_of=day, warn=lambda line: warnings.warn(line, stacklevel=3))
    options = dataclasses.replace(options, scoring_corpus=options.scoring_corpus or data)
    return Results(score_traces(parse_traces(import_logs(log_format, list(paths), options), data), data))
