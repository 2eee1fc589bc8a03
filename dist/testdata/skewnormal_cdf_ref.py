#!/usr/bin/env python3
"""Reference values for TestSkewNormalLogCDF (dist/skewnormal_cdf_test.go).

Not run by go test. Writes skewnormal_cdf.csv: one row per case,
    z, alpha, log P(X <= z), log P(X > z)
for X ~ SkewNormal(0, 1, alpha). Run from the repository root:

    python3 dist/testdata/skewnormal_cdf_ref.py > dist/testdata/skewnormal_cdf.csv

The smaller of the two probabilities (P(X <= z) for z <= 0, P(X > z) for
z > 0, by X -> -X, alpha -> -alpha) is Craig's form of the CDF,
(1/pi) int_0^L exp(-w^2/(2 sin^2 s)) ds with L = atan2(1, alpha), by
mpmath.quad at 60 digits with the integrand's largest value factored out
(quad's tolerance is absolute); wherever it is above 1e-360 it is checked
against Phi(z) - 2 T(z, alpha), Owen's T from its defining integral, at
enough digits to survive the cancellation. The other probability is log1p
of minus the first.
"""
import random
import sys

import mpmath as mp


def owens_t(h, a):
    return mp.quad(lambda x: mp.exp(-h * h * (1 + x * x) / 2) / (1 + x * x), mp.linspace(0, a, 20)) / (2 * mp.pi)


def craig(w, b):
    """P(W <= w) for w <= 0 and W ~ SkewNormal(0, 1, b)."""
    L = mp.atan2(1, b)
    c = w * w / 2
    k = 1 + b * b
    sc = 1 / (1 + 2 * c * abs(b) * k + 2 * mp.sqrt(c) * k)
    pts = {mp.mpf(0), L} | {L - sc * 2 ** j for j in range(-2, 40) if sc * 2 ** j < L}
    if L > mp.pi / 2:
        pts |= {mp.pi / 2} | {mp.pi / 2 + s / (1 + mp.sqrt(2 * c)) * 2 ** j for j in range(-3, 8) for s in (1, -1)}
    pts = sorted(p for p in pts if 0 <= p <= L)
    m = 1 / mp.sin(min(L, mp.pi / 2)) ** 2
    return mp.exp(-c * m) * mp.quad(lambda s: mp.exp(-c * (1 / mp.sin(s) ** 2 - m)), pts) / mp.pi


def log_probs(z, a):
    mp.mp.dps = 60
    w, b = (mp.mpf(z), mp.mpf(a)) if z <= 0 else (-mp.mpf(z), -mp.mpf(a))
    small = craig(w, b)
    if small > mp.mpf(10) ** -360:
        mp.mp.dps = int(-mp.log10(small)) + 40
        zz, aa = mp.mpf(z), mp.mpf(a)
        f = mp.ncdf(zz) - 2 * owens_t(zz, aa)
        check = f if z <= 0 else 1 - f
        assert abs(check / small - 1) < mp.mpf(10) ** -16, (z, a, small, check)
        mp.mp.dps = 60
    ls, lo = mp.log(small), mp.log1p(-small)
    return (ls, lo) if z <= 0 else (lo, ls)


CASES = [(z, a) for z in [-40.0, -10.0, -3.0, -1.0, -0.1, 0.0, 0.1, 1.0, 3.0, 10.0, 40.0]
         for a in [-50.0, -5.0, -1.0, -1e-6, 0.0, 0.3, 1.0, 5.0, 50.0]]
CASES += [(1e-300, 2.0), (-1e-300, -2.0), (1e-8, 50.0), (-1e-8, -50.0), (0.3, 1e3), (-0.3, 1e3), (-2.0, -1e3), (25.0, 1e-10)]
random.seed(5)
for _ in range(150):
    CASES.append((random.choice([-1, 1]) * 10 ** random.uniform(-8, 1.6),
                  random.choice([-1, 1]) * 10 ** random.uniform(-8, 1.7)))

print("# z,alpha,log P(X <= z),log P(X > z) for X ~ SkewNormal(0, 1, alpha); mpmath, see skewnormal_cdf_ref.py")
for z, a in CASES:
    lo, up = log_probs(z, a)
    print(",".join([repr(z), repr(a), mp.nstr(lo, 20), mp.nstr(up, 20)]))
