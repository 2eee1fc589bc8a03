# Reference rows of TestInvIncBetaReference (dist/regincgamma_test.go):
# mpmath 1.3 at 100 digits, x by 400 bisections of betainc, the partials by the
# inverse function rule with mpmath.diff. Run: python3 invincbeta.py
from mpmath import mp, mpf, betainc, diff, nstr, beta
mp.dps = 100
pts = [(2.0, 3.0, 0.5), (0.5, 0.5, 1e-10), (0.5, 0.5, 0.9999999999), (10.0, 20.0, 1e-12), (10.0, 20.0, 0.999999),
       (100.0, 200.0, 0.3), (1.0, 1.0, 0.25), (3.5, 0.75, 0.98), (0.2, 30.0, 0.13), (50.0, 2.0, 1e-14), (2.5, 7.0, 0.9)]
def I(a, b, x):
    return betainc(a, b, 0, x, regularized=True)
for a, b, p in pts:
    a, b, p = mpf(a), mpf(b), mpf(p)
    # bisection in log-odds keeps tiny x and x near 1 apart
    lo, hi = mpf(0), mpf(1)
    for _ in range(400):
        mid = (lo + hi) / 2
        if I(a, b, mid) < p:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2
    dens = x ** (a - 1) * (1 - x) ** (b - 1) / beta(a, b)
    da = -diff(lambda s: I(s, b, x), a) / dens
    db = -diff(lambda s: I(a, s, x), b) / dens
    print("{%s, %s, %s, %s, %s, %s, %s}," % tuple(nstr(t, 20) for t in (a, b, p, x, da, db, 1 / dens)))
