"""Simulates examples/schaefer.csv: 30 years of catch C and an abundance index I
from the Schaefer surplus-production model in depletion form (P = B/K,
Meyer & Millar 1999), with log-normal process and observation errors.

    python3 examples/schaefer_sim.py > examples/schaefer.csv

Truth: r = 0.35, K = 5000, q = 0.0004, sigma = 0.08, tau = 0.15, P[0] = 0.95;
the last year's biomass is 0.239 K (1194), below B_MSY = K/2; MSY = rK/4 = 437.5.
"""
import math
import random

random.seed(30)
T = 30
r, K, q, sigma, tau = 0.35, 5000.0, 0.0004, 0.08, 0.15
C, P, I = [], [0.95], []
for t in range(T):
    # harvest rate: rises over 15 years, then eases after year 18
    h = 0.05 + 0.25 * min(t, 15) / 15 - (0.12 * max(t - 18, 0) / 12)
    Ct = h * P[-1] * K
    C.append(round(Ct, 1))
    if t < T - 1:
        m = P[-1] + r * P[-1] * (1 - P[-1]) - Ct / K
        P.append(max(m, 0.01) * math.exp(random.gauss(0, sigma)))
for t in range(T):
    I.append(round(q * K * P[t] * math.exp(random.gauss(0, tau)), 4))
print('year,C,I')
for t in range(T):
    print('%d,%s,%s' % (1990 + t, C[t], I[t]))
