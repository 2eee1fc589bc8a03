# Reference values for dist.PoissonBinomial (poissonbinomial_test.go):
# the masses by the product recursion in 60-digit mpmath (no logs), the
# log mass, log CDF and log survival function, and their partials in each
# theta_j from the distribution without trial j: d P(Y = y)/d theta_j =
# P_-j(y - 1) - P_-j(y), d P(Y <= y)/d theta_j = -P_-j(y),
# d P(Y > y)/d theta_j = P_-j(y). Run: python3 poissonbinomial.py > poissonbinomial.json
import json
import mpmath as mp

mp.mp.dps = 60


def pmf(theta):
    p = [mp.mpf(1)]
    for t in theta:
        t = mp.mpf(t)
        q = [mp.mpf(0)] * (len(p) + 1)
        for k, v in enumerate(p):
            q[k] += v * (1 - t)
            q[k + 1] += v * t
        p = q
    return p


def at(p, k):
    return p[k] if 0 <= k < len(p) else mp.mpf(0)


def logs(x):
    return float(mp.log(x)) if x > 0 else "-inf"


cases = [
    ([0.2, 0.5, 0.9, 0.35, 0.6], [0, 2, 3, 5]),
    ([0.7], [0, 1]),
    ([0.01 * (j + 1) for j in range(20)], [0, 1, 7, 19, 20]),
    ([1e-20 * (j + 1) for j in range(12)], [0, 3, 12]),
    ([1 - 1e-15 * (j + 1) for j in range(8)], [0, 4, 7, 8]),
    ([0.0, 0.3, 1.0, 0.8], [1, 2, 3]),
    ([0.5] * 60, [0, 15, 30, 59]),
    ([0.999, 0.001, 0.4, 0.25, 0.75, 1e-9, 0.6], [0, 1, 3, 6, 7]),
]
rows = []
for theta, ys in cases:
    p = pmf(theta)
    n = len(theta)
    minus = [pmf(theta[:j] + theta[j + 1:]) for j in range(n)]
    for y in ys:
        pm = p[y]
        cdf = mp.fsum(p[: y + 1])
        ccdf = mp.fsum(p[y + 1:])
        g = [(at(m, y - 1) - at(m, y)) / pm if pm > 0 else None for m in minus]
        gc = [-at(m, y) / cdf if cdf > 0 else None for m in minus]
        gcc = [at(m, y) / ccdf if ccdf > 0 else None for m in minus]
        rows.append({"theta": theta, "y": y, "lpmf": logs(pm), "lcdf": logs(cdf), "lccdf": logs(ccdf),
                     "dlpmf": [float(v) if v is not None else None for v in g],
                     "dlcdf": [float(v) if v is not None else None for v in gc],
                     "dlccdf": [float(v) if v is not None else None for v in gcc]})
print(json.dumps(rows, indent=0))
