"""The Internet Archive's Wayback Machine as a fetch backend: a page as it was captured at or before T.

Two requests, in the shapes of the Wayback CDX server's documentation
(github.com/internetarchive/wayback, ``wayback-cdx-server/README.md``) and of
the Wayback Machine's URL scheme:

1. the CDX API, ``GET /cdx/search/cdx?url=URL&to=YYYYMMDDhhmmss&output=json``:
   a JSON array of rows, the first naming the fields (``urlkey``,
   ``timestamp``, ``original``, ``mimetype``, ``statuscode``, ``digest``,
   ``length``), ``[]`` when nothing was captured.  Timestamps are UTC,
   ``YYYYMMDDhhmmss``;
2. the raw capture, ``GET /web/{timestamp}id_/{original}`` (``id_``: the
   bytes as archived, without the Wayback banner or rewritten links).

The archive is not trusted with the date: the latest capture at or before T
is picked here from whatever rows come back (a row after ``to=`` is
ignored), and a redirect of the capture URL (the Wayback "closest capture"
behaviour) is followed only to a capture at or before T.  One to a later
capture is not read: the call returns an empty hit dated by that capture,
which the lock withholds (``after-cutoff``).  Every page carries its capture
time as ``crawl_date``, so the lock's re-check dates it too, beside its URL,
meta tags, JSON-LD, ``<time>`` and text.
"""

from __future__ import annotations

import datetime as _dt
import email.utils
import re
import urllib.parse
from typing import Any

from anachron.core.errors import AnachronError
from anachron.core.jsonio import parse_json
from anachron.timelock.backends import Hit, UpstreamError
from anachron.timelock.web.transport import check_timeout
from anachron.timelock.web._archive import GUARANTEE, TOOLS, Reply, check_base, end_of, get, one_line, page, page_url, quoted, unseen

__all__ = ["WaybackBackend", "capture_time", "parse_cdx"]

DEFAULT_URL = "https://web.archive.org"
MAX_REDIRECTS = 5
MAX_TRIES = 3  # captures tried, latest first, when one is missing from the archive (404)
_TIMESTAMP = re.compile(r"[0-9]{14}")
_SNAPSHOT = re.compile(r"/web/([0-9]{14})([a-z]{2}_)?/(.+)", re.DOTALL)


def capture_time(timestamp: object) -> _dt.datetime | None:
    """A CDX timestamp (``YYYYMMDDhhmmss``, UTC) as a moment; None when it is no such timestamp."""
    if not isinstance(timestamp, str) or not _TIMESTAMP.fullmatch(timestamp):
        return None
    try:
        return _dt.datetime.strptime(timestamp, "%Y%m%d%H%M%S").replace(tzinfo=_dt.timezone.utc)
    except ValueError:
        return None


def parse_cdx(text: str) -> list[dict[str, str]]:
    """The rows of a CDX answer in ``output=json``, each as ``{field: value}``.

    Raises :class:`UpstreamError` on any other shape: not JSON, not a list of lists of strings, a
    header without ``timestamp`` and ``original``, a row of another length than the header.
    """
    try:
        document = parse_json(text, "wayback: CDX answer")
    except AnachronError as exc:
        raise UpstreamError(one_line(exc, 300)) from None
    if not isinstance(document, list) or not all(isinstance(row, list) and all(isinstance(v, str) for v in row) for row in document):
        raise UpstreamError("wayback: CDX answer of unknown shape (expected a JSON list of lists of strings)")
    if not document:
        return []
    header, rows = document[0], document[1:]
    if "timestamp" not in header or "original" not in header or len(set(header)) != len(header):
        raise UpstreamError(f"wayback: CDX answer of unknown shape (header {one_line(header)})")
    if any(len(row) != len(header) for row in rows):
        raise UpstreamError("wayback: CDX answer of unknown shape (a row of another length than its header)")
    return [dict(zip(header, row)) for row in rows]


