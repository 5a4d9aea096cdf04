"""Issue 26 §2: the lock serves an item only if no source dates it after T; the scorer shows the conflict.

Families: every pairing of two date source kinds (two fields, the URL path, a leading snippet
date, HTML meta, JSON-LD, ``<time>``) times the states before / after / straddling T, each
asserting the lock's decision (enforced, with and without ``allow_undated``) and the scorer's
evidence; the issue's named cases; the boundary (a date on T is not after T); a wrong weekday.
"""

from __future__ import annotations

import datetime as dt
import itertools
import time
import unittest

from anachron.core import parse_traces, score_trace, summarise
from anachron.core.leakage import read_sample
from anachron.core.attribution import attribute, html_dates
from anachron.timelock import Hit, Limits, TimeLock, recheck
from anachron.timelock.events import parse_calls
from tests.corpus_fixtures import corpus

T = dt.date(2022, 12, 15)
BEFORE, AFTER, STRADDLE = "before", "after", "straddle"
# The value of each state: a day before T, a day after T, the month containing T.
ISO = {BEFORE: "2022-05-01", AFTER: "2023-03-02", STRADDLE: "2022-12"}
URL = {BEFORE: "/2022/05/01", AFTER: "/2023/03/02", STRADDLE: "/2022/12"}
SNIPPET = {BEFORE: "May 1, 2022", AFTER: "Mar 2, 2023"}  # a leading snippet date is always a day
PLAIN_URL = "https://news.example/story/x"

# Each kind: its label in evidence, the states it can express, and how it is written into an entry.
KINDS = {
    "published": ("field 'published'", (BEFORE, AFTER, STRADDLE)),
    "date": ("field 'date'", (BEFORE, AFTER, STRADDLE)),
    "url": ("url", (BEFORE, AFTER, STRADDLE)),
    "snippet": ("snippet", (BEFORE, AFTER)),
    "meta": ("html article:published_time", (BEFORE, AFTER, STRADDLE)),
    "json-ld": ("html json-ld datePublished", (BEFORE, AFTER, STRADDLE)),
    "time": ("html <time datetime>", (BEFORE, AFTER, STRADDLE)),
}
ORDER = tuple(KINDS)  # attribution's source order


def value_of(kind: str, state: str) -> str:
    return URL[state] if kind == "url" else SNIPPET[state] if kind == "snippet" else ISO[state]


def entry_of(sources: dict[str, str]) -> dict:
    """An upstream result carrying each kind of *sources* (kind -> state), nothing else dated."""
    entry: dict = {"url": PLAIN_URL, "title": "A story"}
    html = []
    for kind, state in sources.items():
        if kind in ("published", "date"):
            entry[kind] = ISO[state]
        elif kind == "url":
            entry["url"] = f"https://news.example{URL[state]}/x"
        elif kind == "snippet":
            entry["snippet"] = f"{SNIPPET[state]} — the board met."
        elif kind == "meta":
            html.append(f'<meta property="article:published_time" content="{ISO[state]}">')
        elif kind == "json-ld":
            html.append(f'<script type="application/ld+json">{{"@type": "NewsArticle", "datePublished": "{ISO[state]}"}}</script>')
        else:
            html.append(f'<p>By a reporter <time datetime="{ISO[state]}">then</time></p>')
    if html:
        entry["text"] = "<html><head>" + "".join(html) + "</head></html>"
    return entry


def first_day(kind: str, state: str) -> str:
    return {BEFORE: "2022-05-01", AFTER: "2023-03-02", STRADDLE: "2022-12-01"}[state]


def shown(kind: str, state: str) -> str:
    """How evidence writes the granule of *kind* in *state*."""
    return "2022-12 (month)" if state == STRADDLE else first_day(kind, state)


def lock_decision(entry: dict, *, allow_undated: bool = False):
    checked = recheck([Hit(entry["url"], entry["title"], "", (), entry)], T, allow_undated=allow_undated)
    if checked.seen:
        return "shown", checked.seen[0]
    return checked.withheld[0].reason, checked.withheld[0]


def score(entry: dict):
    record = {"sample_id": "s", "as_of": T.isoformat(), "interactions": [{"tool": "search", "returned": [entry]}]}
    c = corpus(items=[])
    return score_trace(parse_traces([("t:1", record)], c)[0], c)


