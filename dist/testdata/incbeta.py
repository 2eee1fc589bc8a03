# Reference rows of TestIncBetaReference (dist/regincgamma_test.go): mpmath
# 1.3 at 400 digits, partials by mpmath.diff. Run: python3 incbeta.py
from mpmath import mp, mpf, betainc, diff, nstr
mp.dps = 400
pts = [(2.0, 3.0, 0.5), (0.5, 0.5, 1e-10), (0.5, 0.5, 0.9999999999), (1e-3, 5.0, 0.3), (5.0, 1e-3, 0.3),
       (10.0, 20.0, 0.01), (10.0, 20.0, 0.9), (100.0, 200.0, 0.3333), (1e3, 1e3, 0.45), (1.0, 1.0, 0.25),
       (3.5, 0.75, 0.999), (0.2, 30.0, 1e-6), (50.0, 2.0, 0.5), (1e4, 1.5, 0.9999)]
def I(a, b, x):
    return betainc(a, b, 0, x, regularized=True)
for a, b, x in pts:
    a, b, x = mpf(a), mpf(b), mpf(x)
    v = I(a, b, x)
    da = diff(lambda s: I(s, b, x), a)
    db = diff(lambda s: I(a, s, x), b)
    dx = diff(lambda s: I(a, b, s), x)
    print("{%s, %s, %s, %s, %s, %s, %s}," % tuple(nstr(t, 20) for t in (a, b, x, v, da, db, dx)))