class WaybackBackend:
    """``fetch(url)``: the latest capture of *url* at or before T, from the Wayback Machine (module docstring)."""

    name = "wayback"
    kind = "wayback"
    guarantee = GUARANTEE
    tools = TOOLS

    def __init__(self, base_url: str | None = None, *, timeout: float = 30.0, transport: Any = None) -> None:
        self._transport = transport  # anachron serve's (recorded or replayed); None: the network, directly
        self.source = check_base(self.name, base_url or DEFAULT_URL)
        self._timeout = check_timeout(timeout, "timeout")

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]:
        raise UpstreamError("wayback: backend serves fetch only")

    def fetch(self, ref: str, *, as_of: _dt.date, mode: str) -> list[Hit]:
        url = page_url(ref)
        if url is None:
            return []  # not a web address: no document
        cutoff = end_of(as_of) if mode == "enforced" else None
        for moment, original in self._captures(url, cutoff)[:MAX_TRIES]:
            hit = self._snapshot(ref, moment, original, cutoff)
            if hit is not None:
                return [hit]
        return []

    def _captures(self, url: str, cutoff: _dt.datetime | None) -> list[tuple[_dt.datetime, str]]:
        """The archive's captures of *url* that answered 200, at or before *cutoff*, latest first."""
        query = {"url": url, "output": "json", "filter": "statuscode:200"}
        if cutoff is not None:
            query["to"] = cutoff.strftime("%Y%m%d%H%M%S")
        reply = get(self.name, "CDX query", f"{self.source}/cdx/search/cdx?{urllib.parse.urlencode(query)}", timeout=self._timeout, transport=self._transport)
        if reply.status != 200:
            raise UpstreamError(f"wayback: CDX query answered HTTP {reply.status}")
        try:
            rows = parse_cdx(reply.body.decode("utf-8"))
        except UnicodeDecodeError:
            raise UpstreamError("wayback: CDX answer is not UTF-8") from None
        found = []
        for row in rows:
            moment = capture_time(row["timestamp"])
            original = page_url(row["original"])
            if moment is None or original is None or row.get("statuscode", "200") != "200":
                continue  # an unreadable row or a captured redirect or error: never served
            if cutoff is None or moment <= cutoff:  # the archive's own `to=` is not trusted
                found.append((moment, original))
        found.sort(key=lambda capture: capture[0], reverse=True)
        return found

    def _snapshot(self, ref: str, moment: _dt.datetime, original: str, cutoff: _dt.datetime | None) -> Hit | None:
        """The capture's page; None when the archive has lost it (404); an unread, dated hit when it
        redirects to a capture after *cutoff*."""
        address = f"{self.source}/web/{moment:%Y%m%d%H%M%S}id_/{quoted(original)}"
        for _ in range(MAX_REDIRECTS + 1):
            reply = get(self.name, "snapshot", address, timeout=self._timeout, transport=self._transport)
            if reply.status in (301, 302, 303, 307, 308):
                address, moment = self._redirect(reply, address)
                if cutoff is not None and moment > cutoff:
                    return unseen(ref, moment)
                continue
            if reply.status == 404:
                return None
            if reply.status != 200:
                raise UpstreamError(f"wayback: snapshot answered HTTP {reply.status}")
            # The archive's own statement of the capture time, when it makes one, dates the page too.
            stated = _memento_datetime(reply)
            if stated is not None and stated > moment:
                moment = stated
            if cutoff is not None and moment > cutoff:
                return unseen(ref, moment)
            return page(self.name, ref, moment, reply.body, reply.header("Content-Type"))
        raise UpstreamError(f"wayback: snapshot redirected more than {MAX_REDIRECTS} times")

    def _redirect(self, reply: Reply, address: str) -> tuple[str, _dt.datetime]:
        """Where a redirect leads, and the capture time it names; only another capture of this archive."""
        location = reply.header("Location")
        if not location:
            raise UpstreamError(f"wayback: snapshot answered HTTP {reply.status} without a Location")
        target = urllib.parse.urljoin(address, location.strip())
        ours, theirs = urllib.parse.urlsplit(self.source), urllib.parse.urlsplit(target)
        prefix = ours.path.rstrip("/")
        found = _SNAPSHOT.fullmatch(theirs.path[len(prefix):]) if theirs.path.startswith(prefix + "/web/") else None
        moment = capture_time(found.group(1)) if found else None
        if (theirs.scheme, theirs.netloc) != (ours.scheme, ours.netloc) or moment is None:
            raise UpstreamError(f"wayback: snapshot redirected out of the archive ({one_line(target)})")
        return target, moment


def _memento_datetime(reply: Reply) -> _dt.datetime | None:
    value = reply.header("Memento-Datetime")
    if not value:
        return None
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        raise UpstreamError(f"wayback: snapshot with an unreadable Memento-Datetime ({one_line(value)})") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.timezone.utc)
    return moment
