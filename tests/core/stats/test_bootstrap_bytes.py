"""The "bytes" resampling of compare_modes (BYTES_FROM <= n < BYTES_UNTIL): every resample's rows
drawn at once; uniform, exact, seeded, and the plain path's figures wherever the data leave no
room for chance.

Speed is measured in benchmarks/compare_modes.py, never here.
"""

from __future__ import annotations

import bisect
import hashlib
import math
from itertools import accumulate
import random
import sys
import unittest
from unittest import mock

from anachron.core import AnachronError, compare_modes
from anachron.core.stats import bootstrap as _bootstrap, paired as _paired
from anachron.core.stats.bootstrap import BYTES_FROM, BYTES_UNTIL, BandStatistics, ByteResamples, band_edge, paired_method
from anachron.core.stats.mean import mean_interval
from fractions import Fraction

from tests.core.stats.test_bootstrap_blocks import continuous, rows_of
from tests.core.stats.test_paired import order_statistic_band, plain_bootstrap, type7


def reference_draws(n: int, b: int, rng: random.Random) -> list[list[int]]:
    """The rows each "bytes" resample draws, as docs/metrics.md states them, one draw at a time."""
    key = rng.getrandbits(128).to_bytes(16, "little")

    def uniform(label: bytes, count: int, over: int) -> list[int]:
        keep = 256 // over * over
        stream = hashlib.shake_128(key + label).digest(count * 2 + 4096)  # enough, but for a vanishing chance
        out = [x % over for x in stream if x < keep][:count]
        assert len(out) == count
        return out

    whole_rows = split_at(n)
    if whole_rows:  # c ~ Binomial(n, P / n) draws of rows 0 .. P - 1, then n - c of the rest
        counts, _ = reference_binomial(rng, n, whole_rows, b)
        lows = iter(uniform(b"\0", sum(counts), whole_rows))
        highs = iter(uniform(b"\1", n * b - sum(counts), n - whole_rows))
        return [[next(lows) for _ in range(c)] + [whole_rows + next(highs) for _ in range(n - c)] for c in counts]
    if n <= 256:
        drawn = uniform(b"\0", n * b, n)
        return [drawn[i * n:(i + 1) * n] for i in range(b)]
    # Groups of 256 rows (the last one of the rest); a resample's count in each: below 512 rows,
    # Binomial(n, 256 / n) by inversion; from 512, as the groups path draws them.
    if n < 512:
        whole, _ = reference_binomial(rng, n, 256, b)
        counts = [whole, [n - c for c in whole]]
    else:
        counts = _bootstrap._group_counts(rng, n, b)
    streams = [iter(uniform(bytes([g]), sum(counts[g]), min(256, n - 256 * g))) for g in range(len(counts))]
    return [[256 * g + next(streams[g]) for g in range(len(counts)) for _ in range(counts[g][i])] for i in range(b)]


def reference_binomial(rng: random.Random, n: int, m: int, count: int) -> tuple[list[int], int]:
    """Binomial(n, m / n) draws as docs/metrics.md states them: the least k with U < P(X <= k), U's
    first 16 bits the draw's 16 of getrandbits(16 count), then, for the draws those leave open, 64
    more at a time; and how many draws were left open."""
    scale = n**n
    cums = list(accumulate(math.comb(n, k) * m**k * (n - m) ** (n - k) for k in range(n + 1)))  # P(X <= k) n^n

    def decided(u: int, width: int) -> int | None:  # U in [u, u + 1) / 2^width
        surely = bisect.bisect_left(cums, -(-(u + 1) * scale >> width))  # the least k with (u + 1) / 2^w <= P(X <= k)
        maybe = bisect.bisect_right(cums, u * scale >> width)  # the least k with u / 2^w < P(X <= k)
        return surely if surely == maybe else None

    data = rng.getrandbits(16 * count).to_bytes(2 * count, "little")
    prefixes = [int.from_bytes(data[2 * i:2 * i + 2], "little") for i in range(count)]
    out = [decided(u, 16) for u in prefixes]
    left_open = out.count(None)
    for i, u in enumerate(prefixes):
        width = 16
        while out[i] is None:
            u, width = u << 64 | rng.getrandbits(64), width + 64
            out[i] = decided(u, width)
    return out, left_open  # type: ignore[return-value]


