"""Reference values for dist/logcdf_more_test.go (logCDFRefs).

For each case, log P(X <= x) and log P(X > x) of a gpp family and their
derivatives in x and in every parameter, from mpmath at 250 significant
digits (log(1 - 1e-180) needs 180 digits to differ from 0 at all). Derivatives are mpmath.diff of the same
expressions, taken in a relative step (v0*(1+t) at t = 0) so that a value
next to a support end (x = 1e-300) is not stepped across it. Regenerate the
table with

    python3 dist/testdata/logcdf_ref.py

and paste its output into logCDFRefs.
"""
import mpmath as mp
mp.mp.dps = 250
inf = mp.inf
def reg_betainc(a,b,lo,hi): return mp.betainc(a,b,lo,hi,regularized=True)
def ginc(a,lo,hi): return mp.gammainc(a,lo,hi,regularized=True)

def fam(name, x, p, upper):
    x = mp.mpf(x); p = [mp.mpf(v) for v in p]
    if name == "HalfNormal":
        w = x/p[0]/mp.sqrt(2)
        return mp.erfc(w) if upper else mp.erf(w)
    if name == "HalfCauchy":
        w = x/p[0]
        return 2/mp.pi*mp.atan(1/w) if upper else 2/mp.pi*mp.atan(w)
    if name == "StudentT":
        nu, mu, s = p
        z = (x-mu)/s
        if upper: z = -z   # P(T > z) = P(T < -z)
        if abs(z) < 1:
            s = reg_betainc(mp.mpf(1)/2, nu/2, 0, z*z/(nu+z*z))/2
            return mp.mpf(1)/2 + mp.sign(z)*s
        t = nu/(nu+z*z)
        half = reg_betainc(nu/2, mp.mpf(1)/2, 0, t)/2
        return half if z < 0 else 1-half
    if name == "Gamma":
        a, b = p
        return ginc(a, b*x, inf) if upper else ginc(a, 0, b*x)
    if name == "InvGamma":
        a, b = p
        return ginc(a, 0, b/x) if upper else ginc(a, b/x, inf)
    if name == "Beta":
        a, b = p
        return reg_betainc(a,b,x,1) if upper else reg_betainc(a,b,0,x)
    if name == "Uniform":
        lo, hi = p
        return (hi-x)/(hi-lo) if upper else (x-lo)/(hi-lo)
    if name in ("Poisson", "PoissonLog"):
        r = p[0] if name == "Poisson" else mp.exp(p[0])
        k = mp.floor(x)
        return ginc(k+1, 0, r) if upper else ginc(k+1, r, inf)
    if name in ("Bernoulli", "BernoulliLogit"):
        q = p[0] if name == "Bernoulli" else 1/(1+mp.exp(-p[0]))
        return q if upper else 1-q
    if name in ("Binomial", "BinomialLogit"):
        n = p[0]
        q = p[1] if name == "Binomial" else 1/(1+mp.exp(-p[1]))
        k = mp.floor(x)
        return reg_betainc(k+1, n-k, 0, q) if upper else reg_betainc(n-k, k+1, 0, 1-q)
    if name == "NegBinomial":
        mu, phi = p
        k = mp.floor(x)
        return reg_betainc(k+1, phi, 0, mu/(mu+phi)) if upper else reg_betainc(phi, k+1, 0, phi/(mu+phi))
    raise ValueError(name)

def logf(name, x, p, upper):
    return mp.log(fam(name, x, p, upper))

discrete = {"PoissonLog","Bernoulli","BernoulliLogit","Binomial","BinomialLogit","NegBinomial","Poisson"}
intparam = {("Binomial",0),("BinomialLogit",0)}

def f64(v): return repr(float(v))