class PairingsTest(unittest.TestCase):
    """Every pairing of two source kinds, each in every state it can express."""

    def cases(self):
        for a, b in itertools.combinations(ORDER, 2):
            for sa, sb in itertools.product(KINDS[a][1], KINDS[b][1]):
                yield {a: sa, b: sb}

    def test_the_families_are_complete(self):
        # 21 pairs of kinds; the snippet has 2 states, every other kind 3.
        self.assertEqual(sum(1 for _ in self.cases()), 15 * 9 + 6 * 6)

    def test_every_source_is_kept_in_order(self):
        for sources in self.cases():
            with self.subTest(sources=sources):
                a = attribute(entry_of(sources))
                self.assertEqual([s.source for s in a.sources], [KINDS[k][0] for k in sources])
                self.assertEqual([s.value for s in a.sources], [value_of(k, s) for k, s in sources.items()])
                first_kind = next(iter(sources))
                self.assertEqual(a.source, KINDS[first_kind][0])  # the attribution reports the first source

    def test_the_lock_serves_only_when_no_source_is_after_t(self):
        for sources in self.cases():
            states = set(sources.values())
            for allow_undated in (False, True):
                with self.subTest(sources=sources, allow_undated=allow_undated):
                    decision, record = lock_decision(entry_of(sources), allow_undated=allow_undated)
                    labels = [KINDS[k][0] for k in sources]
                    if AFTER in states:
                        late = next(k for k, s in sources.items() if s == AFTER)
                        self.assertEqual(decision, "after-cutoff")
                        self.assertEqual((record.published, record.dated_by), ("2023-03-02", KINDS[late][0]))
                    elif STRADDLE in states and not allow_undated:
                        self.assertEqual(decision, "uncertain")  # fail closed: T inside a source's month
                        self.assertEqual(record.dated_by, KINDS[next(k for k, s in sources.items() if s == STRADDLE)][0])
                    else:
                        self.assertEqual(decision, "shown")
                        self.assertEqual(record.dated_by, labels[0])
                    self.assertEqual([s.source for s in record.sources], labels)

    def test_the_scorer_reports_a_conflict_across_t(self):
        for sources in self.cases():
            with self.subTest(sources=sources):
                result = score(entry_of(sources))
                before = next((k for k, s in sources.items() if s == BEFORE), None)
                after = next((k for k, s in sources.items() if s == AFTER), None)
                conflicts = [line for line in result.evidence if "date conflict" in line]
                if before and after:
                    self.assertEqual(conflicts, [
                        f'#1 date conflict: item {entry_of(sources)["url"]} dated 2022-05-01 by {KINDS[before][0]} '
                        f'("{value_of(before, BEFORE)}") but 2023-03-02 by {KINDS[after][0]} ("{value_of(after, AFTER)}")'
                    ])
                    self.assertEqual(result.date_conflicts, 1)
                else:
                    self.assertEqual((conflicts, result.date_conflicts), ([], 0))
                # The point TCLR is the first source's; a conflict across T, with no leak, widens the band.
                first_state = next(iter(sources.values()))
                self.assertEqual(result.result_leaks, 1 if first_state == AFTER else 0)
                uncertain = first_state == STRADDLE or bool(before and after)
                self.assertEqual(result.undated, 1 if uncertain and first_state != AFTER else 0)


class BoundaryTest(unittest.TestCase):
    def test_a_date_on_t_is_not_after_t(self):
        for kind, label in (("published", "field 'published'"), ("url", "url"), ("meta", "html article:published_time")):
            entry = {"url": PLAIN_URL, "title": "t", "published": "2022-05-01"}
            if kind == "published":
                entry["date"] = "2022-12-15"
            elif kind == "url":
                entry["url"] = "https://news.example/2022/12/15/x"
            else:
                entry["text"] = '<meta property="article:published_time" content="2022-12-15T23:59:59Z">'
            with self.subTest(kind=kind):
                decision, record = lock_decision(entry)
                self.assertEqual(decision, "shown")
                self.assertEqual(record.published, dt.date(2022, 5, 1))
                self.assertEqual(score(entry).date_conflicts, 0)

    def test_a_day_after_t_is_after_t(self):
        entry = {"url": "https://news.example/2022/12/16/x", "title": "t", "published": "2022-12-15"}
        self.assertEqual(lock_decision(entry)[0], "after-cutoff")
        self.assertEqual(score(entry).date_conflicts, 1)

    def test_a_month_or_year_whose_first_day_is_after_t_dates_it_after_t(self):
        for late in ("2023-01", "2023"):
            entry = {"url": PLAIN_URL, "title": "t", "published": "2022-05-01", "date": late}
            with self.subTest(late=late):
                decision, record = lock_decision(entry)
                self.assertEqual((decision, record.published), ("after-cutoff", "2023-01-01"))

    def test_a_year_straddling_t_is_uncertain(self):
        entry = {"url": PLAIN_URL, "title": "t", "published": "2022-05-01", "date": "2022"}
        self.assertEqual(lock_decision(entry)[0], "uncertain")
        self.assertEqual(lock_decision(entry, allow_undated=True)[0], "shown")


