"""The "blocks" resampling from BYTES_UNTIL rows, made by groups of 256 rows (GroupResamples):
uniform, exact, seeded, bounded.

Speed is measured in benchmarks/outcomes.py and benchmarks/compare_modes.py, never here.
"""

from __future__ import annotations

import hashlib
import math
import random
import sys
import unittest
from unittest import mock

from anachron.core.stats import bootstrap as _bootstrap
from anachron.core.stats.bootstrap import (
    BYTES_UNTIL, BlockResamples, GroupResamples, binomial, bootstrap_byte_bounds, bootstrap_column_bounds, bootstrap_column_totals,
)

# chi-square critical values at p = 0.001 (fixed seeds: a test either always passes or always fails)
_CHI2_999 = {1: 10.83, 4: 18.47, 5: 20.52, 7: 24.32}


def reference_group_totals(columns: list[list[int]], b: int, rng: random.Random) -> list[tuple[int, ...]]:
    """The draws as docs/metrics.md states them, summed plainly: rows sorted by their columns, cut
    into groups of 256 and one of the rest; per resample, the whole groups' share as complete
    binary trees (n // 256's binary digits, largest first) then the short group, by conditional
    binomials; within a tree, each node's draws split between its halves by the ones in as many
    random bits, level by level over every resample; then 128 random bits a group, its key; per
    group, every resample's draws in turn, 16 resamples' from chunk k of its stream: the bytes of
    SHAKE-128(key, k) below the largest multiple of the group's rows, modulo its rows."""
    n = len(columns[0])
    rows = sorted(zip(*columns))
    whole, short = divmod(n, 256)
    trees = [1 << k for k in range(whole.bit_length() - 1, -1, -1) if whole >> k & 1]
    sizes = [256 * t for t in trees] + ([short] if short else [])
    shares = []
    for _ in range(b):
        left, rest, share = n, n, []
        for size in sizes[:-1]:
            m = binomial(rng, left, size, rest)
            share.append(m)
            left -= m
            rest -= size
        shares.append(share + [left])
    counts = []  # per group, per resample
    for j, tree in enumerate(trees):
        level = [[share[j]] for share in shares]  # per resample, its nodes
        for _ in range(tree.bit_length() - 1):
            halves = []
            for nodes in level:
                split = []
                for m in nodes:
                    heads = bin(rng.getrandbits(m)).count("1") if m else 0
                    split += [heads, m - heads]
                halves.append(split)
            level = halves
        counts += [[nodes[g] for nodes in level] for g in range(tree)]
    if short:
        counts.append([share[-1] for share in shares])
    keys = [rng.getrandbits(128).to_bytes(16, "little") for _ in counts]
    totals = [[0] * len(columns) for _ in range(b)]
    for g, per_resample in enumerate(counts):
        size = min(256, n - 256 * g)
        keep = 256 // size * size
        for k, at in enumerate(range(0, b, 16)):
            chunk = per_resample[at:at + 16]
            stream = hashlib.shake_128(keys[g] + k.to_bytes(4, "little")).digest(4 * sum(chunk) + 256)
            drawn = [x % size for x in stream if x < keep][:sum(chunk)]  # the bytes below a multiple of size
            assert len(drawn) == sum(chunk), "the reference's stream was too short"
            position = 0
            for i, m in enumerate(chunk, start=at):
                for x in drawn[position:position + m]:
                    for c, value in enumerate(rows[256 * g + x]):
                        totals[i][c] += value
                position += m
    return [tuple(t) for t in totals]


def identity_columns(n: int) -> list[list[int]]:
    """A first column 0..n-1, so that the sorted rows are the rows as given: row r is in group r // 256."""
    return [list(range(n))]