CASES = [
    ('HalfNormal', 0.3, [1]),
    ('HalfNormal', 1e-08, [2]),
    ('HalfNormal', 40, [1]),
    ('HalfNormal', 3, [0.5]),
    ('HalfNormal', 1.5, [1]),
    ('HalfCauchy', 3, [2]),
    ('HalfCauchy', 10000000000.0, [1]),
    ('HalfCauchy', 1e-10, [1]),
    ('StudentT', 0.3, [3, 0, 1]),
    ('StudentT', -1000000.0, [3, 0, 1]),
    ('StudentT', 1000.0, [3, 0, 1]),
    ('StudentT', 2.5, [5, 1, 2]),
    ('StudentT', -4, [0.5, 0, 1]),
    ('StudentT', 1e-09, [4, 0, 1]),
    ('StudentT', 30, [10000.0, 0, 1]),
    ('StudentT', -45, [200, 0, 1]),
    ('StudentT', 0, [3, 0, 1]),
    ('StudentT', 1e+20, [2, 0, 1]),
    ('StudentT', 1e+60, [3, 0, 1]),
    ('StudentT', 7, [0.05, 1, 0.1]),
    ('InvGamma', 0.5, [2, 1]),
    ('InvGamma', 0.001, [3, 1]),
    ('InvGamma', 10000.0, [2, 1]),
    ('InvGamma', 2, [0.01, 1]),
    ('InvGamma', 1.0, [100, 100]),
    ('Beta', 0.3, [2, 3]),
    ('Beta', 1e-300, [0.01, 0.01]),
    ('Beta', 1e-10, [0.01, 0.02]),
    ('Beta', 0.999999999999, [0.05, 0.02]),
    ('Beta', 0.999, [2, 3]),
    ('Beta', 1e-05, [5, 2]),
    ('Beta', 0.5, [1000.0, 1000.0]),
    ('Beta', 0.2, [50, 60]),
    ('Beta', 0.9, [0.5, 0.5]),
    ('Beta', 0.5, [0.01, 0.001]),
    ('Beta', 0.51, [0.01, 0.001]),
    ('Beta', 0.7, [1, 1]),
    ('Uniform', 0.3, [0, 1]),
    ('Uniform', -1, [-2, 5]),
    ('Uniform', 4.9999, [-2, 5]),
    ('PoissonLog', 3, [0.9162907318741551]),
    ('PoissonLog', 60, [1.6094379124341003]),
    ('PoissonLog', 0, [3]),
    ('Bernoulli', 0, [0.3]),
    ('Bernoulli', 0, [1e-10]),
    ('BernoulliLogit', 0, [2]),
    ('BernoulliLogit', 0, [-40]),
    ('BernoulliLogit', 0, [40]),
    ('Binomial', 3, [10, 0.4]),
    ('Binomial', 0, [100, 0.5]),
    ('Binomial', 99, [100, 0.5]),
    ('Binomial', 5, [1000, 0.3]),
    ('Binomial', 50, [60, 0.2]),
    ('Binomial', 0, [1, 0.7]),
    ('Binomial', 2.5, [7, 0.5]),
    ('BinomialLogit', 3, [10, -0.5]),
    ('BinomialLogit', 90, [100, 3]),
    ('BinomialLogit', 2, [50, -10]),
    ('NegBinomial', 3, [2.5, 1.5]),
    ('NegBinomial', 0, [10, 0.5]),
    ('NegBinomial', 200, [5, 2]),
    ('NegBinomial', 1, [100, 50]),
    ('NegBinomial', 10, [10, 10000.0]),
    ('NegBinomial', 5, [1000.0, 0.1]),
    ('StudentT', -3, [1000000.0, 0, 1]),
    ('StudentT', 0.7, [0.01, 0, 1]),
    ('StudentT', 12, [30, 2, 0.5]),
    ('InvGamma', 1e-10, [0.5, 1]),
    ('InvGamma', 10000000000.0, [0.5, 3]),
    ('Beta', 0.5, [0.001, 0.001]),
    ('Beta', 1e-200, [0.5, 0.5]),
    ('Beta', 0.99, [300, 2]),
    ('Beta', 0.001, [0.3, 4000]),
    ('Binomial', 500, [10000.0, 0.05]),
    ('Binomial', 0, [20, 1e-08]),
    ('Binomial', 19, [20, 1e-08]),
    ('NegBinomial', 0, [5, 100000.0]),
    ('NegBinomial', 30, [10, 1000000.0]),
    ('NegBinomial', 2, [10, 500]),
    ('NegBinomial', 15, [10, 200]),
    ('NegBinomial', 3, [2, 47]),
    ('NegBinomial', 3, [2, 49]),
    ('NegBinomial', 1400, [1500, 100000.0]),
    ('NegBinomial', 1600, [1500, 100000.0]),
    ('StudentT', -3, [10000.0, 0, 1]),
    ('StudentT', -3, [100, 0, 1]),
    ('StudentT', 5, [100000.0, 0, 1]),
    ('StudentT', -20, [1000.0, 0, 1]),
    ('NegBinomial', 2000, [20, 3]),
    ('Binomial', 3, [100000.0, 2e-05]),
    ('Binomial', 0, [1000000.0, 1e-06]),
    ('Gamma', 3e-10, [0.5, 1]),
    ('Gamma', 3e-10, [0.5, 1]),
    ('Gamma', 10000000000.0, [0.5, 1]),
]

def rdiff(f, v0):
    v0 = mp.mpf(v0)
    if v0 == 0:
        return mp.diff(f, v0)
    return mp.diff(lambda t: f(v0*(1+t)), 0)/v0
for name, x, p in CASES:
    row = []
    for upper in (False, True):
        v = logf(name, x, p, upper)
        grads = []
        if name not in discrete:
            grads.append(rdiff(lambda t: logf(name, t, p, upper), x))
        else:
            grads.append(mp.mpf(0))
        for i in range(len(p)):
            if (name, i) in intparam:
                grads.append(mp.mpf(0)); continue
            def g(t, i=i):
                q = list(p); q[i] = t
                return logf(name, x, q, upper)
            grads.append(rdiff(g, p[i]))
        row.append((v, grads))
    (lv, lg), (uv, ug) = row
    ps = ", ".join(repr(float(v)) for v in p)
    print('\t\t{"%s", %s, []float64{%s}, %s, %s, []float64{%s}, []float64{%s}},' % (
        name, repr(float(x)), ps, f64(lv), f64(uv),
        ", ".join(f64(g) for g in lg), ", ".join(f64(g) for g in ug)))
