"""Point-in-time data series for the time lock's ``series`` tool: ALFRED vintages, served as known at T.

A statistical series is revised after its first release (GDP, payrolls,
CPI): today's value of a 2019 quarter is not the value anyone could read in
2019.  ALFRED, the St. Louis Fed's archive of FRED vintages, keeps every
value with its realtime period: ``realtime_start``, the day it was
published, and ``realtime_end``, the last day before it was revised (or
``9999-12-31``).  The lock serves, for each observation date, the value
whose realtime period contains T (:func:`select_at`); a value first
published after T is not served at all.

Two sources of the rows:

- :class:`VintageFile`: a JSON file of ALFRED ``fred/series/observations``
  answers (``output_type=1``, observations by realtime period), keyed by
  series id, checked whole at start-up (:func:`parse_series`);
- :class:`AlfredSource`: the ALFRED API itself, asked for the vintage known
  at T only (``realtime_start = realtime_end = T``), its answer re-checked
  by the same rule anyway.

Standard library only.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Mapping, Protocol

from anachron.core.dates import format_date, known_at, parse_date
from anachron.core.errors import AnachronError, describe
from anachron.core.jsonio import parse_json, read_json
from anachron.timelock.backends import UPSTREAM_MAX_BYTES, UpstreamError

__all__ = [
    "ALFRED_URL",
    "KEY_VARIABLE",
    "MAX_OBSERVATIONS",
    "MISSING",
    "AlfredSource",
    "Observation",
    "SeriesAnswer",
    "SeriesRows",
    "SeriesSource",
    "VintageFile",
    "check_series_id",
    "open_series",
    "parse_series",
    "select_at",
]

ALFRED_URL = "https://api.stlouisfed.org"
KEY_VARIABLE = "FRED_API_KEY"
MISSING = "."  # ALFRED's value of a missing observation: served as missing, never as 0
MAX_OBSERVATIONS = 2000  # served per answer, the latest ones (a daily series has tens of thousands)
EARLIEST = "1776-07-04"  # ALFRED's earliest realtime day: a request for every vintage starts here
_ID = re.compile(r"[A-Za-z0-9_]{1,64}")
_CHUNK = 64 * 1024


class _Unfollowed(urllib.request.HTTPRedirectHandler):
    """A redirect is never followed (it could lead anywhere, the key in its query): urllib then raises the 3xx as an HTTPError."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D102 (urllib's signature)
        return None


_GET = urllib.request.build_opener(_Unfollowed)


@dataclass(frozen=True)
class Observation:
    """One value of a series with its realtime period; *value* is ``None`` when ALFRED marks it missing."""

    date: _dt.date
    value: str | None
    realtime_start: _dt.date
    realtime_end: _dt.date

    def as_dict(self) -> dict[str, Any]:
        return {
            "date": format_date(self.date),
            "value": self.value,
            "realtime_start": format_date(self.realtime_start),
            "realtime_end": format_date(self.realtime_end),
        }


@dataclass(frozen=True)
class SeriesRows:
    """What a source holds of one series: its rows, and (from the API) the vintage dates it listed."""

    id: str
    rows: tuple[Observation, ...]
    vintage_dates: tuple[_dt.date, ...] | None = None


@dataclass(frozen=True)
class SeriesAnswer:
    """A series as the lock serves it at T: the values known at T, the vintage they make up, and how
    many rows the source sent that were not served (known only after T, or superseded by T)."""

    id: str
    vintage: _dt.date | None
    observations: tuple[Observation, ...]
    not_served: int = 0
    total: int = 0  # observations known at T, before the cap (MAX_OBSERVATIONS) kept the latest


class SeriesSource(Protocol):
    kind: str
    source: str

    def rows(self, ident: str, *, as_of: _dt.date, mode: str) -> SeriesRows | None:
        """The rows of series *ident* (``None``: no such series); raises :class:`UpstreamError` on a fault."""


