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

from typing import Any, Iterable, Iterator, Sequence, overload

from anachron.core.leakage import RunSummary, SampleResult, summarise
from anachron.core.errors import AnachronError, describe
from anachron.output.html.tables import sample_table, summary_table  # importing anachron.output.html registers the core's displays

__all__ = ["Results"]


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

    def to_csv(self) -> str:
        """The records as CSV (docs/formats.md, "CSV")."""
        from anachron.output.records import SAMPLE_COLUMNS, csv_text

        return csv_text(self.to_records(), SAMPLE_COLUMNS)

    def _repr_html_(self) -> str:
        return (
            f'<div class="anachron-results">{summary_table(self.summary, self._items, caption=f"Run summary ({len(self)} samples)")}'
            f"{sample_table(self._items, sortable=False)}</div>"
        )