def split_at(n: int) -> int | None:
    """Where the rows of a "bytes" stream are split into two parts (None: one part), docs/metrics.md."""
    return 1 << (n.bit_length() - 1) if n <= 256 and 256 % n * 4 > 256 else None


def reference_totals(columns: list[list[int]], b: int, rng: random.Random) -> list[tuple[int, ...]]:
    """The "bytes" draws (:func:`reference_draws`) summed plainly."""
    return [tuple(sum(column[r] for r in rows) for column in columns) for rows in reference_draws(len(columns[0]), b, rng)]


class DrawsTest(unittest.TestCase):
    def test_the_totals_are_the_reference_draws_summed(self):
        rng = random.Random(5)
        for n in (1, 2, 3, 64, 255, 256, 257, 300, 513, 770, 1039):
            big = [rng.getrandbits(130) - (1 << 129) for _ in range(n)]  # signed, beyond any machine word
            small = [rng.randrange(3) for _ in range(n)]
            with self.subTest(n=n):
                expected = reference_totals([big, small], 20, random.Random(n))
                for bits in (None, 0, 1, 8, sys.maxsize):  # how much the first pass sums never changes a total
                    drawn = ByteResamples([big, small], 20, random.Random(n), bits)
                    exact = list(drawn.exact(range(20)).values())
                    self.assertEqual(exact, expected)
                    for c in range(2):
                        lows, highs = drawn.bounds(c)
                        self.assertTrue(all(lo <= t[c] <= hi for lo, hi, t in zip(lows, highs, exact)))

    def test_resamples_are_cut_in_order_whatever_the_cut_a_call(self):
        # A stream is cut into resamples' pieces (n bytes each up to 256 rows, a group's counts
        # from 257), some pieces a C call: whole calls, a part call, or both, give each resample
        # its own draws, in order.
        rng = random.Random(6)
        for n in (100, 150, 300):
            column = [rng.getrandbits(20) for _ in range(n)]
            for b in (3, 8, 9):
                with self.subTest(n=n, b=b), mock.patch.object(_bootstrap, "_PIECES_A_CALL", 4):
                    drawn = ByteResamples([column], b, random.Random(b), None)
                    self.assertEqual(list(drawn.exact(range(b)).values()), reference_totals([column], b, random.Random(b)))

    def test_without_zlib_the_totals_are_the_same(self):
        # The sums' pure-Python stand-in runs on from one group's value to the next, as adler32 does.
        rng = random.Random(4)
        for n in (100, 300, 1039):
            columns = [[rng.getrandbits(70) for _ in range(n)], [rng.randrange(3) for _ in range(n)]]
            expected = reference_totals(columns, 12, random.Random(n))
            for bits in (None, sys.maxsize):
                with self.subTest(n=n, bits=bits), mock.patch.object(_bootstrap, "_adler32", _bootstrap._python_adler32):
                    self.assertEqual(list(ByteResamples(columns, 12, random.Random(n), bits).exact(range(12)).values()), expected)

    def test_every_row_is_drawn_alike(self):
        # One draw a row of weight 1: a resample's total counts that row's draws. Over B resamples of n
        # rows, each row's count is Binomial(B n, 1 / n); the chi-square over rows stays near n - 1.
        for n in (100, 129, 257, 300, 301, 1000):
            with self.subTest(n=n):
                b = 3000 if n < 1000 else 1000
                read = range(0, n, max(1, n // 40))  # 40 rows a size, each its own column
                columns = [[int(i == row) for i in range(n)] for row in read]
                totals = ByteResamples(columns, b, random.Random(11), sys.maxsize).exact(range(b)).values()
                hits = [sum(column) for column in zip(*totals)]
                chi = sum((h - b) ** 2 / b for h in hits)
                self.assertLess(abs(chi - len(read)), 6 * math.sqrt(2 * len(read)))

    def test_the_rows_drawn_are_the_stated_draws_and_sum_to_the_totals(self):
        rng = random.Random(12)
        for n in (64, 100, 129, 255, 256, 257, 301, 513, 1000, 1039):
            column = [rng.getrandbits(60) - (1 << 59) for _ in range(n)]
            with self.subTest(n=n):
                drawn = ByteResamples([column], 7, random.Random(n), None)
                stated = reference_draws(n, 7, random.Random(n))
                exact = drawn.exact(range(7))
                for i in range(7):
                    rows = drawn.drawn(i)
                    self.assertEqual((len(rows), sorted(rows)), (n, sorted(stated[i])))
                    self.assertEqual(exact[i], (sum(column[r] for r in rows),))

    def test_consecutive_draws_are_independent(self):
        # Within a group, each draw's row against the next one's, in 6 x 6 bins of the group's rows:
        # the chi-square of independence stays near its 25 degrees of freedom. n = 100: one group;
        # n = 150: parts of 128 and 22 rows; n = 301: groups of 256 and 45 rows, the second's bytes
        # drawn by rejection.
        for n in (100, 150, 301):
            with self.subTest(n=n):
                drawn = ByteResamples([[0] * n], 400, random.Random(3), None)
                first = [0, split_at(n), n] if split_at(n) else [0, n] if n <= 256 else [0, 256, 301]
                table = [[0] * 6 for _ in range(6)]
                for i in range(400):
                    rows = drawn.drawn(i)
                    for g in range(len(first) - 1):
                        mine = [(r - first[g]) * 6 // (first[g + 1] - first[g]) for r in rows if first[g] <= r < first[g + 1]]
                        for a, b in zip(mine, mine[1:]):
                            table[a][b] += 1
                total = sum(map(sum, table))
                rows_sum, cols_sum = [sum(r) for r in table], [sum(c) for c in zip(*table)]
                chi = sum((table[a][b] - rows_sum[a] * cols_sum[b] / total) ** 2 / (rows_sum[a] * cols_sum[b] / total)
                          for a in range(6) for b in range(6))
                self.assertLess(abs(chi - 25), 6 * math.sqrt(2 * 25))

    def test_a_resamples_draws_share_out_among_the_groups_as_a_multinomial(self):
        # Groups of 256 rows and one of the rest: a resample's draws in groups a and b have means n p,
        # variances n p (1 - p) and covariance -n p_a p_b (Multinomial(n, rows / n)), each within 6
        # standard errors over the resamples.
        b = 3000
        for n in (301, 1000, 1039):
            sizes = [min(256, n - g) for g in range(0, n, 256)]
            columns = [[int(256 * g <= r < 256 * g + size) for r in range(n)] for g, size in enumerate(sizes)]
            counts = list(ByteResamples(columns, b, random.Random(n), sys.maxsize).exact(range(b)).values())
            for g, h in ((0, len(sizes) - 1), (len(sizes) - 2, len(sizes) - 1)):
                with self.subTest(n=n, groups=(g, h)):
                    p, q = sizes[g] / n, sizes[h] / n
                    xs, ys = [c[g] for c in counts], [c[h] for c in counts]
                    var_x, var_y = n * p * (1 - p), n * q * (1 - q)
                    self.assertLess(abs(sum(xs) / b - n * p), 6 * math.sqrt(var_x / b))
                    self.assertLess(abs(sum((x - n * p) ** 2 for x in xs) / b / var_x - 1), 6 * math.sqrt(2 / b))
                    cov = sum((x - n * p) * (y - n * q) for x, y in zip(xs, ys)) / b
                    self.assertLess(abs(cov + n * p * q), 6 * math.sqrt(var_x * var_y / b))

    def test_a_count_of_draws_in_a_part_is_binomial(self):
        # A resample's draws in the first part (rows 0 .. P - 1 of n): Binomial(n, P / n) by inversion.
        # The counts are those stated, some decided by more than their first 16 bits, and keep the
        # exact distribution (chi-square over bins of at least 40 expected).
        b = 6000
        for n, m in ((300, 256), (255, 128)):
            with self.subTest(n=n):
                drawn = _bootstrap._binomial_counts(random.Random(n), n, m, b)
                stated, left_open = reference_binomial(random.Random(n), n, m, b)
                self.assertEqual(drawn, stated)
                self.assertGreater(left_open, 0)
                pmf = [math.comb(n, k) * m**k * (n - m) ** (n - k) / n**n for k in range(n + 1)]
                bins, expected, observed = [], 0.0, 0
                for k in range(n + 1):
                    expected += b * pmf[k]
                    observed += drawn.count(k)
                    if expected >= 40 and b * sum(pmf[k + 1:]) >= 40:
                        bins.append((observed, expected))
                        expected, observed = 0.0, 0
                bins.append((observed, expected))
                chi = sum((o - e) ** 2 / e for o, e in bins)
                self.assertLess(abs(chi - (len(bins) - 1)), 6 * math.sqrt(2 * (len(bins) - 1)))

    def test_the_same_seed_draws_the_same_resamples(self):
        column = list(range(300))
        first = ByteResamples([column], 30, random.Random(9), None).exact(range(30))
        self.assertEqual(ByteResamples([column], 30, random.Random(9), None).exact(range(30)), first)
        self.assertNotEqual(ByteResamples([column], 30, random.Random(10), None).exact(range(30)), first)


class PathTest(unittest.TestCase):
    def test_the_path_is_chosen_by_size_kind_and_budget(self):
        self.assertEqual(paired_method(40, BYTES_FROM - 1, 10_000), "direct")
        self.assertEqual(paired_method(40, BYTES_FROM, 10_000), "bytes")
        self.assertEqual(paired_method(3, 100, 10_000), "bytes")  # below 512 pairs, even few distinct differences
        self.assertEqual(paired_method(3, 511, 10_000), "bytes")
        self.assertEqual(paired_method(3, 512, 10_000), "multinomial")  # two binomial draws a resample: cheaper
        self.assertEqual(paired_method(40, BYTES_UNTIL - 1, 10_000), "bytes")
        self.assertEqual(paired_method(40, BYTES_UNTIL, 10_000), "blocks")
        self.assertEqual(paired_method(40, 1000, 20_000), "blocks")  # B n draws beyond what is held at once
        self.assertEqual(paired_method(40, 100), "direct")  # no B given: the rule before


def _without_bytes():
    return mock.patch.object(_bootstrap, "BYTES_FROM", sys.maxsize)


class ThroughCompareModesTest(unittest.TestCase):
    def test_agrees_with_a_plain_loop(self):
        for n in (100, 300):
            u, e = continuous(n, 2)
            report = compare_modes(u, e, n_resamples=2000, seed=0)
            self.assertEqual(report.resampling, "bytes")
            reference = plain_bootstrap(u, e, 2000, seed=12345)
            for estimate, q in ((report.ci_low, 0.025), (report.ci_high, 0.975)):
                with self.subTest(n=n, q=q):
                    self.assertLessEqual(abs(estimate - type7(reference, q)), order_statistic_band(reference, q))

    def test_the_figures_are_order_statistics_of_the_reference_totals(self):
        # Percentile and BCa read the exact resample means: the reference draws' sums, sorted.
        u, e = continuous(150, 8)
        columns, den = rows_of(u, e)
        totals = reference_totals(columns, 400, random.Random(4))
        means = sorted(td / (150 * den) for _, td in totals)
        report = compare_modes(u, e, n_resamples=400, seed=4)
        alpha = (1 - 0.95) / 2  # as the interval computes it (not the literal 0.025: one float apart)
        self.assertEqual((report.ci_low, report.ci_high), (_bootstrap.percentile(means, alpha), _bootstrap.percentile(means, 1 - alpha)))
        ratios = sorted(td / tu for tu, td in totals)
        self.assertEqual((report.relative_ci_low, report.relative_ci_high), (_bootstrap.percentile(ratios, alpha), _bootstrap.percentile(ratios, 1 - alpha)))

    def test_resamples_without_unrestricted_mass_are_counted_as_the_draws_say(self):
        n = 64
        u = {f"s{i}": 1.0 if i < 2 else 0.0 for i in range(n)}
        e = {f"s{i}": 0.0 for i in range(n)}
        totals = reference_totals(rows_of(u, e)[0], 300, random.Random(0))
        undefined = sum(1 for tu, _ in totals if tu == 0)
        self.assertGreater(undefined, 0)
        report = compare_modes(u, e, n_resamples=300, seed=0)
        self.assertEqual(report.resampling, "bytes")
        self.assertIn(f"{undefined:,} of 300 resamples had an unrestricted mean of 0", "\n".join(report.warnings))

    def test_deterministic_for_a_seed_and_blind_to_the_order_of_the_samples(self):
        u, e = continuous(120, 4)
        for ci_method in ("percentile", "bca"):
            with self.subTest(ci_method=ci_method):
                first = compare_modes(u, e, n_resamples=300, seed=42, ci_method=ci_method).to_dict()
                self.assertEqual(first["resampling"], "bytes")
                shuffled = dict(reversed(list(u.items())))
                self.assertEqual(compare_modes(shuffled, e, n_resamples=300, seed=42, ci_method=ci_method).to_dict(), first)
                self.assertNotEqual(compare_modes(u, e, n_resamples=300, seed=43, ci_method=ci_method).ci_low, first["ci_low"])

    def test_inputs_without_room_for_chance_give_the_plain_paths_figures(self):
        n = 100
        cases = {
            "every pair tied": ({f"s{i}": (i % 7) / 7 for i in range(n)}, None),
            "every value equal": ({f"s{i}": 0.75 for i in range(n)}, {f"s{i}": 0.25 for i in range(n)}),
            "nothing unrestricted": ({f"s{i}": 0.0 for i in range(n)}, {f"s{i}": 0.0 for i in range(n)}),
        }
        for name, (u, e) in cases.items():
            e = u if e is None else e
            for ci_method in ("percentile", "bca"):
                with self.subTest(name, ci_method=ci_method):
                    fast = compare_modes(u, e, n_resamples=200, ci_method=ci_method).to_dict()
                    with _without_bytes():
                        plain = compare_modes(u, e, n_resamples=200, ci_method=ci_method).to_dict()
                    self.assertEqual(fast.pop("resampling"), "bytes")
                    self.assertNotEqual(plain.pop("resampling"), "bytes")
                    self.assertEqual(fast, plain)

    def test_a_single_pair_reads_as_on_the_plain_path(self):
        with mock.patch.object(_bootstrap, "BYTES_FROM", 1):
            fast = compare_modes({"a": 0.5}, {"a": 0.25}, n_resamples=200).to_dict()
        plain = compare_modes({"a": 0.5}, {"a": 0.25}, n_resamples=200).to_dict()
        self.assertEqual((fast.pop("resampling"), plain.pop("resampling")), ("bytes", "direct"))
        self.assertEqual(fast, plain)
        self.assertEqual((fast["ci_low"], fast["ci_high"]), (0.25, 0.25))

    def test_a_value_that_is_not_a_number_is_refused_before_any_draw(self):
        u = {f"s{i}": (i % 30) / 30 for i in range(300)}
        for bad in (math.nan, math.inf, -0.5):
            with self.subTest(bad=bad), self.assertRaises(AnachronError):
                compare_modes(u | {"s0": bad}, {s: 0.0 for s in u})

    def test_one_runs_mean_reads_the_same_draws(self):
        values = [(i * 7 % 13) / 13 for i in range(300)]
        m = mean_interval(values, n_resamples=1000, seed=3)
        c = compare_modes({f"s{i}": v for i, v in enumerate(values)}, {f"s{i}": 0.0 for i in range(300)}, n_resamples=1000, seed=3)
        self.assertEqual((m.low, m.high, m.resampling), (c.ci_low, c.ci_high, "bytes"))


class BandTest(unittest.TestCase):
    """The first pass's keys: every total within its band, whatever the columns and the cut."""

    def test_every_total_lies_in_its_band(self):
        rng = random.Random(3)
        columns = {
            "continuous": [[rng.getrandbits(62) for _ in range(300)], [rng.getrandbits(62) - (1 << 61) for _ in range(300)]],
            "ties and fractions": [[rng.choice((0, 0, 0, 1 << 40, 5 << 38)) for _ in range(100)]] * 2,
            "two values": [[rng.randrange(2) for _ in range(700)]] * 2,
            "one value": [[7] * 64, [-3] * 64],
        }
        for name, cols in columns.items():
            for bits in (None, 1, 8):
                with self.subTest(name, bits=bits):
                    drawn = ByteResamples(cols, 60, random.Random(1), bits)
                    exact = list(drawn.exact(range(60)).values())
                    for c in range(len(cols)):
                        keys, offset, scale, spread = drawn.band(c)
                        self.assertEqual(scale & (scale - 1), 0)  # a power of two
                        self.assertTrue(all(offset + scale * k <= t[c] <= offset + scale * k + spread for k, t in zip(keys, exact)))
                        self.assertEqual(drawn.bounds(c), ([offset + scale * k for k in keys], [offset + scale * k + spread for k in keys]))

    def test_a_resample_read_alone_sums_as_when_read_with_all(self):
        column = [random.Random(i).getrandbits(50) for i in range(513)]
        expected = reference_totals([column], 40, random.Random(2))
        drawn = ByteResamples([column], 40, random.Random(2), None)
        self.assertEqual(drawn.exact([39, 3, 3]), {39: expected[39], 3: expected[3]})
        self.assertEqual(list(drawn.exact(range(40)).values()), expected)


class BandStatisticsTest(unittest.TestCase):
    """Ranks read from keys known within a band: the ranks of the exact keys, for every slack that holds."""

    def _cases(self):
        rng = random.Random(8)
        for trial in range(40):
            size = rng.randrange(1, 60)
            width = rng.choice((0, 1, 5, 40))
            exact = [rng.randrange(-50, 50) for _ in range(size)]
            keys = [x - rng.randrange(0, width + 1) for x in exact]  # exact in [key, key + width]
            yield exact, keys, width

    def test_ranks_are_those_of_the_exact_keys(self):
        for exact, keys, width in self._cases():
            with self.subTest(exact=exact, keys=keys):
                read: list[int] = []

                def lookup(indices):
                    read.extend(indices)
                    return {i: exact[i] for i in indices}

                stats = BandStatistics(keys, width, lookup, float)
                self.assertEqual(stats[:], [float(x) for x in sorted(exact)])
                self.assertEqual((len(stats), stats[-1]), (len(exact), float(max(exact))))
                with self.assertRaises(IndexError):
                    stats[len(exact)]

    def test_counts_below_are_the_exact_keys_counts(self):
        for exact, keys, width in self._cases():
            for target in (-60, 0, exact[0], 60):
                with self.subTest(exact=exact, target=target):
                    stats = BandStatistics(keys, width, lambda indices: {i: exact[i] for i in indices}, float)
                    doubled = stats.count_below(target - width, target, target)  # key < t - w: below; key > t: above
                    self.assertEqual(doubled, sum(2 * (x < target) + (x == target) for x in exact))

    def test_float_keys_move_outwards(self):
        for key, slack in ((0.1, 0.2), (1e308, 1e308), (-3.0, Fraction(1, 3)), (5e-324, 5e-324)):
            with self.subTest(key=key, slack=slack):
                low, high = band_edge(key, slack, -1), band_edge(key, slack, 1)
                self.assertLessEqual(Fraction(low) if math.isfinite(low) else -math.inf, Fraction(key) - Fraction(slack))
                self.assertGreaterEqual(Fraction(high) if math.isfinite(high) else math.inf, Fraction(key) + Fraction(slack))


def _without_bands():
    """compare_modes reading the bytes path's draws through a bound a resample (the code before the bands)."""
    return mock.patch.object(_paired, "ByteResamples", type("NotByteResamples", (), {}))


class BandedFiguresTest(unittest.TestCase):
    def test_the_bands_give_the_figures_of_the_bounds_for_the_same_draws(self):
        rng = random.Random(6)
        cases = {
            "continuous": continuous(100, 5),
            "many ties": ({f"s{i}": rng.choice((0.0, 0.0, 0.25, 1 / 3, 1.0)) for i in range(200)},
                          {f"s{i}": rng.choice((0.0, 0.0, 0.0, 0.125)) for i in range(200)}),
            "worse enforced": ({f"s{i}": rng.random() for i in range(257)}, {f"s{i}": rng.random() for i in range(257)}),
            "mostly nothing unrestricted": ({f"s{i}": 1.0 if i < 3 else 0.0 for i in range(64)}, {f"s{i}": 0.0 for i in range(64)}),
            "tiny unrestricted": ({f"s{i}": 5e-324 * (1 + i % 3) for i in range(80)}, {f"s{i}": 0.0 if i % 2 else 5e-324 for i in range(80)}),
            "two values": ({f"s{i}": float(i % 2) for i in range(128)}, {f"s{i}": float(i % 5 == 0) for i in range(128)}),
        }
        for name, (u, e) in cases.items():
            for ci_method in ("percentile", "bca"):
                with self.subTest(name, ci_method=ci_method):
                    banded = compare_modes(u, e, n_resamples=400, seed=2, ci_method=ci_method)
                    with _without_bands():
                        bounded = compare_modes(u, e, n_resamples=400, seed=2, ci_method=ci_method)
                    self.assertEqual(banded.resampling, "bytes")
                    self.assertEqual(banded.to_dict(), bounded.to_dict())

    def test_bca_reads_the_reference_draws(self):
        # BCa's p0 counts the exact resample statistics below the estimate: those of the reference draws.
        u, e = continuous(130, 9)
        columns, den = rows_of(u, e)
        totals = reference_totals(columns, 500, random.Random(7))
        sum_u, sum_d = sum(columns[0]), sum(columns[1])
        report = compare_modes(u, e, n_resamples=500, seed=7, ci_method="bca")
        with mock.patch.object(_paired, "interval", wraps=_paired.interval) as seen:
            compare_modes(u, e, n_resamples=500, seed=7, ci_method="bca")
        (d_stats, *_), d_options = seen.call_args_list[0]
        (ratio_stats, *_), ratio_options = seen.call_args_list[1]
        self.assertEqual(d_options["below"], Fraction(sum(2 * (td < sum_d) + (td == sum_d) for _, td in totals), 1000))
        self.assertEqual(ratio_options["below"], Fraction(sum(2 * (td * sum_u < sum_d * tu) + (td * sum_u == sum_d * tu) for tu, td in totals), 1000))
        self.assertEqual(d_stats[:], sorted(td / (130 * den) for _, td in totals))
        self.assertEqual(ratio_stats[:], sorted(td / tu for tu, td in totals))
        self.assertEqual(report.resampling, "bytes")


if __name__ == "__main__":
    unittest.main()
