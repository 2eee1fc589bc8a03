#!/usr/bin/env python3
"""Reference values for dist's multivariate densities (mpmath, 50 digits).

Not run by go test. It writes mv_reference.json, read by TestMvReference
and TestDirichletReference in reference_test.go. Run from the repository
root: python3 dist/testdata/mv_reference.py

Inputs are built here from a seeded random.Random and rounded to float64;
the references are computed from those float64 values exactly (mpf holds
every double exactly), so what the tests measure is the error of the Go
code on its own inputs, not the rounding of the inputs.

Covariances are Q diag(lambda) Q' with Q a random orthogonal matrix and the
eigenvalues spread geometrically from 1 down to 1/cond, rounded to float64
and made exactly symmetric, for cond in 1e1 (well conditioned), 1e2, 1e8
and 1e12.

Records (one JSON object each):
  mvnormal: d, cond, mu, sigma, x -> lp, dx, dmu, dsigma
  mvrows:   d, cond, n, mu, sigma, y (n x d) -> lp, dmu, dsigma
  dirichlet: alpha, x -> lp, dalpha, dx
  dirichletlog: alpha, x (= log x) -> lp, dalpha, dx (= d/dlog x)
"""
import json
import random

import mpmath as mp

mp.mp.dps = 50
rng = random.Random(20261130)


def f(v):
    """float64 of an mpf, as a JSON number that round-trips (an overflow
    as the string "+Inf" or "-Inf", which JSON has no number for)."""
    v = float(v)
    if v in (float("inf"), float("-inf")):
        return "+Inf" if v > 0 else "-Inf"
    return v


def rand_orth(d):
    """Random orthogonal d x d matrix: Gram-Schmidt on Gaussian columns."""
    cols = []
    for _ in range(d):
        v = [mp.mpf(rng.gauss(0, 1)) for _ in range(d)]
        for c in cols:
            p = mp.fsum(a * b for a, b in zip(v, c))
            v = [a - p * b for a, b in zip(v, c)]
        n = mp.sqrt(mp.fsum(a * a for a in v))
        cols.append([a / n for a in v])
    return cols  # Q[:, j] = cols[j]


def spd(d, cond):
    """Float64 SPD matrix (row-major list) with condition number ~cond."""
    q = rand_orth(d)
    lam = [mp.mpf(cond) ** (-mp.mpf(j) / max(d - 1, 1)) for j in range(d)]
    s = [[0.0] * d for _ in range(d)]
    for i in range(d):
        for j in range(i + 1):
            v = f(mp.fsum(q[k][i] * lam[k] * q[k][j] for k in range(d)))
            s[i][j] = s[j][i] = v
    return [v for row in s for v in row]


def mat(a, d):
    return mp.matrix([[mp.mpf(a[i * d + j]) for j in range(d)] for i in range(d)])


def flat(m):
    return [f(m[i, j]) for i in range(m.rows) for j in range(m.cols)]


def logdet(s):
    return 2 * mp.fsum(mp.log(mp.cholesky(s)[i, i]) for i in range(s.rows))


def mvnormal(d, cond, scale):
    sigma = spd(d, cond)
    mu = [rng.gauss(0, scale) for _ in range(d)]
    x = [rng.gauss(0, scale) for _ in range(d)]
    s = mat(sigma, d)
    si = mp.inverse(s)
    r = mp.matrix([mp.mpf(x[i]) - mp.mpf(mu[i]) for i in range(d)])
    a = si * r
    q = mp.fsum(r[i] * a[i] for i in range(d))
    lp = -(d * mp.log(2 * mp.pi) + logdet(s) + q) / 2
    ds = (a * a.T - si) / 2
    return dict(kind="mvnormal", d=d, cond=cond, mu=mu, sigma=sigma, x=x,
                lp=f(lp), dx=[f(-v) for v in a], dmu=[f(v) for v in a], dsigma=flat(ds))


