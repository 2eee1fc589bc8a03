#!/usr/bin/env python3
"""Reference values for TestGLMReference (mpmath, 100 digits).

Not run by go test. Writes glm.csv: one row per case, family (0
PoissonLog(eta), 1 BinomialLogit(n, eta)), n (0 for PoissonLog, unused),
eta, k, the log mass and its partial in eta.
Run from the repository root:
    python3 dist/testdata/glm.py > dist/testdata/glm.csv

The inputs are the exact float64 values written in the file. The log
masses are the textbook formulas on the linear-predictor scale,
k*eta - exp(eta) - log k! and log C(n, k) + k*log s(eta) +
(n - k)*log s(-eta) with log s(x) = -log1p(exp(-x)), at 100 digits, which
keep every digit at |eta| = 700 and n = 1e15. The partials are central
differences of those log masses with a step of 1e-30 (truncation error
about 1e-60 relative), so they do not share the Go code's formulas.
"""
import mpmath as mp

mp.mp.dps = 100


def poisson_log(eta, k):
    return k * eta - mp.exp(eta) - mp.loggamma(k + 1)


def log_sigmoid(x):
    return -mp.log1p(mp.exp(-x))


def binomial_logit(n, eta, k):
    lc = mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)
    return lc + k * log_sigmoid(eta) + (n - k) * log_sigmoid(-eta)


def deriv(f, eta):
    h = max(abs(eta), mp.mpf(1)) * mp.mpf(10) ** -30
    return (f(eta + h) - f(eta - h)) / (2 * h)


POISSON = [  # eta, k
    (0.0, 0.0),
    (0.0, 3.0),
    (1.5, 2.0),
    (-2.0, 0.0),
    (-2.0, 1.0),
    (2.3, 10.0),
    (2.3, 3.0),
    (10.0, 22026.0),
    (10.0, 21900.0),
    (23.0, 9744803446.0),
    (23.0, 9744900000.0),
    (-50.0, 0.0),
    (-50.0, 3.0),
    (50.0, 5.184705528587072e21),
    (50.0, 0.0),
    (-700.0, 0.0),
    (-700.0, 5.0),
    (-800.0, 2.0),  # exp(eta) underflows: Poisson(exp(eta)) has rate 0
    (700.0, 0.0),
    (36.0, 4311231547115195.0),  # k near exp(36), below 2**53
    (-3.5, 40.0),
]

BINOMIAL = [  # n, eta, k
    (1.0, 0.3, 1.0),
    (1.0, -0.3, 0.0),
    (10.0, 0.0, 5.0),
    (10.0, 2.0, 9.0),
    (10.0, -2.0, 0.0),
    (20.0, 50.0, 20.0),
    (20.0, 50.0, 19.0),  # inv_logit(50) rounds to 1
    (20.0, -50.0, 0.0),
    (20.0, -50.0, 1.0),
    (5.0, 700.0, 5.0),
    (5.0, 700.0, 3.0),
    (5.0, -700.0, 0.0),
    (5.0, -700.0, 2.0),
    (100.0, 36.0, 100.0),
    (100.0, 40.0, 99.0),
    (1000.0, 1.2, 770.0),
    (1000.0, -745.0, 1.0),  # inv_logit(eta) subnormal
    (1e9, -0.8473, 3e8),
    (1e9, 0.5, 622459331.0),
    (1e15, 0.0, 5e14),
    (1e15, 30.0, 999999999999906.0),  # n*s(-eta) = 93.6
    (7.0, 1e-10, 3.0),
]

print("# family,n,eta,k,logp,deta (family 0 PoissonLog(eta), n unused; 1 BinomialLogit(n, eta));")
print("# mpmath 100 digits, the partial by a central difference at 100 digits; see glm.py")
for n, eta, k in [(0.0, e, k) for e, k in POISSON] + BINOMIAL:
    if n == 0:
        fam, f = 0, lambda e, k=k: poisson_log(e, mp.mpf(k))
    else:
        fam, f = 1, lambda e, n=n, k=k: binomial_logit(mp.mpf(n), e, mp.mpf(k))
    lp = f(mp.mpf(eta))
    d = deriv(f, mp.mpf(eta))
    row = [repr(n), repr(eta), repr(k)] + [mp.nstr(v, 22, min_fixed=-5, max_fixed=5) for v in (lp, d)]
    print(f"{fam}," + ",".join(row))
