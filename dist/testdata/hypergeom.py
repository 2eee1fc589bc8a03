# Reference values of hypergeometric_2F1, pFq, lmgamma and fmod's
# partials for dist/hypergeom_test.go: python3 hypergeom.py > hypergeom.csv
# Each row: kind, p, q, the p upper and q lower parameters, z, the value,
# its partials in each parameter and in z (mpmath at 50 digits, partials by
# mpmath.diff).
import mpmath as mp

mp.mp.dps = 50


def pfq(a, b, z):
    return mp.hyper(a, b, z)


def row(kind, a, b, z):
    a = [mp.mpf(x) for x in a]
    b = [mp.mpf(x) for x in b]
    z = mp.mpf(z)
    f = pfq(a, b, z)
    parts = []
    for i in range(len(a)):
        parts.append(mp.diff(lambda t: pfq(a[:i] + [t] + a[i + 1:], b, z), a[i]))
    for j in range(len(b)):
        parts.append(mp.diff(lambda t: pfq(a, b[:j] + [t] + b[j + 1:], z), b[j]))
    parts.append(mp.diff(lambda t: pfq(a, b, t), z))
    vals = [kind, str(len(a)), str(len(b))] + [mp.nstr(x, 17) for x in a + b + [z, f] + parts]
    print(",".join(vals))


cases_2f1 = [
    (1, 1, 2, 0.5), (0.5, 1.5, 2.5, -0.3), (2.3, 0.7, 3.1, 0.9), (1.2, -0.4, 0.8, 0.75),
    (0.3, 0.4, 1.7, -2.5), (2, 3, 4.5, -10), (1.5, 2.5, 0.6, 0.2), (-0.7, 1.3, 2.2, 0.6),
    (3, 1.5, 5, -0.95), (0.1, 0.2, 0.3, 0.99), (4.5, 2.2, 6.5, -50), (1, 1, 1.5, -0.5),
    (-3, 2.5, 1.5, 0.7), (-2, 1.5, 2.5, -3), (0.25, 0.75, 1.25, 0.3), (5, 5, 11, 0.97),
    (1, 1, 2, -3000), (2.5, 0.5, 1.5, 0.9995), (10, 12.5, 20.3, 0.8), (0.5, 0.5, 1.5, -0.999), (7.5, -2.5, 3.25, -400),
    (1e-3, 2, 3, 0.5), (30, 0.2, 35, -0.6),
]
for a, b, c, z in cases_2f1:
    row("2F1", [a, b], [c], z)

cases_pfq = [
    ([1.5, 2, 0.5], [2.5, 3], 0.6), ([0.3, 1.2, 2.1], [1.5, 2.8], -0.8), ([1, 1, 1], [2, 2], 0.5),
    ([2.5], [3.5], 4.0), ([0.5], [1.5], -2.0), ([], [1.5], 3.0), ([1.2, 0.7], [2.5, 1.9], -6.0),
    ([0.4, 0.6, 0.8, 1.1], [1.3, 1.7, 2.9], 0.45), ([-2, 1.5, 0.5], [2.5, 3], 0.6), ([1.5], [], 0.3),
    ([0.5], [1.5], -20.0), ([2.5], [1.25], -100.0), ([], [2.5], 60.0), ([3.5], [0.75], 25.0), ([1, 2, 3], [4, 5], -0.99),
    ([1.5, 2], [3], -7.0), ([0.7, 1.3], [2.1, 0.9], 12.0),
    # tiny upper parameters: the first terms are 1e-18 and 1e-22, the sums 2.7e21 and 1.03
    ([1e-20], [1], 100.0), ([1e-12, 1e-12], [1, 1], 60.0),
]
for a, b, z in cases_pfq:
    row("pFq", a, b, z)


def lmg(k, x):
    return k * (k - 1) / mp.mpf(4) * mp.log(mp.pi) + sum(mp.loggamma(x + mp.mpf(1 - j) / 2) for j in range(1, k + 1))


for k, x in [(1, 0.5), (2, 0.7), (3, 1.2), (4, 10.5), (5, 2.01), (10, 40.0), (3, 1e3)]:
    x = mp.mpf(x)
    print(",".join(["lmgamma", str(k), "0", mp.nstr(x, 17), mp.nstr(lmg(k, x), 17), mp.nstr(mp.diff(lambda t: lmg(k, t), x), 17)]))
