# Reference values for TestStanFuncsReference (lang/autodiff/elemfns_test.go):
# mpmath 1.3 at 60 digits, each argument taken as the exact binary64 value.
# Run: python3 stanfuncs.py > stanfuncs.csv
# Columns: op, x, y, value, d/dx, d/dy (0 where unused).
from mpmath import mp, mpf, exp, log, log1p, expm1, sqrt, pi, tan, sec, asin, acos, sinh, cosh, asinh, \
    acosh, atanh, erf, erfc, cbrt, gamma, loggamma, psi, atan2, hypot, nstr, isinf, gammainc, diff, lambertw, quad, rf, ff, besselj, bessely, besseli, besselk

mp.dps = 60
rows = []


def u(name, xs, f, d):
    for x in xs:
        x = mpf(x)
        rows.append((name, x, 0, f(x), d(x), 0))


u("tan", [-1.5, -0.5, 1e-300, 0.25, 1.0, 1.5707963267948966, 100.0], tan, lambda x: sec(x) ** 2)
u("asin", [-1.0, -0.999999, -0.5, 1e-200, 0.3, 0.9999999999, 1 - 2.0 ** -52], asin,
  lambda x: 1 / sqrt(1 - x * x) if abs(x) < 1 else mp.inf)
u("acos", [-1.0, -0.5, 0.0, 1e-20, 0.7, 0.999999999], acos,
  lambda x: -1 / sqrt(1 - x * x) if abs(x) < 1 else -mp.inf)
u("sinh", [-700.0, -20.0, -1e-8, 1e-300, 0.5, 3.0, 710.0], sinh, cosh)
u("cosh", [-700.0, -2.0, 0.0, 1e-8, 0.5, 30.0, 710.0], cosh, sinh)
u("asinh", [-1e300, -1e10, -3.0, -1e-10, 0.5, 2.0, 1e8, 1e300], asinh, lambda x: 1 / sqrt(1 + x * x))
u("acosh", [1.0, 1 + 2.0 ** -52, 1.0001, 2.0, 50.0, 1e10, 1e300], acosh,
  lambda x: 1 / sqrt(x * x - 1) if x > 1 else mp.inf)
u("atanh", [-(1 - 2.0 ** -53), -0.999999, -0.5, 1e-300, 1e-9, 0.3, 0.99, 0.999999999999, 1 - 2.0 ** -53], atanh,
  lambda x: 1 / (1 - x * x))
u("erf", [-6.0, -1.5, -1e-10, 1e-300, 0.2, 0.84375, 1.0, 2.5, 5.9], erf, lambda x: 2 / sqrt(pi) * exp(-x * x))
u("erfc", [-6.0, -1.0, -1e-12, 0.0, 0.3, 0.84375, 1.25, 2.0, 5.0, 10.0, 15.5, 20.0, 26.0, 27.0], erfc,
  lambda x: -2 / sqrt(pi) * exp(-x * x))
u("exp2", [-1074.0, -1022.5, -30.25, -1e-10, 0.0, 0.5, 10.0, 52.75, 1023.5], lambda x: mpf(2) ** x,
  lambda x: mpf(2) ** x * log(2))
u("log2", [2.2250738585072014e-308, 1e-300, 0.1, 0.75, 0.9999999, 1.0, 1 + 2.0 ** -52, 3.0, 1024.0, 1e300], lambda x: log(x, 2),
  lambda x: 1 / (x * log(2)))
u("log10", [2.2250738585072014e-308, 1e-300, 0.001, 0.5, 0.9999999, 1.0, 1 + 2.0 ** -52, 7.0, 1000.0, 1e22, 1e300], lambda x: log(x, 10), lambda x: 1 / (x * log(10)))
def rcbrt(x):  # the real cube root (mpmath's cbrt is the principal complex one)
    return cbrt(x) if x >= 0 else -cbrt(-x)


