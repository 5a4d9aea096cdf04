"""Small in-memory corpora for the metric tests (built through the public API)."""

from __future__ import annotations

import datetime as dt

from anachron.core import build_corpus, parse_traces

T = dt.date(2022, 6, 1)


def corpus(items=(), entities=(), samples=()):
    def records(kind, rows):
        return [(f"{kind}:{n}", row) for n, row in enumerate(rows, start=1)]

    return build_corpus(records("items", items), records("entities", entities), records("samples", samples))


def item(ident, date, *, entities=(), restates=None, title=None, text="", slice="finance"):
    return {
        "id": ident,
        "slice": slice,
        "publish_date": date,
        "title": title or f"title of {ident}",
        "text": text,
        "entities": list(entities),
        "restates": restates,
    }


def entity(ident, valid_from=None, valid_to=None, name=None):
    return {"id": ident, "name": name or f"{ident} Corp", "valid_from": valid_from, "valid_to": valid_to}


def trace(c, interactions, *, as_of=T, sample_id="s1", mode="unrestricted"):
    """Parse one trace record with the given interactions; each is (query, returned) or a whole interaction dict."""
    record = {
        "sample_id": sample_id,
        "as_of": as_of.isoformat(),
        "mode": mode,
        "interactions": [i if isinstance(i, dict) else {"tool": "search", "query": i[0], "returned": list(i[1])} for i in interactions],
    }
    return parse_traces([("trace:1", record)], c)[0]
