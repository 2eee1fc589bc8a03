#!/usr/bin/env python3
"""Reference values for TestOrderedReference (mpmath, 600 digits).

Not run by go test. Writes ordered.csv: one row per case, probit (0
OrderedLogistic, 1 OrderedProbit), the category k, eta, the three cutpoints
c0 < c1 < c2, log P(y = k) and its partials in eta, c0, c1 and c2.
Run from the repository root:
    python3 dist/testdata/ordered.py > dist/testdata/ordered.csv

The inputs are the exact float64 values written in the file. log P is the
textbook difference F(c_k - eta) - F(c_{k-1} - eta) evaluated at 600 digits
(F the logistic or the normal CDF, c_{-1} = -inf, c_3 = +inf), which keeps
its digits where eta is 40 or more from the cutpoints; the partials are
central differences of it with a step of 1e-200, so they do not share the Go
code's derivative formulas.
"""
import mpmath as mp

mp.mp.dps = 600


def cdf(probit, x):
    if x == mp.inf:
        return mp.mpf(1)
    if x == -mp.inf:
        return mp.mpf(0)
    if probit:
        return mp.ncdf(x)
    return 1 / (1 + mp.exp(-x))


def logp(probit, k, eta, c):
    cc = [-mp.inf] + list(c) + [mp.inf]
    return mp.log(cdf(probit, cc[k + 1] - eta) - cdf(probit, cc[k] - eta))


def deriv(probit, k, args, i):
    a = [mp.mpf(v) for v in args]
    h = mp.mpf(10) ** -200
    up, dn = list(a), list(a)
    up[i] += h
    dn[i] -= h
    return (logp(probit, k, up[0], up[1:]) - logp(probit, k, dn[0], dn[1:])) / (2 * h)


cuts = [(-1.0, 0.5, 2.0), (0.0, 0.001, 3.0), (-3.0, -2.9999, 1e-8)]
etas = [0.0, 0.7, -2.5, 40.0, -40.0, 45.5, -38.25, 300.0 / 7, -25.0]
print("# probit,k,eta,c0,c1,c2,logp,deta,dc0,dc1,dc2; mpmath 600 digits, partials by central differences; see ordered.py")
for probit in (0, 1):
    for c in cuts:
        for eta in etas:
            if probit and abs(eta) > 30:
                eta = eta / 1.5  # Φ's tails: log P about -5e2, still a float64
            for k in range(4):
                args = [eta] + list(c)
                lp = logp(probit, k, eta, c)
                ds = [deriv(probit, k, args, i) for i in range(4)]
                row = [str(probit), str(k), repr(eta)] + [repr(v) for v in c]
                row += [mp.nstr(v, 22) for v in [lp] + ds]
                print(",".join(row))
