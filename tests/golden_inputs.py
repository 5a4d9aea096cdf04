"""Deterministic inputs of the golden-output test (tests/project/slow_golden.py, tests/data/golden/record.py).

Standard library only, and nothing from the ``anachron`` package: these inputs must not move or
change when the package is re-laid out.  Every generator takes its randomness from one seeded
``random.Random``, iterates nothing unordered, and returns text (or bytes) that is the same on
every machine and every run.

The hostile trace set reuses the kinds of input tests/cli/test_hostile_input.py and
tests/hostile_upstream.py already treat as normal: lone surrogates (escaped in the JSON),
U+2028 / U+2029 / U+0085 inside strings, ids and titles with line breaks or markup, extreme
date offsets, digits of other scripts, NaN-ish values given as strings, very long queries,
unicode ids, undated open-web items, and every failure status (refused, exhausted, error).  It
is valid: ``anachron score`` accepts every line.  The invalid cases are each one small file
whose last line is bad: the CLI must exit 2 with one line on stderr and nothing on stdout.
"""

from __future__ import annotations

import json
import random
import re

SEED = 20240601

# The bundled v0 corpus (corpus/v0/items.jsonl): item id -> publish_date.  Listed here rather
# than read, so that the inputs never depend on where the corpus lives.
V0_ITEMS = {
    "fin-001": "2021-02-11", "fin-002": "2021-04-28", "fin-003": "2019-03-12", "fin-004": "2019-09-20",
    "fin-005": "2023-02-09", "fin-006": "2024-05-22", "fin-007": "2020-11-02", "fin-008": "2021-02-04",
    "fin-009": "2021-09-17", "fin-010": "2021-09-23", "fin-011": "2021-06-30", "fin-012": "2019-12-02",
    "fin-013": "2020-07-01", "fin-014": "2017-10-02", "fin-015": "2016-07-21", "fin-016": "2019-02-14",
    "fin-017": "2019-04-25", "fin-018": "2021-11-03", "fin-019": "2022-05-05", "fin-020": "2022-10-20",
    "fin-021": "2023-03-10", "fin-022": "2020-08-06", "fin-023": "2020-09-24", "fin-024": "2020-02-27",
    "fin-025": "2020-04-02", "fin-026": "2019-05-16", "fin-027": "2019-08-30", "fin-028": "2020-02-20",
    "fin-029": "2020-08-14", "fin-030": "2022-03-01", "fin-031": "2022-11-15", "fin-032": "2022-08-04",
    "fin-033": "2023-03-30", "news-001": "2022-09-01", "news-002": "2022-11-08", "news-003": "2021-07-06",
    "news-004": "2021-07-11", "news-005": "2020-03-18", "news-006": "2020-04-22", "news-007": "2019-05-20",
    "news-008": "2019-06-01", "news-009": "2023-01-05", "news-010": "2023-02-14", "news-011": "2021-11-30",
    "news-012": "2021-12-25", "news-013": "2018-02-12", "news-014": "2022-06-14", "news-015": "2022-07-19",
    "news-016": "2024-04-18", "news-017": "2024-05-25", "news-018": "2020-08-03", "news-019": "2023-03-12",
}
V0_ENTITIES = ("CYGN", "BORX", "DLTP", "ASTL", "NMBS", "KSTL", "PNRL", "GRNS", "LMNR", "HRBK")

# Cutoffs: ordinary days, a corpus publication day (published *on* T is no leak), a leap day.
AS_OF = ("2019-06-01", "2020-06-01", "2021-02-04", "2021-06-01", "2022-06-01", "2023-01-01", "2023-02-09", "2024-02-29")

ID_SUFFIXES = (
    "", "é", "日本語", "🙂", "\u2028", "\u2029", "\u0085", "\ud800", "\udc00x", "\u202eRTL", " two  spaces ",
    "tab\tin", 'quote"d', "<b>&amp;</b>", "back\\slash", "zero\u200bwidth", "ＦＵＬＬ", "٣",
)

QUERIES = (
    "cygnus robotics", "delta pharma revenue", "NaN", "Infinity", "-Infinity", "1e400", "-0", "null", "true",
    "Q3 2023 results", "FY24 outlook", "2023-07", "late 2026", "H2 2025 guidance", "２０２３年 results",
    "q4\u20282025 line", "sep\u2029para", "nel\u0085x", "lone \ud800 surrogate", "<script>alert(1)</script>",
    "emoji 🙂 search", "", "   ", "Q2 2022 results", "FY2022 earnings", "June 2022 figures",
)

