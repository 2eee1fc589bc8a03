#!/usr/bin/env python3
"""Reference values for TestLaplaceWeibullReference (mpmath, 700 digits).

Not run by go test. Writes laplace_weibull.csv: one row per case,
family (0 Laplace(mu, sigma), 1 Weibull(alpha, sigma)), p0, p1, x, the log
density and its partials in x, p0 and p1.
Run from the repository root:
    python3 dist/testdata/laplace_weibull.py > dist/testdata/laplace_weibull.csv

The inputs are the exact float64 values written in the file. The log
densities are the textbook formulas evaluated at 700 digits (enough that
x - mu at x = 1e300 keeps every digit of a step); the partials are central
differences of those log densities with a step of 1e-40 of the variable (of
sigma for a variable that is 0), truncation error about 1e-80 relative, so
they do not share the Go code's derivative formulas. No case sits on
Laplace's kink x = mu or within a step of it.
"""
import mpmath as mp

mp.mp.dps = 700


def laplace(mu, sigma, x):
    return -mp.log(2 * sigma) - abs(x - mu) / sigma


def weibull(alpha, sigma, x):
    u = mp.log(x) - mp.log(sigma)
    return mp.log(alpha) - mp.log(sigma) + (alpha - 1) * u - mp.exp(alpha * u)


def deriv(f, args, i):
    a = [mp.mpf(v) for v in args]
    h = (abs(a[i]) if a[i] != 0 else a[1]) * mp.mpf(10) ** -40
    up, dn = list(a), list(a)
    up[i] += h
    dn[i] -= h
    return (f(*up) - f(*dn)) / (2 * h)


LAPLACE = [  # mu, sigma, x
    (0.0, 1.0, 0.5),
    (0.0, 1.0, -2.0),
    (1.5, 0.3, 1.5001),
    (1.5, 0.3, 1.4999),
    (-3.0, 2.0, 10.0),
    (0.25, 1.75, 0.2501),
    (0.0, 1e-10, 3e-9),
    (0.0, 1e-10, -2.3e-9),
    (1e10, 1.0, 10000000003.0),
    (5.0, 1e8, -3e8),
    (0.0, 1.0, 1e300),
    (0.0, 1e-300, 3e-300),
    (-7.25, 3.5, 100.0),
    (2.0, 1.0, 1.0),  # |z| = 1: the sigma partial is 0
]

WEIBULL = [  # alpha, sigma, x
    (0.5, 1.0, 1e-300),
    (0.7, 2.0, 0.3),
    (0.7, 2.0, 30.0),
    (1.0, 1.5, 0.4),
    (1.0, 1.5, 7.0),
    (1.5, 1.0, 1.0),
    (1.5, 1.0, 1.000000000001),
    (2.0, 3.0, 2.9),
    (5.0, 0.8, 0.79999),
    (40.0, 1.0, 1.01),
    (40.0, 1.0, 0.9),
    (1000.0, 2.0, 2.002),
    (1000.0, 2.0, 1.99),
    (1e-3, 1.0, 1e-100),
    (1e-3, 1.0, 1e100),
    (2.5, 1e-10, 3e-10),
    (2.5, 1e10, 1.7e10),
    (0.3, 5.0, 1e-20),
    (3.0, 1.0, 1e-100),
    (0.05, 0.01, 250.0),
]

print("# family,p0,p1,x,logp,dx,dp0,dp1 (family 0 Laplace(mu, sigma), 1 Weibull(alpha, sigma));")
print("# mpmath 700 digits, partials by central differences at 700 digits; see laplace_weibull.py")
for fam, f, cases in ((0, laplace, LAPLACE), (1, weibull, WEIBULL)):
    for p0, p1, x in cases:
        args = (p0, p1, x)
        lp = f(*[mp.mpf(v) for v in args])
        dx = deriv(f, args, 2)
        d0 = deriv(f, args, 0)
        d1 = deriv(f, args, 1)
        row = [repr(p0), repr(p1), repr(x)] + [mp.nstr(v, 22, min_fixed=-5, max_fixed=5) for v in (lp, dx, d0, d1)]
        print(f"{fam}," + ",".join(row))