u("cbrt", [-1e300, -27.0, -0.001, 1e-300, 0.5, 8.0, 1e10], rcbrt, lambda x: 1 / (3 * rcbrt(x) ** 2))
u("tgamma", [-170.5, -20.5, -2.5, -0.5, 1e-10, 0.5, 1.0, 2.5, 10.0, 33.3, 100.5, 170.5, 171.0], gamma,
  lambda x: gamma(x) * psi(0, x))
u("trigamma", [-20.5, -3.3, -0.5, 1e-8, 0.1, 0.5, 1.0, 1.4616321449683623, 3.0, 9.9, 19.5, 25.0, 1e4, 1e10], lambda x: psi(1, x),
  lambda x: psi(2, x))


def b(name, pairs, f, dx, dy):
    for x, y in pairs:
        x, y = mpf(x), mpf(y)
        rows.append((name, x, y, f(x, y), dx(x, y), dy(x, y)))


def lde(a, c):
    return a + log(-expm1(c - a))


b("log_diff_exp", [(0.0, -1.0), (1.0, 0.999999999), (700.0, 699.0), (-800.0, -800.5), (5.0, -40.0), (1e-3, -1e-3),
                   (40.0, 0.0), (1e-20, 0.0), (1000.0, 1.0)],
  lde, lambda a, c: 1 / (1 - exp(c - a)), lambda a, c: -1 / (exp(a - c) - 1))
b("hypot", [(3.0, 4.0), (1e-300, 1e-300), (1e300, 1e300), (-2.0, 1e-10), (0.0, -5.0), (1.5, 2.5)],
  hypot, lambda x, y: x / hypot(x, y), lambda x, y: y / hypot(x, y))
b("atan2", [(1.0, 1.0), (1e-10, -1.0), (-1e-10, -1.0), (-3.0, 0.5), (2.0, 0.0), (1e300, 1e-300), (0.25, 1e8)],
  atan2, lambda y, x: x / (x * x + y * y), lambda y, x: -y / (x * x + y * y))
b("lmultiply", [(0.0, 0.0), (0.0, 2.0), (1.0, 1.0), (2.5, 1e-300), (-3.0, 0.75), (1e-10, 1 + 2.0 ** -52), (7.0, 1e300)],
  lambda x, y: 0 if x == 0 else x * log(y), lambda x, y: log(y) if y > 0 else -mp.inf,
  lambda x, y: 0 if x == 0 else x / y)
b("binary_log_loss", [(1.0, 0.5), (1.0, 1e-300), (1.0, 1 - 2.0 ** -53), (0.0, 1e-20), (0.0, 0.3), (0.0, 0.999999),
                      (1.0, 0.999)],
  lambda y, p: -log(p) if y else -log1p(-p), lambda y, p: 0, lambda y, p: -1 / p if y else 1 / (1 - p))

def inv_logit(v):
    return 1 / (1 + exp(-v))


def lild(x, y):
    # inv_logit(700) − inv_logit(−700) = 1 − 2e-304 needs 400 digits.
    with mp.workdps(400):
        return +log(inv_logit(x) - inv_logit(y))


b("log_inv_logit_diff", [(1.0, 0.0), (-800.0, -801.0), (40.0, 39.0), (40.0, -40.0), (0.5, 0.4999999999), (1e-10, -1e-10),
                         (700.0, -700.0), (-3.0, -30.0)],
  lambda x, y: lild(x, y),
  lambda x, y: inv_logit(-x) + 1 / expm1(x - y), lambda x, y: -1 / expm1(x - y) - inv_logit(y))

b("log_falling_factorial", [(5.0, 2.0), (1e10, 3.0), (10.0, 0.0), (0.5, -0.5), (3.5, 4.25), (100.25, 1e-3), (1e5, 99999.5)],
  lambda x, n: loggamma(x + 1) - loggamma(x - n + 1), lambda x, n: psi(0, x + 1) - psi(0, x - n + 1),
  lambda x, n: psi(0, x - n + 1))