OPEN_WEB_TITLES = ("Cygnus prices IPO", "two\nlines", "T\udc00itle", "A\u2028B", "<i>markup</i> & co", "Ünïcödé")


def _escape_lone_surrogates(text: str) -> str:
    # json.dumps(ensure_ascii=False) keeps lone surrogates as characters, which UTF-8 cannot
    # encode: write them as \\uXXXX escapes (valid JSON), and leave U+2028 and the rest raw.
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)


def _line(record: object, rng: random.Random) -> str:
    if rng.random() < 0.3:  # some lines fully escaped, the others raw UTF-8
        return json.dumps(record, ensure_ascii=True)
    return _escape_lone_surrogates(json.dumps(record, ensure_ascii=False))


def _long_query(rng: random.Random, n: int) -> str:
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9))) for _ in range(n)]
    words.insert(rng.randrange(len(words)), "q3 2024")
    return " ".join(words)


OPEN_WEB_KINDS = 12


def _open_web_item(rng: random.Random, sample: int, call: int, kind: int | None = None) -> tuple[dict, dict]:
    """An inline open-web item, and the extra fields its interaction needs (a ``time``)."""
    url = f"https://news{sample % 7}.example/s{sample}/c{call}"
    title = rng.choice(OPEN_WEB_TITLES)
    kind = rng.randrange(OPEN_WEB_KINDS) if kind is None else kind
    extra: dict = {}
    if kind == 0:
        item = {"url": f"https://www.reuters.example/{rng.choice(('2023/02/09', '2021/09/17', '2019/05/20'))}/story-{sample}-{call}", "title": title}
    elif kind == 1:
        item = {"url": url, "title": title, "page_age": rng.choice(("February 9, 2023", "June 1, 2022", "Mar 2020"))}
    elif kind == 2:
        item = {"url": url, "snippet": rng.choice(("Feb 9, 2023 - Cygnus Robotics priced its IPO", "Jan 3, 2021 — quiet quarter"))}
    elif kind == 3:  # a page dated before T that names a later period: a content leak
        item = {"url": url, "text": "<html><head><meta property='article:published_time' content='2019-01-02T10:00:00Z'>"
                "</head><body>Preview of the Q3 2026 results and FY2027 guidance.</body></html>"}
    elif kind == 4:  # modified after T: a revision risk
        item = {"url": url, "title": title, "published": "2018-03-04", "dateModified": "2025-05-06"}
    elif kind == 5:  # undated
        item = {"url": url, "title": title, "snippet": "no date anywhere"}
    elif kind == 6:  # a relative age, resolved by the call's time
        item = {"url": url, "page_age": rng.choice(("3 days ago", "2 weeks ago", "yesterday", "a month ago", "2 years ago"))}
        extra = {"time": rng.choice(("2022-06-03T10:00:00Z", "2023-02-12T23:59:59+05:30", "2020-01-01T00:00:00-0500"))}
    elif kind == 7:  # NaN-ish date values given as strings: unreadable, so undated, not an error
        item = {"url": url, "title": title, "published": rng.choice(("NaN", "Infinity", "null", "-0", "1e400", "２０２２-06-01"))}
    elif kind == 8:  # an inline item outside the corpus, dated strictly, naming a corpus entity
        item = {"id": url, "publish_date": rng.choice(AS_OF), "entities": [rng.choice(V0_ENTITIES)], "restates": None}
    elif kind == 9:  # an extreme offset: outside the plausible years, so skipped
        item = {"url": url, "title": title, "published": rng.choice(("9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+00:01"))}
    elif kind == 10:  # a corpus item given inline by id: it is that item
        ident = rng.choice(sorted(V0_ITEMS))
        item = {"id": ident, "restates": None} if ident not in ("fin-009", "fin-029", "fin-031", "fin-033") else {"id": ident}
    else:  # a month granule: uncertain when T falls inside it
        item = {"url": url, "title": title, "date": rng.choice(("2022-06", "February 2023", "2021"))}
    return item, extra


