# Reference values of hypergeometric_2F1 at and near z = 1 for
# dist/hypergeom_test.go (TestHyp2F1NearOne): python3 hyp2f1_near1.py > hyp2f1_near1.csv
# Each row: a, b, c, z, the value and its partials in a, b, c and z
# (mpmath at 50 digits, which has its own transformations near z = 1;
# partials in a, b, c by mpmath.diff; at z = 1 the z partial is
# ab/c 2F1(a+1, b+1; c+1; 1), inf where c - a - b <= 1).
import mpmath as mp

mp.mp.dps = 50

cases = [
    (0.5, 0.3, 1.7), (2.3, 0.7, 3.1), (-0.7, 1.3, 2.2), (1.5, 2.5, 6.2), (0.5, -1.3, 0.4), (10, 12.5, 25.3),
    (2.5, 0.5, 1.5), (3.3, 1.1, 2.05), (0.3, 0.4, 2.75), (1.25, 0.5, 0.6),
]
for a, b, c in cases:
    a, b, c = mp.mpf(a), mp.mpf(b), mp.mpf(c)
    s = c - a - b
    for z in [mp.mpf(x) for x in (1.0, 1 - 1e-12, 1 - 1e-8, 1 - 1e-5, 0.9995)]:  # the doubles exactly
        if z == 1 and s <= 0:
            continue
        f = mp.hyp2f1(a, b, c, z)
        parts = [mp.diff(lambda t: mp.hyp2f1(t, b, c, z), a), mp.diff(lambda t: mp.hyp2f1(a, t, c, z), b),
                 mp.diff(lambda t: mp.hyp2f1(a, b, t, z), c)]
        if z == 1:
            dz = a * b / c * mp.hyp2f1(a + 1, b + 1, c + 1, 1) if s > 1 else mp.inf
        else:
            dz = mp.diff(lambda t: mp.hyp2f1(a, b, c, t), z)
        print(",".join(mp.nstr(x, 17) for x in [a, b, c, z, f] + parts + [dz]))
