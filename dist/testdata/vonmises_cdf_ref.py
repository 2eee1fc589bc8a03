#!/usr/bin/env python3
"""Reference values for TestVonMisesLogCDFReference (dist/vonmises_cdf_test.go).

Not run by go test. Writes vonmises_cdf.csv: one row per case,
    y, mu, kappa, log F, log(1 - F), then for each of the two the partials
    in y, mu and kappa,
for F(y) = int_{-pi}^{y} exp(kappa cos(t - mu)) dt / (2 pi I0(kappa)), the
von Mises CDF on [-pi, pi] (Stan's von_mises_cdf). Run from the
repository root:

    python3 dist/testdata/vonmises_cdf_ref.py > dist/testdata/vonmises_cdf.csv

Each tail is mpmath.quad at 60 digits of exp(kappa (cos(t - mu) - c)),
c the largest cos(t - mu) on the tail's interval (quad's tolerance is
absolute), on points graded toward the mode and toward the end of the
interval nearest it, at the integrand's widths there; the two tails
computed so add up to 1 within 1e-40 (asserted). The normaliser is
mpmath.besseli. The partials are the textbook ones, from integrals of
their own: d/dy = p(y)/P, d/dmu = (p(-pi) - p(y))/P for the lower tail,
and d/dkappa = E[cos(t - mu) | tail] - I1/I0, the conditional mean a
second quadrature; the log density itself is kappa cos(t - mu) - log(2 pi
I0(kappa)).
"""
import random

import mpmath as mp

mp.mp.dps = 60


def tail(t1, t2, mu, k, weight=None):
    """log of int_{t1}^{t2} exp(k cos(t - mu)) w(t) dt."""
    t1, t2 = mp.mpf(t1), mp.mpf(t2)
    # the mode's images and the antimode's within [t1, t2]
    pts = {t1, t2}
    m = mu - 2 * mp.pi * mp.nint(mu / (2 * mp.pi))
    for c in (m - 2 * mp.pi, m, m + 2 * mp.pi, m - mp.pi, m + mp.pi):
        if t1 < c < t2:
            pts.add(c)
    cmax = max(mp.cos(p - mu) for p in pts)
    for c in (m - 2 * mp.pi, m, m + 2 * mp.pi):
        if t1 <= c <= t2:
            cmax = mp.mpf(1)
    # graded points around every point where the integrand peaks
    base = sorted(pts)
    for p in base:
        s = abs(mp.sin(p - mu))
        h = 1 / (k * s + mp.sqrt(k) + 1)
        for j in range(-3, 60):
            for d in (h * mp.mpf(2) ** j, -h * mp.mpf(2) ** j):
                if t1 < p + d < t2:
                    pts.add(p + d)
            if h * mp.mpf(2) ** j > 7:
                break
    pts = sorted(pts)
    if weight is None:
        f = lambda t: mp.exp(k * (mp.cos(t - mu) - cmax))
    else:
        f = lambda t: weight(t) * mp.exp(k * (mp.cos(t - mu) - cmax))
    v = mp.quad(f, pts)
    return k * cmax + mp.log(v) if weight is None else (k * cmax, v)


def row(y, mu, k):
    Y, M, K = mp.mpf(y), mp.mpf(mu), mp.mpf(k)
    lnorm = mp.log(2 * mp.pi * mp.besseli(0, K))
    a = mp.besseli(1, K) / mp.besseli(0, K)
    lo = tail(-mp.pi, Y, M, K)
    up = tail(Y, mp.pi, M, K)
    tot = mp.log(2 * mp.pi * mp.besseli(0, K))
    assert abs(mp.exp(lo - tot) + mp.exp(up - tot) - 1) < mp.mpf(10) ** -40, (y, mu, k)
    logp = lambda t: K * mp.cos(t - M) - lnorm
    out = [y, mu, k]
    vals, parts = [], []
    for l, e, sgn, (t1, t2) in ((lo, -mp.pi, 1, (-mp.pi, Y)), (up, mp.pi, -1, (Y, mp.pi))):
        lp = l - lnorm
        h = mp.exp(logp(Y) - lp)
        dmu = sgn * (mp.exp(logp(e) - lp) - h)
        c, wsum = tail(t1, t2, M, K, weight=lambda t: mp.cos(t - M))
        dk = wsum * mp.exp(c - l) - a
        vals.append(lp)
        parts += [sgn * h, dmu, dk]
    # The larger tail's log and kappa partial from the smaller one's, as
    # log1p(-P) and -P/(1 - P) times its partial: at 60 digits neither
    # keeps its relative digits where P is below 1e-60.
    s, b = (0, 1) if vals[0] < vals[1] else (1, 0)
    vals[b] = mp.log1p(-mp.exp(vals[s]))
    parts[3 * b + 2] = -mp.exp(vals[s] - vals[b]) * parts[3 * s + 2]
    return out + vals + parts


CASES = []
for k in [1e-8, 1e-3, 0.5, 1.0, 4.0, 29.9, 30.1, 100.0, 1e3, 1e4, 1e5]:
    for mu in [0.0, 1.0, -2.5, 3.1]:
        for y in [-3.14, -2.0, -0.5, 0.0, 0.3, 1.1, 2.9, 3.14159]:
            CASES.append((y, mu, k))
CASES += [(-3.141592653589793 + 1e-12, 0.0, 2.0), (3.141592653589793 - 1e-12, 0.5, 1e3),
          (0.5 + 1e-9, 0.5, 1e5), (1.0, 7.0, 3.0), (-1.0, -9.5, 40.0), (2.0, 2.0 - 1e-3, 1e5)]
random.seed(11)
for _ in range(60):
    CASES.append((random.uniform(-3.14, 3.14), random.uniform(-7, 7), 10 ** random.uniform(-8, 5)))

print("# y,mu,kappa,log F,log(1-F),dlogF/dy,/dmu,/dkappa,dlog(1-F)/dy,/dmu,/dkappa for VonMises(mu, kappa) on [-pi, pi]; mpmath, see vonmises_cdf_ref.py")
for y, mu, k in CASES:
    r = row(y, mu, k)
    print(",".join([repr(v) for v in r[:3]] + [mp.nstr(v, 20) for v in r[3:]]))