# The regularised incomplete gamma functions; the partials in a by mpmath's
# numerical differentiation, at 400 digits so that P or Q near 1 keeps
# the digits of its distance from 1 (Q(50, 1) = 1 - 1.2e-65).
def hi(f):
    def g(*args):
        with mp.workdps(400):
            return +f(*args)
    return g


def gp(a, z):
    return gammainc(a, 0, z, regularized=True)


def gq(a, z):
    return gammainc(a, z, mp.inf, regularized=True)


gamma_pts = [(0.5, 1e-10), (1e-3, 0.5), (0.5, 0.5), (2.0, 1.0), (2.0, 30.0), (2.0, 700.0), (10.0, 3.0), (10.0, 25.0),
             (100.0, 90.0), (100.0, 130.0), (1e4, 9900.0), (3.5, 1e-5), (0.1, 50.0), (50.0, 1.0), (1.0, 0.0), (3.0, 0.0)]
b("gamma_p", gamma_pts, gp, hi(lambda a, z: diff(lambda s: gp(s, z), a)),
  lambda a, z: exp(-z) * z ** (a - 1) / gamma(a) if z > 0 else (1 if a == 1 else 0))
b("gamma_q", gamma_pts, gq, hi(lambda a, z: diff(lambda s: gq(s, z), a)),
  lambda a, z: -exp(-z) * z ** (a - 1) / gamma(a) if z > 0 else (-1 if a == 1 else 0))

# Lambert's W: W/(x(1 + W)) (1 at 0 on W0). Near the branch point -1/e
# the condition x W'/W is about 1e8.
u("lambert_w0", [-0.3678794411714422, -0.3678794411714, -0.3, -0.1, -1e-10, 1e-300, 1e-8, 0.5, 1.0, 2.718281828459045,
                 10.0, 1e5, 1e300], lambda x: lambertw(x, 0).real,
  lambda x: (lambertw(x, 0) / (x * (1 + lambertw(x, 0)))).real if x != 0 else mpf(1))
u("lambert_wm1", [-0.3678794411714422, -0.3678794411714, -0.3, -0.25, -0.1, -1e-5, -1e-100, -1e-300],
  lambda x: lambertw(x, -1).real, lambda x: (lambertw(x, -1) / (x * (1 + lambertw(x, -1)))).real)


def owens(h, a):
    return quad(lambda x: exp(-h * h * (1 + x * x) / 2) / (1 + x * x), [0, a]) / (2 * pi)


b("owens_t", [(0.5, 0.5), (0.0, 2.0), (1.0, 1.0), (2.0, 0.1), (-3.0, 0.7), (10.0, 0.3), (5.0, 5.0), (0.3, -20.0),
              (30.0, 1e-3), (1e-3, 1e3), (8.0, 3.0), (1.5, 1.0000001)], owens,
  lambda h, a: -exp(-h * h / 2) / sqrt(2 * pi) * erf(a * h / sqrt(2)) / 2,
  lambda h, a: exp(-h * h * (1 + a * a) / 2) / (2 * pi * (1 + a * a)))
b("log_rising_factorial", [(1e-10, 3.0), (0.5, 0.5), (2.0, 5.0), (1e10, 3.0), (100.25, 1e-3), (3.5, -2.25), (1e5, 1e5),
                           (7.0, 0.0)],
  lambda x, n: loggamma(x + n) - loggamma(x), lambda x, n: psi(0, x + n) - psi(0, x), lambda x, n: psi(0, x + n))
b("rising_factorial", [(2.5, 3.0), (-3.5, 4.0), (-2.0, 5.0), (1e-10, 2.0), (0.5, 40.0), (10.0, 100.0), (-0.5, 0.0)],
  rf, lambda x, n: mp.diff(lambda s: rf(s, n), x), lambda x, n: 0)
