"""Simulates examples/animal.json: an animal model of N = 120 lines in 20
families of 6 full sibs, with a known genomic relationship matrix G and one
phenotype y per line.

    python3 examples/animal_sim.py > examples/animal.json

G is 0.99 A + 0.01 I (blended, as GBLUP blends a genomic G, so that it is
positive definite), A 1 on the diagonal and 0.5 between full sibs, 0
between families. Truth: mu = 10, sigma_a = 0.8, sigma_e = 0.8, so
h² = sigma_a² / (sigma_a² + sigma_e²) = 0.5; u ~ MvNormal(0, sigma_a² G)
drawn as a family effect plus a Mendelian-sampling effect per line.
"""
import json
import math
import random

random.seed(67)
F, S = 20, 6
N = F * S
mu, sa, se = 10.0, 0.8, 0.8
G = [[0.0] * N for _ in range(N)]
for i in range(N):
    for j in range(N):
        a = 1.0 if i == j else (0.5 if i // S == j // S else 0.0)
        G[i][j] = round(0.99 * a + (0.01 if i == j else 0.0), 4)
y = []
for f in range(F):
    fam = random.gauss(0, sa * math.sqrt(0.99 * 0.5))
    for s in range(S):
        u = fam + random.gauss(0, sa * math.sqrt(0.99 * 0.5 + 0.01))
        y.append(round(mu + u + random.gauss(0, se), 3))
print(json.dumps({"y": y, "G": G}, separators=(",", ":")))
