#!/usr/bin/env python3
"""Reference values for dist's gamma tests (mpmath, 60 digits).

Not run by go test. It prints the extra reference rows pasted into
gamma_test.go and writes gamma_grid.csv (a, u, log x, d log x/da over a
13 x 8 grid, read by TestGammaDLogXDAGrid) and gamma_xgrid.csv (a, x,
d log x/da around the branch boundaries, read by TestGammaDLogXDABranches).
Run from the repository root: python3 dist/testdata/gamma_reference.py

For x ~ Gamma(a, 1) at CDF level u it solves P(a, x) = u (Q(a, x) = 1-u for
u > 1/2) for t = log x by Newton, then gets d log x/da = -(dP/da)/(x p(x))
with dP/da from mpmath's numerical differentiation (mp.diff) of P at 60
digits, P summed by its power series. That is independent of the Go code's
forward-mode derivative formulas.
"""
import mpmath as mp

mp.mp.dps = 60


def P(a, x):
    """Regularized lower incomplete gamma by its power series,
    P = x^a e^-x / Gamma(a+1) * sum_k x^k / ((a+1)...(a+k)), summed at the
    working precision (mpmath's own gammainc gives up at a = 1e5)."""
    a, x = mp.mpf(a), mp.mpf(x)
    s, t, k = mp.mpf(1), mp.mpf(1), 0
    eps = mp.eps * mp.mpf(10) ** -5
    while True:
        k += 1
        t = t * x / (a + k)
        s += t
        if t < eps * s:
            break
    return mp.exp(a * mp.log(x) - x - mp.loggamma(a + 1)) * s


def log_quantile(a, u):
    a, u = mp.mpf(a), mp.mpf(u)
    lower = u <= mp.mpf(1) / 2
    target = mp.log(u) if lower else mp.log(1 - u)

    def f(t):
        x = mp.exp(t)
        if lower:
            return mp.log(P(a, x)) - target
        return mp.log(1 - P(a, x)) - target

    def df(t):  # d log P/dt = x p(x)/P; d log Q/dt = -x p(x)/Q
        x = mp.exp(t)
        xp = mp.exp(a * t - x - mp.loggamma(a))
        p = P(a, x)
        return xp / p if lower else -xp / (1 - p)

    # start: small-shape formula, or Wilson-Hilferty
    t = (mp.log(u) + mp.loggamma(a + 1)) / a
    if t > -1:
        z = mp.sqrt(2) * mp.erfinv(2 * u - 1)
        base = 1 - 1 / (9 * a) + z / (3 * mp.sqrt(a))
        if base > 0:
            t = max(t, mp.log(a) + 3 * mp.log(base))
    for _ in range(200):  # Newton in t; log P and log Q are concave in t
        step = f(t) / df(t)
        t -= step
        if abs(step) < mp.mpf(10) ** -35 * max(1, abs(t)):
            return t
    raise RuntimeError("no convergence at a=%r u=%r" % (a, u))


def dlogx_da(a, t):
    a, x = mp.mpf(a), mp.exp(t)
    dP = mp.diff(lambda s: P(s, x), a)
    logxp = a * t - x - mp.loggamma(a)  # log(x p(x))
    return -dP / mp.exp(logxp)


def dP_da(a, x):
    return mp.diff(lambda s: P(s, x), mp.mpf(a))


def write_grid(path):
    shapes = [1e-6, 1e-4, 1e-3, 0.01, 0.1, 0.5, 1, 3, 10, 100, 1e3, 1e4, 1e5]
    levels = [1e-12, 1e-6, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999999]
    with open(path, "w") as f:
        f.write("# a,u,logx,dlogxda (mpmath, 60 digits; see gamma_reference.py)\n")
        for a in shapes:
            for u in levels:
                t = log_quantile(a, u)
                g = dlogx_da(a, t)
                f.write("%r,%r,%s,%s\n" % (a, u, mp.nstr(t, 22), mp.nstr(g, 22)))


def write_xgrid(path):
    """d log x/da at given x around the branch boundaries x = max(a, 1) and
    x = min(a+2, 4): x = max(a, 1) + dx*max(1, sqrt(a))."""
    with open(path, "w") as f:
        f.write("# a,x,dlogxda (mpmath, 60 digits; see gamma_reference.py)\n")
        for a in [0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 7, 10, 20, 50]:
            m = max(1.0, a)
            for dx in [-0.5, -0.1, 0.05, 0.2, 0.5, 1, 1.5, 2, 3, 4, 6, 8]:
                x = m + dx * max(1, a ** 0.5)
                g = dlogx_da(a, mp.log(mp.mpf(x)))
                f.write("%r,%r,%s\n" % (a, x, mp.nstr(g, 22)))


if __name__ == "__main__":
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    write_grid(os.path.join(here, "gamma_grid.csv"))
    write_xgrid(os.path.join(here, "gamma_xgrid.csv"))
    rows = [(1e-6, 0.01), (1e-6, 0.99), (1e-3, 0.999999), (0.05, 0.1), (0.9, 1e-12),
            (1e4, 0.001), (1e4, 0.999), (3e4, 0.5), (1e5, 0.01), (1e5, 0.5), (1e5, 0.999)]
    # also re-derive two rows of the design note's table as a cross-check
    rows += [(0.1, 0.01), (1e4, 0.5)]
    print("// a, u, log x, d log x/da")
    for a, u in rows:
        t = log_quantile(a, u)
        g = dlogx_da(a, t)
        print("{%r, %r, %s, %s}," % (a, u, mp.nstr(t, 20), mp.nstr(g, 20)))
    print("// a, x, dP/da")
    for a, x in [(0.3, 0.01), (2.5, 4.0), (50, 45), (500, 520)]:
        print("{%r, %r, %s}," % (a, x, mp.nstr(dP_da(a, x), 20)))
