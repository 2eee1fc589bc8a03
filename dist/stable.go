package dist

import "math"

// Log1mexp returns log(1 − e^(−x)) for x > 0 without cancellation: through
// expm1 for small x and log1p for large x (Mächler 2012). It is the log
// probability of a link in the edge partition model.
func Log1mexp(x float64) float64 {
	if x < math.Ln2 {
		return logx(-math.Expm1(-x))
	}
	return math.Log1p(-math.Exp(-x))
}

// Softplus returns log(1 + e^x) without overflow.
func Softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// InvLogit returns 1 / (1 + e^(−x)) without overflow.
func InvLogit(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// Inside returns v, or the float next to lo or hi inside (lo, hi) if v is
// on or past that end: the value of a latent whose exact value lies
// strictly inside an interval but whose computed value rounded onto an end
// (−1 + 2·InvLogit(40) is 1 in floats). NaN stays NaN.
func Inside(v, lo, hi float64) float64 {
	switch {
	case v <= lo:
		return math.Nextafter(lo, hi)
	case v >= hi:
		return math.Nextafter(hi, lo)
	}
	return v
}
