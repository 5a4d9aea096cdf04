"""What the two archive backends (:mod:`.wayback`, :mod:`.commoncrawl`) share: a GET through the web
transport that follows no redirect, the checks of their arguments, and the page they make of an archived response.

Standard library only.  Every fault of the service is an :class:`UpstreamError` naming the
backend and the cause; nothing here raises anything else for what a server sends.
"""

from __future__ import annotations

import datetime as _dt
import email.message
import re
import urllib.parse
from dataclasses import dataclass
from typing import Any, Mapping

from anachron.core.errors import AnachronError
from anachron.timelock.backends import Hit, UpstreamError
from anachron.timelock.web.transport import Request, Transport

GUARANTEE = "capture"
TOOLS = ("fetch",)
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
# What an archived response may be to be served as a page: text, markup or JSON (never bytes of an image).
_TEXTUAL = re.compile(r"text/|application/(?:xhtml\+xml|xml|json|ld\+json|rss\+xml|atom\+xml)$", re.IGNORECASE)


@dataclass(frozen=True)
class Reply:
    status: int
    headers: email.message.Message
    body: bytes

    def header(self, name: str) -> str | None:
        value = self.headers.get(name)
        return value if isinstance(value, str) else None


def check_base(name: str, url: str) -> str:
    if not isinstance(url, str) or not re.fullmatch(r"https?://[^/\s?#]+(?:/[^\s?#]*)?", url):
        raise AnachronError(f"--fetch {name}={url!r}: not an http(s) base URL")
    return url.rstrip("/")


def page_url(ref: str) -> str | None:
    """*ref* as the URL of a page to look up in an archive, or None when it is none (no document)."""
    if not isinstance(ref, str) or _CONTROL.search(ref) or _SURROGATE.search(ref):
        return None
    url = ref.strip().partition("#")[0]
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return url


def quoted(url: str) -> str:
    """*url* safe to put in a request line (spaces and non-ASCII escaped, everything else as given)."""
    return urllib.parse.quote(url, safe="!#$%&'()*+,/:;=?@[]~")


def end_of(as_of: _dt.date) -> _dt.datetime:
    """The last second of the as-of day, UTC: a capture made on T is not after it."""
    return _dt.datetime.combine(as_of, _dt.time(23, 59, 59), tzinfo=_dt.timezone.utc)


def get(
    backend: str, what: str, url: str, *, timeout: float, headers: Mapping[str, str] | None = None, transport: Any = None
) -> Reply:
    """GET *url*, whatever its status (a redirect is handed back, never followed: the backend decides
    whether its target is a capture at or before T), through *transport*
    (:mod:`anachron.timelock.web.transport`; ``anachron serve`` gives one, so ``--record`` and ``--replay``
    cover it), or a live one bounded by *timeout* seconds in total and its byte cap.
    """
    transport = transport if transport is not None else Transport(timeout=timeout)
    sent = transport.send(Request("GET", url, f"{backend}: {what}", None, dict(headers or {})))
    kept = email.message.Message()
    for name, value in sent.headers.items():
        kept[name] = value
    return Reply(sent.status, kept, sent.body)


def clean(text: str) -> str:
    """Text a server sent, safe to show and to log: lone surrogates become U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def charset_of(content_type: str | None) -> str:
    message = email.message.Message()
    message["Content-Type"] = content_type or "text/plain"
    charset = message.get_content_charset() or "utf-8"
    try:
        "".encode(charset)
    except (LookupError, ValueError):
        return "utf-8"  # an unknown charset: read as UTF-8, errors replaced
    return charset


def page(backend: str, ref: str, capture: _dt.datetime, body: bytes, content_type: str | None) -> Hit:
    """The hit of an archived page: its text and title, dated by the capture in ``crawl_date``.

    The text keeps its markup, so the lock's re-check also reads its meta tags, JSON-LD and
    ``<time>`` (any of which dating it after T withholds it).
    """
    if content_type and not _TEXTUAL.match(content_type.split(";")[0].strip()):
        raise UpstreamError(f"{backend}: the capture of {ref!r} is not text ({content_type.split(';')[0].strip()[:60]})")
    text = clean(body.decode(charset_of(content_type), errors="replace"))
    found = _TITLE.search(text)
    title = " ".join(_CONTROL.sub(" ", found.group(1)).split())[:300] if found else ""
    return Hit(ref, title, text, (), {"url": ref, "crawl_date": stamp(capture), "text": text})


def unseen(ref: str, capture: _dt.datetime) -> Hit:
    """A capture not read because it is after T: an empty hit dated by it, for the lock to withhold
    and log (``after-cutoff``, dated by ``crawl_date``)."""
    return Hit(ref, "", "", (), {"url": ref, "crawl_date": stamp(capture)})


def stamp(moment: _dt.datetime) -> str:
    return moment.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def one_line(text: object, limit: int = 120) -> str:
    """A server's value as an error message quotes it."""
    return " ".join(_CONTROL.sub(" ", clean(str(text))).split())[:limit]