def _interaction(rng: random.Random, sample: int, call: int) -> dict:
    kind = rng.randrange(10)
    query = rng.choice(QUERIES) if rng.random() < 0.8 else None
    if kind <= 2:
        returned: list = rng.sample(sorted(V0_ITEMS), rng.randint(0, 4))
        return {"tool": "search", "query": query, "returned": returned}
    if kind == 3:
        item, extra = _open_web_item(rng, sample, call)
        return {"tool": rng.choice(("fetch", "web_search", "tavily_search")), "query": query, "returned": [item], **extra}
    if kind == 4:  # a refused fetch: a known post-T target is a blocked attempt
        return {"tool": "fetch", "status": "refused", "target": rng.choice(sorted(V0_ITEMS)), "error": "after the cutoff"}
    if kind == 5:
        return {"tool": "search", "status": "exhausted", "query": query}
    if kind == 6:
        return {"tool": rng.choice(("search", "fetch")), "status": "error", "query": query, "error": "upstream HTTP 500"}
    if kind == 7:  # a local call: judged by the seal audit only
        return {"tool": "Bash", "retrieval": False, "command": rng.choice(("ls -la", "curl -s https://example.com/x.json", "wget http://a.example", None))}
    if kind == 8:
        return {"tool": "search", "query": _long_query(rng, rng.choice((50, 400))), "returned": [rng.choice(sorted(V0_ITEMS))]}
    return {"tool": "fetch", "status": "refused", "target": None}


ANSWERS = (
    "Cygnus Robotics priced its IPO on 2023-02-09 as CYGN.",
    "Delta Pharma restated revenue to $377M.",
    "Nothing is known yet.",
    "line\u2028separated answer with \ud800 and 🙂",
    "",
)


def hostile_traces(seed: int = SEED, n: int = 64) -> str:
    """A valid trace file of *n* hostile samples (JSON Lines, UTF-8, lines end with ``\\n``)."""
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        as_of = rng.choice(AS_OF)
        record: dict = {"sample_id": f"h{i:03d}{rng.choice(ID_SUFFIXES)}", "as_of": as_of}
        if i == 0:
            record["sample_id"] = "x" * 160  # a very long id widens the table
        # A mode is one of two (docs/formats.md); four choices keep the seeded draws of the rest as they were.
        mode = rng.choice(("unrestricted", "enforced", "enforced", None))
        if mode is not None:
            record["mode"] = mode
        record["interactions"] = [_interaction(rng, i, c) for c in range(rng.choice((0, 1, 2, 3, 5, 8)))]
        if rng.random() < 0.4:
            record["answer"] = rng.choice(ANSWERS)
        if rng.random() < 0.2:
            record["citations"] = rng.sample(["fin-005", "fin-001", "https://news1.example/s1/c0", "ünï"], 2)
        if rng.random() < 0.15:
            record["extra_field"] = {"kept": [1, 2.5, None, "NaN"], "nested": {"x": "\u2029"}}
        lines.append(_line(record, rng))
        if i % 17 == 5:
            lines.append("")  # blank lines are ignored but keep their line numbers
    # One sample per kind of open-web item, whatever the draws above gave.
    for kind in range(OPEN_WEB_KINDS):
        item, extra = _open_web_item(rng, n + kind, 0, kind)
        record = {"sample_id": f"web-kind-{kind:02d}", "as_of": AS_OF[kind % len(AS_OF)],
                  "interactions": [{"tool": "fetch", "query": None, "returned": [item], **extra}]}
        lines.append(_line(record, rng))
    # An edge that is valid: a publish_date no one can read ("NaN") is undated, not an error.
    # (A call time with no day in UTC is refused: invalid_traces, "time-out-of-range".)
    lines.append('{"sample_id": "edge-nan-date", "as_of": "2022-06-01", "interactions": [{"tool": "search", "query": "q", '
                 '"returned": [{"id": "https://x.example/n", "publish_date": "NaN"}]}]}')
    return "\n".join(lines) + "\n"


def _ok(sample_id: str, **fields) -> str:
    return json.dumps({"sample_id": sample_id, "as_of": "2022-06-01", "interactions": [], **fields})