class NamedCasesTest(unittest.TestCase):
    """The four cases of issue 26 §2, each served before (the first date trusted), withheld now."""

    def test_json_ld_whose_first_entity_is_the_website(self):
        page = ('<script type="application/ld+json">{"@context": "https://schema.org", "@graph": ['
                '{"@type": "WebSite", "datePublished": "2015-01-01"},'
                '{"@type": "Organization", "datePublished": "2010-01-01"},'
                '{"@type": ["NewsArticle"], "datePublished": "2023-03-02"}]}</script>')
        self.assertEqual(html_dates(page, []), {"html json-ld datePublished": "2023-03-02"})
        self.assertEqual(lock_decision({"url": PLAIN_URL, "title": "t", "text": page})[0], "after-cutoff")

    def test_a_meta_tag_inside_an_inline_script(self):
        page = ("<script>document.write('<meta property=\"article:published_time\" content=\"2020-01-01\">');</script>"
                '<meta property="article:published_time" content="2023-03-02">')
        self.assertEqual(html_dates(page, []), {"html article:published_time": "2023-03-02"})
        self.assertEqual(lock_decision({"url": PLAIN_URL, "title": "t", "text": page})[0], "after-cutoff")

    def test_a_related_storys_time_before_the_articles_own(self):
        for block in ('<aside><time datetime="2021-01-01">x</time></aside>',
                      '<nav><a><time datetime="2021-01-01">x</time></a></nav>',
                      '<footer><time datetime="2021-01-01">x</time></footer>',
                      '<div class="story-related"><div><time datetime="2021-01-01">x</time></div></div>',
                      '<section data-x="1" id="Recommended"><time datetime="2021-01-01">x</time></section>',
                      '<ul role="complementary"><li><time datetime="2021-01-01">x</time></li></ul>'):
            page = block + '<article><time datetime="2023-03-02">March 2</time></article>'
            with self.subTest(block=block):
                self.assertEqual(html_dates(page, []), {"html <time datetime>": "2023-03-02"})
                self.assertEqual(lock_decision({"url": PLAIN_URL, "title": "t", "text": page})[0], "after-cutoff")

    def test_a_block_ends_at_its_matching_close_tag_or_at_the_cap(self):
        from anachron.core.attribution.html_meta import MAX_BLOCK_CLOSES

        self.assertEqual(MAX_BLOCK_CLOSES, 256)
        inner = '<time datetime="2021-01-01">'
        nested = '<div class="related">' + "<div>" * 255 + "</div>" * 255 + inner + "</div>" + '<time datetime="2023-03-02">'
        self.assertEqual(html_dates(nested, []), {"html <time datetime>": "2023-03-02"})  # 256 closes: the block's own end
        deeper = '<div class="related">' + "<div>" * 300 + "</div>" * 256 + inner + "</div>" * 45 + '<time datetime="2023-03-02">'
        self.assertEqual(html_dates(deeper, []), {"html <time datetime>": "2021-01-01"})  # cut at the 256th close tag
        self.assertEqual(html_dates('<DIV CLASS="Related"><Div>' + inner + "</dIV></div >x</DIV><time datetime=2023-03-02>", []),
                         {"html <time datetime>": "2023-03-02"})

    def test_a_keyword_elsewhere_in_a_tag_excludes_nothing(self):
        page = '<a href="/related/x">x</a><time datetime="2021-01-01">x</time><div class="body">related</div>'
        self.assertEqual(html_dates(page, []), {"html <time datetime>": "2021-01-01"})

    def test_a_snippet_leading_with_an_event_date(self):
        # An event date cannot be told from a dateline: it is a source, so a post-T one withholds.
        entry = {"url": PLAIN_URL, "title": "t", "published": "2022-05-01",
                 "snippet": "Dec 5, 2024 — the conference will open in Lisbon."}
        decision, record = lock_decision(entry)
        self.assertEqual((decision, record.published, record.dated_by), ("after-cutoff", "2024-12-05", "snippet"))
        self.assertIn('#1 date conflict: item https://news.example/story/x dated 2022-05-01 by field \'published\' '
                      '("2022-05-01") but 2024-12-05 by snippet ("Dec 5, 2024")', score(entry).evidence)


