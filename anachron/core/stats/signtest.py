"""The exact two-sided sign test, correctly rounded at any size.

Under the null hypothesis each non-tied pair is improved or worsened with
probability 1/2, so the number improved, *k* of *n*, is Binomial(n, 1/2).
The two-sided p is the probability of an outcome no more likely than *k*::

    m = min(k, n - k)
    p = min(1, 2 * sum(comb(n, j) for j in range(m + 1)) / 2**n)

which is what ``scipy.stats.binomtest(k, n, 0.5).pvalue`` computes (its
``1 + 1e-7`` tie tolerance can only add terms for n > 2e7).

The result is the exact p rounded to the nearest double.  Small cases sum
the binomial coefficients as integers; large ones work in 60-digit decimal
logarithms (Stirling's series for the factorials, a 256-bit fixed-point
tail sum), accurate to far better than 1e-35 relative, and fall back to the
integer sum in the (astronomically rare) case that this is too close to a
rounding boundary to decide.  A true p below the smallest positive double
(5e-324; e.g. k = 0 of n = 1,000,000 gives about 10**-301030) is returned as
that double, an upper bound, never as 0.0; ``log10_p`` gives its size.
"""

from __future__ import annotations

import math
from decimal import MIN_EMIN, Context, Decimal, localcontext

from anachron.core.errors import AnachronError

__all__ = ["sign_test"]

SMALLEST_P = math.ulp(0.0)  # 5e-324

_PRECISION = 60  # decimal digits of the logarithmic path
_FIXED_BITS = 256  # binary digits of the fixed-point tail sum
_ROUNDING_MARGIN = Decimal("1e-35")  # relative; the path's error is below 1e-40
_PI = "3.14159265358979323846264338327950288419716939937510582097494459"
# Stirling's series: ln n! = (n + 1/2) ln n - n + ln(2 pi)/2 + sum c / n**(2i - 1),
# c = B_2i / (2i (2i - 1)); eight terms leave an error below 1e-42 for n >= 300.
_STIRLING = ((1, 12), (-1, 360), (1, 1260), (-1, 1680), (1, 1188), (-691, 360360), (1, 156), (-3617, 122400))
_STIRLING_FROM = 300


def sign_test(k: int, n: int) -> tuple[float, float]:
    """``(p, log10_p)`` of the exact two-sided sign test: *k* improved of *n* non-tied.

    ``p`` is correctly rounded, but never below 5e-324; ``log10_p`` is
    ``log10`` of the exact p (0.0 when p is 1).  n = 0 gives p = 1.  *k*
    outside ``0..n`` raises :class:`AnachronError`.

    >>> sign_test(2, 10)[0]  # 2 * (1 + 10 + 45) / 2**10
    0.109375
    >>> sign_test(5, 10)  # k is a median: p = 1
    (1.0, 0.0)
    >>> p, log10_p = sign_test(0, 1_000_000)  # 2**-999999: below every double
    >>> p, round(log10_p, 2)
    (5e-324, -301029.69)
    """
    if not 0 <= k <= n:
        raise AnachronError(f"sign_test: need 0 <= k <= n, got k={k}, n={n}")
    m = min(k, n - k)
    if 2 * m + 1 >= n:  # k is a median of Binomial(n, 1/2): the tail sum reaches 1
        return 1.0, 0.0
    if n <= 5000 or m <= 100:  # the integers stay small: a few thousand bits
        return _exact(m, n)
    return _logarithmic(m, n)


def _exact(m: int, n: int) -> tuple[float, float]:
    term = total = 1
    for j in range(1, m + 1):
        term = term * (n - j + 1) // j
        total += term
    p = total / (1 << (n - 1))  # int / int: correctly rounded, 0.0 on underflow
    if p >= 2.2250738585072014e-308:  # a normal double: log10 of it is exact enough
        return p, math.log10(p)
    return max(p, SMALLEST_P), (math.log(total) - (n - 1) * math.log(2)) / math.log(10)


def _context() -> Context:
    return Context(prec=_PRECISION, Emin=MIN_EMIN, Emax=10**6)


def _ln_factorial(x: int, ln_2pi: Decimal) -> Decimal:
    if x < _STIRLING_FROM:
        return Decimal(math.factorial(x)).ln()
    d = Decimal(x)
    value = (d + Decimal("0.5")) * d.ln() - d + ln_2pi / 2
    power = d
    for numerator, denominator in _STIRLING:
        value += Decimal(numerator) / (denominator * power)
        power *= d * d
    return value


def _logarithmic(m: int, n: int) -> tuple[float, float]:
    with localcontext(_context()):
        ln2 = Decimal(2).ln()
        ln_2pi = (2 * Decimal(_PI)).ln()
        ln_comb = _ln_factorial(n, ln_2pi) - _ln_factorial(m, ln_2pi) - _ln_factorial(n - m, ln_2pi)
        # sum_{j <= m} comb(n, j) / comb(n, m), in fixed point: each step
        # multiplies by comb(n, j - 1) / comb(n, j) = j / (n - j + 1) < 1.
        term = tail = 1 << _FIXED_BITS
        j = m
        while term and j:
            term = term * j // (n - j + 1)
            tail += term
            j -= 1
        ln_p = ln_comb + Decimal(tail).ln() - (_FIXED_BITS + n - 1) * ln2
        exact_p = ln_p.exp()
        log10_p = float(ln_p / Decimal(10).ln())
        p = float(exact_p)
        if p == 0.0 or p == SMALLEST_P:  # below, or at, the smallest double
            return SMALLEST_P, log10_p
        if _near_rounding_boundary(exact_p, p):
            return _exact(m, n)
        return p, log10_p


def _near_rounding_boundary(value: Decimal, rounded: float) -> bool:
    """Whether *value* is too close to a midpoint between doubles to round safely."""
    margin = value * _ROUNDING_MARGIN
    for neighbour in (math.nextafter(rounded, 0.0), math.nextafter(rounded, 1.0)):
        midpoint = (Decimal(rounded) + Decimal(neighbour)) / 2
        if abs(value - midpoint) <= margin:
            return True
    return False
