"""Time date attribution against plain json.loads of the same synthetic trace.

    python benchmarks/attribution.py                    # 2,000 interactions, best of 5 (~15 s)
    python benchmarks/attribution.py --interactions 200 --repeat 3   # a quick run

The trace is synthetic and seeded (``--seed``): one JSON line per tool call,
with its timestamp and 3 to 10 results, each shaped and sized like what the
services return (sizes are assumptions, stated here so they can be judged):

=============  ======  ==========================================================
kind           share   shape
=============  ======  ==========================================================
anthropic      30%     ``web_search_result``: url (half with a /YYYY/MM/DD/ path),
                       1-4 KB ``encrypted_content``, ``page_age`` "February 9,
                       2023", "3 days ago" or null
brave          25%     full web result (profile, meta_url, thumbnail, 0-5
                       extra_snippets), ISO ``page_age``, ``age``
tavily         12%     ``content`` of 40-120 words, RFC 2822 ``published_date``
exa            10%     ISO ``published_date`` with milliseconds, 100-600 words of ``text``
fetch-html      5%     a news page of 10-150 KB: meta tags, inline scripts, a
                       style block, JSON-LD, a byline ``<time datetime>``
fetch-text      5%     extracted page text (300-3,000 words), no markup
undated        13%     url without a date, ``snippet``, null ``page_age``: falls
                       through every source
=============  ======  ==========================================================

Rates, items per second, best of ``--repeat`` interleaved rounds:

- ``json.loads``: parse every line of the trace (the cost of reading it);
- ``attribute``: :func:`anachron.core.attribution.attribute` on every result
  of the parsed trace, with the call's own timestamp as ``now``.

The goal is attribution at no less than half the parse rate (ratio >= 0.5).
A per-kind table follows (each item parsed alone against attributing it),
so a mix of small items, where json.loads is cheapest, can be judged too.
Standard library only; rounds stop early once ``--budget`` seconds have
passed (default 20 s, so a default run stays under 30 s).
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import os
import platform
import random
import string
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from anachron.core import build_corpus, parse_traces, score_traces
from anachron.core.attribution import attribute  # noqa: E402

SITES = ("www.nytimes.com", "www.reuters.com", "www.cnbc.com", "techcrunch.com", "www.theguardian.com", "www.sec.gov")
KINDS = ("anthropic", "brave", "tavily", "exa", "fetch-html", "fetch-text", "undated")
WEIGHTS = (30, 25, 12, 10, 5, 5, 13)
B64 = string.ascii_letters + string.digits + "+/"


_VOCABULARY = tuple(
    "".join(random.Random(i).choices(string.ascii_lowercase, k=2 + i % 8)) for i in range(5_000)
)


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choices(_VOCABULARY, k=n))


def _day(rng: random.Random) -> dt.datetime:
    return dt.datetime(2021, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=rng.randrange(3 * 365 * 86_400))


def _long_date(day: dt.datetime) -> str:
    return f"{day:%B} {day.day}, {day.year}"


def _script(rng: random.Random) -> str:
    """An inline script of analytics-like JavaScript, 1 to 8 KB."""
    body = ";".join(f"window.{_words(rng, 1)}={{{_words(rng, 1)}:\"{_words(rng, 4)}\",n:{rng.randint(0, 9999)}}}"
                    for _ in range(rng.randint(15, 120)))
    return f"<script>{body}</script>"


def _html(rng: random.Random, day: dt.datetime, size: int) -> str:
    """A fetched news page: a <head> of meta tags, links, inline scripts,
    a style block and JSON-LD, then a body of about *size* characters with a
    byline <time datetime>."""
    published = day.isoformat(timespec="seconds")
    modified = (day + dt.timedelta(days=rng.randint(0, 90))).isoformat(timespec="seconds")
    metas = "".join(f'<meta name="{_words(rng, 1)}" content="{_words(rng, 6)}">' for _ in range(rng.randint(15, 35)))
    links = "".join(f'<link rel="preload" href="/assets/{_words(rng, 1)}.js" as="script">' for _ in range(rng.randint(5, 15)))
    scripts = "".join(_script(rng) for _ in range(rng.randint(2, 6)))
    style = "<style>" + "".join(f".{_words(rng, 1)}{{margin:{rng.randint(0, 40)}px}}" for _ in range(rng.randint(50, 300))) + "</style>"
    head = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{_words(rng, 8)}</title>{metas}'
        f'<meta property="og:title" content="{_words(rng, 8)}">'
        f'<meta property="article:published_time" content="{published}">'
        f'<meta property="article:modified_time" content="{modified}">'
        f"{links}{scripts}{style}"
        f'<script type="application/ld+json">{{"@context":"https://schema.org","@type":"NewsArticle",'
        f'"headline":"{_words(rng, 8)}","datePublished":"{published}","dateModified":"{modified}",'
        f'"author":[{{"@type":"Person","name":"{_words(rng, 2)}"}}]}}</script>'
        f'</head><body><nav>{"".join(f"<a href=/{_words(rng, 1)}>{_words(rng, 1)}</a>" for _ in range(40))}</nav>'
        f'<article><h1>{_words(rng, 10)}</h1><p class="byline">By {_words(rng, 2)} <time datetime="{published}">'
        f"{_long_date(day)}</time></p>"
    )
    body, length = [], 0
    while length < size:
        paragraph = f"<p>{_words(rng, rng.randint(20, 80))}</p>"
        body.append(paragraph)
        length += len(paragraph)
    return head + "".join(body) + "</article><footer>" + _words(rng, 40) + "</footer></body></html>"


def _result(rng: random.Random, kind: str) -> dict:
    """One result as the service named by *kind* returns it (sizes as observed: see the module docstring)."""
    day = _day(rng)
    site = rng.choice(SITES)
    slug = _words(rng, 5).replace(" ", "-")
    dated_url = f"https://{site}/{day:%Y/%m/%d}/business/{slug}.html"
    plain_url = f"https://{site}/markets/{slug}"
    title = _words(rng, 8)
    if kind == "anthropic":
        age = rng.choice([_long_date(day), None, f"{rng.randint(1, 6)} days ago"])
        return {"type": "web_search_result", "url": dated_url if rng.random() < 0.5 else plain_url, "title": title,
                "encrypted_content": "".join(rng.choices(B64, k=rng.randint(1_000, 4_000))), "page_age": age}
    if kind == "brave":
        return {"title": title, "url": plain_url, "is_source_local": False, "is_source_both": False,
                "description": _words(rng, 30), "page_age": day.replace(tzinfo=None).isoformat(timespec="seconds"),
                "profile": {"name": site, "url": f"https://{site}", "long_name": site, "img": f"https://imgs.search.brave.com/{slug}"},
                "language": "en", "family_friendly": True, "type": "search_result", "subtype": "article",
                "meta_url": {"scheme": "https", "netloc": site, "hostname": site, "favicon": f"https://imgs.search.brave.com/{slug}/favicon", "path": f"› markets › {slug}"},
                "thumbnail": {"src": f"https://imgs.search.brave.com/{slug}/thumb", "original": f"https://{site}/img/{slug}.jpg"},
                "age": rng.choice([_long_date(day), f"{rng.randint(1, 3)} weeks ago"]),
                "extra_snippets": [_words(rng, 25) for _ in range(rng.randint(0, 5))]}
    if kind == "tavily":
        return {"title": title, "url": plain_url, "content": _words(rng, rng.randint(40, 120)), "score": round(rng.random(), 4),
                "published_date": day.strftime("%a, %d %b %Y %H:%M:%S GMT"), "raw_content": None}
    if kind == "exa":
        return {"id": plain_url, "url": plain_url, "title": title, "author": _words(rng, 2), "score": round(rng.random(), 4),
                "published_date": day.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "text": _words(rng, rng.randint(100, 600))}
    if kind == "fetch-html":
        return {"url": plain_url, "title": title, "text": _html(rng, day, rng.randint(10_000, 150_000))}
    if kind == "fetch-text":
        return {"url": rng.choice([dated_url, plain_url]), "title": title, "text": _words(rng, rng.randint(300, 3_000))}
    return {"url": plain_url, "title": title, "snippet": _words(rng, 30), "page_age": None}


def synthetic_trace(interactions: int, seed: int = 2024) -> tuple[list[str], list[list[str]]]:
    """*interactions* JSON lines, each one tool call with its timestamp and
    results, and the kind of each result (for the per-kind table)."""
    rng = random.Random(seed)
    lines, kinds_of = [], []
    for i in range(interactions):
        now = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=rng.randrange(365 * 86_400))
        kinds = rng.choices(KINDS, WEIGHTS, k=rng.randint(3, 10))
        results = [_result(rng, kind) for kind in kinds]
        call = {"sample_id": f"sample-{i // 4:05d}", "tool": "web_search", "query": _words(rng, 4),
                "timestamp": now.isoformat(), "results": results}
        lines.append(json.dumps(call))
        kinds_of.append(kinds)
    return lines, kinds_of


def time_parse(lines: list[str]) -> float:
    loads = json.loads
    start = time.perf_counter()
    for line in lines:
        loads(line)
    return time.perf_counter() - start


def time_attribute(pairs: list[tuple[dt.datetime, dict]]) -> float:
    start = time.perf_counter()
    for now, result in pairs:
        attribute(result, now=now)
    return time.perf_counter() - start


def trace_records(lines: list[str]) -> list[tuple[str, dict]]:
    """The synthetic calls as trace records (docs/formats.md): one sample run per four calls."""
    runs: dict[str, dict] = {}
    for number, line in enumerate(lines, start=1):
        call = json.loads(line)
        run = runs.setdefault(call["sample_id"], {"sample_id": call["sample_id"], "as_of": "2024-06-01", "interactions": []})
        run["interactions"].append({"tool": call["tool"], "query": call["query"], "time": call["timestamp"],
                                    "returned": call["results"]})
    return [(f"bench:{i}", run) for i, run in enumerate(runs.values(), start=1)]


def time_score(records: list[tuple[str, dict]], corpus) -> float:
    start = time.perf_counter()
    score_traces(parse_traces(records, corpus), corpus)
    return time.perf_counter() - start


def best_of(repeat: int, deadline: float, *timers) -> list[float]:
    """The best time of each timer over up to *repeat* interleaved rounds (fewer past *deadline*)."""
    best = [float("inf")] * len(timers)
    for _ in range(repeat):
        for i, timer in enumerate(timers):
            best[i] = min(best[i], timer())
        if time.perf_counter() > deadline:  # at least one round, always
            break
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--interactions", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--budget", type=float, default=20.0, help="stop repeating after this many seconds")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    deadline = began + args.budget
    lines, kinds_of = synthetic_trace(args.interactions, args.seed)
    pairs, by_kind = [], collections.defaultdict(list)
    for line, kinds in zip(lines, kinds_of):
        call = json.loads(line)
        now = dt.datetime.fromisoformat(call["timestamp"])
        for kind, result in zip(kinds, call["results"]):
            pairs.append((now, result))
            by_kind[kind].append((now, result))
    items, size = len(pairs), sum(len(line) for line in lines)
    sources, granularities = collections.Counter(), collections.Counter()
    for now, result in pairs:  # an untimed pass: what the items are dated by
        a = attribute(result, now=now)
        sources[a.source.split(" ")[0] if a.source else "undated"] += 1
        granularities[a.granularity or "undated"] += 1

    records, corpus = trace_records(lines), build_corpus([])
    parse_s, attribute_s, score_s = best_of(
        args.repeat, deadline, lambda: time_parse(lines), lambda: time_attribute(pairs), lambda: time_score(records, corpus)
    )
    parse_rate, attribute_rate, score_rate = items / parse_s, items / attribute_s, items / score_s
    ratio = attribute_rate / parse_rate
    print(f"machine: {os.cpu_count()} CPUs, Python {platform.python_version()} ({platform.machine()})")
    print(f"trace: {len(lines):,} interactions, {items:,} items, {size / 2**20:.1f} MiB of JSON, seed {args.seed}")
    print(f"dated by: {dict(sorted(sources.items()))}; granularity: {dict(sorted(granularities.items()))}")
    print(f"json.loads (the trace's lines): {parse_rate:>10,.0f} items/s  ({parse_s * 1e6 / items:.1f} us/item)")
    print(f"attribute (every result):       {attribute_rate:>10,.0f} items/s  ({attribute_s * 1e6 / items:.1f} us/item)")
    print(f"score (parse_traces + score_traces): {score_rate:>7,.0f} items/s  ({score_s * 1e6 / items:.1f} us/item)")
    print(f"ratio attribute/json.loads: {ratio:.2f} (goal >= 0.50: {'met' if ratio >= 0.5 else 'NOT met'})")
    print(f"ratio score/json.loads:     {score_rate / parse_rate:.2f} (the whole scorer: validation, dating, "
          "content check, metrics)")
    print()
    print("per kind (json.loads of each item alone against attribute of it):")
    print(f"  {'kind':<11} {'items':>6} {'bytes/item':>10} {'json.loads/s':>13} {'attribute/s':>12} {'ratio':>6}")
    for kind in KINDS:
        group = by_kind.get(kind, [])
        if not group:
            continue
        texts = [json.dumps(result) for _, result in group]
        kind_parse, kind_attribute = best_of(
            args.repeat, deadline, lambda: time_parse(texts), lambda: time_attribute(group)
        )
        n = len(group)
        print(f"  {kind:<11} {n:>6,} {sum(map(len, texts)) / n:>10,.0f} {n / kind_parse:>13,.0f} "
              f"{n / kind_attribute:>12,.0f} {kind_parse / kind_attribute:>6.2f}")
    print(f"wall time: {time.perf_counter() - began:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
