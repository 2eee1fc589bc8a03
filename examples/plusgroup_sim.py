"""Simulates examples/plusgroup.csv: 30 years of counts y of a population whose
survivors carry over with a survival that varies with the year's temperature
anomaly, plus a constant recruitment (a plus group, the linear recursion
N[t] = s[t] N[t-1] + R), counted with Poisson error.

    python3 examples/plusgroup_sim.py > examples/plusgroup.csv

Truth: N[0] = 150, R = 40, s[t] = inv_logit(b0 + b1 temp[t]) with b0 = 1.0,
b1 = 0.8 (s from 0.48 to 0.95 in years 1-29); temp standard normal.
"""
import math
import random

random.seed(12)
T = 30
N0, R, b0, b1 = 150.0, 40.0, 1.0, 0.8


def poisson(lam):
    """A Poisson draw by inversion (lam below a few hundred)."""
    u, k, p = random.random(), 0, math.exp(-lam)
    c = p
    while u > c:
        k += 1
        p *= lam / k
        c += p
    return k


temp = [round(random.gauss(0, 1), 2) for _ in range(T)]
N = [N0]
for t in range(1, T):
    s = 1 / (1 + math.exp(-(b0 + b1 * temp[t])))
    N.append(s * N[-1] + R)
print('year,temp,y')
for t in range(T):
    print('%d,%s,%d' % (1995 + t, temp[t], poisson(N[t])))
