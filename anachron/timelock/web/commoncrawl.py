"""Common Crawl as a fetch backend: a page as a crawl that ended by T recorded it.

Three requests, in the shapes Common Crawl documents at index.commoncrawl.org
(the crawl list and its pywb CDX index server, whose query API is pywb's "CDX
Server API") and the WARC format of ISO 28500 (WARC 1.1, iipc.github.io/warc-specifications):

1. the crawl list, ``GET /collinfo.json``: ``[{"id": "CC-MAIN-2024-10",
   "name", "timegate", "cdx-api", "from": "2024-02-20T17:05:15", "to":
   "2024-03-05T12:34:56"}, ...]``.  Only crawls whose ``to`` is at or before
   T are searched (at most :data:`MAX_CRAWLS`, latest first); a crawl
   without a readable ``to`` is never searched;
2. the index, ``GET /{CRAWL}-index?url=URL&output=json``: one JSON object
   a line (``urlkey``, ``timestamp``, ``url``, ``mime``, ``status``,
   ``digest``, ``length``, ``offset``, ``filename``; a CDXJ line, ``urlkey
   timestamp {json}``, is read too); HTTP 404 when the crawl has no capture;
3. the record, ``GET /{filename}`` from the data host with ``Range:
   bytes=offset-(offset+length-1)``: one gzip member holding a WARC
   ``response`` record, whose block is the HTTP response as crawled.

The index is not trusted with the date: a row after T is ignored, and the
record is dated by its own ``WARC-Date``; one after T is not read (the call
returns an empty hit dated by it, which the lock withholds, ``after-cutoff``).
Every page carries ``WARC-Date`` as ``crawl_date``, so the lock's re-check
dates it too, beside its URL, meta tags, JSON-LD, ``<time>`` and text.
"""

from __future__ import annotations

import datetime as _dt
import re
import urllib.parse
import zlib
from typing import Any

from anachron.core.errors import AnachronError
from anachron.core.jsonio import parse_json
from anachron.timelock.backends import UPSTREAM_MAX_BYTES, Hit, UpstreamError
from anachron.timelock.web.transport import check_timeout
from anachron.timelock.web._archive import GUARANTEE, TOOLS, check_base, end_of, get, one_line, page, page_url, unseen
from anachron.timelock.web.wayback import capture_time

__all__ = ["CommonCrawlBackend", "Record", "parse_collinfo", "parse_index", "read_record"]

DEFAULT_URL = "https://index.commoncrawl.org"
DEFAULT_DATA_URL = "https://data.commoncrawl.org"
MAX_CRAWLS = 6  # index queries per fetch, latest crawl first: each is a round trip
_CRAWL_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_FILENAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,499}")
_NUMBER = re.compile(r"[0-9]{1,15}")


_ISO_MOMENT = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?(Z|[+-][0-9]{2}:?[0-9]{2})?"
)


def _moment(value: object) -> _dt.datetime | None:
    """An ISO 8601 date-time (``Z`` or an offset; naive is UTC) as a moment; None if it is none.

    Read by hand: Python 3.10's ``fromisoformat`` refuses ``Z`` and a fraction of other than 3 or 6 digits.
    """
    found = _ISO_MOMENT.fullmatch(value.strip()) if isinstance(value, str) else None
    if found is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = found.groups()
    try:
        offset = _dt.timedelta(0)
        if zone and zone != "Z":
            digits = zone[1:].replace(":", "")
            offset = (1 if zone[0] == "+" else -1) * _dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        return _dt.datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second or 0), int((fraction or "0")[:6].ljust(6, "0")),
            tzinfo=_dt.timezone(offset),
        ).astimezone(_dt.timezone.utc)
    except ValueError:  # a day or an hour off the calendar, an offset of a day or more
        return None


