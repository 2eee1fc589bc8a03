# Reference values for TestElementary (dist/elementary_test.go): mpmath 1.3
# at 60 digits, each argument taken as the exact binary64 value.
# Run: python3 elementary.py > elementary.csv
# Columns: function, x, y, value, d/dx, d/dy (0 where unused).
from mpmath import mp, mpf, exp, log, log1p, erfc, sqrt, pi, loggamma, digamma, nstr

mp.dps = 60


def phi_cdf(x):
    return erfc(-x / sqrt(2)) / 2


def dens(x):
    return exp(-x * x / 2) / sqrt(2 * pi)


def inv_logit(u):
    return 1 / (1 + exp(-u))


def inv_phi(p):
    # The root of log Φ(x) = log q for q = min(p, 1 − p) (exact in mpmath),
    # from a rough start (Abramowitz and Stegun 26.2.23).
    q = min(p, 1 - p)
    t = sqrt(-2 * log(q))
    x0 = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t ** 3))
    x = mp.findroot(lambda v: log(phi_cdf(v)) - log(q), x0)
    return x if p <= 0.5 else -x


rows = []
for x in [-0.75, 0.0, 1e-20, 0.3, 0.5, 0.99, 0.999999, -1e10]:
    x = mpf(x)
    rows.append(("log1m", x, 0, log1p(-x), -1 / (1 - x), 0))
for x in [-745.0, -40.0, -5.0, -1e-10, 0.0, 0.5, 1.5, 3.0, 6.0]:
    x = mpf(x)
    rows.append(("inv_cloglog", x, 0, 1 - exp(-exp(x)), exp(x - exp(x)), 0))
for x in [-38.4, -37.5, -30.0, -20.0, -10.0, -5.5, -1.0, -1e-8, 0.0, 0.5, 1.0, 2.5, 5.0, 8.0]:
    x = mpf(x)
    rows.append(("Phi", x, 0, phi_cdf(x), dens(x), 0))
for x in [-10.0, -3.0, -1.0, 0.0, 0.25, 2.0, 6.0]:
    x = mpf(x)
    u = mpf("0.07056") * x ** 3 + mpf("1.5976") * x
    z = inv_logit(u)
    rows.append(("Phi_approx", x, 0, z, z * (1 - z) * (3 * mpf("0.07056") * x * x + mpf("1.5976")), 0))
for p in [1e-300, 1e-100, 1e-20, 1e-10, 1e-5, 0.001, 0.02, 0.02425, 0.1, 0.3, 0.5, 0.5000001, 0.7,
          0.9, 0.975, 0.999, 0.9999999, 1 - 2.0 ** -40]:
    p = mpf(p)
    x = inv_phi(p)
    rows.append(("inv_Phi", p, 0, x, 1 / dens(x), 0))
for a, b in [(0.5, 0.5), (1.0, 1.0), (2.5, 3.5), (1e-3, 2.0), (10.0, 0.25), (1e5, 3.0), (0.5, 1e10),
             (1e10, 1e10), (3.0, 1e12)]:
    a, b = mpf(a), mpf(b)
    rows.append(("lbeta", a, b, loggamma(a) + loggamma(b) - loggamma(a + b),
                 digamma(a) - digamma(a + b), digamma(b) - digamma(a + b)))
for x, y in [(0.0, 0.0), (-1.0, 2.0), (700.0, 699.0), (-800.0, -801.5), (5.0, -40.0), (1e-3, -1e-3)]:
    x, y = mpf(x), mpf(y)
    z = log(exp(x) + exp(y))
    rows.append(("log_sum_exp", x, y, z, exp(x - z), exp(y - z)))

print("# function,x,y,value,d/dx,d/dy (mpmath 60 digits; see elementary.py)")
for r in rows:
    print(",".join([r[0]] + [nstr(mpf(v), 20) for v in r[1:]]))