def invalid_traces() -> dict[str, bytes]:
    """Name -> trace file whose last line is invalid (each must exit 2 with one line on stderr)."""
    head = _ok("ok-1") + "\n" + _ok("ok-2", interactions=[{"tool": "search", "query": "q", "returned": ["fin-001"]}]) + "\n"
    call = '{"tool": "search", "query": "q", "returned": [%s]}'
    bad = {
        "nan-literal": '{"sample_id": "b", "as_of": "2022-06-01", "interactions": [], "score": NaN}',
        "infinity-literal": '{"sample_id": "b", "as_of": "2022-06-01", "interactions": [], "score": -Infinity}',
        "duplicate-key": '{"sample_id": "b", "sample_id": "c", "as_of": "2022-06-01", "interactions": []}',
        "impossible-day": '{"sample_id": "b", "as_of": "2022-02-30", "interactions": []}',
        "fullwidth-digits": '{"sample_id": "b", "as_of": "\uff12\uff10\uff12\uff12-06-01", "interactions": []}',
        "unknown-item": '{"sample_id": "b", "as_of": "2022-06-01", "interactions": [%s]}' % (call % '"no-such-item"'),
        "refused-returned": '{"sample_id": "b", "as_of": "2022-06-01", "interactions": [{"tool": "fetch", "status": "refused", "returned": ["fin-001"]}]}',
        "unknown-status": '{"sample_id": "b", "as_of": "2022-06-01", "interactions": [{"tool": "fetch", "status": "maybe"}]}',
        "duplicate-sample": _ok("ok-1"),
        "two-datings": '{"sample_id": "b", "as_of": "2022-06-01", "interactions": [%s, %s]}' % (
            call % '{"id": "https://x.example/a", "publish_date": "2023-01-02"}',
            call % '{"id": "https://x.example/a", "publish_date": "2022-05-01"}'),
        "truncated-json": '{"sample_id": "b", "as_of": "2022-06',
        "not-an-object": '["sample_id", "b"]',
        "as-of-disagrees": '{"sample_id": "finance-001", "as_of": "2022-06-02", "interactions": []}',
        "no-interactions": '{"sample_id": "b", "as_of": "2022-06-01"}',
        "unknown-entity": '{"sample_id": "b", "as_of": "2022-06-01", "interactions": [%s]}' % (
            call % '{"id": "https://x.example/e", "publish_date": "2022-01-01", "entities": ["ZZZZ"]}'),
        "corpus-item-redated": '{"sample_id": "b", "as_of": "2022-06-01", "interactions": [%s]}' % (
            call % '{"id": "fin-005", "publish_date": "2020-01-01"}'),
        "local-call-returned": '{"sample_id": "b", "as_of": "2022-06-01", "interactions": [{"tool": "Read", "retrieval": false, "returned": ["fin-001"]}]}',
        "number-sample-id": '{"sample_id": 12, "as_of": "2022-06-01", "interactions": []}',
        "time-out-of-range": '{"sample_id": "b", "as_of": "2022-06-01", "interactions": [{"tool": "search", "query": "q", '
                             '"returned": [], "time": "9999-12-31T23:59:59-23:59"}]}',
        "time-out-of-range-inline": '{"sample_id": "b", "as_of": "2022-06-01", "interactions": [{"tool": "search", "query": "q", '
                                    '"returned": [{"id": "https://x.example/t", "publish_date": "2 days ago"}], '
                                    '"time": "0001-01-01T00:00:00+23:59"}]}',
    }
    files = {name: (head + line + "\n").encode("utf-8") for name, line in bad.items()}
    files["not-utf8"] = head.encode("utf-8") + b'{"sample_id": "b\xff", "as_of": "2022-06-01", "interactions": []}\n'
    return files


# An event log of `anachron serve` (docs/mcp.md, format anachron-events/2), written as the server
# writes it: a start record, then one call record per call.  Calls 1 to 5 are those of
# tests/timelock/test_events.py (RUN_RECORDS); 6 to 9 add an undated item shown, separators and a lone
# surrogate in arguments and titles, and a budget refusal.
_RUN = "0" * 32


def _call(seq: int, tool: str, arguments: dict, status: str = "ok", error: str | None = None,
          returned: list | None = None, withheld: list | None = None) -> dict:
    withheld = withheld or []
    return {"event": "call", "run": _RUN, "seq": seq, "time": f"2026-01-01T00:00:{seq:02d}.000Z", "tool": tool,
            "arguments": arguments, "status": status, "error": error, "returned": returned or [],
            "withheld": withheld, "withheld_count": len(withheld), "budget": {}}


