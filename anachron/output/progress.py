"""Progress of long work on a terminal: one line on stderr, rewritten in place, cleared at the end.

``Progress`` counts items done and shows the count, the rate and, where the
total is known, the time left::

    anachron score: 12,345 samples, 2,101/s
    anachron index: 40,000 / 120,000 items, 8,250/s, 10 s left

It shows nothing unless its stream is a terminal (``isatty()``) and it is
enabled (``--quiet`` turns it off), so a redirected stderr, a pipe or a log
file never holds a progress line, and standard output is never touched.
Updates are throttled (at most one per :data:`INTERVAL` seconds) so that
counting costs a comparison per item.  A lower layer that must not import
this module (the store's index builder) is handed :meth:`Progress.advance`
as a plain callable.
"""

from __future__ import annotations

import time
from typing import Callable, Iterable, Iterator, TextIO, TypeVar

__all__ = ["INTERVAL", "Progress"]

INTERVAL = 0.25  # seconds between two updates: at most 4 a second
T = TypeVar("T")


class Progress:
    """A progress line for *label* (``"anachron score"``) counting *unit* (``"samples"``), out of *total* if known."""

    def __init__(
        self,
        label: str,
        unit: str,
        *,
        total: int | None = None,
        stream: TextIO | None = None,
        enabled: bool = True,
        clock: Callable[[], float] | None = None,
    ) -> None:
        import sys

        self.label, self.unit, self.total = label, unit, total
        self.stream = sys.stderr if stream is None else stream
        self.clock = time.monotonic if clock is None else clock
        self.done = 0
        isatty = getattr(self.stream, "isatty", None)
        try:
            self.shown = bool(enabled and isatty is not None and isatty())
        except (OSError, ValueError):  # a closed or detached stream
            self.shown = False
        self.start = self.clock()
        self.next_update = self.start + INTERVAL
        self.width = 0  # of the line on screen, to blank it

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def advance(self, count: int = 1) -> None:
        """*count* more items are done."""
        self.done += count
        if self.shown:
            now = self.clock()
            if now >= self.next_update:
                self.next_update = now + INTERVAL
                self._write(self.line(now))

    def step(self, count: int, total: int) -> None:
        """*count* more items are done, of *total* in all: what a lower layer that learns the total as it
        works (the index builder, the outcomes report) is handed."""
        self.total = total
        self.advance(count)

    def iterate(self, items: Iterable[T]) -> Iterator[T]:
        """*items*, each counted once it has been handled (when the next one is asked for)."""
        for item in items:
            yield item
            self.advance()

    def line(self, now: float) -> str:
        """The text shown at time *now*."""
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        count = f"{self.done:,}" if self.total is None else f"{self.done:,} / {self.total:,}"
        text = f"{self.label}: {count} {self.unit}, {rate:,.0f}/s"
        if self.total is not None and rate > 0 and self.done <= self.total:
            text += f", {_duration((self.total - self.done) / rate)} left"
        return text

    def close(self) -> None:
        """Blank the line, if one was shown (the cursor is back at the start of an empty line)."""
        if self.shown and self.width:
            self._write("")
        self.shown = False

    def _write(self, text: str) -> None:
        # Blank what a longer previous line left, then come back to the start of the line.
        padding = " " * max(self.width - len(text), 0)
        try:
            self.stream.write("\r" + text + padding + "\r")
            self.stream.flush()
        except (OSError, ValueError):
            self.shown = False  # a terminal gone away stops the progress, never the work
            return
        self.width = len(text)


def _duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``2 h 07 min``."""
    whole = int(seconds + 0.5)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
