#!/usr/bin/env python3
"""Reference values for TestContinuousReference (dist/continuous_test.go).

Not run by go test. Writes continuous.csv: one row per case and quantity,
    family, kind, p0, p1, p2, x, value, dx, dp0, dp1, dp2
with family an index into FAMILIES (the Go test's continuousFamilies),
kind 0 for the log density, 1 for log P(X <= x), 2 for log P(X > x), the
parameters padded with 0, and the value followed by its derivatives in x
and in each parameter (0 past the family's parameters). Run from the
repository root:

    python3 dist/testdata/continuous_ref.py > dist/testdata/continuous.csv

Everything is the textbook formula at 300 significant digits, evaluated at
the exact float64 inputs written in the file; the derivatives are
mpmath.diff of the same expressions in a relative step (v*(1+t) at t = 0),
so that they do not share the Go code's derivative formulas.
"""
import mpmath as mp

mp.mp.dps = 300

FAMILIES = ["Logistic", "Gumbel", "ChiSquare", "InvChiSquare", "ScaledInvChiSquare",
            "Rayleigh", "Pareto", "ParetoType2", "Frechet", "LogLogistic", "SkewNormal", "ExpModNormal", "VonMises",
            "SkewDoubleExponential"]

NO_CDF = {"SkewNormal", "VonMises"}  # skewnormal_cdf_ref.py, vonmises_cdf_ref.py


def ginc_lower(a, y):
    return mp.gammainc(a, 0, y, regularized=True)


def ginc_upper(a, y):
    return mp.gammainc(a, y, mp.inf, regularized=True)


def logpdf(name, x, p):
    if name == "Logistic":
        mu, s = p
        z = (x - mu) / s
        return -z - mp.log(s) - 2 * mp.log1p(mp.exp(-z))
    if name == "Gumbel":
        mu, b = p
        z = (x - mu) / b
        return -mp.log(b) - z - mp.exp(-z)
    if name == "ChiSquare":
        nu, = p
        return -nu / 2 * mp.log(2) - mp.loggamma(nu / 2) + (nu / 2 - 1) * mp.log(x) - x / 2
    if name == "InvChiSquare":
        nu, = p
        return -nu / 2 * mp.log(2) - mp.loggamma(nu / 2) - (nu / 2 + 1) * mp.log(x) - 1 / (2 * x)
    if name == "ScaledInvChiSquare":
        nu, s = p
        h = nu / 2
        return h * mp.log(h) - mp.loggamma(h) + nu * mp.log(s) - (h + 1) * mp.log(x) - nu * s * s / (2 * x)
    if name == "Rayleigh":
        s, = p
        return mp.log(x) - 2 * mp.log(s) - x * x / (2 * s * s)
    if name == "Pareto":
        ym, a = p
        return mp.log(a) + a * mp.log(ym) - (a + 1) * mp.log(x)
    if name == "ParetoType2":
        mu, lam, a = p
        return mp.log(a) - mp.log(lam) - (a + 1) * mp.log1p((x - mu) / lam)
    if name == "Frechet":
        a, s = p
        return mp.log(a) - mp.log(s) - (1 + a) * mp.log(x / s) - (x / s) ** (-a)
    if name == "LogLogistic":
        a, b = p
        r = x / a
        return mp.log(b) - mp.log(a) + (b - 1) * mp.log(r) - 2 * mp.log1p(r ** b)
    if name == "SkewNormal":
        xi, om, a = p
        z = (x - xi) / om
        return mp.log(2) - mp.log(om) - z * z / 2 - mp.log(2 * mp.pi) / 2 + mp.log(mp.ncdf(a * z))
    if name == "VonMises":
        mu, k = p
        return k * mp.cos(x - mu) - mp.log(2 * mp.pi) - mp.log(mp.besseli(0, k))
    if name == "SkewDoubleExponential":
        mu, s, t = p
        w = (1 - t) * (mu - x) if x < mu else t * (x - mu)
        return mp.log(2) + mp.log(t) + mp.log(1 - t) - mp.log(s) - 2 * w / s
    if name == "ExpModNormal":
        mu, s, lam = p
        return (mp.log(lam / 2) + lam / 2 * (2 * mu + lam * s * s - 2 * x)
                + mp.log(mp.erfc((mu + lam * s * s - x) / (mp.sqrt(2) * s))))
    raise ValueError(name)