def parse_collinfo(text: str) -> list[tuple[str, _dt.datetime | None]]:
    """The crawls of ``collinfo.json``: ``(id, end)``, ``end`` None when ``to`` is missing or unreadable."""
    try:
        document = parse_json(text, "commoncrawl: collinfo.json")
    except AnachronError as exc:
        raise UpstreamError(one_line(exc, 300)) from None
    if not isinstance(document, list) or not all(isinstance(c, dict) and isinstance(c.get("id"), str) for c in document):
        raise UpstreamError("commoncrawl: collinfo.json of unknown shape (expected a list of objects with an \"id\")")
    crawls = []
    for crawl in document:
        if not _CRAWL_ID.fullmatch(crawl["id"]):
            raise UpstreamError(f"commoncrawl: collinfo.json names a crawl {one_line(crawl['id'])!r}")
        crawls.append((crawl["id"], _moment(crawl.get("to"))))
    return crawls


def parse_index(text: str) -> list[dict]:
    """The rows of an index answer: JSON lines or CDXJ lines, each as a JSON object (its timestamp
    taken from the line's head when CDXJ).  Raises :class:`UpstreamError` on another shape."""
    rows = []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.strip()
        if not line:
            continue
        head = ""
        if not line.startswith("{"):  # CDXJ: "urlkey timestamp {json}"
            parts = line.split(" ", 2)
            if len(parts) != 3:
                raise UpstreamError(f"commoncrawl: index line {number} of unknown shape")
            head, line = parts[1], parts[2]
        try:
            row = parse_json(line, f"commoncrawl: index line {number}")
        except AnachronError as exc:
            raise UpstreamError(one_line(exc, 300)) from None
        if not isinstance(row, dict):
            raise UpstreamError(f"commoncrawl: index line {number} is not an object")
        if head:
            row.setdefault("timestamp", head)
        rows.append(row)
    return rows


def _no_captures(body: bytes) -> bool:
    """Whether a 404 of the index server is its "No Captures found" object (``{"message": ...}``, or
    ``{"error": ...}`` from older servers), not a 404 of a wrong address."""
    try:
        document = parse_json(body.decode("utf-8"), "commoncrawl: index 404")
    except (AnachronError, UnicodeDecodeError):
        return False
    return isinstance(document, dict) and ("message" in document or "error" in document)


class Record:
    """A WARC ``response`` record: its headers, its ``WARC-Date`` and the HTTP response it holds."""

    def __init__(self, headers: dict[str, str], date: _dt.datetime, status: int, http_headers: dict[str, str], body: bytes) -> None:
        self.headers, self.date, self.status, self.http_headers, self.body = headers, date, status, http_headers, body

    @property
    def target(self) -> str | None:
        value = self.headers.get("warc-target-uri")
        # WARC 1.1's grammar put the URI in angle brackets, and some writers followed it.
        return value[1:-1] if value and value.startswith("<") and value.endswith(">") else value


def _headers(block: bytes, what: str) -> tuple[str, dict[str, str], bytes]:
    """A header block (a first line, then ``Name: value`` lines, continuation lines folded) and what follows."""
    head, separator, rest = block.partition(b"\r\n\r\n")
    if not separator:
        raise UpstreamError(f"commoncrawl: {what} without the end of its headers")
    lines = head.decode("latin-1").split("\r\n")
    headers: dict[str, str] = {}
    last = None
    for line in lines[1:]:
        if line[:1] in (" ", "\t") and last is not None:
            headers[last] += " " + line.strip()
            continue
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            raise UpstreamError(f"commoncrawl: {what} with a broken header line ({one_line(line, 60)})")
        last = name.strip().lower()
        headers[last] = value.strip()
    return lines[0], headers, rest


def _inflate(data: bytes, wbits: int, what: str) -> bytes:
    """One compressed member, whole and within :data:`UPSTREAM_MAX_BYTES`."""
    inflater = zlib.decompressobj(wbits)
    try:
        out = inflater.decompress(data, UPSTREAM_MAX_BYTES)
    except zlib.error as exc:
        raise UpstreamError(f"commoncrawl: {what} is not valid compressed data ({exc})") from None
    if inflater.unconsumed_tail:
        raise UpstreamError(f"commoncrawl: {what} inflates to more than {UPSTREAM_MAX_BYTES} bytes")
    if not inflater.eof:
        raise UpstreamError(f"commoncrawl: {what} is truncated")
    return out