class WeekdayTest(unittest.TestCase):
    """3 Jan 2023 is a Tuesday: ``Wed, 3 Jan 2023`` contradicts itself."""

    ENTRY = {"url": PLAIN_URL, "title": "t", "published": "2022-05-01", "date": "Wed, 3 Jan 2023"}

    def test_the_lock_withholds_it_even_with_allow_undated(self):
        for allow_undated in (False, True):
            decision, record = lock_decision(self.ENTRY, allow_undated=allow_undated)
            self.assertEqual((decision, record.dated_by), ("contradictory-date", "field 'date'"))
            self.assertEqual(record.sources[1].contradiction, "'Wed, 3 Jan 2023': 2023-01-03 is a Tuesday")

    def test_the_scorer_reports_it_undated_with_evidence(self):
        result = score(self.ENTRY)
        self.assertEqual((result.undated, result.result_leaks), (1, 0))
        self.assertIn("#1 undated item https://news.example/story/x (field 'date': 'Wed, 3 Jan 2023': 2023-01-03 is a Tuesday)",
                      result.evidence)

    def test_a_right_weekday_is_a_date(self):
        decision, _ = lock_decision({**self.ENTRY, "date": "Tue, 3 Jan 2023"})
        self.assertEqual(decision, "after-cutoff")


class SummaryTest(unittest.TestCase):
    def test_date_conflicts_are_summed_per_run(self):
        conflicting = entry_of({"published": BEFORE, "url": AFTER})
        clean = entry_of({"published": BEFORE})
        results = [score(conflicting), score(clean), score(conflicting)]
        self.assertEqual([r.date_conflicts for r in results], [1, 0, 1])
        summary = summarise(results)
        self.assertEqual((summary.date_conflicts, summary.to_dict()["date_conflicts"]), (2, 2))
        self.assertEqual(results[0].to_dict()["date_conflicts"], 1)
        self.assertEqual(read_sample(results[0].to_dict(), "run.json"), results[0])


class EventLogTest(unittest.TestCase):
    """Every source, with its value, is in the lock's records, and is read back."""

    class Backend:
        kind, source = "upstream", "stub"

        def __init__(self, entries):
            self.hits = [Hit(e["url"], e["title"], "", (), e) for e in entries]

        def search(self, query, *, k, as_of, mode):
            return list(self.hits)

        def fetch(self, ref, *, as_of, mode):
            return []

    class Journal:
        def __init__(self):
            self.records = []

        def write(self, header, record):
            self.records.append(dict(record))

    def test_returned_and_withheld_items_log_every_source(self):
        served = entry_of({"published": BEFORE, "url": BEFORE})
        late = entry_of({"published": BEFORE, "date": STRADDLE, "url": AFTER})
        journal = self.Journal()
        lock = TimeLock(self.Backend([served, late]), T, journal, limits=Limits(), run="r1")
        self.assertEqual(lock.call("search", {"query": "x"}).status, "ok")
        record = journal.records[0]
        self.assertEqual(record["returned"][0]["dated_by"], "field 'published'")
        self.assertEqual(record["returned"][0]["sources"], [
            {"source": "field 'published'", "value": "2022-05-01", "published": "2022-05-01", "granularity": "day"},
            {"source": "url", "value": "/2022/05/01", "published": "2022-05-01", "granularity": "day"},
        ])
        self.assertEqual(record["withheld"], [{
            "id": late["url"], "published": "2023-03-02", "reason": "after-cutoff", "dated_by": "url",
            "sources": [
                {"source": "field 'published'", "value": "2022-05-01", "published": "2022-05-01", "granularity": "day"},
                {"source": "field 'date'", "value": "2022-12", "published": "2022-12-01", "granularity": "month"},
                {"source": "url", "value": "/2023/03/02", "published": "2023-03-02", "granularity": "day"},
            ],
        }])
        call = parse_calls([("events:2", record)], run="r1")[0]
        self.assertEqual(call.returned[0].sources, lock_decision(served)[1].sources)
        withheld = call.withheld[0]
        self.assertEqual((withheld.dated_by, [s.status(T) for s in withheld.sources]), ("url", ["known", "uncertain", "leak"]))
        self.assertEqual(withheld.sources[1].last, dt.date(2022, 12, 31))