class GroupDrawsTest(unittest.TestCase):
    def test_the_totals_are_the_direct_sums_of_the_rows_each_resample_drew(self):
        rng = random.Random(1)
        # Path boundary; whole groups only (one tree, then three); a short group of 1, 2 and 255 rows.
        for n in (BYTES_UNTIL, 1024 + 256, 256 * 7, 256 * 5 + 1, 256 * 6 + 2, 256 * 5 - 1):
            columns = [[rng.getrandbits(100) - (1 << 99) for _ in range(n)], [rng.randrange(3) for _ in range(n)], [5] * n]
            with self.subTest(n=n):
                resamples = GroupResamples(columns, 25, random.Random(n), sys.maxsize)
                totals = resamples.exact(range(25))
                for i in range(25):
                    drawn = resamples.drawn(i)
                    self.assertEqual(len(drawn), n)
                    self.assertEqual(totals[i], tuple(sum(column[r] for r in drawn) for column in columns))

    def test_the_totals_are_the_reference_draws_summed(self):
        rng = random.Random(2)
        for n in (BYTES_UNTIL, 256 * 6 + 1, 2100):
            columns = [[rng.getrandbits(40) for _ in range(n)], [rng.randrange(-9, 9) for _ in range(n)]]
            with self.subTest(n=n):
                generator = random.Random(n)
                self.assertEqual(bootstrap_column_totals(columns, 30, generator), reference_group_totals(columns, 30, random.Random(n)))
                check = random.Random(n)
                reference_group_totals(columns, 30, check)
                self.assertEqual(generator.random(), check.random())  # left where one pass leaves it

    def test_group_counts_follow_the_multinomial(self):
        # 7 whole groups (trees of 4, 2 and 1) and one of 100 rows: each group's draws in a resample is
        # Binomial(n, rows / n); over B resamples their totals are multinomial, their spread binomial.
        n, b = 256 * 7 + 100, 400
        resamples = GroupResamples(identity_columns(n), b, random.Random(3), sys.maxsize)
        sizes = [256] * 7 + [100]
        per_group = [[0] * b for _ in sizes]
        for i in range(b):
            for r in resamples.drawn(i):
                per_group[r // 256][i] += 1
        totals = [sum(counts) for counts in per_group]
        chi2 = sum((t - b * s) ** 2 / (b * s) for t, s in zip(totals, sizes))
        self.assertLess(chi2, _CHI2_999[7])
        for s, counts in zip(sizes, per_group):
            p = s / n
            variance = sum((c - n * p) ** 2 for c in counts) / b
            self.assertLess(abs(variance / (n * p * (1 - p)) - 1), 0.3)  # a binomial's spread: neither fixed nor doubled
        # Within a group, every row alike: the draws of rows 0..255 of group 0, in four bands of 64.
        bands = [0] * 4
        for i in range(b):
            for r in resamples.drawn(i):
                if r < 256:
                    bands[r // 64] += 1
        expected = sum(bands) / 4
        self.assertLess(sum((x - expected) ** 2 / expected for x in bands), 16.27)  # 3 degrees of freedom

    def test_a_favoured_group_would_be_caught(self):
        # The test above has the power to see a group drawn 5% too often: the same statistic on counts so biased.
        n, b, sizes = 256 * 7 + 100, 400, [256] * 7 + [100]
        expected = [b * s for s in sizes]
        biased = [e * 1.05 if g == 2 else e for g, e in enumerate(expected)]
        scale = b * n / sum(biased)
        chi2 = sum((t * scale - e) ** 2 / e for t, e in zip(biased, expected))
        self.assertGreater(chi2, _CHI2_999[7])

    def test_a_column_constant_in_each_group_costs_its_counts_times_its_value(self):
        n = 256 * 5 + 30
        columns = [list(range(n)), [(r // 256) * 1000 - 7 for r in range(n)], [3] * n]
        resamples = GroupResamples(columns, 20, random.Random(4), None)
        for c in (1, 2):
            lows, highs = resamples.bounds(c)
            self.assertEqual(lows, highs)  # no low part: known exactly after one pass
        for i, totals in resamples.exact(range(20)).items():
            drawn = resamples.drawn(i)
            self.assertEqual(totals[1], sum((r // 256) * 1000 - 7 for r in drawn))
            self.assertEqual(totals[2], 3 * n)

    def test_groups_constant_in_every_column_draw_the_same_rows_unread(self):
        # Where every column is constant in a group its stream is not drawn in the first pass: the
        # totals are those of the same draws read with a varying column beside it, and of the rows drawn.
        n = 256 * 4 + 77
        steps = [(r // 256) * 10 - 3 for r in range(n)]
        with mock.patch.object(_bootstrap, "_group_stream", wraps=_bootstrap._group_stream) as streams:
            alone = GroupResamples([steps], 30, random.Random(13), None)
            self.assertEqual(streams.call_count, 0)  # no group's stream drawn: every column is constant in every group
            beside = GroupResamples([steps, list(range(n))], 30, random.Random(13), None)
            self.assertEqual(streams.call_count, 5)  # a varying column beside it: every group's stream drawn
        self.assertEqual([t[0] for t in alone.exact(range(30)).values()], [t[0] for t in beside.exact(range(30)).values()])
        for i, (total,) in alone.exact(range(30)).items():
            self.assertEqual(total, sum(steps[r] for r in alone.drawn(i)))

    def test_bounds_hold_the_exact_totals_and_replays_give_them_at_any_split(self):
        rng = random.Random(6)
        n, b = 1300, 60
        columns = [[rng.getrandbits(90) for _ in range(n)], [rng.getrandbits(70) - (1 << 69) for _ in range(n)],
                   [7] * n, [rng.choice((0, 1 << 80)) for _ in range(n)]]
        reference = reference_group_totals(columns, b, random.Random(1))
        for bits in (None, 0, 1, 7, 8, 15, 64, 200):
            with self.subTest(bits=bits):
                resamples = bootstrap_column_bounds(columns, b, random.Random(1), first_pass_bits=bits)
                self.assertIsInstance(resamples, GroupResamples)
                for c in range(len(columns)):
                    lows, highs = resamples.bounds(c)
                    self.assertTrue(all(lo <= t[c] <= hi for lo, hi, t in zip(lows, highs, reference)))
                picked = [b - 1, 3, 3, 17, 0, 18, 40]  # out of order, repeated, and in two calls
                self.assertEqual(resamples.exact(picked), {i: reference[i] for i in picked})
                self.assertEqual(list(resamples.exact(range(b)).values()), reference)

    def test_the_first_pass_is_tighter_than_the_cut_where_a_group_is_narrow(self):
        # Sorted rows make groups narrow: the limbs that reach the cut hold more bits, so the bounds are
        # narrower than n times the global low part's range.
        n = 2048
        rng = random.Random(7)
        column = sorted(rng.getrandbits(60) for _ in range(n))
        resamples = GroupResamples([column], 40, random.Random(8), 20)
        lows, highs = resamples.bounds(0)
        cut = (max(column) - min(column)).bit_length() - 20  # the first pass's global cut (20 high bits kept)
        self.assertTrue(all(hi - lo < n << (cut - 3) for lo, hi in zip(lows, highs)))  # 8 groups: 3 bits more each

    def test_the_path_starts_at_bytes_until(self):
        columns = identity_columns(BYTES_UNTIL - 1)
        self.assertIsInstance(bootstrap_column_bounds(columns, 3, random.Random(0)), BlockResamples)
        self.assertIsInstance(bootstrap_column_bounds(identity_columns(BYTES_UNTIL), 3, random.Random(0)), GroupResamples)

    def test_same_seed_same_totals_at_any_split(self):
        rng = random.Random(9)
        columns = [[rng.getrandbits(50) for _ in range(1500)]]
        first = GroupResamples(columns, 30, random.Random(10), None).exact(range(30))
        self.assertEqual(GroupResamples(columns, 30, random.Random(10), sys.maxsize).exact(range(30)), first)
        self.assertEqual(GroupResamples(columns, 30, random.Random(10), 3).exact(range(30)), first)
        self.assertNotEqual(GroupResamples(columns, 30, random.Random(11), None).exact(range(30)), first)

    def test_sums_without_zlib_or_beyond_a_limb_are_the_same(self):
        rng = random.Random(12)
        columns = [[rng.getrandbits(80) for _ in range(1100)], [rng.getrandbits(40) for _ in range(1100)]]
        reference = reference_group_totals(columns, 30, random.Random(2))
        with mock.patch.object(_bootstrap, "_adler32", _bootstrap._python_adler32):
            self.assertEqual(bootstrap_column_totals(columns, 30, random.Random(2)), reference)
        # A group drawn more often than a limb sums exactly (more than 1,039 draws): summed in Python.
        with mock.patch.object(_bootstrap, "_limb_width", lambda most: 0):
            self.assertEqual(bootstrap_column_totals(columns, 30, random.Random(2)), reference)
            resamples = bootstrap_column_bounds(columns, 30, random.Random(2), first_pass_bits=9)
            self.assertEqual(list(resamples.exact(range(30)).values()), reference)


class LaneTest(unittest.TestCase):
    """Each pass's sums are added a place at a time as lanes of one integer: 32 bits a resample below
    2^15 groups, 64 from there (forced here on small inputs); every total the same."""

    def test_totals_and_bounds_are_the_same_in_wide_lanes(self):
        rng = random.Random(21)
        n, b = 256 * 6 + 40, 35
        columns = [sorted(rng.getrandbits(64) for _ in range(n)), [rng.getrandbits(30) - (1 << 29) for _ in range(n)]]
        reference = reference_group_totals(columns, b, random.Random(22))
        narrow = bootstrap_column_bounds(columns, b, random.Random(22))
        with mock.patch.object(_bootstrap, "_NARROW_LANE_GROUPS", 0):
            wide = bootstrap_column_bounds(columns, b, random.Random(22))
            self.assertEqual(bootstrap_column_totals(columns, b, random.Random(22)), reference)
        for c in range(2):
            self.assertEqual(wide.bounds(c), narrow.bounds(c))
            lows, highs = wide.bounds(c)
            self.assertTrue(all(lo <= t[c] <= hi for lo, hi, t in zip(lows, highs, reference)))
        self.assertEqual(list(wide.exact(range(b)).values()), reference)

    def test_a_lane_at_or_below_the_limit_is_found_at_every_place_and_width(self):
        rng = random.Random(23)
        for width in (32, 64):
            for count in (1, 2, 7, 300):
                ones = sum(1 << (width * i) for i in range(count))
                for limit in (0, 1, 270, 65294, 0xFFFF):
                    values = [rng.randrange(limit + 1, 0x10000) if limit < 0xFFFF else 0xFFFF for _ in range(count)]
                    lanes = sum(v << (width * i) for i, v in enumerate(values))
                    with self.subTest(width=width, count=count, limit=limit):
                        self.assertEqual(_bootstrap._lanes_at_most(lanes, limit, ones), limit == 0xFFFF)
                        for at in {0, count // 2, count - 1}:
                            for v in {limit, limit // 2, 0}:  # at the limit, and below it
                                planted = lanes - (values[at] << (width * at)) + (v << (width * at))
                                self.assertTrue(_bootstrap._lanes_at_most(planted, limit, ones))

    def test_a_lane_holds_every_group_s_passes_at_one_place(self):
        # The most a place's lane can hold: one pass a group, each adler32 low half (or unwrapped sum)
        # at most 1 + 255 * 513: below 2^32 for every number of groups 32-bit lanes are used for.
        self.assertLess((_bootstrap._NARROW_LANE_GROUPS - 1) * (1 + 255 * _bootstrap._WIDE_DRAWS), 1 << 32)
        self.assertLess(1 + 255 * _bootstrap._WIDE_DRAWS, 1 << 17)


class WideLimbTest(unittest.TestCase):
    """8-bit limbs whose sum over a resample's draws in a group (about 256, at most 513) can wrap
    adler32's low half once: every total stays exact, and the bounds hold."""

    def columns(self, n: int) -> list[list[int]]:
        rng = random.Random(n)
        return [
            [(r % 3) << 8 | 255 if r % 256 else 0 for r in range(n)],  # a low limb of 255 in all but a group's least row
            [(r % 2) << 8 | (255 if r % 9 else 0) for r in range(n)],  # mostly 255: wraps in many resamples
            [rng.getrandbits(16) for _ in range(n)],  # limbs spread over [0, 255]: sums far from either end
            [-(rng.getrandbits(60)) for _ in range(n)],
        ]

    def test_totals_are_exact_whatever_limbs_are_allowed_to_wrap(self):
        for n, b in ((256 * 5 + 1, 30), (BYTES_UNTIL, 1)):
            columns = self.columns(n)
            reference = reference_group_totals(columns, b, random.Random(5))
            for mean in (_bootstrap._WIDE_MEAN, (0, 255)):  # the rule's limbs, and every limb wide even where sums wrap
                with self.subTest(n=n, b=b, mean=mean), mock.patch.object(_bootstrap, "_WIDE_MEAN", mean):
                    for bits in (sys.maxsize, None, 9):
                        resamples = bootstrap_column_bounds(columns, b, random.Random(5), first_pass_bits=bits)
                        for c in range(len(columns)):
                            lows, highs = resamples.bounds(c)
                            self.assertTrue(all(lo <= t[c] <= hi for lo, hi, t in zip(lows, highs, reference)))
                        self.assertEqual(list(resamples.exact(range(b)).values()), reference)

    def test_a_wrapped_sum_is_caught_not_taken_as_small(self):
        # Every row's low limb 255 but the group's first (its least, 0): a resample that drew 259 times
        # from a group sums 65,790 or 66,045 there, which adler32 reports as 270 or 525. Only the check
        # makes the total right.
        n, b = 256 * 6, 40
        columns = [[(r % 2) << 8 | 255 if r % 256 else 0 for r in range(n)]]
        reference = reference_group_totals(columns, b, random.Random(6))
        resamples = GroupResamples(columns, b, random.Random(6), sys.maxsize)
        self.assertTrue(any(max(counts) > 257 for counts in resamples._counts))  # some sums did wrap
        with mock.patch.object(_bootstrap, "_WIDE_MEAN", (0, 255)):
            self.assertEqual(list(bootstrap_column_totals(columns, b, random.Random(6))), reference)
            with mock.patch.object(GroupResamples, "_unwrap", staticmethod(lambda *args: None)):
                self.assertNotEqual(list(bootstrap_column_totals(columns, b, random.Random(6))), reference)


class ReadScaleTest(unittest.TestCase):
    def test_any_read_scale_keeps_the_bounds_and_the_totals(self):
        rng = random.Random(14)
        n, b = 1500, 25
        columns = [sorted(rng.getrandbits(70) for _ in range(n)), [rng.getrandbits(70) - (1 << 69) for _ in range(n)], [3] * n]
        reference = reference_group_totals(columns, b, random.Random(15))
        for scales in ([0.0, 0.0, 0.0], [80.0, -5.0, -math.inf], [-math.inf, 200.0, 1.0], [35.5, 60.25, 0.0]):
            with self.subTest(scales=scales):
                resamples = bootstrap_column_bounds(columns, b, random.Random(15), log_sds=scales)
                for c in range(len(columns)):
                    lows, highs = resamples.bounds(c)
                    self.assertTrue(all(lo <= t[c] <= hi for lo, hi, t in zip(lows, highs, reference)))
                self.assertEqual(list(resamples.exact(range(b)).values()), reference)


class OrderedRowsTest(unittest.TestCase):
    """A caller whose rows are already in the groups path's order (compare_modes sorts its pairs) skips its sort."""

    def test_rows_given_in_order_draw_what_the_sort_would_draw(self):
        rng = random.Random(16)
        n, b = 1800, 30
        rows = sorted((rng.randrange(40), rng.getrandbits(60) - (1 << 59)) for _ in range(n))  # ties in the first column
        columns = [[r[0] for r in rows], [r[1] for r in rows]]
        shuffled = list(range(n))
        random.Random(17).shuffle(shuffled)
        reference = reference_group_totals(columns, b, random.Random(18))
        given = bootstrap_column_bounds(columns, b, random.Random(18), ordered=True)
        sorted_here = bootstrap_column_bounds([[column[i] for i in shuffled] for column in columns], b, random.Random(18))
        self.assertEqual(list(given.exact(range(b)).values()), reference)
        self.assertEqual(list(sorted_here.exact(range(b)).values()), reference)
        for c in range(2):
            self.assertEqual(given.bounds(c), sorted_here.bounds(c))
        for i in (0, 11, b - 1):
            self.assertEqual(given.drawn(i), [shuffled[r] for r in sorted_here.drawn(i)])  # the same rows, each in its own numbering

    def test_rows_flagged_ordered_out_of_order_still_give_exact_totals_within_their_bounds(self):
        rng = random.Random(19)
        n, b = 1300, 20
        columns = [[rng.getrandbits(70) for _ in range(n)], [rng.randrange(-5, 5) for _ in range(n)]]
        for bits in (None, 4):
            with self.subTest(bits=bits):
                resamples = bootstrap_column_bounds(columns, b, random.Random(20), first_pass_bits=bits, ordered=True)
                totals = resamples.exact(range(b))
                for c in range(2):
                    lows, highs = resamples.bounds(c)
                    self.assertTrue(all(lo <= totals[i][c] <= hi for i, (lo, hi) in enumerate(zip(lows, highs))))
                for i in (0, 7, b - 1):
                    drawn = resamples.drawn(i)
                    self.assertEqual(len(drawn), n)
                    self.assertEqual(totals[i], tuple(sum(column[r] for r in drawn) for column in columns))


class NoResampleTest(unittest.TestCase):
    def test_no_resample_gives_no_totals_at_every_size(self):
        # B = 0 reads as on the smallest inputs, on every path (blocks, bytes, groups): nothing drawn, no total.
        for n in (BYTES_UNTIL - 1, BYTES_UNTIL, 1300, 2049):
            columns = [[random.Random(n).getrandbits(40) for _ in range(n)], [7] * n]
            with self.subTest(n=n):
                self.assertEqual(bootstrap_column_totals(columns, 0, random.Random(0)), [])
                drawn = bootstrap_column_bounds(columns, 0, random.Random(0))
                self.assertEqual((drawn.bounds(0), drawn.bounds(1), drawn.exact([])), (([], []), ([], []), {}))
        for n in (64, 256, 257, 600, BYTES_UNTIL - 1):
            with self.subTest("bytes", n=n):
                drawn = bootstrap_byte_bounds([list(range(n))], 0, random.Random(0))
                self.assertEqual((drawn.bounds(0), drawn.exact([])), (([], []), {}))


class GeneratorStateTest(unittest.TestCase):
    def test_the_generator_is_left_after_the_counts_and_keys_whatever_the_cut_and_the_replays(self):
        rng = random.Random(13)
        columns = [[rng.getrandbits(50) for _ in range(1300)], [rng.randrange(2) for _ in range(1300)]]
        check = random.Random(4)
        reference_group_totals(columns, 20, check)
        after = check.getstate()
        for bits in (None, 0, 3, sys.maxsize):
            with self.subTest(bits=bits):
                generator = random.Random(4)
                resamples = GroupResamples(columns, 20, generator, bits)
                self.assertEqual(generator.getstate(), after)
                resamples.exact([19, 2, 7])
                resamples.drawn(5)
                self.assertEqual(generator.getstate(), after)  # a replay regenerates its streams from their keys


if __name__ == "__main__":
    unittest.main()
