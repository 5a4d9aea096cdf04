"""The real web, frozen at T: the registry of the time lock's backends and the glue that joins them.

``anachron serve --search BACKEND[=URL] --fetch BACKEND[=URL]`` picks one
backend per tool from :data:`REGISTRY`: its tools, its guarantee (what it
promises about an item's date: ``capture``, ``index``, ``claimed``,
``corpus``; :data:`~anachron.timelock.events.GUARANTEES`), the environment
variable holding its key, its default base URL, and where its class lives.
A class is imported only when chosen, so a backend whose module is missing
from this build is a clear start-up error, never an import failure of the
lock.

Adding a backend: a module of this package with a class that has the
:class:`~anachron.timelock.backends.Backend` methods it serves (``search``
and/or ``fetch``, raising :class:`~anachron.timelock.backends.UpstreamError`
on any fault) and the class attributes ``name`` (its registry name) and
``guarantee``; then one :data:`REGISTRY` line.  Its constructor is called
with the keyword arguments it declares among ``url`` (or ``base_url``, or
its first positional parameter), ``transport`` (a
:mod:`~anachron.timelock.web.transport`, for ``--record`` and ``--replay``:
a backend that takes none cannot be recorded, and is refused with either),
``timeout`` and ``key``.

:class:`WebBackend` joins a search backend and a fetch backend into the one
backend the lock calls.  It tags every hit with the ``backend`` that
answered and its ``guarantee`` (the event log records both), and routes
every fetch to the fetch backend: so with ``--search exa --fetch wayback`` a
page a publish-date filter found is read as the archive captured it at T,
not as it is today.  Nothing here is trusted: the lock re-checks every item.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import inspect
import re
from dataclasses import dataclass, replace
from typing import Any, Mapping

from anachron.core.errors import AnachronError

__all__ = ["REGISTRY", "BackendSpec", "WebBackend", "backend_class", "open_backends", "parse_choice"]


@dataclass(frozen=True)
class BackendSpec:
    """One backend a ``--search`` or ``--fetch`` may name."""

    name: str
    tools: str  # "search", "fetch" or "both"
    guarantee: str | None  # None: as the service says, item by item (the `anachron` protocol)
    key: str | None  # the environment variable holding its API key, if it needs one
    url: str | None  # its default base URL (None: a location must be given, BACKEND=URL)
    module: str  # where its class lives (imported when chosen)
    attribute: str | None = None  # the class; None: the module's class whose `name` is this backend's

    def serves(self, tool: str) -> bool:
        return self.tools in (tool, "both")


_SERVICES = "anachron.timelock.web.services"
REGISTRY: Mapping[str, BackendSpec] = {
    spec.name: spec
    for spec in (
        BackendSpec("corpus", "both", "corpus", None, None, "anachron.timelock.backends", "CorpusBackend"),
        BackendSpec("anachron", "both", None, None, None, "anachron.timelock.backends", "UpstreamBackend"),
        BackendSpec("openreward", "both", "index", "OPENREWARD_API_KEY", "https://search.openreward.ai", _SERVICES, "OpenRewardBackend"),
        BackendSpec("wayback", "fetch", "capture", None, "https://web.archive.org", "anachron.timelock.web.wayback"),
        BackendSpec("commoncrawl", "fetch", "capture", None, "https://index.commoncrawl.org", "anachron.timelock.web.commoncrawl"),
        BackendSpec("exa", "search", "claimed", "EXA_API_KEY", "https://api.exa.ai", _SERVICES, "ExaBackend"),
        BackendSpec("tavily", "search", "claimed", "TAVILY_API_KEY", "https://api.tavily.com", _SERVICES, "TavilyBackend"),
        BackendSpec("brave", "search", "claimed", "BRAVE_API_KEY", "https://api.search.brave.com", _SERVICES, "BraveBackend"),
    )
}


def parse_choice(text: str, option: str) -> tuple[BackendSpec, str | None]:
    """``BACKEND`` or ``BACKEND=URL`` (for ``corpus``: ``corpus=DIR``) -> its spec and the location given.

    >>> spec, url = parse_choice("exa=http://127.0.0.1:9", "--search")
    >>> spec.name, spec.guarantee, url
    ('exa', 'claimed', 'http://127.0.0.1:9')
    """
    name, sep, location = text.partition("=")
    spec = REGISTRY.get(name.strip())
    if spec is None:
        raise AnachronError(f"{option} {text}: unknown backend {name!r}; the backends are {', '.join(REGISTRY)}")
    tool = option.lstrip("-")
    if not spec.serves(tool):
        raise AnachronError(f"{option} {text}: the {spec.name} backend serves {spec.tools} only")
    if sep and not location.strip():
        raise AnachronError(f"{option} {text}: nothing after '='; give {spec.name}=URL or {spec.name}")
    if sep and spec.name != "corpus" and not re.match(r"https?://[^/\s]+", location):
        raise AnachronError(f"{option} {text}: {location!r} is not an http(s) URL")
    if not sep and spec.url is None and spec.name == "anachron":
        raise AnachronError(f"{option} {text}: the anachron backend has no default location; give anachron=URL")
    return spec, location.strip() if sep else None


def backend_class(spec: BackendSpec) -> type:
    """The class of *spec*, imported now; an :class:`AnachronError` if this build does not have it."""
    try:
        module = importlib.import_module(spec.module)
    except ModuleNotFoundError as exc:
        if exc.name != spec.module:
            raise
        raise AnachronError(
            f"the {spec.name} backend is not in this build of anachron ({spec.module} is missing)"
        ) from None
    if spec.attribute is not None:
        return getattr(module, spec.attribute)
    for value in vars(module).values():
        if inspect.isclass(value) and value.__module__ == module.__name__ and getattr(value, "name", None) == spec.name:
            return value
    raise AnachronError(f"the {spec.name} backend: {spec.module} defines no class named {spec.name!r}")


def _construct(spec: BackendSpec, location: str | None, *, transport: Any, timeout: float, key: str | None, recorded: bool) -> Any:
    """An instance of *spec*'s class, given the arguments its constructor declares (see the module's docstring)."""
    cls = backend_class(spec)
    if spec.name == "corpus":
        from anachron.timelock.backends import CorpusBackend, open_engine

        return CorpusBackend(open_engine(location))
    url = location or spec.url
    params = inspect.signature(cls).parameters
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    positional = [p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    named = positional[0] if positional and positional[0].name in ("url", "base_url", "source", "location") else (
        params.get("url") or params.get("base_url")
    )
    # A class with its own default keeps it when no URL is given (Common Crawl derives its data host from it).
    if named is not None and (location is not None or named.default is inspect.Parameter.empty):
        if named is (positional[0] if positional else None):
            args.append(url)
        else:
            kwargs[named.name] = url
    if "transport" in params:
        kwargs["transport"] = transport
    elif recorded:
        raise AnachronError(f"--record/--replay: the {spec.name} backend takes no transport, so its exchanges cannot be recorded")
    if "timeout" in params:
        kwargs["timeout"] = timeout
    if "key" in params:
        kwargs["key"] = key
    return cls(*args, **kwargs)


def _tagged(hits: list, backend: Any) -> list:
    """*hits*, each naming the backend that answered it and its guarantee (the backend's own tag kept)."""
    name, guarantee = getattr(backend, "name", None), getattr(backend, "guarantee", None)
    return [
        replace(hit, backend=hit.backend or name, guarantee=hit.guarantee or guarantee) if hasattr(hit, "guarantee") else hit
        for hit in hits
    ]


class WebBackend:
    """One backend for the lock: searches go to *search*, fetches to *fetch* (either may be ``None``:
    that tool's calls are then ``error`` records saying which option would serve it)."""

    kind = "web"

    def __init__(self, search: Any, fetch: Any, source: str) -> None:
        self._search, self._fetch = search, fetch
        self.source = source

    def check_presentation(self, presentation: Any) -> None:
        """A local corpus among the two is checked as ``--corpus`` is (a shift must keep its dates on the calendar)."""
        for part in (self._search, self._fetch):
            if hasattr(part, "check_presentation"):
                part.check_presentation(presentation)

    def search(self, query: str, *, k: int, as_of: _dt.date, mode: str) -> list:
        from anachron.timelock.backends import UpstreamError

        if self._search is None:
            raise UpstreamError("no search backend is configured: give --search BACKEND")
        return _tagged(self._search.search(query, k=k, as_of=as_of, mode=mode), self._search)

    def fetch(self, ref: str, *, as_of: _dt.date, mode: str) -> list:
        from anachron.timelock.backends import UpstreamError

        if self._fetch is None:
            raise UpstreamError("no fetch backend is configured: give --fetch BACKEND (an archive: wayback or commoncrawl)")
        return _tagged(self._fetch.fetch(ref, as_of=as_of, mode=mode), self._fetch)


def open_backends(
    search: str | None,
    fetch: str | None,
    *,
    timeout: float = 30.0,
    record: str | None = None,
    replay: str | None = None,
    environ: Mapping[str, str],
) -> Any:
    """The backend ``--search`` and ``--fetch`` ask for, checked before anything is served.

    A backend needing a key whose variable is unset or empty is an
    :class:`AnachronError` naming the variable (not with ``--replay``, which
    makes no call).  Without ``--fetch``, a search backend that fetches
    fetches too.  One backend serving both tools at one location is that
    backend itself (a corpus, an ``anachron`` upstream: the log's start
    record is as with ``--corpus`` or ``--upstream``); otherwise a
    :class:`WebBackend`.
    """
    from anachron.timelock.web.transport import check_timeout, open_transport

    if search is None and fetch is None:
        raise AnachronError("give --search BACKEND or --fetch BACKEND")
    check_timeout(timeout)
    chosen = {tool: parse_choice(text, f"--{tool}") for tool, text in (("search", search), ("fetch", fetch)) if text is not None}
    if "fetch" not in chosen and chosen["search"][0].serves("fetch"):
        chosen["fetch"] = chosen["search"]
    keys: dict[str, str | None] = {}
    for tool, (spec, _) in chosen.items():
        key = environ.get(spec.key, "").strip() if spec.key else None
        if spec.key and not key and replay is None:
            raise AnachronError(f"--{tool} {spec.name}: set {spec.key} (the {spec.name} backend's API key) in the environment")
        keys[spec.name] = key
    web = [spec for spec, _ in chosen.values() if spec.name != "corpus"]
    if (record is not None or replay is not None) and not web:
        raise AnachronError("--record and --replay store a web service's exchanges; a local corpus has none")
    transport = open_transport(timeout=timeout, record=record, replay=replay)
    made: dict[tuple[str, str | None], Any] = {}
    for spec, location in chosen.values():
        if (spec.name, location) not in made:
            made[(spec.name, location)] = _construct(
                spec, location, transport=transport, timeout=timeout, key=keys[spec.name], recorded=record is not None or replay is not None
            )
    pick = {tool: made[(spec.name, location)] for tool, (spec, location) in chosen.items()}
    if "search" in pick and pick["search"] is pick.get("fetch") and chosen["search"][0].name in ("corpus", "anachron"):
        return pick["search"]
    source = "; ".join(
        f"{tool} {chosen[tool][0].name} {getattr(pick[tool], 'source', '') or ''}".rstrip() for tool in ("search", "fetch") if tool in pick
    )
    return WebBackend(pick.get("search"), pick.get("fetch"), source)
