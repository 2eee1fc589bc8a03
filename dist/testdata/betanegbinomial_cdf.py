"""Reference log tails of BetaNegBinomial(r, a, b) for betanegbinomial_cdf_test.go.

Writes betanegbinomial_cdf.csv: r, a, b, k, log P(Y <= k), log P(Y > k) and
the partials of log P(Y > k) in r, a and b. P(Y > k) is 1 minus the masses
0..k summed at 90 digits for k <= 6000, and otherwise the transformed
closed form p_(k+1) * (k+a+b+r)/a * 3F2(1, 1-r, 1-b; k+2, a+1; 1), its
series summed here term by term (mpmath's hyp3f2 at unit argument is wrong
for some of these: 3F2(1, 1.5, 1.3; 39, 2.3)... and at k = 1e6); the
identity with the summed complement is asserted on the rows where the
series converges quickly (k + a + b + r >= 30). The partials are mpmath's numerical derivatives of
the 60-digit log tail. Run: python3 betanegbinomial_cdf.py > betanegbinomial_cdf.csv
"""
from mpmath import mp, mpf, loggamma, exp, log, log1p, diff, fsum

mp.dps = 40


def logp(k, r, a, b):
    return (loggamma(k + r) - loggamma(k + 1) - loggamma(r) + loggamma(a + r) + loggamma(b + k)
            - loggamma(a + b + r + k) - loggamma(a) - loggamma(b) + loggamma(a + b))


def upper_sum(k, r, a, b):
    with mp.workdps(90):  # a tail of 1e-40 keeps 50 digits
        return +(1 - fsum(exp(logp(j, r, a, b)) for j in range(int(k) + 1)))


def thomae_series(k, r, a, b):
    """3F2(1, 1-r, 1-b; k+2, a+1; 1) summed until, past u = max(r, b), the
    bound t_j (k+1+u)/(k+r) on the rest is below 1e-45 of the sum."""
    t, s, j = mpf(1), mpf(1), 0
    while True:
        u = j + 1
        t *= (u - r) * (u - b) / ((k + 1 + u) * (a + u))
        s += t
        if u >= max(r, b) and abs(t) * (k + 1 + u) / (k + r) < mpf('1e-45') * abs(s):
            return s
        j += 1


def upper_thomae(k, r, a, b):
    return exp(logp(k + 1, r, a, b)) * (k + a + b + r) / a * thomae_series(k, r, a, b)


def upper(k, r, a, b):
    return upper_sum(k, r, a, b) if k <= 6000 else upper_thomae(k, r, a, b)


def logupper(k, r, a, b):
    if k <= 6000:
        low = fsum(exp(logp(j, r, a, b)) for j in range(int(k) + 1))
        if low < 0.5:
            return log1p(-low)
    return log(upper(k, r, a, b))


cases = []
for r in ['0.5', '2.5', '40', '1000']:
    for a in ['0.5', '1.5', '7']:
        for b in ['0.3', '3.2', '60']:
            for k in [0, 1, 5, 37, 400]:
                cases.append((r, a, b, k))
cases += [('1e-6', '0.5', '0.5', 0), ('1e-6', '0.5', '0.5', 3), ('0.5', '2', '1e-5', 0), ('0.5', '2', '1e-5', 10),
          ('3', '0.05', '2', 100), ('3', '0.05', '2', 20000), ('0.5', '0.5', '0.5', 1000000),
          ('2', '4', '1', 1000000), ('1e4', '3', '2', 10), ('1e4', '3', '2', 5000), ('50', '30', '80', 100), ('2.5', '0.5', '3.2', 2500),
          ('0.7', '12', '0.4', 50), ('5', '0.8', '5', 123456789), ('1', '1', '1', 7), ('2', '3', '4', 2)]

print("# r,a,b,k,log P(Y<=k),log P(Y>k),d/dr,d/da,d/db of log P(Y>k); betanegbinomial_cdf.py")
for r, a, b, k in cases:
    r, a, b = mpf(r), mpf(a), mpf(b)
    if k <= 6000:
        low = fsum(exp(logp(j, r, a, b)) for j in range(int(k) + 1))
        u = upper_sum(k, r, a, b)
        lc = log(low)
        lu = log1p(-low) if low < 0.5 else log(u)  # 1 - low keeps no digits of a low near 0
    else:
        u = upper_thomae(k, r, a, b)
        lc, lu = log1p(-u), log(u)
    if k <= 6000 and k + a + b + r >= 30 and max(r, b) < 100:
        v = upper_thomae(k, r, a, b)
        assert abs(v / u - 1) < mpf('1e-25'), (r, a, b, k, u, v)
    g = [diff(lambda v: logupper(k, v, a, b), r), diff(lambda v: logupper(k, r, v, b), a),
         diff(lambda v: logupper(k, r, a, v), b)]
    print(','.join(mp.nstr(x, 20) for x in [r, a, b, k, lc, lu] + g))
