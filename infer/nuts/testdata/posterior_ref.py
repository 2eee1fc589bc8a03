# Reference values for diag_test.go: the rank-normalised R-hat, bulk and
# tail ESS and MCSE of the mean of Vehtari et al. (2021), written from the
# paper's formulas and the R package posterior's definitions in plain
# Python (no numpy), on the deterministic draws that draws() in
# diag_test.go makes. Run: python3 testdata/posterior_ref.py
import math
from statistics import NormalDist

def draws(chains, n, shift, rounded=True):
    state = 12345
    out = []
    for c in range(chains):
        y = 0.0
        ch = []
        for i in range(n):
            state = (1664525 * state + 1013904223) % 2**32
            u = state / 2**32
            y = 0.7 * y + (u - 0.5) + shift * c
            ch.append(math.floor(y * 20) / 20 if rounded else y)  # rounded: ties
        out.append(ch)
    return out

def split(x):
    n = len(x[0]); h = n // 2
    res = []
    for ch in x:
        res.append(ch[:h]); res.append(ch[n - h:])
    return res

def mean(v): return sum(v) / len(v)
def var(v):
    m = mean(v); return sum((a - m) ** 2 for a in v) / (len(v) - 1)

def zscale(x):
    flat = sorted((v, c, i) for c, ch in enumerate(x) for i, v in enumerate(ch))
    S = len(flat)
    z = [[0.0] * len(ch) for ch in x]
    k = 0
    while k < S:
        j = k
        while j + 1 < S and flat[j + 1][0] == flat[k][0]:
            j += 1
        r = (k + 1 + j + 1) / 2
        val = NormalDist().inv_cdf((r - 3 / 8) / (S - 2 * 3 / 8 + 1))
        for t in range(k, j + 1):
            z[flat[t][1]][flat[t][2]] = val
        k = j + 1
    return z

def rhat_basic(x):
    n = len(x[0])
    B = n * var([mean(ch) for ch in x])
    W = mean([var(ch) for ch in x])
    return math.sqrt((B / W + n - 1) / n)

# The biased autocovariance (1/n) sum_i y_i y_(i+t) by direct lag sums.
# posterior's autocovariance() takes the same sums from an FFT; diag.go
# sums the first lags directly and takes the rest from an FFT (acovFFT):
# all agree to rounding, well inside the tests' 1e-10.
def autocov(ch):
    n = len(ch); m = mean(ch)
    return [sum((ch[i] - m) * (ch[i + t] - m) for i in range(n - t)) / n for t in range(n)]

def ess(x):
    m = len(x); n = len(x[0])
    acov = [autocov(ch) for ch in x]
    mean_var = mean([a[0] for a in acov]) * n / (n - 1)
    var_plus = mean_var * (n - 1) / n + var([mean(ch) for ch in x])
    rho = [0.0] * n
    rho[0] = 1.0
    even = 1.0
    odd = 1 - (mean_var - mean([a[1] for a in acov])) / var_plus
    rho[1] = odd
    t = 0
    while t < n - 5 and even + odd > 0:
        t += 2
        even = 1 - (mean_var - mean([a[t] for a in acov])) / var_plus
        odd = 1 - (mean_var - mean([a[t + 1] for a in acov])) / var_plus
        if even + odd >= 0:
            rho[t] = even; rho[t + 1] = odd
    max_t = t
    if even > 0:
        rho[max_t] = even
    t = 0
    while t <= max_t - 4:
        t += 2
        if rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]:
            rho[t] = (rho[t - 2] + rho[t - 1]) / 2
            rho[t + 1] = rho[t]
    S = m * n
    tau = -1 + 2 * sum(rho[:max(max_t, 1)]) + rho[max_t]
    tau = max(tau, 1 / math.log10(S))
    return S / tau

def quantile7(v, p):
    s = sorted(v); h = (len(s) - 1) * p
    lo = math.floor(h)
    if lo + 1 >= len(s): return s[-1]
    return s[lo] + (h - lo) * (s[lo + 1] - s[lo])

def rhat(x):
    flat = [v for ch in x for v in ch]
    med = quantile7(flat, 0.5)
    folded = [[abs(v - med) for v in ch] for ch in x]
    return max(rhat_basic(zscale(split(x))), rhat_basic(zscale(split(folded))))

def ess_tail(x):
    sx = split(x)
    flat = [v for ch in x for v in ch]  # posterior: quantile of all draws, then split
    res = []
    for p in (0.05, 0.95):
        q = quantile7(flat, p)
        res.append(ess([[1.0 if v <= q else 0.0 for v in ch] for ch in sx]))
    return min(res)

def mcse_mean(x):
    flat = [v for ch in x for v in ch]
    return math.sqrt(var(flat)) / math.sqrt(ess(split(x)))

for shift in (0.0, 0.1):
    x = draws(4, 101, shift)
    print("{%g, %.17g, %.17g, %.17g, %.17g}," % (shift, rhat(x), ess(zscale(split(x))), ess_tail(x), mcse_mean(x)))

# --- mcse.go: posterior's mcse_sd, mcse_quantile and R's mad, transcribed
# from their definitions; the beta quantile is mpmath's regularised
# incomplete beta inverted by bisection at 50 digits (gonum's cephes
# inversion on the Go side).
import mpmath

def qbeta(p, a, b):
    mpmath.mp.dps = 50
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    for _ in range(200):
        mid = (lo + hi) / 2
        if mpmath.betainc(a, b, 0, mid, regularized=True) < p:
            lo = mid
        else:
            hi = mid
    return float((lo + hi) / 2)

def mcse_sd(x):
    flat = [v for ch in x for v in ch]
    m = mean(flat)
    c2 = [[(v - m) ** 2 for v in ch] for ch in x]
    e = ess(split(c2))
    evar = mean([(v - m) ** 2 for v in flat])
    varvar = (mean([(v - m) ** 4 for v in flat]) - evar ** 2) / e
    return math.sqrt(varvar / evar / 4)

def mcse_quantile(x, p):
    flat = [v for ch in x for v in ch]
    q = quantile7(flat, p)
    e = ess([[1.0 if v <= q else 0.0 for v in ch] for ch in split(x)])
    a1 = qbeta(0.1586553, e * p + 1, e * (1 - p) + 1)
    a2 = qbeta(0.8413447, e * p + 1, e * (1 - p) + 1)
    s = sorted(flat); S = len(s)
    th1 = s[max(math.floor(a1 * S), 1) - 1]  # R's 1-based index
    th2 = s[min(math.ceil(a2 * S), S) - 1]
    return (th2 - th1) / 2

def mad(x):
    flat = [v for ch in x for v in ch]
    med = quantile7(flat, 0.5)
    return 1.4826 * quantile7([abs(v - med) for v in flat], 0.5)

print()
for shift in (0.0, 0.1):
    x = draws(4, 101, shift)
    print("{%g, %.17g, %.17g, %.17g, %.17g, %.17g}," % (shift, mcse_sd(x), mcse_quantile(x, 0.05), mcse_quantile(x, 0.5), mcse_quantile(x, 0.95), mad(x)))

# The same chains unrounded (no ties), where the quantile MCSEs are
# differences of distinct order statistics.
print()
for shift in (0.0, 0.1):
    x = draws(4, 101, shift, rounded=False)
    print("{%g, %.17g, %.17g, %.17g, %.17g, %.17g}," % (shift, mcse_sd(x), mcse_quantile(x, 0.05), mcse_quantile(x, 0.5), mcse_quantile(x, 0.95), mad(x)))