def event_log(torn: bool = False) -> str:
    url = "https://news.example/2022/07/01/cygnus"
    records = [
        {"event": "start", "format": "anachron-events/2", "run": _RUN, "time": "2026-01-01T00:00:00.000Z",
         "as_of": "2022-12-31", "mode": "enforced", "backend": "upstream", "source": "http://127.0.0.1:9/", "k": 5,
         "allow_undated": True, "limits": {"searches": None, "fetches": None, "calls": None},
         "date_presentation": "visible", "server": "test"},
        _call(1, "search", {"query": "q"}, returned=[{"id": "fin-001", "title": "t", "published": "2021-02-11"},
                                                     {"id": url, "title": "t", "published": "2022-07-01"}]),
        _call(2, "search", {"query": "Cygnus results Q3 2022"}, returned=[{"id": "fin-002", "title": "t", "published": "2021-04-28"}],
              withheld=[{"id": "fin-005", "published": "2023-02-09", "reason": "after-cutoff"}]),
        _call(3, "fetch", {"id_or_url": "fin-009"}),
        _call(4, "search", {"query": "x", "as_of": "2030-01-01"}, status="refused", error="unexpected argument"),
        _call(5, "search", {"query": "q"}, status="error", error="upstream /search answered HTTP 500"),
        _call(6, "search", {"query": "FY2023 \u2028 guidance \ud800"},
              returned=[{"id": "https://a.example/undated", "title": "T\u2029itle \ufffd", "published": None, "undated": "no date"}]),
        _call(7, "fetch", {"id_or_url": "https://late.example/x"},
              withheld=[{"id": "https://late.example/x", "published": "June 1st", "reason": "undated"}]),
        _call(8, "search", {"query": "Q1 2023 outlook"}, status="exhausted", error="budget exhausted: searches 3/3"),
        _call(9, "fetch", {"id_or_url": "fin-005"}, status="refused", error="after the cutoff",
              withheld=[{"id": "fin-005", "published": "2023-02-09", "reason": "after-cutoff"}]),
    ]
    text = "".join(_escape_lone_surrogates(json.dumps(r, ensure_ascii=False)) + "\n" for r in records)
    if torn:
        text += '{"event": "call", "run": "' + _RUN + '", "seq": 10, "time": "2026-01-01T00:00:1'
    return text


def answer() -> str:
    """The answer of the event log's run: its citations pass and fail for every reason."""
    citations = ["fin-001", {"url": "https://news.example/2022/07/01/cygnus", "claim": "c"}, {"id": "fin-002"},
                 "fin-005", "https://made.up/story", "https://news.example/2022/07/01/cygnus/", "fin-009",
                 "https://a.example/undated", "ünï\u2028code"]
    return json.dumps({"prediction": "Cygnus lists in 2023", "citations": citations}, ensure_ascii=False) + "\n"


def bank_responses(bank_jsonl: str, seed: int = SEED) -> str:
    """A responses file for `anachron bank run --system FILE`: one response per bank item, drawn
    from the item's own answer and the shapes the judge reads (units, scales, refusals, hedges,
    wrong values, restatement remarks, structured refusals and answers)."""
    rng = random.Random(seed)
    lines = []
    for line in bank_jsonl.splitlines():
        if not line.strip():
            continue
        item = json.loads(line)
        truth = item.get("answer")
        latest = item["values"][-1]["value"] if item.get("values") else None
        options = ["unknown", "I cannot know that as of that date.", "I don't know", "", "   ", "N/A"]
        for value in (truth, latest):
            if value is None:
                continue
            options += [value, f"The answer is {value}.", f"{value} (later restated)", f"approximately {value}"]
            if value.isdigit():
                options += [f"${int(value) / 1e6:g}M", f"{int(value):,}", f"USD {int(value) / 1e9:g} billion", str(int(value) + 1)]
        options += ["listed", "delisted", "not listed", {"refused": True}, {"answer": str(latest), "refused": False},
                    '{"refused": true}', "日本語の回答", "a\u2028b"]
        response = rng.choice(options)
        lines.append(json.dumps({"item_id": item["id"], "response": response}, ensure_ascii=False))
    return "\n".join(lines) + "\n"