class EventLogReaderTest(unittest.TestCase):
    """A ``sources`` list that breaks the format is refused, naming the record and the field."""

    GOOD = {"source": "url", "value": "/2023/03/02", "published": "2023-03-02", "granularity": "day"}

    def read(self, sources):
        record = {"event": "call", "run": "r", "seq": 1, "time": "2022-12-15T00:00:00Z", "tool": "search",
                  "arguments": {"query": "x"}, "status": "ok", "error": None, "withheld_count": 0, "withheld": [],
                  "returned": [{"id": "u", "title": "t", "published": "2022-05-01", "sources": sources}],
                  "budget": {}}
        return parse_calls([("events.jsonl:2", record)], run="r")[0].returned[0].sources

    def test_bad_sources(self):
        from anachron.core.errors import AnachronError

        cases = {
            "not a list": ({"source": "url"}, "field 'sources': expected a list, got an object"),
            "not an object": (["url"], "field 'sources[0]': expected an object, got the string 'url'"),
            "no label": ([{**self.GOOD, "source": ""}], "sources[0]: field 'source': must not be empty"),
            "no value": ([{k: v for k, v in self.GOOD.items() if k != "value"}], "sources[0]: missing field 'value'"),
            "bad granularity": ([{**self.GOOD, "granularity": "week"}], "sources[0]: field 'granularity': the string 'week' is not one of day, month, year"),
            "no date, no reason": ([{**self.GOOD, "published": None}], "field 'contradiction': a source without a date must say why"),
            "implausible month": ([{**self.GOOD, "published": "1900-01-01", "granularity": "month"}], "field 'published': year 1900"),
        }
        for name, (sources, message) in cases.items():
            with self.subTest(case=name):
                with self.assertRaises(AnachronError) as caught:
                    self.read(sources)
                self.assertIn("events.jsonl:2", str(caught.exception))
                self.assertIn(message, str(caught.exception))

    def test_good_sources(self):
        month = {**self.GOOD, "value": "2022-12", "published": "2022-12-01", "granularity": "month"}
        wrong = {"source": "field 'date'", "value": "Wed, 3 Jan 2023", "published": None, "granularity": None,
                 "contradiction": "2023-01-03 is a Tuesday"}
        read = self.read([self.GOOD, month, wrong])
        self.assertEqual([(s.first, s.last, s.status(T)) for s in read], [
            (dt.date(2023, 3, 2), dt.date(2023, 3, 2), "leak"),
            (dt.date(2022, 12, 1), dt.date(2022, 12, 31), "uncertain"),
            (None, None, "contradictory"),
        ])
        self.assertEqual(self.read([]), ())


class CostTest(unittest.TestCase):
    """Excluded blocks and skipped scripts keep the HTML scan linear, whatever the page."""

    def test_hostile_blocks(self):
        pages = {
            "nested asides": "<aside>" * 100_000,
            "unclosed related divs": '<div class="related">' * 40_000,
            "a related div closed many times": '<div class="related">' + "</div><div>" * 60_000,
            "unclosed scripts": "<script>" * 100_000,
            "class= without end": "<div class=" * 60_000,
            "class=class=": "<div " + "class=" * 150_000,
        }
        for name, page in pages.items():
            with self.subTest(page=name):
                started = time.process_time()
                html_dates(page + '<time datetime="2023-03-02">', [])
                self.assertLess(time.process_time() - started, 2.0)


if __name__ == "__main__":
    unittest.main()
