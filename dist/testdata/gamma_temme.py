#!/usr/bin/env python3
"""Reference values for the large-shape (Temme) branch of d log x/da.

Not run by go test. Writes gamma_temme.csv (a, x, d log x/da), read by
TestGammaTemme: for each shape a and each eta of etas(a) (the branch covers
|eta| <= 1), x = a*lambda rounded to a float64, where
lambda - 1 - log(lambda) = eta^2/2, and the reference is computed at that
float x with gamma_reference.py's independent mpmath derivative (60 digits and more in
the tails, where P or Q is within exp(-a eta^2/2) of 1).
Run from the repository root: python3 dist/testdata/gamma_temme.py
"""
import os
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gamma_reference import dlogx_da  # noqa: E402

mp.mp.dps = 60


def lam(eta):
    eta = mp.mpf(eta)
    if eta == 0:
        return mp.mpf(1)
    def f(l):
        return l - 1 - mp.log(l) - eta ** 2 / 2
    if abs(eta) > 1.2:  # the tails at small shapes: bracket the root
        tiny = mp.mpf(10) ** -30
        lo, hi = (tiny, 1 - tiny) if eta < 0 else (1 + tiny, mp.mpf(100))
        return mp.findroot(f, (lo, hi), solver="anderson")
    return mp.findroot(f, 1 + eta + eta ** 2 / 3)


def etas(a):
    """z = eta*sqrt(a) from -8 to 8 standard deviations (what draws reach),
    and |eta| = 0.999, 1.05 each side of the branch edge for the smaller shapes."""
    e = [z / a ** 0.5 for z in [-8, -3, -1, -0.1, 0, 0.1, 1, 3, 8]]
    if a <= 300:
        e += [-1.05, -0.999, 0.999, 1.05]
    return e


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "gamma_temme.csv"), "w") as f:
        f.write("# a,x,dlogxda (mpmath; see gamma_temme.py)\n")
        for a in [14.5, 15, 20, 30, 50, 99.5, 100, 137.25, 300, 1e3, 1e4, 1e5, 1e6]:
            for eta in etas(a):
                # x p(x) ~ exp(-a eta^2/2): carry that many digits more.
                mp.mp.dps = 60 + int(a * eta * eta / 2 / 2.3)
                x = float(a * lam(eta))
                g = dlogx_da(a, mp.log(mp.mpf(x)))
                f.write("%r,%r,%s\n" % (a, x, mp.nstr(g, 22)))
                f.flush()