b("falling_factorial", [(5.0, 2.0), (2.5, 3.0), (-1.5, 4.0), (3.0, 5.0), (100.5, 40.0), (1e10, 3.0), (4.0, 0.0)],
  ff, lambda x, n: mp.diff(lambda s: ff(s, n), x), lambda x, n: 0)
b("bessel_first_kind", [(0.0, 1.0), (1.0, 0.5), (2.0, 10.0), (5.0, 3.0), (-3.0, 2.5), (0.0, 100.0), (10.0, 1e-3)],
  besselj, lambda n, x: 0, lambda n, x: (besselj(n - 1, x) - besselj(n + 1, x)) / 2)
b("bessel_second_kind", [(0.0, 1.0), (1.0, 0.5), (2.0, 10.0), (5.0, 3.0), (0.0, 100.0), (3.0, 1e-3)],
  bessely, lambda n, x: 0, lambda n, x: (bessely(n - 1, x) - bessely(n + 1, x)) / 2)
b("modified_bessel_second_kind", [(0.0, 1.0), (5.0, 1e-3), (0.0, 700.0), (1.0, 0.5), (3.0, 20.0), (10.0, 2.0), (0.0, 1e-10),
                                  (50.0, 30.0), (2.0, 300.0), (-2.0, 3.5)],
  besselk, lambda n, x: 0, lambda n, x: -(besselk(n - 1, x) + besselk(n + 1, x)) / 2)
b("modified_bessel_first_kind", [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, -2.0), (2.0, -2.0), (3.0, 30.0), (-2.0, 0.5),
                                 (5.0, 700.0), (0.0, 1e-5)],
  besseli, lambda n, x: 0, lambda n, x: (besseli(n - 1, x) + besseli(n + 1, x)) / 2)
b("log_modified_bessel_first_kind", [(0.0, 1.0), (0.5, 30.0), (3.5, 100.0), (10.0, 24.0), (10.0, 26.0), (100.0, 50.0),
                                     (-0.5, 2.0), (0.0, 1e-5), (2.0, 700.0), (0.0, 1e4), (30.0, 800.0), (1.0, 30.0),
                                     (1.0, 24.999), (5.0, 25.0), (-0.999, 0.5), (1e3, 1.0), (7.5, 1e6), (2.0, 0.001),
                                     (50.0, 2600.0)],
  lambda v, z: log(besseli(v, z)), lambda v, z: diff(lambda s: log(besseli(s, z)), v),
  lambda v, z: besseli(v + 1, z) / besseli(v, z) + v / z)

b("fmod", [(7.5, 2.0), (-7.5, 2.0), (1e10 + 0.5, 3.0), (0.3, 0.1), (5.0, -3.0), (-1e-300, 1.0), (2.5, 1e-3)],
  lambda x, y: x - mp.sign(x / y) * mp.floor(abs(x / y)) * y, lambda x, y: 1, lambda x, y: -mp.sign(x / y) * mp.floor(abs(x / y)))
b("ldexp", [(3.0, 4.0), (-1.5, -3.0), (1e-300, -20.0), (0.75, 1000.0), (2.0, 0.0)],
  lambda x, n: x * mpf(2) ** n, lambda x, n: mpf(2) ** n, lambda x, n: 0)


def lmg(k, x):
    return k * (k - 1) / 4 * log(pi) + sum(loggamma(x + (1 - j) / mpf(2)) for j in range(1, int(k) + 1))


b("lmgamma", [(1.0, 0.5), (2.0, 0.7), (3.0, 1.2), (4.0, 10.5), (10.0, 40.0), (3.0, 1e3), (0.0, 2.0), (5.0, 2.0000001)],
  lmg, lambda k, x: 0, lambda k, x: sum(psi(0, x + (1 - j) / mpf(2)) for j in range(1, int(k) + 1)))

print("# op,x,y,value,d/dx,d/dy (mpmath 60 digits; see stanfuncs.py)")
for r in rows:
    print(",".join([r[0]] + [nstr(mpf(v), 20) for v in r[1:]]))
