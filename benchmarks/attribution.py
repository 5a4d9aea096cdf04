"""Time date attribution against plain json.loads of the same synthetic trace.

    python benchmarks/attribution.py                    # 2,000 interactions, best of 5
    python benchmarks/attribution.py --interactions 200 --repeat 3   # a quick run

The trace is synthetic and seeded: one JSON line per tool call, each with 3
to 10 results shaped like the services Anachron meets (Anthropic
``web_search_result`` with ``page_age``, Brave with ``age`` and
``page_age``, Tavily with an RFC 2822 ``published_date``, Exa with an ISO
``published_date`` and ``text``, fetched pages whose HTML carries meta tags
and JSON-LD, and undated results that fall through every source).

Two rates, items per second, best of ``--repeat`` runs each:

- ``json.loads``: parse every line of the trace (the cost of reading it);
- ``attribute``: :func:`anachron.core.attribution.attribute` on every result
  of the parsed trace, with the call's own timestamp as ``now``.

The goal is attribution at no less than half the parse rate (ratio >= 0.5).
Standard library only; the default run takes a few seconds and stops early
(reporting the runs done) if it passes ``--budget`` seconds.
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

from anachron.core.attribution import attribute  # noqa: E402

SITES = ("www.nytimes.com", "www.reuters.com", "www.cnbc.com", "techcrunch.com", "www.theguardian.com")
KINDS = ("anthropic", "brave", "tavily", "exa", "fetch", "undated")
WEIGHTS = (30, 25, 15, 12, 8, 10)


def _words(rng: random.Random, n: int) -> str:
    return " ".join("".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(n))


def _day(rng: random.Random) -> dt.datetime:
    return dt.datetime(2021, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=rng.randrange(3 * 365 * 86_400))


def _long_date(day: dt.datetime) -> str:
    return f"{day:%B} {day.day}, {day.year}"


def _html(rng: random.Random, day: dt.datetime, size: int) -> str:
    """A fetched article page: a <head> with meta tags and JSON-LD, then a body of about *size* characters."""
    published = day.isoformat(timespec="seconds")
    modified = (day + dt.timedelta(days=rng.randint(0, 90))).isoformat(timespec="seconds")
    metas = "".join(f'<meta name="{_words(rng, 1)}" content="{_words(rng, 6)}">' for _ in range(rng.randint(10, 30)))
    head = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{_words(rng, 8)}</title>{metas}'
        f'<meta property="og:title" content="{_words(rng, 8)}">'
        f'<meta property="article:published_time" content="{published}">'
        f'<meta property="article:modified_time" content="{modified}">'
        f'<script type="application/ld+json">{{"@context":"https://schema.org","@type":"NewsArticle",'
        f'"headline":"{_words(rng, 8)}","datePublished":"{published}","dateModified":"{modified}"}}</script>'
        f'<link rel="stylesheet" href="/assets/site.css"></head><body><article>'
    )
    body, length = [], 0
    while length < size:
        paragraph = f"<p>{_words(rng, rng.randint(20, 60))}</p>"
        body.append(paragraph)
        length += len(paragraph)
    return head + "".join(body) + "</article></body></html>"


def _result(rng: random.Random, kind: str, now: dt.datetime) -> dict:
    day = _day(rng)
    site = rng.choice(SITES)
    slug = _words(rng, 5).replace(" ", "-")
    dated_url = f"https://{site}/{day:%Y/%m/%d}/business/{slug}.html"
    plain_url = f"https://{site}/markets/{slug}"
    title = _words(rng, 8)
    if kind == "anthropic":
        age = rng.choice([_long_date(day), None, f"{rng.randint(1, 6)} days ago"])
        url = dated_url if rng.random() < 0.5 else plain_url
        return {"type": "web_search_result", "url": url, "title": title,
                "encrypted_content": "".join(rng.choices(string.ascii_letters + string.digits, k=400)), "page_age": age}
    if kind == "brave":
        return {"title": title, "url": plain_url, "description": _words(rng, 30),
                "age": rng.choice([_long_date(day), f"{rng.randint(1, 3)} weeks ago"]),
                "page_age": day.replace(tzinfo=None).isoformat(timespec="seconds"),
                "meta_url": {"scheme": "https", "netloc": site, "hostname": site, "path": f"› markets › {slug}"}}
    if kind == "tavily":
        return {"title": title, "url": plain_url, "content": _words(rng, 40), "score": round(rng.random(), 4),
                "published_date": day.strftime("%a, %d %b %Y %H:%M:%S GMT"), "raw_content": None}
    if kind == "exa":
        return {"id": plain_url, "url": plain_url, "title": title, "author": _words(rng, 2),
                "published_date": day.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "text": _words(rng, rng.randint(100, 400))}
    if kind == "fetch":
        return {"url": plain_url, "title": title, "text": _html(rng, day, rng.randint(4_000, 30_000))}
    return {"url": plain_url, "title": title, "snippet": _words(rng, 30), "page_age": None}


def synthetic_trace(interactions: int, seed: int = 2024) -> list[str]:
    """*interactions* JSON lines, each one tool call with its timestamp and results."""
    rng = random.Random(seed)
    lines = []
    for i in range(interactions):
        now = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=rng.randrange(365 * 86_400))
        kinds = rng.choices(KINDS, WEIGHTS, k=rng.randint(3, 10))
        results = [_result(rng, kind, now) for kind in kinds]
        call = {"sample_id": f"sample-{i // 4:05d}", "tool": "web_search", "query": _words(rng, 4),
                "timestamp": now.isoformat(), "results": results}
        lines.append(json.dumps(call))
    return lines


def time_parse(lines: list[str]) -> float:
    loads = json.loads
    start = time.perf_counter()
    for line in lines:
        loads(line)
    return time.perf_counter() - start


def time_attribute(calls: list[tuple[dt.datetime, list[dict]]]) -> float:
    start = time.perf_counter()
    for now, results in calls:
        for result in results:
            attribute(result, now=now)
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--interactions", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--budget", type=float, default=25.0, help="stop repeating after this many seconds")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    lines = synthetic_trace(args.interactions, args.seed)
    calls = []
    for line in lines:
        call = json.loads(line)
        calls.append((dt.datetime.fromisoformat(call["timestamp"]), call["results"]))
    items = sum(len(results) for _, results in calls)
    size = sum(len(line) for line in lines)
    sources, granularities = collections.Counter(), collections.Counter()
    for now, results in calls:  # an untimed pass: what the trace's items are dated by
        for result in results:
            a = attribute(result, now=now)
            sources[a.source.split(" '")[0].split(" ")[0] if a.source else "undated"] += 1
            granularities[a.granularity or "undated"] += 1
    parse_times, attribute_times = [], []
    for _ in range(args.repeat):
        parse_times.append(time_parse(lines))
        attribute_times.append(time_attribute(calls))
        if time.perf_counter() - began > args.budget:
            break
    parse_rate = items / min(parse_times)
    attribute_rate = items / min(attribute_times)
    ratio = attribute_rate / parse_rate
    print(f"machine: {os.cpu_count()} CPUs, Python {platform.python_version()} ({platform.machine()})")
    print(f"trace: {len(lines):,} interactions, {items:,} items, {size / 2**20:.1f} MiB of JSON, seed {args.seed}")
    print(f"dated by: {dict(sorted(sources.items()))}; granularity: {dict(sorted(granularities.items()))}")
    print(f"runs: {len(parse_times)} (best of each)")
    print(f"json.loads: {parse_rate:>12,.0f} items/s  ({min(parse_times) * 1e6 / items:.1f} us/item)")
    print(f"attribute:  {attribute_rate:>12,.0f} items/s  ({min(attribute_times) * 1e6 / items:.1f} us/item)")
    print(f"ratio attribute/json.loads: {ratio:.2f} (goal >= 0.50: {'met' if ratio >= 0.5 else 'NOT met'})")
    print(f"wall time: {time.perf_counter() - began:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
