# Reference values of log B(a, b) for TestLogBeta: mpmath 1.3 at 60 digits.
# Run: python3 logbeta.py > logbeta.csv
from mpmath import mp, mpf, loggamma, nstr

mp.dps = 60
pts = [
    (0.5, 0.5), (1e-300, 1), (1e-3, 1e-3), (1, 1), (2.5, 3.5), (5, 15),
    (9.9, 10.1), (10, 10), (10, 0.25), (12.5, 1e3), (1e5, 3), (1e5, 1e5),
    (1e-10, 1e10), (0.5, 1e10), (3, 1e12), (1e10, 1e10), (2.5, 1e15),
    (1e8, 1e14), (1e300, 1e300), (1e-5, 30), (30, 30.5),
]
print("# a,b,logbeta (mpmath, 60 digits; see logbeta.py)")
for a, b in pts:
    a, b = mpf(a), mpf(b)
    v = loggamma(a) + loggamma(b) - loggamma(a + b)
    print(f"{nstr(a, 17)},{nstr(b, 17)},{nstr(v, 20)}")
