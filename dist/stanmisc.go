package dist

import "math"

// Stan's fmod, ldexp and lmgamma: a remainder, a scaling by a power of 2
// and the log of the multivariate gamma function.

// Fmod returns the remainder of x / y with the sign of x, x − trunc(x/y) y
// (C's fmod, Stan's fmod; Go's math.Mod): NaN for y = 0 or an infinite x.
func Fmod(x, y float64) float64 { return math.Mod(x, y) }

// FmodGrad returns the partials of Fmod, 1 and −trunc(x/y) (the quotient
// is constant between the jumps at multiples of y). The quotient is the
// one Fmod's exact remainder implies, (x − Fmod(x, y))/y rounded, not
// trunc of the rounded x/y: 2.5/0.001 rounds up to 2500, but the double
// 0.001 goes into 2.5 only 2499 times.
func FmodGrad(x, y float64) (dx, dy float64) {
	if y == 0 || math.IsInf(x, 0) || math.IsNaN(x) || math.IsNaN(y) {
		return math.NaN(), math.NaN()
	}
	if math.IsInf(y, 0) {
		return 1, 0
	}
	return 1, -math.Round((x - math.Mod(x, y)) / y)
}

// Ldexp returns x 2ⁿ for an integer n (a float64 holding one; NaN
// otherwise), exactly unless it overflows or underflows.
func Ldexp(x, n float64) float64 {
	if n != math.Trunc(n) {
		return math.NaN()
	}
	return math.Ldexp(x, int(max(min(n, 1<<20), -1<<20))) // beyond ±2²⁰ the result is ±Inf or 0 already
}

// LdexpGrad returns the partial of Ldexp in x, 2ⁿ (n is an int: no
// partial).
func LdexpGrad(x, n float64) float64 { return Ldexp(1, n) }

// Lmgamma returns log Γ_k(x), the log of the multivariate gamma function
// of an integer dimension k ≥ 0, k(k − 1)/4 log π + Σ_{j=1..k} lgamma(x +
// (1 − j)/2), for x > (k − 1)/2 (NaN elsewhere; 0 at k = 0, an empty
// product, for any x but NaN, as Stan's).
func Lmgamma(k, x float64) float64 {
	if !lmgammaDomain(k, x) {
		return math.NaN()
	}
	s := k * (k - 1) / 4 * math.Log(math.Pi)
	for j := 1.0; j <= k; j++ {
		lg, _ := math.Lgamma(x + (1-j)/2)
		s += lg
	}
	return s
}

// LmgammaGrad returns the partial of Lmgamma in x, Σ_{j=1..k} ψ(x + (1 −
// j)/2) (k is an int: no partial).
func LmgammaGrad(k, x float64) float64 {
	if !lmgammaDomain(k, x) {
		return math.NaN()
	}
	s := 0.0
	for j := 1.0; j <= k; j++ {
		s += Digamma(x + (1-j)/2)
	}
	return s
}

// lmgammaDomain reports whether Lmgamma(k, x) is defined: k an int in [0,
// 1e7] and x > (k − 1)/2, or k = 0 and x not NaN.
func lmgammaDomain(k, x float64) bool {
	if !(k >= 0 && k == math.Trunc(k) && k <= 1e7) || math.IsNaN(x) {
		return false
	}
	return k == 0 || x > (k-1)/2
}
