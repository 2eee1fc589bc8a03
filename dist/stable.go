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