def logcdf(name, x, p, upper):
    """log P(X <= x), or log P(X > x) if upper: as -log1p of a tiny term
    where P is near 1 (log(1 - 1e-305) needs more than 300 digits)."""
    if name == "Logistic":
        mu, s = p
        z = (x - mu) / s
        return -mp.log1p(mp.exp(z)) if upper else -mp.log1p(mp.exp(-z))
    if name == "LogLogistic":
        a, b = p
        t = (x / a) ** b
        return -mp.log1p(t) if upper else -mp.log1p(1 / t)
    if name == "SkewDoubleExponential":
        mu, s, t = p
        if x < mu:
            ln = mp.log(t) - 2 * (1 - t) * (mu - x) / s  # log P(X <= x)
            return mp.log1p(-mp.exp(ln)) if upper else ln
        ln = mp.log(1 - t) - 2 * t * (x - mu) / s  # log P(X > x)
        return ln if upper else mp.log1p(-mp.exp(ln))
    if name == "Gumbel" and not upper:
        mu, b = p
        return -mp.exp(-(x - mu) / b)
    if name == "Frechet" and not upper:
        a, s = p
        return -(x / s) ** (-a)
    return mp.log(cdf(name, x, p, upper))


def cdf(name, x, p, upper):
    """P(X <= x), or P(X > x) if upper, each from the form that keeps it."""
    if name == "Gumbel":
        mu, b = p
        t = mp.exp(-(x - mu) / b)
        return -mp.expm1(-t) if upper else mp.exp(-t)
    if name == "ChiSquare":
        nu, = p
        return ginc_upper(nu / 2, x / 2) if upper else ginc_lower(nu / 2, x / 2)
    if name == "InvChiSquare":
        nu, = p
        return ginc_lower(nu / 2, 1 / (2 * x)) if upper else ginc_upper(nu / 2, 1 / (2 * x))
    if name == "ScaledInvChiSquare":
        nu, s = p
        y = nu * s * s / (2 * x)
        return ginc_lower(nu / 2, y) if upper else ginc_upper(nu / 2, y)
    if name == "Rayleigh":
        s, = p
        t = x * x / (2 * s * s)
        return mp.exp(-t) if upper else -mp.expm1(-t)
    if name == "Pareto":
        ym, a = p
        t = a * mp.log(x / ym)
        return mp.exp(-t) if upper else -mp.expm1(-t)
    if name == "ParetoType2":
        mu, lam, a = p
        t = a * mp.log1p((x - mu) / lam)
        return mp.exp(-t) if upper else -mp.expm1(-t)
    if name == "Frechet":
        a, s = p
        w = (x / s) ** (-a)
        return -mp.expm1(-w) if upper else mp.exp(-w)
    if name == "LogLogistic":
        a, b = p
        t = (x / a) ** b
        return 1 / (1 + t) if upper else t / (1 + t)
    if name == "ExpModNormal":
        mu, s, lam = p
        d = (mu - x) / s
        v = lam * s
        g = mp.exp(v * d + v * v / 2) * mp.erfc((d + v) / mp.sqrt(2)) / 2
        return mp.erfc(-d / mp.sqrt(2)) / 2 + g if upper else mp.erfc(d / mp.sqrt(2)) / 2 - g
    raise ValueError(name)


