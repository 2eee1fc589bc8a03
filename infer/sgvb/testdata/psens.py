#!/usr/bin/env python3
"""Reference values for TestCJSDistReference and TestPowerScaleReference.

Not run by go test. Writes psens.json: cases of draws x with base weights
wp (null: equal) and perturbed weights wq, and priorsense's cjs_dist of
them; and power-scaling cases, draws x and a log component c (a log prior
or log likelihood per draw), the raw weights exp((alpha - 1) c) at
alpha = 0.99 and 1.01 (unsmoothed, so that the reference needs no PSIS),
the two distances and the sensitivity. Run from the repository root:
    python3 infer/sgvb/testdata/psens.py > infer/sgvb/testdata/psens.json

A transcription of priorsense's R code (R/cjs.R, .cjs_dist, the branch of
the same draws under two weightings; R/powerscale_gradients.R,
powerscale_divergence_gradients) in mpmath at 50 digits, written
independently of the Go code: R's order(x) (stable), cumsum of the
normalised weights without its last element, diff(x) as the bin widths,
px * (log2(px) - log2(0.5 px + 0.5 qx)) summed with na.rm (0 * -Inf is NaN
in R, dropped), plus 0.5 / log(2) * (qx_int - px_int); the two directions
summed, divided by px_int + qx_int, square-rooted; unsigned: the larger of
the results for x and -x. The sensitivity is
(d_lower + d_upper) / (2 log2(upper_alpha)).

The inputs are drawn from Python's random with fixed seeds and rounded to
10 significant digits, so that the JSON holds them exactly.
"""
import json
import random

import mpmath as mp

mp.mp.dps = 50


def order(x):
    return sorted(range(len(x)), key=lambda i: x[i])  # stable, as R's order


def cjs_signed(x, wp, wq):
    n = len(x)
    if wp is None:
        wp = [1.0] * n
    if wq is None:
        wq = [1.0] * n
    o = order(x)
    xs = [mp.mpf(x[i]) for i in o]
    p = [mp.mpf(wp[i]) for i in o]
    q = [mp.mpf(wq[i]) for i in o]
    sp, sq = mp.fsum(p), mp.fsum(q)
    px, qx = [], []
    acc_p = acc_q = mp.mpf(0)
    for i in range(n):
        acc_p += p[i] / sp
        acc_q += q[i] / sq
        px.append(acc_p)
        qx.append(acc_q)
    px, qx = px[:-1], qx[:-1]
    width = [xs[i + 1] - xs[i] for i in range(n - 1)]
    px_int = mp.fsum(a * b for a, b in zip(px, width))
    qx_int = mp.fsum(a * b for a, b in zip(qx, width))

    def term(a, b, w):
        if a == 0:
            return None  # NaN in R, removed by na.rm
        return w * a * (mp.log(a, 2) - mp.log(0.5 * a + 0.5 * b, 2))

    pq = mp.fsum(t for t in (term(a, b, w) for a, b, w in zip(px, qx, width)) if t is not None)
    pq += 0.5 / mp.log(2) * (qx_int - px_int)
    qp = mp.fsum(t for t in (term(b, a, w) for a, b, w in zip(px, qx, width)) if t is not None)
    qp += 0.5 / mp.log(2) * (px_int - qx_int)
    return mp.sqrt((pq + qp) / (px_int + qx_int))


def cjs_dist(x, wp, wq):
    return max(cjs_signed(x, wp, wq), cjs_signed([-v for v in x], wp, wq))


def r10(v):
    return float('%.10g' % v)


def main():
    cases = []
    rng = random.Random(20241129)
    # 1: normal draws, equal base weights, a tilt of the weights
    x = [r10(rng.gauss(0, 1)) for _ in range(12)]
    wq = [r10(2.718281828 ** (0.3 * v)) for v in x]
    cases.append({'x': x, 'wp': None, 'wq': wq})
    # 2: ties among the draws, random weights on both sides
    x = [r10(rng.choice([-1.5, 0.0, 0.25, 2.0]) + rng.choice([0, 0, 0.5])) for _ in range(15)]
    wp = [r10(rng.uniform(0.1, 2)) for _ in x]
    wq = [r10(rng.uniform(0.1, 2)) for _ in x]
    cases.append({'x': x, 'wp': wp, 'wq': wq})
    # 3: skewed draws, a perturbation with zero weights
    x = [r10(rng.expovariate(1.0)) for _ in range(20)]
    wq = [0.0 if i % 7 == 3 else r10(rng.uniform(0.5, 1.5)) for i in range(20)]
    cases.append({'x': x, 'wp': None, 'wq': wq})
    # 4: many draws, a small tilt (the size power-scaling makes)
    x = [r10(rng.gauss(3, 2)) for _ in range(200)]
    wp = [r10(rng.uniform(0.8, 1.2)) for _ in x]
    wq = [r10(w * 2.718281828 ** (0.01 * v)) for w, v in zip(wp, x)]
    cases.append({'x': x, 'wp': wp, 'wq': wq})
    for c in cases:
        c['cjs'] = float(cjs_dist(c['x'], c['wp'], c['wq']))

    scaled = []
    for seed in (1, 2):
        rng = random.Random(seed)
        n = 100
        x = [r10(rng.gauss(0, 1)) for _ in range(n)]
        # a log component correlated with x, as a log prior is with its param
        c = [r10(-0.5 * (v - 1.5) ** 2 * 4 + rng.gauss(0, 0.3)) for v in x]
        ds = []
        for alpha in (0.99, 1.01):
            w = [mp.e ** ((mp.mpf(alpha) - 1) * mp.mpf(ci)) for ci in c]
            ds.append(cjs_dist(x, None, w))
        sens = (ds[0] + ds[1]) / (2 * mp.log(1.01, 2))
        scaled.append({'x': x, 'c': c, 'lower': float(ds[0]), 'upper': float(ds[1]), 'sensitivity': float(sens)})
    print(json.dumps({'cjs': cases, 'powerscale': scaled}, indent=1))


main()
