#!/usr/bin/env python3
"""Reference values for the linear-algebra ops (mpmath, 50 digits).

Not run by go test. It writes linalg_reference.json, read by
TestLinalgReference in linalg_reference_test.go. Run from the repository
root: python3 lang/autodiff/testdata/linalg_reference.py

Inputs are built from a seeded random.Random and rounded to float64; the
references are exact functions of those doubles. A is Q diag(lambda) Q'
(Q random orthogonal, eigenvalues from 1 down to 1/cond, geometrically),
rounded and made exactly symmetric, for cond = 1e1, 1e2, 1e8, 1e12.

Each record has A (d x d), B and WB (d x m), WL (d x d), S (d x d scatter of
n rows drawn with covariance A) and:
  L      chol(A)                 gL  d sum(WL .* chol(A)) / dA
  logdet log det A               gLD d logdet / dA = A^-1
  X      solve(A, B)             gXA, gXB  d sum(WB .* solve(A, B)) / dA, dB
  gauss  -n/2 (d log 2pi + log det A) - 1/2 tr(A^-1 S)
                                 gGA d gauss / dA = (A^-1 S A^-1 - n A^-1)/2
The gradients with respect to A treat its d^2 entries as free and the op as
a function of sym(A) = (A + A')/2, as the engine does, so they are
symmetric. gL is from the forward-mode rule dL = L Phi(L^-1 dA L^-T) (Phi:
lower triangle, halved diagonal) applied to each symmetric direction, which
is independent of the reverse-mode formula in linalg.go.

Low-rank records (kind "lr") have W (d x k), s and S and the value and
gradients of gauss at C = W W' + s I: gW = 2 gC W, gs = tr gC.
"""
import json
import math
import random

import mpmath as mp

mp.mp.dps = 50
rng = random.Random(20261201)


def f(v):
    return float(v)


def rand_orth(d):
    cols = []
    for _ in range(d):
        v = [mp.mpf(rng.gauss(0, 1)) for _ in range(d)]
        for c in cols:
            p = mp.fsum(a * b for a, b in zip(v, c))
            v = [a - p * b for a, b in zip(v, c)]
        n = mp.sqrt(mp.fsum(a * a for a in v))
        cols.append([a / n for a in v])
    return cols


def spd(d, cond):
    q = rand_orth(d)
    lam = [mp.mpf(cond) ** (-mp.mpf(j) / max(d - 1, 1)) for j in range(d)]
    s = [[0.0] * d for _ in range(d)]
    for i in range(d):
        for j in range(i + 1):
            v = f(mp.fsum(q[k][i] * lam[k] * q[k][j] for k in range(d)))
            s[i][j] = s[j][i] = v
    return [v for row in s for v in row]


def mat(a, r, c):
    return mp.matrix([[mp.mpf(a[i * c + j]) for j in range(c)] for i in range(r)])


def flat(m):
    return [f(m[i, j]) for i in range(m.rows) for j in range(m.cols)]


def rand_list(n, scale=1.0):
    return [rng.gauss(0, scale) for _ in range(n)]


def scatter(a, d, n):
    """Float64 scatter matrix Y'Y of n rows drawn with covariance a."""
    l = mp.cholesky(mat(a, d, d))
    y = []
    for _ in range(n):
        z = mp.matrix([mp.mpf(rng.gauss(0, 1)) for _ in range(d)])
        y.extend(f(v) for v in l * z)
    ym = mat(y, n, d)
    return flat(ym.T * ym)


def logdet(a):
    l = mp.cholesky(a)
    return 2 * mp.fsum(mp.log(l[i, i]) for i in range(a.rows))


def gauss(c, s, n):
    d = c.rows
    ci = mp.inverse(c)
    tr = mp.fsum((ci * s)[i, i] for i in range(d))
    val = -n * (d * mp.log(2 * mp.pi) + logdet(c)) / 2 - tr / 2
    g = (ci * s * ci - n * ci) / 2
    return val, g


def chol_grad(a, wl):
    """d sum(WL .* chol(sym(A))) / dA_ij by the forward rule."""
    d = a.rows
    l = mp.cholesky(a)
    li = mp.inverse(l)
    g = mp.zeros(d, d)
    for i in range(d):
        for j in range(d):
            e = mp.zeros(d, d)  # dA_ij moves sym(A) by 1/2 at (i,j), (j,i)
            e[i, j] += mp.mpf(1) / 2
            e[j, i] += mp.mpf(1) / 2
            p = li * e * li.T
            for r in range(d):
                for c in range(d):
                    if c > r:
                        p[r, c] = 0
                    elif c == r:
                        p[r, c] /= 2
            dl = l * p
            g[i, j] = mp.fsum(wl[r, c] * dl[r, c] for r in range(d) for c in range(d))
    return g


def dense(d, cond, m=2, n=30):
    a_f = spd(d, cond)
    b_f, wb_f = rand_list(d * m), rand_list(d * m)
    wl_f = rand_list(d * d)
    s_f = scatter(a_f, d, n)
    a, b, wb, wl = mat(a_f, d, d), mat(b_f, d, m), mat(wb_f, d, m), mat(wl_f, d, d)
    ai = mp.inverse(a)
    l = mp.cholesky(a)
    x = ai * b
    gxa = -(ai * wb * x.T + x * wb.T * ai) / 2
    gval, gga = gauss(a, mat(s_f, d, d), n)
    return dict(kind="dense", d=d, m=m, n=n, cond=cond, a=a_f, b=b_f, wb=wb_f, wl=wl_f, s=s_f,
                l=flat(l), gl=flat(chol_grad(a, wl)), logdet=f(logdet(a)), gld=flat(ai),
                x=flat(x), gxa=flat(gxa), gxb=flat(ai * wb), gauss=f(gval), gga=flat(gga))


def lowrank(d, k, ratio, n=30):
    """C = W W' + s I with |W|^2 / s about ratio (its condition number)."""
    w_f = rand_list(d * k)
    w = mat(w_f, d, k)
    fro2 = mp.fsum(v * v for v in w)
    s_f = f(fro2 / k / ratio)
    c = w * w.T + mp.mpf(s_f) * mp.eye(d)
    c_f = flat(c)
    # data scatter of n rows with covariance C (rounded C is SPD for these ratios)
    sc_f = scatter(c_f, d, n)
    val, gc = gauss(c, mat(sc_f, d, d), n)
    gw = 2 * gc * w
    gs = mp.fsum(gc[i, i] for i in range(d))
    return dict(kind="lr", d=d, k=k, n=n, cond=ratio, w=w_f, scale=s_f, s=sc_f,
                gauss=f(val), gw=flat(gw), gs=f(gs))


def main():
    out = []
    for cond in (1e1, 1e2, 1e8, 1e12):
        for d in (3, 6):
            for _ in range(2):
                out.append(dense(d, cond))
    for ratio in (1e1, 1e4, 1e8):
        for d, k in ((4, 2), (8, 3)):
            out.append(lowrank(d, k, ratio))
    with open("lang/autodiff/testdata/linalg_reference.json", "w") as fh:
        fh.write("[\n" + ",\n".join(json.dumps(r, allow_nan=False) for r in out) + "\n]\n")


main()