def _unchunk(body: bytes) -> bytes:
    out, rest = [], body
    while True:
        size_line, separator, rest = rest.partition(b"\r\n")
        size_text = size_line.split(b";")[0].strip()
        if not separator or not re.fullmatch(rb"[0-9A-Fa-f]{1,8}", size_text):
            raise UpstreamError("commoncrawl: the record's chunked body is broken")
        size = int(size_text, 16)
        if size == 0:
            return b"".join(out)
        if len(rest) < size + 2:
            raise UpstreamError("commoncrawl: the record's chunked body is truncated")
        out.append(rest[:size])
        rest = rest[size + 2:]


def read_record(member: bytes) -> Record:
    """The WARC response record in one gzip *member* (what an index row's range holds).

    Raises :class:`UpstreamError` for a truncated or broken member, a record that is not WARC, not a
    ``response``, without a readable ``WARC-Date`` or ``Content-Length``, shorter than it says, or
    whose HTTP response is broken or in an encoding not known here.
    """
    data = _inflate(member, 16 + zlib.MAX_WBITS, "the WARC record's gzip member")
    version, headers, rest = _headers(data, "WARC record")
    if version not in ("WARC/1.0", "WARC/1.1"):
        raise UpstreamError(f"commoncrawl: not a WARC record ({one_line(version, 40)!r})")
    if headers.get("warc-type") != "response":
        raise UpstreamError(f"commoncrawl: a WARC {one_line(headers.get('warc-type'), 30)!r} record, not a response")
    date = _moment(headers.get("warc-date"))
    if date is None:
        raise UpstreamError(f"commoncrawl: WARC record with an unreadable WARC-Date ({one_line(headers.get('warc-date'), 40)!r})")
    length = headers.get("content-length", "")
    if not _NUMBER.fullmatch(length):
        raise UpstreamError("commoncrawl: WARC record without a readable Content-Length")
    if len(rest) < int(length):
        raise UpstreamError("commoncrawl: WARC record is truncated (shorter than its Content-Length)")
    status_line, http_headers, body = _headers(rest[: int(length)], "the record's HTTP response")
    found = re.fullmatch(r"HTTP/1\.[01] ([0-9]{3})(?: .*)?", status_line)
    if found is None:
        raise UpstreamError(f"commoncrawl: the record's HTTP status line is broken ({one_line(status_line, 60)!r})")
    if http_headers.get("transfer-encoding", "").lower() == "chunked":
        body = _unchunk(body)
    encoding = http_headers.get("content-encoding", "identity").lower()
    if encoding in ("gzip", "x-gzip"):
        body = _inflate(body, 16 + zlib.MAX_WBITS, "the record's gzip body")
    elif encoding == "deflate":
        body = _inflate(body, zlib.MAX_WBITS, "the record's deflate body")
    elif encoding not in ("identity", ""):
        raise UpstreamError(f"commoncrawl: the record's body is in an encoding not read here ({one_line(encoding, 30)})")
    return Record(headers, date, int(found.group(1)), http_headers, body)