CASES = [  # name, x, params
    ("Logistic", 0.3, [0.0, 1.0]),
    ("Logistic", -2.5, [1.0, 0.5]),
    ("Logistic", 40.0, [0.0, 1.0]),
    ("Logistic", -700.0, [0.0, 1.0]),
    ("Logistic", 1e-12, [0.0, 1e-10]),
    ("Logistic", 3e5, [1.0, 2.0]),
    ("Gumbel", 0.5, [0.0, 1.0]),
    ("Gumbel", -3.0, [0.0, 1.0]),
    ("Gumbel", 50.0, [1.0, 1.5]),
    ("Gumbel", 800.0, [0.0, 1.0]),
    ("Gumbel", -6.0, [0.0, 1.0]),
    ("Gumbel", 1e-9, [0.0, 1e-8]),
    ("ChiSquare", 3.0, [4.0]),
    ("ChiSquare", 1e-8, [0.5]),
    ("ChiSquare", 200.0, [3.0]),
    ("ChiSquare", 1e-3, [30.0]),
    ("ChiSquare", 2100.0, [2000.0]),
    ("ChiSquare", 0.7, [0.01]),
    ("InvChiSquare", 0.4, [3.0]),
    ("InvChiSquare", 1e-3, [5.0]),
    ("InvChiSquare", 1e4, [2.0]),
    ("InvChiSquare", 0.01, [0.2]),
    ("InvChiSquare", 5e-4, [2000.0]),
    ("ScaledInvChiSquare", 1.5, [4.0, 1.2]),
    ("ScaledInvChiSquare", 1e-3, [6.0, 1.0]),
    ("ScaledInvChiSquare", 1e5, [3.0, 0.5]),
    ("ScaledInvChiSquare", 2.0, [0.1, 3.0]),
    ("ScaledInvChiSquare", 1.02, [3000.0, 1.0]),
    ("Rayleigh", 1.0, [1.0]),
    ("Rayleigh", 1e-8, [2.0]),
    ("Rayleigh", 30.0, [1.0]),
    ("Rayleigh", 3e-300, [1e-300]),
    ("Rayleigh", 1e150, [1e149]),
    ("Pareto", 2.0, [1.0, 3.0]),
    ("Pareto", 1.0000001, [1.0, 2.0]),
    ("Pareto", 1e100, [0.5, 1.5]),
    ("Pareto", 5.0, [4.0, 0.01]),
    ("Pareto", 1e-290, [1e-300, 50.0]),
    ("ParetoType2", 1.0, [0.0, 1.0, 3.0]),
    ("ParetoType2", -0.9999999, [-1.0, 2.0, 2.0]),
    ("ParetoType2", 1e50, [1.0, 0.5, 1.5]),
    ("ParetoType2", 3.0, [-2.0, 1e-3, 0.05]),
    ("ParetoType2", 10.0, [0.0, 1e6, 4.0]),
    ("Frechet", 1.5, [2.0, 1.0]),
    ("Frechet", 0.1, [2.0, 1.0]),
    ("Frechet", 1e10, [1.5, 2.0]),
    ("Frechet", 0.999999, [500.0, 1.0]),
    ("Frechet", 1e-3, [0.5, 3.0]),
    ("Frechet", 1e40, [3.0, 1.0]),
    ("LogLogistic", 2.0, [1.0, 3.0]),
    ("LogLogistic", 1e-20, [1.0, 2.0]),
    ("LogLogistic", 1e30, [2.0, 4.0]),
    ("LogLogistic", 1.0000001, [1.0, 1000.0]),
    ("LogLogistic", 7.0, [3.0, 0.05]),
    ("SkewNormal", 0.3, [0.0, 1.0, 2.0]),
    ("SkewNormal", -3.0, [0.0, 1.0, 4.0]),
    ("SkewNormal", -40.0, [1.0, 2.0, 3.0]),
    ("SkewNormal", 50.0, [1.0, 1.0, -2.0]),
    ("SkewNormal", 5.0, [1.0, 1.5, -0.5]),
    ("SkewNormal", 2.0, [0.0, 1e-3, 1e-6]),
    ("SkewNormal", -2.5, [0.0, 1.0, 0.0]),
    ("ExpModNormal", 1.0, [0.0, 1.0, 1.0]),
    ("ExpModNormal", -5.0, [0.0, 1.0, 2.0]),
    ("ExpModNormal", -60.0, [0.0, 1.0, 0.5]),
    ("ExpModNormal", 40.0, [0.0, 1.0, 1.5]),
    ("ExpModNormal", 0.3, [0.0, 0.1, 500.0]),
    ("ExpModNormal", -1.0, [0.0, 0.02, 3000.0]),
    ("ExpModNormal", 2.0, [1.0, 2.0, 1e-3]),
    ("ExpModNormal", -300.0, [0.0, 1.0, 0.01]),
    ("ExpModNormal", 1e3, [0.0, 1.0, 3.0]),
    ("SkewDoubleExponential", 0.3, [0.0, 1.0, 0.5]),
    ("SkewDoubleExponential", -2.0, [0.5, 1.5, 0.1]),
    ("SkewDoubleExponential", 4.0, [0.5, 1.5, 0.9]),
    ("SkewDoubleExponential", -300.0, [0.0, 1.0, 0.3]),
    ("SkewDoubleExponential", 500.0, [0.0, 1.0, 0.7]),
    ("SkewDoubleExponential", 1e-9, [0.0, 1e-8, 0.2]),
    ("SkewDoubleExponential", 2.0, [1.0, 0.5, 1e-6]),
    ("SkewDoubleExponential", 0.5, [1.0, 0.5, 1 - 1e-6]),
    ("SkewDoubleExponential", -1e3, [0.0, 2.0, 1e-4]),
    ("SkewDoubleExponential", 40.0, [-3.0, 0.2, 0.999]),
    ("VonMises", 0.3, [0.0, 1.0]),
    ("VonMises", 2.0, [-1.0, 1e-8]),
    ("VonMises", -3.0, [0.5, 1e-4]),
    ("VonMises", 1.0, [1.2, 29.9]),
    ("VonMises", 1.0, [1.2, 30.1]),
    ("VonMises", 0.01, [0.0, 1e3]),
    ("VonMises", 3.1, [0.0, 1e5]),
    ("VonMises", 1.002, [1.0, 1e5]),
    ("VonMises", 7.0, [0.0, 5.0]),
]

