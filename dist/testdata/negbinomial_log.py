#!/usr/bin/env python3
"""Reference values for TestNegBinomialLogReference (mpmath, 60 digits).

Not run by go test. Writes negbinomial_log.csv: one row per case, eta, phi,
k, the log mass of NegBinomialLog(eta, phi) (Stan's neg_binomial_2_log) at
the count k, its partials in eta and phi, and log P(Y <= k), log P(Y > k).
Run from the repository root:
    python3 dist/testdata/negbinomial_log.py > dist/testdata/negbinomial_log.csv

The inputs are the exact float64 values written in the file. The log mass
is log G(k+phi) - log G(k+1) - log G(phi) + k*(eta - L) + phi*(log phi - L)
with L = log(exp(eta) + phi), at 60 digits, which keeps every digit at
|eta| = 800. The partials are central differences of it with a step of
1e-25 (truncation error about 1e-50 relative), so they do not share the Go
code's formulas. The tails are summed mass by mass (the smaller side,
P(Y <= k) as 1 - P(Y > k) where that side is the smaller), to 1e-40.
"""
import mpmath as mp

mp.mp.dps = 60


def logp(eta, phi, k):
    L = mp.log(mp.exp(eta) + phi)
    return (mp.loggamma(k + phi) - mp.loggamma(k + 1) - mp.loggamma(phi)
            + k * (eta - L) + phi * (mp.log(phi) - L))


def tails(eta, phi, k):
    """log P(Y <= k), log P(Y > k)."""
    mu = mp.exp(eta)
    # The mass at j from its log, summed below k+1 directly; the upper
    # tail is summed up from k+1 until the terms fall below 1e-45 of it.
    lo = mp.mpf(0)
    for j in range(int(k) + 1):
        lo += mp.exp(logp(eta, phi, j))
    hi = mp.mpf(0)
    j = int(k) + 1
    while True:
        t = mp.exp(logp(eta, phi, j))
        hi += t
        if j > mu and t < mp.mpf(10) ** -45 * hi:
            break
        if hi == 0 and j > k + 10 ** 6:
            break
        j += 1
    tot = lo + hi  # 1 to the working precision
    return mp.log(lo / tot), mp.log(hi / tot)


def d(f, x, h=mp.mpf("1e-25")):
    return (f(x + h) - f(x - h)) / (2 * h)


cases = []
for eta in [-800.0, -745.5, -700.0, -30.0, -2.5, 0.0, 0.7, 2.3, 6.0, 20.0, 700.0, 709.5, 800.0]:
    for phi in [1e-3, 0.5, 3.0, 40.0, 1e5]:
        for k in [0.0, 1.0, 4.0, 37.0, 1000.0]:
            cases.append((eta, phi, k))
# Counts near the mean, where the terms cancel, and large dispersions.
cases += [(9.2, 2.0, 9900.0), (9.2, 1e4, 9950.0), (13.8, 50.0, 1e6), (2.0, 1e8, 7.0), (1.5, 1e12, 4.0)]
# Past the ends of e^eta with a large dispersion, where log G(k+phi) - log G(phi) cancels.
cases += [(-800.0, 1e10, 5.0), (-760.0, 1e8, 40.0), (760.0, 1e10, 7.0), (800.0, 1e12, 3.0)]

print("# eta,phi,k,logp,deta,dphi,lcdf,lccdf: NegBinomialLog(eta, phi) at k; mpmath 60 digits, see negbinomial_log.py")
for eta, phi, k in cases:
    e, p, kk = mp.mpf(eta), mp.mpf(phi), mp.mpf(k)
    lp = logp(e, p, kk)
    de = d(lambda x: logp(x, p, kk), e)
    dph = d(lambda x: logp(e, x, kk), p, h=mp.mpf("1e-25") * p)
    lc, lcc = ("nan", "nan")
    # Tails only where the sum is short: a mean and count of at most 1e4.
    if eta <= 9.3 and k <= 1e4 and phi >= 0.5:
        a, b = tails(e, p, kk)
        lc, lcc = mp.nstr(a, 17), mp.nstr(b, 17)
    print(f"{eta!r},{phi!r},{k!r},{mp.nstr(lp, 17)},{mp.nstr(de, 17)},{mp.nstr(dph, 17)},{lc},{lcc}")
