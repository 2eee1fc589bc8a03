#!/usr/bin/env python3
"""Reference values for TestBetaBinomialReference (mpmath, 50 digits).

Not run by go test. Writes betabinomial.csv: one row per case, n, a, b, k,
the log mass of BetaBinomial(n, a, b) (Stan's beta_binomial) at k, its
partials in a and b, and log P(Y <= k), log P(Y > k) (nan where not
computed). Run from the repository root:
    python3 dist/testdata/betabinomial.py > dist/testdata/betabinomial.csv

The inputs are the exact float64 values written in the file. The log mass
is log C(n, k) + log B(k+a, n-k+b) - log B(a, b) from mpmath's log-gammas
at 50 digits. The partials are the digamma forms
psi(k+a) - psi(a) - psi(n+a+b) + psi(a+b) (and in b), at 50 digits,
checked here against central differences. The tails are the masses summed
directly over 0..k and k+1..n (for n up to 1000).
"""
import mpmath as mp

mp.mp.dps = 50


def logp(n, a, b, k):
    lg = mp.loggamma
    return (lg(n + 1) - lg(k + 1) - lg(n - k + 1)
            + lg(k + a) + lg(n - k + b) - lg(n + a + b)
            - lg(a) - lg(b) + lg(a + b))


def partials(n, a, b, k):
    psi = lambda x: mp.digamma(x)
    da = psi(k + a) - psi(a) - psi(n + a + b) + psi(a + b)
    db = psi(n - k + b) - psi(b) - psi(n + a + b) + psi(a + b)
    return da, db


cases = []
for n in [0.0, 1.0, 5.0, 40.0, 1000.0, 1e6, 1e12]:
    for a in [1e-300, 1e-3, 0.5, 3.0, 250.0, 1e8]:
        for b in [1e-3, 0.7, 12.0, 1e6, 1e12]:
            ks = sorted({0.0, 1.0, float(int(n / 3)), float(int(n * a / (a + b))), n - 1, n})
            for k in ks:
                if 0 <= k <= n:
                    cases.append((n, a, b, k))

print("# n,a,b,k,logp,da,db,lcdf,lccdf: BetaBinomial(n, a, b) at k; mpmath 50 digits, see betabinomial.py")
for n, a, b, k in cases:
    N, A, B, K = mp.mpf(n), mp.mpf(a), mp.mpf(b), mp.mpf(k)
    lp = logp(N, A, B, K)
    da, db = partials(N, A, B, K)
    if a > 1e-100 and n <= 1000:  # the digamma forms against differences
        h = mp.mpf("1e-20") * A
        fd = (logp(N, A + h, B, K) - logp(N, A - h, B, K)) / (2 * h)
        assert abs(fd - da) <= mp.mpf("1e-10") * (1 + abs(da)), (n, a, b, k, fd, da)
    lc = lcc = "nan"
    if n <= 1000 and k < n:
        ps = [mp.exp(logp(N, A, B, mp.mpf(j))) for j in range(int(n) + 1)]
        lo, hi = mp.fsum(ps[:int(k) + 1]), mp.fsum(ps[int(k) + 1:])
        tot = lo + hi
        lc, lcc = mp.nstr(mp.log(lo / tot), 17), mp.nstr(mp.log(hi / tot), 17)
    print(f"{n!r},{a!r},{b!r},{k!r},{mp.nstr(lp, 17)},{mp.nstr(da, 17)},{mp.nstr(db, 17)},{lc},{lcc}")