class CommonCrawlBackend:
    """``fetch(url)``: *url* as the latest crawl that ended by T recorded it (module docstring).

    *base_url* is the index host; the data host is *data_url*, else *base_url* when that is given
    (one loopback server serves both in tests), else Common Crawl's.
    """

    name = "commoncrawl"
    kind = "commoncrawl"
    guarantee = GUARANTEE
    tools = TOOLS

    def __init__(
        self, base_url: str | None = None, *, timeout: float = 30.0, data_url: str | None = None, transport: Any = None
    ) -> None:
        self._transport = transport  # anachron serve's (recorded or replayed); None: the network, directly
        self.source = check_base(self.name, base_url or DEFAULT_URL)
        self.data = check_base(self.name, data_url or base_url or DEFAULT_DATA_URL)
        self._timeout = check_timeout(timeout, "timeout")

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list[Hit]:
        raise UpstreamError("commoncrawl: backend serves fetch only")

    def fetch(self, ref: str, *, as_of: _dt.date, mode: str) -> list[Hit]:
        url = page_url(ref)
        if url is None:
            return []  # not a web address: no document
        cutoff = end_of(as_of) if mode == "enforced" else None
        for crawl in self._crawls(cutoff)[:MAX_CRAWLS]:
            row = self._latest(crawl, url, cutoff)
            if row is not None:
                return [self._page(ref, row, cutoff)]
        return []

    def _crawls(self, cutoff: _dt.datetime | None) -> list[str]:
        """The crawls that ended at or before *cutoff* (all, unrestricted), latest first."""
        reply = get(self.name, "collinfo.json", f"{self.source}/collinfo.json", timeout=self._timeout, transport=self._transport)
        if reply.status != 200:
            raise UpstreamError(f"commoncrawl: collinfo.json answered HTTP {reply.status}")
        try:
            crawls = parse_collinfo(reply.body.decode("utf-8"))
        except UnicodeDecodeError:
            raise UpstreamError("commoncrawl: collinfo.json is not UTF-8") from None
        floor = _dt.datetime.min.replace(tzinfo=_dt.timezone.utc)
        if cutoff is None:
            ended = [(end or floor, crawl) for crawl, end in crawls]
        else:  # a crawl of unknown end may have run past T: never searched
            ended = [(end, crawl) for crawl, end in crawls if end is not None and end <= cutoff]
        return [crawl for _, crawl in sorted(ended, reverse=True)]

    def _latest(self, crawl: str, url: str, cutoff: _dt.datetime | None) -> dict | None:
        """The crawl's latest readable 200 capture of *url* at or before *cutoff*; None if it has none."""
        query = urllib.parse.urlencode({"url": url, "output": "json"})
        reply = get(self.name, f"index {crawl}", f"{self.source}/{crawl}-index?{query}", timeout=self._timeout, transport=self._transport)
        if reply.status == 404 and _no_captures(reply.body):
            return None  # the index server's answer for "no captures"; another 404 is a wrong address
        if reply.status != 200:
            raise UpstreamError(f"commoncrawl: index {crawl} answered HTTP {reply.status}")
        try:
            rows = parse_index(reply.body.decode("utf-8"))
        except UnicodeDecodeError:
            raise UpstreamError(f"commoncrawl: index {crawl} is not UTF-8") from None
        best = None
        for row in rows:
            moment = capture_time(row.get("timestamp"))
            usable = (
                moment is not None and str(row.get("status")) == "200" and row.get("mime") != "warc/revisit"
                and all(isinstance(row.get(key), str) for key in ("filename", "offset", "length", "url"))
            )
            if not usable or (cutoff is not None and moment > cutoff):  # the index's dates are not trusted either
                continue
            if best is None or moment > best[0]:
                best = (moment, row)
        return best[1] if best is not None else None

    def _page(self, ref: str, row: dict, cutoff: _dt.datetime | None) -> Hit:
        filename, offset, length = row["filename"], row["offset"], row["length"]
        if not _FILENAME.fullmatch(filename) or ".." in filename or not _NUMBER.fullmatch(offset) or not _NUMBER.fullmatch(length):
            raise UpstreamError("commoncrawl: index row of unknown shape (filename, offset, length)")
        start, size = int(offset), int(length)
        if size == 0 or size > UPSTREAM_MAX_BYTES:
            raise UpstreamError(f"commoncrawl: index row with a record length of {size} bytes")
        reply = get(
            self.name, "WARC record", f"{self.data}/{filename}", timeout=self._timeout,
            headers={"Range": f"bytes={start}-{start + size - 1}"}, transport=self._transport,
        )
        if reply.status not in (200, 206) or (reply.status == 200 and len(reply.body) != size):
            raise UpstreamError(f"commoncrawl: WARC record range answered HTTP {reply.status}")
        if len(reply.body) != size:
            raise UpstreamError(f"commoncrawl: WARC record range answered {len(reply.body)} bytes, not {size}")
        record = read_record(reply.body)
        if record.target is None or record.target.strip() != row["url"]:
            raise UpstreamError(f"commoncrawl: the WARC record is of another page ({one_line(record.target)!r})")
        if cutoff is not None and record.date > cutoff:
            return unseen(ref, record.date)  # the record's own date overrules the index
        if record.status != 200:
            raise UpstreamError(f"commoncrawl: the record holds HTTP {record.status}, not a page")
        return page(self.name, ref, record.date, record.body, record.http_headers.get("content-type"))
