# Reference values for dist.Wiener (wiener_test.go): Stan's wiener(y |
# alpha, tau, beta, delta), the first-passage density at the upper
# boundary, at 50 digits. The density is Navarro & Fuss's lower-boundary
# one reflected (v -> -delta, w -> 1 - beta):
#   p(y) = alpha^-2 exp(delta alpha w - delta^2 (y - tau)/2) g((y - tau)/alpha^2, w),
# g summed by the images series with every term above 1e-70 (k in -K..K),
# checked against the Fourier series where both converge fast, and the
# density checked to integrate to P(upper) = (1 - e^(-2 delta alpha beta)) /
# (1 - e^(-2 delta alpha)) (a start at beta alpha, drift delta; the mass
# beyond t = 60 is below e^-290). Partials by mpmath.diff of the log
# density. Run: python3 wiener.py > wiener.json
import json
import mpmath as mp

mp.mp.dps = 50


def g_small(t, w):
    K = int(mp.sqrt(2 * t * 170) / 2) + 3
    s = mp.fsum((w + 2 * k) * mp.exp(-(w + 2 * k) ** 2 / (2 * t)) for k in range(-K, K + 1))
    return s / mp.sqrt(2 * mp.pi * t ** 3)


def g_large(t, w):
    K = int(mp.sqrt(2 * 170 / (mp.pi ** 2 * t))) + 3
    return mp.pi * mp.fsum(k * mp.exp(-k * k * mp.pi ** 2 * t / 2) * mp.sin(k * mp.pi * w) for k in range(1, K + 1))


def logp(y, a, tau, b, v):
    w = 1 - b
    t = (y - tau) / a ** 2
    return -2 * mp.log(a) + v * a * w - v * v * (y - tau) / 2 + mp.log(g_small(t, w))


# self-checks: the two series agree, and the density integrates to P(upper)
for t in [mp.mpf("0.3"), mp.mpf(1), mp.mpf(4)]:
    for w in [mp.mpf("0.01"), mp.mpf("0.5"), mp.mpf("0.97")]:
        assert abs(g_small(t, w) / g_large(t, w) - 1) < mp.mpf("1e-40")
for a, b, v in [(1.3, 0.3, 1.5), (0.8, 0.7, -2.0), (2.0, 0.5, 0.0)]:
    a, b, v = mp.mpf(a), mp.mpf(b), mp.mpf(v)
    mass = mp.quad(lambda y: mp.exp(logp(y, a, 0, b, v)), [0, a * a / 8, a * a, 4 * a * a, 60 * a * a])
    want = b if v == 0 else (1 - mp.exp(-2 * v * a * b)) / (1 - mp.exp(-2 * v * a))
    assert abs(mass / want - 1) < mp.mpf("1e-20"), (mass, want)

rows = []
for a in [0.5, 1.3, 3.0]:
    for b in [0.001, 0.3, 0.5, 0.8, 0.999]:
        for v in [-5.0, -1.0, 0.0, 2.5, 5.0]:
            for t in [0.001, 0.03, 0.2, 0.45, 0.55, 1.5, 8.0]:
                tau = 0.25
                y = tau + t * a * a  # a float64, used exactly
                args = [mp.mpf(y), mp.mpf(a), mp.mpf(tau), mp.mpf(b), mp.mpf(v)]
                lp = logp(*args)
                d = []
                for i in range(5):
                    def f(x, i=i):
                        xs = list(args)
                        xs[i] = x
                        return logp(*xs)
                    d.append(float(mp.diff(f, args[i])))
                rows.append({"y": y, "alpha": a, "tau": tau, "beta": b, "delta": v,
                             "lp": float(lp), "dy": d[0], "dp": d[1:]})
# extremes: y - tau of 1e-10 (alpha 1) and 1e-8 (alpha 10, t = 1e-10),
# |delta| 20, beta 1e-9 and 1 - 1e-9 on both sides of the series switch;
# steps scaled to y - tau and to the nearer end of beta
for y, a, tau, b, v in [(0.25 + 1e-10, 1.0, 0.25, 0.5, 1.0), (0.25 + 1e-8, 10.0, 0.25, 0.5, 1.0),
                        (30.25, 10.0, 0.25, 0.5, 1.0), (60.25, 10.0, 0.25, 0.3, 2.0),
                        (0.55, 1.0, 0.25, 0.4, 20.0), (0.95, 1.0, 0.25, 0.4, -20.0)] + [
        (0.25 + t, 1.0, 0.25, b, v) for t in [0.05, 0.3, 0.45, 0.7, 3.0]
        for b in [1e-9, 1 - 1e-9] for v in [1.0, -1.0]]:
    args = [mp.mpf(y), mp.mpf(a), mp.mpf(tau), mp.mpf(b), mp.mpf(v)]
    steps = [(args[0] - args[2]) * mp.mpf("1e-15"), None, (args[0] - args[2]) * mp.mpf("1e-15"),
             min(args[3], 1 - args[3]) * mp.mpf("1e-15"), None]
    d = []
    for i in range(5):
        def f(x, i=i):
            xs = list(args)
            xs[i] = x
            return logp(*xs)
        d.append(float(mp.diff(f, args[i], h=steps[i])))
    rows.append({"y": y, "alpha": a, "tau": tau, "beta": b, "delta": v,
                 "lp": float(logp(*args)), "dy": d[0], "dp": d[1:]})
print(json.dumps(rows, indent=0))