def check_series_id(ident: str) -> str:
    """*ident* as a series id (FRED's ids are letters, digits and ``_``, read case-insensitively: upper case)."""
    if not isinstance(ident, str) or _ID.fullmatch(ident.strip()) is None:
        raise AnachronError(f"{describe(ident) if not isinstance(ident, str) else repr(ident[:40])} is not a series id (letters, digits, _)")
    return ident.strip().upper()


def _value(where: str, raw: Any) -> str | None:
    """A value as ALFRED writes it (a string): ``"."`` is missing; anything else must be a finite number."""
    if not isinstance(raw, str):
        raise AnachronError(f"{where}: value: expected a string (ALFRED writes values as strings), got {describe(raw)}")
    text = raw.strip()
    if text == MISSING:
        return None
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or not re.fullmatch(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", text):
        raise AnachronError(f"{where}: value {raw[:40]!r} is not a number (ALFRED writes a missing value as '.')")
    return text


def _day(where: str, obj: Mapping[str, Any], name: str) -> _dt.date:
    if name not in obj:
        raise AnachronError(f"{where}: missing field {name!r}")
    try:
        return parse_date(obj[name])
    except AnachronError as exc:
        raise AnachronError(f"{where}: {name}: {exc}") from None


def parse_series(where: str, ident: str, document: Any) -> SeriesRows:
    """One ``fred/series/observations`` answer (``output_type=1``) as rows, checked whole.

    Refused, naming *where* and the observation: a document without an
    ``observations`` list (or of another output type: 2-4 put vintages in
    columns), an observation without ``date``, ``value``, ``realtime_start``
    or ``realtime_end``, a value that is neither a number nor ``"."``
    (``NaN`` included), a realtime period that ends before it starts, rows
    out of order (by date, then realtime start) and two rows of one date
    whose realtime periods overlap (then two values were "known" at once).
    """
    if not isinstance(document, dict) or not isinstance(document.get("observations"), list):
        raise AnachronError(
            f"{where}: expected ALFRED's fred/series/observations answer, an object with an 'observations' list, got {describe(document)}"
        )
    output_type = document.get("output_type", 1)
    if output_type not in (1, "1"):
        raise AnachronError(
            f"{where}: output_type {output_type!r}: only output_type 1 (observations by realtime period) carries realtime_start and realtime_end"
        )
    rows: list[Observation] = []
    for index, obj in enumerate(document["observations"]):
        at = f"{where} observations[{index}]"
        if not isinstance(obj, dict):
            raise AnachronError(f"{at}: expected an object, got {describe(obj)}")
        date = _day(at, obj, "date")
        at = f"{where} observation {format_date(date)} (observations[{index}])"
        if "value" not in obj:
            raise AnachronError(f"{at}: missing field 'value'")
        value = _value(at, obj["value"])
        start, end = _day(at, obj, "realtime_start"), _day(at, obj, "realtime_end")
        if end < start:
            raise AnachronError(f"{at}: realtime_end {end} is before realtime_start {start}")
        row = Observation(date, value, start, end)
        if rows:
            last = rows[-1]
            if (row.date, row.realtime_start) < (last.date, last.realtime_start):
                raise AnachronError(f"{at}: out of order: it comes after observation {last.date} realtime_start {last.realtime_start}")
            if row.date == last.date and row.realtime_start <= last.realtime_end:
                raise AnachronError(
                    f"{at}: realtime period {start}..{end} overlaps the previous one {last.realtime_start}..{last.realtime_end}"
                )
        rows.append(row)
    return SeriesRows(ident, tuple(rows))


def select_at(rows: SeriesRows, as_of: _dt.date, mode: str) -> SeriesAnswer:
    """The series as served at *as_of*.

    Enforced: for each date, the row whose realtime period contains
    *as_of*; a value first published after it is not served, whatever the
    source sent.  Two rows of one date that both contain *as_of* are an
    :class:`UpstreamError` (which was known cannot be told).  Unrestricted:
    the latest row of each date (the series as it is today).  The vintage
    is the latest vintage date known at *as_of* the source listed (the
    API's ``vintagedates``), else the latest realtime start served.
    """
    chosen: dict[_dt.date, Observation] = {}
    for row in rows.rows:
        if mode == "enforced":
            if not (known_at(row.realtime_start, as_of) and as_of <= row.realtime_end):
                continue
            if row.date in chosen:
                raise UpstreamError(f"series {rows.id}: two values of {row.date} are both known at {as_of}")
        elif row.date in chosen and chosen[row.date].realtime_start > row.realtime_start:
            continue
        chosen[row.date] = row
    served = tuple(chosen[day] for day in sorted(chosen))
    vintage = max((row.realtime_start for row in served), default=None)
    if mode == "enforced" and rows.vintage_dates is not None:
        listed = [day for day in rows.vintage_dates if known_at(day, as_of)]
        vintage = max(listed) if listed else vintage
    total = len(served)
    return SeriesAnswer(rows.id, vintage, served[-MAX_OBSERVATIONS:], len(rows.rows) - total, total)


class VintageFile:
    """ALFRED vintages from a JSON file: ``{"SERIES_ID": <fred/series/observations answer>, ...}``.

    Read and checked whole when opened, so a bad file is one line at start-up.
    Each answer's own ``realtime_start`` .. ``realtime_end`` (the realtime
    period it was downloaded for), when given, must contain T: outside it
    the file cannot say what was known at T, and the call is an error.
    """

    kind = "file"

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.source = os.fspath(path)
        document = read_json(path)
        if not isinstance(document, dict) or not document:
            raise AnachronError(f"{self.source}: expected an object keyed by series id (ALFRED answers), got {describe(document)}", file=path)
        if "observations" in document:
            raise AnachronError(
                f"{self.source}: one ALFRED answer does not name its series: key it by series id, "
                '{"GDPC1": {"observations": [...]}}', file=path,
            )
        self.series: dict[str, SeriesRows] = {}
        self.periods: dict[str, tuple[_dt.date | None, _dt.date | None]] = {}
        for key, answer in document.items():
            where = f"{self.source}: series {key!r}"
            try:
                ident = check_series_id(key)
            except AnachronError as exc:
                raise AnachronError(f"{where}: {exc}", file=path) from None
            if ident in self.series:
                raise AnachronError(f"{where}: series {ident} is given twice (ids are read in upper case)", file=path)
            try:
                self.series[ident] = parse_series(where, ident, answer)
                period = [None if answer.get(name) is None else _day(where, answer, name) for name in ("realtime_start", "realtime_end")]
            except AnachronError as exc:
                raise exc.locate(file=path)
            self.periods[ident] = (period[0], period[1])

    def rows(self, ident: str, *, as_of: _dt.date, mode: str) -> SeriesRows | None:
        rows = self.series.get(ident)
        if rows is None:
            return None
        start, end = self.periods[ident]
        if mode == "enforced" and ((start is not None and as_of < start) or (end is not None and end < as_of)):
            raise UpstreamError(
                f"series {ident}: {self.source} holds its vintages of {start or '...'}..{end or '...'} only, not {as_of}: "
                "download it with a realtime period containing the cutoff"
            )
        return rows


class AlfredSource:
    """The ALFRED API: ``GET {base}/fred/series/observations`` with ``output_type=1``.

    Enforced, the request asks for the vintage known at T only
    (``realtime_start`` and ``realtime_end`` both T) and the vintage dates
    up to T (``fred/series/vintagedates``); the answer is re-checked by
    :func:`select_at` all the same.  Unrestricted, it asks for every
    vintage (the series as it is today is the latest row of each date).
    The key is sent in the query string and never logged (:attr:`source`
    is the base URL).  ALFRED's "series does not exist" (HTTP 400 naming
    it) is no series; any other fault is an :class:`UpstreamError`.
    """

    kind = "alfred"

    def __init__(self, key: str | None, *, url: str = ALFRED_URL, timeout: float = 30.0) -> None:
        if not key:
            raise AnachronError(f"--series alfred: set {KEY_VARIABLE} in the environment to your FRED API key")
        if not re.match(r"https?://[^/\s]+", url or ""):
            raise AnachronError(f"--series alfred={url}: not an http(s) URL")
        self.source = url.rstrip("/")
        self._key = key
        self._timeout = timeout

    def _get(self, path: str, params: Mapping[str, str]) -> Any:
        query = urllib.parse.urlencode({**params, "api_key": self._key, "file_type": "json"})
        request = urllib.request.Request(f"{self.source}/{path}?{query}", headers={"Accept": "application/json", "User-Agent": "anachron-timelock"})
        deadline = time.monotonic() + self._timeout
        try:
            with _GET.open(request, timeout=self._timeout) as response:
                chunks, size = [], 0
                # read1: what has arrived, so a slow drip is cut at the deadline, not a socket timeout per byte.
                while chunk := response.read1(_CHUNK):
                    size += len(chunk)
                    if size > UPSTREAM_MAX_BYTES:
                        raise UpstreamError(f"ALFRED /{path} answered more than {UPSTREAM_MAX_BYTES} bytes")
                    if time.monotonic() > deadline:
                        raise UpstreamError(f"ALFRED /{path} took longer than {self._timeout:g} s")
                    chunks.append(chunk)
                payload = b"".join(chunks)
        except UpstreamError:
            raise
        except urllib.error.HTTPError as exc:
            body = exc.read(4096).decode("utf-8", "replace")
            if exc.code == 400 and "does not exist" in body:
                return None
            raise UpstreamError(f"ALFRED /{path} answered HTTP {exc.code}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise UpstreamError(f"ALFRED /{path} failed: {' '.join(str(reason).split())[:200]}") from None
        try:
            return parse_json(payload.decode("utf-8"), f"ALFRED /{path}")
        except (AnachronError, UnicodeDecodeError) as exc:
            raise UpstreamError(" ".join(str(exc).split())[:300]) from None

    def rows(self, ident: str, *, as_of: _dt.date, mode: str) -> SeriesRows | None:
        day = format_date(as_of)
        start, end = (day, day) if mode == "enforced" else (EARLIEST, "9999-12-31")
        params = {"series_id": ident, "realtime_start": start, "realtime_end": end, "output_type": "1"}
        document = self._get("fred/series/observations", params)
        if document is None:
            return None
        try:
            rows = parse_series(f"ALFRED series {ident}", ident, document)
        except AnachronError as exc:
            raise UpstreamError(str(exc)) from None
        if mode != "enforced":
            return rows
        listed = self._get("fred/series/vintagedates", {"series_id": ident, "realtime_start": EARLIEST, "realtime_end": day})
        dates = listed.get("vintage_dates") if isinstance(listed, dict) else None
        if not isinstance(dates, list):
            raise UpstreamError(f"ALFRED series {ident}: vintagedates: expected a 'vintage_dates' list")
        try:
            vintages = tuple(parse_date(value) for value in dates)
        except AnachronError as exc:
            raise UpstreamError(f"ALFRED series {ident}: vintagedates: {exc}") from None
        return SeriesRows(ident, rows.rows, vintages)


def open_series(spec: str, environ: Mapping[str, str] = os.environ, *, timeout: float = 30.0) -> SeriesSource:
    """``--series``: ``alfred`` or ``alfred=URL`` (the API; key from :data:`KEY_VARIABLE`), else a vintage file."""
    name, equals, url = spec.partition("=")
    if name == "alfred":
        return AlfredSource(environ.get(KEY_VARIABLE), url=url if equals else ALFRED_URL, timeout=timeout)
    return VintageFile(spec)