# I0: kappa, log I0(kappa) - kappa, I1/I0, 1 - I1/I0 (kind 3 rows, family -1)
BESSEL = [1e-8, 1e-4, 0.1, 1.0, 5.0, 29.9, 30.0, 30.1, 50.0, 300.0, 1e3, 1e4, 1e5]


def rdiff(f, v0):
    v0 = mp.mpf(v0)
    if v0 == 0:
        return mp.diff(f, v0)
    return mp.diff(lambda t: f(v0 * (1 + t)), 0) / v0


def row(fam, kind, x, p, f):
    x = mp.mpf(x)
    q = [mp.mpf(v) for v in p]
    v = f(x, q)
    ds = [rdiff(lambda t: f(t, q), x)]
    for i in range(len(q)):
        def g(t, i=i):
            r = list(q)
            r[i] = t
            return f(x, r)
        ds.append(rdiff(g, q[i]))
    ds += [mp.mpf(0)] * (4 - len(ds))
    ps = [repr(float(v)) for v in p] + ["0"] * (3 - len(p))
    vals = [mp.nstr(u, 20, min_fixed=-5, max_fixed=5) for u in [v] + ds]
    print(",".join([str(fam), str(kind)] + ps + [repr(float(x))] + vals))


print("# family,kind,p0,p1,p2,x,value,dx,dp0,dp1,dp2; kind 0 log density, 1 log CDF, 2 log CCDF;")
print("# kind 3: family -1, p0 kappa, value log I0(kappa) - kappa, dx I1/I0, dp0 1 - I1/I0 (other columns 0)")
print("# mpmath 300 digits, derivatives by mpmath.diff; see continuous_ref.py")
for name, x, p in CASES:
    fam = FAMILIES.index(name)
    row(fam, 0, x, p, lambda t, q: logpdf(name, t, q))
    if name in NO_CDF:
        continue
    row(fam, 1, x, p, lambda t, q: logcdf(name, t, q, False))
    row(fam, 2, x, p, lambda t, q: logcdf(name, t, q, True))
for k in BESSEL:
    kk = mp.mpf(k)
    i0, i1 = mp.besseli(0, kk), mp.besseli(1, kk)
    vals = [mp.log(i0) - kk, i1 / i0, 1 - i1 / i0]
    print(",".join(["-1", "3", repr(float(k)), "0", "0", "0"] + [mp.nstr(u, 20, min_fixed=-5, max_fixed=5) for u in vals] + ["0", "0"]))