def mvrows(d, cond, n, offset):
    """n rows of N(mu, sigma) data: a random sample scaled by the covariance,
    shifted by offset (a large data mean tests the centred statistics)."""
    sigma = spd(d, cond)
    s = mat(sigma, d)
    l = mp.cholesky(s)
    mu = [offset + rng.gauss(0, 1) for _ in range(d)]
    y = []
    for _ in range(n):
        z = mp.matrix([mp.mpf(rng.gauss(0, 1)) for _ in range(d)])
        v = l * z
        y.extend(f(mp.mpf(mu[i]) + v[i] + rng.gauss(0, 0.5) * mp.sqrt(s[i, i])) for i in range(d))
    si = mp.inverse(s)
    c = mp.zeros(d, d)
    rsum = mp.zeros(d, 1)
    for k in range(n):
        r = mp.matrix([mp.mpf(y[k * d + i]) - mp.mpf(mu[i]) for i in range(d)])
        c += r * r.T
        rsum += r
    tr = mp.fsum((si * c)[i, i] for i in range(d))
    lp = -(n * d * mp.log(2 * mp.pi) + n * logdet(s) + tr) / 2
    dmu = si * rsum
    ds = (si * c * si - n * si) / 2
    return dict(kind="mvrows", d=d, cond=cond, n=n, mu=mu, sigma=sigma, y=y,
                lp=f(lp), dmu=[f(v) for v in dmu], dsigma=flat(ds))


def dirichlet(alpha, x):
    a = [mp.mpf(v) for v in alpha]
    xs = [mp.mpf(v) for v in x]
    a0 = mp.fsum(a)
    lp = mp.loggamma(a0) - mp.fsum(mp.loggamma(v) for v in a) + mp.fsum((ai - 1) * mp.log(xi) for ai, xi in zip(a, xs))
    da = [mp.digamma(a0) - mp.digamma(ai) + mp.log(xi) for ai, xi in zip(a, xs)]
    dx = [(ai - 1) / xi for ai, xi in zip(a, xs)]
    return dict(kind="dirichlet", alpha=alpha, x=x, lp=f(lp), dalpha=[f(v) for v in da], dx=[f(v) for v in dx])


def dirichlet_log(alpha, logx):
    """GradLog's record: the point given by log x (components may be far
    below the smallest double)."""
    a = [mp.mpf(v) for v in alpha]
    lx = [mp.mpf(v) for v in logx]
    a0 = mp.fsum(a)
    lp = mp.loggamma(a0) - mp.fsum(mp.loggamma(v) for v in a) + mp.fsum((ai - 1) * li for ai, li in zip(a, lx))
    da = [mp.digamma(a0) - mp.digamma(ai) + li for ai, li in zip(a, lx)]
    return dict(kind="dirichletlog", alpha=alpha, x=logx, lp=f(lp), dalpha=[f(v) for v in da],
                dx=[f(ai - 1) for ai in a])


def simplex_point(alpha, rel):
    """The mean alpha/sum(alpha), each component moved by a relative amount
    ~rel, renormalised in float64 so that the sum is 1 within a few ulp."""
    a0 = sum(mp.mpf(v) for v in alpha)
    x = [f(mp.mpf(v) / a0 * (1 + rel * rng.uniform(-1, 1))) for v in alpha]
    t = sum(x)
    return [v / t for v in x]


def main():
    out = []
    for cond in (10.0, 1e2, 1e8, 1e12):
        for d in (2, 4, 7):
            for _ in range(3):
                out.append(mvnormal(d, cond, 1.0))
            out.append(mvrows(d, cond, 20, 0.0))
            out.append(mvrows(d, cond, 20, 1e4))
    # Dirichlet: small, unit, large and mixed concentrations; points at and
    # near the mean, and near the boundary of the simplex.
    for alpha in ([1e-3, 1e-3, 1e-3], [0.5, 2.0, 3.0, 1.0], [20.0, 30.0, 50.0],
                  [1e4, 2e4, 3e4], [1e8, 1e8, 1e8], [1e8, 2.5e8, 0.5e8, 3e8],
                  [1e8, 0.5], [1e6, 3.0, 1e-3]):
        for rel in (0.0, 1e-6, 1e-3, 0.3):
            out.append(dirichlet(alpha, simplex_point(alpha, rel)))
    for alpha in ([1e-3, 1e-3, 1e-3], [0.5, 2.0, 3.0], [1e8, 1e8, 1e8]):
        for tiny in (1e-300, 5e-310, 1e-5):
            out.append(dirichlet(alpha, [tiny, 0.25, 1 - 0.25 - tiny]))
    for alpha, logx in (([0.01, 0.01, 5.0], [-800.0, -1200.0, 0.0]), ([20.0, 0.01, 30.0], [f(mp.log(0.4)), -900.0, f(mp.log(0.6))]),
                        ([1e8, 1e8, 1e8], [-700.0, f(mp.log(0.5)), f(mp.log(0.5))]), ([1e8, 1e8], [f(mp.log(0.5)), f(mp.log(0.5))])):
        out.append(dirichlet_log(alpha, logx))
    with open("dist/testdata/mv_reference.json", "w") as fh:
        fh.write("[\n" + ",\n".join(json.dumps(r, allow_nan=False) for r in out) + "\n]\n")


main()
