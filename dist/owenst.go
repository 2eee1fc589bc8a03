package dist

import "math"

// Stan's owens_t: Owen's T function
//
//	T(h, a) = 1/(2π) ∫₀^a exp(−h²(1 + x²)/2)/(1 + x²) dx,
//
// with its partials ∂T/∂h = −φ(h)·(Φ(ah) − ½) = −φ(h)·erf(ah/√2)/2 and
// ∂T/∂a = exp(−h²(1 + a²)/2)/(2π(1 + a²)). T is even in h and odd in a.
// For 0 ≤ a ≤ 1 it is the integral, with e^(−h²/2) taken out (so that it
// keeps its relative digits however small) and x = a·t: a/(2π)·e^(−h²/2)·
// ∫₀¹ e^(−s²t²/2)/(1 + a²t²) dt, s = ah, cut where e^(−s²t²/2) < 1e-18
// (t = 9/s) and summed by 20-point Gauss–Legendre (skewnormal_cdf.go's rule) on panels of s·t width
// at most 1.5. For a > 1 it is Owen's identity (h ≥ 0)
// T(h, a) = ½(Q(h) + Q(ah)) − Q(h)·Q(ah) − T(ah, 1/a), Q the standard
// normal upper tail (Phi(−x)), each term positive and computed as itself.

// OwensT returns Owen's T function T(h, a) for real h and a (NaN for a NaN
// argument): arctan(a)/(2π) at h = 0, ±Q(|h|)/2 as a → ±∞.
func OwensT(h, a float64) float64 {
	if math.IsNaN(h) || math.IsNaN(a) {
		return math.NaN()
	}
	sign := 1.0
	if a < 0 {
		sign, a = -1, -a
	}
	h = math.Abs(h)
	return sign * owensT(h, a)
}

// owensT is T(h, a) for h ≥ 0, a ≥ 0.
func owensT(h, a float64) float64 {
	switch {
	case a == 0:
		return 0
	case math.IsInf(a, 1):
		return Phi(-h) / 2
	case h == 0:
		return math.Atan(a) / (2 * math.Pi)
	case a <= 1:
		return owensTIntegral(h, a)
	}
	ah := a * h
	qh, qah := Phi(-h), Phi(-ah) // the upper tails Q
	return 0.5*(qh+qah) - qh*qah - owensTIntegral(ah, 1/a)
}

// owensTIntegral is T(h, a) for h > 0, 0 < a ≤ 1 by the quadrature.
func owensTIntegral(h, a float64) float64 {
	s := a * h
	top := 1.0
	if s > 9 {
		top = 9 / s
	}
	panels := max(2, int(math.Ceil(s*top/1.5)))
	width := top / float64(panels)
	sum := 0.0
	for k := range panels {
		mid := (float64(k) + 0.5) * width
		for i, x := range gl20x { // the nodes ±x
			for _, t := range [2]float64{mid + 0.5*width*x, mid - 0.5*width*x} {
				st := s * t
				sum += gl20w[i] * math.Exp(-st*st/2) / (1 + a*a*t*t)
			}
		}
	}
	return a / (2 * math.Pi) * math.Exp(-h*h/2) * sum * 0.5 * width
}

// OwensTGrad returns ∂T/∂h and ∂T/∂a.
func OwensTGrad(h, a float64) (dh, da float64) {
	if math.IsNaN(h) || math.IsNaN(a) {
		return math.NaN(), math.NaN()
	}
	dh = -NormalDensity(h) * math.Erf(a*h/math.Sqrt2) / 2
	if math.IsInf(a, 0) {
		return dh, 0
	}
	a2 := 1 + a*a
	da = math.Exp(-h*h*a2/2) / (2 * math.Pi * a2)
	return dh, da
}
